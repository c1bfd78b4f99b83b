"""Movement and creation ops against NumPy (values, shapes, dtypes), gradients of the composite
wrappers against finite differences, class forms, Tensor methods, and the errors each gives."""

import numpy as np
import pytest

import spore as ms
from spore import ops
from spore.errors import DTypeError, ShapeError

rng = np.random.default_rng(11)


def fd_check(fn, x: np.ndarray, eps: float = 1e-6) -> None:
    """Assert the tape gradient of sum(cot * fn(x)) matches central differences."""
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
    np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-7)


X = rng.standard_normal((2, 3, 4))


def T(a=X):
    return ms.Tensor(a)


# --- transposes and re-shapings ----------------------------------------------------------------------
def test_transpose_family_matches_numpy():
    np.testing.assert_array_equal(ops.transpose(T(), (2, 0, 1)).asnumpy(), X.transpose(2, 0, 1))
    np.testing.assert_array_equal(ops.transpose(T(), (-1, 0, 1)).asnumpy(), X.transpose(2, 0, 1))
    np.testing.assert_array_equal(ops.permute(T(), (1, 0, 2)).asnumpy(), X.transpose(1, 0, 2))
    np.testing.assert_array_equal(T().permute(1, 0, 2).asnumpy(), X.transpose(1, 0, 2))
    np.testing.assert_array_equal(T().transpose().asnumpy(), X.T)
    np.testing.assert_array_equal(T().transpose(0, 2, 1).asnumpy(), X.transpose(0, 2, 1))
    np.testing.assert_array_equal(T().T.asnumpy(), X.T)
    np.testing.assert_array_equal(T().mT.asnumpy(), np.swapaxes(X, -1, -2))
    np.testing.assert_array_equal(ops.swapaxes(T(), 0, 2).asnumpy(), np.swapaxes(X, 0, 2))
    np.testing.assert_array_equal(ops.swapdims(T(), 0, 1).asnumpy(), np.swapaxes(X, 0, 1))
    np.testing.assert_array_equal(ops.moveaxis(T(), 0, -1).asnumpy(), np.moveaxis(X, 0, -1))
    np.testing.assert_array_equal(ops.movedim(T(), (0, 1), (2, 0)).asnumpy(), np.moveaxis(X, (0, 1), (2, 0)))
    x = T()
    assert ops.transpose(x, (0, 1, 2)) is x  # identity permutation is free


def test_transpose_with_a_bad_permutation_names_op_and_shape():
    with pytest.raises(ShapeError, match=r"Transpose: expected axis in \[-3, 3\), got axis=3 for a 3-d input"):
        ops.transpose(T(), (0, 1, 3))
    with pytest.raises(ShapeError, match=r"Transpose: expected a permutation of \(0..2\) for input shape \(2, 3, 4\)"):
        ops.transpose(T(), (0, 1, 1))


def test_reshapes_match_numpy():
    assert ops.squeeze(ms.Tensor(np.zeros((1, 3, 1)))).shape == (3,)
    assert ops.squeeze(ms.Tensor(np.zeros((1, 3, 1))), 2).shape == (1, 3)
    assert ops.squeeze(ms.Tensor(np.zeros((1, 3, 1))), (0, -1)).shape == (3,)
    assert ops.expand_dims(T(), -1).shape == (2, 3, 4, 1)
    assert ops.unsqueeze(T(), 0).shape == (1, 2, 3, 4)
    assert ops.flatten(T()).shape == (2, 12)
    assert ops.flatten(T(), start_dim=0, end_dim=1).shape == (6, 4)
    assert T().flatten().shape == (24,)  # the method flattens from 0
    assert ops.flatten(ms.Tensor(3.0)).shape == (1,)
    np.testing.assert_array_equal(ops.flatten(T(), "F").asnumpy(), X.T.reshape(4, 6))
    np.testing.assert_array_equal(ops.ravel(T()).asnumpy(), X.ravel())
    np.testing.assert_array_equal(T().view(6, -1).asnumpy(), X.reshape(6, 4))
    np.testing.assert_array_equal(T().view((4, 6)).asnumpy(), X.reshape(4, 6))
    assert T().view_as(ms.Tensor(np.zeros((24, 1)))).shape == (24, 1)
    np.testing.assert_array_equal(ms.Tensor([1, 2, 3]).resize(2, 4).asnumpy(), np.resize([1, 2, 3], (2, 4)))


