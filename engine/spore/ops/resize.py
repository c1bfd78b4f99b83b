"""`ops.interpolate`: resizing the spatial axes of (N, C, ...) tensors, MindSpore's signature.

Every mode is separable, so each spatial axis is resized on its own by a fixed (out, in) weight
matrix built in NumPy from the sizes alone: 'linear'/'bilinear'/'trilinear' (two taps), 'bicubic'
(four taps, a = -0.75), 'area' (the mean of each output cell's input span, as adaptive average
pooling). The matrix is applied with `matmul` (nearest modes: a `gather` of the chosen indices),
so the gradient, Graph mode and the shape rules are those of ops that exist already; no new
primitive is needed (they are imported at module level, so the op catalogue's bytecode walk sees them).

Coordinates follow MindSpore 2.x (which matches PyTorch): with ``align_corners=True`` the corner
pixels' centres line up, ``src = dst * (in - 1) / (out - 1)``; otherwise half-pixel centres,
``src = (dst + 0.5) * scale - 0.5`` (clamped at 0 for the linear modes), where ``scale`` is
``1 / scale_factor`` when a factor is given (and ``recompute_scale_factor`` is not True) or
``in / out``. 'nearest' picks ``floor(dst * scale)``, 'nearest-exact' ``floor((dst + 0.5) * scale)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import ShapeError
from ..tensor import Tensor
from .array import cast
from .indexing import gather
from .linalg import matmul
from .shape_ops import swapaxes

_RANKS = {"linear": (3,), "bilinear": (4,), "bicubic": (4,), "trilinear": (5,), "nearest": (3, 4, 5),
          "nearest-exact": (3, 4, 5), "area": (3, 4, 5)}
_ALIGNABLE = ("linear", "bilinear", "bicubic", "trilinear")


def _cubic(t: np.ndarray, a: float = -0.75) -> np.ndarray:
    """Keys' cubic convolution kernel at distances `t` (|t| < 2)."""
    t = np.abs(t)
    near = ((a + 2) * t - (a + 3)) * t * t + 1
    far = ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return np.where(t <= 1, near, np.where(t < 2, far, 0.0))


def _source(n_in: int, n_out: int, scale: float, align_corners: bool) -> np.ndarray:
    dst = np.arange(n_out, dtype=np.float64)
    if align_corners:
        return dst * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros(n_out)
    return (dst + 0.5) * scale - 0.5


def _axis_weights(n_in: int, n_out: int, mode: str, align_corners: bool, scale: float) -> np.ndarray:
    """The (n_out, n_in) matrix that resizes one axis."""
    w = np.zeros((n_out, n_in))
    rows = np.arange(n_out)
    if mode == "area":
        for d in range(n_out):
            lo, hi = (d * n_in) // n_out, -((-(d + 1) * n_in) // n_out)
            w[d, lo:hi] = 1.0 / (hi - lo)
        return w
    if mode in ("linear", "bilinear", "trilinear"):
        src = _source(n_in, n_out, scale, align_corners)
        if not align_corners:
            src = np.maximum(src, 0.0)
        i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
        i1 = np.minimum(i0 + 1, n_in - 1)
        frac = src - i0
        np.add.at(w, (rows, i0), 1.0 - frac)
        np.add.at(w, (rows, i1), frac)
        return w
    # bicubic
    src = _source(n_in, n_out, scale, align_corners)
    base = np.floor(src).astype(np.int64)
    frac = src - base
    for k in (-1, 0, 1, 2):
        np.add.at(w, (rows, np.clip(base + k, 0, n_in - 1)), _cubic(frac - k))
    return w


def _nearest_index(n_in: int, n_out: int, scale: float, exact: bool) -> np.ndarray:
    dst = np.arange(n_out, dtype=np.float64)
    src = np.floor((dst + 0.5) * scale if exact else dst * scale).astype(np.int64)
    return np.minimum(src, n_in - 1)


def _sizes(op: str, spatial: tuple[int, ...], size: Any, scale_factor: Any) -> tuple[list[int], list[float | None]]:
    n = len(spatial)
    if (size is None) == (scale_factor is None):
        raise ValueError(f"{op}: give exactly one of size and scale_factor")
    if size is not None:
        out = [int(size)] * n if isinstance(size, (int, np.integer)) else [int(s) for s in size]
        if len(out) != n or any(s <= 0 for s in out):
            raise ValueError(f"{op}: size must be a positive int or {n} positive ints, got {size!r}")
        return out, [None] * n
    factors = [float(scale_factor)] * n if isinstance(scale_factor, (int, float)) else [float(f) for f in scale_factor]
    if len(factors) != n or any(f <= 0 for f in factors):
        raise ValueError(f"{op}: scale_factor must be a positive number or {n} of them, got {scale_factor!r}")
    out = [int(math.floor(s * f)) for s, f in zip(spatial, factors)]
    if any(o <= 0 for o in out):
        raise ValueError(f"{op}: scale_factor {scale_factor!r} gives an empty output for spatial size {spatial}")
    return out, list(factors)


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None) -> Tensor:
    """Resizes the spatial axes of `input` ((N, C, W), (N, C, H, W) or (N, C, D, H, W)) to `size`
    or by `scale_factor`, with `mode` 'nearest', 'nearest-exact', 'linear' (3-D), 'bilinear' /
    'bicubic' (4-D), 'trilinear' (5-D) or 'area'. `align_corners` (linear modes and bicubic only)
    lines up the corner pixels; see the module docstring for the exact coordinates. Differentiable.
    """
    op = "interpolate"
    if mode not in _RANKS:
        raise ValueError(f"{op}: mode must be one of {sorted(_RANKS)}, got {mode!r}")
    if input.ndim not in _RANKS[mode]:
        want = " or ".join(f"{r}-D" for r in _RANKS[mode])
        raise ShapeError(op, f"a {want} (N, C, ...) input for mode {mode!r}", f"shape {tuple(input.shape)}")
    if align_corners is not None and mode not in _ALIGNABLE:
        raise ValueError(f"{op}: align_corners applies to modes {_ALIGNABLE}, not {mode!r}; leave it None")
    align = bool(align_corners)
    spatial = tuple(input.shape[2:])
    out_sizes, factors = _sizes(op, spatial, size, scale_factor)
    x = input if input.dtype.is_float else cast(input, mstype.float32)
    for k, (n_in, n_out, f) in enumerate(zip(spatial, out_sizes, factors)):
        axis = 2 + k
        scale = (1.0 / f) if f is not None and not recompute_scale_factor else n_in / n_out
        if n_in == n_out and (mode.startswith("nearest") or (not align and f is None) or mode == "area"):
            continue  # the identity on this axis
        if mode.startswith("nearest"):
            idx = Tensor._wrap(_nearest_index(n_in, n_out, scale, mode == "nearest-exact"))
            x = gather(x, idx, axis)
            continue
        w = Tensor._wrap(np.ascontiguousarray(_axis_weights(n_in, n_out, mode, align, scale).T).astype(x.dtype.np))
        moved = swapaxes(x, axis, -1) if axis != x.ndim - 1 else x
        y = matmul(moved, w)
        x = swapaxes(y, axis, -1) if axis != x.ndim - 1 else y
    return x
