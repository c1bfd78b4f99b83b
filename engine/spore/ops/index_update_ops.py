"""MindSpore's row-update, index-put and small array ops (issue 14): `inplace_add`, `inplace_sub`,
`inplace_update` (rows of axis 0), `inplace_index_add`, `Tensor.index_put`/`index_put_`, `intopk`,
`check_valid`, `channel_shuffle`, `fftshift`/`ifftshift`/`fftfreq`, `deepcopy`, `dyn_shape`, `conj`.

All are composites of registered ops (scatters, gathers, rolls). The ``inplace_*`` ops write into
`x` (through the recorded `setitem_`, as MindSpore's InplaceAdd updates its input) and return it.
Spore has no complex dtypes: `conj` of a real tensor is the tensor itself, as MindSpore's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor, tensor_method
from . import functional as F


def _rows(op: str, x: Tensor, indices: Any) -> np.ndarray:
    if isinstance(indices, Tensor):
        idx = indices.asnumpy()
    else:
        idx = np.asarray(indices)
    idx = idx.reshape(-1)
    if idx.dtype.kind not in "iu":
        raise DTypeError(op, "integer row indices", str(idx.dtype))
    n = x.shape[0]
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError(f"{op}: row index out of range for {n} rows: {idx.tolist()}")
    return idx % n


def _check_rows(op: str, x: Tensor, v: Tensor, k: int) -> None:
    want = (k,) + tuple(x.shape[1:])
    if tuple(v.shape) != want:
        raise ShapeError(op, f"v of shape {want} (one row per index)", f"{tuple(v.shape)}")


def _row_scatter(x: Tensor, idx: np.ndarray, v: Tensor, add: bool) -> Tensor:
    where = Tensor(idx.astype(np.int64).reshape(-1, 1))
    v = F.cast(v, x.dtype)
    return F.tensor_scatter_add(x, where, v) if add else F.tensor_scatter_update(x, where, v)


def inplace_add(x: Tensor, v: Tensor, indices: Any) -> Tensor:
    """Adds the rows of `v` to rows `indices` of `x` (axis 0), in place; returns `x`."""
    idx = _rows("inplace_add", x, indices)
    _check_rows("inplace_add", x, v, idx.size)
    return F.setitem_(x, Ellipsis, _row_scatter(x, idx, v, True))


def inplace_sub(x: Tensor, v: Tensor, indices: Any) -> Tensor:
    """Subtracts the rows of `v` from rows `indices` of `x` (axis 0), in place; returns `x`."""
    idx = _rows("inplace_sub", x, indices)
    _check_rows("inplace_sub", x, v, idx.size)
    return F.setitem_(x, Ellipsis, _row_scatter(x, idx, F.neg(v), True))


def inplace_update(x: Tensor, v: Tensor, indices: Any) -> Tensor:
    """Sets rows `indices` of `x` (axis 0) to the rows of `v`, in place; returns `x` (with repeated
    indices the last row wins)."""
    idx = _rows("inplace_update", x, indices)
    _check_rows("inplace_update", x, v, idx.size)
    if idx.size and len(set(idx.tolist())) != idx.size:
        last = {int(i): k for k, i in enumerate(idx)}
        keep = np.array(sorted(last.values()))
        idx, v = idx[keep], F.gather(v, Tensor(keep.astype(np.int64)), 0)
    return F.setitem_(x, Ellipsis, _row_scatter(x, idx, v, False))


tensor_method("inplace_update")(inplace_update)


def inplace_index_add(var: Tensor, indices: Tensor, updates: Tensor, axis: int) -> Tensor:
    """Adds the slices of `updates` to positions `indices` of `var` along `axis`, in place."""
    from .tensor_misc_ops import index_add

    return F.setitem_(var, Ellipsis, index_add(var, indices, updates, axis))


def _index_put(x: Tensor, indices: Sequence[Tensor], values: Tensor, accumulate: bool) -> Tensor:
    if not isinstance(indices, (list, tuple)) or not indices:
        raise TypeError("index_put: indices must be a non-empty tuple or list of integer tensors")
    if len(indices) > x.ndim:
        raise ShapeError("index_put", f"at most {x.ndim} index tensors", f"{len(indices)}")
    arrays = []
    for i, t in enumerate(indices):
        a = t.asnumpy() if isinstance(t, Tensor) else np.asarray(t)
        if a.dtype.kind not in "iu":
            raise DTypeError("index_put", "integer index tensors", str(a.dtype))
        n = x.shape[i]
        if a.size and (a.min() < -n or a.max() >= n):
            raise IndexError(f"index_put: index out of range for axis {i} of size {n}")
        arrays.append(a % n)
    grid = np.broadcast_arrays(*arrays)
    k = grid[0].size
    where = Tensor(np.stack([g.reshape(-1) for g in grid], 1).astype(np.int64))
    rest = tuple(x.shape[len(indices):])
    vals = F.broadcast_to(F.cast(values, x.dtype), grid[0].shape + rest)
    vals = F.reshape(vals, (k,) + rest)
    return F.tensor_scatter_add(x, where, vals) if accumulate else F.tensor_scatter_update(x, where, vals)


@tensor_method("index_put")
def _index_put_method(self: Tensor, indices: Sequence[Tensor], values: Tensor, accumulate: bool = False) -> Tensor:
    """A copy with the entries at `indices` (a tuple of index tensors, one per leading axis) set to
    `values`, or incremented by them (repeats summed) when `accumulate`."""
    return _index_put(self, indices, values, accumulate)


@tensor_method("index_put_")
def _index_put_(self: Tensor, indices: Sequence[Tensor], values: Tensor, accumulate: bool = False) -> Tensor:
    """In place: the entries at `indices` set to (or incremented by) `values`."""
    return F.setitem_(self, Ellipsis, _index_put(self, indices, values, accumulate))


def intopk(x1: Tensor, x2: Tensor, k: int) -> Tensor:
    """Whether each row's target class `x2[i]` is among the `k` largest predictions of `x1[i]`
    (ties count as in: fewer than `k` entries are strictly larger)."""
    if x1.ndim != 2 or x2.ndim != 1 or x1.shape[0] != x2.shape[0]:
        raise ShapeError("intopk", "x1 of shape (N, C) and x2 of shape (N,)",
                         f"{tuple(x1.shape)} and {tuple(x2.shape)}")
    if not x2.dtype.is_int:
        raise DTypeError("intopk", "integer targets x2", str(x2.dtype))
    target = F.gather_elements(x1, 1, F.expand_dims(F.cast(x2, mstype.int64), 1))
    larger = F.reduce_sum(F.cast(F.greater(x1, target), mstype.int32), 1)
    return F.less(larger, int(k))


def check_valid(bboxes: Tensor, img_metas: Tensor) -> Tensor:
    """Which boxes (x1, y1, x2, y2) lie inside the image (height, width, ratio) of `img_metas`:
    x1, y1 >= 0, x2 <= width * ratio - 1 and y2 <= height * ratio - 1."""
    if bboxes.ndim != 2 or bboxes.shape[1] != 4:
        raise ShapeError("check_valid", "bboxes of shape (N, 4)", f"{tuple(bboxes.shape)}")
    if tuple(img_metas.shape) != (3,):
        raise ShapeError("check_valid", "img_metas of shape (3,)", f"{tuple(img_metas.shape)}")
    b = F.cast(bboxes, mstype.float32)
    m = F.cast(img_metas, mstype.float32)
    h, w, ratio = m[0], m[1], m[2]
    ok = F.logical_and(F.greater_equal(b[:, 0], 0.0), F.greater_equal(b[:, 1], 0.0))
    ok = F.logical_and(ok, F.less_equal(b[:, 2], F.sub(F.mul(w, ratio), 1.0)))
    return F.logical_and(ok, F.less_equal(b[:, 3], F.sub(F.mul(h, ratio), 1.0)))


def channel_shuffle(x: Tensor, groups: int) -> Tensor:
    """Shuffles the channels (axis 1) of an (N, C, *) tensor: C = groups * k channels read as a
    (groups, k) grid are written out transposed, as in ShuffleNet."""
    if x.ndim < 3:
        raise ShapeError("channel_shuffle", "an input of shape (N, C, *)", f"{tuple(x.shape)}")
    c = x.shape[1]
    if groups <= 0 or c % groups:
        raise ValueError(f"channel_shuffle: groups ({groups}) must be positive and divide the channels ({c})")
    n, rest = x.shape[0], tuple(x.shape[2:])
    y = F.reshape(x, (n, groups, c // groups) + rest)
    y = F.swapaxes(y, 1, 2)
    return F.reshape(y, (n, c) + rest)


def _dims(x: Tensor, dim: Any) -> tuple[int, ...]:
    if dim is None:
        return tuple(range(x.ndim))
    return tuple(d % x.ndim for d in ((dim,) if isinstance(dim, int) else dim))


def fftshift(input: Tensor, dim: Any = None) -> Tensor:
    """Moves the zero-frequency entry to the centre: a roll by n // 2 along each of `dim` (every axis
    when None)."""
    dims = _dims(input, dim)
    if not dims:
        return input
    return F.roll(input, tuple(input.shape[d] // 2 for d in dims), dims)


def ifftshift(input: Tensor, dim: Any = None) -> Tensor:
    """The inverse of `fftshift`: a roll by -(n // 2) along each of `dim` (every axis when None)."""
    dims = _dims(input, dim)
    if not dims:
        return input
    return F.roll(input, tuple(-(input.shape[d] // 2) for d in dims), dims)


def fftfreq(n: int, d: float = 1.0, dtype: Any = None) -> Tensor:
    """The sample frequencies of an n-point DFT with sample spacing `d`: [0, 1, ..., -1] / (d n)."""
    if not isinstance(n, (int, np.integer)) or n <= 0:
        raise ValueError(f"fftfreq: n must be a positive int, got {n!r}")
    dt = mstype.to_dtype(dtype) if dtype is not None else mstype.float32
    return Tensor(np.fft.fftfreq(int(n), d).astype(dt.np))


def deepcopy(input_x: Tensor) -> Tensor:
    """A new tensor with the values of `input_x` (not sharing its memory)."""
    return F.add(F.zeros_like(input_x), input_x) if input_x.dtype.np != np.bool_ else F.logical_or(input_x, input_x)


def dyn_shape(input_x: Tensor) -> Tensor:
    """The shape of `input_x` as a 1-D int64 tensor."""
    return Tensor(np.asarray(tuple(input_x.shape), np.int64))


def conj(input: Tensor) -> Tensor:
    """The complex conjugate (ops/complex_ops.py); a real tensor is itself (as MindSpore for reals)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"conj: expected a Tensor, got {type(input).__name__}")
    if input.dtype.is_complex:
        from .complex_ops import _Conj as Conj

        return Conj(input)
    return input


tensor_method("conj")(conj)
