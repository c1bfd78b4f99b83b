"""Graph breaks (jit_syntax_level=LAX): what a graph cannot hold runs in Python between compiled parts.

When a construct cannot be one graph — a `print` of values, `time.time()`, a write to `self.x` or a
global, a call into an arbitrary Python object, `try`/`with`, NumPy on a tensor's value — Spore
does what torch.compile does rather than refusing: the function is rewritten so that each such
statement runs as plain Python, with real values, exactly as PyNative runs it, and each maximal run
of statements around it is compiled on its own (a *segment*). Compound statements that contain a
break keep their header in Python (an `if` on a tensor is then decided by `bool(tensor)`, as in
PyNative) and have their bodies segmented in turn. Values cross between Python and segments as
ordinary locals, so gradients flow through both: a segment is one node on PyNative's tape, with a
compiled backward.

The rewritten function keeps the user's file and line numbers, so tracebacks, debuggers and the
profiler land on the user's statements. Breaks are found two ways: statically from the support
table (the whole function's findings at once), and while compiling a segment for the values it is
called with (its statement then runs in Python for that call, and the plan is refined for the
next). Each break warns once with its line and rule.

Segments read Python values (attributes, numbers) at compile time, as whole-graph compilation
does. Values that the Python statements of the same function write — `self.<attr>` targets and
declared globals — are part of every segment's cache key, so a segment never runs with a stale
copy of them.
"""

from __future__ import annotations

import ast
import time
import types
import warnings
from typing import Any

from ..errors import GraphBreakWarning, GraphCompileError, SourceLoc
from ..ops.observers import OBSERVERS, OpEvent
from . import support

_UNBOUND = type("Unbound", (), {"__repr__": lambda self: "<unbound>"})()
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPOUND_BODIES = ("body", "orelse", "finalbody")
_LOOPS = (ast.For, ast.While, ast.AsyncFor)


def stmt_key(stmt: ast.AST) -> tuple[int, int]:
    return (stmt.lineno, stmt.col_offset)


