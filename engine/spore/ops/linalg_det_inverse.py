"""Matrix inverse and determinants (issue 14): `inverse`, `matrix_determinant`, `slogdet`, `logdet`,
`log_matrix_determinant`, `matrix_power`, `matrix_solve`, `mv`, `vecdot`, `tensor_dot`,
`matrix_band_part`, `vander`, `tril_indices`/`triu_indices`, and the special functions `lgamma`,
`polygamma`, `mvlgamma`, `zeta`.

`MatrixInverse` and `SLogDet` are primitives (LAPACK through NumPy) with their gradients
(d inv(A) = -inv(A) dA inv(A); d log|det A| = tr(inv(A) dA)); the rest are composites of them.
`Polygamma` (n-th derivative of the digamma function, n = 0 is digamma) carries the gradients of
`Lgamma` and of itself; `Zeta` is Hurwitz's zeta(x, q), differentiable in q.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor, tensor_method
from . import functional as F
from ._rules import broadcast_shapes, require_float
from .primitive import Aval, primitive


def _square(op: str, a: Any) -> None:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ShapeError(op, "square matrices in the last two axes (..., n, n)", f"shape {tuple(a.shape)}")
    require_float(op, a)


def _mT(x: Tensor) -> Tensor:
    return F.swapaxes(x, -1, -2)


@primitive
class MatrixInverse:
    """The inverse of each square matrix in the last two axes; a singular matrix is an error."""

    def infer(a):
        _square("MatrixInverse", a)
        return Aval(tuple(a.shape), a.dtype)

    def impl(a):
        try:
            return np.linalg.inv(a).astype(a.dtype, copy=False)
        except np.linalg.LinAlgError as e:
            raise ValueError(f"MatrixInverse: a matrix is singular ({e})") from None

    def vjp(g, out, a):
        inv_t = _mT(out)
        return (F.neg(F.matmul(F.matmul(inv_t, g), inv_t)),)


@primitive
class SLogDet:
    """(sign, log|det|) of each square matrix in the last two axes, shape (...,) each."""

    multi_output = True

    def infer(a):
        _square("SLogDet", a)
        return Aval(tuple(a.shape[:-2]), a.dtype), Aval(tuple(a.shape[:-2]), a.dtype)

    def impl(a):
        sign, logabs = np.linalg.slogdet(a)
        return np.asarray(sign, a.dtype), np.asarray(logabs, a.dtype)

    def vjp(g, out, a):
        # only log|det| carries a gradient (the sign is piecewise constant)
        return (F.mul(F.expand_dims(F.expand_dims(g[1], -1), -1), _mT(MatrixInverse(a))),)


@tensor_method("inverse")
def inverse(input: Tensor) -> Tensor:
    """The inverse of a square matrix (or of each in a batch)."""
    return MatrixInverse(_float(input))


def _float(x: Tensor) -> Tensor:
    return x if x.dtype.is_float or x.dtype.is_complex else F.cast(x, mstype.float32)  # complex: refused by name


@tensor_method("slogdet")
def slogdet(input: Tensor) -> tuple[Tensor, Tensor]:
    """(sign, log|det|) of a square matrix (or of each in a batch)."""
    return SLogDet(_float(input))


@tensor_method("log_matrix_determinant")
def log_matrix_determinant(input: Tensor) -> tuple[Tensor, Tensor]:
    """(sign, log|det|): the same as `slogdet`."""
    return SLogDet(_float(input))


@tensor_method("matrix_determinant")
def matrix_determinant(input: Tensor) -> Tensor:
    """det of a square matrix (or of each in a batch): sign * exp(log|det|)."""
    sign, logabs = SLogDet(_float(input))
    return F.mul(sign, F.exp(logabs))


@tensor_method("logdet")
def logdet(input: Tensor) -> Tensor:
    """log(det(input)): NaN where the determinant is negative, -inf where it is 0."""
    sign, logabs = SLogDet(_float(input))
    nan = F.full_like(logabs, float("nan"))
    return F.where(F.less(sign, 0), nan, F.where(F.equal(sign, 0), F.full_like(logabs, -float("inf")), logabs))


@tensor_method("matrix_power")
def matrix_power(input: Tensor, n: int) -> Tensor:
    """input ** n by repeated squaring (n < 0 uses the inverse; n = 0 gives the identity)."""
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"matrix_power: n must be an int, got {type(n).__name__}")
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        raise ShapeError("matrix_power", "square matrices (..., n, n)", f"shape {tuple(input.shape)}")
    if n == 0:
        eye = F.eye(input.shape[-1], input.shape[-1], input.dtype)
        return F.broadcast_to(eye, tuple(input.shape))
    base = MatrixInverse(input) if n < 0 else input
    k, result = abs(int(n)), None
    while k:
        if k & 1:
            result = base if result is None else F.matmul(result, base)
        k >>= 1
        if k:
            base = F.matmul(base, base)
    return result


def matrix_solve(matrix: Tensor, rhs: Tensor, adjoint: bool = False) -> Tensor:
    """X with matrix @ X = rhs (adjoint: matrix^H @ X = rhs), for each matrix of a batch."""
    a = _mT(matrix) if adjoint else matrix
    return F.matmul(MatrixInverse(a), rhs)


def mv(mat: Tensor, vec: Tensor) -> Tensor:
    """The matrix-vector product of a 2-D `mat` (n, m) and a 1-D `vec` (m,)."""
    if mat.ndim != 2 or vec.ndim != 1 or mat.shape[1] != vec.shape[0]:
        raise ShapeError("mv", "mat (n, m) and vec (m,)", f"shapes {tuple(mat.shape)} and {tuple(vec.shape)}")
    return F.reshape(F.matmul(mat, F.reshape(vec, (-1, 1))), (mat.shape[0],))


def vecdot(x: Tensor, y: Tensor, *, axis: int = -1) -> Tensor:
    """sum(conj(x) * y) along `axis` (x and y broadcast); real tensors have conj(x) = x."""
    return F.reduce_sum(F.mul(x, y), axis)


def tensor_dot(x1: Tensor, x2: Tensor, axes: Any) -> Tensor:
    """The sum of products over the given axes: `axes` an int (the last n of x1 with the first n of
    x2) or a pair of axis lists, as NumPy's tensordot."""
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        a1, a2 = list(range(x1.ndim - n, x1.ndim)), list(range(n))
    else:
        a1, a2 = axes
        a1 = [a1] if isinstance(a1, int) else list(a1)
        a2 = [a2] if isinstance(a2, int) else list(a2)
    a1 = [a % x1.ndim for a in a1]
    a2 = [a % x2.ndim for a in a2]
    if len(a1) != len(a2) or any(x1.shape[i] != x2.shape[j] for i, j in zip(a1, a2)):
        raise ShapeError("tensor_dot", "contracted axes of equal sizes",
                         f"shapes {tuple(x1.shape)} axes {a1} and {tuple(x2.shape)} axes {a2}")
    free1 = [i for i in range(x1.ndim) if i not in a1]
    free2 = [j for j in range(x2.ndim) if j not in a2]
    k = int(np.prod([x1.shape[i] for i in a1])) if a1 else 1
    m1 = F.reshape(F.transpose(x1, tuple(free1 + a1)), (-1, k))
    m2 = F.reshape(F.transpose(x2, tuple(a2 + free2)), (k, -1))
    return F.reshape(F.matmul(m1, m2), tuple(x1.shape[i] for i in free1) + tuple(x2.shape[j] for j in free2))


