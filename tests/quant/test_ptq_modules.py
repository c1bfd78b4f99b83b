"""Observers and the int8 cells (QuantDense / QuantConv2d) against NumPy oracles."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import nn
from spore.errors import SporeError
from spore.quant import (
    KLObserver,
    MinMaxObserver,
    MovingAverageMinMaxObserver,
    PercentileObserver,
    QuantConv2d,
    QuantDense,
)
from spore.quant.observers import qparams_from_range


def test_minmax_per_tensor_and_channel() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(4, 5)).astype(np.float32), rng.normal(size=(4, 5)).astype(np.float32) * 3
    o, oc = MinMaxObserver(), MinMaxObserver(axis=1)
    for x in (a, b):
        o.update(x)
        oc.update(x)
    both = np.concatenate([a, b])
    assert o.range() == (both.min(), both.max())
    np.testing.assert_array_equal(oc.range()[0], both.min(axis=0))
    s, z = oc.qparams("int8", symmetric=True, narrow_range=True)
    assert s.shape == (5,) and z.shape == (5,) and s.dtype == np.float32 and z.dtype == np.int32
    np.testing.assert_allclose(s, np.maximum(-both.min(0), both.max(0)) / 127, rtol=1e-6)
    assert not z.any()


def test_asymmetric_qparams_cover_the_range_and_zero() -> None:
    s, z = qparams_from_range(-1.0, 3.0, "uint8", symmetric=False)
    assert s.shape == () and z.shape == ()
    assert np.isclose(float(s), 4.0 / 255)
    q = lambda v: np.clip(np.rint(v / s) + z, 0, 255)  # noqa: E731
    assert q(-1.0) == 0 and q(3.0) == 255
    assert (q(0.0) - z) * s == 0.0  # zero is exact
    s, z = qparams_from_range(0.5, 2.0, "uint8", symmetric=False)  # widened to include 0
    assert int(z) == 0 and np.isclose(float(s), 2.0 / 255)
    s, z = qparams_from_range(-2.0, 1.0, "uint8", symmetric=True)
    assert int(z) == 128 and np.isclose(float(s), 2.0 / 127.5)
    s, _ = qparams_from_range(0.0, 0.0, "int8")
    assert float(s) > 0  # never zero


def test_moving_average() -> None:
    o = MovingAverageMinMaxObserver(averaging_constant=0.5)
    o.update(np.array([-1.0, 1.0], np.float32))
    o.update(np.array([-3.0, 5.0], np.float32))
    assert o.range() == (-2.0, 3.0)


def test_percentile_and_kl_clip_outliers() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=200_000).astype(np.float32)
    x[:3] = [40.0, -35.0, 50.0]  # three outliers
    p, k, m = PercentileObserver(99.9), KLObserver(), MinMaxObserver()
    for chunk in np.split(x, 4):
        p.update(chunk)
        k.update(chunk)
        m.update(chunk)
    tp = float(p.range()[1])
    true = float(np.percentile(np.abs(x), 99.9))
    assert abs(tp - true) < 2 * 50.0 / 2048 + 1e-3  # within two histogram bins of NumPy's percentile
    tk = float(k.range()[1])
    assert 2.0 < tk < 10.0, tk  # clips the outliers, keeps the bulk of a unit Gaussian
    assert float(m.range()[1]) == 50.0


def test_observer_errors() -> None:
    with pytest.raises(SporeError, match="no data observed"):
        MinMaxObserver().qparams()
    with pytest.raises(SporeError, match="NaN"):
        MinMaxObserver().update(np.array([np.nan], np.float32))
    o = MinMaxObserver()
    o.update(np.ones(3, np.float32))
    with pytest.raises(SporeError, match="dtype must be"):
        o.qparams("int3")
    with pytest.raises(SporeError, match="percentile"):
        PercentileObserver(0)


def _setup_dense(relu: bool, seed: int = 0):
    rng = np.random.default_rng(seed)
    ms.set_seed(seed)
    d = nn.Dense(37, 11)
    x = rng.normal(size=(5, 37)).astype(np.float32)
    xo = MinMaxObserver()
    xo.update(x)
    xs, xz = xo.qparams("uint8", symmetric=False)
    wo = MinMaxObserver(axis=0)
    wo.update(d.weight.asnumpy())
    ws, _ = wo.qparams("int8", narrow_range=True)
    y = d(ms.Tensor(x)).asnumpy()
    yo = MinMaxObserver()
    yo.update(np.maximum(y, 0) if relu else y)
    ys, yz = yo.qparams("uint8", symmetric=False)
    return d, x, (ws, xs, xz, ys, yz), y


def _oracle(acc: np.ndarray, q, axis_shape, ys, yz, relu):
    """The epilogue in float32 NumPy: acc * (xs * ws) + bq * (xs * ws), ReLU, requantize."""
    sc = q.chan_scale.reshape(axis_shape)
    bf = (q.b_q.astype(np.int64) * q.b_scale).astype(np.float32).reshape(axis_shape)
    y = acc.astype(np.float32) * sc + bf
    if relu:
        y = np.maximum(y, 0)
    yq = np.clip(np.rint(y / np.float32(ys)) + yz, 0, 255)
    return yq, (yq - yz).astype(np.float32) * np.float32(ys)


@pytest.mark.parametrize("relu", [False, True])
def test_quant_dense_exact(relu: bool) -> None:
    d, x, (ws, xs, xz, ys, yz), y = _setup_dense(relu)
    q = QuantDense.from_float(d, ws, xs, xz, ys, yz, relu=relu)
    xq = np.clip(np.rint(x / xs) + xz, 0, 255).astype(np.uint8)
    acc = q.int32_accumulate(xq)
    oracle = (xq.astype(np.int64) - int(xz)) @ q.w_q.T.astype(np.int64)
    assert acc.dtype == np.int32
    np.testing.assert_array_equal(acc, oracle)  # the int8 GEMM is exact
    np.testing.assert_array_equal(q.w_q, np.clip(np.rint(d.weight.asnumpy() / ws[:, None]), -127, 127))
    _, want = _oracle(oracle, q, (1, -1), ys, yz, relu)
    got = q(ms.Tensor(x)).asnumpy()
    np.testing.assert_array_equal(got, want)  # the fused epilogue is the float32 oracle, bit for bit
    ref = np.maximum(y, 0) if relu else y
    assert np.abs(got - ref).max() < 4 * float(ys)  # and close to the float layer


def test_quant_dense_float_output_and_uint8_input() -> None:
    d, x, (ws, xs, xz, _, _), y = _setup_dense(False, seed=3)
    q = QuantDense.from_float(d, ws, xs, xz)  # last layer: float32 out
    xq = np.clip(np.rint(x / xs) + xz, 0, 255).astype(np.uint8)
    got = q(ms.Tensor(x)).asnumpy()
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, q(ms.Tensor(xq)).asnumpy())  # a uint8 input skips quantization
    acc = (xq.astype(np.int64) - int(xz)) @ q.w_q.T.astype(np.int64)
    want = acc.astype(np.float32) * q.chan_scale + q.bias_f
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got, y, atol=0.05)


@pytest.mark.parametrize("pad_mode,padding,stride,group", [("pad", (1, 0, 2, 1), 1, 1), ("same", 0, 2, 1),
                                                           ("valid", 0, 1, 2)])
def test_quant_conv_exact(pad_mode, padding, stride, group) -> None:
    rng = np.random.default_rng(4)
    ms.set_seed(4)
    conv = nn.Conv2d(4, 6, 3, stride=stride, pad_mode=pad_mode, padding=padding, group=group, has_bias=True)
    x = rng.normal(size=(2, 4, 9, 8)).astype(np.float32)
    y = conv(ms.Tensor(x)).asnumpy()
    xo, wo, yo = MinMaxObserver(), MinMaxObserver(axis=0), MinMaxObserver()
    xo.update(x)
    wo.update(conv.weight.asnumpy())
    yo.update(np.maximum(y, 0))
    xs, xz = xo.qparams("uint8", symmetric=False)
    ws, _ = wo.qparams("int8", narrow_range=True)
    ys, yz = yo.qparams("uint8", symmetric=False)
    q = QuantConv2d.from_float(conv, ws, xs, xz, ys, yz, relu=True)
    xq = np.clip(np.rint(x / xs) + xz, 0, 255).astype(np.uint8)
    acc = q.int32_accumulate(xq)
    # int64 oracle: pad with the zero point, then a direct convolution
    t, left, b, r = q.pads(9, 8)
    xp = np.pad(xq.astype(np.int64) - int(xz), ((0, 0), (0, 0), (t, b), (left, r)))
    oh, ow = acc.shape[2:]
    cin_g, cout_g = 4 // group, 6 // group
    oracle = np.zeros((2, 6, oh, ow), np.int64)
    for o in range(6):
        g = o // cout_g
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * cin_g:(g + 1) * cin_g, i * stride:i * stride + 3, j * stride:j * stride + 3]
                oracle[:, o, i, j] = (patch * q.w_q[o].astype(np.int64)).sum(axis=(1, 2, 3))
    np.testing.assert_array_equal(acc, oracle)
    assert acc.shape == y.shape
    _, want = _oracle(oracle, q, (1, -1, 1, 1), ys, yz, True)
    got = q(ms.Tensor(x)).asnumpy()
    np.testing.assert_array_equal(got, want)
    assert np.abs(got - np.maximum(y, 0)).max() < 4 * float(ys)


def test_qmodule_errors() -> None:
    d = nn.Dense(4, 3)
    with pytest.raises(SporeError, match="w_scale must hold 3"):
        QuantDense.from_float(d, np.ones(2, np.float32), 0.1, 0)
    with pytest.raises(SporeError, match="x_zp must be a uint8"):
        QuantDense.from_float(d, np.ones(3, np.float32), 0.1, 300)
    with pytest.raises(SporeError, match="expected an nn.Conv2d"):
        QuantConv2d.from_float(d, np.ones(3, np.float32), 0.1, 0)
    q = QuantDense.from_float(d, np.ones(3, np.float32), 0.1, 0)
    with pytest.raises(SporeError, match=r"input of shape \(\.\.\., 4\)"):
        q(ms.Tensor(np.ones((2, 5), np.float32)))


def test_quant_stubs_round_trip() -> None:
    from spore.quant import DeQuantStub, QuantStub

    x = np.array([[-1.0, -0.26, 0.0, 0.25, 0.75, 10.0]], np.float32)
    qs, dq = QuantStub(0.5, 3), DeQuantStub(0.5, 3)
    q = qs(ms.Tensor(x)).asnumpy()
    assert q.dtype == np.uint8
    np.testing.assert_array_equal(q, np.clip(np.rint(x / np.float32(0.5)) + 3, 0, 255))  # half to even: 0.25 -> 0
    np.testing.assert_array_equal(dq(ms.Tensor(q)).asnumpy(), (q.astype(np.float32) - 3) * 0.5)
    with pytest.raises(SporeError, match="x_scale must be one positive float"):
        QuantStub(0.0)
