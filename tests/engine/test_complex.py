"""Complex dtypes (issue 14): complex64/complex128 tensors, promotion, casts, which ops take them
(and which refuse them by name), the complex ops against NumPy, checkpoints, Graph mode and ONNX."""

import numpy as np
import pytest

import spore as ms
from spore import nn, ops
from spore.common import dtype as mstype
from spore.errors import DTypeError

rng = np.random.default_rng(14)


def cx(*shape, dt=np.complex64):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)


def test_complex_dtypes_exist_and_map_to_numpy():
    assert ms.complex64 is mstype.complex64 and ms.complex128 is mstype.complex128
    assert mstype.complex64.np == np.complex64 and mstype.complex128.np == np.complex128
    assert str(ms.complex64) == "Complex64" and ms.complex64.is_complex and not ms.complex64.is_float
    assert mstype.to_dtype("complex128") is ms.complex128 and mstype.to_dtype(np.complex64) is ms.complex64
    assert mstype.dtype_to_pytype(ms.complex64) is complex


def test_tensors_from_complex_data_keep_their_values():
    a = cx(2, 3, dt=np.complex128)
    t = ms.Tensor(a)
    assert t.dtype is ms.complex128
    np.testing.assert_array_equal(t.asnumpy(), a)
    assert ms.Tensor([1 + 2j, 3]).dtype is ms.complex64  # Python complex -> complex64, as floats -> float32
    assert ms.Tensor([1.0, 2.0], ms.complex64).asnumpy().tolist() == [1 + 0j, 2 + 0j]
    assert "Complex64" in repr(ms.Tensor(np.array([1 + 2j], np.complex64)))
    assert "1.+2.j" in str(ms.Tensor(np.array([1 + 2j], np.complex64)))


def test_promotion_complex_wins_and_widens():
    z = ms.Tensor(cx(3))
    assert (z + ms.Tensor(np.ones(3, np.float32))).dtype is ms.complex64
    assert (z + ms.Tensor(np.ones(3, np.float64))).dtype is ms.complex128
    assert (z * 2).dtype is ms.complex64 and (ms.Tensor([1, 2, 3]) * z).dtype is ms.complex64
    assert (ms.Tensor(np.ones(3, np.float32)) * 1j).dtype is ms.complex64
    # a Python complex takes the tensor's precision, so 0.1j is not rounded to single precision first
    assert (ms.Tensor(np.ones(2, np.float64)) * 0.1j).asnumpy()[0] == 0.1j
    assert (ms.Tensor(np.ones(2, np.complex128)) * 0.1j).asnumpy()[0] == 0.1j
    np.testing.assert_allclose((z * ms.Tensor(np.arange(3.0, dtype=np.float64))).asnumpy(),
                               z.asnumpy() * np.arange(3.0), rtol=1e-6)


def test_a_complex_to_real_cast_is_refused_not_truncated():
    z = ms.Tensor(cx(2))
    with pytest.raises(DTypeError, match="Cast.*imaginary"):
        z.astype(ms.float32)
    with pytest.raises(TypeError, match="imaginary part would be dropped"):
        ms.Tensor(cx(2), ms.float32)
    assert z.astype(ms.complex128).dtype is ms.complex128