def test_squeeze_of_a_non_unit_axis_and_bad_reshape_name_the_shapes():
    with pytest.raises(ShapeError, match=r"Squeeze: expected size 1 on axis 1, got shape \(2, 3, 4\)"):
        ops.squeeze(T(), 1)
    with pytest.raises(ShapeError, match=r"Reshape: expected a shape with 24 elements.*\(5, 5\)"):
        ops.reshape(T(), (5, 5))
    with pytest.raises(ValueError, match="start_dim"):
        ops.flatten(T(), start_dim=2, end_dim=1)


# --- joining and splitting --------------------------------------------------------------------------
def test_concat_stack_and_friends_match_numpy():
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((1, 3))
    np.testing.assert_array_equal(ops.concat([T(a), T(b)]).asnumpy(), np.concatenate([a, b]))
    np.testing.assert_array_equal(ops.cat((T(a), T(a)), axis=-1).asnumpy(), np.concatenate([a, a], -1))
    np.testing.assert_array_equal(ops.stack([T(a), T(a)], 2).asnumpy(), np.stack([a, a], 2))
    np.testing.assert_array_equal(ops.hstack([T(a), T(a)]).asnumpy(), np.hstack([a, a]))
    np.testing.assert_array_equal(ops.vstack([ms.Tensor([1, 2]), ms.Tensor([3, 4])]).asnumpy(), [[1, 2], [3, 4]])
    mixed = ops.concat([ms.Tensor([1, 2]), ms.Tensor([0.5])])
    assert mixed.dtype is ms.float32 and mixed.asnumpy().tolist() == [1.0, 2.0, 0.5]


def test_concat_of_mismatched_shapes_names_op_and_shapes():
    with pytest.raises(ShapeError, match=r"Concat: expected shapes equal except on axis 0 \(tensor 0 has \(2, 3\)\), "
                                         r"got tensor 1 of shape \(2, 4\)"):
        ops.concat([ms.Tensor(np.zeros((2, 3))), ms.Tensor(np.zeros((2, 4)))])
    with pytest.raises(ShapeError, match=r"Stack: expected tensors of one shape"):
        ops.stack([ms.Tensor(np.zeros((2, 3))), ms.Tensor(np.zeros((3, 2)))])
    from spore.ops.shape_ops import Concat

    with pytest.raises(DTypeError, match=r"Concat: expected tensors of one dtype \(tensor 0 is Float32\), "
                                         r"got tensor 1 of Int64"):
        Concat(ms.Tensor([1.0]), ms.Tensor([1]), axis=0)


def test_split_chunk_tensor_split_unstack_match_numpy():
    x = np.arange(20.0).reshape(10, 2)
    parts = ops.split(ms.Tensor(x), 3)
    assert [p.shape[0] for p in parts] == [3, 3, 3, 1]
    np.testing.assert_array_equal(parts[3].asnumpy(), x[9:])
    parts = ms.Tensor(x).split([2, 8], axis=0)
    np.testing.assert_array_equal(parts[1].asnumpy(), x[2:])
    assert [p.shape[0] for p in ops.chunk(ms.Tensor(x), 4)] == [3, 3, 3, 1]
    assert [p.shape[0] for p in ops.chunk(ms.Tensor(x), 3)] == [4, 4, 2]
    for got, want in zip(ops.tensor_split(ms.Tensor(x), 3), np.array_split(x, 3)):
        np.testing.assert_array_equal(got.asnumpy(), want)
    for got, want in zip(ops.tensor_split(ms.Tensor(x), [1, 4], 0), np.array_split(x, [1, 4])):
        np.testing.assert_array_equal(got.asnumpy(), want)
    rows = ops.unstack(ms.Tensor(x), 1)
    assert len(rows) == 2 and rows[1].asnumpy().tolist() == x[:, 1].tolist()
    assert len(ms.Tensor(x).unbind(0)) == 10
    with pytest.raises(ShapeError, match="split: expected sections summing to the axis size 10"):
        ops.split(ms.Tensor(x), [3, 3])


