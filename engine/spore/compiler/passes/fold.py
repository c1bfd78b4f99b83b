"""Constant folding: an equation whose inputs are all constants is computed at compile time."""

from __future__ import annotations

import numpy as np

from ..ir import Atom, Const, Graph, has_subgraphs
from .rewrite import apply_subst, rename_eqn

_MAX_FOLD_BYTES = 64 << 20  # don't bake huge arrays into a graph


def fold_constants(graph: Graph) -> Graph:
    subst: dict[int, Atom] = {}
    kept = []
    for e in graph.eqns:
        e = rename_eqn(e, subst)
        foldable = (e.inputs and isinstance(e.inputs[0], Const) and all(isinstance(a, Const) for a in e.inputs)
                    and not e.prim.side_effect and not e.prim.random and not has_subgraphs(e))
        if foldable:
            try:
                res = e.prim.impl(*[np.asarray(a.value) for a in e.inputs], **e.attrs)
            except Exception:  # noqa: BLE001 - an op that fails on constants fails again at run time, visibly
                kept.append(e)
                continue
            outs = res if e.prim.multi_output else (res,)
            if sum(np.asarray(r).nbytes for r in outs) <= _MAX_FOLD_BYTES:
                for o, r in zip(e.outputs, outs):
                    subst[o.id] = Const(np.asarray(r))
                continue
        kept.append(e)
    return apply_subst(graph, kept, subst)
