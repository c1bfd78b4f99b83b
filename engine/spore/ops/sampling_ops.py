"""MindSpore's sampling ops (issue 14, vision slice): `grid_sample` / `GridSampler2D` / `GridSampler3D`,
`ROIAlign`, `crop_and_resize` / `CropAndResize`, `deformable_conv2d` / `DeformableOffsets`,
`multi_scale_deformable_attn_function`, `ExtractVolumePatches`, `ScaleAndTranslate`, `ExtractGlimpse`.

All are composites of differentiable Spore ops built on one helper, `_linear_gather`: the
(bi/tri)linear read of a flattened (B, C, prod(spatial)) tensor at fractional coordinates, corner by
corner (`floor` for the corner, `gather_elements` for the values, the fractional part for the
weights, out-of-range corners weighted 0). So the gradient reaches the sampled tensor (a scatter-add
through `gather_elements`) and the coordinates (through the weights) without a hand-written kernel,
and the ops compile in Graph mode like their parts. Decisions where MindSpore's docs leave room:

- `grid_sample` follows PyTorch's kernel, which MindSpore's GridSampler2D/3D port: coordinates are
  unnormalised with or without `align_corners`, `border` clamps them, `reflection` reflects them
  about the edges (pixel centres with `align_corners`, pixel borders without, then clamps);
  `nearest` rounds half to even. Like MindSpore 2.x, modes are 'bilinear' and 'nearest'.
- `ROIAlign` is Caffe2's (legacy, "aligned=False") RoIAlign that MindSpore's kernel follows:
  ``roi_end_mode=1`` adds 1 to the end corner before scaling, the RoI is at least 1x1, each bin
  averages ``sample_num`` x ``sample_num`` samples (``sample_num <= 0``: Caffe2's adaptive
  ceil(roi size / pooled size) per axis and RoI, whose largest value is read eagerly), a sample
  more than one pixel outside the map reads 0 and one inside clamps to the map. The gradient goes
  to `features`, not to `rois` (as MindSpore's ROIAlignGrad).
- `crop_and_resize` is TensorFlow's: box corners in normalised [y1, x1, y2, x2], samples at
  ``y1 * (H - 1) + i * (y2 - y1) * (H - 1) / (crop_h - 1)`` (the box centre for one row),
  `extrapolation_value` outside [0, H - 1]; 'nearest' rounds half away from zero; 'bilinear_v2'
  (MindSpore's "optimised bilinear" kernel) computes the same exact bilinear interpolation. The
  gradient reaches `image` and `boxes` (MindSpore's backward covers 'bilinear' only and returns 0
  for the other methods; here 'nearest' routes the gradient to the picked pixels).
- `deformable_conv2d` samples x at ``p + p_k + offset`` with zero padding, multiplies by the mask
  (offsets' channels are (x offsets, y offsets, masks), each ``deformable_groups * kh * kw``), lays
  the samples out as `DeformableOffsets` does ((N, C, H_out * kh, W_out * kw)) and convolves them
  with stride (kh, kw). ``modulated=False`` (v1) ignores the mask channels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..common import seed as _seed
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor
from .operation import Operation

__all__ = ["GridSampler2D", "GridSampler3D", "ROIAlign", "CropAndResize", "DeformableOffsets", "ExtractVolumePatches",
           "ScaleAndTranslate", "ExtractGlimpse"]


def _F():  # the functional namespace (this module is one of its declaration modules)
    from . import functional as F

    return F


def _float_tensor(op: str, name: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: {name} must be a Tensor, got {type(x).__name__}")
    if not x.dtype.is_float:
        raise DTypeError(op, f"a float {name}", str(x.dtype))
    return x


def _linear_gather(flat: Tensor, coords: Sequence[Tensor], sizes: Sequence[int]) -> Tensor:
    """(B, C, P): the multilinear read of `flat` (B, C, prod(sizes)) at fractional `coords`
    (each (B, P), the first the fastest-varying axis — x, then y, then z); corners outside the
    grid read 0."""
    F = _F()
    b, c = flat.shape[0], flat.shape[1]
    p = coords[0].shape[1]
    lows = [F.floor(v) for v in coords]
    fracs = [v - lo for v, lo in zip(coords, lows)]
    strides = [int(np.prod(sizes[:i])) for i in range(len(sizes))]
    out = None
    for corner in np.ndindex(*(2,) * len(sizes)):
        weight = None
        valid = None
        index = None
        for d, bit in enumerate(corner):
            idx = lows[d] + bit if bit else lows[d]
            w = fracs[d] if bit else 1 - fracs[d]
            ok = F.logical_and(idx >= 0, idx <= sizes[d] - 1)
            part = F.clamp(idx, 0, sizes[d] - 1) * strides[d]
            weight = w if weight is None else weight * w
            valid = ok if valid is None else F.logical_and(valid, ok)
            index = part if index is None else index + part
        index = F.broadcast_to(F.expand_dims(F.cast(F.stop_gradient(index), mstype.int64), 1), (b, c, p))
        vals = F.gather_elements(flat, 2, index)
        term = vals * F.expand_dims(weight * F.cast(valid, weight.dtype), 1)
        out = term if out is None else out + term
    return out


def _nearest_gather(flat: Tensor, coords: Sequence[Tensor], sizes: Sequence[int]) -> Tensor:
    """(B, C, P): the value of the grid point nearest to `coords` (rounded half to even), 0 outside."""
    F = _F()
    b, c = flat.shape[0], flat.shape[1]
    p = coords[0].shape[1]
    valid = None
    index = None
    for d, v in enumerate(coords):
        idx = F.round(F.stop_gradient(v))
        ok = F.logical_and(idx >= 0, idx <= sizes[d] - 1)
        part = F.clamp(idx, 0, sizes[d] - 1) * int(np.prod(sizes[:d]))
        valid = ok if valid is None else F.logical_and(valid, ok)
        index = part if index is None else index + part
    index = F.broadcast_to(F.expand_dims(F.cast(index, mstype.int64), 1), (b, c, p))
    return F.gather_elements(flat, 2, index) * F.expand_dims(F.cast(valid, flat.dtype), 1)


# --- grid_sample ---------------------------------------------------------------------------------------
def _reflect(x: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """PyTorch's reflect_coordinates: `x` reflected into [twice_low / 2, twice_high / 2]."""
    F = _F()
    if twice_low == twice_high:
        return x * 0
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    d = F.abs(x - lo)
    flips = F.floor(F.stop_gradient(d) / span)
    extra = d - flips * span
    even = F.fmod(flips, 2.0) == 0
    return F.where(even, extra + lo, span - extra + lo)


