"""More of MindSpore's linear algebra (issue 14): `einsum`, `cholesky`, `cholesky_inverse`,
`cholesky_solve`, `det`, `cross`, `cov`, `diagonal`, `diagflat`, `diag_embed`, `diagonal_scatter`,
`block_diag`, `cartesian_prod`, `combinations`, `batch_dot`, `adjoint`, `dist`, `inv`.

Einsum, the Cholesky family and Det are primitives (NumPy/SciPy kernels over the last two axes,
batched over the leading ones) with their gradients: Einsum's is an einsum per operand, Cholesky's
Murray's formula (arXiv:1602.07527), Det's g * det(A) * inv(A)^T. The rest are composites of
registered ops. Spore has no complex dtypes, so `adjoint` is the transpose of the last two axes.
"""

from __future__ import annotations

import itertools
import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor, tensor_method
from . import functional as F
from ._rules import promote, require_float
from .primitive import Aval, primitive


def _square(op: str, a: Any) -> None:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ShapeError(op, "square matrices in the last two axes (*, N, N)", f"shape {tuple(a.shape)}")
    require_float(op, a)


def _mT(x: Tensor) -> Tensor:
    return F.swapaxes(x, -1, -2)


# --- einsum -----------------------------------------------------------------------------------------
def _parse_einsum(op: str, equation: str, shapes: Sequence[tuple[int, ...]]) -> tuple[list[str], str]:
    """The equation with '...' expanded to letters, and its explicit output (NumPy's implicit rule
    when there is no '->')."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"{op}: the equation {equation!r} names {len(terms)} operands, got {len(shapes)}")
    used = set(eq) - set(".,->")
    spare = [c for c in string.ascii_letters if c not in used]
    nell = 0
    for t, s in zip(terms, shapes):
        if "..." in t:
            nell = max(nell, len(s) - (len(t) - 3))
    ell = "".join(spare[:nell])
    out_terms = []
    for t, s in zip(terms, shapes):
        if "..." in t:
            k = len(s) - (len(t) - 3)
            t = t.replace("...", ell[nell - k:] if k else "")
        if len(t) != len(s) or not all(c in string.ascii_letters for c in t):
            raise ShapeError(op, f"subscripts matching each operand's rank in {equation!r}", f"shapes {list(shapes)}")
        out_terms.append(t)
    if arrow:
        out = rhs.replace("...", ell)
    else:
        counts = {c: "".join(out_terms).count(c) for c in set("".join(out_terms))}
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    dims: dict[str, int] = {}
    for t, s in zip(out_terms, shapes):
        for c, n in zip(t, s):
            if dims.setdefault(c, n) != n:
                if dims[c] == 1:
                    dims[c] = n
                elif n != 1:
                    raise ShapeError(op, f"one size for subscript {c!r}", f"{dims[c]} and {n} (shapes {list(shapes)})")
    for c in out:
        if c not in dims:
            raise ValueError(f"{op}: output subscript {c!r} appears in no operand of {equation!r}")
    return out_terms, out


@primitive
class Einsum:
    """Einstein summation: the sum of products of the operands' entries over the subscripts that the
    output leaves out (NumPy's `einsum`, with '...' broadcasting)."""

    def infer(*xs, equation=""):
        if not xs:
            raise ValueError("Einsum: expected at least one operand")
        dt = xs[0].dtype
        for x in xs:
            if x.dtype is not dt:
                raise DTypeError("Einsum", f"operands of one dtype ({dt})", str(x.dtype))
        terms, out = _parse_einsum("Einsum", equation, [tuple(x.shape) for x in xs])
        dims: dict[str, int] = {}
        for t, x in zip(terms, xs):
            for c, n in zip(t, x.shape):
                dims[c] = max(dims.get(c, 1), n)
        return Aval(tuple(dims[c] for c in out), dt)

    def impl(*xs, equation=""):
        terms, out = _parse_einsum("Einsum", equation, [x.shape for x in xs])
        return np.asarray(np.einsum(",".join(terms) + "->" + out, *xs)).astype(xs[0].dtype, copy=False)

    def vjp(g, out, *xs, equation=""):
        terms, res = _parse_einsum("Einsum", equation, [tuple(x.shape) for x in xs])
        grads = []
        for i, x in enumerate(xs):
            others = [t for j, t in enumerate(terms) if j != i]
            mine = terms[i]
            # letters of operand i: the ones the output or the others carry come from them; a letter
            # only operand i has (summed away) is broadcast back with a ones tensor
            have = set(res).union(*others) if others else set(res)
            lone = "".join(c for c in dict.fromkeys(mine) if c not in have)
            ops_ = [g, *[xs[j] for j in range(len(xs)) if j != i]]
            subs = [res, *others]
            if lone:
                sizes = tuple(x.shape[mine.index(c)] for c in lone)
                ops_.append(F.ones(sizes, x.dtype))
                subs.append(lone)
            target = "".join(dict.fromkeys(mine))  # a repeated letter (a diagonal) is rebuilt below
            gi = Einsum(*ops_, equation=",".join(subs) + "->" + target)
            if target != mine:
                gi = _undiagonal(gi, target, mine, tuple(x.shape))
            grads.append(F.sum_to(gi, tuple(x.shape)) if tuple(gi.shape) != tuple(x.shape) else gi)
        return tuple(grads)


def _undiagonal(g: Tensor, target: str, mine: str, shape: tuple[int, ...]) -> Tensor:
    """Spread a gradient over unique letters back onto an operand with repeated letters (its
    diagonal): multiply by identity tensors tying each repeat to its first occurrence."""
    subs, ops_ = [target], [g]
    fresh = iter(c for c in string.ascii_letters if c not in mine)
    out = []
    for pos, c in enumerate(mine):
        if mine.index(c) == pos:
            out.append(c)
        else:
            d = next(fresh)
            out.append(d)
            ops_.append(F.eye(shape[pos], shape[pos], g.dtype))
            subs.append(c + d)
    return Einsum(*ops_, equation=",".join(subs) + "->" + "".join(out))


def einsum(equation: str, *operands: Tensor) -> Tensor:
    """Einstein summation over `operands` as `equation` says (e.g. ``"bij,bjk->bik"``); '...' broadcasts.
    The operands may also be given as one list or tuple."""
    if not isinstance(equation, str):
        raise TypeError(f"einsum: equation must be a str, got {type(equation).__name__}")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return Einsum(*operands, equation=equation)


def einsum_ext(equation: str, *operands: Tensor) -> Tensor:
    """The same as `einsum` (MindSpore's extended-API name)."""
    return einsum(equation, *operands)


# --- Cholesky family --------------------------------------------------------------------------------
def _chol_np(a: np.ndarray, upper: bool) -> np.ndarray:
    try:
        low = np.linalg.cholesky(a)
    except np.linalg.LinAlgError as e:
        raise ValueError("Cholesky: the input is not symmetric positive definite") from e
    return np.swapaxes(low, -1, -2).copy() if upper else low


@primitive(internal=True)
class CholeskyGrad:
    """The gradient of Cholesky (Murray 2016): sym(L^-T Phi(L^T gL) L^-1) for the lower factor L."""

    def infer(l, gl, upper=False):
        return Aval(tuple(l.shape), l.dtype)

    def impl(l, gl, upper=False):
        from scipy.linalg import solve_triangular

        if upper:
            l, gl = np.swapaxes(l, -1, -2), np.swapaxes(gl, -1, -2)
        out = np.empty_like(l)
        for idx in np.ndindex(l.shape[:-2]):
            L, G = l[idx], gl[idx]
            P = np.tril(L.T @ G)
            P[np.diag_indices_from(P)] *= 0.5
            Y = solve_triangular(L, P, lower=True, trans="T")  # L^-T P
            S = solve_triangular(L, Y.T, lower=True, trans="T").T  # (L^-T Y^T)^T = Y L^-1
            out[idx] = 0.5 * (S + S.T)
        return out


@primitive
class Cholesky:
    """The Cholesky factor of symmetric positive-definite matrices (last two axes): lower L with
    A = L L^T, or upper U with A = U^T U when `upper` (of the symmetric part (A + A^T) / 2)."""

    def infer(a, upper=False):
        _square("Cholesky", a)
        return Aval(tuple(a.shape), a.dtype)

    def impl(a, upper=False):
        # factor (A + A^T) / 2: the same matrix for a symmetric input, and the symmetric gradient
        # below is then the exact one (LAPACK alone would read one triangle only)
        return _chol_np(0.5 * (a + np.swapaxes(a, -1, -2)), upper).astype(a.dtype, copy=False)

    def vjp(g, out, a, upper=False):
        return (CholeskyGrad(out, g, upper=upper),)


@tensor_method("cholesky")
def cholesky(input_x: Tensor, upper: bool = False) -> Tensor:
    """The Cholesky factor of `input_x` (*, N, N): lower triangular unless `upper`."""
    return Cholesky(input_x, upper=bool(upper))


def _tri(x: Tensor, upper: bool) -> Tensor:
    return F.triu(x) if upper else F.tril(x)


@primitive
class CholeskySolve:
    """Solves A x = b given A's Cholesky factor (lower, or upper when `upper`), batched."""

    def infer(b, l, upper=False):
        _square("CholeskySolve", l)
        if b.ndim != l.ndim or b.shape[-2] != l.shape[-1] or tuple(b.shape[:-2]) != tuple(l.shape[:-2]):
            raise ShapeError("CholeskySolve", f"input of shape (*, {l.shape[-1]}, K) matching input2 {tuple(l.shape)}",
                             f"{tuple(b.shape)}")
        if b.dtype is not l.dtype:
            raise DTypeError("CholeskySolve", f"input and input2 of one dtype ({l.dtype})", str(b.dtype))
        return Aval(tuple(b.shape), b.dtype)

    def impl(b, l, upper=False):
        from scipy.linalg import cho_solve

        out = np.empty_like(b)
        for idx in np.ndindex(b.shape[:-2]):
            out[idx] = cho_solve((l[idx], not upper), b[idx])
        return out

    def vjp(g, out, b, l, upper=False):
        gb = CholeskySolve(g, l, upper=upper)
        ga = -F.matmul(gb, _mT(out))  # the gradient with respect to A = L L^T
        sym = F.add(ga, _mT(ga))
        gl = F.matmul(l, sym) if upper else F.matmul(sym, l)
        return gb, _tri(gl, upper)


@tensor_method("cholesky_solve")
def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False) -> Tensor:
    """x with A x = `input`, where `input2` is A's Cholesky factor (lower unless `upper`)."""
    return CholeskySolve(input, input2, upper=bool(upper))


