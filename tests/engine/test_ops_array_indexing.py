"""Indexing: `x[index]` and `x[index] = v` against NumPy, their gradients against finite
differences, gathers/scatters, selection, sorting and the errors each gives."""

import numpy as np
import pytest

import spore as ms
from spore import ops
from spore.errors import DTypeError, ShapeError
from spore.ops.indexing import IndexOutOfRangeError, index_shape, normalize_index

rng = np.random.default_rng(3)


def fd_grad(fn, x: np.ndarray, eps: float = 1e-6) -> tuple[np.ndarray, np.ndarray]:
    """(tape gradient, central-difference gradient) of sum(cot * fn(x)) w.r.t. float64 `x`."""
    out = fn(ms.Tensor(x)).asnumpy()
    cot = np.random.default_rng(0).standard_normal(out.shape)
    got = ms.grad(lambda t: (fn(t) * ms.Tensor(cot)).sum())(ms.Tensor(x)).asnumpy()
    num = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        hi = float(np.sum(cot * fn(ms.Tensor(x)).asnumpy()))
        x[i] = old - eps
        lo = float(np.sum(cot * fn(ms.Tensor(x)).asnumpy()))
        x[i] = old
        num[i] = (hi - lo) / (2 * eps)
    return got, num


A = np.arange(60, dtype=np.float64).reshape(3, 4, 5)
INDICES = [
    1, -1, (0, 2), (-1, -2, -3), slice(1, None), slice(None, None, -1), slice(3, 0, -2),
    (slice(None), slice(None, None, 2)),
    (Ellipsis, 1), (1, Ellipsis, slice(None, None, -2)), (None, 0), (slice(None), None, 2, None), (Ellipsis, None),
    np.array([2, 0, 2]), [0, 0, 1], (np.array([0, 2]), np.array([1, 3])), (slice(None), np.array([[0, 1], [3, 3]])),
    (np.array([0, 2]), slice(1, 3), np.array([4, 0])), (0, slice(None), np.array([1, 2])),
    (np.array([[0], [2]]), np.array([1, 3])), (slice(None), np.array([1, -1]), 0), A[:, :, 0] > 20,
    (slice(None), A[0] > 12), (slice(1, 3), A[0, :, 0] > 5), (Ellipsis, np.array([True, False, True, False, True])),
    (), Ellipsis, (1, 2, 3), (None, Ellipsis, None), np.array(1), (0, None, np.array([1, 2]), slice(None)),
]


@pytest.mark.parametrize("index", INDICES, ids=[str(i)[:40] for i in range(len(INDICES))])
def test_getitem_matches_numpy_values_shapes_and_static_shape_rule(index):
    x = ms.Tensor(A)
    want = A[index]
    got = x[index]
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.asnumpy(), want)
    assert index_shape("t", A.shape, normalize_index("t", A.shape, index)) == want.shape


@pytest.mark.parametrize("index", [1, (slice(None), slice(None, None, -2)), (Ellipsis, None, 1), np.array([2, 0, 2]),
                                   (np.array([0, 2, 0]), slice(1, 3), np.array([4, 0, 4])), A[:, :, 0] > 20,
                                   (ms.Tensor(np.array([1, 1])), 2), (0, slice(None), np.array([1, 2]))])
def test_getitem_gradient_matches_finite_differences(index):
    got, num = fd_grad(lambda t: t[index], rng.standard_normal((3, 4, 5)))
    np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-7)


def test_getitem_gradient_adds_over_repeated_indices():
    g = ms.grad(lambda t: t[[0, 0, 2, 0]].sum())(ms.Tensor(np.ones(3)))
    np.testing.assert_array_equal(g.asnumpy(), [3.0, 0.0, 1.0])


def test_getitem_second_order_gradient():
    x = ms.Tensor(np.array([1.0, 2.0, 3.0]))
    inner = ms.grad(lambda t: (t[[0, 2, 2]] * t[[0, 2, 2]] * t[[0, 2, 2]]).sum())
    gg = ms.grad(lambda t: inner(t).sum())(x)
    # d/dx of 3x^2 * count: 6x * count (counts 1, 0, 2)
    np.testing.assert_allclose(gg.asnumpy(), [6.0, 0.0, 36.0])


