"""Top-k categorical accuracy (MindSpore's ``TopKCategoricalAccuracy``, ``Top1...``, ``Top5...``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .metric import Metric, rearrange_inputs, require_samples, sparse_labels


class TopKCategoricalAccuracy(Metric):
    """The fraction of samples whose label is among the `k` highest scores."""

    def __init__(self, k: int) -> None:
        super().__init__()
        if isinstance(k, bool) or not isinstance(k, int):
            raise TypeError(f"For 'TopKCategoricalAccuracy', the type of 'k' must be int, but got {type(k).__name__}.")
        if k < 1:
            raise ValueError(f"For 'TopKCategoricalAccuracy', the argument 'k' must be at least 1, but got {k}.")
        self.k = k
        self.clear()

    def clear(self) -> None:
        self._correct_num = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Add a batch ``(y_pred, y)``: y_pred (N, C) scores, y (N,) indices or (N, C) one-hot."""
        if len(inputs) != 2:
            raise ValueError("For 'TopKCategoricalAccuracy.update', it needs 2 inputs (predicted value, true value), "
                             f"but got {len(inputs)}.")
        y_pred = self._convert_data(inputs[0])
        y = sparse_labels(y_pred, self._convert_data(inputs[1]))
        if y_pred.ndim != 2 or y.reshape(-1).shape[0] != y_pred.shape[0]:
            raise ValueError(f"For 'TopKCategoricalAccuracy.update', y_pred must be (N, C) and y (N,), "
                             f"got {y_pred.shape} and {y.shape}.")
        top = np.argsort(-y_pred, axis=1, kind="stable")[:, :self.k]  # ties: the lower class index ranks first
        correct = np.equal(top, y.reshape(-1, 1)).any(axis=1)
        self._correct_num += int(correct.sum())
        self._samples_num += int(y_pred.shape[0])

    def eval(self) -> float:
        require_samples(self._samples_num, "TopKCategoricalAccuracy")
        return self._correct_num / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    """Top-1 accuracy."""

    def __init__(self) -> None:
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    """Top-5 accuracy."""

    def __init__(self) -> None:
        super().__init__(5)
