"""What Graph mode accepts: the one table of rejected constructs, and a static checker over it.

Each `Rule` names a construct that Graph mode refuses, why, and what to do instead. The compiler
raises `GraphCompileError` from these rules; the language server turns `check()` findings into
diagnostics; the Jupyter kernel renders the same hint after a failed cell. This module is plain
data plus an AST walk: it imports nothing from the rest of Spore and runs no user code, so the
language server can use it on any file.

`check(source_or_ast)` finds what can be seen from the source alone (a `try`, a `global`, an
assignment to `self.x`, a call to `time.time()`...) inside the code Graph mode would compile:
`construct` methods of classes and functions decorated with `jit`. What depends on runtime values
(a call into an arbitrary Python object, a data-dependent `.item()`) is found by the compiler
itself, which reports it with the same rule.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

PYNATIVE_HINT = "ms.set_context(mode=ms.PYNATIVE_MODE)"


@dataclass(frozen=True)
class Rule:
    """One construct Graph mode rejects."""

    id: str
    construct: str   # what the user wrote, in words
    reason: str      # why Graph mode cannot compile it without changing what it does
    fix: str         # what to do instead


_RULES = [
    Rule("try", "try/except", "exceptions are not part of the compiled graph: the handler would never run",
         "move the try/except outside construct (around the call), or debug with " + PYNATIVE_HINT),
    Rule("with", "with statement", "context managers run Python code on enter/exit that a graph cannot hold",
         "move the with block outside construct, or use @ms.jit on the code inside it only"),
    Rule("generator", "yield / generator", "a graph returns once; it cannot suspend and resume",
         "collect the values in a list and return a tuple, or use a for loop over range()"),
    Rule("global", "global / nonlocal statement",
         "the graph would read the variable once at compile time and never update it",
         "pass the value in as an argument and return the new value"),
    Rule("async", "async / await", "coroutines cannot be compiled into a graph", "use a plain function"),
    Rule("outer_lambda", "a lambda defined outside the compiled code and called from it",
         "its source line cannot be told apart from the code around it, so it cannot be inlined",
         "define it with def (at module level, or inside construct), or as a lambda inside construct"),
    Rule("class_def", "class defined inside construct",
         "a class statement creates a new type on every call, which a graph cannot hold",
         "define the class at module level"),
    Rule("import", "import inside construct", "imports run Python code at compile time only",
         "import at the top of the file"),
    Rule("self_assign", "assignment to self.<attr> in construct",
         "the graph keeps only the first call's value: later calls would silently see stale state",
         "return the value from construct, or keep it in a Parameter and update it with ops.assign"),
    Rule("container_mutation", "mutating a list/dict held by self or a global (append, update, ...)",
         "the graph would run the mutation once at compile time, leaving the container empty or stale",
         "build a local list inside construct and return it as a tuple"),
    Rule("impure_call", "call into time/random/os/sys/IO",
         "the call would run once at compile time and its result be frozen into the graph",
         "call it outside construct and pass the result in as an argument"),
    Rule("print", "print() of values inside construct",
         "print would run once at compile time and show tracer placeholders, not values",
         "use ops.print_(x), or debug with " + PYNATIVE_HINT),
    Rule("python_value_of_tensor", "converting a tensor to a Python value (.item(), .asnumpy(), float(t), ...)",
         "the value is only known when the graph runs, not when it is compiled",
         "keep it a tensor (use ops such as ops.where), or debug with " + PYNATIVE_HINT),
    Rule("value_dependent_shape", "an op whose output size depends on tensor values (unique, nonzero, "
         "masked_select, x[mask])", "the graph is compiled for fixed shapes, and this size is only known when it runs",
         "keep the shape (ops.where(mask, x, 0), ops.masked_fill), or run it in " + PYNATIVE_HINT),
    Rule("dynamic_raise", "raise/assert with a computed message",
         "the message would be built at compile time from placeholder values",
         "use a constant string message"),
    Rule("tensor_break", "break/continue that depends on a tensor value",
         "loops are unrolled at compile time, so the exit must be known then",
         "use a while loop on a tensor condition, or ops.where to mask results"),
    Rule("cell_hook", "forward hooks on a Cell called inside compiled code",
         "hooks are Python callbacks that a graph cannot run at the right moment",
         "register hooks on the top-level Cell only, or debug with " + PYNATIVE_HINT),
    Rule("unsupported_call", "call to a Python object Graph mode cannot compile",
         "only spore ops, Tensor methods, Cells, and functions whose source can be read are compiled",
         "compute it outside construct and pass the result in, or use @ms.jit(fullgraph=False)"),
    Rule("unsupported_syntax", "unsupported Python syntax", "this statement or expression is not in Graph mode's "
         "supported subset", "rewrite it with the supported subset, or debug with " + PYNATIVE_HINT),
]
RULES: dict[str, Rule] = {r.id: r for r in _RULES}

# Module names whose calls have effects or results that differ per call (checked by root name).
IMPURE_MODULES = frozenset({"time", "random", "os", "sys", "datetime", "uuid", "secrets", "io", "socket",
                            "subprocess", "shutil", "pathlib", "logging", "threading", "pickle"})
IMPURE_BUILTINS = frozenset({"open", "input", "exec", "eval", "compile", "breakpoint", "id", "globals",
                             "locals", "vars", "setattr", "delattr"})
TENSOR_TO_PYTHON = frozenset({"item", "asnumpy", "numpy", "tolist", "__float__", "__int__", "__bool__"})
# Builtins Graph mode evaluates at compile time (the frontend's `_SAFE_BUILTINS`, kept equal by
# tests/compiler/test_support_table.py); calling any other builtin in compiled code is `unsupported_call`.
COMPILE_TIME_BUILTINS = frozenset({
    "len", "range", "isinstance", "issubclass", "int", "float", "bool", "str", "tuple", "list", "dict", "zip",
    "enumerate", "min", "max", "abs", "sum", "all", "any", "reversed", "sorted", "getattr", "hasattr", "type",
    "round", "divmod", "pow", "slice", "map", "filter", "set", "frozenset", "repr", "hash", "callable", "iter",
    "next", "super",
})
MUTATING_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
                              "popitem", "add", "discard", "sort", "reverse"})


@dataclass(frozen=True)
class Finding:
    """One use of a rejected construct, at a 1-based line and 0-based column span."""

    rule: Rule
    line: int
    col: int
    end_line: int
    end_col: int
    scope: str       # "Net.construct" or the jit function's name

    @property
    def message(self) -> str:
        return f"Graph mode does not support {self.rule.construct}: {self.rule.reason}"

    @property
    def hint(self) -> str:
        return self.rule.fix


def _is_jit_decorator(dec: ast.expr) -> bool:
    target = dec.func if isinstance(dec, ast.Call) else dec
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    return name == "jit"


def compiled_functions(tree: ast.AST) -> list[tuple[str, ast.FunctionDef]]:
    """The functions Graph mode would compile: `construct` methods and `@jit` functions."""
    found: list[tuple[str, ast.FunctionDef]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                        item.name == "construct" or any(_is_jit_decorator(d) for d in item.decorator_list)):
                    found.append((f"{node.name}.{item.name}", item))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                _is_jit_decorator(d) for d in node.decorator_list):
            if not any(node is f for _, f in found):
                found.append((node.name, node))
    return found


class _Checker(ast.NodeVisitor):
    """Walks one compiled function's body and records findings."""

    def __init__(self, scope: str, self_name: str | None, aliases: dict[str, str]):
        self.scope = scope
        self.self_name = self_name
        self.aliases = aliases  # local name -> module it imports (import time as t  =>  t -> time)
        self.findings: list[Finding] = []
        self.global_names: set[str] = set()
        self.in_test = 0  # > 0 inside an if/while/ternary condition

    def add(self, rule_id: str, node: ast.AST) -> None:
        self.findings.append(Finding(RULES[rule_id], node.lineno, node.col_offset,
                                     getattr(node, "end_lineno", node.lineno) or node.lineno,
                                     getattr(node, "end_col_offset", node.col_offset) or node.col_offset,
                                     self.scope))

    # statements ---------------------------------------------------------------------------
    def visit_Try(self, node: ast.AST) -> None:
        self.add("try", node)
        self.generic_visit(node)

    visit_TryStar = visit_Try

    def visit_With(self, node: ast.AST) -> None:
        self.add("with", node)
        self.generic_visit(node)

    def visit_AsyncWith(self, node: ast.AST) -> None:
        self.add("async", node)

    visit_AsyncFor = visit_AsyncWith
    visit_Await = visit_AsyncWith

    def visit_Global(self, node: ast.Global) -> None:
        self.global_names.update(node.names)
        self.add("global", node)

    visit_Nonlocal = visit_Global

    def visit_Yield(self, node: ast.AST) -> None:
        self.add("generator", node)

    visit_YieldFrom = visit_Yield

    def visit_ClassDef(self, node: ast.AST) -> None:
        self.add("class_def", node)

    def visit_AsyncFunctionDef(self, node: ast.AST) -> None:
        self.add("async", node)

    def visit_Import(self, node: ast.AST) -> None:
        self.add("import", node)

    visit_ImportFrom = visit_Import

    def _check_target(self, target: ast.expr) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self._check_target(t)
        elif isinstance(target, ast.Starred):
            self._check_target(target.value)
        elif isinstance(target, (ast.Attribute, ast.Subscript)) and self._rooted_at_self(target.value):
            self.add("self_assign", target)

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            self._check_target(t)
        self.visit(node.value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._check_target(node.target)
        self.visit(node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._check_target(node.target)
        if node.value is not None:
            self.visit(node.value)

    def _constant_message(self, msg: ast.expr | None) -> bool:
        return msg is None or isinstance(msg, ast.Constant) or (
            isinstance(msg, ast.Call) and all(isinstance(a, ast.Constant) for a in msg.args) and not msg.keywords)

    def visit_Raise(self, node: ast.Raise) -> None:
        exc = node.exc
        if isinstance(exc, ast.Call):
            if not self._constant_message(exc.args[0] if exc.args else None) or len(exc.args) > 1:
                self.add("dynamic_raise", node)
        elif exc is not None and not isinstance(exc, ast.Name):
            self.add("dynamic_raise", node)
        if isinstance(node.exc, ast.Call):
            self.visit(node.exc)

    def visit_Assert(self, node: ast.Assert) -> None:
        if not self._constant_message(node.msg):
            self.add("dynamic_raise", node)
        self.in_test += 1  # compiled as a check on a tensor condition, like an if's test
        self.visit(node.test)
        self.in_test -= 1

    def _visit_with_test(self, node: ast.AST, test: ast.expr) -> None:
        """A condition may read tensor values (`if t.item() > 0`): Graph mode lowers it to a
        tensor condition, so the value conversions in it are not findings."""
        self.in_test += 1
        self.visit(test)
        self.in_test -= 1
        for name, value in ast.iter_fields(node):
            if name == "test":
                continue
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    self.visit(child)

    def visit_If(self, node: ast.If) -> None:
        self._visit_with_test(node, node.test)

    def visit_While(self, node: ast.While) -> None:
        self._visit_with_test(node, node.test)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self._visit_with_test(node, node.test)

    # expressions --------------------------------------------------------------------------
    def _rooted_at_self(self, node: ast.expr) -> bool:
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        return isinstance(node, ast.Name) and node.id == self.self_name

    def _root_name(self, node: ast.expr) -> str | None:
        while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
            node = node.func if isinstance(node, ast.Call) else node.value
        return node.id if isinstance(node, ast.Name) else None

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name):
            if func.id == "print":
                self.add("print", node)
            elif func.id in IMPURE_BUILTINS:
                self.add("impure_call", node)
        elif isinstance(func, ast.Attribute):
            root = self._root_name(func)
            module = self.aliases.get(root or "", root)
            if module in IMPURE_MODULES or (module == "numpy" and _mentions(func, "random")):
                self.add("impure_call", node)
            elif func.attr in TENSOR_TO_PYTHON and not node.args and not self.in_test:
                self.add("python_value_of_tensor", node)
            elif func.attr in MUTATING_METHODS and (
                    self._rooted_at_self(func.value) or (root in self.global_names)):
                self.add("container_mutation", node)
        self.generic_visit(node)


def _mentions(node: ast.expr, name: str) -> bool:
    while isinstance(node, ast.Attribute):
        if node.attr == name:
            return True
        node = node.value
    return False


def _module_aliases(tree: ast.AST) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name.split(".")[0]] = a.name.split(".")[0]
    return aliases


def check_function(fn: ast.FunctionDef, scope: str, aliases: dict[str, str] | None = None,
                   is_method: bool = True) -> list[Finding]:
    """Findings for one function body (the compiler calls this on the code it is about to compile)."""
    self_name = fn.args.args[0].arg if is_method and fn.args.args else None
    checker = _Checker(scope, self_name, aliases or {})
    for stmt in fn.body:
        checker.visit(stmt)
    return checker.findings


def check(source_or_ast: str | ast.AST) -> list[Finding]:
    """Findings for every function Graph mode would compile in a module's source (or AST).

    A source that does not parse gives no findings: reporting syntax errors is the editor's job.
    """
    if isinstance(source_or_ast, str):
        try:
            tree = ast.parse(source_or_ast)
        except SyntaxError:
            return []
    else:
        tree = source_or_ast
    aliases = _module_aliases(tree)
    findings: list[Finding] = []
    for scope, fn in compiled_functions(tree):
        findings.extend(check_function(fn, scope, aliases, is_method="." in scope))
    findings.sort(key=lambda f: (f.line, f.col))
    return findings
