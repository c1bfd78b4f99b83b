"""More image datasets read from their releases' local files (issue 14, data slice): SVHN
(``*_32x32.mat``), Food-101, Oxford Flowers-102, Places365, KITTI object detection, Cityscapes,
PhotoTour (Multi-view Stereo Correspondence patches) and Caltech-101.

MATLAB files are read with SciPy's ``scipy.io.loadmat`` (MATLAB v5 files, which these releases
are; v7.3/HDF5 files are refused with a DatasetError saying so). Image files are read by row, as
their bytes (1-D uint8) or, with ``decode=True``, decoded to HWC RGB uint8; every open, read or
parse failure is a DatasetError naming the file (and the line or row).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .errors import DatasetError
from .file_sources import _Columns, _read_lines, _strings, _usages
from .source_base import MappableSource
from .vision_folders import MAX_IMAGE_FILE_BYTES, _check_dir

__all__ = ["Caltech101Dataset", "CityscapesDataset", "Flowers102Dataset", "Food101Dataset", "KITTIDataset",
           "LFWDataset", "LSUNDataset", "PhotoTourDataset", "Places365Dataset", "SBDataset", "SVHNDataset"]


def load_mat(path: str, owner: str) -> dict[str, Any]:
    """The variables of a MATLAB v5 ``.mat`` file."""
    try:
        import scipy.io
    except ImportError as e:  # scipy is a dependency of Spore's tests; say what is needed if it is absent
        raise DatasetError(f"{owner}: reading {path} needs SciPy (pip install scipy)") from e
    try:
        return scipy.io.loadmat(path)
    except NotImplementedError as e:  # scipy's message for v7.3 files
        raise DatasetError(f"{owner}: {path} is a MATLAB v7.3 (HDF5) file, which Spore does not read; "
                           "save it as v5 (MATLAB: save(..., '-v7'))") from e
    except (OSError, ValueError, TypeError) as e:
        raise DatasetError(f"{owner}: cannot read {path}: {type(e).__name__}: {e}") from e


def _read_file(path: str, index: int) -> bytes:
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > MAX_IMAGE_FILE_BYTES:
                raise DatasetError(f"cannot read {path} (row {index}): {size} bytes is more than the "
                                   f"{MAX_IMAGE_FILE_BYTES}-byte limit for one file")
            return f.read()
    except OSError as e:
        raise DatasetError(f"cannot read {path} (row {index}): {e.strerror or e}") from e


def _decode(raw: bytes, path: str, index: int, mode: str = "RGB") -> np.ndarray:
    import io

    from PIL import Image

    try:
        with Image.open(io.BytesIO(raw)) as im:
            return np.asarray(im.convert(mode) if mode else im).copy()
    except Exception as e:  # PIL raises many kinds on bad files
        raise DatasetError(f"cannot decode {path} (row {index}): {type(e).__name__}: {e}") from e


class _FilesReader:
    """Row i -> one value per column: a file column gives the file's bytes (decoded to RGB, or kept
    as stored with mode '' , when its decode flag is set); any other column its i-th value."""

    def __init__(self, columns: list[Any], kinds: list[str], decode: bool) -> None:
        self.columns, self.kinds, self.decode = columns, kinds, decode

    def __call__(self, index: int) -> tuple[Any, ...]:
        out: list[Any] = []
        for col, kind in zip(self.columns, self.kinds, strict=True):
            value = col[index]
            if kind in ("file", "file_raw"):
                raw = _read_file(value, index)
                if self.decode:
                    out.append(_decode(raw, value, index, "RGB" if kind == "file" else ""))
                else:
                    out.append(np.frombuffer(raw, np.uint8))
            elif kind == "text":
                try:
                    with open(value, encoding="utf-8") as f:
                        out.append(np.array(f.read()))
                except (OSError, UnicodeDecodeError) as e:
                    raise DatasetError(f"cannot read {value} (row {index}): {e}") from e
            else:
                out.append(value)
        return tuple(out)


class _FileColumns(MappableSource):
    """Rows whose image columns are files read (and decoded) by row."""

    def _setup(self, names: list[str], columns: list[Any], kinds: list[str], decode: bool, num_samples: int | None,
               shuffle: Any, sampler: Any, num_shards: int | None, shard_id: int | None,
               num_parallel_workers: int | None) -> None:
        self._fcols, self._kinds, self._decode = columns, kinds, bool(decode)
        super().__init__(column_names=names, num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id, num_parallel_workers=num_parallel_workers)

    def _num_rows(self) -> int:
        return len(self._fcols[0])

    def _reader(self) -> _FilesReader:
        return _FilesReader(self._fcols, self._kinds, self._decode)


class SVHNDataset(_Columns):
    """SVHN (cropped digits): ``image`` (32, 32, 3) uint8 and ``label`` uint32 (0-9; the release's
    label 10 is the digit 0) from ``train_32x32.mat``, ``test_32x32.mat``, ``extra_32x32.mat``;
    ``usage`` 'train', 'test', 'extra' or 'all' (in that order)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = 1, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None) -> None:
        owner = "SVHNDataset"
        root = _check_dir(dataset_dir, owner)
        images, labels = [], []
        for u in _usages(usage, ("train", "test", "extra"), owner):
            path = os.path.join(root, f"{u}_32x32.mat")
            if not os.path.isfile(path):
                raise DatasetError(f"{owner}: no {u}_32x32.mat in {root}")
            mat = load_mat(path, owner)
            if "X" not in mat or "y" not in mat:
                raise DatasetError(f"{owner}: {path} lacks the variables X and y")
            x, y = np.asarray(mat["X"]), np.asarray(mat["y"]).reshape(-1)
            if x.ndim != 4 or x.shape[:3] != (32, 32, 3) or x.shape[3] != len(y):
                raise DatasetError(f"{owner}: {path}: X has shape {x.shape}, expected (32, 32, 3, {len(y)})")
            images.append(np.ascontiguousarray(x.transpose(3, 0, 1, 2)).astype(np.uint8))
            labels.append(np.where(y == 10, 0, y).astype(np.uint32))
        self._init_columns(["image", "label"], [np.concatenate(images), np.concatenate(labels)], num_samples, shuffle,
                           sampler, num_shards, shard_id, num_parallel_workers)


