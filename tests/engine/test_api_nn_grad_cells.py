"""nn.Jvp, nn.Vjp and nn.WithGradCell (issue 14) against analytic derivatives and finite differences."""

from __future__ import annotations

import numpy as np

import spore as ms
from spore import nn, ops

RNG = np.random.default_rng(9)


def T(a):  # noqa: N802
    return ms.Tensor(np.asarray(a))


def f(x, y):
    return ops.sin(x) * y


def test_jvp_is_the_directional_derivative():
    x, y, vx, vy = (RNG.standard_normal(4) for _ in range(4))
    out, tangent = nn.Jvp(f)(T(x), T(y), (T(vx), T(vy)))
    np.testing.assert_allclose(out.asnumpy(), np.sin(x) * y)
    eps = 1e-6
    fd = (np.sin(x + eps * vx) * (y + eps * vy) - np.sin(x - eps * vx) * (y - eps * vy)) / (2 * eps)
    np.testing.assert_allclose(tangent.asnumpy(), fd, rtol=1e-6, atol=1e-9)


def test_vjp_is_the_cotangent_times_the_jacobian():
    x, y, v = (RNG.standard_normal(4) for _ in range(3))
    out, (gx, gy) = nn.Vjp(f)(T(x), T(y), T(v))
    np.testing.assert_allclose(gx.asnumpy(), v * np.cos(x) * y)
    np.testing.assert_allclose(gy.asnumpy(), v * np.sin(x))
    _, g = nn.Vjp(ops.exp)(T(x), T(v))
    np.testing.assert_allclose(g.asnumpy(), v * np.exp(x))


def test_with_grad_cell_matches_the_mse_gradient():
    ms.set_seed(0)
    net = nn.Dense(3, 2, dtype=ms.float64)
    x, t = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 2))
    gw, gb = nn.WithGradCell(net, nn.MSELoss(), sens=3.0)(T(x), T(t))
    w, b = net.weight.asnumpy(), net.bias.asnumpy()
    dy = 3.0 * 2 * (x @ w.T + b - t) / t.size
    np.testing.assert_allclose(gw.asnumpy(), dy.T @ x, rtol=1e-10)
    np.testing.assert_allclose(gb.asnumpy(), dy.sum(0), rtol=1e-10)
