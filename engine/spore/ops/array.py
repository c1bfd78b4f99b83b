"""Array primitives: dtype casts, reshapes, broadcasting and its adjoint, identity/stop-gradient;
element-wise selection (where, masked_fill), one-hot encoding, and sorting (sort, top-k, unique,
nonzero). Movement ops live in `shape_ops`, indexing, gathers and scatters in `indexing`.

Data-dependent shapes (unique, nonzero) are known in PyNative because the values are: their `infer`
reads the value when it is there and reports -1 for the dynamic dimension otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError, ValueDependentShapeError
from ..onnx.spec import OnnxMap, same
from ..tensor import Tensor, tensor_method
from ._rules import as_tensor, broadcast_shapes, norm_axis, promote
from .primitive import Aval, primitive


@primitive
class Cast:
    """Returns a tensor with the new data type."""
    onnx = OnnxMap(export="cast")

    def infer(a, dtype):
        if a.dtype.is_complex and not dtype.is_complex:  # NumPy would warn and drop the imaginary part
            raise DTypeError("Cast", "a real tensor (a complex -> real cast would drop the imaginary part)",
                             f"{a.dtype} -> {dtype}", hint="take ops.real(x), ops.imag(x) or ops.abs(x) first")
        return Aval(a.shape, dtype)

    def impl(a, dtype):
        if a.dtype.itemsize == 2 or dtype.name in ("bfloat16", "float16"):  # float32 <-> 16-bit in C++ (amp.lowp)
            from ..amp import lowp

            return lowp.cast_op(a, dtype.np)
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
    onnx = OnnxMap(export="reshape")

    def infer(a, shape):
        return Aval(_resolve_shape("Reshape", a.shape, shape), a.dtype)

    def impl(a, shape):
        return a.reshape(shape)

    def vjp(g, out, a, shape):
        return (reshape(g, a.shape),)


@primitive
class BroadcastTo:
    """Broadcasts the input to a larger shape."""
    onnx = OnnxMap(export="broadcast_to")

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
        if a.ndim == 2 and len(shape) == 1 and shape[0] == a.shape[1] and a.dtype == np.float32:
            # a Dense layer's bias gradient: one C++ pass (rows added in order, as NumPy's axis-0 sum)
            from .. import _kernels

            return _kernels.bias_grad(a)
        if a.dtype.itemsize == 2 and a.dtype.kind in "fV" and a.size >= 1024:
            # float16/bfloat16 (mixed precision's bias gradients): accumulate in float32, round once
            from ..amp import lowp

            if lowp.is_lowp(a.dtype):
                if a.ndim == 2 and len(shape) == 1 and shape[0] == a.shape[1]:  # a Dense bias: one C++ pass
                    return lowp.bias_grad(a)
                return lowp.cast(SumTo.impl(lowp.cast(a, np.float32), shape), a.dtype)
        lead = a.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and a.shape[i + lead] != 1)
        out = a.sum(axis=axes, keepdims=True) if axes else a
        return out.reshape(shape)

    def vjp(g, out, a, shape):
        return (broadcast_to(g, a.shape),)


@primitive
class StopGradient:
    """Passes the value through and blocks gradients flowing back through it."""
    onnx = OnnxMap("Identity")

    nondiff = True

    def infer(a):
        return Aval(a.shape, a.dtype)

    def impl(a):
        return a


@primitive
class Identity:
    """Returns a copy of the input."""
    onnx = same("Identity")

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
    dt = mstype.to_dtype(dtype).np if dtype is not None else input.dtype.np
    return Tensor._wrap(np.zeros(input.shape, dt))


def ones_like(input: Tensor, *, dtype: Any = None) -> Tensor:
    """A tensor of ones with the shape (and dtype) of `input`."""
    dt = mstype.to_dtype(dtype).np if dtype is not None else input.dtype.np
    return Tensor._wrap(np.ones(input.shape, dt))


def _require_int(op: str, t: Any, what: str = "indices") -> None:
    if not t.dtype.is_int:
        raise DTypeError(op, f"integer {what}", f"{t.dtype}")


def _value(t: Any) -> np.ndarray | None:
    """The concrete value behind an aval when there is one (PyNative), else None (Graph/LSP)."""
    return None if getattr(t, "_traced", True) else t._data


def _sized_by_values(op: str, what: str, t: Any) -> np.ndarray:
    """The values an output size depends on; without them (a graph being compiled, the language
    server) a `ValueDependentShapeError`, never a guessed size."""
    v = _value(t)
    if v is None:
        from ..compiler.support import RULES

        raise ValueDependentShapeError(
            f"{op}: the size of its output ({what}) depends on the input's values, which are only known "
            "when the graph runs", hint=RULES["value_dependent_shape"].fix)
    return v


# --- selection ------------------------------------------------------------------------------------
@primitive
class Select:
    """Element-wise choice: `x` where `cond` is True, else `y` (all three broadcast)."""
    onnx = same("Where")

    def infer(cond, x, y):
        if cond.dtype is not mstype.bool_:
            raise DTypeError("Select", "a bool condition", f"{cond.dtype}")
        if x.dtype is not y.dtype:
            raise DTypeError("Select", "x and y of one dtype", f"{x.dtype} and {y.dtype}")
        shape = broadcast_shapes("Select", broadcast_shapes("Select", cond.shape, x.shape), y.shape)
        return Aval(shape, x.dtype)

    def impl(cond, x, y):
        return np.where(cond, x, y)

    def vjp(g, out, cond, x, y):
        zero = Tensor._wrap(np.zeros((), g.dtype.np))
        return None, sum_to(Select(cond, g, zero), x.shape), sum_to(Select(cond, zero, g), y.shape)


def _cond(c: Any) -> Tensor:
    t = c if isinstance(c, Tensor) else Tensor(c)
    return t if t.dtype is mstype.bool_ else cast(t, mstype.bool_)


def where(condition: Any, input: Any, other: Any) -> Tensor:
    """Elements of `input` where `condition` holds, else of `other` (broadcast; numbers welcome)."""
    cond = _cond(condition)
    if not isinstance(input, Tensor):
        input = as_tensor(input, other if isinstance(other, Tensor) else None)
    if not isinstance(other, Tensor):
        other = as_tensor(other, input)
    if input.dtype is not other.dtype:
        dt = promote(input.dtype, other.dtype)
        input, other = cast(input, dt), cast(other, dt)
    return Select(cond, input, other)


def select(condition: Any, input: Any, other: Any) -> Tensor:
    """Same as `where(condition, input, other)`."""
    return where(condition, input, other)


@tensor_method("masked_fill")
def masked_fill(input_x: Tensor, mask: Any, value: Any) -> Tensor:
    """`input_x` with `value` where `mask` is True (mask broadcasts; value keeps input's dtype)."""
    val = value if isinstance(value, Tensor) else as_tensor(value, input_x)
    if val.dtype is not input_x.dtype:
        val = cast(val, input_x.dtype)
    return Select(_cond(mask), val, input_x)


@tensor_method("masked_select")
def masked_select(input: Tensor, mask: Any) -> Tensor:
    """1-D tensor of the elements of `input` where the (broadcast) `mask` is True."""
    from .indexing import getitem

    m = _cond(mask)
    shape = broadcast_shapes("masked_select", input.shape, m.shape)
    x = broadcast_to(input, shape)
    mk = np.broadcast_to(_sized_by_values("masked_select", "the number of True entries in the mask", m), shape)
    return getitem(reshape(x, (-1,)), mk.reshape(-1))


# --- one-hot, sorting, unique, nonzero ------------------------------------------------------------
@primitive
class OneHot:
    """One-hot encoding: a new `axis` of size `depth` holding `on_value` at each index, else
    `off_value` (indices outside [0, depth) give all off)."""

    nondiff = True

    def infer(indices, depth, on_value=1, off_value=0, axis=-1, dtype=mstype.int64):
        _require_int("OneHot", indices)
        if depth < 0:
            raise ShapeError("OneHot", "depth >= 0", f"depth={depth}")
        ax = norm_axis("OneHot", axis, indices.ndim + 1)
        shape = list(indices.shape)
        shape.insert(ax, depth)
        return Aval(tuple(shape), dtype)

    def impl(indices, depth, on_value=1, off_value=0, axis=-1, dtype=mstype.int64):
        ax = axis % (indices.ndim + 1)
        hot = np.expand_dims(indices, ax) == np.arange(depth).reshape((-1,) + (1,) * (indices.ndim - ax))
        return np.where(hot, np.asarray(on_value, dtype.np), np.asarray(off_value, dtype.np))


def _scalar(v: Any) -> Any:
    return v.item() if isinstance(v, Tensor) else v


def one_hot(indices: Any, depth: int, on_value: Any = 1, off_value: Any = 0, axis: int = -1) -> Tensor:
    """One-hot tensor: `on_value` where the new `axis` equals the index, `off_value` elsewhere.
    The dtype is `on_value`'s (a Tensor's dtype, float32 for a float, int64 for an int)."""
    from .indexing import _as_index

    ind = _as_index(indices)
    if isinstance(on_value, Tensor):
        dt = on_value.dtype
    else:
        dt = mstype.float32 if isinstance(on_value, float) or isinstance(off_value, float) else mstype.int64
    if any(isinstance(v, Tensor) and v._traced for v in (on_value, off_value)):  # values known at run time
        hot = OneHot(ind, depth=int(depth), on_value=True, off_value=False, axis=axis, dtype=mstype.bool_)
        on = on_value if isinstance(on_value, Tensor) else Tensor._wrap(np.asarray(on_value, dt.np))
        off = off_value if isinstance(off_value, Tensor) else Tensor._wrap(np.asarray(off_value, dt.np))
        return Select(hot, cast(reshape(on, ()), dt), cast(reshape(off, ()), dt))
    return OneHot(ind, depth=int(depth), on_value=_scalar(on_value), off_value=_scalar(off_value),
                  axis=axis, dtype=dt)


def _argsort(a: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    key = a.astype(np.float32) if a.dtype.kind == "V" else a.astype(np.int64) if a.dtype.kind in "bu" else a
    return np.argsort(-key if descending else key, axis=axis, kind="stable")


@primitive
class Sort:
    """Sorts along `axis`; returns (values, int32 indices). Ties keep their order (stable)."""

    multi_output = True

    def infer(a, axis=-1, descending=False):
        norm_axis("Sort", axis, a.ndim)
        return Aval(tuple(a.shape), a.dtype), Aval(tuple(a.shape), mstype.int32)

    def impl(a, axis=-1, descending=False):
        if a.ndim == 0:
            return a.copy(), np.zeros((), np.int32)
        idx = _argsort(a, axis, descending)
        return np.take_along_axis(a, idx, axis), idx.astype(np.int32)

    def vjp(gs, outs, a, axis=-1, descending=False):
        if a.ndim == 0:
            return (gs[0],)
        from .indexing import GatherDGrad

        return (GatherDGrad(gs[0], outs[1], dim=axis % a.ndim, shape=tuple(a.shape)),)


@primitive
class TopK:
    """The `k` largest (or smallest) entries along `axis`, sorted; returns (values, int32 indices)."""

    multi_output = True

    def infer(a, k, axis=-1, largest=True):
        ax = norm_axis("TopK", axis, a.ndim)
        n = a.shape[ax] if a.ndim else 1
        if not 0 <= k <= n:
            raise ShapeError("TopK", f"k in [0, {n}] (axis {axis} of shape {tuple(a.shape)})", f"k={k}")
        shape = list(a.shape)
        if shape:
            shape[ax] = k
        return Aval(tuple(shape), a.dtype), Aval(tuple(shape), mstype.int32)

    def impl(a, k, axis=-1, largest=True):
        if a.ndim == 0:
            return a.copy(), np.zeros((), np.int32)
        idx = np.take(_argsort(a, axis, largest), np.arange(k), axis=axis)
        return np.take_along_axis(a, idx, axis), idx.astype(np.int32)

    def vjp(gs, outs, a, k, axis=-1, largest=True):
        if a.ndim == 0:
            return (gs[0],)
        from .indexing import GatherDGrad

        return (GatherDGrad(gs[0], outs[1], dim=axis % a.ndim, shape=tuple(a.shape)),)


@primitive
class Unique:
    """The unique elements of the (flattened) input in order of first appearance (MindSpore's CPU
    kernel; NumPy would sort them), and for each input element the index of its value in them.
    Not differentiable (the output's size depends on the values)."""

    multi_output = True
    nondiff = True

    def infer(a):
        v = _value(a)
        n = -1 if v is None else int(np.unique(v).size)  # -1: a size known only from the values
        idx_dt = mstype.int32 if a.dtype is mstype.int32 else mstype.int64
        return Aval((n,), a.dtype), Aval(tuple(a.shape), idx_dt)

    def impl(a):
        y, first, inv = np.unique(a.ravel(), return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")  # sorted values -> first-appearance order
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return y[order], rank[inv.reshape(-1)].reshape(a.shape).astype(np.int32 if a.dtype == np.int32 else np.int64)


@primitive
class NonZero:
    """Coordinates of the nonzero elements, shape (count, ndim), int64, in row-major order."""

    nondiff = True

    def infer(a):
        v = _value(a)
        return Aval((-1 if v is None else int(np.count_nonzero(v)), a.ndim), mstype.int64)

    def impl(a):
        return np.argwhere(a).astype(np.int64)


@tensor_method("sort")
def sort(input_x: Tensor, axis: int = -1, descending: bool = False) -> tuple[Tensor, Tensor]:
    """(sorted values, int32 indices) along `axis`; the values are differentiable."""
    return Sort(input_x, axis=axis, descending=bool(descending))


@tensor_method("argsort")
def argsort(input: Tensor, axis: int = -1, descending: bool = False) -> Tensor:
    """Indices (int32) that sort `input` along `axis`."""
    return Sort(input, axis=axis, descending=bool(descending))[1]


@tensor_method("topk")
def topk(input: Tensor, k: int, dim: int | None = None, largest: bool = True,
         sorted: bool = True) -> tuple[Tensor, Tensor]:
    """(values, int32 indices) of the `k` largest (smallest if not `largest`) entries along `dim`
    (the last when None). Results always come sorted."""
    return TopK(input, k=int(k), axis=-1 if dim is None else dim, largest=bool(largest))


@tensor_method("unique")
def unique(input: Tensor) -> tuple[Tensor, Tensor]:
    """(unique values in order of first appearance, index of each input element in them)."""
    return Unique(input)


@tensor_method("nonzero")
def nonzero(input: Tensor, as_tuple: bool = False) -> Any:
    """Coordinates of nonzero elements: a (count, ndim) int64 tensor, or a tuple of 1-D tensors."""
    out = NonZero(input)
    if not as_tuple:
        return out
    from .indexing import getitem

    return tuple(getitem(out, (slice(None), d)) for d in range(input.ndim))


@tensor_method("argwhere")
def argwhere(input: Tensor) -> Tensor:
    """Same as `nonzero(input)`."""
    return NonZero(input)
