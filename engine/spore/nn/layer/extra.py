"""More of MindSpore's everyday layers (issue 14): BatchNorm3d, Upsample and the remaining simple
activations (Hardtanh, Softsign's relatives, shrinkage functions, SeLU, CELU, GLU, Threshold,
Softmin, Softmax2d). Each is a thin Cell over existing ops, so gradients and Graph mode come with
them; formulas are MindSpore's documented ones.
"""

from __future__ import annotations

from typing import Any

from ...common import dtype as mstype
from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from ._common import shape_error
from .normalization import _BatchNorm

__all__ = ["BatchNorm3d", "Upsample", "Hardtanh", "Tanhshrink", "Softmin", "HShrink", "SoftShrink", "SeLU", "CELU",
           "GLU", "Threshold", "Softmax2d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad2d",
           "ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "PixelShuffle",
           "PixelUnshuffle", "RReLU"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


class BatchNorm3d(Cell):
    """Batch normalization over (N, C, D, H, W) inputs, per channel C (see BatchNorm2d).

    As in MindSpore, it holds a BatchNorm2d named `bn2d` and normalizes the input viewed as
    (N, C, D*H, W), so its parameters are `bn2d.gamma`, `bn2d.beta`, `bn2d.moving_mean` and
    `bn2d.moving_variance`, and MindSpore checkpoints load.
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9, affine: bool = True,
                 gamma_init: Any = "ones", beta_init: Any = "zeros", moving_mean_init: Any = "zeros",
                 moving_var_init: Any = "ones", use_batch_statistics: bool | None = None,
                 dtype: Any = mstype.float32) -> None:
        super().__init__()
        self.num_features = num_features
        self.bn2d = _BatchNorm3dAs2d(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                                     moving_var_init, use_batch_statistics, "NCHW", dtype)

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim != 5 or x.shape[1] != self.num_features:
            raise shape_error("BatchNorm3d", f"input of shape (N, C, D, H, W) with C={self.num_features}", x)
        n, c, d, h, w = x.shape
        return F.reshape(self.bn2d(F.reshape(x, (n, c, d * h, w))), (n, c, d, h, w))


class _BatchNorm3dAs2d(_BatchNorm):
    """BatchNorm3d's inner BatchNorm2d (its errors still say BatchNorm3d)."""

    _ranks = (4,)
    _layout = "(N, C, D*H, W)"


class Upsample(Cell):
    """`ops.interpolate` as a layer: ``Upsample(size=None, scale_factor=None, mode='nearest', ...)``."""

    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: bool | None = None, recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def construct(self, x: Tensor) -> Tensor:
        return F.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                             self.recompute_scale_factor)


class Hardtanh(Cell):
    """x clipped to [min_val, max_val]."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0) -> None:
        super().__init__()
        if min_val > max_val:
            raise ValueError(f"Hardtanh: min_val ({min_val}) must not exceed max_val ({max_val})")
        self.min_val, self.max_val = float(min_val), float(max_val)

    def construct(self, x: Tensor) -> Tensor:
        return F.clamp(x, self.min_val, self.max_val)


class Tanhshrink(Cell):
    """x - tanh(x)."""

    def construct(self, x: Tensor) -> Tensor:
        return F.sub(x, F.tanh(x))


class Softmin(Cell):
    """softmax(-x) along `axis`."""

    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        self.axis = axis

    def construct(self, x: Tensor) -> Tensor:
        return F.softmax(F.neg(x), self.axis)


class Softmax2d(Cell):
    """softmax over the channel axis of (C, H, W) or (N, C, H, W) inputs."""

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim not in (3, 4):
            from ._common import shape_error

            raise shape_error("Softmax2d", "input of shape (C, H, W) or (N, C, H, W)", x)
        return F.softmax(x, -3)


class HShrink(Cell):
    """x where |x| > lambd, else 0."""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = float(lambd)

    def construct(self, input_x: Tensor) -> Tensor:
        return F.where(F.greater(F.abs(input_x), self.lambd), input_x, F.zeros_like(input_x))


class SoftShrink(Cell):
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0."""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        if lambd < 0:
            raise ValueError(f"SoftShrink: lambd must be >= 0, got {lambd}")
        self.lambd = float(lambd)

    def construct(self, input_x: Tensor) -> Tensor:
        shrunk = F.sub(input_x, F.mul(F.sign(input_x), self.lambd))
        return F.where(F.greater(F.abs(input_x), self.lambd), shrunk, F.zeros_like(input_x))


