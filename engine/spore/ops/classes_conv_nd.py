"""Class-form 3-D / transposed convolution and 3-D, adaptive-max and unpooling ops with MindSpore's
constructor signatures (`ops.Conv3D(out_channel, kernel_size)(x, weight)`, `ops.MaxPool3D(2, 2)(x)`,
...), each a thin translation onto the composites of `conv_pool_nd`."""

from __future__ import annotations

from typing import Any

from ..common import dtype as mstype
from ..errors import ShapeError, located
from ..tensor import Tensor
from . import conv_pool_nd as _nd
from .operation import Operation

__all__ = ["Conv3D", "Conv3DTranspose", "Conv2DTranspose", "MaxPool3D", "AvgPool3D", "AdaptiveMaxPool2D",
           "AdaptiveMaxPool3D", "AdaptiveAvgPool3D", "MaxUnpool2D", "MaxUnpool3D", "MaxPoolWithArgmax",
           "MaxPool3DWithArgmax", "UpsampleNearest3D", "UpsampleTrilinear3D"]


def _fmt(op: str, data_format: str, allowed: str) -> str:
    if data_format != allowed:
        raise ValueError(f"{op}: only data_format={allowed!r} is supported on CPU, got {data_format!r}")
    return data_format


def _mode(op: str, pad_mode: str) -> str:
    m = str(pad_mode).lower()
    if m not in ("valid", "same", "pad"):
        raise ValueError(f"{op}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    return m


def _check_pad(op: str, mode: str, pad: Any, n: int) -> Any:
    before, after = _nd._pads(op, pad, n)
    if mode != "pad" and (any(before) or any(after)):
        raise ValueError(f"{op}: pad must be 0 when pad_mode is {mode!r}")
    return pad


class Conv3D(Operation):
    """3-D convolution: ``Conv3D(out_channel, kernel_size, ...)(x, weight, bias=None)``; weight is
    (out_channel, C_in/group, kD, kH, kW); `pad` an int or (front, back, top, bottom, left, right)."""

    def __init__(self, out_channel: int, kernel_size: Any, mode: int = 1, pad_mode: str = "valid", pad: Any = 0,
                 stride: Any = 1, dilation: Any = 1, group: int = 1, data_format: str = "NCDHW") -> None:
        self.out_channel = int(out_channel)
        self.kernel_size = _nd._ntuple("Conv3D", "kernel_size", kernel_size, 3)
        if mode != 1:
            raise ValueError(f"Conv3D: mode must be 1 (cross-correlation), got {mode}")
        self.mode = mode
        self.pad_mode = _mode("Conv3D", pad_mode)
        self.pad = _check_pad("Conv3D", self.pad_mode, pad, 3)
        self.stride = _nd._ntuple("Conv3D", "stride", stride, 3)
        self.dilation = _nd._ntuple("Conv3D", "dilation", dilation, 3)
        self.group = int(group)
        self.data_format = _fmt("Conv3D", data_format, "NCDHW")

    def construct(self, x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
        if isinstance(weight, Tensor) and weight.ndim == 5 and (weight.shape[0] != self.out_channel or
                                                                 tuple(weight.shape[2:]) != self.kernel_size):
            raise located(ShapeError("Conv3D", f"a weight ({self.out_channel}, C_in/group, *{self.kernel_size})",
                                     f"{tuple(weight.shape)}"))
        return _nd.conv3d(x, weight, bias, self.stride, self.pad_mode, self.pad, self.dilation, self.group)


class Conv3DTranspose(Operation):
    """3-D transposed convolution: ``Conv3DTranspose(in_channel, out_channel, kernel_size, ...)(dout,
    weight, bias=None)``; weight (in_channel, out_channel/group, kD, kH, kW)."""

    def __init__(self, in_channel: int, out_channel: int, kernel_size: Any, mode: int = 1, pad_mode: str = "valid",
                 pad: Any = 0, stride: Any = 1, dilation: Any = 1, group: int = 1, output_padding: Any = 0,
                 data_format: str = "NCDHW") -> None:
        self.in_channel, self.out_channel = int(in_channel), int(out_channel)
        self.kernel_size = _nd._ntuple("Conv3DTranspose", "kernel_size", kernel_size, 3)
        if mode != 1:
            raise ValueError(f"Conv3DTranspose: mode must be 1, got {mode}")
        self.mode = mode
        self.pad_mode = _mode("Conv3DTranspose", pad_mode)
        self.pad = _check_pad("Conv3DTranspose", self.pad_mode, pad, 3)
        self.stride = _nd._ntuple("Conv3DTranspose", "stride", stride, 3)
        self.dilation = _nd._ntuple("Conv3DTranspose", "dilation", dilation, 3)
        self.group = int(group)
        self.output_padding = _nd._ntuple("Conv3DTranspose", "output_padding", output_padding, 3)
        self.data_format = _fmt("Conv3DTranspose", data_format, "NCDHW")

    def construct(self, dout: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
        from .array import reshape

        if isinstance(weight, Tensor) and weight.ndim == 5 and (
                weight.shape[0] != self.in_channel or weight.shape[1] * self.group != self.out_channel):
            raise located(ShapeError("Conv3DTranspose", f"a weight ({self.in_channel}, "
                                     f"{self.out_channel // max(self.group, 1)}, kD, kH, kW)",
                                     f"{tuple(weight.shape)}"))
        y = _nd.conv3d_transpose(dout, weight, self.pad_mode, self.pad, self.stride, self.dilation, self.group,
                                 self.output_padding)
        return y if bias is None else y + reshape(bias, (1, -1, 1, 1, 1))


class Conv2DTranspose(Operation):
    """2-D transposed convolution (the input gradient of Conv2D): ``Conv2DTranspose(out_channel,
    kernel_size, ...)(dout, weight, input_size)``; weight (C_out_of_dout, C_in/group, kH, kW) and
    the output has shape `input_size`. `pad` / `pad_list` (top, bottom, left, right) with pad_mode='pad'."""

    def __init__(self, out_channel: int, kernel_size: Any, pad_mode: str = "valid", pad: Any = 0,
                 pad_list: Any = None, mode: int = 1, stride: Any = 1, dilation: Any = 1, group: int = 1,
                 data_format: str = "NCHW") -> None:
        self.out_channel = int(out_channel)
        self.kernel_size = _nd._ntuple("Conv2DTranspose", "kernel_size", kernel_size, 2)
        self.pad_mode = _mode("Conv2DTranspose", pad_mode)
        self.pad = _check_pad("Conv2DTranspose", self.pad_mode, pad, 2)
        self.pad_list = pad_list
        self.mode = mode
        self.stride = _nd._ntuple("Conv2DTranspose", "stride", stride, 2)
        self.dilation = _nd._ntuple("Conv2DTranspose", "dilation", dilation, 2)
        self.group = int(group)
        self.data_format = _fmt("Conv2DTranspose", data_format, "NCHW")

    def construct(self, dout: Tensor, weight: Tensor, input_size: Any) -> Tensor:
        from .conv_pool import Conv2DBackpropInput

        size = tuple(int(v) for v in (input_size.asnumpy() if isinstance(input_size, Tensor) else input_size))
        if len(size) != 4:
            raise ValueError(f"Conv2DTranspose: input_size must be (N, C, H, W), got {input_size!r}")
        pad = self.pad if self.pad_list is None else self.pad_list
        before, after = _nd._mode_pads("Conv2DTranspose", self.pad_mode, pad, size[2:], self.kernel_size,
                                       self.stride, self.dilation)
        return Conv2DBackpropInput(dout, weight, input_size=size, stride=self.stride,
                                   pad=(before[0], after[0], before[1], after[1]), dilation=self.dilation,
                                   group=self.group)


class MaxPool3D(Operation):
    """3-D max pooling: ``MaxPool3D(kernel_size, strides, pad_mode='VALID', pad_list=0, ceil_mode=None)(x)``."""

    def __init__(self, kernel_size: Any = 1, strides: Any = 1, pad_mode: str = "VALID", pad_list: Any = 0,
                 ceil_mode: Any = None, data_format: str = "NCDHW") -> None:
        self.kernel_size = _nd._ntuple("MaxPool3D", "kernel_size", kernel_size, 3)
        self.strides = _nd._ntuple("MaxPool3D", "strides", strides, 3)
        self.pad_mode = _mode("MaxPool3D", pad_mode)
        self.pad_list = _check_pad("MaxPool3D", self.pad_mode, pad_list, 3)
        self.ceil_mode = bool(ceil_mode)
        self.data_format = _fmt("MaxPool3D", data_format, "NCDHW")

    def construct(self, x: Tensor) -> Tensor:
        _nd._check("MaxPool3D", x, (5,), "a 5-D input (N, C, D, H, W)")
        before, after = _nd._mode_pads("MaxPool3D", self.pad_mode, self.pad_list, x.shape[2:], self.kernel_size,
                                       self.strides, (1, 1, 1))
        return _nd._max_pool_nd("MaxPool3D", x, 3, self.kernel_size, self.strides, before, after, 1,
                                self.ceil_mode and self.pad_mode == "pad", False)


class AvgPool3D(Operation):
    """3-D average pooling: ``AvgPool3D(kernel_size, strides, pad_mode='valid', pad=0, ceil_mode=False,
    count_include_pad=True, divisor_override=0)(x)``."""

    def __init__(self, kernel_size: Any = 1, strides: Any = 1, pad_mode: str = "valid", pad: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int = 0,
                 data_format: str = "NCDHW") -> None:
        self.kernel_size = _nd._ntuple("AvgPool3D", "kernel_size", kernel_size, 3)
        self.strides = _nd._ntuple("AvgPool3D", "strides", strides, 3)
        self.pad_mode = _mode("AvgPool3D", pad_mode)
        self.pad = _check_pad("AvgPool3D", self.pad_mode, pad, 3)
        self.ceil_mode = bool(ceil_mode)
        self.count_include_pad = bool(count_include_pad)
        self.divisor_override = int(divisor_override or 0)
        self.data_format = _fmt("AvgPool3D", data_format, "NCDHW")

    def construct(self, x: Tensor) -> Tensor:
        _nd._check("AvgPool3D", x, (5,), "a 5-D input (N, C, D, H, W)")
        before, after = _nd._mode_pads("AvgPool3D", self.pad_mode, self.pad, x.shape[2:], self.kernel_size,
                                       self.strides, (1, 1, 1))
        is_pad = self.pad_mode == "pad"
        return _nd._avg_pool_nd("AvgPool3D", x, 3, self.kernel_size, self.strides, before, after,
                                self.ceil_mode and is_pad, self.count_include_pad and is_pad, self.divisor_override)


class AdaptiveMaxPool2D(Operation):
    """Adaptive 2-D max pooling: ``AdaptiveMaxPool2D(output_size)(x)`` returns (y, argmax int64)."""

    def __init__(self, output_size: Any) -> None:
        self.output_size = output_size

    def construct(self, x: Tensor) -> tuple[Tensor, Tensor]:
        return _nd.adaptive_max_pool2d(x, self.output_size, True)


class AdaptiveMaxPool3D(Operation):
    """Adaptive 3-D max pooling: ``AdaptiveMaxPool3D()(x, output_size)`` returns (y, argmax int32),
    the output size a 3-element int tuple or Tensor."""

    def construct(self, x: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
        from .array import cast

        size = tuple(int(v) for v in (output_size.asnumpy() if isinstance(output_size, Tensor) else output_size))
        y, idx = _nd.adaptive_max_pool3d(x, size, True)
        return y, cast(idx, mstype.int32)


class AdaptiveAvgPool3D(Operation):
    """Adaptive 3-D average pooling: ``AdaptiveAvgPool3D(output_size)(x)``."""

    def __init__(self, output_size: Any) -> None:
        self.output_size = output_size

    def construct(self, x: Tensor) -> Tensor:
        return _nd.adaptive_avg_pool3d(x, self.output_size)


class MaxUnpool2D(Operation):
    """``MaxUnpool2D(ksize, strides=0, pads=0, output_shape=())(x, argmax)``: the inverse of max pooling
    with indices (strides 0 means the kernel size)."""

    _nd = 2

    def __init__(self, ksize: Any, strides: Any = 0, pads: Any = 0, output_shape: Any = (),
                 data_format: str = "NCHW") -> None:
        self.ksize, self.strides, self.pads = ksize, strides, pads
        self.output_shape = tuple(output_shape)
        self.data_format = _fmt(type(self).__name__, data_format, "NCHW" if self._nd == 2 else "NCDHW")

    def construct(self, x: Tensor, argmax: Tensor) -> Tensor:
        return _nd._max_unpool(type(self).__name__, x, argmax, self._nd, self.ksize, self.strides or None, self.pads,
                               self.output_shape or None)


class MaxUnpool3D(MaxUnpool2D):
    """``MaxUnpool3D(ksize, strides=0, pads=0, output_shape=())(x, argmax)``."""

    _nd = 3

    def __init__(self, ksize: Any, strides: Any = 0, pads: Any = 0, output_shape: Any = (),
                 data_format: str = "NCDHW") -> None:
        super().__init__(ksize, strides, pads, output_shape, data_format)


class MaxPoolWithArgmax(Operation):
    """``MaxPoolWithArgmax(kernel_size, strides, pad_mode='valid')(x)`` returns (output, argmax): the
    2-D max pooling and, per output, the flat index h * W + w of its maximum in the input plane (int32)."""

    def __init__(self, kernel_size: Any = 1, strides: Any = 1, pad_mode: str = "valid",
                 data_format: str = "NCHW") -> None:
        self.kernel_size = _nd._ntuple("MaxPoolWithArgmax", "kernel_size", kernel_size, 2)
        self.strides = _nd._ntuple("MaxPoolWithArgmax", "strides", strides, 2)
        self.pad_mode = str(pad_mode).lower()
        if self.pad_mode not in ("valid", "same"):
            raise ValueError(f"MaxPoolWithArgmax: pad_mode must be 'valid' or 'same', got {pad_mode!r}")
        self.data_format = _fmt("MaxPoolWithArgmax", data_format, "NCHW")

    def construct(self, x: Tensor) -> tuple[Tensor, Tensor]:
        from .array import cast
        from .conv_pool import max_pool2d_padmode

        y, idx = max_pool2d_padmode(x, self.kernel_size, self.strides, self.pad_mode, return_indices=True)
        return y, cast(idx, mstype.int32)


class MaxPool3DWithArgmax(Operation):
    """``MaxPool3DWithArgmax(ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False)(x)`` returns
    (output, argmax): the flat index d*H*W + h*W + w of each maximum (argmax_type int64 or int32)."""

    def __init__(self, ksize: Any, strides: Any, pads: Any, dilation: Any = (1, 1, 1), ceil_mode: bool = False,
                 data_format: str = "NCDHW", argmax_type: Any = mstype.int64) -> None:
        self.ksize = _nd._ntuple("MaxPool3DWithArgmax", "ksize", ksize, 3)
        self.strides = _nd._ntuple("MaxPool3DWithArgmax", "strides", strides, 3)
        self.pads = _nd._ntuple("MaxPool3DWithArgmax", "pads", pads, 3)
        self.dilation = _nd._ntuple("MaxPool3DWithArgmax", "dilation", dilation, 3)
        self.ceil_mode = bool(ceil_mode)
        self.data_format = _fmt("MaxPool3DWithArgmax", data_format, "NCDHW")
        self.argmax_type = argmax_type
        if self.argmax_type not in (mstype.int32, mstype.int64):
            raise ValueError(f"MaxPool3DWithArgmax: argmax_type must be int32 or int64, got {argmax_type!r}")

    def construct(self, x: Tensor) -> tuple[Tensor, Tensor]:
        from .array import cast

        _nd._check("MaxPool3DWithArgmax", x, (5,), "a 5-D input (N, C, D, H, W)")
        y, idx = _nd._max_pool_nd("MaxPool3DWithArgmax", x, 3, self.ksize, self.strides, self.pads, self.pads,
                                  self.dilation, self.ceil_mode, True)
        return y, cast(idx, self.argmax_type)


def _upsample3d(op: str, x: Tensor, output_size: Any, scales: Any, mode: str, align_corners: bool | None) -> Tensor:
    """The (D, H, W) size from exactly one of output_size / scales (floor(input * scale)), then interpolate."""
    from .resize import interpolate

    _nd._check(op, x, (5,), "a 5-D input (N, C, D, H, W)")
    if (output_size is None) == (scales is None):
        raise ValueError(f"{op}: exactly one of output_size and scales must be given")
    if output_size is not None:
        size = tuple(int(v) for v in output_size)
    else:
        sc = tuple(float(v) for v in scales)
        if len(sc) != 3 or min(sc) <= 0:
            raise ValueError(f"{op}: scales must be 3 positive floats, got {scales!r}")
        size = tuple(int(n * s) for n, s in zip(x.shape[2:], sc))
    if len(size) != 3 or min(size) < 1:
        raise ValueError(f"{op}: output_size must be 3 positive ints, got {output_size!r}")
    return interpolate(x, size=size, mode=mode, align_corners=align_corners)


class UpsampleNearest3D(Operation):
    """``UpsampleNearest3D()(x, output_size=None, scales=None)``: nearest-neighbour resize of
    (N, C, D, H, W); output index i reads input floor(i * in / out)."""

    def construct(self, x: Tensor, output_size: Any = None, scales: Any = None) -> Tensor:
        return _upsample3d("UpsampleNearest3D", x, output_size, scales, "nearest", None)


class UpsampleTrilinear3D(Operation):
    """``UpsampleTrilinear3D(align_corners=False)(x, output_size=None, scales=None)``: trilinear
    resize of (N, C, D, H, W) (half-pixel centres, or corner-aligned)."""

    def __init__(self, align_corners: bool = False) -> None:
        self.align_corners = bool(align_corners)

    def construct(self, x: Tensor, output_size: Any = None, scales: Any = None) -> Tensor:
        return _upsample3d("UpsampleTrilinear3D", x, output_size, scales, "trilinear", self.align_corners)
