"""The Tensor and Parameter classes behave like MindSpore's: construction defaults, refusals of
bad input, printing, conversions to Python and NumPy, identity hashing, copying and pickling."""

import copy
import pickle

import numpy as np
import pytest

import spore as ms
from spore.common.initializer import Normal, One


# --- construction -------------------------------------------------------------------------------------
@pytest.mark.parametrize("data,dtype,shape", [
    (1.5, ms.float32, ()), (3, ms.int64, ()), (True, ms.bool_, ()), ([1, 2.5], ms.float32, (2,)),
    ([[1, 2], [3, 4]], ms.int64, (2, 2)), ([True, False], ms.bool_, (2,)), ((1.0, 2.0), ms.float32, (2,)),
    ([], ms.float32, (0,)), (np.float64(2.0), ms.float64, ()), (np.int32(7), ms.int32, ()),
    (np.zeros((2, 1), np.float64), ms.float64, (2, 1)), (np.zeros(3, np.int32), ms.int32, (3,)),
    (np.zeros(2, np.float16), ms.float16, (2,)), (np.zeros(2, np.uint8), ms.uint8, (2,)),
    (np.zeros(2, np.int8), ms.int8, (2,)), (np.zeros(2, bool), ms.bool_, (2,)),
])
def test_construction_defaults_follow_mindspore(data, dtype, shape):
    t = ms.Tensor(data)
    assert t.dtype is dtype and t.shape == shape
    np.testing.assert_array_equal(t.asnumpy(), np.asarray(data))


def test_dtype_argument_casts_and_accepts_names_and_numpy_types():
    assert ms.Tensor([1.7, -2.2], ms.int32).asnumpy().tolist() == [1, -2]
    assert ms.Tensor(1, dtype=ms.float64).dtype is ms.float64
    assert ms.Tensor([1, 2], "float16").dtype is ms.float16
    assert ms.Tensor([1, 2], np.float32).dtype is ms.float32
    assert ms.Tensor(np.zeros(2, np.float64), ms.float32).dtype is ms.float32
    assert ms.Tensor([0, 2], ms.bool_).asnumpy().tolist() == [False, True]


def test_construction_from_tensors_and_lists_of_tensors():
    a = ms.Tensor([1.0, 2.0])
    assert ms.Tensor(a).asnumpy().tolist() == [1.0, 2.0]
    assert ms.Tensor(a, ms.int32).dtype is ms.int32
    stacked = ms.Tensor([a, a])
    assert stacked.shape == (2, 2) and stacked.dtype is ms.float32


def test_construction_by_shape_and_initializer():
    t = ms.Tensor(shape=(2, 3), dtype=ms.float32, init="ones")
    assert t.shape == (2, 3) and t.dtype is ms.float32 and t.asnumpy().sum() == 6
    assert ms.Tensor(shape=4, dtype=ms.int32, init=One()).asnumpy().tolist() == [1, 1, 1, 1]
    ms.set_seed(4)
    a = ms.Tensor(shape=(3,), dtype=ms.float32, init=Normal(sigma=1.0)).asnumpy()
    ms.set_seed(4)
    b = ms.Tensor(shape=(3,), dtype=ms.float32, init=Normal(sigma=1.0)).asnumpy()
    np.testing.assert_array_equal(a, b)
    assert np.std(a) > 0
    assert not ms.Tensor(shape=(2,), dtype=ms.float32, init="zeros").has_init


@pytest.mark.parametrize("bad,err,msg", [
    ("abc", TypeError, "from a str"), (["a", "b"], TypeError, "strings"), ([[1, 2], [3]], ValueError, "ragged"),
    (np.ones(2, np.uint16), TypeError, "uint16 has no Spore dtype"), ([None, 1], TypeError, "Python objects"),
    (object(), TypeError, "Python objects"),
])
def test_bad_input_data_is_refused_clearly(bad, err, msg):
    with pytest.raises(err, match=msg):
        ms.Tensor(bad)


def test_bad_input_with_a_dtype_and_missing_data_are_refused_clearly():
    with pytest.raises(TypeError, match="from a str"):
        ms.Tensor("1.5", ms.float32)
    with pytest.raises(TypeError, match="complex"):
        ms.Tensor(np.ones(2, np.complex128), ms.float32)
    with pytest.raises(ValueError, match="input_data, or shape with init"):
        ms.Tensor()
    with pytest.raises(ValueError, match="either input_data or init"):
        ms.Tensor([1.0], init="ones")
    with pytest.raises(TypeError, match="dtype"):
        ms.Tensor([1.0], "float128x")