def _source_coord(g: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    F = _F()
    c = (g + 1) * ((size - 1) / 2) if align_corners else ((g + 1) * size - 1) / 2
    if padding_mode == "border":
        c = F.clamp(c, 0, size - 1)
    elif padding_mode == "reflection":
        if align_corners:
            c = _reflect(c, 0, 2 * (size - 1))
        else:
            c = F.clamp(_reflect(c, -1, 2 * size - 1), 0, size - 1)
    return c


def _grid_sample(op: str, input: Tensor, grid: Tensor, mode: str, padding_mode: str, align_corners: bool) -> Tensor:
    F = _F()
    _float_tensor(op, "input", input)
    _float_tensor(op, "grid", grid)
    if input.ndim not in (4, 5):
        raise ShapeError(op, "a 4-D (N, C, H, W) or 5-D (N, C, D, H, W) input", f"shape {tuple(input.shape)}")
    nd = input.ndim - 2
    n, ch, *spatial = input.shape
    if grid.ndim != input.ndim or grid.shape[0] != n or grid.shape[-1] != nd:
        raise ShapeError(op, f"a grid of shape ({n}, *out, {nd}) for input {tuple(input.shape)}",
                         f"shape {tuple(grid.shape)}")
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"{op}: mode must be 'bilinear' or 'nearest', got {mode!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"{op}: padding_mode must be 'zeros', 'border' or 'reflection', got {padding_mode!r}")
    if not isinstance(align_corners, bool):
        raise TypeError(f"{op}: align_corners must be a bool, got {type(align_corners).__name__}")
    out_sp = tuple(grid.shape[1:-1])
    p = int(np.prod(out_sp))
    g = F.reshape(F.cast(grid, input.dtype), (n, p, nd))
    sizes = list(reversed(spatial))  # grid's last axis is (x, y[, z]): W first
    coords = [_source_coord(g[:, :, d], sizes[d], padding_mode, align_corners) for d in range(nd)]
    flat = F.reshape(input, (n, ch, int(np.prod(spatial))))
    gather = _linear_gather if mode == "bilinear" else _nearest_gather
    return F.reshape(gather(flat, coords, sizes), (n, ch, *out_sp))


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """Samples `input` (N, C, H, W) / (N, C, D, H, W) at the normalised (x, y[, z]) positions of
    `grid` (N, H_out, W_out, 2) / (N, D_out, H_out, W_out, 3): (N, C, *out). ``align_corners=None``
    means False (MindSpore's and PyTorch's default)."""
    return _grid_sample("grid_sample", input, grid, mode, padding_mode,
                        False if align_corners is None else align_corners)


class _GridSampler(Operation):
    _rank = 4

    def __init__(self, interpolation_mode: str = "bilinear", padding_mode: str = "zeros",
                 align_corners: bool = False) -> None:
        name = type(self).__name__
        if interpolation_mode not in ("bilinear", "nearest"):
            raise ValueError(f"{name}: interpolation_mode must be 'bilinear' or 'nearest', got {interpolation_mode!r}")
        if padding_mode not in ("zeros", "border", "reflection"):
            raise ValueError(f"{name}: padding_mode must be 'zeros', 'border' or 'reflection', got {padding_mode!r}")
        if not isinstance(align_corners, bool):
            raise TypeError(f"{name}: align_corners must be a bool, got {type(align_corners).__name__}")
        self.interpolation_mode, self.padding_mode, self.align_corners = interpolation_mode, padding_mode, align_corners

    def construct(self, input_x: Tensor, grid: Tensor) -> Tensor:
        name = type(self).__name__
        if isinstance(input_x, Tensor) and input_x.ndim != self._rank:
            raise ShapeError(name, f"a {self._rank}-D input_x", f"shape {tuple(input_x.shape)}")
        return _grid_sample(name, input_x, grid, self.interpolation_mode, self.padding_mode, self.align_corners)


class GridSampler2D(_GridSampler):
    """``GridSampler2D(interpolation_mode='bilinear', padding_mode='zeros', align_corners=False)(input_x, grid)``:
    `grid_sample` of a 4-D input."""

    _rank = 4


class GridSampler3D(_GridSampler):
    """``GridSampler3D(interpolation_mode='bilinear', padding_mode='zeros', align_corners=False)(input_x, grid)``:
    `grid_sample` of a 5-D input (trilinear)."""

    _rank = 5


# --- ROIAlign ------------------------------------------------------------------------------------------
def _check_int(op: str, name: str, v: Any, lo: int = 1) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
        raise TypeError(f"{op}: {name} must be an int >= {lo}, got {v!r}")
    return int(v)


class ROIAlign(Operation):
    """``ROIAlign(pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1)(features, rois)``:
    features (N, C, H, W), rois (R, 5) of (image_index, x1, y1, x2, y2) -> (R, C, pooled_height,
    pooled_width), each bin the mean of sample_num^2 bilinear samples (an adaptive count when
    sample_num <= 0)."""

    def __init__(self, pooled_height: int, pooled_width: int, spatial_scale: float, sample_num: int = 2,
                 roi_end_mode: int = 1) -> None:
        op = "ROIAlign"
        self.pooled_height = _check_int(op, "pooled_height", pooled_height)
        self.pooled_width = _check_int(op, "pooled_width", pooled_width)
        if isinstance(spatial_scale, bool) or not isinstance(spatial_scale, (int, float)):
            raise TypeError(f"{op}: spatial_scale must be a float, got {type(spatial_scale).__name__}")
        self.spatial_scale = float(spatial_scale)
        if isinstance(sample_num, bool) or not isinstance(sample_num, int):
            raise TypeError(f"{op}: sample_num must be an int, got {type(sample_num).__name__}")
        self.sample_num = sample_num
        if roi_end_mode not in (0, 1) or isinstance(roi_end_mode, bool):
            raise ValueError(f"{op}: roi_end_mode must be 0 or 1, got {roi_end_mode!r}")
        self.roi_end_mode = int(roi_end_mode)

    def construct(self, features: Tensor, rois: Tensor) -> Tensor:
        F = _F()
        op = "ROIAlign"
        _float_tensor(op, "features", features)
        _float_tensor(op, "rois", rois)
        if features.ndim != 4:
            raise ShapeError(op, "features of shape (N, C, H, W)", f"shape {tuple(features.shape)}")
        if rois.ndim != 2 or rois.shape[1] != 5:
            raise ShapeError(op, "rois of shape (R, 5)", f"shape {tuple(rois.shape)}")
        n, c, h, w = features.shape
        r = rois.shape[0]
        ph, pw, s = self.pooled_height, self.pooled_width, self.sample_num
        if r == 0:  # no RoIs (a detector that proposed nothing): an empty result, not a reshape error below
            return F.zeros((0, c, ph, pw), features.dtype)
        boxes = F.stop_gradient(F.cast(rois, features.dtype))
        index = F.cast(boxes[:, 0], mstype.int64)
        x1 = boxes[:, 1] * self.spatial_scale
        y1 = boxes[:, 2] * self.spatial_scale
        x2 = (boxes[:, 3] + self.roi_end_mode) * self.spatial_scale
        y2 = (boxes[:, 4] + self.roi_end_mode) * self.spatial_scale
        roi_w, roi_h = F.clamp(x2 - x1, 1.0, None), F.clamp(y2 - y1, 1.0, None)
        bin_w, bin_h = roi_w / pw, roi_h / ph
        if s > 0:
            grid_h = grid_w = s
            gh = gw = None
        else:  # Caffe2's adaptive grid: ceil(roi size / pooled size) samples per bin and axis, per RoI;
            # the largest grid sets the shape, so it is read from the RoIs' values (a graph break in Graph mode)
            gh, gw = F.ceil(roi_h / ph), F.ceil(roi_w / pw)
            grid_h, grid_w = int(gh.asnumpy().max(initial=1)), int(gw.asnumpy().max(initial=1))

        def positions(start: Tensor, size: Tensor, pooled: int, grid: int, count: Tensor | None) -> tuple:
            """(R, pooled * grid) sample positions along one axis and, for an adaptive grid, their mask."""
            cell = np.arange(pooled)[:, None] * np.ones(grid)[None]
            k = np.ones(pooled)[:, None] * np.arange(grid)[None]
            if count is None:
                frac = Tensor((cell + (k + 0.5) / grid).reshape(-1).astype(features.dtype.np))
                return F.expand_dims(start, 1) + F.expand_dims(size, 1) * F.expand_dims(frac, 0), None
            kk = Tensor(k.reshape(-1).astype(features.dtype.np))
            cc = Tensor(cell.reshape(-1).astype(features.dtype.np))
            frac = F.expand_dims(cc, 0) + (F.expand_dims(kk, 0) + 0.5) / F.expand_dims(count, 1)
            mask = F.expand_dims(kk, 0) < F.expand_dims(count, 1)
            return F.expand_dims(start, 1) + F.expand_dims(size, 1) * frac, mask

        ys, my = positions(y1, bin_h, ph, grid_h, gh)  # (R, ph * grid_h)
        xs, mx = positions(x1, bin_w, pw, grid_w, gw)  # (R, pw * grid_w)
        yy = F.broadcast_to(F.expand_dims(ys, 2), (r, ph * grid_h, pw * grid_w))
        xx = F.broadcast_to(F.expand_dims(xs, 1), (r, ph * grid_h, pw * grid_w))
        keep = F.logical_and(F.logical_and(yy >= -1.0, yy <= h), F.logical_and(xx >= -1.0, xx <= w))
        if my is not None:
            keep = F.logical_and(keep, F.logical_and(F.expand_dims(my, 2), F.expand_dims(mx, 1)))
        yc = F.reshape(F.clamp(yy, 0, h - 1), (r, -1))
        xc = F.reshape(F.clamp(xx, 0, w - 1), (r, -1))
        flat = F.gather(F.reshape(features, (n, c, h * w)), index, 0)  # (R, C, H * W)
        vals = _linear_gather(flat, [xc, yc], [w, h])
        vals = vals * F.expand_dims(F.cast(F.reshape(keep, (r, -1)), vals.dtype), 1)
        vals = F.reshape(vals, (r, c, ph, grid_h, pw, grid_w))
        if gh is None:
            return F.mean(vals, (3, 5))
        count = F.reshape(F.clamp(gh * gw, 1.0, None), (r, 1, 1, 1))
        return F.sum(vals, (3, 5)) / count


# --- crop_and_resize -----------------------------------------------------------------------------------
def crop_and_resize(image: Tensor, boxes: Tensor, box_indices: Tensor, crop_size: tuple[int, int],
                    method: str = "bilinear", extrapolation_value: float = 0.0) -> Tensor:
    """Crops `boxes` (num_boxes, 4) of normalised [y1, x1, y2, x2] out of `image` (batch, H, W, depth)
    (box i from image ``box_indices[i]``) and resizes each to `crop_size` (crop_h, crop_w):
    (num_boxes, crop_h, crop_w, depth) float32."""
    F = _F()
    op = "crop_and_resize"
    if not isinstance(image, Tensor) or image.ndim != 4:
        raise ShapeError(op, "an image of shape (batch, H, W, depth)",
                         f"{getattr(image, 'shape', type(image).__name__)}")
    _float_tensor(op, "boxes", boxes)
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise ShapeError(op, "boxes of shape (num_boxes, 4)", f"shape {tuple(boxes.shape)}")
    if not isinstance(box_indices, Tensor) or box_indices.dtype.is_float or box_indices.shape != (boxes.shape[0],):
        raise ShapeError(op, f"int box_indices of shape ({boxes.shape[0]},)",
                         f"{getattr(box_indices, 'shape', type(box_indices).__name__)}")
    if (not isinstance(crop_size, (tuple, list)) or len(crop_size) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in crop_size)):
        raise ValueError(f"{op}: crop_size must be a (crop_height, crop_width) tuple of positive ints, "
                         f"got {crop_size!r}")
    if method not in ("bilinear", "nearest", "bilinear_v2"):
        raise ValueError(f"{op}: method must be 'bilinear', 'nearest' or 'bilinear_v2', got {method!r}")
    bsz, h, w, depth = image.shape
    nb = boxes.shape[0]
    ch, cw = int(crop_size[0]), int(crop_size[1])
    img = F.cast(image, mstype.float32)
    bx = F.cast(boxes, mstype.float32)
    y1, x1, y2, x2 = bx[:, 0:1], bx[:, 1:2], bx[:, 2:3], bx[:, 3:4]

    def axis(lo: Tensor, hi: Tensor, size: int, n_out: int) -> Tensor:
        if n_out > 1:
            steps = Tensor(np.arange(n_out, dtype=np.float32)[None])
            return lo * (size - 1) + steps * ((hi - lo) * (size - 1) / (n_out - 1))
        return F.broadcast_to((lo + hi) * (0.5 * (size - 1)), (nb, 1))

    ys, xs = axis(y1, y2, h, ch), axis(x1, x2, w, cw)  # (nb, ch), (nb, cw)
    ok = F.logical_and(F.expand_dims(F.logical_and(ys >= 0, ys <= h - 1), 2),
                       F.expand_dims(F.logical_and(xs >= 0, xs <= w - 1), 1))  # (nb, ch, cw)
    yy = F.reshape(F.broadcast_to(F.expand_dims(F.clamp(ys, 0, h - 1), 2), (nb, ch, cw)), (nb, ch * cw))
    xx = F.reshape(F.broadcast_to(F.expand_dims(F.clamp(xs, 0, w - 1), 1), (nb, ch, cw)), (nb, ch * cw))
    flat = F.gather(F.reshape(F.transpose(img, (0, 3, 1, 2)), (bsz, depth, h * w)),
                    F.cast(box_indices, mstype.int64), 0)  # (nb, depth, H * W)
    if method in ("bilinear", "bilinear_v2"):  # v2 is MindSpore's faster kernel of the same interpolation
        vals = _linear_gather(flat, [xx, yy], [w, h])
    else:  # std::round: half away from zero (the coordinates are >= 0 here)
        vals = _nearest_gather(flat, [F.floor(F.stop_gradient(xx) + 0.5), F.floor(F.stop_gradient(yy) + 0.5)],
                               [w, h])
    vals = F.transpose(F.reshape(vals, (nb, depth, ch, cw)), (0, 2, 3, 1))
    return F.where(F.expand_dims(ok, 3), vals, float(extrapolation_value))


