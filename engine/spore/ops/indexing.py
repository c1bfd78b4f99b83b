"""Indexing primitives: `x[index]` and `x[index] = v`, gathers and scatters.

`x[index]` is one primitive, `GetItem`, whose index is a static attribute: the wrapper normalises
any Python/NumPy/Tensor index into a tuple of plain entries (see `normalize_index`), so Graph mode,
the language server and gradients all read the same description. Boolean masks become integer
arrays (their `nonzero`), so every advanced index is an integer array and the gradient is one
scatter-add (`np.add.at`, so repeated indices accumulate).
"""

from __future__ import annotations

import builtins
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..autodiff import tape
from ..errors import DTypeError, ShapeError, SporeError, ValueDependentShapeError, located
from ..onnx.spec import OnnxMap
from ..tensor import Tensor, tensor_method
from ._rules import as_tensor, broadcast_shapes, norm_axis
from .array import _require_int, cast, reshape, sum_to
from .primitive import Aval, primitive

_slice = builtins.slice


class IndexOutOfRangeError(ShapeError, IndexError):
    """An index outside a dimension; an IndexError too, as Python and MindSpore expect."""


def _oob(op: str, what: str, axis: int, size: int) -> IndexOutOfRangeError:
    return IndexOutOfRangeError(op, f"indices in [{-size}, {size}) for axis {axis} of size {size}", what)


# --- static index attributes ---------------------------------------------------------------------
class IndexArray:
    """An integer index array as a static op attribute: hashable, compared by shape and contents."""

    __slots__ = ("array", "_hash")

    def __init__(self, array: np.ndarray) -> None:
        arr = np.array(array, dtype=np.int64)
        arr.flags.writeable = False
        self.array = arr
        self._hash: int | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IndexArray) and self.array.shape == other.array.shape \
            and bool(np.array_equal(self.array, other.array))

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self.array.shape, self.array.tobytes()))
        return self._hash

    def __repr__(self) -> str:
        return f"IndexArray({np.array2string(self.array, separator=', ', threshold=8, edgeitems=2)})"


_NONE = ("none",)


def _zeros(shape: Sequence[int], like: Tensor) -> Tensor:
    """A constant zero tensor of `shape` in `like`'s dtype (used inside gradient rules)."""
    return Tensor._wrap(np.zeros(tuple(shape), like.dtype.np))