def matrix_band_part(x: Tensor, lower: Any, upper: Any) -> Tensor:
    """x with every entry outside the band zeroed: keep (i, j) where (lower < 0 or i - j <= lower)
    and (upper < 0 or j - i <= upper)."""
    if x.ndim < 2:
        raise ShapeError("matrix_band_part", "a tensor of rank >= 2", f"shape {tuple(x.shape)}")
    lo = int(lower.item() if isinstance(lower, Tensor) else lower)
    up = int(upper.item() if isinstance(upper, Tensor) else upper)
    m, n = x.shape[-2], x.shape[-1]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    keep = ((lo < 0) | (i - j <= lo)) & ((up < 0) | (j - i <= up))
    return F.where(Tensor(keep), x, F.zeros_like(x))


def vander(x: Tensor, N: int | None = None) -> Tensor:
    """The Vandermonde matrix of a 1-D `x`: column j is x ** (N - 1 - j) (decreasing powers)."""
    if x.ndim != 1:
        raise ShapeError("vander", "a 1-D tensor", f"shape {tuple(x.shape)}")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise ValueError(f"vander: N must be >= 0, got {n}")
    powers = Tensor(np.arange(n - 1, -1, -1).astype(x.dtype.np))
    return F.pow(F.expand_dims(x, -1), powers)


