"""Array primitives: dtype casts, reshapes, broadcasting and its adjoint, identity/stop-gradient."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import ShapeError
from ..tensor import Tensor, tensor_method
from ._rules import broadcast_shapes
from .primitive import Aval, primitive


@primitive
class Cast:
    """Returns a tensor with the new data type."""

    def infer(a, dtype):
        return Aval(a.shape, dtype)

    def impl(a, dtype):
        return a.astype(dtype.np)

    def vjp(g, out, a, dtype):
        return (cast(g, a.dtype) if a.dtype.is_float else None,)


def _resolve_shape(op: str, in_shape: Sequence[int], shape: Sequence[int]) -> tuple[int, ...]:
    size = math.prod(in_shape)
    shape = tuple(int(s) for s in shape)
    if shape.count(-1) > 1:
        raise ShapeError(op, "at most one -1 in the target shape", f"{shape}")
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        if known == 0 or size % known:
            raise ShapeError(op, f"a shape whose size divides {size} (input {tuple(in_shape)})", f"{shape}")
        shape = tuple(size // known if s == -1 else s for s in shape)
    if math.prod(shape) != size:
        raise ShapeError(op, f"a shape with {size} elements (input shape {tuple(in_shape)})",
                         f"{shape} with {math.prod(shape)} elements")
    return shape


@primitive
class Reshape:
    """Reshapes the input to the given shape (one entry may be -1)."""

    def infer(a, shape):
        return Aval(_resolve_shape("Reshape", a.shape, shape), a.dtype)

    def impl(a, shape):
        return a.reshape(shape)

    def vjp(g, out, a, shape):
        return (reshape(g, a.shape),)


@primitive
class BroadcastTo:
    """Broadcasts the input to a larger shape."""

    def infer(a, shape):
        target = tuple(shape)
        if broadcast_shapes("BroadcastTo", a.shape, target) != target:
            raise ShapeError("BroadcastTo", f"an input that broadcasts to {target}", f"{tuple(a.shape)}")
        return Aval(target, a.dtype)

    def impl(a, shape):
        return np.broadcast_to(a, shape)

    def vjp(g, out, a, shape):
        return (sum_to(g, a.shape),)


@primitive
class SumTo:
    """Sums a broadcast result back to `shape` (the adjoint of BroadcastTo)."""

    def infer(a, shape):
        shape = tuple(shape)
        if broadcast_shapes("SumTo", shape, a.shape) != tuple(a.shape):
            raise ShapeError("SumTo", f"an input broadcast from {shape}", f"{tuple(a.shape)}")
        return Aval(shape, a.dtype)

    def impl(a, shape):
        lead = a.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and a.shape[i + lead] != 1)
        out = a.sum(axis=axes, keepdims=True) if axes else a
        return out.reshape(shape)

    def vjp(g, out, a, shape):
        return (broadcast_to(g, a.shape),)


@primitive
class StopGradient:
    """Passes the value through and blocks gradients flowing back through it."""

    nondiff = True

    def infer(a):
        return Aval(a.shape, a.dtype)

    def impl(a):
        return a


@primitive
class Identity:
    """Returns a copy of the input."""

    def infer(a):
        return Aval(a.shape, a.dtype)

    def impl(a):
        return a.copy()

    def vjp(g, out, a):
        return (g,)


def cast(input: Tensor, dtype: Any) -> Tensor:
    """Returns a tensor with the new specified data type."""
    dt = mstype.to_dtype(dtype)
    if input.dtype is dt:
        return input
    return Cast(input, dtype=dt)


@tensor_method("reshape")
def reshape(input: Tensor, *shape: Any) -> Tensor:
    """Reshape the input tensor based on the given shape."""
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = shape[0]
    shape = tuple(int(s) for s in shape)
    if shape == input.shape:
        return input
    return Reshape(input, shape=shape)


def broadcast_to(input: Tensor, shape: Sequence[int]) -> Tensor:
    """Broadcasts input to the given shape."""
    shape = tuple(int(s) for s in shape)
    if -1 in shape:
        lead = len(shape) - input.ndim
        shape = tuple(input.shape[i - lead] if s == -1 else s for i, s in enumerate(shape))
    if shape == input.shape:
        return input
    return BroadcastTo(input, shape=shape)


def sum_to(input: Tensor, shape: Sequence[int]) -> Tensor:
    """Sums `input` down to `shape` over broadcast dimensions (used by gradients of broadcasts)."""
    shape = tuple(shape)
    if input.shape == shape:
        return input
    return SumTo(input, shape=shape)


def stop_gradient(value: Tensor) -> Tensor:
    """Blocks the gradient: the result is the same value, but treated as a constant."""
    return StopGradient(value)


def identity(input: Tensor) -> Tensor:
    return Identity(input)


def zeros_like(input: Tensor, *, dtype: Any = None) -> Tensor:
    """A tensor of zeros with the shape (and dtype) of `input`."""
    dt = mstype.to_dtype(dtype).np if dtype is not None else input._data.dtype
    return Tensor._wrap(np.zeros(input.shape, dt))


def ones_like(input: Tensor, *, dtype: Any = None) -> Tensor:
    """A tensor of ones with the shape (and dtype) of `input`."""
    dt = mstype.to_dtype(dtype).np if dtype is not None else input._data.dtype
    return Tensor._wrap(np.ones(input.shape, dt))
