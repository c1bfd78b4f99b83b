"""The `Metric` base class and the helpers every metric shares (MindSpore's ``mindspore.train.Metric``).

A metric accumulates over batches: ``clear()`` resets it, ``update(*inputs)`` adds one batch
(usually ``(y_pred, y)``), ``eval()`` returns the result. `Model.eval` drives exactly this cycle.
Inputs may be Tensors, NumPy arrays or lists; everything is computed in NumPy on the host, because
metrics are bookkeeping over outputs, not part of the differentiated graph.
"""

from __future__ import annotations

import functools
import sys
from abc import ABCMeta, abstractmethod
from collections.abc import Callable
from typing import Any

import numpy as np

from ...tensor import Tensor

EPS = sys.float_info.min  # MindSpore divides by (count + smallest float): 0/0 gives 0, never NaN
_EVAL_TYPES = ("classification", "multilabel")


def rearrange_inputs(func: Callable) -> Callable:
    """Decorate ``update`` so the metric's `indexes` (see `Metric.set_indexes`) pick and order its inputs.

    This is how one metric can read ``(loss, logits, label)`` tuples and use only ``(logits, label)``.
    """

    @functools.wraps(func)
    def wrapper(self: Any, *inputs: Any) -> Any:
        indexes = self.indexes
        if indexes:
            inputs = tuple(inputs[i] for i in indexes)
        return func(self, *inputs)

    return wrapper


class Metric(metaclass=ABCMeta):
    """Base class of metrics: subclasses implement `clear`, `update` and `eval`.

    Calling a metric (``metric(y_pred, y)``) evaluates one batch on its own: clear, update, eval.
    """

    def __init__(self) -> None:
        self._indexes: list[int] | None = None

    @staticmethod
    def _convert_data(data: Any) -> np.ndarray:
        """Inputs as NumPy arrays (Tensors, lists, arrays and Python numbers are accepted)."""
        if isinstance(data, Tensor):
            return data.asnumpy()
        if isinstance(data, np.ndarray):
            return data
        if isinstance(data, (list, tuple, int, float, np.number)) and not isinstance(data, bool):
            return np.asarray(data)
        raise TypeError(f"For 'Metric' and its derived classes, the input data type must be Tensor, list or "
                        f"numpy.ndarray, but got {type(data).__name__}.")

    @property
    def indexes(self) -> list[int] | None:
        """Which of `update`'s inputs are used, in which order (None: all, as given)."""
        return getattr(self, "_indexes", None)

    def set_indexes(self, indexes: list[int]) -> Metric:
        """Rearrange `update`'s inputs, e.g. ``[1, 2]`` picks (logits, label) out of (loss, logits, label)."""
        if not isinstance(indexes, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in indexes):
            raise ValueError("For 'set_indexes', the argument 'indexes' must be a list and all its elements must "
                             f"be int, but got {indexes!r}.")
        self._indexes = indexes
        return self

    def __call__(self, *inputs: Any) -> Any:
        self.clear()
        self.update(*inputs)
        return self.eval()

    @abstractmethod
    def clear(self) -> None:
        """Reset the accumulated state."""

    @abstractmethod
    def update(self, *inputs: Any) -> None:
        """Accumulate one batch."""

    @abstractmethod
    def eval(self) -> Any:
        """The result over everything accumulated since `clear`."""


class EvaluationBase(Metric):
    """Shared input checks of classification/multilabel metrics (Accuracy, Precision, Recall)."""

    def __init__(self, eval_type: str) -> None:
        super().__init__()
        if eval_type not in _EVAL_TYPES:
            raise TypeError(f"The argument 'eval_type' must be in {set(_EVAL_TYPES)}, but got {eval_type!r}")
        self._type = eval_type

    def _check_shape(self, y_pred: np.ndarray, y: np.ndarray) -> None:
        if self._type == "classification":
            if y_pred.ndim != y.ndim + 1:
                raise ValueError("In classification case, the dimension of y_pred (predicted value) should equal to "
                                 "the dimension of y (true value) add 1, but got y_pred dimension: "
                                 f"{y_pred.ndim} and y dimension: {y.ndim}.")
            if y.shape != (y_pred.shape[0],) + y_pred.shape[2:]:
                raise ValueError("In classification case, y shape should be y_pred shape without dimension 1 "
                                 f"(e.g. y_pred (N, C) -> y (N,)), but got y_pred shape {y_pred.shape} and y shape "
                                 f"{y.shape}.")
        elif y_pred.shape != y.shape:
            raise ValueError(f"In {self._type} case, the shape of y_pred (predicted value) should equal to the shape "
                             f"of y (true value), but got y_pred shape: {y_pred.shape} and y shape: {y.shape}.")

    def _check_value(self, y_pred: np.ndarray, y: np.ndarray) -> None:
        if self._type != "classification" and not (np.equal(y_pred ** 2, y_pred).all() and np.equal(y ** 2, y).all()):
            raise ValueError("In multilabel case, all elements in y_pred (predicted value) and y (true value) should "
                             "be 0 or 1.")

    def _class_count(self, y_pred: np.ndarray) -> int:
        """The class count, fixed by the first batch; later batches must agree."""
        if y_pred.ndim < 2:
            raise ValueError(f"{type(self).__name__}: y_pred needs a class dimension (N, C, ...), "
                             f"got shape {y_pred.shape}")
        if self._class_num == 0:
            self._class_num = y_pred.shape[1]
        elif y_pred.shape[1] != self._class_num:
            raise ValueError(f"{type(self).__name__}: the class count changed between batches: "
                             f"{self._class_num} before, {y_pred.shape[1]} now.")
        return self._class_num


def is_onehot(data: np.ndarray) -> bool:
    """True for one-hot labels: 0/1 values with exactly one 1 along axis 1."""
    if data.ndim > 1 and np.equal(data ** 2, data).all():
        shape = (data.shape[0],) + data.shape[2:]
        return bool(np.equal(np.ones(shape), data.sum(axis=1)).all())
    return False


def sparse_labels(y_pred: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Class-index labels: one-hot labels (same rank as y_pred) are turned into indices."""
    if y_pred.ndim == y.ndim and is_onehot(y):
        return y.argmax(axis=1)
    return y


def onehot_counts(y_pred: np.ndarray, y: np.ndarray, class_num: int, who: str) -> tuple[np.ndarray, np.ndarray]:
    """One-hot (N, C) matrices of the argmax predictions and of the labels."""
    labels = y.reshape(-1).astype(np.int64)
    if labels.size and (labels.max() >= class_num or labels.min() < 0):
        raise ValueError(f"For '{who}', the label values must lie in [0, {class_num}), "
                         f"got {labels.min()}..{labels.max()}")
    eye = np.eye(class_num)
    pred_idx = np.moveaxis(y_pred, 1, -1).reshape(-1, class_num).argmax(axis=1)
    return eye[pred_idx], eye[labels]


def require_samples(count: int, who: str) -> None:
    """MindSpore's error for ``eval()`` before any ``update()``."""
    if count == 0:
        raise RuntimeError(f"The '{who}' can not be calculated, because the number of samples is 0, please check "
                           "whether your inputs (predicted value, true value) are empty, or has called update "
                           "method before calling eval method.")
