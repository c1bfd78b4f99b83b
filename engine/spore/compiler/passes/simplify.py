"""Algebraic simplification: remove movement ops that cancel or do nothing.

- Transpose of a Transpose becomes one Transpose (or nothing, when the permutations cancel);
- Reshape of a Reshape becomes one Reshape; a Reshape or BroadcastTo to the same shape, a Cast to
  the same dtype and an Identity disappear.
"""

from __future__ import annotations

from ...ops.array import BroadcastTo, Cast, Identity, Reshape
from ...ops.shape_ops import Transpose
from ..ir import Atom, Eqn, Graph, Var
from .rewrite import apply_subst, rename_eqn


def simplify(graph: Graph) -> Graph:
    producer: dict[int, Eqn] = {}
    subst: dict[int, Atom] = {}
    kept: list[Eqn] = []
    for e in graph.eqns:
        e = rename_eqn(e, subst)
        prim = e.prim
        x = e.inputs[0] if e.inputs else None
        out = e.outputs[0] if e.outputs else None
        if prim in (Reshape, BroadcastTo) and isinstance(x, Var) and tuple(x.aval.shape) == tuple(out.aval.shape):
            subst[out.id] = x
            continue
        if prim is Cast and x is not None and x.aval.dtype is out.aval.dtype:
            subst[out.id] = x
            continue
        if prim is Identity and x is not None:
            subst[out.id] = x
            continue
        src = producer.get(x.id) if isinstance(x, Var) else None
        if prim is Reshape and src is not None and src.prim is Reshape:
            e = e.replaced(inputs=[src.inputs[0]])
        elif prim is Transpose and src is not None and src.prim is Transpose:
            inner, outer = src.attrs["perm"], e.attrs["perm"]
            perm = tuple(inner[p] for p in outer)
            if perm == tuple(range(len(perm))):
                subst[out.id] = src.inputs[0]
                continue
            e = e.replaced(inputs=[src.inputs[0]], attrs={**e.attrs, "perm": perm})
        for o in e.outputs:
            producer[o.id] = e
        kept.append(e)
    return apply_subst(graph, kept, subst)
