"""MindSpore's everyday composite ops (issue 14): matrix helpers (mm, t, tril, triu, trace, diag,
outer/ger, inner, dot, kron, the add*-products), elementwise helpers (deg2rad, hypot, logaddexp,
fmod, frac, copysign, heaviside, xdivy, logit, signbit, ...), NaN-aware reductions, cumulative
products and differences, rot90, aminmax, the split/stack shorthands and distances.

Each is written with existing ops (`functional`), so gradients, Graph mode and shape rules are
theirs; where MindSpore has the Tensor method too, the function is installed as one
(`tensor_method`). Semantics are MindSpore's documented ones (which follow NumPy/PyTorch here).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import ShapeError
from ..tensor import Tensor, tensor_method
from . import functional as F
from .math_extra import addmm, cummax, cummin


def _t(x: Any, like: Tensor | None = None) -> Tensor:
    if isinstance(x, Tensor):
        return x
    return Tensor(np.asarray(x, like.dtype.np if like is not None else None))


def _float(x: Tensor) -> Tensor:
    return x if x.dtype.is_float else F.cast(x, mstype.float32)


def _mask(shape: tuple[int, ...], diagonal: int, lower: bool) -> Tensor:
    rows, cols = shape[-2], shape[-1]
    m = np.tril(np.ones((rows, cols), bool), diagonal) if lower else np.triu(np.ones((rows, cols), bool), diagonal)
    return Tensor(m)


def _matrix(op: str, x: Tensor) -> None:
    if x.ndim < 2:
        raise ShapeError(op, "a tensor of rank >= 2 (matrices in the last two axes)", f"shape {tuple(x.shape)}")


# --- matrices -----------------------------------------------------------------------------------------
@tensor_method("mm")
def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """The product of two 2-D matrices."""
    if input.ndim != 2 or mat2.ndim != 2:
        raise ShapeError("mm", "two 2-D matrices", f"shapes {tuple(input.shape)} and {tuple(mat2.shape)}")
    return F.matmul(input, mat2)


@tensor_method("t")
def t(input: Tensor) -> Tensor:
    """The transpose of a 2-D tensor (a 0-D or 1-D tensor is returned as it is)."""
    if input.ndim > 2:
        raise ShapeError("t", "a tensor of rank <= 2", f"shape {tuple(input.shape)}")
    return F.transpose(input, (1, 0)) if input.ndim == 2 else input


@tensor_method("tril")
def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle of the last two axes: entries above `diagonal` set to 0."""
    _matrix("tril", input)
    return F.where(_mask(input.shape, diagonal, True), input, F.zeros_like(input))


