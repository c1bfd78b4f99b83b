"""Box, colour and position-encoding ops of MindSpore (issue 14, slice B2): `iou` / `IOU`,
`rotary_position_embedding`, and the class forms `Mod`, `RGBToHSV`, `TridiagonalMatMul`,
`ResizeNearestNeighbor`, `ResizeLinear1D`, `ResizeBicubic`, `ResizeArea`.

All are composites of registered primitives (slicing, max/min, where, gather, concat), so their
gradients, Graph mode and ONNX export come from those primitives; nothing new is registered.
Decisions where MindSpore's docs leave room:

- `iou` computes areas as (x1 - x0) * (y1 - y0) (continuous coordinates, no "+1"), as the docs'
  formula says; the result is (M, N): row m is gt box m against every anchor.
- `rotary_position_embedding` follows the documented formulas on any rank (MindSpore's Ascend
  kernel wants 4-D): mode 0 rotates halves (GPT-NeoX), mode 1 interleaved pairs (GPT-J).
- `Mod` is the truncated remainder (C's fmod: the sign of the dividend), as MindSpore's example
  ``Mod()([-4., 5., 6.], [3., 2., 3.]) == [-1., 1., 0.]`` shows.
- `ResizeNearestNeighbor` picks source pixels like TensorFlow's resize_nearest_neighbor, whose
  attributes (`align_corners`, `half_pixel_centers`) MindSpore copies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor
from . import functional as F
from .operation import Op, Operation, op_classes


def _tensor(op: str, name: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: {name} must be a Tensor, got {type(x).__name__}")
    return x


def _float(op: str, name: str, x: Tensor) -> None:
    if not x.dtype.is_float:
        raise DTypeError(op, f"a float {name}", str(x.dtype))


def iou(anchor_boxes: Tensor, gt_boxes: Tensor, mode: str = "iou") -> Tensor:
    """Intersection over union (``mode='iou'``) or over the ground-truth area (``'iof'``) of every
    ground-truth box (M, 4) against every anchor box (N, 4), boxes as (x0, y0, x1, y1): an (M, N)
    tensor of `anchor_boxes`' dtype. A bad `mode` raises KeyError, as MindSpore's does."""
    op = "iou"
    a, g = _tensor(op, "anchor_boxes", anchor_boxes), _tensor(op, "gt_boxes", gt_boxes)
    for name, t in (("anchor_boxes", a), ("gt_boxes", g)):
        _float(op, name, t)
        if t.ndim != 2 or t.shape[1] != 4:
            raise ShapeError(op, f"{name} of shape (K, 4)", f"shape {t.shape}")
    if mode not in ("iou", "iof"):
        raise KeyError(f"iou: mode must be 'iou' or 'iof', got {mode!r}")
    g = F.cast(g, a.dtype)
    ga, aa = F.expand_dims(g, 1), F.expand_dims(a, 0)          # (M, 1, 4), (1, N, 4)
    lo = F.maximum(ga[..., :2], aa[..., :2])
    hi = F.minimum(ga[..., 2:], aa[..., 2:])
    wh = F.clamp(hi - lo, 0.0)
    inter = wh[..., 0] * wh[..., 1]                               # (M, N)
    area_g = (g[:, 2] - g[:, 0]) * (g[:, 3] - g[:, 1])            # (M,)
    if mode == "iof":
        return inter / F.expand_dims(area_g, 1)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])            # (N,)
    return inter / (F.expand_dims(area_g, 1) + F.expand_dims(area_a, 0) - inter)


def rotary_position_embedding(x: Tensor, cos: Tensor, sin: Tensor, mode: int = 0) -> Tensor:
    """Rotary position embedding: ``x * cos + rotate(x) * sin``, where rotate maps the halves
    (x1, x2) of the last axis to (-x2, x1) for ``mode=0`` (rotate_half, GPT-NeoX style) and each
    interleaved pair (x[2i], x[2i+1]) to (-x[2i+1], x[2i]) for ``mode=1`` (GPT-J style). `cos` and
    `sin` broadcast against `x`; the last axis must be even."""
    op = "rotary_position_embedding"
    for name, t in (("x", x), ("cos", cos), ("sin", sin)):
        _float(op, name, _tensor(op, name, t))
    if isinstance(mode, bool) or not isinstance(mode, int):
        raise TypeError(f"{op}: mode must be an int, got {type(mode).__name__}")
    if mode not in (0, 1):
        raise ValueError(f"{op}: mode must be 0 (rotate_half) or 1 (rotate_interleaved), got {mode}")
    d = x.shape[-1] if x.ndim else 0
    if d % 2:
        raise ShapeError(op, "an even last axis of x", f"shape {x.shape}")
    if mode == 0:
        rot = F.concat([-x[..., d // 2:], x[..., :d // 2]], -1)
    else:
        even, odd = x[..., 0::2], x[..., 1::2]
        rot = F.reshape(F.stack([-odd, even], -1), x.shape)
    return x * cos + rot * sin


def _mod(x: Any, y: Any) -> Tensor:
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        raise TypeError("Mod: at least one of x and y must be a Tensor")
    if isinstance(x, Tensor):
        return F.fmod(x, y)
    return F.fmod(F.full_like(y, x) if not isinstance(x, bool) else F.full_like(y, int(x)), y)


def _rgb_to_hsv(images: Tensor) -> Tensor:
    op = "RGBToHSV"
    _float(op, "images", _tensor(op, "images", images))
    if images.ndim < 1 or images.shape[-1] != 3:
        raise ShapeError(op, "images whose last axis is 3 (R, G, B)", f"shape {images.shape}")
    r, g, b = images[..., 0], images[..., 1], images[..., 2]
    v = F.maximum(F.maximum(r, g), b)
    delta = v - F.minimum(F.minimum(r, g), b)
    safe_v = F.where(v > 0, v, F.ones_like(v))
    s = F.where(v > 0, delta / safe_v, F.zeros_like(v))
    nz = delta > 0
    safe_d = F.where(nz, delta, F.ones_like(delta))
    h = F.where(v == r, (g - b) / safe_d, F.where(v == g, 2.0 + (b - r) / safe_d, 4.0 + (r - g) / safe_d)) / 6.0
    h = F.where(h < 0, h + 1.0, h)
    h = F.where(nz, h, F.zeros_like(h))
    return F.stack([h, s, v], -1)


def _tridiagonal_matmul(superdiag: Tensor, maindiag: Tensor, subdiag: Tensor, rhs: Tensor) -> Tensor:
    op = "TridiagonalMatMul"
    for name, t in (("superdiag", superdiag), ("maindiag", maindiag), ("subdiag", subdiag), ("rhs", rhs)):
        _float(op, name, _tensor(op, name, t))
    if rhs.ndim < 2:
        raise ShapeError(op, "rhs of rank >= 2 (..., M, N)", f"shape {rhs.shape}")
    m = rhs.shape[-2]
    want = (*rhs.shape[:-2], 1, m)
    for name, t in (("superdiag", superdiag), ("maindiag", maindiag), ("subdiag", subdiag)):
        if tuple(t.shape) != want:
            raise ShapeError(op, f"{name} of shape {want} (rhs's batch, 1, M)", f"shape {t.shape}")
    sup, main, sub = (F.swapaxes(t, -1, -2) for t in (superdiag, maindiag, subdiag))   # (..., M, 1)
    out = main * rhs
    if m > 1:
        zero = F.zeros_like(rhs[..., :1, :])
        below = F.concat([rhs[..., 1:, :], zero], -2)             # row i holds rhs[i + 1]
        above = F.concat([zero, rhs[..., :-1, :]], -2)            # row i holds rhs[i - 1]
        out = out + sup * below + sub * above
    return out


def _nearest_index(n_in: int, n_out: int, align_corners: bool, half_pixel_centers: bool) -> np.ndarray:
    i = np.arange(n_out, dtype=np.float64)
    scale = (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out
    if half_pixel_centers:
        src = np.floor((i + 0.5) * scale)
    elif align_corners:
        src = np.round(i * scale)
    else:
        src = np.floor(i * scale)
    return np.clip(src, 0, n_in - 1).astype(np.int32)


class ResizeNearestNeighbor(Operation):
    """``ResizeNearestNeighbor(size, align_corners=False, half_pixel_centers=False)(input_x)``:
    an (N, C, H, W) tensor resized to ``size`` = (new_H, new_W) by copying the nearest source pixel
    (TensorFlow's indexing rules; the gradient sums into the picked pixels)."""

    def __init__(self, size: Sequence[int], align_corners: bool = False, half_pixel_centers: bool = False) -> None:
        if (not isinstance(size, (tuple, list)) or len(size) != 2
                or not all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in size)):
            raise ValueError(f"ResizeNearestNeighbor: size must be 2 positive ints (new_height, new_width), "
                             f"got {size!r}")
        if align_corners and half_pixel_centers:
            raise ValueError("ResizeNearestNeighbor: align_corners and half_pixel_centers cannot both be True")
        self.size = tuple(size)
        self.align_corners = bool(align_corners)
        self.half_pixel_centers = bool(half_pixel_centers)

    def construct(self, input_x: Tensor) -> Tensor:
        _tensor("ResizeNearestNeighbor", "input_x", input_x)
        if input_x.ndim != 4:
            raise ShapeError("ResizeNearestNeighbor", "a 4-D (N, C, H, W) input_x", f"shape {input_x.shape}")
        h, w = input_x.shape[2], input_x.shape[3]
        rows = _nearest_index(h, self.size[0], self.align_corners, self.half_pixel_centers)
        cols = _nearest_index(w, self.size[1], self.align_corners, self.half_pixel_centers)
        out = F.gather(input_x, Tensor(rows), 2)
        return F.gather(out, Tensor(cols), 3)


