"""Class forms of MindSpore's convolution-gradient and depthwise ops (issue 14, slice A2):
`ops.Conv2DBackpropInput(out_channel, kernel_size, ...)(dout, weight, input_size)` and
`ops.DepthwiseConv2dNative(channel_multiplier, kernel_size, ...)(x, weight)`.

Both map onto registered primitives (conv_pool's `Conv2DBackpropInput` and `Conv2D`), so they
differentiate and compile like those. `DepthwiseConv2dNative`'s weight is MindSpore's
(channel_multiplier, C_in, kH, kW); output channel ``c * channel_multiplier + k`` is input channel
c convolved with multiplier k (TensorFlow's depthwise layout, which MindSpore copies).
"""

from __future__ import annotations

from typing import Any

from ..errors import ShapeError, located
from ..tensor import Tensor
from . import conv_pool as _cp
from . import functional as F
from .classes_conv import _nchw_only, _pad_mode
from .operation import Operation

__all__ = ["Conv2DBackpropInput", "DepthwiseConv2dNative"]


class Conv2DBackpropInput(Operation):
    """The gradient of Conv2D with respect to its input: ``Conv2DBackpropInput(out_channel,
    kernel_size, pad_mode='valid', pad=0, pad_list=None, ...)(dout, weight, input_size)`` returns
    the (N, C_in, H, W) = `input_size` tensor whose conv with `weight` has adjoint `dout`.
    `pad_list` (top, bottom, left, right), when given, overrides `pad_mode`/`pad`."""

    def __init__(self, out_channel: int, kernel_size: Any, pad_mode: str = "valid", pad: Any = 0,
                 pad_list: Any = None, mode: int = 1, stride: Any = 1, dilation: Any = 1, group: int = 1,
                 data_format: str = "NCHW") -> None:
        op = "Conv2DBackpropInput"
        self.out_channel = int(out_channel)
        self.kernel_size = _cp._pair("kernel_size", kernel_size, op)
        if mode != 1:
            raise ValueError(f"{op}: mode must be 1 (cross-correlation), got {mode}")
        self.mode = mode
        self.pad_mode = _pad_mode(op, pad_mode, ("valid", "same", "pad"))
        self.pad = _cp._quad(pad, op)
        self.pad_list = None if pad_list is None else _cp._quad(pad_list, op)
        self.stride = _cp._pair("stride", stride, op)
        self.dilation = _cp._pair("dilation", dilation, op)
        self.group = int(group)
        self.data_format = _nchw_only(op, data_format)

    def construct(self, dout: Tensor, weight: Tensor, input_size: Any) -> Tensor:
        op = "Conv2DBackpropInput"
        size = tuple(int(v) for v in (input_size.asnumpy().tolist() if isinstance(input_size, Tensor) else input_size))
        if len(size) != 4:
            raise located(ShapeError(op, "input_size of 4 ints (N, C_in, H, W)", f"{size}"))
        if isinstance(weight, Tensor) and (weight.ndim != 4 or weight.shape[0] != self.out_channel
                                           or tuple(weight.shape[2:]) != self.kernel_size):
            raise located(ShapeError(op, f"a weight ({self.out_channel}, C_in/group, {self.kernel_size[0]}, "
                                     f"{self.kernel_size[1]})", f"{tuple(weight.shape)}"))
        if self.pad_list is not None:
            pads = self.pad_list
        else:
            pads = _cp._pads_for_mode(op, size[2:], self.kernel_size, self.stride, self.dilation, self.pad_mode,
                                      self.pad if self.pad_mode == "pad" else 0)
        return _cp.Conv2DBackpropInput(dout, weight, input_size=size, stride=self.stride, pad=pads,
                                       dilation=self.dilation, group=self.group)


class DepthwiseConv2dNative(Operation):
    """Depthwise 2-D convolution: ``DepthwiseConv2dNative(channel_multiplier, kernel_size, mode=3,
    pad_mode='valid', pad=0, stride=1, dilation=1, group=1)(x, weight)`` with weight
    (channel_multiplier, C_in, kH, kW); the output has C_in * channel_multiplier channels."""

    def __init__(self, channel_multiplier: int, kernel_size: Any, mode: int = 3, pad_mode: str = "valid",
                 pad: Any = 0, stride: Any = 1, dilation: Any = 1, group: int = 1) -> None:
        op = "DepthwiseConv2dNative"
        if isinstance(channel_multiplier, bool) or not isinstance(channel_multiplier, int) or channel_multiplier < 1:
            raise ValueError(f"{op}: channel_multiplier must be a positive int, got {channel_multiplier!r}")
        if mode != 3:
            raise ValueError(f"{op}: mode must be 3 (depthwise), got {mode}")
        self.channel_multiplier, self.mode, self.group = channel_multiplier, mode, int(group)
        self.kernel_size = _cp._pair("kernel_size", kernel_size, op)
        self.pad_mode = _pad_mode(op, pad_mode, ("valid", "same", "pad"))
        self.pad = _cp._quad(pad, op)
        if self.pad_mode != "pad" and self.pad != (0, 0, 0, 0):
            raise ValueError(f"{op}: pad must be 0 when pad_mode is '{pad_mode}'")
        self.stride = _cp._pair("stride", stride, op)
        self.dilation = _cp._pair("dilation", dilation, op)

    def construct(self, x: Tensor, weight: Tensor) -> Tensor:
        op = "DepthwiseConv2dNative"
        if not isinstance(x, Tensor) or x.ndim != 4:
            raise located(ShapeError(op, "a 4-D x (N, C, H, W)", f"{getattr(x, 'shape', type(x).__name__)}"))
        c = x.shape[1]
        want = (self.channel_multiplier, c, *self.kernel_size)
        if not isinstance(weight, Tensor) or tuple(weight.shape) != want:
            raise located(ShapeError(op, f"a weight of shape {want}", f"{getattr(weight, 'shape', None)}"))
        k = self.channel_multiplier
        w = F.reshape(F.transpose(weight, (1, 0, 2, 3)), (c * k, 1, *self.kernel_size))
        return _cp.conv2d(x, w, None, self.stride, self.pad_mode, self.pad, self.dilation, c)