@tensor_method("triu")
def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle of the last two axes: entries below `diagonal` set to 0."""
    _matrix("triu", input)
    return F.where(_mask(input.shape, diagonal, False), input, F.zeros_like(input))


def trace(input: Tensor) -> Tensor:
    """The sum of the main diagonal of a 2-D tensor."""
    if input.ndim != 2:
        raise ShapeError("trace", "a 2-D tensor", f"shape {tuple(input.shape)}")
    return _trace_method(input)


@tensor_method("trace")
def _trace_method(self: Tensor, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None) -> Tensor:
    """The sum along diagonal `offset` of the (axis1, axis2) planes (NumPy's trace, as MindSpore's
    ``Tensor.trace``); the other axes remain."""
    if self.ndim < 2:
        raise ShapeError("trace", "a tensor of rank >= 2", f"shape {tuple(self.shape)}")
    x = self if dtype is None else F.cast(self, dtype)
    a1, a2 = axis1 % x.ndim, axis2 % x.ndim
    rest = [d for d in range(x.ndim) if d not in (a1, a2)]
    x = F.transpose(x, tuple(rest) + (a1, a2))
    eye = Tensor(np.eye(x.shape[-2], x.shape[-1], offset, dtype=bool))
    return F.sum(F.where(eye, x, F.zeros_like(x)), (-2, -1))


@tensor_method("diag")
def diag(input: Tensor) -> Tensor:
    """MindSpore's diag: a tensor of shape ``input.shape + input.shape`` with `input`'s values on its
    diagonal (a 1-D input gives the square diagonal matrix)."""
    n = int(np.prod(input.shape)) if input.ndim else 1
    flat = F.reshape(input, (n, 1))
    out = F.mul(flat, Tensor(np.eye(n, dtype=input.dtype.np)))
    return F.reshape(out, tuple(input.shape) * 2)


@tensor_method("outer")
def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """The outer product of two 1-D tensors: (n, m)."""
    if input.ndim != 1 or vec2.ndim != 1:
        raise ShapeError("outer", "two 1-D tensors", f"shapes {tuple(input.shape)} and {tuple(vec2.shape)}")
    return F.mul(F.reshape(input, (-1, 1)), F.reshape(vec2, (1, -1)))


@tensor_method("ger")
def ger(input: Tensor, vec2: Tensor) -> Tensor:
    """The outer product of two 1-D tensors (the same as `outer`)."""
    return outer(input, vec2)


@tensor_method("inner")
def inner(input: Tensor, other: Tensor) -> Tensor:
    """Sum of products over the last axes (a 0-D operand multiplies): shape a.shape[:-1] + b.shape[:-1]."""
    if input.ndim == 0 or other.ndim == 0:
        return F.mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise ShapeError("inner", "operands with the same last dimension",
                         f"shapes {tuple(input.shape)} and {tuple(other.shape)}")
    n = input.shape[-1]
    prod = F.matmul(F.reshape(input, (-1, n)), F.transpose(F.reshape(other, (-1, n)), (1, 0)))
    return F.reshape(prod, tuple(input.shape[:-1]) + tuple(other.shape[:-1]))


@tensor_method("dot")
def dot(input: Tensor, other: Tensor) -> Tensor:
    """The inner product of two 1-D tensors (a 0-D result)."""
    if input.ndim != 1 or other.ndim != 1 or input.shape != other.shape:
        raise ShapeError("dot", "two 1-D tensors of the same length",
                         f"shapes {tuple(input.shape)} and {tuple(other.shape)}")
    return F.sum(F.mul(input, other))


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: every entry of `input` times the whole of `other`."""
    nd = max(input.ndim, other.ndim)
    a = F.reshape(input, (1,) * (nd - input.ndim) + tuple(input.shape))
    b = F.reshape(other, (1,) * (nd - other.ndim) + tuple(other.shape))
    a_sh = [d for s in a.shape for d in (s, 1)]
    b_sh = [d for s in b.shape for d in (1, s)]
    out = F.mul(F.reshape(a, tuple(a_sh)), F.reshape(b, tuple(b_sh)))
    return F.reshape(out, tuple(x * y for x, y in zip(a.shape, b.shape)))


def _scaled(base: Tensor, prod: Tensor, beta: Any, alpha: Any) -> Tensor:
    prod = prod if alpha == 1 else F.mul(prod, alpha)
    if beta == 0:
        return prod
    return F.add(base if beta == 1 else F.mul(base, beta), prod)


@tensor_method("addmv")
def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * input + alpha * (mat @ vec)."""
    return _scaled(input, F.reshape(F.matmul(mat, F.reshape(vec, (-1, 1))), (mat.shape[0],)), beta, alpha)


@tensor_method("addr")
def addr(x: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * x + alpha * outer(vec1, vec2)."""
    return _scaled(x, outer(vec1, vec2), beta, alpha)


@tensor_method("baddbmm")
def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * input + alpha * (batch1 @ batch2), batch by batch."""
    return _scaled(input, F.bmm(batch1, batch2), beta, alpha)


@tensor_method("addbmm")
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * input + alpha * (the sum over the batch of batch1 @ batch2)."""
    return _scaled(input, F.sum(F.bmm(batch1, batch2), 0), beta, alpha)


