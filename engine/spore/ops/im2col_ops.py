"""MindSpore's 4-D im2col / col2im forms (issue 14, slice A2): `ops.col2im` / `Tensor.col2im`,
`ops.Col2Im` and `ops.Im2Col`.

They reuse `unfold` / `fold` (ops/conv_pool_nd.py: identity-kernel convolutions, so gradients and
Graph mode come for free) and only differ in layout: MindSpore keeps channels and kernel
positions apart, (N, C, kH * kW, L), where `unfold`/`fold` use (N, C * kH * kW, L).
"""

from __future__ import annotations

from typing import Any

from ..errors import ShapeError
from ..tensor import Tensor, tensor_method
from . import functional as F
from .conv_pool_nd import fold, unfold
from .operation import Op, op_classes


def _four_d(op: str, name: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: {name} must be a Tensor, got {type(x).__name__}")
    if x.ndim != 4:
        raise ShapeError(op, f"a 4-D {name}", f"shape {tuple(x.shape)}")
    return x


@tensor_method("col2im")
def col2im(input_x: Tensor, output_size: Any, kernel_size: Any, dilation: Any, padding_value: Any,
           stride: Any) -> Tensor:
    """Sum the sliding blocks of `input_x` (N, C, kH * kW, L) back into an (N, C, H, W) image of
    ``output_size`` = (H, W) (overlaps add up): the adjoint of `Im2Col`."""
    x = _four_d("col2im", "input_x", input_x)
    nb, c, kk, length = x.shape
    return fold(F.reshape(x, (nb, c * kk, length)), output_size, kernel_size, dilation, padding_value, stride)


def _im2col(x: Tensor, ksizes: Any, strides: Any, dilations: Any, pads: Any) -> Tensor:
    x = _four_d("Im2Col", "x", x)
    cols = unfold(x, ksizes, dilations, pads, strides)        # (N, C * kk, L)
    nb, c = x.shape[0], x.shape[1]
    return F.reshape(cols, (nb, c, -1, cols.shape[-1]))


def _col2im(x: Tensor, output_size: Any, kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> Tensor:
    return col2im(x, output_size, kernel_size, dilation, padding, stride)


_TABLE = {
    "Im2Col": Op(_im2col, "x: Tensor", "the sliding blocks of a 4-D x as (N, C, kH * kW, L) columns.",
                 "ksizes: Any, strides: Any = 1, dilations: Any = 1, pads: Any = 0"),
    "Col2Im": Op(_col2im, "x: Tensor, output_size: Any", "the (N, C, H, W) image the (N, C, kH * kW, L) blocks sum to.",
                 "kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1"),
}
_CLASSES = op_classes(_TABLE, __name__)
globals().update(_CLASSES)
__all__ = [*_CLASSES]  # the class forms (ops/__init__.py CLASS_MODULES)
