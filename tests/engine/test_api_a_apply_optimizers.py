"""The optimizer-step class forms (ops.ApplyMomentum, ops.Adam, ...; issue 14): each step against
NumPy transcriptions of MindSpore's documented rules, and ApplyMomentum/Adam against Spore's own
nn.Momentum / nn.Adam optimizers (an independent implementation of the same rules)."""

from __future__ import annotations

import numpy as np

import spore as ms
from spore import nn, ops

r = np.random.default_rng(4)


def P(a, name):
    return ms.Parameter(ms.Tensor(np.asarray(a, np.float64)), name=name)


def arrays(n, shape=(3, 4), positive=False):
    return [np.abs(r.standard_normal(shape)) + 0.1 if positive else r.standard_normal(shape) for _ in range(n)]


def test_gradient_descent_and_proximal():
    var, delta = arrays(2)
    v = P(var, "v")
    out = ops.ApplyGradientDescent()(v, 0.1, ms.Tensor(delta))
    np.testing.assert_allclose(v.asnumpy(), var - 0.1 * delta)
    np.testing.assert_allclose(out.asnumpy(), v.asnumpy())
    v = P(var, "v2")
    ops.ApplyProximalGradientDescent()(v, 0.1, 0.05, 0.2, ms.Tensor(delta))
    pv = var - 0.1 * delta
    np.testing.assert_allclose(v.asnumpy(), np.sign(pv) / (1 + 0.1 * 0.2) * np.maximum(np.abs(pv) - 0.1 * 0.05, 0))


def test_apply_momentum_matches_nn_momentum_over_steps():
    w0 = r.standard_normal(4)
    grads = [r.standard_normal(4) for _ in range(3)]
    for nesterov in (False, True):
        w, acc = P(w0, "w"), P(np.zeros(4), "acc")
        ref = P(w0, "ref")
        opt = nn.Momentum([ref], learning_rate=0.1, momentum=0.9, use_nesterov=nesterov)
        for g in grads:
            ops.ApplyMomentum(use_nesterov=nesterov)(w, acc, 0.1, ms.Tensor(g), 0.9)
            opt((ms.Tensor(g),))
        np.testing.assert_allclose(w.asnumpy(), ref.asnumpy(), rtol=1e-6)  # nn.Momentum keeps lr in float32


def test_adam_matches_nn_adam_over_steps():
    w0 = r.standard_normal(5)
    grads = [r.standard_normal(5) for _ in range(3)]
    w, m, v = P(w0, "w"), P(np.zeros(5), "m"), P(np.zeros(5), "v")
    ref = P(w0, "ref")
    opt = nn.Adam([ref], learning_rate=0.01)
    b1p, b2p = 1.0, 1.0
    for g in grads:
        b1p, b2p = b1p * 0.9, b2p * 0.999
        ops.Adam()(w, m, v, b1p, b2p, 0.01, 0.9, 0.999, 1e-8, ms.Tensor(g))
        opt((ms.Tensor(g),))
    np.testing.assert_allclose(w.asnumpy(), ref.asnumpy(), rtol=1e-6)


def test_adagrad_adadelta_adamax_rules():
    var, accum, grad = arrays(3)
    accum = np.abs(accum) + 0.1
    v, a = P(var, "v"), P(accum, "a")
    ops.ApplyAdagrad()(v, a, 0.1, ms.Tensor(grad))
    acc = accum + grad ** 2
    np.testing.assert_allclose(a.asnumpy(), acc)
    np.testing.assert_allclose(v.asnumpy(), var - 0.1 * grad / np.sqrt(acc))
    v, a, u = P(var, "v"), P(accum, "a"), P(accum * 0.5, "u")
    ops.ApplyAdadelta()(v, a, u, 1.0, 0.9, 1e-6, ms.Tensor(grad))
    acc = 0.9 * accum + 0.1 * grad ** 2
    upd = np.sqrt(accum * 0.5 + 1e-6) / np.sqrt(acc + 1e-6) * grad
    np.testing.assert_allclose(u.asnumpy(), 0.9 * accum * 0.5 + 0.1 * upd ** 2)
    np.testing.assert_allclose(v.asnumpy(), var - upd)
    v, m, vv = P(var, "v"), P(accum, "m"), P(accum, "vv")
    ops.ApplyAdaMax()(v, m, vv, 0.9, 0.01, 0.9, 0.99, 1e-8, ms.Tensor(grad))
    m2 = 0.9 * accum + 0.1 * grad
    v2 = np.maximum(0.99 * accum, np.abs(grad))
    np.testing.assert_allclose(v.asnumpy(), var - 0.01 / (1 - 0.9) * m2 / (v2 + 1e-8))


