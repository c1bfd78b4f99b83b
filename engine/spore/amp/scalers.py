"""Loss scalers for hand-written training steps (MindSpore 2.x's `amp.StaticLossScaler` and
`amp.DynamicLossScaler`).

Where a manager plugs into `TrainOneStepWithLossScaleCell`, a scaler is used directly in a step
function written with `value_and_grad`::

    loss, grads = grad_fn(x, y)                 # grad_fn differentiates scaler.scale(loss)
    grads = scaler.unscale(grads)
    finite = amp.all_finite(grads)
    scaler.adjust(finite)
    if finite:                                  # a tensor `if`: fine in user code, also under jit
        optimizer(grads)

The scale lives in a float32 Parameter (``scale_value``) and is changed with `ops.assign`, so the
same step compiles under `ms.jit`.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..common.tree import map_leaves
from ..ops import functional as F
from ..tensor import Parameter, Tensor

__all__ = ["LossScaler", "StaticLossScaler", "DynamicLossScaler"]


def _map(fn: Any, inputs: Any) -> Any:
    def leaf(x: Any) -> Any:
        if not isinstance(x, Tensor):
            raise TypeError(f"loss scaler: expected a Tensor or a tuple/list of Tensors, got {type(x).__name__}")
        return fn(x)

    return map_leaves(leaf, inputs)


def _positive(value: Any, name: str, owner: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0 or not np.isfinite(value):
        raise ValueError(f"{owner}: {name} must be a positive finite number, got {value!r}")
    return float(value)


class LossScaler:
    """Base of the scalers: `scale(inputs)`, `unscale(inputs)`, `adjust(grads_finite)`."""

    scale_value: Parameter

    def scale(self, inputs: Any) -> Any:
        """`inputs` (a Tensor or a tuple of them) multiplied by the scale, each in its own dtype."""
        return _map(lambda x: F.mul(x, F.cast(self.scale_value, x.dtype)), inputs)

    def unscale(self, inputs: Any) -> Any:
        """`inputs` divided by the scale (multiplied by its float32 reciprocal, then cast)."""
        inv = F.div(F.ones_like(self.scale_value), self.scale_value)
        return _map(lambda x: F.mul(x, F.cast(inv, x.dtype)), inputs)

    def adjust(self, grads_finite: Tensor) -> Any:
        raise NotImplementedError


class StaticLossScaler(LossScaler):
    """A constant scale; `adjust` changes nothing and returns False."""

    def __init__(self, scale_value: float) -> None:
        value = _positive(scale_value, "scale_value", "StaticLossScaler")
        self.scale_value = Parameter(Tensor(np.array(value, np.float32)), name="scale_value", requires_grad=False)

    def adjust(self, grads_finite: Tensor) -> bool:
        return False


class DynamicLossScaler(LossScaler):
    """A scale that is divided by `scale_factor` (not below 1) when the gradients were not finite,
    and multiplied by it after `scale_window` finite steps in a row (unless that overflows float32).
    """

    def __init__(self, scale_value: float, scale_factor: float, scale_window: int) -> None:
        value = _positive(scale_value, "scale_value", "DynamicLossScaler")
        self.scale_factor = _positive(scale_factor, "scale_factor", "DynamicLossScaler")
        if isinstance(scale_window, bool) or not isinstance(scale_window, numbers.Integral) or scale_window < 1:
            raise ValueError(f"DynamicLossScaler: scale_window must be a positive int, got {scale_window!r}")
        self.scale_window = int(scale_window)
        self.scale_value = Parameter(Tensor(np.array(value, np.float32)), name="scale_value", requires_grad=False)
        self.counter = Parameter(Tensor(np.array(0, np.int32)), name="counter", requires_grad=False)

    def adjust(self, grads_finite: Tensor) -> Tensor:
        """Move the scale after a step whose gradients were (not) all finite; returns True."""
        scale = self.scale_value
        factor = Tensor(np.array(self.scale_factor, np.float32))
        grown = F.mul(scale, factor)
        full = F.equal(self.counter, Tensor(np.array(self.scale_window - 1, np.int32)))
        on_finite = F.select(full, F.select(F.isfinite(grown), grown, scale), scale)
        on_overflow = F.maximum(F.ones_like(scale), F.div(scale, factor))
        F.assign(self.scale_value, F.select(grads_finite, on_finite, on_overflow))
        nxt = F.select(grads_finite, F.add(self.counter, Tensor(np.array(1, np.int32))), F.zeros_like(self.counter))
        F.assign(self.counter, F.select(full, F.zeros_like(self.counter), nxt))
        return Tensor(np.array(True))
