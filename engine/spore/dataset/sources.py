"""Python-side sources: ``GeneratorDataset`` (any callable, iterable or indexable source) and
``NumpySlicesDataset`` (arrays, lists, dicts or a pandas DataFrame sliced along the first axis).

Values may be NumPy arrays, NumPy scalars or plain Python numbers: a Python ``int`` label becomes a
0-d int64 array (MindSpore 2.10 fails on it under NumPy 2, see ``_arrays``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import user_location
from ._arrays import stack, to_array
from ._seeding import EpochCtx
from .core import Row, as_names
from .errors import DatasetError, capture_failure
from .source_base import ArrayReader, MappableSource, column_length


def _np_dtype(t: Any) -> np.dtype:
    if isinstance(t, mstype.DType):
        return t.np
    try:
        return mstype.to_dtype(t).np
    except TypeError:
        return np.dtype(t)


def as_row(value: Any, ncols: int) -> tuple[Any, ...]:
    """A source's item as one value per column: a tuple is the row; a list is the row only when
    it has exactly one value per column of several; anything else is the single column's value."""
    if isinstance(value, tuple):
        return value
    if isinstance(value, list) and ncols > 1 and len(value) == ncols:
        return tuple(value)
    return (value,)


class SourceReader:
    """Reads item ``index`` of a user's random-accessible source as a row of (cast) arrays."""

    def __init__(self, source: Any, names: Sequence[str], types: Sequence[np.dtype] | None) -> None:
        self.source, self.names, self.types = source, tuple(names), types

    def convert(self, value: Any, index: int) -> tuple[np.ndarray, ...]:
        row = as_row(value, len(self.names))
        if len(row) != len(self.names):
            raise DatasetError(f"row {index} has {len(row)} value(s) but column_names has {len(self.names)}: "
                               f"{list(self.names)}", hint="return a tuple with one value per column")
        arrays = tuple(to_array(v, self.names[i], index) for i, v in enumerate(row))
        if self.types:
            arrays = tuple(a if a.dtype == t else a.astype(t) for a, t in zip(arrays, self.types, strict=True))
        return arrays

    def __call__(self, index: int) -> tuple[np.ndarray, ...]:
        return self.convert(self.source[index], index)


class GeneratorDataset(MappableSource):
    """A dataset from Python: a generator function, an iterable, or an object with
    ``__getitem__`` and ``__len__``. Only the last can be shuffled, sampled, sharded or read by
    several workers. With ``python_multiprocessing=True`` (the default) the workers are spawned
    processes, so the source must pickle and each worker holds its own copy of it; threads
    (``python_multiprocessing=False``) share it."""

    _processes_allowed = True

    def __init__(self, source: Any, column_names: str | Sequence[str] | None = None, column_types: Any = None,
                 schema: Any = None, num_samples: int | None = None, num_parallel_workers: int = 1,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, python_multiprocessing: bool = True, max_rowsize: Any = None,
                 batch_sampler: Any = None, collate_fn: Callable[..., Any] | None = None) -> None:
        if schema is not None:
            raise DatasetError("GeneratorDataset: schema is not supported by Spore",
                               hint="give column_names (and column_types) instead")
        names = as_names(column_names, "GeneratorDataset column_names")
        if names is None:
            raise DatasetError("GeneratorDataset needs column_names, e.g. column_names=['data', 'label']")
        self._types = [_np_dtype(t) for t in column_types] if column_types is not None else None
        if self._types is not None and len(self._types) != len(names):
            raise ValueError(f"GeneratorDataset: {len(self._types)} column_types for {len(names)} columns")
        self.source = source
        self._random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        if not self._random_access:
            if not callable(source) and not hasattr(source, "__iter__"):
                raise TypeError("GeneratorDataset: source must be a generator function, an iterable, or an "
                                f"object with __getitem__ and __len__; got {type(source).__name__}")
            if shuffle or sampler is not None or num_shards is not None or batch_sampler is not None:
                raise DatasetError("GeneratorDataset: shuffle, sampler, num_shards and batch_sampler need a "
                                   "random-accessible source (with __getitem__ and __len__)",
                                   hint="wrap the data in a class with __getitem__/__len__, or use .shuffle(n)")
            shuffle = False
        if batch_sampler is not None and (sampler is not None or shuffle or num_shards is not None):
            raise DatasetError("GeneratorDataset: batch_sampler excludes sampler, shuffle and num_shards")
        super().__init__(column_names=names, num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id, num_parallel_workers=num_parallel_workers,
                         python_multiprocessing=python_multiprocessing)
        self._num_samples = num_samples
        self._batch_sampler, self._collate = batch_sampler, collate_fn
        self._one_shot_used = False
        self._where = user_location()

    def _num_rows(self) -> int:
        return len(self.source)

    def _reader(self) -> SourceReader:
        return SourceReader(self.source, self._names, self._types)

    def _size(self) -> int | None:
        if self._batch_sampler is not None:
            return len(self._batch_sampler) if hasattr(self._batch_sampler, "__len__") else None
        return super()._size() if self._random_access else None

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        if self._batch_sampler is not None:
            return self._batches()
        if self._random_access:
            return super()._rows(ctx)
        return self._iterate()

    def _iterate(self) -> Iterator[Row]:
        src = self.source
        if callable(src) and not hasattr(src, "__iter__"):
            it = iter(src())
        else:
            it = iter(src)
            if it is src:  # a one-shot iterator (e.g. a generator object): it cannot restart
                if self._one_shot_used:
                    raise DatasetError("GeneratorDataset: the source is an iterator that was already consumed "
                                       "by an earlier epoch (or by get_dataset_size)",
                                       hint="pass the generator *function* (source=gen, not gen()), or an "
                                            "iterable such as a list, so each epoch starts over")
                self._one_shot_used = True
        reader = self._reader()
        if self._num_samples:
            it = islice(it, self._num_samples)
        pos = 0
        while True:
            try:
                value = next(it)
            except StopIteration:
                return
            except Exception as e:
                f = capture_failure(pos, e)
                raise DatasetError(f"GeneratorDataset: the source raised {type(e).__name__}: {e} "
                                   f"while producing row {pos}", loc=f.loc) from e
            yield reader.convert(value, pos)
            pos += 1

    def _batches(self) -> Iterator[Row]:
        reader = self._reader()
        for b, indices in enumerate(self._batch_sampler):
            rows = [reader(int(i)) for i in indices]
            if self._collate is not None:
                out = self._collate(*[list(c) for c in zip(*rows)])
                out = out if isinstance(out, tuple) else (out,)
                yield tuple(to_array(v, n) for v, n in zip(out, self._names, strict=True))
            else:
                yield tuple(stack(n, list(c), b) for n, c in zip(self._names, zip(*rows), strict=True))


