"""More of ``mindspore.dataset.vision``'s transforms (issue 14): crops (RandomResizedCrop, Crop,
ResizedCrop, FiveCrop, TenCrop), flips, colour adjustments (brightness, contrast, saturation,
gamma, inversion, grayscale), RandomErasing, ToPIL and ToType.

They follow the conventions of `transforms` (HWC NumPy or PIL in; geometric ones give back the kind
they got, the colour ones NumPy in the input's dtype) and draw randomness from
``_seeding.current_rng()``, so pipelines stay reproducible under ``set_seed``. Colour formulas are
PIL's/torchvision's, which MindSpore's follow: brightness scales, contrast blends with the mean of
the grayscale image, saturation blends with the grayscale image (ITU-R 601-2 luma weights).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._seeding import current_rng
from ..transforms.base import TensorOperation
from ._resample import resize_array
from .transforms import _as_image, _is_pil, _like_input, _pair
from .utils import Inter

__all__ = ["RandomResizedCrop", "Crop", "ResizedCrop", "FiveCrop", "TenCrop", "HorizontalFlip", "VerticalFlip",
           "Invert", "RandomInvert", "Grayscale", "RandomGrayscale", "AdjustBrightness", "AdjustContrast",
           "AdjustSaturation", "AdjustGamma", "RandomErasing", "ToPIL", "ToType"]

_LUMA = np.array([0.299, 0.587, 0.114])


def _crop(arr: np.ndarray, top: int, left: int, h: int, w: int, op: str) -> np.ndarray:
    if top < 0 or left < 0 or top + h > arr.shape[0] or left + w > arr.shape[1]:
        raise ValueError(f"{op}: the window (top={top}, left={left}, height={h}, width={w}) is outside the "
                         f"image of size {arr.shape[:2]}")
    return np.ascontiguousarray(arr[top:top + h, left:left + w])


def _finish(out: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A colour-adjusted float image back in the input dtype (integers rounded and clipped to 0..255)."""
    if np.issubdtype(dtype, np.integer):
        return np.clip(np.rint(out), 0, 255).astype(dtype)
    return out.astype(dtype)


def _gray(arr: np.ndarray) -> np.ndarray:
    return arr.astype(np.float64) if arr.ndim == 2 else arr[..., :3].astype(np.float64) @ _LUMA


class RandomResizedCrop(TensorOperation):
    """Crop a random window of random area (`scale` of the image) and aspect ratio (`ratio`, drawn
    log-uniformly), then resize it to `size`; after `max_attempts` misses, the central crop with the
    ratio clamped to `ratio` (torchvision's procedure, which MindSpore's follows)."""

    def __init__(self, size: Any, scale: Sequence[float] = (0.08, 1.0), ratio: Sequence[float] = (3 / 4, 4 / 3),
                 interpolation: Inter = Inter.BILINEAR, max_attempts: int = 10) -> None:
        self.size = _pair(size, "RandomResizedCrop")
        self.scale, self.ratio = tuple(float(s) for s in scale), tuple(float(r) for r in ratio)
        if len(self.scale) != 2 or not 0 <= self.scale[0] <= self.scale[1]:
            raise ValueError(f"RandomResizedCrop: scale must be (min, max) with 0 <= min <= max, got {scale!r}")
        if len(self.ratio) != 2 or not 0 < self.ratio[0] <= self.ratio[1]:
            raise ValueError(f"RandomResizedCrop: ratio must be (min, max) with 0 < min <= max, got {ratio!r}")
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise ValueError(f"RandomResizedCrop: max_attempts must be a positive int, got {max_attempts!r}")
        self.interpolation, self.max_attempts = Inter(interpolation), max_attempts

    def _window(self, height: int, width: int) -> tuple[int, int, int, int]:
        rng = current_rng()
        area = height * width
        log_lo, log_hi = math.log(self.ratio[0]), math.log(self.ratio[1])
        for _ in range(self.max_attempts):
            target = area * rng.uniform(self.scale[0], self.scale[1])
            aspect = math.exp(rng.uniform(log_lo, log_hi))
            w = int(round(math.sqrt(target * aspect)))
            h = int(round(math.sqrt(target / aspect)))
            if 0 < w <= width and 0 < h <= height:
                return int(rng.integers(0, height - h + 1)), int(rng.integers(0, width - w + 1)), h, w
        in_ratio = width / height
        if in_ratio < self.ratio[0]:
            w, h = width, int(round(width / self.ratio[0]))
        elif in_ratio > self.ratio[1]:
            h, w = height, int(round(height * self.ratio[1]))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "RandomResizedCrop")
        top, left, h, w = self._window(*arr.shape[:2])
        out = resize_array(_crop(arr, top, left, h, w, "RandomResizedCrop"), *self.size, self.interpolation)
        return _like_input(out, img)