class ResizeLinear1D(Operation):
    """``ResizeLinear1D(coordinate_transformation_mode='align_corners')(x, size)``: an (N, C, W)
    tensor linearly resampled to width ``size[0]``. Output pixel i samples source position
    i * (W - 1) / (new_W - 1) ('align_corners'), (i + 0.5) * W / new_W - 0.5 clamped at 0
    ('half_pixel'), or i * W / new_W ('asymmetric'); positions past the edge take the last pixel."""

    _MODES = ("align_corners", "half_pixel", "asymmetric")

    def __init__(self, coordinate_transformation_mode: str = "align_corners") -> None:
        if coordinate_transformation_mode not in self._MODES:
            raise ValueError(f"ResizeLinear1D: coordinate_transformation_mode must be one of {self._MODES}, "
                             f"got {coordinate_transformation_mode!r}")
        self.coordinate_transformation_mode = coordinate_transformation_mode

    def construct(self, x: Tensor, size: Any) -> Tensor:
        op = "ResizeLinear1D"
        _float(op, "x", _tensor(op, "x", x))
        if x.ndim != 3:
            raise ShapeError(op, "a 3-D (N, C, W) x", f"shape {x.shape}")
        sz = np.asarray(size.asnumpy() if isinstance(size, Tensor) else size).reshape(-1)
        if sz.size != 1 or not float(sz[0]).is_integer() or sz[0] <= 0:
            raise ValueError(f"{op}: size must hold one positive int (the new width), got {sz.tolist()}")
        w, nw = x.shape[2], int(sz[0])
        i = np.arange(nw, dtype=np.float64)
        mode = self.coordinate_transformation_mode
        if mode == "align_corners":
            src = i * ((w - 1) / (nw - 1)) if nw > 1 else np.zeros(nw)
        elif mode == "half_pixel":
            src = np.maximum((i + 0.5) * (w / nw) - 0.5, 0.0)
        else:
            src = i * (w / nw)
        src = np.minimum(src, w - 1)
        lo = np.floor(src).astype(np.int32)
        hi = np.minimum(lo + 1, w - 1).astype(np.int32)
        frac = Tensor((src - lo).astype(x.dtype.np))
        a, b = F.gather(x, Tensor(lo), 2), F.gather(x, Tensor(hi), 2)
        return a + (b - a) * frac


