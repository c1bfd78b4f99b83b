"""Graph mode's IR: a functional SSA graph of primitive applications (like MindIR or a jaxpr).

A `Graph` has input `Var`s, `Param` inputs (the Cell's Parameters, read when the graph runs, never
frozen in), and a list of `Eqn`s in execution order; each Eqn applies one registered primitive to
Vars/Consts and defines new Vars. Every Eqn carries the `SourceLoc` of the user statement that
produced it and the Cell scope path (`net.layer1.conv`), so errors, `save_graphs` dumps, the
profiler and the visualizer all point at the user's code. Passes are functions Graph -> Graph;
control flow keeps sub-graphs in an Eqn's attributes (`If`: then/else graphs; `While`: cond/body).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import SourceLoc
from ..ops.primitive import Aval, Primitive

_ids = itertools.count()


class Var:
    """An SSA value: defined once (by a graph input or an Eqn), typed by its abstract value."""

    __slots__ = ("id", "aval", "hint")

    def __init__(self, aval: Aval, hint: str = "") -> None:
        self.id = next(_ids)
        self.aval = aval
        self.hint = hint

    def __repr__(self) -> str:
        return f"%{self.id}"


@dataclass(eq=False)
class Const:
    """A constant value folded into the graph (a NumPy array or a Python scalar)."""

    value: Any

    @property
    def aval(self) -> Aval:
        from ..common.dtype import from_numpy

        arr = np.asarray(self.value)
        return Aval(arr.shape, from_numpy(arr.dtype))

    def __repr__(self) -> str:
        arr = np.asarray(self.value)
        if arr.size <= 4:
            return f"const({arr.tolist()!r})"
        return f"const<{arr.dtype}{list(arr.shape)}>"


@dataclass(eq=False)
class Param:
    """A Parameter read by the graph; `var` is how equations refer to it."""

    param: Any  # spore.Parameter
    var: Var


Atom = Var | Const


@dataclass(eq=False)
class Eqn:
    """One primitive application: outputs = prim(*inputs, **attrs), at `loc` within `scope`."""

    prim: Primitive
    inputs: list[Atom]
    attrs: dict[str, Any]
    outputs: list[Var]
    loc: SourceLoc | None = None
    scope: str = ""
    fused: list[str] = field(default_factory=list)  # names of the ops a fusion pass merged here

    def replaced(self, **changes: Any) -> Eqn:
        """A copy with `changes` applied (what `dataclasses.replace` gives, without its per-call field
        inspection: the passes copy equations by the hundred per compile)."""
        return _copied(self, changes)

    def __repr__(self) -> str:
        outs = ", ".join(repr(o) for o in self.outputs)
        ins = ", ".join(repr(i) for i in self.inputs)
        attrs = ", ".join(f"{k}={_short(v)}" for k, v in self.attrs.items() if not isinstance(v, Graph))
        return f"{outs} = {self.prim.name}({ins}{', ' if ins and attrs else ''}{attrs})"


def _short(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"array<{v.dtype}{list(v.shape)}>"
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(eq=False)
class Graph:
    """A compiled function: inputs, parameters, equations, outputs (a flat list of atoms).

    `out_tree` records how the flat outputs nest into the tuples/lists the user returned.
    """

    name: str
    inputs: list[Var]
    params: list[Param]
    eqns: list[Eqn]
    outputs: list[Atom]
    out_tree: Any = None
    # parameter updates a training step performs: (Param, Var holding the new value)
    updates: list[tuple[Param, Var]] = field(default_factory=list)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        raise TypeError("Graph is not meant to be subclassed: has_subgraphs() tests an attribute's exact type")

    def replaced(self, **changes: Any) -> Graph:
        """A copy with `changes` applied (`dataclasses.replace` without its per-call field inspection)."""
        return _copied(self, changes)

    def uses(self) -> dict[int, int]:
        """How many times each Var id is read (by equations, outputs and parameter updates)."""
        counts: dict[int, int] = {}
        get = counts.get
        for e in self.eqns:
            for a in e.inputs:
                if isinstance(a, Var):
                    vid = a.id
                    counts[vid] = get(vid, 0) + 1
            if e.attrs and has_subgraphs(e):
                for sub in subgraphs(e):
                    for vid, n in sub.free_uses().items():
                        counts[vid] = get(vid, 0) + n
        for a in self.outputs:
            if isinstance(a, Var):
                counts[a.id] = counts.get(a.id, 0) + 1
        for _, v in self.updates:
            counts[v.id] = counts.get(v.id, 0) + 1
        return counts

    def free_uses(self) -> dict[int, int]:
        """Reads of Vars this graph does not define itself (closures of control-flow sub-graphs)."""
        defined = {v.id for v in self.inputs} | {p.var.id for p in self.params}
        for e in self.eqns:
            defined.update(o.id for o in e.outputs)
        return {vid: n for vid, n in self.uses().items() if vid not in defined}

    def __str__(self) -> str:
        from .printer import format_graph

        return format_graph(self)


def subgraphs(e: Eqn) -> list[Graph]:
    """Sub-graphs held by a control-flow equation (empty for ordinary ops)."""
    return [v for v in e.attrs.values() if isinstance(v, Graph)]


def has_subgraphs(e: Eqn) -> bool:
    """Whether `e` holds sub-graphs (control flow). The passes ask it of every equation, so it is one
    C-level scan of the attribute types (Graph has no subclasses: `Graph.__init_subclass__`)."""
    return Graph in map(type, e.attrs.values())


def _copied(obj: Any, changes: dict[str, Any]) -> Any:
    new = object.__new__(type(obj))
    d = new.__dict__
    d.update(obj.__dict__)
    d.update(changes)
    return new