def normalize_index(op: str, shape: Sequence[int], index: Any, traced: list | None = None) -> tuple:
    """Turn a Python index into static entries for a tensor of `shape`.

    Entries: ``("int", i)`` (i >= 0), ``("slice", start, stop, step)`` (Python slice fields),
    ``("none",)`` (a new axis), ``("array", IndexArray)`` (non-negative integer array) and
    ``("tensor", k, shape)`` (the k-th integer tensor whose values exist only when a compiled graph
    runs; it is appended to `traced`, and its values are range-checked by the kernel). An
    Ellipsis is expanded, a boolean mask becomes its nonzero integer arrays, trailing full slices
    are dropped. Out-of-range integers raise `IndexOutOfRangeError`.
    """
    if type(index) is int and shape and -shape[0] <= index < shape[0]:  # fast path: x[i]
        return (("int", index % shape[0]),)
    items = index if isinstance(index, tuple) else (index,)
    conv = []
    consumed = 0
    n_ell = 0
    for it in items:
        if isinstance(it, Tensor) and it._traced:
            if traced is None or not (it.dtype.is_int or it.dtype.name == "uint8"):
                _refuse_traced_index(op, it)
            conv.append(it)
            consumed += 1
            continue
        if isinstance(it, Tensor):
            it = it._data
        elif isinstance(it, list):
            it = np.asarray([x._data if isinstance(x, Tensor) else x for x in it])
        if isinstance(it, (bool, np.bool_)) or (isinstance(it, np.ndarray) and it.ndim == 0 and it.dtype == bool):
            if not bool(it):
                raise TypeError(f"{op}: a False scalar index selects nothing; Spore supports True (a new axis) only")
            it = None
        elif isinstance(it, np.ndarray) and it.ndim == 0 and it.dtype.kind in "iu":
            it = int(it)
        conv.append(it)
        if it is Ellipsis:
            n_ell += 1
        elif it is not None:
            consumed += it.ndim if isinstance(it, np.ndarray) and it.dtype == bool else 1
    ndim = len(shape)
    if n_ell > 1:
        raise IndexError(f"{op}: an index can only have a single ellipsis ('...')")
    if consumed > ndim:
        raise located(IndexOutOfRangeError(op, f"at most {ndim} indices for a {ndim}-d tensor of shape {tuple(shape)}",
                                           f"{consumed} indices"))
    out: list[tuple] = []
    dim = 0
    for it in conv:
        if isinstance(it, Tensor):
            out.append(("tensor", len(traced), tuple(it.shape)))
            traced.append(it)
            dim += 1
        elif it is None:
            out.append(_NONE)
        elif it is Ellipsis:
            for _ in range(ndim - consumed):
                out.append(("slice", 0, shape[dim], 1))
                dim += 1
        elif isinstance(it, _slice):
            r = range(*it.indices(shape[dim]))
            out.append(("slice", r.start, r.stop if r.stop >= 0 else None, r.step))
            dim += 1
        elif isinstance(it, (int, np.integer)):
            i, n = int(it), shape[dim]
            if not -n <= i < n:
                raise located(_oob(op, f"index {i}", dim, n))
            out.append(("int", i % n))
            dim += 1
        elif isinstance(it, np.ndarray) and it.dtype == bool:
            if it.shape != tuple(shape[dim:dim + it.ndim]):
                raise located(IndexOutOfRangeError(
                    op, f"a boolean mask of shape {tuple(shape[dim:dim + it.ndim])} at axis {dim}",
                    f"a mask of shape {it.shape} (tensor shape {tuple(shape)})"))
            out.extend(("array", IndexArray(nz)) for nz in np.nonzero(it))
            dim += it.ndim
        elif isinstance(it, np.ndarray) and it.dtype.kind in "iu":
            n = shape[dim]
            if it.size and (int(it.min()) < -n or int(it.max()) >= n):
                bad = it[(it < -n) | (it >= n)].ravel()[0]
                raise located(_oob(op, f"index {int(bad)}", dim, n))
            out.append(("array", IndexArray(np.where(it < 0, it + n, it) if it.size and it.min() < 0 else it)))
            dim += 1
        else:
            what = f"an array of {it.dtype}" if isinstance(it, np.ndarray) else type(it).__name__
            raise TypeError(f"{op}: only integers, slices, None, ..., and integer or boolean arrays/tensors are "
                            f"valid indices, got {what}")
    ndims_used = dim
    while out and out[-1][0] == "slice" and out[-1][1:] == (0, shape[ndims_used - 1], 1):
        out.pop()
        ndims_used -= 1
    return tuple(out)


def _refuse_traced_index(op: str, it: Tensor) -> None:
    if it.dtype.name == "bool":
        from ..compiler.support import RULES

        raise ValueDependentShapeError(
            f"{op}: indexing with a boolean mask tensor gives a result whose size depends on the mask's values",
            hint=RULES["value_dependent_shape"].fix)
    raise SporeError(f"{op}: an index tensor must have an integer dtype, got {it.dtype}")


def np_index(index: tuple, arrays: Sequence[np.ndarray] = (), shape: Sequence[int] = ()) -> tuple:
    """The NumPy index for normalised entries (`arrays` fill the "tensor" entries; their values are
    range-checked against `shape`, the indexed tensor's shape)."""
    res = []
    dim = 0
    for e in index:
        k = e[0]
        if k == "int":
            res.append(e[1])
        elif k == "slice":
            res.append(_slice(e[1], e[2], e[3]))
        elif k == "none":
            res.append(None)
            continue
        elif k == "tensor":
            arr = arrays[e[1]]
            _check_values("GetItem", arr, shape[dim], dim)
            res.append(arr)
        else:
            res.append(e[1].array)
        dim += 1
    return tuple(res)


