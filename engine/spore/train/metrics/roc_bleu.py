"""`ROC` and `BleuScore` (issue 14), MindSpore's metrics with its arguments and formulas.

ROC follows MindSpore's (scikit-learn's) binary curve: scores sorted descending, one point per
distinct threshold, with a leading point at threshold max + 1 so the curve starts at (0, 0);
multi-class scores (N, C) give one one-vs-rest curve per class. BleuScore is corpus BLEU with
clipped n-gram counts, the closest reference length for the brevity penalty and, with `smooth`,
add-one smoothing of every precision.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from .metric import Metric, rearrange_inputs, require_samples


def _binary_roc(scores: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    order = np.argsort(-scores, kind="stable")
    s, t = scores[order], target[order].astype(np.float64)
    distinct = np.where(np.diff(s))[0]
    idx = np.r_[distinct, t.size - 1]
    tps = np.cumsum(t)[idx]
    fps = 1 + idx - tps
    thresholds = s[idx]
    tps, fps = np.r_[0.0, tps], np.r_[0.0, fps]
    thresholds = np.r_[thresholds[0] + 1, thresholds]
    fpr = fps / fps[-1] if fps[-1] > 0 else np.full_like(fps, np.nan)
    tpr = tps / tps[-1] if tps[-1] > 0 else np.full_like(tps, np.nan)
    return fpr, tpr, thresholds


class ROC(Metric):
    """Receiver operating characteristic: ``update(y_pred, y)``; ``eval()`` returns (fpr, tpr,
    thresholds) — lists of one array per class for (N, C) scores, arrays for binary (N,) scores
    (positive label `pos_label`, default 1)."""

    def __init__(self, class_num: int | None = None, pos_label: int | None = None) -> None:
        super().__init__()
        if class_num is not None and (isinstance(class_num, bool) or not isinstance(class_num, int) or class_num < 1):
            raise ValueError(f"For 'ROC', 'class_num' must be a positive int or None, got {class_num!r}")
        self.class_num, self.pos_label = class_num, pos_label
        self.clear()

    def clear(self) -> None:
        self.y_pred: list[np.ndarray] = []
        self.y: list[np.ndarray] = []
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        if len(inputs) != 2:
            raise ValueError(f"For 'ROC.update', it needs 2 inputs (y_pred, y), but got {len(inputs)}.")
        y_pred = self._convert_data(inputs[0]).astype(np.float64)
        y = self._convert_data(inputs[1]).astype(np.int64)
        if y_pred.ndim == 2 and y_pred.shape[1] == 1:
            y_pred = y_pred[:, 0]
        if y_pred.ndim not in (1, 2) or y_pred.shape[0] != y.reshape(-1).shape[0]:
            raise ValueError(f"For 'ROC.update', y_pred {y_pred.shape} and y {y.shape} must hold one row per sample.")
        if self.class_num is not None and y_pred.ndim == 2 and y_pred.shape[1] != self.class_num:
            raise ValueError(f"For 'ROC.update', y_pred has {y_pred.shape[1]} classes, 'class_num' is {self.class_num}")
        self.y_pred.append(y_pred)
        self.y.append(y.reshape(-1))
        self._is_update = True

    def eval(self) -> tuple[Any, Any, Any]:
        require_samples(int(self._is_update), "ROC")
        y_pred, y = np.concatenate(self.y_pred), np.concatenate(self.y)
        if y_pred.ndim == 1:
            pos = 1 if self.pos_label is None else self.pos_label
            return _binary_roc(y_pred, y == pos)
        curves = [_binary_roc(y_pred[:, c], y == c) for c in range(y_pred.shape[1])]
        return [c[0] for c in curves], [c[1] for c in curves], [c[2] for c in curves]


def _ngrams(tokens: list, n_gram: int) -> Counter:
    counts: Counter = Counter()
    for n in range(1, n_gram + 1):
        for i in range(len(tokens) - n + 1):
            counts[tuple(tokens[i:i + n])] += 1
    return counts


class BleuScore(Metric):
    """Corpus BLEU: ``update(candidate_corpus, reference_corpus)`` with a list of token lists and a
    list of lists of reference token lists; ``eval()`` the score in [0, 1]."""

    def __init__(self, n_gram: int = 4, smooth: bool = False) -> None:
        super().__init__()
        if isinstance(n_gram, bool) or not isinstance(n_gram, int) or not 1 <= n_gram <= 4:
            raise ValueError(f"For 'BleuScore', 'n_gram' must be an int in [1, 4], got {n_gram!r}")
        self.n_gram, self.smooth = n_gram, bool(smooth)
        self.clear()

    def clear(self) -> None:
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._cand_len = 0
        self._ref_len = 0
        self._is_update = False

    def update(self, *inputs: Any) -> None:
        if len(inputs) != 2:
            raise ValueError(f"For 'BleuScore.update', it needs 2 inputs (candidate_corpus, reference_corpus), "
                             f"but got {len(inputs)}.")
        candidates, references = inputs
        if len(candidates) != len(references):
            raise ValueError(f"For 'BleuScore.update', {len(candidates)} candidates but {len(references)} "
                             "reference lists.")
        for cand, refs in zip(candidates, references):
            cand = list(cand)
            self._cand_len += len(cand)
            lengths = [len(r) for r in refs]
            self._ref_len += min(lengths, key=lambda n: (abs(len(cand) - n), n))
            ref_counts: Counter = Counter()
            for r in refs:
                ref_counts |= _ngrams(list(r), self.n_gram)
            cand_counts = _ngrams(cand, self.n_gram)
            for gram, c in (cand_counts & ref_counts).items():
                self._numerator[len(gram) - 1] += c
            for n in range(1, self.n_gram + 1):
                self._denominator[n - 1] += max(len(cand) - n + 1, 0)
        self._is_update = True

    def eval(self) -> float:
        require_samples(int(self._is_update), "BleuScore")
        if self._numerator.min() == 0.0:
            return 0.0
        if self.smooth:
            precision = (self._numerator + 1.0) / (self._denominator + 1.0)
        else:
            precision = self._numerator / self._denominator
        geometric_mean = float(np.exp(np.sum(np.log(precision)) / self.n_gram))
        bp = 1.0 if self._cand_len > self._ref_len else float(np.exp(1 - self._ref_len / self._cand_len))
        return bp * geometric_mean
