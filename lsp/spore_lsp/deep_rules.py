"""The Graph-mode rejections only a deeper look finds: what the compiler refuses while it traces, seen
statically where the source proves it.

`spore.compiler.support.check()` finds what the syntax alone shows (a `try`, a `print`, `x.item()`).
The compiler refuses more while it interprets `construct` over tracers — values that exist only when
the graph runs:

- ``python_value_of_tensor``: `float(t)`, `int(t)`, `bool(t)`, `t.item(i)`, `math.sqrt(t)`,
  `np.asarray(t)`, `t and u`, `not t`, `max(t, 0)`, `t in [1, 2]`, `[a, b][t]`, `range(t)` outside an
  `if`/`while` condition (inside one, Graph mode turns them into a tensor condition);
- ``dynamic_raise``: a tensor inside an f-string;
- ``tensor_break``: an `if` on a tensor holding a `break`/`continue`, a `while` on a tensor holding a
  `break`/`continue`/`return`;
- ``tensor_if``: a `return` inside an `if` on a tensor inside a loop; a name that only one branch of an
  `if` on a tensor binds (and nothing before it);
- ``unsupported_call``: calling a builtin Graph mode does not evaluate (`ord`, `chr`, `format`, ...), a
  plain Python class of the file or an instance of one, or a builtin exception in a tensor branch;
- ``raise``: any other `raise` inside an `if` on a tensor (both branches are traced, so it is reached);
- ``unsupported_syntax``: `for ... else` / `while ... else`.

A value is a tracer only when that is certain (`tensor_facts`): what Spore's ops, layers and Tensor
methods return, arithmetic on those, and arguments the document shows to be tensors. Anything else is
unknown and never reported: no false alarms. Each rule id is the compiler's own, and
`tests/lsp/test_static_only.py` compiles samples with the real engine to keep the two in step.

`check_function` is a function of one function's AST and its `FunctionContext` (plus the helpers it
calls, which the compiler inlines), so the caller caches its findings per function and an edit re-checks
only the functions it touched. This module walks the statements; `deep_exprs` judges the expressions.
"""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass
from typing import Callable

from spore import ide

from .deep_exprs import TRACERS, TS, ExpressionRules, T, loose
from .tensor_facts import BUILTIN_EXCEPTIONS, FunctionContext, is_builtin

# Rejections the compiler raises while tracing with a hint specific to the case (which name, which return),
# so they are not rules of the support table (whose fix is one text per rule); the editor words them here.
TRACE_RULES: dict[str, dict[str, str]] = {
    "tensor_if": {
        "id": "tensor_if",
        "construct": "an if on a tensor whose two branches cannot become one If op",
        "reason": "both branches are compiled into sub-graphs that must produce the same names with the same "
                  "shapes, and a return cannot leave a loop that is unrolled",
        "fix": "give the name a value before the if (or in both branches); in a loop, assign the result and "
               "return after the loop, or use ops.where(cond, a, b)"},
    "raise": {
        "id": "raise",
        "construct": "raise inside an if on a tensor",
        "reason": "both branches of an if on a tensor are compiled, so the raise is reached on every compile; "
                  "a graph cannot raise depending on a value it computes",
        "fix": "check it with assert on a tensor condition (assert not (cond), 'message'), which the graph "
               "checks when it runs, or raise outside construct"},
}


def rule_text(rule_id: str) -> dict[str, str]:
    """construct / reason / fix of a rule: the support table's, or this module's for the trace-only rules."""
    return ide.support_rule(rule_id) or TRACE_RULES.get(rule_id) or {"id": rule_id, "construct": rule_id,
                                                                      "reason": "", "fix": ""}


@dataclass(frozen=True)
class DeepFinding:
    """One rejection, in the function's own coordinates (1-based line, 0-based byte columns)."""

    rule: str
    line: int
    col: int
    end_line: int
    end_col: int
    detail: str
    where: str = ""  # "" in the checked function; "helper" or "Net.part" in a function it calls (inlined)


