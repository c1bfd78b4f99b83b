"""ExtractVolumePatches, ScaleAndTranslate, ExtractGlimpse and multi_scale_deformable_attn_function
(issue 14, vision slice) against loop-based NumPy oracles written from TensorFlow's and Deformable
DETR's definitions, with finite-difference gradients where the op is differentiable."""

from __future__ import annotations

import math

import numpy as np
import pytest

import spore as ms
from spore import ops

T = ms.Tensor


def fd(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    g = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        hi, lo = x.copy(), x.copy()
        hi[idx] += eps
        lo[idx] -= eps
        g[idx] = (f(hi) - f(lo)) / (2 * eps)
    return g


# --- ExtractVolumePatches ------------------------------------------------------------------------------
def volume_patches_ref(x: np.ndarray, k: tuple, s: tuple, padding: str) -> np.ndarray:
    n, c, *sp = x.shape
    if padding == "SAME":
        outs = [math.ceil(size / st) for size, st in zip(sp, s)]
        pads = [max((o - 1) * st + kk - size, 0) for o, st, kk, size in zip(outs, s, k, sp)]
        before = [p // 2 for p in pads]
        xp = np.pad(x, [(0, 0), (0, 0)] + [(b, p - b) for b, p in zip(before, pads)])
    else:
        outs = [(size - kk) // st + 1 for size, kk, st in zip(sp, k, s)]
        xp = x
    out = np.zeros((n, k[0] * k[1] * k[2] * c, *outs), x.dtype)
    for od, oh, ow in np.ndindex(*outs):
        depth = 0
        for a, b, cc in np.ndindex(*k):
            for ch in range(c):
                out[:, depth, od, oh, ow] = xp[:, ch, od * s[0] + a, oh * s[1] + b, ow * s[2] + cc]
                depth += 1
    return out


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_extract_volume_patches_matches_tensorflow_layout(padding):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5, 6)).astype(np.float32)
    got = ops.ExtractVolumePatches((1, 1, 2, 2, 3), [1, 1, 1, 2, 2], padding)(T(x)).asnumpy()
    np.testing.assert_array_equal(got, volume_patches_ref(x, (2, 2, 3), (1, 2, 2), padding))
    got2 = ops.ExtractVolumePatches(2, 3, padding)(T(x)).asnumpy()
    np.testing.assert_array_equal(got2, volume_patches_ref(x, (2, 2, 2), (3, 3, 3), padding))


def test_extract_volume_patches_gradient_counts_window_membership():
    x = np.random.default_rng(1).standard_normal((1, 1, 3, 4, 4))
    g = ms.grad(lambda a: ops.ExtractVolumePatches(2, 1, "VALID")(a).sum())(T(x)).asnumpy()
    count = np.zeros((3, 4, 4))
    for d, h, w in np.ndindex(2, 3, 3):
        count[d:d + 2, h:h + 2, w:w + 2] += 1
    np.testing.assert_array_equal(g[0, 0], count)


def test_extract_volume_patches_errors():
    with pytest.raises(ValueError, match="ExtractVolumePatches: the first two"):
        ops.ExtractVolumePatches((2, 1, 1, 1, 1), 1, "VALID")
    with pytest.raises(ValueError, match="ExtractVolumePatches: padding"):
        ops.ExtractVolumePatches(1, 1, "FULL")
    with pytest.raises(ValueError, match="ExtractVolumePatches"):
        ops.ExtractVolumePatches(5, 1, "VALID")(T(np.zeros((1, 1, 3, 3, 3), np.float32)))


# --- ScaleAndTranslate ---------------------------------------------------------------------------------
def _kernel(name: str, x: float) -> float:
    x = abs(x)
    if name.startswith("lanczos"):
        r = float(name[-1])
        if x > r:
            return 0.0
        if x <= 1e-3:
            return 1.0
        return r * math.sin(math.pi * x) * math.sin(math.pi * x / r) / (math.pi ** 2 * x * x)
    if name == "triangle":
        return max(1 - x, 0.0)
    if name == "box":
        return 1.0 if x < 0.5 else 0.5 if x == 0.5 else 0.0
    if name == "gaussian":
        return math.exp(-x * x / 0.5) if x < 1.5 else 0.0
    if name == "keyscubic":
        return 0.0 if x >= 2 else ((-0.5 * x + 2.5) * x - 4) * x + 2 if x >= 1 else (1.5 * x - 2.5) * x * x + 1
    return (0.0 if x >= 2 else ((-7 / 18 * x + 2) * x - 10 / 3) * x + 16 / 9 if x >= 1
            else (7 / 6 * x - 2) * x * x + 8 / 9)


_RADIUS = {"lanczos1": 1, "lanczos3": 3, "lanczos5": 5, "triangle": 1, "box": 1, "gaussian": 1.5, "keyscubic": 2,
           "mitchellcubic": 2}


def resample_axis(img: np.ndarray, axis: int, out: int, scale: float, trans: float, kernel: str, aa: bool):
    """TensorFlow's scale_and_translate along one axis of img, pixel by pixel."""
    size = img.shape[axis]
    ks = max(1 / scale, 1.0) if aa else 1.0
    rad = _RADIUS[kernel] * ks
    moved = np.moveaxis(img, axis, 0)
    res = np.zeros((out, *moved.shape[1:]))
    for x in range(out):
        sample = (x + 0.5 - trans) / scale
        if sample < 0 or sample > size:
            continue
        lo = min(max(math.ceil(sample - rad - 0.5), 0), size - 1)
        hi = min(max(math.floor(sample + rad - 0.5), 0), size - 1) + 1
        ws = [_kernel(kernel, (s + 0.5 - sample) / ks) for s in range(lo, hi)]
        tot = sum(ws)
        for s, wgt in zip(range(lo, hi), ws):
            res[x] += (wgt / tot if abs(tot) > 1e-30 else wgt) * moved[s]
    return np.moveaxis(res, 0, axis)


@pytest.mark.parametrize("kernel", sorted(_RADIUS))
@pytest.mark.parametrize("aa", [True, False])
def test_scale_and_translate_matches_tensorflow_rule(kernel, aa):
    r = np.random.default_rng(2)
    img = r.standard_normal((2, 7, 6, 2)).astype(np.float32)
    size, scale, trans = (4, 9), (0.6, 1.7), (0.37, -0.81)  # no sample exactly on a box-kernel edge
    got = ops.ScaleAndTranslate(kernel, aa)(T(img), T(np.array(size, np.int32)), T(np.array(scale, np.float32)),
                                            T(np.array(trans, np.float32))).asnumpy()
    want = resample_axis(resample_axis(img.astype(np.float64), 1, size[0], scale[0], trans[0], kernel, aa),
                         2, size[1], scale[1], trans[1], kernel, aa)
    assert got.dtype == np.float32 and got.shape == (2, 4, 9, 2)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_scale_and_translate_identity_and_gradient():
    r = np.random.default_rng(3)
    img = r.standard_normal((1, 5, 4, 1)).astype(np.float32)
    same = ops.ScaleAndTranslate("triangle")(T(img), T(np.array([5, 4])), T(np.array([1.0, 1.0], np.float32)),
                                             T(np.array([0.0, 0.0], np.float32))).asnumpy()
    np.testing.assert_allclose(same, img, atol=1e-6)
    op = ops.ScaleAndTranslate("keyscubic")
    args = (T(np.array([3, 6])), T(np.array([0.7, 1.4], np.float32)), T(np.array([0.1, 0.2], np.float32)))
    probe = r.standard_normal((1, 3, 6, 1))
    g = ms.grad(lambda a: (op(a, *args) * T(probe.astype(np.float32))).sum())(T(img.astype(np.float64)))
    want = fd(lambda a: (resample_axis(resample_axis(a, 1, 3, 0.7, 0.1, "keyscubic", True), 2, 6, 1.4, 0.2,
                                       "keyscubic", True) * probe).sum(), img.astype(np.float64))
    np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-3, atol=1e-4)
    with pytest.raises(ValueError, match="ScaleAndTranslate: kernel_type"):
        ops.ScaleAndTranslate("bicubic")