class CropAndResize(Operation):
    """``CropAndResize(method='bilinear', extrapolation_value=0.0)(x, boxes, box_index, crop_size)``:
    see `crop_and_resize`."""

    def __init__(self, method: str = "bilinear", extrapolation_value: float = 0.0) -> None:
        if method not in ("bilinear", "nearest", "bilinear_v2"):
            raise ValueError(f"CropAndResize: method must be 'bilinear', 'nearest' or 'bilinear_v2', got {method!r}")
        if isinstance(extrapolation_value, bool) or not isinstance(extrapolation_value, (int, float)):
            raise TypeError(f"CropAndResize: extrapolation_value must be a float, got {extrapolation_value!r}")
        self.method, self.extrapolation_value = method, float(extrapolation_value)

    def construct(self, x: Tensor, boxes: Tensor, box_index: Tensor, crop_size: tuple[int, int]) -> Tensor:
        return crop_and_resize(x, boxes, box_index, crop_size, self.method, self.extrapolation_value)


# --- deformable convolution ----------------------------------------------------------------------------
def _quad(op: str, name: str, v: Any) -> tuple[int, int, int, int]:
    if (not isinstance(v, (tuple, list)) or len(v) != 4
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in v)):
        raise TypeError(f"{op}: {name} must be a tuple of 4 ints, got {v!r}")
    return int(v[0]), int(v[1]), int(v[2]), int(v[3])


