"""bfloat16 / float16 mixed precision: the kernels against NumPy oracles, O2 gradients and training
against float32, PyNative against Graph mode (issue 18).

Tolerances. A bf16 result is a float32-accumulated sum of products of bf16-rounded inputs, rounded
once to bf16. The oracle computes the same sum in float64 from the same rounded inputs, so the
two differ by the final rounding (half an ulp of bf16: relative 2**-9) plus float32 summation error
(~K * 2**-24 relative to sum |a||b|, negligible here). `_BF16_RTOL = 2**-8` (one bf16 ulp) leaves
room for ties; atol covers results near zero from cancellation (scaled by sqrt(K)).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import spore as ms
from spore import _kernels, nn, ops
from spore.amp import lowp

BF16 = np.dtype(ml_dtypes.bfloat16)
_BF16_RTOL = 2.0 ** -8


def _bf(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32).astype(BF16)


def _oracle(a: np.ndarray, b: np.ndarray, ta: bool, tb: bool) -> np.ndarray:
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    return (a64.T if ta else a64) @ (b64.T if tb else b64)


def test_conversions_bit_equal_to_ml_dtypes_and_numpy() -> None:
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(70_000) * 10.0 ** rng.integers(-40, 38, 70_000)).astype(np.float32)
    x[:9] = [0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-45, 3.4e38, 1.00390625, 1.01171875]  # ties included
    x[9:11] = [np.nan, -np.nan]
    ok = ~np.isnan(x)
    got = lowp.cast(x, BF16)
    assert got.dtype == BF16
    np.testing.assert_array_equal(got.view(np.uint16)[ok], x.astype(BF16).view(np.uint16)[ok])
    assert np.isnan(got[~ok].astype(np.float32)).all()
    b = x.astype(BF16)
    np.testing.assert_array_equal(lowp.cast(b, np.float32), b.astype(np.float32))
    h = lowp.cast(np.clip(x, -6e4, 6e4), np.float16)
    np.testing.assert_array_equal(h, np.clip(x, -6e4, 6e4).astype(np.float16))
    np.testing.assert_array_equal(lowp.cast(h, np.float32), h.astype(np.float32))


@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)])
@pytest.mark.parametrize("shape", [(3, 5, 4), (64, 200, 96), (130, 257, 33)])
def test_bf16_matmul_against_float64_oracle(shape: tuple[int, int, int], ta: bool, tb: bool) -> None:
    m, k, n = shape
    rng = np.random.default_rng(m * k + n)
    a = _bf(rng.standard_normal((k, m) if ta else (m, k)))
    b = _bf(rng.standard_normal((n, k) if tb else (k, n)))
    out = ops.MatMul(transpose_a=ta, transpose_b=tb)(ms.Tensor(a), ms.Tensor(b))
    assert out.dtype == ms.bfloat16  # the dtype rule holds (NumPy's bf16 matmul returned float32)
    ref = _oracle(a, b, ta, tb)
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), ref, rtol=_BF16_RTOL, atol=1e-3 * np.sqrt(k))


_NO_BF16_CHILD = r"""
import numpy as np, ml_dtypes
from spore import _kernels as K
assert K.bf16_matmul_impl(64, 256, 128) == "spore:sgemm16"
r = np.random.default_rng(2)
for ta, tb in ((False, True), (True, False)):
    a = r.standard_normal((200, 130) if ta else (130, 200)).astype(ml_dtypes.bfloat16)
    b = r.standard_normal((70, 200) if tb else (200, 70)).astype(ml_dtypes.bfloat16)
    want = K.sgemm(a.astype(np.float32), b.astype(np.float32), ta, tb)  # float32 sums of the bf16 values
    got = K.bf16_matmul(a.view(np.uint16), b.view(np.uint16), ta, tb)
    assert got.dtype == np.float32 and np.array_equal(got, want)
    got16 = K.bf16_matmul_bf16(a.view(np.uint16), b.view(np.uint16), ta, tb)
    assert np.array_equal(got16, want.astype(ml_dtypes.bfloat16).view(np.uint16))
x = np.zeros((2, 16, 8, 8), np.uint16)
w = np.zeros((16, 16, 3, 3), np.uint16)
try:
    K.conv2d_bf16_forward(x, w, None, (1, 1), (1, 1, 1, 1), (1, 1), 1)
    raise SystemExit("no error")
except RuntimeError as e:
    assert "no bf16 convolution on this CPU" in str(e), e
