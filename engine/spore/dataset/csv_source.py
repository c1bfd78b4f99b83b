"""`CSVDataset`: rows of CSV files, with MindSpore's arguments and column types.

Each row's fields become the columns. Their types come from `column_defaults`, one value per
column: an int makes an int32 column, a float a float32 column, a str a string column (NumPy
``str_``), and the value fills a field left empty. Without `column_defaults` every column is a
string, as in MindSpore. Without `column_names` the first line of each file is its header (the
first file's names are the dataset's). Files are read whole with Python's `csv` module (quoting
rules of RFC 4180); a field that is not a number where the column wants one is a `DatasetError`
naming the file, line and column.
"""

from __future__ import annotations

import csv
import enum
import glob
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .errors import DatasetError
from .source_base import ArrayReader, MappableSource


def _files(dataset_files: Any) -> list[str]:
    """The files named by paths and glob patterns, in order; a missing one is an error naming it."""
    patterns = [dataset_files] if isinstance(dataset_files, (str, os.PathLike)) else list(dataset_files)
    files: list[str] = []
    for p in map(os.fspath, patterns):
        for m in (sorted(glob.glob(p)) if any(ch in p for ch in "*?[") else [p]):
            if not os.path.isfile(m):
                raise DatasetError(f"CSVDataset: no such file: {m}")
            files.append(m)
    if not files:
        raise DatasetError(f"CSVDataset: no files match {dataset_files!r}")
    return files


def _shuffle_flag(shuffle: Any) -> bool | None:
    """MindSpore's CSV `shuffle`: a bool or Shuffle.GLOBAL/FILES/INFILE ('global', 'files', 'infile');
    Spore shuffles rows globally for any of the Shuffle modes."""
    if shuffle is None or isinstance(shuffle, bool):
        return shuffle
    value = shuffle.value if isinstance(shuffle, enum.Enum) else shuffle
    if value in ("global", "files", "infile"):
        return True
    raise ValueError(f"CSVDataset: shuffle must be a bool or Shuffle.GLOBAL/FILES/INFILE, got {shuffle!r}")


def _kind(default: Any, i: int) -> tuple[type, Any]:
    if isinstance(default, bool) or not isinstance(default, (int, float, str)):
        raise TypeError(f"CSVDataset: column_defaults[{i}] must be an int, a float or a str, got {default!r}")
    return (int if isinstance(default, int) else float if isinstance(default, float) else str), default


class CSVDataset(MappableSource):
    """Rows of the CSV `dataset_files` (paths or glob patterns); see the module docstring."""

    def __init__(self, dataset_files: str | Sequence[str], field_delim: str = ",", column_defaults: Any = None,
                 column_names: Any = None, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: Any = True, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        if not isinstance(field_delim, str) or len(field_delim) != 1 or field_delim in "\"\r\n":
            raise ValueError(f"CSVDataset: field_delim must be one character other than a quote or newline, "
                             f"got {field_delim!r}")
        self.files = _files(dataset_files)
        rows: list[list[str]] = []
        where: list[tuple[str, int]] = []
        names = None if column_names is None else [str(n) for n in column_names]
        for path in self.files:
            try:
                with open(path, newline="", encoding="utf-8") as f:
                    lines = list(csv.reader(f, delimiter=field_delim))
            except (OSError, UnicodeDecodeError, csv.Error) as e:
                raise DatasetError(f"CSVDataset: cannot read {path}: {e}") from e
            start = 0
            if column_names is None:
                if not lines:
                    raise DatasetError(f"CSVDataset: {path} is empty, so it has no header line for the column names",
                                       hint="pass column_names=[...]")
                names = names or lines[0]
                start = 1
            for k, line in enumerate(lines[start:], start + 1):
                if line:  # a blank line is no row
                    rows.append(line)
                    where.append((path, k))
        assert names is not None
        if len(set(names)) != len(names):
            raise DatasetError(f"CSVDataset: column names repeat: {names}")
        kinds = [(str, "")] * len(names) if column_defaults is None else \
            [_kind(d, i) for i, d in enumerate(column_defaults)]
        if len(kinds) != len(names):
            raise ValueError(f"CSVDataset: {len(kinds)} column_defaults for {len(names)} columns {names}")
        self._data = self._columns_of(rows, where, names, kinds)
        self._n = len(rows)
        super().__init__(column_names=names, num_samples=num_samples, shuffle=_shuffle_flag(shuffle), sampler=None,
                         num_shards=num_shards, shard_id=shard_id, num_parallel_workers=num_parallel_workers)

    @staticmethod
    def _columns_of(rows: list[list[str]], where: list[tuple[str, int]], names: list[str],
                    kinds: list[tuple[type, Any]]) -> list[np.ndarray]:
        cols: list[list[Any]] = [[] for _ in names]
        for row, (path, line) in zip(rows, where):
            if len(row) != len(names):
                raise DatasetError(f"CSVDataset: {os.path.basename(path)} line {line} has {len(row)} fields, "
                                   f"expected {len(names)} ({', '.join(names)})")
            for j, (text, (kind, default)) in enumerate(zip(row, kinds)):
                if text == "":
                    cols[j].append(default)
                    continue
                try:
                    cols[j].append(kind(text))
                except ValueError:
                    raise DatasetError(f"CSVDataset: {os.path.basename(path)} line {line}, column {names[j]!r}: "
                                       f"{text!r} is not a{'n int' if kind is int else ' float'}") from None
        dtypes = {int: np.int32, float: np.float32, str: np.str_}
        return [np.asarray(c, dtype=dtypes[k]) if c else np.zeros(0, dtypes[k]) for c, (k, _) in zip(cols, kinds)]

    def _num_rows(self) -> int:
        return self._n

    def _reader(self) -> ArrayReader:
        return ArrayReader(self._data)
