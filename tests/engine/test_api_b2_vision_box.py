"""iou/IOU, rotary_position_embedding, Mod, RGBToHSV, TridiagonalMatMul and ResizeNearestNeighbor
(ops/vision_box_ops.py) against independent NumPy/colorsys oracles, with gradients by finite
differences and the errors naming the op."""

from __future__ import annotations

import colorsys

import numpy as np
import pytest

import spore as ms
from spore import Tensor, ops
from spore.errors import ShapeError

R = np.random.default_rng(7)


def T(a) -> Tensor:
    return Tensor(np.asarray(a))


def _boxes(n: int) -> np.ndarray:
    lo = R.uniform(0, 5, (n, 2))
    return np.concatenate([lo, lo + R.uniform(0.5, 4, (n, 2))], 1).astype(np.float32)


def _iou_oracle(a: np.ndarray, g: np.ndarray, mode: str) -> np.ndarray:
    out = np.zeros((len(g), len(a)))
    for m, gb in enumerate(g.astype(np.float64)):
        for n, ab in enumerate(a.astype(np.float64)):
            w = max(0.0, min(gb[2], ab[2]) - max(gb[0], ab[0]))
            h = max(0.0, min(gb[3], ab[3]) - max(gb[1], ab[1]))
            ag = (gb[2] - gb[0]) * (gb[3] - gb[1])
            aa = (ab[2] - ab[0]) * (ab[3] - ab[1])
            out[m, n] = w * h / (ag if mode == "iof" else ag + aa - w * h)
    return out


@pytest.mark.parametrize("mode", ["iou", "iof"])
def test_iou_matches_pairwise_loop(mode):
    a, g = _boxes(5), _boxes(3)
    got = ops.iou(T(a), T(g), mode)
    assert got.shape == (3, 5) and got.dtype == ms.float32
    np.testing.assert_allclose(got.asnumpy(), _iou_oracle(a, g, mode), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ops.IOU(mode)(T(a), T(g)).asnumpy(), _iou_oracle(a, g, mode), rtol=1e-5, atol=1e-6)


def test_iou_disjoint_and_identical_boxes():
    a = np.array([[0, 0, 1, 1], [5, 5, 6, 6]], np.float32)
    np.testing.assert_allclose(ops.iou(T(a), T(a)).asnumpy(), np.eye(2), atol=1e-7)


def test_iou_errors_name_the_op():
    with pytest.raises(KeyError, match="iou: mode"):
        ops.iou(T(_boxes(2)), T(_boxes(2)), "giou")
    with pytest.raises(ShapeError, match="iou"):
        ops.iou(T(np.zeros((2, 3), np.float32)), T(_boxes(2)))