@pytest.mark.parametrize("name,fn,ref", [
    ("add", lambda a, b: a + b, lambda a, b: a + b), ("sub", lambda a, b: a - b, lambda a, b: a - b),
    ("mul", lambda a, b: a * b, lambda a, b: a * b), ("div", lambda a, b: a / b, lambda a, b: a / b),
    ("matmul", lambda a, b: ops.matmul(a, b.T), lambda a, b: a @ b.T),
    ("exp", lambda a, b: ops.exp(a), lambda a, b: np.exp(a)), ("log", lambda a, b: ops.log(a), lambda a, b: np.log(a)),
    ("sqrt", lambda a, b: ops.sqrt(a), lambda a, b: np.sqrt(a)),
    ("sin", lambda a, b: ops.sin(a), lambda a, b: np.sin(a)),
    ("tanh", lambda a, b: ops.tanh(a), lambda a, b: np.tanh(a)),
    ("asin", lambda a, b: ops.asin(a), lambda a, b: np.arcsin(a)),
    ("acos", lambda a, b: ops.acos(a), lambda a, b: np.arccos(a)),
    ("atan", lambda a, b: ops.atan(a), lambda a, b: np.arctan(a)),
    ("asinh", lambda a, b: ops.asinh(a), lambda a, b: np.arcsinh(a)),
    ("atanh", lambda a, b: ops.atanh(a), lambda a, b: np.arctanh(a)),
    ("log2", lambda a, b: ops.log2(a), lambda a, b: np.log2(a)),
    ("log10", lambda a, b: ops.log10(a), lambda a, b: np.log10(a)), ("square", lambda a, b: ops.square(a), np.multiply),
    ("sum", lambda a, b: ops.sum(a, 1), lambda a, b: a.sum(1)), ("mean", lambda a, b: a.mean(), lambda a, b: a.mean()),
    ("prod", lambda a, b: a.prod(), lambda a, b: a.prod()), ("reshape", lambda a, b: a.reshape(3, 2),
                                                              lambda a, b: a.reshape(3, 2)),
    ("transpose", lambda a, b: a.T, lambda a, b: a.T),
    ("slice", lambda a, b: a[1:, ::2], lambda a, b: a[1:, ::2]),
    ("concat", lambda a, b: ops.concat([a, b], 0), lambda a, b: np.concatenate([a, b], 0)),
    ("abs", lambda a, b: ops.abs(a), lambda a, b: np.abs(a)),
    ("conj", lambda a, b: ops.conj(a), lambda a, b: np.conj(a)),
    ("real", lambda a, b: ops.real(a), lambda a, b: a.real), ("imag", lambda a, b: ops.imag(a), lambda a, b: a.imag),
    ("angle", lambda a, b: ops.angle(a), lambda a, b: np.angle(a)),
    ("view_as_real", lambda a, b: ops.view_as_real(a), lambda a, b: np.stack([a.real, a.imag], -1)),
    ("equal", lambda a, b: a == b, lambda a, b: a == b),
    ("inverse", lambda a, b: ops.inverse(ops.matmul(a, b.T)), lambda a, b: np.linalg.inv(a @ b.T)),
    ("det", lambda a, b: ops.det(ops.matmul(a, b.T)), lambda a, b: np.linalg.det(a @ b.T)),
])
def test_ops_that_take_complex_match_numpy(name, fn, ref):
    if name == "square":
        ref = lambda a, b: a * a  # noqa: E731
    a, b = cx(2, 3, dt=np.complex128), cx(2, 3, dt=np.complex128)
    got = fn(ms.Tensor(a), ms.Tensor(b))
    want = np.asarray(ref(a, b))
    assert got.asnumpy().dtype == want.dtype, name
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,fn", [
    ("ReLU", ops.relu), ("Sigmoid", ops.sigmoid), ("ReduceMax", lambda z: z.max()), ("Greater", lambda z: z > z),
    ("Argmax", ops.argmax), ("Sort", ops.sort), ("Softmax", ops.softmax), ("Erf", ops.erf),
    ("Acosh", ops.acosh), ("SLogDet", lambda z: ops.slogdet(ops.matmul(z, z.T))),
])
def test_ops_without_a_complex_kernel_refuse_by_name(name, fn):
    with pytest.raises(DTypeError, match=f"{name}.*complex kernel"):
        fn(ms.Tensor(cx(2, 3)))


