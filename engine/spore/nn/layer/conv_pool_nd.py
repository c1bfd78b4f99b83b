"""Transposed and 3-D convolution layers and the 3-D, adaptive-max, LP and unpooling layers
(issue 14), with MindSpore 2.10's signatures and defaults (``pad_mode='same'``, ``has_bias=False``
for the convolutions; ``kernel_size=1, stride=1, pad_mode='valid'`` for the pools).

Weights use MindSpore's layouts so checkpoints interchange: Conv3d (out, in/group, kD, kH, kW);
the transposed convolutions (in, out/group, *kernel) — Conv1dTranspose (in, out/group, 1, k), as
MindSpore runs it as a unit-height 2-D one. A transposed convolution's output per axis is
'same': in * stride; 'valid': in * stride + max(dilated kernel - stride, 0); 'pad':
(in - 1) * stride - padding_before - padding_after + dilation * (k - 1) + 1, plus output_padding
(computed as PyTorch does: the extra rows hold the convolution's values, not zeros).
"""

from __future__ import annotations

from typing import Any

from ...common import dtype as mstype
from ...ops import conv_pool_nd as N
from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from ._common import (
    check_bool,
    check_int,
    check_pad_mode,
    init_repr,
    int_tuple,
    shape_error,
)
from .conv import init_conv_params

__all__ = ["Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose", "MaxPool3d", "AvgPool3d",
           "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "AdaptiveAvgPool3d", "LPPool1d",
           "LPPool2d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "ChannelShuffle", "LRN", "Unfold"]


class _ConvND(Cell):
    """Shared checks, parameters and repr of Conv3d and the transposed convolutions."""

    _nd = 3
    _transposed = False
    _unit_axes = 0

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any, pad_mode: str,
                 padding: Any, dilation: Any, group: int, has_bias: bool, weight_init: Any, bias_init: Any,
                 dtype: Any, output_padding: Any = 0) -> None:
        super().__init__()
        init_conv_params(self, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                         has_bias, weight_init, bias_init, dtype, transposed=self._transposed,
                         output_padding=output_padding)

    def _check_input(self, x: Tensor) -> None:
        if not isinstance(x, Tensor) or x.ndim != self._nd + 2 or x.shape[1] != self.in_channels:
            layout = {1: "(N, C, L)", 2: "(N, C, H, W)", 3: "(N, C, D, H, W)"}[self._nd]
            raise shape_error(type(self).__name__, f"input of shape {layout} with C={self.in_channels} "
                              f"(in_channels)", x)

    def _pads(self, spatial: Any) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """(before, after, extra output) of a transposed convolution for this input."""
        return N._transpose_mode_pads(type(self).__name__, self.pad_mode, self.padding, spatial, self.kernel_size,
                                      self.stride, self.dilation)

    def _add_bias(self, y: Tensor) -> Tensor:
        if self.bias is None:
            return y
        return y + F.reshape(self.bias, (1, self.out_channels) + (1,) * self._nd)

    def extend_repr(self) -> str:
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, "
                f"has_bias={self.has_bias}, weight_init={init_repr(self.weight_init)}, "
                f"bias_init={init_repr(self.bias_init)}")


class Conv3d(_ConvND):
    """3-D convolution over (N, C, D, H, W) inputs; `padding` is an int or (front, back, top,
    bottom, left, right) and needs pad_mode='pad'. Only data_format='NCDHW' (MindSpore's only one)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, dilation: Any = 1, group: int = 1,
                 has_bias: bool = False, weight_init: Any = None, bias_init: Any = None,
                 data_format: str = "NCDHW", dtype: Any = mstype.float32) -> None:
        if data_format != "NCDHW":
            raise ValueError(f"Conv3d: data_format must be 'NCDHW', got {data_format!r}")
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                         has_bias, weight_init, bias_init, dtype)
        self.format = data_format

    def construct(self, x: Tensor) -> Tensor:
        self._check_input(x)
        return N.conv3d(x, self.weight, self.bias, self.stride, self.pad_mode, self.padding, self.dilation,
                        self.group)


class Conv2dTranspose(_ConvND):
    """2-D transposed convolution over (N, C, H, W) inputs (the input gradient of a Conv2d);
    weight (in_channels, out_channels // group, kH, kW); `padding` an int or (top, bottom, left, right)."""

    _nd = 2
    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, output_padding: Any = 0, dilation: Any = 1,
                 group: int = 1, has_bias: bool = False, weight_init: Any = None, bias_init: Any = None,
                 dtype: Any = mstype.float32) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                         has_bias, weight_init, bias_init, dtype, output_padding)

    def construct(self, x: Tensor) -> Tensor:
        self._check_input(x)
        before, after, extra = self._pads(x.shape[2:])
        y = N._conv_transpose_2d(type(self).__name__, x, self.weight, self.stride, before, after, self.dilation,
                                 self.group, tuple(a + b for a, b in zip(extra, self.output_padding)))
        return self._add_bias(y)


