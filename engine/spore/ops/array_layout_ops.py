"""MindSpore's block-layout, diagonal-fill and QR-factor ops (issue 14): `batch_to_space_nd`,
`Tensor.fill_diagonal`/`fill_diagonal_`, `geqrf` (Householder QR in LAPACK's compact form), and the
helpers behind the class forms DepthToSpace, BatchToSpace, HistogramFixedWidth, ConfusionMatrix,
EmbeddingLookup and CheckNumerics (classes_extra).

Layout ops are reshapes and transposes of registered ops (their gradients are those ops');
`geqrf` is a primitive with SciPy's kernel (``scipy.linalg.qr(mode='raw')``) and no gradient,
as MindSpore's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import ShapeError, SporeError
from ..tensor import Tensor, tensor_method
from . import functional as F
from ._rules import require_float
from .primitive import Aval, primitive


# --- block layouts ----------------------------------------------------------------------------------
def _depth_to_space(x: Tensor, block_size: int) -> Tensor:
    """(N, C * b * b, H, W) -> (N, C, H * b, W * b), the depth split as (b, b, C) (TF's DCR order)."""
    if x.ndim != 4:
        raise ShapeError("DepthToSpace", "an NCHW input", f"shape {tuple(x.shape)}")
    b = int(block_size)
    n, c, h, w = x.shape
    if b < 2 or c % (b * b):
        raise ValueError(f"DepthToSpace: block_size ({b}) must be >= 2 with block_size^2 dividing the channels ({c})")
    y = F.reshape(x, (n, b, b, c // (b * b), h, w))
    y = F.transpose(y, (0, 3, 4, 1, 5, 2))
    return F.reshape(y, (n, c // (b * b), h * b, w * b))


def batch_to_space_nd(input_x: Tensor, block_shape: Any, crops: Sequence[Sequence[int]]) -> Tensor:
    """Moves blocks of the batch axis into the spatial axes (N * prod(block), C, *S) ->
    (N, C, S_i * block_i - crops), the inverse of SpaceToBatchND (NCHW, spatial axes last)."""
    if isinstance(block_shape, int):
        block_shape = (block_shape,) * len(crops)
    block = [int(b) for b in block_shape]
    m = len(block)
    if len(crops) != m or any(len(c) != 2 for c in crops):
        raise ValueError(f"batch_to_space_nd: crops must be {m} pairs, got {crops!r}")
    if input_x.ndim < m + 1:
        raise ShapeError("batch_to_space_nd", f"a tensor of rank >= {m + 1}", f"shape {tuple(input_x.shape)}")
    prod = int(np.prod(block))
    nb = input_x.shape[0]
    if prod <= 0 or nb % prod:
        raise ValueError(f"batch_to_space_nd: the batch ({nb}) must be divisible by prod(block_shape) ({prod})")
    n = nb // prod
    mid = tuple(input_x.shape[1:input_x.ndim - m])
    spatial = tuple(input_x.shape[input_x.ndim - m:])
    y = F.reshape(input_x, tuple(block) + (n,) + mid + spatial)
    k = len(mid)
    # axes: block_0..block_{m-1}, n, mid..., s_0..s_{m-1}  ->  n, mid..., s_0, block_0, s_1, block_1, ...
    perm = [m] + [m + 1 + i for i in range(k)]
    for i in range(m):
        perm += [m + 1 + k + i, i]
    y = F.transpose(y, tuple(perm))
    y = F.reshape(y, (n,) + mid + tuple(s * b for s, b in zip(spatial, block)))
    for i, (lo, hi) in enumerate(crops):
        ax = 1 + k + i
        size = y.shape[ax] - lo - hi
        if lo < 0 or hi < 0 or size < 0:
            raise ValueError(f"batch_to_space_nd: crops {crops!r} exceed the spatial size")
        y = F.narrow(y, ax, int(lo), int(size))
    return y


# --- fill_diagonal ----------------------------------------------------------------------------------
def _diag_fill_mask(shape: tuple[int, ...], wrap: bool) -> np.ndarray:
    m = np.zeros(shape, bool)
    np.fill_diagonal(m, True, wrap=wrap)
    return m


def _fill_diagonal(input_x: Tensor, fill_value: float, wrap: bool = False) -> Tensor:
    """A copy of `input_x` (rank >= 2; all sizes equal above rank 2) with its main diagonal set to
    `fill_value`; with `wrap`, a tall matrix's diagonal restarts every N + 1 rows (NumPy's rule)."""
    if input_x.ndim < 2 or (input_x.ndim > 2 and len(set(input_x.shape)) != 1):
        raise ShapeError("fill_diagonal", "a 2-D tensor, or all dimensions of one size", f"{tuple(input_x.shape)}")
    mask = Tensor(_diag_fill_mask(tuple(input_x.shape), bool(wrap)))
    return F.where(mask, F.full_like(input_x, fill_value), input_x)


@tensor_method("fill_diagonal")
def _fill_diagonal_method(self: Tensor, fill_value: float, wrap: bool = False) -> Tensor:
    """A copy with the main diagonal set to `fill_value` (see ops.FillDiagonal)."""
    return _fill_diagonal(self, fill_value, wrap)


@tensor_method("fill_diagonal_")
def _fill_diagonal_(self: Tensor, fill_value: float, wrap: bool = False) -> Tensor:
    """In place: the main diagonal set to `fill_value`."""
    return F.setitem_(self, Ellipsis, _fill_diagonal(self, fill_value, wrap))


# --- geqrf ------------------------------------------------------------------------------------------
@primitive
class Geqrf:
    """Householder QR in LAPACK's geqrf form: (y, tau), R in y's upper triangle, the reflectors'
    vectors below it, their scales in tau (batched over leading axes)."""

    multi_output = True
    nondiff = True

    def infer(a):
        if a.ndim < 2:
            raise ShapeError("Geqrf", "a tensor of rank >= 2 (matrices in the last two axes)", f"{tuple(a.shape)}")
        require_float("Geqrf", a)
        k = min(a.shape[-2], a.shape[-1])
        return Aval(tuple(a.shape), a.dtype), Aval(tuple(a.shape[:-2]) + (k,), a.dtype)

    def impl(a):
        from scipy.linalg import qr

        y = np.empty_like(a)
        tau = np.empty(a.shape[:-2] + (min(a.shape[-2:]),), a.dtype)
        for idx in np.ndindex(a.shape[:-2]):
            (h, t), _ = qr(a[idx], mode="raw")
            y[idx], tau[idx] = h, t
        return y, tau


@tensor_method("geqrf")
def geqrf(input: Tensor) -> tuple[Tensor, Tensor]:
    """(y, tau): the Householder QR factorisation of `input` in LAPACK's compact geqrf form."""
    return Geqrf(input)


# --- helpers of class forms -------------------------------------------------------------------------
def _histogram_fixed_width(x: Tensor, range: Tensor, nbins: int, dtype: Any) -> Tensor:
    """Counts of `x` in `nbins` equal bins over [range[0], range[1]); values below go to the first
    bin, above to the last (TF's HistogramFixedWidth)."""
    lo, hi = (float(v) for v in np.asarray(range.asnumpy() if isinstance(range, Tensor) else range).reshape(-1)[:2])
    if not hi > lo:
        raise ValueError(f"HistogramFixedWidth: range must satisfy range[0] < range[1], got {(lo, hi)}")
    v = np.asarray(x.asnumpy(), np.float64).reshape(-1)
    b = np.clip(np.floor((v - lo) / (hi - lo) * nbins), 0, nbins - 1).astype(np.int64)
    dt = mstype.to_dtype(dtype) if not isinstance(dtype, str) else getattr(mstype, dtype)
    return Tensor(np.bincount(b, minlength=nbins).astype(dt.np))


def _confusion_matrix(labels: Tensor, predictions: Tensor, weights: Any, num_classes: int, dtype: Any) -> Tensor:
    """counts[i, j]: how often label i was predicted as j (summed weights when given)."""
    lab, pred = labels.asnumpy().reshape(-1), predictions.asnumpy().reshape(-1)
    if lab.shape != pred.shape:
        raise ShapeError("ConfusionMatrix", "labels and predictions of one shape", f"{lab.shape} and {pred.shape}")
    if lab.size and (min(lab.min(), pred.min()) < 0 or max(lab.max(), pred.max()) >= num_classes):
        raise ValueError(f"ConfusionMatrix: labels and predictions must be in [0, {num_classes})")
    w = None if weights is None else np.asarray(weights.asnumpy() if isinstance(weights, Tensor) else weights)
    flat = np.bincount(lab * num_classes + pred, None if w is None else w.reshape(-1), minlength=num_classes ** 2)
    dt = getattr(mstype, dtype) if isinstance(dtype, str) else mstype.to_dtype(dtype)
    return Tensor(flat.reshape(num_classes, num_classes).astype(dt.np))


def _embedding_lookup(params: Tensor, indices: Tensor, offset: int) -> Tensor:
    """Rows `indices - offset` of `params`; rows outside [0, len(params)) are zeros."""
    n = params.shape[0]
    shifted = F.sub(F.cast(indices, mstype.int64), int(offset))
    inside = F.logical_and(F.greater_equal(shifted, 0), F.less(shifted, n))
    safe = F.where(inside, shifted, F.zeros_like(shifted))
    rows = F.gather(params, safe, 0)
    keep = F.reshape(inside, tuple(inside.shape) + (1,) * (params.ndim - 1))
    return F.where(keep, rows, F.zeros_like(rows))


def _check_numerics(x: Tensor) -> Tensor:
    from .primitive import TRACING

    if TRACING.builder is None and not bool(F.all(F.isfinite(x))):  # (a compiled graph cannot raise mid-run)
        raise SporeError("CheckNumerics: the tensor has NaN or Inf values")
    return x