def test_complex_construction_ops_match_numpy():
    re, im = rng.standard_normal(4), rng.standard_normal(4)
    z = ops.Complex()(ms.Tensor(re), ms.Tensor(im))
    assert z.dtype is ms.complex128
    np.testing.assert_array_equal(z.asnumpy(), re + 1j * im)
    r, th = np.abs(re) + 0.1, im
    np.testing.assert_allclose(ops.polar(ms.Tensor(r), ms.Tensor(th)).asnumpy(), r * np.exp(1j * th), rtol=1e-12)
    np.testing.assert_allclose(ops.Polar()(ms.Tensor(r), ms.Tensor(th)).asnumpy(), r * np.exp(1j * th), rtol=1e-12)
    np.testing.assert_allclose(ops.ComplexAbs()(z).asnumpy(), np.abs(re + 1j * im), rtol=1e-12)
    np.testing.assert_allclose(ops.Angle()(z).asnumpy(), np.angle(re + 1j * im), rtol=1e-12)
    np.testing.assert_array_equal(ops.Imag()(z).asnumpy(), im)
    assert ops.is_complex(z) and not ops.is_complex(ms.Tensor(re))
    np.testing.assert_array_equal(ops.isreal(ms.Tensor(np.array([1 + 0j, 1 + 1j]))).asnumpy(), [True, False])
    np.testing.assert_array_equal(ops.imag(ms.Tensor(re)).asnumpy(), np.zeros(4))
    with pytest.raises(DTypeError, match="Complex.*one dtype"):
        ops.Complex()(ms.Tensor(re), ms.Tensor(im.astype(np.float32)))
    with pytest.raises(DTypeError, match="Angle.*complex"):
        ops.angle(ms.Tensor(re))


def test_complex_parameters_roundtrip_through_a_checkpoint(tmp_path):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(cx(2, 3)), name="w")
            self.v = ms.Parameter(ms.Tensor(cx(4, dt=np.complex128)), name="v")

        def construct(self, x):
            return x

    net = Net()
    path = str(tmp_path / "c.ckpt")
    ms.save_checkpoint(net, path)
    loaded = ms.load_checkpoint(path)
    assert loaded["w"].dtype is ms.complex64 and loaded["v"].dtype is ms.complex128
    np.testing.assert_array_equal(loaded["w"].asnumpy(), net.w.asnumpy())
    np.testing.assert_array_equal(loaded["v"].asnumpy(), net.v.asnumpy())
    other = Net()
    ms.load_param_into_net(other, loaded)
    np.testing.assert_array_equal(other.w.asnumpy(), net.w.asnumpy())


def test_a_complex_checkpoint_value_is_not_cast_into_a_real_parameter(tmp_path):
    class Real(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(np.zeros((2, 3), np.float32)), name="w")

        def construct(self, x):
            return x

    path = str(tmp_path / "c.ckpt")
    ms.save_checkpoint([{"name": "w", "data": ms.Tensor(cx(2, 3))}], path)
    with pytest.raises(Exception, match="(?i)dtype"):
        ms.load_param_into_net(Real(), ms.load_checkpoint(path))


class _Spectral(nn.Cell):
    def construct(self, x, z):
        y = ops.fft(ops.cast(x, ms.complex64) * z)
        return ops.abs(y) + ops.angle(y) + ops.real(ops.conj(y) * y), ops.view_as_real(z * z)


def test_graph_mode_runs_complex_code_as_pynative():
    x, z = ms.Tensor(rng.standard_normal((2, 8)).astype(np.float32)), ms.Tensor(cx(2, 8))
    net = _Spectral()
    want = [t.asnumpy() for t in net(x, z)]
    graph = ms.jit(net.construct)
    got = [t.asnumpy() for t in graph(x, z)]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_graph_mode_gradient_of_a_real_to_complex_chain_matches_pynative():
    x = ms.Tensor(rng.standard_normal((3, 8)).astype(np.float32))

    def loss(t):
        return ops.sum(ops.abs(ops.rfft(t)))

    eager = ms.grad(loss)(x).asnumpy()
    compiled = ms.jit(ms.grad(loss))(x).asnumpy()
    np.testing.assert_allclose(compiled, eager, rtol=1e-5, atol=1e-5)


def test_onnx_export_of_a_complex_op_is_refused_clearly(tmp_path):
    class Net(nn.Cell):
        def construct(self, x):
            return ops.abs(ops.rfft(x))

    with pytest.raises(Exception, match="FFTN"):
        ms.export(Net(), ms.Tensor(np.ones((2, 8), np.float32)), file_name=str(tmp_path / "m"), file_format="ONNX")


def test_onnx_export_of_complex_arithmetic_is_refused_on_the_users_line(tmp_path):
    class Net(nn.Cell):
        def construct(self, z):
            return z * z

    with pytest.raises(Exception, match="Mul on a complex tensor"):
        ms.export(Net(), ms.Tensor(cx(2, 4)), file_name=str(tmp_path / "m"), file_format="ONNX")