def test_getitem_with_tensor_indices_and_bool_tensor_mask():
    x = ms.Tensor(A)
    np.testing.assert_array_equal(x[ms.Tensor([2, 0])].asnumpy(), A[[2, 0]])
    mask = ms.Tensor(A[:, 0, 0] > 0)
    np.testing.assert_array_equal(x[mask].asnumpy(), A[A[:, 0, 0] > 0])
    np.testing.assert_array_equal(x[ms.Tensor(np.array(2, np.int32))].asnumpy(), A[2])


def test_getitem_errors_are_index_errors_naming_axis_and_size():
    x = ms.Tensor(A)
    with pytest.raises(IndexError, match=r"axis 1 of size 4.*index 4"):
        x[0, 4]
    with pytest.raises(IndexOutOfRangeError, match=r"index -7"):
        x[:, :, [1, -7]]
    with pytest.raises(IndexError, match="at most 3 indices"):
        x[0, 0, 0, 0]
    with pytest.raises(IndexError, match="boolean mask of shape"):
        x[np.array([True, False])]
    with pytest.raises(TypeError, match="valid indices"):
        x[1.5]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., ...]


def test_full_slices_give_a_new_tensor_that_later_writes_do_not_share():
    x = ms.Tensor(np.zeros(3))
    y = x[:]
    z = x[...]
    assert y is not x and z is not x
    y[0] = 1.0
    z[1] = 2.0
    assert x.tolist() == [0.0, 0.0, 0.0] and y.tolist() == [1.0, 0.0, 0.0] and z.tolist() == [0.0, 2.0, 0.0]


def test_iterating_a_tensor_yields_rows():
    rows = list(ms.Tensor(A))
    assert len(rows) == 3
    np.testing.assert_array_equal(rows[2].asnumpy(), A[2])


def test_getitem_index_attribute_is_static_and_hashable():
    idx1 = normalize_index("t", (3, 4), (np.array([1, 2]), slice(None, None, -1)))
    idx2 = normalize_index("t", (3, 4), ([1, 2], slice(None, None, -1)))
    assert idx1 == idx2 and hash(idx1) == hash(idx2)
    assert normalize_index("t", (3, 4), (Ellipsis, slice(None))) == ()  # full slices are dropped
    assert normalize_index("t", (3, 4), -1) == (("int", 2),)


# --- setitem -------------------------------------------------------------------------------------
@pytest.mark.parametrize("index,value", [
    (1, 7.0), ((slice(None), 0), np.array([1.0, 2.0, 3.0])), ((Ellipsis, slice(None, None, 2)), [[9.0], [8.0], [7.0]]),
    (np.array([2, 0]), np.ones((2, 4))), (A[:, :4, 0] > 20, -1.0), ((np.array([0, 1]), np.array([3, 2])), [5.0, 6.0]),
    ((None, 1), np.ones((1, 1, 4))),
])
def test_setitem_matches_numpy(index, value):
    a = A[:, :, 0].copy()
    x = ms.Tensor(a.copy())
    x[index] = value
    a[index] = value
    np.testing.assert_array_equal(x.asnumpy(), a)
    assert x.dtype is ms.float64


def test_setitem_casts_value_to_the_tensor_dtype_and_broadcasts_tensors():
    x = ms.Tensor(np.zeros((2, 3), np.int32))
    x[0] = ms.Tensor([1.7, 2.2, 3.9])
    x[1, 1:] = 5
    assert x.dtype is ms.int32
    np.testing.assert_array_equal(x.asnumpy(), [[1, 2, 3], [0, 5, 5]])


def test_setitem_does_not_touch_the_source_array_or_other_tensors():
    src = np.zeros(3, np.float32)
    x = ms.Tensor(src)
    y = x.view(1, 3)
    x[0] = 4.0
    assert src[0] == 0.0 and y.asnumpy()[0, 0] == 0.0 and x.asnumpy()[0] == 4.0


def test_setitem_gradients_match_finite_differences_for_input_and_value():
    idx = (np.array([2, 0]), slice(1, 3))

    def fx(t):
        y = t * 1.0
        y[idx] = ms.Tensor(np.array([[1.5], [-2.0]]))
        return y * y

    got, num = fd_grad(fx, rng.standard_normal((3, 4)))
    np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-7)
    assert np.all(got[[2, 2, 0, 0], [1, 2, 1, 2]] == 0)

    base = rng.standard_normal((3, 4))

    def fv(v):
        y = ms.Tensor(base) * 1.0
        y[idx] = v
        return y.exp()

    got, num = fd_grad(fv, rng.standard_normal((2, 1)))
    np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-7)


