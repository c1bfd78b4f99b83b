"""Convolution layers: Conv2d and Conv1d with MindSpore's signatures and defaults.

Note MindSpore's defaults differ from PyTorch's: ``pad_mode='same'`` and ``has_bias=False``.
Weights are (out_channels, in_channels // group, *kernel_size) — Conv1d's is (out, in // group,
1, k), MindSpore's layout (it runs as a unit-height 2-D convolution), so its checkpoints load as
they are; with weight_init/bias_init None
they are drawn like MindSpore 2.x: HeUniform(sqrt(5)) and Uniform(1/sqrt(fan_in)).
Output sizes per spatial axis: 'same' ceil(n / s); 'valid' floor((n - d(k-1) - 1) / s) + 1;
'pad' the same with n grown by the padding.
"""

from __future__ import annotations

import math
from typing import Any

from ...common import dtype as mstype
from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from ._common import (
    check_bool,
    check_int,
    check_pad_mode,
    default_bias_init,
    default_weight_init,
    init_repr,
    int_tuple,
    make_param,
    shape_error,
)

__all__ = ["Conv2d", "Conv1d"]


def _padding(padding: Any, n: int, layer: str) -> Any:
    """MindSpore's padding: an int, or one (before, after) pair per spatial axis."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        if padding < 0:
            raise ValueError(f"{layer}: padding must be >= 0, got {padding}")
        return padding
    if isinstance(padding, (tuple, list)) and len(padding) == 2 * n and all(
            isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in padding):
        return tuple(padding)
    raise TypeError(f"{layer}: padding must be a non-negative int or a tuple of {2 * n} ints, got {padding!r}")


def init_conv_params(cell: Cell, in_channels: int, out_channels: int, kernel_size: Any, stride: Any,
                     pad_mode: str, padding: Any, dilation: Any, group: int, has_bias: bool, weight_init: Any,
                     bias_init: Any, dtype: Any, *, transposed: bool = False,
                     output_padding: Any = None) -> None:
    """Check a convolution layer's arguments and create its weight and bias, for every convolution
    (1/2/3-d, plain and transposed) so that each refuses bad arguments with the same messages.

    The weight is (out, in/group, *kernel), or (in, out/group, *kernel) when `transposed`, with
    `cell._unit_axes` unit axes before the kernel (Conv1d's MindSpore layout)."""
    name, nd = type(cell).__name__, cell._nd
    cell.in_channels = check_int(in_channels, "in_channels", name)
    cell.out_channels = check_int(out_channels, "out_channels", name)
    cell.kernel_size = int_tuple(kernel_size, nd, "kernel_size", name)
    cell.stride = int_tuple(stride, nd, "stride", name)
    cell.dilation = int_tuple(dilation, nd, "dilation", name)
    cell.pad_mode = check_pad_mode(pad_mode, name)
    cell.padding = _padding(padding, nd, name)
    if cell.pad_mode != "pad" and cell.padding not in (0, (0,) * (2 * nd)):
        raise ValueError(f"{name}: padding must be 0 when pad_mode is {pad_mode!r}; "
                         f"use pad_mode='pad' to pad by {padding!r}")
    if output_padding is not None:
        cell.output_padding = int_tuple(output_padding, nd, "output_padding", name, minimum=0)
        if any(o >= max(s, d) for o, s, d in zip(cell.output_padding, cell.stride, cell.dilation)):
            raise ValueError(f"{name}: output_padding {output_padding!r} must be smaller than stride or dilation")
    cell.group = check_int(group, "group", name)
    if in_channels % group or out_channels % group:
        raise ValueError(f"{name}: in_channels ({in_channels}) and out_channels ({out_channels}) "
                         f"must be divisible by group ({group})")
    cell.has_bias = check_bool(has_bias, "has_bias", name)
    lead = (in_channels, out_channels // group) if transposed else (out_channels, in_channels // group)
    shape = lead + (1,) * cell._unit_axes + cell.kernel_size
    fan_in = shape[1] * math.prod(cell.kernel_size)
    cell.weight_init = default_weight_init(weight_init)
    cell.bias_init = default_bias_init(bias_init, fan_in)
    if isinstance(weight_init, Tensor) and tuple(weight_init.shape) != shape:
        raise ValueError(f"{name}: weight_init has shape {tuple(weight_init.shape)}, expected {shape}")
    cell.weight = make_param(cell.weight_init, shape, dtype, "weight")
    cell.bias = make_param(cell.bias_init, (out_channels,), dtype, "bias") if has_bias else None


class _Conv(Cell):
    """Shared constructor checks, parameters and repr of the convolution layers."""

    _nd = 2
    _unit_axes = 0  # Conv1d: 1, its weight has MindSpore's unit height axis

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any, pad_mode: str,
                 padding: Any, dilation: Any, group: int, has_bias: bool, weight_init: Any, bias_init: Any,
                 data_format: str, dtype: Any) -> None:
        super().__init__()
        init_conv_params(self, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                         has_bias, weight_init, bias_init, dtype)
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"{type(self).__name__}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
        self.format = data_format

    def _check_input(self, x: Tensor) -> None:
        nd = self._nd
        c_axis = -1 if self.format == "NHWC" else 1
        if x.ndim != nd + 2 or x.shape[c_axis] != self.in_channels:
            layout = "(N, C, L)" if nd == 1 else ("(N, H, W, C)" if self.format == "NHWC" else "(N, C, H, W)")
            raise shape_error(type(self).__name__, f"input of shape {layout} with C={self.in_channels} "
                              f"(in_channels)", x)

    def extend_repr(self) -> str:
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, "
                f"has_bias={self.has_bias}, weight_init={init_repr(self.weight_init)}, "
                f"bias_init={init_repr(self.bias_init)}, format={self.format}")