class Conv1dTranspose(_ConvND):
    """1-D transposed convolution over (N, C, L) inputs; weight (in, out // group, 1, k) as in
    MindSpore; `padding` an int or (left, right)."""

    _nd = 1
    _transposed = True
    _unit_axes = 1

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, dilation: Any = 1, group: int = 1,
                 has_bias: bool = False, weight_init: Any = None, bias_init: Any = None,
                 dtype: Any = mstype.float32) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                         has_bias, weight_init, bias_init, dtype)

    def construct(self, x: Tensor) -> Tensor:
        self._check_input(x)
        before, after, extra = self._pads(x.shape[2:])
        x4 = F.expand_dims(x, 2)
        y = N._conv_transpose_2d(type(self).__name__, x4, self.weight, (1, self.stride[0]), (0, before[0]),
                                 (0, after[0]), (1, self.dilation[0]), self.group, (0, extra[0]))
        return self._add_bias(F.squeeze(y, 2))


class Conv3dTranspose(_ConvND):
    """3-D transposed convolution over (N, C, D, H, W) inputs; weight (in, out // group, kD, kH, kW)."""

    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, dilation: Any = 1, group: int = 1,
                 output_padding: Any = 0, has_bias: bool = False, weight_init: Any = None, bias_init: Any = None,
                 data_format: str = "NCDHW", dtype: Any = mstype.float32) -> None:
        if data_format != "NCDHW":
            raise ValueError(f"Conv3dTranspose: data_format must be 'NCDHW', got {data_format!r}")
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                         has_bias, weight_init, bias_init, dtype, output_padding)
        self.format = data_format

    def construct(self, x: Tensor) -> Tensor:
        self._check_input(x)
        before, after, extra = self._pads(x.shape[2:])
        y = N._conv_transpose_nd(type(self).__name__, x, self.weight, self.stride, before, after, self.dilation,
                                 self.group, tuple(a + b for a, b in zip(extra, self.output_padding)))
        return self._add_bias(y)


# ----------------------------------------------------------------------------------------------
# pooling


class _Pool3d(Cell):
    def __init__(self, kernel_size: Any, stride: Any, pad_mode: str, padding: Any, ceil_mode: bool) -> None:
        super().__init__()
        name = type(self).__name__
        self.kernel_size = int_tuple(kernel_size, 3, "kernel_size", name)
        self.stride = int_tuple(stride, 3, "stride", name)
        self.pad_mode = check_pad_mode(pad_mode, name)
        if isinstance(padding, int) and not isinstance(padding, bool):
            padding = (padding,) * 3
        self.padding = tuple(padding)
        if len(self.padding) not in (3, 6) or min(self.padding) < 0:
            raise ValueError(f"{name}: padding must be a non-negative int or a tuple of 3 or 6 ints, got {padding!r}")
        if self.pad_mode != "pad" and any(self.padding):
            raise ValueError(f"{name}: padding must be 0 when pad_mode is {pad_mode!r}; use pad_mode='pad'")
        self.ceil_mode = check_bool(bool(ceil_mode) if ceil_mode is None else ceil_mode, "ceil_mode", name)

    def _geometry(self, x: Tensor, dilation: Any) -> tuple[Tensor, bool, tuple[int, ...], tuple[int, ...]]:
        name = type(self).__name__
        if not isinstance(x, Tensor) or x.ndim not in (4, 5):
            raise shape_error(name, "input of shape (N, C, D, H, W) or (C, D, H, W)", x)
        unbatched = x.ndim == 4
        if unbatched:
            x = F.expand_dims(x, 0)
        before, after = N._mode_pads(name, self.pad_mode, self.padding, x.shape[2:], self.kernel_size, self.stride,
                                     dilation)
        return x, unbatched, before, after

    def extend_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, padding={self.padding}"