def index_shape(op: str, shape: Sequence[int], index: tuple) -> tuple[int, ...]:
    """The shape `x[index]` has for `x` of `shape`, by NumPy's rules (advanced dims placed in line
    when the integer/array entries are adjacent, first otherwise)."""
    has_adv = any(e[0] in ("array", "tensor") for e in index)
    out: list[int] = []
    adv_shapes: list[tuple[int, ...]] = []
    adv_at: list[int] = []
    insert_at = 0
    dim = 0
    for pos, e in enumerate(index):
        k = e[0]
        if k == "none":
            out.append(1)
            continue
        if dim >= len(shape):
            raise IndexOutOfRangeError(op, f"at most {len(shape)} indices for shape {tuple(shape)}",
                                       f"{sum(1 for x in index if x[0] != 'none')} indices")
        n = shape[dim]
        if k == "slice":
            out.append(len(range(*_slice(e[1], e[2], e[3]).indices(n))))
        elif k == "int":
            if not 0 <= e[1] < n:
                raise _oob(op, f"index {e[1]}", dim, n)
            if has_adv:
                if not adv_at:
                    insert_at = len(out)
                adv_at.append(pos)
                adv_shapes.append(())
        else:
            if not adv_at:
                insert_at = len(out)
            adv_at.append(pos)
            adv_shapes.append(e[2] if k == "tensor" else e[1].array.shape)
        dim += 1
    out.extend(shape[dim:])
    if not has_adv:
        return tuple(out)
    try:
        bshape = tuple(np.broadcast_shapes(*adv_shapes))
    except ValueError:
        raise ShapeError(op, "index arrays that broadcast together", f"shapes {adv_shapes}") from None
    if adv_at == list(range(adv_at[0], adv_at[-1] + 1)):
        return tuple(out[:insert_at]) + bshape + tuple(out[insert_at:])
    return bshape + tuple(out)


def _has_array(index: tuple) -> bool:
    return any(e[0] in ("array", "tensor") for e in index)


# --- x[index] ------------------------------------------------------------------------------------
def _check_index_inputs(op: str, index: tuple, idx: Sequence[Any]) -> None:
    """The tensor inputs of an index must be integer tensors of the shapes the index records."""
    for e in index:
        if e[0] == "tensor":
            t = idx[e[1]]
            if tuple(t.shape) != tuple(e[2]) or not t.dtype.is_int:
                raise ShapeError(op, f"index tensor {e[1]} of shape {e[2]} and an integer dtype",
                                 f"shape {tuple(t.shape)}, dtype {t.dtype}")


@primitive
class GetItem:
    """Indexes a tensor with a static index (ints, slices with steps, None, integer arrays), as
    `x[index]`; basic indices give views. Integer index tensors whose values are known only when a
    compiled graph runs are extra inputs. The gradient scatters back, adding over repeated indices."""
    onnx = OnnxMap(export="getitem")

    def infer(a, *idx, index):
        _check_index_inputs("GetItem", index, idx)
        return Aval(index_shape("GetItem", a.shape, index), a.dtype)

    def impl(a, *idx, index):
        return np.asarray(a[np_index(index, idx, a.shape)])

    def vjp(g, out, a, *idx, index):
        return (GetItemGrad(g, *idx, shape=tuple(a.shape), index=index),) + (None,) * len(idx)


@primitive
class GetItemGrad:
    """Adjoint of GetItem: a zero tensor of `shape` with `g` added at `index`."""

    def infer(g, *idx, shape, index):
        _check_index_inputs("GetItemGrad", index, idx)
        want = index_shape("GetItemGrad", shape, index)
        if tuple(g.shape) != want:
            raise ShapeError("GetItemGrad", f"a cotangent of shape {want}", f"{tuple(g.shape)}")
        return Aval(tuple(shape), g.dtype)

    def impl(g, *idx, shape, index):
        out = np.zeros(shape, g.dtype)
        if _has_array(index):
            np.add.at(out, np_index(index, idx, shape), g)
        else:
            out[np_index(index)] = g
        return out

    def vjp(gg, out, g, *idx, shape, index):
        return (GetItem(gg, *idx, index=index),) + (None,) * len(idx)


