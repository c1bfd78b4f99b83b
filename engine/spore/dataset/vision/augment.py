"""More of ``mindspore.dataset.vision`` (issue 14, dataset slice): geometric warps (Rotate, Affine and
their random forms), colour ops (hue, HSV, sharpness, posterize, solarize, auto-contrast,
equalize, colour jitter, PCA lighting), blur, erasing/cut-out, batch mixing (MixUpBatch,
CutMixBatch), padding to a size, patches, colour-space conversion, and image file I/O.

Conventions are those of `extra`: HWC (or HW) NumPy or PIL in; random draws from
``_seeding.current_rng()``. Warps map each output pixel centre back into the input (pixel-centre
coordinates, the default centre is ((W-1)/2, (H-1)/2)) and sample it with nearest or bilinear
interpolation; pixels that land outside get ``fill_value``. Positive angles turn the image
counter-clockwise for Rotate and clockwise for Affine, as MindSpore documents. The uint8 colour
ops (posterize, solarize, auto-contrast, equalize, sharpness, colour) follow PIL's ImageOps /
ImageEnhance, which MindSpore's match.
"""

from __future__ import annotations

import colorsys  # noqa: F401  (documents the HSV convention: the same as colorsys)
import enum
import math
import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._seeding import current_rng
from ..errors import DatasetError
from ..transforms.base import TensorOperation
from .extra import AdjustBrightness, AdjustContrast, AdjustSaturation, RandomResizedCrop, _finish
from .transforms import Decode, _as_image, _is_pil, _like_input, _pair, pad_image
from .utils import Border, Inter

__all__ = ["Rotate", "RandomRotation", "Affine", "RandomAffine", "AdjustHue", "RgbToHsv", "HsvToRgb",
           "AdjustSharpness", "RandomSharpness", "RandomAdjustSharpness", "RandomColor", "Posterize",
           "RandomPosterize", "Solarize", "RandomSolarize", "AutoContrast", "RandomAutoContrast", "Equalize",
           "RandomEqualize", "RandomColorAdjust", "RandomLighting", "GaussianBlur", "CutOut", "Erase", "PadToSize",
           "RandomResize", "MixUpBatch", "CutMixBatch", "ImageBatchFormat", "LinearTransformation", "NormalizePad",
           "ToNumpy", "RandomCropDecodeResize", "ConvertMode", "ConvertColor", "UniformAugment",
           "RandomSelectSubpolicy", "SliceMode", "SlicePatches", "ImageReadMode", "get_image_size",
           "get_image_num_channels", "read_file", "write_file", "read_image", "encode_png", "encode_jpeg",
           "write_png", "write_jpeg", "not_random", "Perspective", "RandomPerspective", "RandAugment",
           "TrivialAugmentWide", "MixUp"]


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what} must be a number, got {value!r}")
    return float(value)


def _range(value: Any, what: str, symmetric_from: float | None = None, lo: float | None = None) -> tuple[float, float]:
    """A (min, max) pair; a single number v is (center - v, center + v) when ``symmetric_from`` is given."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        v = float(value)
        if symmetric_from is None:
            raise TypeError(f"{what} must be a (min, max) pair, got {value!r}")
        if v < 0:
            raise ValueError(f"{what} must be non-negative when given as one number, got {value!r}")
        pair = (symmetric_from - v, symmetric_from + v)
        if lo is not None:
            pair = (max(lo, pair[0]), pair[1])
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        pair = (_number(value[0], what), _number(value[1], what))
    else:
        raise TypeError(f"{what} must be a number or a (min, max) pair, got {value!r}")
    if pair[0] > pair[1]:
        raise ValueError(f"{what}: min must not exceed max, got {value!r}")
    return pair


# --- warps --------------------------------------------------------------------------------------

def warp(arr: np.ndarray, inverse: np.ndarray, out_h: int, out_w: int, inter: Inter, fill: Any,
         op: str) -> np.ndarray:
    """Output pixel (x, y) takes the input at ``inverse @ (x, y, 1)`` (a 3x3 projective matrix)."""
    inter = Inter(inter)
    if inter not in (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC):
        raise ValueError(f"{op}: resample must be Inter.NEAREST, Inter.BILINEAR or Inter.BICUBIC, got {inter.name}")
    h, w = arr.shape[:2]
    ys, xs = np.mgrid[0:out_h, 0:out_w].astype(np.float64)
    pts = inverse @ np.stack([xs.ravel(), ys.ravel(), np.ones(xs.size)])
    sx, sy = (pts[0] / pts[2]).reshape(out_h, out_w), (pts[1] / pts[2]).reshape(out_h, out_w)
    planes = arr[..., None] if arr.ndim == 2 else arr
    c = planes.shape[2]
    fill_arr = np.broadcast_to(np.asarray(fill, np.float64).reshape(-1), (c,)) if np.ndim(fill) else \
        np.full(c, float(fill))
    src = planes.astype(np.float64)
    if inter == Inter.NEAREST:
        ix, iy = np.floor(sx + 0.5).astype(np.int64), np.floor(sy + 0.5).astype(np.int64)
        inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
        out = np.empty((out_h, out_w, c))
        out[...] = fill_arr
        out[inside] = src[iy[inside], ix[inside]]
    else:
        x0, y0 = np.floor(sx).astype(np.int64), np.floor(sy).astype(np.int64)
        fx, fy = (sx - x0)[..., None], (sy - y0)[..., None]
        out = np.zeros((out_h, out_w, c))
        if inter == Inter.BICUBIC:
            taps_y = [(d, _cubic_weight(fy - d)) for d in (-1, 0, 1, 2)]
            taps_x = [(d, _cubic_weight(fx - d)) for d in (-1, 0, 1, 2)]
        else:
            taps_y, taps_x = [(0, 1 - fy), (1, fy)], [(0, 1 - fx), (1, fx)]
        for dy, wy in taps_y:
            for dx, wx in taps_x:
                xx, yy = x0 + dx, y0 + dy
                ok = (xx >= 0) & (xx < w) & (yy >= 0) & (yy < h)
                vals = np.where(ok[..., None], src[np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)], fill_arr)
                out += wx * wy * vals
    out = out[..., 0] if arr.ndim == 2 else out
    if np.issubdtype(arr.dtype, np.integer):
        info = np.iinfo(arr.dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(arr.dtype)
    return out.astype(arr.dtype)


def _cubic_weight(t: np.ndarray, a: float = -0.75) -> np.ndarray:
    """Keys' cubic convolution kernel (OpenCV's a = -0.75) at distance ``t``."""
    t = np.abs(t)
    return np.where(t <= 1, ((a + 2) * t - (a + 3)) * t * t + 1,
                    np.where(t < 2, ((a * t - 5 * a) * t + 8 * a) * t - 4 * a, 0.0))


def homography(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The 3x3 projective matrix taking the four points ``src`` to ``dst`` (each (4, 2))."""
    rows, rhs = [], []
    for (x, y), (u, v) in zip(src, dst, strict=True):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        rhs += [u, v]
    try:
        h = np.linalg.solve(np.asarray(rows, np.float64), np.asarray(rhs, np.float64))
    except np.linalg.LinAlgError:
        raise ValueError("the four points are degenerate (three of them on a line)") from None
    return np.append(h, 1.0).reshape(3, 3)


def affine_inverse(center: tuple[float, float], angle: float, translate: Sequence[float], scale: float,
                   shear: Sequence[float]) -> np.ndarray:
    """The output-to-input matrix of rotate(angle, clockwise in image coordinates) . scale . shear
    about ``center``, then translate (torchvision's construction, which MindSpore's follows)."""
    if scale <= 0:
        raise ValueError(f"scale must be positive, got {scale}")
    rot, sx, sy = math.radians(angle), math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    m = np.array([d, -b, 0.0, -c, a, 0.0]) / scale
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty)
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty)
    m[2] += cx
    m[5] += cy
    return np.array([[m[0], m[1], m[2]], [m[3], m[4], m[5]], [0.0, 0.0, 1.0]])


def _center(center: Any, h: int, w: int) -> tuple[float, float]:
    return ((w - 1) / 2, (h - 1) / 2) if center is None else (float(center[0]), float(center[1]))