def test_composites_handle_complex_as_numpy_or_refuse():
    a = cx(3, 4, dt=np.complex128)
    t = ms.Tensor(a)
    np.testing.assert_allclose(ops.adjoint(t).asnumpy(), a.conj().T)
    np.testing.assert_allclose(t.H.asnumpy(), a.conj().T)
    np.testing.assert_allclose(t.var(1, ddof=1).asnumpy(), a.var(1, ddof=1), rtol=1e-12)
    np.testing.assert_allclose(t.std().asnumpy(), a.std(), rtol=1e-12)
    for o in (None, 1, 2, np.inf):
        np.testing.assert_allclose(ops.norm(t[0], o).asnumpy(), np.linalg.norm(a[0], o), rtol=1e-12)
    for o in ("fro", 1, np.inf):
        np.testing.assert_allclose(ops.norm(t, o).asnumpy(), np.linalg.norm(a, o), rtol=1e-12)
    with pytest.raises(DTypeError, match="norm.*singular values"):
        ops.norm(t, 2)
    for f, name in ((ops.floor, "Floor"), (ops.ceil, "Ceil"), (ops.trunc, "Trunc")):
        with pytest.raises(DTypeError, match=name):
            f(t)


def test_optimizers_refuse_complex_parameters_and_real_parts_train():
    class Cplx(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(cx(3)), name="w")

        def construct(self, x):
            return x

    with pytest.raises(TypeError, match="SGD: parameter 'w' is Complex64"):
        nn.SGD(Cplx().trainable_params(), learning_rate=0.1)

    class Split(nn.Cell):
        """A complex weight as two real Parameters: fit w * x to a complex target."""

        def __init__(self):
            super().__init__()
            self.re = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="re")
            self.im = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="im")

        def construct(self, x, target):
            w = ops.Complex()(self.re, self.im)
            return ops.sum(ops.abs(w * x - target) ** 2)

    net = Split()
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    x = ms.Tensor(np.array([1 + 1j, 0.5 - 1j, -1 + 0.5j], np.complex64))  # |x|^2 in [1.25, 2]: SGD contracts
    w_true = np.array([0.3 - 0.7j, -1.2 + 0.1j, 0.5 + 0.5j])
    target = ms.Tensor((w_true * x.asnumpy()).astype(np.complex64))
    grad_fn = ms.value_and_grad(net, None, opt.parameters)
    for _ in range(100):
        _, g = grad_fn(x, target)
        opt(g)
    np.testing.assert_allclose(net.re.asnumpy() + 1j * net.im.asnumpy(), w_true, atol=1e-3)
    assert complex(ms.Tensor(np.complex64(1 - 2j))) == 1 - 2j


def test_the_kernels_tensor_view_shows_complex_magnitudes_and_serialises():
    import json

    from spore_kernel import tensor_view as TV

    a = (np.arange(12).reshape(3, 4) + 1j * np.ones((3, 4))).astype(np.complex64)
    t = ms.Tensor(a)
    line = TV.summary(t)
    assert "complex64" in line and "96 B" in line and f"|x|∈[1, {np.abs(a).max():.4g}]" in line
    doc = json.loads(TV.json_text(t))
    assert doc["stats"]["max"] == pytest.approx(float(np.abs(a).max()))
    assert doc["values"]["data"][0][1] == str(a[0, 1]) and doc["heatmap"]["magnitude"] is True
    np.testing.assert_allclose(doc["heatmap"]["data"], np.abs(a), rtol=1e-6)


def test_writing_complex_values_into_a_real_tensor_is_refused():
    x = ms.Tensor(np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="complex"):
        x[0] = 1j
    with pytest.raises(DTypeError, match="imaginary"):
        x[0] = ms.Tensor(np.array(1 + 1j, np.complex64))
    z = ms.Tensor(np.zeros(3, np.complex64))
    z[1], z[2] = 2.5, 1 + 1j
    np.testing.assert_array_equal(z.asnumpy(), [0, 2.5, 1 + 1j])
    np.testing.assert_array_equal(x.asnumpy(), np.zeros(3))
