"""More of MindSpore's dataset sources over files users already have (issue 14, dataset slice).

Nothing here downloads: each source reads the files of the public dataset's own release, laid out
as MindSpore documents, from ``dataset_dir``. Every open, read or parse failure is a
`DatasetError` naming the file (and the row or line).

* CSV text corpora (AG News, DBpedia, Yelp/Amazon reviews, Sogou News, Yahoo Answers):
  ``train.csv`` / ``test.csv``, string columns.
* Line corpora: Penn Treebank (``ptb.{train,valid,test}.txt``), WikiText (``wiki.*.tokens``),
  EnWik9 (``enwik9``): one ``text`` row per line.
* IMDB (``{train,test}/{pos,neg}/*.txt``), Cifar100 (binary ``train.bin``/``test.bin``),
  EMNIST (idx files ``emnist-<name>-<usage>-*``), USPS (libsvm ``usps``/``usps.t``, optionally
  ``.bz2``), Semeion (``semeion.data``).
* Generated data: FakeImageDataset and RandomDataset (seeded, reproducible).
"""

from __future__ import annotations

import bz2
import csv
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .errors import DatasetError
from .more_sources import Shuffle, _shuffle_flag
from .source_base import ArrayReader, MappableSource
from .vision_folders import _check_dir, _cifar_root, _find, read_idx

__all__ = ["AGNewsDataset", "AmazonReviewDataset", "Cifar100Dataset", "DBpediaDataset", "EMnistDataset",
           "EnWik9Dataset", "FakeImageDataset", "IMDBDataset", "PennTreebankDataset", "RandomDataset",
           "SemeionDataset", "SogouNewsDataset", "USPSDataset", "WikiTextDataset", "YahooAnswersDataset",
           "YelpReviewDataset"]


def _usages(usage: str | None, allowed: Sequence[str], owner: str) -> list[str]:
    usage = "all" if usage is None else usage
    if usage != "all" and usage not in allowed:
        raise ValueError(f"{owner}: usage must be one of {list(allowed) + ['all']} or None, got {usage!r}")
    return list(allowed) if usage == "all" else [usage]


def _strings(values: list[str]) -> np.ndarray:
    return np.array(values, dtype=str) if values else np.zeros(0, dtype=str)


class _Columns(MappableSource):
    """A source whose rows are held as in-memory columns."""

    def _init_columns(self, names: list[str], columns: list[Any], num_samples: int | None, shuffle: Any,
                      sampler: Any, num_shards: int | None, shard_id: int | None,
                      num_parallel_workers: int | None) -> None:
        self._cols = columns
        super().__init__(column_names=names, num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id, num_parallel_workers=num_parallel_workers)

    def _num_rows(self) -> int:
        return len(self._cols[0])

    def _reader(self) -> ArrayReader:
        return ArrayReader(self._cols)


# --- CSV text corpora ---------------------------------------------------------------------------

def _read_csv(path: str, ncols: int, owner: str) -> list[list[str]]:
    try:
        with open(path, encoding="utf-8", newline="") as f:
            rows = []
            for line_no, row in enumerate(csv.reader(f), 1):
                if not row:
                    continue
                if len(row) != ncols:
                    raise DatasetError(f"{owner}: {path}, row {line_no}: {len(row)} field(s), expected {ncols}")
                rows.append(row)
            return rows
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise DatasetError(f"{owner}: cannot read {path}: {e}") from e


class _CsvCorpus(_Columns):
    _columns_of: tuple[str, ...] = ()

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        owner = type(self).__name__
        root = _check_dir(dataset_dir, owner)
        rows: list[list[str]] = []
        for u in _usages(usage, ("train", "test"), owner):
            path = os.path.join(root, f"{u}.csv")
            if not os.path.isfile(path):
                raise DatasetError(f"{owner}: no {u}.csv in {root}")
            rows += _read_csv(path, len(self._columns_of), owner)
        cols = [_strings([r[i] for r in rows]) for i in range(len(self._columns_of))]
        self._init_columns(list(self._columns_of), cols, num_samples, _shuffle_flag(shuffle, owner), None,
                           num_shards, shard_id, num_parallel_workers)


