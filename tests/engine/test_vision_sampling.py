"""grid_sample / GridSampler2D/3D, ROIAlign, crop_and_resize and deformable_conv2d (issue 14, vision
slice) against scalar NumPy oracles written from the kernels' published definitions (PyTorch's
grid sampler, Caffe2's RoIAlign, TensorFlow's CropAndResize, the deformable-convolution paper), and
their gradients against central finite differences."""

from __future__ import annotations

import math

import numpy as np
import pytest

import spore as ms
from spore import ops

T = ms.Tensor


# --- oracles ---------------------------------------------------------------------------------------
def _reflect(x: float, tl: int, th: int) -> float:
    if tl == th:
        return 0.0
    lo, span = tl / 2, (th - tl) / 2
    x = abs(x - lo)
    extra = math.fmod(x, span)
    flips = math.floor(x / span)
    return extra + lo if flips % 2 == 0 else span - extra + lo


def _coord(g: float, size: int, pad: str, ac: bool) -> float:
    c = (g + 1) / 2 * (size - 1) if ac else ((g + 1) * size - 1) / 2
    if pad == "border":
        c = min(max(c, 0), size - 1)
    elif pad == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if ac else min(max(_reflect(c, -1, 2 * size - 1), 0), size - 1)
    return c


def grid_sample_ref(x: np.ndarray, grid: np.ndarray, mode: str, pad: str, ac: bool) -> np.ndarray:
    n, c, *sp = x.shape
    nd = len(sp)
    out = np.zeros((n, c, *grid.shape[1:-1]))
    for b in range(n):
        for pos in np.ndindex(*grid.shape[1:-1]):
            src = [_coord(grid[(b, *pos, d)], sp[nd - 1 - d], pad, ac) for d in range(nd)][::-1]  # (z,) y, x
            if mode == "nearest":
                idx = [int(np.rint(v)) for v in src]
                if all(0 <= i < s for i, s in zip(idx, sp)):
                    out[(b, slice(None), *pos)] = x[(b, slice(None), *idx)]
                continue
            lo = [math.floor(v) for v in src]
            for corner in np.ndindex(*(2,) * nd):
                idx = [lo[d] + corner[d] for d in range(nd)]
                if not all(0 <= i < s for i, s in zip(idx, sp)):
                    continue
                wgt = np.prod([(src[d] - lo[d]) if corner[d] else (1 - (src[d] - lo[d])) for d in range(nd)])
                out[(b, slice(None), *pos)] += wgt * x[(b, slice(None), *idx)]
    return out


def _bilinear_caffe2(f: np.ndarray, y: float, x: float) -> np.ndarray:
    h, w = f.shape[-2:]
    if y < -1 or y > h or x < -1 or x > w:
        return np.zeros(f.shape[0])
    y, x = max(y, 0.0), max(x, 0.0)
    yl, xl = int(y), int(x)
    if yl >= h - 1:
        yl = yh = h - 1
        y = float(yl)
    else:
        yh = yl + 1
    if xl >= w - 1:
        xl = xh = w - 1
        x = float(xl)
    else:
        xh = xl + 1
    ly, lx = y - yl, x - xl
    return ((1 - ly) * (1 - lx) * f[:, yl, xl] + (1 - ly) * lx * f[:, yl, xh] + ly * (1 - lx) * f[:, yh, xl]
            + ly * lx * f[:, yh, xh])


def roi_align_ref(feat: np.ndarray, rois: np.ndarray, ph: int, pw: int, scale: float, s: int, end: int) -> np.ndarray:
    out = np.zeros((len(rois), feat.shape[1], ph, pw))
    for r, roi in enumerate(rois):
        f = feat[int(roi[0])]
        x1, y1 = roi[1] * scale, roi[2] * scale
        x2, y2 = (roi[3] + end) * scale, (roi[4] + end) * scale
        bw, bh = max(x2 - x1, 1.0) / pw, max(y2 - y1, 1.0) / ph
        gy = s if s > 0 else math.ceil(max(y2 - y1, 1.0) / ph)  # Caffe2's adaptive grid
        gx = s if s > 0 else math.ceil(max(x2 - x1, 1.0) / pw)
        for i in range(ph):
            for j in range(pw):
                acc = np.zeros(f.shape[0])
                for iy in range(gy):
                    for ix in range(gx):
                        yy, xx = y1 + i * bh + (iy + 0.5) * bh / gy, x1 + j * bw + (ix + 0.5) * bw / gx
                        acc += _bilinear_caffe2(f, yy, xx)
                out[r, :, i, j] = acc / max(gy * gx, 1)
    return out