def _rotate(img: Any, degrees: float, resample: Inter, expand: bool, center: Any, fill: Any, op: str) -> Any:
    arr = _as_image(img, op)
    h, w = arr.shape[:2]
    c = _center(center, h, w)
    inv = affine_inverse(c, -degrees, (0.0, 0.0), 1.0, (0.0, 0.0))
    out_h, out_w = h, w
    if expand:
        fwd = np.linalg.inv(inv)
        corners = fwd @ np.array([[-0.5, w - 0.5, -0.5, w - 0.5], [-0.5, -0.5, h - 0.5, h - 0.5], [1, 1, 1, 1]])
        span_w, span_h = np.ptp(corners[0]), np.ptp(corners[1])
        out_w, out_h = int(math.ceil(span_w - 1e-7)), int(math.ceil(span_h - 1e-7))
        shift = np.array([[1, 0, corners[0].min() + 0.5], [0, 1, corners[1].min() + 0.5], [0, 0, 1]])
        inv = inv @ shift
    return _like_input(warp(arr, inv, out_h, out_w, resample, fill, op), img)


class Rotate(TensorOperation):
    """Rotate by ``degrees`` counter-clockwise about ``center`` (x, y; default the image centre);
    ``expand=True`` grows the output to hold the whole rotated image."""

    def __init__(self, degrees: float, resample: Inter = Inter.NEAREST, expand: bool = False, center: Any = None,
                 fill_value: Any = 0) -> None:
        self.degrees = _number(degrees, "Rotate: degrees")
        self.resample, self.expand, self.center, self.fill_value = Inter(resample), bool(expand), center, fill_value

    def _apply(self, img: Any) -> Any:
        return _rotate(img, self.degrees, self.resample, self.expand, self.center, self.fill_value, "Rotate")


class RandomRotation(TensorOperation):
    """`Rotate` by an angle drawn uniformly from ``degrees`` ((min, max), or d for (-d, d))."""

    def __init__(self, degrees: Any, resample: Inter = Inter.NEAREST, expand: bool = False, center: Any = None,
                 fill_value: Any = 0) -> None:
        self.degrees = _range(degrees, "RandomRotation: degrees", 0.0)
        self.resample, self.expand, self.center, self.fill_value = Inter(resample), bool(expand), center, fill_value

    def _apply(self, img: Any) -> Any:
        angle = float(current_rng().uniform(*self.degrees))
        return _rotate(img, angle, self.resample, self.expand, self.center, self.fill_value, "RandomRotation")


def _affine(img: Any, degrees: float, translate: Sequence[float], scale: float, shear: Sequence[float],
            resample: Inter, fill: Any, op: str, center: Any = None) -> Any:
    arr = _as_image(img, op)
    h, w = arr.shape[:2]
    inv = affine_inverse(_center(center, h, w), degrees, translate, scale, shear)
    return _like_input(warp(arr, inv, h, w, resample, fill, op), img)


def _shear_pair(shear: Any, op: str) -> tuple[float, float]:
    if isinstance(shear, (int, float)) and not isinstance(shear, bool):
        return float(shear), 0.0
    if isinstance(shear, (tuple, list)) and len(shear) == 2:
        return float(shear[0]), float(shear[1])
    raise TypeError(f"{op}: shear must be a number or an (x, y) pair of degrees, got {shear!r}")


class Affine(TensorOperation):
    """Rotate by ``degrees`` clockwise, scale, shear ((x, y) degrees, or x only) about the centre,
    then shift by ``translate`` (x, y) pixels."""

    def __init__(self, degrees: float, translate: Sequence[float], scale: float, shear: Any,
                 resample: Inter = Inter.NEAREST, fill_value: Any = 0) -> None:
        self.degrees = _number(degrees, "Affine: degrees")
        if not isinstance(translate, (tuple, list)) or len(translate) != 2:
            raise TypeError(f"Affine: translate must be an (x, y) pair, got {translate!r}")
        self.translate = (float(translate[0]), float(translate[1]))
        self.scale = _number(scale, "Affine: scale")
        if self.scale <= 0:
            raise ValueError(f"Affine: scale must be positive, got {scale}")
        self.shear, self.resample, self.fill_value = _shear_pair(shear, "Affine"), Inter(resample), fill_value

    def _apply(self, img: Any) -> Any:
        return _affine(img, self.degrees, self.translate, self.scale, self.shear, self.resample, self.fill_value,
                       "Affine")


class RandomAffine(TensorOperation):
    """`Affine` with parameters drawn uniformly: ``degrees`` ((min, max) or d for (-d, d)),
    ``translate`` as fractions of the width/height ((x_min, x_max) or (x_min, x_max, y_min, y_max)),
    ``scale`` (min, max), ``shear`` (s for x in (-s, s); (x_min, x_max); or 4 values for x and y)."""

    def __init__(self, degrees: Any, translate: Sequence[float] | None = None, scale: Sequence[float] | None = None,
                 shear: Any = None, resample: Inter = Inter.NEAREST, fill_value: Any = 0) -> None:
        op = "RandomAffine"
        self.degrees = _range(degrees, f"{op}: degrees", 0.0)
        if translate is not None:
            t = [float(v) for v in translate]
            if len(t) not in (2, 4) or any(abs(v) > 1 for v in t):
                raise ValueError(f"{op}: translate must hold 2 or 4 fractions in [-1, 1], got {translate!r}")
            translate = t if len(t) == 4 else t + [0.0, 0.0]
        self.translate = translate
        if scale is not None:
            scale = _range(scale, f"{op}: scale")
            if scale[0] <= 0:
                raise ValueError(f"{op}: scale must be positive, got {scale!r}")
        self.scale = scale
        if shear is not None:
            if isinstance(shear, (int, float)) and not isinstance(shear, bool):
                shear = [-abs(float(shear)), abs(float(shear)), 0.0, 0.0]
            else:
                s = [float(v) for v in shear]
                if len(s) not in (2, 4):
                    raise ValueError(f"{op}: shear must be a number or 2 or 4 values, got {shear!r}")
                shear = s if len(s) == 4 else s + [0.0, 0.0]
        self.shear, self.resample, self.fill_value = shear, Inter(resample), fill_value

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "RandomAffine")
        h, w = arr.shape[:2]
        rng = current_rng()
        angle = float(rng.uniform(*self.degrees))
        t = self.translate
        translate = (0.0, 0.0) if t is None else (float(np.round(rng.uniform(t[0], t[1]) * w)),
                                                  float(np.round(rng.uniform(t[2], t[3]) * h)))
        scale = 1.0 if self.scale is None else float(rng.uniform(*self.scale))
        s = self.shear
        shear = (0.0, 0.0) if s is None else (float(rng.uniform(s[0], s[1])), float(rng.uniform(s[2], s[3])))
        return _affine(img, angle, translate, scale, shear, self.resample, self.fill_value, "RandomAffine")


# --- colour -------------------------------------------------------------------------------------