def _tri_indices(op: str, row: int, col: int, offset: int, dtype: Any, lower: bool) -> Tensor:
    if row < 0 or col < 0:
        raise ValueError(f"{op}: row and col must be >= 0, got {row} and {col}")
    r, c = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
    return Tensor(np.stack([r, c]).astype(mstype.to_dtype(dtype).np))


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = mstype.int64) -> Tensor:
    """(2, k) row and column indices of the lower triangle of a row x col matrix (below `offset`)."""
    return _tri_indices("tril_indices", row, col, offset, dtype, True)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = mstype.int64) -> Tensor:
    """(2, k) row and column indices of the upper triangle of a row x col matrix (above `offset`)."""
    return _tri_indices("triu_indices", row, col, offset, dtype, False)


# --- special functions ----------------------------------------------------------------------------------
def _unary_float(op: str, a: Any) -> Aval:
    if not a.dtype.is_float:
        raise DTypeError(op, "a float tensor", str(a.dtype))
    return Aval(tuple(a.shape), a.dtype)


@primitive
class Polygamma:
    """The n-th derivative of the digamma function (n = 0: digamma itself) of each element."""

    def infer(a, n=0):
        if int(n) < 0:
            raise ValueError(f"Polygamma: n must be >= 0, got {n}")
        return _unary_float("Polygamma", a)

    def impl(a, n=0):
        from scipy.special import polygamma as _pg

        return np.asarray(_pg(int(n), a)).astype(a.dtype, copy=False)

    def vjp(g, out, a, n=0):
        return (F.mul(g, Polygamma(a, n=int(n) + 1)),)


@primitive
class Lgamma:
    """log|Gamma(x)| of each element (+inf at the poles 0, -1, -2, ...)."""

    def infer(a):
        return _unary_float("Lgamma", a)

    def impl(a):
        from scipy.special import gammaln

        return np.asarray(gammaln(a)).astype(a.dtype, copy=False)

    def vjp(g, out, a):
        return (F.mul(g, Polygamma(a, n=0)),)


@primitive
class Zeta:
    """Hurwitz's zeta(x, q) = sum over k >= 0 of (k + q) ** -x, element-wise with broadcasting;
    the gradient is taken in q only (d/dq = -x * zeta(x + 1, q))."""

    def infer(x, q):
        if not x.dtype.is_float or x.dtype != q.dtype:
            raise DTypeError("Zeta", "two float tensors of one dtype", f"{x.dtype} and {q.dtype}")
        return Aval(broadcast_shapes("Zeta", x.shape, q.shape), x.dtype)

    def impl(x, q):
        from scipy.special import zeta as _zeta

        return np.asarray(_zeta(x, q)).astype(x.dtype, copy=False)

    def vjp(g, out, x, q):
        gq = F.mul(g, F.neg(F.mul(x, Zeta(F.add(x, 1), q))))
        return None, F.sum_to(gq, tuple(q.shape))


@tensor_method("lgamma")
def lgamma(input: Tensor) -> Tensor:
    """log|Gamma(x)| element-wise (integers are computed in float32)."""
    return Lgamma(_float(input))


def polygamma(n: Any, input: Tensor) -> Tensor:
    """The n-th derivative of digamma at each element of `input` (`n` an int or a 0-d int tensor)."""
    k = int(n.item() if isinstance(n, Tensor) else n)
    return Polygamma(_float(input), n=k)


@tensor_method("mvlgamma")
def mvlgamma(input: Tensor, p: int) -> Tensor:
    """The multivariate log-gamma of dimension p: p(p-1)/4 log(pi) + sum_{i<p} lgamma(x - i/2);
    every element must be > (p - 1) / 2."""
    if int(p) < 1:
        raise ValueError(f"mvlgamma: p must be >= 1, got {p}")
    x = _float(input)
    offsets = Tensor(-np.arange(int(p), dtype=x.dtype.np) / 2)
    terms = Lgamma(F.add(F.expand_dims(x, -1), offsets))
    return F.add(F.reduce_sum(terms, -1), p * (p - 1) / 4 * math.log(math.pi))


def zeta(input: Any, other: Any) -> Tensor:
    """Hurwitz's zeta(input, other) element-wise (input the exponent x, other the shift q)."""
    x = input if isinstance(input, Tensor) else None
    q = other if isinstance(other, Tensor) else None
    like = x if x is not None else q
    if like is None:
        raise TypeError("zeta: at least one of input and other must be a Tensor")
    dt = _float(like).dtype
    x = F.cast(input, dt) if isinstance(input, Tensor) else Tensor(np.asarray(input, dt.np))
    q = F.cast(other, dt) if isinstance(other, Tensor) else Tensor(np.asarray(other, dt.np))
    return Zeta(x, q)
