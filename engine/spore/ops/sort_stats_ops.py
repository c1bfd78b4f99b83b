"""Order statistics, searches and norms (issue 14): `median`/`nanmedian` (values and indices),
`quantile`/`nanquantile`, `searchsorted`, `trapz`, `vector_norm`, `matrix_norm`.

All are composites of `sort`, `gather_elements`, comparisons and reductions, so values carry
gradients (to the elements chosen or interpolated) and Graph mode compiles them. Semantics follow
MindSpore 2.10's docs: the median of an even count is the lower of the two middle values (as
PyTorch), quantiles interpolate linearly between order statistics (NumPy's default method), and
the NaN-aware forms ignore NaNs (an all-NaN slice gives NaN).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor, tensor_method
from . import functional as F
from ._rules import norm_axis


def _pick(values: Tensor, k: Tensor | int, axis: int, keepdims: bool) -> Tensor:
    """values[..., k, ...] along `axis` (k an int or a tensor broadcasting over the other axes)."""
    if isinstance(k, int):
        out = F.narrow(values, axis, k, 1)
    else:
        out = F.gather_elements(values, axis, k)
    return out if keepdims else F.squeeze(out, axis)


def _median(op: str, input: Tensor, axis: int, keepdims: bool, ignore_nan: bool) -> tuple[Tensor, Tensor]:
    if input.ndim == 0:
        return input, F.zeros_like(F.cast(input, mstype.int64))
    ax = norm_axis(op, axis, input.ndim)
    n = input.shape[ax]
    if n == 0:
        raise ShapeError(op, f"a non-empty axis {axis}", f"shape {tuple(input.shape)}")
    vals, idx = F.sort(input, ax)  # NaNs sort last
    if not ignore_nan or not input.dtype.is_float:
        k: Any = (n - 1) // 2
    else:
        count = F.reduce_sum(F.cast(F.logical_not(F.isnan(input)), mstype.int64), ax, True)
        k = F.floor_divide(F.maximum(F.sub(count, 1), 0), 2)
    return _pick(vals, k, ax, keepdims), F.cast(_pick(idx, k, ax, keepdims), mstype.int64)


@tensor_method("median")
def median(input: Tensor, axis: int = -1, keepdims: bool = False) -> tuple[Tensor, Tensor]:
    """(values, indices) of the median along `axis`: the lower middle value for an even count; a
    NaN in the slice makes the median NaN."""
    vals, idx = _median("median", input, axis, keepdims, False)
    if input.dtype.is_float and input.ndim:
        has_nan = F.any(F.isnan(input), norm_axis("median", axis, input.ndim), keepdims)
        vals = F.where(has_nan, F.full_like(vals, float("nan")), vals)
    return vals, idx


@tensor_method("nanmedian")
def nanmedian(input: Tensor, axis: int = -1, keepdims: bool = False) -> tuple[Tensor, Tensor]:
    """(values, indices) of the median along `axis` ignoring NaNs (NaN where a slice is all NaN)."""
    return _median("nanmedian", input, axis, keepdims, True)


def _quantile(op: str, input: Tensor, q: Any, axis: Any, keepdims: bool, ignore_nan: bool) -> Tensor:
    if not input.dtype.is_float:
        raise DTypeError(op, "a float32 or float64 input", str(input.dtype))
    qs = np.asarray(q.asnumpy() if isinstance(q, Tensor) else q, dtype=np.float64)
    if qs.ndim > 1 or np.any((qs < 0) | (qs > 1)):
        raise ValueError(f"{op}: q must be a scalar or 1-D with values in [0, 1], got {qs.tolist()}")
    x = input
    if axis is None:
        x, ax = F.reshape(input, (-1,)), 0
    else:
        if not isinstance(axis, (int, np.integer)):
            raise TypeError(f"{op}: axis must be an int or None, got {type(axis).__name__}")
        ax = norm_axis(op, int(axis), input.ndim)
    vals, _ = F.sort(x, ax)  # NaNs last
    n = x.shape[ax]
    shape1 = [1] * x.ndim
    shape1[ax] = 1
    if ignore_nan:
        count = F.cast(F.reduce_sum(F.cast(F.logical_not(F.isnan(x)), mstype.int64), ax, True), x.dtype)
    else:
        count = F.full(tuple(shape1), float(n), dtype=x.dtype)
    outs = []
    for qv in np.atleast_1d(qs):
        pos = F.mul(F.maximum(F.sub(count, 1), 0), float(qv))
        lo = F.floor(pos)
        frac = F.sub(pos, lo)
        lo_i = F.cast(lo, mstype.int64)
        hi_i = F.minimum(F.add(lo_i, 1), F.maximum(F.sub(F.cast(count, mstype.int64), 1), 0))
        target = list(x.shape)
        target[ax] = 1
        lo_i, hi_i = F.broadcast_to(lo_i, tuple(target)), F.broadcast_to(hi_i, tuple(target))
        a, b = F.gather_elements(vals, ax, lo_i), F.gather_elements(vals, ax, hi_i)
        r = F.add(a, F.mul(F.sub(b, a), F.broadcast_to(frac, tuple(target))))
        if not ignore_nan:
            r = F.where(F.any(F.isnan(x), ax, True), F.full_like(r, float("nan")), r)
        else:
            r = F.where(F.equal(F.broadcast_to(count, tuple(target)), 0), F.full_like(r, float("nan")), r)
        if axis is None:
            r = F.reshape(r, (1,) * input.ndim if keepdims else ())
        elif not keepdims:
            r = F.squeeze(r, ax)
        outs.append(r)
    return outs[0] if qs.ndim == 0 else F.stack(outs, 0)


@tensor_method("quantile")
def quantile(input: Tensor, q: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """The q-th quantiles along `axis` (of every element when None), linearly interpolated; a 1-D q
    adds a leading axis of its length. A NaN in a slice makes its quantiles NaN."""
    return _quantile("quantile", input, q, axis, keepdims, False)


@tensor_method("nanquantile")
def nanquantile(input: Tensor, q: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """`quantile` ignoring NaNs (NaN where a slice is all NaN)."""
    return _quantile("nanquantile", input, q, axis, keepdims, True)


def searchsorted(sorted_sequence: Tensor, values: Any, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Tensor | None = None) -> Tensor:
    """For each value, the index where it would be inserted into the last axis of
    `sorted_sequence` to keep it sorted: the first such index, or the last one with right=True or
    side='right'. A 1-D sequence serves every value; otherwise the leading axes must match."""
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
        if right and side == "left":
            raise ValueError("searchsorted: right=True contradicts side='left'")
        right = side == "right"
    seq = sorted_sequence
    if sorter is not None:
        seq = F.gather_elements(seq, -1, sorter) if seq.ndim > 1 else F.gather(seq, sorter, 0)
    v = values if isinstance(values, Tensor) else Tensor(np.asarray(values, seq.dtype.np))
    if seq.ndim > 1 and tuple(seq.shape[:-1]) != tuple(v.shape[:-1]):
        raise ShapeError("searchsorted", f"values whose leading axes are {tuple(seq.shape[:-1])}",
                         f"shape {tuple(v.shape)}")
    s = F.expand_dims(seq, -2) if seq.ndim > 1 else seq  # (..., 1, n) or (n,)
    cmp = F.less_equal(s, F.expand_dims(v, -1)) if right else F.less(s, F.expand_dims(v, -1))
    return F.reduce_sum(F.cast(cmp, mstype.int32 if out_int32 else mstype.int64), -1)


def _searchsorted_method(self: Tensor, v: Any, side: str = "left", sorter: Tensor | None = None) -> Tensor:
    """Insertion indices of `v` into this sorted tensor (side 'left' or 'right')."""
    return searchsorted(self, v, side=side, sorter=sorter)


Tensor.searchsorted = _searchsorted_method


def trapz(y: Tensor, x: Tensor | None = None, *, dx: float = 1.0, dim: int = -1) -> Tensor:
    """The trapezoid-rule integral of `y` along `dim`, at sample points `x` or with spacing `dx`."""
    ax = norm_axis("trapz", dim, y.ndim)
    n = y.shape[ax]
    mid = F.mul(F.add(F.narrow(y, ax, 1, n - 1), F.narrow(y, ax, 0, n - 1)), 0.5)
    if x is None:
        return F.mul(F.reduce_sum(mid, ax), dx)
    if x.ndim == 1:
        d = F.sub(F.narrow(x, 0, 1, n - 1), F.narrow(x, 0, 0, n - 1))
        shape = [1] * y.ndim
        shape[ax] = n - 1
        d = F.reshape(d, tuple(shape))
    else:
        xa = norm_axis("trapz", dim, x.ndim)
        d = F.sub(F.narrow(x, xa, 1, n - 1), F.narrow(x, xa, 0, n - 1))
    return F.reduce_sum(F.mul(mid, d), ax)


def vector_norm(x: Tensor, ord: Any = 2, axis: Any = None, keepdims: bool = False, *, dtype: Any = None) -> Tensor:
    """The vector p-norm over `axis` (every element when None): (sum |x| ** ord) ** (1 / ord);
    inf/-inf give max/min |x|, 0 the count of nonzeros."""
    if dtype is not None:
        x = F.cast(x, dtype)
    if not x.dtype.is_float:
        raise DTypeError("vector_norm", "a float input (or dtype=)", str(x.dtype))
    if axis is None:
        v, ax, out_shape = F.reshape(x, (-1,)), 0, (1,) * x.ndim
    else:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        v, ax, out_shape = x, tuple(norm_axis("vector_norm", a, x.ndim) for a in axes), None
    a = F.abs(v)
    if ord == float("inf"):
        r = F.amax(a, ax, keepdims and axis is not None)
    elif ord == -float("inf"):
        r = F.amin(a, ax, keepdims and axis is not None)
    elif ord == 0:
        r = F.reduce_sum(F.cast(F.not_equal(v, 0), x.dtype), ax, keepdims and axis is not None)
    elif ord == 1:
        r = F.reduce_sum(a, ax, keepdims and axis is not None)
    elif ord == 2:
        r = F.sqrt(F.reduce_sum(F.square(v), ax, keepdims and axis is not None))
    else:
        r = F.pow(F.reduce_sum(F.pow(a, float(ord)), ax, keepdims and axis is not None), 1.0 / float(ord))
    if axis is None and keepdims:
        r = F.reshape(r, out_shape)
    return r


def matrix_norm(A: Tensor, ord: Any = "fro", axis: Sequence[int] = (-2, -1), keepdims: bool = False, *,
                dtype: Any = None) -> Tensor:
    """The matrix norm over the two axes `axis`: 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2."""
    if ord not in ("fro", "nuc", float("inf"), -float("inf"), 1, -1, 2, -2):
        raise ValueError(f"matrix_norm: ord must be 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2, got {ord!r}")
    if len(tuple(axis)) != 2:
        raise ValueError(f"matrix_norm: axis must name two axes, got {axis!r}")
    if dtype is not None:
        A = F.cast(A, dtype)
    return F.norm(A, ord, tuple(axis), keepdims)