# --- ExtractGlimpse --------------------------------------------------------------------------------------
def test_extract_glimpse_windows_follow_the_offset_rule():
    img = np.arange(2 * 6 * 8 * 1, dtype=np.float32).reshape(2, 6, 8, 1)
    size = T(np.array([3, 4], np.int32))
    settings = ((True, True, [[0.0, 0.0], [0.5, -0.5]]), (False, True, [[0.2, 0.25], [0.5, 0.1]]),
                (False, False, [[1.0, 2.0], [2.7, 3.9]]), (True, False, [[-1.0, 0.5], [0.0, 1.0]]))
    for centered, normalized, off in settings:
        got = ops.ExtractGlimpse(centered, normalized, False, "zero")(T(img), size, T(np.array(off, np.float32)))
        for b in range(2):
            y, x = off[b]
            if normalized:
                x, y = x * 8, y * 6
                if centered:
                    x, y = x / 2 + 4 - 2, y / 2 + 3 - 1.5
            elif centered:
                x, y = x + 4, y + 3
            top, left = int(y), int(x)
            want = np.zeros((3, 4, 1), np.float32)
            for i in range(3):
                for j in range(4):
                    if 0 <= top + i < 6 and 0 <= left + j < 8:
                        want[i, j] = img[b, top + i, left + j]
            np.testing.assert_array_equal(got.asnumpy()[b], want)


