"""Image sources on disk: ``ImageFolderDataset``, ``MnistDataset`` and ``Cifar10Dataset``.

MNIST is read from the standard idx files (plain or ``.gz``), CIFAR-10 from its *binary* version
(``data_batch_1.bin`` ... ``test_batch.bin``: one label byte then 3072 bytes of CHW pixels per
record). The CIFAR-10 *python* version is a set of pickles, and unpickling a downloaded file can
run arbitrary code, so it is refused with a pointer to the binary version — never loaded.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .errors import DatasetError
from .source_base import MappableSource


def _check_dir(path: Any, owner: str) -> str:
    path = os.fspath(path)
    if not os.path.isdir(path):
        raise DatasetError(f"{owner}: dataset_dir {path!r} is not a directory")
    return path


def _usage(usage: str | None, owner: str) -> str:
    usage = "all" if usage is None else usage
    if usage not in ("train", "test", "all"):
        raise ValueError(f"{owner}: usage must be 'train', 'test', 'all' or None, got {usage!r}")
    return usage


class _FileReader:
    """Reads (image bytes or decoded HWC RGB image, label) for row ``index``; picklable."""

    def __init__(self, files: list[str], labels: np.ndarray, decode: bool) -> None:
        self.files, self.labels, self.decode = files, labels, decode

    def __call__(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        with open(self.files[index], "rb") as f:
            raw = f.read()
        if self.decode:
            from .vision.transforms import decode_bytes

            image = decode_bytes(raw)
        else:
            image = np.frombuffer(raw, dtype=np.uint8)
        return image, self.labels[index]


class ImageFolderDataset(MappableSource):
    """Images in ``dataset_dir/<class name>/<file>``; labels number the class folders.

    Columns ``image`` (the file's bytes as a 1-D uint8 array, or with ``decode=True`` an HWC RGB
    uint8 array) and ``label`` (int32). Without ``class_indexing`` the sorted folder names get
    labels 0, 1, ...; with it, only the folders it names are read.
    """

    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, extensions: Sequence[str] | None = None,
                 class_indexing: dict[str, int] | None = None, decode: bool = False, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None, decrypt: Any = None) -> None:
        root = _check_dir(dataset_dir, "ImageFolderDataset")
        folders = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)) and not d.startswith("."))
        if class_indexing is None:
            class_indexing = {d: i for i, d in enumerate(folders)}
        else:
            unknown = [c for c in class_indexing if c not in folders]
            if unknown:
                raise DatasetError(f"ImageFolderDataset: class_indexing names folder(s) {unknown} not in {root}")
        exts = None if extensions is None else tuple(e.lower() for e in extensions)
        files, labels = [], []
        for folder in sorted(class_indexing):
            d = os.path.join(root, folder)
            for name in sorted(os.listdir(d)):
                p = os.path.join(d, name)
                if name.startswith(".") or not os.path.isfile(p):
                    continue
                if exts is not None and os.path.splitext(name)[1].lower() not in exts:
                    continue
                files.append(p)
                labels.append(class_indexing[folder])
        self.class_indexing = dict(class_indexing)
        self._files, self._labels, self._decode = files, np.asarray(labels, dtype=np.int32), bool(decode)
        super().__init__(column_names=["image", "label"], num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id, num_parallel_workers=num_parallel_workers)

    def get_class_indexing(self) -> dict[str, int]:
        """The folder-name-to-label mapping."""
        return dict(self.class_indexing)

    def _num_rows(self) -> int:
        return len(self._files)

    def _reader(self) -> _FileReader:
        return _FileReader(self._files, self._labels, self._decode)


class _ArrayPairReader:
    def __init__(self, images: Sequence[np.ndarray], labels: Sequence[np.ndarray]) -> None:
        self.images, self.labels = images, labels

    def __call__(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        return self.images[index], self.labels[index]


def _read_maybe_gz(path: str) -> bytes:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return f.read()


def _find(root: str, stems: Sequence[str], owner: str) -> str:
    for stem in stems:
        for name in (stem, stem + ".gz"):
            p = os.path.join(root, name)
            if os.path.isfile(p):
                return p
    raise DatasetError(f"{owner}: none of {list(stems)} (or .gz) found in {root}")


def read_idx(path: str, expect_magic: int) -> np.ndarray:
    """An idx file (MNIST's format: big-endian magic, dimension sizes, then uint8 data)."""
    raw = _read_maybe_gz(path)
    if len(raw) < 8:
        raise DatasetError(f"MnistDataset: {path} is too short to be an idx file")
    magic = int.from_bytes(raw[:4], "big")
    if magic != expect_magic:
        raise DatasetError(f"MnistDataset: {path} has magic number {magic}, expected {expect_magic}",
                           hint="image files start with 2051 and label files with 2049")
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    start = 4 + 4 * ndim
    count = int(np.prod(dims))
    if len(raw) - start != count:
        raise DatasetError(f"MnistDataset: {path} holds {len(raw) - start} data bytes, its header says {count}")
    return np.frombuffer(raw, dtype=np.uint8, offset=start).reshape(dims)


class MnistDataset(MappableSource):
    """MNIST from its idx files: ``image`` (28, 28, 1) uint8 and ``label`` uint32.

    ``usage`` is 'train' (train-* files), 'test' (t10k-* files) or 'all' (both, train first).
    """

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "MnistDataset")
        usage = _usage(usage, "MnistDataset")
        images, labels = [], []
        for prefix in (["train", "t10k"] if usage == "all" else ["train" if usage == "train" else "t10k"]):
            img = read_idx(_find(root, [f"{prefix}-images-idx3-ubyte", f"{prefix}-images.idx3-ubyte"], "MnistDataset"),
                           2051)
            lab = read_idx(_find(root, [f"{prefix}-labels-idx1-ubyte", f"{prefix}-labels.idx1-ubyte"], "MnistDataset"),
                           2049)
            if len(img) != len(lab):
                raise DatasetError(f"MnistDataset: {prefix} has {len(img)} images but {len(lab)} labels")
            images.append(img[..., None])
            labels.append(lab.astype(np.uint32))
        self._images = np.concatenate(images)
        self._labels = np.concatenate(labels)
        super().__init__(column_names=["image", "label"], num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id, num_parallel_workers=num_parallel_workers)

    def _num_rows(self) -> int:
        return len(self._labels)

    def _reader(self) -> _ArrayPairReader:
        return _ArrayPairReader(self._images, self._labels)


