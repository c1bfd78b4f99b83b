"""Entry points of Graph mode: `jit`, compiled Cells, the compile cache, and how compiled code
meets PyNative autodiff.

A `JitFunction` compiles its function once per input signature (shapes, dtypes, static
arguments, Cell structure) and then runs the cached executable. Inside a PyNative
`grad`/`value_and_grad`, a compiled call is one tape node (`GraphCall`): its forward executable
also returns the residuals its backward graph needs, and its gradient runs that compiled backward
graph. Inside another compilation, a jitted function is simply inlined.
"""

from __future__ import annotations

import functools
import inspect
import os
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import context
from ..autodiff import tape
from ..autodiff.hooks import adopt_input_hooks, drop_adopted, input_hook_key
from ..common.tree import flatten, unflatten
from ..context import STRUCTURE_VERSION
from ..errors import (
    GraphBreakWarning,
    GraphCompileError,
    GraphFallbackWarning,
    GraphRecompileWarning,
    NonFiniteError,
    SporeError,
    is_engine_code,
    located,
    raise_at_user_line,
    type_name,
)
from ..ops.input_check import jit_input_error
from ..ops.observers import OBSERVERS
from ..ops.primitive import TRACING, Aval, Primitive
from ..tensor import Parameter, Tensor
from .debug_hooks import PROBE, eager_for_debugger, runs_eagerly
from .executor import Executable
from .frontend import Frontend, parse_function
from .grad import backprop
from .graph_grad import traced_grad as _traced_grad  # noqa: F401  (why: below)
from .ir import Const, Graph, Var, subgraphs
from .passes import optimize
from .trace import GraphBuilder, building

# `graph_grad` is what a training step's `value_and_grad` calls while it compiles (autodiff/api.py imports
# it there, on first use): loaded with the compiler, so the first compile of a training step does not also
# pay for reading (and, without a bytecode cache, compiling) one more module


class CompiledEntry:
    """One function compiled for one input signature."""

    def __init__(self, name: str, graph: Graph, raw: Graph, out_tree: Any, n_in: int) -> None:
        self.name = name
        self.graph = graph          # optimized forward graph
        self.raw = raw              # forward graph as traced (what the gradient differentiates)
        self.out_tree = out_tree
        self.n_in = n_in
        self.executable = Executable(graph)
        self.guards: Any = None  # frontend.Guards: the Python values this graph was compiled with
        self.written: list[int] = []  # inputs the function writes in place (their new values end the outputs)
        self.lines: tuple[tuple[str, int, int], ...] = ()  # user source ranges the graph covers (debuggers)
        self.debug_answer: Any = None  # debug_hooks' cached "a breakpoint is in it" for this graph
        self.same_as_input: dict[int, int] = {}  # output index -> the input it returns as it is
        self._grad: dict[tuple[bool, ...], tuple[Primitive, list[Parameter]]] = {}

    def run(self, leaves: list[Tensor]) -> list[np.ndarray]:
        return self.executable(*[t._data for t in leaves])

    def grad_call(self, leaves: list[Tensor]) -> tuple[Primitive, list[Parameter]]:
        """The `GraphCall` primitive for use on the PyNative tape, built on first use for each set of
        inputs and Parameters the tape tracks: the compiled backward computes only their gradients (the
        first layer's input gradient of a network is never computed for nothing)."""
        need = tuple(tape.is_tracked(t) for t in leaves) + tuple(tape.is_tracked(p.param) for p in self.raw.params)
        call = self._grad.get(need)
        if call is None:
            call = self._grad[need] = _build_graph_call(self, need)
        return call


