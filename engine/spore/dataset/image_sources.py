"""More image datasets read from their releases' local files (issue 14, dataset slice):
STL-10 (binary ``*_X.bin``/``*_y.bin``), QMNIST (idx files with int32 extended labels), CelebA
(``img_align_celeba/`` + ``list_attr_celeba.txt`` + ``list_eval_partition.txt``), Caltech-256
(``NNN.name/`` class folders) and Omniglot (``images_background``/``images_evaluation``
alphabet/character folders). Errors name the file (and the line).
"""

from __future__ import annotations

import gzip
import math
import os
from typing import Any

import numpy as np

from .annotated_sources import _AnnotatedSource
from .errors import DatasetError
from .file_sources import _Columns, _read_lines, _usages
from .vision_folders import _check_dir, _find, read_idx

__all__ = ["Caltech256Dataset", "CelebADataset", "OmniglotDataset", "QMnistDataset", "RenderedSST2Dataset",
           "STL10Dataset", "SUN397Dataset", "WIDERFaceDataset"]


def _read_bytes(path: str, owner: str) -> bytes:
    try:
        with (gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")) as f:
            return f.read()
    except (OSError, EOFError) as e:
        raise DatasetError(f"{owner}: cannot read {path}: {type(e).__name__}: {e}") from e


class STL10Dataset(_Columns):
    """STL-10: ``image`` (96, 96, 3) uint8 and ``label`` int32 (0-9; -1 for the unlabeled split).
    ``usage``: 'train', 'test', 'unlabeled', 'train+unlabeled' or 'all'."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "STL10Dataset")
        usage = "all" if usage is None else usage
        splits = {"train": ["train"], "test": ["test"], "unlabeled": ["unlabeled"],
                  "train+unlabeled": ["train", "unlabeled"], "all": ["train", "test", "unlabeled"]}
        if usage not in splits:
            raise ValueError(f"STL10Dataset: usage must be one of {list(splits)}, got {usage!r}")
        images, labels = [], []
        for split in splits[usage]:
            xpath = os.path.join(root, f"{split}_X.bin")
            raw = _read_bytes(xpath, "STL10Dataset")
            if not raw or len(raw) % (3 * 96 * 96):
                raise DatasetError(f"STL10Dataset: {xpath} is {len(raw)} bytes, not a whole number of "
                                   "3x96x96 images")
            x = np.frombuffer(raw, np.uint8).reshape(-1, 3, 96, 96).transpose(0, 3, 2, 1)  # column-major planes
            if split == "unlabeled":
                y = np.full(len(x), -1, np.int32)
            else:
                ypath = os.path.join(root, f"{split}_y.bin")
                y = np.frombuffer(_read_bytes(ypath, "STL10Dataset"), np.uint8).astype(np.int32) - 1
                if len(y) != len(x):
                    raise DatasetError(f"STL10Dataset: {ypath} has {len(y)} labels for {len(x)} images")
            images.append(np.ascontiguousarray(x))
            labels.append(y)
        self._init_columns(["image", "label"], [np.concatenate(images), np.concatenate(labels)], num_samples,
                           shuffle, sampler, num_shards, shard_id, num_parallel_workers)


def _read_int_idx(path: str) -> np.ndarray:
    """An idx file of big-endian int32 (QMNIST's labels: magic 3074, shape (N, 8))."""
    raw = _read_bytes(path, "QMnistDataset")
    if len(raw) < 4 or int.from_bytes(raw[:4], "big") != 3074:
        raise DatasetError(f"QMnistDataset: {path} is not an int32 idx file (magic 3074)")
    ndim = raw[3]
    dims = np.frombuffer(raw[4:4 + 4 * ndim], ">u4").tolist()
    count = math.prod(dims)
    data = raw[4 + 4 * ndim:]
    if len(data) != 4 * count:
        raise DatasetError(f"QMnistDataset: {path} holds {len(data)} data bytes, its header (dims {dims}) says "
                           f"{4 * count}")
    return np.frombuffer(data, ">i4").reshape(dims).astype(np.int64)


class QMnistDataset(_Columns):
    """QMNIST: ``image`` (28, 28, 1) uint8 and ``label``: with ``compat=True`` the digit (uint32), else
    all eight int64 label columns of the release. ``usage``: 'train', 'test', 'test10k', 'test50k',
    'nist' or 'all' (train + test)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, compat: bool = True,
                 num_samples: int | None = None, num_parallel_workers: int | None = None, shuffle: bool | None = None,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "QMnistDataset")
        usage = "all" if usage is None else usage
        parts = {"train": [("train", None)], "test": [("test", None)], "test10k": [("test", slice(0, 10000))],
                 "test50k": [("test", slice(10000, None))], "nist": [("nist", None)],
                 "all": [("train", None), ("test", None)]}
        if usage not in parts:
            raise ValueError(f"QMnistDataset: usage must be one of {list(parts)}, got {usage!r}")
        images, labels = [], []
        for prefix, part in parts[usage]:
            stem = "xnist" if prefix == "nist" else f"qmnist-{prefix}"
            img = read_idx(_find(root, [f"{stem}-images-idx3-ubyte"], "QMnistDataset"), 2051)
            lab = _read_int_idx(_find(root, [f"{stem}-labels-idx2-int"], "QMnistDataset"))
            if len(img) != len(lab):
                raise DatasetError(f"QMnistDataset: {stem} has {len(img)} images but {len(lab)} labels")
            sel = part or slice(None)
            images.append(img[sel][..., None])
            labels.append(lab[sel])
        lab = np.concatenate(labels)
        self._init_columns(["image", "label"], [np.concatenate(images), lab[:, 0].astype(np.uint32) if compat else lab],
                           num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)


class CelebADataset(_AnnotatedSource):
    """CelebA: ``image`` (file bytes, or decoded) and ``attr`` (40 uint32 0/1 attributes, from
    ``list_attr_celeba.txt``'s -1/1). ``usage``: 'train', 'valid', 'test' (``list_eval_partition.txt``
    0/1/2) or 'all'."""

    def __init__(self, dataset_dir: str, num_parallel_workers: int | None = None, shuffle: bool | None = None,
                 usage: str = "all", sampler: Any = None, decode: bool = False, extensions: Any = None,
                 num_samples: int | None = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None, decrypt: Any = None) -> None:
        root = _check_dir(dataset_dir, "CelebADataset")
        wanted = _usages(usage, ("train", "valid", "test"), "CelebADataset")
        attr_path = os.path.join(root, "list_attr_celeba.txt")
        lines = _read_lines(attr_path, "CelebADataset")
        if len(lines) < 2:
            raise DatasetError(f"CelebADataset: {attr_path} lacks its count and attribute-name lines")
        names = lines[1].split()
        attrs: dict[str, np.ndarray] = {}
        order = []
        for line_no, line in enumerate(lines[2:], 3):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != len(names) + 1 or not all(p in ("1", "-1") for p in parts[1:]):
                raise DatasetError(f"CelebADataset: {attr_path}, line {line_no}: expected a file name and "
                                   f"{len(names)} values of 1/-1")
            attrs[parts[0]] = (np.array(parts[1:], np.int64) > 0).astype(np.uint32)
            order.append(parts[0])
        part_path = os.path.join(root, "list_eval_partition.txt")
        if wanted != ["train", "valid", "test"]:
            codes = {"train": "0", "valid": "1", "test": "2"}
            keep = {codes[u] for u in wanted}
            split = {}
            for line_no, line in enumerate(_read_lines(part_path, "CelebADataset"), 1):
                parts = line.split()
                if parts:
                    if len(parts) != 2:
                        raise DatasetError(f"CelebADataset: {part_path}, line {line_no}: expected 'file partition'")
                    split[parts[0]] = parts[1]
            order = [f for f in order if split.get(f) in keep]
        if extensions is not None:
            exts = tuple(e.lower() for e in extensions)
            order = [f for f in order if os.path.splitext(f)[1].lower() in exts]
        self.class_indexing = {n: i for i, n in enumerate(names)}
        self._setup(["image", "attr"], [os.path.join(root, "img_align_celeba", f) for f in order],
                    [[attrs[f] for f in order]], decode, num_samples, shuffle, sampler, num_shards, shard_id,
                    num_parallel_workers)


def _image_files(folder: str) -> list[str]:
    return sorted(n for n in os.listdir(folder) if not n.startswith(".") and os.path.isfile(os.path.join(folder, n)))


class Caltech256Dataset(_AnnotatedSource):
    """Caltech-256: ``image`` and ``label`` (int32, the folder's number ``NNN.`` minus 1) from the
    ``NNN.name/`` folders in ``dataset_dir``."""

    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, decode: bool = False, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "Caltech256Dataset")
        files, labels = [], []
        folders = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)) and not d.startswith("."))
        for d in folders:
            head = d.split(".", 1)[0]
            if not head.isdigit():
                raise DatasetError(f"Caltech256Dataset: folder {os.path.join(root, d)} is not named 'NNN.name'")
            for n in _image_files(os.path.join(root, d)):
                files.append(os.path.join(root, d, n))
                labels.append(np.int32(int(head) - 1))
        self.class_indexing = {d.split(".", 1)[1] if "." in d else d: int(d.split(".", 1)[0]) - 1 for d in folders}
        self._setup(["image", "label"], files, [labels], decode, num_samples, shuffle, sampler, num_shards, shard_id,
                    num_parallel_workers)


class OmniglotDataset(_AnnotatedSource):
    """Omniglot: ``image`` and ``label`` (int32, the character's index over the sorted
    alphabet/character folders) from ``images_background`` (``background=True``),
    ``images_evaluation`` (False) or both (None)."""

    def __init__(self, dataset_dir: str, background: bool | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "OmniglotDataset")
        sets = {True: ["images_background"], False: ["images_evaluation"],
                None: ["images_background", "images_evaluation"]}[background]
        files, labels = [], []
        label = 0
        self.class_indexing = {}
        for s in sets:
            base = os.path.join(root, s)
            if not os.path.isdir(base):
                raise DatasetError(f"OmniglotDataset: no folder {s} in {root}")
            for alphabet in sorted(os.listdir(base)):
                adir = os.path.join(base, alphabet)
                if not os.path.isdir(adir):
                    continue
                for char in sorted(os.listdir(adir)):
                    cdir = os.path.join(adir, char)
                    if not os.path.isdir(cdir):
                        continue
                    for n in _image_files(cdir):
                        files.append(os.path.join(cdir, n))
                        labels.append(np.int32(label))
                    self.class_indexing[f"{s}/{alphabet}/{char}"] = label
                    label += 1
        self._setup(["image", "label"], files, [labels], decode, num_samples, shuffle, sampler, num_shards, shard_id,
                    num_parallel_workers)


class RenderedSST2Dataset(_AnnotatedSource):
    """Rendered SST-2: ``image`` and ``label`` (uint32: negative 0, positive 1) from
    ``<usage>/{negative,positive}/*.png``; ``usage``: 'train', 'val', 'test' or 'all'."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "RenderedSST2Dataset")
        files, labels = [], []
        for u in _usages(usage, ("train", "val", "test"), "RenderedSST2Dataset"):
            for label, cls in enumerate(("negative", "positive")):
                d = os.path.join(root, u, cls)
                if not os.path.isdir(d):
                    raise DatasetError(f"RenderedSST2Dataset: no folder {u}/{cls} in {root}")
                for n in _image_files(d):
                    files.append(os.path.join(d, n))
                    labels.append(np.uint32(label))
        self.class_indexing = {"negative": 0, "positive": 1}
        self._setup(["image", "label"], files, [labels], decode, num_samples, shuffle, sampler, num_shards, shard_id,
                    num_parallel_workers)


class SUN397Dataset(_AnnotatedSource):
    """SUN397: ``image`` and ``label`` (uint32, the class's line in ``ClassName.txt``, whose lines
    are the class folders such as ``/a/abbey``)."""

    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, decode: bool = False, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "SUN397Dataset")
        classes = [c.strip() for c in _read_lines(os.path.join(root, "ClassName.txt"), "SUN397Dataset") if c.strip()]
        files, labels = [], []
        for label, cls in enumerate(classes):
            d = os.path.join(root, cls.lstrip("/"))
            if not os.path.isdir(d):
                raise DatasetError(f"SUN397Dataset: ClassName.txt lists {cls}, but {d} is not a folder")
            for n in _image_files(d):
                files.append(os.path.join(d, n))
                labels.append(np.uint32(label))
        self.class_indexing = {c: i for i, c in enumerate(classes)}
        self._setup(["image", "label"], files, [labels], decode, num_samples, shuffle, sampler, num_shards, shard_id,
                    num_parallel_workers)


class WIDERFaceDataset(_AnnotatedSource):
    """WIDER FACE: ``image``, ``bbox`` (uint32 (N, 4): x, y, w, h) and per face ``blur``,
    ``expression``, ``illumination``, ``occlusion``, ``pose``, ``invalid`` (uint32 (N, 1)), from
    ``WIDER_<usage>/images/`` and ``wider_face_split/wider_face_<usage>_bbx_gt.txt``; ``usage``:
    'train', 'valid' or 'all' ('test' has no boxes and is read with images only)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "WIDERFaceDataset")
        usage = "all" if usage is None else usage
        if usage not in ("train", "valid", "test", "all"):
            raise ValueError(f"WIDERFaceDataset: usage must be 'train', 'valid', 'test' or 'all', got {usage!r}")
        if usage == "test":
            listing = os.path.join(root, "wider_face_split", "wider_face_test_filelist.txt")
            names = [n.strip() for n in _read_lines(listing, "WIDERFaceDataset") if n.strip()]
            self.class_indexing = {}
            self._setup(["image"], [os.path.join(root, "WIDER_test", "images", n) for n in names], [], decode,
                        num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)
            return
        files = []
        cols: list[list[np.ndarray]] = [[] for _ in range(7)]
        for u in (["train", "val"] if usage == "all" else ["val" if usage == "valid" else "train"]):
            gt = os.path.join(root, "wider_face_split", f"wider_face_{u}_bbx_gt.txt")
            lines = [line.strip() for line in _read_lines(gt, "WIDERFaceDataset")]
            i = 0
            while i < len(lines):
                if not lines[i]:
                    i += 1
                    continue
                name = lines[i]
                try:
                    count = int(lines[i + 1])
                    rows = [[int(v) for v in lines[i + 2 + k].split()[:10]] for k in range(max(count, 1))]
                except (IndexError, ValueError) as e:
                    raise DatasetError(f"WIDERFaceDataset: {gt}, line {i + 1}: the entry of {name} is malformed "
                                       f"({type(e).__name__}: {e})") from e
                if count == 0:
                    rows = []
                if any(len(r) != 10 for r in rows):
                    raise DatasetError(f"WIDERFaceDataset: {gt}, the entry of {name}: each face needs 10 values")
                arr = np.asarray(rows, np.int64).reshape(-1, 10).astype(np.uint32)
                files.append(os.path.join(root, f"WIDER_{u}", "images", name))
                cols[0].append(np.ascontiguousarray(arr[:, :4]))
                # file order: blur expression illumination invalid occlusion pose
                for c, k in zip(range(1, 7), (4, 5, 6, 8, 9, 7), strict=True):
                    cols[c].append(np.ascontiguousarray(arr[:, k:k + 1]))
                i += 2 + max(count, 1)
        self.class_indexing = {}
        self._setup(["image", "bbox", "blur", "expression", "illumination", "occlusion", "pose", "invalid"], files,
                    cols, decode, num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)
