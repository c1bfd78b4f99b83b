"""Readable IR text and the graph JSON that `save_graphs`, the visualizer and the IDE read.

Text form: one equation per line with its output avals, followed by ``# In file x.py:LINE`` and the
Cell scope, the way MindSpore's `.ir` dumps point at user code.

JSON form (schema "spore.graph/1"):
    {"schema": "spore.graph/1", "name": str,
     "inputs":  [{"id": "%3", "shape": [..], "dtype": "float32", "name": hint}],
     "params":  [{"id": "%7", "shape": [..], "dtype": ..., "name": "conv1.weight"}],
     "nodes":   [{"id": "n0", "op": "Conv2D", "inputs": ["%3", "%7"], "outputs": ["%9"],
                  "shapes": [[..]], "dtypes": [..], "attrs": {..printable..}, "scope": "Net.conv1",
                  "loc": {"file": ..., "line": .., "col": .., "end_col": ..} | null,
                  "fused": ["Conv2D", "BatchNorm", "ReLU"], "subgraphs": {"then": {...graph...}}}],
     "edges":   [{"from": "n0" | "input:%3" | "param:%7" | "const", "to": "n1", "var": "%9",
                  "shape": [..], "dtype": ..}],
     "outputs": ["%12", ...]}
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .ir import Const, Eqn, Graph, Var


def _aval_text(v: Var) -> str:
    return f"{v.aval.dtype.name}{list(v.aval.shape)}"


def format_graph(g: Graph, indent: str = "") -> str:
    lines = [f"{indent}graph {g.name}("
             + ", ".join(f"{v!r}: {_aval_text(v)}" for v in g.inputs) + ")"]
    for p in g.params:
        lines.append(f"{indent}  param {p.var!r}: {_aval_text(p.var)}  # {p.param.name}")
    for e in g.eqns:
        outs = ", ".join(f"{o!r}: {_aval_text(o)}" for o in e.outputs)
        text = f"{indent}  {outs} = {_eqn_call(e)}"
        where = []
        if e.loc is not None:
            where.append(f"In file {e.loc.file}:{e.loc.line}")
        if e.scope:
            where.append(f"scope {e.scope}")
        if e.fused:
            where.append(f"fused {'+'.join(e.fused)}")
        if where:
            text += "  # " + ", ".join(where)
        lines.append(text)
        for k, sub in e.attrs.items():
            if isinstance(sub, Graph):
                lines.append(f"{indent}    {k}:")
                lines.append(format_graph(sub, indent + "      "))
    lines.append(f"{indent}  return " + ", ".join(repr(a) for a in g.outputs))
    return "\n".join(lines)


def _eqn_call(e: Eqn) -> str:
    ins = ", ".join(repr(i) for i in e.inputs)
    attrs = ", ".join(f"{k}={_printable(v)}" for k, v in e.attrs.items() if not isinstance(v, Graph))
    return f"{e.prim.name}({ins}{', ' if ins and attrs else ''}{attrs})"


def _printable(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return f"array<{v.dtype}{list(v.shape)}>"
    if isinstance(v, (int, float, bool, str)) or v is None:
        return v
    if isinstance(v, (tuple, list)):
        return [_printable(x) for x in v]
    if callable(v):
        return getattr(v, "__name__", type(v).__name__)
    text = str(v)
    return text if len(text) <= 80 else text[:77] + "..."


def _json_attr(v: Any) -> Any:
    p = _printable(v)
    return p if isinstance(p, (int, float, bool, str, list)) or p is None else str(p)


def graph_to_json(g: Graph) -> dict:
    """The graph as plain data (schema above)."""
    producer: dict[int, str] = {}
    kinds: dict[int, str] = {v.id: f"input:{v!r}" for v in g.inputs}
    kinds.update({p.var.id: f"param:{p.var!r}" for p in g.params})
    nodes, edges = [], []
    for i, e in enumerate(g.eqns):
        nid = f"n{i}"
        for a in e.inputs:
            src = "const" if isinstance(a, Const) else producer.get(a.id) or kinds.get(a.id, "outer")
            aval = a.aval
            edges.append({"from": src, "to": nid, "var": repr(a) if isinstance(a, Var) else "const",
                          "shape": list(aval.shape), "dtype": aval.dtype.name})
        for o in e.outputs:
            producer[o.id] = nid
        node = {
            "id": nid, "op": e.prim.name,
            "inputs": [repr(a) for a in e.inputs], "outputs": [repr(o) for o in e.outputs],
            "shapes": [list(o.aval.shape) for o in e.outputs], "dtypes": [o.aval.dtype.name for o in e.outputs],
            "attrs": {k: _json_attr(v) for k, v in e.attrs.items() if not isinstance(v, Graph)},
            "scope": e.scope,
            "loc": None if e.loc is None else {"file": e.loc.file, "line": e.loc.line, "col": e.loc.col,
                                               "end_col": e.loc.end_col},
            "fused": list(e.fused),
        }
        subs = {k: graph_to_json(v) for k, v in e.attrs.items() if isinstance(v, Graph)}
        if subs:
            node["subgraphs"] = subs
        nodes.append(node)
    return {
        "schema": "spore.graph/1", "name": g.name,
        "inputs": [{"id": repr(v), "shape": list(v.aval.shape), "dtype": v.aval.dtype.name, "name": v.hint}
                   for v in g.inputs],
        "params": [{"id": repr(p.var), "shape": list(p.var.aval.shape), "dtype": p.var.aval.dtype.name,
                    "name": p.param.name} for p in g.params],
        "nodes": nodes, "edges": edges,
        "outputs": [repr(a) for a in g.outputs],
    }