# --- repetition and broadcasting ----------------------------------------------------------------------
def test_tile_repeat_and_broadcast_match_numpy():
    a = rng.standard_normal((2, 3))
    np.testing.assert_array_equal(ops.tile(T(a), (2, 1, 2)).asnumpy(), np.tile(a, (2, 1, 2)))
    np.testing.assert_array_equal(T(a).tile((3,)).asnumpy(), np.tile(a, 3))
    np.testing.assert_array_equal(ops.repeat_interleave(T(a), 2, 1).asnumpy(), np.repeat(a, 2, 1))
    np.testing.assert_array_equal(ops.repeat_interleave(T(a), [1, 0, 2], 1).asnumpy(), np.repeat(a, [1, 0, 2], 1))
    np.testing.assert_array_equal(T(a).repeat(2).asnumpy(), np.repeat(a, 2))
    np.testing.assert_array_equal(T(a).repeat([1, 2], axis=0).asnumpy(), np.repeat(a, [1, 2], 0))
    np.testing.assert_array_equal(ops.broadcast_to(T(a[:1]), (4, 3)).asnumpy(), np.broadcast_to(a[:1], (4, 3)))
    np.testing.assert_array_equal(T(a[:1]).broadcast_to((2, -1)).asnumpy(), np.broadcast_to(a[:1], (2, 3)))
    assert T(a[:, :1]).expand_as(T(a)).shape == (2, 3)
    assert T(a[:, :1]).expand(2, 3).shape == (2, 3)


def test_meshgrid_matches_numpy():
    a, b = np.arange(3), np.arange(4)
    for ind in ("xy", "ij"):
        for got, want in zip(ops.meshgrid(ms.Tensor(a), ms.Tensor(b), indexing=ind), np.meshgrid(a, b, indexing=ind)):
            np.testing.assert_array_equal(got.asnumpy(), want)


@pytest.mark.parametrize("mode,np_mode", [("constant", "constant"), ("reflect", "reflect"), ("replicate", "edge"),
                                          ("circular", "wrap")])
def test_pad_modes_match_numpy(mode, np_mode):
    a = rng.standard_normal((2, 3, 4))
    got = ops.pad(T(a), (1, 2, 2, 0), mode=mode)
    np.testing.assert_array_equal(got.asnumpy(), np.pad(a, ((0, 0), (2, 0), (1, 2)), mode=np_mode))


def test_pad_constant_value_negative_crop_and_class_form():
    a = rng.standard_normal((3, 4))
    np.testing.assert_array_equal(ops.pad(T(a), (1, 1), value=7.0).asnumpy(),
                                  np.pad(a, ((0, 0), (1, 1)), constant_values=7.0))
    np.testing.assert_array_equal(ops.pad(T(a), (-1, 2)).asnumpy(), np.pad(a[:, 1:], ((0, 0), (0, 2))))
    np.testing.assert_array_equal(ops.Pad(((1, 0), (0, 2)))(T(a)).asnumpy(), np.pad(a, ((1, 0), (0, 2))))
    with pytest.raises(ValueError, match="value is only used"):
        ops.pad(T(a), (1, 1), mode="reflect", value=1.0)
    with pytest.raises(ShapeError, match="Pad"):
        ops.pad(T(a), (1, 1, 1))


