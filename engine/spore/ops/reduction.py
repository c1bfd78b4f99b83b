"""Reductions: sum, mean, prod, max/min (with and without indices), argmax/argmin, all/any,
cumulative sum, and the composites built on them (var/std, logsumexp, norm).

Primitives take MindSpore's ``axis``/``keep_dims`` attributes, where an empty axis means every axis.
The functional wrappers keep MindSpore's own, differing, signatures: ``ops.sum(input, dim, keepdim)``,
``ops.mean(x, axis, keep_dims)``, ``ops.max(input, axis, keepdims)`` returning ``(values, indices)``,
while ``Tensor.sum(axis, dtype, keepdims, initial)`` and ``Tensor.max(...)`` (values only) are separate
methods registered below.

Gradients of max/min: `ReduceMax`/`ReduceMin` split the gradient evenly among tied extremes (the
result is symmetric in them); `ArgMaxWithValue`/`ArgMinWithValue` give it all to the returned index,
the first extreme, as PyTorch's ``max(dim)`` does.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError
from ..onnx.spec import OnnxMap
from ..tensor import Tensor, tensor_method
from ._rules import norm_axes, norm_axis, reduced_shape, require_float
from .array import broadcast_to, cast, reshape, stop_gradient
from .comparison import equal
from .elementwise import _as_float, add, div, exp, log, mul, sub
from .math_ops import abs as _abs
from .math_ops import maximum, minimum, sqrt, square
from .primitive import Aval, primitive


def _reduce_infer(name: str, float_only: bool = False, out_dtype: Any = None):
    def infer(a: Any, axis: Any = (), keep_dims: bool = False) -> Aval:
        if float_only:
            require_float(name, a)
        axes = norm_axes(name, axis, a.ndim)
        return Aval(reduced_shape(a.shape, axes, keep_dims), out_dtype or a.dtype)

    return infer


def _keep(g: Tensor, a: Any, axis: Any, keep_dims: bool) -> tuple[Tensor, tuple[int, ...]]:
    """`g` reshaped to the keep-dims shape of reducing `a` over `axis`, and the normalised axes."""
    axes = norm_axes("reduce", axis, a.ndim)
    return (g if keep_dims else reshape(g, reduced_shape(a.shape, axes, True))), axes


@primitive
class ReduceSum:
    """Sums the elements over the given axes (all axes when `axis` is empty)."""
    onnx = OnnxMap(export="reduce_sum", imports=("ReduceSum",), importer="import_reduce_sum")

    infer = _reduce_infer("ReduceSum")

    def impl(a, axis=(), keep_dims=False):
        axes = norm_axes("ReduceSum", axis, a.ndim)
        return np.asarray(a.sum(axis=axes, keepdims=keep_dims, dtype=a.dtype))

    def vjp(g, out, a, axis=(), keep_dims=False):
        g, _ = _keep(g, a, axis, keep_dims)
        return (broadcast_to(g, a.shape),)


@primitive
class ReduceMean:
    """Averages the elements over the given axes (all axes when `axis` is empty); float input."""
    onnx = OnnxMap(export="reduce_mean", imports=("ReduceMean",), importer="import_reduce_mean")

    infer = _reduce_infer("ReduceMean", float_only=True)

    def impl(a, axis=(), keep_dims=False):
        axes = norm_axes("ReduceMean", axis, a.ndim)
        return np.asarray(a.mean(axis=axes, keepdims=keep_dims)).astype(a.dtype, copy=False)

    def vjp(g, out, a, axis=(), keep_dims=False):
        g, axes = _keep(g, a, axis, keep_dims)
        n = math.prod(a.shape[i] for i in axes)
        return (broadcast_to(mul(g, 1.0 / builtins.max(n, 1)), a.shape),)


def _extreme_vjp(g: Tensor, out: Tensor, a: Tensor, axis: Any = (), keep_dims: bool = False) -> tuple[Tensor]:
    """Gradient of a max/min reduction: shared evenly by the elements equal to the extreme."""
    g, axes = _keep(g, a, axis, keep_dims)
    out = out if keep_dims else reshape(out, g.shape)
    hit = cast(equal(a, out), g.dtype)
    return (mul(hit, div(g, ReduceSum(hit, axis=axes, keep_dims=True))),)


@primitive
class ReduceMax:
    """Maximum of the elements over the given axes (all axes when `axis` is empty)."""
    onnx = OnnxMap(export="reduce_max", imports=("ReduceMax",), importer="import_reduce_max")

    infer = _reduce_infer("ReduceMax")

    def impl(a, axis=(), keep_dims=False):
        return np.asarray(a.max(axis=norm_axes("ReduceMax", axis, a.ndim), keepdims=keep_dims))

    vjp = _extreme_vjp


@primitive
class ReduceMin:
    """Minimum of the elements over the given axes (all axes when `axis` is empty)."""
    onnx = OnnxMap(export="reduce_min", imports=("ReduceMin",), importer="import_reduce_min")

    infer = _reduce_infer("ReduceMin")

    def impl(a, axis=(), keep_dims=False):
        return np.asarray(a.min(axis=norm_axes("ReduceMin", axis, a.ndim), keepdims=keep_dims))

    vjp = _extreme_vjp


@primitive
class ReduceProd:
    """Product of the elements over the given axes (all axes when `axis` is empty)."""
    onnx = OnnxMap(export="reduce_prod", imports=("ReduceProd",), importer="import_reduce_prod")

    infer = _reduce_infer("ReduceProd")

    def impl(a, axis=(), keep_dims=False):
        return np.asarray(a.prod(axis=norm_axes("ReduceProd", axis, a.ndim), keepdims=keep_dims, dtype=a.dtype))

    def vjp(g, out, a, axis=(), keep_dims=False):
        # d prod / d a_i = product of the others; written to stay exact when some a_i are zero
        g, axes = _keep(g, a, axis, keep_dims)
        dt = a.dtype
        zero = cast(equal(a, 0), dt)
        a_safe = add(a, zero)                                   # zeros replaced by ones
        p_safe = ReduceProd(a_safe, axis=axes, keep_dims=True)  # product of the non-zero elements
        n_zero = ReduceSum(zero, axis=axes, keep_dims=True)
        no_zero, one_zero = cast(equal(n_zero, 0), dt), cast(equal(n_zero, 1), dt)
        others = mul(p_safe, add(mul(no_zero, div(sub(1, zero), a_safe)), mul(one_zero, zero)))
        return (mul(g, others),)


@primitive
class ReduceAll:
    """Logical AND of bool elements over the given axes (all axes when `axis` is empty)."""

    nondiff = True
    infer = _reduce_infer("ReduceAll", out_dtype=mstype.bool_)

    def impl(a, axis=(), keep_dims=False):
        return np.asarray(np.all(a, axis=norm_axes("ReduceAll", axis, a.ndim), keepdims=keep_dims))


@primitive
class ReduceAny:
    """Logical OR of bool elements over the given axes (all axes when `axis` is empty)."""

    nondiff = True
    infer = _reduce_infer("ReduceAny", out_dtype=mstype.bool_)

    def impl(a, axis=(), keep_dims=False):
        return np.asarray(np.any(a, axis=norm_axes("ReduceAny", axis, a.ndim), keepdims=keep_dims))


def _arg_infer(name: str):
    def infer(a: Any, axis: Any = None, keep_dims: bool = False, output_type: Any = mstype.int32) -> Aval:
        if output_type not in (mstype.int32, mstype.int64):
            raise DTypeError(name, "output_type int32 or int64", f"{output_type}")
        if axis is None:  # index into the flattened input; keep_dims does not apply (as in MindSpore)
            return Aval((), output_type)
        axes = (norm_axis(name, axis, a.ndim),) if a.ndim else ()
        return Aval(reduced_shape(a.shape, axes, keep_dims), output_type)

    return infer


def _arg_impl(fn):
    def impl(a, axis=None, keep_dims=False, output_type=mstype.int32):
        if axis is None or a.ndim == 0:
            return np.asarray(fn(a), output_type.np)
        return fn(a, axis=axis, keepdims=keep_dims).astype(output_type.np, copy=False)

    return impl


@primitive
class Argmax:
    """Index of the maximum along `axis` (of the flattened input when `axis` is None); first on ties."""

    nondiff = True
    infer = _arg_infer("Argmax")
    impl = _arg_impl(np.argmax)


@primitive
class Argmin:
    """Index of the minimum along `axis` (of the flattened input when `axis` is None); first on ties."""

    nondiff = True
    infer = _arg_infer("Argmin")
    impl = _arg_impl(np.argmin)


def _with_value_infer(name: str):
    def infer(a: Any, axis: int = 0, keep_dims: bool = False) -> tuple[Aval, Aval]:
        axes = (norm_axis(name, axis, a.ndim),) if a.ndim else ()
        shape = reduced_shape(a.shape, axes, keep_dims)
        return Aval(shape, mstype.int32), Aval(shape, a.dtype)

    return infer


def _with_value_impl(fn):
    def impl(a, axis=0, keep_dims=False):
        if a.ndim == 0:
            return np.zeros((), np.int32), a.copy()
        idx = np.expand_dims(fn(a, axis=axis), axis)
        val = np.take_along_axis(a, idx, axis)
        if not keep_dims:
            idx, val = idx.squeeze(axis), val.squeeze(axis)
        return idx.astype(np.int32), val

    return impl


def _with_value_vjp(g, out, a, axis=0, keep_dims=False):
    """All of the value's gradient goes to the returned index along `axis`."""
    gv, idx = g[1], out[0]
    if a.ndim == 0:
        return (gv,)
    axis = norm_axis("ArgMaxWithValue", axis, a.ndim)
    if not keep_dims:
        gv = reshape(gv, reduced_shape(a.shape, (axis,), True))
        idx = reshape(idx, gv.shape)
    from . import functional as F  # ones_like lives with the creation ops

    position = sub(CumSum(F.ones_like(a, dtype=mstype.int32), axis=axis), 1)  # 0, 1, 2, ... along axis
    return (mul(cast(equal(position, idx), gv.dtype), gv),)