_CIFAR_RECORD = 1 + 3 * 32 * 32


def _cifar_root(root: str) -> str:
    sub = os.path.join(root, "cifar-10-batches-bin")
    return sub if os.path.isdir(sub) and not os.path.isfile(os.path.join(root, "test_batch.bin")) else root


def _refuse_python_version(root: str) -> None:
    for name in ("data_batch_1", "test_batch", "batches.meta"):
        if os.path.isfile(os.path.join(root, name)):
            raise DatasetError(
                f"Cifar10Dataset: {root} holds the CIFAR-10 *python* version ({name}), which is made of pickles; "
                "Spore never unpickles downloaded files, since unpickling can run arbitrary code",
                hint="download the binary version (cifar-10-binary.tar.gz, with data_batch_1.bin ... test_batch.bin) "
                     "and point dataset_dir at its cifar-10-batches-bin folder")


class _CifarReader:
    def __init__(self, records: list[np.ndarray]) -> None:
        self.records = records
        self.offsets = np.cumsum([0] + [len(r) for r in records])

    def __call__(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        f = int(np.searchsorted(self.offsets, index, side="right")) - 1
        rec = self.records[f][index - self.offsets[f]]
        image = np.ascontiguousarray(rec[1:].reshape(3, 32, 32).transpose(1, 2, 0))
        return image, np.uint32(rec[0])


class Cifar10Dataset(MappableSource):
    """CIFAR-10 from its binary files: ``image`` (32, 32, 3) HWC uint8 and ``label`` uint32.

    ``usage`` is 'train' (data_batch_1..5.bin), 'test' (test_batch.bin) or 'all' (train first).
    """

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        root = _cifar_root(_check_dir(dataset_dir, "Cifar10Dataset"))
        usage = _usage(usage, "Cifar10Dataset")
        names = []
        if usage in ("train", "all"):
            names += [f"data_batch_{i}.bin" for i in range(1, 6)]
        if usage in ("test", "all"):
            names.append("test_batch.bin")
        present = [n for n in names if os.path.isfile(os.path.join(root, n))]
        if not present:
            _refuse_python_version(root)
            raise DatasetError(f"Cifar10Dataset: none of {names} found in {root}",
                               hint="point dataset_dir at the folder holding the binary version's .bin files")
        records = []
        for n in present:
            path = os.path.join(root, n)
            size = os.path.getsize(path)
            if size % _CIFAR_RECORD:
                raise DatasetError(f"Cifar10Dataset: {path} is {size} bytes, not a whole number of "
                                   f"{_CIFAR_RECORD}-byte records (1 label byte + 3072 pixel bytes)")
            records.append(np.memmap(path, dtype=np.uint8, mode="r").reshape(-1, _CIFAR_RECORD))
        self.files = [os.path.join(root, n) for n in present]
        self._records = records
        super().__init__(column_names=["image", "label"], num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id, num_parallel_workers=num_parallel_workers)

    def _num_rows(self) -> int:
        return sum(len(r) for r in self._records)

    def _reader(self) -> _CifarReader:
        return _CifarReader(self._records)