class Crop(TensorOperation):
    """Crop the `size` window whose top-left corner is `coordinates` = (top, left)."""

    def __init__(self, coordinates: Sequence[int], size: Any) -> None:
        if len(coordinates) != 2 or min(coordinates) < 0:
            raise ValueError(f"Crop: coordinates must be a (top, left) pair of non-negative ints, got {coordinates!r}")
        self.coordinates, self.size = (int(coordinates[0]), int(coordinates[1])), _pair(size, "Crop")

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "Crop")
        return _like_input(_crop(arr, *self.coordinates, *self.size, "Crop"), img)


class ResizedCrop(TensorOperation):
    """Crop the (top, left, height, width) window, then resize it to `size`."""

    def __init__(self, top: int, left: int, height: int, width: int, size: Any,
                 interpolation: Inter = Inter.BILINEAR) -> None:
        if min(top, left) < 0 or min(height, width) <= 0:
            raise ValueError(f"ResizedCrop: need top, left >= 0 and height, width > 0, got "
                             f"{(top, left, height, width)}")
        self.top, self.left, self.height, self.width = int(top), int(left), int(height), int(width)
        self.size, self.interpolation = _pair(size, "ResizedCrop"), Inter(interpolation)

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "ResizedCrop")
        window = _crop(arr, self.top, self.left, self.height, self.width, "ResizedCrop")
        return _like_input(resize_array(window, *self.size, self.interpolation), img)


class FiveCrop(TensorOperation):
    """The four corner crops and the central crop of `size`, as a tuple of five images."""

    def __init__(self, size: Any) -> None:
        self.size = _pair(size, "FiveCrop")

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "FiveCrop")
        (h, w), (H, W) = self.size, arr.shape[:2]
        if h > H or w > W:
            raise ValueError(f"FiveCrop: crop size {self.size} is larger than the image {arr.shape[:2]}")
        corners = [(0, 0), (0, W - w), (H - h, 0), (H - h, W - w), ((H - h) // 2, (W - w) // 2)]
        return tuple(_like_input(_crop(arr, t, left, h, w, "FiveCrop"), img) for t, left in corners)


class TenCrop(TensorOperation):
    """FiveCrop of the image and of its mirror (left-right, or top-bottom with `use_vertical_flip`)."""

    def __init__(self, size: Any, use_vertical_flip: bool = False) -> None:
        self.five, self.use_vertical_flip = FiveCrop(size), bool(use_vertical_flip)

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "TenCrop")
        flipped = np.ascontiguousarray(np.flip(arr, 0 if self.use_vertical_flip else 1))
        return self.five._apply(img) + self.five._apply(_like_input(flipped, img))


class HorizontalFlip(TensorOperation):
    """Mirror left-right."""

    def _apply(self, img: Any) -> Any:
        return _like_input(np.ascontiguousarray(np.flip(_as_image(img, "HorizontalFlip"), 1)), img)


class VerticalFlip(TensorOperation):
    """Mirror top-bottom."""

    def _apply(self, img: Any) -> Any:
        return _like_input(np.ascontiguousarray(np.flip(_as_image(img, "VerticalFlip"), 0)), img)


class Invert(TensorOperation):
    """255 - pixel, for uint8 images."""

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "Invert")
        if arr.dtype != np.uint8:
            raise TypeError(f"Invert: expected a uint8 image, got {arr.dtype}")
        return _like_input(255 - arr, img)


class RandomInvert(TensorOperation):
    """`Invert` with probability `prob`."""

    def __init__(self, prob: float = 0.5) -> None:
        if not 0 <= prob <= 1:
            raise ValueError(f"RandomInvert: prob must be in [0, 1], got {prob}")
        self.prob = float(prob)

    def _apply(self, img: Any) -> Any:
        return Invert()._apply(img) if current_rng().random() < self.prob else img


class Grayscale(TensorOperation):
    """The luma (0.299 R + 0.587 G + 0.114 B), with 1 or 3 (repeated) output channels."""

    def __init__(self, num_output_channels: int = 1) -> None:
        if num_output_channels not in (1, 3):
            raise ValueError(f"Grayscale: num_output_channels must be 1 or 3, got {num_output_channels!r}")
        self.num_output_channels = num_output_channels

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "Grayscale")
        g = _finish(_gray(arr), arr.dtype)[..., None]
        out = np.repeat(g, self.num_output_channels, axis=2)
        return _like_input(out[..., 0] if _is_pil(img) and self.num_output_channels == 1 else out, img)


class RandomGrayscale(TensorOperation):
    """`Grayscale` with as many channels as the input, with probability `prob`."""

    def __init__(self, prob: float = 0.1) -> None:
        if not 0 <= prob <= 1:
            raise ValueError(f"RandomGrayscale: prob must be in [0, 1], got {prob}")
        self.prob = float(prob)

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "RandomGrayscale")
        if current_rng().random() >= self.prob:
            return img
        return Grayscale(3 if arr.ndim == 3 and arr.shape[2] >= 3 else 1)._apply(img)


