"""The bounding-box forms of vision transforms (issue 14, dataset slice): each takes ``(image,
bbox)`` and moves the boxes with the pixels. A bbox column is (N, 4+) float32 rows
``[x_min, y_min, width, height, ...]`` in pixels, as MindSpore's VOC/COCO sources give; columns
after the fourth are carried along.

Crops shift the boxes into the window and clip them to it; boxes left with no area are dropped,
as MindSpore's C++ ``UpdateBBoxesForCrop`` does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._seeding import current_rng
from ..transforms.base import TensorOperation
from .extra import RandomResizedCrop, _crop
from .transforms import Resize, _as_image, _like_input, _padding, _pair, pad_image
from .utils import Border, Inter

__all__ = ["BoundingBoxAugment", "RandomCropWithBBox", "RandomHorizontalFlipWithBBox", "RandomResizeWithBBox",
           "RandomResizedCropWithBBox", "RandomVerticalFlipWithBBox", "ResizeWithBBox"]


def _boxes(bbox: Any, op: str) -> np.ndarray:
    b = np.asarray(bbox)
    if b.ndim != 2 or b.shape[1] < 4:
        raise ValueError(f"{op}: bbox must be (N, 4+) rows [x_min, y_min, width, height, ...], got shape {b.shape}")
    return b


def _crop_boxes(b: np.ndarray, top: int, left: int, h: int, w: int) -> np.ndarray:
    out = b.astype(np.float64).copy()
    x0, y0 = np.clip(out[:, 0] - left, 0, w), np.clip(out[:, 1] - top, 0, h)
    x1, y1 = np.clip(out[:, 0] + out[:, 2] - left, 0, w), np.clip(out[:, 1] + out[:, 3] - top, 0, h)
    out[:, 0], out[:, 1], out[:, 2], out[:, 3] = x0, y0, x1 - x0, y1 - y0
    keep = (out[:, 2] > 0) & (out[:, 3] > 0)
    return out[keep].astype(b.dtype)


class _BBoxOp(TensorOperation):
    _num_inputs = 2


class _FlipWithBBox(_BBoxOp):
    _axis = 1

    def __init__(self, prob: float = 0.5) -> None:
        if not 0 <= prob <= 1:
            raise ValueError(f"{type(self).__name__}: prob must be in [0, 1], got {prob}")
        self.prob = float(prob)

    def _apply(self, img: Any, bbox: Any) -> tuple[Any, np.ndarray]:
        arr = _as_image(img, type(self).__name__)
        b = _boxes(bbox, type(self).__name__)
        if current_rng().random() >= self.prob:
            return img, b
        out = b.copy()
        if self._axis == 1:
            out[:, 0] = arr.shape[1] - b[:, 0] - b[:, 2]
        else:
            out[:, 1] = arr.shape[0] - b[:, 1] - b[:, 3]
        return _like_input(np.ascontiguousarray(np.flip(arr, self._axis)), img), out


class RandomHorizontalFlipWithBBox(_FlipWithBBox):
    """Flip left-right with probability ``prob``; x_min becomes width - x_min - box width."""


class RandomVerticalFlipWithBBox(_FlipWithBBox):
    """Flip top-bottom with probability ``prob``; y_min becomes height - y_min - box height."""

    _axis = 0


def _resize_with(img: Any, b: np.ndarray, size: Any, inter: Inter) -> tuple[Any, np.ndarray]:
    arr = _as_image(img, "ResizeWithBBox")
    out = np.asarray(Resize(size, inter)._apply(arr))
    sy, sx = out.shape[0] / arr.shape[0], out.shape[1] / arr.shape[1]
    nb = b.astype(np.float64).copy()
    nb[:, [0, 2]] *= sx
    nb[:, [1, 3]] *= sy
    return _like_input(out, img), nb.astype(b.dtype)


class ResizeWithBBox(_BBoxOp):
    """`Resize` the image and scale the boxes by the same factors."""

    def __init__(self, size: Any, interpolation: Inter = Inter.BILINEAR) -> None:
        _pair(size, "ResizeWithBBox")
        self.size, self.interpolation = size, Inter(interpolation)

    def _apply(self, img: Any, bbox: Any) -> tuple[Any, np.ndarray]:
        return _resize_with(img, _boxes(bbox, "ResizeWithBBox"), self.size, self.interpolation)


class RandomResizeWithBBox(_BBoxOp):
    """`ResizeWithBBox` with an interpolation drawn from NEAREST, BILINEAR, BICUBIC and AREA."""

    def __init__(self, size: Any) -> None:
        _pair(size, "RandomResizeWithBBox")
        self.size = size

    def _apply(self, img: Any, bbox: Any) -> tuple[Any, np.ndarray]:
        modes = (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC, Inter.AREA)
        mode = modes[int(current_rng().integers(0, len(modes)))]
        return _resize_with(img, _boxes(bbox, "RandomResizeWithBBox"), self.size, mode)


class RandomCropWithBBox(_BBoxOp):
    """`RandomCrop` that shifts the boxes by the padding and the window, clips them to the window
    and drops the ones left without area."""

    def __init__(self, size: Any, padding: Any = None, pad_if_needed: bool = False, fill_value: Any = 0,
                 padding_mode: Border = Border.CONSTANT) -> None:
        self.size = _pair(size, "RandomCropWithBBox")
        self.padding = None if padding is None else _padding(padding)
        self.pad_if_needed, self.fill_value, self.padding_mode = bool(pad_if_needed), fill_value, Border(padding_mode)

    def _apply(self, img: Any, bbox: Any) -> tuple[Any, np.ndarray]:
        arr = _as_image(img, "RandomCropWithBBox")
        b = _boxes(bbox, "RandomCropWithBBox").astype(np.float64)
        dx = dy = 0
        if self.padding is not None:
            left, top, right, bottom = self.padding
            arr = pad_image(arr, left, top, right, bottom, self.fill_value, self.padding_mode)
            dx, dy = left, top
        h, w = self.size
        if self.pad_if_needed and (arr.shape[0] < h or arr.shape[1] < w):
            ph, pw = max(0, h - arr.shape[0]), max(0, w - arr.shape[1])
            arr = pad_image(arr, pw, ph, pw, ph, self.fill_value, self.padding_mode)
            dx, dy = dx + pw, dy + ph
        if arr.shape[0] < h or arr.shape[1] < w:
            raise ValueError(f"RandomCropWithBBox: crop size {self.size} is larger than the (padded) image "
                             f"{arr.shape[:2]}")
        b[:, 0] += dx
        b[:, 1] += dy
        rng = current_rng()
        top, left = int(rng.integers(0, arr.shape[0] - h + 1)), int(rng.integers(0, arr.shape[1] - w + 1))
        out = _crop(arr, top, left, h, w, "RandomCropWithBBox")
        return _like_input(out, img), _crop_boxes(b, top, left, h, w).astype(np.asarray(bbox).dtype)


class RandomResizedCropWithBBox(_BBoxOp):
    """`RandomResizedCrop` that crops, clips and scales the boxes with the image."""

    def __init__(self, size: Any, scale: Sequence[float] = (0.08, 1.0), ratio: Sequence[float] = (3 / 4, 4 / 3),
                 interpolation: Inter = Inter.BILINEAR, max_attempts: int = 10) -> None:
        self._rrc = RandomResizedCrop(size, scale, ratio, interpolation, max_attempts)
        self.size, self.scale, self.ratio = self._rrc.size, self._rrc.scale, self._rrc.ratio
        self.interpolation, self.max_attempts = self._rrc.interpolation, self._rrc.max_attempts

    def _apply(self, img: Any, bbox: Any) -> tuple[Any, np.ndarray]:
        from ._resample import resize_array

        arr = _as_image(img, "RandomResizedCropWithBBox")
        b = _boxes(bbox, "RandomResizedCropWithBBox")
        top, left, h, w = self._rrc._window(*arr.shape[:2])
        out = resize_array(_crop(arr, top, left, h, w, "RandomResizedCropWithBBox"), *self.size, self.interpolation)
        nb = _crop_boxes(b.astype(np.float64), top, left, h, w)
        nb[:, [0, 2]] *= self.size[1] / w
        nb[:, [1, 3]] *= self.size[0] / h
        return _like_input(out, img), nb.astype(b.dtype)


class BoundingBoxAugment(_BBoxOp):
    """Apply ``transform`` to the pixels inside a random ``ratio`` of the boxes (rounded up), each
    box's region transformed on its own and pasted back (the transform must keep its size)."""

    def __init__(self, transform: Callable[[Any], Any], ratio: float = 0.3) -> None:
        if not callable(transform):
            raise TypeError(f"BoundingBoxAugment: transform must be callable, got {transform!r}")
        if not 0 <= ratio <= 1:
            raise ValueError(f"BoundingBoxAugment: ratio must be in [0, 1], got {ratio}")
        self.transform, self.ratio = transform, float(ratio)

    def _apply(self, img: Any, bbox: Any) -> tuple[Any, np.ndarray]:
        arr = np.array(_as_image(img, "BoundingBoxAugment"))
        b = _boxes(bbox, "BoundingBoxAugment")
        k = math.ceil(self.ratio * len(b))
        for i in current_rng().choice(len(b), k, replace=False) if k else []:
            x0, y0 = max(0, int(b[i, 0])), max(0, int(b[i, 1]))
            x1, y1 = min(arr.shape[1], int(b[i, 0] + b[i, 2])), min(arr.shape[0], int(b[i, 1] + b[i, 3]))
            if x1 <= x0 or y1 <= y0:
                continue
            region = np.asarray(self.transform(np.ascontiguousarray(arr[y0:y1, x0:x1])))
            if region.shape != arr[y0:y1, x0:x1].shape:
                raise ValueError(f"BoundingBoxAugment: the transform changed a box region's shape from "
                                 f"{arr[y0:y1, x0:x1].shape} to {region.shape}; it must keep the size")
            arr[y0:y1, x0:x1] = region
        return _like_input(arr, img), b