_SCOPES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _walk_local(node: ast.AST):
    """ast.walk that stays in this function's scope: it yields a nested def or class (its name is
    bound here) but does not enter it, nor lambdas and comprehensions."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield child
            elif not isinstance(child, (ast.Lambda,) + _SCOPES):
                stack.append(child)


def _names(stmts: list[ast.stmt]) -> tuple[set[str], set[str]]:
    """(names read, names bound) by statements, in this function's scope."""
    loads: set[str] = set()
    stores: set[str] = set()
    for s in stmts:
        for n in ast.walk(s):  # reads inside lambdas/comprehensions/defs still read our locals
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                loads.add(n.id)
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stores.add(s.name)
            continue
        for n in _walk_local(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                stores.add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stores.add(n.name)
    return loads, stores


def _children_blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    blocks = [getattr(stmt, f) for f in _COMPOUND_BODIES if isinstance(getattr(stmt, f, None), list)]
    for h in getattr(stmt, "handlers", []) or []:
        blocks.append(h.body)
    for c in getattr(stmt, "cases", []) or []:
        blocks.append(c.body)
    return [b for b in blocks if b and isinstance(b[0], ast.stmt)]


def _contains(stmt: ast.stmt, keys: set[tuple[int, int]]) -> bool:
    return any(isinstance(n, ast.stmt) and n is not stmt and stmt_key(n) in keys for n in _walk_local(stmt))


def innermost_statement(fdef: ast.FunctionDef, line: int, col: int) -> ast.stmt | None:
    """The innermost statement of `fdef`'s body (not of nested defs) that spans (line, col)."""
    best = None
    for n in _walk_local(fdef):
        if isinstance(n, ast.stmt) and n is not fdef and n.lineno <= line <= (n.end_lineno or n.lineno):
            if n.lineno == line and n.col_offset > col:
                continue
            if best is None or (n.lineno, n.col_offset) >= (best.lineno, best.col_offset):
                best = n
    return best


class Plan:
    """The rewritten function for one set of Python statements, and its segments."""

    def __init__(self, owner: Segmented, python: set[tuple[int, int]]) -> None:
        self.owner = owner
        fdef = owner.fdef
        self.python = self._close(fdef, set(python))
        self.segments: list[Any] = []
        self.breaks: list[ast.stmt] = []  # the Python statements, in the order they appear
        self.break_started: dict[int, float] = {}
        self.function = self._build(fdef)

    # --- which statements must be Python --------------------------------------------------------
    def _close(self, fdef: ast.FunctionDef, py: set[tuple[int, int]]) -> set[tuple[int, int]]:
        """Add what a Python statement drags along: break/continue of a loop that runs in Python,
        returns nested inside a segment that is not the function's tail, writes to declared globals."""
        declared = self.owner.declared_globals
        for n in _walk_local(fdef):
            if isinstance(n, (ast.Global, ast.Nonlocal)):
                py.add(stmt_key(n))
            elif isinstance(n, ast.stmt) and n is not fdef and not _children_blocks(n) and declared and any(
                    isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store) and t.id in declared
                    for t in _walk_local(n)):
                py.add(stmt_key(n))
        while True:
            before = len(py)
            for n in _walk_local(fdef):
                if isinstance(n, _LOOPS) and _contains(n, py):
                    for m in self._own_exits(n):
                        py.add(stmt_key(m))
            self._returns_outside_tail(fdef.body, py, is_tail=True)
            if len(py) == before:
                return py

    def _own_exits(self, loop: ast.stmt) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        stack = [s for b in _children_blocks(loop) for s in b]
        while stack:
            s = stack.pop()
            if isinstance(s, (ast.Break, ast.Continue)):
                out.append(s)
            elif not isinstance(s, _LOOPS + _NESTED):
                stack.extend(x for b in _children_blocks(s) for x in b)
        return out

    def _returns_outside_tail(self, stmts: list[ast.stmt], py: set, is_tail: bool) -> None:
        runs: list[list[ast.stmt]] = [[]]
        for s in stmts:
            if stmt_key(s) in py:
                runs.append([])
            elif _contains(s, py):
                for b in _children_blocks(s):
                    self._returns_outside_tail(b, py, is_tail=False)
                runs.append([])
            else:
                runs[-1].append(s)
        for k, run in enumerate(runs):
            tail = is_tail and k == len(runs) - 1
            for j, s in enumerate(run):
                nested = [n for n in _walk_local(s) if isinstance(n, ast.Return) and n is not s]
                if nested and not tail:
                    py.update(stmt_key(n) for n in nested)

    # --- code generation ------------------------------------------------------------------------
    def _build(self, fdef: ast.FunctionDef) -> types.FunctionType:
        owner = self.owner
        body = self._block(fdef.body)
        args = ast.arguments(posonlyargs=fdef.args.posonlyargs, args=fdef.args.args, vararg=fdef.args.vararg,
                             kwonlyargs=fdef.args.kwonlyargs, kw_defaults=[None] * len(fdef.args.kwonlyargs),
                             kwarg=fdef.args.kwarg, defaults=[])
        end = fdef.end_lineno or fdef.lineno
        gen = ast.FunctionDef(name=fdef.name, args=args, body=body, decorator_list=[], returns=None,
                              type_comment=None, lineno=fdef.lineno, col_offset=fdef.col_offset, end_lineno=end,
                              end_col_offset=0)
        fn = _define(owner.fn, owner.file, gen, {"__run": self._run, "__brk": self._brk})
        fn.__defaults__ = owner.fn.__defaults__
        fn.__kwdefaults__ = owner.fn.__kwdefaults__
        return fn

    def _block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        run: list[ast.stmt] = []
        for s in stmts:
            if stmt_key(s) in self.python:
                out.extend(self._segment(run))
                run = []
                out.extend(self._timed(s))
            elif _contains(s, self.python):
                out.extend(self._segment(run))
                run = []
                out.append(self._compound(s))
            else:
                run.append(s)
        out.extend(self._segment(run))
        return out or [ast.Pass(lineno=stmts[0].lineno, col_offset=stmts[0].col_offset)]

    def _timed(self, s: ast.stmt) -> list[ast.stmt]:
        """A Python statement between `__brk` marks, so the profiler shows each graph break."""
        if isinstance(s, (ast.Global, ast.Nonlocal)):
            return [s]
        k = len(self.breaks)
        self.breaks.append(s)
        wrapped = ast.parse(f"__brk({k}, True)\ntry:\n    pass\nfinally:\n    __brk({k}, False)").body
        wrapped[1].body = [s]
        for n in wrapped:
            for m in ast.walk(n):
                if hasattr(m, "lineno") and m is not s and not _inside(m, s):
                    m.lineno = m.end_lineno = s.lineno
                    m.col_offset = m.end_col_offset = s.col_offset
        return wrapped

    def _brk(self, k: int, start: bool) -> None:
        """Report the graph-break statement `k` to the execution observers, as one "python" event."""
        if not OBSERVERS.active:
            return
        if start:
            s = self.breaks[k]
            loc = SourceLoc(self.owner.file, s.lineno, s.col_offset,
                            s.end_col_offset if s.end_lineno == s.lineno else None)
            event = self.break_started[k] = OpEvent("GraphBreak", "python", loc=loc, scope=self.owner.jit_fn.name)
            for o in OBSERVERS.active:
                o.before(event)
            event.start = time.perf_counter()
        elif k in self.break_started:
            event = self.break_started.pop(k)
            event.duration = time.perf_counter() - event.start
            for o in OBSERVERS.active:
                o.after(event)

    def _compound(self, s: ast.stmt) -> ast.stmt:
        new = type(s)(**{f: getattr(s, f) for f in s._fields})
        ast.copy_location(new, s)
        new.end_lineno, new.end_col_offset = s.end_lineno, s.end_col_offset
        for f in _COMPOUND_BODIES:
            block = getattr(s, f, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(new, f, self._block(block))
        if getattr(s, "handlers", None):
            new.handlers = []
            for h in s.handlers:
                nh = ast.ExceptHandler(type=h.type, name=h.name, body=self._block(h.body))
                ast.copy_location(nh, h)
                new.handlers.append(nh)
        if getattr(s, "cases", None):
            new.cases = [ast.match_case(pattern=c.pattern, guard=c.guard, body=self._block(c.body)) for c in s.cases]
        return new

    def _segment(self, run: list[ast.stmt]) -> list[ast.stmt]:
        if not run:
            return []
        owner = self.owner
        loads, stores = _names(run)
        local = owner.local_names
        live_in = sorted(loads & local)
        live_out = sorted(stores & local)
        k = len(self.segments)
        self.segments.append(owner.segment(run, live_in, live_out))
        src = f"__r = __run({k}, locals())\nif __r[0]:\n    return __r[1]\n"
        if live_out:
            src += f"({', '.join(live_out)},) = __r[2]\n"
        nodes = ast.parse(src).body
        for n in nodes:
            for m in ast.walk(n):
                if hasattr(m, "lineno"):
                    m.lineno, m.end_lineno = run[0].lineno, run[0].lineno
                    m.col_offset, m.end_col_offset = run[0].col_offset, run[0].col_offset
        return nodes

    def _run(self, k: int, env: dict) -> tuple:
        __tracebackhide__ = True
        return self.owner.run_segment(self, self.segments[k], env)


class Segmented:
    """A JitFunction's function rewritten with graph breaks; refined as new breaks are found."""

    def __init__(self, jit_fn: Any, first: GraphCompileError) -> None:
        from .frontend import parse_function

        self.jit_fn = jit_fn
        self.fn = jit_fn.fn
        info = parse_function(self.fn)
        self.fdef, self.file = info.node, info.file
        params = [a.arg for a in self.fdef.args.posonlyargs + self.fdef.args.args + self.fdef.args.kwonlyargs]
        params += [a.arg for a in (self.fdef.args.vararg, self.fdef.args.kwarg) if a is not None]
        self.declared_globals = {n for s in _walk_local(self.fdef) if isinstance(s, (ast.Global, ast.Nonlocal))
                                 for n in s.names}
        _, stores = _names(self.fdef.body)
        self.local_names = (set(params) | stores) - self.declared_globals
        self.self_name = params[0] if jit_fn.self_obj is not None and params else None
        self.watched_attrs = sorted(self._self_writes())
        self.segments: dict[tuple, Any] = {}
        self.warned: set[tuple[int, int]] = set()
        python = set()
        for f in support.check_function(self.fdef, jit_fn.name, _aliases(self.fn), jit_fn.self_obj is not None):
            s = innermost_statement(self.fdef, f.line, f.col)
            if s is not None:
                python.add(stmt_key(s))
                self._warn(s, f.rule.construct, f.rule.id)
        self.plan = Plan(self, python)
        self.add_break(first)

    def _self_writes(self) -> set[str]:
        out: set[str] = set()
        if self.self_name is None:
            return out
        for n in _walk_local(self.fdef):
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)):
                root = n.value
                if isinstance(root, ast.Name) and root.id == self.self_name:
                    out.add(n.attr)
        return out

    def add_break(self, err: GraphCompileError) -> bool:
        """Make the statement `err` happened in run in Python; False when it is not one of ours."""
        at = getattr(err, "break_at", None)
        if at is None or err.loc is None:
            return False
        s = innermost_statement(self.fdef, *at)
        if s is None:
            return False
        if stmt_key(s) in self.plan.python:
            return False
        self._warn(s, err.reason + (f" (in layer {err.layer})" if err.layer else ""), err.rule)
        self.plan = Plan(self, self.plan.python | {stmt_key(s)})
        return True

    def _warn(self, s: ast.stmt, what: str, rule: str | None) -> None:
        if stmt_key(s) in self.warned:
            return
        self.warned.add(stmt_key(s))
        loc = SourceLoc(self.file, s.lineno, s.col_offset)
        warnings.warn_explicit(f"graph break in {self.jit_fn.name}: {what} ({rule}); the statement at {loc} runs in "
                               "Python with PyNative's exact behaviour, the code around it stays compiled "
                               "(ms.set_context(jit_syntax_level=ms.STRICT) makes this an error)",
                               GraphBreakWarning, self.file, s.lineno)

    def __call__(self, args: tuple, kwargs: dict) -> Any:
        __tracebackhide__ = True
        fn = self.plan.function
        if self.jit_fn.self_obj is not None:
            return fn(self.jit_fn.self_obj, *args, **kwargs)
        return fn(*args, **kwargs)

    # --- segments -------------------------------------------------------------------------------
    def segment(self, run: list[ast.stmt], live_in: list[str], live_out: list[str]) -> Any:
        from .jit import Segment

        key = tuple(stmt_key(s) for s in run) + (tuple(live_in), tuple(live_out))
        seg = self.segments.get(key)
        if seg is None:
            k = len(self.segments)
            seg = self.segments[key] = Segment(self, run, live_in, live_out, f"{self.jit_fn.name}[segment {k}]",
                                               self._twin(run, live_in, live_out))
        return seg

    def guards(self) -> tuple:
        obj = self.jit_fn.self_obj
        vals: list[Any] = []
        for a in self.watched_attrs:
            vals.append(_guard_value(getattr(obj, a, _UNBOUND)))
        g = self.fn.__globals__
        for name in sorted(self.declared_globals):
            vals.append(_guard_value(g.get(name, _UNBOUND)))
        return tuple(vals)

    def run_segment(self, plan: Plan, seg: Any, env: dict) -> tuple:
        """Run one segment compiled; if it cannot compile for these values, run its statements in
        Python this time and break the offending statement out for the next calls."""
        __tracebackhide__ = True
        values = {n: env[n] for n in seg.live_in if n in env}
        try:
            return seg.run_compiled(values, self.guards())
        except GraphCompileError as err:
            if plan is self.plan and not self.add_break(err):
                self._warn(seg.stmts[0], err.reason, err.rule)
            return seg.twin(**values)

    def _twin(self, run: list[ast.stmt], live_in: list[str], live_out: list[str]) -> Any:
        """The run's statements as a plain Python function with the segment's calling convention."""
        body = [_ReturnAsTriple().visit(_clone(s)) for s in run]
        outs = "".join(f"__l.get({n!r}, __u), " for n in live_out)
        tail = ast.parse(f"__l = locals()\nreturn (False, None, ({outs}))")
        for m in ast.walk(tail):
            if hasattr(m, "lineno"):
                m.lineno = m.end_lineno = max(n.end_lineno or n.lineno for n in run)
                m.col_offset = m.end_col_offset = 0
        args = ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in live_in], kwonlyargs=[], kw_defaults=[],
                             defaults=[ast.Name("__u", ast.Load()) for _ in live_in])
        end = max(n.end_lineno or n.lineno for n in run)
        fdef = ast.FunctionDef(name="__spore_segment", args=args, body=body + tail.body, decorator_list=[],
                               returns=None, lineno=run[0].lineno, col_offset=0, end_lineno=end, end_col_offset=0)
        if self.declared_globals:
            fdef.body.insert(0, ast.Global(names=sorted(self.declared_globals), lineno=run[0].lineno, col_offset=0))
        return _define(self.fn, self.file, fdef, {"__u": _UNBOUND})