def _deformable_offsets(op: str, x: Tensor, offsets: Tensor, strides: Any, pads: Any, ksize: Any, dilations: Any,
                        deformable_groups: int, modulated: bool) -> Tensor:
    """(N, C, H_out * kh, W_out * kw): x sampled at each kernel tap's deformed position (times its mask)."""
    F = _F()
    _float_tensor(op, "x", x)
    _float_tensor(op, "offsets", offsets)
    if x.ndim != 4:
        raise ShapeError(op, "an NCHW x", f"shape {tuple(x.shape)}")
    if (not isinstance(ksize, (tuple, list)) or len(ksize) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in ksize)):
        raise TypeError(f"{op}: kernel size must be a tuple of 2 positive ints, got {ksize!r}")
    kh, kw = int(ksize[0]), int(ksize[1])
    s = _quad(op, "strides", strides)
    d = _quad(op, "dilations", dilations)
    pt, pb, pl, pr = _quad(op, "padding", pads)
    if s[0] != 1 or s[1] != 1 or d[0] != 1 or d[1] != 1:
        raise ValueError(f"{op}: strides and dilations must be 1 on the N and C axes, got {s}, {d}")
    sh, sw, dh, dw = s[2], s[3], d[2], d[3]
    n, c, h, w = x.shape
    dg = _check_int(op, "deformable_groups", deformable_groups)
    if c % dg:
        raise ValueError(f"{op}: the input channels ({c}) must be divisible by deformable_groups ({dg})")
    oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    ow = (w + pl + pr - dw * (kw - 1) - 1) // sw + 1
    k = kh * kw
    if oh < 1 or ow < 1:
        raise ShapeError(op, "an input at least the dilated kernel size after padding", f"shape {tuple(x.shape)}")
    if tuple(offsets.shape) != (n, 3 * dg * k, oh, ow):
        raise ShapeError(op, f"offsets of shape ({n}, {3 * dg * k}, {oh}, {ow})", f"shape {tuple(offsets.shape)}")
    off = F.reshape(F.cast(offsets, x.dtype), (n, 3, dg, kh, kw, oh, ow))
    # positions laid out (n, dg, oh, kh, ow, kw), the DeformableOffsets output order
    by = Tensor(((np.arange(oh) * sh - pt)[:, None] + np.arange(kh) * dh)[:, :, None, None].astype(x.dtype.np))
    bx = Tensor(((np.arange(ow) * sw - pl)[:, None] + np.arange(kw) * dw).astype(x.dtype.np))
    lay = (0, 1, 4, 2, 5, 3)  # (n, dg, kh, kw, oh, ow) -> (n, dg, oh, kh, ow, kw)
    oy = F.transpose(off[:, 1], lay) + by
    ox = F.transpose(off[:, 0], lay) + bx
    p = oh * kh * ow * kw
    flat = F.reshape(x, (n * dg, c // dg, h * w))
    vals = _linear_gather(flat, [F.reshape(ox, (n * dg, p)), F.reshape(oy, (n * dg, p))], [w, h])
    if modulated:
        vals = vals * F.expand_dims(F.reshape(F.transpose(off[:, 2], lay), (n * dg, p)), 1)
    return F.reshape(vals, (n, c, oh * kh, ow * kw))


class DeformableOffsets(Operation):
    """``DeformableOffsets(strides, pads, ksize, dilations=(1, 1, 1, 1), data_format='NCHW',
    deformable_groups=1, modulated=True)(x, offsets)``: the deformed, mask-weighted samples of x laid
    out (N, C, H_out * kh, W_out * kw), so a stride-(kh, kw) convolution of them is the deformable
    convolution."""

    def __init__(self, strides: Any, pads: Any, ksize: Any, dilations: Any = (1, 1, 1, 1),
                 data_format: str = "NCHW", deformable_groups: int = 1, modulated: bool = True) -> None:
        if data_format != "NCHW":
            raise ValueError(f"DeformableOffsets: data_format must be 'NCHW', got {data_format!r}")
        self.strides, self.pads, self.ksize, self.dilations = strides, pads, ksize, dilations
        self.data_format, self.deformable_groups, self.modulated = data_format, deformable_groups, bool(modulated)

    def construct(self, x: Tensor, offsets: Tensor) -> Tensor:
        return _deformable_offsets("DeformableOffsets", x, offsets, self.strides, self.pads, self.ksize,
                                   self.dilations, self.deformable_groups, self.modulated)


def deformable_conv2d(x: Tensor, weight: Tensor, offsets: Tensor, kernel_size: tuple[int, int], strides: tuple,
                      padding: tuple, bias: Tensor | None = None, dilations: tuple = (1, 1, 1, 1), groups: int = 1,
                      deformable_groups: int = 1, modulated: bool = True) -> Tensor:
    """Deformable 2-D convolution (v2 with `modulated`): x (N, C_in, H, W), weight (C_out,
    C_in / groups, kh, kw), offsets (N, 3 * deformable_groups * kh * kw, H_out, W_out) ordered
    (x offsets, y offsets, masks); strides / dilations (1, 1, h, w), padding (top, bottom, left, right)."""
    F = _F()
    op = "deformable_conv2d"
    _float_tensor(op, "weight", weight)
    if weight.ndim != 4 or tuple(weight.shape[2:]) != tuple(kernel_size):
        raise ShapeError(op, f"a weight of shape (C_out, C_in / groups, {kernel_size[0]}, {kernel_size[1]})",
                         f"shape {tuple(weight.shape)}")
    cols = _deformable_offsets(op, x, offsets, strides, padding, kernel_size, dilations, deformable_groups, modulated)
    out = F.conv2d(cols, F.cast(weight, cols.dtype), stride=(int(kernel_size[0]), int(kernel_size[1])),
                   groups=_check_int(op, "groups", groups))
    if bias is not None:
        out = out + F.reshape(F.cast(bias, out.dtype), (1, -1, 1, 1))
    return out


# --- ExtractVolumePatches ------------------------------------------------------------------------------
def _triple(op: str, name: str, v: Any) -> tuple[int, int, int]:
    if isinstance(v, int) and not isinstance(v, bool):
        vals: tuple = (v,) * 3
    else:
        vals = tuple(v) if isinstance(v, (tuple, list)) else ()
    if len(vals) == 5:
        if vals[0] != 1 or vals[1] != 1:
            raise ValueError(f"{op}: the first two numbers of {name} must be 1, got {v!r}")
        vals = vals[2:]
    if len(vals) != 3 or not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in vals):
        raise ValueError(f"{op}: {name} must be an int or 3 / 5 positive ints, got {v!r}")
    return int(vals[0]), int(vals[1]), int(vals[2])


class ExtractVolumePatches(Operation):
    """``ExtractVolumePatches(kernel_size, strides, padding)(input_x)``: every (kd, kh, kw) window of
    input_x (N, C, D, H, W), taken with `strides`, becomes one output voxel of depth kd * kh * kw * C,
    ordered (kernel d, kernel h, kernel w, channel) with the channel fastest (TensorFlow's
    extract_volume_patches order). 'SAME' zero-pads like TensorFlow (output ceil(size / stride), the
    odd voxel at the end). Built on `gather`, so it differentiates."""

    def __init__(self, kernel_size: Any, strides: Any, padding: str) -> None:
        op = "ExtractVolumePatches"
        self.kernel_size = _triple(op, "kernel_size", kernel_size)
        self.strides = _triple(op, "strides", strides)
        if not isinstance(padding, str):
            raise TypeError(f"{op}: padding must be a str, got {type(padding).__name__}")
        if padding.upper() not in ("SAME", "VALID"):
            raise ValueError(f"{op}: padding must be 'SAME' or 'VALID', got {padding!r}")
        self.padding = padding.upper()

    def construct(self, input_x: Tensor) -> Tensor:
        F = _F()
        op = "ExtractVolumePatches"
        if not isinstance(input_x, Tensor):
            raise TypeError(f"{op}: input_x must be a Tensor, got {type(input_x).__name__}")
        if input_x.ndim != 5 or 0 in input_x.shape:
            raise ShapeError(op, "a 5-D input_x (N, C, D, H, W) with no empty axis", f"shape {tuple(input_x.shape)}")
        n, c, *sp = input_x.shape
        x = input_x
        pads = []
        outs = []
        for size, k, s in zip(sp, self.kernel_size, self.strides):
            if self.padding == "VALID":
                if size < k:
                    raise ValueError(f"{op}: with 'VALID' padding the kernel ({k}) must fit the input ({size})")
                pads.append((0, 0))
                outs.append((size - k) // s + 1)
            else:
                out = -(-size // s)
                total = max((out - 1) * s + k - size, 0)
                pads.append((total // 2, total - total // 2))
                outs.append(out)
        if any(p != (0, 0) for p in pads):
            x = F.pad(x, tuple(v for p in reversed(pads) for v in p))
        for d, (o, k, s) in enumerate(zip(outs, self.kernel_size, self.strides)):
            idx = (np.arange(o)[:, None] * s + np.arange(k)[None]).reshape(-1)
            x = F.gather(x, Tensor(idx.astype(np.int64)), 2 + 2 * d)
            x = F.reshape(x, (*x.shape[:2 + 2 * d], o, k, *x.shape[3 + 2 * d:]))
        # (N, C, Od, Kd, Oh, Kh, Ow, Kw) -> (N, Kd, Kh, Kw, C, Od, Oh, Ow)
        x = F.transpose(x, (0, 3, 5, 7, 1, 2, 4, 6))
        kd, kh, kw = self.kernel_size
        return F.reshape(x, (n, kd * kh * kw * c, *outs))


# --- ScaleAndTranslate ---------------------------------------------------------------------------------
def _lanczos(radius: float):
    def k(x: np.ndarray) -> np.ndarray:
        x = np.abs(x)
        with np.errstate(invalid="ignore", divide="ignore"):
            v = radius * np.sin(np.pi * x) * np.sin(np.pi * x / radius) / (np.pi ** 2 * x ** 2)
        return np.where(x > radius, 0.0, np.where(x <= 1e-3, 1.0, v))
    return k, radius


def _cubic(a: tuple, b: tuple):
    def k(x: np.ndarray) -> np.ndarray:
        x = np.abs(x)
        far = ((b[0] * x + b[1]) * x + b[2]) * x + b[3]
        near = ((a[0] * x + a[1]) * x) * x + a[2]
        return np.where(x >= 2, 0.0, np.where(x >= 1, far, near))
    return k, 2.0


_KERNELS = {
    "lanczos1": _lanczos(1.0), "lanczos3": _lanczos(3.0), "lanczos5": _lanczos(5.0),
    "gaussian": (lambda x: np.where(np.abs(x) >= 1.5, 0.0, np.exp(-x * x / (2 * 0.5 ** 2))), 1.5),
    "box": (lambda x: np.where(np.abs(x) < 0.5, 1.0, np.where(np.abs(x) == 0.5, 0.5, 0.0)), 1.0),
    "triangle": (lambda x: np.where(np.abs(x) < 1, 1 - np.abs(x), 0.0), 1.0),
    "keyscubic": _cubic((1.5, -2.5, 1.0), (-0.5, 2.5, -4.0, 2.0)),
    "mitchellcubic": _cubic((7 / 6, -2.0, 8 / 9), (-7 / 18, 2.0, -10 / 3, 16 / 9)),
}


def _scale_weights(kernel_type: str, antialias: bool, in_size: int, out_size: int, scale: float,
                   translate: float) -> np.ndarray:
    """(out_size, in_size) float32 resampling matrix of TensorFlow's scale_and_translate along one axis."""
    fn, radius = _KERNELS[kernel_type]
    inv = np.float32(1.0) / np.float32(scale)
    kscale = max(float(inv), 1.0) if antialias else 1.0
    w = np.zeros((out_size, in_size), np.float32)
    for x in range(out_size):
        sample = np.float32(x + 0.5) * inv - inv * np.float32(translate)
        if sample < 0 or sample > in_size:
            continue
        lo = min(max(int(np.ceil(sample - radius * kscale - 0.5)), 0), in_size - 1)
        hi = min(max(int(np.floor(sample + radius * kscale - 0.5)), 0), in_size - 1) + 1
        src = np.arange(lo, hi)
        vals = fn(np.abs((src + 0.5 - sample) / kscale)).astype(np.float32)
        total = vals.sum()
        if abs(total) >= 1000 * np.finfo(np.float32).tiny:
            vals = vals / total
        w[x, lo:hi] = vals
    return w


def _values(op: str, name: str, v: Any, n: int) -> np.ndarray:
    a = np.asarray(v.asnumpy() if isinstance(v, Tensor) else v).reshape(-1)
    if a.shape != (n,):
        raise ShapeError(op, f"a {name} of {n} values", f"shape {a.shape}")
    return a


class ScaleAndTranslate(Operation):
    """``ScaleAndTranslate(kernel_type='lanczos3', antialias=True)(images, size, scale, translation)``:
    TensorFlow's scale_and_translate of images (batch, H, W, C) to `size` (new_h, new_w): output
    pixel x samples the input at (x + 0.5 - translation) / scale with the kernel, widened by
    1 / scale when downsampling with `antialias`; float32 output. Differentiable in images."""

    def __init__(self, kernel_type: str = "lanczos3", antialias: bool = True) -> None:
        if kernel_type not in _KERNELS:
            raise ValueError(f"ScaleAndTranslate: kernel_type must be one of {sorted(_KERNELS)}, got {kernel_type!r}")
        if not isinstance(antialias, bool):
            raise TypeError(f"ScaleAndTranslate: antialias must be a bool, got {type(antialias).__name__}")
        self.kernel_type, self.antialias = kernel_type, antialias

    def construct(self, images: Tensor, size: Any, scale: Any, translation: Any) -> Tensor:
        F = _F()
        op = "ScaleAndTranslate"
        if not isinstance(images, Tensor) or images.ndim != 4:
            raise ShapeError(op, "4-D images (batch, H, W, C)", f"{getattr(images, 'shape', type(images).__name__)}")
        sz = _values(op, "size", size, 2).astype(np.int64)
        sc = _values(op, "scale", scale, 2).astype(np.float32)
        tr = _values(op, "translation", translation, 2).astype(np.float32)
        if (sz <= 0).any():
            raise ValueError(f"{op}: size must be positive, got {sz.tolist()}")
        if (sc <= 0).any():
            raise ValueError(f"{op}: scale must be positive, got {sc.tolist()}")
        _, h, w, _ = images.shape
        wh = _scale_weights(self.kernel_type, self.antialias, h, int(sz[0]), float(sc[0]), float(tr[0]))
        ww = _scale_weights(self.kernel_type, self.antialias, w, int(sz[1]), float(sc[1]), float(tr[1]))
        x = F.cast(images, mstype.float32)
        rows = F.einsum("oh,bhwc->bowc", Tensor(wh), x)
        return F.einsum("pw,bowc->bopc", Tensor(ww), rows)


# --- ExtractGlimpse ------------------------------------------------------------------------------------
class ExtractGlimpse(Operation):
    """``ExtractGlimpse(centered=True, normalized=True, uniform_noise=True, noise='uniform')(x, size,
    offsets)``: TensorFlow's extract_glimpse — a (glimpse_h, glimpse_w) window of each image of x
    (batch, H, W, C) at offsets (batch, 2) of (y, x). With `normalized` the offsets scale by the image
    size (and by half of it when `centered`, which then measures from the image centre to the
    window centre); the window's top-left pixel is the offset truncated toward zero. Pixels outside
    the image are noise: uniform in the image's [min, max] ('uniform' with `uniform_noise`), Gaussian
    with each channel's mean and deviation clipped to its range ('gaussian', or 'uniform' without
    `uniform_noise`), or 0 ('zero'), drawn from Spore's global generator. No gradient (as TensorFlow)."""

    def __init__(self, centered: bool = True, normalized: bool = True, uniform_noise: bool = True,
                 noise: str = "uniform") -> None:
        for name, v in (("centered", centered), ("normalized", normalized), ("uniform_noise", uniform_noise)):
            if not isinstance(v, bool):
                raise TypeError(f"ExtractGlimpse: {name} must be a bool, got {type(v).__name__}")
        if noise not in ("uniform", "gaussian", "zero"):
            raise ValueError(f"ExtractGlimpse: noise must be 'uniform', 'gaussian' or 'zero', got {noise!r}")
        if uniform_noise and noise != "uniform":
            raise ValueError(f"ExtractGlimpse: uniform_noise=True requires noise='uniform', got {noise!r}")
        self.centered, self.normalized, self.uniform_noise, self.noise = centered, normalized, uniform_noise, noise

    def construct(self, x: Tensor, size: Any, offsets: Tensor) -> Tensor:
        op = "ExtractGlimpse"
        if not isinstance(x, Tensor) or x.ndim != 4:
            raise ShapeError(op, "a 4-D x (batch, H, W, C)", f"{getattr(x, 'shape', type(x).__name__)}")
        img = x.asnumpy()
        gh, gw = (int(v) for v in _values(op, "size", size, 2))
        if gh <= 0 or gw <= 0:
            raise ValueError(f"{op}: size must be positive, got {(gh, gw)}")
        if not isinstance(offsets, Tensor):
            raise TypeError(f"{op}: offsets must be a Tensor, got {type(offsets).__name__}")
        off = offsets.asnumpy().astype(np.float32)
        b, h, w, c = img.shape
        if off.shape != (b, 2):
            raise ShapeError(op, f"offsets of shape ({b}, 2)", f"shape {off.shape}")
        gen = _seed.rng()
        out = np.zeros((b, gh, gw, c), img.dtype)
        for i in range(b):
            oy, ox = float(off[i, 0]), float(off[i, 1])
            if self.normalized:
                ox, oy = ox * w, oy * h
                if self.centered:
                    ox, oy = ox / 2 + w / 2 - gw / 2, oy / 2 + h / 2 - gh / 2
            elif self.centered:
                ox, oy = ox + w / 2, oy + h / 2
            top, left = int(np.float32(oy)), int(np.float32(ox))  # truncation toward zero
            rows, cols = top + np.arange(gh), left + np.arange(gw)
            inside = ((rows >= 0) & (rows < h))[:, None] & ((cols >= 0) & (cols < w))[None]
            if self.noise == "zero":
                fill = np.zeros((gh, gw, c))
            elif self.uniform_noise:
                lo, hi = img[i].min(), img[i].max()
                fill = lo + gen.random((gh, gw, c)) * (float(hi) - float(lo))
            else:
                ch = img[i].astype(np.float64)
                fill = np.clip(ch.mean((0, 1)) + gen.standard_normal((gh, gw, c)) * ch.std((0, 1)),
                               ch.min((0, 1)), ch.max((0, 1)))
            patch = img[i][np.clip(rows, 0, h - 1)[:, None], np.clip(cols, 0, w - 1)[None]]
            out[i] = np.where(inside[..., None], patch, fill.astype(img.dtype))
        return Tensor(out)


# --- multi-scale deformable attention ------------------------------------------------------------------
def multi_scale_deformable_attn_function(value: Tensor, shape: Any, offset: Any, locations: Tensor,
                                         weight: Tensor) -> Tensor:
    """Multi-scale deformable attention (Deformable DETR): value (bs, num_keys, num_heads, dims) holds
    the flattened feature maps of the levels whose (H, W) are `shape` (num_levels, 2), starting at
    `offset` (num_levels,); each query samples every level bilinearly (zero padding, pixel centres
    at (i + 0.5) / size) at `locations` (bs, num_queries, num_heads, num_levels, num_points, 2) of
    normalised (x, y) and sums the samples weighted by `weight` (bs, num_queries, num_heads,
    num_levels, num_points) -> (bs, num_queries, num_heads * dims). Differentiable in value,
    locations and weight."""
    F = _F()
    op = "multi_scale_deformable_attn_function"
    for name, t in (("value", value), ("locations", locations), ("weight", weight)):
        _float_tensor(op, name, t)
    sh = np.asarray(shape.asnumpy() if isinstance(shape, Tensor) else shape).astype(np.int64).reshape(-1, 2)
    st = np.asarray(offset.asnumpy() if isinstance(offset, Tensor) else offset).astype(np.int64).reshape(-1)
    if value.ndim != 4:
        raise ShapeError(op, "value of shape (bs, num_keys, num_heads, embed_dims)", f"shape {tuple(value.shape)}")
    bs, keys, heads, dims = value.shape
    levels = sh.shape[0]
    if st.shape != (levels,) or int((sh[:, 0] * sh[:, 1]).sum()) != keys:
        raise ShapeError(op, f"shape (levels, 2) / offset (levels,) covering the {keys} keys",
                         f"shape {sh.tolist()}, offset {st.tolist()}")
    if locations.ndim != 6 or tuple(locations.shape[:1]) + tuple(locations.shape[2:4]) != (bs, heads, levels) \
            or locations.shape[-1] != 2:
        raise ShapeError(op, f"locations of shape ({bs}, num_queries, {heads}, {levels}, num_points, 2)",
                         f"shape {tuple(locations.shape)}")
    nq, npts = locations.shape[1], locations.shape[4]
    if tuple(weight.shape) != (bs, nq, heads, levels, npts):
        raise ShapeError(op, f"weight of shape ({bs}, {nq}, {heads}, {levels}, {npts})", f"shape {tuple(weight.shape)}")
    grids = F.cast(locations, value.dtype) * 2 - 1
    sampled = []
    for lvl in range(levels):
        h, w = int(sh[lvl, 0]), int(sh[lvl, 1])
        v = value[:, int(st[lvl]):int(st[lvl]) + h * w]  # (bs, h*w, heads, dims)
        v = F.reshape(F.transpose(v, (0, 2, 3, 1)), (bs * heads, dims, h, w))
        g = F.reshape(F.transpose(grids[:, :, :, lvl], (0, 2, 1, 3, 4)), (bs * heads, nq, npts, 2))
        sampled.append(_grid_sample(op, v, g, "bilinear", "zeros", False))  # (bs*heads, dims, nq, npts)
    stacked = F.stack(sampled, 3)  # (bs*heads, dims, nq, levels, npts)
    wt = F.reshape(F.transpose(F.cast(weight, value.dtype), (0, 2, 1, 3, 4)), (bs * heads, 1, nq, levels, npts))
    out = F.sum(stacked * wt, (3, 4))  # (bs*heads, dims, nq)
    return F.transpose(F.reshape(out, (bs, heads * dims, nq)), (0, 2, 1))
