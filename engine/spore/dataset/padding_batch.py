"""``Dataset.padded_batch`` and ``Dataset.bucket_batch_by_length``: batches of rows of different shapes.

Both pad every row of a column to one shape before stacking, as MindSpore's C++ ``BatchOp::PadColumns``
does. ``pad_info`` maps a column to ``(pad_shape, pad_value)``; a ``None`` shape, or a ``None`` entry
in it, means "the largest in this batch" on that axis. ``pad_info={}`` pads every column to the
batch's largest shape with 0; a non-empty ``pad_info`` pads only the columns it names.

``bucket_batch_by_length`` sends each row to the bucket its length falls in
(``[0, b0), [b0, b1), ..., [b_last, inf)``), emits a bucket as a batch when it holds its batch size,
and at the end of the epoch emits the partial buckets in bucket order (unless ``drop_remainder``).
MindSpore replaces its ``pad_info=None`` by ``{}``, so there every column is padded to the longest
row of the batch; Spore does the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ._arrays import stack, to_array
from ._seeding import EpochCtx
from .batch_op import BatchDataset, BatchInfo
from .core import INFINITE, Dataset, Row, as_names, check_columns
from .errors import DatasetError, DatasetMapError, capture_failure
from .map_op import op_name

PadInfo = dict[str, tuple[Sequence[int | None] | None, Any]]


def _check_pad_info(pad_info: Any, columns: list[str], owner: str) -> PadInfo | None:
    if pad_info is None:
        return None
    if not isinstance(pad_info, dict):
        raise TypeError(f"{owner}: pad_info must be a dict {{column: (pad_shape, pad_value)}} or None, "
                        f"got {type(pad_info).__name__}")
    check_columns(columns, list(pad_info), f"{owner} pad_info")
    out: PadInfo = {}
    for name, spec in pad_info.items():
        if not isinstance(spec, (tuple, list)) or len(spec) != 2:
            raise TypeError(f"{owner}: pad_info[{name!r}] must be a (pad_shape, pad_value) pair, got {spec!r}")
        shape, value = spec
        if shape is not None:
            if not isinstance(shape, (list, tuple)) or not all(
                    d is None or (isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d > 0)
                    for d in shape):
                raise ValueError(f"{owner}: pad_info[{name!r}] shape must be a list of positive ints or None, "
                                 f"got {shape!r}")
            shape = [None if d is None else int(d) for d in shape]
        out[name] = (shape, value)
    return out


def pad_column(name: str, values: list[np.ndarray], shape: Sequence[int | None] | None, value: Any,
               batch_index: int, owner: str) -> np.ndarray:
    """Rows of one column padded at the end of each axis to ``shape`` (None: the largest row), stacked."""
    ndim = values[0].ndim
    for i, v in enumerate(values):
        if v.ndim != ndim:
            raise DatasetError(f"{owner}: batch {batch_index}: column {name!r} has rows of different ranks: "
                               f"{values[0].shape} (row 0) and {v.shape} (row {i}); padding keeps the rank")
    longest = [max(v.shape[d] for v in values) for d in range(ndim)]
    if shape is None:
        target = longest
    else:
        if len(shape) != ndim:
            raise DatasetError(f"{owner}: batch {batch_index}: pad_info shape {list(shape)} for column {name!r} "
                               f"has {len(shape)} dimension(s) but its rows have {ndim} (shape {values[0].shape})")
        target = [longest[d] if s is None else s for d, s in enumerate(shape)]
    for i, v in enumerate(values):
        if any(a > t for a, t in zip(v.shape, target, strict=True)):
            raise DatasetError(f"{owner}: batch {batch_index}: row {i} of column {name!r} has shape {v.shape}, "
                               f"larger than the pad shape {target}",
                               hint="give a larger pad_shape, or None on that axis to pad to the longest row")
    dtype = values[0].dtype
    fill = 0 if value is None else value
    if dtype.kind in "US":
        fill = "" if value is None or value == 0 else value
        dtype = np.result_type(*[v.dtype for v in values], np.asarray(fill).dtype)
    out = np.full([len(values), *target], fill, dtype=dtype)
    for i, v in enumerate(values):
        out[(i, *[slice(0, s) for s in v.shape])] = v
    return out


def _pad_batch(names: Sequence[str], columns: dict[str, list[np.ndarray]], pad_info: PadInfo | None,
               batch_index: int, owner: str) -> Row:
    out = []
    for n in names:
        values = columns[n]
        if pad_info is not None and (not pad_info or n in pad_info):
            shape, value = pad_info.get(n, (None, 0))
            out.append(pad_column(n, values, shape, value, batch_index, owner))
        else:
            out.append(stack(n, values, batch_index))
    return tuple(out)


class PaddedBatchDataset(BatchDataset):
    """The node ``padded_batch`` builds: ``batch`` with every row padded by ``pad_info`` first."""

    def __init__(self, input_dataset: Dataset, batch_size: int | Callable[[BatchInfo], int],
                 drop_remainder: bool = False, num_parallel_workers: int | None = None,
                 pad_info: dict | None = None) -> None:
        super().__init__(input_dataset, batch_size, drop_remainder, None, None, None, where=None)
        self._pad_info = _check_pad_info(pad_info, input_dataset.get_col_names(), "padded_batch")
        self.num_parallel_workers = num_parallel_workers

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        from itertools import islice

        names = self.children[0].get_col_names()
        rows = self.children[0]._rows(ctx.child(0))
        try:
            for batch_num in range(1 << 62):
                size = self._size_of(BatchInfo(batch_num, ctx.epoch))
                chunk = list(islice(rows, size))
                if not chunk or (self._drop and len(chunk) < size):
                    return
                columns = dict(zip(names, (list(c) for c in zip(*chunk)), strict=True))
                yield _pad_batch(names, columns, self._pad_info, batch_num, "padded_batch")
        finally:
            rows.close()  # type: ignore[attr-defined]


class BucketBatchByLengthDataset(Dataset):
    """The node ``bucket_batch_by_length`` builds (see the module docstring)."""

    def __init__(self, input_dataset: Dataset, column_names: Any, bucket_boundaries: Sequence[int],
                 bucket_batch_sizes: Sequence[int], element_length_function: Callable[..., Any] | None,
                 pad_info: dict | None, pad_to_bucket_boundary: bool, drop_remainder: bool) -> None:
        super().__init__([input_dataset])
        owner = "bucket_batch_by_length"
        have = input_dataset.get_col_names()
        self._len_cols = as_names(column_names, f"{owner} column_names") or []
        self._len_idx = check_columns(have, self._len_cols, f"{owner} column_names")
        bounds = list(bucket_boundaries)
        if not bounds or not all(isinstance(b, (int, np.integer)) and not isinstance(b, bool) and b > 0
                                 for b in bounds):
            raise ValueError(f"{owner}: bucket_boundaries must be a non-empty list of positive ints, got {bounds!r}")
        if any(a >= b for a, b in zip(bounds, bounds[1:])):
            raise ValueError(f"{owner}: bucket_boundaries must be strictly increasing, got {bounds!r}")
        sizes = list(bucket_batch_sizes)
        if len(sizes) != len(bounds) + 1:
            raise ValueError(f"{owner}: bucket_batch_sizes needs len(bucket_boundaries) + 1 = {len(bounds) + 1} "
                             f"entries, got {len(sizes)}")
        if not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s > 0 for s in sizes):
            raise ValueError(f"{owner}: bucket_batch_sizes must be positive ints, got {sizes!r}")
        if element_length_function is None and len(self._len_cols) != 1:
            raise ValueError(f"{owner}: without element_length_function, column_names must name exactly one "
                             f"column (its first dimension is the length), got {self._len_cols}")
        if element_length_function is not None and not callable(element_length_function):
            raise TypeError(f"{owner}: element_length_function must be callable, got {element_length_function!r}")
        self._bounds, self._sizes = [int(b) for b in bounds], [int(s) for s in sizes]
        self._fn = element_length_function
        self._pad_info = _check_pad_info({} if pad_info is None else pad_info, have, owner) or {}
        self._to_boundary, self._drop = bool(pad_to_bucket_boundary), bool(drop_remainder)

    def _columns(self) -> list[str]:
        return self.children[0].get_col_names()

    def _size(self) -> int | None:
        return INFINITE if self.children[0].get_dataset_size() == INFINITE else None

    def _length(self, row: Row, index: int) -> int:
        args = [row[i] for i in self._len_idx]
        if self._fn is None:
            a = args[0]
            if a.ndim == 0:
                raise DatasetError(f"bucket_batch_by_length: row {index}: column {self._len_cols[0]!r} is a scalar, "
                                   "so it has no length; give element_length_function")
            return int(a.shape[0])
        try:
            n = self._fn(*args)
        except Exception as e:
            f = capture_failure(index, e)
            name = op_name(self._fn)
            raise DatasetMapError(f"bucket_batch_by_length: element_length_function {name} raised "
                                  f"{type(e).__name__}: {e}\n  on row {index}, input column(s) {self._len_cols}",
                                  loc=f.loc, operation=name, columns=tuple(self._len_cols), index=index) from e
        n = to_array(n)
        if n.size != 1 or n.dtype.kind not in "iu":
            raise DatasetError(f"bucket_batch_by_length: element_length_function returned {n!r} on row {index}; "
                               "it must return an int")
        if int(n) < 0:
            raise DatasetError(f"bucket_batch_by_length: element_length_function returned {int(n)} on row {index}; "
                               "lengths must be non-negative")
        return int(n)

    def _bucket_pad_info(self, bucket: int, batch_index: int) -> PadInfo:
        if not self._to_boundary:
            return self._pad_info
        if bucket == len(self._bounds):
            raise DatasetError(f"bucket_batch_by_length: batch {batch_index}: rows fell in the last bucket "
                               f"(length >= {self._bounds[-1]}), which has no boundary to pad to "
                               "with pad_to_bucket_boundary=True",
                               hint="add a larger boundary to bucket_boundaries")
        edge = self._bounds[bucket] - 1
        return {n: (None if shape is None else [edge if d is None else d for d in shape], v)
                for n, (shape, v) in self._pad_info.items()}

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        names = self._columns()
        rows = self.children[0]._rows(ctx.child(0))
        buckets: list[list[Row]] = [[] for _ in self._sizes]
        batch_num = 0

        def emit(b: int) -> Row:
            nonlocal batch_num
            chunk, buckets[b] = buckets[b], []
            columns = dict(zip(names, (list(c) for c in zip(*chunk)), strict=True))
            out = _pad_batch(names, columns, self._bucket_pad_info(b, batch_num), batch_num,
                             "bucket_batch_by_length")
            batch_num += 1
            return out

        try:
            for index, row in enumerate(rows):
                b = int(np.searchsorted(self._bounds, self._length(row, index), side="right"))
                buckets[b].append(row)
                if len(buckets[b]) == self._sizes[b]:
                    yield emit(b)
            if not self._drop:
                for b in range(len(buckets)):
                    if buckets[b]:
                        yield emit(b)
        finally:
            rows.close()  # type: ignore[attr-defined]