def test_sign_and_rmsprop_rules():
    var, m, grad = arrays(3)
    v, mm = P(var, "v"), P(m, "m")
    ops.ApplyAddSign()(v, mm, 0.1, 1.0, 0.5, 0.9, ms.Tensor(grad))
    m2 = 0.9 * m + 0.1 * grad
    np.testing.assert_allclose(v.asnumpy(), var - 0.1 * (1.0 + 0.5 * np.sign(grad) * np.sign(m2)) * grad)
    v, mm = P(var, "v"), P(m, "m")
    ops.ApplyPowerSign()(v, mm, 0.1, np.e, 0.5, 0.9, ms.Tensor(grad))
    np.testing.assert_allclose(v.asnumpy(), var - 0.1 * np.exp(np.e * 0.5 * np.sign(grad) * np.sign(m2)) * grad)
    ms0, mom0 = np.abs(m) + 0.1, r.standard_normal((3, 4))
    v, s, mo = P(var, "v"), P(ms0, "s"), P(mom0, "mo")
    ops.ApplyRMSProp()(v, s, mo, 0.01, ms.Tensor(grad), 0.9, 0.5, 1e-6)
    s2 = 0.9 * ms0 + 0.1 * grad ** 2
    mo2 = 0.5 * mom0 + 0.01 * grad / np.sqrt(s2 + 1e-6)
    np.testing.assert_allclose(v.asnumpy(), var - mo2)
    mg0 = 0.1 * r.standard_normal((3, 4))
    v, g_, s, mo = P(var, "v"), P(mg0, "g"), P(ms0, "s"), P(mom0, "mo")
    ops.ApplyCenteredRMSProp()(v, g_, s, mo, ms.Tensor(grad), 0.01, 0.9, 0.5, 1e-6)
    mg2 = 0.9 * mg0 + 0.1 * grad
    mo2 = 0.5 * mom0 + 0.01 * grad / np.sqrt(s2 - mg2 ** 2 + 1e-6)
    np.testing.assert_allclose(v.asnumpy(), var - mo2)


def test_ftrl_keras_amsgrad_adamw_noupdate():
    var, grad = arrays(2)
    accum, lin = np.abs(r.standard_normal((3, 4))) + 0.1, r.standard_normal((3, 4))
    v, a, li = P(var, "v"), P(accum, "a"), P(lin, "l")
    ops.ApplyFtrl()(v, a, li, ms.Tensor(grad), 0.1, 0.3, 0.2, -0.5)
    an = accum + grad ** 2
    l2 = lin + grad - (an ** 0.5 - accum ** 0.5) / 0.1 * var
    quad = an ** 0.5 / 0.1 + 2 * 0.2
    np.testing.assert_allclose(v.asnumpy(), np.where(np.abs(l2) > 0.3, (np.sign(l2) * 0.3 - l2) / quad, 0))
    v, a = P(var, "v"), P(lin, "a")
    ops.ApplyKerasMomentum(use_nesterov=True)(v, a, 0.1, ms.Tensor(grad), 0.9)
    acc = 0.9 * lin - 0.1 * grad
    np.testing.assert_allclose(v.asnumpy(), var + 0.9 * acc - 0.1 * grad)
    m0, v0, vh0 = r.standard_normal((3, 4)), accum, accum * 2
    w, m, vv, vh = P(var, "w"), P(m0, "m"), P(v0, "vv"), P(vh0, "vh")
    ops.ApplyAdamWithAmsgrad()(w, m, vv, vh, 0.9, 0.999, 0.01, ms.Tensor(grad))
    m2, v2 = m0 + 0.1 * (grad - m0), v0 + 0.001 * (grad ** 2 - v0)
    lr_t = 0.01 * np.sqrt(1 - 0.999) / (1 - 0.9)
    np.testing.assert_allclose(w.asnumpy(), var - lr_t * m2 / (np.sqrt(np.maximum(vh0, v2)) + 1e-8))
    w, m, vv = P(var, "w"), P(m0, "m"), P(v0, "vv")
    ops.AdamWeightDecay()(w, m, vv, 0.01, 0.9, 0.999, 1e-8, 0.1, ms.Tensor(grad))
    m3, v3 = 0.9 * m0 + 0.1 * grad, 0.999 * v0 + 0.001 * grad ** 2
    np.testing.assert_allclose(w.asnumpy(), var - 0.01 * (m3 / (np.sqrt(v3) + 1e-8) + 0.1 * var))
    m, vv = P(m0, "m"), P(v0, "vv")
    step = ops.AdamNoUpdateParam()(m, vv, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8, ms.Tensor(grad)).asnumpy()
    np.testing.assert_allclose(step, -lr_t * m2 / (np.sqrt(v2) + 1e-8))
