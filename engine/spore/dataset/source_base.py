"""What every random-accessible source shares: sampling, sharding and parallel row reads.

A source says how many rows it has and hands out a *reader*, a small picklable callable mapping a
row index to the row's values. The base turns the sampler's indices for the epoch into rows —
inline, or through an ``OrderedPool`` of threads (or, for ``GeneratorDataset``, processes) when
``num_parallel_workers > 1``. Errors raised by user code in a reader (a ``__getitem__`` that
fails) are reported with the source, the index and the user's line.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ._arrays import to_array
from ._parallel import OrderedPool
from ._seeding import EpochCtx
from .config import get_num_parallel_workers
from .core import Dataset, Row
from .errors import DatasetError, Failure, capture_failure, portable
from .samplers import Sampler, resolve_sampler


def read_row(reader: Callable[[int], Sequence[Any]], item: tuple[int, int, tuple[str, ...]]) -> Any:
    """Read row ``index`` with ``reader`` and make its values arrays; a Failure if the reader raised."""
    position, index, names = item
    try:
        values = reader(index)
        if len(values) != len(names):
            raise DatasetError(f"row {index} has {len(values)} value(s) but the columns are {list(names)}",
                               hint="return a tuple with one value per column")
        return tuple(to_array(v, names[i], index) for i, v in enumerate(values))
    except Exception as e:
        import multiprocessing

        f = capture_failure(index, e)
        return portable(f) if multiprocessing.parent_process() is not None else f


class MappableSource(Dataset):
    """Base of the sources whose rows can be read by index."""

    _processes_allowed = False  # only GeneratorDataset may read in processes (MindSpore's rule)

    def __init__(self, *, column_names: list[str], num_samples: int | None, shuffle: bool | None, sampler: Any,
                 num_shards: int | None, shard_id: int | None, num_parallel_workers: int | None,
                 python_multiprocessing: bool = False) -> None:
        super().__init__((), num_parallel_workers)
        self._names = list(column_names)
        self.sampler: Sampler = resolve_sampler(sampler, shuffle, num_samples, num_shards, shard_id,
                                                type(self).__name__)
        workers = get_num_parallel_workers() if num_parallel_workers is None else num_parallel_workers
        if not isinstance(workers, int) or workers < 1:
            raise ValueError(f"{type(self).__name__}: num_parallel_workers must be a positive int, "
                             f"got {num_parallel_workers!r}")
        self._workers = workers
        self._processes = bool(python_multiprocessing) and self._processes_allowed and workers > 1
        self._pool: OrderedPool | None = None
        self._pool_lock = threading.Lock()
        bind = getattr(self.sampler, "_bind_source", None)
        if bind is not None:  # a sampler that needs the rows' labels (PKSampler)
            bind(self)

    # --- what subclasses provide -------------------------------------------------------------
    def _num_rows(self) -> int:
        raise NotImplementedError

    def _reader(self) -> Callable[[int], Sequence[Any]]:
        raise NotImplementedError

    # --- Dataset -----------------------------------------------------------------------------
    def _columns(self) -> list[str]:
        return self._names

    def _size(self) -> int | None:
        n = self.sampler._count(self._num_rows())
        if n is None:
            return len(self.sampler._indices(self._num_rows(), EpochCtx(0, 0, 0)))
        return n

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        indices = self.sampler._indices(self._num_rows(), ctx)
        names = tuple(self._names)
        items = ((pos, int(i), names) for pos, i in enumerate(indices))
        if self._workers > 1:
            results: Iterator[Any] = self._get_pool().imap(items)
        else:
            reader = self._reader()
            results = (read_row(reader, it) for it in items)
        try:
            for res in results:
                if isinstance(res, Failure):
                    raise self._error(res) from res.exc
                yield res
        finally:
            results.close()  # type: ignore[attr-defined]

    def _error(self, f: Failure) -> DatasetError:
        if isinstance(f.exc, DatasetError):
            return DatasetError(f"{type(self).__name__}: {f.exc.reason}", loc=f.loc, hint=f.exc.hint)
        return DatasetError(f"{type(self).__name__}: reading row {f.position} raised {type(f.exc).__name__}: {f.exc}",
                            loc=f.loc)

    def _get_pool(self) -> OrderedPool:
        with self._pool_lock:
            if self._pool is None:
                self._pool = OrderedPool(read_row, self._reader(), self._workers, self._processes,
                                         type(self).__name__, getattr(self, "_where", None))
            return self._pool

    def _with_sampler(self, sampler: Sampler) -> MappableSource:
        """A copy of this source reading through ``sampler`` (used by split)."""
        other = copy.copy(self)
        Dataset.__init__(other, (), self.num_parallel_workers)
        other.sampler = sampler
        other._pool, other._pool_lock = None, threading.Lock()
        return other


class ArrayReader:
    """A reader over in-memory columns (arrays or lists indexed by row): picklable, cheap."""

    def __init__(self, columns: Sequence[Any]) -> None:
        self.columns = list(columns)

    def __call__(self, index: int) -> tuple[Any, ...]:
        return tuple(c[index] for c in self.columns)


def column_length(columns: Sequence[Any], names: Sequence[str], owner: str) -> int:
    """The common length of ``columns``; different lengths get an error naming them."""
    lengths = [len(c) for c in columns]
    if len(set(lengths)) > 1:
        detail = ", ".join(f"{n}: {k}" for n, k in zip(names, lengths, strict=True))
        raise DatasetError(f"{owner}: columns have different lengths ({detail})")
    return lengths[0] if lengths else 0
