"""Learning-rate schedules evaluated per step (MindSpore's `mindspore.nn.learning_rate_schedule`).

A `LearningRateSchedule` maps the optimizer's `global_step` to a learning rate: ``sched(step)``
returns a float32 Tensor of the step's shape (``()`` for a scalar step, ``(1,)`` for the optimizer's
``global_step`` Parameter). Pass one as an optimizer's `learning_rate` (or a group's ``'lr'``).

The built-in schedules take the step as float32 (as MindSpore casts it), evaluate the formula in
float64 and round the result once to float32: MindSpore's CPU kernels round each float32 op
correctly, and one final rounding reproduces its printed digits (``0.09486833``), where chaining
NumPy's float32 ``power`` can land one ulp away. Each also has a fast
``_value(step: int) -> float`` that the optimizers call directly, skipping Tensor construction on the
hot path; a user subclass only overrides `construct` and gets a `_value` that calls it.

Note on `NaturalExpDecayLR`: MindSpore's documentation writes ``p = current_step / decay_steps``,
but MindSpore computes ``p = current_step`` (and ``floor(current_step / decay_steps) * decay_steps``
with `is_stair`), matching its list form `natural_exp_decay_lr`. Spore computes what MindSpore
computes, so a ported script trains identically.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..ops.primitive import Aval, primitive
from ..tensor import Tensor

__all__ = [
    "LearningRateSchedule",
    "ExponentialDecayLR",
    "NaturalExpDecayLR",
    "InverseDecayLR",
    "CosineDecayLR",
    "PolynomialDecayLR",
    "WarmUpLR",
]

_F32 = np.float32


def _step_array(global_step: Any) -> np.ndarray:
    """The step(s) as a NumPy array: accepts a Tensor/Parameter, a NumPy value or a Python int."""
    data = global_step._data if isinstance(global_step, Tensor) else global_step
    return np.asarray(data)


def _steps(step: np.ndarray) -> np.ndarray:
    """The step as MindSpore sees it (cast to float32), widened to float64 for the formula."""
    return step.astype(_F32).astype(np.float64)


def _check_int(value: Any, name: str, cls: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{cls}', '{name}' must be an int, but got {type(value).__name__}.")
    if value < 1:
        raise ValueError(f"For '{cls}', '{name}' must be at least 1, but got {value}.")
    return value


def _check_float(value: Any, name: str, cls: str, *, positive: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{cls}', '{name}' must be a float, but got {type(value).__name__}.")
    value = float(value)
    if (positive and not value > 0) or (not positive and not value >= 0):
        raise ValueError(f"For '{cls}', '{name}' must be {'greater than 0' if positive else 'at least 0'}, "
                         f"but got {value}.")
    return value


def _check_bool(value: Any, name: str, cls: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"For '{cls}', '{name}' must be a bool, but got {type(value).__name__}.")
    return value


class LearningRateSchedule:
    """Base of learning-rate schedules: subclasses implement ``construct(global_step) -> Tensor``.

    Calling the schedule runs `construct`, as calling a MindSpore Cell does. It is a plain class (not
    an `nn.Cell`) so that optimizers do not depend on the Cell machinery; it offers the Cell
    conveniences a schedule needs (`construct`, `__call__`, `cls_name`, empty parameter lists).
    """

    def __init__(self) -> None:
        pass

    @property
    def cls_name(self) -> str:
        return type(self).__name__

    def construct(self, global_step: Any) -> Tensor:
        """The learning rate at `global_step` (a scalar Tensor). Subclasses must override this."""
        raise NotImplementedError(f"{self.cls_name} must implement construct(global_step)")

    def __call__(self, global_step: Any) -> Tensor:
        return self.construct(global_step)

    def _value(self, step: int) -> float:
        """The learning rate at an integer step as a float: the optimizers' per-step entry point."""
        out = self.construct(Tensor(np.asarray(step, dtype=np.int32)))
        arr = out._data if isinstance(out, Tensor) else np.asarray(out)
        if arr.size != 1:
            raise ValueError(f"{self.cls_name}.construct must return one learning rate, got shape {arr.shape}")
        return float(arr.reshape(()))

    # Cell-like conveniences (a schedule owns no trainable state)
    def trainable_params(self, recurse: bool = True) -> list:
        return []

    def get_parameters(self, expand: bool = True) -> Any:
        return iter(())

    def parameters_and_names(self, name_prefix: str = "", expand: bool = True) -> Any:
        return iter(())

    def set_train(self, mode: bool = True) -> LearningRateSchedule:
        return self


