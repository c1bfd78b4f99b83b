"""MindSpore's grayscale morphological dilation (issue 14, slice A2):
``ops.Dilation2D(stride, dilation, pad_mode='SAME', data_format='NCHW')(x, filter)``.

``out[n, c, y, x] = max_{i, j} x[n, c, y * s_h + i * d_h, x * s_w + j * d_w] + filter[c, i, j]``
(TensorFlow's dilation2d, NCHW, one (kH, kW) structuring element per channel). 'SAME' pads like
TensorFlow, and padded pixels never win the max (they are filled with a huge negative value, so
the max and its gradient ignore them). Built on `unfold` and `max`, so it differentiates (the
gradient goes to the arg-max pixel) and compiles like those.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ShapeError
from ..tensor import Tensor
from . import functional as F
from .classes_conv import _nchw_only
from .conv_pool_nd import unfold
from .extract_patches_ops import _same
from .operation import Operation

__all__ = ["Dilation2D"]


def _hw(name: str, v: Any) -> tuple[int, int]:
    if isinstance(v, int) and not isinstance(v, bool):
        vals: tuple = (v, v)
    else:
        vals = tuple(v) if isinstance(v, (tuple, list)) else ()
    if len(vals) == 4 and vals[0] == 1 and vals[1] == 1:
        vals = vals[2:]
    if len(vals) != 2 or not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in vals):
        raise ValueError(f"Dilation2D: {name} must be an int, (h, w) or (1, 1, h, w) of positive ints, got {v!r}")
    return int(vals[0]), int(vals[1])


class Dilation2D(Operation):
    """``Dilation2D(stride, dilation, pad_mode='SAME', data_format='NCHW')(x, filter)``: x (N, C, H, W),
    filter (C, kH, kW) -> the max over each window of x + filter."""

    def __init__(self, stride: Any, dilation: Any, pad_mode: str = "SAME", data_format: str = "NCHW") -> None:
        self.stride, self.dilation = stride, dilation
        self._s, self._d = _hw("stride", stride), _hw("dilation", dilation)
        if not isinstance(pad_mode, str) or pad_mode.upper() not in ("SAME", "VALID"):
            raise ValueError(f"Dilation2D: pad_mode must be 'SAME' or 'VALID', got {pad_mode!r}")
        self.pad_mode = pad_mode.upper()
        self.data_format = _nchw_only("Dilation2D", data_format)

    def construct(self, x: Tensor, filter: Tensor) -> Tensor:  # noqa: A002  (MindSpore's name)
        op = "Dilation2D"
        if not isinstance(x, Tensor) or x.ndim != 4 or not x.dtype.is_float:
            raise ShapeError(op, "a 4-D float x (N, C, H, W)", f"{getattr(x, 'shape', type(x).__name__)}")
        if not isinstance(filter, Tensor) or filter.ndim != 3 or filter.shape[0] != x.shape[1]:
            raise ShapeError(op, f"a filter of shape ({x.shape[1]}, kH, kW)", f"{getattr(filter, 'shape', None)}")
        (sh, sw), (dh, dw) = self._s, self._d
        kh, kw = filter.shape[1], filter.shape[2]
        if self.pad_mode == "SAME":
            top, bottom = _same(x.shape[2], kh, sh, dh)
            left, right = _same(x.shape[3], kw, sw, dw)
            x = F.pad(x, (left, right, top, bottom), value=float(np.finfo(x.dtype.np).min) / 4)
        n, c, h, w = x.shape
        oh, ow = (h - dh * (kh - 1) - 1) // sh + 1, (w - dw * (kw - 1) - 1) // sw + 1
        if oh < 1 or ow < 1:
            raise ShapeError(op, "an x of at least the dilated filter size", f"shape {tuple(x.shape)}")
        cols = F.reshape(unfold(x, (kh, kw), (dh, dw), 0, (sh, sw)), (n, c, kh * kw, oh, ow))
        f = F.reshape(F.cast(filter, x.dtype), (1, c, kh * kw, 1, 1))
        return F.amax(cols + f, 2)