# --- printing and dtypes ------------------------------------------------------------------------------
def test_repr_looks_like_mindspore():
    assert repr(ms.Tensor(2.5)) == "Tensor(shape=[], dtype=Float32, value= 2.5)"
    assert repr(ms.Tensor(np.array([1, 2, 5], np.int32))) == "Tensor(shape=[3], dtype=Int32, value= [1, 2, 5])"
    assert repr(ms.Tensor([[1, 2], [3, 4]])) == "Tensor(shape=[2, 2], dtype=Int64, value=\n[[1, 2],\n [3, 4]])"
    assert str(ms.Tensor([[1, 2], [3, 4]])) == "[[1 2]\n [3 4]]"
    assert f"{ms.Tensor(0.25):.1f}" == "0.2"


def test_dtypes_print_as_mindspore_and_bfloat16_exists():
    assert str(ms.float32) == "Float32" and repr(ms.int64) == "Int64" and str(ms.bool_) == "Bool"
    assert ms.Tensor([1.0]).dtype == ms.float32
    assert ms.bfloat16 is not None
    t = ms.Tensor([1.5, 2.0], ms.bfloat16)
    assert t.dtype is ms.bfloat16 and t.astype(ms.float32).asnumpy().tolist() == [1.5, 2.0]
    assert "1.5" in repr(t)


# --- conversions --------------------------------------------------------------------------------------
def test_numpy_views_and_python_conversions():
    t = ms.Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    assert isinstance(t.asnumpy(), np.ndarray) and t.numpy() is t.asnumpy()
    assert np.asarray(t).dtype == np.float32 and np.array(t, dtype=np.float64).dtype == np.float64
    assert (np.asarray(t) + 1).sum() == 14
    assert t.tolist() == [[1.0, 2.0], [3.0, 4.0]] and t.item(3) == 4.0
    assert len(t) == 2 and [r.tolist() for r in t] == [[1.0, 2.0], [3.0, 4.0]]
    s = ms.Tensor(3)
    assert s.item() == 3 and int(s) == 3 and float(s) == 3.0 and bool(s) and not bool(ms.Tensor(0.0))
    assert list(range(10))[ms.Tensor(4)] == 4 and [0, 1, 2][ms.Tensor(np.int32(1))] == 1
    assert t.ndim == 2 and t.size == 4 and t.dim() == 2 and t.numel() == 4 and t.nbytes == 16 and t.itemsize == 4


def test_conversion_errors_are_clear():
    t = ms.Tensor([1.0, 2.0])
    with pytest.raises(ValueError, match="ambiguous"):
        bool(t)
    with pytest.raises(ValueError, match="one-element"):
        t.item()
    with pytest.raises(TypeError, match="0-d"):
        len(ms.Tensor(1.0))
    with pytest.raises(TypeError, match="0-d"):
        iter(ms.Tensor(1.0))
    with pytest.raises(TypeError, match="integer tensors"):
        [1, 2][ms.Tensor(1.0)]


def test_astype_and_casting_methods():
    t = ms.Tensor([1.6, -2.0])
    assert t.astype(ms.int32).asnumpy().tolist() == [1, -2]
    assert t.to(ms.float64).dtype is ms.float64 and t.half().dtype is ms.float16 and t.double().dtype is ms.float64
    assert t.int().dtype is ms.int32 and t.long().dtype is ms.int64 and t.bool().dtype is ms.bool_
    assert ms.Tensor([1]).float().dtype is ms.float32
    assert t.astype(ms.float32) is t  # no-op casts are free


# --- identity, copying, pickling --------------------------------------------------------------------
def test_tensors_hash_by_identity_even_though_eq_is_elementwise():
    a, b = ms.Tensor([1.0]), ms.Tensor([1.0])
    assert len({a, b, a}) == 2
    d = {a: "a", b: "b"}
    assert d[a] == "a" and d[b] == "b"
    p = ms.Parameter(ms.Tensor([1.0]), name="p")
    assert {p: 1}[p] == 1 and hash(p) == object.__hash__(p) and hash(a) == object.__hash__(a)


def test_deepcopy_and_copy_are_independent():
    t = ms.Tensor(np.array([1.0, 2.0], np.float32))
    d = copy.deepcopy(t)
    d[0] = 9.0
    assert t.asnumpy()[0] == 1.0 and type(d) is ms.Tensor
    c = t.copy()
    assert c.asnumpy() is not t.asnumpy() and c.tolist() == t.tolist()
    assert t.clone().tolist() == [1.0, 2.0]
    p = ms.Parameter(t, name="w", requires_grad=False)
    q = copy.deepcopy(p)
    assert isinstance(q, ms.Parameter) and q.name == "w" and q.requires_grad is False
    q.set_data(ms.Tensor([5.0, 6.0]))
    assert p.tolist() == [1.0, 2.0]