@primitive
class ScheduleRate:
    """The learning rate a built-in schedule gives at `step` (float32, the step's shape): an op, so a
    schedule called inside a compiled `construct` follows the step it is given on every run."""

    nondiff = True

    def infer(step, schedule):
        return Aval(tuple(step.shape), mstype.float32)

    def impl(step, schedule):
        return np.asarray(schedule._compute(step), dtype=_F32)


class _NumpySchedule(LearningRateSchedule):
    """A built-in schedule: one float32 NumPy formula `_compute(step_array)` serves both entry points."""

    def _compute(self, step: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def construct(self, global_step: Any) -> Tensor:
        step = global_step if isinstance(global_step, Tensor) else Tensor._wrap(_step_array(global_step))
        return ScheduleRate(step, schedule=self)

    def _value(self, step: int) -> float:
        return float(_F32(self._compute(np.asarray(step))))


def _check_decay(lr: Any, rate: Any, steps: Any, stair: Any, cls: str) -> tuple[float, float, int, bool]:
    return (_check_float(lr, "learning_rate", cls), _check_float(rate, "decay_rate", cls),
            _check_int(steps, "decay_steps", cls), _check_bool(stair, "is_stair", cls))


class ExponentialDecayLR(_NumpySchedule):
    """``lr = learning_rate * decay_rate ** p``, ``p = step / decay_steps`` (``floor`` of it when `is_stair`).

    >>> ExponentialDecayLR(0.1, 0.9, 4)(Tensor(2, ms.int32))   # 0.09486833
    """

    def __init__(self, learning_rate: float, decay_rate: float, decay_steps: int, is_stair: bool = False) -> None:
        super().__init__()
        self.learning_rate, self.decay_rate, self.decay_steps, self.is_stair = _check_decay(
            learning_rate, decay_rate, decay_steps, is_stair, self.cls_name)

    def _compute(self, step: np.ndarray) -> np.ndarray:
        p = _steps(step) / self.decay_steps
        if self.is_stair:
            p = np.floor(p)
        return self.learning_rate * np.power(self.decay_rate, p)


class NaturalExpDecayLR(_NumpySchedule):
    """``lr = learning_rate * e ** (-decay_rate * p)`` with ``p = step`` as MindSpore computes it
    (``floor(step / decay_steps) * decay_steps`` when `is_stair`); see the module note.

    >>> NaturalExpDecayLR(0.1, 0.9, 4, True)(Tensor(2, ms.int32))   # 0.1
    """

    def __init__(self, learning_rate: float, decay_rate: float, decay_steps: int, is_stair: bool = False) -> None:
        super().__init__()
        self.learning_rate, self.decay_rate, self.decay_steps, self.is_stair = _check_decay(
            learning_rate, decay_rate, decay_steps, is_stair, self.cls_name)

    def _compute(self, step: np.ndarray) -> np.ndarray:
        p = _steps(step)
        if self.is_stair:
            p = np.floor_divide(p, self.decay_steps) * self.decay_steps
        return self.learning_rate * np.power(math.e, -self.decay_rate * p)


class InverseDecayLR(_NumpySchedule):
    """``lr = learning_rate / (1 + decay_rate * p)``, ``p = step / decay_steps`` (floored when `is_stair`).

    >>> InverseDecayLR(0.1, 0.9, 4, True)(Tensor(2, ms.int32))   # 0.1
    """

    def __init__(self, learning_rate: float, decay_rate: float, decay_steps: int, is_stair: bool = False) -> None:
        super().__init__()
        self.learning_rate, self.decay_rate, self.decay_steps, self.is_stair = _check_decay(
            learning_rate, decay_rate, decay_steps, is_stair, self.cls_name)

    def _compute(self, step: np.ndarray) -> np.ndarray:
        p = _steps(step) / self.decay_steps
        if self.is_stair:
            p = np.floor(p)
        return self.learning_rate / (1.0 + self.decay_rate * p)


class CosineDecayLR(_NumpySchedule):
    """``lr = min_lr + 0.5 * (max_lr - min_lr) * (1 + cos(pi * min(step, decay_steps) / decay_steps))``.

    >>> CosineDecayLR(0.01, 0.1, 4)(Tensor(2, ms.int32))   # 0.055
    """

    def __init__(self, min_lr: float, max_lr: float, decay_steps: int) -> None:
        super().__init__()
        cls = self.cls_name
        self.min_lr = _check_float(min_lr, "min_lr", cls, positive=False)
        self.max_lr = _check_float(max_lr, "max_lr", cls)
        self.decay_steps = _check_int(decay_steps, "decay_steps", cls)
        if self.min_lr >= self.max_lr:
            raise ValueError(f"For '{cls}', 'max_lr' must be greater than 'min_lr', but got max_lr={max_lr}, "
                             f"min_lr={min_lr}.")
        self.delta = 0.5 * (self.max_lr - self.min_lr)

    def _compute(self, step: np.ndarray) -> np.ndarray:
        p = np.minimum(_steps(step), self.decay_steps)
        return self.min_lr + self.delta * (1.0 + np.cos(math.pi * p / self.decay_steps))


class PolynomialDecayLR(_NumpySchedule):
    """``lr = (learning_rate - end_learning_rate) * (1 - s / d) ** power + end_learning_rate``.

    ``s = min(step, decay_steps)`` and ``d = decay_steps``; with `update_decay_steps`, ``s = step``
    and ``d = decay_steps * max(ceil(step / decay_steps), 1)``.

    >>> PolynomialDecayLR(0.1, 0.01, 4, 0.5)(Tensor(2, ms.int32))   # 0.07363961
    """

    def __init__(self, learning_rate: float, end_learning_rate: float, decay_steps: int, power: float,
                 update_decay_steps: bool = False) -> None:
        super().__init__()
        cls = self.cls_name
        self.start_learning_rate = _check_float(learning_rate, "learning_rate", cls)
        self.end_learning_rate = _check_float(end_learning_rate, "end_learning_rate", cls, positive=False)
        self.decay_steps = _check_int(decay_steps, "decay_steps", cls)
        self.power = _check_float(power, "power", cls)
        self.update_decay_steps = _check_bool(update_decay_steps, "update_decay_steps", cls)
        self.diff_learning_rate = self.start_learning_rate - self.end_learning_rate

    def _compute(self, step: np.ndarray) -> np.ndarray:
        s = _steps(step)
        d = float(self.decay_steps)
        if self.update_decay_steps:
            d = d * np.maximum(np.ceil(s / d), 1.0)
        else:
            s = np.minimum(s, d)
        return self.diff_learning_rate * np.power(1.0 - s / d, self.power) + self.end_learning_rate


class WarmUpLR(_NumpySchedule):
    """``lr = learning_rate * min(step, warmup_steps) / warmup_steps`` (0 at step 0).

    >>> WarmUpLR(0.1, 2)(Tensor(2, ms.int32))   # 0.1
    """

    def __init__(self, learning_rate: float, warmup_steps: int) -> None:
        super().__init__()
        cls = self.cls_name
        self.learning_rate = _check_float(learning_rate, "learning_rate", cls, positive=False)
        self.warmup_steps = _check_int(warmup_steps, "warmup_steps", cls)

    def _compute(self, step: np.ndarray) -> np.ndarray:
        return self.learning_rate * (np.minimum(_steps(step), self.warmup_steps) / self.warmup_steps)