# --- slicing and rotating ------------------------------------------------------------------------------
def test_slicing_wrappers_match_numpy():
    np.testing.assert_array_equal(ops.narrow(T(), 1, 1, 2).asnumpy(), X[:, 1:3])
    np.testing.assert_array_equal(T().narrow(-1, -2, 2).asnumpy(), X[..., 2:4])
    np.testing.assert_array_equal(ops.slice(T(), (0, 1, 0), (2, -1, 3)).asnumpy(), X[:, 1:, :3])
    np.testing.assert_array_equal(ops.Slice()(T(), (1, 0, 1), (1, 2, 2)).asnumpy(), X[1:, :2, 1:3])
    np.testing.assert_array_equal(ops.strided_slice(T(), (0, 2, 0), (2, 0, 4), (1, -1, 2)).asnumpy(),
                                  X[0:2, 2:0:-1, 0:4:2])
    np.testing.assert_array_equal(ops.StridedSlice(begin_mask=0b10, shrink_axis_mask=0b1)(
        T(), (1, 2, 0), (2, 3, 4), (1, 1, 1)).asnumpy(), X[1, :3, 0:4])
    np.testing.assert_array_equal(ops.flip(T(), (0, 2)).asnumpy(), np.flip(X, (0, 2)))
    np.testing.assert_array_equal(T()[0].fliplr().asnumpy(), np.fliplr(X[0]))
    np.testing.assert_array_equal(T()[0].flipud().asnumpy(), np.flipud(X[0]))
    np.testing.assert_array_equal(ops.ReverseV2((1,))(T()).asnumpy(), X[:, ::-1])
    np.testing.assert_array_equal(ops.roll(T(), 1).asnumpy(), np.roll(X, 1))
    np.testing.assert_array_equal(ops.roll(T(), (1, -3), (2, 1)).asnumpy(), np.roll(X, (1, -3), (2, 1)))
    np.testing.assert_array_equal(ops.Roll(2, 0)(T()).asnumpy(), np.roll(X, 2, 0))
    with pytest.raises(ShapeError, match="narrow"):
        ops.narrow(T(), 1, 2, 2)
    with pytest.raises(ShapeError, match="Slice: expected begin"):
        ops.slice(T(), (0, 0, 0), (3, 1, 1))


@pytest.mark.parametrize("name,fn", [
    ("transpose", lambda t: ops.transpose(t, (1, 2, 0))),
    ("concat", lambda t: ops.concat([t, t * 2.0, t[:, :1]], 1)),
    ("stack", lambda t: ops.stack([t, t.exp()], -1)),
    ("split", lambda t: ops.split(t, [1, 3], 2)[1] * ops.split(t, 2, 1)[0][:, :1, 1:]),
    ("chunk", lambda t: ops.chunk(t, 2, 2)[1]),
    ("unstack", lambda t: ops.unstack(t, 1)[2] * ops.unstack(t, 1)[0]),
    ("tile", lambda t: ops.tile(t, (2, 1, 2, 1))),
    ("repeat_interleave", lambda t: ops.repeat_interleave(t, [2, 0, 1], 1)),
    ("pad_constant", lambda t: ops.pad(t, (1, -1, 0, 2), value=3.0)),
    ("pad_reflect", lambda t: ops.pad(t, (2, 1), mode="reflect")),
    ("pad_replicate", lambda t: ops.pad(t, (2, 1, 1, 1), mode="replicate")),
    ("pad_circular", lambda t: ops.pad(t, (1, 3), mode="circular")),
    ("flip", lambda t: ops.flip(t, (0, 2))),
    ("roll", lambda t: ops.roll(t, (1, 2), (0, 2))),
    ("roll_flat", lambda t: ops.roll(t, 5)),
    ("narrow", lambda t: ops.narrow(t, 2, 1, 2)),
    ("slice", lambda t: ops.slice(t, (0, 1, 1), (-1, 2, 3))),
    ("strided_slice", lambda t: ops.strided_slice(t, (1, 2, 3), (2, 0, 0), (1, -1, -2))),
    ("masked_fill", lambda t: ops.masked_fill(t, ms.Tensor(X > 0), 0.0)),
    ("gather_elements", lambda t: ops.gather_elements(t, 2, ms.Tensor(np.array([[[3, 3], [0, 1], [2, 2]]] * 2)))),
    ("sort", lambda t: ops.sort(t, 1, True)[0]),
    ("topk", lambda t: ops.topk(t, 2, 2)[0]),
    ("meshgrid", lambda t: ops.meshgrid(t[0, 0], t[1, :, 0])[0]),
    ("resize", lambda t: t.resize(5, 7)),
])
def test_composite_wrapper_gradients_match_finite_differences(name, fn):
    fd_check(fn, rng.standard_normal((2, 3, 4)))