def crop_and_resize_ref(img: np.ndarray, boxes: np.ndarray, idx: np.ndarray, size: tuple, method: str,
                        extra: float) -> np.ndarray:
    _, h, w, d = img.shape
    ch, cw = size
    out = np.zeros((len(boxes), ch, cw, d))
    for b, (y1, x1, y2, x2) in enumerate(boxes):
        im = img[idx[b]]
        for i in range(ch):
            in_y = y1 * (h - 1) + i * (y2 - y1) * (h - 1) / (ch - 1) if ch > 1 else 0.5 * (y1 + y2) * (h - 1)
            for j in range(cw):
                in_x = x1 * (w - 1) + j * (x2 - x1) * (w - 1) / (cw - 1) if cw > 1 else 0.5 * (x1 + x2) * (w - 1)
                if not (0 <= in_y <= h - 1 and 0 <= in_x <= w - 1):
                    out[b, i, j] = extra
                    continue
                if method == "nearest":
                    out[b, i, j] = im[int(math.floor(in_y + 0.5)), int(math.floor(in_x + 0.5))]
                    continue
                t, bt = math.floor(in_y), math.ceil(in_y)
                lft, rt = math.floor(in_x), math.ceil(in_x)
                yl, xl = in_y - t, in_x - lft
                top = im[t, lft] + (im[t, rt] - im[t, lft]) * xl
                bot = im[bt, lft] + (im[bt, rt] - im[bt, lft]) * xl
                out[b, i, j] = top + (bot - top) * yl
    return out


def _zero_pad_bilinear(f: np.ndarray, y: float, x: float) -> np.ndarray:
    h, w = f.shape[-2:]
    y0, x0 = math.floor(y), math.floor(x)
    acc = np.zeros(f.shape[0])
    for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yy < h and 0 <= xx < w:
                acc += wy * wx * f[:, yy, xx]
    return acc


def deformable_ref(x, w, off, k, stride, pad, dil, groups, dg, modulated, bias=None):
    n, c, h, wd = x.shape
    kh, kw = k
    co = w.shape[0]
    oh, ow = off.shape[2:]
    o = off.reshape(n, 3, dg, kh, kw, oh, ow)
    out = np.zeros((n, co, oh, ow))
    cg, og = c // groups, co // groups
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                cols = np.zeros((c, kh, kw))
                for g in range(dg):
                    chans = slice(g * c // dg, (g + 1) * c // dg)
                    for p in range(kh):
                        for q in range(kw):
                            yy = i * stride[0] - pad[0] + p * dil[0] + o[b, 1, g, p, q, i, j]
                            xx = j * stride[1] - pad[2] + q * dil[1] + o[b, 0, g, p, q, i, j]
                            v = _zero_pad_bilinear(x[b, chans], yy, xx)
                            cols[chans, p, q] = v * (o[b, 2, g, p, q, i, j] if modulated else 1.0)
                for gg in range(groups):
                    out[b, gg * og:(gg + 1) * og, i, j] = np.tensordot(
                        w[gg * og:(gg + 1) * og], cols[gg * cg:(gg + 1) * cg], axes=3)
    if bias is not None:
        out += bias[None, :, None, None]
    return out


def fd_grad(f, args: list[np.ndarray], which: int, eps: float = 1e-6) -> np.ndarray:
    """Central differences of sum(f(*args) * probe) w.r.t. args[which] (float64)."""
    base = [a.copy() for a in args]
    g = np.zeros_like(base[which])
    for idx in np.ndindex(*g.shape):
        hi = [a.copy() for a in base]
        lo = [a.copy() for a in base]
        hi[which][idx] += eps
        lo[which][idx] -= eps
        g[idx] = (f(*hi) - f(*lo)) / (2 * eps)
    return g


# --- grid_sample ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("pad", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("ac", [False, True])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample_2d_matches_oracle(pad, ac, mode):
    r = np.random.default_rng(1)
    x = r.standard_normal((2, 3, 4, 5)).astype(np.float32)
    grid = r.uniform(-1.6, 1.6, (2, 3, 4, 2)).astype(np.float32)
    got = ops.grid_sample(T(x), T(grid), mode, pad, ac).asnumpy()
    np.testing.assert_allclose(got, grid_sample_ref(x, grid, mode, pad, ac), rtol=1e-5, atol=1e-5)
    cls = ops.GridSampler2D(mode, pad, ac)(T(x), T(grid)).asnumpy()
    np.testing.assert_allclose(cls, got, rtol=0, atol=0)


@pytest.mark.parametrize("pad", ["zeros", "border", "reflection"])
def test_grid_sampler_3d_matches_oracle(pad):
    r = np.random.default_rng(2)
    x = r.standard_normal((1, 2, 3, 4, 3)).astype(np.float32)
    grid = r.uniform(-1.3, 1.3, (1, 2, 2, 3, 3)).astype(np.float32)
    got = ops.GridSampler3D("bilinear", pad, True)(T(x), T(grid)).asnumpy()
    np.testing.assert_allclose(got, grid_sample_ref(x, grid, "bilinear", pad, True), rtol=1e-5, atol=1e-5)
    nearest = ops.grid_sample(T(x), T(grid), "nearest", pad, False).asnumpy()
    np.testing.assert_allclose(nearest, grid_sample_ref(x, grid, "nearest", pad, False), rtol=1e-6, atol=1e-6)


def test_grid_sample_identity_grid_reproduces_input():
    x = np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4)
    theta = T(np.array([[[1, 0, 0], [0, 1, 0]]], np.float32))
    grid = ops.affine_grid(theta, (1, 1, 3, 4), align_corners=True)
    np.testing.assert_allclose(ops.grid_sample(T(x), grid, align_corners=True).asnumpy(), x, atol=1e-5)


