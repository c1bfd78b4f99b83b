"""``spore.dataset.vision`` transforms, with MindSpore's names, arguments and defaults.

They take NumPy images laid out HWC (or HW) and PIL images. Geometric transforms return the kind
they were given (PIL in, PIL out), as MindSpore's do; the ones that produce float data (Normalize,
Rescale, ToTensor, HWC2CHW) return NumPy. Random transforms draw from ``_seeding.current_rng()``:
inside a pipeline that is the sample's own generator (so parallel maps and reruns under
``set_seed`` give identical images), called directly it is Spore's global generator.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._seeding import current_rng
from ..transforms.base import TensorOperation
from ._resample import resize_array
from .utils import Border, Inter

__all__ = ["CenterCrop", "Decode", "HWC2CHW", "Normalize", "Pad", "RandomCrop", "RandomHorizontalFlip",
           "RandomVerticalFlip", "Rescale", "Resize", "ToTensor"]


def _is_pil(img: Any) -> bool:
    return hasattr(img, "getbands") and hasattr(img, "mode")


def _as_image(img: Any, op: str) -> np.ndarray:
    """A NumPy HW or HWC image from an array or a PIL image."""
    arr = np.asarray(img)
    if arr.ndim not in (2, 3):
        raise ValueError(f"{op}: expected an image of shape (H, W) or (H, W, C), got shape {arr.shape}")
    return arr


def _like_input(arr: np.ndarray, original: Any) -> Any:
    """Return PIL for PIL input, NumPy otherwise."""
    if _is_pil(original):
        from PIL import Image

        return Image.fromarray(arr)
    return arr


def _pair(size: int | Sequence[int], what: str) -> tuple[int, int]:
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        pair = (int(size), int(size))
    elif isinstance(size, Sequence) and len(size) == 2:
        pair = (int(size[0]), int(size[1]))
    else:
        raise TypeError(f"{what}: size must be an int or a (height, width) pair, got {size!r}")
    if min(pair) <= 0:
        raise ValueError(f"{what}: size must be positive, got {size!r}")
    return pair


def decode_bytes(raw: bytes | np.ndarray) -> np.ndarray:
    """Decode an encoded image (JPEG, PNG, BMP, ...) to an HWC RGB uint8 array."""
    from PIL import Image, UnidentifiedImageError

    data = raw.tobytes() if isinstance(raw, np.ndarray) else bytes(raw)
    try:
        with Image.open(io.BytesIO(data)) as im:
            return np.asarray(im.convert("RGB")).copy()
    except UnidentifiedImageError as e:
        raise ValueError(f"Decode: the {len(data)} input bytes are not an image format PIL can read") from e


class Decode(TensorOperation):
    """Decode image bytes (a 1-D uint8 array) to an HWC RGB uint8 array, or a PIL image."""

    def __init__(self, to_pil: bool = False) -> None:
        self.to_pil = bool(to_pil)

    def _apply(self, img: Any) -> Any:
        if isinstance(img, np.ndarray) and (img.ndim != 1 or img.dtype != np.uint8):
            raise ValueError(f"Decode: expected encoded bytes as a 1-D uint8 array, got {img.dtype} {img.shape}; "
                             "is the image already decoded?")
        arr = decode_bytes(img)
        if self.to_pil:
            from PIL import Image

            return Image.fromarray(arr)
        return arr


class Resize(TensorOperation):
    """Resize to ``size`` = (height, width), or make the shorter side ``size`` keeping the aspect."""

    def __init__(self, size: int | Sequence[int], interpolation: Inter = Inter.BILINEAR) -> None:
        _pair(size, "Resize")  # validates an int or a (height, width) pair
        self.size = size
        self.interpolation = Inter(interpolation)

    def _target(self, h: int, w: int) -> tuple[int, int]:
        if isinstance(self.size, (int, np.integer)):
            s = int(self.size)
            return (s, max(1, int(s * w / h))) if h <= w else (max(1, int(s * h / w)), s)
        return int(self.size[0]), int(self.size[1])

    def _apply(self, img: Any) -> Any:
        if _is_pil(img):
            from PIL import Image

            modes = {Inter.NEAREST: Image.Resampling.NEAREST, Inter.BILINEAR: Image.Resampling.BILINEAR,
                     Inter.BICUBIC: Image.Resampling.BICUBIC, Inter.AREA: Image.Resampling.BOX,
                     Inter.ANTIALIAS: Image.Resampling.LANCZOS, Inter.PILCUBIC: Image.Resampling.BICUBIC}
            h, w = self._target(img.size[1], img.size[0])
            return img.resize((w, h), modes[self.interpolation])
        arr = _as_image(img, "Resize")
        h, w = self._target(*arr.shape[:2])
        return resize_array(arr, h, w, self.interpolation)


def _padding(padding: int | Sequence[int]) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) from an int, a (left/right, top/bottom) pair or a 4-tuple."""
    if isinstance(padding, (int, np.integer)):
        p = (int(padding),) * 4
    elif len(padding) == 2:
        p = (int(padding[0]), int(padding[1]), int(padding[0]), int(padding[1]))
    elif len(padding) == 4:
        p = tuple(int(v) for v in padding)  # type: ignore[assignment]
    else:
        raise ValueError(f"padding must be an int or a sequence of 2 or 4 ints, got {padding!r}")
    if min(p) < 0:
        raise ValueError(f"padding must be non-negative, got {padding!r}")
    return p  # type: ignore[return-value]