def test_setitem_keeps_the_gradient_path_through_the_node_that_made_the_old_value():
    x0 = rng.standard_normal(4)

    def f(x):
        y = x.exp()          # Exp's node now outputs the snapshot, not y
        y[0] = 5.0
        return (y * y).sum()

    g = ms.grad(f)(ms.Tensor(x0)).asnumpy()
    want = 2 * np.exp(2 * x0)
    want[0] = 0.0
    np.testing.assert_allclose(g, want, rtol=1e-12)


def test_setitem_on_a_tensor_computed_under_grad_then_read_again():
    x0 = rng.standard_normal((2, 3))

    def f(x):
        y = x * 2.0
        y[:, 1] = y[:, 0] * 3.0   # the value read on the right is taken before the write
        return (y * x).sum()

    got = ms.grad(f)(ms.Tensor(x0)).asnumpy()
    want = 4 * x0
    want[:, 1] = 6 * x0[:, 0]
    want[:, 0] = 4 * x0[:, 0] + 6 * x0[:, 1]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_setitem_with_the_tensor_itself_or_a_shifted_copy_as_value():
    x0 = rng.standard_normal(4)

    def f(x):
        y = x * 1.0
        y[1:] = y[:-1] * 2.0   # shift right, reading the old value
        y[...] = y             # a no-op write of itself
        return (y * ms.Tensor(np.arange(1.0, 5.0))).sum()

    y = ms.Tensor(x0.copy())
    y[1:] = y[:-1]
    np.testing.assert_array_equal(y.asnumpy(), np.r_[x0[0], x0[:-1]])
    got = ms.grad(f)(ms.Tensor(x0)).asnumpy()
    np.testing.assert_allclose(got, [1.0 + 2 * 2.0, 2 * 3.0, 2 * 4.0, 0.0], rtol=1e-12)


def test_setitem_on_a_parameter_updates_it_in_place():
    p = ms.Parameter(ms.Tensor(np.zeros((2, 3), np.float32)), name="w")
    ident = id(p)
    p[1, ::2] = ms.Tensor([1.0, 2.0])
    p[0] = 3
    assert id(p) == ident and isinstance(p, ms.Parameter) and p.name == "w"
    np.testing.assert_array_equal(p.asnumpy(), [[3, 3, 3], [1, 0, 2]])


def test_setitem_with_a_value_that_does_not_fit_names_the_shapes():
    x = ms.Tensor(np.zeros((3, 4)))
    with pytest.raises(ShapeError, match=r"SetItem.*indexed shape \(4,\).*\(3,\)"):
        x[0] = np.ones(3)
    with pytest.raises(ShapeError, match="SetItem"):
        x[0] = np.ones((2, 4))


def test_fill_and_zero_in_place():
    x = ms.Tensor(np.ones((2, 2), np.float32))
    x.fill_(2.5)
    np.testing.assert_array_equal(x.asnumpy(), np.full((2, 2), 2.5))
    x.zero_()
    np.testing.assert_array_equal(x.asnumpy(), 0)


# --- gathers and scatters --------------------------------------------------------------------------
def test_gather_matches_numpy_take_and_batch_dims():
    p = rng.standard_normal((2, 4, 3))
    ind = np.array([[3, 0], [1, 1]])
    np.testing.assert_array_equal(ops.gather(ms.Tensor(p), ms.Tensor(ind), 1).asnumpy(), np.take(p, ind, 1))
    out = ops.gather(ms.Tensor(p), ms.Tensor(ind), 1, batch_dims=1).asnumpy()
    want = np.stack([np.take(p[b], ind[b], 0) for b in range(2)])
    np.testing.assert_array_equal(out, want)
    assert ops.Gather()(ms.Tensor(p), ms.Tensor(ind % 3), -1).shape == (2, 4, 2, 2)


def test_gather_out_of_range_index_raises_naming_the_index():
    with pytest.raises(IndexError, match=r"Gather.*axis 0 of size 5.*index 5"):
        ops.gather(ms.Tensor(np.zeros((5, 2))), ms.Tensor([0, 5]), 0)


def test_gather_with_float_indices_is_a_dtype_error():
    with pytest.raises(DTypeError, match="integer indices"):
        ops.gather(ms.Tensor(np.zeros((5, 2))), ms.Tensor([0.0, 1.0]), 0)


