"""The row-level pipeline operations: shuffle, repeat, take, skip, zip, concat, rename, project,
filter, prefetch and split. Each is a small node that rewrites its children's row stream.
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ..common import seed as _seed
from ..errors import SourceLoc
from ._seeding import EpochCtx
from .core import INFINITE, Dataset, Row, as_names, check_columns
from .errors import DatasetError, DatasetMapError, capture_failure
from .map_op import op_name


def _count_arg(count: Any, what: str, allow_all: bool) -> int:
    if not isinstance(count, (int, np.integer)) or isinstance(count, bool) or count < (-1 if allow_all else 0):
        raise ValueError(f"{what}: count must be {'-1 or ' if allow_all else ''}a non-negative int, got {count!r}")
    return int(count)


class _Unary(Dataset):
    def __init__(self, child: Dataset) -> None:
        super().__init__([child])

    @property
    def child(self) -> Dataset:
        return self.children[0]

    def _columns(self) -> list[str]:
        return self.child.get_col_names()

    def _size(self) -> int | None:
        return self.child.get_dataset_size()


class ShuffleDataset(_Unary):
    """MindSpore's buffer shuffle: emit a random row of the buffer, refill its slot from the input."""

    def __init__(self, child: Dataset, buffer_size: int) -> None:
        super().__init__(child)
        if not isinstance(buffer_size, (int, np.integer)) or isinstance(buffer_size, bool) or buffer_size < 2:
            raise ValueError(f"shuffle: buffer_size must be an int >= 2, got {buffer_size!r}")
        self.buffer_size = int(buffer_size)

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        draws = _uniforms(ctx.rng())
        it = self.child._rows(ctx.child(0))
        try:
            buf = list(itertools.islice(it, self.buffer_size))
            for row in it:
                j = int(next(draws) * len(buf))
                yield buf[j]
                buf[j] = row
            while buf:
                j = int(next(draws) * len(buf))
                buf[j], buf[-1] = buf[-1], buf[j]
                yield buf.pop()
        finally:
            it.close()  # type: ignore[attr-defined]


def _uniforms(rng: np.random.Generator, block: int = 1024) -> Iterator[float]:
    """Uniform draws in [0, 1), fetched from the generator a block at a time (one call per row is slow)."""
    while True:
        yield from rng.random(block).tolist()


class RepeatDataset(_Unary):
    """The child's rows ``count`` times over; each repetition reshuffles like a new epoch would."""

    def __init__(self, child: Dataset, count: int | None) -> None:
        super().__init__(child)
        self.count = -1 if count is None else _count_arg(count, "repeat", allow_all=True)
        if self.count == 0:
            raise ValueError("repeat: count must be positive, or None/-1 for forever")

    def get_repeat_count(self) -> int:
        return self.count

    def _size(self) -> int | None:
        n = self.child.get_dataset_size()
        return INFINITE if self.count == -1 or n == INFINITE else n * self.count

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        for r in itertools.count() if self.count == -1 else range(self.count):
            produced = False
            for row in self.child._rows(ctx.child(r)):
                produced = True
                yield row
            if not produced:  # repeating an empty dataset forever would hang
                return


class TakeDataset(_Unary):
    """The first ``count`` rows."""

    def __init__(self, child: Dataset, count: int) -> None:
        super().__init__(child)
        self.count = _count_arg(count, "take", allow_all=True)

    def _size(self) -> int | None:
        n = self.child.get_dataset_size()
        if self.count == -1:
            return n
        return self.count if n == INFINITE else min(n, self.count)

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        it = self.child._rows(ctx.child(0))
        try:
            yield from (it if self.count == -1 else itertools.islice(it, self.count))
        finally:
            it.close()  # type: ignore[attr-defined]


class SkipDataset(_Unary):
    """All rows after the first ``count``."""

    def __init__(self, child: Dataset, count: int) -> None:
        super().__init__(child)
        self.count = _count_arg(count, "skip", allow_all=False)

    def _size(self) -> int | None:
        n = self.child.get_dataset_size()
        return INFINITE if n == INFINITE else max(0, n - self.count)

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        yield from itertools.islice(self.child._rows(ctx.child(0)), self.count, None)


