"""Activation layers (MindSpore's names) and `get_activation`, which maps the strings accepted by
``Dense(activation='relu')`` to them. Each is a thin Cell over one functional op.
"""

from __future__ import annotations

from typing import Any

from ...common import dtype as mstype
from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from ._common import make_param, shape_error

__all__ = [
    "ReLU", "ReLU6", "LeakyReLU", "GELU", "FastGelu", "SiLU", "Sigmoid", "Tanh", "Softmax",
    "LogSoftmax", "ELU", "HSwish", "HSigmoid", "Softplus", "LogSigmoid", "Softsign", "Mish",
    "PReLU", "get_activation",
]



class ReLU(Cell):
    """max(x, 0) element-wise."""

    def construct(self, x: Tensor) -> Tensor:
        return F.relu(x)


class ReLU6(Cell):
    """min(max(x, 0), 6) element-wise."""

    def construct(self, x: Tensor) -> Tensor:
        return F.relu6(x)


class LeakyReLU(Cell):
    """x if x >= 0 else alpha * x (MindSpore's default alpha is 0.2)."""

    def __init__(self, alpha: float = 0.2) -> None:
        super().__init__()
        if not isinstance(alpha, (int, float)) or isinstance(alpha, bool):
            raise TypeError(f"LeakyReLU: alpha must be a number, got {type(alpha).__name__}")
        self.alpha = alpha

    def construct(self, x: Tensor) -> Tensor:
        return F.leaky_relu(x, self.alpha)

    def extend_repr(self) -> str:
        return f"alpha={self.alpha}"


class GELU(Cell):
    """Gaussian error linear unit; the tanh approximation when `approximate` (MindSpore's default)."""

    def __init__(self, approximate: bool = True) -> None:
        super().__init__()
        if not isinstance(approximate, bool):
            raise TypeError(f"GELU: approximate must be a bool, got {type(approximate).__name__}")
        self.approximate = approximate
        self._mode = "tanh" if approximate else "none"

    def construct(self, x: Tensor) -> Tensor:
        return F.gelu(x, approximate=self._mode)

    def extend_repr(self) -> str:
        return f"approximate={self.approximate}"


class FastGelu(Cell):
    """x * sigmoid(1.702 x): a cheap GELU approximation."""

    def construct(self, x: Tensor) -> Tensor:
        return F.mul(x, F.sigmoid(F.mul(x, 1.702)))


class SiLU(Cell):
    """x * sigmoid(x) (Swish)."""

    def construct(self, x: Tensor) -> Tensor:
        return F.silu(x)


class Sigmoid(Cell):
    """1 / (1 + exp(-x))."""

    def construct(self, x: Tensor) -> Tensor:
        return F.sigmoid(x)


class Tanh(Cell):
    """Hyperbolic tangent."""

    def construct(self, x: Tensor) -> Tensor:
        return F.tanh(x)


class Softmax(Cell):
    """exp(x) / sum(exp(x)) along `axis`."""

    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        self.axis = axis

    def construct(self, x: Tensor) -> Tensor:
        return F.softmax(x, self.axis)

    def extend_repr(self) -> str:
        return f"axis={self.axis}"


class LogSoftmax(Cell):
    """log(softmax(x)) along `axis`, computed stably."""

    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        self.axis = axis

    def construct(self, x: Tensor) -> Tensor:
        return F.log_softmax(x, self.axis)

    def extend_repr(self) -> str:
        return f"axis={self.axis}"


class ELU(Cell):
    """x if x > 0 else alpha * (exp(x) - 1)."""

    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__()
        self.alpha = alpha

    def construct(self, x: Tensor) -> Tensor:
        return F.elu(x, self.alpha)

    def extend_repr(self) -> str:
        return f"alpha={self.alpha}"


class HSwish(Cell):
    """x * relu6(x + 3) / 6."""

    def construct(self, x: Tensor) -> Tensor:
        return F.hardswish(x)


class HSigmoid(Cell):
    """relu6(x + 3) / 6."""

    def construct(self, x: Tensor) -> Tensor:
        return F.hardsigmoid(x)


class Softplus(Cell):
    """log(1 + exp(beta * x)) / beta, linear above `threshold`."""

    def __init__(self, beta: float = 1, threshold: float = 20) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def construct(self, x: Tensor) -> Tensor:
        return F.softplus(x, self.beta, self.threshold)

    def extend_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class LogSigmoid(Cell):
    """log(sigmoid(x))."""

    def construct(self, x: Tensor) -> Tensor:
        return F.neg(F.softplus(F.neg(x)))


class Softsign(Cell):
    """x / (1 + |x|)."""

    def construct(self, x: Tensor) -> Tensor:
        return F.div(x, F.add(F.abs(x), 1.0))


class Mish(Cell):
    """x * tanh(softplus(x))."""

    def construct(self, x: Tensor) -> Tensor:
        return F.mish(x)


class PReLU(Cell):
    """x where x >= 0, else w * x with a learned slope `w` per channel (axis 1), or one shared."""

    def __init__(self, channel: int = 1, w: Any = 0.25) -> None:
        super().__init__()
        if not isinstance(channel, int) or channel < 1:
            raise ValueError(f"PReLU: channel must be a positive int, got {channel!r}")
        self.channel = channel
        self.w = make_param(w, (channel,), mstype.float32, "a")

    def construct(self, x: Tensor) -> Tensor:
        w = self.w
        if self.channel > 1:
            if x.ndim < 2 or x.shape[1] != self.channel:
                raise shape_error("PReLU", f"input of shape (N, {self.channel}, ...) (channel={self.channel})", x)
            w = F.reshape(w, (self.channel,) + (1,) * (x.ndim - 2))
        return F.where(F.greater_equal(x, 0.0), x, F.mul(x, w))

    def extend_repr(self) -> str:
        return f"channel={self.channel}"


_ACTIVATIONS: dict[str, type[Cell]] = {
    "relu": ReLU, "relu6": ReLU6, "leakyrelu": LeakyReLU, "gelu": GELU, "fast_gelu": FastGelu,
    "silu": SiLU, "swish": SiLU, "sigmoid": Sigmoid, "tanh": Tanh, "softmax": Softmax,
    "logsoftmax": LogSoftmax, "elu": ELU, "hswish": HSwish, "hsigmoid": HSigmoid,
    "softplus": Softplus, "logsigmoid": LogSigmoid, "softsign": Softsign, "mish": Mish, "prelu": PReLU,
}


def get_activation(name: str | None, prim_name: str | None = None) -> Cell | None:
    """The activation Cell for a name such as 'relu' or 'gelu' (None gives None)."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"get_activation: name must be a str, got {type(name).__name__}")
    cls = _ACTIVATIONS.get(name.lower())
    if cls is None:
        raise KeyError(f"unknown activation {name!r}; known: {', '.join(sorted(_ACTIVATIONS))}")
    return cls()