# --- elementwise --------------------------------------------------------------------------------------
@tensor_method("deg2rad")
def deg2rad(x: Tensor) -> Tensor:
    """Degrees to radians."""
    return F.mul(_float(x), math.pi / 180.0)


@tensor_method("rad2deg")
def rad2deg(x: Tensor) -> Tensor:
    """Radians to degrees."""
    return F.mul(_float(x), 180.0 / math.pi)


@tensor_method("hypot")
def hypot(input: Tensor, other: Any) -> Tensor:
    """sqrt(input**2 + other**2), without overflow for large values."""
    a, b = F.abs(_float(input)), F.abs(_float(_t(other, input)))
    big, small = F.maximum(a, b), F.minimum(a, b)
    safe = F.where(F.equal(big, 0.0), F.ones_like(big), big)
    ratio = F.div(small, safe)
    return F.mul(big, F.sqrt(F.add(F.mul(ratio, ratio), 1.0)))


@tensor_method("logaddexp")
def logaddexp(input: Tensor, other: Any) -> Tensor:
    """log(exp(input) + exp(other)), computed stably."""
    a, b = _float(input), _float(_t(other, input))
    m = F.stop_gradient(F.maximum(a, b))
    return F.add(m, F.log(F.add(F.exp(F.sub(a, m)), F.exp(F.sub(b, m)))))


@tensor_method("logaddexp2")
def logaddexp2(input: Tensor, other: Any) -> Tensor:
    """log2(2**input + 2**other), computed stably."""
    ln2 = math.log(2.0)
    return F.div(logaddexp(F.mul(_float(input), ln2), F.mul(_float(_t(other, input)), ln2)), ln2)


def float_power(input: Any, exponent: Any) -> Tensor:
    """input ** exponent computed in float64 (MindSpore's float_power)."""
    a = F.cast(_t(input), mstype.float64)
    b = exponent if isinstance(exponent, (int, float)) else F.cast(_t(exponent), mstype.float64)
    return F.pow(a, b)


@tensor_method("float_power")
def _float_power_method(self: Tensor, other: Any) -> Tensor:
    """self ** other computed in float64 (MindSpore's ``Tensor.float_power(other)``)."""
    return float_power(self, other)


@tensor_method("fmod")
def fmod(input: Tensor, other: Any) -> Tensor:
    """The remainder of input / other with the sign of `input` (C's fmod; `remainder` is NumPy's %)."""
    a, b = _float(input), _float(_t(other, input))
    return F.sub(a, F.mul(F.trunc(F.div(a, b)), b))


@tensor_method("frac")
def frac(x: Tensor) -> Tensor:
    """The fractional part x - trunc(x), with x's sign."""
    return F.sub(x, F.trunc(x))


@tensor_method("positive")
def positive(input: Tensor) -> Tensor:
    """`input` itself (unary plus); bool inputs are refused, as in MindSpore."""
    if input.dtype is mstype.bool_:
        from ..errors import DTypeError

        raise DTypeError("positive", "a numeric tensor", "Bool")
    return input


@tensor_method("sgn")
def sgn(input: Tensor) -> Tensor:
    """-1, 0 or 1 by the sign of each element (real tensors: the same as `sign`)."""
    return F.sign(input)


@tensor_method("signbit")
def signbit(input: Tensor) -> Tensor:
    """Whether the sign bit is set: True for negatives and for -0.0."""
    x = _float(input)
    zero = F.equal(x, 0.0)
    neg_zero = F.logical_and(zero, F.less(F.div(1.0, F.where(zero, x, F.ones_like(x))), 0.0))
    return F.logical_or(F.less(x, 0.0), neg_zero)


@tensor_method("copysign")
def copysign(x: Tensor, other: Any) -> Tensor:
    """|x| with the sign of `other` (-0.0 counts as negative)."""
    a = F.abs(_float(x))
    return F.where(signbit(_t(other, x)), F.neg(a), a)


