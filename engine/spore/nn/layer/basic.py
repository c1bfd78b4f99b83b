"""Basic layers: Dense, Flatten, Dropout, Identity (MindSpore's signatures and defaults)."""

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
    default_bias_init,
    default_weight_init,
    make_param,
    shape_error,
)

__all__ = ["Dense", "Flatten", "Dropout", "Identity", "Unflatten"]



class Dense(Cell):
    """Fully connected layer: ``activation(x @ weight.T + bias)``; weight is (out_channels, in_channels).

    Defaults follow MindSpore 2.x: HeUniform(sqrt(5)) weights and Uniform(1/sqrt(in_channels)) bias.
    Inputs of any rank >= 2 are accepted; the last axis must be `in_channels`.
    """

    def __init__(self, in_channels: int, out_channels: int, weight_init: Any = None, bias_init: Any = None,
                 has_bias: bool = True, activation: Any = None, dtype: Any = mstype.float32) -> None:
        super().__init__()
        self.in_channels = check_int(in_channels, "in_channels", "Dense")
        self.out_channels = check_int(out_channels, "out_channels", "Dense")
        self.has_bias = check_bool(has_bias, "has_bias", "Dense")
        if isinstance(weight_init, Tensor) and tuple(weight_init.shape) != (out_channels, in_channels):
            raise ValueError(f"Dense: weight_init has shape {tuple(weight_init.shape)}, expected "
                             f"(out_channels, in_channels) = {(out_channels, in_channels)}")
        self.weight = make_param(default_weight_init(weight_init), (out_channels, in_channels), dtype, "weight")
        self.bias = None
        if has_bias:
            if isinstance(bias_init, Tensor) and tuple(bias_init.shape) != (out_channels,):
                raise ValueError(f"Dense: bias_init has shape {tuple(bias_init.shape)}, expected ({out_channels},)")
            self.bias = make_param(default_bias_init(bias_init, in_channels), (out_channels,), dtype, "bias")
        from .activation import get_activation

        act = get_activation(activation) if isinstance(activation, str) else activation
        if act is not None and not callable(act):
            raise TypeError(f"Dense: activation must be a str, a Cell or a callable, got {type(activation).__name__}")
        self.activation = act
        self.activation_flag = act is not None

    def construct(self, x: Tensor) -> Tensor:
        shape = x.shape
        if not shape or shape[-1] != self.in_channels:
            raise shape_error("Dense", f"input of shape (..., {self.in_channels}) (in_channels={self.in_channels})",
                              x, hint="the last axis of the input must equal in_channels; flatten or reshape first")
        out = F.dense(x, self.weight, self.bias)
        if self.activation_flag:
            out = self.activation(out)
        return out

    def extend_repr(self) -> str:
        s = f"input_channels={self.in_channels}, output_channels={self.out_channels}"
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        if self.activation_flag:
            s += f", activation={self.activation}"
        return s


class Flatten(Cell):
    """Flattens axes `start_dim`..`end_dim` into one: (N, C, H, W) -> (N, C*H*W) by default."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        if not isinstance(start_dim, int) or not isinstance(end_dim, int):
            raise TypeError(f"Flatten: start_dim and end_dim must be ints, got {start_dim!r}, {end_dim!r}")
        self.start_dim = start_dim
        self.end_dim = end_dim

    def construct(self, x: Tensor) -> Tensor:
        shape = x.shape
        nd = len(shape)
        if nd == 0:
            return F.reshape(x, (1,))
        s, e = self.start_dim, self.end_dim
        if not -nd <= s < nd or not -nd <= e < nd:
            raise shape_error("Flatten", f"an input that has axes start_dim={s} and end_dim={e}", x)
        s, e = s % nd, e % nd
        if s > e:
            raise ValueError(f"Flatten: start_dim ({self.start_dim}) comes after end_dim ({self.end_dim})")
        if s == e:
            return x
        return F.reshape(x, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])

    def extend_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Dropout(Cell):
    """Zeroes elements with probability `p` (or ``1 - keep_prob``) in training mode, scaling the rest.

    An identity in inference mode, which is a Cell's default until ``set_train()``.
    """

    def __init__(self, keep_prob: float = 0.5, p: float | None = None, dtype: Any = mstype.float32) -> None:
        super().__init__()
        if p is None:
            if not isinstance(keep_prob, (int, float)) or isinstance(keep_prob, bool):
                raise TypeError(f"Dropout: keep_prob must be a float, got {type(keep_prob).__name__}")
            if not 0 < keep_prob <= 1:
                raise ValueError(f"Dropout: keep_prob must be in (0, 1], got {keep_prob}")
            p = 1.0 - float(keep_prob)
        else:
            if not isinstance(p, (int, float)) or isinstance(p, bool):
                raise TypeError(f"Dropout: p must be a float, got {type(p).__name__}")
            if not 0 <= p < 1:
                raise ValueError(f"Dropout: p must be in [0, 1), got {p}")
        self.p = float(p)
        self.keep_prob = 1.0 - self.p
        self.dtype = dtype

    def construct(self, x: Tensor) -> Tensor:
        if not self.training or self.p == 0.0:
            return x
        return F.dropout(x, p=self.p, training=True)

    def extend_repr(self) -> str:
        return f"p={self.p}"


class Identity(Cell):
    """Returns its input unchanged (a placeholder layer)."""

    def construct(self, x: Any) -> Any:
        return x


class Unflatten(Cell):
    """Splits axis `axis` into `unflattened_size`: the inverse of Flatten."""

    def __init__(self, axis: int, unflattened_size: tuple) -> None:
        super().__init__()
        self.axis = axis
        self.unflattened_size = tuple(unflattened_size)

    def construct(self, x: Tensor) -> Tensor:
        shape = x.shape
        a = self.axis % len(shape)
        return F.reshape(x, shape[:a] + self.unflattened_size + shape[a + 1:])

    def extend_repr(self) -> str:
        return f"axis={self.axis}, unflattened_size={self.unflattened_size}"