@primitive
class SetItem:
    """`x` with `x[index]` replaced by `value` (broadcast), as a new tensor: the functional form of
    in-place `x[index] = value`. Gradients: `x` gets g with the region zeroed, `value` gets g[index]."""

    def infer(x, value, *idx, index):
        _check_index_inputs("SetItem", index, idx)
        region = index_shape("SetItem", x.shape, index)
        if value.dtype is not x.dtype:
            raise DTypeError("SetItem", f"a value of the tensor's dtype {x.dtype}", f"{value.dtype}")
        try:
            fits = broadcast_shapes("SetItem", value.shape, region) == region
        except ShapeError:
            fits = False
        if not fits:
            raise ShapeError("SetItem", f"a value that broadcasts to the indexed shape {region}",
                             f"a value of shape {tuple(value.shape)}")
        return Aval(tuple(x.shape), x.dtype)

    def impl(x, value, *idx, index):
        out = x.copy()
        out[np_index(index, idx, x.shape)] = value
        return out

    def vjp(g, out, x, value, *idx, index):
        gx = SetItem(g, Tensor._wrap(np.zeros((), g.dtype.np)), *idx, index=index)
        return (gx, sum_to(GetItem(g, *idx, index=index), value.shape)) + (None,) * len(idx)


def getitem(tensor: Tensor, index: Any) -> Tensor:
    """`tensor[index]`: ints (negative too), slices with any step, None, Ellipsis, boolean masks and
    integer arrays/lists/Tensors, mixed as NumPy allows. Differentiable."""
    traced: list[Tensor] = []
    idx = normalize_index("GetItem", tensor.shape, index, traced)
    return GetItem(tensor, *traced, index=idx)


def _as_value(value: Any, like: Tensor) -> Tensor:
    if isinstance(value, Tensor):
        return value if value.dtype is like.dtype else cast(value, like.dtype)
    try:
        return Tensor._wrap(np.asarray(value, dtype=like.dtype.np))
    except (TypeError, ValueError):
        raise TypeError(f"cannot assign a {type(value).__name__} into a {like.dtype} tensor") from None


def setitem_(tensor: Tensor, index: Any, value: Any) -> Tensor:
    """In-place `tensor[index] = value`, recorded as a functional `SetItem` so gradients stay right.

    The recorded node takes a snapshot of the old value as input; `tensor` then takes the new value
    and becomes the node's output (the node that made the old value is re-pointed at the snapshot).
    A gradient taken with respect to `tensor` itself is with respect to its updated value. The
    write replaces `tensor`'s storage, so tensors that shared memory with it (results of indexing
    or reshaping it) keep the old values.
    """
    if tensor._traced or _has_traced(index):
        return _traced_setitem(tensor, index, value)
    idx = normalize_index("SetItem", tensor.shape, index)
    val = _as_value(value, tensor)
    val = _fit_value(val, index_shape("SetItem", tensor.shape, idx))
    snap = Tensor._wrap(tensor._data)
    old = tensor._node
    snap._node, snap._out_index = old, tensor._out_index
    if val is tensor:
        val = snap
    if tape.STATE.depth and id(tensor) not in tape.STATE.leaves:
        tape.keep_snapshot(tensor, snap)  # earlier reads (the value's among them) differentiate the old value
    new = SetItem(snap, val, index=idx)
    if old is not None:
        refs = list(old.out_refs)
        refs[tensor._out_index] = weakref.ref(snap)
        old.out_refs = tuple(refs)
    tensor._data, tensor._node, tensor._out_index = new._data, new._node, 0
    tensor._version += 1
    if new._node is not None:
        new._node.out_refs = (weakref.ref(tensor),)
    return tensor


def _fit_value(val: Tensor, region: tuple[int, ...]) -> Tensor:
    """Drop a value's leading size-1 dims beyond the indexed region's rank (NumPy allows them)."""
    if val.ndim > len(region):
        if any(d != 1 for d in val.shape[:val.ndim - len(region)]):
            raise located(ShapeError("SetItem", f"a value that broadcasts to the indexed shape {region}",
                                     f"a value of shape {val.shape}"))
        val = reshape(val, val.shape[val.ndim - len(region):])
    return val


def _has_traced(index: Any) -> bool:
    return any(isinstance(it, Tensor) and it._traced for it in (index if isinstance(index, tuple) else (index,)))