class ZipDataset(Dataset):
    """Rows of several datasets side by side; ends with the shortest."""

    def __init__(self, datasets: Sequence[Dataset]) -> None:
        for d in datasets:
            if not isinstance(d, Dataset):
                raise TypeError(f"zip: expected datasets, got {type(d).__name__}")
        super().__init__(datasets)
        cols = [c for d in datasets for c in d.get_col_names()]
        dup = sorted({c for c in cols if cols.count(c) > 1})
        if dup:
            raise DatasetError(f"zip: column name(s) {dup} appear in more than one dataset",
                               hint="rename() the columns of one dataset first")
        self._cols = cols

    def _columns(self) -> list[str]:
        return self._cols

    def _size(self) -> int | None:
        sizes = [d.get_dataset_size() for d in self.children]
        finite = [n for n in sizes if n != INFINITE]
        return min(finite) if finite else INFINITE

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        its = [d._rows(ctx.child(i)) for i, d in enumerate(self.children)]
        try:
            for parts in zip(*its):
                yield tuple(a for part in parts for a in part)
        finally:
            for it in its:
                it.close()  # type: ignore[attr-defined]


class ConcatDataset(Dataset):
    """The rows of each dataset in turn; all must have the same columns."""

    def __init__(self, datasets: Sequence[Dataset]) -> None:
        for d in datasets:
            if not isinstance(d, Dataset):
                raise TypeError(f"concat: expected datasets, got {type(d).__name__}")
        super().__init__(datasets)
        names = datasets[0].get_col_names()
        for d in datasets[1:]:
            if d.get_col_names() != names:
                raise DatasetError(f"concat: column names differ: {names} vs {d.get_col_names()}",
                                   hint="rename()/project() the datasets to the same columns first")
        self._cols = names

    def _columns(self) -> list[str]:
        return self._cols

    def _size(self) -> int | None:
        sizes = [d.get_dataset_size() for d in self.children]
        return INFINITE if INFINITE in sizes else sum(sizes)

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        for i, d in enumerate(self.children):
            yield from d._rows(ctx.child(i))


class RenameDataset(_Unary):
    """The same rows under new column names."""

    def __init__(self, child: Dataset, input_columns: Any, output_columns: Any) -> None:
        super().__init__(child)
        src = as_names(input_columns, "rename input_columns") or []
        dst = as_names(output_columns, "rename output_columns") or []
        if len(src) != len(dst):
            raise ValueError(f"rename: {len(src)} input_columns but {len(dst)} output_columns")
        have = child.get_col_names()
        check_columns(have, src, "rename")
        mapping = dict(zip(src, dst, strict=True))
        self._cols = [mapping.get(c, c) for c in have]
        if len(set(self._cols)) != len(self._cols):
            raise DatasetError(f"rename: the result {self._cols} names a column twice")

    def _columns(self) -> list[str]:
        return self._cols

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        return self.child._rows(ctx.child(0))


class ProjectDataset(_Unary):
    """Only the given columns, in the given order."""

    def __init__(self, child: Dataset, columns: Any) -> None:
        super().__init__(child)
        self._cols = as_names(columns, "project columns") or []
        self._idx = check_columns(child.get_col_names(), self._cols, "project")

    def _columns(self) -> list[str]:
        return self._cols

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        for row in self.child._rows(ctx.child(0)):
            yield tuple(row[i] for i in self._idx)


class FilterDataset(_Unary):
    """Only the rows for which the predicate holds."""

    def __init__(self, child: Dataset, predicate: Callable[..., Any], input_columns: Any,
                 where: SourceLoc | None) -> None:
        super().__init__(child)
        if not callable(predicate):
            raise TypeError(f"filter: predicate must be callable, got {predicate!r}")
        self._pred, self._where = predicate, where
        have = child.get_col_names()
        self._in_cols = as_names(input_columns, "filter input_columns") or list(have)
        self._idx = check_columns(have, self._in_cols, "filter input_columns")

    def _size(self) -> int | None:
        return None

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        for pos, row in enumerate(self.child._rows(ctx.child(0))):
            args = [row[i] for i in self._idx]
            try:
                keep = bool(np.all(self._pred(*args)))
            except Exception as e:
                f = capture_failure(pos, e)
                raise DatasetMapError(
                    f"filter: predicate {op_name(self._pred)} raised {type(e).__name__}: {e}\n"
                    f"  on sample {pos} of epoch {ctx.epoch}, input column(s) {self._in_cols}",
                    loc=f.loc or self._where, operation=op_name(self._pred), columns=tuple(self._in_cols),
                    index=pos) from e
            if keep:
                yield row


_END, _ERR = object(), object()


