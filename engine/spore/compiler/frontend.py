"""Frontend: compiles a function's Python AST into IR by interpreting it over tracers.

The frontend reads `construct` (or a `@jit` function) from its code object's source — so classes
defined in a Jupyter cell compile too — checks it against the support table, then walks the AST
statement by statement. Python values (shapes, flags, Cells, loop counters) are computed at compile
time; tensor values are `Tracer`s, and every op applied to them is recorded by the active
`GraphBuilder` with the statement's SourceLoc and Cell scope. Hence:

- `if`/`for` over static values are resolved or unrolled at compile time;
- `if` on a tensor becomes an `If` equation with one sub-graph per branch (only the taken branch
  runs; both are differentiable); a `return` inside such a branch is handled by duplicating the
  rest of the function into both branches;
- `while` on a tensor becomes a `While` equation over the loop-carried variables;
- anything with an effect PyNative would show and a graph would not (assignments to `self`,
  mutation of outside containers, calls into time/random, ...) is refused with the rule's hint,
  so a construct either compiles with PyNative's observable behaviour or not at all.

Cells and functions that belong to Spore itself run directly over tracers (their code is written
for Graph mode); user code is always interpreted.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import linecache
import math
import operator
import textwrap
import types
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from itertools import repeat as _repeat
from typing import Any, Callable

from ..errors import GraphCompileError, ShapeError, SourceLoc, SporeError, ValueDependentShapeError, is_engine_code
from ..ops.input_check import cell_input_error
from ..tensor import Tensor
from . import support
from .trace import GraphBuilder, Tracer, TracerValueError

_BINOPS: dict[type, Callable] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.MatMult: operator.matmul,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift,
}
_CMPOPS: dict[type, Callable] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_UNARY: dict[type, Callable] = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
                                ast.Not: operator.not_}

# Builtins Graph mode evaluates at compile time (on static values; tensors refuse where needed).
_SAFE_BUILTINS = frozenset({
    "len", "range", "isinstance", "issubclass", "int", "float", "bool", "str", "tuple", "list", "dict", "zip",
    "enumerate", "min", "max", "abs", "sum", "all", "any", "reversed", "sorted", "getattr", "hasattr", "type",
    "round", "divmod", "pow", "slice", "map", "filter", "set", "frozenset", "repr", "hash", "callable", "iter",
    "next", "super",
})
_MAX_STATIC_WHILE = 100_000
_MAX_LOCAL_DEPTH = 32
_CONTAINERS = (list, dict, tuple, set, str, frozenset)


@dataclass
class _Return:
    value: Any


class _Break:
    pass


class _Continue:
    pass


_BREAK, _CONTINUE = _Break(), _Continue()


@dataclass
class _FnInfo:
    """A parsed function: its AST (line numbers in the real file) and the file it came from."""

    node: ast.FunctionDef
    file: str


_AST_CACHE: dict[types.CodeType, _FnInfo] = {}


def parse_function(fn: Callable) -> _FnInfo:
    """The FunctionDef of `fn`, read from the source its code object names (works in Jupyter)."""
    code = fn.__code__
    info = _AST_CACHE.get(code)
    if info is not None:
        return info
    if code.co_name == "<lambda>":
        rule = support.RULES["outer_lambda"]
        raise GraphCompileError(f"{rule.construct} is not supported: {rule.reason}",
                                loc=SourceLoc(code.co_filename, code.co_firstlineno), hint=rule.fix,
                                rule="outer_lambda")
    file = code.co_filename
    lines = linecache.getlines(file, fn.__globals__)
    first = code.co_firstlineno
    if not lines:
        try:
            lines = inspect.getsourcelines(fn)[0]
        except (OSError, TypeError):
            raise GraphCompileError(
                f"the source of {fn.__qualname__} cannot be read, so it cannot be compiled",
                loc=None, hint="define it in a file or a notebook cell; code made by exec() has no source",
                rule="unsupported_call") from None
        fdef = _parse_block(lines, first, code.co_name)
    else:
        end = _block_end(lines, first, code)
        fdef = _parse_block(lines[first - 1:end], first, code.co_name) if end else None
        if fdef is None:  # its code does not show where the block ends: the tokenizer finds it
            lines = inspect.getblock(lines[first - 1:])
            fdef = _parse_block(lines, first, code.co_name)
    if fdef is None:
        fdef = _parse_dedented(lines, first)
    info = _FnInfo(fdef, file)
    _AST_CACHE[code] = info
    return info


def _block_end(lines: list[str], first: int, code: types.CodeType) -> int | None:
    """The last line of the function block that starts at line `first` of `lines`, from the lines its
    code covers: the last of them, then any further lines indented deeper than its `def` (statements
    that left no code); None when the code names no line there. A block cut short by this (a string or
    bracket going on at a shallower indent) does not parse, and the caller asks the tokenizer."""
    if not 1 <= first <= len(lines):
        return None
    last = _last_line(code)
    if last < first:
        return None
    head = lines[first - 1]
    indent = head[:len(head) - len(head.lstrip())]
    n = len(indent)
    end = last
    for k in range(last, len(lines)):  # the lines after it (k + 1 is the line number)
        line = lines[k]
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if line.startswith(indent) and len(line) > n and line[n] in " \t":
            end = k + 1
            continue
        break
    return end


def _parse_block(block: list[str], first: int, name: str) -> ast.FunctionDef | None:
    """The FunctionDef `name` that `block` (its source lines, from line `first` of its file) defines,
    parsed where it stands: the lines before it blank and, when indented (a method), under an `if 1:`,
    so every node has the file's own line and column and every string literal its exact text — no
    dedent, which also took indentation out of the lines inside a multi-line string, and no walk over
    the tree to shift positions. None when `block` is not that one whole function."""
    if not block:
        return None
    head = block[0]
    indented = head[:1] in (" ", "\t")
    if indented and first < 2:
        return None
    src = "".join(block)
    try:
        if indented:
            tree = ast.parse("\n" * (first - 2) + "if 1:\n" + src)
            body = tree.body[0].body if len(tree.body) == 1 and isinstance(tree.body[0], ast.If) else []
        else:
            body = ast.parse("\n" * (first - 1) + src).body
    except SyntaxError:  # (IndentationError too)
        return None
    if len(body) != 1 or not isinstance(body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) or body[0].name != name:
        return None
    return body[0]


def _parse_dedented(block: list[str], first: int) -> ast.FunctionDef:
    """The block parsed dedented, its positions shifted back (the last resort of `parse_function`)."""
    src = textwrap.dedent("".join(block))
    indent = len(block[0]) - len(block[0].lstrip())
    tree = ast.parse(src)
    ast.increment_lineno(tree, first - 1)
    for node in ast.walk(tree):  # dedent moved every column left by `indent`
        if hasattr(node, "col_offset"):
            node.col_offset += indent
            if getattr(node, "end_col_offset", None) is not None:
                node.end_col_offset += indent
    return next(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))


def _last_line(code: types.CodeType) -> int:
    """The last source line any instruction of `code` (or of a function nested in it) comes from."""
    last = max((ln for _, _, ln in code.co_lines() if ln is not None), default=0)
    for _, end, _, _ in code.co_positions():
        if end is not None and end > last:
            last = end
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            last = max(last, _last_line(c))
    return last


_CHECKED: dict[tuple, tuple[support.Finding, ...]] = {}


def _checked(code: types.CodeType, fdef: ast.FunctionDef, scope: str, aliases: dict[str, str],
             is_method: bool) -> tuple[support.Finding, ...]:
    """`support.check_function` of a parsed function, kept per code object and everything else the
    check reads (the name it reports, the module aliases of its globals, method or not): a user Cell's
    construct is interpreted at every call site (a block used 16 times) and in every compile, and the
    check walks its whole AST. A redefined function is a new code object, a rebound module global a
    new alias map: either is checked afresh."""
    key = (code, scope, is_method, frozenset(aliases.items()))
    found = _CHECKED.get(key)
    if found is None:
        found = _CHECKED[key] = tuple(support.check_function(fdef, scope, aliases, is_method=is_method))
    return found


_SIGNATURES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _signature(fn: Callable) -> inspect.Signature:
    """`inspect.signature(fn)`, kept per plain function while its code and defaults stay the ones it was
    read from (`fn.__defaults__ = ...` or a new `__code__` reads it again). Functions with keyword-only
    defaults (a dict, changed in place) or a `__wrapped__`/`__signature__` of their own are read each time."""
    if type(fn) is not types.FunctionType or fn.__kwdefaults__ or "__wrapped__" in fn.__dict__ \
            or "__signature__" in fn.__dict__:
        return inspect.signature(fn)
    hit = _SIGNATURES.get(fn)
    if hit is not None and hit[0] is fn.__code__ and hit[1] is fn.__defaults__:
        return hit[2]
    sig = inspect.signature(fn)
    _SIGNATURES[fn] = (fn.__code__, fn.__defaults__, sig)
    return sig


class Frontend:
    """Interprets user functions over tracers into the active GraphBuilder."""

    def __init__(self, builder: GraphBuilder, cell_names: dict[int, str] | None = None) -> None:
        self.builder = builder
        builder.frontend = self
        self.cell_names = cell_names or {}
        self.file = ""
        self.scope = builder.scope
        self.fn_scope = ""
        self.loop_depth = 0
        self.in_test = 0      # > 0 while evaluating an if/while/assert/ternary condition
        self.local_depth = 0  # nesting of local function calls (recursion is unrolled up to a limit)
        self.depth = 0        # 1 while running the root function's own statements
        self.guards = Guards()  # Python values the graph was compiled with (checked before each run)
        self.root_stmt: ast.stmt | None = None  # the root function's statement being compiled (graph breaks)
        # (file, first line, last line) of every user function interpreted: the lines the graph covers
        self.covered: set[tuple[str, int, int]] = set()

    # --- errors -------------------------------------------------------------------------------
    def loc(self, node: ast.AST | None) -> SourceLoc | None:
        if node is None:
            return self.builder.loc
        return SourceLoc(self.file, node.lineno, node.col_offset, getattr(node, "end_col_offset", None)
                         if getattr(node, "end_lineno", node.lineno) == node.lineno else None)

    def error(self, node: ast.AST | None, reason: str, hint: str | None = None,
              rule: str | None = None) -> GraphCompileError:
        return GraphCompileError(reason, loc=self.loc(node), hint=hint, scope=self.fn_scope, rule=rule)

    def rule_error(self, node: ast.AST, rule_id: str, detail: str = "") -> GraphCompileError:
        rule = support.RULES[rule_id]
        reason = f"{rule.construct} is not supported: {rule.reason}" + (f" ({detail})" if detail else "")
        return self.error(node, reason, rule.fix, rule_id)

    # --- entry --------------------------------------------------------------------------------
    def call_user_function(self, fn: Callable, args: tuple, kwargs: dict, scope_name: str,
                           self_obj: Any = None) -> Any:
        """Interpret `fn(*args, **kwargs)` (a method when `self_obj` is given)."""
        info = parse_function(fn)
        fdef = info.node
        self.covered.add((info.file, min([fdef.lineno] + [d.lineno for d in fdef.decorator_list]),
                          fdef.end_lineno or fdef.lineno))
        saved = (self.file, self.fn_scope, self.loop_depth, self.in_test)
        self.file, self.fn_scope, self.loop_depth, self.in_test = info.file, scope_name, 0, 0
        self.depth += 1
        self.guards.note_function(fn)
        try:
            aliases = {k: v.__name__.split(".")[0] for k, v in fn.__globals__.items()
                       if isinstance(v, types.ModuleType)}
            findings = _checked(fn.__code__, fdef, scope_name, aliases, self_obj is not None)
            if findings:
                f = findings[0]
                err = GraphCompileError(f"{f.rule.construct} is not supported: {f.rule.reason}",
                                        loc=SourceLoc(self.file, f.line, f.col,
                                                      f.end_col if f.end_line == f.line else None),
                                        hint=f.rule.fix, scope=scope_name, rule=f.rule.id)
                err.break_at = (f.line, f.col)
                raise err
            env = _bind(_signature(fn), (*((self_obj,) if self_obj is not None else ()), *args), kwargs)
            scope = _Scope(env, fn)
            result = self.exec_block(fdef.body, scope)
            return result.value if isinstance(result, _Return) else None
        except GraphCompileError as err:
            self.mark_break(err)
            _note_self(err, info, self_obj)
            raise
        finally:
            self.depth -= 1
            self.file, self.fn_scope, self.loop_depth, self.in_test = saved

    def mark_break(self, err: GraphCompileError) -> None:
        """Note on `err` which of the root function's statements it came from (where a graph break
        under jit_syntax_level=LAX would put Python)."""
        if self.depth == 1 and getattr(err, "break_at", None) is None and self.root_stmt is not None:
            err.break_at = (self.root_stmt.lineno, self.root_stmt.col_offset)

    # --- statements ---------------------------------------------------------------------------
    def exec_block(self, stmts: list[ast.stmt], scope: _Scope) -> Any:
        """Run statements; returns _Return/_BREAK/_CONTINUE or None for falling through."""
        i = 0
        while i < len(stmts):
            stmt = stmts[i]
            self.builder.loc = self.loc(stmt)
            if self.depth == 1:
                self.root_stmt = stmt
            if isinstance(stmt, ast.If):
                test = self.eval_test(stmt.test, scope)
                if isinstance(test, Tracer):
                    return self.tensor_if(stmt, test, stmts[i + 1:], scope)
                branch = stmt.body if self.truth(test, stmt.test) else stmt.orelse
                stmts = list(branch) + list(stmts[i + 1:])  # splice the taken branch in place
                i = 0
                continue
            signal = self.exec_stmt(stmt, scope)
            if signal is not None:
                return signal
            i += 1
        return None

    def exec_stmt(self, stmt: ast.stmt, scope: _Scope) -> Any:
        if isinstance(stmt, ast.Assign):
            value = self.eval(stmt.value, scope)
            for target in stmt.targets:
                self.assign(target, value, scope)
        elif isinstance(stmt, ast.AugAssign):
            current = self.eval(_load(stmt.target), scope)
            value = self.apply(stmt, _BINOPS[type(stmt.op)], current, self.eval(stmt.value, scope))
            self.assign(stmt.target, value, scope)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self.assign(stmt.target, self.eval(stmt.value, scope), scope)
        elif isinstance(stmt, ast.Expr):
            self.eval(stmt.value, scope)
        elif isinstance(stmt, ast.Return):
            return _Return(self.eval(stmt.value, scope) if stmt.value is not None else None)
        elif isinstance(stmt, ast.For):
            return self.exec_for(stmt, scope)
        elif isinstance(stmt, ast.While):
            return self.exec_while(stmt, scope)
        elif isinstance(stmt, ast.Pass):
            pass
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                self.delete(target, scope)
        elif isinstance(stmt, ast.FunctionDef):
            fn: Any = _LocalFunction(self, stmt, scope, self.file, self.fn_scope, self._defaults(stmt.args, scope))
            for dec in reversed(stmt.decorator_list):
                fn = self.call(dec, self.eval(dec, scope), [fn], {})
            scope.vars[stmt.name] = fn
        elif isinstance(stmt, ast.Break):
            return _BREAK
        elif isinstance(stmt, ast.Continue):
            return _CONTINUE
        elif isinstance(stmt, ast.Assert):
            self.exec_assert(stmt, scope)
        elif isinstance(stmt, ast.Raise):
            exc = self.eval(stmt.exc, scope) if stmt.exc is not None else RuntimeError("re-raise")
            if isinstance(exc, type):
                exc = exc()
            raise self.error(stmt, f"construct raises {type(exc).__name__}: {exc}",
                             "this raise is reached on every call with these input shapes/values", "raise") from exc
        else:
            raise self.rule_error(stmt, "unsupported_syntax", type(stmt).__name__)
        return None

    def exec_assert(self, stmt: ast.Assert, scope: _Scope) -> None:
        test = self.eval_test(stmt.test, scope)
        msg = self.eval(stmt.msg, scope) if stmt.msg is not None else "assertion failed"
        if isinstance(test, Tracer):
            from .runtime_ops import assert_all

            assert_all(test, message=str(msg), where=str(self.loc(stmt)))
        elif not self.truth(test, stmt.test):
            raise self.error(stmt, f"assertion failed at compile time: {msg}", None, "assert")

    def exec_for(self, stmt: ast.For, scope: _Scope) -> Any:
        if stmt.orelse:
            raise self.rule_error(stmt, "unsupported_syntax", "for ... else")
        iterable = self.eval(stmt.iter, scope)
        try:
            items = list(iterable)
        except TracerValueError as err:
            raise self.error(stmt.iter, str(err.reason), err.hint, "python_value_of_tensor") from None
        except TypeError as err:
            raise self.error(stmt.iter, f"cannot iterate over {type(iterable).__name__}: {err}") from None
        self.loop_depth += 1
        try:
            for item in items:
                self.assign(stmt.target, item, scope)
                signal = self.exec_block(stmt.body, scope)
                if signal is _BREAK:
                    break
                if isinstance(signal, _Return):
                    return signal
        finally:
            self.loop_depth -= 1
        return None

    def exec_while(self, stmt: ast.While, scope: _Scope) -> Any:
        if stmt.orelse:
            raise self.rule_error(stmt, "unsupported_syntax", "while ... else")
        test = self.eval_test(stmt.test, scope)
        if isinstance(test, Tracer):
            from .control_flow import tensor_while

            tensor_while(self, stmt, scope)
            return None
        self.loop_depth += 1
        try:
            for _ in range(_MAX_STATIC_WHILE):
                if not self.truth(test, stmt.test):
                    return None
                signal = self.exec_block(stmt.body, scope)
                if signal is _BREAK:
                    return None
                if isinstance(signal, _Return):
                    return signal
                test = self.eval_test(stmt.test, scope)
                if isinstance(test, Tracer):
                    raise self.error(stmt.test, "the loop condition became a tensor after the first iteration",
                                     "make the condition a tensor from the start, or keep it a Python value")
        finally:
            self.loop_depth -= 1
        raise self.error(stmt, f"a while loop on a Python condition ran {_MAX_STATIC_WHILE} times at compile time",
                         "loops on Python values are unrolled; use a tensor condition for long loops")

    def tensor_if(self, stmt: ast.If, cond: Tracer, rest: list[ast.stmt], scope: _Scope) -> Any:
        from .control_flow import tensor_if

        return tensor_if(self, stmt, cond, rest, scope)

    def truth(self, value: Any, node: ast.AST) -> bool:
        try:
            return bool(value)
        except TracerValueError as err:
            raise self.error(node, str(err.reason), err.hint, "python_value_of_tensor") from None

    def assign(self, target: ast.expr, value: Any, scope: _Scope) -> None:
        if isinstance(target, ast.Name):
            scope.vars[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, Tracer):
                value = list(value)
            try:
                values = list(value)
            except TypeError:
                raise self.error(target, f"cannot unpack {type(value).__name__}") from None
            stars = [i for i, t in enumerate(target.elts) if isinstance(t, ast.Starred)]
            if stars:
                k, n_after = stars[0], len(target.elts) - stars[0] - 1
                if len(values) < len(target.elts) - 1:
                    raise self.error(target, f"not enough values to unpack (expected at least "
                                             f"{len(target.elts) - 1}, got {len(values)})")
                values = values[:k] + [values[k:len(values) - n_after]] + values[len(values) - n_after:]
                target_elts = [t.value if isinstance(t, ast.Starred) else t for t in target.elts]
            else:
                target_elts = target.elts
            if len(values) != len(target_elts):
                raise self.error(target, f"cannot unpack {len(values)} values into {len(target_elts)} names")
            for t, v in zip(target_elts, values):
                self.assign(t, v, scope)
        elif isinstance(target, ast.Subscript):
            obj = self.eval(target.value, scope)
            index = self.eval(target.slice, scope)
            if isinstance(obj, Tensor):
                from ..ops import functional as F

                if not obj._traced and (_traced(value) or any(_traced(i) for i in
                                                                (index if isinstance(index, tuple) else (index,)))):
                    obj = self._localize(target, obj, scope)
                self.apply(target, F.setitem_, obj, index, value)  # tracers take the write, as tensors do
            else:
                obj[index] = value
        else:
            raise self.rule_error(target, "self_assign" if isinstance(target, ast.Attribute) else "unsupported_syntax")

    def delete(self, target: ast.expr, scope: _Scope) -> None:
        """`del name`, `del a, b`, `del lst[i]` / `del d[k]` on local containers."""
        if isinstance(target, ast.Name):
            if target.id not in scope.vars:
                raise self.error(target, f"name '{target.id}' is not defined", None, "name")
            del scope.vars[target.id]
        elif isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self.delete(t, scope)
        elif isinstance(target, ast.Subscript):
            obj = self.eval(target.value, scope)
            if isinstance(obj, Tensor):
                raise self.error(target, "a tensor's elements cannot be deleted", "slice out what you keep instead",
                                 "unsupported_syntax")
            index = self.eval(target.slice, scope)
            self.apply(target, operator.delitem, obj, index)
        else:
            raise self.rule_error(target, "self_assign" if isinstance(target, ast.Attribute) else "unsupported_syntax")

    def _defaults(self, args: ast.arguments, scope: _Scope) -> tuple[list, list]:
        """Default values of a local def/lambda, evaluated where it is defined (as Python does)."""
        return ([self.eval(d, scope) for d in args.defaults],
                [None if d is None else self.eval(d, scope) for d in args.kw_defaults])

    def eval_test(self, node: ast.expr, scope: _Scope) -> Any:
        """Evaluate a condition: there `bool(t)`, `t.item()`, `float(t)`, `int(t)`, `not t` and
        `and`/`or` on tensors stay tensors, so the branch or loop becomes a tensor condition."""
        self.in_test += 1
        try:
            return self.eval(node, scope)
        finally:
            self.in_test -= 1

    def _localize(self, target: ast.expr, obj: Tensor, scope: _Scope) -> Tensor:
        """A constant tensor written with values known only at run time becomes a graph value, and
        the local names bound to it follow (a tensor reachable from elsewhere is refused)."""
        from ..ops import functional as F

        names = [k for k, v in scope.vars.items() if v is obj]
        if not names:
            raise self.rule_error(target, "self_assign", "an in-place write into a tensor that construct does not own")
        new = self.apply(target, F.identity, obj)
        for k in names:
            scope.vars[k] = new
        return new

    # --- expressions --------------------------------------------------------------------------
    def eval(self, node: ast.expr, scope: _Scope) -> Any:
        method = getattr(self, "eval_" + type(node).__name__, None)
        if method is None:
            raise self.rule_error(node, "unsupported_syntax", type(node).__name__)
        return method(node, scope)

    def eval_Constant(self, node: ast.Constant, scope: _Scope) -> Any:
        return node.value

    def eval_Name(self, node: ast.Name, scope: _Scope) -> Any:
        found, value = scope.lookup(node.id)
        if not found:
            raise self.error(node, f"name '{node.id}' is not defined", None, "name")
        if scope.is_global(node.id):
            g = scope.fn.__globals__
            self.guards.note(g, node.id, value, is_dict=True, by_identity=g.get(node.id, _NOT_PLAIN) is value)
        else:
            cell = scope.closure_cell(node.id)
            if cell is not None:  # a free variable of a closure: `nonlocal` may rebind it between calls
                self.guards.note(cell, "cell_contents", value, by_identity=True)
        return value

    def eval_Attribute(self, node: ast.Attribute, scope: _Scope) -> Any:
        obj = self.eval(node.value, scope)
        try:
            value = getattr(obj, node.attr)
        except TracerValueError as err:
            raise self.error(node, str(err.reason), err.hint, "python_value_of_tensor") from None
        except AttributeError as err:
            raise self.error(node, str(err), None, "attribute") from None
        if not isinstance(obj, (Tensor, types.ModuleType, type)):
            # an instance or class attribute stored as it is (not a property or method, which give a new
            # object on each read) is guarded by identity too
            self.guards.note(obj, node.attr, value, by_identity=_stored(obj, node.attr) is value)
        return value

    def eval_Tuple(self, node: ast.Tuple, scope: _Scope) -> tuple:
        return tuple(self._eval_elts(node.elts, scope))

    def eval_List(self, node: ast.List, scope: _Scope) -> list:
        return self._eval_elts(node.elts, scope)

    def eval_Set(self, node: ast.Set, scope: _Scope) -> set:
        return set(self._eval_elts(node.elts, scope))

    def _eval_elts(self, elts: list[ast.expr], scope: _Scope) -> list:
        out: list = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(self.eval(e.value, scope))
            else:
                out.append(self.eval(e, scope))
        return out

    def eval_Dict(self, node: ast.Dict, scope: _Scope) -> dict:
        out: dict = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                out.update(self.eval(v, scope))
            else:
                out[self.eval(k, scope)] = self.eval(v, scope)
        return out

    def eval_BinOp(self, node: ast.BinOp, scope: _Scope) -> Any:
        return self.apply(node, _BINOPS[type(node.op)], self.eval(node.left, scope), self.eval(node.right, scope))

    def eval_UnaryOp(self, node: ast.UnaryOp, scope: _Scope) -> Any:
        operand = self.eval(node.operand, scope)
        if isinstance(node.op, ast.Not):
            if isinstance(operand, Tracer) and self.in_test:
                from ..ops import functional as F

                return self.apply(node, F.logical_not, self._as_condition(node.operand, operand))
            return not self.truth(operand, node.operand)
        return self.apply(node, _UNARY[type(node.op)], operand)

    def eval_BoolOp(self, node: ast.BoolOp, scope: _Scope) -> Any:
        is_and = isinstance(node.op, ast.And)
        value = self.eval(node.values[0], scope)
        for nxt in node.values[1:]:
            if isinstance(value, Tracer) and self.in_test:  # a condition only needs the truth value
                from ..ops import functional as F

                rest = self.eval(nxt, scope)
                both = F.logical_and if is_and else F.logical_or
                cond = self._as_condition(node, value)
                value = self.apply(node, both, cond, self._as_condition(node, rest)) \
                    if isinstance(rest, Tensor) else (cond if self.truth(rest, nxt) == is_and else rest)
                continue
            if isinstance(value, Tracer):
                word = "and" if is_and else "or"
                raise self.error(node, f"'{word}' needs a Python bool, but its operand is a tensor",
                                 "use & / | (ops.logical_and / ops.logical_or) on tensors", "python_value_of_tensor")
            if self.truth(value, node) != is_and:
                return value
            value = self.eval(nxt, scope)
        return value

    def eval_Compare(self, node: ast.Compare, scope: _Scope) -> Any:
        left = self.eval(node.left, scope)
        result: Any = True
        for op, comp in zip(node.ops, node.comparators):
            right = self.eval(comp, scope)
            value = self.apply(node, _CMPOPS[type(op)], left, right)
            if len(node.ops) == 1:
                return value
            if isinstance(value, Tracer) or isinstance(result, Tracer):
                result = value if result is True else self.apply(node, operator.and_, result, value)
            elif not value:
                return False
            left = right
        return result

    def _as_condition(self, node: ast.AST, t: Any) -> Any:
        """A one-element tensor's truth value as a bool tensor (what `bool(t)` tests)."""
        from ..common import dtype as mstype
        from ..ops import functional as F

        if not isinstance(t, Tensor):
            return t
        if t.size != 1:
            raise self.error(node, f"the truth value of a tensor with {t.size} elements is ambiguous",
                             "use .any() or .all()", "tensor_condition")
        t = F.reshape(t, ()) if t.shape != () else t
        return t if t.dtype is mstype.bool_ else F.not_equal(t, F.zeros_like(t))

    def eval_IfExp(self, node: ast.IfExp, scope: _Scope) -> Any:
        test = self.eval_test(node.test, scope)
        if isinstance(test, Tracer):
            from ..ops import functional as F

            body, orelse = self.eval(node.body, scope), self.eval(node.orelse, scope)
            return self.apply(node, F.where, test, body, orelse)
        return self.eval(node.body if self.truth(test, node.test) else node.orelse, scope)

    def eval_Subscript(self, node: ast.Subscript, scope: _Scope) -> Any:
        obj = self.eval(node.value, scope)
        index = self.eval(node.slice, scope)
        value = self.apply(node, operator.getitem, obj, index)
        if type(obj) in (list, dict) and isinstance(index, (int, str)) and self.guards.holds(obj):
            self.guards.note(obj, index, value, is_dict=True, by_identity=True)  # `box[0] = other` between calls
        return value

    def eval_Slice(self, node: ast.Slice, scope: _Scope) -> slice:
        part = lambda n: self.eval(n, scope) if n is not None else None  # noqa: E731
        return slice(part(node.lower), part(node.upper), part(node.step))

    def eval_JoinedStr(self, node: ast.JoinedStr, scope: _Scope) -> str:
        parts = []
        for v in node.values:
            value = self.eval(v.value, scope) if isinstance(v, ast.FormattedValue) else v.value
            if isinstance(value, Tracer):
                raise self.rule_error(v, "dynamic_raise", "a tensor inside an f-string")
            if isinstance(v, ast.FormattedValue):
                spec = self.eval(v.format_spec, scope) if v.format_spec is not None else ""
                value = format(value, spec)
            parts.append(str(value))
        return "".join(parts)

    def _comprehension(self, node: Any, scope: _Scope, emit: Callable[[_Scope], None]) -> None:
        inner = _Scope(dict(scope.vars), scope.fn, scope.parent)

        def loop(k: int) -> None:
            if k == len(node.generators):
                emit(inner)
                return
            gen = node.generators[k]
            if gen.is_async:
                raise self.rule_error(gen, "async")
            for item in list(self.eval(gen.iter, inner)):
                self.assign(gen.target, item, inner)
                if all(self.truth(self.eval_test(c, inner), c) for c in gen.ifs):
                    loop(k + 1)

        loop(0)

    def eval_ListComp(self, node: ast.ListComp, scope: _Scope) -> list:
        out: list = []
        self._comprehension(node, scope, lambda s: out.append(self.eval(node.elt, s)))
        return out

    def eval_SetComp(self, node: ast.SetComp, scope: _Scope) -> set:
        out: set = set()
        self._comprehension(node, scope, lambda s: out.add(self.eval(node.elt, s)))
        return out

    def eval_DictComp(self, node: ast.DictComp, scope: _Scope) -> dict:
        out: dict = {}

        def emit(s: _Scope) -> None:
            key = self.eval(node.key, s)
            out[key] = self.eval(node.value, s)
        self._comprehension(node, scope, emit)
        return out

    def eval_GeneratorExp(self, node: ast.GeneratorExp, scope: _Scope) -> Any:
        """Evaluated at once: what it iterates is static and its elements pure, so the order of
        evaluation cannot be told apart from the lazy generator's."""
        return iter(self.eval_ListComp(node, scope))  # type: ignore[arg-type]

    def eval_Lambda(self, node: ast.Lambda, scope: _Scope) -> Any:
        return _LocalFunction(self, node, scope, self.file, self.fn_scope, self._defaults(node.args, scope))

    def eval_NamedExpr(self, node: ast.NamedExpr, scope: _Scope) -> Any:
        value = self.eval(node.value, scope)
        self.assign(node.target, value, scope)
        return value

    def eval_Call(self, node: ast.Call, scope: _Scope) -> Any:
        func = self.eval(node.func, scope)
        args = self._eval_elts(node.args, scope)
        kwargs: dict = {}
        for kw in node.keywords:
            if kw.arg is None:
                kwargs.update(self.eval(kw.value, scope))
            else:
                kwargs[kw.arg] = self.eval(kw.value, scope)
        attr_name = node.func.attr if isinstance(node.func, ast.Attribute) else None
        if attr_name in support.MUTATING_METHODS and isinstance(node.func.value, ast.Name) \
                and isinstance(getattr(func, "__self__", None), (list, dict, set, bytearray)) \
                and _outer_container_name(scope, node.func.value.id):
            # `seen.append(g)` on a module-level or closure container (no `global` statement needed, so the
            # static check misses it): it would run once at compile time, with tracers, never per call
            raise self.rule_error(node, "container_mutation")
        return self.call(node, func, args, kwargs, attr_name)

    # --- calls ----------------------------------------------------------------------------------
    def call(self, node: ast.AST, func: Any, args: list, kwargs: dict, attr_name: str | None = None) -> Any:
        Cell, LearningRateSchedule, JitFunction = _CALL_TYPES or _call_types()
        if isinstance(func, _LocalFunction):
            return func.call(node, args, kwargs)
        if self.in_test and args and isinstance(args[0], Tracer) and not kwargs and len(args) == 1 \
                and (func is bool or func is float or func is int):  # `if bool(t)`, `float(t) > 0.5`
            return self._python_scalar(node, args[0], func)
        if self.in_test and isinstance(func, types.MethodType) and isinstance(func.__self__, Tracer) \
                and func.__name__ == "item" and not args and not kwargs:
            t = func.__self__
            return self._python_scalar(node, t, bool if t.dtype.name == "bool" else float if t.dtype.is_float
                                       else int)
        if isinstance(func, JitFunction):  # a jitted function called from compiled code is inlined
            return self.inline(node, func.fn, args, kwargs, func.name, func.self_obj)
        if isinstance(func, Cell):
            return self.call_cell(node, func, args, kwargs, attr_name)
        if isinstance(func, LearningRateSchedule) and not is_engine_code(type(func).construct):
            return self.inline(node, type(func).construct, args, kwargs, f"{type(func).__name__}.construct",
                               self_obj=func)
        if isinstance(func, types.MethodType) and isinstance(func.__self__, Cell) and not is_engine_code(func):
            return self.inline(node, func.__func__, args, kwargs, f"{self.fn_scope.rsplit('.', 1)[0]}."
                               f"{func.__name__}", self_obj=func.__self__)
        if isinstance(func, types.FunctionType) and not is_engine_code(func):
            if func.__name__ == "<lambda>":
                raise self.rule_error(node, "outer_lambda")
            self.check_impure(node, func)
            return self.inline(node, func, args, kwargs, func.__qualname__)
        if func is print:
            raise self.rule_error(node, "print")
        name = getattr(func, "__name__", "")
        if getattr(func, "__module__", None) == "builtins" and getattr(builtins, name, None) is func:
            if name not in _SAFE_BUILTINS:
                raise self.rule_error(node, "impure_call" if name in support.IMPURE_BUILTINS
                                      else "unsupported_call", f"{name}()")
            return self.apply(node, func, *args, **kwargs)
        if isinstance(func, types.BuiltinMethodType) and type(func.__self__) in _CONTAINERS:
            return self.apply(node, func, *args, **kwargs)  # methods of local lists/dicts/strings
        if func is super:
            raise self.rule_error(node, "unsupported_call", "super() inside construct")
        self.check_impure(node, func)
        if is_engine_code(func) or isinstance(func, type) and issubclass(func, (Tensor, Exception)) \
                or func in (math.sqrt,) or _is_pure_library(func):
            out = self.apply(node, func, *args, **kwargs)
            if not isinstance(func, (type, types.FunctionType, types.BuiltinFunctionType)):
                self.guards.note_engine(getattr(func, "__self__", func))  # an op instance's configuration
            return out
        raise self.rule_error(node, "unsupported_call", f"{getattr(func, '__qualname__', type(func).__name__)}")

    def _python_scalar(self, node: ast.AST, t: Tracer, kind: type) -> Tracer:
        """`bool(t)` / `float(t)` / `int(t)` inside a condition: the value as a tensor of the dtype
        Python would compute in (bool, float64, int64), so comparisons give PyNative's answer."""
        from ..common import dtype as mstype
        from ..ops import functional as F

        if t.size != 1:
            raise self.error(node, f"only a one-element tensor can be converted to a Python {kind.__name__}, "
                                   f"got shape {tuple(t.shape)}", "reduce it first (e.g. .sum() or .all())",
                             "python_value_of_tensor")
        t = self.apply(node, F.reshape, t, ())
        if kind is bool:
            return self._as_condition(node, t)
        want = mstype.float64 if kind is float else mstype.int64
        return t if t.dtype is want else self.apply(node, F.cast, t, want)

    def check_impure(self, node: ast.AST, func: Any) -> None:
        module = (getattr(func, "__module__", None) or "").split(".")[0]
        if module in support.IMPURE_MODULES or (module == "numpy" and "random" in (func.__module__ or "")):
            raise self.rule_error(node, "impure_call", f"{module}.{getattr(func, '__name__', '?')}()")

    def inline(self, node: ast.AST, fn: Callable, args: list, kwargs: dict, scope_name: str,
               self_obj: Any = None) -> Any:
        saved_loc = self.builder.loc
        try:
            return self.call_user_function(fn, tuple(args), kwargs, scope_name, self_obj)
        finally:
            self.builder.loc = saved_loc

    def call_cell(self, node: ast.AST | None, cell: Any, args: list, kwargs: dict, attr_name: str | None) -> Any:
        """A Cell called from compiled code: Spore's own layers run over tracers, user Cells are interpreted.

        Uses only the Cell's public contract (`has_hooks`, `run_eager`, `cast_type`, `input_cast`).
        """
        if cell.has_hooks:
            raise self.rule_error(node, "cell_hook", type(cell).__name__)
        name = self.cell_names.get(id(cell)) or attr_name or type(cell).__name__
        saved_scope = self.builder.scope
        self.builder.scope = name
        try:
            if is_engine_code(type(cell).construct):
                out = self.apply_layer(node, name, cell, cell.run_eager, args, kwargs)
                self.guards.note_engine(cell)
                return out
            if cell.cast_type is not None:
                args = list(cell.input_cast(tuple(args)))
            return self.inline(node, type(cell).construct, args, kwargs, f"{type(cell).__name__}.construct",
                               self_obj=cell)
        finally:
            self.builder.scope = saved_scope

    def apply(self, node: ast.AST | None, func: Callable, *args: Any, **kwargs: Any) -> Any:
        """Call a Python callable at compile time; shape errors and tracer misuse land on `node`."""
        try:
            return func(*args, **kwargs)
        except GraphCompileError:
            raise
        except SporeError as err:
            raise self.spore_error(node, err) from None

    def apply_layer(self, node: ast.AST | None, name: str, cell: Any, func: Callable, args: Any,
                    kwargs: dict, by_class: bool = True) -> Any:
        """Run one of Spore's own Cells (`cell`, called `name` here) over tracers: an error raised
        anywhere inside it is a `GraphCompileError` on `node` — the user's line that called the
        layer; the layer's own source is not the user's — naming the innermost layer it came from
        (``Net.block.2.fc``; with `by_class` False, paths start from `name`, never from the compiled
        root's class). An argument that is not a Tensor is said as such (`InputTypeError`)."""
        try:
            return func(*args, **kwargs)
        except GraphCompileError:
            raise
        except SporeError as err:
            names = self.cell_names if by_class else {}
            raise self.spore_error(node, err, _layer_path(name, cell, err, names)) from None
        except Exception as err:
            bad = cell_input_error(cell, tuple(args), kwargs, err)
            if bad is None:
                raise
            raise self.spore_error(node, bad, name) from None

    def spore_error(self, node: ast.AST | None, err: SporeError, layer: str = "") -> GraphCompileError:
        """`err` (raised while compiling the code at `node`) as Graph mode's refusal on that line. Where
        no user line is being compiled (a Spore Cell compiled as the root) there is none: the compiled
        call's caller locates it (`JitFunction.__call__`: the user's call); a tool compiling without a
        call (`spore.ide.compile_graph`) has the layer path, and no line of its own passed off as the
        user's."""
        if isinstance(err, TracerValueError):
            rule = "python_value_of_tensor"
        elif isinstance(err, ShapeError):
            rule = "shape"
        elif isinstance(err, ValueDependentShapeError):
            rule = "value_dependent_shape"
        else:
            rule = type(err).__name__
        return GraphCompileError(str(err.reason), loc=self.loc(node), hint=err.hint, scope=self.fn_scope,
                                 rule=rule, layer=layer)