# --- creation ---------------------------------------------------------------------------------------
def test_constant_creation_values_and_default_dtypes():
    assert ops.zeros((2, 3)).dtype is ms.float32 and ops.zeros(4).shape == (4,)
    assert ops.zeros(ms.Tensor([2, 2]), ms.int32).dtype is ms.int32
    assert ops.ones((2,), ms.float16).dtype is ms.float16
    assert ops.fill(ms.int32, (2, 2), 3).asnumpy().tolist() == [[3, 3], [3, 3]]
    assert ops.full((2,), 1.5).dtype is ms.float32
    assert ops.full((2,), 7).dtype is ms.int64
    assert ops.full((2,), True).dtype is ms.bool_
    assert ops.full((2,), 7, dtype=ms.float64).dtype is ms.float64
    x = ms.Tensor(np.zeros((2, 3), np.int32))
    assert ops.full_like(x, 4).dtype is ms.int32 and ops.full_like(x, 4).asnumpy().sum() == 24
    assert ops.zeros_like(x).dtype is ms.int32 and ops.ones_like(x, dtype=ms.float32).dtype is ms.float32
    np.testing.assert_array_equal(ops.eye(2, 3).asnumpy(), np.eye(2, 3))
    assert ops.eye(3, dtype=ms.int32).dtype is ms.int32
    assert x.new_zeros((4,)).dtype is ms.int32 and x.new_ones(2).asnumpy().tolist() == [1, 1]
    assert x.new_full((2,), 9).asnumpy().tolist() == [9, 9]
    assert ops.empty(2, 3).shape == (2, 3)
    with pytest.raises(ValueError, match="negative"):
        ops.zeros((2, -1))


def test_ranges_match_numpy_with_mindspore_dtypes():
    assert ops.arange(5).asnumpy().tolist() == [0, 1, 2, 3, 4] and ops.arange(5).dtype is ms.int64
    np.testing.assert_allclose(ops.arange(0, 1, 0.25).asnumpy(), [0, 0.25, 0.5, 0.75])
    assert ops.arange(0, 1, 0.25).dtype is ms.float32
    assert ops.arange(ms.Tensor(3)).asnumpy().tolist() == [0, 1, 2]
    assert ops.arange(1, 7, 2, dtype=ms.float64).dtype is ms.float64
    assert ops.range(ms.Tensor(0, ms.int32), ms.Tensor(6, ms.int32), ms.Tensor(2, ms.int32)).dtype is ms.int32
    assert ops.range(0, 3, 1).asnumpy().tolist() == [0, 1, 2]
    lin = ops.linspace(0, 1, 5)
    assert lin.dtype is ms.float32
    np.testing.assert_allclose(lin.asnumpy(), np.linspace(0, 1, 5))
    np.testing.assert_allclose(ops.logspace(0, 2, 3).asnumpy(), [1, 10, 100])
    with pytest.raises(ValueError, match="step"):
        ops.arange(0, 5, 0)
    with pytest.raises(ValueError, match="does not lead"):
        ops.arange(5, 0, 1)


