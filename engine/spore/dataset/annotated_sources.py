"""Annotated image sources (issue 14, dataset slice): `ManifestDataset`, `VOCDataset` and
`CocoDataset` (Detection), reading the annotation files of each format from local folders.

Annotations are parsed once when the dataset is built; the images are read (and decoded with
``decode=True``) by row, with errors naming the file and the row. XML is parsed with the standard
library's ElementTree on local files only (no entity expansion beyond the parser's defaults, no
network access).

Differences from MindSpore: CocoDataset reads the 'Detection' task only (other tasks raise a
ValueError saying so); ``extra_metadata`` and ``decrypt`` are accepted but add nothing.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np

from .errors import DatasetError
from .source_base import MappableSource
from .vision_folders import MAX_IMAGE_FILE_BYTES, _check_dir

__all__ = ["CocoDataset", "DIV2KDataset", "FlickrDataset", "ManifestDataset", "SBUDataset", "VOCDataset"]


class _ImageRowReader:
    """Row i -> (image bytes or decoded HWC RGB image, *annotations[k][i])."""

    def __init__(self, files: list[str], annotations: list[list[np.ndarray]], decode: bool) -> None:
        self.files, self.annotations, self.decode = files, annotations, decode

    def __call__(self, index: int) -> tuple[np.ndarray, ...]:
        path = self.files[index]
        try:
            with open(path, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                if size > MAX_IMAGE_FILE_BYTES:
                    raise DatasetError(f"cannot read {path} (row {index}): {size} bytes is more than the "
                                       f"{MAX_IMAGE_FILE_BYTES}-byte limit for one image")
                raw = f.read()
        except OSError as e:
            raise DatasetError(f"cannot read {path} (row {index}): {e.strerror or e}") from e
        if self.decode:
            from .vision.transforms import decode_bytes

            try:
                image = decode_bytes(raw)
            except Exception as e:  # PIL raises many kinds on bad files
                raise DatasetError(f"cannot decode {path} (row {index}): {type(e).__name__}: {e}") from e
        else:
            image = np.frombuffer(raw, dtype=np.uint8)
        return (image, *(a[index] for a in self.annotations))


class _AnnotatedSource(MappableSource):
    def _setup(self, names: list[str], files: list[str], annotations: list[list[np.ndarray]], decode: bool,
               num_samples: int | None, shuffle: bool | None, sampler: Any, num_shards: int | None,
               shard_id: int | None, num_parallel_workers: int | None) -> None:
        self._files, self._ann, self._decode = files, annotations, bool(decode)
        super().__init__(column_names=names, num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id, num_parallel_workers=num_parallel_workers)

    def _num_rows(self) -> int:
        return len(self._files)

    def _reader(self) -> _ImageRowReader:
        return _ImageRowReader(self._files, self._ann, self._decode)

    def get_class_indexing(self) -> dict[str, int]:
        """The class-name-to-label mapping."""
        return dict(self.class_indexing)


class ManifestDataset(_AnnotatedSource):
    """A manifest file: one JSON object per line, ``{"source": "<image path>", "usage": "train",
    "annotation": [{"type": "label", "name": "<class>"}, ...]}``. Columns ``image`` and ``label``
    (uint64, one entry per label of the image); ``class_indexing`` maps class names to labels
    (default: the sorted names numbered from 0)."""

    def __init__(self, dataset_file: str, usage: str = "train", num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 class_indexing: dict[str, int] | None = None, decode: bool = False, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        path = os.fspath(dataset_file)
        if usage not in ("train", "eval", "inference"):
            raise ValueError(f"ManifestDataset: usage must be 'train', 'eval' or 'inference', got {usage!r}")
        entries: list[tuple[str, list[str]]] = []
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as e:
            raise DatasetError(f"ManifestDataset: cannot read {path}: {e}") from e
        for line_no, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                source, use = obj["source"], obj.get("usage", "train")
                names = [a["name"] for a in obj.get("annotation", []) if a.get("type", "label") == "label"]
            except (ValueError, KeyError, TypeError) as e:
                raise DatasetError(f"ManifestDataset: {path}, line {line_no}: not a manifest entry "
                                   f"({type(e).__name__}: {e})") from e
            if str(use).lower() == usage:
                src = source if os.path.isabs(source) else os.path.join(os.path.dirname(path), source)
                entries.append((src, names))
        all_names = sorted({n for _, ns in entries for n in ns})
        if class_indexing is None:
            class_indexing = {n: i for i, n in enumerate(all_names)}
        unknown = [n for n in all_names if n not in class_indexing]
        if unknown:
            raise DatasetError(f"ManifestDataset: {path} has labels {unknown} that class_indexing does not map")
        self.class_indexing = dict(class_indexing)
        labels = [np.asarray([class_indexing[n] for n in ns], dtype=np.uint64) for _, ns in entries]
        self._setup(["image", "label"], [e[0] for e in entries], [labels], decode, num_samples, shuffle, sampler,
                    num_shards, shard_id, num_parallel_workers)


def _xml(path: str, owner: str) -> ET.Element:
    try:
        return ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        raise DatasetError(f"{owner}: cannot read annotation {path}: {e}") from e


class VOCDataset(_AnnotatedSource):
    """PASCAL VOC from its folders: ``ImageSets/{Segmentation,Main}/<usage>.txt`` lists the image
    ids, ``JPEGImages/<id>.jpg`` the images. ``task='Segmentation'``: columns ``image``, ``target``
    (``SegmentationClass/<id>.png``, read like the image). ``task='Detection'``: ``image``, ``bbox``
    (float32 (N, 4): xmin, ymin, width, height), ``label``, ``difficult``, ``truncate`` (uint32
    (N, 1)), from ``Annotations/<id>.xml``; labels follow ``class_indexing`` (default: the sorted
    class names numbered from 0)."""

    def __init__(self, dataset_dir: str, task: str = "Segmentation", usage: str = "train",
                 class_indexing: dict[str, int] | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None, extra_metadata: bool = False, decrypt: Any = None) -> None:
        owner = "VOCDataset"
        root = _check_dir(dataset_dir, owner)
        if task not in ("Segmentation", "Detection"):
            raise ValueError(f"{owner}: task must be 'Segmentation' or 'Detection', got {task!r}")
        if task == "Segmentation" and class_indexing is not None:
            raise ValueError(f"{owner}: class_indexing only applies to task='Detection'")
        listing = os.path.join(root, "ImageSets", "Segmentation" if task == "Segmentation" else "Main", f"{usage}.txt")
        try:
            with open(listing, encoding="utf-8") as f:
                ids = [line.strip().split()[0] for line in f if line.strip()]
        except OSError as e:
            raise DatasetError(f"{owner}: cannot read the image list {listing}: {e.strerror or e}") from e
        images = [os.path.join(root, "JPEGImages", f"{i}.jpg") for i in ids]
        if task == "Segmentation":
            self.class_indexing = {}
            targets = [os.path.join(root, "SegmentationClass", f"{i}.png") for i in ids]
            self._targets = targets
            self._setup(["image", "target"], images, [], decode, num_samples, shuffle, sampler, num_shards,
                        shard_id, num_parallel_workers)
            return
        objects = []
        for i in ids:
            path = os.path.join(root, "Annotations", f"{i}.xml")
            rows = []
            for obj in _xml(path, owner).iter("object"):
                try:
                    name = obj.findtext("name").strip()  # type: ignore[union-attr]
                    box = obj.find("bndbox")
                    x0, y0, x1, y1 = (float(box.findtext(k)) for k in ("xmin", "ymin", "xmax", "ymax"))  # type: ignore
                except (AttributeError, TypeError, ValueError) as e:
                    raise DatasetError(f"{owner}: {path}: an <object> lacks a valid name or bndbox ({e})") from e
                rows.append((name, [x0, y0, x1 - x0, y1 - y0], int(obj.findtext("difficult") or 0),
                             int(obj.findtext("truncated") or 0)))
            objects.append(rows)
        names = sorted({r[0] for rows in objects for r in rows})
        if class_indexing is None:
            class_indexing = {n: k for k, n in enumerate(names)}
        self.class_indexing = dict(class_indexing)
        bbox, label, difficult, truncate = [], [], [], []
        for i, rows in zip(ids, objects, strict=True):
            kept = [r for r in rows if r[0] in class_indexing]
            bbox.append(np.asarray([r[1] for r in kept], np.float32).reshape(-1, 4))
            label.append(np.asarray([[class_indexing[r[0]]] for r in kept], np.uint32).reshape(-1, 1))
            difficult.append(np.asarray([[r[2]] for r in kept], np.uint32).reshape(-1, 1))
            truncate.append(np.asarray([[r[3]] for r in kept], np.uint32).reshape(-1, 1))
        self._setup(["image", "bbox", "label", "difficult", "truncate"], images, [bbox, label, difficult, truncate],
                    decode, num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers)

    def _reader(self) -> Any:
        if self._names[1] == "target":
            return _SegReader(self._files, self._targets, self._decode)
        return super()._reader()


class _SegReader:
    def __init__(self, images: list[str], targets: list[str], decode: bool) -> None:
        self.image, self.target = _ImageRowReader(images, [], decode), _ImageRowReader(targets, [], decode)

    def __call__(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        return self.image(index)[0], self.target(index)[0]


class CocoDataset(_AnnotatedSource):
    """COCO detection: images in ``dataset_dir``, the annotation JSON in ``annotation_file``.
    Columns ``image``, ``bbox`` (float32 (N, 4): x, y, width, height), ``category_id`` and
    ``iscrowd`` (uint32 (N, 1)), images in the order of the file's ``images`` list."""

    def __init__(self, dataset_dir: str, annotation_file: str, task: str = "Detection",
                 num_samples: int | None = None, num_parallel_workers: int | None = None, shuffle: bool | None = None,
                 decode: bool = False, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None, extra_metadata: bool = False,
                 decrypt: Any = None) -> None:
        owner = "CocoDataset"
        root = _check_dir(dataset_dir, owner)
        if task != "Detection":
            raise ValueError(f"{owner}: Spore reads task='Detection' only, got {task!r} (Stuff, Keypoint, Panoptic "
                             "and Captioning are not implemented)")
        path = os.fspath(annotation_file)
        try:
            with open(path, encoding="utf-8") as f:
                coco = json.load(f)
            images = [(int(im["id"]), str(im["file_name"])) for im in coco["images"]]
            anns = coco.get("annotations", [])
            cats = {str(c["name"]): int(c["id"]) for c in coco.get("categories", [])}
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise DatasetError(f"{owner}: cannot read the annotation file {path}: {type(e).__name__}: {e}") from e
        per: dict[int, list[tuple[list[float], int, int]]] = {i: [] for i, _ in images}
        for k, a in enumerate(anns):
            try:
                per.setdefault(int(a["image_id"]), []).append(
                    ([float(v) for v in a["bbox"]], int(a["category_id"]), int(a.get("iscrowd", 0))))
            except (KeyError, TypeError, ValueError) as e:
                raise DatasetError(f"{owner}: {path}: annotation {k} lacks a valid image_id, bbox or category_id "
                                   f"({e})") from e
        self.class_indexing = cats
        bbox, cat, crowd = [], [], []
        for i, _ in images:
            rows = per[i]
            bbox.append(np.asarray([r[0] for r in rows], np.float32).reshape(-1, 4))
            cat.append(np.asarray([[r[1]] for r in rows], np.uint32).reshape(-1, 1))
            crowd.append(np.asarray([[r[2]] for r in rows], np.uint32).reshape(-1, 1))
        self._setup(["image", "bbox", "category_id", "iscrowd"], [os.path.join(root, n) for _, n in images],
                    [bbox, cat, crowd], decode, num_samples, shuffle, sampler, num_shards, shard_id,
                    num_parallel_workers)


