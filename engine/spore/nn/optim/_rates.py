"""Where an optimizer's per-step learning rate (and dynamic weight decay) comes from.

A rate source is a fixed float32 Parameter, a per-step list (`_IteratorLearningRate`), or a
schedule; `rate_value(source, step)` turns any of them into the float the update uses.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...tensor import Parameter, Tensor
from ..learning_rate_schedule import LearningRateSchedule


class _FixedRate(LearningRateSchedule):
    """A fixed learning rate inside a group whose other rates are dynamic (MindSpore's _ConvertToCell)."""

    def __init__(self, learning_rate: Parameter) -> None:
        super().__init__()
        self.learning_rate = learning_rate

    def construct(self, global_step: Any) -> Tensor:
        return Tensor._wrap(self.learning_rate._data.copy())

    def _value(self, step: int) -> float:
        return float(self.learning_rate._data)


class _IteratorLearningRate(LearningRateSchedule):
    """Per-step rates from a list or 1-D Tensor: step ``i`` uses element ``i``.

    Past the end MindSpore's Gather silently yields 0 on CPU, so training goes on at rate 0; Spore
    raises instead, because a schedule shorter than the run is a bug worth seeing.
    """

    def __init__(self, learning_rate: Tensor, name: str) -> None:
        super().__init__()
        self.learning_rate = Parameter(learning_rate._data.astype(np.float32), name=name, requires_grad=False)

    def _check(self, step: int) -> None:
        n = self.learning_rate._data.shape[0]
        if not 0 <= step < n:
            raise IndexError(f"the learning-rate list has {n} values but step {step} was requested; "
                             f"make the list (total_step) as long as the number of training steps")

    def construct(self, global_step: Any) -> Tensor:
        idx = np.asarray(global_step._data if isinstance(global_step, Tensor) else global_step).astype(np.int64)
        for s in idx.reshape(-1):
            self._check(int(s))
        return Tensor._wrap(self.learning_rate._data[idx])

    def _value(self, step: int) -> float:
        self._check(step)
        return float(self.learning_rate._data[step])


def rate_value(src: Any, step: int) -> float:
    """The float learning rate (or weight decay) of a rate source at `step`."""
    if isinstance(src, Tensor):
        return float(src._data.reshape(()))
    if isinstance(src, LearningRateSchedule):
        return src._value(step)
    if isinstance(src, float):
        return src
    out = src(Tensor(np.asarray(step, dtype=np.int32)))  # a user Cell-like schedule
    return float(np.asarray(out._data if isinstance(out, Tensor) else out).reshape(()))