def test_extract_glimpse_noise_outside_the_image():
    r = np.random.default_rng(4)
    img = r.uniform(2.0, 5.0, (1, 4, 4, 2)).astype(np.float32)
    size = T(np.array([4, 4], np.int32))
    off = T(np.array([[1.6, 1.6]], np.float32))  # window from (3, 3): mostly outside (bottom right)
    ms.set_seed(3)
    u = ops.ExtractGlimpse()(T(img), size, off).asnumpy()[0]
    inside = img[0, 3:, 3:]
    np.testing.assert_array_equal(u[:1, :1], inside)
    outside = np.ones((4, 4), bool)
    outside[:1, :1] = False
    assert (u[outside] >= img.min()).all() and (u[outside] <= img.max()).all() and np.unique(u[outside]).size > 4
    gauss = ops.ExtractGlimpse(uniform_noise=False, noise="gaussian")(T(img), size, off).asnumpy()[0]
    for ch in range(2):
        assert img[0, ..., ch].min() <= gauss[outside, ch].min() and gauss[outside, ch].max() <= img[0, ..., ch].max()
    with pytest.raises(ValueError, match="ExtractGlimpse: uniform_noise"):
        ops.ExtractGlimpse(noise="zero")


# --- multi_scale_deformable_attn_function -------------------------------------------------------------
def msda_ref(value, shapes, starts, loc, weight):
    bs, _, heads, dims = value.shape
    nq, levels, npts = loc.shape[1], loc.shape[3], loc.shape[4]
    out = np.zeros((bs, nq, heads, dims))
    for b, q, h, lv, p in np.ndindex(bs, nq, heads, levels, npts):
        hh, ww = shapes[lv]
        fmap = value[b, starts[lv]:starts[lv] + hh * ww, h].reshape(hh, ww, dims)
        x, y = loc[b, q, h, lv, p, 0] * ww - 0.5, loc[b, q, h, lv, p, 1] * hh - 0.5
        x0, y0 = math.floor(x), math.floor(y)
        acc = np.zeros(dims)
        for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
            for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
                if 0 <= yy < hh and 0 <= xx < ww:
                    acc += wy * wx * fmap[yy, xx]
        out[b, q, h] += weight[b, q, h, lv, p] * acc
    return out.reshape(bs, nq, heads * dims)


def test_multi_scale_deformable_attention_matches_oracle_and_gradients():
    r = np.random.default_rng(5)
    shapes = np.array([[3, 4], [2, 2]])
    starts = np.array([0, 12])
    value = r.standard_normal((1, 16, 2, 3))
    loc = r.uniform(-0.1, 1.1, (1, 2, 2, 2, 2, 2))
    weight = r.random((1, 2, 2, 2, 2))
    got = ops.multi_scale_deformable_attn_function(T(value), T(shapes), T(starts), T(loc), T(weight))
    np.testing.assert_allclose(got.asnumpy(), msda_ref(value, shapes, starts, loc, weight), rtol=1e-10)
    probe = r.standard_normal((1, 2, 6))
    grads = ms.grad(lambda v, lo, w: (ops.multi_scale_deformable_attn_function(v, T(shapes), T(starts), lo, w)
                                      * T(probe)).sum(), grad_position=(0, 1, 2))(T(value), T(loc), T(weight))
    args = [value, loc, weight]
    for i, g in enumerate(grads):
        def f(a, i=i):
            xs = list(args)
            xs[i] = a
            return (msda_ref(xs[0], shapes, starts, xs[1], xs[2]) * probe).sum()
        np.testing.assert_allclose(g.asnumpy(), fd(f, args[i]), rtol=1e-5, atol=1e-7)
    with pytest.raises(ValueError, match="multi_scale_deformable_attn_function"):
        ops.multi_scale_deformable_attn_function(T(value), T(np.array([[3, 4], [2, 3]])), T(starts), T(loc), T(weight))