@primitive
class ArgMaxWithValue:
    """Index and value of the maximum along `axis` -> (index int32, value); first on ties."""

    multi_output = True
    infer = _with_value_infer("ArgMaxWithValue")
    impl = _with_value_impl(np.argmax)
    vjp = _with_value_vjp


@primitive
class ArgMinWithValue:
    """Index and value of the minimum along `axis` -> (index int32, value); first on ties."""

    multi_output = True
    infer = _with_value_infer("ArgMinWithValue")
    impl = _with_value_impl(np.argmin)
    vjp = _with_value_vjp


@primitive
class CumSum:
    """Cumulative sum along `axis`; `exclusive` leaves each element out, `reverse` sums from the end."""

    def infer(a, axis=0, exclusive=False, reverse=False):
        norm_axis("CumSum", axis, a.ndim)
        return Aval(a.shape, a.dtype)

    def impl(a, axis=0, exclusive=False, reverse=False):
        if a.ndim == 0:
            return np.zeros_like(a) if exclusive else a.copy()
        x = np.flip(a, axis) if reverse else a
        out = np.cumsum(x, axis=axis, dtype=a.dtype)
        if exclusive:
            shifted = np.zeros_like(out)
            dst, src = [slice(None)] * a.ndim, [slice(None)] * a.ndim
            dst[axis], src[axis] = slice(1, None), slice(0, -1)
            shifted[tuple(dst)] = out[tuple(src)]
            out = shifted
        return np.flip(out, axis) if reverse else out

    def vjp(g, out, a, axis=0, exclusive=False, reverse=False):
        return (CumSum(g, axis=axis, exclusive=exclusive, reverse=not reverse),)