class Conv2d(_Conv):
    """2-D convolution over (N, C, H, W) inputs.

    ``Conv2d(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0,
    dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None, data_format='NCHW',
    dtype=float32)``; `padding` is an int or (top, bottom, left, right) and needs pad_mode='pad'.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, dilation: Any = 1, group: int = 1,
                 has_bias: bool = False, weight_init: Any = None, bias_init: Any = None,
                 data_format: str = "NCHW", dtype: Any = mstype.float32) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                         has_bias, weight_init, bias_init, data_format, dtype)

    def construct(self, x: Tensor) -> Tensor:
        self._check_input(x)
        nhwc = self.format == "NHWC"
        if nhwc:
            x = F.transpose(x, (0, 3, 1, 2))
        out = F.conv2d(x, self.weight, self.bias, self.stride, self.pad_mode, self.padding, self.dilation,
                       self.group)
        return F.transpose(out, (0, 2, 3, 1)) if nhwc else out


class Conv1d(_Conv):
    """1-D convolution over (N, C, L) inputs; `padding` is an int or (left, right).

    The weight is (out_channels, in_channels // group, 1, kernel_size), as in MindSpore (which
    computes Conv1d as a 2-D convolution of height 1): checkpoints interchange unchanged.
    """

    _nd = 1
    _unit_axes = 1

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, dilation: Any = 1, group: int = 1,
                 has_bias: bool = False, weight_init: Any = None, bias_init: Any = None,
                 dtype: Any = mstype.float32) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                         has_bias, weight_init, bias_init, "NCHW", dtype)

    def construct(self, x: Tensor) -> Tensor:
        self._check_input(x)
        w = self.weight
        w = F.reshape(w, (w.shape[0], w.shape[1], w.shape[3]))  # (out, in/g, 1, k) -> (out, in/g, k): a view
        return F.conv1d(x, w, self.bias, self.stride[0], self.pad_mode, self.padding, self.dilation[0], self.group)