def rgb_to_hsv(rgb: np.ndarray) -> np.ndarray:
    """(..., 3) RGB in [0, 1] to HSV in [0, 1] (colorsys's convention)."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    maxc, minc = rgb.max(-1), rgb.min(-1)
    v = maxc
    delta = maxc - minc
    s = np.where(maxc > 0, delta / np.where(maxc > 0, maxc, 1), 0.0)
    d = np.where(delta > 0, delta, 1)
    rc, gc, bc = (maxc - r) / d, (maxc - g) / d, (maxc - b) / d
    h = np.where(r == maxc, bc - gc, np.where(g == maxc, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.where(delta > 0, (h / 6.0) % 1.0, 0.0)
    return np.stack([h, s, v], axis=-1)


def hsv_to_rgb(hsv: np.ndarray) -> np.ndarray:
    """(..., 3) HSV in [0, 1] to RGB in [0, 1] (colorsys's convention)."""
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    i = i.astype(np.int64) % 6
    choices = [np.stack(c, -1) for c in ((v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q))]
    out = np.select([(i == k)[..., None] for k in range(6)], choices)
    return np.where((s == 0)[..., None], np.stack([v, v, v], -1), out)


def _rgb(img: Any, op: str) -> np.ndarray:
    arr = _as_image(img, op)
    if arr.ndim != 3 or arr.shape[2] != 3:
        raise ValueError(f"{op}: expected an RGB image of shape (H, W, 3), got shape {arr.shape}")
    return arr


class AdjustHue(TensorOperation):
    """Shift the hue by ``hue_factor`` (in [-0.5, 0.5], a fraction of the colour wheel)."""

    def __init__(self, hue_factor: float) -> None:
        self.hue_factor = _number(hue_factor, "AdjustHue: hue_factor")
        if not -0.5 <= self.hue_factor <= 0.5:
            raise ValueError(f"AdjustHue: hue_factor must be in [-0.5, 0.5], got {hue_factor}")

    def _apply(self, img: Any) -> Any:
        arr = _rgb(img, "AdjustHue")
        scale = 255.0 if np.issubdtype(arr.dtype, np.integer) else 1.0
        hsv = rgb_to_hsv(arr.astype(np.float64) / scale)
        hsv[..., 0] = (hsv[..., 0] + self.hue_factor) % 1.0
        return _finish(hsv_to_rgb(hsv) * scale, arr.dtype)


class RgbToHsv(TensorOperation):
    """RGB float images in [0, 1] to HSV in [0, 1]: CHW (default) or, with ``is_hwc``, HWC; a batch
    of them (N, ...) too."""

    def __init__(self, is_hwc: bool = False) -> None:
        self.is_hwc = bool(is_hwc)

    def _convert(self, img: Any, fn: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        arr = np.asarray(img, dtype=np.float64)
        axis = -1 if self.is_hwc else -3
        if arr.ndim not in (3, 4) or arr.shape[axis] != 3:
            raise ValueError(f"{type(self).__name__}: expected {'(H, W, 3)' if self.is_hwc else '(3, H, W)'} "
                             f"images, got shape {arr.shape}")
        out = fn(np.moveaxis(arr, axis, -1))
        return np.moveaxis(out, -1, axis).astype(np.asarray(img).dtype if np.asarray(img).dtype.kind == "f"
                                                  else np.float32)

    def _apply(self, img: Any) -> Any:
        return self._convert(img, rgb_to_hsv)


class HsvToRgb(RgbToHsv):
    """HSV float images in [0, 1] back to RGB (the inverse of `RgbToHsv`)."""

    def _apply(self, img: Any) -> Any:
        return self._convert(img, hsv_to_rgb)


def _pil_uint8(img: Any, op: str) -> Any:
    from PIL import Image

    if _is_pil(img):
        return img
    arr = _as_image(img, op)
    if arr.dtype != np.uint8:
        raise TypeError(f"{op}: expected a uint8 image, got {arr.dtype}")
    return Image.fromarray(arr[..., 0] if arr.ndim == 3 and arr.shape[2] == 1 else arr)


def _back(out: Any, img: Any) -> Any:
    if _is_pil(img):
        return out
    arr = np.asarray(out)
    return arr[..., None] if np.asarray(img).ndim == 3 and arr.ndim == 2 else arr


def _enhance(img: Any, kind: str, factor: float, op: str) -> Any:
    from PIL import ImageEnhance

    return _back(getattr(ImageEnhance, kind)(_pil_uint8(img, op)).enhance(factor), img)


class AdjustSharpness(TensorOperation):
    """Blend with a smoothed image: 0 gives the blur, 1 the image, 2 doubles the sharpness (PIL's)."""

    def __init__(self, sharpness_factor: float) -> None:
        self.sharpness_factor = _number(sharpness_factor, "AdjustSharpness: sharpness_factor")
        if self.sharpness_factor < 0:
            raise ValueError(f"AdjustSharpness: sharpness_factor must be non-negative, got {sharpness_factor}")

    def _apply(self, img: Any) -> Any:
        return _enhance(img, "Sharpness", self.sharpness_factor, "AdjustSharpness")


class RandomSharpness(TensorOperation):
    """`AdjustSharpness` with a factor drawn uniformly from ``degrees``."""

    def __init__(self, degrees: Sequence[float] = (0.1, 1.9)) -> None:
        self.degrees = _range(degrees, "RandomSharpness: degrees")

    def _apply(self, img: Any) -> Any:
        return _enhance(img, "Sharpness", float(current_rng().uniform(*self.degrees)), "RandomSharpness")


class RandomAdjustSharpness(TensorOperation):
    """`AdjustSharpness(degree)` with probability ``prob``."""

    def __init__(self, degree: float, prob: float = 0.5) -> None:
        self.degree, self.prob = _number(degree, "RandomAdjustSharpness: degree"), float(prob)
        if not 0 <= self.prob <= 1:
            raise ValueError(f"RandomAdjustSharpness: prob must be in [0, 1], got {prob}")

    def _apply(self, img: Any) -> Any:
        if current_rng().random() >= self.prob:
            return img
        return _enhance(img, "Sharpness", self.degree, "RandomAdjustSharpness")


class RandomColor(TensorOperation):
    """Blend with the grayscale image by a factor drawn uniformly from ``degrees`` (PIL's Color)."""

    def __init__(self, degrees: Sequence[float] = (0.1, 1.9)) -> None:
        self.degrees = _range(degrees, "RandomColor: degrees")

    def _apply(self, img: Any) -> Any:
        return _enhance(img, "Color", float(current_rng().uniform(*self.degrees)), "RandomColor")


def _check_bits(bits: Any, op: str) -> int:
    if isinstance(bits, bool) or not isinstance(bits, (int, np.integer)) or not 1 <= bits <= 8:
        raise ValueError(f"{op}: bits must be an int in [1, 8], got {bits!r}")
    return int(bits)


def _posterize(img: Any, bits: int, op: str) -> Any:
    arr = _as_image(img, op)
    if arr.dtype != np.uint8:
        raise TypeError(f"{op}: expected a uint8 image, got {arr.dtype}")
    return _like_input(arr & np.uint8((0xFF << (8 - bits)) & 0xFF), img)


class Posterize(TensorOperation):
    """Keep the ``bits`` most significant bits of each channel."""

    def __init__(self, bits: int) -> None:
        self.bits = _check_bits(bits, "Posterize")

    def _apply(self, img: Any) -> Any:
        return _posterize(img, self.bits, "Posterize")


class RandomPosterize(TensorOperation):
    """`Posterize` with ``bits`` drawn uniformly from the int range ``bits`` (an int: that many)."""

    def __init__(self, bits: Any = (8, 8)) -> None:
        lo, hi = (bits, bits) if isinstance(bits, int) else bits
        self.bits = (_check_bits(lo, "RandomPosterize"), _check_bits(hi, "RandomPosterize"))
        if self.bits[0] > self.bits[1]:
            raise ValueError(f"RandomPosterize: bits must be (min, max) with min <= max, got {bits!r}")

    def _apply(self, img: Any) -> Any:
        return _posterize(img, int(current_rng().integers(self.bits[0], self.bits[1] + 1)), "RandomPosterize")


def _solarize(img: Any, lo: float, hi: float, op: str) -> Any:
    arr = _as_image(img, op)
    top = 255 if np.issubdtype(arr.dtype, np.integer) else 1.0
    out = np.where((arr >= lo) & (arr <= hi), top - arr, arr).astype(arr.dtype)
    return _like_input(out, img)


def _threshold(threshold: Any, op: str) -> tuple[float, float]:
    if isinstance(threshold, (int, float)) and not isinstance(threshold, bool):
        pair = (float(threshold), 255.0)
    else:
        pair = _range(threshold, f"{op}: threshold")
    if not 0 <= pair[0] <= pair[1] <= 255:
        raise ValueError(f"{op}: threshold must lie in [0, 255] with min <= max, got {threshold!r}")
    return pair


class Solarize(TensorOperation):
    """Invert (255 - pixel) the pixels within ``threshold`` ((min, max); one number t: [t, 255])."""

    def __init__(self, threshold: Any) -> None:
        self.threshold = _threshold(threshold, "Solarize")

    def _apply(self, img: Any) -> Any:
        return _solarize(img, *self.threshold, "Solarize")


class RandomSolarize(TensorOperation):
    """`Solarize` over a sub-range of ``threshold`` drawn at random (two ints, sorted)."""

    def __init__(self, threshold: Sequence[float] = (0, 255)) -> None:
        self.threshold = _threshold(threshold, "RandomSolarize")

    def _apply(self, img: Any) -> Any:
        lo, hi = sorted(current_rng().integers(int(self.threshold[0]), int(self.threshold[1]) + 1, size=2))
        return _solarize(img, float(lo), float(hi), "RandomSolarize")


def _autocontrast(img: Any, cutoff: float, ignore: Any, op: str) -> Any:
    from PIL import ImageOps

    return _back(ImageOps.autocontrast(_pil_uint8(img, op), cutoff=cutoff, ignore=ignore), img)


def _check_cutoff(cutoff: Any, ignore: Any, op: str) -> tuple[float, Any]:
    cutoff = _number(cutoff, f"{op}: cutoff")
    if not 0 <= cutoff < 50:
        raise ValueError(f"{op}: cutoff must be in [0, 50), got {cutoff}")
    if ignore is not None and not isinstance(ignore, (int, list, tuple)):
        raise TypeError(f"{op}: ignore must be an int, a list of ints or None, got {ignore!r}")
    return cutoff, ignore


class AutoContrast(TensorOperation):
    """Stretch each channel so its darkest pixel becomes 0 and its brightest 255, after cutting
    ``cutoff`` percent of the histogram at each end; pixel values in ``ignore`` are not counted."""

    def __init__(self, cutoff: float = 0.0, ignore: Any = None) -> None:
        self.cutoff, self.ignore = _check_cutoff(cutoff, ignore, "AutoContrast")

    def _apply(self, img: Any) -> Any:
        return _autocontrast(img, self.cutoff, self.ignore, "AutoContrast")


class RandomAutoContrast(TensorOperation):
    """`AutoContrast` with probability ``prob``."""

    def __init__(self, cutoff: float = 0.0, ignore: Any = None, prob: float = 0.5) -> None:
        self.cutoff, self.ignore = _check_cutoff(cutoff, ignore, "RandomAutoContrast")
        self.prob = float(prob)

    def _apply(self, img: Any) -> Any:
        if current_rng().random() >= self.prob:
            return img
        return _autocontrast(img, self.cutoff, self.ignore, "RandomAutoContrast")


class Equalize(TensorOperation):
    """Equalize each channel's histogram (PIL's ImageOps.equalize)."""

    def _apply(self, img: Any) -> Any:
        from PIL import ImageOps

        return _back(ImageOps.equalize(_pil_uint8(img, "Equalize")), img)


class RandomEqualize(TensorOperation):
    """`Equalize` with probability ``prob``."""

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = float(prob)
        if not 0 <= self.prob <= 1:
            raise ValueError(f"RandomEqualize: prob must be in [0, 1], got {prob}")

    def _apply(self, img: Any) -> Any:
        return Equalize()._apply(img) if current_rng().random() < self.prob else img


class RandomColorAdjust(TensorOperation):
    """Brightness, contrast, saturation (factors drawn from their ranges; one number b means
    [max(0, 1 - b), 1 + b]) and hue (a shift drawn from [-h, h] or (min, max)), in random order."""

    def __init__(self, brightness: Any = (1, 1), contrast: Any = (1, 1), saturation: Any = (1, 1),
                 hue: Any = (0, 0)) -> None:
        op = "RandomColorAdjust"
        self.brightness = _range(brightness, f"{op}: brightness", 1.0, 0.0)
        self.contrast = _range(contrast, f"{op}: contrast", 1.0, 0.0)
        self.saturation = _range(saturation, f"{op}: saturation", 1.0, 0.0)
        self.hue = _range(hue, f"{op}: hue", 0.0)
        if min(self.brightness[0], self.contrast[0], self.saturation[0]) < 0:
            raise ValueError(f"{op}: brightness, contrast and saturation factors must be non-negative")
        if not -0.5 <= self.hue[0] <= self.hue[1] <= 0.5:
            raise ValueError(f"{op}: hue must lie in [-0.5, 0.5], got {hue!r}")

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "RandomColorAdjust")
        rng = current_rng()
        steps = [lambda x: AdjustBrightness(float(rng.uniform(*self.brightness)))._apply(x),
                 lambda x: AdjustContrast(float(rng.uniform(*self.contrast)))._apply(x),
                 lambda x: AdjustSaturation(float(rng.uniform(*self.saturation)))._apply(x),
                 lambda x: AdjustHue(float(rng.uniform(*self.hue)))._apply(x)]
        out = arr
        for i in rng.permutation(4):
            out = steps[i](out)
        return _like_input(np.asarray(out), img)


_EIGVAL = np.array([55.46, 4.794, 1.148])
_EIGVEC = np.array([[-0.5836, -0.6948, 0.4203], [-0.5808, -0.0045, -0.8140], [-0.5675, 0.7192, 0.4009]])


class RandomLighting(TensorOperation):
    """AlexNet's PCA lighting noise: add ``eigvec @ (a * eigval)`` to every RGB pixel, a ~ N(0, alpha)
    (ImageNet's eigenvalues and eigenvectors in 0..255 units)."""

    def __init__(self, alpha: float = 0.05) -> None:
        self.alpha = _number(alpha, "RandomLighting: alpha")
        if self.alpha < 0:
            raise ValueError(f"RandomLighting: alpha must be non-negative, got {alpha}")

    def _apply(self, img: Any) -> Any:
        arr = _rgb(img, "RandomLighting")
        a = current_rng().normal(0.0, self.alpha, 3)
        shift = _EIGVEC @ (a * _EIGVAL)
        return _like_input(_finish(arr.astype(np.float64) + shift, arr.dtype), img)


def gaussian_kernel(size: int, sigma: float) -> np.ndarray:
    """A normalized 1-D Gaussian of ``size`` taps."""
    x = np.arange(size) - (size - 1) / 2
    k = np.exp(-0.5 * (x / sigma) ** 2)
    return k / k.sum()


class GaussianBlur(TensorOperation):
    """Blur with a separable Gaussian of ``kernel_size`` (odd, int or (x, y)) and ``sigma`` (number or
    (x, y); None: OpenCV's 0.3 * ((k - 1) / 2 - 1) + 0.8); borders reflect without the edge pixel."""

    def __init__(self, kernel_size: Any, sigma: Any = None) -> None:
        ks = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
        if len(ks) != 2 or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 or k % 2 == 0 for k in ks):
            raise ValueError(f"GaussianBlur: kernel_size must be a positive odd int or pair, got {kernel_size!r}")
        self.kernel_size = ks
        if sigma is None:
            sg = tuple(0.3 * ((k - 1) * 0.5 - 1) + 0.8 for k in ks)
        else:
            sg = (sigma, sigma) if isinstance(sigma, (int, float)) else tuple(sigma)
            if len(sg) != 2 or min(sg) <= 0:
                raise ValueError(f"GaussianBlur: sigma must be positive (a number or a pair), got {sigma!r}")
        self.sigma = (float(sg[0]), float(sg[1]))

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "GaussianBlur")
        x = arr.astype(np.float64)
        kx, ky = gaussian_kernel(self.kernel_size[0], self.sigma[0]), gaussian_kernel(self.kernel_size[1],
                                                                                     self.sigma[1])
        for axis, k in ((1, kx), (0, ky)):
            r = len(k) // 2
            if r:
                if x.shape[axis] <= r:
                    raise ValueError(f"GaussianBlur: the image ({arr.shape[:2]}) is too small for kernel "
                                     f"{self.kernel_size}")
                widths = [(0, 0)] * x.ndim
                widths[axis] = (r, r)
                p = np.pad(x, widths, mode="reflect")
                n = x.shape[axis]
                x = sum(k[i] * np.take(p, np.arange(i, i + n), axis=axis) for i in range(len(k)))
        return _like_input(_finish(x, arr.dtype), img)


