"""``spore.dataset.transforms``: data-type-agnostic transforms (TypeCast, Compose, OneHot, ...)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...common import dtype as mstype
from .._seeding import current_rng
from .base import TensorOperation

__all__ = ["Compose", "Duplicate", "OneHot", "RandomApply", "RandomChoice", "TypeCast"]


def np_dtype(data_type: Any) -> np.dtype:
    """A NumPy dtype from a Spore dtype (``ms.int32``), a NumPy type or a name."""
    if isinstance(data_type, mstype.DType):
        return data_type.np
    try:
        return np.dtype(data_type)
    except TypeError:
        return mstype.to_dtype(data_type).np


def _chain(transforms: Sequence[Callable[..., Any]], args: tuple[Any, ...]) -> Any:
    vals = args
    out: Any = None
    for t in transforms:
        out = t(*vals)
        vals = out if isinstance(out, tuple) else (out,)
    return out


class TypeCast(TensorOperation):
    """Cast to ``data_type``: a Spore dtype (``ms.int32``) or a NumPy one (``np.int32``)."""

    def __init__(self, data_type: Any) -> None:
        self.data_type = np_dtype(data_type)

    def _apply(self, x: Any) -> np.ndarray:
        return np.asarray(x).astype(self.data_type)


class Compose(TensorOperation):
    """Several transforms applied in turn, usable as one (e.g. inside RandomApply)."""

    def __init__(self, transforms: Sequence[Callable[..., Any]]) -> None:
        self.transforms = list(transforms)
        if not self.transforms or not all(callable(t) for t in self.transforms):
            raise ValueError("Compose: transforms must be a non-empty list of callables")
        self._num_inputs = getattr(self.transforms[0], "_num_inputs", None)

    def _apply(self, *args: Any) -> Any:
        return _chain(self.transforms, args)


class OneHot(TensorOperation):
    """Integer class labels to one-hot vectors of ``num_classes`` (with optional label smoothing)."""

    def __init__(self, num_classes: int, smoothing_rate: float = 0.0) -> None:
        if not isinstance(num_classes, int) or num_classes < 1:
            raise ValueError(f"OneHot: num_classes must be a positive int, got {num_classes!r}")
        if not 0.0 <= smoothing_rate <= 1.0:
            raise ValueError(f"OneHot: smoothing_rate must be in [0, 1], got {smoothing_rate}")
        self.num_classes, self.smoothing_rate = num_classes, float(smoothing_rate)

    def _apply(self, label: Any) -> np.ndarray:
        lab = np.asarray(label)
        if lab.dtype.kind not in "iu" or (lab.size and (lab.min() < 0 or lab.max() >= self.num_classes)):
            raise ValueError(f"OneHot: labels must be integers in [0, {self.num_classes}), got {lab!r}")
        out = np.eye(self.num_classes, dtype=np.int64)[lab]
        if self.smoothing_rate:
            s = self.smoothing_rate
            return (out * (1 - s) + s / self.num_classes).astype(np.float32)
        return out


class Duplicate(TensorOperation):
    """One column to two equal ones (use with two output_columns)."""

    def _apply(self, x: Any) -> tuple[np.ndarray, np.ndarray]:
        arr = np.asarray(x)
        return arr, arr.copy()


class RandomApply(TensorOperation):
    """Apply all ``transforms`` in turn with probability ``prob``, else pass the input through."""

    def __init__(self, transforms: Sequence[Callable[..., Any]], prob: float = 0.5) -> None:
        self.transforms, self.prob = list(transforms), float(prob)
        if not 0 <= self.prob <= 1:
            raise ValueError(f"RandomApply: prob must be in [0, 1], got {prob}")
        self._num_inputs = getattr(self.transforms[0], "_num_inputs", None) if self.transforms else None

    def _apply(self, *args: Any) -> Any:
        if current_rng().random() < self.prob:
            return _chain(self.transforms, args)
        return args if len(args) > 1 else args[0]


class RandomChoice(TensorOperation):
    """Apply one of ``transforms``, chosen uniformly at random."""

    def __init__(self, transforms: Sequence[Callable[..., Any]]) -> None:
        self.transforms = list(transforms)
        if not self.transforms:
            raise ValueError("RandomChoice: transforms is empty")
        self._num_inputs = getattr(self.transforms[0], "_num_inputs", None)

    def _apply(self, *args: Any) -> Any:
        return self.transforms[int(current_rng().integers(len(self.transforms)))](*args)