def _build_graph_call(entry: CompiledEntry, need: tuple[bool, ...]) -> tuple[Primitive, list[Parameter]]:
    raw = entry.raw
    params = [p.param for p in raw.params]
    joint = GraphBuilder(raw.name + "_grad")
    joint.params = {id(p.param): p for p in raw.params}
    joint.eqns = list(raw.eqns)
    n_fwd = len(joint.eqns)
    out_vars = [a for a in raw.outputs]
    with building(joint):
        cot_tracers = [joint.new_input(a.aval, "cot") for a in out_vars]
    cot_vars = list(joint.inputs)
    wrt_all = list(raw.inputs) + [p.var for p in raw.params]
    wrt = [v for v, n in zip(wrt_all, need) if n]
    grads = backprop(joint, joint.eqns[:n_fwd], out_vars, cot_tracers, wrt)
    grad_atoms = [joint.atom(g) if g is not None else Const(np.zeros(v.aval.shape, v.aval.dtype.np))
                  for g, v in zip(grads, wrt)]
    bwd_eqns = joint.eqns[n_fwd:]
    fwd_defined = {v.id for v in raw.inputs} | {e_out.id for e in raw.eqns for e_out in e.outputs}
    reads: list[Var] = []
    seen: set[int] = set()

    def read(a: Any) -> None:
        if isinstance(a, Var) and a.id in fwd_defined and a.id not in seen:
            seen.add(a.id)
            reads.append(a)

    for e in bwd_eqns:
        for a in e.inputs:
            read(a)
        for sub in subgraphs(e):
            for vid in sub.free_uses():
                if vid in fwd_defined and vid not in seen:
                    var = _find_var(raw, vid)
                    if var is not None:
                        seen.add(vid)
                        reads.append(var)
    for a in grad_atoms:
        read(a)
    residuals = reads
    fwd = Graph(raw.name + "_fwd", list(raw.inputs), list(raw.params), list(raw.eqns),
                list(raw.outputs) + residuals)
    bwd = Graph(raw.name + "_bwd", residuals + cot_vars, list(raw.params), bwd_eqns, grad_atoms)
    fwd_exe, bwd_exe = Executable(optimize(fwd)), Executable(optimize(bwd))
    n_out = len(raw.outputs)
    out_avals = [a.aval for a in raw.outputs]
    res_avals = [v.aval for v in residuals]
    grad_avals = [Aval(tuple(v.aval.shape), v.aval.dtype) for v in wrt]

    def bwd_impl(*arrays: np.ndarray) -> tuple:
        return tuple(bwd_exe(*arrays))

    # GraphBackward[...] / GraphCall[...] are built per compiled graph (their rules close over it), so
    # they stay unregistered: the registry coverage test meets them through the compiled-function tests
    backward = Primitive(f"GraphBackward[{raw.name}]", lambda *a, **k: tuple(grad_avals), bwd_impl, None,
                         "The compiled backward graph of a compiled function.", multi_output=True)

    def fwd_impl(*arrays: np.ndarray) -> tuple:
        return tuple(fwd_exe(*arrays[:len(raw.inputs)]))

    def vjp(cots: tuple, outs: tuple, *inputs: Tensor) -> tuple:
        from ..ops import functional as F

        res = list(outs[n_out:])
        main_cots = [c if c is not None else F.zeros_like(o) for c, o in zip(cots[:n_out], outs[:n_out])]
        got = iter(backward(*res, *main_cots))
        return tuple(next(got) if n else None for n in need)

    call = Primitive(f"GraphCall[{raw.name}]", lambda *a, **k: tuple(out_avals + res_avals), fwd_impl, vjp,
                     "A compiled function called from PyNative code.", multi_output=True)
    return call, params


def _find_var(g: Graph, vid: int) -> Var | None:
    for v in g.inputs:
        if v.id == vid:
            return v
    for e in g.eqns:
        for o in e.outputs:
            if o.id == vid:
                return o
    return None