@tensor_method("cholesky_inverse")
def cholesky_inverse(input_x: Tensor, upper: bool = False) -> Tensor:
    """A^-1 from A's Cholesky factor `input_x` (2-D, lower unless `upper`)."""
    if input_x.ndim != 2:
        raise ShapeError("cholesky_inverse", "a 2-D Cholesky factor", f"shape {tuple(input_x.shape)}")
    return CholeskySolve(F.eye(input_x.shape[0], input_x.shape[0], input_x.dtype), input_x, upper=bool(upper))


# --- determinant, inverse ---------------------------------------------------------------------------
@primitive(internal=True)
class DetCofactor:
    """det(A) * inv(A)^T, the gradient of det (not differentiated again)."""

    def infer(a):
        return Aval(tuple(a.shape), a.dtype)

    def impl(a):
        return (np.linalg.det(a)[..., None, None] * np.swapaxes(np.linalg.inv(a), -1, -2)).astype(a.dtype)


@primitive
class Det:
    """The determinant of square matrices in the last two axes."""

    def infer(a):
        _square("Det", a)
        return Aval(tuple(a.shape[:-2]), a.dtype)

    def impl(a):
        return np.asarray(np.linalg.det(a)).astype(a.dtype, copy=False)

    def vjp(g, out, a):
        return (F.mul(F.expand_dims(F.expand_dims(g, -1), -1), DetCofactor(a)),)


