"""A whole training step — forward, backward, optimizer update — compiles into one graph and
trains exactly like the PyNative step."""

import numpy as np
import pytest

import spore as ms
from spore import nn
from spore.ops import functional as F


def make_step(w, opt_cls, **opt_kwargs):
    opt = opt_cls([w], **opt_kwargs)

    def loss_fn(x, y):
        d = F.matmul(x, w) - y
        return F.reduce_sum(d * d)

    grad_fn = ms.value_and_grad(loss_fn, None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    return step


def test_compiled_adam_step_matches_pynative_and_is_one_graph():
    rng = np.random.default_rng(0)
    init = rng.standard_normal((4, 3)).astype(np.float32)
    we, wc = ms.Parameter(ms.Tensor(init.copy()), name="w"), ms.Parameter(ms.Tensor(init.copy()), name="w")
    eager = make_step(we, nn.Adam, learning_rate=0.1)
    compiled = ms.jit(make_step(wc, nn.Adam, learning_rate=0.1), fullgraph=True)
    x = ms.Tensor(rng.standard_normal((8, 4)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((8, 3)).astype(np.float32))
    losses = []
    for _ in range(5):
        le, lc = eager(x, y), compiled(x, y)
        np.testing.assert_allclose(lc.asnumpy(), le.asnumpy(), rtol=1e-6)
        losses.append(float(lc.asnumpy()))
    np.testing.assert_allclose(wc.asnumpy(), we.asnumpy(), rtol=1e-6, atol=1e-7)
    assert losses[-1] < losses[0]
    assert len(compiled.cache) == 1
    ops = [e.prim.name for e in next(iter(compiled.cache.values())).graph.eqns]
    assert ops.count("OptimizerStep") == 1 and "MatMul" in ops


W = ms.Parameter(ms.Tensor(np.ones((2, 2), np.float32)), name="w")


def _loss(x):
    return F.reduce_sum(F.matmul(x, W))


def test_wrong_number_of_gradients_is_a_compile_error():
    opt = nn.SGD([W], learning_rate=0.1)
    grad_fn = ms.grad(_loss, None, [W])

    def step(x):
        g = grad_fn(x)
        opt(g + g)
        return x

    with pytest.raises(ms.GraphCompileError, match="2 gradients|1 gradients"):
        ms.jit(step, fullgraph=True)(ms.Tensor(np.ones((2, 2), np.float32)))
