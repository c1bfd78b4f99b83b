"""Slice A's third batch (issue 14): block layouts (DepthToSpace, batch_to_space_nd), fill_diagonal,
geqrf, and class forms (HistogramFixedWidth, ConfusionMatrix, EmbeddingLookup, CheckNumerics,
CumulativeLogsumexp, DataFormat*, Bincount, IndexPut), against NumPy/SciPy and MindSpore's documented
examples."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import qr

import spore as ms
from spore import ops
from spore.errors import SporeError

r = np.random.default_rng(99)


def T(a):
    return ms.Tensor(np.asarray(a))


def test_depth_to_space_matches_the_dcr_formula():
    x = r.standard_normal((2, 12, 2, 3))
    b = 2
    want = x.reshape(2, b, b, 3, 2, 3).transpose(0, 3, 4, 1, 5, 2).reshape(2, 3, 4, 6)
    np.testing.assert_allclose(ops.DepthToSpace(b)(T(x)).asnumpy(), want)
    with pytest.raises(ValueError, match="DepthToSpace"):
        ops.DepthToSpace(2)(T(np.ones((1, 6, 2, 2))))


def test_batch_to_space_nd_inverts_space_to_batch():
    # build space_to_batch by hand, then check batch_to_space_nd undoes it (and crops)
    n, c, h, w, b1, b2 = 2, 3, 2, 3, 2, 2
    y = r.standard_normal((n, c, h * b1, w * b2))
    blocks = y.reshape(n, c, h, b1, w, b2).transpose(3, 5, 0, 1, 2, 4).reshape(b1 * b2 * n, c, h, w)
    np.testing.assert_allclose(ops.batch_to_space_nd(T(blocks), (b1, b2), [[0, 0], [0, 0]]).asnumpy(), y)
    np.testing.assert_allclose(ops.BatchToSpaceND((b1, b2), [[1, 0], [0, 2]])(T(blocks)).asnumpy(), y[:, :, 1:, :-2])
    # MindSpore's example: [[[[1]]], [[[2]]], [[[3]]], [[[4]]]] with block 2 -> [[[[1, 2], [3, 4]]]]
    ex = T(np.arange(1, 5, dtype=np.float32).reshape(4, 1, 1, 1))
    np.testing.assert_array_equal(ops.batch_to_space_nd(ex, (2, 2), [[0, 0], [0, 0]]).asnumpy(),
                                  [[[[1, 2], [3, 4]]]])


def test_fill_diagonal_matches_numpy():
    for shape, wrap in (((3, 3), False), ((7, 3), True), ((7, 3), False), ((2, 5), False), ((3, 3, 3), False)):
        x = r.standard_normal(shape)
        want = x.copy()
        np.fill_diagonal(want, 9.0, wrap=wrap)
        np.testing.assert_allclose(T(x).fill_diagonal(9.0, wrap).asnumpy(), want)
        np.testing.assert_allclose(ops.FillDiagonal(9.0, wrap)(T(x)).asnumpy(), want)
    t = T(np.zeros((2, 2)))
    t.fill_diagonal_(1.0)
    np.testing.assert_array_equal(t.asnumpy(), np.eye(2))


def test_geqrf_matches_lapack_and_rebuilds_the_matrix():
    a = r.standard_normal((4, 3))
    y, tau = ops.geqrf(T(a))
    (h, t), _ = qr(a, mode="raw")
    np.testing.assert_allclose(y.asnumpy(), h, rtol=1e-12)
    np.testing.assert_allclose(tau.asnumpy(), t, rtol=1e-12)
    q = np.eye(4)
    for i in range(3):
        v = np.zeros(4)
        v[i] = 1.0
        v[i + 1:] = h[i + 1:, i]
        q = q @ (np.eye(4) - t[i] * np.outer(v, v))
    np.testing.assert_allclose(q[:, :3] @ np.triu(h[:3]), a, atol=1e-12)
    y2, _ = T(a).geqrf()
    np.testing.assert_allclose(y2.asnumpy(), h, rtol=1e-12)


def test_histogram_fixed_width_and_confusion_matrix_follow_mindspore():
    got = ops.HistogramFixedWidth(5)(T([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0]), T([0.0, 5.0])).asnumpy()
    np.testing.assert_array_equal(got, [2, 1, 1, 0, 2])  # MindSpore's documented example
    assert got.dtype == np.int32
    lab, pred = r.integers(0, 4, 30), r.integers(0, 4, 30)
    want = np.zeros((4, 4), np.int64)
    np.add.at(want, (lab, pred), 1)
    np.testing.assert_array_equal(ops.ConfusionMatrix(4)(T(lab), T(pred)).asnumpy(), want)
    w = r.uniform(0, 1, 30)
    wantw = np.zeros((4, 4))
    np.add.at(wantw, (lab, pred), w)
    np.testing.assert_allclose(ops.ConfusionMatrix(4, "float64")(T(lab), T(pred), T(w)).asnumpy(), wantw)


def test_embedding_lookup_and_check_numerics():
    params = r.standard_normal((4, 2))
    out = ops.EmbeddingLookup()(T(params), T(np.array([[5, 6], [1, 9]])), 4).asnumpy()
    want = np.zeros((2, 2, 2))
    want[0, 0], want[0, 1] = params[1], params[2]
    np.testing.assert_allclose(out, want)
    x = T(np.array([1.0, 2.0]))
    assert ops.CheckNumerics()(x) is x
    with pytest.raises(SporeError, match="CheckNumerics"):
        ops.CheckNumerics()(T(np.array([1.0, np.inf])))


def test_cumulative_logsumexp_and_data_formats():
    x = r.standard_normal((3, 5))
    for excl, rev in ((False, False), (True, False), (False, True), (True, True)):
        y = x[:, ::-1] if rev else x
        c = np.logaddexp.accumulate(y, axis=1)
        if excl:
            c = np.concatenate([np.full((3, 1), -np.inf), c[:, :-1]], 1)
        want = c[:, ::-1] if rev else c
        np.testing.assert_allclose(ops.CumulativeLogsumexp(excl, rev)(T(x), 1).asnumpy(), want, rtol=1e-12)
    # MindSpore's documented examples
    np.testing.assert_array_equal(ops.DataFormatDimMap()(T(np.array([-4, -3, -2, -1, 0, 1, 2, 3]))).asnumpy(),
                                  [0, 3, 1, 2, 0, 3, 1, 2])
    np.testing.assert_array_equal(ops.DataFormatVecPermute()(T(np.array([1, 2, 3, 4], np.int32))).asnumpy(),
                                  [1, 4, 2, 3])


def test_bincount_index_put_cummax_classes():
    v = r.integers(0, 7, 40)
    w = r.standard_normal(40)
    keep = v < 5
    np.testing.assert_allclose(ops.Bincount()(T(v), T(np.array(5)), T(w)).asnumpy(),
                               np.bincount(v[keep], w[keep], minlength=5), rtol=1e-12)
    x = np.zeros((3, 2))
    out = ops.IndexPut(1)(T(x), T(np.array([1.0, 2.0])), (T(np.array([0, 0])),)).asnumpy()
    np.testing.assert_allclose(out, [[2.0, 4.0], [0.0, 0.0], [0.0, 0.0]])
    vals, idx = ops.Cummax(0)(T(np.array([1.0, 3.0, 2.0, 5.0])))
    np.testing.assert_array_equal(vals.asnumpy(), [1, 3, 3, 5])
    np.testing.assert_array_equal(idx.asnumpy(), [0, 1, 1, 3])