@tensor_method("det")
def det(input: Tensor) -> Tensor:
    """The determinant of each square matrix in the last two axes of `input`."""
    return Det(input)


# --- composites -------------------------------------------------------------------------------------
@tensor_method("cross")
def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """The cross product of 3-vectors along `dim` (the first axis of size 3 when None)."""
    if tuple(input.shape) != tuple(other.shape):
        input, other = F.broadcast_to(input, _bshape(input, other)), F.broadcast_to(other, _bshape(input, other))
    if dim is None:
        sizes = [i for i, n in enumerate(input.shape) if n == 3]
        if not sizes:
            raise ShapeError("cross", "an axis of size 3", f"shape {tuple(input.shape)}")
        dim = sizes[0]
    if input.shape[dim] != 3:
        raise ShapeError("cross", f"size 3 along dim {dim}", f"shape {tuple(input.shape)}")
    a0, a1, a2 = F.split(input, 1, dim)
    b0, b1, b2 = F.split(other, 1, dim)
    return F.concat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim)


def _bshape(a: Tensor, b: Tensor) -> tuple[int, ...]:
    from ._rules import broadcast_shapes

    return broadcast_shapes("cross", a.shape, b.shape)


@tensor_method("cov")
def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """Covariance of the variables in the rows of `input` (observations in the columns), with
    integer frequency weights `fweights` and observation weights `aweights` (NumPy's/PyTorch's rule)."""
    if input.ndim > 2:
        raise ShapeError("cov", "a tensor of rank <= 2", f"shape {tuple(input.shape)}")
    x = input if input.dtype.is_float else F.cast(input, mstype.float32)
    x = F.reshape(x, (1, -1)) if x.ndim < 2 else x
    n = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.dtype.is_float:
            raise DTypeError("cov", "integer fweights", str(fweights.dtype))
        w = F.cast(fweights, x.dtype)
    if aweights is not None:
        aw = F.cast(aweights, x.dtype)
        w = aw if w is None else F.mul(w, aw)
    if w is None:
        wsum = float(n)
        mean = F.mean(x, 1, True)
        dof = wsum - correction
    else:
        wsum = F.sum(w)
        mean = F.div(F.reduce_sum(F.mul(x, w), 1, True), wsum)
        if correction == 0:
            dof = wsum
        elif aweights is None:
            dof = F.sub(wsum, correction)
        else:
            dof = F.sub(wsum, F.div(F.mul(F.sum(F.mul(w, F.cast(aweights, x.dtype))), correction), wsum))
    xc = F.sub(x, mean)
    xw = xc if w is None else F.mul(xc, w)
    c = F.div(F.matmul(xw, _mT(xc)), F.maximum(dof, 0.0) if isinstance(dof, Tensor) else max(dof, 0.0))
    return F.reshape(c, ()) if tuple(c.shape) == (1, 1) else c  # one variable: a 0-D variance


