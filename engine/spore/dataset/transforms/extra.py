"""More of ``mindspore.dataset.transforms`` (issue 14): Fill, Slice, PadEnd, Concatenate, Mask with
`Relational`, Unique, RandomOrder and the `not_random` marker, with MindSpore's arguments.
"""

from __future__ import annotations

import enum
import operator as _op
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._seeding import current_rng
from .base import TensorOperation
from .transforms import _chain, np_dtype

__all__ = ["Fill", "Slice", "PadEnd", "Concatenate", "Mask", "Relational", "Unique", "RandomOrder", "not_random"]


class Fill(TensorOperation):
    """An array of the input's shape and dtype, every element `fill_value`."""

    def __init__(self, fill_value: Any) -> None:
        if not isinstance(fill_value, (int, float, bool, str, bytes, np.generic)):
            raise TypeError(f"Fill: fill_value must be a number, bool or string, got {type(fill_value).__name__}")
        self.fill_value = fill_value

    def _apply(self, x: Any) -> np.ndarray:
        arr = np.asarray(x)
        return np.full(arr.shape, self.fill_value, dtype=arr.dtype if arr.dtype.kind not in "US" else None)


class Slice(TensorOperation):
    """``x[slices]``: each slice an int, a list of indices, a Python ``slice``, None/Ellipsis (all)."""

    def __init__(self, *slices: Any) -> None:
        self.slices = tuple(slice(None) if s is None else (list(s) if isinstance(s, (list, tuple)) else s)
                            for s in slices)

    def _apply(self, x: Any) -> np.ndarray:
        arr = np.asarray(x)
        out = arr
        for axis, s in enumerate(self.slices):  # one axis at a time, as MindSpore's Slice does
            index = [slice(None)] * out.ndim
            index[axis] = [s] if isinstance(s, int) else s
            out = out[tuple(index)]
        return np.ascontiguousarray(out)


class PadEnd(TensorOperation):
    """Pads each axis at its end up to `pad_shape` (None keeps an axis) with `pad_value` (0 or "")."""

    def __init__(self, pad_shape: Sequence[int | None], pad_value: Any = None) -> None:
        self.pad_shape, self.pad_value = list(pad_shape), pad_value

    def _apply(self, x: Any) -> np.ndarray:
        arr = np.asarray(x)
        if len(self.pad_shape) != arr.ndim:
            raise ValueError(f"PadEnd: pad_shape {self.pad_shape} has {len(self.pad_shape)} entries for an input "
                             f"of rank {arr.ndim}")
        target = [s if p is None else p for s, p in zip(arr.shape, self.pad_shape)]
        if any(t < s for t, s in zip(target, arr.shape)):
            raise ValueError(f"PadEnd: pad_shape {self.pad_shape} is smaller than the input shape {arr.shape}")
        value = self.pad_value if self.pad_value is not None else ("" if arr.dtype.kind in "US" else 0)
        return np.pad(arr, [(0, t - s) for t, s in zip(target, arr.shape)], constant_values=value)


class Concatenate(TensorOperation):
    """The 1-D input with `prepend` before and `append` after it (along `axis`)."""

    def __init__(self, axis: int = 0, prepend: Any = None, append: Any = None) -> None:
        self.axis, self.prepend, self.append = axis, prepend, append

    def _apply(self, x: Any) -> np.ndarray:
        parts = [np.asarray(p) for p in (self.prepend, x, self.append) if p is not None]
        return np.concatenate(parts, axis=self.axis)


class Relational(enum.Enum):
    """The comparisons `Mask` applies."""

    EQ = "eq"
    NE = "ne"
    GT = "gt"
    GE = "ge"
    LT = "lt"
    LE = "le"


_COMPARE = {Relational.EQ: _op.eq, Relational.NE: _op.ne, Relational.GT: _op.gt, Relational.GE: _op.ge,
            Relational.LT: _op.lt, Relational.LE: _op.le}


class Mask(TensorOperation):
    """``input <operator> constant`` element-wise, as `dtype` (bool by default)."""

    def __init__(self, operator: Relational, constant: Any, dtype: Any = np.bool_) -> None:
        self.operator, self.constant, self.dtype = Relational(operator), constant, np_dtype(dtype)

    def _apply(self, x: Any) -> np.ndarray:
        return _COMPARE[self.operator](np.asarray(x), self.constant).astype(self.dtype)


class Unique(TensorOperation):
    """(unique values in order of first appearance, index of each element in them, count of each)."""

    def _apply(self, x: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        arr = np.asarray(x).reshape(-1)
        values, first, inverse, counts = np.unique(arr, return_index=True, return_inverse=True, return_counts=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return values[order], rank[inverse].astype(np.int32), counts[order].astype(np.int32)


class RandomOrder(TensorOperation):
    """The `transforms` applied one after another in a random order."""

    _num_inputs = None

    def __init__(self, transforms: Sequence[Callable[..., Any]]) -> None:
        self.transforms = list(transforms)
        if not self.transforms or not all(callable(t) for t in self.transforms):
            raise ValueError("RandomOrder: transforms must be a non-empty list of callables")

    def _apply(self, *args: Any) -> Any:
        order = current_rng().permutation(len(self.transforms))
        return _chain([self.transforms[i] for i in order], args)


def not_random(function: Callable) -> Callable:
    """Marks a Python function given to ``map`` as deterministic (MindSpore's ``not_random``); Spore
    seeds every sample's transforms itself, so this only sets the mark."""
    if not callable(function):
        raise TypeError(f"not_random: decorates a function, got {type(function).__name__}")
    function.random = False  # type: ignore[attr-defined]
    return function