def _layer_path(name: str, cell: Any, err: SporeError, cell_names: dict[int, str]) -> str:
    """The Cell path of the innermost layer `err` came through (`Cell.__call__` notes each Cell an
    error leaves, innermost first, in ``err.cells``), starting from `cell`, known here as `name`:
    the compiled root's own names when it has the layer, else each child's attribute name."""
    chain = [c for c in getattr(err, "cells", ()) if c is not cell]
    if chain and id(chain[0]) in cell_names:
        return cell_names[id(chain[0])]
    path, parent = name, cell
    for child in reversed(chain):
        key = next((k for k, c in parent.cells_and_names() if c is child and k), None)
        if key is None:
            break
        path, parent = f"{path}.{key}", child
    return path


def _note_self(err: GraphCompileError, info: _FnInfo, self_obj: Any) -> None:
    """On an error at a line of this user method: its `self` (the real Cell), kept for the frame the
    error is raised from (`frame_locals`) when the compiled function's own arguments are not this
    method's — a user sub-cell's construct. Its other arguments are tracers here, never shown."""
    loc, fdef = err.loc, info.node
    if self_obj is None or getattr(err, "frame_locals", None) is not None or loc is None or loc.file != info.file:
        return
    if not fdef.lineno <= loc.line <= (fdef.end_lineno or fdef.lineno):
        return
    params = [a.arg for a in fdef.args.posonlyargs + fdef.args.args]
    if params:
        err.frame_locals = {params[0]: self_obj}