class MaxPool3d(_Pool3d):
    """Max over (kD, kH, kW) windows of (N, C, D, H, W) inputs; with return_indices also the flat
    argmax within each input volume (int64)."""

    def __init__(self, kernel_size: Any = 1, stride: Any = 1, pad_mode: str = "valid", padding: Any = 0,
                 dilation: Any = 1, return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.dilation = int_tuple(dilation, 3, "dilation", "MaxPool3d")
        self.return_indices = check_bool(return_indices, "return_indices", "MaxPool3d")

    def construct(self, x: Tensor) -> Any:
        x, unbatched, before, after = self._geometry(x, self.dilation)
        ceil = self.ceil_mode and self.pad_mode != "same"
        res = N._max_pool_nd("MaxPool3d", x, 3, self.kernel_size, self.stride, before, after, self.dilation, ceil,
                             self.return_indices)
        return N._unbatch(res, unbatched)


class AvgPool3d(_Pool3d):
    """Average over (kD, kH, kW) windows of (N, C, D, H, W) inputs. 'same' never counts the padding
    (TF's rule, as AvgPool2d); 'pad' honours count_include_pad; divisor_override replaces the divisor."""

    def __init__(self, kernel_size: Any = 1, stride: Any = 1, pad_mode: str = "valid", padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None) -> None:
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.count_include_pad = check_bool(count_include_pad, "count_include_pad", "AvgPool3d")
        if divisor_override is not None and (not isinstance(divisor_override, int) or divisor_override < 0):
            raise ValueError(f"AvgPool3d: divisor_override must be None or a positive int, got {divisor_override!r}")
        self.divisor_override = divisor_override

    def construct(self, x: Tensor) -> Tensor:
        x, unbatched, before, after = self._geometry(x, (1, 1, 1))
        ceil = self.ceil_mode and self.pad_mode != "same"
        y = N._avg_pool_nd("AvgPool3d", x, 3, self.kernel_size, self.stride, before, after, ceil,
                           self.count_include_pad and self.pad_mode == "pad", int(self.divisor_override or 0))
        return N._unbatch(y, unbatched)


class AdaptiveMaxPool1d(Cell):
    """Max-pools (N, C, L) or (C, L) inputs down to length `output_size`."""

    def __init__(self, output_size: int) -> None:
        super().__init__()
        self.output_size = check_int(output_size, "output_size", "AdaptiveMaxPool1d")

    def construct(self, input: Tensor) -> Tensor:
        return N._adaptive_max("AdaptiveMaxPool1d", input, 1, self.output_size, False)

    def extend_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool2d(Cell):
    """Max-pools (N, C, H, W) or (C, H, W) inputs down to `output_size` (an int, a pair, None keeps an
    axis); with return_indices also the flat argmax h * W + w (int64)."""

    _nd = 2

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = check_bool(return_indices, "return_indices", type(self).__name__)

    def construct(self, input: Tensor) -> Any:
        return N._adaptive_max(type(self).__name__, input, self._nd, self.output_size, self.return_indices)

    def extend_repr(self) -> str:
        return f"output_size={self.output_size}, return_indices={self.return_indices}"


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    """Max-pools (N, C, D, H, W) or (C, D, H, W) inputs down to `output_size`."""

    _nd = 3


class AdaptiveAvgPool3d(Cell):
    """Averages (N, C, D, H, W) or (C, D, H, W) inputs down to `output_size`."""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def construct(self, input: Tensor) -> Tensor:
        return N._adaptive_avg_nd("AdaptiveAvgPool3d", input, 3, self.output_size)

    def extend_repr(self) -> str:
        return f"output_size={self.output_size}"


class LPPool1d(Cell):
    """Power-average pooling of (N, C, L) or (C, L) inputs: (sum of x^p over the window)^(1/p)."""

    _nd = 1

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def construct(self, x: Tensor) -> Tensor:
        return N._lp_pool(type(self).__name__, x, self._nd, self.norm_type, self.kernel_size, self.stride,
                          self.ceil_mode)

    def extend_repr(self) -> str:
        return f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}"


class LPPool2d(LPPool1d):
    """Power-average pooling of (N, C, H, W) or (C, H, W) inputs."""

    _nd = 2