def _traced_setitem(tensor: Tensor, index: Any, value: Any) -> Tensor:
    """`tensor[index] = value` while compiling: the functional SetItem (or, for a boolean mask, a
    `where`) becomes the tensor's new value, so every alias of it sees the write, as in PyNative."""
    from .array import where

    if not tensor._traced:
        raise located(_traced_write_error(tensor))
    val = _as_value(value, tensor)
    items = index if isinstance(index, tuple) else (index,)
    mask = items[0] if len(items) == 1 and isinstance(items[0], Tensor) and items[0].dtype.name == "bool" else None
    if mask is not None and mask._traced:
        lead = tuple(tensor.shape[:mask.ndim])
        if tuple(mask.shape) != lead:
            raise located(IndexOutOfRangeError("SetItem", f"a boolean mask of shape {lead}",
                                               f"a mask of shape {tuple(mask.shape)} (tensor shape {tensor.shape})"))
        rest = tuple(tensor.shape[mask.ndim:])
        if val.ndim == len(rest) + 1 and val.shape[0] == 1:
            val = reshape(val, val.shape[1:])
        try:  # one value (or one row) for every selected position: the count need not be known
            fits = val.ndim <= len(rest) and broadcast_shapes("SetItem", val.shape, rest) == rest
        except ShapeError:
            fits = False
        if not fits:
            _refuse_traced_index("SetItem", mask)  # the value's length must match the mask's count
        m = reshape(mask, mask.shape + (1,) * (tensor.ndim - mask.ndim))
        new = where(m, val, tensor)
    else:
        traced: list[Tensor] = []
        idx = normalize_index("SetItem", tensor.shape, index, traced)
        new = SetItem(tensor, _fit_value(val, index_shape("SetItem", tensor.shape, idx)), *traced, index=idx)
    return tensor._rebind(new)


def _traced_write_error(tensor: Tensor) -> Exception:
    return SporeError("an in-place write with a tensor index computed in the graph into a tensor made outside it "
                      f"(shape {tuple(tensor.shape)}) cannot be compiled",
                      hint="write into a tensor computed inside construct (e.g. y = x * 1; y[i] = v)")


@tensor_method("fill_")
def _fill_(self: Tensor, value: Any) -> Tensor:
    """Fills the tensor with `value` in place."""
    return setitem_(self, Ellipsis, value)


@tensor_method("zero_")
def _zero_(self: Tensor) -> Tensor:
    """Fills the tensor with zeros in place."""
    return setitem_(self, Ellipsis, 0)


# --- gathers and scatters ------------------------------------------------------------------------
def _gather_grid(pshape: Sequence[int], indices: np.ndarray, axis: int, b: int) -> tuple:
    """Full NumPy index for a batched gather. Output dims are: batch (b), params dims b..axis-1,
    indices dims b.., params dims axis+1..; every params dim gets an index broadcast to them."""
    p = len(pshape)
    ind_nd = indices.ndim - b
    out_nd = axis + ind_nd + p - axis - 1
    res = []
    for d in range(p):
        if d == axis:
            res.append(indices.reshape(indices.shape[:b] + (1,) * (axis - b) + indices.shape[b:]
                                       + (1,) * (p - axis - 1)))
            continue
        shp = [1] * out_nd
        shp[d if d < axis else d - 1 + ind_nd] = pshape[d]
        res.append(np.arange(pshape[d]).reshape(shp))
    return tuple(res)


def _gather_out_shape(op: str, p: Any, ind: Any, axis: int, b: int) -> tuple[int, ...]:
    ax = norm_axis(op, axis, p.ndim)
    if not 0 <= b <= min(ax, ind.ndim):
        raise ShapeError(op, f"batch_dims in [0, {min(ax, ind.ndim)}]", f"batch_dims={b}")
    if tuple(p.shape[:b]) != tuple(ind.shape[:b]):
        raise ShapeError(op, f"params and indices to share the first {b} (batch) dimensions",
                         f"params {tuple(p.shape)}, indices {tuple(ind.shape)}")
    return tuple(p.shape[:ax]) + tuple(ind.shape[b:]) + tuple(p.shape[ax + 1:])


@primitive
class Gather:
    """Takes slices of `params` along `axis` at `indices` (`batch_dims` leading dims are shared)."""
    onnx = OnnxMap(export="gather")

    def infer(params, indices, axis, batch_dims=0):
        _require_int("Gather", indices)
        return Aval(_gather_out_shape("Gather", params, indices, axis, batch_dims), params.dtype)

    def impl(params, indices, axis, batch_dims=0):
        ax = axis % params.ndim
        _check_values("Gather", indices, params.shape[ax], ax)
        if batch_dims == 0:
            return np.take(params, indices, axis=ax)
        return params[_gather_grid(params.shape, indices, ax, batch_dims)]

    def vjp(g, out, params, indices, axis, batch_dims=0):
        return GatherGrad(g, indices, shape=tuple(params.shape), axis=axis, batch_dims=batch_dims), None


