"""The item tree every view shares: loading, scopes, parameters, control-flow branches."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import spore as ms
from spore.ops import functional as F
from spore_viz import build_model, load_graph

from .graphs import synthetic


def test_load_graph_accepts_dict_path_and_json_text(resmlp_paths, resmlp_after):
    assert load_graph(resmlp_after)["name"] == resmlp_after["name"]
    assert load_graph(resmlp_paths[1])["nodes"] == resmlp_after["nodes"]
    assert load_graph(str(resmlp_paths[1]))["nodes"] == resmlp_after["nodes"]
    assert load_graph(json.dumps(resmlp_after))["nodes"] == resmlp_after["nodes"]


def test_load_graph_rejects_other_schemas_with_the_expected_one_named():
    with pytest.raises(ValueError, match="spore.graph/1"):
        load_graph({"schema": "onnx", "nodes": []})


def test_load_graph_takes_a_compiled_spore_graph_directly():
    w = ms.Parameter(ms.Tensor(np.ones((4, 3), np.float32)), name="fc.weight")

    @ms.jit(fullgraph=True)
    def f(x):
        return F.relu(F.matmul(x, w))

    f(ms.Tensor(np.ones((2, 4), np.float32)))
    entry = next(iter(f.cache.values()))
    m = build_model(entry.graph)
    assert [it.label for it in m.items if it.kind == "op"] == [n.prim.name for n in entry.graph.eqns]
    assert [it.label for it in m.items if it.kind == "param"] == ["fc.weight"]


def test_cell_scopes_become_nested_containers_holding_their_ops(resmlp_after):
    m = build_model(resmlp_after)
    scopes = {it.path: it for it in m.items if it.kind == "scope"}
    assert {"ResMLP", "ResMLP.block1", "ResMLP.block1.fc1", "ResMLP.head"} <= set(scopes)
    fc1 = scopes["ResMLP.block1.fc1"]
    assert m.items[fc1.parent].path == "ResMLP.block1"
    ops = [m.items[k] for k in fc1.children if m.items[k].kind == "op"]
    assert [op.label for op in ops] == ["FusedDense"] and ops[0].fused == ["MatMul", "Add", "ReLU"]


def test_parameters_sit_in_the_innermost_scope_of_their_consumers(resmlp_after):
    m = build_model(resmlp_after)
    params = {it.label: m.items[it.parent].path for it in m.items if it.kind == "param"}
    assert params["block2.fc1.weight"] == "ResMLP.block2.fc1"
    assert params["head.bias"] == "ResMLP.head"


def test_if_branches_are_containers_under_the_op_and_captured_values_flow_into_it(resmlp_after):
    m = build_model(resmlp_after)
    (if_op,) = [it for it in m.items if it.kind == "op" and it.label == "If"]
    branches = [m.items[k] for k in if_op.children]
    assert [b.label for b in branches] == ["then", "else"] and all(b.kind == "graph" for b in branches)
    then_ops = [m.items[k].label for k in branches[0].children if m.items[k].kind == "op"]
    assert "Exp" in then_ops
    into_if = {m.items[e.src].label for e in m.edges if e.dst == if_op.idx}
    assert {"Greater", "FusedElementwise"} <= into_if  # the predicate and the value the branches read


def test_every_node_of_every_graph_becomes_exactly_one_op_item(resmlp_after):
    def count(g: dict) -> int:
        return sum(1 + sum(count(s) for s in (n.get("subgraphs") or {}).values()) for n in g["nodes"])

    m = build_model(resmlp_after)
    assert m.op_count == count(resmlp_after)
    assert build_model(synthetic(3, 20)).op_count == 60


def test_source_lines_are_read_once_per_location(resmlp_after):
    m = build_model(resmlp_after, sources_root=Path(__file__).parent)
    (graphs_py,) = [f for f in m.sources if f.endswith("graphs.py")]
    assert any("F.matmul(x, self.weight)" in text for text in m.sources[graphs_py].values())