class PrefetchDataset(_Unary):
    """Runs the child in a background thread, up to ``buffer_size`` rows ahead of the consumer."""

    def __init__(self, child: Dataset, buffer_size: int | None) -> None:
        super().__init__(child)
        from .config import get_prefetch_size

        size = get_prefetch_size() if buffer_size is None else buffer_size
        if not isinstance(size, (int, np.integer)) or isinstance(size, bool) or size < 1:
            raise ValueError(f"prefetch: buffer_size must be a positive int, got {buffer_size!r}")
        self.buffer_size = int(size)

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        q: queue.Queue[tuple[object, Any]] = queue.Queue(maxsize=self.buffer_size)
        stop = threading.Event()

        def put(item: tuple[object, Any]) -> bool:
            while not stop.is_set():
                try:
                    q.put(item, timeout=0.05)
                    return True
                except queue.Full:
                    continue
            return False

        def produce() -> None:
            it = self.child._rows(ctx.child(0))
            try:
                for row in it:
                    if not put((None, row)):
                        return
                put((_END, None))
            except BaseException as e:  # handed to the consumer, raised there
                put((_ERR, e))
            finally:
                it.close()  # type: ignore[attr-defined]

        worker = threading.Thread(target=produce, name="spore-prefetch", daemon=True)
        worker.start()
        try:
            while True:
                kind, value = q.get()
                if kind is _END:
                    return
                if kind is _ERR:
                    raise value
                yield value
        finally:
            stop.set()


class PositionSubset(_Unary):
    """The rows of the child at the given positions of its stream (split of a non-mappable dataset)."""

    def __init__(self, child: Dataset, positions: np.ndarray) -> None:
        super().__init__(child)
        self._positions = frozenset(int(p) for p in positions)

    def _size(self) -> int | None:
        return len(self._positions)

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        for pos, row in enumerate(self.child._rows(ctx.child(0))):
            if pos in self._positions:
                yield row


def split_sizes(sizes: Sequence[int] | Sequence[float], n: int) -> list[int]:
    """MindSpore's split sizes: exact ints summing to ``n``, or fractions rounded then adjusted."""
    sizes = list(sizes)
    if not sizes:
        raise ValueError("split: sizes is empty")
    if all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in sizes):
        if any(s <= 0 for s in sizes) or sum(sizes) != n:
            raise DatasetError(f"split: sizes {sizes} must be positive and sum to the dataset size {n}")
        return [int(s) for s in sizes]
    if not all(isinstance(s, float) and 0 < s <= 1 for s in sizes) or abs(sum(sizes) - 1) > 1e-6:
        raise ValueError(f"split: float sizes must lie in (0, 1] and sum to 1, got {sizes}")
    out = [round(s * n) for s in sizes]
    if any(s == 0 for s in out):
        raise DatasetError(f"split: fractions {sizes} of {n} rows give an empty split {out}")
    diff = n - sum(out)
    if diff > 0:
        out[0] += diff
    elif diff < 0:
        for i, s in enumerate(out):
            if s + diff >= 1:
                out[i] += diff
                break
    return out


def split_dataset(ds: Dataset, sizes: Sequence[int] | Sequence[float], randomize: bool) -> tuple[Dataset, ...]:
    """``Dataset.split``: index subsets of a random-accessible source, position subsets otherwise."""
    from .samplers import DistributedSampler, SubsetRandomSampler, SubsetSampler
    from .source_base import MappableSource

    n = ds.get_dataset_size()
    if n == INFINITE:
        raise DatasetError("split: cannot split a dataset repeated forever")
    counts = split_sizes(sizes, n)
    order = _seed.rng().permutation(n) if randomize else np.arange(n)
    bounds = np.cumsum([0, *counts])
    parts = [order[bounds[i]: bounds[i + 1]] for i in range(len(counts))]
    if isinstance(ds, MappableSource):
        if isinstance(ds.sampler, DistributedSampler):
            raise DatasetError("split: the dataset is sharded; split first, then shard each part")
        base = ds.sampler._indices(ds._num_rows(), EpochCtx(0, 0, 0)) if not _is_full(ds) else None
        out = []
        for p in parts:
            idx = p if base is None else base[p]
            out.append(ds._with_sampler(SubsetRandomSampler(idx) if randomize else SubsetSampler(np.sort(idx))))
        return tuple(out)
    return tuple(PositionSubset(ds, np.sort(p)) for p in parts)


def _is_full(ds: Any) -> bool:
    """True when the source's sampler reads every row once (so split indices are row indices)."""
    from .samplers import RandomSampler, SequentialSampler

    s = ds.sampler
    return isinstance(s, (RandomSampler, SequentialSampler)) and not s.num_samples and \
        not getattr(s, "replacement", False) and not getattr(s, "start_index", 0)
