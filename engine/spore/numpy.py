"""``spore.numpy`` (``import spore.numpy as mnp``): MindSpore's NumPy-style functions, a first set.

Each function takes array-likes (Tensors, NumPy arrays, lists, numbers), turns them into Tensors
and applies `spore.ops`, so results are Tensors, gradients flow and Graph mode compiles them like
any op call. Names and defaults follow NumPy (as ``mindspore.numpy`` does): ``axis`` not ``dim``,
``keepdims``, ``dtype``. Python floats become float32 tensors and ints int64, as in ``Tensor(...)``.
What is here is the everyday subset (creation, elementwise math, reductions, shape changes,
comparisons, a few linear-algebra products); ``mindspore.numpy``'s other names are not written yet.
"""

from __future__ import annotations

import builtins
import math
import typing as _typing
from collections.abc import Sequence
from typing import Any

import numpy as _np

from . import ops as _ops
from .common import dtype as _mstype
from .tensor import Tensor

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan
newaxis = None
float16, float32, float64 = _mstype.float16, _mstype.float32, _mstype.float64
int8, int16, int32, int64, uint8 = _mstype.int8, _mstype.int16, _mstype.int32, _mstype.int64, _mstype.uint8
bool_ = _mstype.bool_


def _t(x: Any, dtype: Any = None) -> Tensor:
    if isinstance(x, Tensor):
        return x if dtype is None or x.dtype is _mstype.to_dtype(dtype) else _ops.cast(x, dtype)
    return Tensor(x, dtype)


# --- creation ----------------------------------------------------------------------------------------
def array(obj: Any, dtype: Any = None, copy: bool = True, ndmin: int = 0) -> Tensor:
    """A Tensor from `obj` (copied), with at least `ndmin` dimensions."""
    t = Tensor(obj.asnumpy().copy() if isinstance(obj, Tensor) else obj, dtype)
    while t.ndim < ndmin:
        t = _ops.expand_dims(t, 0)
    return t


def asarray(a: Any, dtype: Any = None) -> Tensor:
    """`a` as a Tensor (no copy when it is one already and the dtype matches)."""
    return _t(a, dtype)


def zeros(shape: Any, dtype: Any = float32) -> Tensor:
    """A tensor of zeros."""
    return _ops.zeros(shape, dtype)


def ones(shape: Any, dtype: Any = float32) -> Tensor:
    """A tensor of ones."""
    return _ops.ones(shape, dtype)


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Tensor:
    """A tensor filled with `fill_value`."""
    return Tensor(_np.full(shape if not isinstance(shape, int) else (shape,), fill_value), dtype)


def empty(shape: Any, dtype: Any = float32) -> Tensor:
    """A tensor of the shape (filled with zeros: Spore never hands out uninitialised memory)."""
    return zeros(shape, dtype)


def zeros_like(a: Any, dtype: Any = None) -> Tensor:
    """Zeros shaped like `a`."""
    return _ops.zeros_like(_t(a), dtype=dtype)


def ones_like(a: Any, dtype: Any = None) -> Tensor:
    """Ones shaped like `a`."""
    return _ops.ones_like(_t(a), dtype=dtype)


def full_like(a: Any, fill_value: Any, dtype: Any = None) -> Tensor:
    """`fill_value` everywhere, shaped like `a`."""
    x = _t(a)
    return Tensor(_np.full(x.shape, fill_value), dtype if dtype is not None else x.dtype)


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Tensor:
    """Evenly spaced values in [start, stop) (one argument: [0, start))."""
    if stop is None:
        start, stop = 0, start
    return _ops.arange(start, stop, 1 if step is None else step, dtype=dtype)


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None) -> Tensor:
    """`num` evenly spaced values from `start` to `stop` (included unless `endpoint` is False)."""
    return Tensor(_np.linspace(start, stop, num, endpoint=endpoint), dtype if dtype is not None else float32)


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = float32) -> Tensor:
    """An N x M matrix with ones on diagonal `k`."""
    return Tensor(_np.eye(N, M, k), dtype)


def identity(n: int, dtype: Any = float32) -> Tensor:
    """The n x n identity matrix."""
    return eye(n, dtype=dtype)


# --- shape -------------------------------------------------------------------------------------------
def reshape(x: Any, new_shape: Any) -> Tensor:
    """`x` with a new shape (one entry may be -1)."""
    return _ops.reshape(_t(x), tuple(new_shape) if isinstance(new_shape, (list, tuple)) else (new_shape,))


def ravel(x: Any) -> Tensor:
    """`x` flattened to 1-D."""
    return _ops.reshape(_t(x), (-1,))