def _column_from(value: Any, name: str) -> Any:
    """One column of NumpySlicesDataset: an array sliced on its first axis, or a list of rows."""
    if hasattr(value, "to_numpy") and not isinstance(value, np.ndarray):  # pandas Series
        value = value.to_numpy()
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            if all(isinstance(v, str) for v in value):
                return value.astype(str)
            return [to_array(v, name, i) for i, v in enumerate(value)]
        if value.ndim == 0:
            raise DatasetError(f"NumpySlicesDataset: column {name!r} is a scalar; it needs a first axis to slice")
        return value
    if isinstance(value, (list, tuple)):
        try:
            arr = np.asarray(value)
        except ValueError:  # ragged: keep one array per row
            arr = np.empty(0, dtype=object)
        if arr.dtype != object and arr.ndim > 0:
            return arr
        return [to_array(v, name, i) for i, v in enumerate(value)]
    raise DatasetError(f"NumpySlicesDataset: column {name!r} is a {type(value).__name__}; expected an array, a "
                       "list or a pandas Series")


def slices_of(data: Any, column_names: Sequence[str] | None) -> tuple[list[str], list[Any]]:
    """Column names and columns of NumpySlicesDataset's ``data`` (list, tuple, dict, array, DataFrame)."""
    if hasattr(data, "columns") and hasattr(data, "iloc"):  # pandas DataFrame
        names = [str(c) for c in data.columns]
        values = [data[c] for c in data.columns]
    elif isinstance(data, dict):
        names = [str(k) for k in data]
        values = list(data.values())
    elif isinstance(data, tuple):
        names = [f"column_{i}" for i in range(len(data))]
        values = list(data)
    elif isinstance(data, (list, np.ndarray)):
        names, values = ["column_0"], [data]
    else:
        raise TypeError("NumpySlicesDataset: data must be a list, tuple, dict, NumPy array or pandas DataFrame, "
                        f"got {type(data).__name__}")
    if column_names is not None:
        given = as_names(column_names, "NumpySlicesDataset column_names") or []
        if len(given) != len(values):
            raise ValueError(f"NumpySlicesDataset: {len(given)} column_names for {len(values)} column(s)")
        names = given
    return names, [_column_from(v, n) for v, n in zip(values, names, strict=True)]


class NumpySlicesDataset(MappableSource):
    """A dataset whose rows are slices of in-memory data along its first axis.

    ``data`` is a list or array (one column), a tuple (one column per element), a dict (column
    name to column) or a pandas DataFrame (its columns, by name).
    """

    def __init__(self, data: Any, column_names: str | Sequence[str] | None = None, num_samples: int | None = None,
                 num_parallel_workers: int = 1, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None) -> None:
        names, columns = slices_of(data, [column_names] if isinstance(column_names, str) else column_names)
        self._n = column_length(columns, names, "NumpySlicesDataset")
        self._data = columns
        super().__init__(column_names=names, num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id, num_parallel_workers=num_parallel_workers)

    _spore_init_drop = ("data",)  # serialize() reads the converted columns, so the original data can be freed

    def _spore_state_param(self, name: str) -> Any:
        return dict(zip(self._names, self._data, strict=True))

    def _num_rows(self) -> int:
        return self._n

    def _reader(self) -> ArrayReader:
        return ArrayReader(self._data)
