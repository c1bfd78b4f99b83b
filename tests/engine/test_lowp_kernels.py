"""Mixed precision's C++ kernels (engine/csrc/lowp.cpp): oneDNN's bf16 convolutions against a float64
NumPy oracle, and ReLU / its gradient on float16 and bfloat16 bit patterns, exhaustively (issue 18).

Convolution tolerance. Each output is a float32-accumulated sum of K = C/group * kH * kW products of
bf16-rounded operands (exact in float32), rounded once to bf16. The float64 oracle sums the same
rounded operands, so the two differ by the final rounding (at most half a bf16 ulp: 2**-9 relative)
plus float32 summation error, bounded by K * 2**-24 * sum |a||b|. The test allows twice both:
|got - ref| <= 2**-8 |ref| + K * 2**-23 * (|x| conv |w|), a bound a wrong tap, pad or transposition
exceeds by orders of magnitude.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import spore as ms
from spore import _kernels, ops
from spore.amp import lowp
from spore.ops import conv_pool as cp

BF16 = np.dtype(ml_dtypes.bfloat16)

# (x shape, w shape, stride, pad (top, bottom, left, right), dilation, group)
GEOMS = [
    ((4, 3, 16, 16), (8, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ((2, 8, 13, 11), (6, 4, 3, 2), (2, 1), (0, 1, 2, 0), (1, 2), 2),
    ((3, 16, 9, 9), (16, 16, 5, 5), (1, 1), (2, 2, 2, 2), (1, 1), 1),
    ((2, 6, 10, 10), (6, 1, 3, 3), (1, 2), (1, 1, 1, 1), (2, 1), 6),
]


def _bf(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32).astype(BF16)


def _f64(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float32).astype(np.float64)


def _check(got: np.ndarray, ref: np.ndarray, absref: np.ndarray, k: int) -> None:
    assert got.dtype == BF16
    err = np.abs(_f64(got) - ref)
    bound = 2.0 ** -8 * np.abs(ref) + k * 2.0 ** -23 * absref
    assert (err <= bound).all(), float((err - bound).max())


def test_bf16_conv_runs_in_onednn_bf16_kernels() -> None:
    assert lowp.use_bf16_conv(BF16) == lowp.bf16_native()
    assert not lowp.use_bf16_conv(np.dtype(np.float16))
    # few input channels (LeNet's first conv has 1) go through float32, where oneDNN's bf16 kernels,
    # padding channels to 16, were up to 6x slower; from 6 channels every pass is bf16
    assert not lowp.use_bf16_conv(BF16, 1, "forward") and not lowp.use_bf16_conv(BF16, 1, "backward_weights")
    assert not lowp.use_bf16_conv(BF16, 3, "backward_data")
    for kind in ("forward", "backward_data", "backward_weights"):
        assert lowp.use_bf16_conv(BF16, 6, kind) == lowp.bf16_native()
    if not lowp.bf16_native():  # no bf16 hardware: conv2d computes in float32 (conv_pool._via_f32)
        return
    impl = _kernels.conv2d_bf16_impl((4, 3, 16, 16), (8, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1)
    assert set(impl) == {"forward", "backward_data", "backward_weights"}
    # oneDNN's jit bf16 kernels or its bf16 GEMM-based convolution ("gemm:jit"), never the reference code
    assert impl["forward"].startswith("jit_bf16"), impl
    assert not any("ref" in v for v in impl.values()), impl


@pytest.mark.parametrize("geom", GEOMS, ids=[str(i) for i in range(len(GEOMS))])
def test_bf16_conv_forward_and_backward_against_float64_oracle(geom: tuple) -> None:
    xs, ws, stride, pad, dil, g = geom
    rng = np.random.default_rng(sum(xs) + sum(ws))
    x, w, b = _bf(rng.standard_normal(xs)), _bf(rng.standard_normal(ws)), _bf(rng.standard_normal(ws[0]))
    k = ws[1] * ws[2] * ws[3]
    y = cp.Conv2D(ms.Tensor(x), ms.Tensor(w), ms.Tensor(b), stride=stride, pad=pad, dilation=dil, group=g)
    ref = cp._np_conv2d(_f64(x), _f64(w), _f64(b), stride, pad, dil, g)
    absref = cp._np_conv2d(np.abs(_f64(x)), np.abs(_f64(w)), np.abs(_f64(b)), stride, pad, dil, g)
    _check(y.asnumpy(), ref, absref, k + 1)

    dy = _bf(rng.standard_normal(ref.shape))
    dx = cp.Conv2DBackpropInput(ms.Tensor(dy), ms.Tensor(w), input_size=xs, stride=stride, pad=pad, dilation=dil,
                                group=g)
    ref = cp._np_conv2d_backprop_input(_f64(dy), _f64(w), xs, stride, pad, dil, g)
    absref = cp._np_conv2d_backprop_input(np.abs(_f64(dy)), np.abs(_f64(w)), xs, stride, pad, dil, g)
    _check(dx.asnumpy(), ref, absref, ws[0] // g * ws[2] * ws[3])

    dw = cp.Conv2DBackpropFilter(ms.Tensor(dy), ms.Tensor(x), filter_size=ws, stride=stride, pad=pad, dilation=dil,
                                 group=g)
    ref = cp._np_conv2d_backprop_filter(_f64(dy), _f64(x), ws, stride, pad, dil, g)
    absref = cp._np_conv2d_backprop_filter(np.abs(_f64(dy)), np.abs(_f64(x)), ws, stride, pad, dil, g)
    terms = dy.shape[0] * dy.shape[2] * dy.shape[3]
    _check(dw.asnumpy(), ref, absref, terms)

    # the fused training-step backward gives the same bits as the separate primitives, bias included
    gx, gw, gb = cp.Conv2DBackprop(ms.Tensor(dy), ms.Tensor(x), ms.Tensor(w), stride=stride, pad=pad, dilation=dil,
                                   group=g, with_bias=True)
    np.testing.assert_array_equal(gx.asnumpy().view(np.uint16), dx.asnumpy().view(np.uint16))
    np.testing.assert_array_equal(gw.asnumpy().view(np.uint16), dw.asnumpy().view(np.uint16))
    dyf = _f64(dy)
    _check(gb.asnumpy(), dyf.sum(axis=(0, 2, 3)), np.abs(dyf).sum(axis=(0, 2, 3)), terms)


def test_bf16_conv_refuses_bad_geometry_with_a_clear_error() -> None:
    x, w = np.zeros((1, 4, 8, 8), np.uint16), np.zeros((6, 3, 3, 3), np.uint16)
    with pytest.raises(ValueError, match="conv2d_bf16: weight in-channels"):
        _kernels.conv2d_bf16_forward(x, w, None, (1, 1), (0, 0, 0, 0), (1, 1), 1)
    with pytest.raises(ValueError, match="conv2d_bf16: kernel larger"):
        _kernels.conv2d_bf16_forward(x, np.zeros((6, 4, 9, 9), np.uint16), None, (1, 1), (0, 0, 0, 0), (1, 1), 1)


def test_fp16_conv_backprop_computes_in_float32_and_stores_float16() -> None:
    xs, ws, stride, pad, dil, g = GEOMS[1]
    rng = np.random.default_rng(11)
    x, w = rng.standard_normal(xs).astype(np.float16), rng.standard_normal(ws).astype(np.float16)
    dy = rng.standard_normal(cp._conv_geom("t", xs, ws, stride, pad, dil, g)).astype(np.float16)
    gx, gw, gb = cp.Conv2DBackprop(ms.Tensor(dy), ms.Tensor(x), ms.Tensor(w), stride=stride, pad=pad, dilation=dil,
                                   group=g, with_bias=True)
    assert gx.dtype == gw.dtype == gb.dtype == ms.float16
    ref = cp._np_conv2d_backprop_input(dy.astype(np.float64), w.astype(np.float64), xs, stride, pad, dil, g)
    np.testing.assert_allclose(gx.asnumpy().astype(np.float64), ref, rtol=2.0 ** -10, atol=1e-2)
    ref = cp._np_conv2d_backprop_filter(dy.astype(np.float64), x.astype(np.float64), ws, stride, pad, dil, g)
    np.testing.assert_allclose(gw.asnumpy().astype(np.float64), ref, rtol=2.0 ** -10, atol=2e-2)
    np.testing.assert_allclose(gb.asnumpy().astype(np.float64), dy.astype(np.float64).sum(axis=(0, 2, 3)),
                               rtol=2.0 ** -10, atol=2e-2)


@pytest.mark.parametrize("dt", [np.dtype(np.float16), BF16], ids=["float16", "bfloat16"])
def test_relu_and_its_gradient_on_every_16bit_pattern(dt: np.dtype) -> None:
    # all 65,536 bit patterns (zeros, subnormals, infinities, NaNs) against float32 NumPy on the
    # exactly-converted values: ReLU and the mask multiply are exact, so the bits must agree
    bits = np.arange(1 << 16, dtype=np.uint16)
    a = bits.view(dt)
    a32 = a.astype(np.float32)
    got = ops.relu(ms.Tensor(a)).asnumpy()
    assert got.dtype == dt
    ref = np.maximum(a32, 0)
    nan = np.isnan(ref)
    np.testing.assert_array_equal(got.astype(np.float32)[~nan], ref[~nan])
    assert np.isnan(got.astype(np.float32)[nan]).all()

    rng = np.random.default_rng(4)
    y = rng.permutation(bits).view(dt)  # every pattern as the ReLU output, against every g
    got = cp._lowp().relu_grad(a, y)
    assert got is not None and got.dtype == dt
    with np.errstate(invalid="ignore"):  # inf * 0 is NaN, as it should be
        ref = np.multiply(a32, y.astype(np.float32) > 0)
    nan = np.isnan(ref)
    g32 = got.astype(np.float32)
    np.testing.assert_array_equal(g32[~nan], ref[~nan])
    np.testing.assert_array_equal(np.signbit(g32[~nan]), np.signbit(ref[~nan]))  # -0 where g < 0 is masked
    assert np.isnan(g32[nan]).all()


def test_max_pool_and_bias_grad_in_float16_keep_indices_and_sum_in_float32() -> None:
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float16)
    y, idx = cp.MaxPool(ms.Tensor(x), kernel_size=(2, 2), strides=(2, 2))
    y32, idx32 = _kernels.max_pool2d_forward(x.astype(np.float32), (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), (4, 4))
    assert y.dtype == ms.float16 and idx.dtype == ms.int64
    np.testing.assert_array_equal(y.asnumpy(), y32.astype(np.float16))
    np.testing.assert_array_equal(idx.asnumpy(), idx32)
    d = rng.standard_normal((64, 5, 9, 9)).astype(np.float16)
    db = cp.BiasAddGrad(ms.Tensor(d)).asnumpy()
    assert db.dtype == np.float16
    # float32 accumulation: within one float16 rounding of the float64 sum (NumPy's float16 sum was not)
    np.testing.assert_allclose(db.astype(np.float64), d.astype(np.float64).sum(axis=(0, 2, 3)), rtol=2.0 ** -11,
                               atol=2.0 ** -14)


@pytest.mark.parametrize("dt", [np.dtype(np.float16), BF16], ids=["float16", "bfloat16"])
def test_bias_add_and_its_gradient_in_16bit(dt: np.dtype) -> None:
    # Add in float32 with C++ casts gives NumPy's / ml_dtypes' own bits (they also convert, add in
    # float32 and round); SumTo (a Dense bias gradient) accumulates in float32 and rounds once
    rng = np.random.default_rng(8)
    a = (rng.standard_normal((64, 256)) * 50).astype(np.float32).astype(dt)
    b = rng.standard_normal(256).astype(np.float32).astype(dt)
    got = ops.add(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    assert got.dtype == dt
    np.testing.assert_array_equal(got.view(np.uint16), np.add(a, b).view(np.uint16))
    from spore.ops.array import sum_to

    s = sum_to(ms.Tensor(a), (256,)).asnumpy()
    assert s.dtype == dt
    ref = a.astype(np.float64).sum(axis=0)
    ulp = 2.0 ** (-10 if dt == np.float16 else -7)  # one rounding of the float32 sum
    err = np.abs(s.astype(np.float64) - ref)
    assert (err <= ulp * np.abs(ref) + 64 * 2.0 ** -24 * np.abs(a.astype(np.float64)).sum(axis=0)).all()
    s3 = sum_to(ms.Tensor(a.reshape(4, 16, 256)), (1, 16, 1)).asnumpy()
    np.testing.assert_allclose(s3.astype(np.float64), a.reshape(4, 16, 256).astype(np.float64).sum(
        axis=(0, 2), keepdims=True), rtol=ulp, atol=1e-2)


def _cnn_losses(mode: int, monkeypatch: pytest.MonkeyPatch, calls: dict[str, int]) -> list[float]:
    from spore import nn

    for name in ("conv2d", "conv2d_backward_data", "conv2d_backward_weights"):
        real = getattr(lowp, name)

        def counted(*a: object, _real: object = real, _name: str = name, **k: object) -> object:
            calls[_name] = calls.get(_name, 0) + 1
            return _real(*a, **k)  # type: ignore[operator]

        monkeypatch.setattr(lowp, name, counted)
    ms.set_context(mode=mode)
    try:
        ms.set_seed(3)
        net = nn.SequentialCell([nn.Conv2d(3, 8, 3, pad_mode="same", has_bias=True), nn.ReLU(), nn.MaxPool2d(2, 2),
                                 nn.Conv2d(8, 8, 3, pad_mode="same"), nn.ReLU(), nn.Flatten(), nn.Dense(8 * 8 * 8, 10)])
        net = ms.amp.auto_mixed_precision(net, "O2", dtype=ms.bfloat16)
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.05, 0.9))
        rng = np.random.default_rng(0)
        x = ms.Tensor(rng.standard_normal((16, 3, 16, 16)).astype(np.float32))
        y = ms.Tensor(rng.integers(0, 10, 16).astype(np.int32))
        return [float(step(x, y).asnumpy()) for _ in range(4)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        monkeypatch.undo()


def test_o2_bf16_convs_run_in_onednn_bf16_in_both_modes_bit_for_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    py_calls: dict[str, int] = {}
    graph_calls: dict[str, int] = {}
    py = _cnn_losses(ms.PYNATIVE_MODE, monkeypatch, py_calls)
    graph = _cnn_losses(ms.GRAPH_MODE, monkeypatch, graph_calls)
    if lowp.bf16_native():  # forward, input gradient (second conv) and weight gradients, every step
        for calls in (py_calls, graph_calls):
            assert calls.get("conv2d", 0) >= 8 and calls.get("conv2d_backward_data", 0) >= 4, calls
            assert calls.get("conv2d_backward_weights", 0) >= 8, calls
    assert py == graph  # the same kernels in the same order: bit for bit
    assert py[-1] < py[0]  # and it learns
