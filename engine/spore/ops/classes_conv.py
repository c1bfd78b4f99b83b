"""Class-form convolution and pooling ops with MindSpore's constructor signatures
(`ops.Conv2D(out_channel, kernel_size)(x, weight)`, `ops.MaxPool(2, 2)(x)`, ...).

Each translates its constructor arguments onto the functional wrappers of `conv_pool` (and so onto
the registered primitives) and checks what it can at construction time, as MindSpore does.
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import conv_pool as _cp
from .operation import Operation

__all__ = [
    "AdaptiveAvgPool2D", "AvgPool", "BiasAdd", "Conv2D", "MaxPool",
]


def _nchw_only(op: str, data_format: str) -> str:
    if data_format != "NCHW":
        raise ValueError(f"{op}: only data_format='NCHW' is supported on CPU, got {data_format!r}")
    return data_format


def _pad_mode(op: str, pad_mode: str, allowed: tuple[str, ...]) -> str:
    mode = str(pad_mode).lower()
    if mode not in allowed:
        raise ValueError(f"{op}: pad_mode must be one of {allowed}, got {pad_mode!r}")
    return mode


class Conv2D(Operation):
    """2-D convolution: ``Conv2D(out_channel, kernel_size, ...)(x, weight)``; weight is
    (out_channel, C_in/group, kH, kW). `pad` (with pad_mode='pad') is an int or
    (top, bottom, left, right)."""

    def __init__(self, out_channel: int, kernel_size: Any, mode: int = 1, pad_mode: str = "valid", pad: Any = 0,
                 stride: Any = 1, dilation: Any = 1, group: int = 1, data_format: str = "NCHW") -> None:
        self.out_channel = int(out_channel)
        self.kernel_size = _cp._pair("kernel_size", kernel_size, "Conv2D")
        if mode != 1:
            raise ValueError(f"Conv2D: mode must be 1 (cross-correlation), got {mode}")
        self.mode = mode
        self.pad_mode = _pad_mode("Conv2D", pad_mode, ("valid", "same", "pad"))
        self.pad = _cp._quad(pad, "Conv2D")
        if self.pad_mode != "pad" and self.pad != (0, 0, 0, 0):
            raise ValueError(f"Conv2D: pad must be 0 when pad_mode is '{pad_mode}'")
        self.stride = _cp._pair("stride", stride, "Conv2D")
        self.dilation = _cp._pair("dilation", dilation, "Conv2D")
        self.group = int(group)
        self.data_format = _nchw_only("Conv2D", data_format)

    def construct(self, x: Tensor, weight: Tensor) -> Tensor:
        if isinstance(weight, Tensor) and weight.ndim == 4 and (weight.shape[0] != self.out_channel or
                                                                 tuple(weight.shape[2:]) != self.kernel_size):
            from ..errors import ShapeError, located

            raise located(ShapeError("Conv2D", f"a weight ({self.out_channel}, C_in/group, "
                                     f"{self.kernel_size[0]}, {self.kernel_size[1]})", f"{tuple(weight.shape)}"))
        return _cp.conv2d(x, weight, None, self.stride, self.pad_mode, self.pad, self.dilation, self.group)


class MaxPool(Operation):
    """2-D max pooling with TF-style pad_mode 'valid' / 'same': ``MaxPool(kernel_size, strides)(x)``."""

    def __init__(self, kernel_size: Any = 1, strides: Any = 1, pad_mode: str = "valid",
                 data_format: str = "NCHW") -> None:
        self.kernel_size = _cp._pair("kernel_size", kernel_size, "MaxPool")
        self.strides = _cp._pair("strides", strides, "MaxPool")
        self.pad_mode = _pad_mode("MaxPool", pad_mode, ("valid", "same"))
        self.data_format = _nchw_only("MaxPool", data_format)

    def construct(self, x: Tensor) -> Tensor:
        return _cp.pool2d(x, "max", self.kernel_size, self.strides, self.pad_mode)


class AvgPool(Operation):
    """2-D average pooling with TF-style pad_mode 'valid' / 'same' (padding never counted in the
    divisor): ``AvgPool(kernel_size, strides)(x)``."""

    def __init__(self, kernel_size: Any = 1, strides: Any = 1, pad_mode: str = "VALID",
                 data_format: str = "NCHW") -> None:
        self.kernel_size = _cp._pair("kernel_size", kernel_size, "AvgPool")
        self.strides = _cp._pair("strides", strides, "AvgPool")
        self.pad_mode = _pad_mode("AvgPool", pad_mode, ("valid", "same"))
        self.data_format = _nchw_only("AvgPool", data_format)

    def construct(self, x: Tensor) -> Tensor:
        return _cp.pool2d(x, "avg", self.kernel_size, self.strides, self.pad_mode)


class BiasAdd(Operation):
    """Adds a per-channel bias: ``BiasAdd()(x, bias)``; channel axis 1 (NCHW) or last (NHWC)."""

    def __init__(self, data_format: str = "NCHW") -> None:
        if data_format not in ("NCHW", "NHWC", "NCDHW"):
            raise ValueError(f"BiasAdd: data_format must be 'NCHW', 'NHWC' or 'NCDHW', got {data_format!r}")
        self.data_format = data_format

    def construct(self, input_x: Tensor, bias: Tensor) -> Tensor:
        return _cp.bias_add(input_x, bias, self.data_format)


class AdaptiveAvgPool2D(Operation):
    """Adaptive 2-D average pooling to a fixed output size: ``AdaptiveAvgPool2D((h, w))(x)``;
    an int means (n, n), None keeps that input dimension."""

    def __init__(self, output_size: Any) -> None:
        if isinstance(output_size, int) or output_size is None:
            output_size = (output_size, output_size)
        output_size = tuple(output_size)
        if len(output_size) != 2 or any(s is not None and int(s) < 1 for s in output_size):
            raise ValueError(f"AdaptiveAvgPool2D: output_size must be a positive int or a pair, got {output_size!r}")
        self.output_size = output_size

    def construct(self, x: Tensor) -> Tensor:
        return _cp.adaptive_avg_pool2d(x, self.output_size)
