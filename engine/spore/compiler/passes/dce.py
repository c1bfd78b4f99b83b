"""Dead code elimination: drop equations whose results nothing reads (state writes always stay)."""

from __future__ import annotations

from ..ir import Eqn, Graph, Var, has_subgraphs, subgraphs


def eliminate_dead_code(graph: Graph) -> Graph:
    live: set[int] = {a.id for a in graph.outputs if isinstance(a, Var)}
    live |= {v.id for _, v in graph.updates}
    kept = []
    for e in reversed(graph.eqns):
        if not _has_effect(e):
            for o in e.outputs:
                if o.id in live:
                    break
            else:
                continue
        if e.attrs and has_subgraphs(e):
            e = e.replaced(attrs={k: (_dce_sub(v) if isinstance(v, Graph) else v) for k, v in e.attrs.items()})
            for sub in subgraphs(e):
                live.update(sub.free_uses())
        for a in e.inputs:
            if isinstance(a, Var):
                live.add(a.id)
        kept.append(e)
    kept.reverse()
    return graph.replaced(eqns=kept)


def _dce_sub(g: Graph) -> Graph:
    return eliminate_dead_code(g)


def _has_effect(e: Eqn) -> bool:
    """A state write, or control flow whose branches/body write state (`if finite: opt(grads)`)."""
    if e.prim.side_effect:
        return True
    return bool(e.attrs) and any(_has_effect(inner) for sub in e.attrs.values() if isinstance(sub, Graph)
                                 for inner in sub.eqns)
