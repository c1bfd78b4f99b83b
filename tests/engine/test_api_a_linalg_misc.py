"""Numerics of slice A's linear algebra, activations/losses and small ops (issue 14) against NumPy
and SciPy formulas, with gradients checked by finite differences."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.linalg import block_diag as sp_block_diag
from scipy.linalg import cho_solve

import spore as ms
from spore import ops
from spore.errors import ShapeError

r = np.random.default_rng(1202)


def T(a):
    return ms.Tensor(np.asarray(a))


def spd(n, *batch):
    a = r.standard_normal((*batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def fd_grad(fn, *xs, i=0, eps=1e-6):
    """d sum(w * fn(xs)) / d xs[i] by central differences (w fixed random weights)."""
    out = np.asarray(fn(*xs))
    w = r.standard_normal(out.shape)
    x = xs[i].copy()
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        hi, lo = [a.copy() for a in xs], [a.copy() for a in xs]
        hi[i][idx] += eps
        lo[i][idx] -= eps
        g[idx] = ((np.asarray(fn(*hi)) - np.asarray(fn(*lo))) * w).sum() / (2 * eps)
    return w, g


@pytest.mark.parametrize("eq,shapes", [("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
                                       ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("...j,j", [(2, 3), (3,)]),
                                       ("ij,k->ik", [(2, 3), (4,)]), ("i,i->", [(4,), (4,)]),
                                       ("ijk->kji", [(2, 3, 4)]), ("ij,ij->ij", [(2, 3), (2, 3)])])
def test_einsum_matches_numpy_with_gradients(eq, shapes):
    xs = [r.standard_normal(s) for s in shapes]
    np.testing.assert_allclose(ops.einsum(eq, *map(T, xs)).asnumpy(), np.einsum(eq, *xs), rtol=1e-12, atol=1e-12)
    for i in range(len(xs)):
        w, num = fd_grad(lambda *a: np.einsum(eq, *a), *xs, i=i)
        got = ms.grad(lambda *a: (ops.einsum(eq, *a) * T(w)).sum(), i)(*map(T, xs)).asnumpy()
        np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-8)


def test_einsum_errors_name_the_op():
    with pytest.raises(ValueError, match="Einsum"):
        ops.einsum("ij,jk->ik", T(np.ones((2, 3))))
    with pytest.raises(ShapeError, match="Einsum"):
        ops.einsum("ij,jk->ik", T(np.ones((2, 3))), T(np.ones((4, 2))))


def test_cholesky_family_matches_numpy_and_scipy():
    a = spd(4, 2)
    low = ops.cholesky(T(a)).asnumpy()
    np.testing.assert_allclose(low, np.linalg.cholesky(a), rtol=1e-12)
    up = T(a).cholesky(upper=True).asnumpy()
    np.testing.assert_allclose(np.swapaxes(up, -1, -2) @ up, a, rtol=1e-12)
    b = r.standard_normal((2, 4, 3))
    x = ops.cholesky_solve(T(b), T(low)).asnumpy()
    np.testing.assert_allclose(x, np.stack([cho_solve((low[k], True), b[k]) for k in range(2)]), rtol=1e-10)
    np.testing.assert_allclose(ops.cholesky_inverse(T(low[0])).asnumpy(), np.linalg.inv(a[0]), rtol=1e-10)
    np.testing.assert_allclose(ops.CholeskyInverse(upper=True)(T(up[1])).asnumpy(), np.linalg.inv(a[1]), rtol=1e-10)
    with pytest.raises(ValueError, match="Cholesky"):
        ops.cholesky(T(-np.eye(3)))
    with pytest.raises(ShapeError, match="Cholesky"):
        ops.cholesky(T(np.ones((2, 3))))


def test_cholesky_gradient_is_the_symmetric_one():
    a = spd(3)
    w, num = fd_grad(lambda m: np.linalg.cholesky(0.5 * (m + m.T)), a)
    got = ms.grad(lambda m: (ops.cholesky(m) * T(w)).sum())(T(a)).asnumpy()
    np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, got.T, rtol=1e-12)


def test_cholesky_solve_gradients():
    low = np.linalg.cholesky(spd(3))
    b = r.standard_normal((3, 2))
    fn = (lambda bb, ll: cho_solve((np.tril(ll), True), bb))
    for i in (0, 1):
        w, num = fd_grad(fn, b, low, i=i)
        got = ms.grad(lambda bb, ll: (ops.cholesky_solve(bb, ll) * T(w)).sum(), i)(T(b), T(low)).asnumpy()
        if i == 1:
            num = np.tril(num)  # only the factor's lower triangle is read
        np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-8)


def test_det_values_and_gradient():
    a = r.standard_normal((2, 3, 3))
    np.testing.assert_allclose(ops.det(T(a)).asnumpy(), np.linalg.det(a), rtol=1e-12)
    w, num = fd_grad(np.linalg.det, a)
    got = ms.grad(lambda m: (ops.det(m) * T(w)).sum())(T(a)).asnumpy()
    np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-8)


def test_cross_cov_dist_inv():
    a, b = r.standard_normal((4, 3)), r.standard_normal((4, 3))
    np.testing.assert_allclose(ops.cross(T(a), T(b)).asnumpy(), np.cross(a, b), rtol=1e-12)
    np.testing.assert_allclose(T(a.T).cross(T(b.T), 0).asnumpy(), np.cross(a.T, b.T, axis=0), rtol=1e-12)
    np.testing.assert_allclose(ops.Cross(dim=1)(T(a), T(b)).asnumpy(), np.cross(a, b), rtol=1e-12)
    x = r.standard_normal((3, 6))
    np.testing.assert_allclose(ops.cov(T(x)).asnumpy(), np.cov(x), rtol=1e-12)
    np.testing.assert_allclose(ops.cov(T(x), correction=0).asnumpy(), np.cov(x, bias=True), rtol=1e-12)
    fw, aw = r.integers(1, 4, 6), r.uniform(0.5, 2.0, 6)
    np.testing.assert_allclose(ops.cov(T(x), fweights=T(fw), aweights=T(aw)).asnumpy(),
                               np.cov(x, fweights=fw, aweights=aw), rtol=1e-12)
    np.testing.assert_allclose(T(x[0]).cov().asnumpy(), np.cov(x[0]), rtol=1e-12)
    for p in (1, 2, 3.5, float("inf"), 0):
        d = (a - b).ravel()
        want = np.count_nonzero(d) if p == 0 else np.linalg.norm(d, p)
        assert float(ops.dist(T(a), T(b), p).asnumpy()) == pytest.approx(want, rel=1e-6)
    np.testing.assert_allclose(ops.inv(T(a)).asnumpy(), 1 / a, rtol=1e-12)
    assert ops.inv(T(np.array([2, 4], np.int32))).dtype == ms.float32


def test_diagonal_helpers_match_numpy():
    x = r.standard_normal((3, 4, 5))
    for off, d1, d2 in [(0, 0, 1), (1, 0, 1), (-2, 1, 2), (2, 2, 0), (0, -1, -2)]:
        np.testing.assert_allclose(ops.diagonal(T(x), off, d1, d2).asnumpy(), np.diagonal(x, off, d1, d2))
    np.testing.assert_allclose(T(x).diagonal(1, axis1=1, axis2=2).asnumpy(), np.diagonal(x, 1, 1, 2))
    v = r.standard_normal((2, 2))
    np.testing.assert_allclose(ops.diagflat(T(v), -1).asnumpy(), np.diagflat(v, -1))
    e = r.standard_normal((2, 3))
    got = ops.diag_embed(T(e), 1).asnumpy()
    want = np.zeros((2, 4, 4))
    for k in range(2):
        want[k] = np.diag(e[k], 1)
    np.testing.assert_allclose(got, want)
    m = r.standard_normal((3, 4))
    src = r.standard_normal(3)
    out = ops.diagonal_scatter(T(m), T(src), 1).asnumpy()
    want = m.copy()
    want[np.arange(3), np.arange(3) + 1] = src
    np.testing.assert_allclose(out, want)
    with pytest.raises(ShapeError, match="diagonal_scatter"):
        ops.diagonal_scatter(T(m), T(np.ones(4)), 1)
    # diagonal's gradient lands on the diagonal
    g = ms.grad(lambda t: ops.diagonal(t, 1).sum())(T(m)).asnumpy()
    np.testing.assert_array_equal(g, np.eye(3, 4, 1))


def test_block_diag_cartesian_prod_combinations_batch_dot():
    a, b, c = r.standard_normal((2, 2)), r.standard_normal((1, 3)), r.standard_normal(2)
    np.testing.assert_allclose(ops.block_diag(T(a), T(b), T(c)).asnumpy(), sp_block_diag(a, b, c[None]))
    x, y = T(np.array([1, 2, 3])), T(np.array([4, 5]))
    np.testing.assert_array_equal(ops.cartesian_prod(x, y).asnumpy(), list(itertools.product([1, 2, 3], [4, 5])))
    v = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(ops.combinations(T(v), 3).asnumpy(), list(itertools.combinations(v, 3)))
    np.testing.assert_array_equal(ops.combinations(T(v), 2, True).asnumpy(),
                                  list(itertools.combinations_with_replacement(v, 2)))
    p, q = r.standard_normal((2, 3, 4)), r.standard_normal((2, 4, 5))
    np.testing.assert_allclose(ops.batch_dot(T(p), T(q)).asnumpy(), p @ q, rtol=1e-12)
    u, w = r.standard_normal((3, 4)), r.standard_normal((3, 4))
    np.testing.assert_allclose(ops.batch_dot(T(u), T(w)).asnumpy(), (u * w).sum(1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(T(p).adjoint().asnumpy(), np.swapaxes(p, -1, -2))


def test_activations_match_their_formulas():
    x = r.standard_normal((3, 4)) * 3
    np.testing.assert_allclose(ops.celu(T(x), 1.5).asnumpy(),
                               np.maximum(x, 0) + np.minimum(0, 1.5 * (np.exp(x / 1.5) - 1)), rtol=1e-12)
    a, b = np.split(x, 2, axis=1)
    np.testing.assert_allclose(ops.glu(T(x)).asnumpy(), a / (1 + np.exp(-b)), rtol=1e-12)
    np.testing.assert_allclose(ops.hardshrink(T(x), 1.0).asnumpy(), np.where(np.abs(x) > 1.0, x, 0))
    np.testing.assert_allclose(ops.hardtanh(T(x), -0.5, 2.0).asnumpy(), np.clip(x, -0.5, 2.0))
    fg = x / (1 + np.exp(-1.702 * np.abs(x))) * np.exp(0.851 * (x - np.abs(x)))
    np.testing.assert_allclose(ops.fast_gelu(T(x)).asnumpy(), fg, rtol=1e-12)
    with pytest.raises(ShapeError, match="glu"):
        ops.glu(T(np.ones((3, 3))))
    with pytest.raises(ValueError, match="celu"):
        ops.celu(T(x), 0.0)
    g = ms.grad(lambda t: ops.celu(t).sum())(T(x)).asnumpy()
    np.testing.assert_allclose(g, np.where(x > 0, 1.0, np.exp(x)), rtol=1e-12)


def test_losses_match_their_formulas():
    x, t = r.standard_normal((4, 3)), r.standard_normal((4, 3))
    z = np.abs(x - t)
    hub = np.where(z < 0.7, 0.5 * z ** 2, 0.7 * (z - 0.35))
    assert float(ops.huber_loss(T(x), T(t), delta=0.7).asnumpy()) == pytest.approx(hub.mean(), rel=1e-12)
    np.testing.assert_allclose(ops.huber_loss(T(x), T(t), "none", 0.7).asnumpy(), hub, rtol=1e-12)
    y = np.sign(r.standard_normal((4, 3)))
    hinge = np.where(y == 1, x, np.maximum(0, 1.0 - x))
    assert float(ops.hinge_embedding_loss(T(x), T(y), reduction="sum").asnumpy()) == pytest.approx(hinge.sum())
    var = r.uniform(0.1, 2.0, (4, 3))
    nll = 0.5 * (np.log(var) + (x - t) ** 2 / var)
    assert float(ops.gaussian_nll_loss(T(x), T(t), T(var)).asnumpy()) == pytest.approx(nll.mean(), rel=1e-12)
    full = ops.gaussian_nll_loss(T(x), T(t), T(var[:, 0]), full=True, reduction="none").asnumpy()
    v0 = var[:, :1]
    np.testing.assert_allclose(full, 0.5 * (np.log(v0) + (x - t) ** 2 / v0) + 0.5 * np.log(2 * np.pi), rtol=1e-12)
    lab = np.array([1, -1, 1, -1])
    cos = (x * t).sum(1) / np.sqrt(((x * x).sum(1) + 1e-12) * ((t * t).sum(1) + 1e-12))
    want = np.where(lab == 1, 1 - cos, np.maximum(0, cos - 0.1))
    np.testing.assert_allclose(ops.cosine_embedding_loss(T(x), T(t), T(lab), 0.1, "none").asnumpy(), want,
                               rtol=1e-12)
    with pytest.raises(ValueError, match="huber_loss"):
        ops.huber_loss(T(x), T(t), reduction="avg")


def test_group_norm_matches_numpy():
    x = r.standard_normal((2, 6, 3, 2))
    w, b = r.standard_normal(6), r.standard_normal(6)
    g = x.reshape(2, 3, -1)
    want = ((g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + 1e-5)).reshape(x.shape)
    want = want * w[None, :, None, None] + b[None, :, None, None]
    np.testing.assert_allclose(ops.group_norm(T(x), 3, T(w), T(b)).asnumpy(), want, rtol=1e-10)
    with pytest.raises(ValueError, match="group_norm"):
        ops.group_norm(T(x), 4)


def test_channel_dropout_zeroes_whole_channels():
    ms.set_seed(3)
    x = np.ones((8, 16, 3, 3), np.float32)
    out = ops.dropout2d(T(x), 0.5).asnumpy()
    per_channel = out.reshape(8, 16, -1)
    assert np.all((per_channel == 0).all(2) | (per_channel == 2.0).all(2))  # a channel is all kept or all zero
    frac = (per_channel[:, :, 0] == 0).mean()
    assert 0.3 < frac < 0.7
    assert ops.dropout3d(T(np.ones((2, 3, 2, 2, 2), np.float32)), 0.5, False).asnumpy().min() == 1.0
    with pytest.raises(ShapeError, match="dropout1d"):
        ops.dropout1d(T(np.ones((2, 3, 4, 5), np.float32)))


def test_small_ops_and_in_place_methods():
    x = r.standard_normal((3, 4))
    np.testing.assert_allclose(ops.exp2(T(x)).asnumpy(), 2 ** x, rtol=1e-12)
    assert ops.eq(T(x), T(x)).asnumpy().all()
    np.testing.assert_allclose(ops.divide(T(x), 2.0, rounding_mode="floor").asnumpy(), np.floor(x / 2))
    np.testing.assert_allclose(ops.addn([T(x), T(x), T(x)]).asnumpy(), 3 * x)
    np.testing.assert_array_equal(ops.approximate_equal(T(x), T(x + 0.5), 0.6).asnumpy(), np.ones_like(x, bool))
    np.testing.assert_allclose(ops.fills(T(x), 2.5).asnumpy(), np.full_like(x, 2.5))
    norm = np.linalg.norm(x)
    np.testing.assert_allclose(ops.clip_by_norm(T(x), 1.0).asnumpy(), x / (norm + 1e-6), rtol=1e-10)
    y = r.standard_normal(5)
    gn = np.sqrt((x ** 2).sum() + (y ** 2).sum())
    cx, cy = ops.clip_by_global_norm((T(x), T(y)), 2.0)
    np.testing.assert_allclose(cx.asnumpy(), x * 2.0 / max(gn, 2.0), rtol=1e-12)
    np.testing.assert_allclose(cy.asnumpy(), y * 2.0 / max(gn, 2.0), rtol=1e-12)
    t = T(x.copy())
    assert t.add_(1.0, alpha=2.0) is t
    np.testing.assert_allclose(t.asnumpy(), x + 2.0)
    t.clamp_(0.0, 2.5)
    np.testing.assert_allclose(t.asnumpy(), np.clip(x + 2.0, 0.0, 2.5))
    t.copy_(T(y[:4]))
    np.testing.assert_allclose(t.asnumpy(), np.broadcast_to(y[:4], (3, 4)))
    idx, val = T(x).argmax_with_value(1)
    np.testing.assert_array_equal(idx.asnumpy(), x.argmax(1))
    np.testing.assert_allclose(val.asnumpy(), x.max(1))


def test_counting_and_index_ops():
    v = r.integers(0, 6, 20)
    np.testing.assert_array_equal(ops.bincount(T(v), minlength=8).asnumpy(), np.bincount(v, minlength=8))
    w = r.standard_normal(20)
    np.testing.assert_allclose(T(v).bincount(T(w)).asnumpy(), np.bincount(v, w), rtol=1e-12)
    x = r.standard_normal(50)
    np.testing.assert_array_equal(ops.bucketize(T(x), [-1.0, 0.0, 0.5]).asnumpy(),
                                  np.searchsorted([-1.0, 0.0, 0.5], x, side="left"))
    np.testing.assert_array_equal(ops.bucketize(T(x), [-1.0, 0.0, 0.5], right=True).asnumpy(),
                                  np.searchsorted([-1.0, 0.0, 0.5], x, side="right"))
    np.testing.assert_array_equal(ops.histc(T(x), 5, -1.0, 1.0).asnumpy(),
                                  np.histogram(x[(x >= -1) & (x <= 1)], 5, (-1, 1))[0])
    m = r.standard_normal((4, 3))
    add = r.standard_normal((4, 2))
    want = m.copy()
    np.add.at(want, (slice(None), [2, 2]), add)
    np.testing.assert_allclose(ops.index_add(T(m), T(np.array([2, 2], np.int32)), T(add), 1).asnumpy(), want)
    filled = ops.index_fill(T(m), 0, T(np.array([1, 3], np.int32)), -7.0).asnumpy()
    want = m.copy()
    want[[1, 3]] = -7.0
    np.testing.assert_allclose(filled, want)
    with pytest.raises(IndexError, match="index_add"):
        ops.index_add(T(m), T(np.array([5], np.int32)), T(np.ones((4, 1))), 1)
    g = ms.grad(lambda s: ops.index_add(T(m), T(np.array([0, 0], np.int32)), s, 1).sum())(T(add)).asnumpy()
    np.testing.assert_allclose(g, np.ones_like(add))


def test_windows_match_numpy():
    for n in (1, 2, 5, 8):
        np.testing.assert_allclose(ops.hann_window(n).asnumpy(), np.hanning(n + 1)[:n] if n > 1 else [1.0],
                                   atol=1e-7)
        np.testing.assert_allclose(ops.hann_window(n, False).asnumpy(), np.hanning(n), atol=1e-7)
        np.testing.assert_allclose(ops.hamming_window(n, False).asnumpy(), np.hamming(n), atol=1e-7)
        np.testing.assert_allclose(ops.bartlett_window(n, False).asnumpy(), np.bartlett(n), atol=1e-7)
        np.testing.assert_allclose(ops.blackman_window(n, False).asnumpy(), np.blackman(n), atol=1e-7)
    assert ops.hann_window(4, dtype=ms.float64).dtype == ms.float64
    np.testing.assert_allclose(ops.HammingWindow(False, 0.5, 0.5)(T(np.array(6))).asnumpy(), np.hanning(6),
                               atol=1e-7)
    with pytest.raises(ValueError, match="hann_window"):
        ops.hann_window(-1)


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", np.inf, -np.inf, 1, -1])
def test_cond_matches_numpy(p):
    a = r.standard_normal((2, 3, 3))
    np.testing.assert_allclose(ops.cond(T(a), p).asnumpy(), np.linalg.cond(a, p), rtol=1e-10)