def _diag_perm(ndim: int, dim1: int, dim2: int) -> tuple[int, ...]:
    return tuple(i for i in range(ndim) if i not in (dim1, dim2)) + (dim1, dim2)


def _norm_dims(op: str, ndim: int, dim1: int, dim2: int) -> tuple[int, int]:
    d1, d2 = dim1 % ndim if -ndim <= dim1 < ndim else None, dim2 % ndim if -ndim <= dim2 < ndim else None
    if d1 is None or d2 is None or d1 == d2:
        raise ValueError(f"{op}: dim1 ({dim1}) and dim2 ({dim2}) must be two different axes of a rank-{ndim} tensor")
    return d1, d2


def _diag_mask(rows: int, cols: int, offset: int) -> np.ndarray:
    return np.eye(rows, cols, offset, dtype=bool)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal of `input` over axes (dim1, dim2), offset above (> 0) or below (< 0) the main one,
    as the last axis of the result."""
    if input.ndim < 2:
        raise ShapeError("diagonal", "a tensor of rank >= 2", f"shape {tuple(input.shape)}")
    d1, d2 = _norm_dims("diagonal", input.ndim, dim1, dim2)
    x = F.transpose(input, _diag_perm(input.ndim, d1, d2))
    rows, cols = x.shape[-2], x.shape[-1]
    i = np.arange(max(0, -offset), min(rows, cols - offset)) if min(rows, cols - offset) > max(0, -offset) \
        else np.zeros(0, np.int64)
    if i.size == 0:
        return F.zeros(tuple(x.shape[:-2]) + (0,), input.dtype)
    flat = F.reshape(x, tuple(x.shape[:-2]) + (rows * cols,))
    return F.gather(flat, Tensor((i * cols + i + offset).astype(np.int64)), flat.ndim - 1)


def _diagonal_method(self: Tensor, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    """The diagonal over axes (axis1, axis2), offset from the main one (MindSpore's Tensor names)."""
    return diagonal(self, offset, axis1, axis2)


Tensor.diagonal = _diagonal_method  # type: ignore[attr-defined]


@tensor_method("diagflat")
def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A 2-D matrix with the flattened `input` on its `offset` diagonal and zeros elsewhere."""
    v = F.reshape(input, (-1,))
    n = v.shape[0] + abs(offset)
    mask = _diag_mask(n, n, offset)
    idx = np.zeros((n, n), np.int64)
    idx[mask] = np.arange(v.shape[0])
    full = F.gather(v, Tensor(idx.reshape(-1)), 0) if v.shape[0] else F.zeros((n * n,), input.dtype)
    return F.where(Tensor(mask), F.reshape(full, (n, n)), F.zeros((n, n), input.dtype))


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """A tensor whose diagonals over (dim1, dim2) hold the last axis of `input` (zeros elsewhere)."""
    if input.ndim < 1:
        raise ShapeError("diag_embed", "a tensor of rank >= 1", "a scalar")
    out_nd = input.ndim + 1
    d1, d2 = _norm_dims("diag_embed", out_nd, dim1, dim2)
    k = input.shape[-1]
    n = k + abs(offset)
    mask = _diag_mask(n, n, offset)
    idx = np.zeros((n, n), np.int64)
    idx[mask] = np.arange(k)
    g = F.gather(input, Tensor(idx.reshape(-1)), input.ndim - 1)
    m = F.reshape(g, tuple(input.shape[:-1]) + (n, n))
    m = F.where(Tensor(mask), m, F.zeros_like(m))
    # m has the batch axes then (n, n); move the two matrix axes to (d1, d2)
    rest = [i for i in range(out_nd) if i not in (d1, d2)]
    src = {d: i for i, d in enumerate(rest)}
    src[d1], src[d2] = out_nd - 2, out_nd - 1
    return F.transpose(m, tuple(src[i] for i in range(out_nd)))


@tensor_method("diagonal_scatter")
def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """`input` with its (offset, dim1, dim2) diagonal replaced by `src` (shaped as `diagonal` returns)."""
    if input.ndim < 2:
        raise ShapeError("diagonal_scatter", "a tensor of rank >= 2", f"shape {tuple(input.shape)}")
    d1, d2 = _norm_dims("diagonal_scatter", input.ndim, dim1, dim2)
    want = tuple(diagonal(input, offset, d1, d2).shape)
    if tuple(src.shape) != want:
        raise ShapeError("diagonal_scatter", f"src of shape {want}", f"{tuple(src.shape)}")
    if want[-1] == 0:
        return input
    perm = _diag_perm(input.ndim, d1, d2)
    x = F.transpose(input, perm)
    rows, cols = x.shape[-2], x.shape[-1]
    mask = _diag_mask(rows, cols, offset)
    idx = np.zeros((rows, cols), np.int64)
    idx[mask] = np.arange(want[-1])
    spread = F.gather(F.cast(src, input.dtype), Tensor(idx.reshape(-1)), src.ndim - 1)
    y = F.where(Tensor(mask), F.reshape(spread, tuple(x.shape)), x)
    back = tuple(int(i) for i in np.argsort(perm))
    return F.transpose(y, back)


def block_diag(*inputs: Tensor) -> Tensor:
    """A block-diagonal matrix of the inputs (each 0-, 1- or 2-D; a 1-D input is one row)."""
    mats = []
    for t in inputs:
        if t.ndim > 2:
            raise ShapeError("block_diag", "inputs of rank <= 2", f"shape {tuple(t.shape)}")
        mats.append(F.reshape(t, (1, -1)) if t.ndim < 2 else t)
    if not mats:
        return F.zeros((0, 0), mstype.float32)
    dt = mats[0].dtype
    for m in mats[1:]:
        if m.dtype is not dt:
            dt = promote(dt, m.dtype)
    cols = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        parts = []
        if left:
            parts.append(F.zeros((m.shape[0], left), dt))
        parts.append(F.cast(m, dt))
        right = cols - left - m.shape[1]
        if right:
            parts.append(F.zeros((m.shape[0], right), dt))
        rows.append(F.concat(parts, 1) if len(parts) > 1 else parts[0])
        left += m.shape[1]
    return F.concat(rows, 0)


def cartesian_prod(*inputs: Tensor) -> Tensor:
    """The Cartesian product of 1-D tensors: one row per combination (a single input is returned)."""
    for t in inputs:
        if t.ndim != 1:
            raise ShapeError("cartesian_prod", "1-D inputs", f"shape {tuple(t.shape)}")
    if len(inputs) == 1:
        return inputs[0]
    grids = F.meshgrid(*inputs, indexing="ij")
    return F.stack([F.reshape(g, (-1,)) for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-`r` combinations of a 1-D tensor's elements (itertools' order), one per row."""
    if input.ndim != 1:
        raise ShapeError("combinations", "a 1-D tensor", f"shape {tuple(input.shape)}")
    if r < 0:
        raise ValueError(f"combinations: r must be non-negative, got {r}")
    n = input.shape[0]
    make = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(make(range(n), r)), np.int64).reshape(-1, r) if r else np.zeros((0, 0), np.int64)
    if idx.size == 0:
        return F.zeros((0,) if r <= 1 and idx.shape[0] == 0 else (0, r), input.dtype)
    g = F.gather(input, Tensor(idx.reshape(-1)), 0)
    return F.reshape(g, (-1,)) if r == 1 else F.reshape(g, (idx.shape[0], r))


