"""MindSpore's `affine_grid` (the sampling grid of a spatial transformer), `Tensor.choose`,
`Tensor.index_copy_`, the `Tensor.H` property and `ops.get_world_size` (issue 14).

`affine_grid` maps the normalised output coordinates ([-1, 1] over each spatial axis: pixel
centres unless `align_corners`, then the corner pixels) through each batch's affine matrix `theta`,
in (x, y[, z]) order as grid_sample reads them; it is a matmul of a constant base grid, so its
gradient with respect to `theta` is the matmul's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import ShapeError
from ..tensor import Tensor, tensor_method
from . import functional as F


def _coords(n: int, align_corners: bool) -> np.ndarray:
    if n == 1:
        return np.zeros(1)
    if align_corners:
        return np.linspace(-1.0, 1.0, n)
    return (np.arange(n) * 2 + 1) / n - 1.0


def affine_grid(theta: Tensor, size: Sequence[int], align_corners: bool = False) -> Tensor:
    """The (N, H, W, 2) (or (N, D, H, W, 3)) grid of input coordinates for output `size`
    (N, C, H, W) (or (N, C, D, H, W)), each output point p mapped to theta @ (p, 1)."""
    size = tuple(int(s) for s in size)
    if len(size) not in (4, 5):
        raise ValueError(f"affine_grid: size must be (N, C, H, W) or (N, C, D, H, W), got {size}")
    k = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[1:]) != (k, k + 1) or theta.shape[0] != size[0]:
        raise ShapeError("affine_grid", f"theta of shape ({size[0]}, {k}, {k + 1})", f"{tuple(theta.shape)}")
    spatial = size[2:]
    axes = [_coords(n, align_corners) for n in spatial]  # (D,) H, W
    mesh = np.meshgrid(*axes, indexing="ij")
    # grid points in (x, y[, z]) order: x runs along the last (W) axis
    pts = np.stack([mesh[i] for i in reversed(range(k))] + [np.ones(spatial)], -1).reshape(-1, k + 1)
    base = Tensor(pts.astype(theta.dtype.np))
    out = F.matmul(base, F.swapaxes(theta, 1, 2))  # (N, P, k)
    return F.reshape(out, (size[0],) + spatial + (k,))


@tensor_method("choose")
def _choose(self: Tensor, choices: Sequence[Any], mode: str = "clip") -> Tensor:
    """NumPy's choose: each element i of the result is choices[self[i]][i] (choices broadcast
    together with self); out-of-range indices are clipped ('clip'), wrapped ('wrap') or refused
    ('raise')."""
    if mode not in ("clip", "wrap", "raise"):
        raise ValueError(f"choose: mode must be 'clip', 'wrap' or 'raise', got {mode!r}")
    if not self.dtype.is_int:
        raise TypeError(f"choose: the index tensor must be integer, got {self.dtype}")
    cs = [c if isinstance(c, Tensor) else Tensor(np.asarray(c)) for c in choices]
    n = len(cs)
    if n == 0:
        raise ValueError("choose: choices must not be empty")
    from ._rules import broadcast_shapes

    shape = tuple(self.shape)
    for c in cs:
        shape = broadcast_shapes("choose", shape, tuple(c.shape))
    dt = cs[0].dtype
    stacked = F.stack([F.broadcast_to(F.cast(c, dt), shape) for c in cs], 0)
    idx = F.broadcast_to(F.cast(self, mstype.int64), shape)
    if mode == "clip":
        idx = F.clamp(idx, 0, n - 1)
    elif mode == "wrap":
        idx = F.remainder(idx, n)
    else:
        v = self.asnumpy()
        if v.size and (v.min() < 0 or v.max() >= n):
            raise ValueError(f"choose: an index is outside [0, {n}) (mode='raise')")
    return F.squeeze(F.gather_elements(stacked, 0, F.expand_dims(idx, 0)), 0)


@tensor_method("index_copy_")
def _index_copy_(self: Tensor, dim: int, index: Tensor, tensor: Tensor) -> Tensor:
    """In place: the slices at positions `index` along `dim` replaced by those of `tensor`."""
    if self.ndim == 0:
        raise ShapeError("index_copy_", "a tensor of rank >= 1", "a scalar")
    ax = dim % self.ndim
    idx = np.asarray(index.asnumpy() if isinstance(index, Tensor) else index).reshape(-1)
    n = self.shape[ax]
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError(f"index_copy_: index out of range for dim {dim} of size {n}")
    want = tuple(self.shape[:ax]) + (idx.size,) + tuple(self.shape[ax + 1:])
    if tuple(tensor.shape) != want:
        raise ShapeError("index_copy_", f"tensor of shape {want}", f"{tuple(tensor.shape)}")
    xm = F.moveaxis(self, ax, 0)
    vm = F.moveaxis(F.cast(tensor, self.dtype), ax, 0)
    out = F.tensor_scatter_update(xm, Tensor((idx % n).astype(np.int64).reshape(-1, 1)), vm)
    return F.setitem_(self, Ellipsis, F.moveaxis(out, 0, ax))


def _H(self: Tensor) -> Tensor:
    """The conjugate transpose of a 2-D tensor (of a real tensor: the transpose)."""
    if self.ndim != 2:
        raise ShapeError("Tensor.H", "a 2-D tensor", f"shape {tuple(self.shape)}")
    return F.conj(F.transpose(self, (1, 0))) if self.dtype.is_complex else F.transpose(self, (1, 0))


Tensor.H = property(_H)  # type: ignore[attr-defined]


def get_world_size(group: str | None = None) -> int:
    """How many processes `group` (the world when None) has: 1 unless launched with mpirun."""
    from ..communication import management

    return management.get_group_size() if group is None else management.get_group_size(group)
