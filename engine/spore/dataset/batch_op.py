"""``Dataset.batch``: consecutive rows stacked column by column, with MindSpore's per-batch map.

Stacking needs one shape per column; a ragged column fails with its name, the batch and the two
shapes that disagree, since "could not broadcast" from ``np.stack`` says none of that.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from itertools import islice
from typing import Any

import numpy as np

from ..errors import SourceLoc
from ._arrays import stack, to_array
from ._seeding import EpochCtx
from .core import INFINITE, Dataset, Row, as_names, check_columns
from .errors import DatasetError, DatasetMapError, capture_failure
from .map_op import op_name


class BatchInfo:
    """What a dynamic ``batch_size`` or a ``per_batch_map`` learns about the batch being built."""

    def __init__(self, batch_num: int, epoch_num: int) -> None:
        self._batch_num, self._epoch_num = batch_num, epoch_num

    def get_batch_num(self) -> int:
        """The index of this batch in the current epoch, from 0."""
        return self._batch_num

    def get_epoch_num(self) -> int:
        """The index of the current epoch, from 0."""
        return self._epoch_num


class BatchDataset(Dataset):
    """The node ``batch`` builds."""

    def __init__(self, child: Dataset, batch_size: int | Callable[[BatchInfo], int], drop_remainder: bool,
                 per_batch_map: Callable[..., Any] | None, input_columns: Any, output_columns: Any,
                 where: SourceLoc | None) -> None:
        super().__init__([child])
        if not callable(batch_size):
            if not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool) or batch_size < 1:
                raise ValueError(f"batch: batch_size must be a positive int or a callable, got {batch_size!r}")
            batch_size = int(batch_size)
        if per_batch_map is not None and not callable(per_batch_map):
            raise TypeError(f"batch: per_batch_map must be callable, got {per_batch_map!r}")
        self._batch_size, self._drop = batch_size, bool(drop_remainder)
        self._fn, self._where = per_batch_map, where
        have = child.get_col_names()
        self._cols = list(have)
        self._in_cols: list[str] = []
        if per_batch_map is not None:
            self._in_cols = as_names(input_columns, "batch input_columns") or list(have)
            check_columns(have, self._in_cols, "batch input_columns")
            self._out_cols = as_names(output_columns, "batch output_columns") or list(self._in_cols)
            kept = [c for c in have if c not in self._in_cols]
            first = have.index(self._in_cols[0])
            at = sum(1 for c in have[:first] if c not in self._in_cols)
            self._cols = kept[:at] + self._out_cols + kept[at:]
        elif input_columns is not None or output_columns is not None:
            raise ValueError("batch: input_columns/output_columns only apply together with per_batch_map")

    def _columns(self) -> list[str]:
        return self._cols

    def get_batch_size(self) -> int:
        return self._batch_size if isinstance(self._batch_size, int) else 1

    def _size(self) -> int | None:
        if not isinstance(self._batch_size, int):
            return None
        n = self.children[0].get_dataset_size()
        if n == INFINITE:
            return INFINITE
        return n // self._batch_size if self._drop else math.ceil(n / self._batch_size)

    def _size_of(self, info: BatchInfo) -> int:
        if isinstance(self._batch_size, int):
            return self._batch_size
        n = self._batch_size(info)
        if not isinstance(n, (int, np.integer)) or n < 1:
            raise DatasetError(f"batch: the batch_size callable returned {n!r}; it must return a positive int")
        return int(n)

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        names = self.children[0].get_col_names()
        rows = self.children[0]._rows(ctx.child(0))
        try:
            for batch_num in range(1 << 62):
                info = BatchInfo(batch_num, ctx.epoch)
                size = self._size_of(info)
                chunk = list(islice(rows, size))
                if not chunk or (self._drop and len(chunk) < size):
                    return
                columns = dict(zip(names, (list(c) for c in zip(*chunk)), strict=True))
                if self._fn is not None:
                    columns = self._apply(columns, info)
                yield tuple(self._stacked(n, columns[n], batch_num) for n in self._cols)
        finally:
            rows.close()  # type: ignore[attr-defined]

    @staticmethod
    def _stacked(name: str, value: list[np.ndarray] | np.ndarray, batch_num: int) -> np.ndarray:
        """A column of the batch: rows are stacked; an array from per_batch_map is the batch already."""
        return value if isinstance(value, np.ndarray) else stack(name, value, batch_num)

    def _apply(self, columns: dict[str, Any], info: BatchInfo) -> dict[str, Any]:
        args = [columns[c] for c in self._in_cols]
        try:
            out = self._fn(*args, info)  # type: ignore[misc]
        except Exception as e:
            f = capture_failure(info.get_batch_num(), e)
            name = op_name(self._fn)
            raise DatasetMapError(
                f"batch: per_batch_map {name} raised {type(e).__name__}: {e}\n"
                f"  on batch {info.get_batch_num()} of epoch {info.get_epoch_num()}, input column(s) {self._in_cols}",
                loc=f.loc or self._where, operation=name, columns=tuple(self._in_cols), index=info.get_batch_num(),
            ) from e
        out = out if isinstance(out, tuple) else (out,)
        if len(out) != len(self._out_cols):
            raise DatasetMapError(
                f"batch: per_batch_map returned {len(out)} column(s) but output_columns names "
                f"{len(self._out_cols)}: {self._out_cols}", loc=self._where, operation=op_name(self._fn),
                columns=tuple(self._in_cols), index=info.get_batch_num(),
                hint="return a tuple with one list of arrays per output column")
        result = {c: v for c, v in columns.items() if c not in self._in_cols}
        for name, value in zip(self._out_cols, out, strict=True):
            result[name] = value if isinstance(value, np.ndarray) else [to_array(v, name) for v in value]
        return result