# --- functional wrappers --------------------------------------------------------------------------

def _axis(axis: Any) -> Any:
    """MindSpore's None (and a Tensor axis, kept for old code) as the primitives' axis attribute."""
    if axis is None:
        return ()
    if isinstance(axis, Tensor):
        axis = axis.tolist()
    return tuple(axis) if isinstance(axis, list) else axis


def _counted(input: Tensor) -> Tensor:
    """Bool tensors are summed as int64 (counting Trues), as NumPy and MindSpore do."""
    return cast(input, mstype.int64) if input.dtype is mstype.bool_ else input


def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Sum of the elements over `dim` (all when None); `dtype` casts the input first."""
    x = _counted(input) if dtype is None else cast(input, dtype)
    return ReduceSum(x, axis=_axis(dim), keep_dims=keepdim)


@tensor_method("sum")
def _sum_method(self: Tensor, axis: Any = None, dtype: Any = None, keepdims: bool = False,
                initial: Any = None) -> Tensor:
    """Return sum of tensor elements over a given axis (``Tensor.sum``; `initial` is added)."""
    out = ReduceSum(_counted(self) if dtype is None else cast(self, dtype), axis=_axis(axis), keep_dims=keepdims)
    return out if initial is None else add(out, initial)


def reduce_sum(x: Tensor, axis: Any = (), keep_dims: bool = False) -> Tensor:
    """Reduces a dimension of a tensor by summing all elements in the dimension."""
    return ReduceSum(x, axis=_axis(axis), keep_dims=keep_dims)


@tensor_method("mean")
def mean(x: Tensor, axis: Any = None, keep_dims: bool = False) -> Tensor:
    """Mean of the elements over `axis` (all when None); integer inputs average in float32."""
    return ReduceMean(_as_float(x), axis=_axis(axis), keep_dims=keep_dims)


def reduce_mean(x: Tensor, axis: Any = (), keep_dims: bool = False) -> Tensor:
    """Reduces a dimension of a tensor by averaging all elements in the dimension."""
    return ReduceMean(_as_float(x), axis=_axis(axis), keep_dims=keep_dims)


def _masked(input: Tensor, initial: Any, where: Any, op: str) -> Tensor:
    """`input` with the elements outside `where` replaced by `initial` (MindSpore's where/initial)."""
    if where is None or where is True:
        return input
    if initial is None:
        raise ValueError(f"{op}: `initial` must be given together with `where`")
    from . import functional as F  # `where` (Select) belongs to the indexing ops

    return F.where(where if isinstance(where, Tensor) else Tensor(where), input, initial)


def _extreme(prim: Any, with_value: Any, input: Tensor, axis: Any, keepdims: bool, initial: Any,
             where: Any) -> tuple[Tensor, Tensor]:
    x = _masked(input, initial, where, prim.name)
    if axis is None:  # over the flattened input
        index, value = with_value(reshape(x, (-1,)), axis=0, keep_dims=False)
    else:
        index, value = with_value(x, axis=int(axis), keep_dims=keepdims)
    if initial is not None:
        value = (maximum if prim is ReduceMax else minimum)(value, initial)
    return value, cast(index, mstype.int64)  # MindSpore's ops.max/ops.min give int64 indices


def max(input: Tensor, axis: Any = None, keepdims: bool = False, *, initial: Any = None,
        where: Any = None) -> tuple[Tensor, Tensor]:
    """Maximum along `axis` and its index, as ``(values, indices)`` (over all elements when None).

    The index is int64 (as MindSpore's), the first maximum on ties (with `axis` None it indexes the flattened input,
    where MindSpore documents a fixed 0); `initial` is a lower bound of the result and `where` (with
    `initial`) leaves elements out. Gradients go to the returned index.
    """
    return _extreme(ReduceMax, ArgMaxWithValue, input, axis, keepdims, initial, where)


def min(input: Tensor, axis: Any = None, keepdims: bool = False, *, initial: Any = None,
        where: Any = None) -> tuple[Tensor, Tensor]:
    """Minimum along `axis` and its index, as ``(values, indices)`` (over all elements when None).

    The index is int64 (as MindSpore's), the first minimum on ties (with `axis` None it indexes the flattened input,
    where MindSpore documents a fixed 0); `initial` is an upper bound of the result and `where` (with
    `initial`) leaves elements out. Gradients go to the returned index.
    """
    return _extreme(ReduceMin, ArgMinWithValue, input, axis, keepdims, initial, where)


def _extreme_method(prim: Any, with_value: Any, self: Tensor, axis: Any, keepdims: bool, initial: Any,
                    where: Any, return_indices: bool) -> Any:
    x = _masked(self, initial, where, prim.name)
    bound = maximum if prim is ReduceMax else minimum
    if return_indices:
        if axis is None or not isinstance(axis, (int, np.integer)):
            raise ValueError(f"Tensor.{prim.name[6:].lower()}: return_indices needs a single int axis")
        index, value = with_value(x, axis=int(axis), keep_dims=keepdims)
        return (value if initial is None else bound(value, initial)), index
    value = prim(x, axis=_axis(axis), keep_dims=keepdims)
    return value if initial is None else bound(value, initial)


@tensor_method("max")
def _max_method(self: Tensor, axis: Any = None, keepdims: bool = False, *, initial: Any = None,
                where: Any = True, return_indices: bool = False) -> Any:
    """The maximum of the tensor or along `axis` (values only unless `return_indices`)."""
    return _extreme_method(ReduceMax, ArgMaxWithValue, self, axis, keepdims, initial, where, return_indices)


@tensor_method("min")
def _min_method(self: Tensor, axis: Any = None, keepdims: bool = False, *, initial: Any = None,
                where: Any = True, return_indices: bool = False) -> Any:
    """The minimum of the tensor or along `axis` (values only unless `return_indices`)."""
    return _extreme_method(ReduceMin, ArgMinWithValue, self, axis, keepdims, initial, where, return_indices)


@tensor_method("amax")
def amax(input: Tensor, axis: Any = None, keepdims: bool = False, *, initial: Any = None,
         where: Any = None) -> Tensor:
    """Maximum over `axis` (int or tuple; all when None); ties share the gradient."""
    return _extreme_method(ReduceMax, ArgMaxWithValue, input, axis, keepdims, initial, where, False)


@tensor_method("amin")
def amin(input: Tensor, axis: Any = None, keepdims: bool = False, *, initial: Any = None,
         where: Any = None) -> Tensor:
    """Minimum over `axis` (int or tuple; all when None); ties share the gradient."""
    return _extreme_method(ReduceMin, ArgMinWithValue, input, axis, keepdims, initial, where, False)


def reduce_max(x: Tensor, axis: Any = (), keep_dims: bool = False) -> Tensor:
    """Reduces a dimension of a tensor by the maximum of the elements in the dimension."""
    return ReduceMax(x, axis=_axis(axis), keep_dims=keep_dims)


def reduce_min(x: Tensor, axis: Any = (), keep_dims: bool = False) -> Tensor:
    """Reduces a dimension of a tensor by the minimum of the elements in the dimension."""
    return ReduceMin(x, axis=_axis(axis), keep_dims=keep_dims)


@tensor_method("prod")
def prod(input: Tensor, axis: Any = None, keep_dims: bool = False, dtype: Any = None) -> Tensor:
    """Product of the elements over `axis` (all when None); `dtype` casts the input first."""
    x = _counted(input) if dtype is None else cast(input, dtype)
    return ReduceProd(x, axis=_axis(axis), keep_dims=keep_dims)


def reduce_prod(x: Tensor, axis: Any = (), keep_dims: bool = False) -> Tensor:
    """Reduces a dimension of a tensor by multiplying all elements in the dimension."""
    return ReduceProd(x, axis=_axis(axis), keep_dims=keep_dims)


def argmax(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Index (int64) of the maximum along `dim`, of the flattened input when None; first on ties."""
    return Argmax(input, axis=dim, keep_dims=keepdim, output_type=mstype.int64)


@tensor_method("argmax")
def _argmax_method(self: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Index (int64) of the maximum along `axis`, of the flattened tensor when None."""
    return Argmax(self, axis=axis, keep_dims=keepdims, output_type=mstype.int64)


@tensor_method("argmin")
def argmin(input: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Index (int32) of the minimum along `axis`, of the flattened input when None; first on ties."""
    return Argmin(input, axis=axis, keep_dims=keepdims, output_type=mstype.int32)


@tensor_method("all")
def all(input: Tensor, axis: Any = None, keep_dims: bool = False) -> Tensor:
    """Whether all elements over `axis` are true (non-zero); all axes when None."""
    return ReduceAll(cast(input, mstype.bool_), axis=_axis(axis), keep_dims=keep_dims)


@tensor_method("any")
def any(input: Tensor, axis: Any = None, keep_dims: bool = False) -> Tensor:
    """Whether any element over `axis` is true (non-zero); all axes when None."""
    return ReduceAny(cast(input, mstype.bool_), axis=_axis(axis), keep_dims=keep_dims)


@tensor_method("cumsum")
def cumsum(x: Tensor, axis: Any = None, dtype: Any = None) -> Tensor:
    """Cumulative sum along `axis` (of the flattened input when None); `dtype` casts first."""
    x = _counted(x) if dtype is None else cast(x, dtype)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    return CumSum(x, axis=int(axis))


@tensor_method("var")
def var(input: Tensor, axis: Any = None, ddof: int | bool = 0, keepdims: bool = False) -> Tensor:
    """Variance over `axis` (all when None) with divisor N - ddof (``ddof=True`` means 1); of a complex
    tensor, the real mean of |x - mean|^2 (NumPy's), the variances of the real and imaginary parts summed."""
    if input.dtype.is_complex:
        from .complex_ops import _Imag, _Real

        return add(var(_Real(input), axis, ddof, keepdims), var(_Imag(input), axis, ddof, keepdims))
    x = _as_float(input)
    axes = norm_axes("var", _axis(axis), x.ndim)
    n = math.prod(x.shape[i] for i in axes)
    d = sub(x, ReduceMean(x, axis=axes, keep_dims=True))
    return div(ReduceSum(square(d), axis=axes, keep_dims=keepdims), float(n - int(ddof)))


@tensor_method("std")
def std(input: Tensor, axis: Any = None, ddof: int | bool = 0, keepdims: bool = False) -> Tensor:
    """Standard deviation over `axis` (all when None) with divisor N - ddof."""
    return sqrt(var(input, axis, ddof, keepdims))


def var_mean(input: Tensor, axis: Any = None, ddof: int | bool = 0, keepdims: bool = False) -> tuple[Tensor, Tensor]:
    """(variance, mean) over `axis`, see `var`."""
    return var(input, axis, ddof, keepdims), mean(input, axis, keepdims)


def std_mean(input: Tensor, axis: Any = None, ddof: int | bool = 0, keepdims: bool = False) -> tuple[Tensor, Tensor]:
    """(standard deviation, mean) over `axis`, see `std`."""
    return std(input, axis, ddof, keepdims), mean(input, axis, keepdims)


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """log(sum(exp(input))) over `dim`, computed stably by subtracting the maximum first."""
    x = _as_float(input)
    axes = norm_axes("logsumexp", _axis(dim), x.ndim)
    m = stop_gradient(ReduceMax(x, axis=axes, keep_dims=True))
    out = add(log(ReduceSum(exp(sub(x, m)), axis=axes, keep_dims=True)), m)
    return out if keepdim else reshape(out, reduced_shape(x.shape, axes, False))


@tensor_method("logsumexp")
def _logsumexp_method(self: Tensor, axis: Any, keepdims: bool = False) -> Tensor:
    """log(sum(exp(self))) over `axis`, computed stably."""
    return logsumexp(self, axis, keepdims)


def _vector_norm(x: Tensor, ord: Any, axes: tuple[int, ...], keepdim: bool) -> Tensor:
    if ord is None or ord == 2:
        return sqrt(ReduceSum(square(x), axis=axes, keep_dims=keepdim))
    if ord == 1:
        return ReduceSum(_abs(x), axis=axes, keep_dims=keepdim)
    if ord == math.inf:
        return ReduceMax(_abs(x), axis=axes, keep_dims=keepdim)
    if ord == -math.inf:
        return ReduceMin(_abs(x), axis=axes, keep_dims=keepdim)
    if ord == 0:
        return ReduceSum(cast(cast(x, mstype.bool_), x.dtype), axis=axes, keep_dims=keepdim)
    if isinstance(ord, str):
        raise ValueError(f"norm: ord={ord!r} is a matrix norm; give dim as a 2-tuple or a 2-D input")
    from .math_ops import pow as _pow

    return _pow(ReduceSum(_pow(_abs(x), float(ord)), axis=axes, keep_dims=keepdim), 1.0 / float(ord))


def _matrix_norm(x: Tensor, ord: Any, axes: tuple[int, int], keepdim: bool) -> Tensor:
    if ord is None or ord == "fro":
        return sqrt(ReduceSum(square(x), axis=axes, keep_dims=keepdim))
    if ord in (1, -1, math.inf, -math.inf):
        row, col = axes
        summed, rest = (row, col) if ord in (1, -1) else (col, row)   # 1: max column sum; inf: max row sum
        s = ReduceSum(_abs(x), axis=summed, keep_dims=True)
        out = (ReduceMax if ord in (1, math.inf) else ReduceMin)(s, axis=rest, keep_dims=True)
        return out if keepdim else reshape(out, reduced_shape(x.shape, axes, False))
    if ord in (2, -2, "nuc"):
        from .linalg import SingularValues
        from .shape_ops import transpose

        row, col = axes
        rest = [d for d in range(x.ndim) if d not in (row, col)]
        sv = SingularValues(transpose(x, tuple(rest) + (row, col)))  # (..., k): the other axes in order
        out = ReduceSum(sv, axis=(-1,), keep_dims=False) if ord == "nuc" else \
            (ReduceMax if ord == 2 else ReduceMin)(sv, axis=(-1,), keep_dims=False)
        return reshape(out, reduced_shape(x.shape, axes, True)) if keepdim else out
    raise ValueError(f"norm: matrix norm ord={ord!r} is not supported "
                     "(supported: None, 'fro', 'nuc', 1, -1, 2, -2, inf, -inf)")


@tensor_method("norm")
def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Vector or matrix norm of `A` (MindSpore's table; the matrix norms 2, -2 and 'nuc' come from the
    singular values, `SingularValues`).

    `dim` an int: vector norm along it; a 2-tuple: matrix norm over them; None with `ord` None:
    2-norm of the flattened input; None with `ord` given: `A` must be 1-D (vector) or 2-D (matrix).
    """
    x = _as_float(A) if dtype is None else cast(A, dtype)
    if x.dtype.is_complex:  # a norm of the magnitudes |z| (NumPy's), but for the singular-value ones
        matrix = (isinstance(dim, (tuple, list)) and len(dim) == 2) or (dim is None and ord is not None
                                                                         and x.ndim == 2)
        if matrix and (ord in (2, -2, "nuc")):
            raise DTypeError("norm", f"a real matrix for ord={ord!r} (singular values of complex matrices "
                             "are not implemented)", f"{x.dtype}")
        from .complex_ops import _ComplexAbs

        x = _ComplexAbs(x)
    if dim is None:
        if ord is None:
            return _vector_norm(x, None, tuple(range(x.ndim)), keepdim)
        if x.ndim not in (1, 2):
            raise ShapeError("norm", "a 1-D or 2-D input when dim is None and ord is given", f"shape {x.shape}")
        dim = 0 if x.ndim == 1 else (0, 1)
    if isinstance(dim, (tuple, list)) and len(dim) == 2:
        return _matrix_norm(x, ord, tuple(norm_axis("norm", d, x.ndim) for d in dim), keepdim)
    axes = norm_axes("norm", dim, x.ndim)
    return _vector_norm(x, ord, axes, keepdim)
