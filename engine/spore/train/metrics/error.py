"""`MAE` and `MSE` (MindSpore's ``mindspore.train.MAE`` / ``MSE``).

As in MindSpore, the summed error of a batch is divided by its number of *samples* (first
dimension), so for (N, D) outputs the result is the mean per-sample summed error; for (N,) or
(N, 1) outputs this is the usual mean error.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .metric import Metric, rearrange_inputs, require_samples


class _SampleError(Metric):
    _who = ""

    def __init__(self) -> None:
        super().__init__()
        self.clear()

    def clear(self) -> None:
        self._error_sum = 0.0
        self._samples_num = 0

    def _error(self, diff: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Add a batch ``(y_pred, y)``; y is reshaped to y_pred's shape."""
        if len(inputs) != 2:
            raise ValueError(f"For '{self._who}.update', it needs 2 inputs (predicted value, true value), "
                             f"but got {len(inputs)}.")
        y_pred = self._convert_data(inputs[0]).astype(np.float64)
        y = self._convert_data(inputs[1]).astype(np.float64)
        if y.size != y_pred.size:
            raise ValueError(f"For '{self._who}.update', y_pred and y need the same number of elements, "
                             f"got shapes {y_pred.shape} and {y.shape}.")
        self._error_sum += float(self._error(y.reshape(y_pred.shape) - y_pred).sum())
        self._samples_num += int(y.shape[0]) if y.ndim else 1

    def eval(self) -> float:
        require_samples(self._samples_num, self._who)
        return self._error_sum / self._samples_num


class MAE(_SampleError):
    """Mean absolute error."""

    _who = "MAE"

    def _error(self, diff: np.ndarray) -> np.ndarray:
        return np.abs(diff)


class MSE(_SampleError):
    """Mean squared error."""

    _who = "MSE"

    def _error(self, diff: np.ndarray) -> np.ndarray:
        return diff * diff
