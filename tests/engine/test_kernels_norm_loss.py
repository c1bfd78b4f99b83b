"""The C++ normalization, cross-entropy and embedding-gradient kernels (spore._kernels, float32),
held to float64 NumPy references written here from the definitions (per-channel / per-row loops
over plain formulas; no code shared with the kernels or with the ops' own NumPy paths)."""

import numpy as np
import pytest

from spore import _kernels as K

r = np.random.default_rng(11)
EMPTY = np.empty(0, np.float32)


def f32(*shape, scale=1.0, offset=0.0):
    return (r.standard_normal(shape) * scale + offset).astype(np.float32)


# ----------------------------------------------------------------------------------------------
# references


def ref_bn_forward(x3, gamma, beta, mean, var, training, eps):
    x3 = x3.astype(np.float64)
    n, c, s = x3.shape
    y = np.empty_like(x3)
    sm, sr = np.empty(c), np.empty(c)
    for ch in range(c):
        v = x3[:, ch, :].ravel()
        mu = v.mean() if training else float(mean[ch])
        va = ((v - mu) ** 2).mean() if training else float(var[ch])
        sm[ch], sr[ch] = mu, 1 / np.sqrt(va + eps)
        y[:, ch, :] = (x3[:, ch, :] - mu) * sr[ch] * gamma[ch] + beta[ch]
    return y, sm, sr


def ref_bn_backward(dy3, x3, gamma, mean, rstd, dmean, drstd, training):
    """Gradient of sum(dy*y) + sum(dmean*mean) + sum(drstd*rstd) by the chain rule, channel by channel."""
    dy3, x3 = dy3.astype(np.float64), x3.astype(np.float64)
    n, c, s = x3.shape
    m = n * s
    dx = np.empty_like(x3)
    dg, db = np.empty(c), np.empty(c)
    for ch in range(c):
        g, x = dy3[:, ch, :], x3[:, ch, :]
        mu, rs = float(mean[ch]), float(rstd[ch])
        xhat = (x - mu) * rs
        db[ch] = g.sum()
        dg[ch] = (g * xhat).sum()
        dxhat = g * gamma[ch]
        if not training:
            dx[:, ch, :] = dxhat * rs
            continue
        # y = xhat*gamma + beta, xhat = (x - mu) * rs, mu = mean(x), rs = (var + eps)^-1/2
        d_rs = (dxhat * (x - mu)).sum() + drstd[ch]
        d_var = d_rs * -0.5 * rs ** 3
        d_mu = -(dxhat * rs).sum() + dmean[ch]
        dx[:, ch, :] = dxhat * rs + d_var * 2 * (x - mu) / m + d_mu / m
    return dx, dg, db


def ref_softmax_rows(x):
    x = x.astype(np.float64)
    m = x.max(axis=-1, keepdims=True)
    lse = m + np.log(np.exp(x - m).sum(axis=-1, keepdims=True))
    return x - lse


def to_rows(a3):
    """(N, C, S) -> (N*S, C) rows."""
    n, c, s = a3.shape
    return np.moveaxis(a3, 1, 2).reshape(n * s, c)


# ----------------------------------------------------------------------------------------------
# batch norm


