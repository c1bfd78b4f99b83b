"""Shared pieces of shape rules and op wrappers: broadcasting, axis normalisation, argument
conversion and dtype promotion. Kept apart so every declaration module says only what is its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..common.dtype import DType
from ..errors import DTypeError, ShapeError, located
from ..tensor import Tensor


def broadcast_shapes(op: str, a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """NumPy/MindSpore broadcasting of two shapes, or a ShapeError naming `op`."""
    if tuple(a) == tuple(b):
        return tuple(a)
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and x != 1 and y != 1:
            raise ShapeError(op, "shapes that broadcast together",
                             f"{tuple(a)} and {tuple(b)} (dimension -{i}: {x} vs {y})")
        out.append(x if y == 1 else y)
    return tuple(reversed(out))


def norm_axis(op: str, axis: int, ndim: int) -> int:
    """A non-negative axis, or a ShapeError when it is out of range."""
    if not -ndim <= axis < max(ndim, 1):
        raise located(ShapeError(op, f"axis in [{-ndim}, {ndim})", f"axis={axis} for a {ndim}-d input"))
    return axis % ndim if ndim else 0


def norm_axes(op: str, axis: Any, ndim: int) -> tuple[int, ...]:
    """Normalise ``axis`` given as None, (), an int or a sequence into sorted non-negative axes."""
    if axis is None or axis == ():
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        return (norm_axis(op, int(axis), ndim),)
    axes = tuple(sorted(norm_axis(op, int(a), ndim) for a in axis))
    if len(set(axes)) != len(axes):
        raise ShapeError(op, "distinct axes", f"axis={tuple(axis)}")
    return axes


def reduced_shape(shape: Sequence[int], axes: Sequence[int], keep_dims: bool) -> tuple[int, ...]:
    if keep_dims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def require_float(op: str, *avals: Any) -> None:
    """Float input (complex passes too: an op without a complex kernel refuses it by name before its
    rule runs, see ops/complex_ops.py `_guard_registry`)."""
    for a in avals:
        if not (a.dtype.is_float or a.dtype.is_complex):
            raise DTypeError(op, "a floating-point tensor", f"{a.dtype}",
                             hint="cast it first, e.g. x.astype(ms.float32)")


def require_same_dtype(op: str, a: Any, b: Any) -> None:
    if a.dtype is not b.dtype:
        raise DTypeError(op, "inputs of one dtype", f"{a.dtype} and {b.dtype}")


def as_tensor(x: Any, like: Tensor | None = None) -> Tensor:
    """Wrap a Python number, list or ndarray; a number takes `like`'s dtype when kinds agree."""
    if isinstance(x, Tensor):
        return x
    if like is not None and isinstance(x, complex):  # a Python complex: as wide as the tensor's precision
        wide = like.dtype in (mstype.float64, mstype.complex128)
        return Tensor._wrap(np.asarray(x, dtype=np.complex128 if wide else np.complex64))
    if like is not None and isinstance(x, (int, float, bool, np.number)) and not isinstance(x, np.complexfloating):
        dt = like.dtype
        if isinstance(x, bool) or (isinstance(x, (int, np.integer)) and dt is not mstype.bool_) \
                or dt.is_float or dt.is_complex:
            return Tensor._wrap(np.asarray(x, dtype=dt.np))
        return Tensor._wrap(np.asarray(x, dtype=np.float32))
    return Tensor(x)


_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "V": 2, "c": 3}  # bfloat16 is kind 'V'


def promote(a: DType, b: DType) -> DType:
    """MindSpore's implicit conversion: bool < int < float < complex, and the wider type within a
    kind (float64 with complex64 gives complex128, as MindSpore and NumPy)."""
    if a is b:
        return a
    ra, rb = _RANK[a.np.kind], _RANK[b.np.kind]
    if ra == 3 or rb == 3:
        wide = mstype.float64 in (a, b) or mstype.complex128 in (a, b)
        return mstype.complex128 if wide else mstype.complex64
    if ra != rb:
        return a if ra > rb else b
    if a is mstype.bfloat16 or b is mstype.bfloat16:
        return mstype.float32 if {a, b} == {mstype.bfloat16, mstype.float16} else (
            b if a is mstype.bfloat16 else a) if max(a.itemsize, b.itemsize) > 2 else mstype.bfloat16
    return mstype.from_numpy(np.promote_types(a.np, b.np))