@primitive
class GatherGrad:
    """Adjoint of Gather: zeros of `shape` with `g` added back at the gathered positions."""

    def infer(g, indices, shape, axis, batch_dims=0):
        _require_int("GatherGrad", indices)
        want = _gather_out_shape("GatherGrad", Aval(tuple(shape), g.dtype), indices, axis, batch_dims)
        if tuple(g.shape) != want:
            raise ShapeError("GatherGrad", f"a cotangent of shape {want}", f"{tuple(g.shape)}")
        return Aval(tuple(shape), g.dtype)

    def impl(g, indices, shape, axis, batch_dims=0):
        ax = axis % len(shape)
        out = np.zeros(shape, g.dtype)
        if batch_dims == 0:
            np.add.at(out, (_slice(None),) * ax + (indices,), g)
        else:
            np.add.at(out, _gather_grid(shape, indices, ax, batch_dims), g)
        return out

    def vjp(gg, out, g, indices, shape, axis, batch_dims=0):
        return Gather(gg, indices, axis=axis, batch_dims=batch_dims), None


def _along_axis_index(index: np.ndarray, dim: int) -> tuple:
    """NumPy index picking x[..., index[...], ...] along `dim` at every position of `index`."""
    res = []
    for d in range(index.ndim):
        if d == dim:
            res.append(index)
        else:
            shp = [1] * index.ndim
            shp[d] = index.shape[d]
            res.append(np.arange(index.shape[d]).reshape(shp))
    return tuple(res)


def _check_gather_d(op: str, x: Any, index: Any, dim: int) -> int:
    _require_int(op, index, "index")
    d = norm_axis(op, dim, x.ndim)
    if index.ndim != x.ndim or any(i > s for k, (i, s) in enumerate(zip(index.shape, x.shape)) if k != d):
        raise ShapeError(op, f"an index of rank {x.ndim} no larger than the input {tuple(x.shape)} "
                             f"outside dim {dim}", f"index shape {tuple(index.shape)}")
    return d


@primitive
class GatherD:
    """Gathers values along `dim`: out[i][j] = x[index[i][j]][j] for dim 0, and so on."""

    def infer(x, index, dim):
        _check_gather_d("GatherD", x, index, dim)
        return Aval(tuple(index.shape), x.dtype)

    def impl(x, index, dim):
        d = dim % x.ndim
        _check_values("GatherD", index, x.shape[d], d)
        return x[_along_axis_index(index, d)]

    def vjp(g, out, x, index, dim):
        return GatherDGrad(g, index, dim=dim, shape=tuple(x.shape)), None


@primitive
class GatherDGrad:
    """Adjoint of GatherD: zeros of `shape` with `g` added at the gathered positions."""

    def infer(g, index, dim, shape):
        _check_gather_d("GatherDGrad", Aval(tuple(shape), g.dtype), index, dim)
        return Aval(tuple(shape), g.dtype)

    def impl(g, index, dim, shape):
        out = np.zeros(shape, g.dtype)
        np.add.at(out, _along_axis_index(index, dim % len(shape)), g)
        return out

    def vjp(gg, out, g, index, dim, shape):
        return GatherD(gg, index, dim=dim), None


def _nd_shape(op: str, x: Any, indices: Any) -> tuple[int, ...]:
    _require_int(op, indices)
    k = indices.shape[-1] if indices.ndim else 0
    if indices.ndim == 0 or k > x.ndim:
        raise ShapeError(op, f"indices of shape (..., k) with k <= {x.ndim}", f"indices shape {tuple(indices.shape)}")
    return tuple(indices.shape[:-1]) + tuple(x.shape[k:])


def _nd_index(indices: np.ndarray) -> tuple:
    return tuple(np.moveaxis(indices, -1, 0))


def _check_updates(op: str, x: Any, indices: Any, updates: Any) -> None:
    want = _nd_shape(op, x, indices)
    if tuple(updates.shape) != want:
        raise ShapeError(op, f"updates of shape {want} (indices {tuple(indices.shape)}, input {tuple(x.shape)})",
                         f"{tuple(updates.shape)}")
    if updates.dtype is not x.dtype:
        raise DTypeError(op, f"updates of the input's dtype {x.dtype}", f"{updates.dtype}")