class CutOut(TensorOperation):
    """Zero ``num_patches`` random ``length`` x ``length`` squares (clipped at the borders), of an
    HWC image (CHW with ``is_hwc=False``)."""

    def __init__(self, length: int, num_patches: int = 1, is_hwc: bool = True) -> None:
        if isinstance(length, bool) or not isinstance(length, int) or length < 1:
            raise ValueError(f"CutOut: length must be a positive int, got {length!r}")
        if isinstance(num_patches, bool) or not isinstance(num_patches, int) or num_patches < 1:
            raise ValueError(f"CutOut: num_patches must be a positive int, got {num_patches!r}")
        self.length, self.num_patches, self.is_hwc = length, num_patches, bool(is_hwc)

    def _apply(self, img: Any) -> Any:
        arr = np.array(img)
        if arr.ndim != 3:
            raise ValueError(f"CutOut: expected a 3-D image, got shape {arr.shape}")
        h, w = arr.shape[:2] if self.is_hwc else arr.shape[1:]
        if self.length > min(h, w):
            raise ValueError(f"CutOut: length {self.length} exceeds the image size {(h, w)}")
        rng = current_rng()
        for _ in range(self.num_patches):
            top, left = int(rng.integers(0, h - self.length + 1)), int(rng.integers(0, w - self.length + 1))
            if self.is_hwc:
                arr[top:top + self.length, left:left + self.length] = 0
            else:
                arr[:, top:top + self.length, left:left + self.length] = 0
        return arr


