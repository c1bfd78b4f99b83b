"""Movement primitives — transpose, concat/split, stack/unstack, tile, constant pad — and the
functional wrappers built on them with MindSpore's names and signatures.

Pure re-shapings (squeeze, expand_dims/unsqueeze, flatten, ravel, view) are `Reshape` underneath;
slicings (narrow, slice, flip, strided_slice) are `GetItem`; gathers with a constant index (roll,
repeat_interleave, reflect/replicate/circular padding) are `Gather`. So Graph mode and ONNX see a
handful of ops, and each gradient rule is written once.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import DTypeError, ShapeError, located
from ..onnx.spec import OnnxMap
from ..tensor import Tensor, tensor_method
from ._rules import norm_axes, norm_axis, promote
from .array import broadcast_to, cast, reshape
from .indexing import Gather, GetItem, getitem
from .primitive import Aval, primitive
from .reduction import ReduceSum

_slice = builtins.slice


def _ints(op: str, seq: Any) -> tuple[int, ...]:
    """A tuple of Python ints from an int, a sequence or a Tensor."""
    if isinstance(seq, Tensor):
        seq = seq._data.tolist()
    if isinstance(seq, (int, np.integer)):
        return (int(seq),)
    try:
        return tuple(int(s) for s in seq)
    except TypeError:
        raise TypeError(f"{op}: expected an int or a sequence of ints, got {seq!r}") from None


# --- primitives -------------------------------------------------------------------------------------
@primitive
class Transpose:
    """Permutes dimensions: output dimension i is input dimension perm[i] (a view, no copy)."""
    onnx = OnnxMap("Transpose", to_onnx=lambda a, c: {"perm": [int(p) for p in a["perm"]]})

    def infer(a, perm):
        if sorted(perm) != list(range(a.ndim)):
            raise ShapeError("Transpose", f"a permutation of (0..{a.ndim - 1}) for input shape {tuple(a.shape)}",
                             f"perm={tuple(perm)}")
        return Aval(tuple(a.shape[p] for p in perm), a.dtype)

    def impl(a, perm):
        return a.transpose(perm)

    def vjp(g, out, a, perm):
        return (Transpose(g, perm=tuple(int(i) for i in np.argsort(perm))),)


def _concat_shape(op: str, xs: Sequence[Any], axis: int) -> tuple[int, ...]:
    if not xs:
        raise ShapeError(op, "at least one tensor", "none")
    first = xs[0]
    if first.ndim == 0:
        raise ShapeError(op, "tensors of rank >= 1", "a 0-d tensor")
    ax = norm_axis(op, axis, first.ndim)
    for i, x in enumerate(xs):
        if x.dtype is not first.dtype:
            raise DTypeError(op, f"tensors of one dtype (tensor 0 is {first.dtype})", f"tensor {i} of {x.dtype}")
        if x.ndim != first.ndim or any(x.shape[d] != first.shape[d] for d in range(x.ndim) if d != ax):
            raise ShapeError(op, f"shapes equal except on axis {axis} (tensor 0 has {tuple(first.shape)})",
                             f"tensor {i} of shape {tuple(x.shape)}")
    shape = list(first.shape)
    shape[ax] = builtins.sum(x.shape[ax] for x in xs)
    return tuple(shape)


@primitive
class Concat:
    """Joins tensors of one dtype along an existing axis."""
    onnx = OnnxMap("Concat", to_onnx=lambda a, c: {"axis": int(a.get("axis", 0))})

    def infer(*xs, axis=0):
        return Aval(_concat_shape("Concat", xs, axis), xs[0].dtype)

    def impl(*xs, axis=0):
        return np.concatenate(xs, axis=axis)

    def vjp(g, out, *xs, axis=0):
        ax = axis % g.ndim
        return Split(g, axis=ax, sizes=tuple(x.shape[ax] for x in xs))


@primitive
class Split:
    """Splits a tensor along `axis` into pieces of the given `sizes` (views)."""
    onnx = OnnxMap(export="split")

    multi_output = True

    def infer(a, axis, sizes):
        ax = norm_axis("Split", axis, a.ndim)
        if builtins.sum(sizes) != a.shape[ax] or any(s < 0 for s in sizes):
            raise ShapeError("Split", f"non-negative sizes summing to {a.shape[ax]} (axis {axis} of {tuple(a.shape)})",
                             f"sizes {tuple(sizes)}")
        return tuple(Aval(tuple(s if d == ax else n for d, n in enumerate(a.shape)), a.dtype) for s in sizes)

    def impl(a, axis, sizes):
        return tuple(np.split(a, np.cumsum(sizes)[:-1], axis=axis))

    def vjp(gs, outs, a, axis, sizes):
        return (Concat(*gs, axis=axis),)


@primitive
class Stack:
    """Stacks tensors of one shape along a new axis."""
    onnx = OnnxMap(export="stack")

    def infer(*xs, axis=0):
        if not xs:
            raise ShapeError("Stack", "at least one tensor", "none")
        first = xs[0]
        ax = norm_axis("Stack", axis, first.ndim + 1)
        for i, x in enumerate(xs):
            if x.dtype is not first.dtype:
                raise DTypeError("Stack", f"tensors of one dtype (tensor 0 is {first.dtype})",
                                 f"tensor {i} of {x.dtype}")
            if tuple(x.shape) != tuple(first.shape):
                raise ShapeError("Stack", f"tensors of one shape (tensor 0 has {tuple(first.shape)})",
                                 f"tensor {i} of shape {tuple(x.shape)}")
        shape = list(first.shape)
        shape.insert(ax, len(xs))
        return Aval(tuple(shape), first.dtype)

    def impl(*xs, axis=0):
        return np.stack(xs, axis=axis)

    def vjp(g, out, *xs, axis=0):
        return Unstack(g, axis=axis % g.ndim)


@primitive
class Unstack:
    """Splits a tensor along `axis` into its slices (that axis removed), as a tuple."""

    multi_output = True

    def infer(a, axis=0):
        ax = norm_axis("Unstack", axis, a.ndim)
        rest = tuple(n for d, n in enumerate(a.shape) if d != ax)
        return tuple(Aval(rest, a.dtype) for _ in range(a.shape[ax]))

    def impl(a, axis=0):
        lead = (_slice(None),) * (axis % a.ndim)
        return tuple(a[lead + (i,)] for i in range(a.shape[axis]))

    def vjp(gs, outs, a, axis=0):
        return (Stack(*gs, axis=axis),)


def _tile_shapes(shape: Sequence[int], multiples: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    n = max(len(shape), len(multiples))
    return (1,) * (n - len(shape)) + tuple(shape), (1,) * (n - len(multiples)) + tuple(multiples)


@primitive
class Tile:
    """Repeats the whole input `multiples[i]` times along dimension i (shorter side padded with 1s)."""
    onnx = OnnxMap(export="tile")

    def infer(a, multiples):
        if any(m < 0 for m in multiples):
            raise ShapeError("Tile", "non-negative multiples", f"{tuple(multiples)}")
        s, m = _tile_shapes(a.shape, multiples)
        return Aval(tuple(x * y for x, y in zip(s, m)), a.dtype)

    def impl(a, multiples):
        return np.tile(a, multiples)

    def vjp(g, out, a, multiples):
        s, m = _tile_shapes(a.shape, multiples)
        split = reshape(g, tuple(v for pair in zip(m, s) for v in pair))
        summed = ReduceSum(split, axis=tuple(range(0, 2 * len(s), 2)), keep_dims=False)
        return (reshape(summed, a.shape),)


@primitive
class Pad:
    """Pads each dimension with `paddings[i] = (before, after)` copies of the constant `value`."""
    onnx = OnnxMap(export="pad")

    def infer(a, paddings, value=0):
        if len(paddings) != a.ndim or any(len(p) != 2 or p[0] < 0 or p[1] < 0 for p in paddings):
            raise ShapeError("Pad", f"{a.ndim} non-negative (before, after) pairs for input shape {tuple(a.shape)}",
                             f"paddings {tuple(paddings)}")
        return Aval(tuple(n + lo + hi for n, (lo, hi) in zip(a.shape, paddings)), a.dtype)

    def impl(a, paddings, value=0):
        return np.pad(a, paddings, mode="constant", constant_values=np.asarray(value, a.dtype))

    def vjp(g, out, a, paddings, value=0):
        index = tuple(("slice", lo, lo + n, 1) for n, (lo, _) in zip(a.shape, paddings))
        return (GetItem(g, index=index),)


# --- transposes -------------------------------------------------------------------------------------
def transpose(input: Tensor, dims: Sequence[int]) -> Tensor:
    """Permutes the dimensions of `input` by `dims` (negative entries count from the end)."""
    perm = tuple(norm_axis("Transpose", p, input.ndim) for p in _ints("transpose", dims))
    if perm == tuple(range(input.ndim)):
        return input
    return Transpose(input, perm=perm)


@tensor_method("permute")
def permute(input: Tensor, *axis: Any) -> Tensor:
    """Permutes the dimensions (`ops.permute(x, (1, 0))`, or `x.permute(1, 0)` as a method)."""
    dims = axis[0] if len(axis) == 1 and not isinstance(axis[0], (int, np.integer)) else axis
    return transpose(input, dims)


@tensor_method("transpose")
def _tensor_transpose(self: Tensor, *axes: Any) -> Tensor:
    """`x.transpose(*axes)`: no axes reverses them; also accepts one tuple."""
    if not axes or (len(axes) == 1 and axes[0] is None):
        return transpose(self, tuple(range(self.ndim - 1, -1, -1)))
    return permute(self, *axes)


@tensor_method("swapaxes")
def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    """Exchanges two dimensions."""
    a, b = norm_axis("swapaxes", axis0, input.ndim), norm_axis("swapaxes", axis1, input.ndim)
    perm = list(range(input.ndim))
    perm[a], perm[b] = b, a
    return transpose(input, perm)


@tensor_method("swapdims")
def swapdims(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Same as `swapaxes`."""
    return swapaxes(input, dim0, dim1)