@primitive
class GatherNd:
    """Gathers slices of `x` at N-d `indices` (last dim of indices indexes x's leading dims)."""

    def infer(x, indices):
        return Aval(_nd_shape("GatherNd", x, indices), x.dtype)

    def impl(x, indices):
        _check_nd("GatherNd", x.shape, indices)
        return np.asarray(x[_nd_index(indices)])

    def vjp(g, out, x, indices):
        return TensorScatterAdd(_zeros(x.shape, g), indices, g), None


@primitive
class TensorScatterAdd:
    """`x` with `updates` added at N-d `indices` (repeated indices accumulate)."""

    def infer(x, indices, updates):
        _check_updates("TensorScatterAdd", x, indices, updates)
        return Aval(tuple(x.shape), x.dtype)

    def impl(x, indices, updates):
        _check_nd("TensorScatterAdd", x.shape, indices)
        out = x.copy()
        np.add.at(out, _nd_index(indices), updates)
        return out

    def vjp(g, out, x, indices, updates):
        return g, None, GatherNd(g, indices)


@primitive
class TensorScatterUpdate:
    """`x` with the slices at N-d `indices` replaced by `updates`."""

    def infer(x, indices, updates):
        _check_updates("TensorScatterUpdate", x, indices, updates)
        return Aval(tuple(x.shape), x.dtype)

    def impl(x, indices, updates):
        _check_nd("TensorScatterUpdate", x.shape, indices)
        out = x.copy()
        out[_nd_index(indices)] = updates
        return out

    def vjp(g, out, x, indices, updates):
        gx = TensorScatterUpdate(g, indices, _zeros(updates.shape, g))
        return gx, None, GatherNd(g, indices)


@primitive
class TensorScatterElements:
    """`x` with `updates` written (reduction 'none') or added ('add') along `axis` at `indices`."""

    def infer(x, indices, updates, axis=0, reduction="none"):
        _check_gather_d("TensorScatterElements", x, indices, axis)
        if tuple(updates.shape) != tuple(indices.shape):
            raise ShapeError("TensorScatterElements", f"updates of the indices' shape {tuple(indices.shape)}",
                             f"{tuple(updates.shape)}")
        if reduction not in ("none", "add"):
            raise ValueError(f"TensorScatterElements: reduction must be 'none' or 'add', got {reduction!r}")
        return Aval(tuple(x.shape), x.dtype)

    def impl(x, indices, updates, axis=0, reduction="none"):
        _check_values("TensorScatterElements", indices, x.shape[axis % x.ndim], axis % x.ndim)
        out = x.copy()
        idx = _along_axis_index(indices, axis % x.ndim)
        if reduction == "add":
            np.add.at(out, idx, updates)
        else:
            out[idx] = updates
        return out

    def vjp(g, out, x, indices, updates, axis=0, reduction="none"):
        gx = g if reduction == "add" else TensorScatterElements(
            g, indices, _zeros(indices.shape, g), axis=axis)
        return gx, None, GatherD(g, indices, dim=axis)


def _check_values(op: str, a: np.ndarray, size: int, axis: int) -> None:
    """Refuse indices outside [-size, size): checked in the kernels, so PyNative and Graph mode
    (where the values exist only when the graph runs) raise the same error at the same line."""
    if a.size and (int(a.min()) < -size or int(a.max()) >= size):
        bad = a[(a < -size) | (a >= size)].ravel()[0]
        raise _oob(op, f"index {int(bad)}", axis, size)


def _check_nd(op: str, shape: Sequence[int], indices: np.ndarray) -> None:
    for k in range(min(indices.shape[-1] if indices.ndim else 0, len(shape))):
        _check_values(op, indices[..., k], shape[k], k)


def _as_index(x: Any) -> Tensor:
    t = x if isinstance(x, Tensor) else Tensor(x)
    if not t.dtype.is_int:
        raise located(DTypeError("indexing", "integer indices", f"{t.dtype}"))
    return t


@tensor_method("gather")
def gather(input_params: Tensor, input_indices: Any, axis: int, batch_dims: int = 0) -> Tensor:
    """Slices of `input_params` along `axis` at `input_indices`; out-of-range indices raise."""
    ind = _as_index(input_indices)
    ax = norm_axis("Gather", axis, input_params.ndim) if input_params.ndim else axis
    return Gather(input_params, ind, axis=ax, batch_dims=batch_dims)


