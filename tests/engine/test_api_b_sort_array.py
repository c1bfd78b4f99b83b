"""Numerics of sort_stats_ops, array_sequence_ops and their class forms (classes_sort_array),
against NumPy written independently here."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import ops
from spore.errors import ShapeError

R = np.random.default_rng(2414)


def T(a, dt=None):
    return ms.Tensor(np.asarray(a, dt))


def close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got), want, rtol=rtol,
                               atol=atol)


def test_median_lower_middle_and_indices():
    x = R.permutation(24).reshape(4, 6).astype(np.float64)
    v, i = ops.median(T(x), 1)
    want = np.sort(x, 1)[:, 2]  # 6 values: the lower middle is the 3rd
    close(v, want)
    close(np.take_along_axis(x, i.asnumpy()[:, None], 1)[:, 0], want)
    v0, _ = ops.median(T(x), 0, True)
    close(v0, np.sort(x, 0)[1:2])
    y = x.copy()
    y[0, 0] = np.nan
    assert np.isnan(ops.median(T(y), 1)[0].asnumpy()[0])
    nv, _ = ops.nanmedian(T(y), 1)
    close(nv[0], np.sort(y[0, 1:])[2])  # 5 values left: the middle one
    gv, gi = ops.Median(global_median=True)(T(x))
    close(gv, np.sort(x.ravel())[11])


def test_quantiles_match_numpy_linear():
    x = R.standard_normal((3, 7))
    close(ops.quantile(T(x), 0.3, 1), np.quantile(x, 0.3, 1))
    close(ops.quantile(T(x), T(np.array([0.1, 0.5, 0.9])), 0, True), np.quantile(x, [0.1, 0.5, 0.9], 0,
                                                                                  keepdims=True))
    close(ops.quantile(T(x), 0.75), np.quantile(x, 0.75))
    y = x.copy()
    y[1, 2] = np.nan
    close(ops.nanquantile(T(y), 0.4, 1), np.nanquantile(y, 0.4, 1))
    assert np.isnan(ops.quantile(T(y), 0.4, 1).asnumpy()[1])
    with pytest.raises(ValueError, match="quantile"):
        ops.quantile(T(x), 1.5)


def test_searchsorted_bounds():
    seq = np.sort(R.integers(0, 10, 12)).astype(np.float32)
    v = R.integers(-1, 11, (3, 4)).astype(np.float32)
    close(ops.searchsorted(T(seq), T(v)), np.searchsorted(seq, v, "left"))
    close(ops.searchsorted(T(seq), T(v), right=True), np.searchsorted(seq, v, "right"))
    assert ops.searchsorted(T(seq), T(v), out_int32=True).dtype == ms.int32
    close(T(seq).searchsorted(T(v), side="right"), np.searchsorted(seq, v, "right"))
    rows = np.sort(R.standard_normal((2, 5)), 1)
    vals = R.standard_normal((2, 3))
    want = np.stack([np.searchsorted(rows[k], vals[k]) for k in range(2)])
    close(ops.LowerBound()(T(rows), T(vals)), want)
    close(ops.UpperBound()(T(rows), T(vals)), want)  # continuous values: no ties
    unsorted = R.standard_normal(6)
    order = np.argsort(unsorted)
    close(ops.searchsorted(T(unsorted), T(vals[0]), sorter=T(order)), np.searchsorted(unsorted, vals[0],
                                                                                       sorter=order))


def test_trapz_and_norms():
    y = R.standard_normal((3, 6))
    xs = np.cumsum(R.uniform(0.1, 1.0, 6))
    close(ops.trapz(T(y), T(xs)), np.trapezoid(y, xs, axis=-1) if hasattr(np, "trapezoid") else np.trapz(y, xs))
    close(ops.trapz(T(y), dx=0.5, dim=0), (0.5 * (y[1:] + y[:-1]) * 0.5).sum(0))
    x = R.standard_normal((3, 4))
    for o in (2, 1, 3, float("inf"), -float("inf"), 0):
        close(ops.vector_norm(T(x), o, 1), np.linalg.norm(x, o, axis=1))
    close(ops.vector_norm(T(x)), np.linalg.norm(x.ravel()))
    close(ops.vector_norm(T(x), keepdims=True), np.linalg.norm(x.ravel()).reshape(1, 1))
    for o in ("fro", "nuc", 1, -1, 2, -2, float("inf")):
        close(ops.matrix_norm(T(x), o), np.linalg.norm(x, o), rtol=1e-4)
    close(ops.LpNorm(axis=1, p=2)(T(x)), np.linalg.norm(x, axis=1))
    close(ops.L2Normalize(axis=1)(T(x)), x / np.sqrt(np.maximum((x * x).sum(1, keepdims=True), 1e-4)))
    close(ops.L2Loss()(T(x)), (x * x).sum() / 2)


def test_reverse_sequence_and_scatters():
    x = R.standard_normal((3, 5, 2))
    lens = np.array([2, 5, 0], np.int64)
    want = x.copy()
    for b, n in enumerate(lens):
        want[b, :n] = x[b, :n][::-1]
    close(ops.reverse_sequence(T(x), T(lens), 1, 0), want)
    close(ops.ReverseSequence(seq_dim=0, batch_dim=1)(T(np.swapaxes(x, 0, 1)), T(lens)), np.swapaxes(want, 0, 1))
    close(ops.reverse(T(x), [0, 2]), x[::-1, :, ::-1])
    src = R.standard_normal((3, 2, 2))
    want = x.copy()
    want[:, 1:5:2] = src
    close(ops.slice_scatter(T(x), T(src), 1, 1, 5, 2), want)
    s2 = R.standard_normal((3, 2))
    want = x.copy()
    want[:, -1] = s2
    close(ops.select_scatter(T(x), T(s2), 1, -1), want)
    with pytest.raises(ShapeError, match="slice_scatter"):
        ops.slice_scatter(T(x), T(s2), 1, 0, 2)
    g = ms.grad(lambda a, b: ops.reduce_sum(ops.mul(ops.slice_scatter(a, b, 1, 1, 5, 2), 3.0)),
                grad_position=(0, 1))(T(x), T(src))
    m = np.full(x.shape, 3.0)
    m[:, 1:5:2] = 0
    close(g[0], m)
    close(g[1], np.full(src.shape, 3.0))


def test_array_helpers():
    lens = np.array([[1, 3], [0, 2]], np.int32)
    close(ops.sequence_mask(T(lens), 4), np.arange(4) < lens[..., None])
    close(ops.sequence_mask(T(lens)), np.arange(3) < lens[..., None])
    close(ops.repeat_elements(T(np.array([[1, 2], [3, 4]])), 2, 1), np.repeat([[1, 2], [3, 4]], 2, 1))
    close(ops.row_stack([T(np.ones(3)), T(np.zeros(3))]), np.vstack([np.ones(3), np.zeros(3)]))
    ints = np.array([0, 5, -3], np.int32)
    close(ops.invert(T(ints)), np.invert(ints))
    close(ops.invert(T(np.array([3, 250], np.uint8))), np.invert(np.array([3, 250], np.uint8)))
    close(ops.Invert()(T(np.array([True, False]))), [False, True])
    assert ops.is_tensor(T(1.0)) and not ops.is_tensor(1.0)
    assert ops.is_nonzero(T([2.0])) and not ops.is_nonzero(T(0))
    with pytest.raises(ValueError, match="is_nonzero"):
        ops.is_nonzero(T([1, 2]))
    t = ops.scalar_to_tensor(3, ms.int32)
    assert t.dtype == ms.int32 and t.shape == () and t.item() == 3
    assert ops.tuple_to_array((1.0, 2.0)).dtype == ms.float32
    assert ops.scalar_cast(2.7, ms.int64) == 2 and isinstance(ops.scalar_cast(2, ms.float32), float)
    close(ops.view_as(T(np.arange(6)), T(np.zeros((2, 3)))), np.arange(6).reshape(2, 3))


def test_class_forms():
    x, y = R.standard_normal((3, 4)), R.standard_normal((3, 4))
    close(ops.SquaredDifference()(T(x), T(y)), (x - y) ** 2)
    a, b = ops.SquareSumAll()(T(x), T(y))
    close(a, (x * x).sum())
    close(b, (y * y).sum())
    close(ops.MulNoNan()(T(np.array([np.inf, 2.0])), T(np.array([0.0, 3.0]))), [0.0, 6.0])
    close(ops.Rint()(T(np.array([0.5, 1.5, -2.5]))), [0.0, 2.0, -2.0])
    close(ops.Tril(1)(T(x)), np.tril(x, 1))
    close(ops.Triu(-1)(T(x)), np.triu(x, -1))
    close(ops.Trace()(T(x)), np.trace(x))
    s, m = ops.ReduceStd(axis=1)(T(x))
    close(s, x.std(1, ddof=1))
    close(m, x.mean(1))
    p = ops.Pack(1)([T(x), T(y)])
    close(p, np.stack([x, y], 1))
    parts = ops.Unpack(1)(p)
    close(parts[1], y)
    pieces = ops.SplitV([1, -1, 1], 1, 3)(T(x))
    assert [tuple(q.shape) for q in pieces] == [(3, 1), (3, 2), (3, 1)]
    close(ops.TensorShape()(T(x)), [3, 4])
    assert ops.InvertPermutation()((3, 4, 0, 2, 1)) == (2, 4, 3, 0, 1)
    close(ops.LinSpace()(T(np.float32(1)), T(np.float32(5)), 5), np.linspace(1, 5, 5))
    close(ops.LogSpace(steps=4, base=2)(T(np.float32(0)), T(np.float32(3))), 2.0 ** np.linspace(0, 3, 4))
    close(ops.NanToNum()(T(np.array([np.nan, np.inf, 1.0], np.float32))), [0.0, np.finfo(np.float32).max, 1.0])
    close(ops.SearchSorted(right=True)(T(np.array([1.0, 2, 2, 3])), T(np.array([2.0]))), [3])


def test_functional_transforms_from_ops():
    x = T(np.array([0.3, -1.2, 2.0]))
    v, g = ops.value_and_grad(lambda a: ops.reduce_sum(ops.sin(a)))(x)
    close(v, np.sin(x.asnumpy()).sum())
    close(g, np.cos(x.asnumpy()))
    out, fn = ops.vjp(ops.sin, x)
    close(fn(T(np.ones(3)))[0], np.cos(x.asnumpy()))
    _, tangent = ops.jvp(ops.sin, x, T(np.array([1.0, 2.0, 3.0])))
    close(tangent, np.cos(x.asnumpy()) * [1, 2, 3])
    close(ops.jacrev(ops.sin)(x), np.diag(np.cos(x.asnumpy())))
    close(ops.jacfwd(ops.sin)(x), np.diag(np.cos(x.asnumpy())))
    close(ops.vmap(lambda r: ops.reduce_sum(r))(T(np.ones((4, 3)))), np.full(4, 3.0))
