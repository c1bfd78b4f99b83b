"""Turning what user code returns into column arrays, batches and iterator outputs.

NumPy 2 made ``np.array(x, copy=False)`` raise when a copy is unavoidable, which is always the
case for a Python ``int`` label; MindSpore 2.10 trips on exactly that ("Unable to avoid copy while
creating an array as requested"). Here every value goes through ``np.asarray``, which copies only
when it must, so Python scalars, NumPy scalars, lists, PIL images and Tensors all become arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common import dtype as mstype
from .errors import DatasetError


def to_array(value: Any, column: str | None = None, position: int | None = None) -> np.ndarray:
    """One column value as an ndarray (0-d for scalars); refuses ragged or object data by name."""
    if isinstance(value, np.ndarray):
        arr = value
    elif hasattr(value, "asnumpy"):  # a spore Tensor
        arr = value.asnumpy()
    else:
        arr = np.asarray(value)  # Python/NumPy scalars, lists, bytes, PIL images
    if arr.dtype == object:
        where = f"column {column!r}" if column else "a column"
        at = f" of sample {position}" if position is not None else ""
        raise DatasetError(
            f"{where}{at}: cannot make an array from {type(value).__name__} data "
            "(ragged nested lists, or Python objects)",
            hint="return NumPy arrays of one shape per column, or a tuple with one value per column",
        )
    return arr


def stack(column: str, values: list[np.ndarray], batch_index: int) -> np.ndarray:
    """Stack one column of a batch; rows of different shapes get an error naming them."""
    first = values[0].shape
    for i, v in enumerate(values):
        if v.shape != first:
            raise DatasetError(
                f"batch {batch_index}: column {column!r} has rows of different shapes: "
                f"{first} (row 0) and {v.shape} (row {i}); a batch stacks rows, so every row of a "
                "column must have one shape",
                hint="resize or pad in a map() before batch(), or give batch() a per_batch_map that pads",
            )
    return np.stack(values)


def _widened(arr: np.ndarray) -> np.ndarray:
    """Unsigned types Spore has no dtype for become the smallest signed type holding them."""
    if arr.dtype in mstype._BY_NP or arr.dtype.kind != "u":
        return arr
    for cand in (np.int16, np.int32, np.int64):
        if np.dtype(cand).itemsize > arr.dtype.itemsize and np.dtype(cand) in mstype._BY_NP:
            return arr.astype(cand)
    return arr.astype(np.int64)


def to_output(arr: np.ndarray, output_numpy: bool, do_copy: bool) -> Any:
    """An iterator's value: the ndarray itself, or a spore Tensor (types without a Spore dtype stay NumPy)."""
    if do_copy and arr.base is not None:
        arr = arr.copy()  # a view into the user's source data must not be mutated through us
    if output_numpy or arr.dtype.kind in "OUSV":
        return arr
    arr = _widened(arr)
    if arr.dtype not in mstype._BY_NP:  # complex, datetime, ...: no Spore dtype, hand out NumPy
        return arr
    from ..tensor import Tensor

    return Tensor._wrap(arr)