def batch_dot(x1: Tensor, x2: Tensor, axes: Any = None) -> Tensor:
    """Batched dot product: for each batch row (axis 0), contract `axes` of x1 with those of x2
    (default: x1's last and x2's second-to-last, or last when x2 is 2-D); 2-D inputs give (N, 1)."""
    if x1.ndim < 2 or x2.ndim < 2:
        raise ShapeError("batch_dot", "inputs of rank >= 2 (batch first)", f"{tuple(x1.shape)} and {tuple(x2.shape)}")
    if x1.shape[0] != x2.shape[0]:
        raise ShapeError("batch_dot", "one batch size", f"{x1.shape[0]} and {x2.shape[0]}")
    if axes is None:
        axes = (x1.ndim - 1, x2.ndim - 1 if x2.ndim == 2 else x2.ndim - 2)
    elif isinstance(axes, int):
        axes = (axes, axes)
    a1, a2 = axes[0] % x1.ndim, axes[1] % x2.ndim
    if a1 == 0 or a2 == 0:
        raise ValueError("batch_dot: axes cannot include the batch axis 0")
    letters = iter(string.ascii_letters[1:])
    s1 = ["a"] + [next(letters) for _ in range(x1.ndim - 1)]
    s2 = ["a"] + [next(letters) for _ in range(x2.ndim - 1)]
    s2[a2] = s1[a1]
    out = "a" + "".join(c for i, c in enumerate(s1) if i not in (0, a1)) + "".join(
        c for i, c in enumerate(s2) if i not in (0, a2))
    r = einsum("".join(s1) + "," + "".join(s2) + "->" + out, x1, x2)
    return F.reshape(r, (-1, 1)) if r.ndim == 1 else r