def _rope_oracle(x, c, s, mode):
    d = x.shape[-1]
    if mode == 0:
        rot = np.concatenate([-x[..., d // 2:], x[..., :d // 2]], -1)
    else:
        rot = np.empty_like(x)
        rot[..., 0::2] = -x[..., 1::2]
        rot[..., 1::2] = x[..., 0::2]
    return x * c + rot * s


@pytest.mark.parametrize("mode", [0, 1])
def test_rotary_position_embedding_matches_formula(mode):
    x = R.standard_normal((2, 3, 4, 8)).astype(np.float32)
    ang = R.uniform(0, 3, (1, 3, 1, 8))
    c, s = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    got = ops.rotary_position_embedding(T(x), T(c), T(s), mode).asnumpy()
    np.testing.assert_allclose(got, _rope_oracle(x, c, s, mode), rtol=1e-5, atol=1e-6)


def test_rotary_position_embedding_preserves_pair_norms_for_a_true_rotation():
    # with the same angle on both members of each rotated pair, the map is a rotation per pair
    x = R.standard_normal((1, 2, 1, 6)).astype(np.float32)
    theta = R.uniform(0, 3, (1, 2, 1, 3))
    ang = np.repeat(theta, 2, -1)
    out = ops.rotary_position_embedding(T(x), T(np.cos(ang).astype(np.float32)),
                                        T(np.sin(ang).astype(np.float32)), 1).asnumpy()
    pn = lambda a: np.hypot(a[..., 0::2], a[..., 1::2])  # noqa: E731
    np.testing.assert_allclose(pn(out), pn(x), rtol=1e-5)


def test_rotary_position_embedding_gradient_by_finite_differences():
    x = R.standard_normal((1, 2, 1, 4))
    ang = R.uniform(0, 3, (1, 2, 1, 4))
    c, s, w = np.cos(ang), np.sin(ang), R.standard_normal((1, 2, 1, 4))
    f = lambda t: (ops.rotary_position_embedding(t, T(c), T(s), 1) * T(w)).sum()  # noqa: E731
    got = ms.grad(f)(T(x)).asnumpy()
    num, eps = np.zeros_like(x), 1e-6
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        num[i] = ((_rope_oracle(x + d, c, s, 1) - _rope_oracle(x - d, c, s, 1)) * w).sum() / (2 * eps)
    np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-7)


def test_rotary_position_embedding_errors():
    x = T(np.zeros((1, 1, 1, 3), np.float32))
    with pytest.raises(ShapeError, match="rotary_position_embedding"):
        ops.rotary_position_embedding(x, x, x)
    y = T(np.zeros((1, 1, 1, 4), np.float32))
    with pytest.raises(ValueError, match="mode"):
        ops.rotary_position_embedding(y, y, y, 2)


def test_mod_is_truncated_remainder():
    x = np.array([-4.0, 5.0, 6.0, -7.5], np.float32)
    y = np.array([3.0, 2.0, 3.0, 2.0], np.float32)
    np.testing.assert_allclose(ops.Mod()(T(x), T(y)).asnumpy(), np.fmod(x, y))
    np.testing.assert_array_equal(ops.Mod()(T(np.array([-7, 7], np.int32)), 3).asnumpy(), [-1, 1])
    np.testing.assert_allclose(ops.Mod()(7.0, T(y)).asnumpy(), np.fmod(7.0, y))
    with pytest.raises(TypeError, match="Mod"):
        ops.Mod()(1.0, 2.0)


def test_rgb_to_hsv_matches_colorsys():
    img = R.random((2, 4, 5, 3)).astype(np.float32)
    img[0, 0, 0] = [0.3, 0.3, 0.3]       # grey: hue and saturation 0
    img[0, 0, 1] = [0.0, 0.0, 0.0]       # black
    img[0, 0, 2] = [0.9, 0.2, 0.5]       # red max, negative raw hue
    got = ops.RGBToHSV()(T(img)).asnumpy()
    want = np.apply_along_axis(lambda p: colorsys.rgb_to_hsv(*p), -1, img.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ShapeError, match="RGBToHSV"):
        ops.RGBToHSV()(T(np.zeros((2, 4), np.float32)))


def _tri_dense(sup, main, sub):
    m = main.shape[-1]
    a = np.zeros((*main.shape[:-2], m, m))
    idx = np.arange(m)
    a[..., idx, idx] = main[..., 0, :]
    a[..., idx[:-1], idx[:-1] + 1] = sup[..., 0, :-1]
    a[..., idx[1:], idx[1:] - 1] = sub[..., 0, 1:]
    return a


def test_tridiagonal_matmul_matches_dense_product_and_gradient():
    sup, main, sub = (R.standard_normal((2, 1, 4)) for _ in range(3))
    rhs = R.standard_normal((2, 4, 3))
    got = ops.TridiagonalMatMul()(T(sup), T(main), T(sub), T(rhs)).asnumpy()
    np.testing.assert_allclose(got, _tri_dense(sup, main, sub) @ rhs, rtol=1e-10)
    w = R.standard_normal((2, 4, 3))
    g = ms.grad(lambda r: (ops.TridiagonalMatMul()(T(sup), T(main), T(sub), r) * T(w)).sum())(T(rhs)).asnumpy()
    np.testing.assert_allclose(g, np.swapaxes(_tri_dense(sup, main, sub), -1, -2) @ w, rtol=1e-10)
    with pytest.raises(ShapeError, match="TridiagonalMatMul"):
        ops.TridiagonalMatMul()(T(sup[..., :3]), T(main), T(sub), T(rhs))


def _nearest_oracle(x, size, align, half):
    n, c, h, w = x.shape
    out = np.empty((n, c, *size), x.dtype)
    for i in range(size[0]):
        for j in range(size[1]):
            def src(k, n_in, n_out):
                sc = (n_in - 1) / (n_out - 1) if align and n_out > 1 else n_in / n_out
                v = np.floor((k + 0.5) * sc) if half else (round(k * sc) if align else np.floor(k * sc))
                return int(min(max(v, 0), n_in - 1))
            out[:, :, i, j] = x[:, :, src(i, h, size[0]), src(j, w, size[1])]
    return out


@pytest.mark.parametrize("size,align,half", [((5, 7), False, False), ((2, 3), False, False),
                                             ((5, 7), True, False), ((6, 3), False, True)])
def test_resize_nearest_neighbor_picks_tf_source_pixels(size, align, half):
    x = R.standard_normal((2, 3, 4, 5)).astype(np.float32)
    got = ops.ResizeNearestNeighbor(size, align, half)(T(x)).asnumpy()
    np.testing.assert_array_equal(got, _nearest_oracle(x, size, align, half))


def test_resize_nearest_neighbor_gradient_counts_picks():
    x = T(np.zeros((1, 1, 2, 3), np.float32))
    g = ms.grad(lambda t: ops.ResizeNearestNeighbor((4, 6))(t).sum())(x).asnumpy()
    np.testing.assert_array_equal(g, np.full((1, 1, 2, 3), 4.0))


def test_resize_nearest_neighbor_errors():
    with pytest.raises(ValueError, match="ResizeNearestNeighbor: size"):
        ops.ResizeNearestNeighbor((0, 2))
    with pytest.raises(ShapeError, match="ResizeNearestNeighbor"):
        ops.ResizeNearestNeighbor((2, 2))(T(np.zeros((2, 2), np.float32)))


def _linear_oracle(x, nw, mode):
    w = x.shape[2]
    out = np.empty((*x.shape[:2], nw))
    for i in range(nw):
        if mode == "align_corners":
            s = i * (w - 1) / (nw - 1) if nw > 1 else 0.0
        elif mode == "half_pixel":
            s = max((i + 0.5) * w / nw - 0.5, 0.0)
        else:
            s = i * w / nw
        s = min(s, w - 1)
        lo = int(np.floor(s))
        hi = min(lo + 1, w - 1)
        out[..., i] = x[..., lo] * (1 - (s - lo)) + x[..., hi] * (s - lo)
    return out


@pytest.mark.parametrize("mode", ["align_corners", "half_pixel", "asymmetric"])
@pytest.mark.parametrize("nw", [1, 3, 9])
def test_resize_linear_1d_matches_interpolation_loop(mode, nw):
    x = R.standard_normal((2, 3, 5))
    got = ops.ResizeLinear1D(mode)(T(x), T(np.array([nw], np.int64))).asnumpy()
    np.testing.assert_allclose(got, _linear_oracle(x, nw, mode), rtol=1e-12, atol=1e-12)


def test_resize_linear_1d_align_corners_keeps_the_ends_and_np_interp_agrees():
    x = R.standard_normal((1, 1, 4))
    got = ops.ResizeLinear1D()(T(x), T(np.array([7], np.int32))).asnumpy()[0, 0]
    np.testing.assert_allclose(got, np.interp(np.linspace(0, 3, 7), np.arange(4), x[0, 0]), rtol=1e-12)
    w = R.standard_normal((1, 1, 7))
    g = ms.grad(lambda t: (ops.ResizeLinear1D()(t, T(np.array([7], np.int32))) * T(w)).sum())(T(x)).asnumpy()
    eps, num = 1e-6, np.zeros_like(x)
    for j in range(4):
        d = np.zeros_like(x)
        d[0, 0, j] = eps
        num[0, 0, j] = ((np.interp(np.linspace(0, 3, 7), np.arange(4), (x + d)[0, 0])
                         - np.interp(np.linspace(0, 3, 7), np.arange(4), (x - d)[0, 0])) * w[0, 0]).sum() / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-9)
    with pytest.raises(ValueError, match="ResizeLinear1D: coordinate_transformation_mode"):
        ops.ResizeLinear1D("cubic")
    with pytest.raises(ShapeError, match="ResizeLinear1D"):
        ops.ResizeLinear1D()(T(np.zeros((2, 3), np.float32)), T(np.array([4])))


def _keys(s: float, a: float) -> float:
    s = abs(s)
    if s <= 1:
        return (a + 2) * s ** 3 - (a + 3) * s ** 2 + 1
    if s < 2:
        return a * s ** 3 - 5 * a * s ** 2 + 8 * a * s - 4 * a
    return 0.0


def _bicubic_oracle(x, size, align, half):
    """Per output pixel: the 4x4 taps around the source point, TF's rules written out directly."""
    a = -0.5 if half else -0.75
    n, c, h, w = x.shape

    def taps(i, n_in, n_out):
        sc = (n_in - 1) / (n_out - 1) if align and n_out > 1 else n_in / n_out
        src = (i + 0.5) * sc - 0.5 if half else i * sc
        f = int(np.floor(src))
        out = [(k, _keys(src - k, a)) for k in range(f - 1, f + 3)]
        if half:
            out = [(k, wt) for k, wt in out if 0 <= k < n_in]
            tot = sum(wt for _, wt in out)
            return [(k, wt / tot) for k, wt in out]
        return [(min(max(k, 0), n_in - 1), wt) for k, wt in out]

    out = np.zeros((n, c, *size))
    for i in range(size[0]):
        for j in range(size[1]):
            for ki, wi in taps(i, h, size[0]):
                for kj, wj in taps(j, w, size[1]):
                    out[:, :, i, j] += wi * wj * x[:, :, ki, kj]
    return out


@pytest.mark.parametrize("size,align,half", [((6, 7), False, False), ((3, 2), False, False),
                                             ((7, 9), True, False), ((8, 3), False, True)])
def test_resize_bicubic_matches_tap_loop(size, align, half):
    x = R.standard_normal((2, 2, 4, 5))
    got = ops.ResizeBicubic(align, half)(T(x), T(np.array(size, np.int32))).asnumpy()
    np.testing.assert_allclose(got, _bicubic_oracle(x, size, align, half), rtol=1e-10, atol=1e-12)


def test_resize_bicubic_reproduces_a_linear_ramp_inside_and_has_gradient():
    ramp = np.tile(np.arange(6.0), (1, 1, 6, 1))
    got = ops.ResizeBicubic(True)(T(ramp), T(np.array([6, 11]))).asnumpy()[0, 0, 0]
    np.testing.assert_allclose(got[2:-2], np.linspace(0, 5, 11)[2:-2], atol=1e-12)   # cubic is exact on lines
    x, wt = R.standard_normal((1, 1, 3, 4)), R.standard_normal((1, 1, 5, 5))
    f = lambda t: (ops.ResizeBicubic()(t, T(np.array([5, 5]))) * T(wt)).sum()  # noqa: E731
    g = ms.grad(f)(T(x)).asnumpy()
    num, eps = np.zeros_like(x), 1e-6
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        num[i] = ((_bicubic_oracle(x + d, (5, 5), False, False) - _bicubic_oracle(x - d, (5, 5), False, False))
                  * wt).sum() / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-9)
    with pytest.raises(ValueError, match="ResizeBicubic: size"):
        ops.ResizeBicubic()(T(x), T(np.array([5])))