def test_gather_elements_take_index_select_gather_nd():
    x = rng.standard_normal((3, 4))
    idx = np.array([[0, 3], [2, 2], [1, 0]])
    np.testing.assert_array_equal(ops.gather_elements(ms.Tensor(x), 1, ms.Tensor(idx)).asnumpy(),
                                  np.take_along_axis(x, idx, 1))
    np.testing.assert_array_equal(ops.gather_d(ms.Tensor(x), 1, ms.Tensor(idx)).asnumpy(),
                                  np.take_along_axis(x, idx, 1))
    np.testing.assert_array_equal(ms.Tensor(x).index_select(1, ms.Tensor([3, 1])).asnumpy(), x[:, [3, 1]])
    np.testing.assert_array_equal(ms.Tensor(x).take(ms.Tensor([0, 13, -1])).asnumpy(), np.take(x, [0, 13, -1],
                                                                                                   mode="clip"))
    nd = np.array([[0, 1], [2, 3]])
    np.testing.assert_array_equal(ops.gather_nd(ms.Tensor(x), ms.Tensor(nd)).asnumpy(), x[[0, 2], [1, 3]])


def test_scatters_match_numpy():
    x = rng.standard_normal((4, 3))
    ind = np.array([[1], [1], [3]])
    upd = rng.standard_normal((3, 3))
    want = x.copy()
    np.add.at(want, ind[:, 0], upd)
    np.testing.assert_allclose(ops.tensor_scatter_add(ms.Tensor(x), ms.Tensor(ind), ms.Tensor(upd)).asnumpy(), want)
    want = x.copy()
    want[[0, 2], [1, 0]] = [7.0, 8.0]
    got = ops.tensor_scatter_update(ms.Tensor(x), ms.Tensor([[0, 1], [2, 0]]), ms.Tensor([7.0, 8.0]))
    np.testing.assert_allclose(got.asnumpy(), want)
    sc = ops.scatter_nd(ms.Tensor([[1], [1]]), ms.Tensor(np.ones((2, 2), np.float32)), (3, 2))
    np.testing.assert_array_equal(sc.asnumpy(), [[0, 0], [2, 2], [0, 0]])
    el = ops.tensor_scatter_elements(ms.Tensor(np.zeros((2, 3))), ms.Tensor([[2], [0]]), ms.Tensor([[5.0], [6.0]]), 1)
    np.testing.assert_array_equal(el.asnumpy(), [[0, 0, 5], [6, 0, 0]])
    assert x.shape == (4, 3)  # inputs are never modified


def test_scatter_update_with_wrong_updates_shape_names_shapes():
    with pytest.raises(ShapeError, match=r"TensorScatterUpdate: expected updates of shape \(2, 3\)"):
        ops.tensor_scatter_update(ms.Tensor(np.zeros((4, 3))), ms.Tensor([[0], [1]]), ms.Tensor(np.zeros((2, 2))))


def test_scatter_gradients_match_finite_differences():
    upd = ms.Tensor(rng.standard_normal((2, 3)))
    got, num = fd_grad(lambda t: ops.tensor_scatter_update(t, ms.Tensor([[3], [0]]), upd) * t,
                       rng.standard_normal((4, 3)))
    np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-7)


# --- selection, one-hot, sorting --------------------------------------------------------------------
def test_where_select_masked_fill_masked_select():
    x = rng.standard_normal((2, 3))
    c = x > 0
    np.testing.assert_array_equal(ops.where(ms.Tensor(c), ms.Tensor(x), 0.0).asnumpy(), np.where(c, x, 0.0))
    np.testing.assert_array_equal(ops.select(ms.Tensor(c), 1, ms.Tensor(x)).asnumpy(), np.where(c, 1.0, x))
    np.testing.assert_array_equal(ms.Tensor(x).masked_fill(ms.Tensor(c[0]), -9.0).asnumpy(),
                                  np.where(c[0], -9.0, x))
    np.testing.assert_array_equal(ops.masked_select(ms.Tensor(x), ms.Tensor(c[:, :1])).asnumpy(),
                                  x[np.broadcast_to(c[:, :1], x.shape)])
    assert ops.where(ms.Tensor(c), ms.Tensor([1, 2, 3]), 0.5).dtype is ms.float32  # promoted