def _traced(x: Any) -> bool:
    return isinstance(x, Tensor) and x._traced


def _is_pure_library(func: Any) -> bool:
    module = (getattr(func, "__module__", None) or getattr(type(func), "__module__", "") or "").split(".")[0]
    return module in ("math", "numpy", "operator", "_operator", "functools", "_functools", "itertools",
                      "collections", "typing")


_SCALARS = (bool, int, float, complex, str, bytes, type(None))

# what `Guards.note_engine` does with an attribute, by the value's type: a plain scalar (kept by value), one of
# Spore's Cells or ops (by identity, and walked), a tuple/frozenset (by value when plain), anything else
_SCALAR, _ENGINE, _TUPLE, _OTHER = 1, 2, 3, 4
_KINDS: dict[type, int] = {t: _SCALAR for t in _SCALARS}
_KINDS.update({dict: _OTHER, OrderedDict: _OTHER, list: _OTHER, set: _OTHER, tuple: _TUPLE, frozenset: _TUPLE})


def _kind(value: Any, cell: type, operation: type) -> int:
    """The kind of `value` (the isinstance tests `note_engine` makes, in its order), remembered for its
    type: instances of one type answer the same, unless the type fakes its `__class__` (then asked each time)."""
    t = type(value)
    kind = (_SCALAR if isinstance(value, _SCALARS) else _ENGINE if isinstance(value, (cell, operation))
            else _TUPLE if isinstance(value, (tuple, frozenset)) else _OTHER)
    if all("__class__" not in vars(b) for b in t.__mro__[:-1]):
        _KINDS[t] = kind
    return kind


