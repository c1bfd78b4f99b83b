"""The composite ops of spore/ops/composite_extra.py against NumPy/SciPy, with gradients by finite
differences for the differentiable ones, and their argument errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial.distance import cdist as sp_cdist

import spore as ms
from spore import ops

r = np.random.default_rng(14)


def f(*shape):
    return r.standard_normal(shape)


A, B, V, W = f(3, 4), f(4, 5), f(4), f(3)
S = f(2, 3, 4)
CASES = [
    ("mm", (A, B), {}, A @ B),
    ("t", (A,), {}, A.T),
    ("tril", (A, 1), {}, np.tril(A, 1)),
    ("triu", (S, -1), {}, np.triu(S, -1)),
    ("trace", (A,), {}, np.trace(A)),
    ("diag", (W,), {}, np.diag(W)),
    ("outer", (W, V), {}, np.outer(W, V)),
    ("ger", (W, V), {}, np.outer(W, V)),
    ("inner", (A, B.T), {}, np.inner(A, B.T)),
    ("dot", (V, V), {}, V @ V),
    ("kron", (A[:2, :2], B[:2, :3]), {}, np.kron(A[:2, :2], B[:2, :3])),
    ("addmv", (W, A, V), {"beta": 0.5, "alpha": 2.0}, 0.5 * W + 2 * A @ V),
    ("addr", (A, W, V), {"alpha": -1.0}, A - np.outer(W, V)),
    ("baddbmm", (S[:, :, :2], S, np.swapaxes(S, 1, 2)[:, :, :2]), {"beta": 2.0},
     2 * S[:, :, :2] + S @ np.swapaxes(S, 1, 2)[:, :, :2]),
    ("addbmm", (A[:, :3], S[0:2, :, :], np.swapaxes(S, 1, 2)[:, :, :3]), {},
     A[:, :3] + (S @ np.swapaxes(S, 1, 2)[:, :, :3]).sum(0)),
    ("deg2rad", (A * 90,), {}, np.deg2rad(A * 90)),
    ("rad2deg", (A,), {}, np.rad2deg(A)),
    ("hypot", (A, A[::-1] * 3), {}, np.hypot(A, A[::-1] * 3)),
    ("logaddexp", (A * 30, A[::-1]), {}, np.logaddexp(A * 30, A[::-1])),
    ("logaddexp2", (A, A[::-1]), {}, np.logaddexp2(A, A[::-1])),
    ("float_power", (np.abs(A) + 0.1, A), {}, np.float_power(np.abs(A) + 0.1, A)),
    ("fmod", (A * 5, A[::-1] + np.sign(A[::-1])), {}, np.fmod(A * 5, A[::-1] + np.sign(A[::-1]))),
    ("frac", (A * 4,), {}, np.modf(A * 4)[0]),
    ("sgn", (A,), {}, np.sign(A)),
    ("signbit", (np.array([-1.0, -0.0, 0.0, 2.0]),), {}, np.signbit(np.array([-1.0, -0.0, 0.0, 2.0]))),
    ("copysign", (A, np.array([-0.0, 1.0, -2.0, 0.0])), {}, np.copysign(A, np.array([-0.0, 1.0, -2.0, 0.0]))),
    ("heaviside", (np.array([-2.0, 0.0, 3.0]), np.array([0.5])), {}, np.heaviside(np.array([-2.0, 0.0, 3.0]), 0.5)),
    ("xdivy", (np.array([0.0, 2.0, 0.0]), np.array([0.0, 4.0, 3.0])), {}, np.array([0.0, 0.5, 0.0])),
    ("ldexp", (A, np.full((3, 4), 3)), {}, np.ldexp(A, 3)),
    ("logit", (np.array([0.0, 0.25, 0.9]),), {"eps": 0.05},
     np.log(np.clip([0.0, 0.25, 0.9], 0.05, 0.95) / (1 - np.clip([0.0, 0.25, 0.9], 0.05, 0.95)))),
    ("nansum", (np.array([[1.0, np.nan], [2.0, 3.0]]), 1), {}, np.nansum(np.array([[1.0, np.nan], [2.0, 3.0]]), 1)),
    ("nanmean", (np.array([[1.0, np.nan], [2.0, 3.0]]),), {}, np.nanmean(np.array([[1.0, np.nan], [2.0, 3.0]]))),
    ("cumprod", (A, 1), {}, np.cumprod(A, 1)),
    ("logcumsumexp", (A * 20, 0), {}, np.log(np.cumsum(np.exp(A * 20 - (A * 20).max(0)), 0)) + (A * 20).max(0)),
    ("diff", (A, 2, 1), {}, np.diff(A, 2, 1)),
    ("diff", (A, 1, 0, A[:1], A[:2]), {}, np.diff(A, 1, 0, prepend=A[:1], append=A[:2])),
    ("rot90", (S, 1, (1, 2)), {}, np.rot90(S, 1, (1, 2))),
    ("rot90", (A, 3, (0, 1)), {}, np.rot90(A, 3, (0, 1))),
    ("rot90", (A, -2, (0, 1)), {}, np.rot90(A, -2, (0, 1))),
    ("cosine_similarity", (A, A[::-1]), {}, (A * A[::-1]).sum(1) / (np.linalg.norm(A, axis=1)
                                                                   * np.linalg.norm(A[::-1], axis=1))),
]


@pytest.mark.parametrize("name,args,kw,want", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_matches_numpy(name, args, kw, want):
    tensors = [ms.Tensor(a) if isinstance(a, np.ndarray) else a for a in args]
    got = getattr(ops, name)(*tensors, **kw)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-10, atol=1e-12)
    method = getattr(ms.Tensor, name, None)
    if method is not None:  # the Tensor method takes the same call here
        np.testing.assert_allclose(method(*tensors, **kw).asnumpy(), want, rtol=1e-10, atol=1e-12)


DIFFERENTIABLE = ["mm", "tril", "trace", "diag", "outer", "inner", "kron", "addmv", "addr", "hypot", "logaddexp",
                  "float_power", "cumprod", "logcumsumexp", "diff", "rot90", "cosine_similarity", "logit"]


@pytest.mark.parametrize("case", [c for c in CASES if c[0] in DIFFERENTIABLE], ids=lambda c: c[0])
def test_gradients_match_finite_differences(case):
    name, args, kw, _ = case
    fn = getattr(ops, name)
    x0 = np.asarray(args[0], np.float64)
    rest = [ms.Tensor(a) if isinstance(a, np.ndarray) else a for a in args[1:]]
    wts = r.standard_normal(np.shape(fn(ms.Tensor(x0), *rest, **kw).asnumpy()))

    def loss(v):
        return (fn(v, *rest, **kw) * ms.Tensor(wts)).sum()

    g = ms.grad(loss)(ms.Tensor(x0)).asnumpy()
    num = np.zeros_like(x0)
    eps = 1e-6
    for idx in np.ndindex(x0.shape):
        d = np.zeros_like(x0)
        d[idx] = eps
        num[idx] = (float(loss(ms.Tensor(x0 + d)).asnumpy()) - float(loss(ms.Tensor(x0 - d)).asnumpy())) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-7)


def test_distances_splits_and_stacks():
    x1, x2 = f(2, 3, 4), f(2, 5, 4)
    for p in (1.0, 2.0, 3.0, math.inf):
        want = np.stack([sp_cdist(a, b, "minkowski", p=p) if not math.isinf(p) else sp_cdist(a, b, "chebyshev")
                         for a, b in zip(x1, x2)])
        np.testing.assert_allclose(ops.cdist(ms.Tensor(x1), ms.Tensor(x2), p).asnumpy(), want, rtol=1e-10)
    m = f(4, 6, 2)
    assert [p.shape for p in ops.hsplit(ms.Tensor(m), 3)] == [(4, 2, 2)] * 3
    assert [p.shape for p in ops.vsplit(ms.Tensor(m), (1,))] == [(1, 6, 2), (3, 6, 2)]
    assert [p.shape for p in ops.dsplit(ms.Tensor(m), 2)] == [(4, 6, 1)] * 2
    np.testing.assert_array_equal(ops.column_stack([ms.Tensor(W), ms.Tensor(W)]).asnumpy(), np.column_stack([W, W]))
    np.testing.assert_array_equal(ops.dstack([ms.Tensor(A), ms.Tensor(A)]).asnumpy(), np.dstack([A, A]))
    assert ops.atleast_3d(ms.Tensor(W)).shape == np.atleast_3d(W).shape
    assert [t.shape for t in ops.atleast_2d([ms.Tensor(1.0), ms.Tensor(W)])] == [(1, 1), (1, 3)]
    lo, hi = ops.aminmax(ms.Tensor(A), axis=1)
    np.testing.assert_array_equal(lo.asnumpy(), A.min(1))
    np.testing.assert_array_equal(hi.asnumpy(), A.max(1))


@pytest.mark.parametrize("call,err", [
    (lambda: ops.mm(ms.Tensor(S), ms.Tensor(S)), ms.ShapeError),
    (lambda: ops.t(ms.Tensor(S)), ms.ShapeError),
    (lambda: ops.tril(ms.Tensor(V)), ms.ShapeError),
    (lambda: ops.dot(ms.Tensor(V), ms.Tensor(W)), ms.ShapeError),
    (lambda: ops.rot90(ms.Tensor(A), 1, (0, 0)), ValueError),
    (lambda: ops.vsplit(ms.Tensor(V), 2), ms.ShapeError),
    (lambda: ops.cdist(ms.Tensor(A), ms.Tensor(S)), ms.ShapeError),
    (lambda: ops.positive(ms.Tensor(np.array([True]))), ms.DTypeError),
])
def test_bad_arguments_are_refused(call, err):
    with pytest.raises(err):
        call()


def test_tensor_trace_is_numpys_trace():
    np.testing.assert_allclose(ms.Tensor(S).trace(1, 1, 2).asnumpy(), np.trace(S, 1, 1, 2), rtol=1e-12)
    np.testing.assert_allclose(ms.Tensor(S).trace().asnumpy(), np.trace(S), rtol=1e-12)
    assert ms.Tensor(A).float_power(2).dtype == ms.float64


def test_queries_conversions_and_nan_handling():
    x = np.array([[1.0, np.nan], [np.inf, -np.inf]])
    t = ms.Tensor(x)
    np.testing.assert_array_equal(ops.nan_to_num(t).asnumpy(), np.nan_to_num(x))
    np.testing.assert_array_equal(t.nan_to_num(0.5, 7.0, -7.0).asnumpy(),
                                  np.nan_to_num(x, nan=0.5, posinf=7, neginf=-7))
    np.testing.assert_array_equal(ops.isposinf(t).asnumpy(), np.isposinf(x))
    np.testing.assert_array_equal(t.isneginf().asnumpy(), np.isneginf(x))
    assert ops.isreal(t).asnumpy().all() and not ops.is_complex(t) and ops.is_floating_point(t)
    assert not ms.Tensor(np.array([1, 2])).is_floating_point()
    c = np.array([[0, 1, 2], [3, 0, 0]])
    assert int(ops.count_nonzero(ms.Tensor(c)).asnumpy()) == 3
    np.testing.assert_array_equal(ops.count_nonzero(ms.Tensor(c), 0).asnumpy(), np.count_nonzero(c, 0))
    assert ops.count_nonzero(ms.Tensor(c)).dtype == ms.int32
    assert ops.type_as(ms.Tensor(c), t).dtype == ms.float64
    np.testing.assert_array_equal(ops.msort(ms.Tensor(A)).asnumpy(), np.sort(A, 0))
    v, i = ops.top_k(ms.Tensor(A), 2)
    np.testing.assert_array_equal(v.asnumpy(), -np.sort(-A, 1)[:, :2])
    assert ms.Tensor(A).top_k(1)[1].asnumpy().ravel().tolist() == A.argmax(1).tolist()


def test_tensor_only_methods():
    x = ms.Tensor(S)
    assert x.reshape_as(ms.Tensor(np.zeros((4, 6)))).shape == (4, 6) and x.ndimension() == 3
    assert x.is_signed() and ms.Tensor(np.array([1], np.int8)).is_signed()
    assert not ms.Tensor(np.array([1], np.uint8)).is_signed()
    strided = ms.Tensor.from_numpy(np.arange(12.0).reshape(3, 4)).T
    assert ms.Tensor(A).is_contiguous() and strided.contiguous().is_contiguous()
    np.testing.assert_array_equal(strided.contiguous().asnumpy(), np.arange(12.0).reshape(3, 4).T)
    assert x.byte().dtype == ms.uint8 and x.short().dtype == ms.int16 and x.bfloat16().dtype == ms.bfloat16
    np.testing.assert_allclose(x.ptp().asnumpy(), np.ptp(S))
    np.testing.assert_allclose(x.ptp(1, True).asnumpy(), np.ptp(S, 1, keepdims=True))
    np.testing.assert_allclose(x.sum_to_size(3, 1).asnumpy(), S.sum(0).sum(1, keepdims=True))
    np.testing.assert_allclose(x.sum_to_size((1, 3, 4)).asnumpy(), S.sum(0, keepdims=True))
    with pytest.raises(ms.ShapeError, match="sum_to_size"):
        x.sum_to_size(2, 2)
    np.testing.assert_allclose(x.bmm(ms.Tensor(np.swapaxes(S, 1, 2))).asnumpy(), S @ np.swapaxes(S, 1, 2))
    np.testing.assert_allclose(ms.Tensor(A[:, :3]).addmm(ms.Tensor(A), ms.Tensor(B[:, :3]), alpha=2.0).asnumpy(),
                               A[:, :3] + 2 * A @ B[:, :3])
    np.testing.assert_array_equal(ms.Tensor(A).cummax(1)[0].asnumpy(), np.maximum.accumulate(A, 1))
    np.testing.assert_array_equal(ms.Tensor(A).cummin(0)[0].asnumpy(), np.minimum.accumulate(A, 0))
