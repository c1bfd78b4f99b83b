"""Pooling layers: MaxPool2d/AvgPool2d (and their 1-D forms) with MindSpore's signatures, plus
the adaptive average pools.

As in MindSpore, `pad_mode` 'valid' (default) and 'same' choose the output size; 'pad' uses
explicit `padding` (with `ceil_mode`, `dilation` for max pooling, `count_include_pad` and
`divisor_override` for average pooling). Note MindSpore's defaults: kernel_size=1, stride=1.
"""

from __future__ import annotations

from typing import Any

from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from ._common import check_pad_mode, int_tuple, shape_error

__all__ = ["MaxPool2d", "AvgPool2d", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool1d"]


class _Pool(Cell):
    """Shared argument checks and repr."""

    _nd = 2

    def __init__(self, kernel_size: Any, stride: Any, pad_mode: str, padding: Any, ceil_mode: bool,
                 data_format: str) -> None:
        super().__init__()
        name, nd = type(self).__name__, self._nd
        self.kernel_size = int_tuple(kernel_size, nd, "kernel_size", name)
        self.stride = int_tuple(stride, nd, "stride", name)
        self.pad_mode = check_pad_mode(pad_mode, name)
        self.padding = int_tuple(padding, nd, "padding", name, minimum=0)
        if self.pad_mode != "pad" and any(self.padding):
            raise ValueError(f"{name}: padding must be 0 when pad_mode is {pad_mode!r}; use pad_mode='pad'")
        if any(2 * p > k for p, k in zip(self.padding, self.kernel_size)):
            raise ValueError(f"{name}: padding {padding!r} must be at most half of kernel_size {kernel_size!r}")
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"{name}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
        self.ceil_mode = bool(ceil_mode)
        self.format = data_format

    def _prepare(self, x: Tensor) -> tuple[Tensor, bool]:
        nd = self._nd
        if x.ndim not in (nd + 1, nd + 2):
            layout = "(N, C, L) or (C, L)" if nd == 1 else "(N, C, H, W) or (C, H, W)"
            raise shape_error(type(self).__name__, f"input of shape {layout}", x)
        unbatched = x.ndim == nd + 1
        if unbatched:
            x = F.expand_dims(x, 0)
        if nd == 2 and self.format == "NHWC":
            x = F.transpose(x, (0, 3, 1, 2))
        if nd == 1:
            x = F.expand_dims(x, 2)  # (N, C, 1, L): pool with a (1, k) window
        return x, unbatched

    def _finish(self, out: Tensor, unbatched: bool) -> Tensor:
        if self._nd == 1:
            out = F.squeeze(out, 2)
        elif self.format == "NHWC":
            out = F.transpose(out, (0, 2, 3, 1))
        return F.squeeze(out, 0) if unbatched else out

    def _window(self) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
        """Kernel, stride and padding as 2-D tuples (1-D pools run as (1, k) windows)."""
        if self._nd == 1:
            return (1, self.kernel_size[0]), (1, self.stride[0]), (0, self.padding[0])
        return self.kernel_size, self.stride, self.padding  # type: ignore[return-value]

    def extend_repr(self) -> str:
        s = f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"
        if self.pad_mode == "pad":
            s += f", padding={self.padding}, ceil_mode={self.ceil_mode}"
        return s


class MaxPool2d(_Pool):
    """Max over (kernel_size) windows of (N, C, H, W) inputs.

    ``MaxPool2d(kernel_size=1, stride=1, pad_mode='valid', padding=0, dilation=1,
    return_indices=False, ceil_mode=False, data_format='NCHW')``.
    """

    def __init__(self, kernel_size: Any = 1, stride: Any = 1, pad_mode: str = "valid", padding: Any = 0,
                 dilation: Any = 1, return_indices: bool = False, ceil_mode: bool = False,
                 data_format: str = "NCHW") -> None:
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, data_format)
        self.dilation = int_tuple(dilation, self._nd, "dilation", type(self).__name__)
        self.return_indices = bool(return_indices)

    def construct(self, x: Tensor) -> Any:
        x, unbatched = self._prepare(x)
        k, s, p = self._window()
        d = (1, self.dilation[0]) if self._nd == 1 else self.dilation
        res = F.max_pool2d_padmode(x, k, s, self.pad_mode, p, d, self.ceil_mode, self.return_indices)
        if self.return_indices:
            return self._finish(res[0], unbatched), self._finish(res[1], unbatched)
        return self._finish(res, unbatched)


class MaxPool1d(MaxPool2d):
    """Max over windows of (N, C, L) inputs (same arguments as MaxPool2d, 1-D)."""

    _nd = 1


class AvgPool2d(_Pool):
    """Average over (kernel_size) windows of (N, C, H, W) inputs.

    ``AvgPool2d(kernel_size=1, stride=1, pad_mode='valid', padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None, data_format='NCHW')``.
    """

    def __init__(self, kernel_size: Any = 1, stride: Any = 1, pad_mode: str = "valid", padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None,
                 data_format: str = "NCHW") -> None:
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, data_format)
        self.count_include_pad = bool(count_include_pad)
        self.divisor_override = divisor_override

    def construct(self, x: Tensor) -> Tensor:
        x, unbatched = self._prepare(x)
        k, s, p = self._window()
        out = F.avg_pool2d_padmode(x, k, s, self.pad_mode, p, self.ceil_mode, self.count_include_pad,
                                   self.divisor_override)
        return self._finish(out, unbatched)


class AvgPool1d(AvgPool2d):
    """Average over windows of (N, C, L) inputs (same arguments as AvgPool2d, 1-D)."""

    _nd = 1


class AdaptiveAvgPool2d(Cell):
    """Averages (N, C, H, W) inputs down to `output_size` (an int, a pair, or None to keep an axis)."""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim not in (3, 4):
            raise shape_error("AdaptiveAvgPool2d", "input of shape (N, C, H, W) or (C, H, W)", x)
        return F.adaptive_avg_pool2d(x, self.output_size)

    def extend_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(Cell):
    """Averages (N, C, L) inputs down to length `output_size`."""

    def __init__(self, output_size: int) -> None:
        super().__init__()
        self.output_size = output_size

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim not in (2, 3):
            raise shape_error("AdaptiveAvgPool1d", "input of shape (N, C, L) or (C, L)", x)
        return F.adaptive_avg_pool1d(x, self.output_size)

    def extend_repr(self) -> str:
        return f"output_size={self.output_size}"
