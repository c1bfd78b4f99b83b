"""More of MindSpore's losses (issue 14), with its names, arguments and formulas (which follow
PyTorch's): Huber, soft-margin, KL divergence, margin ranking, cosine embedding, Poisson and
Gaussian negative log-likelihood, hinge embedding, RMSE, MAE, multi-label soft margin, triplet
margin. Each is a Cell over existing ops, so gradients and Graph mode come with it; `reduction` is
'mean' (the default), 'sum' or 'none'.
"""

from __future__ import annotations

import math
from typing import Any

from ..common import dtype as mstype
from ..ops import functional as F
from ..tensor import Tensor
from .cell import Cell

__all__ = ["HuberLoss", "SoftMarginLoss", "KLDivLoss", "MarginRankingLoss", "CosineEmbeddingLoss", "PoissonNLLLoss",
           "GaussianNLLLoss", "HingeEmbeddingLoss", "RMSELoss", "MAELoss", "MultiLabelSoftMarginLoss",
           "TripletMarginLoss", "FocalLoss"]


def _reduction(reduction: Any, loss: str, extra: tuple[str, ...] = ()) -> str:
    allowed = ("mean", "sum", "none") + extra
    if reduction not in allowed:
        raise ValueError(f"{loss}: reduction must be one of {list(allowed)}, got {reduction!r}")
    return reduction


