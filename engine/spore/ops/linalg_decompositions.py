"""Matrix decompositions and solvers (issue 14): `svd`, `qr`, `pinv`, `lstsq`, `matrix_exp`,
`triangular_solve`, `lu_unpack`, `lu_solve`, `matrix_diag`/`matrix_diag_part`/`matrix_set_diag`
(one diagonal `k`), `pdist`, and the class forms `Svd`, `Qr`, `Lstsq`, `MatrixExp`,
`MatrixTriangularSolve`, `LuSolve`, `LuUnpack`, `NuclearNorm`, `Pdist`.

`Svd`, `Qr` and `Pinv` are LAPACK primitives (NumPy) without a gradient rule: differentiating
through them is refused by autodiff, not silently zero. The solvers and `matrix_exp` are
composites of `MatrixInverse` and products, so they differentiate.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor, tensor_method
from . import functional as F
from .linalg_det_inverse import MatrixInverse, _mT
from .operation import Operation
from .primitive import Aval, primitive


def _matrices(op: str, a: Any) -> None:
    if a.ndim < 2:
        raise ShapeError(op, "a matrix or a batch of matrices (rank >= 2)", f"shape {tuple(a.shape)}")
    if not a.dtype.is_float:
        raise DTypeError(op, "a float32 or float64 tensor", str(a.dtype))


@primitive
class Svd:
    """(s, u, v) of each matrix: a = u @ diag(s) @ v^T, singular values descending; thin unless
    `full_matrices`."""

    multi_output = True

    def infer(a, full_matrices=False):
        _matrices("Svd", a)
        m, n = a.shape[-2:]
        k = min(m, n)
        batch = tuple(a.shape[:-2])
        um, vn = (m, n) if full_matrices else (k, k)
        return Aval(batch + (k,), a.dtype), Aval(batch + (m, um), a.dtype), Aval(batch + (n, vn), a.dtype)

    def impl(a, full_matrices=False):
        u, s, vh = np.linalg.svd(a, full_matrices=bool(full_matrices))
        return s.astype(a.dtype), u.astype(a.dtype), np.swapaxes(vh, -1, -2).astype(a.dtype)


@primitive
class Qr:
    """(q, r) of each matrix: a = q @ r with q orthonormal columns and r upper triangular;
    mode 'reduced' or 'complete'."""

    multi_output = True

    def infer(a, mode="reduced"):
        _matrices("Qr", a)
        if mode not in ("reduced", "complete"):
            raise ValueError(f"Qr: mode must be 'reduced' or 'complete', got {mode!r}")
        m, n = a.shape[-2:]
        k = m if mode == "complete" else min(m, n)
        batch = tuple(a.shape[:-2])
        return Aval(batch + (m, k), a.dtype), Aval(batch + (k, n), a.dtype)

    def impl(a, mode="reduced"):
        q, r = np.linalg.qr(a, mode=mode)
        return q.astype(a.dtype), r.astype(a.dtype)


@primitive
class Pinv:
    """The Moore-Penrose pseudo-inverse of each matrix; singular values below
    max(atol, rtol * largest) count as zero."""

    def infer(a, atol=None, rtol=None, hermitian=False):
        _matrices("Pinv", a)
        return Aval(tuple(a.shape[:-2]) + (a.shape[-1], a.shape[-2]), a.dtype)

    def impl(a, atol=None, rtol=None, hermitian=False):
        u, s, vh = np.linalg.svd(a, full_matrices=False, hermitian=bool(hermitian))
        smax = s.max(-1, keepdims=True) if s.size else np.zeros(s.shape[:-1] + (1,))
        if rtol is None:
            rtol = 0.0 if atol is not None and atol > 0 else max(a.shape[-2:]) * np.finfo(a.dtype).eps
        cut = np.maximum(atol or 0.0, rtol * smax)
        inv = np.where(s > cut, 1.0 / np.where(s > cut, s, 1.0), 0.0)
        return np.matmul(np.swapaxes(vh, -1, -2) * inv[..., None, :], np.swapaxes(u, -1, -2)).astype(a.dtype)


def _float(x: Tensor) -> Tensor:
    return x if x.dtype.is_float else F.cast(x, mstype.float32)


@tensor_method("svd")
def svd(input: Tensor, full_matrices: bool = False, compute_uv: bool = True) -> Any:
    """(s, u, v) with input = u @ diag(s) @ v^T (s descending), or s alone with compute_uv=False."""
    s, u, v = Svd(_float(input), full_matrices=bool(full_matrices))
    return (s, u, v) if compute_uv else s


def qr(input: Tensor, mode: str = "reduced") -> tuple[Tensor, Tensor]:
    """(Q, R) with input = Q @ R: mode 'reduced' (Q of shape (m, min(m, n))) or 'complete'."""
    return Qr(_float(input), mode=mode)


def _qr_method(self: Tensor, some: bool = True) -> tuple[Tensor, Tensor]:
    """(Q, R); `some` = True is the reduced decomposition, False the complete one."""
    return qr(self, "reduced" if some else "complete")


Tensor.qr = _qr_method


def pinv(x: Tensor, *, atol: float | None = None, rtol: float | None = None, hermitian: bool = False) -> Tensor:
    """The pseudo-inverse of each matrix (singular values below max(atol, rtol * largest) dropped)."""
    return Pinv(_float(x), atol=atol, rtol=rtol, hermitian=bool(hermitian))


@tensor_method("lstsq")
def lstsq(input: Tensor, A: Tensor) -> Tensor:
    """The least-squares (minimum-norm) solution X of input @ X = A: input (m, n), A (m, k) or (m,)."""
    if input.ndim != 2 or A.ndim not in (1, 2) or A.shape[0] != input.shape[0]:
        raise ShapeError("lstsq", "input (m, n) and A (m, k) or (m,)",
                         f"shapes {tuple(input.shape)} and {tuple(A.shape)}")
    return F.matmul(pinv(input), A)


def matrix_exp(input: Tensor) -> Tensor:
    """exp of each square matrix, by scaling and squaring a degree-18 Taylor polynomial (the
    scale from the matrix 1-norm so the scaled norm is <= 1/2)."""
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        raise ShapeError("matrix_exp", "square matrices (..., n, n)", f"shape {tuple(input.shape)}")
    a = _float(input)
    norm = float(np.max(np.abs(a.asnumpy()).sum(-2))) if a.size else 0.0
    s = max(0, int(np.ceil(np.log2(norm / 0.5))) if norm > 0.5 else 0)
    x = F.div(a, 2.0 ** s) if s else a
    eye = F.broadcast_to(F.eye(a.shape[-1], a.shape[-1], a.dtype), tuple(a.shape))
    term, out = eye, eye
    for k in range(1, 19):
        term = F.div(F.matmul(term, x), float(k))
        out = F.add(out, term)
    for _ in range(s):
        out = F.matmul(out, out)
    return out


def _tri(op: str, A: Tensor, upper: bool, unit: bool) -> Tensor:
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ShapeError(op, "square matrices (..., n, n)", f"shape {tuple(A.shape)}")
    t = F.triu(A) if upper else F.tril(A)
    if unit:
        n = A.shape[-1]
        eye = Tensor(np.eye(n, dtype=bool))
        t = F.where(eye, F.ones_like(t), t)
    return t


def _triangular_solve_method(self: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                             unitriangular: bool = False) -> tuple[Tensor, Tensor]:
    """(X, A) with op(T) @ X = self, T the upper/lower triangle of A (unit diagonal if
    `unitriangular`), op the transpose when `transpose`."""
    t = _tri("triangular_solve", A, upper, unitriangular)
    if transpose:
        t = _mT(t)
    return F.matmul(MatrixInverse(t), self), A


Tensor.triangular_solve = _triangular_solve_method


def _perm_from_pivots(pivots: np.ndarray, m: int) -> np.ndarray:
    """P (..., m, m) from LAPACK's 1-based row-interchange pivots (..., k): A = P @ L @ U."""
    batch = pivots.shape[:-1]
    out = np.empty(batch + (m, m))
    for idx in np.ndindex(*batch) if batch else [()]:
        order = np.arange(m)
        for i, p in enumerate(pivots[idx]):
            j = int(p) - 1
            if not 0 <= j < m:
                raise ValueError(f"lu_unpack: pivot {int(p)} is outside [1, {m}]")
            order[i], order[j] = order[j], order[i]
        perm = np.zeros((m, m))
        perm[order, np.arange(m)] = 1.0  # row i of P @ L @ U is row order[i]... columns pick rows
        out[idx] = perm
    return out


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True) -> Any:
    """(P, L, U) from a packed LU factorisation: L unit lower (m, k), U upper (k, n), P from the
    1-based pivots; A = P @ L @ U. Parts not unpacked are returned empty."""
    if LU_data.ndim < 2:
        raise ShapeError("lu_unpack", "LU_data of rank >= 2", f"shape {tuple(LU_data.shape)}")
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    lu = _float(LU_data)
    empty = Tensor(np.zeros(0, lu.dtype.np))
    if unpack_data:
        low = F.narrow(F.tril(lu, -1), -1, 0, k)
        eye = Tensor(np.eye(m, k, dtype=bool))
        low = F.where(eye, F.ones_like(low), low)
        up = F.triu(F.narrow(lu, -2, 0, k))
    else:
        low = up = empty
    if unpack_pivots:
        p = Tensor(_perm_from_pivots(LU_pivots.asnumpy(), m).astype(lu.dtype.np))
    else:
        p = empty
    return p, low, up


def lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """X with A @ X = b, A = P @ L @ U given packed (LU_data, LU_pivots) as from an LU factorisation."""
    p, low, up = lu_unpack(LU_data, LU_pivots)
    y = F.matmul(_mT(p), b)
    return F.matmul(MatrixInverse(up), F.matmul(MatrixInverse(low), y))


Tensor.lu_solve = lambda self, LU_data, LU_pivots: lu_solve(self, LU_data, LU_pivots)  # noqa: E731


def _one_k(op: str, k: Any) -> int:
    if isinstance(k, Tensor):
        k = k.asnumpy().reshape(-1).tolist()
        if len(k) != 1:
            raise ValueError(f"{op}: only a single diagonal k is supported, got {k}")
        k = k[0]
    if isinstance(k, (tuple, list)):
        if len(k) != 1 and not (len(k) == 2 and k[0] == k[1]):
            raise ValueError(f"{op}: only a single diagonal k is supported, got {k}")
        k = k[0]
    return int(k)


def matrix_diag(x: Tensor, k: Any = 0, num_rows: Any = -1, num_cols: Any = -1, padding_value: Any = 0,
                align: str = "RIGHT_LEFT") -> Tensor:
    """A batch of matrices with `x` (..., L) on diagonal k and `padding_value` elsewhere; the
    matrix is square, L + |k| on a side, unless num_rows/num_cols say otherwise.
    Only a single diagonal k is supported (align only matters for several)."""
    kk = _one_k("matrix_diag", k)
    n = x.shape[-1]
    rows = cols = n + abs(kk)
    r = int(num_rows.item() if isinstance(num_rows, Tensor) else num_rows)
    c = int(num_cols.item() if isinstance(num_cols, Tensor) else num_cols)
    rows, cols = (rows if r == -1 else r), (cols if c == -1 else c)
    idx_r = np.arange(rows)[:, None]
    idx_c = np.arange(cols)[None, :]
    on = (idx_c - idx_r) == kk
    pos = np.where(on, np.minimum(idx_r, idx_c), 0)
    taken = F.gather(x, Tensor(np.minimum(pos, n - 1).reshape(-1).astype(np.int64)), x.ndim - 1)
    taken = F.reshape(taken, tuple(x.shape[:-1]) + (rows, cols))
    pad = F.full_like(taken, padding_value.item() if isinstance(padding_value, Tensor) else padding_value)
    return F.where(Tensor(on & (pos < n)), taken, pad)


