"""MindSpore's combined layers: `Conv2dBnAct` and `DenseBnAct`, a convolution or dense layer with an
optional BatchNorm and activation after it. Children are named `conv`/`dense`, `batchnorm` and
`activation`, as in MindSpore, so checkpoints interchange. `after_fake` is for MindSpore's
quantization-aware training and is only validated here.
"""

from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from ..cell import Cell
from ._common import check_bool
from .activation import LeakyReLU, get_activation
from .basic import Dense
from .conv import Conv2d
from .normalization import BatchNorm1d, BatchNorm2d

__all__ = ["Conv2dBnAct", "DenseBnAct"]


def _activation(activation: Any, alpha: float, cls: str) -> Cell | None:
    if activation == "leakyrelu":
        return LeakyReLU(alpha)
    act = get_activation(activation) if isinstance(activation, str) else activation
    if act is not None and not callable(act):
        raise TypeError(f"For '{cls}', the 'activation' must be str or Cell or Primitive, got {type(act).__name__}")
    return act


class Conv2dBnAct(Cell):
    """Conv2d, then BatchNorm2d (``has_bn``), then the activation (a name such as 'relu', or a Cell)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, dilation: Any = 1, group: int = 1,
                 has_bias: bool = False, weight_init: Any = "normal", bias_init: Any = "zeros",
                 has_bn: bool = False, momentum: float = 0.997, eps: float = 1e-5, activation: Any = None,
                 alpha: float = 0.2, after_fake: bool = True) -> None:
        super().__init__()
        self.conv = Conv2d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, pad_mode=pad_mode,
                           padding=padding, dilation=dilation, group=group, has_bias=has_bias,
                           weight_init=weight_init, bias_init=bias_init)
        self.has_bn = check_bool(has_bn, "has_bn", "Conv2dBnAct")
        self.after_fake = check_bool(after_fake, "after_fake", "Conv2dBnAct")
        if has_bn:
            self.batchnorm = BatchNorm2d(out_channels, eps, momentum)
        self.activation = _activation(activation, alpha, "Conv2dBnAct")
        self.has_act = self.activation is not None

    def construct(self, x: Tensor) -> Tensor:
        x = self.conv(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.has_act:
            x = self.activation(x)
        return x


class DenseBnAct(Cell):
    """Dense, then BatchNorm1d (``has_bn``), then the activation (a name such as 'relu', or a Cell)."""

    def __init__(self, in_channels: int, out_channels: int, weight_init: Any = "normal", bias_init: Any = "zeros",
                 has_bias: bool = True, has_bn: bool = False, momentum: float = 0.9, eps: float = 1e-5,
                 activation: Any = None, alpha: float = 0.2, after_fake: bool = True) -> None:
        super().__init__()
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self.has_bn = check_bool(has_bn, "has_bn", "DenseBnAct")
        self.after_fake = check_bool(after_fake, "after_fake", "DenseBnAct")
        if has_bn:
            self.batchnorm = BatchNorm1d(out_channels, eps, momentum)
        self.activation = _activation(activation, alpha, "DenseBnAct")
        self.has_act = self.activation is not None

    def construct(self, x: Tensor) -> Tensor:
        x = self.dense(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.has_act:
            x = self.activation(x)
        return x
