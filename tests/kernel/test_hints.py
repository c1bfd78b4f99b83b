"""Mode-switch hints: the compile-error hint (text and bundle) and the measured speed hint."""

from __future__ import annotations

import pytest

from spore.compiler.support import RULES

from .harness import Kernel

MIME_H = "application/vnd.spore.hint+json"
SETUP = """import time
import numpy as np
import spore as ms
from spore import nn
from spore.common import seed

x = ms.ops.ones((2, 4), ms.float32)
"""
BAD_CELL = """%spore_mode graph
class Bad(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)

    def construct(self, x):
        try:
            y = self.fc(x)
        except ValueError:
            y = x
        return y

bad = Bad()
bad(x)"""
TRY_LINE = BAD_CELL.splitlines().index("        try:") + 1
CALL_LINE = len(BAD_CELL.splitlines())

MLP = """
class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Dense(16, 32)
        self.l2 = nn.Dense(32, 32)
        self.drop = nn.Dropout(p=0.1)
        self.l3 = nn.Dense(32, 4)
        self.act = nn.ReLU()

    def construct(self, x):
        x = self.drop(self.act(self.l1(x)))
        x = self.act(self.l2(x))
        return self.l3(x)

def make():
    net = MLP()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.01))
    step.set_train()
    return net, step

xb = ms.Tensor(np.random.rand(8, 16).astype(np.float32))
yb = ms.Tensor(np.arange(8) % 4, ms.int32)
"""
# 1.5 s of calls: the sampler must see >= 20 distinct calls at one sample per 10 ms even when a
# loaded machine (CI's two cores under pytest -n 2) deschedules its thread for most of that time
LOOP = """t0 = time.perf_counter()
while time.perf_counter() - t0 < 1.5:
    loss = {step}(xb, yb)
snap = ({net}.l1.weight.asnumpy().copy(), seed.rng().bit_generator.state)"""


@pytest.fixture(scope="module")
def k(kernel: Kernel) -> Kernel:
    kernel.ok(SETUP + MLP + "\nms.set_context(jit_syntax_level=ms.STRICT)  # refusals, not graph breaks")
    return kernel


def hint_bundles(res: object, kind: str) -> list[dict]:
    return [b[MIME_H] for b in res.bundles() if MIME_H in b and b[MIME_H]["kind"] == kind]  # type: ignore[attr-defined]


def test_compile_error_shows_line_caret_reason_and_next_step(k: Kernel) -> None:
    try:
        res = k.execute(BAD_CELL)
        n = res.reply["content"]["execution_count"]
        assert res.status == "error" and res.reply["content"]["ename"] == "GraphCompileError"
        text = res.error_text()
        rule = RULES["try"]
        hint = text[text.index("Spore hint: Graph mode cannot compile Bad.construct (try/except)"):].splitlines()
        assert hint[1:] == [
            f"  Cell In[{n}], line {TRY_LINE}",
            "      try:",
            "      ^^^^",
            f"  why:  {rule.reason}",
            "  next: %spore_mode pynative  (run eagerly (PyNative), where every Python construct works)",
            "    or: ms.set_context(jit_syntax_level=ms.LAX)  (stay in Graph mode: this statement runs in Python "
            "between compiled parts)",
            f"    or: {rule.fix}",
        ]
        # IPython's own frames: the call in the cell, then the rejected line; none of Spore's internals
        assert f"Cell In[{n}], line {CALL_LINE}" in text and f"Cell In[{n}], line {TRY_LINE}, in Bad.construct" in text
        assert "engine/spore" not in text
        (bundle,) = hint_bundles(res, "compile")
        assert bundle["rule"]["id"] == "try" and bundle["scope"] == "Bad.construct"
        assert (bundle["cell"], bundle["line"], bundle["col"]) == (f"In[{n}]", TRY_LINE, 8)
        assert bundle["caret"] == ["try:", "^^^^"] and bundle["mode"] == "graph"
        assert [s.get("code", s["text"]) for s in bundle["next_steps"]] == [
            "%spore_mode pynative", "ms.set_context(jit_syntax_level=ms.LAX)", rule.fix]
        display = [b for b in res.bundles() if MIME_H in b][0]
        assert display["text/plain"] == "Spore hint: next step %spore_mode pynative"
    finally:
        k.ok("%spore_mode pynative")
    # the suggested next step works
    assert k.ok("bad(x).shape").result_data()["text/plain"] == "(2, 3)"


def test_compile_error_of_a_jit_function_in_pynative_suggests_the_rewrite(k: Kernel) -> None:
    code = ("@ms.jit(fullgraph=True)\ndef step(a):\n    with open('/dev/null') as f:\n        pass\n    return a * 2\n"
            "step(x)")
    res = k.execute(code)
    assert res.status == "error" and res.reply["content"]["ename"] == "GraphCompileError"
    (bundle,) = hint_bundles(res, "compile")
    assert bundle["mode"] == "pynative" and bundle["rule"]["id"] == "with" and bundle["line"] == 3
    assert bundle["next_steps"] == [{"kind": "rewrite", "text": RULES["with"].fix}]
    assert f"  next: {RULES['with'].fix}" in res.error_text()


def test_hints_off_leaves_the_plain_traceback(k: Kernel) -> None:
    k.ok("%spore_hints off")
    try:
        res = k.execute(BAD_CELL)
        assert res.status == "error" and res.reply["content"]["ename"] == "GraphCompileError"
        assert "Spore hint" not in res.error_text() and not hint_bundles(res, "compile")
        assert "try:" in res.error_text()  # the engine's own message still shows the line
    finally:
        k.ok("%spore_mode pynative\n%spore_hints on")


def test_speed_hint_is_measured_shown_once_and_leaves_state_alone(k: Kernel) -> None:
    k.ok("net, train = make()")
    res = k.ok(LOOP.format(step="train", net="net"))
    (hint,) = hint_bundles(res, "speed")
    assert hint["variable"] == "train" and hint["cell"] == "TrainOneStepCell"
    assert hint["calls_seen"] >= 20 and hint["runs"] >= 3
    assert hint["ratio"] >= hint["threshold"] == 1.5
    assert hint["ratio"] == pytest.approx(hint["pynative_s"] / hint["graph_s"])
    assert hint["next_steps"][0]["code"] == "%spore_mode graph"
    text = [b["text/plain"] for b in res.bundles() if MIME_H in b][0]
    assert text.startswith("Spore hint: train (TrainOneStepCell) has run at least") and "× faster" in text
    # measured on a copy: the user's weights and random state are what the loop left
    same = k.ok("np.array_equal(snap[0], net.l1.weight.asnumpy()), snap[1] == seed.rng().bit_generator.state")
    assert same.result_data()["text/plain"] == "(True, True)"
    again = k.ok(LOOP.format(step="train", net="net"))
    assert not hint_bundles(again, "speed")


def test_no_speed_hint_when_hints_are_off(k: Kernel) -> None:
    k.ok("net2, train2 = make()\n%spore_hints off")
    try:
        res = k.ok(LOOP.format(step="train2", net="net2"))
        assert not hint_bundles(res, "speed")
    finally:
        k.ok("%spore_hints on")