def matrix_diag_part(x: Tensor, k: Any, padding_value: Any, align: str = "RIGHT_LEFT") -> Tensor:
    """Diagonal k of each matrix of `x` (a single k; padding_value and align matter only for several)."""
    if x.ndim < 2:
        raise ShapeError("matrix_diag_part", "a tensor of rank >= 2", f"shape {tuple(x.shape)}")
    return F.diagonal(x, _one_k("matrix_diag_part", k), -2, -1)


def matrix_set_diag(x: Tensor, diagonal: Tensor, k: Any = 0, align: str = "RIGHT_LEFT") -> Tensor:
    """x with its diagonal k replaced by `diagonal` (a single k)."""
    if x.ndim < 2:
        raise ShapeError("matrix_set_diag", "a tensor of rank >= 2", f"shape {tuple(x.shape)}")
    kk = _one_k("matrix_set_diag", k)
    rows, cols = x.shape[-2:]
    idx_r, idx_c = np.arange(rows)[:, None], np.arange(cols)[None, :]
    on = (idx_c - idx_r) == kk
    length = int(on.sum())
    if diagonal.shape[-1] != length:
        raise ShapeError("matrix_set_diag", f"a diagonal of length {length}", f"shape {tuple(diagonal.shape)}")
    pos = np.where(on, np.minimum(idx_r, idx_c), 0)
    taken = F.reshape(F.gather(diagonal, Tensor(pos.reshape(-1).astype(np.int64)), diagonal.ndim - 1),
                      tuple(diagonal.shape[:-1]) + (rows, cols))
    return F.where(Tensor(on), F.cast(taken, x.dtype), x)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distances between all pairs of rows i < j of each (..., N, M) input: (..., N(N-1)/2)."""
    if input.ndim < 2:
        raise ShapeError("pdist", "a tensor of rank >= 2 (rows are the points)", f"shape {tuple(input.shape)}")
    if p < 0:
        raise ValueError(f"pdist: p must be >= 0, got {p}")
    n = input.shape[-2]
    i, j = np.triu_indices(n, 1)
    a = F.gather(input, Tensor(i.astype(np.int64)), input.ndim - 2)
    b = F.gather(input, Tensor(j.astype(np.int64)), input.ndim - 2)
    d = F.abs(F.sub(a, b))
    if p == 0:
        return F.reduce_sum(F.cast(F.not_equal(d, 0), d.dtype), -1)
    if p == float("inf"):
        return F.amax(d, -1)
    if p == 2:
        return F.sqrt(F.reduce_sum(F.square(d), -1))
    return F.pow(F.reduce_sum(F.pow(d, float(p)), -1), 1.0 / p)


# --- class forms ------------------------------------------------------------------------------------------
class Svd_(Operation):
    """``Svd(full_matrices=False, compute_uv=True)(input)``: (s, u, v), or s alone."""

    def __init__(self, full_matrices: bool = False, compute_uv: bool = True) -> None:
        self.full_matrices, self.compute_uv = full_matrices, compute_uv

    def construct(self, input: Tensor) -> Any:
        return svd(input, self.full_matrices, self.compute_uv)


class Qr_(Operation):
    """``Qr(full_matrices=False)(x)``: (Q, R), complete when `full_matrices`."""

    def __init__(self, full_matrices: bool = False) -> None:
        self.full_matrices = full_matrices

    def construct(self, x: Tensor) -> tuple[Tensor, Tensor]:
        return qr(x, "complete" if self.full_matrices else "reduced")


class Lstsq(Operation):
    """``Lstsq(fast=True, l2_regularizer=0.0)(matrix, rhs)``: argmin ||matrix @ X - rhs||^2 +
    l2_regularizer ||X||^2 (the normal equations when regularised, the pseudo-inverse otherwise)."""

    def __init__(self, fast: bool = True, l2_regularizer: float = 0.0) -> None:
        self.fast, self.l2_regularizer = fast, l2_regularizer

    def construct(self, matrix: Tensor, rhs: Tensor) -> Tensor:
        if self.l2_regularizer:
            n = matrix.shape[-1]
            gram = F.add(F.matmul(_mT(matrix), matrix), F.mul(F.eye(n, n, matrix.dtype), self.l2_regularizer))
            return F.matmul(MatrixInverse(gram), F.matmul(_mT(matrix), rhs))
        return F.matmul(pinv(matrix), rhs)


class MatrixExp(Operation):
    """``MatrixExp()(x)``: exp of each square matrix."""

    def construct(self, x: Tensor) -> Tensor:
        return matrix_exp(x)


class MatrixTriangularSolve(Operation):
    """``MatrixTriangularSolve(lower=True, adjoint=False)(matrix, rhs)``: X with op(T) @ X = rhs,
    T the lower (or upper) triangle of `matrix`."""

    def __init__(self, lower: bool = True, adjoint: bool = False) -> None:
        self.lower, self.adjoint = lower, adjoint

    def construct(self, matrix: Tensor, rhs: Tensor) -> Tensor:
        return _triangular_solve_method(rhs, matrix, upper=not self.lower, transpose=self.adjoint)[0]


class LuSolve(Operation):
    """``LuSolve()(x, lu_data, lu_pivots)``: X with A @ X = x for the packed LU of A."""

    def construct(self, x: Tensor, lu_data: Tensor, lu_pivots: Tensor) -> Tensor:
        return lu_solve(x, lu_data, lu_pivots)


class LuUnpack(Operation):
    """``LuUnpack(unpack_data=True, unpack_pivots=True)(LU_data, LU_pivots)``: (P, L, U)."""

    def __init__(self, unpack_data: bool = True, unpack_pivots: bool = True) -> None:
        self.unpack_data, self.unpack_pivots = unpack_data, unpack_pivots

    def construct(self, LU_data: Tensor, LU_pivots: Tensor) -> Any:
        return lu_unpack(LU_data, LU_pivots, self.unpack_data, self.unpack_pivots)


class NuclearNorm(Operation):
    """``NuclearNorm(dim=None, keepdim=False)(input)``: the sum of singular values over `dim`
    (the last two axes when None)."""

    def __init__(self, dim: Any = None, keepdim: bool = False) -> None:
        self.dim, self.keepdim = dim, keepdim

    def construct(self, input: Tensor) -> Tensor:
        dim = (-2, -1) if self.dim is None else tuple(self.dim)
        return F.norm(input, "nuc", dim, self.keepdim)


class Pdist(Operation):
    """``Pdist(p=2.0)(x)``: distances between all pairs of rows."""

    def __init__(self, p: float = 2.0) -> None:
        self.p = p

    def construct(self, x: Tensor) -> Tensor:
        return pdist(x, self.p)


Svd_.__name__ = Svd_.__qualname__ = "Svd"
Qr_.__name__ = Qr_.__qualname__ = "Qr"