@pytest.mark.parametrize("shape", [(8, 5, 1), (3, 4, 37), (2, 300, 1), (1, 3, 16)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_forward_matches_reference(shape, training):
    n, c, s = shape
    x = f32(n, c, s, scale=2.0, offset=1.5)
    gamma, beta = f32(c), f32(c)
    mean, var = f32(c), (r.random(c) + 0.5).astype(np.float32)
    y, sm, sr = K.batch_norm_forward(x, gamma, beta, mean, var, training, 1e-5)
    ry, rm, rr = ref_bn_forward(x, gamma, beta, mean, var, training, 1e-5)
    assert y.dtype == np.float32 and y.shape == shape
    np.testing.assert_allclose(sm, rm, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(sr, rr, rtol=1e-4)
    np.testing.assert_allclose(y, ry, rtol=1e-4, atol=1e-4)


def test_batch_norm_statistics_keep_precision_on_offset_data():
    # mean 1e4, std 1e-2: a one-pass E[x^2] - E[x]^2 in float32 would lose every digit of the variance
    x = f32(64, 3, 50, scale=1e-2, offset=1e4)
    ones, zeros = np.ones(3, np.float32), np.zeros(3, np.float32)
    _, sm, sr = K.batch_norm_forward(x, ones, zeros, zeros, ones, True, 1e-8)
    _, rm, rr = ref_bn_forward(x, ones, zeros, zeros, ones, True, 1e-8)
    np.testing.assert_allclose(sm, rm, rtol=1e-7)
    np.testing.assert_allclose(sr, rr, rtol=2e-3)


@pytest.mark.parametrize("shape", [(8, 5, 1), (3, 4, 37), (2, 300, 1)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_backward_matches_reference(shape, training):
    n, c, s = shape
    x, dy = f32(n, c, s, offset=0.5), f32(n, c, s)
    gamma = f32(c)
    _, mean, rstd = K.batch_norm_forward(x, gamma, f32(c), f32(c), np.ones(c, np.float32), training, 1e-5)
    dmean, drstd = f32(c), f32(c)
    dx, dg, db = K.batch_norm_backward(dy, x, gamma, mean, rstd, dmean, drstd, training)
    rdx, rdg, rdb = ref_bn_backward(dy, x, gamma, mean, rstd, dmean, drstd, training)
    np.testing.assert_allclose(db, rdb, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dg, rdg, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dx, rdx, rtol=1e-3, atol=1e-4)


def test_batch_norm_kernels_refuse_mismatched_channel_vectors():
    x = f32(2, 3, 4)
    with pytest.raises(ValueError, match="gamma/beta must have C entries"):
        K.batch_norm_forward(x, f32(4), f32(3), f32(3), f32(3), True, 1e-5)
    with pytest.raises(ValueError, match="dy and x differ"):
        K.batch_norm_backward(f32(2, 3, 5), x, f32(3), f32(3), f32(3), f32(3), f32(3), True)


# ----------------------------------------------------------------------------------------------
# layer norm


@pytest.mark.parametrize("shape", [(6, 10), (3, 129), (1, 1)])
def test_layer_norm_forward_matches_reference(shape):
    m, d = shape
    x = f32(m, d, scale=3.0, offset=-2.0)
    gamma, beta = f32(d), f32(d)
    y, mean, rstd = K.layer_norm_forward(x, gamma, beta, 1e-5)
    xd = x.astype(np.float64)
    mu = xd.mean(axis=1, keepdims=True)
    rs = 1 / np.sqrt(((xd - mu) ** 2).mean(axis=1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(mean, mu[:, 0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(rstd, rs[:, 0], rtol=1e-4)
    np.testing.assert_allclose(y, (xd - mu) * rs * gamma + beta, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape", [(6, 10), (40, 33)])
def test_layer_norm_backward_matches_reference(shape):
    m, d = shape
    x, dy, gamma = f32(m, d), f32(m, d), f32(d)
    _, mean, rstd = K.layer_norm_forward(x, gamma, f32(d), 1e-5)
    dmean, drstd = f32(m), f32(m)
    dx, dg, db = K.layer_norm_backward(dy, x, gamma, mean, rstd, dmean, drstd)
    xd, g = x.astype(np.float64), dy.astype(np.float64)
    rdx = np.empty_like(xd)
    for i in range(m):  # chain rule per row, written out
        mu, rs = float(mean[i]), float(rstd[i])
        dxhat = g[i] * gamma
        d_rs = (dxhat * (xd[i] - mu)).sum() + drstd[i]
        d_mu = -(dxhat * rs).sum() + dmean[i]
        rdx[i] = dxhat * rs + d_rs * -0.5 * rs ** 3 * 2 * (xd[i] - mu) / d + d_mu / d
    xhat = (xd - mean[:, None]) * rstd[:, None]
    np.testing.assert_allclose(dx, rdx, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(dg, (g * xhat).sum(axis=0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(db, g.sum(axis=0), rtol=1e-4, atol=1e-4)


# ----------------------------------------------------------------------------------------------
# softmax cross-entropy


def ref_sparse(x3, y2, w, ignore, ls, g2):
    rows, yr, gr = to_rows(x3), y2.reshape(-1), g2.reshape(-1)
    n_rows, c = rows.shape
    wv = np.ones(c) if w.size == 0 else w.astype(np.float64)
    logp = ref_softmax_rows(rows)
    loss = np.zeros(n_rows)
    grad = np.zeros((n_rows, c))
    for i in range(n_rows):
        if yr[i] == ignore:
            continue
        target = ls / c * wv.copy()        # smoothed, weighted target distribution (unnormalised)
        target[yr[i]] += (1 - ls) * wv[yr[i]]
        loss[i] = -(target * logp[i]).sum()
        grad[i] = gr[i] * (np.exp(logp[i]) * target.sum() - target)
    n, c_, s = x3.shape
    return loss.reshape(n, s), np.moveaxis(grad.reshape(n, s, c), 2, 1)


@pytest.mark.parametrize("shape", [(7, 10, 1), (5, 37, 1), (3, 6, 21), (2, 5, 16)])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ls", [0.0, 0.25])
def test_sparse_softmax_ce_matches_reference(shape, weighted, ls):
    n, c, s = shape
    x = f32(n, c, s, scale=4.0)
    y = r.integers(0, c, (n, s))
    y[0, 0] = -100
    w = (r.random(c) + 0.5).astype(np.float32) if weighted else EMPTY
    g = f32(n, s)
    loss, d, bad = K.softmax_ce_sparse(x, y, w, -100, ls, g, True)
    rl, rd = ref_sparse(x, y, w, -100, ls, g)
    assert bad == -1
    assert loss[0, 0] == 0 and not d[0, :, 0].any()
    np.testing.assert_allclose(loss, rl, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(d, rd, rtol=1e-5, atol=1e-6)
    loss_only, none, _ = K.softmax_ce_sparse(x, y, w, -100, ls, EMPTY, False)
    assert none is None
    np.testing.assert_array_equal(loss_only, loss)


@pytest.mark.parametrize("shape,flat_bad", [((4, 5, 1), 2), ((2, 5, 19), 25)])
def test_sparse_softmax_ce_reports_the_first_bad_label(shape, flat_bad):
    n, c, s = shape
    y = r.integers(0, c, (n, s))
    y.reshape(-1)[flat_bad] = c        # out of range
    y.reshape(-1)[-1] = -7             # also out of range, but later
    _, _, bad = K.softmax_ce_sparse(f32(n, c, s), y, EMPTY, -100, 0.0, EMPTY, False)
    assert bad == flat_bad


def test_softmax_ce_is_stable_for_huge_logits():
    x = np.array([[1e4, 0.0, -1e4], [-5e3, 5e3, 4990.0], [3e4, 3e4, 3e4]], np.float32)[:, :, None]
    y = np.array([[0], [2], [1]])
    loss, d, _ = K.softmax_ce_sparse(x, y, EMPTY, -100, 0.0, np.ones((3, 1), np.float32), True)
    np.testing.assert_allclose(loss[:, 0], [0.0, 10.0 + np.log1p(np.exp(-10.0)), np.log(3.0)], rtol=1e-6)
    assert np.isfinite(d).all()
    np.testing.assert_allclose(d[0, :, 0], [0.0, 0.0, 0.0], atol=0)
    np.testing.assert_allclose(d[2, :, 0], [1 / 3, -2 / 3, 1 / 3], rtol=1e-6)


@pytest.mark.parametrize("shape", [(6, 9, 1), (5, 40, 1), (2, 7, 23)])
def test_dense_softmax_ce_matches_reference(shape):
    n, c, s = shape
    x = f32(n, c, s, scale=3.0)
    t = r.random((n, c, s)).astype(np.float32)
    t[0] *= 3.0                        # rows need not sum to 1: the gradient uses sum(t) * p - t
    g = f32(n, s)
    loss, d = K.softmax_ce_dense(x, t, g, True)
    rows, tr = to_rows(x), to_rows(t).astype(np.float64)
    logp = ref_softmax_rows(rows)
    rl = -(tr * logp).sum(axis=1)
    rd = g.reshape(-1, 1) * (np.exp(logp) * tr.sum(axis=1, keepdims=True) - tr)
    np.testing.assert_allclose(loss.reshape(-1), rl, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(to_rows(d), rd, rtol=1e-5, atol=1e-6)


def test_kernel_exp_is_accurate_across_the_float_range():
    # two classes [x, 0] with target on class 1: dlogits[1] = p1 - 1 = -sigmoid(x); dlogits[0] = sigmoid(x)
    xs = np.linspace(-85, 85, 20001).astype(np.float32)
    x = np.stack([xs, np.zeros_like(xs)], 1)[:, :, None]
    t = np.zeros_like(x)
    t[:, 1] = 1
    _, d = K.softmax_ce_dense(x, t, np.ones((len(xs), 1), np.float32), True)
    ref = 1 / (1 + np.exp(-xs.astype(np.float64)))
    np.testing.assert_allclose(d[:, 0, 0], ref, rtol=5e-7, atol=1e-38)


# ----------------------------------------------------------------------------------------------
# embedding gradient


@pytest.mark.parametrize("m,d,v", [(50, 8, 7), (300, 300, 40)])
def test_embedding_backward_matches_add_at(m, d, v):
    g = f32(m, d)
    ids = r.integers(0, v, m)
    out = K.embedding_backward(g, ids, v, -1, False)
    ref = np.zeros((v, d))
    np.add.at(ref, ids, g.astype(np.float64))
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_embedding_backward_padding_and_frequency_scaling():
    g = f32(6, 3)
    ids = np.array([1, 0, 1, 2, 2, 2])
    out = K.embedding_backward(g, ids, 4, 0, True)
    np.testing.assert_allclose(out[0], 0)
    np.testing.assert_allclose(out[1], (g[0] + g[2]) / 2, rtol=1e-6)
    np.testing.assert_allclose(out[2], (g[3] + g[4] + g[5]) / 3, rtol=1e-6)
    np.testing.assert_allclose(out[3], 0)


def test_embedding_backward_rejects_out_of_range_ids():
    with pytest.raises(IndexError, match=r"id 9 at position 2 is outside \[0, 5\)"):
        K.embedding_backward(f32(3, 2), np.array([0, 1, 9]), 5, -1, False)


def test_kernels_give_thread_count_independent_results():
    """Layer norm's dgamma sums fixed row chunks in a fixed order and the embedding scatter splits
    columns, so the team size changes no bit of either."""
    x, dy, gamma = f32(4096, 300), f32(4096, 300), f32(300)  # 6M units: above the grain, on the team
    _, mean, rstd = K.layer_norm_forward(x, gamma, f32(300), 1e-5)
    zeros = np.zeros(4096, np.float32)
    g, ids = f32(400, 300), r.integers(0, 30, 400)
    before = K.num_threads()
    try:
        K.set_num_threads(1)
        ln1 = K.layer_norm_backward(dy, x, gamma, mean, rstd, zeros, zeros)
        emb1 = K.embedding_backward(g, ids, 30, -1, False)
        K.set_num_threads(2)
        ln2 = K.layer_norm_backward(dy, x, gamma, mean, rstd, zeros, zeros)
        emb2 = K.embedding_backward(g, ids, 30, -1, False)
    finally:
        K.set_num_threads(before)
    for a, b in zip(ln1, ln2):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(emb1, emb2)
