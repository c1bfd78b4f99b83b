"""Tensor internals (spore/tensor_internals.py) and the small framework ops of ops/misc_ops.py
(issue 14): memory sharing, DLPack, bytes round trips, flags, index analysis, dtype objects,
bit packing, packed dropout masks, the random draws (moments/KS vs SciPy) and coalesce."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import spore as ms
from spore import amp, ops

T = ms.Tensor


def test_data_ptr_and_storage_share_memory():
    x = T(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert x.data_ptr() == x.asnumpy().ctypes.data
    st = x.untyped_storage()
    assert st.size() == st.nbytes() == 24 and len(st) == 24 and st.data_ptr() == x.data_ptr()
    st2 = x.storage()
    assert st2.data_ptr() == x.data_ptr()
    st.fill_(0)  # writing bytes through the storage changes the tensor
    assert np.all(x.asnumpy() == 0)
    x.asnumpy()[0, 0] = 1.0
    assert st[0:4].tolist() == list(np.float32(1.0).tobytes())


def test_storage_of_strided_view_is_contiguous_copy_in_place():
    x = T(np.arange(12, dtype=np.int32).reshape(3, 4)).T
    st = x.untyped_storage()
    assert st.nbytes() == 48
    np.testing.assert_array_equal(np.frombuffer(bytes(st.tolist()), np.int32).reshape(4, 3), x.asnumpy())


def test_set_shares_source_or_storage():
    a = T(np.arange(6, dtype=np.float32))
    b = T(np.zeros(2, np.float32))
    assert b.set_(a) is b and b.shape == (6,)
    a.asnumpy()[2] = 42
    assert b.asnumpy()[2] == 42
    c = T(np.zeros(1, np.float32))
    c.set_(a.untyped_storage(), 1, (2, 2), (2, 1))
    np.testing.assert_array_equal(c.asnumpy(), [[1, 42], [3, 4]])  # elements 1.. of a, strides (2, 1)
    a.asnumpy()[1] = -1
    assert c.asnumpy()[0, 0] == -1  # a view of a's memory
    with pytest.raises(ValueError, match="set_"):
        c.set_(a.untyped_storage(), 4, (2, 2))
    assert T(np.ones(3, np.float32)).set_().shape == (0,)


def test_dlpack_round_trips_share_memory():
    x = T(np.arange(4, dtype=np.float32))
    y = ms.Tensor.from_dlpack(x.to_dlpack())
    z = ms.Tensor.from_dlpack(x)  # the __dlpack__ protocol
    n = np.from_dlpack(x)
    x.asnumpy()[1] = 9
    assert y.asnumpy()[1] == z.asnumpy()[1] == n[1] == 9
    assert x.__dlpack_device__() == (1, 0)
    with pytest.raises(TypeError, match="from_dlpack"):
        ms.Tensor.from_dlpack(object())


def test_bytes_round_trip():
    x = T(np.array([[1.5, -2], [3, 4]], np.float64))
    b = x.get_bytes()
    assert b == x.asnumpy().tobytes()
    y = ms.Tensor.convert_bytes_to_tensor(b, (2, 2), ms.float64)
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy())
    with pytest.raises(ValueError, match="needs 32 bytes"):
        ms.Tensor.convert_bytes_to_tensor(b[:8], (2, 2), ms.float64)


def test_flags_and_noop_device_hooks_keep_values():
    x = T(np.arange(3, dtype=np.float32))
    assert x.is_init() is False
    x.set_init_flag(True)
    assert x.is_init() is True
    x.set_param_info("info")
    assert x.param_info == "info"
    x.set_cast_dtype(ms.float16)
    assert x.cast_dtype == ms.float16 and x.dtype == ms.float32
    for hook in (x.data_sync, x.wait_pipeline, x.flush_from_cache, x.delete_):
        assert hook() is None
    np.testing.assert_array_equal(x.asnumpy(), [0, 1, 2])
    assert x.assign_value_cpp(T(np.array([5, 6], np.float32))) is x
    np.testing.assert_array_equal(x.asnumpy(), [5, 6])


def test_index_is_advanced_indexing():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = T(a)
    i, j = np.array([1, 0]), np.array([2, 1])
    np.testing.assert_array_equal(x.index([T(i), T(j)]).asnumpy(), a[i, j])
    np.testing.assert_array_equal(x.index([None, T(j)]).asnumpy(), a[:, j])
    with pytest.raises(TypeError, match="Tensor.index"):
        x.index([T(np.array([0.5]))])


def test_index_info():
    x = T(np.zeros((2, 3, 4), np.float32))
    info = x.getitem_index_info((-1, ..., slice(0, 2)))
    assert info["shape"] == np.zeros((2, 3, 4))[-1, ..., 0:2].shape
    assert info["is_view"] and info["index"][0] == ("int", 1)
    adv = x.getitem_index_info((np.array([0, 1]),))
    assert not adv["is_view"] and adv["shape"] == (2, 3, 4)
    assert x.setitem_index_info(0, T(np.ones(4, np.float32)))["value_shape"] == (4,)
    with pytest.raises(ValueError, match="broadcast"):
        x.setitem_index_info(0, T(np.ones(5, np.float32)))


def test_dtype_objects():
    assert ops.DType()(T(np.zeros(2, np.int8))) == ms.int8
    assert ops.DType()(1.0) == ms.float32
    e = ops.DtypeToEnum()
    ids = {e("Op", "dtype", d) for d in (ms.float16, ms.float32, ms.float64, ms.int32, ms.int64, ms.bool_)}
    assert len(ids) == 6
    with pytest.raises(TypeError, match="'Cast'.*'dtype'"):
        e("Cast", "dtype", "float32")
    assert ops.DataType.F32_Default == ("float32", "DefaultFormat") and ops.DataType.None_None == ("", "")
    assert ops.Tensor is ms.Tensor
    assert ops.TensorToTuple()(T(np.array([1, 2, 3], np.int32))) == (1, 2, 3)


def test_float_status_and_all_finite():
    assert ops.FloatStatus()(T(np.array([1.0, np.inf], np.float32))).asnumpy().tolist() == [1.0]
    assert ops.FloatStatus()(T(np.array([1.0, 2.0], np.float32))).asnumpy().tolist() == [0.0]
    assert ops.FloatStatus()(T(np.array([np.nan], np.float16))).shape == (1,)
    fin = amp.AllFinite()
    assert bool(fin((T(np.ones(2, np.float32)), T(np.zeros(3, np.float32))))) is True
    assert bool(fin((T(np.ones(2, np.float32)), T(np.array([np.nan], np.float32))))) is False


def test_compare_and_bitpack_vs_numpy():
    r = np.random.default_rng(0)
    x = r.standard_normal((3, 16)).astype(np.float32)
    out = ops.CompareAndBitpack()(T(x), T(np.float32(0.1)))
    assert out.dtype == ms.uint8
    np.testing.assert_array_equal(out.asnumpy(), np.packbits(x > 0.1, axis=-1))
    with pytest.raises(Exception, match="CompareAndBitpack"):
        ops.CompareAndBitpack()(T(np.zeros((2, 5), np.float32)), T(np.float32(0)))


def test_view_ops():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(ops.SelectView()(T(a), 1, -1).asnumpy(), a[:, -1])
    np.testing.assert_array_equal(ops.TransposeView()(T(a), (2, 0, 1)).asnumpy(), a.transpose(2, 0, 1))
    np.testing.assert_array_equal(ops.TransposeExtView()(T(a), 0, 2).asnumpy(), a.swapaxes(0, 2))
    x = T(np.zeros((2, 3), np.float32))
    assert ops.CopyWithSlice()(x, T(np.array([1, 2, 3], np.float32))) is x
    np.testing.assert_array_equal(x.asnumpy(), [[1, 2, 3], [1, 2, 3]])


def test_dropout_gen_and_do_mask():
    ms.set_seed(0)
    mask = ops.DropoutGenMask(1, 2)((20, 30), T(np.float32(0.7)))
    assert mask.dtype == ms.uint8 and mask.shape == ((600 + 127) // 128 * 16,)
    bits = np.unpackbits(mask.asnumpy(), bitorder="little")
    assert bits[600:].sum() == 0
    assert abs(bits[:600].mean() - 0.7) < 0.06
    again = ops.DropoutGenMask(1, 2)((20, 30), T(np.float32(0.7)))
    np.testing.assert_array_equal(again.asnumpy(), mask.asnumpy())  # the seeds fix the draws
    x = np.random.default_rng(1).standard_normal((20, 30)).astype(np.float32)
    y = ops.DropoutDoMask()(T(x), mask, T(np.float32(0.7)))
    np.testing.assert_allclose(y.asnumpy(), x * bits[:600].reshape(20, 30) / np.float32(0.7), rtol=1e-6)
    g = ms.grad(lambda t: ops.DropoutDoMask()(t, mask, T(np.float32(0.7))).sum())(T(x))
    np.testing.assert_allclose(g.asnumpy(), bits[:600].reshape(20, 30) / np.float32(0.7), rtol=1e-6)


def test_non_deterministic_ints_cover_range():
    v = ops.NonDeterministicInts(ms.int32)(T(np.array([4000], np.int64))).asnumpy()
    assert v.dtype == np.int32 and v.shape == (4000,)
    assert v.min() < -2**30 and v.max() > 2**30  # spread over the whole int32 range
    assert ops.NonDeterministicInts()((2, 3)).dtype == ms.int64


def test_parameterized_truncated_normal_vs_scipy():
    op = ops.ParameterizedTruncatedNormal(seed=3, seed2=4)
    mean = T(np.array([0.0, 2.0], np.float32))
    sd = T(np.array([1.0, 0.5], np.float32))
    lo = T(np.array([-0.5, 1.0], np.float32))
    hi = T(np.array([1.5, 4.0], np.float32))
    out = op(T(np.array([2, 4000], np.int64)), mean, sd, lo, hi).asnumpy()
    assert out.shape == (2, 4000) and out.dtype == np.float32
    for i, (m, s, a, b) in enumerate([(0.0, 1.0, -0.5, 1.5), (2.0, 0.5, 1.0, 4.0)]):
        dist = stats.truncnorm((a - m) / s, (b - m) / s, loc=m, scale=s)
        assert out[i].min() >= a and out[i].max() <= b
        assert stats.kstest(out[i], dist.cdf).pvalue > 1e-3
        assert abs(out[i].mean() - dist.mean()) < 4 * dist.std() / np.sqrt(4000)


def test_choice_with_mask():
    x = np.zeros((4, 5), bool)
    x[1, 2] = x[3, 0] = x[0, 4] = True
    idx, mask = ops.choice_with_mask(T(x), count=5, seed=1)
    assert mask.asnumpy().tolist() == [True] * 3 + [False] * 2
    assert sorted(map(tuple, idx.asnumpy()[:3].tolist())) == [(0, 4), (1, 2), (3, 0)]


def test_coalesce_vs_dense_sum():
    idx = np.array([[0, 1, 0, 2], [1, 0, 1, 2]], np.int64)
    vals = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    shape = np.array([3, 3], np.int64)
    yi, yv, ys = ops.coalesce(T(idx), T(vals), T(shape))
    dense = np.zeros((3, 3), np.float32)
    np.add.at(dense, tuple(idx), vals)
    got = np.zeros((3, 3), np.float32)
    got[tuple(yi.asnumpy())] = yv.asnumpy()
    np.testing.assert_array_equal(got, dense)
    assert yi.asnumpy().tolist() == [[0, 1, 2], [1, 0, 2]] and ys.asnumpy().tolist() == [3, 3]
    yi2, yv2, _ = ops.Coalesce()(T(idx), T(vals), T(shape))
    np.testing.assert_array_equal(yv2.asnumpy(), yv.asnumpy())
    with pytest.raises(Exception, match="coalesce"):
        ops.coalesce(T(idx.astype(np.int32)), T(vals), T(shape))


def test_make_row_tensor():
    rt = ops.make_row_tensor(T(np.array([0, 2], np.int32)), T(np.ones((2, 3), np.float32)), (4, 3))
    assert isinstance(rt, ms.RowTensor) and rt.dense_shape == (4, 3)
    np.testing.assert_array_equal(rt.to_dense().asnumpy()[[0, 2]], np.ones((2, 3)))
