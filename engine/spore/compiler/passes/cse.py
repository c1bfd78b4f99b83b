"""Common subexpression elimination: the same op on the same inputs with the same attributes is
computed once. Random and state-writing ops are never merged (two dropouts differ)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir import Atom, Graph, Var, has_subgraphs
from .rewrite import apply_subst, rename_eqn

_PLAIN = frozenset({int, float, bool, str, type(None)})  # attribute values that are their own key (most)


def _key_of(a: Atom) -> Any:
    if isinstance(a, Var):
        return ("v", a.id)
    arr = np.asarray(a.value)
    if arr.size > 64:
        return ("c", id(a.value))
    return ("c", arr.dtype.str, arr.shape, arr.tobytes())


def _attr_key(v: Any) -> Any:
    t = type(v)
    if t in _PLAIN:
        return v
    if t is tuple:  # strides, paddings, shapes: a tuple of plain values is its own key
        for x in v:
            if type(x) not in _PLAIN:
                return tuple(_attr_key(x) for x in v)
        return v
    if isinstance(v, np.ndarray):
        return ("arr", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, (list, tuple)):
        return tuple(_attr_key(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _attr_key(x)) for k, x in v.items()))
    try:
        hash(v)
        return v
    except TypeError:
        return ("id", id(v))


def eliminate_common_subexpressions(graph: Graph) -> Graph:
    seen: dict[Any, list[Var]] = {}
    subst: dict[int, Atom] = {}
    kept = []
    for e in graph.eqns:
        e = rename_eqn(e, subst)
        prim = e.prim
        attrs = e.attrs
        control = bool(attrs) and has_subgraphs(e)
        if prim.side_effect or prim.random or control:
            if prim.side_effect or control:
                seen.clear()  # state may have changed: a later read of it is not the same value
            kept.append(e)
            continue
        # keyed by the primitive itself: two with one name (GraphCall of two graphs) never merge
        key = (prim, tuple([("v", a.id) if isinstance(a, Var) else _key_of(a) for a in e.inputs]),
               tuple(sorted([(k, _attr_key(v)) for k, v in attrs.items()])) if attrs else ())
        prev = seen.get(key)
        if prev is not None:
            for o, p in zip(e.outputs, prev):
                subst[o.id] = p
            continue
        seen[key] = e.outputs
        kept.append(e)
    return apply_subst(graph, kept, subst)