class Food101Dataset(_FileColumns):
    """Food-101: ``image`` and ``label`` (the class name, a string) from ``images/<class>/<id>.jpg``
    listed in ``meta/train.txt`` / ``meta/test.txt`` (lines ``class/id``); ``usage`` 'train',
    'test' or 'all'."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        owner = "Food101Dataset"
        root = _check_dir(dataset_dir, owner)
        files, labels = [], []
        for u in _usages(usage, ("train", "test"), owner):
            listing = os.path.join(root, "meta", f"{u}.txt")
            for line_no, line in enumerate(_read_lines(listing, owner), 1):
                entry = line.strip()
                if not entry:
                    continue
                if "/" not in entry:
                    raise DatasetError(f"{owner}: {listing}, line {line_no}: expected 'class/image_id', got {entry!r}")
                files.append(os.path.join(root, "images", entry + ".jpg"))
                labels.append(entry.split("/", 1)[0])
        self._setup(["image", "label"], [files, _strings(labels)], ["file", "value"], decode, num_samples, shuffle,
                    sampler, num_shards, shard_id, num_parallel_workers)


class Flowers102Dataset(_FileColumns):
    """Oxford Flowers-102: ``image`` and ``label`` (uint32, the release's 1-102 minus 1) from
    ``jpg/image_NNNNN.jpg``, ``imagelabels.mat`` and ``setid.mat``; task 'Segmentation' adds
    ``segmentation`` (``segmim/segmim_NNNNN.jpg``) between them. ``usage`` 'train', 'valid',
    'test' or 'all' (train, test, then valid ids, as MindSpore reads them)."""

    def __init__(self, dataset_dir: str, task: str = "Classification", usage: str = "all",
                 num_samples: int | None = None, num_parallel_workers: int | None = 1, shuffle: bool | None = None,
                 decode: bool = False, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None) -> None:
        owner = "Flowers102Dataset"
        root = _check_dir(dataset_dir, owner)
        if task not in ("Classification", "Segmentation"):
            raise ValueError(f"{owner}: task must be 'Classification' or 'Segmentation', got {task!r}")
        keys = {"train": "trnid", "valid": "valid", "test": "tstid"}
        setid = load_mat(os.path.join(root, "setid.mat"), owner)
        labels_mat = load_mat(os.path.join(root, "imagelabels.mat"), owner)
        if "labels" not in labels_mat:
            raise DatasetError(f"{owner}: {os.path.join(root, 'imagelabels.mat')} lacks the variable 'labels'")
        all_labels = np.asarray(labels_mat["labels"]).reshape(-1).astype(np.int64)
        ids: list[int] = []
        for u in _usages(usage, ("train", "test", "valid"), owner):  # 'all': MindSpore's order, train/test/valid
            if keys[u] not in setid:
                raise DatasetError(f"{owner}: {os.path.join(root, 'setid.mat')} lacks the variable {keys[u]!r}")
            ids += [int(i) for i in np.asarray(setid[keys[u]]).reshape(-1)]
        bad = [i for i in ids if not 1 <= i <= len(all_labels)]
        if bad:
            raise DatasetError(f"{owner}: setid.mat names image {bad[0]}, but imagelabels.mat has "
                               f"{len(all_labels)} labels")
        files = [os.path.join(root, "jpg", f"image_{i:05d}.jpg") for i in ids]
        labels = [np.uint32(all_labels[i - 1] - 1) for i in ids]
        if task == "Classification":
            self._setup(["image", "label"], [files, labels], ["file", "value"], decode, num_samples, shuffle, sampler,
                        num_shards, shard_id, num_parallel_workers)
        else:
            segs = [os.path.join(root, "segmim", f"segmim_{i:05d}.jpg") for i in ids]
            self._setup(["image", "segmentation", "label"], [files, segs, labels], ["file", "file", "value"], decode,
                        num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)


class Places365Dataset(_FileColumns):
    """Places365: ``image`` and ``label`` (uint32) from ``places365_train_standard.txt``,
    ``places365_train_challenge.txt`` (or ``places365_train-*.txt``) or ``places365_val.txt``
    (lines ``<image path> <label>``) and the image folders ``data_256_standard``,
    ``data_256_challenge``, ``val_256`` (``small=True``) or ``data_large_*``, ``val_large`` (a
    plain ``data_256``/``data_large`` folder is read too); ``usage`` 'train-standard' (default),
    'train-challenge' or 'val'. ``categories_places365.txt`` gives `class_indexing`."""

    def __init__(self, dataset_dir: str, usage: str | None = None, small: bool = True, decode: bool = False,
                 num_samples: int | None = None, num_parallel_workers: int | None = None, shuffle: bool | None = None,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        owner = "Places365Dataset"
        root = _check_dir(dataset_dir, owner)
        usage = "train-standard" if usage is None else usage
        listings = {"train-standard": "places365_train_standard.txt",
                    "train-challenge": "places365_train_challenge.txt",
                    "val": "places365_val.txt"}
        if usage not in listings:
            raise ValueError(f"{owner}: usage must be one of {list(listings)}, got {usage!r}")
        self.class_indexing: dict[str, int] = {}
        categories = os.path.join(root, "categories_places365.txt")
        if os.path.isfile(categories):
            for line_no, line in enumerate(_read_lines(categories, owner), 1):
                parts = line.split()
                if parts:
                    if len(parts) != 2 or not parts[1].isdigit():
                        raise DatasetError(f"{owner}: {categories}, line {line_no}: expected '<class> <label>'")
                    self.class_indexing[parts[0]] = int(parts[1])
        size = "256" if small else "large"
        # MindSpore's (and torchvision's) folder names, then the release archives' shorter ones
        folders = [f"val_{size}"] if usage == "val" else [f"data_{size}_{usage.split('-')[1]}", f"data_{size}"]
        folder = next((f for f in folders if os.path.isdir(os.path.join(root, f))), folders[0])
        listing = os.path.join(root, listings[usage])
        if not os.path.isfile(listing) and os.path.isfile(os.path.join(root, listings[usage].replace("_train_",
                                                                                                     "_train-"))):
            listing = os.path.join(root, listings[usage].replace("_train_", "_train-"))  # as MindSpore's tree spells it
        files, labels = [], []
        for line_no, line in enumerate(_read_lines(listing, owner), 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 2 or not parts[1].isdigit():
                raise DatasetError(f"{owner}: {listing}, line {line_no}: expected '<image path> <label>'")
            files.append(os.path.join(root, folder, parts[0].lstrip("/")))
            labels.append(np.uint32(int(parts[1])))
        self._setup(["image", "label"], [files, labels], ["file", "value"], decode, num_samples, shuffle, sampler,
                    num_shards, shard_id, num_parallel_workers)

    def get_class_indexing(self) -> dict[str, int]:
        """The category-to-label mapping of ``categories_places365.txt``."""
        return dict(self.class_indexing)


_KITTI_TYPES = {"Car": 0, "Van": 1, "Truck": 2, "Pedestrian": 3, "Person_sitting": 4, "Cyclist": 5, "Tram": 6,
                "Misc": 7, "DontCare": 8}


class KITTIDataset(_FileColumns):
    """KITTI object detection: for 'train', ``image`` and per object ``label`` (uint32, the type's
    index in Car, Van, Truck, Pedestrian, Person_sitting, Cyclist, Tram, Misc, DontCare),
    ``truncated`` (float32), ``occluded`` (uint32), ``alpha``, ``bbox`` (4), ``dimensions`` (3),
    ``location`` (3), ``rotation_y`` (float32) from ``data_object_image_2/training/image_2/*.png``
    and ``data_object_label_2/training/label_2/*.txt``; 'test' gives ``image`` only."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        owner = "KITTIDataset"
        root = _check_dir(dataset_dir, owner)
        usage = "train" if usage is None else usage
        if usage not in ("train", "test"):
            raise ValueError(f"{owner}: usage must be 'train' or 'test', got {usage!r}")
        split = "training" if usage == "train" else "testing"
        image_dir = os.path.join(root, "data_object_image_2", split, "image_2")
        if not os.path.isdir(image_dir):
            raise DatasetError(f"{owner}: no folder {image_dir}")
        names = sorted(n for n in os.listdir(image_dir) if n.lower().endswith((".png", ".jpg", ".jpeg")))
        files = [os.path.join(image_dir, n) for n in names]
        if usage == "test":
            self._setup(["image"], [files], ["file"], decode, num_samples, shuffle, sampler, num_shards, shard_id,
                        num_parallel_workers)
            return
        cols: list[list[np.ndarray]] = [[] for _ in range(8)]
        for n in names:
            path = os.path.join(root, "data_object_label_2", split, "label_2", os.path.splitext(n)[0] + ".txt")
            objs = []
            for line_no, line in enumerate(_read_lines(path, owner), 1):
                parts = line.split()
                if not parts:
                    continue
                if len(parts) < 15 or parts[0] not in _KITTI_TYPES:
                    raise DatasetError(f"{owner}: {path}, line {line_no}: expected a known type and 14 numbers")
                try:
                    objs.append((_KITTI_TYPES[parts[0]], [float(v) for v in parts[1:15]]))
                except ValueError:
                    raise DatasetError(f"{owner}: {path}, line {line_no}: a value is not a number") from None
            vals = np.asarray([v for _, v in objs], np.float64).reshape(-1, 14)
            cols[0].append(np.asarray([t for t, _ in objs], np.uint32))
            cols[1].append(vals[:, 0].astype(np.float32))
            cols[2].append(vals[:, 1].astype(np.uint32))
            cols[3].append(vals[:, 2].astype(np.float32))
            cols[4].append(np.ascontiguousarray(vals[:, 3:7], np.float32))
            cols[5].append(np.ascontiguousarray(vals[:, 7:10], np.float32))
            cols[6].append(np.ascontiguousarray(vals[:, 10:13], np.float32))
            cols[7].append(vals[:, 13].astype(np.float32))
        self._setup(["image", "label", "truncated", "occluded", "alpha", "bbox", "dimensions", "location",
                     "rotation_y"], [files, *cols], ["file"] + ["value"] * 8, decode, num_samples, shuffle, sampler,
                    num_shards, shard_id, num_parallel_workers)


class CityscapesDataset(_FileColumns):
    """Cityscapes: ``image`` (``leftImg8bit/<usage>/<city>/*_leftImg8bit.png``) and ``task``, its
    annotation from ``gtFine``/``gtCoarse`` (``quality_mode`` 'fine' or 'coarse'): the
    ``*_instanceIds.png`` ('instance'), ``*_labelIds.png`` ('semantic'), ``*_color.png`` ('color')
    image, or the ``*_polygons.json`` text ('polygon'). ``usage``: 'train', 'test', 'val' or 'all'
    (fine); 'train', 'train_extra', 'val' or 'all' (coarse). The annotation images are decoded as
    stored (grey labels stay single-channel) when ``decode=True``."""

    def __init__(self, dataset_dir: str, usage: str = "train", quality_mode: str = "fine", task: str = "instance",
                 num_samples: int | None = None, num_parallel_workers: int | None = None, shuffle: bool | None = None,
                 decode: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        owner = "CityscapesDataset"
        root = _check_dir(dataset_dir, owner)
        if quality_mode not in ("fine", "coarse"):
            raise ValueError(f"{owner}: quality_mode must be 'fine' or 'coarse', got {quality_mode!r}")
        suffixes = {"instance": "instanceIds.png", "semantic": "labelIds.png", "color": "color.png",
                    "polygon": "polygons.json"}
        if task not in suffixes:
            raise ValueError(f"{owner}: task must be one of {list(suffixes)}, got {task!r}")
        splits = ("train", "test", "val") if quality_mode == "fine" else ("train", "train_extra", "val")
        gt = "gtFine" if quality_mode == "fine" else "gtCoarse"
        images, targets = [], []
        for u in _usages(usage, splits, owner):
            base = os.path.join(root, "leftImg8bit", u)
            if not os.path.isdir(base):
                raise DatasetError(f"{owner}: no folder {base}")
            for city in sorted(os.listdir(base)):
                cdir = os.path.join(base, city)
                if not os.path.isdir(cdir):
                    continue
                for n in sorted(os.listdir(cdir)):
                    if not n.endswith("_leftImg8bit.png"):
                        continue
                    stem = n[: -len("leftImg8bit.png")]
                    target = os.path.join(root, gt, u, city, f"{stem}{gt}_{suffixes[task]}")
                    if not os.path.isfile(target):
                        raise DatasetError(f"{owner}: {os.path.join(cdir, n)} has no annotation {target}")
                    images.append(os.path.join(cdir, n))
                    targets.append(target)
        kind = "text" if task == "polygon" else ("file" if task == "color" else "file_raw")
        self._setup(["image", "task"], [images, targets], ["file", kind], bool(decode), num_samples, shuffle, sampler,
                    num_shards, shard_id, num_parallel_workers)


_PHOTOTOUR_NAMES = ("notredame", "yosemite", "liberty", "notredame_harris", "yosemite_harris", "liberty_harris")


class _PatchReader:
    """Row i -> the patches of a PhotoTour row: patch k is tile k % 256 of ``patches{k // 256:04d}.bmp``."""

    def __init__(self, folder: str, columns: list[Any], patch_cols: int) -> None:
        self.folder, self.columns, self.patch_cols = folder, columns, patch_cols
        self._sheet: tuple[int, np.ndarray] | None = None  # the last sheet read: rows in order share sheets

    def patch(self, k: int, index: int) -> np.ndarray:
        sheet_no = k // 256
        cached = self._sheet
        if cached is not None and cached[0] == sheet_no:
            image = cached[1]
        else:
            path = os.path.join(self.folder, f"patches{sheet_no:04d}.bmp")
            image = _decode(_read_file(path, index), path, index, "L")
            if image.shape != (1024, 1024):
                raise DatasetError(f"cannot read {path} (row {index}): a patch sheet is 1024x1024, got {image.shape}")
            self._sheet = (sheet_no, image)
        r, c = divmod(k % 256, 16)
        return np.ascontiguousarray(image[64 * r: 64 * r + 64, 64 * c: 64 * c + 64, None])

    def __call__(self, index: int) -> tuple[Any, ...]:
        return tuple(self.patch(int(col[index]), index) if i < self.patch_cols else col[index]
                     for i, col in enumerate(self.columns))


class PhotoTourDataset(MappableSource):
    """PhotoTour patches of ``name`` ('notredame', 'yosemite', 'liberty' or their '_harris'
    variants) from ``<name>/patches*.bmp`` (1024x1024 sheets of 16x16 patches of 64x64 pixels),
    ``info.txt`` (one line per patch) and ``m50_100000_100000_0.txt`` (matches). ``usage``
    'train' (default): ``image`` (64, 64, 1) uint8 per patch; 'test': ``image1``, ``image2`` and
    ``matches`` (uint32: 1 when both patches show the same 3D point)."""

    def __init__(self, dataset_dir: str, name: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        owner = "PhotoTourDataset"
        root = _check_dir(dataset_dir, owner)
        if name not in _PHOTOTOUR_NAMES:
            raise ValueError(f"{owner}: name must be one of {list(_PHOTOTOUR_NAMES)}, got {name!r}")
        usage = "train" if usage is None else usage
        if usage not in ("train", "test"):
            raise ValueError(f"{owner}: usage must be 'train' or 'test', got {usage!r}")
        folder = os.path.join(root, name)
        if not os.path.isdir(folder):
            raise DatasetError(f"{owner}: no folder {name} in {root}")
        if usage == "train":
            info = os.path.join(folder, "info.txt")
            count = sum(1 for line in _read_lines(info, owner) if line.strip())
            names, cols, patch_cols = ["image"], [np.arange(count)], 1
        else:
            matches = os.path.join(folder, "m50_100000_100000_0.txt")
            a, b, same = [], [], []
            for line_no, line in enumerate(_read_lines(matches, owner), 1):
                parts = line.split()
                if not parts:
                    continue
                try:
                    a.append(int(parts[0]))
                    b.append(int(parts[3]))
                    same.append(np.uint32(int(parts[1]) == int(parts[4])))
                except (IndexError, ValueError):
                    raise DatasetError(f"{owner}: {matches}, line {line_no}: expected 'patch1 point1 0 patch2 "
                                       "point2 0 0'") from None
            names, cols, patch_cols = ["image1", "image2", "matches"], [np.asarray(a), np.asarray(b), same], 2
        self._folder, self._pcols, self._patch_cols = folder, cols, patch_cols
        super().__init__(column_names=names, num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id, num_parallel_workers=num_parallel_workers)

    def _num_rows(self) -> int:
        return len(self._pcols[0])

    def _reader(self) -> _PatchReader:
        return _PatchReader(self._folder, self._pcols, self._patch_cols)


_CALTECH101_ANNOTATION_DIRS = {"Faces": "Faces_2", "Faces_easy": "Faces_3", "Motorbikes": "Motorbikes_16",
                               "airplanes": "Airplanes_Side_2"}


class _ContourReader:
    """Reads the ``obj_contour`` of Caltech-101's annotation ``.mat`` files by row."""

    def __init__(self, files: list[str]) -> None:
        self.files = files

    def __getitem__(self, index: int) -> np.ndarray:
        mat = load_mat(self.files[index], "Caltech101Dataset")
        if "obj_contour" not in mat:
            raise DatasetError(f"Caltech101Dataset: {self.files[index]} lacks the variable obj_contour")
        return np.ascontiguousarray(mat["obj_contour"], np.float64)


class Caltech101Dataset(_FileColumns):
    """Caltech-101: ``image`` (``101_ObjectCategories/<class>/image_NNNN.jpg``, the
    BACKGROUND_Google folder left out) and, by ``target_type``, ``category`` (uint32, the class's
    index in sorted order; 'category', the default), ``annotation`` (the object contour, float64
    (2, N), from ``Annotations/<class>/annotation_NNNN.mat``; 'annotation') or both ('all')."""

    def __init__(self, dataset_dir: str, target_type: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = 1, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None) -> None:
        owner = "Caltech101Dataset"
        root = _check_dir(dataset_dir, owner)
        target_type = "category" if target_type is None else target_type
        if target_type not in ("category", "annotation", "all"):
            raise ValueError(f"{owner}: target_type must be 'category', 'annotation' or 'all', got {target_type!r}")
        base = os.path.join(root, "101_ObjectCategories")
        if not os.path.isdir(base):
            raise DatasetError(f"{owner}: no folder 101_ObjectCategories in {root}")
        classes = sorted(d for d in os.listdir(base) if os.path.isdir(os.path.join(base, d)) and
                         d != "BACKGROUND_Google" and not d.startswith("."))
        files, categories, annotations = [], [], []
        for label, cls in enumerate(classes):
            for n in sorted(x for x in os.listdir(os.path.join(base, cls)) if x.startswith("image_")):
                files.append(os.path.join(base, cls, n))
                categories.append(np.uint32(label))
                number = os.path.splitext(n)[0][len("image_"):]
                annotations.append(os.path.join(root, "Annotations", _CALTECH101_ANNOTATION_DIRS.get(cls, cls),
                                                f"annotation_{number}.mat"))
        self.class_indexing = {c: i for i, c in enumerate(classes)}
        names, cols, kinds = ["image"], [files], ["file"]
        if target_type in ("category", "all"):
            names, cols, kinds = names + ["category"], cols + [categories], kinds + ["value"]
        if target_type in ("annotation", "all"):
            names, cols, kinds = names + ["annotation"], cols + [_ContourReader(annotations)], kinds + ["value"]
        self._setup(names, cols, kinds, decode, num_samples, shuffle, sampler, num_shards, shard_id,
                    num_parallel_workers)

    def _num_rows(self) -> int:
        return len(self._fcols[0])

    def get_class_indexing(self) -> dict[str, int]:
        """The class-name-to-category mapping."""
        return dict(self.class_indexing)



_LFW_FOLDERS = {"original": "lfw", "funneled": "lfw_funneled", "deepfunneled": "lfw-deepfunneled"}


def _lfw_image(images: str, name: str, number: str, listing: str, line_no: int) -> str:
    try:
        return os.path.join(images, name, f"{name}_{int(number):04d}.jpg")
    except ValueError:
        raise DatasetError(f"LFWDataset: {listing}, entry {line_no - 1}: {number!r} is not an image number") from None


def _lfw_blocks(lines: list[str], listing: str, kind: str) -> list[list[str]]:
    """The entry lines of an LFW listing. people: ``N`` then N ``name count`` lines (DevTrain,
    DevTest) or ``folds`` then per fold ``N`` and N lines (people.txt); pairs: ``N`` (DevTrain,
    DevTest) or ``folds N`` (pairs.txt), then per fold N matched and N mismatched pairs."""
    body = [line.split() for line in lines if line.strip()]
    if not body:
        raise DatasetError(f"LFWDataset: {listing} is empty")
    try:
        if kind == "pairs":
            folds, n = (1, int(body[0][0])) if len(body[0]) == 1 else (int(body[0][0]), int(body[0][1]))
            entries = body[1:]
            if len(entries) != 2 * folds * n:
                raise ValueError
            return entries
        count = int(body[0][0])
        if kind == "people":
            if len(body) - 1 < count:
                raise ValueError
            return body[1:1 + count]
        out, i = [], 1
        for _ in range(count):
            n = int(body[i][0])
            out += body[i + 1:i + 1 + n]
            i += 1 + n
        return out
    except (ValueError, IndexError):
        raise DatasetError(f"LFWDataset: {listing}: the counts in it do not match its entries") from None


class LFWDataset(_FileColumns):
    """Labeled Faces in the Wild. ``task`` 'people' (default): ``image`` and ``label`` (uint32,
    the person's line in ``lfw-names.txt``); 'pairs': ``image1``, ``image2`` and ``label``
    (uint32: 1 for the same person). ``usage`` 'train' (``*DevTrain.txt``), 'test'
    (``*DevTest.txt``), '10fold' (``people.txt``/``pairs.txt``) or 'all' (train then test);
    ``image_set`` 'original' (``lfw/``), 'funneled' (default, ``lfw_funneled/``) or
    'deepfunneled' (``lfw-deepfunneled/``), each ``<name>/<name>_NNNN.jpg``."""

    def __init__(self, dataset_dir: str, task: str | None = None, usage: str | None = None,
                 image_set: str | None = None, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, decode: bool = False, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        owner = "LFWDataset"
        root = _check_dir(dataset_dir, owner)
        task = "people" if task is None else task
        if task not in ("people", "pairs"):
            raise ValueError(f"{owner}: task must be 'people' or 'pairs', got {task!r}")
        usage = "all" if usage is None else usage
        listings = {"train": ["DevTrain"], "test": ["DevTest"], "10fold": [""], "all": ["DevTrain", "DevTest"]}
        if usage not in listings:
            raise ValueError(f"{owner}: usage must be one of {list(listings)}, got {usage!r}")
        image_set = "funneled" if image_set is None else image_set
        if image_set not in _LFW_FOLDERS:
            raise ValueError(f"{owner}: image_set must be one of {list(_LFW_FOLDERS)}, got {image_set!r}")
        images = os.path.join(root, _LFW_FOLDERS[image_set])
        if task == "people":
            names_file = os.path.join(root, "lfw-names.txt")
            names = [line.split()[0] for line in _read_lines(names_file, owner) if line.strip()]
            self.class_indexing = {n: i for i, n in enumerate(names)}
            files, labels = [], []
            for suffix in listings[usage]:
                listing = os.path.join(root, f"people{suffix}.txt")
                for line_no, entry in enumerate(_lfw_blocks(_read_lines(listing, owner), listing,
                                                                  "people10" if suffix == "" else "people"), 2):
                    if len(entry) != 2 or entry[0] not in self.class_indexing:
                        raise DatasetError(f"{owner}: {listing}: entry {entry} is not 'name count' of a name in "
                                           "lfw-names.txt")
                    for k in range(1, int(entry[1]) + 1):
                        files.append(_lfw_image(images, entry[0], str(k), listing, line_no))
                        labels.append(np.uint32(self.class_indexing[entry[0]]))
            self._setup(["image", "label"], [files, labels], ["file", "value"], decode, num_samples, shuffle,
                        sampler, num_shards, shard_id, num_parallel_workers)
            return
        self.class_indexing = {}
        first, second, same = [], [], []
        for suffix in listings[usage]:
            listing = os.path.join(root, f"pairs{suffix}.txt")
            for line_no, entry in enumerate(_lfw_blocks(_read_lines(listing, owner), listing, "pairs"), 2):
                if len(entry) == 3:
                    a, b, match = (entry[0], entry[1]), (entry[0], entry[2]), 1
                elif len(entry) == 4:
                    a, b, match = (entry[0], entry[1]), (entry[2], entry[3]), 0
                else:
                    raise DatasetError(f"{owner}: {listing}: entry {entry} is not 'name i j' or 'name1 i name2 j'")
                first.append(_lfw_image(images, *a, listing, line_no))
                second.append(_lfw_image(images, *b, listing, line_no))
                same.append(np.uint32(match))
        self._setup(["image1", "image2", "label"], [first, second, same], ["file", "file", "value"], decode,
                    num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)

    def get_class_indexing(self) -> dict[str, int]:
        """The person-to-label mapping (task 'people')."""
        return dict(self.class_indexing)


class _SBDTargets:
    """Reads an SBD ``cls/<id>.mat`` target by row: the 20 class boundary maps (uint8 (20, H, W))
    or the class segmentation (uint8 (H, W))."""

    def __init__(self, files: list[str], boundaries: bool) -> None:
        self.files, self.boundaries = files, boundaries

    def __getitem__(self, index: int) -> np.ndarray:
        path = self.files[index]
        mat = load_mat(path, "SBDataset")
        try:
            gt = mat["GTcls"][0]
            if self.boundaries:
                cells = gt["Boundaries"][0].reshape(-1)
                return np.stack([np.asarray(c.toarray() if hasattr(c, "toarray") else c, np.uint8) for c in cells])
            return np.ascontiguousarray(gt["Segmentation"][0], np.uint8)
        except (KeyError, IndexError, ValueError, TypeError) as e:
            raise DatasetError(f"SBDataset: {path} (row {index}) is not an SBD GTcls file "
                               f"({type(e).__name__}: {e})") from e


class SBDataset(_FileColumns):
    """Semantic Boundaries Dataset: ``image`` (``img/<id>.jpg``) and ``task`` (``cls/<id>.mat``'s
    GTcls: its 20 class boundary maps, uint8 (20, H, W), for ``task`` 'Boundaries'; its class
    segmentation, uint8 (H, W), for 'Segmentation'); ids from ``train.txt``, ``val.txt`` or
    ``train_noval.txt`` (``usage`` 'train', 'val', 'train_noval'; 'all': train then val)."""

    def __init__(self, dataset_dir: str, task: str = "Boundaries", usage: str = "all", num_samples: int | None = None,
                 num_parallel_workers: int | None = 1, shuffle: bool | None = None, decode: bool | None = None,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None) -> None:
        owner = "SBDataset"
        root = _check_dir(dataset_dir, owner)
        if task not in ("Boundaries", "Segmentation"):
            raise ValueError(f"{owner}: task must be 'Boundaries' or 'Segmentation', got {task!r}")
        parts = {"train": ["train"], "val": ["val"], "train_noval": ["train_noval"], "all": ["train", "val"]}
        if usage not in parts:
            raise ValueError(f"{owner}: usage must be one of {list(parts)}, got {usage!r}")
        ids: list[str] = []
        for part in parts[usage]:
            ids += [line.strip() for line in _read_lines(os.path.join(root, f"{part}.txt"), owner) if line.strip()]
        images = [os.path.join(root, "img", f"{i}.jpg") for i in ids]
        targets = _SBDTargets([os.path.join(root, "cls", f"{i}.mat") for i in ids], task == "Boundaries")
        self._setup(["image", "task"], [images, targets], ["file", "value"], bool(decode), num_samples, shuffle,
                    sampler, num_shards, shard_id, num_parallel_workers)

    def _num_rows(self) -> int:
        return len(self._fcols[0])


_LSUN_CLASSES = ("bedroom", "bridge", "church_outdoor", "classroom", "conference_room", "dining_room", "kitchen",
                 "living_room", "restaurant", "tower")


class LSUNDataset(_FileColumns):
    """LSUN scenes from image folders (MindSpore 2.x reads the exported images, not LMDB):
    ``<class>_train/`` ('train'), ``<class>_val/`` ('valid'), both ('all', the default) or
    ``test/`` ('test'), for ``classes`` (a name or a list; None: the ten LSUN scene classes).
    Columns ``image`` and ``label`` (uint32). As in MindSpore (an ImageFolder over the chosen
    folders) the label is the folder's position among the sorted folder names — so
    ``bedroom_train`` and ``bedroom_val`` get different labels under 'all' — and 'test' is label 0."""

    def __init__(self, dataset_dir: str, usage: str | None = None, classes: Any = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        owner = "LSUNDataset"
        root = _check_dir(dataset_dir, owner)
        usage = "all" if usage is None else usage
        if usage not in ("train", "valid", "test", "all"):
            raise ValueError(f"{owner}: usage must be 'train', 'valid', 'test' or 'all', got {usage!r}")
        wanted = list(_LSUN_CLASSES) if classes is None else [classes] if isinstance(classes, str) else list(classes)
        if not all(isinstance(c, str) for c in wanted):
            raise ValueError(f"{owner}: classes must be a class name or a list of them, got {classes!r}")
        if usage == "test":
            folders = ["test"]
        else:
            splits = (["_train"] if usage in ("train", "all") else []) + (["_val"] if usage in ("valid", "all") else [])
            subdirs = [d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))]
            folders = sorted({d for d in subdirs for c in wanted for s in splits if c + s in d})
        files, labels = [], []
        for label, folder in enumerate(folders):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                raise DatasetError(f"{owner}: no folder {folder} in {root}")
            for name in sorted(n for n in os.listdir(path) if os.path.isfile(os.path.join(path, n))):
                files.append(os.path.join(path, name))
                labels.append(np.uint32(label))
        if not files:
            raise DatasetError(f"{owner}: no images for usage {usage!r} and classes {wanted} in {root}")
        self.class_indexing = {f: i for i, f in enumerate(folders)}
        self._setup(["image", "label"], [files, labels], ["file", "value"], decode, num_samples, shuffle, sampler,
                    num_shards, shard_id, num_parallel_workers)
