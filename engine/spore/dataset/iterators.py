"""Iterators over a pipeline: what ``create_tuple_iterator``, ``create_dict_iterator`` and
``for row in dataset`` return.

An iterator runs up to ``num_epochs`` epochs (-1: as many as asked for). Each ``for`` loop over it
consumes one epoch and ends with ``StopIteration``; the next loop starts the next epoch, which is
how MindSpore training loops use it (``it = ds.create_tuple_iterator(num_epochs=E)`` then
``for epoch in range(E): for batch in it: ...``). Every epoch asks the dataset for a fresh epoch
number, so shuffles change from epoch to epoch.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ._arrays import to_output

if TYPE_CHECKING:
    from .core import Dataset, Row


class _BaseIterator:
    def __init__(self, dataset: Dataset, columns: Sequence[str] | None, num_epochs: int, output_numpy: bool,
                 do_copy: bool) -> None:
        if not isinstance(num_epochs, int) or (num_epochs < 1 and num_epochs != -1):
            raise ValueError(f"num_epochs must be a positive int or -1, got {num_epochs!r}")
        names = dataset.get_col_names()
        if columns is None:
            self._idx = list(range(len(names)))
        else:
            columns = [columns] if isinstance(columns, str) else list(columns)
            missing = [c for c in columns if c not in names]
            if missing:
                raise ValueError(f"columns {missing} are not in the dataset; its columns are {names}")
            self._idx = [names.index(c) for c in columns]
        self._names = [names[i] for i in self._idx]
        self._ds, self._num_epochs, self._numpy, self._copy = dataset, num_epochs, output_numpy, do_copy
        self._gen: Iterator[Row] | None = None
        self._epochs_done = 0

    def __iter__(self) -> _BaseIterator:
        return self

    def _next_row(self) -> Row:
        if self._gen is None:
            if self._num_epochs != -1 and self._epochs_done >= self._num_epochs:
                raise StopIteration
            self._gen = self._ds._start_epoch()
        try:
            return next(self._gen)
        except StopIteration:
            self._gen = None
            self._epochs_done += 1
            raise
        except BaseException:
            self._gen = None
            raise

    def _values(self, row: Row) -> list[Any]:
        return [to_output(row[i], self._numpy, self._copy) for i in self._idx]

    def get_col_names(self) -> list[str]:
        return list(self._names)

    def stop(self) -> None:
        """End the current epoch early and release its workers; later epochs are refused."""
        if self._gen is not None:
            self._gen.close()  # type: ignore[attr-defined]
            self._gen = None
        self._num_epochs, self._epochs_done = 0, 0


class TupleIterator(_BaseIterator):
    """Yields each row as a list of Tensors (or NumPy arrays with ``output_numpy=True``)."""

    def __next__(self) -> list[Any]:
        return self._values(self._next_row())


class DictIterator(_BaseIterator):
    """Yields each row as a dict from column name to Tensor (or NumPy array)."""

    def __next__(self) -> dict[str, Any]:
        return dict(zip(self._names, self._values(self._next_row()), strict=True))