@pytest.mark.parametrize("pad", ["zeros", "border", "reflection"])
def test_grid_sample_gradients_match_finite_differences(pad):
    r = np.random.default_rng(3)
    x = r.standard_normal((1, 2, 3, 4))
    grid = r.uniform(-1.1, 1.1, (1, 2, 3, 2))
    probe = r.standard_normal((1, 2, 2, 3))

    def loss(a, g):
        return (grid_sample_ref(a, g, "bilinear", pad, False) * probe).sum()

    gx, gg = ms.grad(lambda a, g: (ops.grid_sample(a, g, "bilinear", pad, False) * T(probe)).sum(),
                     grad_position=(0, 1))(T(x), T(grid))
    np.testing.assert_allclose(gx.asnumpy(), fd_grad(loss, [x, grid], 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gg.asnumpy(), fd_grad(loss, [x, grid], 1), rtol=1e-4, atol=1e-6)


def test_grid_sample_errors_name_the_op():
    x = T(np.zeros((1, 1, 2, 2), np.float32))
    with pytest.raises(ValueError, match="grid_sample: mode"):
        ops.grid_sample(x, T(np.zeros((1, 2, 2, 2), np.float32)), mode="bicubic")
    with pytest.raises(ValueError, match="grid_sample"):
        ops.grid_sample(x, T(np.zeros((1, 2, 2, 3), np.float32)))
    with pytest.raises(ValueError, match="GridSampler3D"):
        ops.GridSampler3D()(x, T(np.zeros((1, 2, 2, 2), np.float32)))
    with pytest.raises(ValueError, match="GridSampler2D: padding_mode"):
        ops.GridSampler2D(padding_mode="wrap")


# --- ROIAlign ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("end", [0, 1])
@pytest.mark.parametrize("sample_num", [2, 0])
def test_roi_align_matches_caffe2_oracle(end, sample_num):
    r = np.random.default_rng(4)
    feat = r.standard_normal((2, 3, 6, 7)).astype(np.float32)
    rois = np.array([[0, 1.0, 1.5, 9.0, 8.0], [1, -3.0, 0.5, 4.0, 14.0], [1, 2.0, 2.0, 2.5, 2.2],
                     [0, 10.0, 9.0, 16.0, 13.0]], np.float32)
    got = ops.ROIAlign(3, 2, 0.5, sample_num, end)(T(feat), T(rois)).asnumpy()
    np.testing.assert_allclose(got, roi_align_ref(feat, rois, 3, 2, 0.5, sample_num, end), rtol=1e-5, atol=1e-5)


def test_roi_align_documented_example_and_gradient():
    feat = np.array([[[[1., 2.], [3., 4.]]]])
    rois = np.array([[0, 0.2, 0.3, 0.2, 0.3]])
    op = ops.ROIAlign(2, 2, 0.5, 2)
    np.testing.assert_allclose(op(T(feat.astype(np.float32)), T(rois.astype(np.float32))).asnumpy(),
                               roi_align_ref(feat, rois, 2, 2, 0.5, 2, 1), rtol=1e-6)
    r = np.random.default_rng(5)
    f = r.standard_normal((1, 2, 4, 5))
    rr = np.array([[0, 0.5, 0.2, 3.5, 2.7]])
    probe = r.standard_normal((1, 2, 2, 2))
    g = ms.grad(lambda a: (ops.ROIAlign(2, 2, 1.0, 3)(a, T(rr)) * T(probe)).sum())(T(f))
    fd = fd_grad(lambda a: (roi_align_ref(a, rr, 2, 2, 1.0, 3, 1) * probe).sum(), [f], 0)
    np.testing.assert_allclose(g.asnumpy(), fd, rtol=1e-5, atol=1e-7)


def test_roi_align_errors():
    with pytest.raises(TypeError, match="ROIAlign: sample_num"):
        ops.ROIAlign(2, 2, 1.0, 1.5)
    with pytest.raises(ValueError, match="ROIAlign: roi_end_mode"):
        ops.ROIAlign(2, 2, 1.0, 2, 2)
    with pytest.raises(ValueError, match="ROIAlign"):
        ops.ROIAlign(2, 2, 1.0)(T(np.zeros((1, 1, 3, 3), np.float32)), T(np.zeros((2, 4), np.float32)))


# --- crop_and_resize -------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_crop_and_resize_matches_tensorflow_oracle(method):
    r = np.random.default_rng(6)
    img = r.standard_normal((2, 5, 6, 3)).astype(np.float32)
    boxes = np.array([[0.1, 0.2, 0.8, 0.9], [-0.2, 0.0, 1.2, 0.5], [0.6, 0.7, 0.2, 0.1]], np.float32)
    idx = np.array([1, 0, 1], np.int32)
    for size in ((3, 4), (1, 2)):
        got = ops.crop_and_resize(T(img), T(boxes), T(idx), size, method, -1.5).asnumpy()
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, crop_and_resize_ref(img, boxes, idx, size, method, -1.5), rtol=1e-5,
                                   atol=1e-5)
    cls = ops.CropAndResize(method, -1.5)(T(img), T(boxes), T(idx), (3, 4)).asnumpy()
    if method == "bilinear":  # 'bilinear_v2' is the same interpolation
        v2 = ops.CropAndResize("bilinear_v2", -1.5)(T(img), T(boxes), T(idx), (3, 4)).asnumpy()
        np.testing.assert_array_equal(v2, cls)
    np.testing.assert_allclose(cls, crop_and_resize_ref(img, boxes, idx, (3, 4), method, -1.5), rtol=1e-5, atol=1e-5)