class _Adjust(TensorOperation):
    def _factor(self, value: Any, name: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ValueError(f"{type(self).__name__}: {name} must be a non-negative number, got {value!r}")
        return float(value)


class AdjustBrightness(_Adjust):
    """pixel * brightness_factor (0 gives black, 1 the image)."""

    def __init__(self, brightness_factor: float) -> None:
        self.brightness_factor = self._factor(brightness_factor, "brightness_factor")

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "AdjustBrightness")
        return _finish(arr.astype(np.float64) * self.brightness_factor, arr.dtype)


class AdjustContrast(_Adjust):
    """Blend with the mean of the grayscale image: mean + factor * (pixel - mean)."""

    def __init__(self, contrast_factor: float) -> None:
        self.contrast_factor = self._factor(contrast_factor, "contrast_factor")

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "AdjustContrast")
        mean = float(_gray(arr).mean())
        return _finish(mean + self.contrast_factor * (arr.astype(np.float64) - mean), arr.dtype)


class AdjustSaturation(_Adjust):
    """Blend with the grayscale image: gray + factor * (pixel - gray) (RGB images)."""

    def __init__(self, saturation_factor: float) -> None:
        self.saturation_factor = self._factor(saturation_factor, "saturation_factor")

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "AdjustSaturation")
        if arr.ndim != 3 or arr.shape[2] != 3:
            raise ValueError(f"AdjustSaturation: expected an RGB image (H, W, 3), got shape {arr.shape}")
        gray = _gray(arr)[..., None]
        return _finish(gray + self.saturation_factor * (arr.astype(np.float64) - gray), arr.dtype)


class AdjustGamma(_Adjust):
    """gain * (pixel / 255) ** gamma * 255 for uint8 images (gain * pixel ** gamma for floats)."""

    def __init__(self, gamma: float, gain: float = 1) -> None:
        self.gamma, self.gain = self._factor(gamma, "gamma"), float(gain)

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "AdjustGamma")
        x = arr.astype(np.float64)
        if np.issubdtype(arr.dtype, np.integer):
            return _finish(255.0 * self.gain * (x / 255.0) ** self.gamma, arr.dtype)
        return (self.gain * x ** self.gamma).astype(arr.dtype)


class RandomErasing(TensorOperation):
    """With probability `prob`, set a random rectangle of a CHW image (area `scale` of it, aspect
    `ratio`) to `value` (a number, a per-channel sequence, or 'random' for normal noise)."""

    def __init__(self, prob: float = 0.5, scale: Sequence[float] = (0.02, 0.33), ratio: Sequence[float] = (0.3, 3.3),
                 value: Any = 0, inplace: bool = False, max_attempts: int = 10) -> None:
        if not 0 <= prob <= 1:
            raise ValueError(f"RandomErasing: prob must be in [0, 1], got {prob}")
        self.prob, self.scale, self.ratio = float(prob), tuple(scale), tuple(ratio)
        self.value, self.inplace, self.max_attempts = value, bool(inplace), int(max_attempts)

    def _apply(self, img: Any) -> Any:
        arr = np.asarray(img)
        if arr.ndim != 3:
            raise ValueError(f"RandomErasing: expected a CHW image, got shape {arr.shape}")
        rng = current_rng()
        if rng.random() >= self.prob:
            return arr
        c, height, width = arr.shape
        out = arr if self.inplace and arr.flags.writeable else arr.copy()
        for _ in range(self.max_attempts):
            target = height * width * rng.uniform(*self.scale)
            aspect = math.exp(rng.uniform(math.log(self.ratio[0]), math.log(self.ratio[1])))
            h, w = int(round(math.sqrt(target * aspect))), int(round(math.sqrt(target / aspect)))
            if h < height and w < width:
                top, left = int(rng.integers(0, height - h + 1)), int(rng.integers(0, width - w + 1))
                if isinstance(self.value, str):
                    fill = rng.standard_normal((c, h, w))
                else:
                    fill = np.broadcast_to(np.asarray(self.value, np.float64).reshape(-1, 1, 1), (c, h, w))
                out[:, top:top + h, left:left + w] = fill.astype(out.dtype)
                return out
        return out


class ToPIL(TensorOperation):
    """A NumPy HWC (or HW) uint8 image as a PIL image (PIL images pass through)."""

    def _apply(self, img: Any) -> Any:
        if _is_pil(img):
            return img
        from PIL import Image

        arr = _as_image(img, "ToPIL")
        return Image.fromarray(arr[..., 0] if arr.ndim == 3 and arr.shape[2] == 1 else arr)


class ToType(TensorOperation):
    """The image cast to `data_type` (a NumPy dtype or a Spore dtype)."""

    def __init__(self, data_type: Any) -> None:
        from ...common import dtype as mstype

        self.data_type = mstype.to_dtype(data_type).np if not isinstance(data_type, np.dtype) else data_type

    def _apply(self, img: Any) -> Any:
        return np.asarray(img).astype(self.data_type)
