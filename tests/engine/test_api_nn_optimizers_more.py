"""AdaMax, ASGD, Rprop, ProximalAdagrad, LazyAdam, Lamb and FTRL (issue 14) against NumPy
re-statements of MindSpore's update rules, three steps on float64 parameters."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import nn
from spore.tensor import Parameter

RNG = np.random.default_rng(11)
W0 = [RNG.standard_normal((3, 4)), RNG.standard_normal(4)]
GRADS = [[RNG.standard_normal((3, 4)), RNG.standard_normal(4)] for _ in range(3)]


def run(make):
    params = [Parameter(w.copy(), name=n) for w, n in zip(W0, ("dense.weight", "dense.bias"))]
    opt = make(params)
    for gs in GRADS:
        opt(tuple(ms.Tensor(g) for g in gs))
    return [p.asnumpy() for p in params], opt


def ref(update, state_init):
    ws = [w.copy() for w in W0]
    states = [state_init(w) for w in ws]
    for t, gs in enumerate(GRADS, 1):
        for i, g in enumerate(gs):
            ws[i] = update(ws[i], g, states[i], t)
    return ws


def test_adamax():
    def upd(w, g, s, t):
        s["m"] = 0.9 * s["m"] + 0.1 * g
        s["v"] = np.maximum(0.999 * s["v"], np.abs(g))
        return w - 0.01 / (1 - 0.9 ** t) * s["m"] / (s["v"] + 1e-8)
    got, opt = run(lambda p: nn.AdaMax(p, learning_rate=0.01))
    for a, b in zip(got, ref(upd, lambda w: {"m": 0 * w, "v": 0 * w})):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert {"moment1.dense.weight", "moment2.dense.bias"} <= {n for n, _ in opt.parameters_and_names()}


def test_asgd_matches_averaged_sgd():
    lr, lambd, alpha, t0 = 0.1, 1e-2, 0.75, 1.0

    def upd(w, g, s, t):
        w = w * (1 - lambd * s["eta"]) - s["eta"] * g
        s["ax"] = s["ax"] + (w - s["ax"]) * s["mu"] if s["mu"] != 1 else w.copy()
        s["eta"] = lr / (1 + lambd * lr * t) ** alpha
        s["mu"] = 1 / max(1, t - t0)
        return w
    got, opt = run(lambda p: nn.ASGD(p, learning_rate=lr, lambd=lambd, t0=t0))
    expect = ref(upd, lambda w: {"eta": lr, "mu": 1.0, "ax": 0 * w})
    for a, b in zip(got, expect):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_rprop():
    def upd(w, g, s, t):
        sign = np.sign(g * s["prev"])
        s["size"] = np.where(sign > 0, np.minimum(s["size"] * 1.2, 50), np.where(sign < 0,
                             np.maximum(s["size"] * 0.5, 1e-6), s["size"]))
        g = np.where(sign < 0, 0, g)
        s["prev"] = g
        return w - np.sign(g) * s["size"]
    got, _ = run(lambda p: nn.Rprop(p, learning_rate=0.05))
    for a, b in zip(got, ref(upd, lambda w: {"prev": 0 * w, "size": 0 * w + 0.05})):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    with pytest.raises(ValueError, match="Rprop"):
        nn.Rprop([Parameter(W0[1].copy(), name="b")], etas=(1.5, 1.2))


def test_proximal_adagrad():
    lr, l1, l2 = 0.1, 0.05, 0.2

    def upd(w, g, s, t):
        s["a"] = s["a"] + g * g
        v = w - lr * g / np.sqrt(s["a"])
        return np.sign(v) * np.maximum(np.abs(v) - lr * l1, 0) / (1 + lr * l2)
    got, _ = run(lambda p: nn.ProximalAdagrad(p, accum=0.2, learning_rate=lr, l1=l1, l2=l2))
    for a, b in zip(got, ref(upd, lambda w: {"a": 0 * w + 0.2})):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_lazy_adam_is_adam_on_dense_gradients():
    a, _ = run(lambda p: nn.LazyAdam(p, learning_rate=0.01))
    b, _ = run(lambda p: nn.Adam(p, learning_rate=0.01))
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-12)


def test_lamb_trust_ratio_and_decay():
    lr, wd = 0.02, 0.1

    def upd(w, g, s, t):
        s["m"] = 0.9 * s["m"] + 0.1 * g
        s["v"] = 0.999 * s["v"] + 0.001 * g * g
        u = (s["m"] / (1 - 0.9 ** t)) / (np.sqrt(s["v"] / (1 - 0.999 ** t)) + 1e-6) + wd * w
        return w - lr * np.linalg.norm(w) / np.linalg.norm(u) * u
    got, _ = run(lambda p: nn.Lamb(p, lr, weight_decay=wd))
    for a, b in zip(got, ref(upd, lambda w: {"m": 0 * w, "v": 0 * w})):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_ftrl():
    lr, l1, l2, p = 0.1, 0.01, 0.05, 0.5

    def upd(w, g, s, t):
        new = s["a"] + g * g
        s["lin"] = s["lin"] + g - (new ** p - s["a"] ** p) / lr * w
        s["a"] = new
        quad = new ** p / lr + 2 * l2
        return np.where(np.abs(s["lin"]) > l1, (np.sign(s["lin"]) * l1 - s["lin"]) / quad, 0)
    got, opt = run(lambda p_: nn.FTRL(p_, learning_rate=lr, l1=l1, l2=l2))
    for a, b in zip(got, ref(upd, lambda w: {"a": 0 * w + 0.1, "lin": 0 * w})):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert "linear.dense.weight" in {n for n, _ in opt.parameters_and_names()}
