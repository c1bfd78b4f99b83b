"""Weight initializers with MindSpore's names and defaults (`mindspore.common.initializer`).

Each is an object that fills an array of a given shape; `initializer(init, shape, dtype)` accepts
one, a name string ("normal", "he_uniform", ...), a number, or a Tensor. Draws come from the global
generator, so `set_seed` makes them reproducible.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import dtype as mstype
from .seed import rng


def _fans(shape: Sequence[int]) -> tuple[int, int]:
    if len(shape) < 2:
        n = shape[0] if shape else 1
        return n, n
    receptive = math.prod(shape[2:]) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def _gain(nonlinearity: str, param: float | None = None) -> float:
    if nonlinearity in ("linear", "conv1d", "conv2d", "conv3d", "sigmoid", "identity"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 0.75
    raise ValueError(f"unknown nonlinearity {nonlinearity!r}")


class Initializer:
    """Base class: subclasses implement `_fill(shape) -> float64 array`."""

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = kwargs

    def _fill(self, shape: tuple[int, ...]) -> np.ndarray:
        raise TypeError(f"{type(self).__name__} does not say how to fill a tensor")

    def __call__(self, arr: np.ndarray) -> None:
        arr[...] = self._fill(arr.shape)

    def to_tensor(self, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
        from ..tensor import Tensor

        shape = tuple(self._shape if shape is None else shape)
        dt = mstype.to_dtype(dtype if dtype is not None else getattr(self, "_dtype", mstype.float32))
        return Tensor._wrap(np.asarray(self._fill(shape)).astype(dt.np))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"


class Zero(Initializer):
    def _fill(self, shape):
        return np.zeros(shape)


class One(Initializer):
    def _fill(self, shape):
        return np.ones(shape)


class Constant(Initializer):
    def __init__(self, value: Any) -> None:
        super().__init__(value=value)
        self.value = value

    def _fill(self, shape):
        return np.full(shape, self.value, dtype=np.float64)


class Normal(Initializer):
    def __init__(self, sigma: float = 0.01, mean: float = 0.0) -> None:
        super().__init__(sigma=sigma, mean=mean)
        self.sigma, self.mean = sigma, mean

    def _fill(self, shape):
        return rng().normal(self.mean, self.sigma, shape)


class Uniform(Initializer):
    def __init__(self, scale: float = 0.07) -> None:
        super().__init__(scale=scale)
        self.scale = scale

    def _fill(self, shape):
        return rng().uniform(-self.scale, self.scale, shape)


class TruncatedNormal(Initializer):
    def __init__(self, sigma: float = 0.01, mean: float = 0.0, a: float = -2.0, b: float = 2.0) -> None:
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def _fill(self, shape):
        out = rng().normal(self.mean, self.sigma, shape)
        bad = (out < self.a) | (out > self.b)
        while bad.any():  # resample outside [a, b]
            out[bad] = rng().normal(self.mean, self.sigma, int(bad.sum()))
            bad = (out < self.a) | (out > self.b)
        return out


class XavierUniform(Initializer):
    def __init__(self, gain: float = 1) -> None:
        super().__init__(gain=gain)
        self.gain = gain

    def _fill(self, shape):
        fan_in, fan_out = _fans(shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return rng().uniform(-bound, bound, shape)


class XavierNormal(Initializer):
    def __init__(self, gain: float = 1) -> None:
        super().__init__(gain=gain)
        self.gain = gain

    def _fill(self, shape):
        fan_in, fan_out = _fans(shape)
        return rng().normal(0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)), shape)


class HeUniform(Initializer):
    def __init__(self, negative_slope: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu") -> None:
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _fill(self, shape):
        fan_in, fan_out = _fans(shape)
        fan = fan_in if self.mode == "fan_in" else fan_out
        bound = _gain(self.nonlinearity, self.negative_slope) * math.sqrt(3.0 / fan)
        return rng().uniform(-bound, bound, shape)


class HeNormal(Initializer):
    def __init__(self, negative_slope: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu") -> None:
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _fill(self, shape):
        fan_in, fan_out = _fans(shape)
        fan = fan_in if self.mode == "fan_in" else fan_out
        return rng().normal(0.0, _gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan), shape)


_NAMES = {
    "zeros": Zero, "zero": Zero, "ones": One, "one": One, "normal": Normal, "uniform": Uniform,
    "truncatednormal": TruncatedNormal, "truncated_normal": TruncatedNormal,
    "xavier_uniform": XavierUniform, "xavieruniform": XavierUniform,
    "xavier_normal": XavierNormal, "xaviernormal": XavierNormal,
    "he_uniform": HeUniform, "heuniform": HeUniform, "he_normal": HeNormal, "henormal": HeNormal,
}


def initializer(init: Any, shape: Any = None, dtype: Any = mstype.float32) -> Any:
    """A Tensor of `shape` and `dtype` filled by `init` (an Initializer, a name, a number or a Tensor)."""
    from ..tensor import Tensor

    shape = () if shape is None else ((shape,) if isinstance(shape, int) else tuple(int(s) for s in shape))
    dt = mstype.to_dtype(dtype)
    if isinstance(init, Tensor):
        if shape and tuple(init.shape) != shape:
            raise ValueError(f"initializer: tensor of shape {init.shape} given for shape {shape}")
        return Tensor._wrap(np.array(init._data, dtype=dt.np))
    if isinstance(init, (int, float)) and not isinstance(init, bool):
        init = Constant(init)
    if isinstance(init, str):
        cls = _NAMES.get(init.lower())
        if cls is None:
            raise ValueError(f"unknown initializer {init!r}; known: {', '.join(sorted(_NAMES))}")
        init = cls()
    if not isinstance(init, Initializer):
        raise TypeError(f"initializer: expected an Initializer, a name, a number or a Tensor, got {init!r}")
    return init.to_tensor(shape, dt)
