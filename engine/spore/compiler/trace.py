"""Recording primitive applications into IR while the frontend walks a function's AST.

While a `GraphBuilder` is active, `spore.ops.primitive.bind` hands every primitive application to
it instead of running a kernel: the op's own `infer` rule gives the output avals, and the result is
a `Tracer` — a Tensor subclass that stands for a Var. Everything the op wrappers do in Python
(argument conversion, axis arithmetic on static shapes) still runs, once, at compile time; only
tensor computations land in the graph. Parameters become graph inputs read at run time, other
concrete tensors become constants.

A Tracer refuses to become a Python value (`bool(t)`, `t.item()`, `float(t)`...): its value does not
exist at compile time. The frontend turns those refusals into `GraphCompileError`s on the user's
line, with the support table's hint.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..context import call_state_changed
from ..errors import SourceLoc, SporeError, ValueDependentShapeError, is_engine_code
from ..ops.primitive import TRACING, Aval, Primitive
from ..tensor import Parameter, Tensor
from . import support
from .ir import Atom, Const, Eqn, Graph, Param, Var


class TracerValueError(SporeError, TypeError):
    """A traced tensor was asked for a concrete Python value during compilation."""


class Tracer(Tensor):
    """A tensor inside a graph being compiled: has shape and dtype, no values.

    There is no `_data` behind it: any code that reads a tracer's values (an op wrapper doing
    NumPy on them, a range check, `.item()`) gets a `TracerValueError`, which the frontend turns
    into a compile error on the user's line. A fake buffer would be read silently and baked into
    the graph as a constant — the one thing Graph mode must never do.

    In-place writes (`t[i] = v`, `fill_`, `set_dtype`, ...) rebind the tracer to the Var of the
    functional result, so every alias of the tensor sees the write, as in PyNative.
    """

    __slots__ = ("_var", "_builder")
    _traced = True

    def __init__(self, var: Var, builder: GraphBuilder) -> None:  # noqa: D107
        self._node = None
        self._out_index = 0
        self._var = var
        self._builder = builder

    @property  # type: ignore[override]
    def _data(self) -> Any:
        raise TracerValueError(
            "this call reads a tensor's values while compiling (a shape, size, axis, count or fill value given "
            "as a tensor), but Graph mode only knows them when the graph runs",
            hint="pass that argument as a Python number or tuple (x.shape gives static ints), or run it in "
                 "ms.set_context(mode=ms.PYNATIVE_MODE)")

    @_data.setter
    def _data(self, value: Any) -> None:
        self._no_value("replacing the tensor's storage")

    def _no_value(self, what: str) -> Any:
        raise TracerValueError(f"{what} needs the tensor's value, which Graph mode only knows when the graph runs",
                               hint="keep it a tensor (e.g. ops.where instead of an if on it), "
                                    "or use ms.set_context(mode=ms.PYNATIVE_MODE)")

    def _rebind(self, new: Tracer) -> Tracer:
        """Take `new`'s value in place (the graph-mode form of an in-place write). Inside a control-flow
        sub-graph the write is noted (`GraphBuilder.note_rebind`): it holds on that path only."""
        b = TRACING.builder
        if b is not None and b.parent is not None:
            b.note_rebind(self)
        self._var = new._var
        return self

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._var.aval.shape)

    @property
    def dtype(self) -> Any:
        return self._var.aval.dtype

    @property
    def ndim(self) -> int:
        return len(self._var.aval.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self._var.aval.shape, dtype=np.int64))

    @property
    def itemsize(self) -> int:
        return self._var.aval.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    @property
    def strides(self) -> tuple[int, ...]:
        return self._no_value("Tensor.strides")

    def asnumpy(self) -> np.ndarray:
        return self._no_value("asnumpy()")

    numpy = asnumpy

    def item(self, *index: int) -> Any:
        return self._no_value("item()")

    def tolist(self) -> Any:
        return self._no_value("tolist()")

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._no_value("converting to a NumPy array")

    def __bool__(self) -> bool:
        return self._no_value("using a tensor as a Python bool")

    def __float__(self) -> float:
        return self._no_value("float()")

    def __int__(self) -> int:
        return self._no_value("int()")

    def __index__(self) -> int:
        return self._no_value("using a tensor as an index")

    def __format__(self, spec: str) -> str:
        return self._no_value("formatting a tensor's value")

    def __reduce__(self) -> Any:
        return self._no_value("pickling a tensor")

    def __repr__(self) -> str:
        return f"Tracer({self._var!r}, shape={list(self.shape)}, dtype={self.dtype})"

    __str__ = __repr__

    def __deepcopy__(self, memo: dict) -> Tracer:
        return self


class GraphBuilder:
    """Collects equations for one graph (or one control-flow branch, with `parent` set)."""

    def __init__(self, name: str, parent: GraphBuilder | None = None) -> None:
        self.name = name
        self.parent = parent
        self.eqns: list[Eqn] = []
        self.params: dict[int, Param] = {} if parent is None else parent.params
        self.inputs: list[Var] = []
        self.loc: SourceLoc | None = parent.loc if parent else None
        self.scope: str = parent.scope if parent else ""
        self.frontend: Any = parent.frontend if parent else None  # the Frontend interpreting into us
        # tracers from enclosing graphs written in place (or hooked) while this sub-graph was traced:
        # id -> (tracer, its Var and attributes before the first write); see `take_rebound`
        self.rebound: dict[int, tuple[Tracer, Var, dict]] = {}

    def note_rebind(self, t: Tracer) -> None:
        """Record that `t` is rebound while this (control-flow) sub-graph is being traced, unless `t`
        was made inside it (then the write is local to the path anyway)."""
        if id(t) in self.rebound:
            return
        b = getattr(t, "_builder", None)
        while b is not None:
            if b is self:
                return
            b = b.parent
        self.rebound[id(t)] = (t, t._var, dict(t.__dict__))

    def take_rebound(self) -> list[tuple[Tracer, Var, Var, dict]]:
        """After tracing this sub-graph: the outer tracers it rebound, as (tracer, Var before, Var at
        the end of this path, attributes at the end), each put back as it was before the path (so the
        other branch, and the code after, do not see a write that happened on this path only)."""
        out = []
        for t, var, attrs in self.rebound.values():
            out.append((t, var, t._var, dict(t.__dict__)))
            t._var = var
            t.__dict__.clear()
            t.__dict__.update(attrs)
        self.rebound = {}
        return out

    def new_input(self, aval: Aval, hint: str = "") -> Tracer:
        var = Var(aval, hint)
        self.inputs.append(var)
        return Tracer(var, self)

    def atom(self, x: Any) -> Atom:
        """The IR atom for a value the graph reads."""
        if isinstance(x, Tracer):
            return x._var
        if isinstance(x, Parameter):
            p = self.params.get(id(x))
            if p is None:
                p = Param(x, Var(Aval(tuple(x.shape), x.dtype), x.name))
                self.params[id(x)] = p
            return p.var
        if isinstance(x, Tensor):
            fe = getattr(self, "frontend", None)
            if fe is not None:  # its values are baked in: a later in-place write (t[0] = v) recompiles
                fe.guards.note_data(x)
            return Const(x._data)
        return Const(np.asarray(x))

    def bind(self, prim: Primitive, inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Any:
        """Record `prim` applied to `inputs`; returns Tracer(s) typed by the op's infer rule."""
        avals = prim.infer(*inputs, **attrs)
        if prim.multi_output:
            for a in avals:
                if a.shape and min(a.shape) < 0:  # infer's mark for a size only the values decide
                    raise _value_dependent(prim)
            return tuple([Tracer(v, self) for v in self.emit(prim, inputs, dict(attrs), avals)])
        if avals.shape and min(avals.shape) < 0:
            raise _value_dependent(prim)
        return Tracer(self.emit(prim, inputs, dict(attrs), (avals,))[0], self)

    def emit(self, prim: Primitive, inputs: Sequence[Any], attrs: dict[str, Any], avals: Sequence[Aval]) -> list[Var]:
        """Append one equation of `prim` with outputs of the given avals, at the current line and scope.

        The one place equations are made: `bind` (ops, typed by their infer rule) and the control-flow
        and gradient transforms (If/While/WhileGrad, typed by their sub-graphs) all come through here.
        """
        outs = [Var(a) for a in avals]
        atom = self.atom
        self.eqns.append(Eqn(prim, [i._var if type(i) is Tracer else atom(i) for i in inputs], attrs, outs, self.loc,
                             self.scope))
        return outs

    def call_cell(self, cell: Any, args: tuple, kwargs: dict) -> Any:
        """A Cell called while this graph is being compiled (`Cell.__call__` hands itself here).

        A user Cell is interpreted by the frontend like any user code; Spore's own Cells (and any
        Cell called where no frontend is interpreting, e.g. inside a gradient transform) run their
        construct directly over the tracers, hooks and casts included.
        """
        fe = self.frontend
        if fe is not None and not is_engine_code(type(cell).construct):
            return fe.call_cell(None, cell, list(args), kwargs, None)
        return cell.run_eager(*args, **kwargs)

    def finish(self, outputs: Sequence[Any], out_tree: Any = None) -> Graph:
        return Graph(self.name, list(self.inputs), list(self.params.values()) if self.parent is None else [],
                     self.eqns, [self.atom(o) for o in outputs], out_tree)


def _value_dependent(prim: Primitive) -> ValueDependentShapeError:
    return ValueDependentShapeError(f"{prim.name}: the size of its output depends on the input's values, which are "
                                    "only known when the graph runs", hint=support.RULES["value_dependent_shape"].fix)


class building:
    """Context manager that makes `builder` the active one (nests: restores the previous)."""

    def __init__(self, builder: GraphBuilder) -> None:
        self.builder = builder
        self.prev: GraphBuilder | None = None

    def __enter__(self) -> GraphBuilder:
        self.prev = TRACING.builder
        TRACING.builder = self.builder
        call_state_changed()
        return self.builder

    def __exit__(self, *exc: Any) -> None:
        TRACING.builder = self.prev
        call_state_changed()
