"""ops.SGD / ApplyAdagradDA / LARSUpdate / BasicLSTMCell (ops/train_misc_ops.py) and nn.AdaFactor /
nn.LARS (nn/optim/adafactor_lars.py) against NumPy transcriptions of MindSpore's documented rules,
several steps each."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import nn, ops

T = ms.Tensor
R = np.random.default_rng(0)


def _param(a, name):
    return ms.Parameter(T(np.array(a, np.float32)), name=name)


@pytest.mark.parametrize("nesterov,dampening,wd", [(False, 0.1, 0.01), (True, 0.0, 0.0)])
def test_sgd_op_vs_numpy(nesterov, dampening, wd):
    p0 = R.standard_normal(5).astype(np.float32)
    p, acc, stat = _param(p0, "p"), _param(np.zeros(5), "a"), _param(np.ones(5), "s")
    op = ops.SGD(dampening, wd, nesterov)
    wp, wa, ws = p0.astype(np.float64), np.zeros(5), np.ones(5)
    lr, mom = 0.1, 0.9
    for _ in range(3):
        g = R.standard_normal(5).astype(np.float32)
        out = op(p, T(g), T(np.float32(lr)), acc, T(np.float32(mom)), stat)
        gn = g + wd * wp
        wa = np.where(ws > 0, gn, wa * mom + (1 - dampening) * gn)
        ws = np.zeros(5)
        step = gn + mom * wa if nesterov else wa
        wp = wp - lr * step
        np.testing.assert_allclose(out.asnumpy(), wp, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(acc.asnumpy(), wa, rtol=1e-5, atol=1e-6)
    assert np.all(stat.asnumpy() == 0)


def test_sgd_op_without_momentum_is_plain_descent():
    p = _param([1.0, 2.0], "p")
    acc, stat = _param([5.0, 5.0], "a"), _param([1.0, 1.0], "s")
    out = ops.SGD()(p, T(np.array([1.0, -1.0], np.float32)), 0.5, acc, T(np.float32(0.0)), stat)
    np.testing.assert_allclose(out.asnumpy(), [0.5, 2.5])
    np.testing.assert_allclose(acc.asnumpy(), [5.0, 5.0])  # untouched without momentum


@pytest.mark.parametrize("l1", [0.0, 0.05])
def test_apply_adagrad_da_vs_numpy(l1):
    var, ga, gsq = _param(np.zeros(4), "v"), _param(np.zeros(4), "ga"), _param(np.zeros(4), "gs")
    nga, ngsq = np.zeros(4), np.zeros(4)
    lr, l2 = 0.1, 0.02
    for step in (1, 2, 3):
        g = R.standard_normal(4).astype(np.float32)
        (out,) = ops.ApplyAdagradDA()(var, ga, gsq, T(g), lr, l1, l2, T(np.int32(step)))
        nga, ngsq = nga + g, ngsq + g * g
        tmp = np.sign(nga) * np.maximum(np.abs(nga) - l1 * step, 0) if l1 > 0 else nga
        want = -lr * tmp / (l2 * step * lr + np.sqrt(ngsq))
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(gsq.asnumpy(), ngsq, rtol=1e-5)


@pytest.mark.parametrize("use_clip", [False, True])
def test_lars_update_vs_numpy(use_clip):
    w = R.standard_normal((3, 4)).astype(np.float32)
    g = R.standard_normal((3, 4)).astype(np.float32)
    wd, lr, eps, hp = 0.01, 0.5, 1e-5, 0.001
    out = ops.LARSUpdate(eps, hp, use_clip)(T(w), T(g), T(np.sum(w * w)), T(np.sum(g * g)), wd, lr)
    wn, gn = np.linalg.norm(w), np.linalg.norm(g)
    trust = hp * wn / (gn + wd * wn + eps)
    if use_clip:
        trust = min(trust / lr, 1.0)
    np.testing.assert_allclose(out.asnumpy(), trust * (g + wd * w), rtol=1e-5)
    zero = ops.LARSUpdate()(T(np.zeros(2, np.float32)), T(np.ones(2, np.float32)), T(np.float32(0)),
                            T(np.float32(2)), 0.0, 1.0)
    np.testing.assert_allclose(zero.asnumpy(), [1.0, 1.0])  # trust ratio 1 where a norm is 0


def test_basic_lstm_cell_vs_numpy():
    b_, inp, hid = 2, 3, 4
    x, h, c = (R.standard_normal(s).astype(np.float32) for s in ((b_, inp), (b_, hid), (b_, hid)))
    w = R.standard_normal((inp + hid, 4 * hid)).astype(np.float32)
    b = R.standard_normal(4 * hid).astype(np.float32)
    out = ops.BasicLSTMCell(forget_bias=0.5)(T(x), T(h), T(c), T(w), T(b))
    z = np.concatenate([x, h], 1) @ w + b
    i, j, f, o = np.split(z, 4, 1)

    def sig(v):
        return 1 / (1 + np.exp(-v))
    ct = sig(f + 0.5) * c + sig(i) * np.tanh(j)
    want = (ct, sig(o) * np.tanh(ct), sig(i), np.tanh(j), sig(f + 0.5), sig(o), np.tanh(ct))
    assert len(out) == 7
    for got, exp in zip(out, want):
        np.testing.assert_allclose(got.asnumpy(), exp, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="keep_prob"):
        ops.BasicLSTMCell(keep_prob=0.5)


def _np_adafactor(params, grads_seq, beta1=0.9, decay=0.8, eps=(1e-30, 1e-3), clip=1.0, wd=0.0):
    ps = [p.astype(np.float64) for p in params]
    m = [np.zeros_like(p) for p in ps]
    row = [np.zeros(p.shape[:-1]) if p.ndim > 1 else None for p in ps]
    col = [np.zeros(p.shape[:-2] + p.shape[-1:]) if p.ndim > 1 else None for p in ps]
    sq = [np.zeros_like(p) for p in ps]
    for t, grads in enumerate(grads_seq, 1):
        lr = min(1e-2, 1 / np.sqrt(t))
        b2 = 1 - t ** -decay
        for i, g in enumerate(grads):
            g = g.astype(np.float64)
            rate = lr * max(eps[1], np.sqrt(np.mean(ps[i] ** 2)))
            u = g * g + eps[0]
            if g.ndim > 1:
                row[i] = b2 * row[i] + (1 - b2) * u.mean(-1)
                col[i] = b2 * col[i] + (1 - b2) * u.mean(-2)
                v = (row[i] / row[i].mean(-1, keepdims=True))[..., None] * col[i][..., None, :]
            else:
                sq[i] = b2 * sq[i] + (1 - b2) * u
                v = sq[i]
            upd = g / np.sqrt(v)
            upd = upd / max(np.sqrt(np.mean(upd ** 2)) / clip, 1.0) * rate
            m[i] = beta1 * m[i] + (1 - beta1) * upd
            if wd:
                ps[i] = ps[i] - ps[i] * wd * rate
            ps[i] = ps[i] - m[i]
    return ps


def test_adafactor_vs_numpy():
    shapes = [(3, 4), (5,), (2, 3, 2)]
    p0 = [R.standard_normal(s).astype(np.float32) for s in shapes]
    params = [ms.Parameter(T(p.copy()), name=f"p{i}") for i, p in enumerate(p0)]
    opt = nn.AdaFactor(params, weight_decay=0.1)
    grads_seq = [[R.standard_normal(s).astype(np.float32) for s in shapes] for _ in range(3)]
    for grads in grads_seq:
        assert bool(opt(tuple(T(g) for g in grads)))
    want = _np_adafactor(p0, grads_seq, wd=0.1)
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="relative_step"):
        nn.AdaFactor(params, learning_rate=0.1)


def test_lars_wraps_momentum_vs_numpy():
    w0 = R.standard_normal((3, 2)).astype(np.float32)
    b0 = R.standard_normal(2).astype(np.float32)
    w, b = ms.Parameter(T(w0.copy()), name="dense.weight"), ms.Parameter(T(b0.copy()), name="dense.bias")
    opt = nn.LARS(nn.Momentum([w, b], 0.1, 0.9, weight_decay=0.01), epsilon=1e-5, coefficient=0.001)
    nw, nb = w0.astype(np.float64), b0.astype(np.float64)
    vw, vb = np.zeros_like(nw), np.zeros_like(nb)
    for _ in range(3):
        gw, gb = R.standard_normal((3, 2)).astype(np.float32), R.standard_normal(2).astype(np.float32)
        opt((T(gw), T(gb)))
        trust = 0.001 * np.linalg.norm(nw) / (np.linalg.norm(gw) + 0.01 * np.linalg.norm(nw) + 1e-5)
        gw2 = trust * (gw + 0.01 * nw)
        gb2 = gb  # MindSpore's LARS leaves a filtered-out gradient as it is (no decay: that moved to LARS)
        vw, vb = 0.9 * vw + gw2, 0.9 * vb + gb2
        nw, nb = nw - 0.1 * vw, nb - 0.1 * vb
    np.testing.assert_allclose(w.asnumpy(), nw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), nb, rtol=1e-5, atol=1e-6)


def _np_lstm(x, h0, c0, weights, hid, layers, d):
    """weights[(layer, dir)] = (w_ih, w_hh, b): an independent NumPy LSTM (gates i, f, g, o)."""
    def sig(v):
        return 1 / (1 + np.exp(-v))
    seq = x.shape[0]
    hn, cn = [], []
    for layer in range(layers):
        outs = []
        for k in range(d):
            w_ih, w_hh, b = weights[(layer, k)]
            h, c = h0[layer * d + k], c0[layer * d + k]
            ys = np.zeros((seq, x.shape[1], hid))
            for t in (reversed(range(seq)) if k else range(seq)):
                z = x[t] @ w_ih.T + h @ w_hh.T + b
                i, f, g, o = np.split(z, 4, 1)
                c = sig(f) * c + sig(i) * np.tanh(g)
                h = sig(o) * np.tanh(c)
                ys[t] = h
            outs.append(ys)
            hn.append(h)
            cn.append(c)
        x = np.concatenate(outs, 2)
    return x, np.stack(hn), np.stack(cn)


def test_lstm_op_vs_numpy_two_layers_bidirectional():
    seq, batch, inp, hid, layers, d = 4, 2, 3, 5, 2, 2
    op = ops.LSTM(inp, hid, layers, True, True, 0.0)
    weights, flat_w, flat_b = {}, [], []
    for layer in range(layers):
        fan_in = inp if layer == 0 else hid * d
        for k in range(d):
            w_ih = R.standard_normal((4 * hid, fan_in)) * 0.3
            w_hh = R.standard_normal((4 * hid, hid)) * 0.3
            b = R.standard_normal(4 * hid) * 0.1
            weights[(layer, k)] = (w_ih, w_hh, b)
            flat_w += [w_ih.ravel(), w_hh.ravel()]
            flat_b.append(b)
    w = np.concatenate(flat_w + flat_b).astype(np.float32)
    assert w.size == op.weight_size()
    x = R.standard_normal((seq, batch, inp)).astype(np.float32)
    h0 = R.standard_normal((layers * d, batch, hid)).astype(np.float32)
    c0 = R.standard_normal((layers * d, batch, hid)).astype(np.float32)
    out, hn, cn, reserve, state = op(T(x), T(h0), T(c0), T(w))
    want = _np_lstm(x.astype(np.float64), h0, c0, weights, hid, layers, d)
    for got, exp in zip((out, hn, cn), want):
        np.testing.assert_allclose(got.asnumpy(), exp, rtol=1e-4, atol=1e-5)
    assert reserve.size == 0 and state.size == 0


def test_lstm_op_matches_nn_lstm_weight_layout():
    net = nn.LSTM(3, 4)
    x = T(R.standard_normal((5, 2, 3)).astype(np.float32))
    h0 = T(np.zeros((1, 2, 4), np.float32))
    out, (hn, cn) = net(x, (h0, h0))
    p = {n: q.asnumpy() for n, q in net.parameters_and_names()}
    w = np.concatenate([p["weight_ih_l0"].ravel(), p["weight_hh_l0"].ravel(),
                        (p["bias_ih_l0"] + p["bias_hh_l0"]).ravel()])
    o2, h2, c2, _, _ = ops.LSTM(3, 4, 1, True, False, 0.0)(x, h0, h0, T(w))
    np.testing.assert_allclose(o2.asnumpy(), out.asnumpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c2.asnumpy(), cn.asnumpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(Exception, match="LSTM"):
        ops.LSTM(3, 4, 1, True, False, 0.0)(x, h0, h0, T(w[:-1]))


@pytest.mark.parametrize("make", [lambda p: nn.AdaFactor(p, weight_decay=0.01),
                                  lambda p: nn.LARS(nn.Momentum(p, 0.1, 0.9, weight_decay=0.01))],
                         ids=["AdaFactor", "LARS"])
def test_optimizers_train_the_same_in_graph_mode(make):
    def build():
        ms.set_seed(3)
        net = nn.WithLossCell(nn.SequentialCell([nn.Dense(4, 6), nn.Tanh(), nn.Dense(6, 3)]), nn.MSELoss())
        return nn.TrainOneStepCell(net, make(net.trainable_params()))

    py, gr = build(), build()
    rng = np.random.default_rng(0)
    try:
        for _ in range(3):
            x, y = T(rng.standard_normal((5, 4)).astype(np.float32)), T(rng.standard_normal((5, 3)).astype(np.float32))
            ms.set_context(mode=ms.PYNATIVE_MODE)
            lp = py(x, y).asnumpy()
            ms.set_context(mode=ms.GRAPH_MODE)
            lg = gr(x, y).asnumpy()
            np.testing.assert_allclose(lg, lp, rtol=1e-5, atol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for a, b in zip(py.trainable_params(), gr.trainable_params()):
        np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-5, atol=1e-6)
    fresh = build().trainable_params()
    assert any(not np.allclose(p.asnumpy(), q.asnumpy()) for p, q in zip(py.trainable_params(), fresh))  # trained
