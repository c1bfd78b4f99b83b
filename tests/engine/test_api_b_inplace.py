"""In-place Tensor methods, fills and small Tensor helpers of tensor_inplace_fill_ops, against NumPy."""

from __future__ import annotations

import math

import numpy as np
import pytest

import spore as ms
from spore import ops

R = np.random.default_rng(3414)


def T(a, dt=None):
    return ms.Tensor(np.asarray(a, dt))


def test_inplace_arithmetic_changes_the_tensor():
    a = R.uniform(0.5, 2.0, (3, 4)).astype(np.float32)
    for name, fn in (("mul_", lambda x: x * 2.5), ("log_", np.log), ("sigmoid_", lambda x: 1 / (1 + np.exp(-x))),
                     ("sign_", np.sign), ("tanh_", np.tanh)):
        t = T(a)
        out = getattr(t, name)(*([2.5] if name == "mul_" else []))
        np.testing.assert_allclose(t.asnumpy(), fn(a), rtol=1e-6)
        assert out is t
    t = T(a)
    t.sub_(T(np.ones(4, np.float32)), alpha=2)
    np.testing.assert_allclose(t.asnumpy(), a - 2, rtol=1e-6)
    t = T(a)
    t.remainder_(0.7)
    np.testing.assert_allclose(t.asnumpy(), np.mod(a, 0.7), rtol=1e-5, atol=1e-6)
    t = T(a)
    ops.tanh_(t)
    np.testing.assert_allclose(t.asnumpy(), np.tanh(a), rtol=1e-6)
    t = T(a)
    t.masked_fill_(T(a > 1), -1.0)
    np.testing.assert_allclose(t.asnumpy(), np.where(a > 1, -1.0, a))


def test_scatter_and_masked_scatter_and_put():
    t = T(np.zeros((3, 4), np.float32))
    idx = np.array([[2, 0, 1, 2]])
    t.scatter_(0, T(idx), T(np.full((1, 4), 5.0, np.float32)))
    want = np.zeros((3, 4))
    want[idx[0], np.arange(4)] = 5
    np.testing.assert_allclose(t.asnumpy(), want)
    x = R.standard_normal((2, 3))
    mask = np.array([[True, False, True], [False, True, False]])
    src = np.arange(6.0)
    want = x.copy()
    want[mask] = src[:3]
    np.testing.assert_allclose(T(x).masked_scatter(T(mask), T(src)).asnumpy(), want)
    y = T(x)
    y.masked_scatter_(T(mask), T(src))
    np.testing.assert_allclose(y.asnumpy(), want)
    p = T(np.zeros((2, 3)))
    ops.put_(p, T(np.array([0, -1, 0])), T(np.array([1.0, 2.0, 3.0])), accumulate=True)
    np.testing.assert_allclose(p.asnumpy(), [[4, 0, 0], [0, 0, 2]])
    p.put_(T(np.array([4])), T(np.array([9.0])))
    assert p.asnumpy()[1, 1] == 9


def test_fills():
    ms.set_seed(5)
    t = T(np.ones((200, 50), np.float32))
    ops.normal_(t, 2.0, 0.5)
    v = t.asnumpy()
    assert abs(v.mean() - 2.0) < 0.02 and abs(v.std() - 0.5) < 0.02
    ops.uniform_(t, -1.0, 3.0)
    v = t.asnumpy()
    assert v.min() >= -1 and v.max() < 3 and abs(v.mean() - 1.0) < 0.05
    g = ms.Generator().manual_seed(3)
    a = T(np.zeros(5, np.float32)).uniform_(generator=g).asnumpy()
    b = T(np.zeros(5, np.float32)).uniform_(generator=ms.Generator().manual_seed(3)).asnumpy()
    np.testing.assert_array_equal(a, b)
    r = T(np.zeros(1000, np.int32))
    ops.random_(r, 3, 8)
    assert set(np.unique(r.asnumpy())) == {3, 4, 5, 6, 7}
    z = T(np.ones(3))
    ops.zero_(z)
    assert (z.asnumpy() == 0).all()
    u = T(np.zeros((4000,), np.float32)).uniform(2.0, 4.0).asnumpy()
    assert u.min() >= 2 and u.max() < 4
    ln = T(np.zeros(20000, np.float32)).log_normal(0.0, 0.5).asnumpy()
    assert abs(np.log(ln).mean()) < 0.02 and abs(np.log(ln).std() - 0.5) < 0.02


def test_tensor_helpers():
    a, b = np.array([4, 6, 0, -3]), np.array([6, 4, 5, 7])
    np.testing.assert_array_equal(T(a).lcm(T(b)).asnumpy(), np.lcm(a, b))
    np.testing.assert_array_equal(ops.lcm(T(a), T(b)).asnumpy(), np.lcm(a, b))
    np.testing.assert_allclose(T(np.array([1.5, 2.0])).ldexp(T(np.array([2, -1]))).asnumpy(), [6.0, 1.0])
    m = R.standard_normal((2, 3, 4))
    np.testing.assert_allclose(T(m).mH.asnumpy(), np.swapaxes(m, -1, -2))
    t = T(np.zeros((2, 3, 4), np.float32))
    assert t.type() == str(ms.float32) and t.type(ms.int32).dtype == ms.int32
    assert t.stride() == (12, 4, 1) and t.stride(1) == 4 and t.storage_offset() == 0
    assert t.value() is t and t.pin_memory() is t and not t.is_pinned() and not t.is_shared()
    t.itemset(5, 7.0)
    t.itemset((1, 2, 3), 2.0)
    assert t.asnumpy().reshape(-1)[5] == 7 and t.asnumpy()[1, 2, 3] == 2
    assert t.to_() is t
    with pytest.raises(ValueError, match="CPU"):
        t.to_("Ascend")
    assert math.isclose(float(T(np.float32(1.0)).set_const_arg().asnumpy()), 1.0)