class AGNewsDataset(_CsvCorpus):
    """AG News: ``index`` (class 1-4), ``title``, ``description`` strings from train.csv/test.csv."""

    _columns_of = ("index", "title", "description")


class DBpediaDataset(_CsvCorpus):
    """DBpedia ontology: ``class``, ``title``, ``content`` strings from train.csv/test.csv."""

    _columns_of = ("class", "title", "content")


class AmazonReviewDataset(_CsvCorpus):
    """Amazon reviews (polarity or full): ``label``, ``title``, ``content`` from train.csv/test.csv."""

    _columns_of = ("label", "title", "content")


class YahooAnswersDataset(_CsvCorpus):
    """Yahoo! Answers: ``class``, ``title``, ``content``, ``answer`` from train.csv/test.csv."""

    _columns_of = ("class", "title", "content", "answer")


class YelpReviewDataset(_CsvCorpus):
    """Yelp reviews (polarity or full): ``label``, ``text`` from train.csv/test.csv."""

    _columns_of = ("label", "text")

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None, shard_id: int | None = None,
                 num_parallel_workers: int | None = None, cache: Any = None) -> None:
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, num_shards, shard_id)


class SogouNewsDataset(_CsvCorpus):
    """Sogou News: ``index``, ``title``, ``content`` from train.csv/test.csv."""

    _columns_of = ("index", "title", "content")

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None, shard_id: int | None = None,
                 num_parallel_workers: int | None = None, cache: Any = None) -> None:
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, num_shards, shard_id)


# --- line corpora -------------------------------------------------------------------------------

def _read_lines(path: str, owner: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as f:
            return [line.rstrip("\r\n") for line in f]
    except (OSError, UnicodeDecodeError) as e:
        raise DatasetError(f"{owner}: cannot read {path}: {e}") from e


class _LineCorpus(_Columns):
    _pattern = "{}"
    _usages_of: tuple[str, ...] = ("train", "valid", "test")

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        owner = type(self).__name__
        root = _check_dir(dataset_dir, owner)
        lines: list[str] = []
        for u in _usages(usage, self._usages_of, owner):
            path = os.path.join(root, self._pattern.format(u))
            if not os.path.isfile(path):
                raise DatasetError(f"{owner}: no {os.path.basename(path)} in {root}")
            lines += _read_lines(path, owner)
        self._init_columns(["text"], [_strings(lines)], num_samples, _shuffle_flag(shuffle, owner), None,
                           num_shards, shard_id, num_parallel_workers)


class PennTreebankDataset(_LineCorpus):
    """Penn Treebank: one ``text`` row per line of ptb.{train,valid,test}.txt."""

    _pattern = "ptb.{}.txt"


class WikiTextDataset(_LineCorpus):
    """WikiText-2/103: one ``text`` row per line of wiki.{train,valid,test}.tokens."""

    _pattern = "wiki.{}.tokens"


class EnWik9Dataset(_Columns):
    """EnWik9: one ``text`` row per line of the ``enwik9`` file."""

    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: Any = True, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "EnWik9Dataset")
        path = os.path.join(root, "enwik9")
        if not os.path.isfile(path):
            raise DatasetError(f"EnWik9Dataset: no enwik9 file in {root}")
        self._init_columns(["text"], [_strings(_read_lines(path, "EnWik9Dataset"))], num_samples,
                           _shuffle_flag(shuffle, "EnWik9Dataset"), None, num_shards, shard_id, num_parallel_workers)


# --- IMDB ---------------------------------------------------------------------------------------