def adjoint(x: Tensor) -> Tensor:
    """The conjugate transpose of the last two axes (of a real tensor: the transpose)."""
    if x.ndim < 2:
        raise ShapeError("adjoint", "a tensor of rank >= 2", f"shape {tuple(x.shape)}")
    return F.conj(_mT(x)) if x.dtype.is_complex else _mT(x)


@tensor_method("adjoint")
def _adjoint_method(self: Tensor) -> Tensor:
    """The conjugate transpose of the last two axes (the transpose: Spore's tensors are real)."""
    return adjoint(self)


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The p-norm of input - other (broadcast), over every element (a 0-D tensor)."""
    d = F.abs(F.sub(input, other))
    if p == 0:
        return F.sum(F.cast(d != 0, d.dtype))
    if p == float("inf"):
        return F.reduce_max(d)
    if p == float("-inf"):
        return F.reduce_min(d)
    return F.pow(F.sum(F.pow(d, float(p))), 1.0 / p)


def inv(x: Tensor) -> Tensor:
    """1 / x element-wise (integer inputs in float32)."""
    return F.reciprocal(x if x.dtype.is_float else F.cast(x, mstype.float32))


@tensor_method("inv")
def _inv_method(self: Tensor) -> Tensor:
    """1 / x element-wise (integer tensors in float32)."""
    return inv(self)


def cond(A: Tensor, p: Any = None) -> Tensor:
    """The condition number of the square matrices in the last two axes of `A` for the norm `p`:
    sigma_max / sigma_min for None or 2 (sigma_min / sigma_max for -2), else
    norm(A, p) * norm(inv(A), p) for 'fro', 'nuc', inf, -inf, 1, -1."""
    from .linalg_decompositions import svd
    from .linalg_det_inverse import inverse
    from .sort_stats_ops import matrix_norm

    if A.ndim < 2:
        raise ShapeError("cond", "matrices in the last two axes (*, M, N)", f"shape {tuple(A.shape)}")
    if p is None or p in (2, -2):
        s = svd(A, compute_uv=False)
        hi, lo = F.reduce_max(s, -1), F.reduce_min(s, -1)
        return F.div(lo, hi) if p == -2 else F.div(hi, lo)
    if p not in ("fro", "nuc", float("inf"), float("-inf"), 1, -1):
        raise ValueError(f"cond: p must be None, 2, -2, 'fro', 'nuc', inf, -inf, 1 or -1, got {p!r}")
    _square("cond", A)
    return F.mul(matrix_norm(A, p), matrix_norm(inverse(A), p))