def _merge(a: dict[str, str | None], b: dict[str, str | None]) -> dict[str, str | None]:
    return {k: loose(a.get(k), b.get(k)) for k in set(a) | set(b)}


def _has(stmts: list[ast.stmt], kinds: tuple[type, ...]) -> bool:
    """As the compiler looks (control_flow._has_exit): anywhere inside the statements."""
    return any(isinstance(n, kinds) for s in stmts for n in ast.walk(s))


def _store_names(stmts: list[ast.stmt]) -> list[str]:
    """Every name stored anywhere inside the statements (control_flow._assigned_names)."""
    out: list[str] = []
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in out:
                out.append(n.id)
    return out


def _own_bindings(stmts: list[ast.stmt]) -> set[str]:
    """Names the statements bind in their own scope (not in a comprehension or nested function)."""
    out: set[str] = set()
    todo: list[ast.AST] = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)):
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        todo.extend(ast.iter_child_nodes(node))
    return out


@dataclass
class Helpers:
    """The plain functions compiled code may call and the compiler inlines: module-level functions and
    the owner Cell's methods (undecorated, defined once in the file), by name."""

    functions: dict[str, ast.FunctionDef]
    methods: dict[str, ast.FunctionDef]
    owner: str | None = None
    reached: dict[str, tuple[ast.FunctionDef, bool]] | None = None  # filled: where -> (function, is a method)


_MAX_INLINE = 3