def pad_image(arr: np.ndarray, left: int, top: int, right: int, bottom: int, fill: int | Sequence[int],
              mode: Border) -> np.ndarray:
    """Pad an HW/HWC image; ``fill`` (one value or one per channel) only for Border.CONSTANT."""
    if not (left or top or right or bottom):
        return arr
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (arr.ndim - 2)
    mode = Border(mode)
    if mode is not Border.CONSTANT:
        return np.pad(arr, widths, mode=mode.value)
    out = np.empty((arr.shape[0] + top + bottom, arr.shape[1] + left + right) + arr.shape[2:], dtype=arr.dtype)
    fill_arr = np.asarray(fill, dtype=arr.dtype)
    if fill_arr.ndim and arr.ndim == 3 and fill_arr.shape[0] != arr.shape[2]:
        raise ValueError(f"fill_value has {fill_arr.shape[0]} values for an image with {arr.shape[2]} channels")
    out[...] = fill_arr if arr.ndim == 3 or not fill_arr.ndim else fill_arr[0]
    out[top: top + arr.shape[0], left: left + arr.shape[1]] = arr
    return out


class Pad(TensorOperation):
    """Pad the image borders by ``padding`` (int, (left/right, top/bottom) or (l, t, r, b))."""

    def __init__(self, padding: int | Sequence[int], fill_value: int | Sequence[int] = 0,
                 padding_mode: Border = Border.CONSTANT) -> None:
        self.padding, self.fill_value, self.padding_mode = _padding(padding), fill_value, Border(padding_mode)

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "Pad")
        return _like_input(pad_image(arr, *self.padding, self.fill_value, self.padding_mode), img)


class RandomCrop(TensorOperation):
    """Crop a random ``size`` window, after optional padding (and padding up to ``size``)."""

    def __init__(self, size: int | Sequence[int], padding: int | Sequence[int] | None = None,
                 pad_if_needed: bool = False, fill_value: int | Sequence[int] = 0,
                 padding_mode: Border = Border.CONSTANT) -> None:
        self.size = _pair(size, "RandomCrop")
        self.padding = None if padding is None else _padding(padding)
        self.pad_if_needed, self.fill_value, self.padding_mode = bool(pad_if_needed), fill_value, Border(padding_mode)

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "RandomCrop")
        if self.padding is not None:
            arr = pad_image(arr, *self.padding, self.fill_value, self.padding_mode)
        h, w = self.size
        if self.pad_if_needed and (arr.shape[0] < h or arr.shape[1] < w):
            dh, dw = max(0, h - arr.shape[0]), max(0, w - arr.shape[1])
            arr = pad_image(arr, dw, dh, dw, dh, self.fill_value, self.padding_mode)
        if arr.shape[0] < h or arr.shape[1] < w:
            raise ValueError(f"RandomCrop: crop size {self.size} is larger than the (padded) image "
                             f"{arr.shape[:2]}; set pad_if_needed=True or padding")
        rng = current_rng()
        top = int(rng.integers(0, arr.shape[0] - h + 1))
        left = int(rng.integers(0, arr.shape[1] - w + 1))
        return _like_input(np.ascontiguousarray(arr[top: top + h, left: left + w]), img)


