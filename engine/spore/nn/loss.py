"""Loss cells with MindSpore's names, signatures and defaults (`reduction` is 'mean', 'sum' or
'none'; note `SoftmaxCrossEntropyWithLogits` and `SmoothL1Loss` default to 'none' as in MindSpore).

Each loss is a thin Cell over functional ops, so its gradient comes from the ops' own rules.
"""

from __future__ import annotations

from typing import Any

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError, located
from ..ops import functional as F
from ..tensor import Tensor
from .cell import Cell

_REDUCTIONS = ("mean", "sum", "none")

__all__ = [
    "LossBase", "MSELoss", "L1Loss", "SmoothL1Loss", "SoftmaxCrossEntropyWithLogits",
    "CrossEntropyLoss", "NLLLoss", "BCEWithLogitsLoss", "BCELoss",
]



def _check_reduction(reduction: Any, loss: str) -> str:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{loss}: reduction must be one of {list(_REDUCTIONS)}, got {reduction!r}")
    return reduction


def _same_shape(loss: str, logits: Tensor, labels: Tensor) -> None:
    """Elementwise losses broadcast like MindSpore, but a mismatch is named at the user's line."""
    try:
        from ..ops._rules import broadcast_shapes

        broadcast_shapes(loss, logits.shape, labels.shape)
    except ShapeError as err:
        raise located(ShapeError(loss, "logits and labels of the same (or broadcastable) shape",
                                 f"logits {tuple(logits.shape)} and labels {tuple(labels.shape)}",
                                 hint=err.hint)) from None


class LossBase(Cell):
    """Base of losses: `get_loss(x, weights)` applies the weights and the reduction.

    Subclasses compute the element-wise loss in `construct` and finish with ``self.get_loss(x)``.
    """

    def __init__(self, reduction: str = "mean", dtype: Any = mstype.float32) -> None:
        super().__init__()
        self.reduction = _check_reduction(reduction, type(self).__name__)
        self.average = reduction == "mean"
        self.reduce = reduction != "none"

    def get_axis(self, x: Tensor) -> tuple[int, ...]:
        return tuple(range(x.ndim))

    def get_loss(self, x: Tensor, weights: Any = 1.0) -> Tensor:
        """Weighted, reduced loss; computed in float32 and returned in the input's dtype."""
        in_dtype = x.dtype
        if in_dtype is not mstype.float32 and in_dtype.is_float and in_dtype.itemsize < 4:
            x = F.cast(x, mstype.float32)
        if not (isinstance(weights, (int, float)) and weights == 1.0):
            x = F.mul(weights, x)
        if self.reduction == "mean":
            x = F.mean(x)
        elif self.reduction == "sum":
            x = F.sum(x)
        return F.cast(x, in_dtype) if x.dtype is not in_dtype else x

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} must define construct()")

    def extend_repr(self) -> str:
        return f"reduction={self.reduction}"