def test_pickle_round_trip_keeps_values_and_dtype():
    t = ms.Tensor(np.arange(6, dtype=np.int32).reshape(2, 3))
    u = pickle.loads(pickle.dumps(t))
    assert u.dtype is ms.int32 and u.tolist() == t.tolist()
    p = pickle.loads(pickle.dumps(ms.Parameter(ms.Tensor([1.0]), name="w", requires_grad=False)))
    assert isinstance(p, ms.Parameter) and p.name == "w" and p.requires_grad is False


# --- Parameter ------------------------------------------------------------------------------------------
def test_parameter_name_requires_grad_repr_and_own_storage():
    src = np.zeros((2, 3), np.float32)
    p = ms.Parameter(ms.Tensor(src), name="fc.weight")
    assert p.name == "fc.weight" and p.requires_grad and isinstance(p, ms.Tensor)
    assert repr(p) == "Parameter (name=fc.weight, shape=(2, 3), dtype=Float32, requires_grad=True)"
    assert str(p) == repr(p)
    assert not np.shares_memory(p.asnumpy(), src)
    p.requires_grad = False
    assert not p.requires_grad
    assert ms.Parameter(1.0).dtype is ms.float32
    init = ms.Parameter(ms.initializer(One(), (2,), ms.float32), name="o")
    assert init.name == "o" and init.tolist() == [1.0, 1.0]


def test_parameter_set_data_keeps_dtype_and_checks_shape():
    p = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="b")
    ident = id(p)
    p.set_data(ms.Tensor([1, 2, 3]))
    assert id(p) == ident and p.dtype is ms.float32 and p.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match=r"Parameter b: set_data got shape \(2,\)"):
        p.set_data(ms.Tensor([1.0, 2.0]))


def test_parameter_clone_and_parameter_tuple():
    p = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    c = p.clone()
    assert c is not p and c.name == "w" and c.tolist() == [1.0, 2.0]
    c.set_data(ms.Tensor([0.0, 0.0]))
    assert p.tolist() == [1.0, 2.0]
    z = p.clone(init="zeros")
    assert z.tolist() == [0.0, 0.0] and z.dtype is ms.float32
    pt = ms.ParameterTuple([p, ms.Parameter(ms.Tensor([3.0]), name="b")])
    moments = pt.clone(prefix="moment", init="zeros")
    assert isinstance(moments, ms.ParameterTuple) and [m.name for m in moments] == ["moment.w", "moment.b"]
    assert moments[0].tolist() == [0.0, 0.0] and p.name == "w"
    with pytest.raises(TypeError, match="Parameters only"):
        ms.ParameterTuple([ms.Tensor([1.0])])


def test_parameter_update_with_setitem_is_seen_by_a_later_grad():
    w = ms.Parameter(ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="w")
    w[2] = 10.0
    g = ms.grad(lambda x: (x * w).sum(), grad_position=None, weights=w)(ms.Tensor(np.ones(3, np.float32)))
    assert g.tolist() == [1.0, 1.0, 1.0]
    val, gx = ms.value_and_grad(lambda x: (x * w).sum())(ms.Tensor(np.ones(3, np.float32)))
    assert float(val) == 13.0 and gx.tolist() == [1.0, 2.0, 10.0]


# --- the method surface --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [
    "view", "reshape", "transpose", "permute", "swapaxes", "squeeze", "expand_dims", "unsqueeze", "flatten",
    "ravel", "tile", "repeat", "repeat_interleave", "expand_as", "expand", "broadcast_to", "flip", "roll", "gather",
    "gather_elements", "take", "index_select", "masked_fill", "masked_select", "fill_", "zero_", "narrow", "split",
    "chunk", "unbind", "nonzero", "sort", "argsort", "topk", "unique", "copy", "clone", "view_as", "resize",
    "tolist", "new_zeros", "new_ones", "scatter", "moveaxis", "movedim", "swapdims", "tensor_split", "gather_nd",
])
def test_tensor_has_mindspore_method(name):
    assert callable(getattr(ms.Tensor, name))


def test_tensor_methods_work_on_a_sample():
    t = ms.Tensor(np.arange(6.0).reshape(2, 3))
    assert t.view(3, 2).shape == (3, 2) and t.squeeze().shape == (2, 3) and t.unsqueeze(0).shape == (1, 2, 3)
    assert t.expand_dims(-1).shape == (2, 3, 1) and t.swapaxes(0, 1).shape == (3, 2)
    assert t.flip(1).tolist() == [[2, 1, 0], [5, 4, 3]] and t.roll(1, 1).tolist() == [[2, 0, 1], [5, 3, 4]]
    assert t.gather(ms.Tensor([1]), 0).tolist() == [[3, 4, 5]] and t.narrow(1, 1, 1).tolist() == [[1], [4]]
    assert [c.shape for c in t.chunk(3, 1)] == [(2, 1)] * 3 and t.nonzero().shape == (5, 2)
    assert t.masked_fill(t > 2.0, -1.0).tolist() == [[0, 1, 2], [-1, -1, -1]]