def _frozen(v: Any, depth: int = 0) -> Any:
    """A comparable snapshot of a plain Python value (scalars and containers of them), else _NOT_PLAIN."""
    if isinstance(v, _SCALARS):
        return (type(v), v)
    if depth < 3 and isinstance(v, (tuple, list, set, frozenset, dict)) and len(v) <= 64:
        unordered = isinstance(v, (dict, set, frozenset))
        items = list(v.items()) if isinstance(v, dict) else list(v) if unordered else v
        out = []
        for item in items:
            f = _frozen(item, depth + 1)
            if f is _NOT_PLAIN:
                return _NOT_PLAIN
            out.append(f)
        if unordered:  # in the order of the items' reprs (a set's iteration order is not its value); sorted
            # only once every item is known to be plain: an optimizer's `{"params": [Parameter, ...]}` is not
            # worth the reprs of its Parameters
            order = sorted(range(len(items)), key=lambda i: repr(items[i]))
            out = [out[i] for i in order]
        return (type(v), tuple(out))
    return _NOT_PLAIN


_NOT_PLAIN = object()


def _frozen_or_none(v: Any) -> Any:
    try:
        return _frozen(v)
    except Exception:  # noqa: BLE001
        return None


def _stored(obj: Any, name: str) -> Any:
    """The attribute as stored on the instance or its class (no descriptor run), else _NOT_PLAIN."""
    try:
        return inspect.getattr_static(obj, name)
    except AttributeError:
        return _NOT_PLAIN