print("ok")
"""


def test_bf16_kernels_without_avx512_compute_in_float32_or_say_why_not() -> None:
    # ONEDNN_MAX_CPU_ISA=AVX2 makes any CPU one where oneDNN refuses bf16 primitives
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("ONEDNN_", "DNNL_"))}
    env["ONEDNN_MAX_CPU_ISA"] = "AVX2"
    res = subprocess.run([sys.executable, "-c", _NO_BF16_CHILD], env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr


def test_bf16_matmul_runs_on_bf16_hardware_when_present() -> None:
    flags = open("/proc/cpuinfo").read()
    has = " avx512_bf16" in flags or " amx_bf16" in flags
    assert lowp.bf16_native() == (has and _kernels.cpu_isa() in ("avx512_core_bf16", "avx512_core_amx"))
    if lowp.bf16_native():
        assert "bf16" in _kernels.bf16_matmul_impl(64, 256, 128, False, True)


def test_fp16_matmul_and_batch_matmul_keep_dtype() -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 1, 40, 64)).astype(np.float16)
    b = rng.standard_normal((3, 64, 24)).astype(np.float16)
    out = ops.BatchMatMul()(ms.Tensor(a), ms.Tensor(b))
    assert out.dtype == ms.float16 and out.shape == (4, 3, 40, 24)
    ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), ref, rtol=2.0 ** -10, atol=1e-2)
    ab, bb = _bf(a), _bf(b)
    outb = ops.BatchMatMul(transpose_b=True)(ms.Tensor(ab), ms.Tensor(np.swapaxes(bb, -1, -2).copy()))
    assert outb.dtype == ms.bfloat16
    np.testing.assert_allclose(outb.asnumpy().astype(np.float64), np.matmul(ab.astype(np.float64),
                               bb.astype(np.float64)), rtol=_BF16_RTOL, atol=1e-3 * 8)


def _np_conv(x: np.ndarray, w: np.ndarray, pad: int) -> np.ndarray:
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = xp.shape
    o, _, kh, kw = w.shape
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))  # n c H W kh kw
    return np.einsum("nchwij,ocij->nohw", win, w.astype(np.float64))


def test_bf16_conv2d_against_numpy_oracle() -> None:
    rng = np.random.default_rng(2)
    x = _bf(rng.standard_normal((2, 3, 12, 12)))
    w = _bf(rng.standard_normal((8, 3, 3, 3)))
    out = ops.conv2d(ms.Tensor(x), ms.Tensor(w), pad_mode="pad", padding=1)
    assert out.dtype == ms.bfloat16
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), _np_conv(x, w, 1), rtol=_BF16_RTOL,
                               atol=1e-3 * np.sqrt(27))


def _mlp() -> nn.Cell:
    return nn.SequentialCell([nn.Dense(64, 96), nn.ReLU(), nn.Dense(96, 48), nn.ReLU(), nn.Dense(48, 10)])


def _cnn() -> nn.Cell:
    return nn.SequentialCell([nn.Conv2d(1, 8, 3, pad_mode="same"), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
                              nn.Dense(8 * 8 * 8, 10)])


def _data(cnn: bool) -> tuple[ms.Tensor, ms.Tensor]:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((32, 1, 16, 16) if cnn else (32, 64)).astype(np.float32)
    y = rng.integers(0, 10, 32).astype(np.int32)
    return ms.Tensor(x), ms.Tensor(y)


def _grads(level: str, cnn: bool) -> list[np.ndarray]:
    ms.set_seed(5)
    net = _cnn() if cnn else _mlp()
    if level != "O0":
        net = ms.amp.auto_mixed_precision(net, level, dtype=ms.bfloat16)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    fn = ms.value_and_grad(nn.WithLossCell(net, loss), None, net.trainable_params())
    x, y = _data(cnn)
    _, g = fn(x, y)
    assert all(t.dtype == ms.float32 for t in g)  # master weights are float32, so are their gradients
    return [t.asnumpy() for t in g]


@pytest.mark.parametrize("cnn", [False, True])
@pytest.mark.parametrize("level", ["O1", "O2", "O3"])
def test_bf16_gradients_match_fp32(level: str, cnn: bool) -> None:
    # bf16 keeps 8 significant bits: every activation and every backward cotangent is rounded to
    # ~2**-9 relative, compounded over the layers. A weight gradient is a sum over batch (and pixels)
    # of such products with heavy cancellation, so its relative error is ~2**-9 * sqrt(sum of
    # squared terms) / |sum|: measured 0.5-2.3% for the MLP's layers and 5.4% for the first conv's
    # weight (8192 terms per entry). 8e-2 of each gradient's norm bounds that; the direction must
    # also agree (cosine > 0.998), which a wrong gradient (a missing cast, a transposed operand) fails.
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ref, low = _grads("O0", cnn), _grads(level, cnn)
    for r, g in zip(ref, low):
        assert np.linalg.norm(g - r) <= 8e-2 * np.linalg.norm(r) + 1e-6
        assert float(np.dot(g.ravel(), r.ravel())) >= 0.998 * np.linalg.norm(g) * np.linalg.norm(r)


def _train(mode: int, level: str, dtype: ms.dtype.DType | None, cnn: bool, steps: int = 25) -> list[float]:
    ms.set_context(mode=mode)
    ms.set_seed(7)
    net = _cnn() if cnn else _mlp()
    if level != "O0":
        net = ms.amp.auto_mixed_precision(net, level, dtype=dtype)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.05, 0.9))
    x, y = _data(cnn)
    return [float(step(x, y).asnumpy()) for _ in range(steps)]


@pytest.mark.parametrize("cnn", [False, True])
def test_o2_bf16_training_reaches_fp32_loss_and_graph_equals_pynative(cnn: bool) -> None:
    try:
        ref = _train(ms.PYNATIVE_MODE, "O0", None, cnn)
        py = _train(ms.PYNATIVE_MODE, "O2", ms.bfloat16, cnn)
        graph = _train(ms.GRAPH_MODE, "O2", ms.bfloat16, cnn)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert ref[-1] < 0.7 * ref[0]  # the run learns at all
    # the loss after 25 steps within 5% (relative) of float32's: bf16 rounding moves the trajectory,
    # not where it goes
    assert abs(py[-1] - ref[-1]) <= 0.05 * ref[-1] + 1e-3
    assert graph == py  # Graph mode runs the same kernels in the same order: bit for bit


def test_o2_fp16_keeps_float16_storage_and_learns() -> None:
    ref = _train(ms.PYNATIVE_MODE, "O0", None, False)
    half = _train(ms.PYNATIVE_MODE, "O2", ms.float16, False)
    assert abs(half[-1] - ref[-1]) <= 0.05 * ref[-1] + 1e-3


def test_build_train_network_bf16_needs_no_loss_scale_and_model_trains() -> None:
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(7)
    net = _mlp()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    cell = ms.amp.build_train_network(net, opt, loss, level="O2", cast_model_type=ms.bfloat16)
    assert type(cell).__name__ == "TrainOneStepCell"  # no loss-scale cell for bf16
    ms.set_seed(7)
    net2 = _mlp()
    model = ms.train.Model(net2, loss, nn.Momentum(net2.trainable_params(), 0.05, 0.9), amp_level="O2",
                           cast_model_type=ms.bfloat16)
    x, y = _data(False)
    first = float(cell(x, y).asnumpy())
    ds = ms.dataset.NumpySlicesDataset({"x": x.asnumpy(), "y": y.asnumpy()}, shuffle=False).batch(32)
    model.train(20, ds)
    after = float(model.train_network(x, y).asnumpy())
    assert after < 0.7 * first
    assert net2.trainable_params()[0].dtype == ms.float32  # master weights stay float32


def test_bad_dtype_is_refused_with_the_argument_named() -> None:
    with pytest.raises(ValueError, match="dtype must be float16 or bfloat16"):
        ms.amp.auto_mixed_precision(_mlp(), "O2", dtype=ms.int32)
    with pytest.raises(TypeError, match="MatMul: float16 or bfloat16"):
        lowp.matmul(np.ones((2, 2), np.float16), np.ones((2, 2), np.float32))


def test_cpu_without_bf16_warns_once_and_computes_in_fp32(monkeypatch: pytest.MonkeyPatch) -> None:
    import warnings

    monkeypatch.setattr(lowp, "_NATIVE", [])
    monkeypatch.setattr(_kernels, "cpu_isa", lambda: "avx2")
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        assert lowp.bf16_native() is False
        assert lowp.bf16_native() is False
    assert len([w for w in rec if "no bf16 arithmetic" in str(w.message)]) == 1
    rng = np.random.default_rng(9)
    a, b = _bf(rng.standard_normal((48, 300))), _bf(rng.standard_normal((300, 40)))
    out = lowp.matmul(a, b)
    assert out.dtype == BF16
    np.testing.assert_allclose(out.astype(np.float64), _oracle(a, b, False, False), rtol=_BF16_RTOL,
                               atol=1e-3 * np.sqrt(300))
