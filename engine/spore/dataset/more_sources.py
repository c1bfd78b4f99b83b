"""More of MindSpore's dataset sources and names (issue 14): `TextFileDataset`, `PaddedDataset`,
`FashionMnistDataset` and `KMnistDataset` (MNIST's idx format), the `Shuffle` modes, and the
pipeline-node classes under MindSpore's names (`BatchDataset`, `MapDataset`, ...), which
``isinstance`` checks against a pipeline's stages use.
"""

from __future__ import annotations

import enum
import glob
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .errors import DatasetError
from .source_base import ArrayReader, MappableSource
from .vision_folders import MnistDataset


class Shuffle(enum.Enum):
    """How file-based sources shuffle (Spore shuffles rows globally for each of them)."""

    GLOBAL = "global"
    FILES = "files"
    INFILE = "infile"


def _shuffle_flag(shuffle: Any, owner: str) -> bool | None:
    if shuffle is None or isinstance(shuffle, bool):
        return shuffle
    try:
        Shuffle(shuffle.value if isinstance(shuffle, enum.Enum) else shuffle)
    except ValueError:
        raise ValueError(f"{owner}: shuffle must be a bool or a Shuffle mode, got {shuffle!r}") from None
    return True


def _files(dataset_files: Any, owner: str) -> list[str]:
    patterns = [dataset_files] if isinstance(dataset_files, (str, os.PathLike)) else list(dataset_files)
    files: list[str] = []
    for p in map(os.fspath, patterns):
        for m in (sorted(glob.glob(p)) if any(ch in p for ch in "*?[") else [p]):
            if not os.path.isfile(m):
                raise DatasetError(f"{owner}: no such file: {m}")
            files.append(m)
    if not files:
        raise DatasetError(f"{owner}: no files match {dataset_files!r}")
    return files


class TextFileDataset(MappableSource):
    """One row per line of the text files (column ``text``, a string without its line end)."""

    def __init__(self, dataset_files: Any, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        lines: list[str] = []
        for path in _files(dataset_files, "TextFileDataset"):
            try:
                with open(path, encoding="utf-8") as f:
                    lines += [line.rstrip("\r\n") for line in f]
            except (OSError, UnicodeDecodeError) as e:
                raise DatasetError(f"TextFileDataset: cannot read {path}: {e}") from e
        self._lines = np.array(lines, dtype=str) if lines else np.zeros(0, dtype=str)
        super().__init__(column_names=["text"], num_samples=num_samples,
                         shuffle=_shuffle_flag(shuffle, "TextFileDataset"), sampler=None, num_shards=num_shards,
                         shard_id=shard_id, num_parallel_workers=num_parallel_workers)

    def _num_rows(self) -> int:
        return len(self._lines)

    def _reader(self) -> ArrayReader:
        return ArrayReader([self._lines])


class PaddedDataset(MappableSource):
    """Rows given as a list of dicts (column name -> value), all with the same columns; MindSpore
    uses it to pad a dataset to a multiple of the shard count (``ds1 + PaddedDataset(...)``)."""

    def __init__(self, padded_samples: Sequence[dict]) -> None:
        if not isinstance(padded_samples, (list, tuple)) or not padded_samples or not all(
                isinstance(s, dict) for s in padded_samples):
            raise TypeError("PaddedDataset: padded_samples must be a non-empty list of dicts")
        names = list(padded_samples[0])
        if any(list(s) != names for s in padded_samples):
            raise ValueError(f"PaddedDataset: every sample needs the columns {names}, in that order")
        self._cols = [[np.asarray(s[n]) for s in padded_samples] for n in names]
        self._n = len(padded_samples)
        super().__init__(column_names=names, num_samples=None, shuffle=False, sampler=None, num_shards=None,
                         shard_id=None, num_parallel_workers=None)

    def _num_rows(self) -> int:
        return self._n

    def _reader(self) -> ArrayReader:
        return ArrayReader(self._cols)


class FashionMnistDataset(MnistDataset):
    """Fashion-MNIST: the same idx files and columns as MNIST (``train-*`` / ``t10k-*``)."""


class KMnistDataset(MnistDataset):
    """Kuzushiji-MNIST: the same idx files and columns as MNIST (``train-*`` / ``t10k-*``)."""
