"""MindSpore's scatter and segment reductions (issue 14): `tensor_scatter_{sub,mul,div,max,min}`,
the Parameter-updating `scatter_{add,sub,mul,div,max,min,update}` and `scatter_nd_*` forms, and
`unsorted_segment_{sum,max,min,prod}`.

All of them are one scatter of `updates` into a copy of `input_x` at N-d `indices` (the last axis of
`indices` indexes the leading axes of `input_x`), combined by a reduction. Addition and assignment
reuse `tensor_scatter_add`/`tensor_scatter_update`; max, min and mul are the primitive
`ScatterNdReduce` below; sub and div are add and mul of the negated / reciprocal updates, so
repeated indices accumulate in every form (as MindSpore's CPU kernels do).

The `scatter_*` forms (MindSpore updates the Parameter `input_x` in place and returns it) index the
first axis only, and write the result back into `input_x` when it is a Parameter.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autodiff.tape import is_tracked
from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError
from ..tensor import Parameter, Tensor, tensor_method
from . import functional as F
from .primitive import Aval, primitive

_REDUCERS = {"max": np.maximum, "min": np.minimum, "mul": np.multiply}


def _scatter_nd_shapes(op: str, x: Any, indices: Any, updates: Any) -> None:
    """MindSpore's rule: updates.shape == indices.shape[:-1] + x.shape[indices.shape[-1]:]."""
    if indices.ndim < 1:
        raise ShapeError(op, "indices of rank >= 1 (the last axis indexes input_x)", "a scalar")
    depth = indices.shape[-1]
    if depth > x.ndim:
        raise ShapeError(op, f"indices.shape[-1] <= input_x's rank {x.ndim}", f"indices shape {tuple(indices.shape)}")
    want = tuple(indices.shape[:-1]) + tuple(x.shape[depth:])
    if tuple(updates.shape) != want:
        raise ShapeError(op, f"updates of shape {want} (indices.shape[:-1] + input_x.shape[{depth}:])",
                         f"shape {tuple(updates.shape)}")


@primitive
class ScatterNdReduce:
    """A copy of `x` with each `updates` slice combined (`reduction` max, min or mul) into the
    position `indices` names; repeated positions combine all their updates.

    Gradient: max/min send it to the values that won (x where it stayed, an update where it was
    taken); mul is a product, so each factor gets g * (product of the others)."""

    def infer(x, indices, updates, reduction="max"):
        if reduction not in _REDUCERS:
            raise ValueError(f"ScatterNdReduce: reduction must be one of {sorted(_REDUCERS)}, got {reduction!r}")
        if not indices.dtype.is_int:
            raise DTypeError("ScatterNdReduce", "int32 or int64 indices", str(indices.dtype))
        if updates.dtype != x.dtype:
            raise DTypeError("ScatterNdReduce", f"updates of input_x's dtype {x.dtype}", str(updates.dtype))
        _scatter_nd_shapes("ScatterNdReduce", x, indices, updates)
        return Aval(tuple(x.shape), x.dtype)

    def impl(x, indices, updates, reduction="max"):
        out = np.array(x, copy=True)
        depth = indices.shape[-1]
        idx = indices.reshape(-1, depth)
        for d in range(depth):
            if np.any((idx[:, d] < -x.shape[d]) | (idx[:, d] >= x.shape[d])):
                raise IndexError(f"ScatterNdReduce: an index on axis {d} is outside [0, {x.shape[d]})")
        upd = updates.reshape((idx.shape[0],) + x.shape[depth:])
        _REDUCERS[reduction].at(out, tuple(idx.T), upd)
        return out

    def vjp(g, out, x, indices, updates, reduction="max"):
        gx = gu = None
        if reduction == "mul":
            if is_tracked(x):
                gx = F.mul(g, ScatterNdReduce(F.ones_like(x), indices, updates, reduction="mul"))
            if is_tracked(updates):
                gu = F.div(F.gather_nd(F.mul(g, out), indices), updates)
            return gx, None, gu
        if is_tracked(x):
            gx = F.where(F.equal(out, x), g, F.zeros_like(g))
        if is_tracked(updates):
            gu = F.where(F.equal(F.gather_nd(out, indices), updates), F.gather_nd(g, indices), F.zeros_like(updates))
        return gx, None, gu


def _idx(indices: Any) -> Tensor:
    t = indices if isinstance(indices, Tensor) else Tensor(np.asarray(indices))
    if not t.dtype.is_int:
        raise DTypeError("scatter", "int32 or int64 indices", str(t.dtype))
    return t


def _upd(updates: Any, like: Tensor) -> Tensor:
    if isinstance(updates, Tensor):
        return updates if updates.dtype == like.dtype else F.cast(updates, like.dtype)
    return Tensor(np.asarray(updates, like.dtype.np))