class Erase(TensorOperation):
    """Set the (top, left, height, width) window of an HWC image to ``value`` (a number or one per
    channel)."""

    def __init__(self, top: int, left: int, height: int, width: int, value: Any = 0.0, inplace: bool = False) -> None:
        if min(top, left) < 0 or min(height, width) < 1:
            raise ValueError(f"Erase: need top, left >= 0 and height, width >= 1, got {(top, left, height, width)}")
        self.top, self.left, self.height, self.width = int(top), int(left), int(height), int(width)
        self.value, self.inplace = value, bool(inplace)

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "Erase")
        out = arr if self.inplace and isinstance(img, np.ndarray) and arr.flags.writeable else arr.copy()
        out[self.top:self.top + self.height, self.left:self.left + self.width] = np.asarray(self.value).astype(
            arr.dtype)
        return out


class PadToSize(TensorOperation):
    """Pad to ``size`` (height, width): ``offset`` (top, left) of the image in the result, or None to
    centre it (the extra pixel goes below/right)."""

    def __init__(self, size: Any, offset: Any = None, fill_value: Any = 0,
                 padding_mode: Border = Border.CONSTANT) -> None:
        self.size = _pair(size, "PadToSize")
        if offset is not None:
            offset = (int(offset), int(offset)) if isinstance(offset, int) else (int(offset[0]), int(offset[1]))
            if min(offset) < 0:
                raise ValueError(f"PadToSize: offset must be non-negative, got {offset!r}")
        self.offset, self.fill_value, self.padding_mode = offset, fill_value, Border(padding_mode)

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "PadToSize")
        h, w = arr.shape[:2]
        th, tw = self.size
        top, left = ((th - h) // 2, (tw - w) // 2) if self.offset is None else self.offset
        if h + top > th or w + left > tw:
            raise ValueError(f"PadToSize: an image of size {(h, w)} at offset {(top, left)} does not fit "
                             f"in {self.size}")
        return _like_input(pad_image(arr, left, top, tw - w - left, th - h - top, self.fill_value,
                                     self.padding_mode), img)


class RandomResize(TensorOperation):
    """Resize to ``size`` with an interpolation drawn from NEAREST, BILINEAR, BICUBIC and AREA."""

    _MODES = (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC, Inter.AREA)

    def __init__(self, size: Any) -> None:
        self.size = size if isinstance(size, int) else _pair(size, "RandomResize")

    def _apply(self, img: Any) -> Any:
        from .transforms import Resize

        mode = self._MODES[int(current_rng().integers(0, len(self._MODES)))]
        return Resize(self.size, mode)._apply(img)


class ImageBatchFormat(enum.IntEnum):
    """The layout of an image batch."""

    NHWC = 0
    NCHW = 1


def _batch_pair(images: Any, labels: Any, op: str) -> tuple[np.ndarray, np.ndarray]:
    imgs, labs = np.asarray(images), np.asarray(labels)
    if imgs.ndim != 4:
        raise ValueError(f"{op}: expected a batch of images (N, H, W, C) or (N, C, H, W), got shape {imgs.shape}")
    if labs.ndim not in (2, 3) or labs.shape[0] != imgs.shape[0]:
        raise ValueError(f"{op}: labels must be one-hot, (N, num_classes), for {imgs.shape[0]} images; got shape "
                         f"{labs.shape}", )
    return imgs, labs


class MixUpBatch(TensorOperation):
    """Mix each image and one-hot label with those of another sample of the batch (a random
    permutation): lam * x + (1 - lam) * x[perm], lam ~ Beta(alpha, alpha)."""

    _num_inputs = 2

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = _number(alpha, "MixUpBatch: alpha")
        if self.alpha <= 0:
            raise ValueError(f"MixUpBatch: alpha must be positive, got {alpha}")

    def _apply(self, images: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
        imgs, labs = _batch_pair(images, labels, "MixUpBatch")
        rng = current_rng()
        lam = float(rng.beta(self.alpha, self.alpha))
        perm = rng.permutation(len(imgs))
        mixed = lam * imgs.astype(np.float64) + (1 - lam) * imgs[perm].astype(np.float64)
        lab = lam * labs.astype(np.float64) + (1 - lam) * labs[perm].astype(np.float64)
        return _finish(mixed, imgs.dtype), lab.astype(labs.dtype if labs.dtype.kind == "f" else np.float32)


class CutMixBatch(TensorOperation):
    """With probability ``prob`` per image, paste a random box from another image of the batch
    (area fraction 1 - lam, lam ~ Beta(alpha, alpha)); labels mix by the box's real area."""

    _num_inputs = 2

    def __init__(self, image_batch_format: ImageBatchFormat, alpha: float = 1.0, prob: float = 1.0) -> None:
        self.image_batch_format = ImageBatchFormat(image_batch_format)
        self.alpha, self.prob = _number(alpha, "CutMixBatch: alpha"), _number(prob, "CutMixBatch: prob")
        if self.alpha <= 0 or not 0 <= self.prob <= 1:
            raise ValueError(f"CutMixBatch: need alpha > 0 and prob in [0, 1], got {alpha}, {prob}")

    def _apply(self, images: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
        imgs, labs = _batch_pair(images, labels, "CutMixBatch")
        nhwc = self.image_batch_format == ImageBatchFormat.NHWC
        h, w = (imgs.shape[1], imgs.shape[2]) if nhwc else (imgs.shape[2], imgs.shape[3])
        rng = current_rng()
        out, lab = imgs.copy(), labs.astype(np.float64).copy()
        perm = rng.permutation(len(imgs))
        for i in range(len(imgs)):
            lam = float(rng.beta(self.alpha, self.alpha))
            if rng.random() >= self.prob:
                continue
            cut = math.sqrt(1 - lam)
            bh, bw = int(h * cut), int(w * cut)
            cy, cx = int(rng.integers(0, h)), int(rng.integers(0, w))
            y0, y1 = max(cy - bh // 2, 0), min(cy + bh // 2, h)
            x0, x1 = max(cx - bw // 2, 0), min(cx + bw // 2, w)
            j = perm[i]
            if nhwc:
                out[i, y0:y1, x0:x1] = imgs[j, y0:y1, x0:x1]
            else:
                out[i, :, y0:y1, x0:x1] = imgs[j, :, y0:y1, x0:x1]
            frac = (y1 - y0) * (x1 - x0) / (h * w)
            lab[i] = (1 - frac) * labs[i] + frac * labs[j]
        return out, lab.astype(labs.dtype if labs.dtype.kind == "f" else np.float32)


class LinearTransformation(TensorOperation):
    """Whitening: the CHW image flattened, minus ``mean_vector``, times ``transformation_matrix``
    (D x D with D = C*H*W), reshaped back."""

    def __init__(self, transformation_matrix: Any, mean_vector: Any) -> None:
        self.transformation_matrix = np.asarray(transformation_matrix, dtype=np.float64)
        self.mean_vector = np.asarray(mean_vector, dtype=np.float64).ravel()
        m = self.transformation_matrix
        if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] != self.mean_vector.size:
            raise ValueError(f"LinearTransformation: need a square (D, D) matrix and a D-vector, got {m.shape} and "
                             f"{self.mean_vector.shape}")

    def _apply(self, img: Any) -> Any:
        arr = np.asarray(img)
        if arr.size != self.mean_vector.size:
            raise ValueError(f"LinearTransformation: the image has {arr.size} values but the matrix is for "
                             f"{self.mean_vector.size}")
        out = (arr.reshape(-1).astype(np.float64) - self.mean_vector) @ self.transformation_matrix
        return out.reshape(arr.shape).astype(arr.dtype if arr.dtype.kind == "f" else np.float32)


class NormalizePad(TensorOperation):
    """(pixel - mean) / std per channel, then a fourth channel of zeros (HWC, or CHW with
    ``is_hwc=False``), as ``dtype`` ('float32' or 'float16')."""

    def __init__(self, mean: Sequence[float], std: Sequence[float], dtype: str = "float32",
                 is_hwc: bool = True) -> None:
        self.mean, self.std = np.asarray(mean, np.float64), np.asarray(std, np.float64)
        if self.mean.shape != (3,) or self.std.shape != (3,) or (self.std <= 0).any():
            raise ValueError(f"NormalizePad: mean and std need 3 values, std positive; got {mean!r}, {std!r}")
        if dtype not in ("float32", "float16"):
            raise ValueError(f"NormalizePad: dtype must be 'float32' or 'float16', got {dtype!r}")
        self.dtype, self.is_hwc = dtype, bool(is_hwc)

    def _apply(self, img: Any) -> Any:
        arr = np.asarray(img, dtype=np.float64)
        if not self.is_hwc:
            arr = np.moveaxis(arr, 0, -1)
        if arr.ndim != 3 or arr.shape[2] != 3:
            raise ValueError(f"NormalizePad: expected a 3-channel image, got shape {np.asarray(img).shape}")
        out = np.concatenate([(arr - self.mean) / self.std, np.zeros(arr.shape[:2] + (1,))], axis=2)
        out = out if self.is_hwc else np.moveaxis(out, -1, 0)
        return np.ascontiguousarray(out.astype(self.dtype))


class ToNumpy(TensorOperation):
    """A PIL image as a NumPy array (arrays pass through)."""

    def _apply(self, img: Any) -> Any:
        return np.asarray(img)


class RandomCropDecodeResize(TensorOperation):
    """`Decode` then `RandomResizedCrop` (MindSpore fuses them to decode only the crop)."""

    def __init__(self, size: Any, scale: Sequence[float] = (0.08, 1.0), ratio: Sequence[float] = (3 / 4, 4 / 3),
                 interpolation: Inter = Inter.BILINEAR, max_attempts: int = 10) -> None:
        self._crop = RandomResizedCrop(size, scale, ratio, interpolation, max_attempts)
        self.size, self.scale, self.ratio = self._crop.size, self._crop.scale, self._crop.ratio
        self.interpolation, self.max_attempts = self._crop.interpolation, self._crop.max_attempts

    def _apply(self, img: Any) -> Any:
        return self._crop._apply(Decode()._apply(img))


class ConvertMode(enum.IntEnum):
    """Colour-space conversions (OpenCV's codes, which MindSpore uses)."""

    COLOR_BGR2BGRA = 0
    COLOR_RGB2RGBA = 0
    COLOR_BGRA2BGR = 1
    COLOR_RGBA2RGB = 1
    COLOR_BGR2RGBA = 2
    COLOR_RGB2BGRA = 2
    COLOR_RGBA2BGR = 3
    COLOR_BGRA2RGB = 3
    COLOR_BGR2RGB = 4
    COLOR_RGB2BGR = 4
    COLOR_BGRA2RGBA = 5
    COLOR_RGBA2BGRA = 5
    COLOR_BGR2GRAY = 6
    COLOR_RGB2GRAY = 7
    COLOR_GRAY2BGR = 8
    COLOR_GRAY2RGB = 8
    COLOR_GRAY2BGRA = 9
    COLOR_GRAY2RGBA = 9
    COLOR_BGRA2GRAY = 10
    COLOR_RGBA2GRAY = 11


class ConvertColor(TensorOperation):
    """Convert between RGB, BGR, their alpha forms and grayscale (gray = 0.299 R + 0.587 G + 0.114 B)."""

    _CHANNELS = {0: 3, 1: 4, 2: 3, 3: 4, 4: 3, 5: 4, 6: 3, 7: 3, 8: 1, 9: 1, 10: 4, 11: 4}

    def __init__(self, convert_mode: ConvertMode) -> None:
        self.convert_mode = ConvertMode(convert_mode)

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "ConvertColor")
        m = int(self.convert_mode)
        x = arr[..., None] if arr.ndim == 2 else arr
        if x.shape[2] != self._CHANNELS[m]:
            raise ValueError(f"ConvertColor: {self.convert_mode.name} needs {self._CHANNELS[m]} channel(s), got "
                             f"shape {arr.shape}")
        alpha = np.full(x.shape[:2] + (1,), 255 if np.issubdtype(x.dtype, np.integer) else 1, dtype=x.dtype)
        if m == 0:
            out = np.concatenate([x, alpha], 2)
        elif m == 1:
            out = x[..., :3]
        elif m == 2:
            out = np.concatenate([x[..., ::-1], alpha], 2)
        elif m == 3:
            out = x[..., 2::-1]
        elif m in (4, 5):
            out = np.concatenate([x[..., 2::-1], x[..., 3:]], 2)
        elif m in (6, 7, 10, 11):
            rgb = x[..., :3] if m in (7, 11) else x[..., 2::-1]
            out = _finish(rgb.astype(np.float64) @ np.array([0.299, 0.587, 0.114]), x.dtype)
        elif m == 8:
            out = np.repeat(x, 3, axis=2)
        else:
            out = np.concatenate([np.repeat(x, 3, axis=2), alpha], 2)
        return np.ascontiguousarray(out)


class UniformAugment(TensorOperation):
    """Apply ``num_ops`` of ``transforms``, chosen uniformly without replacement, in random order."""

    def __init__(self, transforms: Sequence[Callable[..., Any]], num_ops: int = 2) -> None:
        self.transforms = list(transforms)
        if not self.transforms or not all(callable(t) for t in self.transforms):
            raise ValueError("UniformAugment: transforms must be a non-empty list of callables")
        if isinstance(num_ops, bool) or not isinstance(num_ops, int) or not 1 <= num_ops <= len(self.transforms):
            raise ValueError(f"UniformAugment: num_ops must be in [1, {len(self.transforms)}], got {num_ops!r}")
        self.num_ops = num_ops

    def _apply(self, img: Any) -> Any:
        for i in current_rng().choice(len(self.transforms), self.num_ops, replace=False):
            img = self.transforms[int(i)](img)
        return img


class RandomSelectSubpolicy(TensorOperation):
    """Pick one sub-policy (a list of (transform, prob)) uniformly, and apply each of its transforms
    with its probability, in order."""

    def __init__(self, policy: Sequence[Sequence[tuple[Callable[..., Any], float]]]) -> None:
        self.policy = [list(sub) for sub in policy]
        if not self.policy or not all(sub and all(len(p) == 2 and callable(p[0]) and 0 <= p[1] <= 1 for p in sub)
                                      for sub in self.policy):
            raise ValueError("RandomSelectSubpolicy: policy must be a non-empty list of non-empty lists of "
                             "(transform, prob) pairs with prob in [0, 1]")

    def _apply(self, img: Any) -> Any:
        rng = current_rng()
        for op, prob in self.policy[int(rng.integers(0, len(self.policy)))]:
            if rng.random() < prob:
                img = op(img)
        return img


class SliceMode(enum.IntEnum):
    """What SlicePatches does with a size that does not divide: pad the image, or drop the rest."""

    PAD = 0
    DROP = 1


class SlicePatches(TensorOperation):
    """Cut an HWC image into ``num_height`` x ``num_width`` patches (row-major), as a tuple."""

    def __init__(self, num_height: int = 1, num_width: int = 1, slice_mode: SliceMode = SliceMode.PAD,
                 fill_value: int = 0) -> None:
        if min(num_height, num_width) < 1:
            raise ValueError(f"SlicePatches: num_height and num_width must be positive, got {num_height}, {num_width}")
        self.num_height, self.num_width = int(num_height), int(num_width)
        self.slice_mode, self.fill_value = SliceMode(slice_mode), fill_value

    def _apply(self, img: Any) -> tuple[np.ndarray, ...]:
        arr = _as_image(img, "SlicePatches")
        h, w = arr.shape[:2]
        if self.slice_mode == SliceMode.PAD:
            ph, pw = -(-h // self.num_height), -(-w // self.num_width)
            arr = pad_image(arr, 0, 0, pw * self.num_width - w, ph * self.num_height - h, self.fill_value,
                            Border.CONSTANT)
        else:
            ph, pw = h // self.num_height, w // self.num_width
        return tuple(np.ascontiguousarray(arr[i * ph:(i + 1) * ph, j * pw:(j + 1) * pw])
                     for i in range(self.num_height) for j in range(self.num_width))


# --- image files --------------------------------------------------------------------------------

class ImageReadMode(enum.IntEnum):
    """How read_image decodes: as stored, as grayscale (H, W, 1), or as RGB (H, W, 3)."""

    UNCHANGED = 0
    GRAYSCALE = 1
    COLOR = 2


def get_image_size(image: Any) -> list[int]:
    """[height, width] of an HW/HWC array or a PIL image."""
    if _is_pil(image):
        return [image.size[1], image.size[0]]
    arr = _as_image(image, "get_image_size")
    return [int(arr.shape[0]), int(arr.shape[1])]


def get_image_num_channels(image: Any) -> int:
    """The channel count of an HW/HWC array (HW: 1) or a PIL image."""
    if _is_pil(image):
        return len(image.getbands())
    arr = _as_image(image, "get_image_num_channels")
    return 1 if arr.ndim == 2 else int(arr.shape[2])


def read_file(filename: str) -> np.ndarray:
    """A file's bytes as a 1-D uint8 array."""
    path = os.fspath(filename)
    try:
        with open(path, "rb") as f:
            return np.frombuffer(f.read(), dtype=np.uint8).copy()
    except OSError as e:
        raise DatasetError(f"read_file: cannot read {path}: {e.strerror or e}") from e


def write_file(filename: str, data: Any) -> None:
    """Write a 1-D uint8 array (or bytes) to a file."""
    arr = np.asarray(bytearray(data) if isinstance(data, (bytes, bytearray)) else data)
    if arr.ndim != 1 or arr.dtype != np.uint8:
        raise TypeError(f"write_file: data must be a 1-D uint8 array, got {arr.dtype} of shape {arr.shape}")
    path = os.fspath(filename)
    try:
        with open(path, "wb") as f:
            f.write(arr.tobytes())
    except OSError as e:
        raise DatasetError(f"write_file: cannot write {path}: {e.strerror or e}") from e


def read_image(filename: str, mode: ImageReadMode = ImageReadMode.UNCHANGED) -> np.ndarray:
    """Decode an image file to an HWC uint8 array (``mode``: as stored, GRAYSCALE or COLOR)."""
    from PIL import Image

    path = os.fspath(filename)
    mode = ImageReadMode(mode)
    try:
        with Image.open(path) as im:
            im.load()
            if mode == ImageReadMode.GRAYSCALE:
                im = im.convert("L")
            elif mode == ImageReadMode.COLOR:
                im = im.convert("RGB")
            arr = np.asarray(im)
    except OSError as e:
        raise DatasetError(f"read_image: cannot read or decode {path}: {type(e).__name__}: {e}") from e
    return arr[..., None] if arr.ndim == 2 else arr


def _encode(image: Any, fmt: str, op: str, **kw: Any) -> np.ndarray:
    import io

    from PIL import Image

    arr = np.asarray(image)
    if arr.dtype != np.uint8 or arr.ndim not in (2, 3) or (arr.ndim == 3 and arr.shape[2] not in (1, 3)):
        raise TypeError(f"{op}: image must be a uint8 (H, W), (H, W, 1) or (H, W, 3) array, got {arr.dtype} "
                        f"{arr.shape}")
    buf = io.BytesIO()
    Image.fromarray(arr[..., 0] if arr.ndim == 3 and arr.shape[2] == 1 else arr).save(buf, format=fmt, **kw)
    return np.frombuffer(buf.getvalue(), dtype=np.uint8).copy()


def encode_png(image: Any, compression_level: int = 6) -> np.ndarray:
    """PNG bytes (a 1-D uint8 array) of an HWC uint8 image."""
    if not 0 <= compression_level <= 9:
        raise ValueError(f"encode_png: compression_level must be in [0, 9], got {compression_level}")
    return _encode(image, "PNG", "encode_png", compress_level=int(compression_level))


def encode_jpeg(image: Any, quality: int = 75) -> np.ndarray:
    """JPEG bytes (a 1-D uint8 array) of an HWC uint8 image."""
    if not 1 <= quality <= 100:
        raise ValueError(f"encode_jpeg: quality must be in [1, 100], got {quality}")
    return _encode(image, "JPEG", "encode_jpeg", quality=int(quality))


def write_png(filename: str, image: Any, compression_level: int = 6) -> None:
    """Encode ``image`` as PNG into ``filename``."""
    write_file(filename, encode_png(image, compression_level))


def write_jpeg(filename: str, image: Any, quality: int = 75) -> None:
    """Encode ``image`` as JPEG into ``filename``."""
    write_file(filename, encode_jpeg(image, quality))


def not_random(func: Callable) -> Callable:
    """Mark a Python function given to ``map`` as deterministic (MindSpore's ``vision.not_random``)."""
    from ..transforms.extra import not_random as _mark

    return _mark(func)


# --- perspective and augmentation policies ------------------------------------------------------

def _points(points: Any, op: str, what: str) -> np.ndarray:
    arr = np.asarray(points, dtype=np.float64)
    if arr.shape != (4, 2):
        raise ValueError(f"{op}: {what} must be four [x, y] points (top-left, top-right, bottom-right, "
                         f"bottom-left), got {points!r}")
    return arr


class Perspective(TensorOperation):
    """Warp so that ``start_points`` (four [x, y] corners) land on ``end_points``."""

    def __init__(self, start_points: Any, end_points: Any, interpolation: Inter = Inter.BILINEAR) -> None:
        self.start_points = _points(start_points, "Perspective", "start_points")
        self.end_points = _points(end_points, "Perspective", "end_points")
        self.interpolation = Inter(interpolation)
        self._inverse = homography(self.end_points, self.start_points)

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "Perspective")
        return _like_input(warp(arr, self._inverse, arr.shape[0], arr.shape[1], self.interpolation, 0,
                                "Perspective"), img)


class RandomPerspective(TensorOperation):
    """With probability ``prob``, move each corner inwards by up to ``distortion_scale`` of half the
    image size (torchvision's draw) and warp with `Perspective`."""

    def __init__(self, distortion_scale: float = 0.5, prob: float = 0.5, interpolation: Inter = Inter.BICUBIC) -> None:
        self.distortion_scale, self.prob = float(distortion_scale), float(prob)
        if not 0 <= self.distortion_scale <= 1 or not 0 <= self.prob <= 1:
            raise ValueError(f"RandomPerspective: distortion_scale and prob must be in [0, 1], got "
                             f"{distortion_scale}, {prob}")
        self.interpolation = Inter(interpolation)

    def _apply(self, img: Any) -> Any:
        arr = _as_image(img, "RandomPerspective")
        rng = current_rng()
        if rng.random() >= self.prob:
            return img
        h, w = arr.shape[:2]
        dw, dh = int(self.distortion_scale * (w // 2)), int(self.distortion_scale * (h // 2))

        def r(lo: int, hi: int) -> int:
            return int(rng.integers(lo, hi))

        end = [[r(0, dw + 1), r(0, dh + 1)], [r(w - dw - 1, w), r(0, dh + 1)],
               [r(w - dw - 1, w), r(h - dh - 1, h)], [r(0, dw + 1), r(h - dh - 1, h)]]
        start = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
        inv = homography(np.asarray(end, np.float64), np.asarray(start, np.float64))
        return _like_input(warp(arr, inv, h, w, self.interpolation, 0, "RandomPerspective"), img)


def _apply_op(img: np.ndarray, name: str, magnitude: float, interpolation: Inter, fill: Any) -> np.ndarray:
    """One op of the RandAugment/TrivialAugment space (torchvision's ``_apply_op``)."""
    if name == "ShearX":
        return _affine(img, 0.0, (0, 0), 1.0, (math.degrees(math.atan(magnitude)), 0.0), interpolation, fill,
                       "ShearX", center=(0, 0))
    if name == "ShearY":
        return _affine(img, 0.0, (0, 0), 1.0, (0.0, math.degrees(math.atan(magnitude))), interpolation, fill,
                       "ShearY", center=(0, 0))
    if name == "TranslateX":
        return _affine(img, 0.0, (int(magnitude), 0), 1.0, (0.0, 0.0), interpolation, fill, "TranslateX")
    if name == "TranslateY":
        return _affine(img, 0.0, (0, int(magnitude)), 1.0, (0.0, 0.0), interpolation, fill, "TranslateY")
    if name == "Rotate":
        return _rotate(img, magnitude, interpolation, False, None, fill, "Rotate")
    if name == "Brightness":
        return AdjustBrightness(1.0 + magnitude)._apply(img)
    if name == "Color":
        return AdjustSaturation(1.0 + magnitude)._apply(img)
    if name == "Contrast":
        return AdjustContrast(1.0 + magnitude)._apply(img)
    if name == "Sharpness":
        return AdjustSharpness(1.0 + magnitude)._apply(img)
    if name == "Posterize":
        return _posterize(img, int(magnitude), "Posterize")
    if name == "Solarize":
        return _solarize(img, magnitude, 255.0, "Solarize")
    if name == "AutoContrast":
        return AutoContrast()._apply(img)
    if name == "Equalize":
        return Equalize()._apply(img)
    return img  # Identity


def _space(num_bins: int, h: int, w: int, wide: bool) -> dict[str, tuple[np.ndarray, bool]]:
    top = 0.99 if wide else 0.9
    return {
        "Identity": (np.zeros(0), False),
        "ShearX": (np.linspace(0.0, 0.99 if wide else 0.3, num_bins), True),
        "ShearY": (np.linspace(0.0, 0.99 if wide else 0.3, num_bins), True),
        "TranslateX": (np.linspace(0.0, 32.0 if wide else 150.0 / 331.0 * w, num_bins), True),
        "TranslateY": (np.linspace(0.0, 32.0 if wide else 150.0 / 331.0 * h, num_bins), True),
        "Rotate": (np.linspace(0.0, 135.0 if wide else 30.0, num_bins), True),
        "Brightness": (np.linspace(0.0, top, num_bins), True),
        "Color": (np.linspace(0.0, top, num_bins), True),
        "Contrast": (np.linspace(0.0, top, num_bins), True),
        "Sharpness": (np.linspace(0.0, top, num_bins), True),
        "Posterize": (8 - np.round(np.arange(num_bins) / ((num_bins - 1) / (6 if wide else 4))).astype(int), False),
        "Solarize": (np.linspace(255.0, 0.0, num_bins), False),
        "AutoContrast": (np.zeros(0), False),
        "Equalize": (np.zeros(0), False),
    }


def _check_rgb_uint8(img: Any, op: str) -> np.ndarray:
    arr = _rgb(img, op)
    if arr.dtype != np.uint8:
        raise TypeError(f"{op}: expected a uint8 RGB image, got {arr.dtype}")
    return arr


class RandAugment(TensorOperation):
    """``num_ops`` ops drawn uniformly from RandAugment's space, each at bin ``magnitude`` of
    ``num_magnitude_bins`` (signed ops flip sign at random), as torchvision's RandAugment."""

    def __init__(self, num_ops: int = 2, magnitude: int = 9, num_magnitude_bins: int = 31,
                 interpolation: Inter = Inter.NEAREST, fill_value: Any = 0) -> None:
        if num_ops < 0 or num_magnitude_bins < 2 or not 0 <= magnitude < num_magnitude_bins:
            raise ValueError(f"RandAugment: need num_ops >= 0, num_magnitude_bins >= 2 and 0 <= magnitude < "
                             f"num_magnitude_bins, got {num_ops}, {magnitude}, {num_magnitude_bins}")
        self.num_ops, self.magnitude, self.num_magnitude_bins = int(num_ops), int(magnitude), int(num_magnitude_bins)
        self.interpolation, self.fill_value = Inter(interpolation), fill_value

    def _apply(self, img: Any) -> Any:
        arr = _check_rgb_uint8(img, "RandAugment")
        rng = current_rng()
        space = _space(self.num_magnitude_bins, arr.shape[0], arr.shape[1], wide=False)
        names = list(space)
        for _ in range(self.num_ops):
            name = names[int(rng.integers(0, len(names)))]
            mags, signed = space[name]
            mag = float(mags[self.magnitude]) if mags.size else 0.0
            if signed and rng.integers(0, 2):
                mag = -mag
            arr = np.asarray(_apply_op(arr, name, mag, self.interpolation, self.fill_value))
        return _like_input(arr, img)


class TrivialAugmentWide(TensorOperation):
    """One op drawn uniformly from TrivialAugment's wide space, at a magnitude bin drawn uniformly."""

    def __init__(self, num_magnitude_bins: int = 31, interpolation: Inter = Inter.NEAREST, fill_value: Any = 0) -> None:
        if num_magnitude_bins < 2:
            raise ValueError(f"TrivialAugmentWide: num_magnitude_bins must be >= 2, got {num_magnitude_bins}")
        self.num_magnitude_bins, self.interpolation, self.fill_value = int(num_magnitude_bins), Inter(
            interpolation), fill_value

    def _apply(self, img: Any) -> Any:
        arr = _check_rgb_uint8(img, "TrivialAugmentWide")
        rng = current_rng()
        space = _space(self.num_magnitude_bins, arr.shape[0], arr.shape[1], wide=True)
        names = list(space)
        name = names[int(rng.integers(0, len(names)))]
        mags, signed = space[name]
        mag = float(mags[int(rng.integers(0, mags.size))]) if mags.size else 0.0
        if signed and rng.integers(0, 2):
            mag = -mag
        return _like_input(np.asarray(_apply_op(arr, name, mag, self.interpolation, self.fill_value)), img)


class MixUp(TensorOperation):
    """Mix a batch of images and one-hot labels with weight lam ~ Beta(alpha, alpha):
    lam * x + (1 - lam) * y. With ``is_single=True`` y is the batch in a random order; with False
    it is the previous batch this transform saw (the first batch is returned unchanged).
    ``batch_size`` is the size every batch must have."""

    _num_inputs = 2

    def __init__(self, batch_size: int, alpha: float, is_single: bool = True) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"MixUp: batch_size must be a positive int, got {batch_size!r}")
        self.batch_size, self.alpha, self.is_single = batch_size, _number(alpha, "MixUp: alpha"), bool(is_single)
        if self.alpha <= 0:
            raise ValueError(f"MixUp: alpha must be positive, got {alpha}")
        self._previous: tuple[np.ndarray, np.ndarray] | None = None

    def _apply(self, images: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
        imgs, labs = _batch_pair(images, labels, "MixUp")
        if len(imgs) != self.batch_size:
            raise ValueError(f"MixUp: got a batch of {len(imgs)} images, batch_size is {self.batch_size}")
        rng = current_rng()
        lam = float(rng.beta(self.alpha, self.alpha))
        if self.is_single:
            perm = rng.permutation(len(imgs))
            other_x, other_y = imgs[perm], labs[perm]
        elif self._previous is None:
            self._previous = (imgs, labs)
            return imgs, labs.astype(np.float32)
        else:
            other_x, other_y = self._previous
            self._previous = (imgs, labs)
        mixed = lam * imgs.astype(np.float64) + (1 - lam) * other_x.astype(np.float64)
        lab = lam * labs.astype(np.float64) + (1 - lam) * other_y.astype(np.float64)
        return _finish(mixed, imgs.dtype), lab.astype(np.float32)