class SeLU(Cell):
    """scale * (max(0, x) + min(0, alpha * (exp(x) - 1))), the self-normalising constants.

    The gradient is the derivative, scale * alpha * exp(x) for x < 0. MindSpore 2.10's CPU kernel
    returns other values there (negative ones at x = -0.93, measured). Spore keeps the true
    derivative, so gradients through SeLU differ from MindSpore's for negative inputs.
    """

    def construct(self, input_x: Tensor) -> Tensor:
        neg = F.mul(F.sub(F.exp(F.minimum(input_x, 0.0)), 1.0), _SELU_ALPHA)
        return F.mul(F.where(F.greater(input_x, 0.0), input_x, neg), _SELU_SCALE)


class CELU(Cell):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""

    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__()
        if alpha == 0:
            raise ValueError("CELU: alpha must not be 0")
        self.alpha = float(alpha)

    def construct(self, x: Tensor) -> Tensor:
        neg = F.mul(F.sub(F.exp(F.div(F.minimum(x, 0.0), self.alpha)), 1.0), self.alpha)
        return F.where(F.greater(x, 0.0), x, neg)


class GLU(Cell):
    """a * sigmoid(b), where a and b are the two halves of the input along `axis`."""

    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        self.axis = axis

    def construct(self, x: Tensor) -> Tensor:
        if x.shape[self.axis] % 2:
            from ._common import shape_error

            raise shape_error("GLU", f"an even size along axis {self.axis}", x)
        a, b = F.split(x, x.shape[self.axis] // 2, self.axis)
        return F.mul(a, F.sigmoid(b))


class Threshold(Cell):
    """x where x > threshold, else `value`."""

    def __init__(self, threshold: float, value: float) -> None:
        super().__init__()
        self.threshold, self.value = float(threshold), float(value)

    def construct(self, input_x: Tensor) -> Tensor:
        return F.where(F.greater(input_x, self.threshold), input_x, F.full_like(input_x, self.value))


# --- padding and pixel shuffles ----------------------------------------------------------------
def _pad_spec(padding: Any, n: int, layer: str) -> tuple[int, ...]:
    """MindSpore's padding argument: one int for every side, or 2 * n ints (left, right, top, ...)."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        return (padding,) * (2 * n)
    if isinstance(padding, (tuple, list)) and len(padding) == 2 * n and all(
            isinstance(p, int) and not isinstance(p, bool) for p in padding):
        return tuple(padding)
    raise TypeError(f"{layer}: padding must be an int or a tuple of {2 * n} ints, got {padding!r}")


class _Pad(Cell):
    _n = 1
    _mode = "constant"

    def __init__(self, padding: Any, value: float = 0.0) -> None:
        super().__init__()
        self.padding = _pad_spec(padding, self._n, type(self).__name__)
        self.value = float(value)

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim < self._n + 1:
            from ._common import shape_error

            raise shape_error(type(self).__name__, f"an input of rank >= {self._n + 1}", x)
        return F.pad(x, self.padding, self._mode, self.value if self._mode == "constant" else None)

    def extend_repr(self) -> str:
        return f"padding={self.padding}"


class ConstantPad1d(_Pad):
    """Pads the last axis with `value`: padding (left, right) or one int."""

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding, value)


class ConstantPad2d(_Pad):
    """Pads the last two axes with `value`: padding (left, right, top, bottom) or one int."""

    _n = 2

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding, value)


class ConstantPad3d(_Pad):
    """Pads the last three axes with `value`: six ints (last axis first) or one int."""

    _n = 3

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding, value)


class ZeroPad2d(_Pad):
    """Pads the last two axes with zeros."""

    _n = 2

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)


class ReflectionPad1d(_Pad):
    """Pads the last axis by reflecting it (the edge is not repeated)."""

    _mode = "reflect"

    def __init__(self, padding: Any) -> None:
        super().__init__(padding)


class ReflectionPad2d(_Pad):
    """Pads the last two axes by reflection."""

    _n = 2
    _mode = "reflect"

    def __init__(self, padding: Any) -> None:
        super().__init__(padding)


class ReplicationPad1d(_Pad):
    """Pads the last axis by repeating its edge values."""

    _mode = "replicate"

    def __init__(self, padding: Any) -> None:
        super().__init__(padding)


class ReplicationPad2d(_Pad):
    """Pads the last two axes by repeating their edge values."""

    _n = 2
    _mode = "replicate"

    def __init__(self, padding: Any) -> None:
        super().__init__(padding)


class PixelShuffle(Cell):
    """(..., C r^2, H, W) -> (..., C, H r, W r): channels rearranged into space."""

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        if isinstance(upscale_factor, bool) or not isinstance(upscale_factor, int) or upscale_factor < 1:
            raise ValueError(f"PixelShuffle: upscale_factor must be a positive int, got {upscale_factor!r}")
        self.upscale_factor = upscale_factor

    def construct(self, input: Tensor) -> Tensor:
        r = self.upscale_factor
        if input.ndim < 3 or input.shape[-3] % (r * r):
            from ._common import shape_error

            raise shape_error("PixelShuffle", f"(..., C*{r * r}, H, W) with channels divisible by {r * r}", input)
        *lead, c, h, w = input.shape
        x = F.reshape(input, (-1, c // (r * r), r, r, h, w))
        x = F.transpose(x, (0, 1, 4, 2, 5, 3))
        return F.reshape(x, tuple(lead) + (c // (r * r), h * r, w * r))


class PixelUnshuffle(Cell):
    """(..., C, H r, W r) -> (..., C r^2, H, W): the inverse of PixelShuffle."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        if isinstance(downscale_factor, bool) or not isinstance(downscale_factor, int) or downscale_factor < 1:
            raise ValueError(f"PixelUnshuffle: downscale_factor must be a positive int, got {downscale_factor!r}")
        self.downscale_factor = downscale_factor

    def construct(self, input: Tensor) -> Tensor:
        r = self.downscale_factor
        if input.ndim < 3 or input.shape[-1] % r or input.shape[-2] % r:
            from ._common import shape_error

            raise shape_error("PixelUnshuffle", f"(..., C, H, W) with H and W divisible by {r}", input)
        *lead, c, h, w = input.shape
        x = F.reshape(input, (-1, c, h // r, r, w // r, r))
        x = F.transpose(x, (0, 1, 3, 5, 2, 4))
        return F.reshape(x, tuple(lead) + (c * r * r, h // r, w // r))



class RReLU(Cell):
    """``RReLU(lower=1/8, upper=1/3)``: x where x >= 0, else x times a slope drawn uniformly from
    [lower, upper) for each element and each call. As in MindSpore, the slope is random in training
    and in evaluation alike (its construct has no eval branch)."""

    def __init__(self, lower: float = 1 / 8, upper: float = 1 / 3) -> None:
        super().__init__()
        for name, v in (("lower", lower), ("upper", upper)):
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                raise TypeError(f"RReLU: '{name}' must be a float, got {type(v).__name__}")
        if lower > upper:
            raise ValueError(f"RReLU: 'upper' must be >= 'lower', got lower={lower}, upper={upper}")
        self.lower, self.upper = float(lower), float(upper)

    def construct(self, x: Tensor) -> Tensor:
        slope = F.cast(F.uniform(x.shape, self.lower, self.upper), x.dtype)
        return F.where(F.less(x, 0.0), F.mul(x, slope), x)
