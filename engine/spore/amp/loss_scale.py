"""Loss scaling: managers (what the scale is and how it moves) and their update cells.

Gradients of a float16 network underflow to zero when they are small; multiplying the loss by a
large scale before the backward pass (and dividing the gradients by it afterwards) keeps them in
range. Too large a scale overflows to inf/nan instead, so a step whose gradients are not all
finite is dropped and — with the dynamic manager — the scale is lowered.

Two views of the same rules, as in MindSpore:

- the manager's Python methods (`get_loss_scale`, `update_loss_scale(overflow)`), for a
  hand-written loop that can branch on a Python bool;
- the update cell from `get_update_cell()`, which `TrainOneStepWithLossScaleCell` calls inside the
  step. It uses only tensor ops and `ops.assign`, so it compiles in Graph mode unchanged.

The dynamic rule: on overflow the scale is divided by `scale_factor` (never below 1); after
`scale_window` consecutive steps without overflow it is multiplied by `scale_factor`.

MindSpore 2.10 refuses `DynamicLossScaleManager` (and any update cell) on CPU; Spore runs on CPU
and supports it there.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..common import tree
from ..nn.cell import Cell
from ..ops import functional as F
from ..tensor import Parameter, Tensor

__all__ = ["LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager", "FixedLossScaleUpdateCell",
           "DynamicLossScaleUpdateCell", "all_finite"]


def _number(value: Any, name: str, owner: str, minimum: float, strict: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{owner}: {name} must be a number, got {type(value).__name__}")
    bad = value <= minimum if strict else value < minimum
    if bad or not np.isfinite(value):
        raise ValueError(f"{owner}: {name} must be {'>' if strict else '>='} {minimum:g} and finite, got {value}")
    return float(value)


def _window(value: Any, owner: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{owner}: scale_window must be a positive int, got {value!r}")
    return int(value)


def _flat(inputs: Any) -> list[Tensor]:
    def leaf(x: Any) -> Tensor:
        if not isinstance(x, Tensor):
            raise TypeError(f"all_finite: inputs must be a Tensor or a tuple/list of Tensors, got {type(x).__name__}")
        return x

    return tree.tensors(tree.map_leaves(leaf, inputs))


def all_finite(inputs: Any) -> Tensor:
    """A scalar bool Tensor: True when every element of every tensor in `inputs` is finite.

    Tensor ops only, so it works inside compiled training steps as well.
    """
    tensors = _flat(inputs)
    if not tensors:
        return Tensor(np.array(True))
    flags = [F.all(F.isfinite(t)) for t in tensors]
    return flags[0] if len(flags) == 1 else F.all(F.stack(flags))


class LossScaleManager:
    """Base of loss-scale managers: `get_loss_scale`, `update_loss_scale(overflow)`, `get_update_cell`."""

    def get_loss_scale(self) -> float:
        raise NotImplementedError

    def update_loss_scale(self, overflow: bool) -> None:
        raise NotImplementedError

    def get_update_cell(self) -> Cell | None:
        raise NotImplementedError


class FixedLossScaleManager(LossScaleManager):
    """A constant loss scale. With ``drop_overflow_update=True`` a step whose gradients overflow is
    skipped (the training cell checks); with False no check is made and every step is applied —
    then give the optimizer the same ``loss_scale`` so it divides the gradients back."""

    def __init__(self, loss_scale: float = 128.0, drop_overflow_update: bool = True) -> None:
        self._loss_scale = _number(loss_scale, "loss_scale", "FixedLossScaleManager", 1.0)
        if not isinstance(drop_overflow_update, bool):
            raise TypeError(f"FixedLossScaleManager: drop_overflow_update must be a bool, "
                            f"got {type(drop_overflow_update).__name__}")
        self._drop_overflow_update = drop_overflow_update

    def get_loss_scale(self) -> float:
        return self._loss_scale

    def get_drop_overflow_update(self) -> bool:
        """Whether an overflowing step is skipped."""
        return self._drop_overflow_update

    def update_loss_scale(self, overflow: bool) -> None:
        """A fixed scale does not move."""

    def get_update_cell(self) -> Cell | None:
        """The cell for `TrainOneStepWithLossScaleCell`, or None when overflow is not checked."""
        return FixedLossScaleUpdateCell(self._loss_scale) if self._drop_overflow_update else None


class DynamicLossScaleManager(LossScaleManager):
    """A loss scale that halves (by `scale_factor`) on overflow and grows after `scale_window` good
    steps. Overflowing steps are always skipped."""

    def __init__(self, init_loss_scale: float = 2 ** 24, scale_factor: float = 2, scale_window: int = 2000) -> None:
        self.loss_scale = _number(init_loss_scale, "init_loss_scale", "DynamicLossScaleManager", 1.0)
        self.scale_factor = _number(scale_factor, "scale_factor", "DynamicLossScaleManager", 1.0, strict=True)
        self.scale_window = _window(scale_window, "DynamicLossScaleManager")
        self.increase_ratio = self.scale_factor
        self.decrease_ratio = 1.0 / self.scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = 1000
        self.bad_step = 0

    def get_loss_scale(self) -> float:
        return self.loss_scale

    def get_drop_overflow_update(self) -> bool:
        return True

    def update_loss_scale(self, overflow: bool) -> None:
        """Apply one step's outcome. Raises RuntimeError after `bad_step_max` overflows in a row
        (the scale is 1 by then: the gradients are not finite for another reason)."""
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1.0)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
            if self.bad_step > self.bad_step_max:
                raise RuntimeError(f"DynamicLossScaleManager: {self.bad_step} overflowing steps in a row (more than "
                                   f"bad_step_max={self.bad_step_max}); the gradients are not finite even unscaled")
        else:
            self.bad_step = 0
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.increase_ratio
        self.cur_iter += 1

    def get_update_cell(self) -> Cell:
        """A `DynamicLossScaleUpdateCell` starting from the current scale."""
        return DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)


class FixedLossScaleUpdateCell(Cell):
    """Update cell of a fixed scale: reports the overflow and leaves the scale alone."""

    def __init__(self, loss_scale_value: float) -> None:
        super().__init__()
        self.loss_scale_value = _number(loss_scale_value, "loss_scale_value", "FixedLossScaleUpdateCell", 1.0)

    def get_loss_scale(self) -> float:
        return self.loss_scale_value

    def construct(self, loss_scale: Tensor, overflow: Tensor) -> Tensor:
        return overflow


class DynamicLossScaleUpdateCell(Cell):
    """Update cell of a dynamic scale: ``construct(loss_scale, overflow)`` writes the next scale
    into the Parameter `loss_scale` and returns `overflow`.

    Its step counters are int32 Parameters (``current_iterator_step``, ``last_overflow_iterator_step``)
    so they are checkpointed with the network and updated by the compiled graph in Graph mode.
    """

    def __init__(self, loss_scale_value: float, scale_factor: float, scale_window: int) -> None:
        super().__init__()
        self.loss_scale_value = _number(loss_scale_value, "loss_scale_value", "DynamicLossScaleUpdateCell", 1.0)
        self.scale_factor = _number(scale_factor, "scale_factor", "DynamicLossScaleUpdateCell", 1.0, strict=True)
        self.scale_window = _window(scale_window, "DynamicLossScaleUpdateCell")
        self.cur_iter = Parameter(Tensor(np.array(1, np.int32)), name="current_iterator_step", requires_grad=False)
        self.last_overflow_iter = Parameter(Tensor(np.array(0, np.int32)), name="last_overflow_iterator_step",
                                            requires_grad=False)

    def get_loss_scale(self) -> float:
        return self.loss_scale_value

    def construct(self, loss_scale: Tensor, overflow: Tensor) -> Tensor:
        one = F.ones_like(loss_scale)
        factor = Tensor(np.asarray(self.scale_factor, loss_scale.dtype.np))
        lowered = F.select(overflow, F.maximum(F.div(loss_scale, factor), one), loss_scale)
        since = F.sub(self.cur_iter, self.last_overflow_iter)
        grow_due = F.greater_equal(since, Tensor(np.array(self.scale_window, np.int32)))
        restart = F.logical_or(overflow, grow_due)  # the window counts from here on
        F.assign(self.last_overflow_iter, F.select(restart, self.cur_iter, self.last_overflow_iter))
        grow = F.logical_and(grow_due, F.logical_not(overflow))
        F.assign(loss_scale, F.select(grow, F.mul(lowered, factor), lowered))
        F.assign(self.cur_iter, F.add(self.cur_iter, Tensor(np.array(1, np.int32))))
        return overflow