@tensor_method("heaviside")
def heaviside(input: Tensor, values: Any) -> Tensor:
    """0 where input < 0, 1 where input > 0, `values` where input == 0."""
    v = _t(values, input)
    step = F.where(F.greater(input, 0), F.ones_like(input), F.zeros_like(input))
    return F.where(F.equal(input, 0), F.broadcast_to(F.cast(v, input.dtype), tuple(input.shape)), step)


@tensor_method("xdivy")
def xdivy(x: Tensor, y: Any) -> Tensor:
    """x / y, and 0 where x is 0 (whatever y is)."""
    a, b = _float(x), _float(_t(y, x))
    zero = F.equal(a, 0.0)
    return F.where(zero, F.zeros_like(F.add(a, b)), F.div(a, F.where(zero, F.ones_like(b), b)))


def ldexp(x: Tensor, other: Any) -> Tensor:
    """x * 2**other."""
    return F.mul(_float(x), F.pow(2.0, _float(_t(other))))


@tensor_method("logit")
def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """log(p / (1 - p)), with p clamped to [eps, 1 - eps] when `eps` is given."""
    p = _float(input)
    if eps is not None:
        p = F.clamp(p, float(eps), 1.0 - float(eps))
    return F.log(F.div(p, F.sub(1.0, p)))


# --- reductions and scans -----------------------------------------------------------------------------
@tensor_method("nansum")
def nansum(input: Tensor, axis: Any = None, keepdims: bool = False, *, dtype: Any = None) -> Tensor:
    """The sum over `axis` with NaNs counted as zero."""
    x = input if dtype is None else F.cast(input, dtype)
    clean = F.where(F.isnan(x), F.zeros_like(x), x) if x.dtype.is_float else x
    return F.sum(clean, axis, keepdims)


@tensor_method("nanmean")
def nanmean(input: Tensor, axis: Any = None, keepdims: bool = False, *, dtype: Any = None) -> Tensor:
    """The mean over `axis` of the elements that are not NaN (NaN where all are)."""
    x = _float(input if dtype is None else F.cast(input, dtype))
    ok = F.logical_not(F.isnan(x))
    total = F.sum(F.where(ok, x, F.zeros_like(x)), axis, keepdims)
    return F.div(total, F.sum(F.cast(ok, x.dtype), axis, keepdims))


