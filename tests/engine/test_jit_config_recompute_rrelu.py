"""`ms.JitConfig` with `Cell.set_jit_config`, `ms.recompute` and `nn.RReLU` (issue 14). Layers with
a MindSpore oracle (Conv2dBnAct, DenseBnAct, FocalLoss) are in tests/parity."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import nn
from spore.errors import GraphCompileError


class PrintsInConstruct(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        print("side effect")        # a graph break under LAX
        return self.fc(x)


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_jit_config_validates_like_mindspore_and_keeps_its_dict():
    cfg = ms.JitConfig(jit_level="O1", jit_syntax_level="STRICT", custom=3)
    assert cfg.jit_config_dict == {"custom": 3, "jit_level": "O1", "exc_mode": "auto", "jit_syntax_level": "STRICT",
                                   "debug_level": "RELEASE", "infer_boost": "off", "backend": "ms_backend"}
    for bad in ({"jit_level": "O3"}, {"exc_mode": "x"}, {"jit_syntax_level": "strict"}, {"debug_level": "d"},
                {"infer_boost": "yes"}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            ms.JitConfig(**bad)


def test_strict_jit_config_refuses_a_graph_break_in_that_cell_only(graph_mode, capsys):
    x = ms.Tensor(np.ones((1, 3), np.float32))
    lax = PrintsInConstruct()
    lax(x)                                            # LAX: breaks the graph, prints, runs
    assert "side effect" in capsys.readouterr().out
    strict = PrintsInConstruct()
    strict.set_jit_config(ms.JitConfig(jit_syntax_level="STRICT"))
    assert strict.get_jit_config()["jit_syntax_level"] == "STRICT"
    with pytest.raises(GraphCompileError, match="print"):
        strict(x)
    with pytest.warns(UserWarning, match="only be set once"):
        strict.set_jit_config(ms.JitConfig())
    assert strict.get_jit_config()["jit_syntax_level"] == "STRICT"
    with pytest.raises(TypeError, match="JitConfig"):
        lax.set_jit_config({"jit_syntax_level": "STRICT"})


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_recompute_gives_the_blocks_values_and_gradients(mode):
    ms.set_seed(3)
    block = nn.SequentialCell([nn.Dense(4, 5), nn.Tanh(), nn.Dense(5, 2)])
    x = ms.Tensor(np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32))
    params = block.trainable_params()
    ms.set_context(mode=mode)
    try:
        plain = ms.value_and_grad(lambda t: block(t).sum(), 0, params)(x)
        again = ms.value_and_grad(lambda t: ms.recompute(block, t).sum(), 0, params)(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(plain[0].asnumpy(), again[0].asnumpy())
    for a, b in zip([plain[1][0], *plain[1][1]], [again[1][0], *again[1][1]]):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    with pytest.raises(TypeError, match="must be a Cell"):
        ms.recompute(lambda t: t, x)
    with pytest.raises(TypeError, match="use_reentrant"):
        ms.recompute(block, x, use_reentrant=1)


def test_rrelu_keeps_positives_and_scales_negatives_by_a_slope_in_range_with_that_gradient():
    ms.set_seed(7)
    r = nn.RReLU(0.1, 0.3)
    x = np.concatenate([np.linspace(-2, -0.01, 2000), np.linspace(0.01, 2, 2000)]).astype(np.float32)
    y = r(ms.Tensor(x)).asnumpy()
    neg, pos = x < 0, x > 0
    np.testing.assert_array_equal(y[pos], x[pos])
    slopes = y[neg] / x[neg]
    assert slopes.min() >= 0.1 - 1e-6 and slopes.max() < 0.3 + 1e-6
    assert abs(slopes.mean() - 0.2) < 0.01 and slopes.std() > 0.05     # uniform on [0.1, 0.3): sd 0.058
    r.set_train(False)
    y2 = r(ms.Tensor(x)).asnumpy()
    assert not np.array_equal(y2, y)                   # random in evaluation too, as in MindSpore
    # the gradient is the slope that was drawn: recover it from one call's value and gradient
    ms.set_seed(11)
    v, g = ms.value_and_grad(lambda t: r(t).sum())(ms.Tensor(x))
    ms.set_seed(11)
    drawn = r(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(g.asnumpy()[neg], drawn[neg] / x[neg], rtol=1e-5)
    np.testing.assert_array_equal(g.asnumpy()[pos], 1.0)
    with pytest.raises(ValueError, match="upper"):
        nn.RReLU(0.5, 0.1)