class CenterCrop(TensorOperation):
    """Crop the central ``size`` window (padding with zeros when the image is smaller)."""

    def __init__(self, size: int | Sequence[int]) -> None:
        self.size = _pair(size, "CenterCrop")

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "CenterCrop")
        h, w = self.size
        dh, dw = max(0, h - arr.shape[0]), max(0, w - arr.shape[1])
        arr = pad_image(arr, dw // 2, dh // 2, dw - dw // 2, dh - dh // 2, 0, Border.CONSTANT)
        top, left = (arr.shape[0] - h) // 2, (arr.shape[1] - w) // 2
        return _like_input(np.ascontiguousarray(arr[top: top + h, left: left + w]), img)


class _RandomFlip(TensorOperation):
    _axis = 1

    def __init__(self, prob: float = 0.5) -> None:
        if not 0 <= prob <= 1:
            raise ValueError(f"{type(self).__name__}: prob must be in [0, 1], got {prob}")
        self.prob = float(prob)

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, type(self).__name__)
        if current_rng().random() < self.prob:
            return _like_input(np.ascontiguousarray(np.flip(arr, axis=self._axis)), img)
        return img


class RandomHorizontalFlip(_RandomFlip):
    """Mirror left-right with probability ``prob``."""


class RandomVerticalFlip(_RandomFlip):
    """Mirror top-bottom with probability ``prob``."""

    _axis = 0


class Normalize(TensorOperation):
    """``(image - mean) / std`` per channel, as float32; mean and std are in pixel units (0..255)."""

    def __init__(self, mean: Sequence[float], std: Sequence[float], is_hwc: bool = True) -> None:
        self.mean = [float(m) for m in mean]
        self.std = [float(s) for s in std]
        if len(self.mean) != len(self.std) or not self.mean:
            raise ValueError(f"Normalize: mean and std must have the same non-zero length, got {mean} and {std}")
        if min(self.std) <= 0:
            raise ValueError(f"Normalize: std values must be positive, got {std}")
        self.is_hwc = bool(is_hwc)

    def _apply(self, img: Any) -> np.ndarray:
        arr = _as_image(img, "Normalize").astype(np.float32)
        channels = 1 if arr.ndim == 2 else (arr.shape[2] if self.is_hwc else arr.shape[0])
        if len(self.mean) not in (1, channels):
            layout = "HWC" if self.is_hwc else "CHW"
            raise ValueError(f"Normalize: {len(self.mean)} mean/std values for an image with {channels} channel(s) "
                             f"(shape {arr.shape}, read as {layout})")
        shape = (-1,) if self.is_hwc or arr.ndim == 2 else (-1, 1, 1)
        mean = np.asarray(self.mean, np.float32).reshape(shape)
        std = np.asarray(self.std, np.float32).reshape(shape)
        return (arr - mean) / std


class HWC2CHW(TensorOperation):
    """Transpose (H, W, C) to (C, H, W); an (H, W) image is returned unchanged."""

    def _apply(self, img: Any) -> np.ndarray:
        arr = _as_image(img, "HWC2CHW")
        return arr if arr.ndim == 2 else np.ascontiguousarray(arr.transpose(2, 0, 1))


class ToTensor(TensorOperation):
    """HWC (or HW) image to CHW ``output_type`` scaled by 1/255 (uint8 0..255 -> 0.0..1.0)."""

    def __init__(self, output_type: Any = np.float32) -> None:
        from ..transforms.transforms import np_dtype

        self.output_type = np_dtype(output_type)

    def _apply(self, img: Any) -> np.ndarray:
        arr = _as_image(img, "ToTensor")
        arr = arr[:, :, None] if arr.ndim == 2 else arr
        return (arr.transpose(2, 0, 1).astype(np.float32) / 255.0).astype(self.output_type)


class Rescale(TensorOperation):
    """``image * rescale + shift`` as float32 (e.g. rescale=1/255, shift=0)."""

    def __init__(self, rescale: float, shift: float) -> None:
        self.rescale, self.shift = float(rescale), float(shift)

    def _apply(self, img: Any) -> np.ndarray:
        arr = np.asarray(img).astype(np.float32)
        return arr * np.float32(self.rescale) + np.float32(self.shift)