@tensor_method("gather_elements")
def gather_elements(input: Tensor, dim: int, index: Any) -> Tensor:
    """Values of `input` along `dim` at `index` (index has input's rank): torch.gather semantics."""
    ind = _as_index(index)
    d = norm_axis("GatherD", dim, input.ndim)
    return GatherD(input, ind, dim=d)


def gather_d(x: Tensor, dim: int, index: Any) -> Tensor:
    """Same as `gather_elements`."""
    return gather_elements(x, dim, index)


@tensor_method("gather_nd")
def gather_nd(input_x: Tensor, indices: Any) -> Tensor:
    """Slices of `input_x` at N-d `indices` (shape (..., k) indexing the first k dims)."""
    return GatherNd(input_x, _as_index(indices))


@tensor_method("index_select")
def index_select(input: Tensor, axis: int, index: Any) -> Tensor:
    """Entries of `input` along `axis` at the 1-D `index`."""
    return gather(input, index, axis)


@tensor_method("take")
def take(input: Tensor, index: Any, axis: int | None = None, mode: str = "clip") -> Tensor:
    """NumPy's take: elements at `index` along `axis` (flattened when None); `mode` 'raise',
    'wrap' or 'clip' says what happens to out-of-range indices."""
    x, ind = input, _as_index(index)
    src = reshape(x, (-1,)) if axis is None else x
    ax = 0 if axis is None else norm_axis("take", axis, x.ndim)
    n = src.shape[ax]
    from .math_ops import clamp, remainder

    if mode == "wrap":  # as graph ops, so a compiled take wraps/clips the values it runs with
        ind = remainder(ind, n)
    elif mode == "clip":
        ind = clamp(ind, 0, n - 1)
    elif mode != "raise":
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    return gather(src, ind, ax)


def _scatter_args(op: str, input_x: Tensor, indices: Any, updates: Any) -> tuple[Tensor, Tensor]:
    ind = _as_index(indices)
    upd = updates if isinstance(updates, Tensor) else as_tensor(updates, input_x)
    if upd.dtype is not input_x.dtype:
        upd = cast(upd, input_x.dtype)
    return ind, upd


def tensor_scatter_update(input_x: Tensor, indices: Any, updates: Any) -> Tensor:
    """A copy of `input_x` with the slices at N-d `indices` replaced by `updates`."""
    ind, upd = _scatter_args("TensorScatterUpdate", input_x, indices, updates)
    return TensorScatterUpdate(input_x, ind, upd)


def tensor_scatter_add(input_x: Tensor, indices: Any, updates: Any) -> Tensor:
    """A copy of `input_x` with `updates` added at N-d `indices` (duplicates accumulate)."""
    ind, upd = _scatter_args("TensorScatterAdd", input_x, indices, updates)
    return TensorScatterAdd(input_x, ind, upd)


def scatter_nd(indices: Any, updates: Tensor, shape: Sequence[int]) -> Tensor:
    """A zero tensor of `shape` with `updates` added at N-d `indices`."""
    base = Tensor._wrap(np.zeros(tuple(int(s) for s in shape), updates.dtype.np))
    ind, upd = _scatter_args("ScatterNd", base, indices, updates)
    return TensorScatterAdd(base, ind, upd)


def tensor_scatter_elements(input_x: Tensor, indices: Any, updates: Any, axis: int = 0,
                            reduction: str = "none") -> Tensor:
    """A copy of `input_x` with `updates` written (or added, reduction='add') along `axis` at `indices`."""
    ind = _as_index(indices)
    upd = updates if isinstance(updates, Tensor) else as_tensor(updates, input_x)
    upd = upd if upd.dtype is input_x.dtype else cast(upd, input_x.dtype)
    d = norm_axis("TensorScatterElements", axis, input_x.ndim)
    return TensorScatterElements(input_x, ind, upd, axis=d, reduction=reduction)


@tensor_method("scatter")
def scatter(input: Tensor, axis: int, index: Any, src: Any) -> Tensor:
    """A copy of `input` with `src` written along `axis` at `index` (torch.scatter semantics)."""
    return tensor_scatter_elements(input, index, src, axis)