def _guard_name(owner: Any, name: Any, is_dict: bool) -> str:
    if not is_dict:
        return "a closure variable" if isinstance(owner, types.CellType) else f"{type(owner).__name__}.{name}"
    return f"global {name}" if isinstance(owner, dict) and isinstance(name, str) and "__name__" in owner \
        else f"{type(owner).__name__}[{name!r}]"


class _Same:
    """A guard snapshot by identity: a non-plain value (a Tensor constant, an op instance, a function)
    the graph baked in, which must still be the very object bound there."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


_CALL_TYPES: tuple[type, type, type] | None = None


def _call_types() -> tuple[type, type, type]:
    """(Cell, LearningRateSchedule, JitFunction), imported on first use (they import the compiler) and
    kept: `Frontend.call` tests every call it interprets against them (an import statement inside it
    cost a module lookup each time)."""
    global _CALL_TYPES
    from ..nn.cell import Cell
    from ..nn.learning_rate_schedule import LearningRateSchedule
    from .jit import JitFunction

    _CALL_TYPES = (Cell, LearningRateSchedule, JitFunction)
    return _CALL_TYPES


_ENGINE_TYPES: tuple[type, type] | None = None


def _engine_types() -> tuple[type, type]:
    """(Cell, Operation), imported on first use (nn imports this module) and kept: `note_engine`
    asks for them once per object it walks."""
    global _ENGINE_TYPES
    from ..nn.cell import Cell
    from ..ops.operation import Operation

    _ENGINE_TYPES = (Cell, Operation)
    return _ENGINE_TYPES


class Guards:
    """The Python values that a compile read from objects' attributes and module globals: plain ones
    (numbers, strings, flags, small containers of them) by value, and the other objects bound as
    instance attributes or globals (a Tensor constant, an op instance, a function) by identity. They
    are baked into the graph, so before each run `changed()` checks them against their current
    values: a changed `self.scale`, a list a Python statement appended to, a global counter, a
    rebound `self.mask = Tensor(...)` or `self.op = ops.ROIAlign(...)`, a tensor constant written in
    place (`note_data`), an edited `loss.reduction` of one of Spore's own Cells or ops
    (`note_engine`) — the graph is recompiled, never run stale."""

    def __init__(self) -> None:
        self.items: dict[tuple[int, Any], tuple[Any, Any, bool, Any]] = {}
        self.held: set[int] = set()  # ids of the values guarded by identity (alive: their snapshots hold them)
        # per Spore Cell / op (`note_engine`): (its instance dict, attribute names, their values, the object);
        # one C-level comparison of the value tuples per object, so big networks stay cheap to check
        self.objects: dict[int, tuple[dict, tuple, tuple, Any]] = {}
        self.constants: dict[int, tuple[Any, Any]] = {}  # `note_data`: id(tensor) -> (tensor, its buffer)
        # `note_function`: id(fn) -> (fn, its code, its defaults tuple, its keyword-only defaults' items)
        self.functions: dict[int, tuple[Any, Any, Any, tuple | None]] = {}
        self._flat: tuple | None = None  # all objects' (dicts, names, values), flattened for one C-level pass

    @property
    def empty(self) -> bool:
        return not (self.items or self.objects or self.constants or self.functions)

    def note(self, owner: Any, name: Any, value: Any, is_dict: bool = False, by_identity: bool = False) -> None:
        key = (id(owner), name)
        if key in self.items:
            return
        try:
            snap = _frozen(value)
        except Exception:  # noqa: BLE001  (a container holding tracers, or whose repr fails: not a plain value)
            snap = _NOT_PLAIN
        if snap is _NOT_PLAIN:
            if not by_identity:
                return
            snap = _Same(value)
            self.held.add(id(value))
        self.items[key] = (owner, name, is_dict, snap)

    def holds(self, value: Any) -> bool:
        """Whether `value` (a container read from an attribute, global or closure) is guarded by identity."""
        return id(value) in self.held

    def note_data(self, t: Any) -> None:
        """A concrete tensor the graph holds as a constant: its buffer by identity (an in-place write
        such as ``t[0] = v`` or ``t.assign_value(...)`` gives a tensor a new one)."""
        if id(t) not in self.constants:
            self.constants[id(t)] = (t, t._data)

    def note_function(self, fn: Any) -> None:
        """A user function the graph interpreted: its code and its defaults (bound into the graph when a
        call leaves an argument out) by identity, so `fn.__defaults__ = (...)`, an edited keyword-only
        default or a new `__code__` recompiles, as the next PyNative call would see them."""
        if id(fn) not in self.functions and isinstance(fn, types.FunctionType):
            kw = fn.__kwdefaults__
            self.functions[id(fn)] = (fn, fn.__code__, fn.__defaults__, tuple(kw.items()) if kw else None)

    def note_engine(self, obj: Any, seen: set[int] | None = None) -> None:
        """The configuration of one of Spore's Cells or ops that ran over tracers (its code is not
        interpreted, so its attribute reads are not seen one by one): the immutable plain values in
        its instance dict (compared by value), the ops and Cells it holds (by identity), recursively
        through them; its public mutable plain containers (a list of ratios) go to the per-value guards."""
        Cell, Operation = _ENGINE_TYPES or _engine_types()
        seen = set() if seen is None else seen
        d = getattr(obj, "__dict__", None)
        if d is None or id(obj) in seen or len(seen) > 4096 or id(obj) in self.objects:
            return
        if isinstance(obj, Cell) and not is_engine_code(type(obj).construct):
            return  # a user Cell's construct is interpreted: the attributes it reads are guarded one by one
        seen.add(id(obj))
        names, values = [], []
        kinds = _KINDS
        for name, value in list(d.items()):  # a Cell's children are instance attributes too
            kind = kinds.get(type(value)) or _kind(value, Cell, Operation)
            if kind == _SCALAR:
                names.append(name)
                values.append(value)
            elif kind == _ENGINE:
                names.append(name)
                values.append(value)
                self.held.add(id(value))
                self.note_engine(value, seen)
            elif kind == _TUPLE and _frozen_or_none(value) not in (None, _NOT_PLAIN):
                names.append(name)
                values.append(value)
            elif not name.startswith("_"):  # (a Cell's own bookkeeping — children, hooks, flags — bumps the
                # structure version through the methods that change it)
                self.note(obj, name, value)  # a list / dict / set of plain values: compared by value
        self.objects[id(obj)] = (d, tuple(names), tuple(values), obj)
        self._flat = None

    def changed(self) -> str | None:
        """None while every value is as compiled; else which one changed (`Net.scale`, `global COUNT`)."""
        if self._flat is None:
            self._flat = (tuple(d for d, names, _, _ in self.objects.values() for _ in names),
                          tuple(n for _, names, _, _ in self.objects.values() for n in names),
                          tuple(v for _, _, values, _ in self.objects.values() for v in values))
        dicts, names, values = self._flat
        # tuple comparison: identical elements short-cut, equal plain values compare equal, a replaced op /
        # Cell (identity equality) differs
        if tuple(map(dict.get, dicts, names, _repeat(_NOT_PLAIN))) != values:
            for d, names_, values_, obj in self.objects.values():
                for name, value in zip(names_, values_):
                    now = d.get(name, _NOT_PLAIN)
                    if not (now is value or now == value):
                        return f"{type(obj).__name__}.{name}"
        for t, data in self.constants.values():
            if t._data is not data:
                return f"a tensor constant of shape {tuple(t.shape)} written in place"
        for fn, code, defaults, kw in self.functions.values():
            now_kw = fn.__kwdefaults__
            if fn.__code__ is not code or fn.__defaults__ is not defaults or not _same_items(now_kw, kw):
                return f"the code or defaults of {fn.__qualname__}"
        for owner, name, is_dict, snap in self.items.values():
            try:
                now = owner[name] if is_dict else getattr(owner, name)
            except (KeyError, IndexError, AttributeError, ValueError):  # ValueError: an emptied closure cell
                now = _NOT_PLAIN
            if type(snap) is _Same:
                if now is not snap.value:
                    return _guard_name(owner, name, is_dict)
            elif now is _NOT_PLAIN or _frozen_or_none(now) != snap:
                return _guard_name(owner, name, is_dict)
        return None


def _same_items(now: dict | None, then: tuple | None) -> bool:
    """Whether keyword-only defaults are still the very objects they were (`then`: their items then)."""
    if not now:
        return then is None
    return then is not None and len(now) == len(then) and all(
        k == k0 and v is v0 for (k, v), (k0, v0) in zip(now.items(), then))


class _LocalFunction:
    """A `def` or `lambda` inside compiled code: called, its body is interpreted in place (inlined)
    with the scope it was defined in behind its own, as a Python closure sees it. Recursion is
    unrolled while the values that control it are static, up to `_MAX_LOCAL_DEPTH` calls deep."""

    def __init__(self, fe: Frontend, node: ast.FunctionDef | ast.Lambda, scope: _Scope, file: str,
                 fn_scope: str, defaults: tuple[list, list]) -> None:
        self.fe, self.node, self.scope, self.file, self.fn_scope = fe, node, scope, file, fn_scope
        self.__name__ = getattr(node, "name", "<lambda>")
        params: list[inspect.Parameter] = []
        a = node.args
        pos = a.posonlyargs + a.args
        pos_defaults = [inspect.Parameter.empty] * (len(pos) - len(defaults[0])) + defaults[0]
        for i, (arg, d) in enumerate(zip(pos, pos_defaults)):
            kind = inspect.Parameter.POSITIONAL_ONLY if i < len(a.posonlyargs) else \
                inspect.Parameter.POSITIONAL_OR_KEYWORD
            params.append(inspect.Parameter(arg.arg, kind, default=d))
        if a.vararg:
            params.append(inspect.Parameter(a.vararg.arg, inspect.Parameter.VAR_POSITIONAL))
        for arg, d in zip(a.kwonlyargs, defaults[1]):
            params.append(inspect.Parameter(arg.arg, inspect.Parameter.KEYWORD_ONLY,
                                            default=inspect.Parameter.empty if d is None else d))
        if a.kwarg:
            params.append(inspect.Parameter(a.kwarg.arg, inspect.Parameter.VAR_KEYWORD))
        self.signature = inspect.Signature(params)

    def _too_deep(self, node: ast.AST | None) -> GraphCompileError:
        return self.fe.error(node or self.node, f"{self.__name__}() recursed more than {_MAX_LOCAL_DEPTH} calls deep "
                             "while compiling: recursion is unrolled, so what stops it must be a Python value",
                             "make the value that ends the recursion a Python int/bool, or use a while loop on a "
                             "tensor", "recursion")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:  # called by builtins (map, sorted(key=...))
        return self.call(None, list(args), kwargs)

    def call(self, node: ast.AST | None, args: list, kwargs: dict) -> Any:
        fe = self.fe
        if fe.local_depth >= _MAX_LOCAL_DEPTH:
            raise self._too_deep(node)
        try:
            env = _bind(self.signature, args, kwargs)
        except TypeError as err:
            raise fe.error(node or self.node, f"{self.__name__}(): {err}") from None
        saved = (fe.file, fe.loop_depth, fe.in_test, fe.builder.loc)
        fe.file, fe.loop_depth, fe.in_test = self.file, 0, 0
        fe.local_depth += 1
        fe.depth += 1
        try:
            inner = _Scope(env, self.scope.fn, self.scope)
            if isinstance(self.node, ast.Lambda):
                return fe.eval(self.node.body, inner)
            result = fe.exec_block(self.node.body, inner)
            return result.value if isinstance(result, _Return) else None
        except RecursionError:
            raise self._too_deep(node) from None
        finally:
            fe.local_depth -= 1
            fe.depth -= 1
            fe.file, fe.loop_depth, fe.in_test, fe.builder.loc = saved


def _bind(sig: inspect.Signature, args: Any, kwargs: dict) -> dict[str, Any]:
    """The local variables a call of a function with signature `sig` starts with (defaults applied;
    *args arrive as a tuple and **kwargs as a dict, empty when nothing was passed to them)."""
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    env = dict(bound.arguments)
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            env.setdefault(p.name, ())
        elif p.kind is p.VAR_KEYWORD:
            env.setdefault(p.name, {})
    return env


def _load(target: ast.expr) -> ast.expr:
    """The same expression as a load (for augmented assignment)."""
    node = ast.parse(ast.unparse(target), mode="eval").body
    return ast.copy_location(node, target) if not hasattr(node, "lineno") else _relocate(node, target)


def _relocate(node: ast.AST, like: ast.AST) -> ast.AST:
    for n in ast.walk(node):
        if hasattr(n, "lineno"):
            n.lineno, n.col_offset = like.lineno, like.col_offset
            n.end_lineno, n.end_col_offset = like.end_lineno, like.end_col_offset
    return node


def _outer_container_name(scope: _Scope, name: str) -> bool:
    """Whether `name` resolves to a module global or a closure variable of the compiled function (a
    container reachable from outside it), not a local of an interpreted scope."""
    s: _Scope | None = scope
    while s is not None:
        if name in s.vars:
            return False
        if s.parent is None:
            return name in s.closure or s.is_global(name)
        s = s.parent
    return False


class _Scope:
    """Local variables of one interpreted function, with its globals, closure and builtins behind
    (and, for a local def or lambda, the scope it was defined in)."""

    def __init__(self, vars: dict[str, Any], fn: Callable, parent: _Scope | None = None) -> None:
        self.vars = vars
        self.fn = fn
        self.parent = parent
        code = fn.__code__
        self.closure = dict(zip(code.co_freevars, (c.cell_contents for c in (fn.__closure__ or ())))) \
            if fn.__closure__ and parent is None else {}

    def lookup(self, name: str) -> tuple[bool, Any]:
        if name in self.vars:
            return True, self.vars[name]
        if self.parent is not None:
            return self.parent.lookup(name)
        if name in self.closure:
            return True, self.closure[name]
        g = self.fn.__globals__
        if name in g:
            return True, g[name]
        if hasattr(builtins, name):
            return True, getattr(builtins, name)
        return False, None

    def closure_cell(self, name: str) -> Any:
        """The closure cell `name` resolves to (not a local of this or an enclosing interpreted scope), or None."""
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.vars:
                return None
            if scope.parent is None:
                fn = scope.fn
                if name in scope.closure and fn.__closure__:
                    return fn.__closure__[fn.__code__.co_freevars.index(name)]
                return None
            scope = scope.parent
        return None

    def is_global(self, name: str) -> bool:
        """Whether `name` resolves to the function's module globals (not a local, closure or builtin)."""
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.vars:
                return False
            if scope.parent is None:
                return name not in scope.closure and name in scope.fn.__globals__
            scope = scope.parent
        return False

    def copy(self) -> _Scope:
        s = _Scope.__new__(_Scope)
        s.vars, s.fn, s.closure, s.parent = dict(self.vars), self.fn, self.closure, self.parent
        return s