def test_random_ops_follow_set_seed_shapes_ranges_and_dtypes():
    ms.set_seed(123)
    draws = [ops.rand(2, 3), ops.randn((4,)), ops.randint(0, 5, (100,)), ops.uniform((50,), ms.Tensor(2.0),
                                                                                   ms.Tensor(3.0)),
             ops.normal((2, 2), ms.Tensor(0.0), ms.Tensor(1.0)), ops.randperm(6)]
    ms.set_seed(123)
    again = [ops.rand(2, 3), ops.randn((4,)), ops.randint(0, 5, (100,)), ops.uniform((50,), ms.Tensor(2.0),
                                                                                  ms.Tensor(3.0)),
             ops.normal((2, 2), ms.Tensor(0.0), ms.Tensor(1.0)), ops.randperm(6)]
    for a, b in zip(draws, again):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    rand, randn, randint, uni, norm, perm = draws
    assert rand.shape == (2, 3) and rand.dtype is ms.float32 and 0 <= rand.asnumpy().min() < 1
    assert randn.shape == (4,) and randn.dtype is ms.float32
    assert randint.dtype is ms.int64 and set(randint.asnumpy().tolist()) <= set(range(5))
    assert 2.0 <= uni.asnumpy().min() and uni.asnumpy().max() < 3.0
    assert norm.shape == (2, 2) and sorted(perm.asnumpy().tolist()) == list(range(6))
    assert not np.array_equal(ops.rand(2, 3).asnumpy(), rand.asnumpy())  # the generator advances
    np.testing.assert_array_equal(ops.rand(3, seed=5).asnumpy(), ops.rand(3, seed=5).asnumpy())
    assert ops.randn_like(ms.Tensor(np.zeros(2, np.float64))).dtype is ms.float64
    assert ops.rand_like(rand).shape == (2, 3)
    assert ops.randint_like(randint, 0, 2).dtype is ms.int64
    assert ops.uniform((3,), ms.Tensor(0), ms.Tensor(4), dtype=ms.int32).dtype is ms.int32