def _area_oracle(x, size, align):
    """Per output pixel: the weighted mean of the input pixels its footprint overlaps (TF's loop)."""
    n, h, w, c = x.shape
    sh = (h - 1) / (size[0] - 1) if align and size[0] > 1 else h / size[0]
    sw = (w - 1) / (size[1] - 1) if align and size[1] > 1 else w / size[1]
    out = np.zeros((n, *size, c))
    for i in range(size[0]):
        y0, y1 = i * sh, (i + 1) * sh
        for j in range(size[1]):
            x0, x1 = j * sw, (j + 1) * sw
            acc = np.zeros((n, c))
            for yy in range(int(np.floor(y0)), int(np.ceil(y1))):
                wy = min(yy + 1, y1) - max(yy, y0)
                for xx in range(int(np.floor(x0)), int(np.ceil(x1))):
                    wx = min(xx + 1, x1) - max(xx, x0)
                    acc += wy * wx * x[:, min(yy, h - 1), min(xx, w - 1), :]
            out[:, i, j, :] = acc / (sh * sw)
    return out


@pytest.mark.parametrize("size,align", [((2, 3), False), ((3, 4), False), ((7, 5), False), ((3, 4), True)])
def test_resize_area_matches_footprint_loop(size, align):
    x = R.standard_normal((2, 6, 8, 3)).astype(np.float32)
    got = ops.ResizeArea(align)(T(x), T(np.array(size, np.int32)))
    assert got.dtype == ms.float32 and got.shape == (2, *size, 3)
    np.testing.assert_allclose(got.asnumpy(), _area_oracle(x.astype(np.float64), size, align), rtol=1e-5, atol=1e-5)


def test_resize_area_integer_factor_is_block_mean():
    x = R.integers(0, 255, (1, 4, 6, 2)).astype(np.uint8)
    got = ops.ResizeArea()(T(x), T(np.array([2, 3], np.int32))).asnumpy()
    want = x.astype(np.float64).reshape(1, 2, 2, 3, 2, 2).mean((2, 4))
    np.testing.assert_allclose(got, want, rtol=1e-6)
    with pytest.raises(ShapeError, match="ResizeArea"):
        ops.ResizeArea()(T(np.zeros((4, 6, 2), np.float32)), T(np.array([2, 3], np.int32)))
