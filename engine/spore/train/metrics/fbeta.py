"""`Fbeta` and `F1` (MindSpore's ``mindspore.train.Fbeta`` / ``F1``): per-class F-scores of argmax predictions."""

from __future__ import annotations

from typing import Any

import numpy as np

from .metric import EPS, Metric, onehot_counts, rearrange_inputs, sparse_labels


class Fbeta(Metric):
    """``(1 + beta^2) * tp / (beta^2 * actual_positives + predicted_positives)`` per class.

    ``eval()`` returns the per-class array; ``eval(average=True)`` its mean (macro F-beta).
    """

    def __init__(self, beta: float) -> None:
        super().__init__()
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not beta > 0:
            raise ValueError(f"For 'Fbeta', the argument 'beta' must be a number greater than 0, but got {beta!r}.")
        self.eps = EPS
        self.beta = float(beta)
        self.clear()

    def clear(self) -> None:
        self._true_positives: Any = 0
        self._actual_positives: Any = 0
        self._positives: Any = 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Add a batch ``(y_pred, y)``: y_pred (N, C) scores, y (N,) indices or (N, C) one-hot."""
        if len(inputs) != 2:
            raise ValueError(f"For '{type(self).__name__}.update', it needs 2 inputs (predicted value, true value), "
                             f"but got {len(inputs)}.")
        y_pred = self._convert_data(inputs[0])
        y = sparse_labels(y_pred, self._convert_data(inputs[1]))
        if y_pred.ndim < 2 or y.shape != (y_pred.shape[0],) + y_pred.shape[2:]:
            raise ValueError(f"For '{type(self).__name__}.update', y_pred must be (N, C, ...) and y (N, ...), "
                             f"got {y_pred.shape} and {y.shape}.")
        if self._class_num == 0:
            self._class_num = y_pred.shape[1]
        elif y_pred.shape[1] != self._class_num:
            raise ValueError(f"{type(self).__name__}: the class count changed between batches: "
                             f"{self._class_num} before, {y_pred.shape[1]} now.")
        pred, true = onehot_counts(y_pred, y, self._class_num, type(self).__name__)
        self._positives = self._positives + pred.sum(axis=0)
        self._actual_positives = self._actual_positives + true.sum(axis=0)
        self._true_positives = self._true_positives + (pred * true).sum(axis=0)

    def eval(self, average: bool = False) -> Any:
        """Per-class F-beta scores, or their mean with ``average=True``."""
        if self._class_num == 0:
            raise RuntimeError(f"The '{type(self).__name__}' can not be calculated, because the number of samples "
                               "is 0, please check whether has called update method before calling eval method.")
        b2 = self.beta ** 2
        fbeta = (1.0 + b2) * self._true_positives / (b2 * self._actual_positives + self._positives + self.eps)
        return float(np.mean(fbeta)) if average else fbeta


class F1(Fbeta):
    """F1 score: `Fbeta` with beta = 1."""

    def __init__(self) -> None:
        super().__init__(1.0)