# --- class forms ------------------------------------------------------------------------------------
def test_class_forms_match_functional_results():
    a = rng.standard_normal((2, 3))
    t = T(a)
    assert ops.Reshape()(t, (3, 2)).shape == (3, 2)
    np.testing.assert_array_equal(ops.Transpose()(t, (1, 0)).asnumpy(), a.T)
    assert ops.Cast()(t, ms.float32).dtype is ms.float32
    assert ops.Concat(axis=1)((t, t)).shape == (2, 6)
    assert ops.Stack(axis=-1)([t, t]).shape == (2, 3, 2)
    assert [p.shape for p in ops.Split(axis=1, output_num=3)(t)] == [(2, 1)] * 3
    assert len(ops.Unstack(axis=0)(t)) == 2
    assert ops.Squeeze(0)(T(a[:1])).shape == (3,) and ops.ExpandDims()(t, 1).shape == (2, 1, 3)
    assert ops.Flatten()(T(X)).shape == (2, 12)
    assert ops.Tile()(t, (2, 2)).shape == (4, 6)
    assert ops.BroadcastTo((4, 2, 3))(t).shape == (4, 2, 3)
    assert ops.Gather()(t, ms.Tensor([2, 0]), 1).asnumpy().tolist() == a[:, [2, 0]].tolist()
    assert ops.GatherD()(t, 1, ms.Tensor([[0], [2]])).asnumpy().tolist() == [[a[0, 0]], [a[1, 2]]]
    assert ops.GatherNd()(t, ms.Tensor([[1, 2]])).asnumpy().tolist() == [a[1, 2]]
    assert ops.ScatterNd()(ms.Tensor([[0]]), ms.Tensor([[1.0, 2.0]]), (2, 2)).asnumpy().tolist() == [[1, 2], [0, 0]]
    assert ops.TensorScatterUpdate()(t, ms.Tensor([[0, 0]]), ms.Tensor([9.0])).asnumpy()[0, 0] == 9.0
    assert ops.TensorScatterAdd()(t, ms.Tensor([[0, 0]]), ms.Tensor([1.0])).asnumpy()[0, 0] == a[0, 0] + 1
    assert ops.TensorScatterElements(axis=1)(t, ms.Tensor([[1]]), ms.Tensor([[5.0]])).asnumpy()[0, 1] == 5.0
    assert ops.Select()(ms.Tensor([True, False]), ms.Tensor([1, 2]), ms.Tensor([3, 4])).asnumpy().tolist() == [1, 4]
    assert ops.MaskedFill()(t, ms.Tensor(a > 0), 0.0).asnumpy().max() <= 0
    assert ops.MaskedSelect()(t, ms.Tensor(a > 0)).shape == ((a > 0).sum(),)
    v, i = ops.Sort(axis=0, descending=True)(t)
    np.testing.assert_array_equal(v.asnumpy(), -np.sort(-a, 0))
    v, i = ops.TopK()(t, 1)
    np.testing.assert_array_equal(i.asnumpy()[:, 0], a.argmax(1))
    assert ops.Unique()(ms.Tensor([3, 3, 1]))[0].asnumpy().tolist() == [3, 1]  # first-appearance order
    assert ops.NonZero()(ms.Tensor([0, 2])).asnumpy().tolist() == [[1]]
    assert ops.Fill()(ms.float32, (2,), 1.5).asnumpy().tolist() == [1.5, 1.5]
    assert ops.Zeros()((2, 2), ms.int32).dtype is ms.int32 and ops.Ones()(3, ms.float32).shape == (3,)
    assert ops.ZerosLike()(t).dtype is ms.float64 and ops.OnesLike()(t).asnumpy().sum() == 6
    assert ops.Eye()(2, 2, ms.float32).asnumpy().tolist() == [[1, 0], [0, 1]]
    assert ops.Range()(0, 5, 2).asnumpy().tolist() == [0, 2, 4]
    assert ops.Shape()(t) == (2, 3) and ops.Rank()(t) == 2 and ops.Size()(t) == 6
    assert ops.shape(t) == (2, 3) and ops.rank(t) == 2 and ops.size(t) == 6 and ops.numel(t) == 6
    assert ops.Identity()(t).asnumpy() is not a
    assert ops.OneHot()(ms.Tensor([1]), 2, 1.0, 0.0).asnumpy().tolist() == [[0.0, 1.0]]
    assert ops.Meshgrid("ij")((ms.Tensor([1, 2]), ms.Tensor([3, 4, 5])))[0].shape == (2, 3)
    g = ms.grad(lambda x: ops.StopGradient()(x * 2.0).sum() + x.sum())(t)
    np.testing.assert_array_equal(g.asnumpy(), np.ones((2, 3)))
    assert "Concat" in repr(ops.Concat(axis=1)) and "axis=1" in repr(ops.Concat(axis=1))


def test_split_class_with_uneven_size_is_a_shape_error():
    with pytest.raises(ShapeError, match="divisible by output_num=2"):
        ops.Split(0, 2)(ms.Tensor(np.zeros(3)))


def test_movement_ops_keep_dtype_and_return_views_for_free_ops():
    x = ms.Tensor(np.arange(12, dtype=np.int32).reshape(3, 4))
    for y in (ops.transpose(x, (1, 0)), ops.flip(x, 0), x[1:, ::2], ops.concat([x, x]), ops.tile(x, (2, 1)),
              ops.pad(x, (1, 1)), ops.gather(x, ms.Tensor([0]), 0), ops.expand_dims(x, 0)):
        assert y.dtype is ms.int32
    assert np.shares_memory(ops.transpose(x, (1, 0)).asnumpy(), x.asnumpy())
    assert np.shares_memory(x[1:, ::2].asnumpy(), x.asnumpy())