class FlickrDataset(_AnnotatedSource):
    """Flickr8k/Flickr30k: ``image`` and ``annotation`` (the image's captions, a string array) from
    the token file (``<file>#<n>\\t<caption>`` lines), images in ``dataset_dir``, in file order."""

    def __init__(self, dataset_dir: str, annotation_file: str, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool | None = None,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "FlickrDataset")
        path = os.fspath(annotation_file)
        captions: dict[str, list[str]] = {}
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as e:
            raise DatasetError(f"FlickrDataset: cannot read {path}: {e}") from e
        for line_no, line in enumerate(lines, 1):
            if not line.strip():
                continue
            if "\t" not in line or "#" not in line.split("\t", 1)[0]:
                raise DatasetError(f"FlickrDataset: {path}, line {line_no}: expected '<image>#<n>\\t<caption>'")
            key, caption = line.split("\t", 1)
            captions.setdefault(key.rsplit("#", 1)[0], []).append(caption.strip())
        names = list(captions)
        self.class_indexing = {}
        self._setup(["image", "annotation"], [os.path.join(root, n) for n in names],
                    [[np.array(captions[n], dtype=str) for n in names]], bool(decode), num_samples, shuffle, sampler,
                    num_shards, shard_id, num_parallel_workers)


class SBUDataset(_AnnotatedSource):
    """SBU captioned photos: ``image`` and ``caption`` for every URL of
    ``SBU_captioned_photo_dataset_urls.txt`` whose image (named by the URL's last part) is in
    ``sbu_images/``; captions come from ``SBU_captioned_photo_dataset_captions.txt``, line by line."""

    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, decode: bool = False, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "SBUDataset")

        def lines(name: str) -> list[str]:
            p = os.path.join(root, name)
            try:
                with open(p, encoding="utf-8") as f:
                    return [line.strip() for line in f.read().splitlines()]
            except (OSError, UnicodeDecodeError) as e:
                raise DatasetError(f"SBUDataset: cannot read {p}: {e}") from e

        urls, caps = lines("SBU_captioned_photo_dataset_urls.txt"), lines("SBU_captioned_photo_dataset_captions.txt")
        if len(urls) != len(caps):
            raise DatasetError(f"SBUDataset: {len(urls)} URLs but {len(caps)} captions in {root}")
        files, captions = [], []
        for url, cap in zip(urls, caps, strict=True):
            p = os.path.join(root, "sbu_images", url.rstrip("/").rsplit("/", 1)[-1])
            if url and os.path.isfile(p):
                files.append(p)
                captions.append(np.array(cap, dtype=str))
        self.class_indexing = {}
        self._setup(["image", "caption"], files, [captions], decode, num_samples, shuffle, sampler, num_shards,
                    shard_id, num_parallel_workers)


