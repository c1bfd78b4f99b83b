"""MindSpore's `ops.ExtractImagePatches(ksizes, strides, rates, padding='VALID')(input_x)`
(issue 14, slice A2): TensorFlow's extract_image_patches on NCHW images.

Every (ksize_row x ksize_col) window (taken with `strides`, dilated by `rates`) becomes one
output pixel of depth ``ksize_row * ksize_col * C``, ordered (kernel row, kernel column, channel)
with the channel fastest — TensorFlow's depth order, which MindSpore keeps. 'SAME' pads like
TensorFlow (output ceil(H / stride), the odd pixel at the bottom/right). Built on `unfold`, so it
differentiates and compiles like that.
"""

from __future__ import annotations

from typing import Any

from ..errors import ShapeError
from ..tensor import Tensor
from . import functional as F
from .conv_pool_nd import unfold
from .operation import Operation

__all__ = ["ExtractImagePatches"]


def _quad(name: str, v: Any) -> tuple[int, int]:
    if (not isinstance(v, (tuple, list)) or len(v) != 4 or v[0] != 1 or v[1] != 1
            or not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in v)):
        raise ValueError(f"ExtractImagePatches: {name} must be [1, 1, row, col] of positive ints, got {v!r}")
    return int(v[2]), int(v[3])


def _same(size: int, k: int, s: int, d: int) -> tuple[int, int]:
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    return total // 2, total - total // 2


class ExtractImagePatches(Operation):
    """``ExtractImagePatches(ksizes, strides, rates, padding='VALID')(input_x)``: (N, C, H, W) ->
    (N, kr * kc * C, out_row, out_col); `ksizes`, `strides`, `rates` are [1, 1, row, col]."""

    def __init__(self, ksizes: Any, strides: Any, rates: Any, padding: str = "VALID") -> None:
        self.ksizes, self.strides, self.rates = ksizes, strides, rates
        self._k, self._s, self._r = _quad("ksizes", ksizes), _quad("strides", strides), _quad("rates", rates)
        if not isinstance(padding, str) or padding.upper() not in ("VALID", "SAME"):
            raise ValueError(f"ExtractImagePatches: padding must be 'VALID' or 'SAME', got {padding!r}")
        self.padding = padding.upper()

    def construct(self, input_x: Tensor) -> Tensor:
        op = "ExtractImagePatches"
        if not isinstance(input_x, Tensor) or input_x.ndim != 4:
            raise ShapeError(op, "a 4-D input_x (N, C, H, W)", f"{getattr(input_x, 'shape', type(input_x).__name__)}")
        (kh, kw), s, r = self._k, self._s, self._r
        x = input_x
        if self.padding == "SAME":
            top, bottom = _same(x.shape[2], kh, s[0], r[0])
            left, right = _same(x.shape[3], kw, s[1], r[1])
            x = F.pad(x, (left, right, top, bottom))
        n, c, h, w = x.shape
        oh = (h - r[0] * (kh - 1) - 1) // s[0] + 1
        ow = (w - r[1] * (kw - 1) - 1) // s[1] + 1
        if oh < 1 or ow < 1:
            raise ShapeError(op, f"an input_x of at least the dilated window size, (.., {r[0] * (kh - 1) + 1}, "
                             f"{r[1] * (kw - 1) + 1})", f"shape {tuple(input_x.shape)}")
        cols = unfold(x, (kh, kw), r, 0, s)                              # (N, C * kh * kw, oh * ow)
        cols = F.reshape(cols, (n, c, kh * kw, oh, ow))
        return F.reshape(F.transpose(cols, (0, 2, 1, 3, 4)), (n, kh * kw * c, oh, ow))
