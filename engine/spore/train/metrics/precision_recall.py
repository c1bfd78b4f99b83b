"""`Precision` and `Recall` (MindSpore's ``mindspore.train.Precision`` / ``Recall``).

Classification: per-class values over argmax predictions, as an array (``eval(average=True)``
gives their mean, i.e. macro averaging). Multilabel: per-sample values (the mean is sklearn's
``average='samples'``). A class with no predictions (or no true samples, for recall) scores 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .metric import EPS, EvaluationBase, onehot_counts, rearrange_inputs, sparse_labels


class _PerClassRate(EvaluationBase):
    """true positives / (a count), accumulated per class (or per sample for multilabel)."""

    _who = ""

    def __init__(self, eval_type: str = "classification") -> None:
        super().__init__(eval_type)
        self.eps = EPS
        self.clear()

    def clear(self) -> None:
        self._class_num = 0
        self._tp: Any = 0 if self._type == "classification" else np.empty(0)
        self._den: Any = 0 if self._type == "classification" else np.empty(0)

    def _denominator(self, y_pred: np.ndarray, y: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Add a batch ``(y_pred, y)`` (see the module docstring for the shapes)."""
        if len(inputs) != 2:
            raise ValueError(f"For '{self._who}.update', it needs 2 inputs (predicted value, true value), "
                             f"but got {len(inputs)}.")
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if self._type == "classification":
            y = sparse_labels(y_pred, y)
        self._check_shape(y_pred, y)
        self._check_value(y_pred, y)
        class_num = self._class_count(y_pred)
        if self._type == "classification":
            y_pred, y = onehot_counts(y_pred, y, class_num, self._who)  # (samples, classes): sums per class
        else:
            y_pred = y_pred.swapaxes(1, 0).reshape(class_num, -1)  # (classes, samples): sums per sample
            y = y.swapaxes(1, 0).reshape(class_num, -1)
        tp = (y * y_pred).sum(axis=0)
        den = self._denominator(y_pred, y).sum(axis=0)
        if self._type == "classification":
            self._tp = self._tp + tp
            self._den = self._den + den
        else:
            self._tp = np.concatenate((self._tp, tp))
            self._den = np.concatenate((self._den, den))

    def eval(self, average: bool = False) -> Any:
        """Per-class (per-sample for multilabel) values, or their mean with ``average=True``."""
        if self._class_num == 0:
            raise RuntimeError(f"The '{self._who}' can not be calculated, because the number of samples is 0, "
                               "please check whether has called update method before calling eval method.")
        if not isinstance(average, bool):
            raise TypeError(f"For '{self._who}.eval', 'average' must be a bool, got {type(average).__name__}")
        result = self._tp / (self._den + self.eps)
        return float(result.mean()) if average else result


class Precision(_PerClassRate):
    """Precision: true positives / predicted positives."""

    _who = "Precision"

    def _denominator(self, y_pred: np.ndarray, y: np.ndarray) -> np.ndarray:
        return y_pred


class Recall(_PerClassRate):
    """Recall: true positives / actual positives."""

    _who = "Recall"

    def _denominator(self, y_pred: np.ndarray, y: np.ndarray) -> np.ndarray:
        return y