def transpose(a: Any, axes: Sequence[int] | None = None) -> Tensor:
    """`a` with its axes permuted (reversed when `axes` is None)."""
    x = _t(a)
    return _ops.transpose(x, tuple(range(x.ndim))[::-1] if axes is None else tuple(axes))


def swapaxes(x: Any, axis1: int, axis2: int) -> Tensor:
    """`x` with two axes exchanged."""
    return _ops.swapaxes(_t(x), axis1, axis2)


def moveaxis(a: Any, source: Any, destination: Any) -> Tensor:
    """`a` with axes moved from `source` to `destination`."""
    return _ops.moveaxis(_t(a), source, destination)


def expand_dims(a: Any, axis: int) -> Tensor:
    """`a` with a new axis of length 1 at `axis`."""
    return _ops.expand_dims(_t(a), axis)


def squeeze(a: Any, axis: Any = None) -> Tensor:
    """`a` without its length-1 axes (or only `axis`)."""
    return _ops.squeeze(_t(a), axis)


def concatenate(arrays: Sequence[Any], axis: int = 0) -> Tensor:
    """The arrays joined along `axis`."""
    return _ops.concat(tuple(_t(a) for a in arrays), axis)


def stack(arrays: Sequence[Any], axis: int = 0) -> Tensor:
    """The arrays stacked along a new `axis`."""
    return _ops.stack([_t(a) for a in arrays], axis)