class _Checker(ExpressionRules):
    """Walks one compiled function in order, keeping each local name's kind of value."""

    def __init__(self, fn: ast.FunctionDef, ctx: FunctionContext, is_method: bool, modules: dict[str, str],
                 resolve: Callable[[str], str | None], helpers: Helpers | None = None,
                 arg_kinds: dict[str, str | None] | None = None, stack: tuple[str, ...] = ()) -> None:
        self.ctx = ctx
        self.modules = modules
        self.resolve = resolve
        self.helpers = helpers
        self.stack = stack
        params = list(fn.args.posonlyargs) + list(fn.args.args) + list(fn.args.kwonlyargs)
        self.self_name = params[0].arg if is_method and params else None
        self.env: dict[str, str | None] = {p.arg: (T if p.arg in ctx.tensor_params else None) for p in params} \
            if arg_kinds is None else {p.arg: arg_kinds.get(p.arg) for p in params}
        for extra in (fn.args.vararg, fn.args.kwarg):
            if extra is not None:
                self.env[extra.arg] = None
        self.bound: set[str] = set(self.env)  # names bound so far on some path
        if self.self_name:
            self.env.pop(self.self_name, None)
        self.in_test = 0
        self.loop_depth = 0
        self.found: dict[tuple[str, int, int, str], DeepFinding] = {}

    # ---- findings ------------------------------------------------------------------------
    def add(self, rule: str, node: ast.AST, detail: str) -> None:
        key = (rule, node.lineno, node.col_offset, "")
        if key not in self.found:
            self.found[key] = DeepFinding(rule, node.lineno, node.col_offset,
                                          getattr(node, "end_lineno", None) or node.lineno,
                                          getattr(node, "end_col_offset", None) or node.col_offset, detail)

    @staticmethod
    def text(node: ast.AST) -> str:
        try:
            s = ast.unparse(node)
        except (ValueError, RecursionError):
            return "..."
        return s if len(s) <= 60 else s[:57] + "..."

    def builtin(self, name: str) -> bool:
        return name not in self.env and name not in self.bound and is_builtin(name, self.ctx.bound)

    # ---- statements ----------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt]) -> None:
        for stmt in stmts:
            self.stmt(stmt)
            if isinstance(stmt, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
                return  # the rest of the block is never compiled

    def bind(self, target: ast.expr, kind: str | None) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = kind
            self.bound.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self.bind(t.value if isinstance(t, ast.Starred) else t, T if kind in TRACERS else None)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, None)
        else:  # self.x = ..., a[i] = ...: the support table's business; still look inside
            self.expr(target)

    def stmt(self, s: ast.stmt) -> None:
        if isinstance(s, ast.Assign):
            kind = self.expr(s.value)
            for t in s.targets:
                self.bind(t, kind)
        elif isinstance(s, ast.AugAssign):
            right = self.expr(s.value)
            if isinstance(s.target, ast.Name):
                self.bind(s.target, self._arith(self.env.get(s.target.id), right))
            else:
                self.expr(s.target)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.bind(s.target, self.expr(s.value))
        elif isinstance(s, (ast.Expr, ast.Return)):
            if s.value is not None:
                self.expr(s.value)
        elif isinstance(s, ast.If):
            self.stmt_if(s)
        elif isinstance(s, ast.While):
            self.stmt_while(s)
        elif isinstance(s, ast.For):
            self.stmt_for(s)
        elif isinstance(s, ast.Assert):
            self.test(s.test)
            if s.msg is not None:
                self.expr(s.msg)
        elif isinstance(s, ast.Raise):
            if isinstance(s.exc, ast.Call):
                for a in s.exc.args:
                    self.expr(a)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.env[s.name] = None
            self.bound.add(s.name)
        elif isinstance(s, (ast.Import, ast.ImportFrom)):
            for a in s.names:
                name = a.asname or a.name.split(".")[0]
                self.env[name] = None
                self.bound.add(name)
        # try / with / async / global / delete: the support table reports the statement itself (Graph mode
        # refuses it, or breaks the graph there and runs it in Python): nothing inside is compiled as such

    def test(self, node: ast.expr) -> str | None:
        self.in_test += 1
        try:
            return self.expr(node)
        finally:
            self.in_test -= 1

    def branch(self, stmts: list[ast.stmt]) -> tuple[dict[str, str | None], set[str]]:
        saved_env, saved_bound = dict(self.env), set(self.bound)
        self.block(stmts)
        out = (self.env, self.bound)
        self.env, self.bound = saved_env, saved_bound
        return out

    def stmt_if(self, s: ast.If) -> None:
        kind = self.test(s.test)
        if kind == TS:
            self.tensor_if(s)
        then_env, then_bound = self.branch(s.body)
        else_env, else_bound = self.branch(s.orelse)
        self.env = _merge(then_env, else_env)
        self.bound = then_bound | else_bound

    def tensor_if(self, s: ast.If) -> None:
        both = s.body + s.orelse
        if _has(both, (ast.Break, ast.Continue)):
            self.add("tensor_break", s, f"`if {self.text(s.test)}:` holds a break/continue")
            return
        if _has(both, (ast.Return,)):
            if self.loop_depth:
                self.add("tensor_if", s, f"a return inside `if {self.text(s.test)}:` inside a loop")
                return
        else:
            then_own, else_own = _own_bindings(s.body), _own_bindings(s.orelse)
            for name in _store_names(both):
                if name not in self.bound and (name not in then_own or name not in else_own):
                    self.add("tensor_if", s, f"'{name}' is assigned in only one branch of `if {self.text(s.test)}:`"
                             f" and has no value before it")
                    break
        for branch in (s.body, s.orelse):
            for stmt in branch:
                if isinstance(stmt, ast.Raise):
                    self.tensor_raise(s, stmt)

    def tensor_raise(self, s: ast.If, r: ast.Raise) -> None:
        exc = r.exc
        where = f"inside `if {self.text(s.test)}:` (both branches are compiled)"
        if isinstance(exc, ast.Call) and isinstance(exc.func, ast.Name) and exc.func.id in BUILTIN_EXCEPTIONS \
                and self.builtin(exc.func.id):
            self.add("unsupported_call", exc, f"{exc.func.id}(...) {where}")
        elif exc is None or (isinstance(exc, ast.Name) and (
                exc.id in self.ctx.user_exceptions or (exc.id in BUILTIN_EXCEPTIONS and self.builtin(exc.id)))) \
                or (isinstance(exc, ast.Call) and isinstance(exc.func, ast.Name)
                    and exc.func.id in self.ctx.user_exceptions):
            self.add("raise", r, f"`{self.text(r)}` {where}")

    def loop_body(self, body: list[ast.stmt], first: dict[str, str | None]) -> None:
        """A loop's body as its first iteration sees the names, then as any later one may."""
        self.loop_depth += 1
        try:
            self.env = dict(first)
            self.block(body)
            self.env = _merge(first, self.env)
            again = dict(self.env)
            self.block(body)
            self.env = _merge(again, self.env)
        finally:
            self.loop_depth -= 1

    def stmt_while(self, s: ast.While) -> None:
        if s.orelse:
            self.add("unsupported_syntax", s, "while ... else")
        kind = self.test(s.test)
        before = dict(self.env)
        if kind == TS:
            if _has(s.body, (ast.Break, ast.Continue, ast.Return)):
                self.add("tensor_break", s, f"`while {self.text(s.test)}:` holds a break/continue/return")
            first = dict(before)
            for name in _store_names(s.body):  # loop-carried values become graph values
                if name in self.bound:
                    first[name] = T
            self.loop_body(s.body, first)
        else:
            self.loop_body(s.body, before)
        self.env = _merge(before, self.env)

    def stmt_for(self, s: ast.For) -> None:
        if s.orelse:
            self.add("unsupported_syntax", s, "for ... else")
        kind = self.expr(s.iter)
        before = dict(self.env)
        self.bind(s.target, T if kind in TRACERS else None)
        first = dict(self.env)
        self.loop_body(s.body, first)
        self.env = _merge(before, self.env)

    def inline(self, node: ast.Call, fn: ast.FunctionDef, where: str, is_method: bool,
               args: list[str | None]) -> None:
        """A helper the compiler would inline here: check its body with the kinds of the arguments it gets
        (its findings are on its own lines, tagged with `where`)."""
        helpers = self.helpers
        if helpers is None or where in self.stack or len(self.stack) >= _MAX_INLINE:
            return
        params = [p.arg for p in list(fn.args.posonlyargs) + list(fn.args.args)][1 if is_method else 0:]
        starred = any(isinstance(a, ast.Starred) for a in node.args)
        kinds = {} if starred else {p: k for p, k in zip(params, args)}
        sub = _Checker(fn, self.ctx if is_method else _no_attrs(self.ctx), is_method, self.modules, self.resolve,
                       helpers, kinds, self.stack + (where,))
        sub.block(fn.body)
        if helpers.reached is not None:
            helpers.reached.setdefault(where, (fn, is_method))
        for (rule, line, col, inner), f in sub.found.items():
            at = inner or where
            self.found.setdefault((rule, line, col, at), dataclasses.replace(f, where=at))


def _no_attrs(ctx: FunctionContext) -> FunctionContext:
    """The context of a module-level helper: no `self`, so no Cell attributes."""
    return dataclasses.replace(ctx, attrs=(), tensor_params=frozenset())


def check_function(fn: ast.FunctionDef, ctx: FunctionContext, is_method: bool, modules: dict[str, str],
                   resolve: Callable[[str], str | None], helpers: Helpers | None = None) -> list[DeepFinding]:
    """The deeper findings for one compiled function and the helpers it calls (inlined, as the compiler
    does, up to three calls deep). `modules` maps local names to the modules they import (``np`` ->
    ``numpy``); `resolve` maps a dotted name as written to Spore's qualified name (`Analysis.resolve`)."""
    checker = _Checker(fn, ctx, is_method, modules, resolve, helpers)
    checker.block(fn.body)
    return sorted(checker.found.values(), key=lambda f: (f.where, f.line, f.col))