class MaxUnpool1d(Cell):
    """Partial inverse of MaxPool1d: ``MaxUnpool1d(kernel_size, stride=None, padding=0)(x, indices,
    output_size=None)`` puts each value at its index in a zero output."""

    _nd = 1

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding

    def construct(self, x: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        return N._max_unpool(type(self).__name__, x, indices, self._nd, self.kernel_size, self.stride, self.padding,
                             output_size)


class MaxUnpool2d(MaxUnpool1d):
    """Partial inverse of MaxPool2d (flat indices h * W_out + w)."""

    _nd = 2


class MaxUnpool3d(MaxUnpool1d):
    """Partial inverse of MaxPool3d (flat indices within each output volume)."""

    _nd = 3


class ChannelShuffle(Cell):
    """Splits the channels of (N, C, *) inputs into `groups` and interleaves them (ShuffleNet):
    channel g * (C / groups) + i goes to i * groups + g."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = check_int(groups, "groups", "ChannelShuffle")

    def construct(self, x: Tensor) -> Tensor:
        if not isinstance(x, Tensor) or x.ndim < 3 or x.shape[1] % self.groups:
            raise shape_error("ChannelShuffle",
                              f"input (N, C, *) of rank >= 3 with C divisible by groups={self.groups}", x)
        n, c = x.shape[:2]
        rest = tuple(x.shape[2:])
        y = F.reshape(x, (n, self.groups, c // self.groups) + rest)
        y = F.transpose(y, (0, 2, 1) + tuple(range(3, 3 + len(rest))))
        return F.reshape(y, (n, c) + rest)


class LRN(Cell):
    """Local response normalisation across channels of (N, C, H, W) inputs (TensorFlow's rule, as
    MindSpore's): ``x / (bias + alpha * sum of x^2 over channels c - r .. c + r) ** beta``."""

    def __init__(self, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0, beta: float = 0.5,
                 norm_region: str = "ACROSS_CHANNELS") -> None:
        super().__init__()
        self.depth_radius = check_int(depth_radius, "depth_radius", "LRN", minimum=0)
        if norm_region != "ACROSS_CHANNELS":
            raise ValueError(f"LRN: norm_region must be 'ACROSS_CHANNELS', got {norm_region!r}")
        self.bias, self.alpha, self.beta, self.norm_region = float(bias), float(alpha), float(beta), norm_region

    def construct(self, x: Tensor) -> Tensor:
        if not isinstance(x, Tensor) or x.ndim != 4:
            raise shape_error("LRN", "a 4-D input (N, C, H, W)", x)
        r, c = self.depth_radius, x.shape[1]
        sq = F.pad(F.square(x), [0, 0, 0, 0, r, r])
        total = sq[:, 0:c]
        for k in range(1, 2 * r + 1):
            total = total + sq[:, k:k + c]
        return x / F.pow(self.bias + self.alpha * total, self.beta)


class Unfold(Cell):
    """Image patches (TensorFlow's extract_image_patches): ``Unfold(ksizes, strides, rates,
    padding='valid')`` with [1, k_row, k_col, 1]-style lists maps (N, C, H, W) to
    (N, k_row * k_col * C, out_rows, out_cols), the depth ordered (kernel row, kernel col, channel)."""

    def __init__(self, ksizes: Any, strides: Any, rates: Any, padding: str = "valid") -> None:
        super().__init__()

        def four(name: str, v: Any) -> tuple[int, int]:
            t = tuple(v) if isinstance(v, (tuple, list)) else ()
            if len(t) != 4 or t[0] != 1 or t[3] != 1 or min(t) < 1:
                raise ValueError(f"Unfold: {name} must be [1, row, col, 1] with positive ints, got {v!r}")
            return int(t[1]), int(t[2])

        self.ksizes, self.strides, self.rates = four("ksizes", ksizes), four("strides", strides), four("rates", rates)
        self.padding = check_pad_mode(padding, "Unfold", ("same", "valid"))

    def construct(self, x: Tensor) -> Tensor:
        if not isinstance(x, Tensor) or x.ndim != 4:
            raise shape_error("Unfold", "a 4-D input (N, C, H, W)", x)
        before, after = N._mode_pads("Unfold", self.padding, 0, x.shape[2:], self.ksizes, self.strides, self.rates)
        out = N._out_sizes("Unfold", x.shape[2:], self.ksizes, self.strides, self.rates, before, after)
        win = N._windows(x, self.ksizes, self.strides, self.rates, before, after, out, 0.0)  # (N, C, oh, ow, kh, kw)
        n, c = x.shape[:2]
        win = F.transpose(win, (0, 4, 5, 1, 2, 3))
        return F.reshape(win, (n, self.ksizes[0] * self.ksizes[1] * c, out[0], out[1]))