def split(x: Any, indices_or_sections: Any, axis: int = 0) -> tuple[Tensor, ...]:
    """`x` split along `axis` into equal sections or at the given indices."""
    t = _t(x)
    if isinstance(indices_or_sections, int):
        return tuple(_ops.split(t, t.shape[axis] // indices_or_sections, axis))
    return tuple(_ops.tensor_split(t, list(indices_or_sections), axis))


def tile(a: Any, reps: Any) -> Tensor:
    """`a` repeated `reps` times along each axis."""
    return _ops.tile(_t(a), tuple(reps) if isinstance(reps, (list, tuple)) else (reps,))


def broadcast_to(array: Any, shape: Any) -> Tensor:
    """`array` broadcast to `shape`."""
    return _ops.broadcast_to(_t(array), tuple(shape))


def flip(m: Any, axis: Any = None) -> Tensor:
    """`m` reversed along `axis` (every axis when None)."""
    x = _t(m)
    axes = tuple(range(x.ndim)) if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    return _ops.flip(x, axes)


# --- elementwise -------------------------------------------------------------------------------------
def _unary(name: str, op: Any, doc: str) -> Any:
    def fn(x: Any, dtype: Any = None) -> Tensor:
        out = op(_t(x))
        return out if dtype is None else _ops.cast(out, dtype)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__module__ = __name__
    return fn


def _binary(name: str, op: Any, doc: str) -> Any:
    def fn(x1: Any, x2: Any, dtype: Any = None) -> Tensor:
        a = x1 if isinstance(x1, (int, float)) and isinstance(x2, Tensor) else _t(x1)  # numbers stay numbers
        b = x2 if isinstance(x2, (int, float)) else _t(x2)                              # next to a Tensor
        out = op(a, b)
        return out if dtype is None else _ops.cast(out, dtype)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__module__ = __name__
    return fn


absolute = _unary("absolute", _ops.abs, "|x| element-wise.")
abs = _unary("abs", _ops.abs, "|x| element-wise.")  # noqa: A001 - NumPy's name
exp = _unary("exp", _ops.exp, "e**x element-wise.")
expm1 = _unary("expm1", _ops.expm1, "e**x - 1 element-wise.")
log = _unary("log", _ops.log, "Natural logarithm element-wise.")
log1p = _unary("log1p", _ops.log1p, "log(1 + x) element-wise.")
log2 = _unary("log2", _ops.log2, "Base-2 logarithm element-wise.")
log10 = _unary("log10", _ops.log10, "Base-10 logarithm element-wise.")
sqrt = _unary("sqrt", _ops.sqrt, "Square root element-wise.")
square = _unary("square", _ops.square, "x**2 element-wise.")
sin = _unary("sin", _ops.sin, "Sine element-wise.")
cos = _unary("cos", _ops.cos, "Cosine element-wise.")
tan = _unary("tan", _ops.tan, "Tangent element-wise.")
tanh = _unary("tanh", _ops.tanh, "Hyperbolic tangent element-wise.")
sinh = _unary("sinh", _ops.sinh, "Hyperbolic sine element-wise.")
cosh = _unary("cosh", _ops.cosh, "Hyperbolic cosine element-wise.")
arctan = _unary("arctan", _ops.atan, "Inverse tangent element-wise.")
floor = _unary("floor", _ops.floor, "Rounds down element-wise.")
ceil = _unary("ceil", _ops.ceil, "Rounds up element-wise.")
sign = _unary("sign", _ops.sign, "-1, 0 or 1 by the sign of each element.")
negative = _unary("negative", _ops.neg, "-x element-wise.")
reciprocal = _unary("reciprocal", _ops.reciprocal, "1 / x element-wise.")
isnan = _unary("isnan", _ops.isnan, "Which elements are NaN.")
isinf = _unary("isinf", _ops.isinf, "Which elements are infinite.")
isfinite = _unary("isfinite", _ops.isfinite, "Which elements are finite.")
logical_not = _unary("logical_not", _ops.logical_not, "Element-wise NOT.")

add = _binary("add", _ops.add, "x1 + x2 element-wise, with broadcasting.")
subtract = _binary("subtract", _ops.sub, "x1 - x2 element-wise, with broadcasting.")
multiply = _binary("multiply", _ops.mul, "x1 * x2 element-wise, with broadcasting.")
divide = _binary("divide", _ops.div, "x1 / x2 element-wise (true division), with broadcasting.")
true_divide = _binary("true_divide", _ops.div, "x1 / x2 element-wise (true division), with broadcasting.")
floor_divide = _binary("floor_divide", _ops.floor_divide, "x1 // x2 element-wise.")
power = _binary("power", _ops.pow, "x1 ** x2 element-wise.")
remainder = _binary("remainder", _ops.remainder, "x1 mod x2 with the sign of x2 (NumPy's %).")
maximum = _binary("maximum", _ops.maximum, "The larger of x1 and x2 element-wise.")
minimum = _binary("minimum", _ops.minimum, "The smaller of x1 and x2 element-wise.")
arctan2 = _binary("arctan2", _ops.atan2, "atan(x1 / x2) with the quadrant of (x2, x1).")
equal = _binary("equal", _ops.equal, "x1 == x2 element-wise.")
not_equal = _binary("not_equal", _ops.ne, "x1 != x2 element-wise.")
less = _binary("less", _ops.less, "x1 < x2 element-wise.")
less_equal = _binary("less_equal", _ops.less_equal, "x1 <= x2 element-wise.")
greater = _binary("greater", _ops.greater, "x1 > x2 element-wise.")
greater_equal = _binary("greater_equal", _ops.greater_equal, "x1 >= x2 element-wise.")
logical_and = _binary("logical_and", _ops.logical_and, "Element-wise AND.")
logical_or = _binary("logical_or", _ops.logical_or, "Element-wise OR.")


def clip(a: Any, a_min: Any, a_max: Any) -> Tensor:
    """`a` limited to [a_min, a_max] (either may be None)."""
    return _ops.clamp(_t(a), a_min, a_max)


def where(condition: Any, x: Any = None, y: Any = None) -> Any:
    """`x` where `condition` holds, else `y` (with only `condition`: the indices where it holds)."""
    if x is None and y is None:
        return _ops.nonzero(_t(condition), as_tuple=True)
    return _ops.where(_t(condition), x if isinstance(x, (int, float)) else _t(x),
                      y if isinstance(y, (int, float)) else _t(y))


def around(a: Any, decimals: int = 0) -> Tensor:
    """`a` rounded to `decimals` places (halves to even, as NumPy)."""
    x = _t(a)
    if decimals == 0:
        return _ops.round(x)
    scale = 10.0 ** decimals
    return _ops.div(_ops.round(_ops.mul(x, scale)), scale)


round = around  # noqa: A001 - NumPy's name


def isclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """Where |a - b| <= atol + rtol * |b|."""
    return _ops.isclose(_t(a), _t(b), rtol, atol, equal_nan)


def allclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """Whether all elements are close (see `isclose`)."""
    return builtins.bool(_ops.isclose(_t(a), _t(b), rtol, atol, equal_nan).all())


# --- reductions --------------------------------------------------------------------------------------
def _axis(axis: Any) -> Any:
    return tuple(axis) if isinstance(axis, list) else axis


def sum(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Sum over `axis` (every axis when None)."""
    return _ops.sum(_t(a, dtype), _axis(axis), keepdims)


def mean(a: Any, axis: Any = None, keepdims: bool = False, dtype: Any = None) -> Tensor:
    """Mean over `axis` (every axis when None)."""
    return _ops.mean(_t(a, dtype), _axis(axis), keepdims)


def prod(a: Any, axis: Any = None, keepdims: bool = False, dtype: Any = None) -> Tensor:
    """Product over `axis` (every axis when None)."""
    return _ops.prod(_t(a, dtype), _axis(axis), keepdims)


def amax(a: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Maximum over `axis` (every axis when None)."""
    x = _t(a)
    return _ops.amax(x, tuple(range(x.ndim)) if axis is None else _axis(axis), keepdims)


def amin(a: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Minimum over `axis` (every axis when None)."""
    x = _t(a)
    return _ops.amin(x, tuple(range(x.ndim)) if axis is None else _axis(axis), keepdims)


max = amax  # noqa: A001 - NumPy's name
min = amin  # noqa: A001 - NumPy's name


def argmax(a: Any, axis: int | None = None) -> Tensor:
    """Index of the maximum (of the flattened input when `axis` is None)."""
    x = _t(a)
    return _ops.argmax(_ops.reshape(x, (-1,)) if axis is None else x, 0 if axis is None else axis)


def argmin(a: Any, axis: int | None = None) -> Tensor:
    """Index of the minimum (of the flattened input when `axis` is None)."""
    x = _t(a)
    return _ops.argmin(_ops.reshape(x, (-1,)) if axis is None else x, 0 if axis is None else axis)


def var(x: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """Variance over `axis`, dividing by N - ddof."""
    return _ops.var(_t(x), _axis(axis), ddof, keepdims)


def std(x: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """Standard deviation over `axis`, dividing by N - ddof."""
    return _ops.std(_t(x), _axis(axis), ddof, keepdims)


def cumsum(a: Any, axis: int | None = None, dtype: Any = None) -> Tensor:
    """Cumulative sum along `axis` (of the flattened input when None)."""
    x = _t(a, dtype)
    return _ops.cumsum(_ops.reshape(x, (-1,)) if axis is None else x, 0 if axis is None else axis)


def all(a: Any, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether every element (along `axis`) is true."""
    return _ops.all(_t(a), _axis(axis), keepdims)


def any(a: Any, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether any element (along `axis`) is true."""
    return _ops.any(_t(a), _axis(axis), keepdims)


# --- sorting and linear algebra ----------------------------------------------------------------------
def sort(a: Any, axis: int = -1) -> Tensor:
    """`a` sorted along `axis`."""
    return _ops.sort(_t(a), axis)[0]


def argsort(a: Any, axis: int = -1) -> Tensor:
    """Indices that sort `a` along `axis`."""
    return _ops.argsort(_t(a), axis)


def matmul(x1: Any, x2: Any) -> Tensor:
    """Matrix product with NumPy's broadcasting rules."""
    return _ops.matmul(_t(x1), _t(x2))


def dot(a: Any, b: Any) -> Tensor:
    """NumPy's dot: the inner product of vectors, else a matrix product over a's last and b's
    second-to-last axis."""
    x, y = _t(a), _t(b)
    if x.ndim == 0 or y.ndim == 0:
        return _ops.mul(x, y)
    if y.ndim == 1:
        return _ops.sum(_ops.mul(x, y), -1)
    n = x.shape[-1]
    rhs = _ops.reshape(_ops.moveaxis(y, -2, 0), (n, -1))  # (n, rest of b)
    out = _ops.matmul(_ops.reshape(x, (-1, n)), rhs)
    return _ops.reshape(out, tuple(x.shape[:-1]) + tuple(y.shape[:-2]) + tuple(y.shape[-1:]))


def inner(a: Any, b: Any) -> Tensor:
    """Sum of products over the last axes of `a` and `b`."""
    x, y = _t(a), _t(b)
    if x.ndim == 0 or y.ndim == 0:
        return _ops.mul(x, y)
    n = x.shape[-1]
    out = _ops.matmul(_ops.reshape(x, (-1, n)), _ops.transpose(_ops.reshape(y, (-1, n)), (1, 0)))
    return _ops.reshape(out, tuple(x.shape[:-1]) + tuple(y.shape[:-1]))


def outer(a: Any, b: Any) -> Tensor:
    """The outer product of the flattened `a` and `b`."""
    return _ops.mul(_ops.reshape(_t(a), (-1, 1)), _ops.reshape(_t(b), (1, -1)))


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    """Sum along a diagonal of `a`."""
    x = _t(a)
    n, m = x.shape[axis1], x.shape[axis2]
    mask = Tensor(_np.eye(n, m, offset), x.dtype)
    x = _ops.moveaxis(x, (axis1, axis2), (-2, -1))
    return _ops.sum(_ops.mul(x, mask), (-2, -1))


if not _typing.TYPE_CHECKING:  # hidden from Pyright/Pylance, which would otherwise accept any attribute of the module
    def __getattr__(name: str):
        """A ``mindspore.numpy`` name not written yet: an AttributeError saying so."""
        if name.startswith("_"):
            raise AttributeError(f"module 'spore.numpy' has no attribute {name!r}")
        raise AttributeError(f"module 'spore.numpy' has no attribute {name!r} (spore.numpy has only a first set "
                             "of mindspore.numpy's functions; use spore.ops or NumPy on .asnumpy())")