def test_crop_and_resize_gradients_reach_image_and_boxes():
    r = np.random.default_rng(7)
    img = r.standard_normal((1, 4, 5, 2))
    boxes = np.array([[0.13, 0.21, 0.77, 0.86], [0.3, 0.05, 0.62, 0.41]])
    idx = np.array([0, 0], np.int32)
    probe = r.standard_normal((2, 3, 3, 2))

    def loss(a, b):
        return (crop_and_resize_ref(a, b, idx, (3, 3), "bilinear", 0.0) * probe).sum()

    gi, gb = ms.grad(lambda a, b: (ops.crop_and_resize(a, b, T(idx), (3, 3)) * T(probe)).sum(),
                     grad_position=(0, 1))(T(img), T(boxes))
    np.testing.assert_allclose(gi.asnumpy(), fd_grad(loss, [img, boxes], 0), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gb.asnumpy(), fd_grad(loss, [img, boxes], 1, eps=1e-4), rtol=2e-3, atol=2e-3)


def test_crop_and_resize_errors():
    img = T(np.zeros((1, 3, 3, 1), np.float32))
    boxes = T(np.zeros((1, 4), np.float32))
    with pytest.raises(ValueError, match="crop_and_resize: method"):
        ops.crop_and_resize(img, boxes, T(np.zeros(1, np.int32)), (2, 2), "bicubic")
    with pytest.raises(ValueError, match="crop_and_resize: crop_size"):
        ops.crop_and_resize(img, boxes, T(np.zeros(1, np.int32)), (0, 2))
    with pytest.raises(ValueError, match="crop_and_resize"):
        ops.crop_and_resize(img, boxes, T(np.zeros(2, np.int32)), (2, 2))


