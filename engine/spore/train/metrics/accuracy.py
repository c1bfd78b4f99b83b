"""`Accuracy`: the fraction of correct predictions (MindSpore's ``mindspore.train.Accuracy``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .metric import EvaluationBase, rearrange_inputs, require_samples, sparse_labels


class Accuracy(EvaluationBase):
    """Accuracy for ``eval_type='classification'`` (argmax of y_pred vs class-index or one-hot labels)
    or ``'multilabel'`` (a sample counts only when all its 0/1 labels match).
    """

    def __init__(self, eval_type: str = "classification") -> None:
        super().__init__(eval_type)
        self.clear()

    def clear(self) -> None:
        self._correct_num = 0
        self._total_num = 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Add a batch ``(y_pred, y)``: y_pred (N, C, ...) scores, y (N, ...) indices or (N, C, ...) one-hot."""
        if len(inputs) != 2:
            raise ValueError("For 'Accuracy.update', it needs 2 inputs (predicted value, true value), "
                             f"but got {len(inputs)}.")
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if self._type == "classification":
            y = sparse_labels(y_pred, y)
        self._check_shape(y_pred, y)
        self._check_value(y_pred, y)
        class_num = self._class_count(y_pred)
        if self._type == "classification":
            result = np.equal(y_pred.argmax(axis=1), y).reshape(-1)
        else:
            last = y_pred.ndim - 1
            y_pred = y_pred.swapaxes(1, last).reshape(-1, class_num)
            y = y.swapaxes(1, last).reshape(-1, class_num)
            result = np.equal(y_pred, y).all(axis=1)
        self._correct_num += int(result.sum())
        self._total_num += int(result.shape[0])

    def eval(self) -> float:
        require_samples(self._total_num, "Accuracy")
        return self._correct_num / self._total_num
