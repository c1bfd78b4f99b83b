"""Helpers shared by the passes: renaming Vars through a substitution map, in graphs and sub-graphs."""

from __future__ import annotations

from dataclasses import replace

from ..ir import Atom, Eqn, Graph, Var


def substitute(atom: Atom, subst: dict[int, Atom]) -> Atom:
    while isinstance(atom, Var) and atom.id in subst:
        atom = subst[atom.id]
    return atom


def apply_subst(graph: Graph, eqns: list[Eqn], subst: dict[int, Atom]) -> Graph:
    """A copy of `graph` with `eqns` and every read renamed through `subst` (sub-graphs included)."""
    if not subst:
        return replace(graph, eqns=eqns)
    new_eqns = [rename_eqn(e, subst) for e in eqns]
    outputs = [substitute(a, subst) for a in graph.outputs]
    updates = [(p, substitute(v, subst)) for p, v in graph.updates]
    return replace(graph, eqns=new_eqns, outputs=outputs, updates=updates)


def rename_eqn(e: Eqn, subst: dict[int, Atom]) -> Eqn:
    attrs = e.attrs
    if any(isinstance(v, Graph) for v in attrs.values()):
        attrs = {k: (apply_subst(v, v.eqns, subst) if isinstance(v, Graph) else v) for k, v in attrs.items()}
    return replace(e, inputs=[substitute(a, subst) for a in e.inputs], attrs=attrs)