def _reduce(x: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return F.mean(x)
    if reduction == "sum":
        return F.sum(x)
    return x


def _log_sigmoid(x: Tensor) -> Tensor:
    """log(sigmoid(x)) = -softplus(-x), without overflow."""
    return F.neg(F.softplus(F.neg(x)))


class _Loss(Cell):
    _extra: tuple[str, ...] = ()

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = _reduction(reduction, type(self).__name__, self._extra)

    def extend_repr(self) -> str:
        return f"reduction={self.reduction}"


class HuberLoss(_Loss):
    """0.5 d^2 where |d| < delta, else delta * (|d| - 0.5 delta), d = logits - labels."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction)
        if delta <= 0:
            raise ValueError(f"HuberLoss: delta must be positive, got {delta}")
        self.delta = float(delta)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        a = F.abs(F.sub(logits, labels))
        quad = F.mul(F.mul(a, a), 0.5)
        lin = F.mul(F.sub(a, 0.5 * self.delta), self.delta)
        return _reduce(F.where(F.less(a, self.delta), quad, lin), self.reduction)


class SoftMarginLoss(_Loss):
    """log(1 + exp(-labels * logits)), labels in {-1, 1}."""

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return _reduce(F.softplus(F.neg(F.mul(labels, logits))), self.reduction)


class KLDivLoss(_Loss):
    """labels * (log(labels) - logits) (0 where labels is 0): `logits` are log-probabilities.
    'batchmean' divides the sum by the batch size (the mathematically right KL divergence)."""

    _extra = ("batchmean",)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        pointwise = F.sub(F.xlogy(labels, labels), F.mul(labels, logits))
        if self.reduction == "batchmean":
            return F.div(F.sum(pointwise), logits.shape[0] if logits.ndim else 1)
        return _reduce(pointwise, self.reduction)


class MarginRankingLoss(_Loss):
    """max(0, -target * (input1 - input2) + margin), target in {-1, 1}."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.margin = float(margin)

    def construct(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return _reduce(F.relu(F.add(F.mul(F.neg(target), F.sub(input1, input2)), self.margin)), self.reduction)


class CosineEmbeddingLoss(_Loss):
    """1 - cos(x1, x2) where labels is 1, max(0, cos(x1, x2) - margin) where it is -1 (cos along axis 1)."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        if not -1.0 <= margin <= 1.0:
            raise ValueError(f"CosineEmbeddingLoss: margin must be in [-1, 1], got {margin}")
        self.margin = float(margin)

    def construct(self, logits_x1: Tensor, logits_x2: Tensor, labels: Tensor) -> Tensor:
        dot = F.sum(F.mul(logits_x1, logits_x2), 1)
        n1 = F.sum(F.mul(logits_x1, logits_x1), 1)
        n2 = F.sum(F.mul(logits_x2, logits_x2), 1)
        cos = F.div(dot, F.sqrt(F.add(F.mul(n1, n2), 1e-12)))
        pos = F.sub(1.0, cos)
        neg = F.relu(F.sub(cos, self.margin))
        return _reduce(F.where(F.equal(labels, 1), pos, neg), self.reduction)


class PoissonNLLLoss(_Loss):
    """exp(x) - y x (``log_input``), else x - y log(x + eps); ``full`` adds Stirling's term
    y log y - y + 0.5 log(2 pi y) where y > 1."""

    def __init__(self, log_input: bool = True, full: bool = False, eps: float = 1e-8, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.log_input, self.full, self.eps = bool(log_input), bool(full), float(eps)

    def construct(self, input: Tensor, target: Tensor) -> Tensor:
        if self.log_input:
            loss = F.sub(F.exp(input), F.mul(target, input))
        else:
            loss = F.sub(input, F.mul(target, F.log(F.add(input, self.eps))))
        if self.full:
            safe = F.where(F.greater(target, 1), target, F.ones_like(target))
            stirling = F.add(F.sub(F.mul(safe, F.log(safe)), safe), F.mul(F.log(F.mul(safe, 2 * math.pi)), 0.5))
            loss = F.add(loss, F.where(F.greater(target, 1), stirling, F.zeros_like(stirling)))
        return _reduce(loss, self.reduction)


class GaussianNLLLoss(_Loss):
    """0.5 (log(max(var, eps)) + (logits - labels)^2 / max(var, eps)), plus 0.5 log(2 pi) with ``full``."""

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(reduction)
        if eps <= 0:
            raise ValueError(f"GaussianNLLLoss: eps must be positive, got {eps}")
        self.full, self.eps = bool(full), float(eps)

    def construct(self, logits: Tensor, labels: Tensor, var: Tensor) -> Tensor:
        v = F.maximum(var, self.eps)
        d = F.sub(logits, labels)
        loss = F.mul(F.add(F.log(v), F.div(F.mul(d, d), v)), 0.5)
        if self.full:
            loss = F.add(loss, 0.5 * math.log(2 * math.pi))
        return _reduce(loss, self.reduction)


class HingeEmbeddingLoss(_Loss):
    """x where labels is 1, max(0, margin - x) where labels is -1."""

    def __init__(self, margin: float = 1.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.margin = float(margin)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        neg = F.relu(F.sub(self.margin, logits))
        return _reduce(F.where(F.equal(labels, 1), logits, neg), self.reduction)


class RMSELoss(Cell):
    """sqrt(mean((logits - labels)^2))."""

    def construct(self, logits: Tensor, label: Tensor) -> Tensor:
        d = F.sub(logits, label)
        return F.sqrt(F.mean(F.mul(d, d)))


class MAELoss(_Loss):
    """|logits - labels|, reduced."""

    def construct(self, logits: Tensor, label: Tensor) -> Tensor:
        return _reduce(F.abs(F.sub(logits, label)), self.reduction)


class MultiLabelSoftMarginLoss(_Loss):
    """-mean over classes of w (y log sigmoid(x) + (1 - y) log sigmoid(-x)), one value per sample, then reduced."""

    def __init__(self, weight: Any = None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.weight = weight

    def construct(self, x: Tensor, target: Tensor) -> Tensor:
        y = F.cast(target, x.dtype)
        per = F.add(F.mul(y, _log_sigmoid(x)), F.mul(F.sub(1.0, y), _log_sigmoid(F.neg(x))))
        if self.weight is not None:
            per = F.mul(per, self.weight)
        return _reduce(F.neg(F.mean(per, -1)), self.reduction)


class TripletMarginLoss(_Loss):
    """max(d(x, positive) - d(x, negative) + margin, 0) with d the p-norm of the difference plus eps
    along axis 1; ``swap`` uses min(d(x, negative), d(positive, negative))."""

    def __init__(self, p: int = 2, swap: bool = False, eps: float = 1e-6, reduction: str = "mean",
                 margin: float = 1.0) -> None:
        super().__init__(reduction)
        self.p, self.swap, self.eps, self.margin = p, bool(swap), float(eps), float(margin)

    def _dist(self, a: Tensor, b: Tensor) -> Tensor:
        d = F.abs(F.add(F.sub(a, b), self.eps))
        return F.pow(F.sum(F.pow(d, float(self.p)), 1), 1.0 / float(self.p))

    def construct(self, x: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        d_pos = self._dist(x, positive)
        d_neg = self._dist(x, negative)
        if self.swap:
            d_neg = F.minimum(d_neg, self._dist(positive, negative))
        return _reduce(F.relu(F.add(F.sub(d_pos, d_neg), self.margin)), self.reduction)


class FocalLoss(_Loss):
    """``FocalLoss(weight=None, gamma=2.0, reduction='mean')``: -(1 - p)^gamma * log p over the
    softmax of axis 1, for logits (N, C, ...) and labels with the same rank whose axis 1 is 1 (class
    indices) or C (one-hot/probabilities), as MindSpore computes it. The per-element losses are
    averaged over the spatial axes (and over C for one-hot labels) before `reduction`. `weight` is
    an optional (C,) class weight."""

    def __init__(self, weight: Tensor | None = None, gamma: float = 2.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        if not isinstance(gamma, float):
            raise TypeError(f"FocalLoss: 'gamma' must be a float, got {type(gamma).__name__}")
        if weight is not None and not isinstance(weight, Tensor):
            raise TypeError(f"FocalLoss: 'weight' must be a Tensor, got {type(weight).__name__}")
        if weight is not None and weight.ndim != 1:
            raise ValueError(f"FocalLoss: 'weight' must be 1-D, got {weight.ndim}-D")
        self.gamma, self.weight = gamma, weight

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        if logits.ndim != labels.ndim or logits.ndim < 2:
            raise ValueError(f"FocalLoss: logits and labels must have the same rank (>= 2), got shapes "
                             f"{tuple(logits.shape)} and {tuple(labels.shape)}")
        n, c, k = logits.shape[0], logits.shape[1], labels.shape[1]
        if k not in (1, c):
            raise ValueError(f"FocalLoss: labels' axis 1 must be 1 (class indices) or C={c} (one-hot), got {k}")
        if logits.ndim > 2:
            logits, labels = F.reshape(logits, (n, c, -1)), F.reshape(labels, (n, k, -1))
        else:
            logits, labels = F.expand_dims(logits, 2), F.expand_dims(labels, 2)
        log_p = F.log_softmax(logits, axis=1)
        index = F.cast(labels, mstype.int32) if k == 1 else None
        if index is not None:
            log_p = F.squeeze(F.gather_d(log_p, 1, index), 1)
        p = F.exp(log_p)
        if self.weight is not None:
            w = F.tile(F.reshape(self.weight, (1, c, 1)), (n, 1, labels.shape[2]))
            if index is not None:
                w = F.squeeze(F.gather_d(w, 1, index), 1)
            log_p = F.mul(log_p, w)
        focus = F.pow(F.sub(1.0, p), self.gamma)
        if index is not None:
            loss = F.mean(F.neg(F.mul(focus, log_p)), 1)
        else:
            loss = F.mean(F.neg(F.mul(F.mul(focus, labels), log_p)), -1)
        return _reduce(loss, self.reduction)