class IMDBDataset(_Columns):
    """IMDB reviews: ``text`` (a review file's content) and ``label`` (uint32: pos 1, neg 0) from
    ``{train,test}/{pos,neg}/*.txt`` (the aclImdb release; ``unsup`` is not read)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "IMDBDataset")
        texts, labels = [], []
        for u in _usages(usage, ("train", "test"), "IMDBDataset"):
            for name, label in (("pos", 1), ("neg", 0)):
                d = os.path.join(root, u, name)
                if not os.path.isdir(d):
                    raise DatasetError(f"IMDBDataset: no folder {u}/{name} in {root}")
                for fname in sorted(os.listdir(d)):
                    if not fname.endswith(".txt"):
                        continue
                    path = os.path.join(d, fname)
                    try:
                        with open(path, encoding="utf-8") as f:
                            texts.append(f.read())
                    except (OSError, UnicodeDecodeError) as e:
                        raise DatasetError(f"IMDBDataset: cannot read {path}: {e}") from e
                    labels.append(label)
        self._init_columns(["text", "label"], [_strings(texts), np.asarray(labels, np.uint32)], num_samples,
                           shuffle, sampler, num_shards, shard_id, num_parallel_workers)


# --- image corpora ------------------------------------------------------------------------------

_CIFAR100_RECORD = 2 + 3 * 32 * 32


class Cifar100Dataset(_Columns):
    """CIFAR-100 from its binary version (``train.bin``, ``test.bin``: coarse label byte, fine label
    byte, 3072 CHW pixel bytes per record): ``image`` (32, 32, 3) uint8, ``coarse_label`` and
    ``fine_label`` uint32."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "Cifar100Dataset")
        sub = os.path.join(root, "cifar-100-binary")
        root = sub if os.path.isdir(sub) else _cifar_root(root)
        records = []
        for u in _usages(usage, ("train", "test"), "Cifar100Dataset"):
            path = os.path.join(root, f"{u}.bin")
            if not os.path.isfile(path):
                if os.path.isfile(os.path.join(root, u)):
                    raise DatasetError(f"Cifar100Dataset: {root} holds the CIFAR-100 *python* version ({u}), made of "
                                       "pickles; Spore never unpickles downloaded files",
                                       hint="download the binary version (cifar-100-binary.tar.gz)")
                raise DatasetError(f"Cifar100Dataset: no {u}.bin in {root}")
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError as e:
                raise DatasetError(f"Cifar100Dataset: cannot read {path}: {e.strerror or e}") from e
            if not data or len(data) % _CIFAR100_RECORD:
                raise DatasetError(f"Cifar100Dataset: {path} is {len(data)} bytes, not a whole number of "
                                   f"{_CIFAR100_RECORD}-byte records")
            records.append(np.frombuffer(data, np.uint8).reshape(-1, _CIFAR100_RECORD))
        rec = np.concatenate(records)
        images = np.ascontiguousarray(rec[:, 2:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))
        self._init_columns(["image", "coarse_label", "fine_label"],
                           [images, rec[:, 0].astype(np.uint32), rec[:, 1].astype(np.uint32)],
                           num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)