def _nd(input_x: Tensor, indices: Any, updates: Any, reduction: str) -> Tensor:
    idx, upd = _idx(indices), _upd(updates, input_x)
    if reduction == "add":
        return F.tensor_scatter_add(input_x, idx, upd)
    if reduction == "sub":
        return F.tensor_scatter_add(input_x, idx, F.neg(upd))
    if reduction == "update":
        return F.tensor_scatter_update(input_x, idx, upd)
    if reduction == "div":
        if not input_x.dtype.is_float:
            raise DTypeError("scatter_div", "a float input_x (division)", str(input_x.dtype))
        return ScatterNdReduce(input_x, idx, F.reciprocal(upd), reduction="mul")
    return ScatterNdReduce(input_x, idx, upd, reduction=reduction)


def tensor_scatter_sub(input_x: Tensor, indices: Any, updates: Any) -> Tensor:
    """A copy of `input_x` with `updates` subtracted at the N-d `indices` (repeats accumulate)."""
    return _nd(input_x, indices, updates, "sub")


def tensor_scatter_mul(input_x: Tensor, indices: Any, updates: Any) -> Tensor:
    """A copy of `input_x` multiplied by `updates` at the N-d `indices` (repeats multiply)."""
    return _nd(input_x, indices, updates, "mul")


def tensor_scatter_div(input_x: Tensor, indices: Any, updates: Any) -> Tensor:
    """A copy of `input_x` divided by `updates` at the N-d `indices` (repeats divide again)."""
    return _nd(input_x, indices, updates, "div")


def tensor_scatter_max(input_x: Tensor, indices: Any, updates: Any) -> Tensor:
    """A copy of `input_x` with the maximum of it and `updates` at the N-d `indices`."""
    return _nd(input_x, indices, updates, "max")


def tensor_scatter_min(input_x: Tensor, indices: Any, updates: Any) -> Tensor:
    """A copy of `input_x` with the minimum of it and `updates` at the N-d `indices`."""
    return _nd(input_x, indices, updates, "min")


def _write_back(input_x: Tensor, out: Tensor) -> Tensor:
    """MindSpore's scatter_* update the Parameter `input_x` in place; a plain tensor gets a new one."""
    if isinstance(input_x, Parameter):
        F.assign(input_x, out)
    return out


def _scatter_nd_inplace(reduction: str):
    def fn(input_x: Tensor, indices: Any, updates: Any, use_locking: bool = False) -> Tensor:
        return _write_back(input_x, _nd(input_x, indices, updates, reduction))

    fn.__name__ = f"scatter_nd_{reduction}"
    fn.__qualname__ = fn.__name__
    fn.__doc__ = (f"input_x with `updates` combined by {reduction} at the N-d `indices`; a Parameter "
                  f"`input_x` is updated in place (use_locking has no effect on CPU).")
    return fn


def _first_axis(input_x: Tensor, indices: Any, updates: Any, *, reduction: str) -> Tensor:
    idx = _idx(indices)
    return _write_back(input_x, _nd(input_x, F.expand_dims(idx, -1), updates, reduction))


def _scatter_add_method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``x.scatter_add(indices, updates)`` (first-axis ScatterAdd) or ``x.scatter_add(dim, index, src)``
    (element-wise along `dim`, as ``Tensor.scatter_add_``), MindSpore's two overloads."""
    if len(args) + len(kwargs) == 3:
        return _scatter_add_elements(self, *args, **kwargs)
    return _first_axis(self, *args, **kwargs, reduction="add")


def _scatter_add_elements(self: Tensor, dim: int, index: Any, src: Any) -> Tensor:
    """self with src[i][j] added at index[i][j] along `dim` (and, for a Parameter, written back)."""
    out = F.tensor_scatter_elements(self, _idx(index), _upd(src, self), axis=dim, reduction="add")
    return _write_back(self, out)


def _scatter_add_inplace(self: Tensor, dim: int, index: Any, src: Any) -> Tensor:
    """self[index[i][j]][j] += src[i][j] along `dim`, in place (returned)."""
    return F.setitem_(self, Ellipsis, _scatter_add_elements(self, dim, index, src))


Tensor.scatter_add = _scatter_add_method
Tensor.scatter_add_ = _scatter_add_inplace


def scatter_add(input_x: Tensor, indices: Any, updates: Any) -> Tensor:
    """input_x[indices[i]] += updates[i] along the first axis (repeats accumulate); updates a
    Parameter in place and returns the result."""
    return _first_axis(input_x, indices, updates, reduction="add")


@tensor_method("scatter_sub")
def scatter_sub(input_x: Tensor, indices: Any, updates: Any) -> Tensor:
    """input_x[indices[i]] -= updates[i] along the first axis."""
    return _first_axis(input_x, indices, updates, reduction="sub")


@tensor_method("scatter_mul")
def scatter_mul(input_x: Tensor, indices: Any, updates: Any) -> Tensor:
    """input_x[indices[i]] *= updates[i] along the first axis."""
    return _first_axis(input_x, indices, updates, reduction="mul")


@tensor_method("scatter_div")
def scatter_div(input_x: Tensor, indices: Any, updates: Any) -> Tensor:
    """input_x[indices[i]] /= updates[i] along the first axis (float input_x)."""
    return _first_axis(input_x, indices, updates, reduction="div")


