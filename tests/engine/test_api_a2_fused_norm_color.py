"""add_rms_norm, add_layer_norm, bidense, HSVToRGB, AdjustHue, AdjustSaturation
(ops/fused_norm_color_ops.py) against NumPy and Python's colorsys, gradients by finite differences,
and errors."""

import colorsys

import numpy as np
import pytest

import spore as ms
from spore import ops


def T(a):
    return ms.Tensor(np.asarray(a))


def test_add_rms_norm_matches_numpy():
    rng = np.random.default_rng(0)
    x1, x2 = rng.normal(size=(2, 3, 4)).astype(np.float32), rng.normal(size=(2, 3, 4)).astype(np.float32)
    g = rng.normal(size=(3, 4)).astype(np.float32)
    y, rstd, x = ops.add_rms_norm(T(x1), T(x2), T(g), 1e-3)
    s = x1 + x2
    r = 1 / np.sqrt((s ** 2).mean(axis=(1, 2), keepdims=True) + 1e-3)
    np.testing.assert_allclose(x.asnumpy(), s, rtol=1e-6)
    np.testing.assert_allclose(rstd.asnumpy(), r, rtol=1e-5)
    np.testing.assert_allclose(y.asnumpy(), s * r * g, rtol=1e-5, atol=1e-6)
    assert rstd.dtype == ms.float32 and rstd.shape == (2, 1, 1)


def test_add_layer_norm_matches_numpy():
    rng = np.random.default_rng(1)
    x1, x2 = rng.normal(size=(4, 6)), rng.normal(size=(4, 6))
    g, b = rng.normal(size=6), rng.normal(size=6)
    y, mean, rstd, x = ops.add_layer_norm(T(x1), T(x2), T(g), T(b), 1e-5, True)
    s = x1 + x2
    m, v = s.mean(-1, keepdims=True), s.var(-1, keepdims=True)
    np.testing.assert_allclose(mean.asnumpy(), m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd.asnumpy(), 1 / np.sqrt(v + 1e-5), rtol=1e-5)
    np.testing.assert_allclose(y.asnumpy(), (s - m) / np.sqrt(v + 1e-5) * g + b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(x.asnumpy(), s, rtol=1e-12)


def test_bidense_matches_einsum_and_gradient():
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3, 5))
    w, bias = rng.normal(size=(6, 4, 5)), rng.normal(size=6)
    got = ops.bidense(T(a), T(b), T(w), T(bias)).asnumpy()
    np.testing.assert_allclose(got, np.einsum("...i,oij,...j->...o", a, w, b) + bias, rtol=1e-10)
    np.testing.assert_allclose(ops.bidense(T(a), T(b), T(w)).asnumpy(), np.einsum("...i,oij,...j->...o", a, w, b),
                               rtol=1e-10)
    c = rng.normal(size=(2, 3, 6))
    gw = ms.grad(lambda w_: (ops.bidense(T(a), T(b), w_, T(bias)) * T(c)).sum())(T(w)).asnumpy()
    np.testing.assert_allclose(gw, np.einsum("nti,ntj,nto->oij", a, b, c), rtol=1e-10)


def test_hsv_to_rgb_matches_colorsys():
    x = np.random.default_rng(3).uniform(0, 1, (2, 4, 5, 3))
    got = ops.HSVToRGB()(T(x)).asnumpy()
    want = np.array([colorsys.hsv_to_rgb(*p) for p in x.reshape(-1, 3)]).reshape(x.shape)
    np.testing.assert_allclose(got, want, atol=1e-12)


@pytest.mark.parametrize("delta", [0.3, -0.45, 0.0])
def test_adjust_hue_matches_colorsys(delta):
    x = np.random.default_rng(4).uniform(0, 1, (3, 4, 3))
    got = ops.AdjustHue()(T(x), delta).asnumpy()
    want = []
    for p in x.reshape(-1, 3):
        h, s, v = colorsys.rgb_to_hsv(*p)
        want.append(colorsys.hsv_to_rgb((h + delta) % 1.0, s, v))
    np.testing.assert_allclose(got, np.array(want).reshape(x.shape), atol=1e-10)


def test_adjust_saturation_matches_colorsys():
    x = np.random.default_rng(5).uniform(0, 1, (6, 3)).astype(np.float32)
    got = ops.AdjustSaturation()(T(x), T(np.float32(1.7))).asnumpy()
    want = []
    for p in x.astype(np.float64):
        h, s, v = colorsys.rgb_to_hsv(*p)
        want.append(colorsys.hsv_to_rgb(h, min(s * 1.7, 1.0), v))
    np.testing.assert_allclose(got, np.array(want), atol=1e-5)


def test_errors_name_the_op():
    x = T(np.ones((2, 4), np.float32))
    with pytest.raises(Exception, match="add_rms_norm"):
        ops.add_rms_norm(x, x, T(np.ones(3, np.float32)))
    with pytest.raises(Exception, match="add_layer_norm"):
        ops.add_layer_norm(x, x, T(np.ones(4, np.float32)), T(np.ones(3, np.float32)))
    with pytest.raises(Exception, match="bidense"):
        ops.bidense(x, x, T(np.ones((2, 3, 4), np.float32)))
    with pytest.raises(Exception, match="HSVToRGB"):
        ops.HSVToRGB()(x)
    with pytest.raises(TypeError, match="AdjustHue: delta"):
        ops.AdjustHue()(T(np.ones((2, 3), np.float32)), "x")
    with pytest.raises(Exception, match="add_rms_norm"):
        ops.add_rms_norm(T(np.ones((2, 4), np.int32)), x, x)