class EMnistDataset(_Columns):
    """EMNIST from its idx files ``emnist-<name>-<train|test>-{images-idx3,labels-idx1}-ubyte``
    (``name``: byclass, bymerge, balanced, letters, digits or mnist): ``image`` (28, 28, 1) uint8 and
    ``label`` uint32. The images are stored transposed, as in the release."""

    _NAMES = ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")

    def __init__(self, dataset_dir: str, name: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        if name not in self._NAMES:
            raise ValueError(f"EMnistDataset: name must be one of {list(self._NAMES)}, got {name!r}")
        root = _check_dir(dataset_dir, "EMnistDataset")
        images, labels = [], []
        for u in _usages(usage, ("train", "test"), "EMnistDataset"):
            img = read_idx(_find(root, [f"emnist-{name}-{u}-images-idx3-ubyte"], "EMnistDataset"), 2051)
            lab = read_idx(_find(root, [f"emnist-{name}-{u}-labels-idx1-ubyte"], "EMnistDataset"), 2049)
            if len(img) != len(lab):
                raise DatasetError(f"EMnistDataset: {name}-{u} has {len(img)} images but {len(lab)} labels")
            images.append(img[..., None])
            labels.append(lab.astype(np.uint32))
        self._init_columns(["image", "label"], [np.concatenate(images), np.concatenate(labels)], num_samples,
                           shuffle, sampler, num_shards, shard_id, num_parallel_workers)


class USPSDataset(_Columns):
    """USPS digits from the libsvm files ``usps`` (train) and ``usps.t`` (test), plain or ``.bz2``:
    ``image`` (16, 16, 1) uint8 (features in [-1, 1] scaled to 0..255) and ``label`` uint32 (0-9)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "USPSDataset")
        images, labels = [], []
        for u in _usages(usage, ("train", "test"), "USPSDataset"):
            stem = "usps" if u == "train" else "usps.t"
            path = next((os.path.join(root, n) for n in (stem, stem + ".bz2") if os.path.isfile(os.path.join(root, n))),
                        None)
            if path is None:
                raise DatasetError(f"USPSDataset: no {stem} (or {stem}.bz2) in {root}")
            try:
                opener = bz2.open if path.endswith(".bz2") else open
                with opener(path, "rt", encoding="ascii") as f:
                    lines = f.read().splitlines()
            except (OSError, EOFError, UnicodeDecodeError, ValueError) as e:
                raise DatasetError(f"USPSDataset: cannot read {path}: {type(e).__name__}: {e}") from e
            for line_no, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                try:
                    label, *pairs = line.split()
                    values = np.zeros(256)
                    for p in pairs:
                        k, v = p.split(":")
                        values[int(k) - 1] = float(v)
                    lab = int(float(label)) - 1
                    if not 0 <= lab <= 9:
                        raise ValueError(f"label {label} is not in 1..10")
                except (ValueError, IndexError) as e:
                    raise DatasetError(f"USPSDataset: {path}, line {line_no}: not a libsvm USPS row: {e}") from e
                images.append(np.clip(np.rint((values + 1) / 2 * 255), 0, 255).astype(np.uint8).reshape(16, 16, 1))
                labels.append(lab)
        self._init_columns(["image", "label"], [np.stack(images) if images else np.zeros((0, 16, 16, 1), np.uint8),
                                                np.asarray(labels, np.uint32)],
                           num_samples, _shuffle_flag(shuffle, "USPSDataset"), None, num_shards, shard_id,
                           num_parallel_workers)


class SemeionDataset(_Columns):
    """Semeion handwritten digits from ``semeion.data`` (256 pixel values 0/1 then a one-hot of 10
    per line): ``image`` (16, 16) uint8 (0 or 255) and ``label`` uint32."""

    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "SemeionDataset")
        path = os.path.join(root, "semeion.data")
        if not os.path.isfile(path):
            raise DatasetError(f"SemeionDataset: no semeion.data in {root}")
        images, labels = [], []
        for line_no, line in enumerate(_read_lines(path, "SemeionDataset"), 1):
            if not line.strip():
                continue
            try:
                v = np.array([float(x) for x in line.split()])
                if v.size != 266:
                    raise ValueError(f"{v.size} values, expected 266")
                onehot = v[256:]
                if onehot.sum() != 1:
                    raise ValueError("the last 10 values are not a one-hot label")
            except ValueError as e:
                raise DatasetError(f"SemeionDataset: {path}, line {line_no}: {e}") from e
            images.append((v[:256].reshape(16, 16) * 255).astype(np.uint8))
            labels.append(int(np.argmax(onehot)))
        self._init_columns(["image", "label"], [np.stack(images) if images else np.zeros((0, 16, 16), np.uint8),
                                                np.asarray(labels, np.uint32)],
                           num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)


# --- generated ----------------------------------------------------------------------------------

class _FakeImages:
    def __init__(self, size: tuple[int, ...], num_classes: int, base_seed: int) -> None:
        self.size, self.num_classes, self.base_seed = size, num_classes, base_seed

    def __call__(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng([self.base_seed, index])
        return (rng.integers(0, 256, self.size, dtype=np.uint8),
                np.uint32(rng.integers(0, self.num_classes)))


class FakeImageDataset(MappableSource):
    """``num_images`` random uint8 images of ``image_size`` with random labels below ``num_classes``;
    image i is the same for a given ``base_seed`` whatever the order or worker."""

    def __init__(self, num_images: int = 1000, image_size: Sequence[int] = (224, 224, 3), num_classes: int = 10,
                 base_seed: int = 0, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        if num_images < 1 or num_classes < 1:
            raise ValueError(f"FakeImageDataset: num_images and num_classes must be positive, got {num_images}, "
                             f"{num_classes}")
        size = tuple(int(s) for s in image_size)
        if len(size) != 3 or min(size) < 1:
            raise ValueError(f"FakeImageDataset: image_size must be (H, W, C) of positive ints, got {image_size!r}")
        self._n, self._gen = int(num_images), _FakeImages(size, int(num_classes), int(base_seed))
        super().__init__(column_names=["image", "label"], num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id, num_parallel_workers=num_parallel_workers)

    def _num_rows(self) -> int:
        return self._n

    def _reader(self) -> _FakeImages:
        return self._gen


class _RandomRows:
    def __init__(self, specs: list[tuple[np.dtype, tuple[int, ...]]], seed: int) -> None:
        self.specs, self.seed = specs, seed

    def __call__(self, index: int) -> tuple[np.ndarray, ...]:
        rng = np.random.default_rng([self.seed, index])
        out = []
        for dtype, shape in self.specs:
            if dtype.kind == "f":
                out.append(rng.random(shape).astype(dtype))
            elif dtype.kind == "b":
                out.append(rng.random(shape) < 0.5)
            else:
                info = np.iinfo(dtype)
                out.append(rng.integers(max(info.min, -1000), min(info.max, 1000), shape, dtype=dtype,
                                        endpoint=True))
        return tuple(out)


class RandomDataset(MappableSource):
    """``total_rows`` rows of random data with the columns of ``schema`` (a `Schema`, a schema file,
    or None for one int32 column ``col`` of shape (2,)); ``columns_list`` picks columns. Rows are
    drawn from a generator seeded with the global seed (0 without one) and the row index."""

    def __init__(self, total_rows: int | None = None, schema: Any = None, columns_list: Sequence[str] | None = None,
                 num_samples: int | None = None, num_parallel_workers: int | None = None, cache: Any = None,
                 shuffle: bool | None = None, num_shards: int | None = None, shard_id: int | None = None) -> None:
        from .config import get_seed
        from .tfrecord import _TYPES, Schema

        if schema is not None and not isinstance(schema, Schema):
            schema = Schema(schema)
        cols = [] if schema is None else schema.columns
        if not cols:
            cols = [{"name": "col", "type": "int32", "shape": [2]}]
        if columns_list is not None:
            want = list(columns_list)
            unknown = [c for c in want if c not in {x["name"] for x in cols}]
            if unknown:
                raise DatasetError(f"RandomDataset: columns_list names {unknown}, not in the schema")
            cols = [next(x for x in cols if x["name"] == c) for c in want]
        specs = []
        for c in cols:
            dtype = _TYPES[c["type"]]
            if dtype is None:
                raise DatasetError(f"RandomDataset: column {c['name']!r} has type {c['type']}; random data needs a "
                                   "numeric type")
            specs.append((np.dtype(dtype), tuple(c.get("shape") or [1])))
        rows = total_rows if total_rows is not None else (schema.num_rows if schema is not None and schema.num_rows
                                                          else 100)
        if rows < 1:
            raise ValueError(f"RandomDataset: total_rows must be positive, got {total_rows}")
        self._n, self._gen = int(rows), _RandomRows(specs, get_seed() or 0)
        super().__init__(column_names=[c["name"] for c in cols], num_samples=num_samples, shuffle=shuffle,
                         sampler=None, num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers)

    def _num_rows(self) -> int:
        return self._n

    def _reader(self) -> _RandomRows:
        return self._gen