@tensor_method("scatter_max")
def scatter_max(input_x: Tensor, indices: Any, updates: Any) -> Tensor:
    """input_x[indices[i]] = max(input_x[indices[i]], updates[i]) along the first axis."""
    return _first_axis(input_x, indices, updates, reduction="max")


@tensor_method("scatter_min")
def scatter_min(input_x: Tensor, indices: Any, updates: Any) -> Tensor:
    """input_x[indices[i]] = min(input_x[indices[i]], updates[i]) along the first axis."""
    return _first_axis(input_x, indices, updates, reduction="min")


def scatter_update(input_x: Tensor, indices: Any, updates: Any) -> Tensor:
    """input_x[indices[i]] = updates[i] along the first axis (a repeated index: one of its updates)."""
    return _first_axis(input_x, indices, updates, reduction="update")


scatter_nd_add = _scatter_nd_inplace("add")
scatter_nd_sub = _scatter_nd_inplace("sub")
scatter_nd_mul = _scatter_nd_inplace("mul")
scatter_nd_div = _scatter_nd_inplace("div")
scatter_nd_max = _scatter_nd_inplace("max")
scatter_nd_min = _scatter_nd_inplace("min")
for _f in (scatter_nd_add, scatter_nd_sub, scatter_nd_mul, scatter_nd_div, scatter_nd_max, scatter_nd_min):
    _f.__module__ = __name__


# --- segments -------------------------------------------------------------------------------------------
def _segment(op: str, x: Tensor, segment_ids: Any, num_segments: Any, reduction: str, empty: Any) -> Tensor:
    """Combine the slices x[i] into out[segment_ids[i]]; ids outside [0, num_segments) are dropped
    and a segment that receives nothing holds `empty` (0 for sums, 1 for products; the dtype's
    lowest/highest value for max/min, as MindSpore's CPU kernels)."""
    ids = _idx(segment_ids)
    n = int(num_segments.item() if isinstance(num_segments, Tensor) else num_segments)
    if n <= 0:
        raise ValueError(f"{op}: num_segments must be positive, got {n}")
    if tuple(x.shape[:ids.ndim]) != tuple(ids.shape):
        raise ShapeError(op, f"segment_ids whose shape {tuple(ids.shape)} is a prefix of x's",
                         f"x shape {tuple(x.shape)}")
    valid = F.logical_and(F.greater_equal(ids, 0), F.less(ids, n))
    safe = F.where(valid, ids, F.zeros_like(ids))
    tail = tuple(x.shape[ids.ndim:])
    base = F.full((n,) + tail, empty, dtype=x.dtype)
    mask = F.reshape(valid, tuple(ids.shape) + (1,) * len(tail))
    upd = F.where(mask, x, F.full_like(x, empty))
    idx = F.expand_dims(safe, -1)
    if reduction == "add":
        return F.tensor_scatter_add(base, idx, upd)
    return ScatterNdReduce(base, idx, upd, reduction=reduction)


def _limit(dtype: Any, low: bool) -> Any:
    npd = dtype.np
    info = np.finfo(npd) if np.issubdtype(npd, np.floating) else np.iinfo(npd)
    return info.min if low else info.max


@tensor_method("unsorted_segment_sum")
def unsorted_segment_sum(input_x: Tensor, segment_ids: Any, num_segments: Any) -> Tensor:
    """out[j] = sum of input_x[i] with segment_ids[i] == j, for j < num_segments (0 where empty)."""
    return _segment("unsorted_segment_sum", input_x, segment_ids, num_segments, "add", 0)


@tensor_method("unsorted_segment_max")
def unsorted_segment_max(x: Tensor, segment_ids: Any, num_segments: Any) -> Tensor:
    """out[j] = max of x[i] with segment_ids[i] == j (the dtype's lowest value where empty)."""
    if x.dtype is mstype.bool_:
        raise DTypeError("unsorted_segment_max", "a numeric tensor", "Bool")
    return _segment("unsorted_segment_max", x, segment_ids, num_segments, "max", _limit(x.dtype, True))


@tensor_method("unsorted_segment_min")
def unsorted_segment_min(x: Tensor, segment_ids: Any, num_segments: Any) -> Tensor:
    """out[j] = min of x[i] with segment_ids[i] == j (the dtype's highest value where empty)."""
    if x.dtype is mstype.bool_:
        raise DTypeError("unsorted_segment_min", "a numeric tensor", "Bool")
    return _segment("unsorted_segment_min", x, segment_ids, num_segments, "min", _limit(x.dtype, False))


@tensor_method("unsorted_segment_prod")
def unsorted_segment_prod(x: Tensor, segment_ids: Any, num_segments: Any) -> Tensor:
    """out[j] = product of x[i] with segment_ids[i] == j (1 where empty)."""
    return _segment("unsorted_segment_prod", x, segment_ids, num_segments, "mul", 1)
