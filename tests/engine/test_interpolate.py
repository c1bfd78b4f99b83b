"""`ops.interpolate` against independent oracles: SciPy's `map_coordinates` (linear modes, sampled
at MindSpore's source coordinates), a per-pixel loop (bicubic, area, nearest), the values MindSpore
and PyTorch document for small cases, and finite differences for the gradient."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.ndimage import map_coordinates

import spore as ms
from spore import ops


def rng(seed=0):
    return np.random.default_rng(seed)


def src_coords(n_in, n_out, align, scale=None, clamp=True):
    scale = n_in / n_out if scale is None else scale
    d = np.arange(n_out, dtype=np.float64)
    if align:
        return d * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros(n_out)
    s = (d + 0.5) * scale - 0.5
    return np.maximum(s, 0) if clamp else s


def oracle_linear(x, out, align, scales=None):
    """Multilinear resize of the spatial axes via scipy, one (N, C) image at a time."""
    spatial = x.shape[2:]
    scales = scales or [None] * len(spatial)
    axes = [src_coords(n, o, align, s) for n, o, s in zip(spatial, out, scales)]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"))
    y = np.empty(x.shape[:2] + tuple(out))
    for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        y[n, c] = map_coordinates(x[n, c], grid, order=1, mode="nearest")
    return y


def keys(t, a=-0.75):
    t = abs(t)
    if t <= 1:
        return ((a + 2) * t - (a + 3)) * t * t + 1
    if t < 2:
        return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return 0.0


def oracle_bicubic(x, out, align):
    h, w = x.shape[2:]
    sy, sx = src_coords(h, out[0], align, clamp=False), src_coords(w, out[1], align, clamp=False)
    y = np.zeros(x.shape[:2] + tuple(out))
    for i, j in itertools.product(range(out[0]), range(out[1])):
        by, bx = math.floor(sy[i]), math.floor(sx[j])
        for p, q in itertools.product(range(-1, 3), range(-1, 3)):
            wgt = keys(sy[i] - (by + p)) * keys(sx[j] - (bx + q))
            y[:, :, i, j] += wgt * x[:, :, min(max(by + p, 0), h - 1), min(max(bx + q, 0), w - 1)]
    return y


@pytest.mark.parametrize("shape,kw", [
    ((1, 2, 5), dict(size=8, mode="linear")),
    ((1, 2, 5), dict(size=8, mode="linear", align_corners=True)),
    ((2, 3, 4, 5), dict(size=(7, 3), mode="bilinear")),
    ((2, 3, 4, 5), dict(size=(7, 9), mode="bilinear", align_corners=True)),
    ((1, 2, 3, 4, 5), dict(size=(2, 5, 7), mode="trilinear")),
])
def test_linear_modes_match_scipy(shape, kw):
    x = rng(1).standard_normal(shape)
    got = ops.interpolate(ms.Tensor(x), **kw).asnumpy()
    size = kw["size"] if isinstance(kw["size"], tuple) else (kw["size"],)
    np.testing.assert_allclose(got, oracle_linear(x, size, bool(kw.get("align_corners"))), rtol=1e-10, atol=1e-12)


def test_scale_factor_uses_its_reciprocal_unless_recomputed():
    x = rng(2).standard_normal((1, 1, 4, 6))
    got = ops.interpolate(ms.Tensor(x), scale_factor=1.7, mode="bilinear").asnumpy()
    assert got.shape == (1, 1, 6, 10)  # floor(4 * 1.7), floor(6 * 1.7)
    np.testing.assert_allclose(got, oracle_linear(x, (6, 10), False, [1 / 1.7, 1 / 1.7]), rtol=1e-10)
    again = ops.interpolate(ms.Tensor(x), scale_factor=1.7, mode="bilinear", recompute_scale_factor=True).asnumpy()
    np.testing.assert_allclose(again, oracle_linear(x, (6, 10), False), rtol=1e-10)


@pytest.mark.parametrize("align", [False, True])
def test_bicubic_matches_a_per_pixel_keys_kernel(align):
    x = rng(3).standard_normal((1, 2, 4, 5))
    got = ops.interpolate(ms.Tensor(x), size=(7, 3), mode="bicubic", align_corners=align).asnumpy()
    np.testing.assert_allclose(got, oracle_bicubic(x, (7, 3), align), rtol=1e-10, atol=1e-12)


def test_documented_small_cases():
    x = ms.Tensor(np.array([[[0.0, 1.0]]]))
    np.testing.assert_allclose(ops.interpolate(x, size=4, mode="linear").asnumpy()[0, 0], [0, 0.25, 0.75, 1])
    np.testing.assert_allclose(ops.interpolate(x, size=4, mode="linear", align_corners=True).asnumpy()[0, 0],
                               [0, 1 / 3, 2 / 3, 1])
    np.testing.assert_array_equal(ops.interpolate(x, size=4).asnumpy()[0, 0], [0, 0, 1, 1])
    y = ms.Tensor(np.arange(5.0).reshape(1, 1, 5))
    np.testing.assert_array_equal(ops.interpolate(y, size=3, mode="nearest").asnumpy()[0, 0], [0, 1, 3])
    np.testing.assert_array_equal(ops.interpolate(y, size=3, mode="nearest-exact").asnumpy()[0, 0], [0, 2, 4])
    np.testing.assert_allclose(ops.interpolate(y, size=2, mode="area").asnumpy()[0, 0], [1.0, 3.0])  # [0..2], [2..4]


def test_nearest_and_area_match_loops():
    x = rng(4).standard_normal((2, 3, 6, 5))
    got = ops.interpolate(ms.Tensor(x), size=(4, 8), mode="nearest").asnumpy()
    iy = [min(int(math.floor(i * 6 / 4)), 5) for i in range(4)]
    ix = [min(int(math.floor(j * 5 / 8)), 4) for j in range(8)]
    np.testing.assert_array_equal(got, x[:, :, iy][:, :, :, ix])
    area = ops.interpolate(ms.Tensor(x), size=(4, 3), mode="area").asnumpy()
    want = np.zeros((2, 3, 4, 3))
    for i, j in itertools.product(range(4), range(3)):
        y0, y1 = (i * 6) // 4, -(-(i + 1) * 6 // 4)
        x0, x1 = (j * 5) // 3, -(-(j + 1) * 5 // 3)
        want[:, :, i, j] = x[:, :, y0:y1, x0:x1].mean((2, 3))
    np.testing.assert_allclose(area, want, rtol=1e-12)


@pytest.mark.parametrize("mode,kw", [("bilinear", {}), ("bilinear", {"align_corners": True}), ("bicubic", {}),
                                     ("nearest", {}), ("area", {})])
def test_gradient_matches_finite_differences(mode, kw):
    x0 = rng(5).standard_normal((1, 2, 3, 4))
    wts = rng(6).standard_normal((1, 2, 5, 3))

    def loss(v):
        return (ops.interpolate(v, size=(5, 3), mode=mode, **kw) * ms.Tensor(wts)).sum()

    g = ms.grad(loss)(ms.Tensor(x0)).asnumpy()
    num = np.zeros_like(x0)
    eps = 1e-6
    for idx in np.ndindex(x0.shape):
        d = np.zeros_like(x0)
        d[idx] = eps
        num[idx] = (float(loss(ms.Tensor(x0 + d)).asnumpy()) - float(loss(ms.Tensor(x0 - d)).asnumpy())) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-8)


def test_keeps_float32_and_casts_integers():
    x = ms.Tensor(np.ones((1, 1, 2, 2), np.float32))
    assert ops.interpolate(x, scale_factor=2, mode="bilinear").dtype == ms.float32
    assert ops.interpolate(ms.Tensor(np.ones((1, 1, 2), np.int32)), size=3).dtype == ms.float32


@pytest.mark.parametrize("args,kw,err,match", [
    ((np.zeros((1, 1, 4)),), dict(size=3, mode="bilinear"), ms.ShapeError, "4-D"),
    ((np.zeros((1, 1, 4, 4)),), dict(size=3, mode="cubic"), ValueError, "mode must be one of"),
    ((np.zeros((1, 1, 4, 4)),), dict(mode="bilinear"), ValueError, "exactly one of size and scale_factor"),
    ((np.zeros((1, 1, 4, 4)),), dict(size=3, scale_factor=2, mode="bilinear"), ValueError, "exactly one"),
    ((np.zeros((1, 1, 4, 4)),), dict(size=(3, 0), mode="bilinear"), ValueError, "positive"),
    ((np.zeros((1, 1, 4, 4)),), dict(size=3, mode="nearest", align_corners=True), ValueError, "align_corners"),
])
def test_bad_arguments_are_named(args, kw, err, match):
    with pytest.raises(err, match=match):
        ops.interpolate(ms.Tensor(args[0]), **kw)
