"""spore._kernels int8 kernels (engine/csrc/int8.cpp) against int64 NumPy oracles: matmul and conv
(groups, strides, pads, dilations) for uint8 and int8 activations with zero points, the fused
dequantize / ReLU / requantize epilogue, quantize (ties to even, saturation) and dequantize; and the
lite QDQ graphs that now run on them (fused requantization equals the unfused chain bit for bit)."""

import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from spore import _kernels as K
from spore import lite

ACTS = [(np.uint8, 0), (np.uint8, 131), (np.int8, 0), (np.int8, -7)]


def _ints(r, dtype, shape):
    info = np.iinfo(dtype)
    return r.integers(info.min, info.max + 1, shape).astype(dtype)


def _conv_oracle(x, zx, w, strides, pads, dilations, groups):
    """int64 direct convolution of (x - zx) with zero padding in the real domain (ONNX: DQ, then pad)."""
    xi = np.pad(x.astype(np.int64) - zx, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    n, c, h, wd = xi.shape
    o, cg, kh, kw = w.shape
    sh, sw = strides
    dh, dw = dilations
    oh, ow = (h - dh * (kh - 1) - 1) // sh + 1, (wd - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, oh, ow), np.int64)
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(kh):
            for j in range(kw):
                rows = slice(i * dh, i * dh + sh * (oh - 1) + 1, sh)
                cols = slice(j * dw, j * dw + sw * (ow - 1) + 1, sw)
                patch = xi[:, g * cg:(g + 1) * cg, rows, cols]
                out[:, oc] += np.einsum("nchw,c->nhw", patch, w[oc, :, i, j].astype(np.int64))
    return out


def _requant_oracle(acc, scale, bias, relu, ys, yz, dtype, axis):
    """The unfused chain in NumPy: float32 dequantized product (+ bias, ReLU), then QuantizeLinear."""
    shp = [1] * acc.ndim
    shp[axis] = -1
    y = acc.astype(np.float32) * scale.astype(np.float32).reshape(shp)
    if bias is not None:
        y = y + bias.reshape(shp)
    if relu:
        y = np.maximum(y, np.float32(0))
    if ys is None:
        return y
    info = np.iinfo(dtype)
    return np.clip(np.rint(y / np.float32(ys)) + yz, info.min, info.max).astype(dtype)


@pytest.mark.parametrize("dtype,zx", ACTS)
def test_int8_matmul_equals_int64_oracle(dtype, zx):
    r = np.random.default_rng(1)
    for m, k, n in ((1, 300, 9), (7, 64, 33), (32, 513, 17), (3, 1, 5)):
        a, b = _ints(r, dtype, (m, k)), _ints(r, np.int8, (k, n))
        want = (a.astype(np.int64) - zx) @ b.astype(np.int64)
        got = K.int8_matmul(a, b, zx)
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype,zx", ACTS)
def test_int8_matmul_epilogue_equals_unfused_chain(dtype, zx):
    r = np.random.default_rng(2)
    a, b = _ints(r, dtype, (9, 200)), _ints(r, np.int8, (200, 13))
    acc = (a.astype(np.int64) - zx) @ b.astype(np.int64)
    scale = r.uniform(1e-5, 1e-4, 13).astype(np.float32)
    bias = r.standard_normal(13).astype(np.float32)
    np.testing.assert_array_equal(K.int8_matmul(a, b, zx, scale, bias),
                                  _requant_oracle(acc, scale, bias, False, None, 0, None, 1))
    for ydt, yz in ((np.uint8, 3), (np.int8, -2)):
        for relu in (False, True):
            got = K.int8_matmul(a, b, zx, scale[:1], bias, relu, 0.01, yz, np.dtype(ydt).name)
            want = _requant_oracle(acc, scale[:1], bias, relu, 0.01, yz, ydt, 1)
            assert got.dtype == ydt
            np.testing.assert_array_equal(got, want)
    info = np.iinfo(ydt)
    assert got.min() >= info.min  # saturation happens: values beyond the range were clipped
    assert (_requant_oracle(acc, scale[:1], bias, False, 1e-4, 0, np.int8, 1) == 127).any()


CONVS = [  # (groups, strides, pads (t, l, b, r), dilations, kernel)
    (1, (1, 1), (1, 1, 1, 1), (1, 1), (3, 3)),
    (2, (2, 1), (0, 2, 1, 0), (1, 2), (3, 2)),
    (4, (1, 2), (2, 1, 0, 3), (2, 1), (3, 3)),
    (8, (1, 1), (1, 1, 1, 1), (1, 1), (3, 3)),  # depthwise
    (1, (2, 2), (0, 0, 0, 0), (1, 1), (1, 1)),
]


@pytest.mark.parametrize("dtype,zx", ACTS)
@pytest.mark.parametrize("groups,strides,pads,dilations,kernel", CONVS)
def test_int8_conv_equals_int64_oracle(dtype, zx, groups, strides, pads, dilations, kernel):
    r = np.random.default_rng(3)
    x = _ints(r, dtype, (2, 8, 11, 10))
    w = _ints(r, np.int8, (8 if groups == 8 else 12, 8 // groups, *kernel))
    conv = K.Int8Conv2d(w, dtype == np.uint8, zx, list(strides), list(pads), list(dilations), groups)
    acc = _conv_oracle(x, zx, w, strides, pads, dilations, groups)
    got = conv(x)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, acc)
    np.testing.assert_array_equal(conv(x), acc)  # the cached primitive gives the same again
    o = w.shape[0]
    scale = r.uniform(1e-4, 1e-3, o).astype(np.float32)
    bias = r.standard_normal(o).astype(np.float32)
    np.testing.assert_array_equal(conv(x, scale, bias), _requant_oracle(acc, scale, bias, False, None, 0, None, 1))
    got = conv(x, scale, bias, True, 0.05, 4, "uint8")
    np.testing.assert_array_equal(got, _requant_oracle(acc, scale, bias, True, 0.05, 4, np.uint8, 1))


def test_int8_conv_runs_on_the_vnni_kernels_where_the_cpu_has_them():
    flags = open("/proc/cpuinfo").read().split()
    assert K.int8_on_vnni() == ("avx512_vnni" in flags or "avx_vnni" in flags)
    w = np.ones((16, 16, 3, 3), np.int8)
    impl = K.Int8Conv2d(w, True, 128, [1, 1], [1, 1, 1, 1], [1, 1], 1).impl(1, 16, 8, 8)
    if not K.int8_on_vnni():  # oneDNN's int8 kernels would saturate: exact float32 products instead
        assert impl == "spore:exact_f32_im2col", impl
        return
    assert "int8" in impl or "s8" in impl or "brg" in impl, impl  # not oneDNN's reference kernel
    assert "ref" not in impl, impl


_EXACT_CHILD = r"""
import numpy as np
from spore import _kernels as K
assert not K.int8_on_vnni()
r = np.random.default_rng(11)
def check(got, want):
    assert got.dtype == np.int32 and np.array_equal(got, want), np.abs(got.astype(np.int64) - want).max()
for m, k, n, zp, u8 in ((7, 5, 3, 0, True), (64, 784, 256, 131, True), (33, 1500, 17, -7, False)):
    lo, hi = (0, 256) if u8 else (-128, 128)
    a = r.integers(lo, hi, (m, k)).astype(np.uint8 if u8 else np.int8)
    b = r.integers(-128, 128, (k, n)).astype(np.int8)
    want = (a.astype(np.int64) - zp) @ b.astype(np.int64)
    check(K.int8_matmul(a, b, zp), want)
    out = np.empty((m, n), np.int32)
    K.Int8MatMul(b, zp, u8).run(a, out)
    check(out, want)
# the extremes: every partial sum past float32's 2^24, held exactly across the blocks of 512
a, b = np.full((4, 1500), 255, np.uint8), np.full((1500, 6), -128, np.int8)
check(K.int8_matmul(a, b, 0), np.full((4, 6), 1500 * 255 * -128))
# conv: groups, stride, dilation, asymmetric padding (a padded pixel is the zero point), 2 images
x = r.integers(0, 256, (2, 6, 11, 9)).astype(np.uint8)
w = r.integers(-128, 128, (4, 3, 3, 2)).astype(np.int8)
conv = K.Int8Conv2d(w, True, 200, [2, 1], [1, 0, 2, 1], [1, 2], 2)
xp = np.pad(x.astype(np.int64) - 200, ((0, 0), (0, 0), (1, 2), (0, 1)))
oh, ow = (xp.shape[2] - 3) // 2 + 1, xp.shape[3] - 2  # kernel 3 x (2 dilated by 2)
want = np.zeros((2, 4, oh, ow), np.int64)
for o in range(4):
    g = o // 2
    for i in range(3):
        for j in range(2):
            patch = xp[:, 3 * g:3 * g + 3, i:i + 2 * oh:2, 2 * j:2 * j + ow]
            want[:, o] += np.einsum("nchw,c->nhw", patch, w[o, :, i, j].astype(np.int64))
check(conv(x), want)
print("exact")
"""


def test_int8_kernels_without_vnni_are_exact():
    # ONEDNN_MAX_CPU_ISA=AVX2 makes any CPU take the no-VNNI path (float32 products in blocks of 512)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ONEDNN_", "DNNL_"))}
    env["ONEDNN_MAX_CPU_ISA"] = "AVX2"
    res = subprocess.run([sys.executable, "-c", _EXACT_CHILD], env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and res.stdout.strip() == "exact", res.stderr


def test_quantize_ties_to_even_and_saturates():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1e9, -1e9, 0.49999997, 126.5, 127.5, -128.5, 3.0], np.float32)
    for dtype, z in ((np.int8, 0), (np.int8, -3), (np.uint8, 0), (np.uint8, 200)):
        info = np.iinfo(dtype)
        want = np.clip(np.rint(x / np.float32(1.0)) + z, info.min, info.max).astype(dtype)
        got = K.quantize_linear(x, 1.0, z, np.dtype(dtype).name)
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(K.quantize_linear(x[:6], 1.0, 0, "int8"), [0, 2, 2, 0, -2, -2])
    r = np.random.default_rng(4)
    y = (r.standard_normal((3, 1000)) * 4).astype(np.float32)
    out = np.empty(y.shape, np.uint8)
    K.quantize_linear(y, 0.037, 128, "uint8", out)
    np.testing.assert_array_equal(out, np.clip(np.rint(y / np.float32(0.037)) + 128, 0, 255).astype(np.uint8))


def test_dequantize_equals_float_oracle():
    r = np.random.default_rng(5)
    for dtype, z in ((np.uint8, 131), (np.int8, -7)):
        q = _ints(r, dtype, (4, 333))
        want = ((q.astype(np.int64) - z).astype(np.float32) * np.float32(0.0123)).astype(np.float32)
        np.testing.assert_array_equal(K.dequantize_linear(q, 0.0123, z), want)
    acc = r.integers(-2 ** 30, 2 ** 30, 50).astype(np.int32)
    np.testing.assert_array_equal(K.dequantize_linear(acc, 0.5), acc.astype(np.float32) * np.float32(0.5))


def test_bad_arguments_are_refused_clearly():
    a = np.zeros((2, 3), np.uint8)
    with pytest.raises(ValueError, match="int8_matmul: b must be int8"):
        K.int8_matmul(a, np.zeros((3, 2), np.uint8))
    with pytest.raises(ValueError, match="inner dimensions"):
        K.int8_matmul(a, np.zeros((4, 2), np.int8))
    with pytest.raises(ValueError, match="a_zero_point 300 outside uint8"):
        K.int8_matmul(a, np.zeros((3, 2), np.int8), 300)
    with pytest.raises(ValueError, match="quantize_linear: dtype"):
        K.quantize_linear(np.zeros(3, np.float32), 1.0, 0, "int16")
    with pytest.raises(ValueError, match="scale must be"):
        K.quantize_linear(np.zeros(3, np.float32), 0.0)
    with pytest.raises(ValueError, match="Int8Conv2d: x has 4 channels"):
        K.Int8Conv2d(np.zeros((2, 3, 1, 1), np.int8), True)(np.zeros((1, 4, 2, 2), np.uint8))
    with pytest.raises(ValueError, match="Int8Conv2d: x must be uint8"):
        K.Int8Conv2d(np.zeros((2, 3, 1, 1), np.int8), True)(np.zeros((1, 3, 2, 2), np.int8))


def _qdq_conv_model(path, xdt):
    """x -> Q -> DQ -> Conv(DQ(W), bias) -> Relu -> Q -> DQ -> Gemm(DQ(W2)) -> y: the pattern
    onnxruntime.quantization writes, built by hand so both activation dtypes are covered."""
    r = np.random.default_rng(6)
    zx = np.array(128 if xdt == np.uint8 else 0, xdt)
    inits = [
        numpy_helper.from_array(np.array(0.02, np.float32), "xs"), numpy_helper.from_array(zx, "xz"),
        numpy_helper.from_array(r.integers(-127, 128, (6, 3, 3, 3)).astype(np.int8), "w"),
        numpy_helper.from_array(np.full(6, 0.01, np.float32), "ws"),
        numpy_helper.from_array(np.zeros(6, np.int8), "wz"),
        numpy_helper.from_array(r.standard_normal(6).astype(np.float32), "b"),
        numpy_helper.from_array(np.array(0.05, np.float32), "ys"), numpy_helper.from_array(zx, "yz"),
        numpy_helper.from_array(r.integers(-127, 128, (5, 6 * 8 * 8)).astype(np.int8), "w2"),
        numpy_helper.from_array(np.array(0.003, np.float32), "w2s"),
        numpy_helper.from_array(np.array(0, np.int8), "w2z"),
        numpy_helper.from_array(np.array([2, -1], np.int64), "shape"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
        helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=0),
        helper.make_node("Conv", ["xd", "wd", "b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["cr"]),
        helper.make_node("QuantizeLinear", ["cr", "ys", "yz"], ["cq"]),
        helper.make_node("DequantizeLinear", ["cq", "ys", "yz"], ["cd"]),
        helper.make_node("Reshape", ["cd", "shape"], ["f"]),
        helper.make_node("QuantizeLinear", ["f", "ys", "yz"], ["fq"]),
        helper.make_node("DequantizeLinear", ["fq", "ys", "yz"], ["fd"]),
        helper.make_node("DequantizeLinear", ["w2", "w2s", "w2z"], ["w2d"]),
        helper.make_node("Gemm", ["fd", "w2d"], ["y"], transB=1),
    ]
    g = helper.make_graph(nodes, "qdq", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(m, path)


@pytest.mark.parametrize("xdt", [np.uint8, np.int8])
def test_lite_qdq_graph_runs_int8_and_equals_the_numpy_chain(xdt, tmp_path):
    path = os.path.join(str(tmp_path), "q.onnx")
    _qdq_conv_model(path, xdt)
    m = lite.Model()
    m.build_from_file(path, lite.ModelType.ONNX, lite.Context())
    assert m.int8_ops == 2
    x = np.random.default_rng(7).standard_normal((2, 3, 8, 8)).astype(np.float32)
    got = m.predict([x])[0].get_data_to_numpy()
    planned = m.predict([x])[0].get_data_to_numpy()
    np.testing.assert_array_equal(got, planned)
    # the oracle: the same QDQ chain in NumPy / int64, op by op (no fusion)
    inits = {i.name: numpy_helper.to_array(i) for i in onnx.load(path).graph.initializer}
    lo, hi = np.iinfo(xdt).min, np.iinfo(xdt).max
    zx = int(inits["xz"])

    def q(v, s):
        return np.clip(np.rint(v / np.float32(s)) + zx, lo, hi).astype(xdt)
    xq = q(x, inits["xs"])
    acc = _conv_oracle(xq, zx, inits["w"], (1, 1), (1, 1, 1, 1), (1, 1), 1)
    c = (acc.astype(np.float32) * (np.float32(inits["xs"]) * inits["ws"]).reshape(1, -1, 1, 1)
         + inits["b"].reshape(1, -1, 1, 1))
    cq = q(np.maximum(c, np.float32(0)), inits["ys"]).reshape(2, -1)
    acc2 = (cq.astype(np.int64) - zx) @ inits["w2"].astype(np.int64).T
    want = acc2.astype(np.float32) * (np.float32(inits["ys"]) * np.float32(inits["w2s"]))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["mlp", "lenet", "simplecnn"])
def test_qdq_zoo_is_bit_identical_to_onnxruntime(name, tmp_path):
    """With the int8 kernels, fused requantization and QDQ-transparent MaxPool/Reshape, lite's int8
    results equal onnxruntime's QDQ execution exactly (onnxruntime.quantization's models)."""
    from ..lite.test_lite import _export, _lite, _ort, _quantize

    _, x, path = _export(name, str(tmp_path))
    qpath = _quantize(path, x.shape)
    model = _lite(qpath)
    ops = [n.op for n in model._graph.nodes]
    assert any(op.startswith("QLinear") for op in ops)
    # no float round trip is left around the data-movement ops: DQ -> MaxPool/Reshape -> Q became int8
    assert ops.count("DequantizeLinear") == 1, ops
    got = model.predict([x])[0].get_data_to_numpy()
    planned = model.predict([x])[0].get_data_to_numpy()
    want = _ort(qpath, x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(planned, want)


def test_quantize_dequantize_equals_the_pair():
    r = np.random.default_rng(8)
    x = (r.standard_normal((5, 777)) * 3).astype(np.float32)
    x[0, :4] = [0.5 * 0.02, 1.5 * 0.02, 1e6, -1e6]  # ties and saturation
    for dtype, z in ((np.uint8, 128), (np.int8, -3)):
        want = K.dequantize_linear(K.quantize_linear(x, 0.02, z, np.dtype(dtype).name), 0.02, z)
        np.testing.assert_array_equal(K.quantize_dequantize(x, 0.02, z, np.dtype(dtype).name), want)
        info = np.iinfo(dtype)
        oracle = ((np.clip(np.rint(x / np.float32(0.02)) + z, info.min, info.max) - z).astype(np.float32)
                  * np.float32(0.02))
        np.testing.assert_array_equal(want, oracle)


def test_lstm_qdq_pairs_become_one_pass_and_match_onnxruntime(tmp_path):
    from ..lite.test_lite import _export, _lite, _ort, _output_step, _quantize

    _, x, path = _export("lstm", str(tmp_path))
    qpath = _quantize(path, x.shape)
    model = _lite(qpath)
    ops = [n.op for n in model._graph.nodes]
    before = [n.op_type for n in onnx.load(qpath).graph.node].count("DequantizeLinear")
    assert ops.count("QuantizeDequantize") > 50 and ops.count("DequantizeLinear") < 0.2 * before, ops
    got = model.predict([x])[0].get_data_to_numpy()
    np.testing.assert_array_equal(got, model.predict([x])[0].get_data_to_numpy())
    assert np.abs(got - _ort(qpath, x)).max() <= _output_step(qpath) * 1.001
