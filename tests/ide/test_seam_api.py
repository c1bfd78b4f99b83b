"""`spore.ide`'s plain-data answers: compiled graphs, the support table and checker, errors, the
engine's source paths, and measuring a Cell without touching it."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

import spore as ms
from spore import ide, nn, ops


class Net(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Dense(4, 3)

    def construct(self, x):
        return ops.relu(self.fc(x))


class Bad(nn.Cell):
    def construct(self, x):
        try:
            return x + 1
        except ValueError:
            return x


def test_compile_graph_gives_json_and_ir_without_running():
    net = Net()
    before = net.fc.weight.asnumpy().copy()
    out = ide.compile_graph(net, (ms.Tensor(np.ones((2, 4), np.float32)),))
    json.dumps(out)
    assert out["graph"]["schema"] == "spore.graph/1"
    ops_in_graph = {n["op"] for n in out["graph"]["nodes"]}
    assert ops_in_graph & {"MatMul", "FusedDense"}
    assert "relu" in out["ir"].lower() or "Fused" in out["ir"]
    raw = ide.compile_graph(net, (ms.Tensor(np.ones((2, 4), np.float32)),), raw=True)
    assert {n["op"] for n in raw["graph"]["nodes"]} >= {"MatMul", "ReLU"}
    np.testing.assert_array_equal(net.fc.weight.asnumpy(), before)
    with pytest.raises(ide.GraphCompileError) as info:
        ide.compile_graph(Bad(), (ms.Tensor(np.ones(2, np.float32)),))
    d = ide.error_dict(info.value)
    assert d["rule"] == "try" and d["file"] == __file__ and ide.support_rule("try")["fix"] == d["hint"]
    with pytest.raises(TypeError, match="Cell or a function"):
        ide.compile_graph(42, ())


def double(x):
    return x * 2.0


def test_graph_json_and_is_graph_for_ir_objects():
    from spore.compiler.jit import JitFunction

    x = ms.Tensor(np.ones(3, np.float32))
    graph = JitFunction(double, fullgraph=True).compile((x,), {}, [x]).graph
    assert ide.is_graph(graph) and not ide.is_graph({"schema": "spore.graph/1"})
    data = ide.graph_json(graph)
    assert data["schema"] == "spore.graph/1" and [n["op"] for n in data["nodes"]] == ["Mul"]


def test_support_table_and_checker_are_plain_data():
    rules = ide.support_rules()
    assert {r["id"] for r in rules} >= {"try", "with", "print", "global"}
    assert all(set(r) == {"id", "construct", "reason", "fix"} for r in rules)
    assert ide.support_rule("nope") is None and ide.support_rule(None) is None
    src = "import spore as ms\nclass N(ms.nn.Cell):\n    def construct(self, x):\n        print(x)\n        return x\n"
    found = ide.check(src)
    assert [(f["rule"], f["line"], f["scope"]) for f in found] == [("print", 4, "N.construct")]
    assert ide.check("def (:") == []


def test_error_dict_for_spore_and_other_errors():
    x = ms.Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ide.ShapeError) as info:
        ops.matmul(x, x)
    d = ide.error_dict(info.value)
    assert d["type"] == "ShapeError" and d["file"] == __file__ and d["line"] is not None
    assert ide.error_dict(KeyError("k")) == {"type": "KeyError", "reason": "'k'", "hint": None, "file": None,
                                             "line": None, "col": None, "end_col": None}


def _raise_through_engine():
    x = ms.Tensor(np.ones((2, 3), np.float32))
    return ops.matmul(x, x)


def test_engine_paths_and_user_traceback(monkeypatch):
    (engine_dir,) = ide.engine_paths()
    assert ide.is_engine_file(ms.__file__) and ms.__file__.startswith(engine_dir)
    assert not ide.is_engine_file(__file__)
    try:
        _raise_through_engine()
    except ide.ShapeError:
        tb = sys.exc_info()[2]
    full = []
    t = tb
    while t is not None:
        full.append(t.tb_frame.f_code.co_filename)
        t = t.tb_next
    kept = []
    t = ide.user_traceback(tb, also=())
    while t is not None:
        kept.append(t.tb_frame.f_code.co_filename)
        t = t.tb_next
    assert kept and all(not ide.is_engine_file(f) for f in kept)
    t = ide.user_traceback(tb, also=(str(__import__("pathlib").Path(__file__).parent),))
    assert t is None  # this test's own directory is "the face's" here: nothing left
    monkeypatch.setenv("SPORE_TRACEBACK", "full")
    assert ide.user_traceback(tb) is tb


def test_clone_and_graph_runner_leave_the_users_cell_alone():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    x = ms.Tensor(np.ones((2, 4), np.float32))
    expected = net(x).asnumpy()
    twin = ide.clone_cell(net)
    assert twin is not net and twin.fc.weight is not net.fc.weight
    run = ide.graph_runner(twin)
    np.testing.assert_allclose(run(x).asnumpy(), expected, rtol=1e-6)
    twin.fc.weight.set_data(ms.Tensor(np.zeros((3, 4), np.float32)))
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-6)  # the user's cell is untouched
    np.testing.assert_allclose(run(x).asnumpy(), np.maximum(twin.fc.bias.asnumpy(), 0) * np.ones((2, 1)))


def test_random_state_round_trip_and_busy_flags():
    state = ide.random_state()
    a = ops.uniform((3,), ms.Tensor(0.0), ms.Tensor(1.0)).asnumpy()
    ide.set_random_state(state)
    b = ops.uniform((3,), ms.Tensor(0.0), ms.Tensor(1.0)).asnumpy()
    np.testing.assert_array_equal(a, b)
    assert not ide.is_busy()
    with ms.Profiler(start_profile=True, output_path="/tmp/unused") as _:
        assert ide.is_busy()
    assert not ide.is_busy()


def test_tensor_origin():
    net = Net()
    assert ide.tensor_origin(net.fc.weight) == {"parameter": "fc.weight", "op": None, "requires_grad": True}
    assert ide.tensor_origin(ms.Tensor(np.ones(2, np.float32))) == {"parameter": None, "op": None,
                                                                     "requires_grad": None}
    w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")

    def loss(w):
        y = w * 2.0
        seen.append(ide.tensor_origin(y))
        return y.sum()

    seen: list = []
    ms.grad(loss)(w)
    assert seen[0]["op"] == "Mul" and seen[0]["parameter"] is None