def _half_to_float(x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """Half-precision losses are computed in float32 (accumulation would lose too much in fp16)."""
    if x.dtype in (mstype.float16, mstype.bfloat16):
        return F.cast(x, mstype.float32), F.cast(y, mstype.float32) if y.dtype.is_float else y
    return x, y


def _back(loss: Tensor, like: Tensor) -> Tensor:
    return F.cast(loss, like.dtype) if loss.dtype is not like.dtype and like.dtype.is_float else loss


class MSELoss(LossBase):
    """Mean squared error: reduction of (logits - labels)^2."""

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        _same_shape("MSELoss", logits, labels)
        x, y = _half_to_float(logits, labels)
        return _back(F.mse_loss(x, y, self.reduction), logits)


class L1Loss(LossBase):
    """Mean absolute error: reduction of |logits - labels|."""

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        _same_shape("L1Loss", logits, labels)
        x, y = _half_to_float(logits, labels)
        return _back(F.l1_loss(x, y, self.reduction), logits)


class SmoothL1Loss(LossBase):
    """0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta elsewhere (d = logits - labels)."""

    def __init__(self, beta: float = 1.0, reduction: str = "none") -> None:
        super().__init__(reduction)
        if not isinstance(beta, (int, float)) or beta <= 0:
            raise ValueError(f"SmoothL1Loss: beta must be a positive number, got {beta!r}")
        self.beta = float(beta)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        _same_shape("SmoothL1Loss", logits, labels)
        x, y = _half_to_float(logits, labels)
        return _back(F.smooth_l1_loss(x, y, self.beta, self.reduction), logits)

    def extend_repr(self) -> str:
        return f"beta={self.beta}, reduction={self.reduction}"


class SoftmaxCrossEntropyWithLogits(LossBase):
    """Cross entropy of softmax(logits) against labels: one-hot/probabilities, or class ids with `sparse`.

    Logits are (N, C); labels (N, C) probabilities, or (N,) integer class ids when ``sparse=True``.
    One fused op computes loss and gradient (softmax - labels).
    """

    def __init__(self, sparse: bool = False, reduction: str = "none") -> None:
        super().__init__(reduction)
        if not isinstance(sparse, bool):
            raise TypeError(f"SoftmaxCrossEntropyWithLogits: sparse must be a bool, got {type(sparse).__name__}")
        self.sparse = sparse

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        name = "SoftmaxCrossEntropyWithLogits"
        if logits.ndim != 2:
            raise located(ShapeError(name, "logits of shape (N, C)", f"logits {tuple(logits.shape)}",
                                     hint="flatten the leading axes first, e.g. logits.reshape(-1, C)"))
        if self.sparse:
            if labels.shape != logits.shape[:-1]:
                raise located(ShapeError(
                    name, f"class-id labels of shape {tuple(logits.shape[:-1])} (logits without the class axis)",
                    f"labels {tuple(labels.shape)}",
                    hint="with sparse=True labels are integer class ids; with sparse=False they are one-hot"))
            if not labels.dtype.is_int:
                raise located(DTypeError(name, "integer class-id labels with sparse=True", f"{labels.dtype}",
                                         hint="cast the labels with labels.astype(ms.int32)"))
        elif labels.shape != logits.shape:
            raise located(ShapeError(name, f"labels of the logits' shape {tuple(logits.shape)}",
                                     f"labels {tuple(labels.shape)}",
                                     hint="pass sparse=True to give integer class ids instead of one-hot labels"))
        x, y = _half_to_float(logits, labels)
        return _back(F.cross_entropy(x, y, None, -100, self.reduction, 0.0), logits)

    def extend_repr(self) -> str:
        return f"sparse={self.sparse}, reduction={self.reduction}"


class CrossEntropyLoss(LossBase):
    """Cross entropy of logits (N, C[, ...]) against class ids or class probabilities."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100, reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:
        super().__init__(reduction)
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"CrossEntropyLoss: label_smoothing must be in [0, 1], got {label_smoothing}")
        self.weight = weight
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return F.cross_entropy(logits, labels, self.weight, self.ignore_index, self.reduction, self.label_smoothing)

    def extend_repr(self) -> str:
        return (f"weight={self.weight is not None}, ignore_index={self.ignore_index}, "
                f"reduction={self.reduction}, label_smoothing={self.label_smoothing}")


class NLLLoss(LossBase):
    """Negative log likelihood of log-probabilities (N, C[, ...]) at class ids."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.weight = weight
        self.ignore_index = ignore_index

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return F.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class BCEWithLogitsLoss(LossBase):
    """Binary cross entropy of sigmoid(logits), computed stably from the logits."""

    def __init__(self, reduction: str = "mean", weight: Tensor | None = None, pos_weight: Tensor | None = None) -> None:
        super().__init__(reduction)
        self.weight = weight
        self.pos_weight = pos_weight

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        _same_shape("BCEWithLogitsLoss", logits, labels)
        return F.binary_cross_entropy_with_logits(logits, labels, self.weight, self.pos_weight, self.reduction)


class BCELoss(LossBase):
    """Binary cross entropy of probabilities against labels in [0, 1]."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.weight = weight

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        _same_shape("BCELoss", logits, labels)
        return F.binary_cross_entropy(logits, labels, self.weight, self.reduction)
