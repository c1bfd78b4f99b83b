"""`ConfusionMatrixMetric`: the confusion-matrix rates (sensitivity, specificity, F1, MCC, ...) of
one-hot predictions, as MindSpore's ``mindspore.train.ConfusionMatrixMetric``.

Inputs are binarised one-hot arrays of shape (N, C, ...). Per sample and class the counts tp, fp,
tn, fn are taken over the trailing (spatial) positions. With ``calculation_method=False`` the counts
of every sample and class are summed over all batches and the metric is computed once from the
totals (the classification use; `eval` returns a 1-element array, as MindSpore). With True the
metric is computed per sample and class, NaNs (0/0) dropped, reduced by `decrease`, and `eval`
averages the batches weighted by how many finite values each had.

MindSpore behaviours kept on purpose: ``skip_channel=False`` drops channel 0 and True keeps every
channel (the reverse of what the name suggests, but what MindSpore computes); 2-D inputs and
(N, C, 1) inputs always use the accumulated confusion matrix.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .metric import Metric, rearrange_inputs

_ALIASES = {
    "tpr": ("sensitivity", "recall", "hit_rate", "true_positive_rate"),
    "tnr": ("specificity", "selectivity", "true_negative_rate"),
    "ppv": ("precision", "positive_predictive_value"),
    "npv": ("negative_predictive_value",),
    "fnr": ("miss_rate", "false_negative_rate"),
    "fpr": ("fall_out", "false_positive_rate"),
    "fdr": ("false_discovery_rate",),
    "for": ("false_omission_rate",),
    "pt": ("prevalence_threshold",),
    "ts": ("threat_score", "critical_success_index", "csi"),
    "acc": ("accuracy",),
    "ba": ("balanced_accuracy",),
    "f1": ("f1_score",),
    "mcc": ("matthews_correlation_coefficient",),
    "fm": ("fowlkes_mallows_index",),
    "bm": ("informedness", "bookmaker_informedness"),
    "mk": ("markedness", "deltap"),
}
_SHORT = {alias: short for short, names in _ALIASES.items() for alias in (short, *names)}
_DECREASES = ("none", "mean", "sum", "mean_batch", "sum_batch", "mean_channel", "sum_channel")


def _short_name(metric_name: str) -> str:
    short = _SHORT.get(metric_name.replace(" ", "_").lower())
    if short is None:
        raise ValueError(f"ConfusionMatrixMetric: unknown metric_name {metric_name!r}; choose one of "
                         f"{sorted(_SHORT)}")
    return short


def _ratio(num: np.ndarray, den: Any) -> np.ndarray:
    num = np.asarray(num, dtype=float)
    den = np.broadcast_to(np.asarray(den, dtype=float), num.shape)
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def confusion_counts(y_pred: np.ndarray, y: np.ndarray, skip_channel: bool = True) -> np.ndarray:
    """Per sample and class the counts [tp, fp, tn, fn]: shape (N, C, 4)."""
    if not skip_channel:
        y = y[:, 1:] if y.shape[1] > 1 else y
        y_pred = y_pred[:, 1:] if y_pred.shape[1] > 1 else y_pred
    if y.shape != y_pred.shape:
        raise ValueError(f"ConfusionMatrixMetric: y_pred and y must have the same shape, got {y_pred.shape} "
                         f"and {y.shape}")
    n, c = y_pred.shape[:2]
    yp = y_pred.astype(float).reshape(n, c, -1)
    yt = y.astype(float).reshape(n, c, -1)
    tp = ((yp + yt) == 2).sum(axis=2).astype(float)
    tn = ((yp + yt) == 0).sum(axis=2).astype(float)
    pos = yt.sum(axis=2)
    neg = yt.shape[-1] - pos
    return np.stack([tp, neg - tn, tn, pos - tp], axis=-1)


def confusion_metric(metric_name: str, counts: np.ndarray) -> np.ndarray:
    """The named rate from counts [..., 4] = (tp, fp, tn, fn); NaN where its denominator is 0."""
    short = _short_name(metric_name)
    counts = np.asarray(counts, dtype=float)
    if counts.ndim == 1:
        counts = counts[None]
    if counts.shape[-1] != 4:
        raise ValueError(f"ConfusionMatrixMetric: the last dimension of the counts must be 4, got {counts.shape}")
    tp, fp, tn, fn = (counts[..., i] for i in range(4))
    p, n = tp + fn, fp + tn
    with np.errstate(invalid="ignore", divide="ignore"):
        tpr, tnr = _ratio(tp, p), _ratio(tn, n)
        ppv, npv = _ratio(tp, tp + fp), _ratio(tn, tn + fn)
        table = {
            "tpr": lambda: tpr, "tnr": lambda: tnr, "ppv": lambda: ppv, "npv": lambda: npv,
            "fnr": lambda: _ratio(fn, p), "fpr": lambda: _ratio(fp, n), "fdr": lambda: _ratio(fp, fp + tp),
            "for": lambda: _ratio(fn, fn + tn),
            "pt": lambda: _ratio(np.sqrt(tpr * (1.0 - tnr)) + tnr - 1.0, tpr + tnr - 1.0),
            "ts": lambda: _ratio(tp, tp + fn + fp), "acc": lambda: _ratio(tp + tn, p + n),
            "ba": lambda: (tpr + tnr) / 2.0, "f1": lambda: _ratio(2.0 * tp, 2.0 * tp + fn + fp),
            "mcc": lambda: _ratio(tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))),
            "fm": lambda: np.sqrt(ppv * tpr), "bm": lambda: tpr + tnr - 1.0, "mk": lambda: ppv + npv - 1.0,
        }
        return table[short]()


def _reduce(chart: np.ndarray, decrease: str) -> tuple[np.ndarray, np.ndarray]:
    """Reduce a (N, C) table of per-sample, per-class scores ignoring NaNs: (score, finite count)."""
    finite = ~np.isnan(chart)
    vals = np.where(finite, chart, 0.0)
    cnt = finite.astype(float)
    if decrease == "none":
        return vals, cnt
    if decrease == "sum":
        return vals.sum(), cnt.sum()
    if decrease in ("sum_batch", "sum_channel"):
        axis = 0 if decrease == "sum_batch" else 1
        return vals.sum(axis=axis), cnt.sum(axis=axis)
    if decrease in ("mean_batch", "mean_channel"):
        axis = 0 if decrease == "mean_batch" else 1
        c = cnt.sum(axis=axis)
        return _ratio(vals.sum(axis=axis), c), c
    # "mean": per-sample mean over classes, then mean over the samples that had any finite class
    c = cnt.sum(axis=1)
    per_sample = np.where(c > 0, _ratio(vals.sum(axis=1), c), 0.0)
    has = (c > 0).astype(float)
    total = has.sum()
    return (np.asarray(per_sample.sum() / total) if total > 0 else np.asarray(0.0)), np.asarray(total)


class ConfusionMatrixMetric(Metric):
    """Confusion-matrix rates of one-hot predictions (see the module docstring for the two modes).

    `update(y_pred, y)`: binarised one-hot arrays (N, C, ...); `eval()` the metric (an ndarray).
    """

    def __init__(self, skip_channel: bool = True, metric_name: str = "sensitivity", calculation_method: bool = False,
                 decrease: str = "mean") -> None:
        super().__init__()
        for name, v in (("skip_channel", skip_channel), ("calculation_method", calculation_method)):
            if not isinstance(v, bool):
                raise TypeError(f"ConfusionMatrixMetric: {name} must be a bool, got {type(v).__name__}")
        if not isinstance(metric_name, str):
            raise TypeError(f"ConfusionMatrixMetric: metric_name must be a str, got {type(metric_name).__name__}")
        _short_name(metric_name)
        if not isinstance(decrease, str) or decrease not in _DECREASES:
            raise ValueError(f"ConfusionMatrixMetric: decrease must be one of {list(_DECREASES)}, got {decrease!r}")
        self.skip_channel, self.metric_name = skip_channel, metric_name
        self.calculation_method, self.decrease = calculation_method, decrease
        self.clear()

    def clear(self) -> None:
        """Forget every update."""
        self._counts = np.zeros(4)
        self._score_sum: Any = 0.0
        self._finite: Any = 0.0
        self._per_sample = self.calculation_method

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Add a batch: `y_pred` and `y`, binarised one-hot (N, C, ...) Tensors, lists or arrays."""
        if len(inputs) != 2:
            raise ValueError(f"ConfusionMatrixMetric.update: needs 2 inputs (y_pred, y), got {len(inputs)}")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if not np.all(y.astype(np.uint8) == y):
            raise ValueError("ConfusionMatrixMetric.update: y (input[1]) must be binarised (0/1 one-hot)")
        if y_pred.ndim < 2:
            raise ValueError(f"ConfusionMatrixMetric.update: y_pred must have at least 2 dimensions, got {y_pred.ndim}")
        counts = confusion_counts(y_pred, y, self.skip_channel)
        classification = y_pred.ndim == 2 or (y_pred.ndim == 3 and y_pred.shape[-1] == 1)
        if self._per_sample and classification:
            if np.any(np.asarray(self._finite) > 0):
                raise ValueError("ConfusionMatrixMetric.update: a classification batch (N, C) after per-sample "
                                 "segmentation batches; MindSpore accumulates classification confusion matrices")
            self._per_sample = False
        if self._per_sample:
            score, finite = _reduce(confusion_metric(self.metric_name, counts), self.decrease)
            self._score_sum = self._score_sum + score * finite
            self._finite = self._finite + finite
        else:
            self._counts = self._counts + counts.reshape(-1, 4).sum(axis=0)

    def eval(self) -> np.ndarray:
        """The metric over every batch since `clear`."""
        if self._per_sample:
            if not np.any(np.asarray(self._finite) > 0):
                raise RuntimeError("ConfusionMatrixMetric.eval: no finite per-sample score yet; call update with "
                                   "non-empty inputs first")
            return _ratio(self._score_sum, self._finite)
        return confusion_metric(self.metric_name, self._counts)
