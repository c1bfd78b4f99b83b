"""More of MindSpore's metrics (issue 14): `Perplexity`, `ConfusionMatrix`, `CosineSimilarity`,
`Dice` and the `auc` helper, with MindSpore's arguments and formulas (computed in float64 NumPy).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .metric import Metric, rearrange_inputs, require_samples


class Perplexity(Metric):
    """exp(mean negative log-likelihood of the true labels) over every token seen; `ignore_label`
    tokens are left out. ``update(preds (N, C) or (B, T, C) probabilities, labels)``."""

    def __init__(self, ignore_label: int | None = None) -> None:
        super().__init__()
        if ignore_label is not None and (isinstance(ignore_label, bool) or not isinstance(ignore_label, int)):
            raise TypeError(f"For 'Perplexity', 'ignore_label' must be an int or None, got {ignore_label!r}")
        self.ignore_label = ignore_label
        self.clear()

    def clear(self) -> None:
        self._sum_metric = 0.0
        self._num_inst = 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        if len(inputs) != 2:
            raise ValueError(f"For 'Perplexity.update', it needs 2 inputs (preds, labels), but got {len(inputs)}.")
        preds = self._convert_data(inputs[0]).astype(np.float64)
        labels = self._convert_data(inputs[1]).astype(np.int64).reshape(-1)
        probs = preds.reshape(-1, preds.shape[-1])
        if probs.shape[0] != labels.size:
            raise RuntimeError(f"For 'Perplexity.update', preds hold {probs.shape[0]} tokens but labels {labels.size}.")
        keep = np.ones(labels.size, bool) if self.ignore_label is None else labels != self.ignore_label
        picked = probs[np.arange(labels.size)[keep], labels[keep]]
        self._sum_metric -= float(np.log(np.maximum(picked, 1e-10)).sum())
        self._num_inst += int(keep.sum())

    def eval(self) -> float:
        require_samples(self._num_inst, "Perplexity")
        return float(np.exp(self._sum_metric / self._num_inst))


class ConfusionMatrix(Metric):
    """Counts of (true class, predicted class) pairs. Predictions are class scores (argmax over
    axis 1) or labels; binary scores of one column are thresholded at `threshold`. `normalize`:
    'no_norm', 'target' (rows sum to 1), 'prediction' (columns), 'all'."""

    def __init__(self, num_classes: int, normalize: str = "no_norm", threshold: float = 0.5) -> None:
        super().__init__()
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
            raise ValueError(f"For 'ConfusionMatrix', 'num_classes' must be a positive int, got {num_classes!r}")
        if normalize not in ("no_norm", "target", "prediction", "all"):
            raise ValueError("For 'ConfusionMatrix', 'normalize' must be 'no_norm', 'target', 'prediction' or 'all', "
                             f"got {normalize!r}")
        self.num_classes, self.normalize, self.threshold = num_classes, normalize, float(threshold)
        self.clear()

    def clear(self) -> None:
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes), np.float64)
        self._seen = 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        if len(inputs) != 2:
            raise ValueError(f"For 'ConfusionMatrix.update', it needs 2 inputs (y_pred, y), but got {len(inputs)}.")
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1]).astype(np.int64).reshape(-1)
        if y_pred.ndim == y.ndim + 1 and y_pred.ndim > 1 and y_pred.shape[1] > 1:
            pred = y_pred.argmax(1).reshape(-1)
        elif y_pred.dtype.kind == "f":
            pred = (y_pred.reshape(-1) > self.threshold).astype(np.int64)
        else:
            pred = y_pred.astype(np.int64).reshape(-1)
        if pred.size != y.size:
            raise ValueError(f"For 'ConfusionMatrix.update', {pred.size} predictions for {y.size} labels.")
        bad = (y < 0) | (y >= self.num_classes) | (pred < 0) | (pred >= self.num_classes)
        if bad.any():
            raise ValueError(f"For 'ConfusionMatrix.update', classes must be in [0, {self.num_classes}).")
        np.add.at(self.confusion_matrix, (y, pred), 1.0)
        self._seen += y.size

    def eval(self) -> np.ndarray:
        require_samples(self._seen, "ConfusionMatrix")
        m = self.confusion_matrix
        with np.errstate(invalid="ignore", divide="ignore"):
            if self.normalize == "target":
                m = m / m.sum(1, keepdims=True)
            elif self.normalize == "prediction":
                m = m / m.sum(0, keepdims=True)
            elif self.normalize == "all":
                m = m / m.sum()
        return np.nan_to_num(m)


class CosineSimilarity(Metric):
    """The pairwise similarity matrix of the rows given to ``update(x)`` (N, D): 'cosine' or 'dot',
    reduced by `reduction` ('none', 'sum', 'mean': per row); the diagonal is zeroed by default."""

    def __init__(self, similarity: str = "cosine", reduction: str = "none", zero_diagonal: bool = True) -> None:
        super().__init__()
        if similarity not in ("cosine", "dot"):
            raise ValueError(f"For 'CosineSimilarity', 'similarity' must be 'cosine' or 'dot', got {similarity!r}")
        if reduction not in ("none", "sum", "mean"):
            raise ValueError(f"For 'CosineSimilarity', 'reduction' must be 'none', 'sum' or 'mean', got {reduction!r}")
        self.similarity, self.reduction, self.zero_diagonal = similarity, reduction, bool(zero_diagonal)
        self.clear()

    def clear(self) -> None:
        self.sqr_mtx_res = None

    def update(self, *inputs: Any) -> None:
        if len(inputs) != 1:
            raise ValueError(f"For 'CosineSimilarity.update', it needs 1 input, but got {len(inputs)}.")
        x = self._convert_data(inputs[0]).astype(np.float64)
        if self.similarity == "cosine":
            x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
        self.sqr_mtx_res = x @ x.T

    def eval(self) -> np.ndarray:
        if self.sqr_mtx_res is None:
            require_samples(0, "CosineSimilarity")
        m = self.sqr_mtx_res.copy()
        if self.zero_diagonal:
            np.fill_diagonal(m, 0)
        if self.reduction == "mean":
            return m.mean(-1)
        if self.reduction == "sum":
            return m.sum(-1)
        return m


class Dice(Metric):
    """The Dice coefficient 2|X ∩ Y| / (|X| + |Y|) of predictions and labels, averaged over batches,
    `smooth` added to numerator and denominator."""

    def __init__(self, smooth: float = 1e-5) -> None:
        super().__init__()
        if isinstance(smooth, bool) or not isinstance(smooth, (int, float)) or smooth <= 0:
            raise ValueError(f"For 'Dice', 'smooth' must be a positive number, got {smooth!r}")
        self.smooth = float(smooth)
        self.clear()

    def clear(self) -> None:
        self._dice_coeff_sum = 0.0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        if len(inputs) != 2:
            raise ValueError(f"For 'Dice.update', it needs 2 inputs (y_pred, y), but got {len(inputs)}.")
        y_pred = self._convert_data(inputs[0]).astype(np.float64)
        y = self._convert_data(inputs[1]).astype(np.float64)
        if y_pred.shape != y.shape:
            raise RuntimeError(f"For 'Dice.update', y_pred and y need the same shape, got {y_pred.shape} "
                               f"and {y.shape}.")
        inter = float((y_pred.reshape(-1) * y.reshape(-1)).sum())
        union = float(y_pred.sum() + y.sum())
        self._dice_coeff_sum += (2 * inter + self.smooth) / (union + self.smooth)
        self._samples_num += 1

    def eval(self) -> float:
        require_samples(self._samples_num, "Dice")
        return self._dice_coeff_sum / self._samples_num


def auc(x: Any, y: Any, reorder: bool = False) -> float:
    """The area under the curve through the points (x, y) by the trapezoidal rule (MindSpore's
    ``auc``, used with ROC's outputs); `x` must be monotonic unless `reorder` sorts it."""
    xs, ys = np.asarray(x, np.float64).reshape(-1), np.asarray(y, np.float64).reshape(-1)
    if xs.shape != ys.shape or xs.size < 2:
        raise ValueError(f"For 'auc', x and y need the same length of at least 2, got {xs.size} and {ys.size}")
    if reorder:
        order = np.lexsort((ys, xs))
        xs, ys = xs[order], ys[order]
    dx = np.diff(xs)
    if (dx < 0).any() and (dx > 0).any():
        raise ValueError("For 'auc', x is neither increasing nor decreasing; pass reorder=True")
    area = float(np.sum(dx * (ys[1:] + ys[:-1]) / 2))
    return -area if (dx <= 0).all() else area
