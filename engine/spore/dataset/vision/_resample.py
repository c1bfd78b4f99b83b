"""Resizing NumPy images with OpenCV's sampling conventions, without OpenCV.

A resize along one axis is a matrix (out x in) of interpolation weights; an image resize is two
such products, one per axis, which keeps the code short, vectorised and the same for every
interpolation mode. Coordinates follow OpenCV (which MindSpore uses for NumPy images):
pixel centres map as ``src = (dst + 0.5) * in / out - 0.5``, clamped to the image; NEAREST takes
``floor(dst * in / out)``; CUBIC is Keys' kernel with a = -0.75; AREA averages the covered input
pixels when shrinking. ANTIALIAS and PILCUBIC are PIL's filters, so they go through PIL.
"""

from __future__ import annotations

import numpy as np

from .utils import Inter


def _linear(n_in: int, n_out: int) -> np.ndarray:
    w = np.zeros((n_out, n_in), dtype=np.float64)
    src = np.clip((np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5, 0, n_in - 1)
    i0 = np.minimum(np.floor(src).astype(int), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    frac = src - i0
    rows = np.arange(n_out)
    np.add.at(w, (rows, i0), 1 - frac)
    np.add.at(w, (rows, i1), frac)
    return w


def _nearest(n_in: int, n_out: int) -> np.ndarray:
    w = np.zeros((n_out, n_in), dtype=np.float64)
    src = np.minimum(np.floor(np.arange(n_out) * (n_in / n_out)).astype(int), n_in - 1)
    w[np.arange(n_out), src] = 1.0
    return w


def _cubic(n_in: int, n_out: int, a: float = -0.75) -> np.ndarray:
    w = np.zeros((n_out, n_in), dtype=np.float64)
    src = (np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5
    base = np.floor(src).astype(int)
    t = src - base
    rows = np.arange(n_out)
    for k in range(-1, 3):
        d = np.abs(t - k)
        kern = np.where(d <= 1, ((a + 2) * d - (a + 3)) * d * d + 1,
                        np.where(d < 2, ((a * d - 5 * a) * d + 8 * a) * d - 4 * a, 0.0))
        np.add.at(w, (rows, np.clip(base + k, 0, n_in - 1)), kern)
    return w


def _area(n_in: int, n_out: int) -> np.ndarray:
    if n_out >= n_in:
        return _linear(n_in, n_out)
    scale = n_in / n_out
    lo = np.arange(n_out)[:, None] * scale
    hi = lo + scale
    pix = np.arange(n_in)[None, :]
    overlap = np.clip(np.minimum(hi, pix + 1) - np.maximum(lo, pix), 0, None)
    return overlap / scale


_WEIGHTS = {Inter.NEAREST: _nearest, Inter.BILINEAR: _linear, Inter.BICUBIC: _cubic, Inter.AREA: _area}


def resize_array(img: np.ndarray, height: int, width: int, inter: Inter) -> np.ndarray:
    """``img`` (H, W) or (H, W, C) resized to (height, width), in its own dtype."""
    if inter in (Inter.ANTIALIAS, Inter.PILCUBIC):
        return _resize_pil(img, height, width, inter)
    wy = _WEIGHTS[inter](img.shape[0], height)
    wx = _WEIGHTS[inter](img.shape[1], width)
    x = img.astype(np.float64)
    out = np.einsum("oh,hw...->ow...", wy, x)
    out = np.einsum("pw,ow...->op...", wx, out)
    return _cast_like(out, img.dtype)


def _cast_like(out: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(dtype)
    if dtype == np.bool_:
        return out >= 0.5
    return out.astype(dtype)


def _resize_pil(img: np.ndarray, height: int, width: int, inter: Inter) -> np.ndarray:
    from PIL import Image

    resample = Image.Resampling.LANCZOS if inter == Inter.ANTIALIAS else Image.Resampling.BICUBIC
    planes = img[..., None] if img.ndim == 2 else img
    out = np.stack([np.asarray(Image.fromarray(np.ascontiguousarray(planes[..., c], dtype=np.float32))
                               .resize((width, height), resample)) for c in range(planes.shape[-1])], axis=-1)
    out = out[..., 0] if img.ndim == 2 else out
    return _cast_like(out, img.dtype)
