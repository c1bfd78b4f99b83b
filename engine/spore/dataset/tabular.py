"""``ParquetDataset``: rows of Parquet files, read with pyarrow.

MindSpore has no Parquet reader (its tabular sources are CSV, TFRecord and MindRecord; a pandas
DataFrame goes through ``NumpySlicesDataset``). Spore adds one under this name because Parquet is
how most tabular and Hugging Face datasets ship. Every file is loaded into memory as NumPy columns
when the dataset is created; rows then come out like any random-accessible source, so shuffle,
samplers and sharding work as for ``NumpySlicesDataset``.

Column types: numbers and booleans become NumPy columns; strings become ``str`` arrays; binary
values (e.g. encoded images) become 1-D uint8 arrays, ready for ``vision.Decode``; list columns
become one array per row. Nulls are refused by name, except in float columns where they are NaN.

A file pyarrow cannot read (not Parquet, cut short, a corrupt footer or page) is a `DatasetError`
naming the file and, when a row group's pages are what fails, that row group and its rows. Page
CRCs (written by ``pyarrow.parquet.write_table(..., write_page_checksum=True)``) are verified when
present; without them, damage inside a page's values can go unnoticed, as in any Parquet reader.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .core import as_names
from .errors import DatasetError
from .source_base import ArrayReader, MappableSource, column_length


def _files(dataset_files: str | Sequence[str]) -> list[str]:
    pattern_list = [dataset_files] if isinstance(dataset_files, (str, os.PathLike)) else list(dataset_files)
    files: list[str] = []
    for p in map(os.fspath, pattern_list):
        matches = sorted(glob.glob(p)) if any(ch in p for ch in "*?[") else [p]
        for m in matches:
            if not os.path.isfile(m):
                raise DatasetError(f"ParquetDataset: no such file: {m}")
            files.append(m)
    if not files:
        raise DatasetError(f"ParquetDataset: no files match {dataset_files!r}")
    return files


# What reading a damaged Parquet file can raise: pyarrow's errors (ArrowInvalid, ArrowIOError, ...),
# OSError from the file system or a decompressor, and MemoryError when a corrupt header declares
# huge sizes. Anything else is a bug, and is left to surface as such.
def _read_errors() -> tuple[type[BaseException], ...]:
    import pyarrow as pa

    return (pa.ArrowException, OSError, ValueError, EOFError, MemoryError)


def _locate_bad_row_group(path: str, columns: list[str] | None) -> str:
    """' in row group k (rows a-b)' for the first row group that fails to read, or '' if none does."""
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path, page_checksum_verification=True)
        meta = pf.metadata
        first = 0
        for k in range(meta.num_row_groups):
            n = meta.row_group(k).num_rows
            try:
                pf.read_row_group(k, columns=columns)
            except _read_errors():
                return f" in row group {k} (rows {first}-{first + n - 1})" if n else f" in row group {k}"
            first += n
    except _read_errors():
        return ""
    return ""


def _read_file(path: str, wanted: list[str] | None) -> Any:
    """One Parquet file as a pyarrow Table; any failure is a DatasetError naming the file."""
    import pyarrow.parquet as pq

    try:
        schema_names = pq.read_schema(path).names
    except _read_errors() as e:
        raise DatasetError(f"ParquetDataset: {path} is not a readable Parquet file ({type(e).__name__}: {e})",
                           hint="it may be cut short (an interrupted download or copy), or not Parquet at all") \
            from e
    missing = [c for c in wanted or [] if c not in schema_names]
    if missing:
        raise DatasetError(f"ParquetDataset: {path} has no column(s) {missing}; it has {schema_names}")
    try:
        return pq.read_table(path, columns=wanted, page_checksum_verification=True)
    except _read_errors() as e:
        where = _locate_bad_row_group(path, wanted)
        raise DatasetError(f"ParquetDataset: cannot read the data of {path}{where} ({type(e).__name__}: {e})",
                           hint="the file is damaged; re-download or re-write it") from e


def _column(chunked: Any, name: str, path: str) -> Any:
    """A pyarrow column as a NumPy array, or a list of per-row arrays for nested/binary types."""
    import pyarrow as pa

    typ = chunked.type
    if chunked.null_count and not pa.types.is_floating(typ):
        raise DatasetError(f"ParquetDataset: column {name!r} of {path} has {chunked.null_count} null value(s)",
                           hint="fill them (e.g. with pandas fillna) or drop the rows before reading")
    if pa.types.is_string(typ) or pa.types.is_large_string(typ):
        return np.asarray(chunked.to_pylist(), dtype=str)
    if pa.types.is_binary(typ) or pa.types.is_large_binary(typ) or pa.types.is_fixed_size_binary(typ):
        return [np.frombuffer(b, dtype=np.uint8) for b in chunked.to_pylist()]
    if pa.types.is_list(typ) or pa.types.is_large_list(typ) or pa.types.is_fixed_size_list(typ):
        return [np.asarray(v) for v in chunked.to_pylist()]
    if pa.types.is_struct(typ) or pa.types.is_map(typ) or pa.types.is_dictionary(typ):
        raise DatasetError(f"ParquetDataset: column {name!r} of {path} has type {typ}, which has no array form",
                           hint="select plain columns with columns=[...], or flatten the struct first")
    return chunked.to_numpy()


class ParquetDataset(MappableSource):
    """Rows of one or more Parquet files (paths or glob patterns), optionally only ``columns``."""

    def __init__(self, dataset_files: str | Sequence[str], columns: str | Sequence[str] | None = None,
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None) -> None:
        import pyarrow as pa

        self.files = _files(dataset_files)
        wanted = as_names(columns, "ParquetDataset columns")
        tables = [_read_file(path, wanted) for path in self.files]
        try:
            table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
        except pa.ArrowInvalid as e:
            raise DatasetError(f"ParquetDataset: the files do not share one schema ({e})") from e
        names = list(table.column_names)
        where = ", ".join(self.files)
        try:
            data = [_column(table.column(n), n, where) for n in names]
        except _read_errors() as e:
            raise DatasetError(f"ParquetDataset: cannot convert the columns of {where} to arrays "
                               f"({type(e).__name__}: {e})") from e
        self._n = column_length(data, names, "ParquetDataset")
        self._data = data
        super().__init__(column_names=names, num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id, num_parallel_workers=num_parallel_workers)

    def _num_rows(self) -> int:
        return self._n

    def _reader(self) -> ArrayReader:
        return ArrayReader(self._data)
