"""Reductions: sum, mean, max/min (with MindSpore's `keep_dims`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor, tensor_method
from ._rules import norm_axes, reduced_shape
from .primitive import Aval, primitive


@primitive
class ReduceSum:
    """Sums the elements over the given axes (all axes when `axis` is empty)."""

    def infer(a, axis=(), keep_dims=False):
        axes = norm_axes("ReduceSum", axis, a.ndim)
        return Aval(reduced_shape(a.shape, axes, keep_dims), a.dtype)

    def impl(a, axis=(), keep_dims=False):
        axes = norm_axes("ReduceSum", axis, a.ndim)
        return np.asarray(a.sum(axis=axes, keepdims=keep_dims, dtype=a.dtype))

    def vjp(g, out, a, axis=(), keep_dims=False):
        from .array import broadcast_to, reshape

        axes = norm_axes("ReduceSum", axis, a.ndim)
        if not keep_dims:
            g = reshape(g, reduced_shape(a.shape, axes, True))
        return (broadcast_to(g, a.shape),)


@tensor_method("sum")
def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Sum of the elements over `dim` (all when None)."""
    from .array import cast

    out = ReduceSum(input, axis=() if dim is None else dim, keep_dims=keepdim)
    return cast(out, dtype) if dtype is not None else out


def reduce_sum(x: Tensor, axis: Any = (), keep_dims: bool = False) -> Tensor:
    """Reduces a dimension of a tensor by summing all elements in the dimension."""
    return ReduceSum(x, axis=() if axis is None else axis, keep_dims=keep_dims)
