"""Helpers shared by the passes: renaming Vars through a substitution map, in graphs and sub-graphs.

Equations are immutable once made, so an equation that a renaming leaves unchanged is kept as the
same object rather than copied: every pass renames every equation, and copying them all was most
of what a pass cost on a graph with nothing to rename.
"""

from __future__ import annotations

from ..ir import Atom, Eqn, Graph, Var, has_subgraphs


def substitute(atom: Atom, subst: dict[int, Atom]) -> Atom:
    while isinstance(atom, Var) and atom.id in subst:
        atom = subst[atom.id]
    return atom


def apply_subst(graph: Graph, eqns: list[Eqn], subst: dict[int, Atom]) -> Graph:
    """A copy of `graph` with `eqns` and every read renamed through `subst` (sub-graphs included)."""
    if not subst:
        return graph.replaced(eqns=eqns)
    new_eqns = [rename_eqn(e, subst) for e in eqns]
    outputs = [substitute(a, subst) for a in graph.outputs]
    updates = [(p, substitute(v, subst)) for p, v in graph.updates]
    return graph.replaced(eqns=new_eqns, outputs=outputs, updates=updates)


def rename_eqn(e: Eqn, subst: dict[int, Atom]) -> Eqn:
    """`e` with its reads (and its sub-graphs' reads) renamed through `subst`; `e` itself when none is."""
    if not subst:
        return e
    if e.attrs and has_subgraphs(e):
        attrs = {k: (apply_subst(v, v.eqns, subst) if isinstance(v, Graph) else v) for k, v in e.attrs.items()}
        return e.replaced(inputs=[substitute(a, subst) for a in e.inputs], attrs=attrs)
    for a in e.inputs:
        if isinstance(a, Var) and a.id in subst:
            return e.replaced(inputs=[substitute(a, subst) for a in e.inputs])
    return e