def _cubic_matrix(n_in: int, n_out: int, align_corners: bool, half_pixel: bool) -> np.ndarray:
    """The (n_out, n_in) matrix of TensorFlow's bicubic resampling along one axis: Keys' cubic with
    a = -0.5 and out-of-range taps dropped (weights renormalised) under half-pixel centres, else
    a = -0.75 with edge taps clamped."""
    a = -0.5 if half_pixel else -0.75
    scale = (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out
    m = np.zeros((n_out, n_in))
    for i in range(n_out):
        x = (i + 0.5) * scale - 0.5 if half_pixel else i * scale
        f = int(np.floor(x))
        t = x - f
        d = np.array([1 + t, t, 1 - t, 2 - t])
        w = np.where(d <= 1, ((a + 2) * d - (a + 3)) * d * d + 1, ((a * d - 5 * a) * d + 8 * a) * d - 4 * a)
        idx = np.arange(f - 1, f + 3)
        if half_pixel:
            inside = (idx >= 0) & (idx < n_in)
            w = np.where(inside, w, 0.0)
            w = w / w.sum()
        for k, wk in zip(np.clip(idx, 0, n_in - 1), w):
            m[i, k] += wk
    return m


class ResizeBicubic(Operation):
    """``ResizeBicubic(align_corners=False, half_pixel_centers=False)(images, size)``: (N, C, H, W)
    images resampled to ``size`` = (new_H, new_W) with TensorFlow's bicubic kernel, computed as
    two matrix products (so the gradient is the transposed resampling)."""

    def __init__(self, align_corners: bool = False, half_pixel_centers: bool = False) -> None:
        if align_corners and half_pixel_centers:
            raise ValueError("ResizeBicubic: align_corners and half_pixel_centers cannot both be True")
        self.align_corners, self.half_pixel_centers = bool(align_corners), bool(half_pixel_centers)

    def construct(self, images: Tensor, size: Any) -> Tensor:
        op = "ResizeBicubic"
        _float(op, "images", _tensor(op, "images", images))
        if images.ndim != 4:
            raise ShapeError(op, "4-D (N, C, H, W) images", f"shape {images.shape}")
        sz = np.asarray(size.asnumpy() if isinstance(size, Tensor) else size).reshape(-1)
        if sz.size != 2 or not all(float(v).is_integer() and v > 0 for v in sz):
            raise ValueError(f"{op}: size must hold 2 positive ints (new_height, new_width), got {sz.tolist()}")
        h, w = images.shape[2], images.shape[3]
        mh = Tensor(_cubic_matrix(h, int(sz[0]), self.align_corners, self.half_pixel_centers).astype(images.dtype.np))
        mw = Tensor(_cubic_matrix(w, int(sz[1]), self.align_corners, self.half_pixel_centers).T.astype(
            images.dtype.np))
        return F.matmul(F.matmul(mh, images), mw)


def _area_matrix(n_in: int, n_out: int, align_corners: bool) -> np.ndarray:
    """The (n_out, n_in) matrix of TensorFlow's area resampling along one axis: output pixel i
    averages the input span [i * scale, (i + 1) * scale), each input pixel weighted by its overlap
    (indices past the edge read the last pixel), divided by the span's length `scale`."""
    scale = (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out
    m = np.zeros((n_out, n_in))
    for i in range(n_out):
        lo, hi = i * scale, (i + 1) * scale
        for k in range(int(np.floor(lo)), int(np.ceil(hi))):
            wk = min(k + 1.0, hi) - max(float(k), lo)
            m[i, min(k, n_in - 1)] += wk / scale
    return m


class ResizeArea(Operation):
    """``ResizeArea(align_corners=False)(images, size)``: (N, H, W, C) images (MindSpore's NHWC for
    this op) resized to ``size`` = (new_H, new_W) by area averaging, as float32 (OpenCV's INTER_AREA
    / TensorFlow's ResizeArea)."""

    def __init__(self, align_corners: bool = False) -> None:
        if not isinstance(align_corners, bool):
            raise TypeError(f"ResizeArea: align_corners must be a bool, got {type(align_corners).__name__}")
        self.align_corners = align_corners

    def construct(self, images: Tensor, size: Any) -> Tensor:
        op = "ResizeArea"
        _tensor(op, "images", images)
        if images.ndim != 4:
            raise ShapeError(op, "4-D (N, H, W, C) images", f"shape {images.shape}")
        sz = np.asarray(size.asnumpy() if isinstance(size, Tensor) else size).reshape(-1)
        if sz.size != 2 or not all(float(v).is_integer() and v > 0 for v in sz):
            raise ValueError(f"{op}: size must hold 2 positive ints (new_height, new_width), got {sz.tolist()}")
        x = F.cast(images, mstype.float32)
        mh = Tensor(_area_matrix(images.shape[1], int(sz[0]), self.align_corners).astype(np.float32))
        mw = Tensor(_area_matrix(images.shape[2], int(sz[1]), self.align_corners).astype(np.float32))
        x = F.transpose(x, (0, 3, 1, 2))                                  # NCHW for the two products
        y = F.matmul(F.matmul(mh, x), F.swapaxes(mw, 0, 1))
        return F.transpose(y, (0, 2, 3, 1))


_TABLE = {
    "IOU": Op(iou,
              "anchor_boxes: Tensor, gt_boxes: Tensor", "the IOU/IOF of every gt box against every anchor box.",
              "mode: str = 'iou'"),
    "Mod": Op(_mod, "x: Any, y: Any", "the truncated remainder x - trunc(x / y) * y (the sign of x)."),
    "RGBToHSV": Op(_rgb_to_hsv, "images: Tensor", "RGB in [0, 1] on the last axis to HSV (hue in [0, 1))."),
    "TridiagonalMatMul": Op(_tridiagonal_matmul,
                            "superdiag: Tensor, maindiag: Tensor, subdiag: Tensor, rhs: Tensor",
                            "the product of the tridiagonal matrix of the three diagonals with rhs."),
}
_CLASSES = op_classes(_TABLE, __name__)
globals().update(_CLASSES)
# the class forms (ops/__init__.py CLASS_MODULES)
__all__ = [*_CLASSES, "ResizeNearestNeighbor", "ResizeLinear1D", "ResizeBicubic", "ResizeArea"]
