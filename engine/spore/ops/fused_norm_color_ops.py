"""Fused residual norms, the bilinear layer and HSV colour ops of MindSpore (issue 14, slice A2):
`add_rms_norm`, `add_layer_norm`, `bidense`, and the class forms `HSVToRGB`, `AdjustHue`,
`AdjustSaturation`.

All are composites of registered primitives, so gradients and Graph mode come from those.
Decisions where MindSpore's docs leave room:

- `add_rms_norm` / `add_layer_norm` normalise over the trailing axes that `gamma` covers (its
  rank), as MindSpore's fused kernels do; the statistics (`rstd`, `mean`) keep those axes as size 1
  and are float32 like MindSpore's. `add_layer_norm`'s `additional_output` only chooses whether
  MindSpore's kernel materialises `x`; Spore always returns it (the 4-tuple's shape is the same).
- The colour ops take any tensor whose last axis is 3 (MindSpore documents 4-D NHWC); hue lives in
  [0, 1) and wraps, saturation is clipped to [0, 1] — TensorFlow's semantics, which MindSpore
  copies.
"""

from __future__ import annotations

from typing import Any

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor
from . import functional as F
from .operation import Op, op_classes
from .vision_box_ops import _rgb_to_hsv


def _t(op: str, name: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: {name} must be a Tensor, got {type(x).__name__}")
    if not x.dtype.is_float:
        raise DTypeError(op, f"a float {name}", str(x.dtype))
    return x


def _norm_axes(op: str, x: Tensor, gamma: Tensor) -> tuple[int, ...]:
    k = gamma.ndim
    if k == 0 or k > x.ndim or tuple(x.shape[x.ndim - k:]) != tuple(gamma.shape):
        raise ShapeError(op, f"gamma of the trailing shape of x {tuple(x.shape)}", f"shape {tuple(gamma.shape)}")
    return tuple(range(x.ndim - k, x.ndim))


def _add(op: str, x1: Any, x2: Any) -> Tensor:
    a, b = _t(op, "x1", x1), _t(op, "x2", x2)
    return a + b


def add_rms_norm(x1: Tensor, x2: Tensor, gamma: Tensor, epsilon: float = 1e-6) -> tuple[Tensor, Tensor, Tensor]:
    """RMS norm of the residual sum ``x = x1 + x2``: returns ``(x * rstd * gamma, rstd, x)`` with
    ``rstd = 1 / sqrt(mean(x**2) + epsilon)`` over the trailing axes `gamma` covers."""
    op = "add_rms_norm"
    x = _add(op, x1, x2)
    axes = _norm_axes(op, x, _t(op, "gamma", gamma))
    xf = F.cast(x, mstype.float32)
    rstd = F.rsqrt(F.mean(F.square(xf), axes, True) + epsilon)
    y = F.cast(xf * rstd, x.dtype) * gamma
    return y, rstd, x


def add_layer_norm(x1: Tensor, x2: Tensor, gamma: Tensor, beta: Tensor, epsilon: float = 1e-5,
                   additional_output: bool = False) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Layer norm of the residual sum ``x = x1 + x2`` over the trailing axes `gamma` covers:
    returns ``(y, mean, rstd, x)`` with ``y = (x - mean) * rstd * gamma + beta`` and
    ``rstd = 1 / sqrt(var(x) + epsilon)`` (biased variance)."""
    op = "add_layer_norm"
    x = _add(op, x1, x2)
    axes = _norm_axes(op, x, _t(op, "gamma", gamma))
    if tuple(_t(op, "beta", beta).shape) != tuple(gamma.shape):
        raise ShapeError(op, f"beta of gamma's shape {tuple(gamma.shape)}", f"shape {tuple(beta.shape)}")
    xf = F.cast(x, mstype.float32)
    mean = F.mean(xf, axes, True)
    rstd = F.rsqrt(F.mean(F.square(xf - mean), axes, True) + epsilon)
    y = F.cast((xf - mean) * rstd, x.dtype) * gamma + beta
    return y, mean, rstd, x


def bidense(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """The bilinear layer ``y[..., o] = input1[..., :] @ weight[o] @ input2[..., :] + bias[o]``
    for `input1` (*, in1), `input2` (*, in2), `weight` (out, in1, in2), `bias` (out,)."""
    op = "bidense"
    a, b, w = _t(op, "input1", input1), _t(op, "input2", input2), _t(op, "weight", weight)
    if w.ndim != 3 or a.ndim < 1 or b.ndim < 1 or a.shape[-1] != w.shape[1] or b.shape[-1] != w.shape[2]:
        raise ShapeError(op, "input1 (*, in1), input2 (*, in2) and weight (out, in1, in2)",
                         f"shapes {tuple(a.shape)}, {tuple(b.shape)}, {tuple(w.shape)}")
    if tuple(a.shape[:-1]) != tuple(b.shape[:-1]):
        raise ShapeError(op, f"input2 with input1's leading shape {tuple(a.shape[:-1])}", f"shape {tuple(b.shape)}")
    out, in1, in2 = w.shape
    lead = tuple(a.shape[:-1])
    a2 = F.reshape(a, (-1, in1))
    t = F.matmul(a2, F.reshape(F.transpose(w, (1, 0, 2)), (in1, out * in2)))        # (n, out * in2)
    y = F.sum(F.reshape(t, (-1, out, in2)) * F.expand_dims(F.reshape(b, (-1, in2)), 1), -1)
    if bias is not None:
        if tuple(_t(op, "bias", bias).shape) != (out,):
            raise ShapeError(op, f"bias of shape ({out},)", f"shape {tuple(bias.shape)}")
        y = y + bias
    return F.reshape(y, (*lead, out))


def _rgb(op: str, images: Any) -> Tensor:
    x = _t(op, "images", images)
    if x.ndim < 1 or x.shape[-1] != 3:
        raise ShapeError(op, "images whose last axis is 3", f"shape {tuple(x.shape)}")
    return x


def _hsv_to_rgb(images: Tensor) -> Tensor:
    x = _rgb("HSVToRGB", images)
    h, s, v = x[..., 0], x[..., 1], x[..., 2]
    h6 = (h - F.floor(h)) * 6.0
    # TensorFlow's piecewise-linear form: channel c = v - v*s*clip(|...|) written per sector
    def chan(n: float) -> Tensor:
        k = F.fmod(h6 + n, 6.0)
        return v - v * s * F.clamp(F.minimum(k, 4.0 - k), 0.0, 1.0)
    return F.stack([chan(5.0), chan(3.0), chan(1.0)], -1)


def _scalar(op: str, name: str, v: Any) -> Any:
    if isinstance(v, Tensor):
        if v.ndim != 0:
            raise ShapeError(op, f"a 0-D {name}", f"shape {tuple(v.shape)}")
        return v
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{op}: {name} must be a float or a 0-D Tensor, got {type(v).__name__}")
    return float(v)


def _adjust_hue(image: Tensor, delta: Any) -> Tensor:
    op = "AdjustHue"
    hsv = _rgb_to_hsv(_rgb(op, image))
    h = hsv[..., 0] + _scalar(op, "delta", delta)
    h = h - F.floor(h)
    return _hsv_to_rgb(F.stack([h, hsv[..., 1], hsv[..., 2]], -1))


def _adjust_saturation(image: Tensor, scale: Any) -> Tensor:
    op = "AdjustSaturation"
    hsv = _rgb_to_hsv(_rgb(op, image))
    s = F.clamp(hsv[..., 1] * _scalar(op, "scale", scale), 0.0, 1.0)
    return _hsv_to_rgb(F.stack([hsv[..., 0], s, hsv[..., 2]], -1))


_TABLE = {
    "HSVToRGB": Op(_hsv_to_rgb, "images: Tensor", "HSV in [0, 1] on the last axis to RGB."),
    "AdjustHue": Op(_adjust_hue, "image: Tensor, delta: Any", "RGB images with their hue shifted by delta (wraps)."),
    "AdjustSaturation": Op(_adjust_saturation, "image: Tensor, scale: Any",
                           "RGB images with their saturation multiplied by scale (clipped to [0, 1])."),
}
_CLASSES = op_classes(_TABLE, __name__)
globals().update(_CLASSES)
__all__ = [*_CLASSES]  # the class forms (ops/__init__.py CLASS_MODULES)