def _define(fn: Any, file: str, fdef: ast.FunctionDef, hidden: dict[str, Any]) -> types.FunctionType:
    """Compile `fdef` under the user's file (its line numbers kept) as a function of `fn`'s module, with
    `hidden` names and `fn`'s closure variables as free variables of it."""
    free = list(fn.__code__.co_freevars)
    maker = ast.FunctionDef(
        name="__spore_make", args=ast.arguments(posonlyargs=[], args=[ast.arg(a) for a in list(hidden) + free],
                                                kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[fdef, ast.Return(ast.Name(fdef.name, ast.Load()))], decorator_list=[], returns=None,
        lineno=fdef.lineno, col_offset=0, end_lineno=fdef.end_lineno, end_col_offset=0)
    module = ast.Module(body=[maker], type_ignores=[])
    ast.fix_missing_locations(module)
    code = compile(module, file, "exec")
    make_code = next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == "__spore_make")
    cells = [c.cell_contents for c in (fn.__closure__ or ())]
    return types.FunctionType(make_code, fn.__globals__)(*hidden.values(), *cells)


class _ReturnAsTriple(ast.NodeTransformer):
    """`return v` -> `return (True, v, ())` (not inside nested functions)."""

    def visit_Return(self, node: ast.Return) -> ast.Return:
        value = node.value if node.value is not None else ast.Constant(None)
        new = ast.Return(ast.Tuple([ast.Constant(True), value, ast.Tuple([], ast.Load())], ast.Load()))
        return ast.copy_location(new, node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Lambda(self, node: ast.Lambda) -> ast.Lambda:
        return node


def _inside(node: ast.AST, stmt: ast.stmt) -> bool:
    return any(n is node for n in ast.walk(stmt))


def _clone(node: ast.AST) -> ast.AST:
    import copy

    return copy.deepcopy(node)


def _guard_value(v: Any) -> Any:
    from ..tensor import Tensor

    if isinstance(v, Tensor):
        return ("tensor", id(v), tuple(v.shape), v.dtype.name)
    try:
        hash(v)
        return v
    except TypeError:
        return ("object", id(v), repr(v))


def _aliases(fn: Any) -> dict[str, str]:
    return {k: v.__name__.split(".")[0] for k, v in fn.__globals__.items() if isinstance(v, types.ModuleType)}
