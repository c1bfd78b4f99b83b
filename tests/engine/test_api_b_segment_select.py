"""segment_select_extra against NumPy loops written here."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import spore as ms
from spore import ops

R = np.random.default_rng(6414)


def T(a, dt=None):
    return ms.Tensor(np.asarray(a, dt))


def close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got.asnumpy()), want, rtol=rtol, atol=atol)


def test_sorted_segments():
    x = R.standard_normal((6, 2))
    ids = np.array([0, 0, 1, 3, 3, 3], np.int32)  # segment 2 empty
    groups = {j: x[ids == j] for j in range(4)}
    for cls, red, empty in ((ops.SegmentSum, np.sum, 0.0), (ops.SegmentProd, np.prod, 1.0),
                            (ops.SegmentMean, np.mean, 0.0), (ops.SegmentMax, np.max, 0.0),
                            (ops.SegmentMin, np.min, 0.0)):
        want = np.stack([red(groups[j], 0) if len(groups[j]) else np.full(2, empty) for j in range(4)])
        close(cls()(T(x), T(ids)), want)
    with pytest.raises(ValueError, match="sorted"):
        ops.SegmentSum()(T(x), T(np.array([1, 0, 0, 0, 0, 0], np.int32)))
    idx = np.array([0, 3, 5, 5], np.int32)
    seg = np.array([0, 0, 2, 2], np.int32)
    want = np.stack([x[[0, 3]].mean(0), np.zeros(2), x[[5, 5]].mean(0)])
    close(ops.sparse_segment_mean(T(x), T(idx), T(seg)), want)


def test_kthvalue_renorm_nth():
    x = R.permutation(20).reshape(4, 5).astype(np.float64)
    v, i = T(x).kthvalue(2, 1)
    close(v, np.sort(x, 1)[:, 1])
    close(ms.Tensor(np.take_along_axis(x, i.asnumpy()[:, None], 1)[:, 0]), np.sort(x, 1)[:, 1])
    close(ops.NthElement()(T(x), 3), np.sort(x, -1)[:, 3])
    close(ops.NthElement(reverse=True)(T(x), 0), x.max(-1))
    w = R.standard_normal((3, 4)) * 3
    norms = np.linalg.norm(w, axis=1, keepdims=True)
    want = np.where(norms > 2.0, w * 2.0 / (norms + 1e-7), w)
    close(ops.renorm(T(w), 2, 0, 2.0), want)
    close(T(w).renorm(2, 0, 2.0), want)
    close(ops.Renorm(2, 0, 2.0)(T(w)), want)


def test_tensor_helpers_and_scatter_classes():
    a, b = R.standard_normal(4), R.standard_normal(4)
    close(T(a).where(T(a > 0), T(b)), np.where(a > 0, a, b))
    e = T(np.ones(2, np.float32)).new_empty((2, 3))
    assert e.shape == (2, 3) and e.dtype == ms.float32
    x = np.zeros((3, 3))
    idx = np.array([[0, 1, 2], [2, 0, 0]])
    upd = np.arange(6.0).reshape(2, 3)
    want = x.copy()
    for r in range(2):
        for c in range(3):
            want[r, idx[r, c]] += upd[r, c]
    close(ops.ScatterAddWithAxis(1)(T(x), T(idx), T(upd)), want)
    close(ops.ScatterNonAliasingAdd()(T(np.zeros(4)), T(np.array([[1], [1], [3]])), T(np.array([1.0, 2.0, 3.0]))),
          [0, 3, 0, 3])
    m = np.array([True, False, True, True])
    close(ops.MaskedScatter()(T(np.zeros(4)), T(m), T(np.array([5.0, 6.0, 7.0]))), [5, 0, 6, 7])
    out, pos = ops.ListDiff()(T(np.array([1, 2, 3, 4, 5, 6])), T(np.array([1, 3, 5])))
    close(out, [2, 4, 6])
    close(pos, [1, 3, 5])
    assert pos.dtype == ms.int32


def test_random_classes():
    ms.set_seed(3)
    t = ops.TruncatedNormal(seed=4)((20000,)).asnumpy()
    assert t.min() >= -2 and t.max() <= 2
    assert stats.kstest(t, stats.truncnorm(-2, 2).cdf).pvalue > 1e-3
    d = ops.multinomial_with_replacement(T(np.array([[0.2, 0.8]])), 5, 0, 4000, True).asnumpy()
    assert abs((d == 1).mean() - 0.8) < 0.03
    assert ops.MultinomialWithReplacement(3)(T(np.array([[1.0, 1.0, 1.0, 1.0]])), 1, 2).shape == (1, 3)
    ln = ops.LogNormalReverse(0.0, 0.5)(T(np.zeros(20000, np.float32))).asnumpy()
    assert abs(np.log(ln).std() - 0.5) < 0.02
    a = R.standard_normal((5, 3))
    bb = R.standard_normal((5, 2))
    close(ops.MatrixSolveLs()(T(a), T(bb), 0.0), np.linalg.lstsq(a, bb, rcond=None)[0])