@tensor_method("moveaxis")
def moveaxis(x: Tensor, source: Any, destination: Any) -> Tensor:
    """Moves dimensions `source` to positions `destination`, keeping the others in order."""
    src = [norm_axis("moveaxis", s, x.ndim) for s in _ints("moveaxis", source)]
    dst = [norm_axis("moveaxis", d, x.ndim) for d in _ints("moveaxis", destination)]
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination need the same number of axes")
    order = [d for d in range(x.ndim) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(x, order)


@tensor_method("movedim")
def movedim(x: Tensor, source: Any, destination: Any) -> Tensor:
    """Same as `moveaxis`."""
    return moveaxis(x, source, destination)


# --- re-shapings (all Reshape) ----------------------------------------------------------------------
@tensor_method("squeeze")
def squeeze(input: Tensor, axis: Any = None) -> Tensor:
    """Removes dimensions of size 1 (all of them, or those in `axis`, which must have size 1)."""
    if axis is None or axis == ():
        return reshape(input, tuple(n for n in input.shape if n != 1))
    axes = norm_axes("Squeeze", axis, input.ndim)
    for a in axes:
        if input.shape[a] != 1:
            raise located(ShapeError("Squeeze", f"size 1 on axis {a}", f"shape {input.shape}"))
    return reshape(input, tuple(n for d, n in enumerate(input.shape) if d not in axes))


@tensor_method("expand_dims")
def expand_dims(input_x: Tensor, axis: int) -> Tensor:
    """Inserts a dimension of size 1 at `axis` (in [-ndim-1, ndim])."""
    a = norm_axis("ExpandDims", axis, input_x.ndim + 1)
    shape = list(input_x.shape)
    shape.insert(a, 1)
    return reshape(input_x, tuple(shape))


@tensor_method("unsqueeze")
def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Same as `expand_dims`."""
    return expand_dims(input, dim)


def flatten(input: Tensor, order: str = "C", *, start_dim: int = 1, end_dim: int = -1) -> Tensor:
    """Merges dimensions `start_dim`..`end_dim` into one; 'F' order flattens column-major.
    A 0-d input gives shape (1,)."""
    if order not in ("C", "F"):
        raise ValueError(f"flatten: order must be 'C' or 'F', got {order!r}")
    if input.ndim == 0:
        return reshape(input, (1,))
    if order == "F":
        input = transpose(input, tuple(range(input.ndim - 1, -1, -1)))
    s, e = norm_axis("Flatten", start_dim, input.ndim), norm_axis("Flatten", end_dim, input.ndim)
    if s > e:
        raise ValueError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim}")
    shape = input.shape[:s] + (math.prod(input.shape[s:e + 1]),) + input.shape[e + 1:]
    return reshape(input, shape)


@tensor_method("flatten")
def _tensor_flatten(self: Tensor, order: str = "C", *, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """`x.flatten()`: as `ops.flatten` but from dimension 0 by default."""
    return flatten(self, order, start_dim=start_dim, end_dim=end_dim)


@tensor_method("ravel")
def ravel(input: Tensor) -> Tensor:
    """The elements as a 1-D tensor."""
    return reshape(input, (-1,))


@tensor_method("view")
def _view(self: Tensor, *shape: Any) -> Tensor:
    """`x.view(*shape)`: the same elements in a new shape (one entry may be -1)."""
    return reshape(self, *shape)


@tensor_method("view_as")
def _view_as(self: Tensor, other: Tensor) -> Tensor:
    """`x.view_as(other)`: reshaped to `other`'s shape."""
    return reshape(self, other.shape)


@tensor_method("resize")
def _resize(self: Tensor, *new_shape: Any) -> Tensor:
    """NumPy-style resize: a tensor of `new_shape` filled from the flattened values, repeated
    (or cut) as needed."""
    shape = _ints("resize", new_shape[0] if len(new_shape) == 1 and not isinstance(new_shape[0], int) else new_shape)
    n, size = math.prod(shape), self.size
    flat = ravel(self)
    if n == size:
        return reshape(flat, shape)
    if size == 0:
        return Tensor._wrap(np.zeros(shape, self.dtype.np))
    return reshape(Gather(flat, Tensor._wrap(np.arange(n) % size), axis=0), shape)


# --- joining and splitting -------------------------------------------------------------------------
def _same_dtype(tensors: Sequence[Any]) -> list[Tensor]:
    ts = [t if isinstance(t, Tensor) else Tensor(t) for t in tensors]
    if len({t.dtype for t in ts}) > 1:
        dt = ts[0].dtype
        for t in ts[1:]:
            dt = promote(dt, t.dtype)
        ts = [cast(t, dt) for t in ts]
    return ts


def concat(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """Joins tensors along `axis` (mixed dtypes are promoted)."""
    ts = _same_dtype(tensors)
    if len(ts) == 1:
        return ts[0]
    return Concat(*ts, axis=axis)


def cat(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """Same as `concat`."""
    return concat(tensors, axis)


def stack(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """Stacks tensors of one shape along a new `axis`."""
    return Stack(*_same_dtype(tensors), axis=axis)


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """Joins horizontally: along axis 0 for 1-D tensors, else axis 1."""
    ts = _same_dtype(tensors)
    ts = [reshape(t, (1,)) if t.ndim == 0 else t for t in ts]
    return concat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(inputs: Sequence[Tensor]) -> Tensor:
    """Joins vertically (along axis 0), 1-D tensors becoming rows."""
    ts = [reshape(t, (1, -1)) if t.ndim < 2 else t for t in _same_dtype(inputs)]
    return concat(ts, 0)


@tensor_method("unstack")
def unstack(input_x: Tensor, axis: int = 0) -> tuple[Tensor, ...]:
    """The slices of `input_x` along `axis`, as a tuple."""
    return Unstack(input_x, axis=norm_axis("Unstack", axis, input_x.ndim))


@tensor_method("unbind")
def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """Same as `unstack`."""
    return unstack(input, dim)


def _split_sizes(op: str, n: int, split_size_or_sections: Any) -> tuple[int, ...]:
    if isinstance(split_size_or_sections, (int, np.integer)):
        size = int(split_size_or_sections)
        if size <= 0:
            raise ValueError(f"{op}: split size must be positive, got {size}")
        return (size,) * (n // size) + ((n % size,) if n % size else ())
    sizes = _ints(op, split_size_or_sections)
    if builtins.sum(sizes) != n:
        raise located(ShapeError(op, f"sections summing to the axis size {n}", f"{sizes}"))
    return sizes


@tensor_method("split")
def split(tensor: Tensor, split_size_or_sections: Any, axis: int = 0) -> tuple[Tensor, ...]:
    """Splits into pieces of `split_size_or_sections` along `axis` (an int: equal pieces, the last
    one smaller; a list: those sizes)."""
    ax = norm_axis("Split", axis, tensor.ndim)
    return Split(tensor, axis=ax, sizes=_split_sizes("split", tensor.shape[ax], split_size_or_sections))


@tensor_method("tensor_split")
def tensor_split(input: Tensor, indices_or_sections: Any, axis: int = 0) -> tuple[Tensor, ...]:
    """NumPy's array_split: an int gives that many near-equal pieces, a list gives split points."""
    ax = norm_axis("Split", axis, input.ndim)
    n = input.shape[ax]
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError(f"tensor_split: sections must be positive, got {k}")
        sizes = tuple(n // k + (1 if i < n % k else 0) for i in range(k))
    else:
        pts = [min(max(p if p >= 0 else p + n, 0), n) for p in _ints("tensor_split", indices_or_sections)]
        edges = [0] + pts + [n]
        sizes = tuple(max(b - a, 0) for a, b in zip(edges[:-1], edges[1:]))
    return Split(input, axis=ax, sizes=sizes)


@tensor_method("chunk")
def chunk(input: Tensor, chunks: int, axis: int = 0) -> tuple[Tensor, ...]:
    """Splits into `chunks` pieces of ceil(n / chunks) along `axis` (fewer if n runs out)."""
    if chunks <= 0:
        raise ValueError(f"chunk: chunks must be positive, got {chunks}")
    ax = norm_axis("Split", axis, input.ndim)
    n = input.shape[ax]
    return split(input, max(-(-n // chunks), 1), ax) if n else (input,)


# --- repetition ------------------------------------------------------------------------------------
@tensor_method("tile")
def tile(input: Tensor, dims: Sequence[int]) -> Tensor:
    """Repeats the whole input `dims[i]` times along dimension i."""
    m = _ints("tile", dims)
    if m == (1,) * len(m) and len(m) <= input.ndim:
        return input
    return Tile(input, multiples=m)


def repeat_interleave(input: Tensor, repeats: Any, axis: int | None = None) -> Tensor:
    """Repeats each element `repeats` times along `axis` (the flattened input when None)."""
    x = ravel(input) if axis is None else input
    ax = 0 if axis is None else norm_axis("repeat_interleave", axis, input.ndim)
    reps = repeats._data if isinstance(repeats, Tensor) else np.asarray(repeats)
    idx = np.repeat(np.arange(x.shape[ax]), reps)
    return Gather(x, Tensor._wrap(idx), axis=ax)


@tensor_method("repeat_interleave")
def _tensor_repeat_interleave(self: Tensor, repeats: Any, dim: int | None = None) -> Tensor:
    return repeat_interleave(self, repeats, dim)


@tensor_method("repeat")
def _tensor_repeat(self: Tensor, repeats: Any, axis: int | None = None) -> Tensor:
    """`x.repeat(repeats, axis=None)`: NumPy's repeat (each element `repeats` times)."""
    return repeat_interleave(self, repeats, axis)


@tensor_method("broadcast_to")
def _tensor_broadcast_to(self: Tensor, shape: Sequence[int]) -> Tensor:
    return broadcast_to(self, shape)


@tensor_method("expand_as")
def _expand_as(self: Tensor, other: Tensor) -> Tensor:
    """Broadcasts to `other`'s shape."""
    return broadcast_to(self, other.shape)


@tensor_method("expand")
def _expand(self: Tensor, *size: Any) -> Tensor:
    """Broadcasts to `size` (-1 keeps a dimension)."""
    return broadcast_to(self, _ints("expand", size[0] if len(size) == 1 and not isinstance(size[0], int) else size))


def meshgrid(*inputs: Tensor, indexing: str = "xy") -> tuple[Tensor, ...]:
    """Coordinate grids from 1-D tensors ('xy': Cartesian, 'ij': matrix indexing)."""
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    n = len(inputs)
    sizes = [t.size for t in inputs]
    if indexing == "xy" and n >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, t in enumerate(inputs):
        pos = i
        if indexing == "xy" and n >= 2 and i < 2:
            pos = 1 - i
        shape = [1] * n
        shape[pos] = t.size
        out.append(broadcast_to(reshape(t, tuple(shape)), tuple(sizes)))
    return tuple(out)


# --- padding ------------------------------------------------------------------------------------------
_PAD_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def pad(input_x: Tensor, padding: Any, mode: str = "constant", value: Any = None) -> Tensor:
    """Pads the last len(padding)//2 dimensions: `padding` is (left, right) for the last one, then
    (top, bottom) for the one before, and so on. Modes: 'constant' (with `value`, default 0;
    negative padding crops), 'reflect', 'replicate', 'circular'."""
    pads = _ints("pad", padding)
    if len(pads) % 2 or len(pads) // 2 > input_x.ndim:
        raise located(ShapeError("Pad", f"an even number of paddings, at most {2 * input_x.ndim}",
                                 f"{len(pads)} paddings for input shape {input_x.shape}"))
    pairs = [(0, 0)] * input_x.ndim
    for i in range(len(pads) // 2):
        pairs[input_x.ndim - 1 - i] = (pads[2 * i], pads[2 * i + 1])
    if mode == "constant":
        crop = tuple(("slice", max(-lo, 0), n - max(-hi, 0), 1) for n, (lo, hi) in zip(input_x.shape, pairs))
        x = input_x
        if any(lo < 0 or hi < 0 for lo, hi in pairs):
            x = GetItem(input_x, index=crop)
        grow = tuple((max(lo, 0), max(hi, 0)) for lo, hi in pairs)
        if not any(lo or hi for lo, hi in grow):
            return x
        v = 0 if value is None else (value.item() if isinstance(value, Tensor) else value)
        return Pad(x, paddings=grow, value=v)
    if value is not None:
        raise ValueError(f"pad: value is only used with mode='constant', got mode={mode!r}")
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: mode must be 'constant', 'reflect', 'replicate' or 'circular', got {mode!r}")
    x = input_x
    for d, (lo, hi) in enumerate(pairs):
        if lo or hi:
            n = x.shape[d]
            if mode == "reflect" and (lo >= n or hi >= n):
                raise located(ShapeError("Pad", f"reflect padding smaller than the dimension ({n})",
                                         f"({lo}, {hi}) on axis {d}"))
            idx = np.pad(np.arange(n), (lo, hi), mode=_PAD_MODES[mode])
            x = Gather(x, Tensor._wrap(idx), axis=d)
    return x


# --- slicing (all GetItem) ----------------------------------------------------------------------
@tensor_method("narrow")
def narrow(input: Tensor, axis: int, start: int, length: int) -> Tensor:
    """`length` elements of `input` along `axis`, from `start`."""
    ax = norm_axis("narrow", axis, input.ndim)
    n = input.shape[ax]
    st = start + n if start < 0 else start
    if not 0 <= st <= n or length < 0 or st + length > n:
        raise located(ShapeError("narrow", f"start + length within the axis size {n}",
                                 f"start={start}, length={length} on axis {axis}"))
    return getitem(input, (_slice(None),) * ax + (_slice(st, st + length),))


def slice(input_x: Tensor, begin: Sequence[int], size: Sequence[int]) -> Tensor:
    """The block of `input_x` starting at `begin` with extent `size` (-1: to the end)."""
    b, s = _ints("slice", begin), _ints("slice", size)
    if len(b) != input_x.ndim or len(s) != input_x.ndim:
        raise located(ShapeError("Slice", f"begin and size of length {input_x.ndim}", f"begin={b}, size={s}"))
    idx = []
    for d, (n, st, ln) in enumerate(zip(input_x.shape, b, s)):
        stop = n if ln == -1 else st + ln
        if not 0 <= st <= n or stop > n or stop < st:
            raise located(ShapeError("Slice", f"begin + size within shape {input_x.shape}",
                                     f"begin={b}, size={s} (axis {d})"))
        idx.append(_slice(st, stop))
    return getitem(input_x, tuple(idx))


def strided_slice(input_x: Tensor, begin: Sequence[int], end: Sequence[int], strides: Sequence[int],
                  begin_mask: int = 0, end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                  shrink_axis_mask: int = 0) -> Tensor:
    """Python-slice semantics per leading dimension: x[begin[i]:end[i]:strides[i], ...]; bit i of
    `begin_mask`/`end_mask` ignores begin/end, of `shrink_axis_mask` takes index begin[i]."""
    if ellipsis_mask or new_axis_mask:
        raise ValueError("strided_slice: ellipsis_mask and new_axis_mask are not supported; "
                                 "index the tensor with x[...] instead")
    b, e, s = _ints("strided_slice", begin), _ints("strided_slice", end), _ints("strided_slice", strides)
    idx: list[Any] = []
    for i, (bi, ei, si) in enumerate(zip(b, e, s)):
        if shrink_axis_mask >> i & 1:
            idx.append(bi)
            continue
        idx.append(_slice(None if begin_mask >> i & 1 else bi, None if end_mask >> i & 1 else ei, si))
    return getitem(input_x, tuple(idx))


@tensor_method("flip")
def flip(input: Tensor, dims: Any) -> Tensor:
    """Reverses the order of elements along `dims`."""
    axes = set(norm_axes("flip", dims, input.ndim))
    return getitem(input, tuple(_slice(None, None, -1) if d in axes else _slice(None) for d in range(input.ndim)))


@tensor_method("fliplr")
def fliplr(input: Tensor) -> Tensor:
    """Reverses the columns (dimension 1)."""
    return flip(input, (1,))


@tensor_method("flipud")
def flipud(input: Tensor) -> Tensor:
    """Reverses the rows (dimension 0)."""
    return flip(input, (0,))


@tensor_method("roll")
def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """Rotates elements by `shifts` along `dims` (the flattened tensor when None)."""
    sh = _ints("roll", shifts)
    if dims is None:
        if len(sh) != 1:
            raise ValueError("roll: give dims when shifts has several entries")
        flat = ravel(input)
        idx = (np.arange(flat.shape[0]) - sh[0]) % max(flat.shape[0], 1)
        return reshape(Gather(flat, Tensor._wrap(idx), axis=0), input.shape)
    ds = _ints("roll", dims)
    if len(ds) != len(sh):
        raise ValueError(f"roll: {len(sh)} shifts for {len(ds)} dims")
    x = input
    for s, d in zip(sh, ds):
        ax = norm_axis("roll", d, input.ndim)
        n = input.shape[ax]
        if n and s % n:
            x = Gather(x, Tensor._wrap((np.arange(n) - s) % n), axis=ax)
    return x


# --- shape queries ----------------------------------------------------------------------------------
def shape(input_x: Tensor) -> tuple[int, ...]:
    """The shape, as a tuple of ints."""
    return tuple(input_x.shape)


def rank(input_x: Tensor) -> int:
    """The number of dimensions."""
    return input_x.ndim


def size(input_x: Tensor) -> int:
    """The number of elements."""
    return input_x.size


def numel(input: Tensor) -> int:
    """The number of elements."""
    return input.size