class DIV2KDataset(MappableSource):
    """DIV2K super-resolution pairs: ``hr_image`` (``DIV2K_<usage>_HR/<id>.png``) and ``lr_image``
    (``DIV2K_<usage>_LR_<downgrade>/X<scale>/<id>x<scale>.png``), as bytes or decoded;
    ``usage`` 'train', 'valid' or 'all'; ``downgrade`` 'bicubic' or 'unknown' with scale 2, 3, 4,
    or 'mild'/'difficult'/'wild' with scale 4 (``<id>x4<m|d|w>.png``), or scale 8 for bicubic."""

    def __init__(self, dataset_dir: str, usage: str = "train", downgrade: str = "bicubic", scale: int = 2,
                 num_samples: int | None = None, num_parallel_workers: int | None = None, shuffle: bool | None = None,
                 decode: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        root = _check_dir(dataset_dir, "DIV2KDataset")
        if usage not in ("train", "valid", "all"):
            raise ValueError(f"DIV2KDataset: usage must be 'train', 'valid' or 'all', got {usage!r}")
        suffix = {"bicubic": "", "unknown": "", "mild": "m", "difficult": "d", "wild": "w"}
        if downgrade not in suffix:
            raise ValueError(f"DIV2KDataset: downgrade must be one of {list(suffix)}, got {downgrade!r}")
        allowed = {"bicubic": (2, 3, 4, 8), "unknown": (2, 3, 4)}.get(downgrade, (4,))
        if scale not in allowed:
            raise ValueError(f"DIV2KDataset: downgrade {downgrade!r} comes in scales {list(allowed)}, got {scale!r}")
        hr, lr = [], []
        for u in (["train", "valid"] if usage == "all" else [usage]):
            hr_dir = os.path.join(root, f"DIV2K_{u}_HR")
            lr_dir = os.path.join(root, f"DIV2K_{u}_LR_{downgrade}")
            if downgrade in ("bicubic", "unknown"):
                lr_dir = os.path.join(lr_dir, f"X{scale}")
            if not os.path.isdir(hr_dir) or not os.path.isdir(lr_dir):
                raise DatasetError(f"DIV2KDataset: need the folders {hr_dir} and {lr_dir}")
            for name in sorted(n for n in os.listdir(hr_dir) if n.endswith(".png")):
                stem = name[:-4]
                low = os.path.join(lr_dir, f"{stem}x{scale}{suffix[downgrade]}.png")
                if not os.path.isfile(low):
                    raise DatasetError(f"DIV2KDataset: {os.path.join(hr_dir, name)} has no low-resolution pair {low}")
                hr.append(os.path.join(hr_dir, name))
                lr.append(low)
        self._hr, self._lr, self._decode = hr, lr, bool(decode)
        super().__init__(column_names=["hr_image", "lr_image"], num_samples=num_samples, shuffle=shuffle,
                         sampler=sampler, num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers)

    def _num_rows(self) -> int:
        return len(self._hr)

    def _reader(self) -> Any:
        return _PairReader(_ImageRowReader(self._hr, [], self._decode), _ImageRowReader(self._lr, [], self._decode))


class _PairReader:
    def __init__(self, a: _ImageRowReader, b: _ImageRowReader) -> None:
        self.a, self.b = a, b

    def __call__(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        return self.a(index)[0], self.b(index)[0]
