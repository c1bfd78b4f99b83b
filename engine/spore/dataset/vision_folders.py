"""Image sources on disk: ``ImageFolderDataset``, ``MnistDataset`` and ``Cifar10Dataset``.

MNIST is read from the standard idx files (plain or ``.gz``), CIFAR-10 from its *binary* version
(``data_batch_1.bin`` ... ``test_batch.bin``: one label byte then 3072 bytes of CHW pixels per
record). The CIFAR-10 *python* version is a set of pickles, and unpickling a downloaded file can
run arbitrary code, so it is refused with a pointer to the binary version — never loaded.

Every read or decode failure is a `DatasetError` naming the file (and, for ImageFolderDataset,
the row). Sizes declared by a file's header are multiplied as Python integers and checked against
the file's real size (or, for ``.gz``, a cap) before anything is allocated, so a header claiming
``2**31 x 2**31 x 4`` bytes cannot wrap around to a small number.
"""

from __future__ import annotations

import gzip
import math
import os
import zlib
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


# One image file larger than this is refused before it is read (the biggest real photos are ~100 MB).
MAX_IMAGE_FILE_BYTES = 1 << 31


class _FileReader:
    """Reads (image bytes or decoded HWC RGB image, label) for row ``index``; picklable.

    Its errors name the file and the row; the source puts "ImageFolderDataset:" in front.
    """

    def __init__(self, files: list[str], labels: np.ndarray, decode: bool) -> None:
        self.files, self.labels, self.decode = files, labels, decode

    def __call__(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        path = self.files[index]
        try:
            with open(path, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                if size > MAX_IMAGE_FILE_BYTES:
                    raise DatasetError(f"cannot read {path} (row {index}): it is {size} bytes, more than the "
                                       f"{MAX_IMAGE_FILE_BYTES}-byte limit for one image file",
                                       hint="remove it from the folder, or pass extensions=[...] to skip it")
                raw = f.read(size + 1)  # never more than the size checked above, plus one to see growth
        except OSError as e:
            raise DatasetError(f"cannot read {path} (row {index}): {e.strerror or e}") from e
        if len(raw) > size:
            raise DatasetError(f"cannot read {path} (row {index}): it grew while it was read (being written?)")
        if self.decode:
            from .vision.transforms import decode_bytes

            try:
                image = decode_bytes(raw)
            except Exception as e:  # PIL raises many kinds (OSError, SyntaxError, ValueError, ...) on bad files
                raise DatasetError(f"cannot decode {path} (row {index}, {len(raw)} bytes): "
                                   f"{type(e).__name__}: {e}",
                                   hint="the file is damaged or not an image; remove it or pass extensions=[...]") \
                    from e
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


# A .gz idx file's data size is only known once decompressed: its header may not claim more than this.
MAX_IDX_BYTES = 1 << 34  # 16 GiB; the real MNIST training images are 47 MB


def _open_idx(path: str) -> Any:
    return gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")


def _read_exactly(f: Any, n: int, path: str, what: str) -> bytes:
    """n bytes of f, or a DatasetError saying the file ends early."""
    chunks, got = [], 0
    while got < n:
        chunk = f.read(min(n - got, 1 << 24))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    if got != n:
        raise DatasetError(f"MnistDataset: {path} ends after {got} of the {n} bytes of its {what}: it is truncated")
    return b"".join(chunks)


def read_idx(path: str, expect_magic: int) -> np.ndarray:
    """An idx file (MNIST's format: big-endian magic, dimension sizes, then uint8 data).

    The header is read first and the size it declares checked — with Python integers, so no
    product wraps — against the file before the data is read.
    """
    try:
        with _open_idx(path) as f:
            return _read_idx(f, path, expect_magic)
    except (OSError, EOFError, zlib.error) as e:  # unreadable, or a damaged .gz (BadGzipFile is an OSError)
        raise DatasetError(f"MnistDataset: cannot read {path}: {type(e).__name__}: {e}") from e


def _read_idx(f: Any, path: str, expect_magic: int) -> np.ndarray:
    head = f.read(4)
    if len(head) < 4:
        raise DatasetError(f"MnistDataset: {path} is too short to be an idx file ({len(head)} bytes)")
    magic = int.from_bytes(head, "big")
    if magic != expect_magic:
        raise DatasetError(f"MnistDataset: {path} has magic number {magic}, expected {expect_magic}",
                           hint="image files start with 2051 and label files with 2049")
    ndim = head[3]
    dims = np.frombuffer(_read_exactly(f, 4 * ndim, path, "header"), dtype=">u4").tolist()  # Python ints
    count = math.prod(dims)  # Python integers: 2**31 * 2**31 * 4 is 2**64, not 0
    start = 4 + 4 * ndim
    if path.endswith(".gz"):
        if count > MAX_IDX_BYTES:
            raise DatasetError(f"MnistDataset: {path} declares dims {dims}, {count} bytes of data, more than the "
                               f"{MAX_IDX_BYTES}-byte limit for a compressed idx file: the header is corrupted")
    else:
        size = os.fstat(f.fileno()).st_size
        if size - start != count:
            raise DatasetError(f"MnistDataset: {path} holds {size - start} data bytes, its header (dims {dims}) "
                               f"says {count}")
    data = _read_exactly(f, count, path, f"data (dims {dims})")
    if f.read(1):
        raise DatasetError(f"MnistDataset: {path} has bytes after the {count} its header (dims {dims}) declares")
    return np.frombuffer(data, dtype=np.uint8).reshape(dims)


def _find(root: str, stems: Sequence[str], owner: str) -> str:
    for stem in stems:
        for name in (stem, stem + ".gz"):
            p = os.path.join(root, name)
            if os.path.isfile(p):
                return p
    raise DatasetError(f"{owner}: none of {list(stems)} (or .gz) found in {root}")


def _mnist_prefixes(root: str, usage: str) -> list[str]:
    """The idx file sets to read: 'all' means whichever of train/t10k the folder holds (both when
    neither is there, so the error names the train files first)."""
    if usage != "all":
        return ["train" if usage == "train" else "t10k"]
    present = [p for p in ("train", "t10k") if any(os.path.isfile(os.path.join(root, f"{p}-images{sep}idx3-ubyte{gz}"))
                                                   for sep in ("-", ".") for gz in ("", ".gz"))]
    return present or ["train", "t10k"]


class MnistDataset(MappableSource):
    """MNIST from its idx files: ``image`` (28, 28, 1) uint8 and ``label`` uint32.

    ``usage`` is 'train' (train-* files), 'test' (t10k-* files) or 'all' (both, train first). With
    'all' (the default, None) a folder that holds only one of the two sets is read as it is, as
    MindSpore does: its quick-start reads ``MnistDataset("MNIST_Data/train")``.
    """

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "MnistDataset")
        usage = _usage(usage, "MnistDataset")
        images, labels = [], []
        for prefix in _mnist_prefixes(root, usage):
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


def _cifar_records(path: str) -> np.ndarray:
    """A CIFAR-10 binary batch as a (records, 3073) uint8 array, read into memory.

    Read rather than memory-mapped: a mapped file that is truncated while in use kills the process
    with SIGBUS, where a read file can only be refused. The size is checked before reading.
    """
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size == 0 or size % _CIFAR_RECORD:
                raise DatasetError(f"Cifar10Dataset: {path} is {size} bytes, not a whole number of "
                                   f"{_CIFAR_RECORD}-byte records (1 label byte + 3072 pixel bytes)",
                                   hint="the file is cut short or is not a CIFAR-10 binary batch")
            data = f.read(size + 1)
    except OSError as e:
        raise DatasetError(f"Cifar10Dataset: cannot read {path}: {e.strerror or e}") from e
    if len(data) != size:
        raise DatasetError(f"Cifar10Dataset: {path} changed size while it was read ({size} bytes, then {len(data)})")
    return np.frombuffer(data, dtype=np.uint8).reshape(-1, _CIFAR_RECORD)


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
            records.append(_cifar_records(os.path.join(root, n)))
        self.files = [os.path.join(root, n) for n in present]
        self._records = records
        super().__init__(column_names=["image", "label"], num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id, num_parallel_workers=num_parallel_workers)

    def _num_rows(self) -> int:
        return sum(len(r) for r in self._records)

    def _reader(self) -> _CifarReader:
        return _CifarReader(self._records)