class JitFunction:
    """A function (or a Cell's construct) compiled per input signature."""

    def __init__(self, fn: Callable, self_obj: Any = None, fullgraph: bool = False, name: str | None = None,
                 cell: bool = False) -> None:
        self.fn = fn
        self.self_obj = self_obj
        self.fullgraph = fullgraph
        self.cell = cell  # a Cell's construct in GRAPH_MODE: under STRICT a refusal raises (no PyNative fallback)
        self.name = name or getattr(fn, "__qualname__", "fn")
        self.cache: dict[Any, CompiledEntry] = {}
        self.fallback_reason: GraphCompileError | None = None
        self.segmented: Any = None  # the function with graph breaks (LAX), once one was needed
        self.recompiles = 0  # compiles caused by a changed Python value (see _stale)
        functools.update_wrapper(self, fn)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        """A @jit method read from an instance: its own JitFunction bound to that instance (each
        instance compiles for itself), kept in the instance's `_jit_bound` entry as
        functools.cached_property keeps its value — the descriptor's own cache, on any kind of object;
        a Cell leaves it out of its copies and `Cell.drop_compiled` forgets it."""
        if obj is None:
            return self
        bound = obj.__dict__.get("_jit_bound", {})
        jf = bound.get(id(self))
        if jf is None:
            jf = JitFunction(self.fn, obj, self.fullgraph, self.name, self.cell)
            bound[id(self)] = jf
            try:
                obj.__dict__["_jit_bound"] = bound
            except (AttributeError, TypeError):
                pass
        return jf

    def _call_python(self, args: tuple, kwargs: dict) -> Any:
        if self.self_obj is not None:
            return self.fn(self.self_obj, *args, **kwargs)
        return self.fn(*args, **kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True  # pytest and IPython show the user's frames only
        builder = TRACING.builder
        if builder is not None:  # inside another compilation: inline
            fe: Frontend = builder.frontend
            return fe.inline(None, self.fn, list(args), kwargs, self.name, self.self_obj)
        leaves, tree = flatten((args, kwargs))
        key = (tree, STRUCTURE_VERSION[0], input_hook_key(leaves))
        try:
            entry = self.cache.get(key)
        except TypeError:  # an unhashable argument (a NumPy array...): no graph input, nor a value to compile for
            raise_at_user_line(located(jit_input_error(self.fn, self.name, args, kwargs, self.self_obj)))
        if self.segmented is not None:
            return self.segmented(args, kwargs)
        if self.fallback_reason is not None:
            return self._call_python(args, kwargs)
        if entry is not None and entry.guards is not None and self._stale(entry):
            entry = None  # a Python value the graph was compiled with has changed: compile again
        if entry is None:
            try:
                entry = self.compile(args, kwargs, leaves)
            except GraphCompileError as err:
                how = self._may_break(err)
                if how == "segments":
                    from .segments import Segmented

                    self.segmented = Segmented(self, err)
                    return self.segmented(args, kwargs)
                if how == "python":  # Spore's own construct (TrainOneStepCell...) around user code that breaks
                    self.fallback_reason = err
                    warnings.warn(f"graph break in {err.scope or self.name}: {err.reason} ({err.rule}); {self.name} "
                                  "runs in Python, the Cells it calls stay compiled", GraphBreakWarning, stacklevel=2)
                    return self._call_python(args, kwargs)
                if err.loc is None:  # Spore's own construct refused: the user's line is the call
                    located(err)
                if self.fullgraph or self.cell:
                    shown = self.user_locals(args, kwargs, err.loc) or getattr(err, "frame_locals", None)
                    raise_at_user_line(err, shown)
                self.fallback_reason = err
                warnings.warn(f"{err}\n  (running {self.name} in PyNative instead; fullgraph=True makes this an error)",
                              GraphFallbackWarning, stacklevel=2)
                return self._call_python(args, kwargs)
            self.cache[key] = entry
        if PROBE[0] is not None and runs_eagerly(self.name, entry, entry.lines):
            with eager_for_debugger():  # a debugger's breakpoint is in it: run the real lines
                return self._call_python(args, kwargs)
        if OBSERVERS.active:
            return self._run_observed(entry, leaves, args, kwargs)
        return self.run(entry, leaves, args, kwargs)

    def _run_observed(self, entry: CompiledEntry, leaves: list[Tensor], args: tuple, kwargs: dict) -> Any:
        """Run while observers watch each node. When one stops the graph with `NonFiniteError` (a
        NaN/Inf guard), the call runs again in PyNative from the same random state, so the error comes
        from the op that made the first bad value, at its own line, in the user's real frames with
        their locals — a fused graph node names no single op or line. (The graph applies parameter
        updates and in-place writes only at its end, so the stopped run changed nothing.)"""
        __tracebackhide__ = True
        from ..common import seed

        state = seed.rng().bit_generator.state
        try:
            return self.run(entry, leaves, args, kwargs, replay=True)
        except NonFiniteError as err:
            found = err  # not raised on from here: a debugger breaking on it would stop in the graph's report
        seed.rng().bit_generator.state = state
        self._call_python(args, kwargs)  # raises the PyNative NonFiniteError where the value appears
        raise_at_user_line(found, self.user_locals(args, kwargs, found.loc))  # it did not recur: the node's line

    def _stale(self, entry: CompiledEntry) -> bool:
        """Whether a Python value `entry` was compiled with has changed; warns once when that keeps
        happening (each change costs a compile: the value is better passed in as a tensor)."""
        what = entry.guards.changed()
        if what is None:
            return False
        self.recompiles += 1
        if self.recompiles == _RECOMPILE_WARN:
            warnings.warn(f"{self.name} was compiled again {self.recompiles} times because {what} (a Python value "
                          "the graph reads) keeps changing; pass it in as a Tensor argument, or keep it a Parameter, "
                          "so one graph serves every value", GraphRecompileWarning, stacklevel=3)
        return True

    def _may_break(self, err: GraphCompileError) -> str | None:
        """Graph breaks, under jit_syntax_level=LAX (the default) unless fullgraph=True: "segments" for user
        code; "python" for Spore's own construct when user code it calls needs a break; else None."""
        if self.fullgraph or context.get_context("jit_syntax_level") == context.STRICT:  # COMPATIBLE acts as LAX
            return None
        if not is_engine_code(self.fn):
            return "segments"
        return "python" if getattr(err, "break_at", None) is not None else None

    def trace_body(self, fe: Frontend, t_args: list, t_kwargs: dict) -> Any:
        """Interpret the function over tracers (Spore's own code runs directly over them)."""
        if is_engine_code(self.fn):
            if self.cell and self.self_obj is not None:  # one of Spore's Cells compiled as the root
                # its errors name the layer by its path in the network it belongs to (`block.2.1`, as its
                # parameters are named) when it has one, else from its class (`SequentialCell.2.1`)
                prefix = self.self_obj.param_prefix.rstrip(".")
                out = fe.apply_layer(None, prefix or fe.cell_names.get(id(self.self_obj), ""), self.self_obj,
                                     self.fn, (self.self_obj, *t_args), t_kwargs, by_class=not prefix)
                fe.guards.note_engine(self.self_obj)  # its configuration (`loss.reduction = "sum"` recompiles)
                return out
            bound = (self.self_obj,) if self.self_obj is not None else ()
            return fe.apply(None, self.fn, *bound, *t_args, **t_kwargs)
        return fe.call_user_function(self.fn, tuple(t_args), t_kwargs, self.name, self.self_obj)

    def compile(self, args: tuple, kwargs: dict, leaves: list[Tensor]) -> CompiledEntry:
        builder = GraphBuilder(self.name)
        with building(builder):
            tracers = [builder.new_input(Aval(tuple(t.shape), t.dtype), f"in{i}") for i, t in enumerate(leaves)]
        adopted = adopt_input_hooks(leaves, tracers)  # inputs hooked in PyNative keep their hooks in the graph
        _, tree = flatten((args, kwargs))
        t_args, t_kwargs = unflatten(tree, tracers)
        cell_names = _cell_names(self.self_obj)
        fe = Frontend(builder, cell_names)
        try:
            with building(builder):
                builder.scope = cell_names.get(id(self.self_obj), "")  # the root Cell's own ops carry its name
                out = self.trace_body(fe, t_args, t_kwargs)
                out_leaves, out_tree = flatten(out)
                _check_outputs(out_tree, self.name)
                # inputs written in place (x[i] = v, x.fill_(...)) hand their new value back to the caller's
                # tensor after each run, as the write in PyNative would have changed it (a hook registered
                # on an input rebinds it to an identity of itself: not a write)
                written = [i for i, (t, v) in enumerate(zip(tracers, builder.inputs))
                           if t._var is not v and t.__dict__.get("_hooked_var") is not t._var]
                raw = builder.finish(out_leaves + [tracers[i] for i in written], out_tree)
        finally:
            drop_adopted(adopted)
        graph = optimize(raw)
        entry = CompiledEntry(self.name, graph, raw, out_tree, len(leaves))
        entry.guards = None if fe.guards.empty else fe.guards
        entry.written = written
        entry.lines = tuple(sorted(fe.covered))
        final = {t._var.id: i for i, t in enumerate(tracers)}
        entry.same_as_input = {j: final[a.id] for j, a in enumerate(raw.outputs[:len(out_leaves)])
                               if isinstance(a, Var) and a.id in final}
        if context.get_context("save_graphs"):
            from .dump import save_graphs

            save_graphs(raw, graph, context.get_context("save_graphs_path"))
        return entry

    def user_locals(self, args: tuple, kwargs: dict, loc: Any) -> dict[str, Any] | None:
        """The function's arguments by name when `loc` is one of its own lines (None otherwise): the
        variables a debugger stopped at an error on that line shows, as the real call would have had
        them before its first statement ran."""
        if loc is None or is_engine_code(self.fn):
            return None
        try:
            node = parse_function(self.fn).node
            if not (os.path.abspath(loc.file) == os.path.abspath(self.fn.__code__.co_filename)
                    and node.lineno <= loc.line <= (node.end_lineno or node.lineno)):
                return None
            bound = (self.self_obj,) if self.self_obj is not None else ()
            call = inspect.signature(self.fn).bind(*bound, *args, **kwargs)
            call.apply_defaults()  # the frame of the real call has its defaults too
            return dict(call.arguments)
        except (TypeError, ValueError, OSError, GraphCompileError):
            return None

    def run(self, entry: CompiledEntry, leaves: list[Tensor], args: tuple = (), kwargs: dict | None = None,
            replay: bool = False) -> Any:
        __tracebackhide__ = True
        try:
            if tape.STATE.depth and _any_tracked(leaves, entry):
                call, params = entry.grad_call(leaves)
                outs = call(*leaves, *params)
                outs = outs[:len(entry.raw.outputs)]
            else:
                outs = [Tensor._wrap(a) for a in entry.run(leaves)]
        except SporeError as err:  # a kernel refused a value: the traceback ends on the user's line
            if replay and isinstance(err, NonFiniteError):
                raise  # the caller replays the call in PyNative (_run_observed)
            raise_at_user_line(err, self.user_locals(args, kwargs or {}, err.loc) if args or kwargs else None)
        if entry.written:
            n = len(outs) - len(entry.written)
            for i, new in zip(entry.written, outs[n:]):
                leaves[i]._data = new._data
                leaves[i]._version += 1
            outs = outs[:n]
        if entry.same_as_input:  # an argument returned as it is (or as written in place) is the same object
            outs = list(outs)
            for j, i in entry.same_as_input.items():
                outs[j] = leaves[i]
        return unflatten(entry.out_tree, list(outs))


class Segment(JitFunction):
    """One compiled run of statements of a function with graph breaks (see segments.py): called with
    the live local variables, returns (returned?, return value, the variables it assigns)."""

    def __init__(self, owner: Any, stmts: list, live_in: list[str], live_out: list[str], name: str,
                 twin: Callable) -> None:
        super().__init__(owner.fn, owner.jit_fn.self_obj, fullgraph=True, name=name)
        self.owner, self.stmts, self.live_in, self.live_out, self.twin = owner, stmts, live_in, live_out, twin

    def run_compiled(self, values: dict, guards: tuple) -> tuple:
        __tracebackhide__ = True
        leaves, tree = flatten(((values,), {"guards": guards}))
        key = (tree, STRUCTURE_VERSION[0], input_hook_key(leaves))
        try:
            entry = self.cache.get(key)
        except TypeError:  # a live variable holds an unhashable Python value: these statements run in Python
            bad = jit_input_error(self.twin, self.name, (), values)
            raise GraphCompileError(f"`{bad.argument}` holds a {bad.actual}, a Python value compiled code can "
                                    "neither take as a tensor input nor be compiled for (it has no hash)",
                                    rule="unhashable_value") from None
        if entry is not None and entry.guards is not None and self._stale(entry):
            entry = None
        if entry is None:
            entry = self.compile((values,), {"guards": guards}, leaves)
            self.cache[key] = entry
        if PROBE[0] is not None and runs_eagerly(self.name, entry, entry.lines):
            with eager_for_debugger():  # a debugger's breakpoint is in it: these statements as Python
                return self.twin(**values)
        return self.run(entry, leaves)

    def trace_body(self, fe: Frontend, t_args: list, t_kwargs: dict) -> Any:
        from .frontend import _Return, _Scope
        from .segments import _UNBOUND

        scope = _Scope(dict(t_args[0]), self.fn)
        fe.file, fe.fn_scope, fe.depth = self.owner.file, self.name, 1
        fe.covered.add((self.owner.file, self.stmts[0].lineno, max(s.end_lineno or s.lineno for s in self.stmts)))
        try:
            signal = fe.exec_block(self.stmts, scope)
        except GraphCompileError as err:
            fe.mark_break(err)
            raise
        finally:
            fe.depth = 0
        if isinstance(signal, _Return):
            out: tuple = (True, signal.value, ())
        else:
            out = (False, None, tuple(scope.vars.get(n, _UNBOUND) for n in self.live_out))
        _refuse_hooked_live_out(out)
        return out


def _refuse_hooked_live_out(out: Any) -> None:
    """A tensor given a hook inside a segment that then leaves it for the function's Python code (a
    graph break) would arrive there without the hook PyNative gives it (`hooks()` would not list it,
    and on one path of an if on a tensor the compiled code cannot say whether it has one): the
    registration runs in Python instead (PyNative's exact behaviour)."""
    leaves, _ = flatten(out)
    for t in leaves:
        loc = t.__dict__.get("_graph_hook_loc") if isinstance(t, Tensor) and t._traced else None
        if loc is not None:
            err = GraphCompileError("a tensor given a hook (Tensor.register_hook) in compiled code is used after a "
                                    "graph break, where its hook must be a PyNative one", loc=loc, rule="SporeError",
                                    hint="register the hook after the break, or keep the code around it compilable")
            err.break_at = (loc.line, loc.col)
            raise err


_RECOMPILE_WARN = 8


def _check_outputs(out_tree: Any, name: str) -> None:
    """Refuse to compile a function that returns an unhashable Python value (a NumPy array made at
    compile time, a set): the graph would hand the same object back on every call, where the function
    makes a new one each time (a change to one would show in the next). Such code runs in Python.
    A sparse tensor (COOTensor, CSRTensor...) is refused too: it would hand back the graph's tracers."""
    sparse_types = _SPARSE_TYPES or _sparse_types()
    sparse = next((v for v in _python_values(out_tree) if isinstance(v, sparse_types)), None)
    if sparse is not None:
        raise GraphCompileError(f"{name} returns a {type(sparse).__name__}, which a compiled graph cannot output "
                                "(its index structure is host data)", rule="sparse_output",
                                hint="return its tensors (.values, .indices, or .to_dense()) and build the sparse "
                                     "tensor outside the compiled function")
    try:
        hash(out_tree)
    except TypeError:
        kind = next((type_name(v) for v in _python_values(out_tree) if not _hashable(v)), "value")
        raise GraphCompileError(f"{name} returns a {kind}, a Python value a compiled graph would hand back as "
                                "the very same object on every call", rule="unhashable_value",
                                hint="return a Tensor (ms.Tensor(value)), or compute it outside the compiled "
                                     "function") from None


_SPARSE_TYPES: tuple[type, ...] | None = None


def _sparse_types() -> tuple[type, ...]:
    """The sparse tensor classes, imported on first use (spore.sparse imports the engine) and kept."""
    global _SPARSE_TYPES
    from ..sparse import COOTensor, CSRTensor, RowTensor, SparseTensor

    _SPARSE_TYPES = (COOTensor, CSRTensor, RowTensor, SparseTensor)
    return _SPARSE_TYPES


def _python_values(tree: Any) -> list[Any]:
    if tree[0] == "S":
        return [tree[1]]
    if tree[0] == "T":
        return []
    subs = [sub for _, sub in tree[1]] if tree[0] is dict else list(tree[1])
    return [v for sub in subs for v in _python_values(sub)]


def _hashable(v: Any) -> bool:
    try:
        hash(v)
        return True
    except TypeError:
        return False


def _any_tracked(leaves: list[Tensor], entry: CompiledEntry) -> bool:
    return any(tape.is_tracked(t) for t in leaves) or any(tape.is_tracked(p.param) for p in entry.raw.params)


def _cell_names(cell: Any) -> dict[int, str]:
    if cell is None or not hasattr(cell, "cells_and_names"):
        return {}
    root = type(cell).__name__
    return {id(c): (f"{root}.{n}" if n else root) for n, c in cell.cells_and_names()}


def compile_cell(cell: Any, *, fullgraph: bool = False) -> JitFunction:
    """A new compiled form of `cell`'s construct, called like the Cell (hooks and casts aside).

    This is what a Cell asks for on its first Graph-mode call (and keeps: `Cell.compiled_construct`);
    the returned object compiles one graph per input signature and caches it, so compiling and
    caching stay the compiler's business. A tool that wants a graph of its own (to measure, to show)
    calls it with ``fullgraph=True``: a construct that cannot be one graph then raises
    `GraphCompileError` at the user's line instead of breaking into segments.
    """
    return JitFunction(type(cell).construct, self_obj=cell, fullgraph=fullgraph, cell=True,
                       name=f"{type(cell).__name__}.construct")


def jit(function: Callable | None = None, *, capture_mode: str = "ast", jit_level: str = "O0", dynamic: int = 0,
        fullgraph: bool = False, backend: str = "", **options: Any) -> Any:
    """Compile `function` into a graph (MindSpore's `jit`; usable as `@jit` or `@jit(fullgraph=True)`).

    With ``fullgraph=False`` (the default, as in MindSpore) a construct Graph mode cannot compile makes
    the function run in PyNative with a one-time warning carrying the location, reason and hint;
    with ``fullgraph=True`` it raises `GraphCompileError` at the user's line.
    """
    if capture_mode not in ("ast", "bytecode", "trace"):
        raise ValueError(f"jit: capture_mode must be 'ast', 'bytecode' or 'trace', got {capture_mode!r}")

    def wrap(fn: Callable) -> JitFunction:
        return JitFunction(fn, fullgraph=fullgraph)

    return wrap(function) if function is not None else wrap
