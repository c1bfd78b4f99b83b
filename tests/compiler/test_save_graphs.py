"""`save_graphs=True` writes readable IR (with `# In file x.py:LINE`) and graph JSON before and after
optimization; the JSON follows the documented schema."""

import inspect
import json

import numpy as np

import spore as ms
from spore.compiler.jit import jit
from spore.ops import functional as F

W = ms.Parameter(ms.Tensor(np.ones((3, 2), np.float32)), name="dense.weight")
B = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="dense.bias")


def net(x):
    h = F.relu(F.add(F.matmul(x, W), B))
    return F.exp(F.neg(h)) * 2.0 + 1.0


def test_save_graphs_writes_ir_and_json_naming_user_lines(tmp_path):
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    jit(net, fullgraph=True)(ms.Tensor(np.ones((4, 3), np.float32)))
    files = sorted(p.name for p in tmp_path.iterdir())
    assert [f.split("_", 1)[1] for f in files] == ["net_after.ir", "net_after.json", "net_before.ir",
                                                   "net_before.json"]
    first = inspect.getsourcelines(net)[1]
    before_ir = next(tmp_path.glob("*_before.ir")).read_text()
    assert f"In file {__file__}:{first + 1}" in before_ir
    assert "MatMul" in before_ir and "param" in before_ir and "dense.weight" in before_ir
    after = json.loads(next(tmp_path.glob("*_after.json")).read_text())
    assert after["schema"] == "spore.graph/1"
    ops = [n["op"] for n in after["nodes"]]
    assert "FusedDense" in ops and "FusedElementwise" in ops
    dense = next(n for n in after["nodes"] if n["op"] == "FusedDense")
    assert dense["fused"] == ["MatMul", "Add", "ReLU"]
    assert dense["loc"]["file"] == __file__ and dense["loc"]["line"] == first + 1
    assert dense["shapes"] == [[4, 2]] and dense["dtypes"] == ["float32"]
    assert {p["name"] for p in after["params"]} == {"dense.weight", "dense.bias"}
    ids = {n["id"] for n in after["nodes"]}
    assert all(e["to"] in ids for e in after["edges"])
    before = json.loads(next(tmp_path.glob("*_before.json")).read_text())
    assert len(before["nodes"]) > len(after["nodes"])


def test_no_files_without_save_graphs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    jit(net, fullgraph=True)(ms.Tensor(np.ones((2, 3), np.float32)))
    assert list(tmp_path.iterdir()) == []
