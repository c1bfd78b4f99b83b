"""Small helpers shared by the layers: argument checks that name the layer, parameter creation
with MindSpore's initializer rules, and the user-facing shape error raised at the user's line.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ...common.initializer import HeUniform, Initializer, Uniform, initializer
from ...errors import ShapeError, located
from ...tensor import Parameter, Tensor


def make_param(init: Any, shape: Sequence[int], dtype: Any, name: str, requires_grad: bool = True) -> Parameter:
    """A Parameter named `name`, filled by `init` (an Initializer, a name, a number or a Tensor)."""
    return Parameter(initializer(init, tuple(shape), dtype), name=name, requires_grad=requires_grad)


def default_weight_init(init: Any) -> Any:
    """MindSpore 2.x's default for Dense/Conv weights: HeUniform(negative_slope=sqrt(5))."""
    return HeUniform(negative_slope=math.sqrt(5)) if init is None else init


def default_bias_init(init: Any, fan_in: int) -> Any:
    """MindSpore 2.x's default for Dense/Conv biases: Uniform(1/sqrt(fan_in))."""
    if init is not None:
        return init
    return Uniform(scale=1 / math.sqrt(fan_in)) if fan_in > 0 else "zeros"


def init_repr(init: Any) -> str:
    if isinstance(init, Initializer):
        return repr(init)
    if isinstance(init, Tensor):
        return f"Tensor(shape={list(init.shape)})"
    return str(init)


def check_int(value: Any, name: str, layer: str, minimum: int = 1) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{layer}: {name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{layer}: {name} must be >= {minimum}, got {value}")
    return value


def check_bool(value: Any, name: str, layer: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{layer}: {name} must be a bool, got {type(value).__name__}")
    return value


def int_tuple(value: Any, n: int, name: str, layer: str, minimum: int = 1) -> tuple[int, ...]:
    """An int or a tuple of `n` ints, checked and returned as a tuple."""
    vals = (value,) * n if isinstance(value, int) and not isinstance(value, bool) else tuple(value) \
        if isinstance(value, (tuple, list)) else None
    if vals is None or len(vals) != n or not all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        raise TypeError(f"{layer}: {name} must be an int or a tuple of {n} ints, got {value!r}")
    if any(v < minimum for v in vals):
        raise ValueError(f"{layer}: every {name} must be >= {minimum}, got {value!r}")
    return vals


def check_pad_mode(pad_mode: Any, layer: str, allowed: Sequence[str] = ("same", "valid", "pad")) -> str:
    if not isinstance(pad_mode, str) or pad_mode.lower() not in allowed:
        raise ValueError(f"{layer}: pad_mode must be one of {list(allowed)}, got {pad_mode!r}")
    return pad_mode.lower()


def shape_error(layer: str, expected: str, actual: Any, hint: str | None = None) -> ShapeError:
    """A ShapeError for a layer's input, located at the user's line (raise it from construct)."""
    actual_s = f"shape {tuple(actual.shape)}" if hasattr(actual, "shape") else repr(actual)
    return located(ShapeError(layer, expected, actual_s, hint=hint))