def test_where_gradient_flows_to_the_chosen_side():
    c = ms.Tensor(np.array([True, False, True]))
    y = ms.Tensor(np.zeros(3))
    gx, gy = ms.grad(lambda a, b: ops.where(c, a, b).sum(), (0, 1))(ms.Tensor(np.ones(3)), y)
    np.testing.assert_array_equal(gx.asnumpy(), [1, 0, 1])
    np.testing.assert_array_equal(gy.asnumpy(), [0, 1, 0])


def test_one_hot_dtype_axis_and_out_of_range():
    out = ops.one_hot(ms.Tensor([0, 2, 5]), 3, ms.Tensor(1.0, ms.float32), ms.Tensor(0.0, ms.float32))
    assert out.dtype is ms.float32
    np.testing.assert_array_equal(out.asnumpy(), [[1, 0, 0], [0, 0, 1], [0, 0, 0]])
    out = ops.one_hot(ms.Tensor([1, 0]), 2, axis=0)
    assert out.dtype is ms.int64
    np.testing.assert_array_equal(out.asnumpy(), [[0, 1], [1, 0]])
    assert ops.OneHot(axis=-1)(ms.Tensor([[1]]), 4, 5.0, -1.0).asnumpy().tolist() == [[[-1, 5, -1, -1]]]


def test_sort_argsort_topk_match_numpy():
    x = rng.standard_normal((3, 5)).astype(np.float32)
    v, i = ops.sort(ms.Tensor(x), axis=1, descending=True)
    np.testing.assert_array_equal(v.asnumpy(), -np.sort(-x, 1))
    np.testing.assert_array_equal(i.asnumpy(), np.argsort(-x, 1))
    assert i.dtype is ms.int32 and v.dtype is ms.float32
    np.testing.assert_array_equal(ms.Tensor(x).argsort(axis=0).asnumpy(), np.argsort(x, 0))
    v, i = ops.topk(ms.Tensor(x), 2)
    np.testing.assert_array_equal(v.asnumpy(), -np.sort(-x, 1)[:, :2])
    v, i = ms.Tensor(x).topk(1, dim=0, largest=False)
    np.testing.assert_array_equal(v.asnumpy(), x.min(0, keepdims=True))
    np.testing.assert_array_equal(i.asnumpy(), x.argmin(0)[None])
    with pytest.raises(ShapeError, match=r"TopK: expected k in \[0, 5\]"):
        ops.topk(ms.Tensor(x), 6)


def test_sort_values_are_differentiable():
    x = np.array([3.0, 1.0, 2.0])
    g = ms.grad(lambda t: (ops.sort(t)[0] * ms.Tensor([1.0, 10.0, 100.0])).sum())(ms.Tensor(x))
    np.testing.assert_array_equal(g.asnumpy(), [100.0, 1.0, 10.0])


def test_unique_and_nonzero():
    y, idx = ops.unique(ms.Tensor(np.array([1, 2, 5, 2], np.int32)))
    assert y.asnumpy().tolist() == [1, 2, 5] and idx.asnumpy().tolist() == [0, 1, 2, 1]
    assert y.dtype is ms.int32 and idx.dtype is ms.int32
    x = np.array([[0, 3], [4, 0]])
    nz = ops.nonzero(ms.Tensor(x))
    assert nz.dtype is ms.int64 and nz.asnumpy().tolist() == [[0, 1], [1, 0]]
    rows, cols = ops.nonzero(ms.Tensor(x), as_tuple=True)
    assert rows.asnumpy().tolist() == [0, 1] and cols.asnumpy().tolist() == [1, 0]
    assert ms.Tensor(x).argwhere().shape == (2, 2)


def test_shape_rules_run_on_abstract_values_as_graph_mode_and_the_lsp_give_them():
    from spore.ops.primitive import REGISTRY, Aval

    from .samples.array import SAMPLES

    for name, samples in SAMPLES.items():
        prim = REGISTRY[name]
        for s in samples:
            tensors = [ms.Tensor(np.asarray(a)) for a in s.inputs]
            avals = [Aval(t.shape, t.dtype) for t in tensors]
            got = prim.infer(*avals, **s.attrs)
            out = prim(*tensors, **s.attrs)
            got = got if isinstance(got, tuple) else (got,)
            out = out if isinstance(out, tuple) else (out,)
            for k, (g, o) in enumerate(zip(got, out)):
                dynamic = name in ("Unique", "NonZero") and k == 0  # data-dependent length
                want = tuple(-1 if dynamic and d == 0 else n for d, n in enumerate(o.shape))
                assert g.shape == want and g.dtype is o.dtype, name
