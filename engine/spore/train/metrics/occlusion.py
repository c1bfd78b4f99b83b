"""MindSpore's `OcclusionSensitivity` metric (issue 14, vision slice): how much a model's score for
the label drops when a neighbourhood of each input element is occluded.

``update(model, y_pred, label)`` takes the model (a Cell), one input (batch of 1: `y_pred` is the
input image, as MindSpore names it) and its label. For every element of the input (or of the
inclusive bounding box `b_box` [min0, max0, min1, max1, ...] over the input's axes, a negative
bound meaning the axis' start or end), the window from ``index - margin`` to ``index + margin``
(exclusive, clipped to the input) is set to `pad_val`, the occluded copies are run through the
model `n_batch` at a time, and the score of `label` is read. ``eval()`` returns the baseline score
(of the unoccluded input) minus each occluded score, squeezed: positive where occluding hurts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .metric import Metric, rearrange_inputs


class OcclusionSensitivity(Metric):
    """``OcclusionSensitivity(pad_val=0.0, margin=2, n_batch=128, b_box=None)``: see the module docstring."""

    def __init__(self, pad_val: float = 0.0, margin: int | Sequence[int] = 2, n_batch: int = 128,
                 b_box: Sequence[int] | None = None) -> None:
        super().__init__()
        name = "OcclusionSensitivity"
        if isinstance(pad_val, bool) or not isinstance(pad_val, (int, float)):
            raise TypeError(f"For '{name}', 'pad_val' must be a float, got {type(pad_val).__name__}")
        if isinstance(margin, bool) or not (isinstance(margin, int) or (
                isinstance(margin, Sequence) and all(isinstance(m, int) and not isinstance(m, bool) for m in margin))):
            raise TypeError(f"For '{name}', 'margin' must be an int or a sequence of ints, got {margin!r}")
        if isinstance(n_batch, bool) or not isinstance(n_batch, int) or n_batch <= 0:
            raise ValueError(f"For '{name}', 'n_batch' must be a positive int, got {n_batch!r}")
        if b_box is not None and not isinstance(b_box, (list, tuple)):
            raise TypeError(f"For '{name}', 'b_box' must be a list, got {type(b_box).__name__}")
        self.pad_val, self.margin, self.n_batch = float(pad_val), margin, n_batch
        self.b_box = None if b_box is None else [int(v) for v in b_box]
        self.clear()

    def clear(self) -> None:
        self._baseline = 0.0
        self._sensitivity_im: np.ndarray = np.empty(0)
        self._is_update = False

    def _box(self, shape: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.b_box is None:
            return np.zeros(len(shape), np.int64), shape - 1
        if len(self.b_box) != 2 * len(shape):
            raise ValueError(f"For 'OcclusionSensitivity', 'b_box' needs {2 * len(shape)} values (min and max for "
                             f"each of the input's {len(shape)} axes), got {len(self.b_box)}")
        lo, hi = np.array(self.b_box[::2]), np.array(self.b_box[1::2])
        lo[lo < 0] = 0
        hi[hi < 0] = shape[hi < 0] - 1
        if (hi >= shape).any() or (lo > hi).any():
            raise ValueError(f"For 'OcclusionSensitivity', 'b_box' {self.b_box} is not a box inside the input "
                             f"of shape {tuple(shape)}")
        return lo, hi

    def _scores(self, model: Any, images: list[np.ndarray], label: int) -> np.ndarray:
        from ...tensor import Tensor

        out = model(Tensor(np.concatenate(images, 0)))
        return np.asarray(out.asnumpy()).reshape(len(images), -1)[:, label]

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        from ...nn import Cell

        name = "OcclusionSensitivity"
        if len(inputs) != 3:
            raise ValueError(f"For '{name}.update', it needs 3 inputs (model, y_pred, label), but got {len(inputs)}.")
        model = inputs[0]
        if not isinstance(model, Cell):
            raise TypeError(f"For '{name}.update', 'model' must be a Cell, got {type(model).__name__}")
        y_pred = self._convert_data(inputs[1])
        label = np.asarray(inputs[2] if isinstance(inputs[2], int) else self._convert_data(inputs[2]))
        if y_pred.shape[0] > 1:
            raise RuntimeError(f"For '{name}.update', y_pred must hold one sample (batch of 1), got shape "
                               f"{y_pred.shape}")
        if label.size != 1:
            raise RuntimeError(f"For '{name}.update', label must be one class index, got shape {label.shape}")
        cls = int(label.reshape(-1)[0])
        shape = np.array(y_pred.shape)
        margins = np.broadcast_to(np.asarray(self.margin, np.int64), shape.shape)
        lo, hi = self._box(shape)
        self._baseline = float(self._scores(model, [y_pred], cls)[0])
        region = hi - lo + 1
        scores: list[np.ndarray] = []
        batch: list[np.ndarray] = []
        total = int(np.prod(region))
        for i in range(total):
            idx = np.array(np.unravel_index(i, tuple(region))) + lo
            start = np.maximum(idx - margins, 0)
            stop = np.minimum(idx + margins, shape)
            occluded = y_pred.copy()
            occluded[tuple(slice(a, b) for a, b in zip(start, stop))] = self.pad_val
            batch.append(occluded)
            if len(batch) == self.n_batch or i == total - 1:
                scores.append(self._scores(model, batch, cls))
                batch = []
        self._sensitivity_im = np.concatenate(scores).reshape(tuple(region))
        self._is_update = True

    def eval(self) -> np.ndarray:
        if not self._is_update:
            raise RuntimeError("For 'OcclusionSensitivity.eval', call 'update' before 'eval'.")
        return self._baseline - np.squeeze(self._sensitivity_im)
