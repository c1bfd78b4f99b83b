"""MindSpore's box coder of the detection heads (issue 14, slice A2): `bounding_box_encode` /
`BoundingBoxEncode` and `bounding_box_decode` / `BoundingBoxDecode` (Faster R-CNN style deltas).

Composites of registered primitives (slicing, log/exp, clamp, stack), so gradients and Graph mode
come from those. The formulas follow MindSpore's CPU kernels exactly, including their pixel
convention: a box (x1, y1, x2, y2) is ``x2 - x1 + 1`` wide, and decoding subtracts/adds 0.5 px at the
corners and clips x to ``[0, max_shape[1]]``, y to ``[0, max_shape[0]]``; ``dw``/``dh`` are clipped
to ``±|log(wh_ratio_clip)|`` before `exp`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..errors import DTypeError, ShapeError
from ..tensor import Tensor
from . import functional as F
from .operation import Op, op_classes


def _four(op: str, name: str, v: Any) -> tuple[float, ...]:
    if not isinstance(v, (tuple, list)):
        raise TypeError(f"{op}: {name} must be a tuple of 4 floats, got {type(v).__name__}")
    if len(v) != 4:
        raise ValueError(f"{op}: {name} must have 4 values, got {len(v)}")
    return tuple(float(x) for x in v)


def _boxes(op: str, name: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: {name} must be a Tensor, got {type(x).__name__}")
    if not x.dtype.is_float:
        raise DTypeError(op, f"a float {name}", str(x.dtype))
    if x.ndim != 2 or x.shape[1] != 4:
        raise ShapeError(op, f"{name} of shape (n, 4)", f"shape {x.shape}")
    return x


def _centre(b: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    return ((b[:, 0] + b[:, 2]) * 0.5, (b[:, 1] + b[:, 3]) * 0.5, b[:, 2] - b[:, 0] + 1.0, b[:, 3] - b[:, 1] + 1.0)


def bounding_box_encode(anchor_box: Tensor, groundtruth_box: Tensor, means: Sequence[float] = (0.0, 0.0, 0.0, 0.0),
                        stds: Sequence[float] = (1.0, 1.0, 1.0, 1.0)) -> Tensor:
    """The (n, 4) deltas (dx, dy, dw, dh) that move each anchor box onto its ground-truth box,
    normalised as ``(delta - means) / stds``."""
    op = "bounding_box_encode"
    a, g = _boxes(op, "anchor_box", anchor_box), _boxes(op, "groundtruth_box", groundtruth_box)
    if a.shape != g.shape:
        raise ShapeError(op, f"groundtruth_box of anchor_box's shape {a.shape}", f"shape {g.shape}")
    m, s = _four(op, "means", means), _four(op, "stds", stds)
    if 0.0 in s:
        raise ValueError(f"{op}: stds must be non-zero, got {s}")
    g = F.cast(g, a.dtype)
    px, py, pw, ph = _centre(a)
    gx, gy, gw, gh = _centre(g)
    d = ((gx - px) / pw, (gy - py) / ph, F.log(gw / pw), F.log(gh / ph))
    return F.stack([(di - mi) / si for di, mi, si in zip(d, m, s, strict=True)], 1)


def bounding_box_decode(anchor_box: Tensor, deltas: Tensor, max_shape: Sequence[int],
                        means: Sequence[float] = (0.0, 0.0, 0.0, 0.0), stds: Sequence[float] = (1.0, 1.0, 1.0, 1.0),
                        wh_ratio_clip: float = 0.016) -> Tensor:
    """The (n, 4) boxes (x1, y1, x2, y2) that `deltas` (``* stds + means``) make of the anchors,
    clipped to an image of ``max_shape`` = (height, width)."""
    op = "bounding_box_decode"
    a, dl = _boxes(op, "anchor_box", anchor_box), _boxes(op, "deltas", deltas)
    if a.shape != dl.shape:
        raise ShapeError(op, f"deltas of anchor_box's shape {a.shape}", f"shape {dl.shape}")
    if not isinstance(max_shape, (tuple, list)) or len(max_shape) < 2:
        raise ValueError(f"{op}: max_shape must be (height, width), got {max_shape!r}")
    if isinstance(wh_ratio_clip, bool) or not isinstance(wh_ratio_clip, (int, float)) or wh_ratio_clip <= 0:
        raise ValueError(f"{op}: wh_ratio_clip must be a positive float, got {wh_ratio_clip!r}")
    m, s = _four(op, "means", means), _four(op, "stds", stds)
    dl = F.cast(dl, a.dtype)
    dx, dy, dw, dh = (dl[:, i] * s[i] + m[i] for i in range(4))
    r = abs(math.log(wh_ratio_clip))
    dw, dh = F.clamp(dw, -r, r), F.clamp(dh, -r, r)
    px, py, pw, ph = _centre(a)
    gx, gy, gw, gh = px + pw * dx, py + ph * dy, pw * F.exp(dw), ph * F.exp(dh)
    hmax, wmax = float(max_shape[0]), float(max_shape[1])
    x1 = F.clamp(gx - gw * 0.5 + 0.5, 0.0, wmax)
    y1 = F.clamp(gy - gh * 0.5 + 0.5, 0.0, hmax)
    x2 = F.clamp(gx + gw * 0.5 - 0.5, 0.0, wmax)
    y2 = F.clamp(gy + gh * 0.5 - 0.5, 0.0, hmax)
    return F.stack([x1, y1, x2, y2], 1)


_TABLE = {
    "BoundingBoxEncode": Op(bounding_box_encode, "anchor_box: Tensor, groundtruth_box: Tensor",
                            "the normalised deltas from anchor boxes to ground-truth boxes.",
                            "means: Sequence[float] = (0.0, 0.0, 0.0, 0.0), "
                            "stds: Sequence[float] = (1.0, 1.0, 1.0, 1.0)"),
    "BoundingBoxDecode": Op(bounding_box_decode, "anchor_box: Tensor, deltas: Tensor",
                            "the boxes that the normalised deltas make of the anchor boxes.",
                            "max_shape: Sequence[int], means: Sequence[float] = (0.0, 0.0, 0.0, 0.0), "
                            "stds: Sequence[float] = (1.0, 1.0, 1.0, 1.0), wh_ratio_clip: float = 0.016"),
}
_CLASSES = op_classes(_TABLE, __name__)
globals().update(_CLASSES)
__all__ = [*_CLASSES]  # the class forms (ops/__init__.py CLASS_MODULES)