# --- deformable convolution ------------------------------------------------------------------------------
def test_deformable_conv2d_with_zero_offsets_is_conv2d():
    r = np.random.default_rng(8)
    x = r.standard_normal((2, 4, 7, 6)).astype(np.float32)
    w = r.standard_normal((6, 2, 3, 2)).astype(np.float32)
    off = np.zeros((2, 3 * 2 * 6, 3, 3), np.float32)
    off[:, 2 * 12:] = 1.0  # masks of 1
    got = ops.deformable_conv2d(T(x), T(w), T(off), (3, 2), (1, 1, 2, 2), (1, 0, 0, 1), dilations=(1, 1, 1, 1),
                                groups=2, deformable_groups=2)
    want = ops.conv2d(T(x), T(w), stride=2, pad_mode="pad", padding=(1, 0, 0, 1), groups=2)
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("modulated", [True, False])
def test_deformable_conv2d_matches_sampling_oracle(modulated):
    r = np.random.default_rng(9)
    x = r.standard_normal((1, 4, 5, 6)).astype(np.float32)
    w = r.standard_normal((3, 4, 2, 3)).astype(np.float32)
    b = r.standard_normal(3).astype(np.float32)
    off = r.uniform(-1.5, 1.5, (1, 3 * 2 * 6, 3, 2)).astype(np.float32)
    got = ops.deformable_conv2d(T(x), T(w), T(off), (2, 3), (1, 1, 2, 2), (1, 1, 0, 1), T(b), (1, 1, 1, 2),
                                deformable_groups=2, modulated=modulated).asnumpy()
    want = deformable_ref(x, w, off, (2, 3), (2, 2), (1, 1, 0, 1), (1, 2), 1, 2, modulated, b)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_deformable_conv2d_gradients_match_finite_differences():
    r = np.random.default_rng(10)
    x = r.standard_normal((1, 2, 4, 4))
    w = r.standard_normal((2, 2, 2, 2))
    off = r.uniform(-0.9, 0.9, (1, 12, 3, 3))
    probe = r.standard_normal((1, 2, 3, 3))

    def loss(a, ww, o):
        return (deformable_ref(a, ww, o, (2, 2), (1, 1), (0, 0, 0, 0), (1, 1), 1, 1, True) * probe).sum()

    grads = ms.grad(lambda a, ww, o: (ops.deformable_conv2d(a, ww, o, (2, 2), (1, 1, 1, 1), (0, 0, 0, 0))
                                      * T(probe)).sum(), grad_position=(0, 1, 2))(T(x), T(w), T(off))
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g.asnumpy(), fd_grad(loss, [x, w, off], i), rtol=1e-4, atol=1e-6)


def test_deformable_offsets_layout():
    """DeformableOffsets' output convolved with stride = kernel is deformable_conv2d."""
    r = np.random.default_rng(11)
    x = r.standard_normal((1, 2, 5, 5)).astype(np.float32)
    w = r.standard_normal((3, 2, 3, 3)).astype(np.float32)
    off = r.uniform(-1, 1, (1, 27, 3, 3)).astype(np.float32)
    cols = ops.DeformableOffsets((1, 1, 1, 1), (0, 0, 0, 0), (3, 3))(T(x), T(off))
    assert cols.shape == (1, 2, 9, 9)
    via = ops.conv2d(cols, T(w), stride=3).asnumpy()
    np.testing.assert_allclose(via, deformable_ref(x, w, off, (3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1, 1, True),
                               rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="DeformableOffsets"):
        ops.DeformableOffsets((1, 1, 1, 1), (0, 0, 0, 0), (3, 3))(T(x), T(off[:, :26]))
