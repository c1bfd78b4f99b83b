"""``Dataset``: the base of every source and pipeline operation, with MindSpore's methods.

A pipeline is a tree of Dataset nodes, each pulling rows (tuples of NumPy arrays, one per column)
from its children through ``_rows(ctx)``, a Python generator. Pull-based generators give
back-pressure for free, and stop cleanly when a consumer stops. ``ctx`` (see ``_seeding``) tells a
node which epoch it is in and where it sits in the tree, which is all it needs to draw
reproducible random numbers.

The operation methods (``map``, ``batch``, ...) only build nodes; nothing runs until iteration.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ..errors import user_location
from ._seeding import EpochCtx, make_ctx
from .errors import DatasetError
from .iterators import DictIterator, TupleIterator

Row = tuple[np.ndarray, ...]
INFINITE = -1  # the size of a dataset repeated forever


def as_names(columns: str | Sequence[str] | None, what: str) -> list[str] | None:
    """Accept one column name or a list of them."""
    if columns is None:
        return None
    names = [columns] if isinstance(columns, str) else list(columns)
    if not names or not all(isinstance(c, str) and c for c in names):
        raise ValueError(f"{what} must be a column name or a non-empty list of names, got {columns!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"{what} names a column twice: {names}")
    return names


def check_columns(have: list[str], want: list[str], what: str) -> list[int]:
    """Positions of ``want`` in ``have``; unknown names get an error listing the real ones."""
    missing = [c for c in want if c not in have]
    if missing:
        raise DatasetError(f"{what}: no column named {', '.join(map(repr, missing))}; the columns are {have}")
    return [have.index(c) for c in want]


class Dataset:
    """Base of every dataset; holds the children and the epoch counter of this node as a root."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        from ._init_record import record_init_args

        record_init_args(cls)  # serialize() describes a pipeline by the arguments its nodes were built with

    def __init__(self, children: Sequence[Dataset] = (), num_parallel_workers: int | None = None) -> None:
        self.children: list[Dataset] = list(children)
        self.num_parallel_workers = num_parallel_workers
        self._entropy = secrets.randbits(63)  # the base seed when no global seed is set
        self._epoch = 0
        self._epoch_lock = threading.Lock()
        self._count_cache: int | None = None
        self._first_row: Row | None = None

    # --- what subclasses provide -------------------------------------------------------------
    def _columns(self) -> list[str]:
        raise NotImplementedError

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        raise NotImplementedError

    def _size(self) -> int | None:
        """Rows per epoch if known without running the pipeline (INFINITE if endless)."""
        return None

    # --- epochs ------------------------------------------------------------------------------
    def _start_epoch(self) -> Iterator[Row]:
        """The rows of this dataset's next epoch (each call advances its epoch counter)."""
        with self._epoch_lock:
            epoch, self._epoch = self._epoch, self._epoch + 1
        return self._rows(make_ctx(self._entropy, epoch))

    def _probe(self) -> Iterator[Row]:
        """Rows of a throwaway epoch, for sizes and shapes: does not advance the counter."""
        return self._rows(make_ctx(self._entropy, 0))

    # --- information -------------------------------------------------------------------------
    def get_col_names(self) -> list[str]:
        """The column names, in row order."""
        return list(self._columns())

    def get_dataset_size(self) -> int:
        """Rows (batches, after ``batch``) per epoch; -1 for a dataset repeated forever.

        Computed from the sources when possible; otherwise (filters, generators without
        ``__len__``, dynamic batch sizes) by running one epoch, as MindSpore does.
        """
        n = self._size()
        if n is not None:
            return n
        if self._count_cache is None:
            gen = self._probe()
            try:
                self._count_cache = sum(1 for _ in gen)
            finally:
                gen.close()  # type: ignore[attr-defined]
        return self._count_cache

    def _peek(self) -> Row:
        if self._first_row is None:
            gen = self._probe()
            try:
                self._first_row = next(gen)
            except StopIteration:
                raise DatasetError(f"{type(self).__name__} is empty: no row to read shapes and types from") from None
            finally:
                gen.close()  # type: ignore[attr-defined]
        return self._first_row

    def output_shapes(self, estimate: bool = False) -> list[list[int]]:
        """The shape of each column, read from the first row."""
        return [list(a.shape) for a in self._peek()]

    def output_types(self) -> list[np.dtype]:
        """The NumPy dtype of each column, read from the first row."""
        return [a.dtype for a in self._peek()]

    def get_batch_size(self) -> int:
        """The batch size of the outermost ``batch`` (1 when there is none)."""
        for child in self.children:
            return child.get_batch_size()
        return 1

    def get_repeat_count(self) -> int:
        """The count of the outermost ``repeat`` (1 when there is none)."""
        for child in self.children:
            return child.get_repeat_count()
        return 1

    # --- iteration ---------------------------------------------------------------------------
    def create_tuple_iterator(self, columns: Sequence[str] | None = None, num_epochs: int = -1,
                              output_numpy: bool = False, do_copy: bool = True) -> TupleIterator:
        """An iterator of rows as lists of Tensors (NumPy arrays with ``output_numpy=True``)."""
        return TupleIterator(self, columns, num_epochs, output_numpy, do_copy)

    def create_dict_iterator(self, num_epochs: int = -1, output_numpy: bool = False,
                             do_copy: bool = True) -> DictIterator:
        """An iterator of rows as dicts from column name to Tensor (or NumPy array)."""
        return DictIterator(self, None, num_epochs, output_numpy, do_copy)

    def __iter__(self) -> TupleIterator:
        """``for image, label in dataset``: one epoch; looping again starts the next one."""
        return self.create_tuple_iterator(num_epochs=1)

    # --- operations --------------------------------------------------------------------------
    def map(self, operations: Callable[..., Any] | Sequence[Callable[..., Any]], input_columns: Any = None,
            output_columns: Any = None, num_parallel_workers: int | None = None, python_multiprocessing: bool = False,
            max_rowsize: Any = None, cache: Any = None, callbacks: Any = None, offload: Any = None,
            **kwargs: Any) -> Dataset:
        """Apply ``operations`` in order to ``input_columns`` of every row.

        ``input_columns=None`` passes every column to a Python callable, and the first column to
        a Spore transform (which declares how many inputs it takes). With
        ``num_parallel_workers > 1`` rows are processed by that many threads, or processes with
        ``python_multiprocessing=True``; output order is input order either way.
        """
        from .map_op import MapDataset

        return MapDataset(self, operations, input_columns, output_columns, num_parallel_workers,
                          python_multiprocessing, where=user_location(), callbacks=callbacks)

    def batch(self, batch_size: int | Callable[[Any], int], drop_remainder: bool = False,
              num_parallel_workers: int | None = None, per_batch_map: Callable[..., Any] | None = None,
              input_columns: Any = None, output_columns: Any = None, python_multiprocessing: bool = False,
              max_rowsize: Any = None, **kwargs: Any) -> Dataset:
        """Stack ``batch_size`` consecutive rows into one, column by column."""
        from .batch_op import BatchDataset

        return BatchDataset(self, batch_size, drop_remainder, per_batch_map, input_columns, output_columns,
                            where=user_location())

    def padded_batch(self, batch_size: int | Callable[[Any], int], drop_remainder: bool = False,
                     num_parallel_workers: int | None = None, pad_info: dict | None = None) -> Dataset:
        """``batch`` with each column padded by ``pad_info`` first (``{}``: every column to the
        batch's largest row, with 0; ``{"col": ([224, 224], 0)}``: that column to that shape; a None
        axis is the batch's largest). ``None`` pads nothing. See ``padding_batch``."""
        from .padding_batch import PaddedBatchDataset

        return PaddedBatchDataset(self, batch_size, drop_remainder, num_parallel_workers, pad_info)

    def bucket_batch_by_length(self, column_names: str | Sequence[str], bucket_boundaries: Sequence[int],
                               bucket_batch_sizes: Sequence[int],
                               element_length_function: Callable[..., Any] | None = None,
                               pad_info: dict | None = None, pad_to_bucket_boundary: bool = False,
                               drop_remainder: bool = False) -> Dataset:
        """Batch rows of similar length: each row goes to the bucket its length falls in
        (``[0, b0), [b0, b1), ..., [b_last, inf)``), which batches ``bucket_batch_sizes[i]`` rows
        padded by ``pad_info``. See ``padding_batch``."""
        from .padding_batch import BucketBatchByLengthDataset

        return BucketBatchByLengthDataset(self, column_names, bucket_boundaries, bucket_batch_sizes,
                                          element_length_function, pad_info, pad_to_bucket_boundary, drop_remainder)

    def sync_wait(self, condition_name: str, num_batch: int = 1, callback: Callable[[Any], Any] | None = None
                  ) -> Dataset:
        """Let ``num_batch`` rows through, then wait for ``sync_update(condition_name)`` (see ``sync_wait``)."""
        from .sync_wait import SyncWaitDataset

        return SyncWaitDataset(self, condition_name, num_batch, callback)

    def sync_update(self, condition_name: str, num_batch: int | None = None, data: Any = None) -> None:
        """Run the ``sync_wait`` callback with ``data`` and let the next rows through."""
        from .sync_wait import sync_update

        sync_update(self, condition_name, num_batch, data)

    def shuffle(self, buffer_size: int) -> Dataset:
        """Shuffle through a buffer of ``buffer_size`` rows; a new order each epoch."""
        from .pipeline import ShuffleDataset

        return ShuffleDataset(self, buffer_size)

    def repeat(self, count: int | None = None) -> Dataset:
        """Run the pipeline ``count`` times per epoch (None or -1: forever)."""
        from .pipeline import RepeatDataset

        return RepeatDataset(self, count)

    def take(self, count: int = -1) -> Dataset:
        """The first ``count`` rows (-1: all)."""
        from .pipeline import TakeDataset

        return TakeDataset(self, count)

    def skip(self, count: int) -> Dataset:
        """All rows but the first ``count``."""
        from .pipeline import SkipDataset

        return SkipDataset(self, count)

    def zip(self, datasets: Dataset | Sequence[Dataset]) -> Dataset:
        """Rows side by side with those of ``datasets`` (columns must not clash)."""
        from .pipeline import ZipDataset

        others = [datasets] if isinstance(datasets, Dataset) else list(datasets)
        return ZipDataset([self, *others])

    def concat(self, datasets: Dataset | Sequence[Dataset]) -> Dataset:
        """This dataset's rows followed by those of ``datasets`` (same columns)."""
        from .pipeline import ConcatDataset

        others = [datasets] if isinstance(datasets, Dataset) else list(datasets)
        return ConcatDataset([self, *others])

    def __add__(self, other: Dataset) -> Dataset:
        return self.concat(other)

    def rename(self, input_columns: str | Sequence[str], output_columns: str | Sequence[str]) -> Dataset:
        """Rename columns ``input_columns[i]`` to ``output_columns[i]``."""
        from .pipeline import RenameDataset

        return RenameDataset(self, input_columns, output_columns)

    def project(self, columns: str | Sequence[str]) -> Dataset:
        """Keep only ``columns``, in that order."""
        from .pipeline import ProjectDataset

        return ProjectDataset(self, columns)

    def filter(self, predicate: Callable[..., Any], input_columns: Any = None,
               num_parallel_workers: int | None = None) -> Dataset:
        """Keep the rows for which ``predicate(*input_columns)`` is true."""
        from .pipeline import FilterDataset

        return FilterDataset(self, predicate, input_columns, where=user_location())

    def prefetch(self, buffer_size: int | None = None) -> Dataset:
        """Compute up to ``buffer_size`` rows ahead in a background thread.

        Not a MindSpore method (MindSpore prefetches inside its C++ engine); here it overlaps the
        pipeline with the training step that consumes it.
        """
        from .pipeline import PrefetchDataset

        return PrefetchDataset(self, buffer_size)

    def split(self, sizes: Sequence[int] | Sequence[float], randomize: bool = True) -> tuple[Dataset, ...]:
        """Non-overlapping datasets of the given sizes (ints) or fractions (floats summing to 1)."""
        from .pipeline import split_dataset

        return split_dataset(self, sizes, randomize)

    def to_json(self, filename: str = "") -> dict[str, Any]:
        """The pipeline's JSON description (also written to ``filename`` when given): ``serialize(self)``."""
        from .serialize import serialize

        return serialize(self, filename)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} columns={self.get_col_names()}>"
