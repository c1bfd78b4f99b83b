"""The math ops added for issue 14 against NumPy/SciPy: inverse trig and hyperbolic functions,
erfc, cummax/cummin (values, indices and gradients) and addmm."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import erfc

import spore as ms
from spore import ops


def rng(seed=0):
    return np.random.default_rng(seed)


@pytest.mark.parametrize("name,alias,ref,lo,hi", [
    ("acos", "arccos", np.arccos, -0.95, 0.95), ("asin", "arcsin", np.arcsin, -0.95, 0.95),
    ("acosh", "arccosh", np.arccosh, 1.05, 4.0), ("asinh", "arcsinh", np.arcsinh, -4.0, 4.0),
    ("atanh", "arctanh", np.arctanh, -0.95, 0.95),
])
def test_inverse_functions_match_numpy_with_gradients(name, alias, ref, lo, hi):
    x = rng(1).uniform(lo, hi, (3, 4))
    for fn in (getattr(ops, name), getattr(ops, alias), getattr(ms.Tensor, name), getattr(ms.Tensor, alias)):
        np.testing.assert_allclose(fn(ms.Tensor(x)).asnumpy(), ref(x), rtol=1e-12)
    eps = 1e-6
    num = (ref(x + eps) - ref(x - eps)) / (2 * eps)
    np.testing.assert_allclose(ms.grad(lambda v: getattr(ops, name)(v).sum())(ms.Tensor(x)).asnumpy(), num, rtol=1e-6)
    assert getattr(ops, name)(ms.Tensor(np.array([1, 2], np.int32))).dtype == ms.float32  # integers in float32


def test_class_forms_and_erfc():
    x = rng(2).standard_normal(5) * 3
    np.testing.assert_allclose(ops.ACos()(ms.Tensor(np.clip(x, -1, 1))).asnumpy(), np.arccos(np.clip(x, -1, 1)))
    np.testing.assert_allclose(ops.erfc(ms.Tensor(x)).asnumpy(), erfc(x), rtol=1e-12)
    np.testing.assert_allclose(ops.Erfc()(ms.Tensor(np.array([6.0]))).asnumpy(), erfc(6.0), rtol=1e-10)  # the tail
    assert np.isnan(ops.acos(ms.Tensor(np.array([1.5]))).asnumpy()[0])


def np_cum(x, axis, better):
    xs = np.moveaxis(x, axis, 0)
    vals, idx = np.empty_like(xs), np.zeros(xs.shape, np.int64)
    for i in range(xs.shape[0]):
        if i == 0:
            vals[0] = xs[0]
            continue
        take = better(xs[i], vals[i - 1]) | (xs[i] == vals[i - 1])
        vals[i] = np.where(take, xs[i], vals[i - 1])
        idx[i] = np.where(take, i, idx[i - 1])
    return np.moveaxis(vals, 0, axis), np.moveaxis(idx, 0, axis)


@pytest.mark.parametrize("fn,better,acc", [(ops.cummax, np.greater, np.maximum), (ops.cummin, np.less, np.minimum)])
def test_cummax_cummin_values_indices_and_gradient(fn, better, acc):
    x = rng(3).integers(-3, 4, (3, 6)).astype(np.float64)  # ties on purpose: the latest index wins
    v, i = fn(ms.Tensor(x), 1)
    np.testing.assert_array_equal(v.asnumpy(), acc.accumulate(x, axis=1))
    want_v, want_i = np_cum(x, 1, better)
    np.testing.assert_array_equal(i.asnumpy(), want_i)
    assert i.dtype == ms.int64
    v0, i0 = fn(ms.Tensor(x), 0)
    np.testing.assert_array_equal(i0.asnumpy(), np_cum(x, 0, better)[1])
    d = rng(4).permutation(18).reshape(3, 6).astype(np.float64)
    w = rng(5).standard_normal((3, 6))
    g = ms.grad(lambda t: (fn(t, 1)[0] * ms.Tensor(w)).sum())(ms.Tensor(d)).asnumpy()
    idx = np_cum(d, 1, better)[1]
    want = np.zeros_like(d)
    for r in range(3):
        np.add.at(want[r], idx[r], w[r])
    np.testing.assert_allclose(g, want)


def test_cummax_keeps_a_nan_and_refuses_bad_input():
    v, i = ops.cummax(ms.Tensor(np.array([1.0, np.nan, 3.0])), 0)
    assert np.isnan(v.asnumpy()[1:]).all() and i.asnumpy().tolist() == [0, 1, 1]
    with pytest.raises(ms.ShapeError):
        ops.cummax(ms.Tensor(np.array(1.0)), 0)
    with pytest.raises(ValueError):
        ops.cummin(ms.Tensor(np.ones((2, 2))), 2)


def test_addmm_matches_numpy():
    a, m1, m2 = rng(6).standard_normal((2, 4)), rng(7).standard_normal((2, 3)), rng(8).standard_normal((3, 4))
    np.testing.assert_allclose(ops.addmm(ms.Tensor(a), ms.Tensor(m1), ms.Tensor(m2)).asnumpy(), a + m1 @ m2)
    np.testing.assert_allclose(ops.addmm(ms.Tensor(a[0]), ms.Tensor(m1), ms.Tensor(m2), beta=0.5, alpha=-2).asnumpy(),
                               0.5 * a[0] - 2 * m1 @ m2)
    g = ms.grad(lambda x, y: ops.addmm(ms.Tensor(a), x, y, alpha=3).sum(), grad_position=(0, 1))(
        ms.Tensor(m1), ms.Tensor(m2))
    np.testing.assert_allclose(g[0].asnumpy(), 3 * np.ones((2, 4)) @ m2.T)
    np.testing.assert_allclose(g[1].asnumpy(), 3 * m1.T @ np.ones((2, 4)))