@tensor_method("cumprod")
def cumprod(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """The running product along `dim` (exact for zeros and negatives: one multiply per step)."""
    x = input if dtype is None else F.cast(input, dtype)
    if x.ndim == 0:
        return x
    d = dim % x.ndim
    parts = F.split(x, 1, d)
    acc, outs = parts[0], [parts[0]]
    for p in parts[1:]:
        acc = F.mul(acc, p)
        outs.append(acc)
    return F.concat(outs, d)


@tensor_method("logcumsumexp")
def logcumsumexp(input: Tensor, axis: int) -> Tensor:
    """log(cumsum(exp(input))) along `axis`, computed stably."""
    x = _float(input)
    m = F.stop_gradient(F.amax(x, axis, True))
    return F.add(F.log(F.cumsum(F.exp(F.sub(x, m)), axis)), m)


@tensor_method("diff")
def diff(x: Tensor, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Tensor:
    """The n-th forward difference along `axis`, after joining `prepend` and `append` to `x`."""
    parts = [p for p in (prepend, x, append) if p is not None]
    y = F.concat([_t(p, x) for p in parts], axis) if len(parts) > 1 else x
    a = axis % y.ndim
    for _ in range(int(n)):
        length = y.shape[a] - 1
        if length < 0:
            break
        y = F.sub(F.narrow(y, a, 1, length), F.narrow(y, a, 0, length))
    return y


@tensor_method("aminmax")
def aminmax(input: Tensor, *, axis: int = 0, keepdims: bool = False) -> tuple[Tensor, Tensor]:
    """(minimum, maximum) along `axis`."""
    return F.amin(input, axis, keepdims), F.amax(input, axis, keepdims)


@tensor_method("rot90")
def rot90(input: Tensor, k: int, dims: Sequence[int]) -> Tensor:
    """`input` rotated by 90 degrees `k` times in the plane of `dims` (from the first towards the second)."""
    d0, d1 = (int(d) % input.ndim for d in dims)
    if d0 == d1:
        raise ValueError(f"rot90: dims must be two different axes, got {dims!r}")
    k %= 4
    if k == 0:
        return input
    if k == 2:
        return F.flip(input, (d0, d1))
    perm = list(range(input.ndim))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    if k == 1:
        return F.transpose(F.flip(input, (d1,)), tuple(perm))
    return F.flip(F.transpose(input, tuple(perm)), (d1,))


# --- shorthands for splitting and stacking ---------------------------------------------------------------
def _split_along(op: str, input: Tensor, indices_or_sections: Any, axis: int, min_rank: int) -> tuple[Tensor, ...]:
    if input.ndim < min_rank:
        raise ShapeError(op, f"a tensor of rank >= {min_rank}", f"shape {tuple(input.shape)}")
    return F.tensor_split(input, indices_or_sections, axis)


@tensor_method("hsplit")
def hsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """Split along axis 1 (axis 0 for a 1-D tensor)."""
    return _split_along("hsplit", input, indices_or_sections, 0 if input.ndim == 1 else 1, 1)


@tensor_method("vsplit")
def vsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """Split along axis 0 (rank >= 2)."""
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


@tensor_method("dsplit")
def dsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """Split along axis 2 (rank >= 3)."""
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


def _atleast(inputs: Any, rank: int) -> Any:
    def one(x: Tensor) -> Tensor:
        x = _t(x)
        if x.ndim >= rank:
            return x
        shape = {0: {1: (1,), 2: (1, 1), 3: (1, 1, 1)}, 1: {2: (1, -1), 3: (1, -1, 1)},
                 2: {3: tuple(x.shape) + (1,)}}[x.ndim][rank]
        return F.reshape(x, shape)

    if isinstance(inputs, (list, tuple)):
        return tuple(one(x) for x in inputs)
    return one(inputs)


def atleast_1d(inputs: Any) -> Any:
    """Each tensor with at least 1 dimension (a tuple for a list of tensors)."""
    return _atleast(inputs, 1)


def atleast_2d(inputs: Any) -> Any:
    """Each tensor with at least 2 dimensions (a 1-D tensor becomes a row)."""
    return _atleast(inputs, 2)


def atleast_3d(inputs: Any) -> Any:
    """Each tensor with at least 3 dimensions ((n,) becomes (1, n, 1); (m, n) becomes (m, n, 1))."""
    return _atleast(inputs, 3)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """1-D tensors as the columns of a 2-D one (2-D tensors joined along axis 1)."""
    cols = [F.reshape(x, (-1, 1)) if x.ndim <= 1 else x for x in (_t(v) for v in tensors)]
    return F.concat(cols, 1)


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """The tensors, made at least 3-D, joined along axis 2."""
    return F.concat(list(atleast_3d(list(tensors))), 2)


# --- distances ---------------------------------------------------------------------------------------------
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-08) -> Tensor:
    """x1 . x2 / max(|x1| |x2|, eps) along `dim` (broadcasting)."""
    a, b = _float(x1), _float(x2)
    num = F.sum(F.mul(a, b), dim)
    den = F.mul(F.sqrt(F.sum(F.mul(a, a), dim)), F.sqrt(F.sum(F.mul(b, b), dim)))
    return F.div(num, F.maximum(den, eps))


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distance between each row of x1 (B, P, M) and each row of x2 (B, R, M): (B, P, R)
    (2-D inputs without the batch axis work too)."""
    if x1.ndim not in (2, 3) or x1.ndim != x2.ndim or x1.shape[-1] != x2.shape[-1]:
        raise ShapeError("cdist", "x1 (B, P, M) and x2 (B, R, M), or 2-D (P, M) and (R, M)",
                         f"shapes {tuple(x1.shape)} and {tuple(x2.shape)}")
    d = F.abs(F.sub(F.expand_dims(_float(x1), -2), F.expand_dims(_float(x2), -3)))
    if p == 0:
        return F.sum(F.cast(F.greater(d, 0), d.dtype), -1)
    if math.isinf(p):
        return F.amax(d, -1)
    if p == 1:
        return F.sum(d, -1)
    return F.pow(F.sum(F.pow(d, float(p)), -1), 1.0 / float(p))


# --- dtype and shape queries, conversions ----------------------------------------------------------------
@tensor_method("type_as")
def type_as(input: Tensor, other: Tensor) -> Tensor:
    """`input` cast to `other`'s dtype."""
    return input if input.dtype is other.dtype else F.cast(input, other.dtype)


@tensor_method("is_floating_point")
def is_floating_point(input: Tensor) -> bool:
    """Whether the dtype is a floating-point one."""
    return bool(input.dtype.is_float)


@tensor_method("is_complex")
def is_complex(input: Tensor) -> bool:
    """Whether the dtype is complex64 or complex128."""
    return bool(input.dtype.is_complex)


@tensor_method("isreal")
def isreal(input: Tensor) -> Tensor:
    """Which elements are real: those with a zero imaginary part (all of a real tensor)."""
    if input.dtype.is_complex:
        return F.equal(F.imag(input), 0)
    return F.cast(F.ones_like(input, dtype=mstype.int32), mstype.bool_)


@tensor_method("isposinf")
def isposinf(input: Tensor) -> Tensor:
    """Which elements are +inf."""
    return F.logical_and(F.isinf(input), F.greater(input, 0)) if input.dtype.is_float else \
        F.cast(F.zeros_like(input, dtype=mstype.int32), mstype.bool_)


@tensor_method("isneginf")
def isneginf(input: Tensor) -> Tensor:
    """Which elements are -inf."""
    return F.logical_and(F.isinf(input), F.less(input, 0)) if input.dtype.is_float else \
        F.cast(F.zeros_like(input, dtype=mstype.int32), mstype.bool_)


@tensor_method("nan_to_num")
def nan_to_num(input: Tensor, nan: float | None = None, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    """NaN -> `nan` (0.0), +inf -> `posinf` (the dtype's max), -inf -> `neginf` (its lowest)."""
    if not input.dtype.is_float:
        return input
    info = np.finfo(input.dtype.np if input.dtype is not mstype.bfloat16 else np.float32)
    x = F.where(F.isnan(input), F.full_like(input, 0.0 if nan is None else nan), input)
    x = F.where(isposinf(x), F.full_like(x, float(info.max) if posinf is None else posinf), x)
    return F.where(isneginf(x), F.full_like(x, float(info.min) if neginf is None else neginf), x)


def count_nonzero(x: Tensor, axis: Any = (), keep_dims: bool = False, dtype: Any = mstype.int32) -> Tensor:
    """How many elements are nonzero, over `axis` (every axis when it is ())."""
    axes = None if axis == () or axis is None else axis
    ones = F.cast(F.ne(x, 0), mstype.int32)
    return F.cast(F.sum(ones, axes, keep_dims), dtype)


@tensor_method("msort")
def msort(input: Tensor) -> Tensor:
    """`input` sorted along its first axis."""
    return F.sort(input, 0)[0]


def top_k(input_x: Tensor, k: int, sorted: bool = True) -> tuple[Tensor, Tensor]:
    """(values, indices) of the `k` largest entries along the last axis (results always come sorted)."""
    return F.topk(input_x, k, None, True, sorted)


@tensor_method("top_k")
def _top_k_method(self: Tensor, k: int, sorted: bool = True) -> tuple[Tensor, Tensor]:
    """(values, indices) of the `k` largest entries along the last axis."""
    return top_k(self, k, sorted)


@tensor_method("reshape_as")
def _reshape_as(self: Tensor, other: Tensor) -> Tensor:
    """`self` reshaped to `other`'s shape."""
    return F.reshape(self, tuple(other.shape))


@tensor_method("ndimension")
def _ndimension(self: Tensor) -> int:
    """The number of dimensions (the same as ``ndim``)."""
    return self.ndim


@tensor_method("is_signed")
def _is_signed(self: Tensor) -> bool:
    """Whether the dtype holds negative numbers (floats and signed integers)."""
    return self.dtype.is_float or (self.dtype.is_int and not self.dtype.name.startswith("uint"))


@tensor_method("is_contiguous")
def _is_contiguous(self: Tensor) -> bool:
    """Whether the memory is C-contiguous (a traced tensor in Graph mode always is)."""
    return bool(self._traced or self._data.flags.c_contiguous)


@tensor_method("contiguous")
def _contiguous(self: Tensor) -> Tensor:
    """A C-contiguous tensor with the same values (`self` when it already is one)."""
    if self._traced or self._data.flags.c_contiguous:
        return self
    return Tensor._wrap(np.ascontiguousarray(self._data))


@tensor_method("byte")
def _byte(self: Tensor) -> Tensor:
    """`self` as uint8."""
    return F.cast(self, mstype.uint8)


@tensor_method("short")
def _short(self: Tensor) -> Tensor:
    """`self` as int16."""
    return F.cast(self, mstype.int16)


@tensor_method("bfloat16")
def _bfloat16(self: Tensor) -> Tensor:
    """`self` as bfloat16."""
    return F.cast(self, mstype.bfloat16)


@tensor_method("ptp")
def _ptp(self: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """max - min over `axis` (every axis when None): NumPy's peak-to-peak."""
    axes = tuple(range(self.ndim)) if axis is None else axis
    return F.sub(F.amax(self, axes, keepdims), F.amin(self, axes, keepdims))


@tensor_method("sum_to_size")
def _sum_to_size(self: Tensor, *size: Any) -> Tensor:
    """`self` summed down to `size` (which `self` must broadcast from), as a gradient is reduced."""
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    lead = self.ndim - len(shape)
    if lead < 0 or any(s not in (1, d) for s, d in zip(shape, self.shape[lead:])):
        raise ShapeError("sum_to_size", f"a size {tuple(self.shape)} broadcasts from", f"size {shape}")
    x = F.sum(self, tuple(range(lead))) if lead else self
    axes = tuple(i for i, (s, d) in enumerate(zip(shape, x.shape)) if s == 1 and d != 1)
    return F.sum(x, axes, True) if axes else x


# --- Tensor methods MindSpore has for ops defined in other modules ----------------------------------------
@tensor_method("bmm")
def _bmm_method(self: Tensor, mat2: Tensor) -> Tensor:
    """The batched matrix product self @ mat2 of two 3-D tensors."""
    return F.bmm(self, mat2)


@tensor_method("addmm")
def _addmm_method(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * self + alpha * (mat1 @ mat2)."""
    return addmm(self, mat1, mat2, beta=beta, alpha=alpha)


@tensor_method("cummax")
def _cummax_method(self: Tensor, axis: int) -> tuple[Tensor, Tensor]:
    """(running maximum along `axis`, int64 indices)."""
    return cummax(self, axis)


@tensor_method("cummin")
def _cummin_method(self: Tensor, axis: int) -> tuple[Tensor, Tensor]:
    """(running minimum along `axis`, int64 indices)."""
    return cummin(self, axis)
