"""Matrix products. `MatMul` is the 2-D GEMM (with MindSpore's transpose flags); `BatchMatMul`
covers batched and broadcast products. Both run through a tuned BLAS.
"""

from __future__ import annotations

import sys

import numpy as np

from ..autodiff.tape import is_tracked
from ..errors import ShapeError
from ..onnx.spec import OnnxMap
from ..tensor import Tensor, tensor_method
from ._rules import broadcast_shapes, require_float, require_same_dtype
from .primitive import Aval, primitive


@primitive
class MatMul:
    """Multiplies matrix `a` by matrix `b` (2-D), optionally transposing either first."""
    onnx = OnnxMap(export="matmul")

    def infer(a, b, transpose_a=False, transpose_b=False):
        if a.ndim != 2 or b.ndim != 2:
            raise ShapeError("MatMul", "two 2-D matrices", f"shapes {tuple(a.shape)} and {tuple(b.shape)}")
        require_same_dtype("MatMul", a, b)
        m, k = (a.shape[1], a.shape[0]) if transpose_a else a.shape
        k2, n = (b.shape[1], b.shape[0]) if transpose_b else b.shape
        if k != k2:
            raise ShapeError("MatMul", f"b to have {k} rows (a has {k} columns)",
                             f"a {tuple(a.shape)} @ b {tuple(b.shape)}"
                             + (" (transposed)" if transpose_a or transpose_b else ""))
        return Aval((m, n), a.dtype)

    def impl(a, b, transpose_a=False, transpose_b=False):
        m, k = (a.shape[1], a.shape[0]) if transpose_a else a.shape
        n = b.shape[0] if transpose_b else b.shape[1]
        if a.dtype.itemsize == 2 and a.dtype == b.dtype and a.dtype.kind in "fV":
            # float16/bfloat16 (mixed precision): bf16 through oneDNN, fp16 in fp32, result in the
            # inputs' dtype (NumPy's matmul on ml_dtypes' bfloat16 returns float32, which broke the
            # dtype rule and O2's backward). See spore.amp.lowp.
            from ..amp import lowp

            return lowp.matmul(a, b, transpose_a, transpose_b)
        if a.dtype == np.float32 and b.dtype == np.float32 and m * n * k >= 100_000:
            # float32 through oneDNN's sgemm: 1.1-3x faster than NumPy's OpenBLAS at one thread on
            # the MLP and CNN shapes (H2a report); tiny products stay in NumPy (less call overhead).
            from .. import _kernels

            if not a.flags.c_contiguous and a.T.flags.c_contiguous:  # a transposed view: no copy
                a, transpose_a = a.T, not transpose_a
            if not b.flags.c_contiguous and b.T.flags.c_contiguous:
                b, transpose_b = b.T, not transpose_b
            if transpose_b and not transpose_a and n <= 16 < m:  # x @ W.T into few columns (a Dense
                # head): oneDNN is ~3x faster computing C.T = W @ x.T
                return np.ascontiguousarray(_kernels.sgemm(b, a, False, True).T)
            return _kernels.sgemm(a, b, transpose_a, transpose_b)
        return np.matmul(a.T if transpose_a else a, b.T if transpose_b else b)

    def vjp(g, out, a, b, transpose_a=False, transpose_b=False):
        ga = gb = None
        if is_tracked(a):
            ga = MatMul(b, g, transpose_a=transpose_b, transpose_b=True) if transpose_a else \
                MatMul(g, b, transpose_a=False, transpose_b=not transpose_b)
        if is_tracked(b):
            gb = MatMul(g, a, transpose_a=True, transpose_b=transpose_a) if transpose_b else \
                MatMul(a, g, transpose_a=not transpose_a, transpose_b=False)
        return ga, gb


@primitive
class BatchMatMul:
    """Batched matrix product with broadcast batch dimensions (NumPy `matmul` semantics, ndim >= 2)."""
    onnx = OnnxMap(export="matmul")

    def infer(a, b, transpose_a=False, transpose_b=False):
        if a.ndim < 2 or b.ndim < 2:
            raise ShapeError("BatchMatMul", "inputs of rank >= 2", f"shapes {tuple(a.shape)} and {tuple(b.shape)}")
        require_same_dtype("BatchMatMul", a, b)
        m, k = (a.shape[-1], a.shape[-2]) if transpose_a else a.shape[-2:]
        k2, n = (b.shape[-1], b.shape[-2]) if transpose_b else b.shape[-2:]
        if k != k2:
            raise ShapeError("BatchMatMul", f"inner dimensions to agree ({k} vs {k2})",
                             f"a {tuple(a.shape)} @ b {tuple(b.shape)}")
        batch = broadcast_shapes("BatchMatMul", a.shape[:-2], b.shape[:-2])
        return Aval(batch + (m, n), a.dtype)

    def impl(a, b, transpose_a=False, transpose_b=False):
        if a.dtype.itemsize == 2 and a.dtype == b.dtype and a.dtype.kind in "fV":  # float16/bfloat16
            from ..amp import lowp

            return lowp.batch_matmul(a, b, transpose_a, transpose_b)
        if b.ndim == 2 and not transpose_a and a.dtype == np.float32 and b.dtype == np.float32:
            # a stack of rows times one matrix (a Dense on 3-D input) is one 2-D GEMM: MatMul's path
            out = MatMul.impl(a.reshape(-1, a.shape[-1]), b, transpose_b=transpose_b)
            return out.reshape(a.shape[:-1] + out.shape[-1:])
        return np.matmul(np.swapaxes(a, -1, -2) if transpose_a else a,
                         np.swapaxes(b, -1, -2) if transpose_b else b)

    def vjp(g, out, a, b, transpose_a=False, transpose_b=False):
        from .array import sum_to

        ga = gb = None
        if is_tracked(a):
            ga = BatchMatMul(b, g, transpose_a=transpose_b, transpose_b=True) if transpose_a else \
                BatchMatMul(g, b, transpose_b=not transpose_b)
            ga = sum_to(ga, a.shape)
        if is_tracked(b):
            gb = BatchMatMul(g, a, transpose_a=True, transpose_b=transpose_a) if transpose_b else \
                BatchMatMul(a, g, transpose_a=not transpose_a)
            gb = sum_to(gb, b.shape)
        return ga, gb


@tensor_method("matmul")
def matmul(input: Tensor, other: Tensor) -> Tensor:
    """Matrix product of two tensors, with NumPy's rules for 1-D and batched inputs."""
    from .array import reshape
    from .elementwise import _binary

    if not isinstance(input, Tensor) or not isinstance(other, Tensor) or input.dtype is not other.dtype:
        return _binary(matmul, input, other)
    if input.ndim == 2 and other.ndim == 2:
        return MatMul(input, other)
    if input.ndim == 1 or other.ndim == 1:
        a = reshape(input, (1, -1)) if input.ndim == 1 else input
        b = reshape(other, (-1, 1)) if other.ndim == 1 else other
        out = matmul(a, b)
        shape = out.shape[:-2] + (() if input.ndim == 1 else out.shape[-2:-1]) + \
            (() if other.ndim == 1 else out.shape[-1:])
        return reshape(out, shape)
    return BatchMatMul(input, other)


def bmm(input_x: Tensor, mat2: Tensor) -> Tensor:
    """Batched matrix product of two 3-D tensors."""
    return BatchMatMul(input_x, mat2)


def _svd_shape(op: str, a: object) -> tuple[int, ...]:
    if a.ndim < 2:
        raise ShapeError(op, "a matrix or a batch of matrices (rank >= 2)", f"shape {tuple(a.shape)}")
    require_float(op, a)
    return tuple(a.shape[:-2]) + (min(a.shape[-2], a.shape[-1]),)


@primitive
class SingularValues:
    """Singular values of each matrix in the last two axes of `a`, in descending order, shape
    (..., min(m, n)). The matrix norms 2, -2 and 'nuc' are built on it (`ops.norm`).

    Gradient: d(sigma_i) = u_i^T dA v_i, so dA = U diag(g) V^T (`SingularValuesGrad`); it is exact
    where the singular values are distinct, as for any SVD-based gradient.
    """

    def infer(a):
        return Aval(_svd_shape("SingularValues", a), a.dtype)

    def impl(a):
        return np.linalg.svd(a, compute_uv=False).astype(a.dtype, copy=False)

    def vjp(g, out, a):
        return (SingularValuesGrad(g, a),)


@primitive
class SingularValuesGrad:
    """U diag(g) V^T for the (thin) SVD of each matrix of `a`: `SingularValues`' input gradient."""

    nondiff = True

    def infer(g, a):
        want = _svd_shape("SingularValuesGrad", a)
        if tuple(g.shape) != want:
            raise ShapeError("SingularValuesGrad", f"a cotangent of shape {want}", f"shape {tuple(g.shape)}")
        return Aval(tuple(a.shape), a.dtype)

    def impl(g, a):
        u, _, vh = np.linalg.svd(a, full_matrices=False)
        return np.matmul(u * g[..., None, :], vh).astype(a.dtype, copy=False)


def dense(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias, as MindSpore's `ops.dense` (weight is (out, in))."""
    from .array import reshape
    from .elementwise import add

    # references to the weight and bias beyond this call's own (see _amp_dense), taken first
    shared = (sys.getrefcount(weight) > _BASE_RC, bias is not None and sys.getrefcount(bias) > _BASE_RC)
    lead = input.shape[:-1]
    x = input if input.ndim == 2 else reshape(input, (-1, input.shape[-1]))
    out = _amp_dense(x, weight, bias, shared)
    if out is None:
        out = MatMul(x, weight, transpose_b=True)
        if bias is not None:
            out = add(out, bias)
    return out if input.ndim == 2 else reshape(out, lead + (weight.shape[0],))


# ---------------------------------------------------------------------------------------------
# Mixed precision's Dense in one primitive (PyNative). Under O2 a Dense layer's forward was MatMul
# and Add on the 16-bit casts of its weight and bias, and its backward five more ops (the bias
# gradient, two GEMMs, two casts back to float32): seven primitive calls and four tape nodes beside
# the two casts, ~5 us of Python each, which made small O2 networks slower than float32. `AmpDense`
# runs the same kernels in the same order (so the bits are those of the decomposition) as one call
# forward and one (`AmpDenseGrad`) backward, and hands the float32 master weights their gradients
# directly. It is used when the weight (and bias) are a to_float cell's casts of its Parameters
# (`Cell._cast_param` tags them), unchanged since, in a first-order PyNative gradient without
# tensor hooks or kernel observers; everything else (Graph mode, whose compiler fuses the
# decomposition itself, higher-order gradients, hooks) takes the decomposition.
#
# The gradient goes straight to the float32 Parameter only when nothing else can read the cast:
# other readers' cotangents are summed with this one in the 16-bit dtype before the cast back, a
# different rounding. The cast of `self.weight` passed straight into the call has no other holder
# (its reference count is that of any fresh argument, `_BASE_RC`; the cast's tape node keeps only
# a weak reference), so no later op can read it; one also held elsewhere (a local variable) gets
# its gradient in 16 bits, summed by the tape as the decomposition's is.


def _rc_probe(input: object, weight: object) -> int:
    return sys.getrefcount(weight)


_BASE_RC = _rc_probe(None, object())  # a fresh argument's count, seen from the callee


def _amp_src(t: Tensor) -> Tensor | None:
    """The float32 Parameter `t` is the unmodified to_float cast of, or None."""
    tag = t.__dict__.get("_amp_src")
    if tag is None or t._version != 0 or tag[0]._version != tag[1]:
        return None
    return tag[0]


def _amp_dense(x: Tensor, weight: Tensor, bias: Tensor | None, shared: tuple[bool, bool]) -> Tensor | None:
    """AmpDense(x, weight, bias) when the fused path applies (see above), else None. `shared`: whether
    the weight / bias casts are held elsewhere too (their gradients then stay 16-bit)."""
    from ..autodiff import tape
    from .primitive import OBSERVERS, TRACING

    if (TRACING.builder is not None or "_amp_src" not in weight.__dict__ or tape.STATE.depth > 1
            or tape.TENSOR_HOOKS or tape.SAVED_HOOKS or OBSERVERS.active):
        return None
    from ..amp import lowp

    w32 = _amp_src(weight)
    b32 = None if bias is None else _amp_src(bias)
    dt = weight.dtype
    if (w32 is None or (bias is not None and b32 is None) or not lowp.fast_paths() or x.dtype is not dt
            or x.ndim != 2 or weight.ndim != 2 or x.shape[1] != weight.shape[1]
            or (bias is not None and (bias.dtype is not dt or bias.shape != (weight.shape[0],)))):
        return None
    direct = (not shared[0], bias is not None and not shared[1])
    if bias is None:
        return AmpDense(x, w32, weight, has_bias=False, direct=direct)
    return AmpDense(x, w32, weight, b32, bias, has_bias=True, direct=direct)


@primitive(internal=True)
class AmpDense:
    """x @ w16.T (+ b16) for a to_float Dense: inputs x, the float32 weight, its 16-bit cast (and
    the float32 bias, its cast). The float32 inputs only carry the gradients (`AmpDenseGrad`):
    `direct` says, for the weight and the bias, whether the gradient goes to the float32 Parameter
    (float32) or to its cast (16-bit, for the tape to sum with other readers' and cast back)."""

    def infer(x, w32, w16, *bias, has_bias=False, direct=(True, True)):
        return Aval((x.shape[0], w16.shape[0]), x.dtype)

    def impl(x, w32, w16, *bias, has_bias=False, direct=(True, True)):
        from ..amp import lowp
        from .elementwise import Add

        if has_bias:  # float32 compute: round and add the bias in one pass
            out = lowp.dense16(x, w16, bias[1])
            if out is not None:
                return out
        out = MatMul.impl(x, w16, transpose_b=True)
        return Add.impl(out, bias[1]) if has_bias else out

    def vjp(g, out, x, w32, w16, *bias, has_bias=False, direct=(True, True)):
        want = (is_tracked(x), is_tracked(w32), has_bias and is_tracked(bias[0]))
        if not any(want):
            return (None,) * (3 + len(bias))
        grads = iter(AmpDenseGrad(g, x, w16, want=want, wide=direct))
        dx, dw, db = (next(grads) if w else None for w in want)
        ws = (dw, None) if direct[0] else (None, dw)
        return (dx,) + ws + ((((db, None) if direct[1] else (None, db))) if has_bias else ())


@primitive(internal=True)
class AmpDenseGrad:
    """AmpDense's gradients: the wanted ones of (dx, dw, db), dx in the 16-bit dtype and dw, db in
    float32 where `wide` says so (else 16-bit), each computed as the decomposition's backward does
    (MatMul's and SumTo's kernels, the cast to float32)."""

    multi_output = True
    nondiff = True

    def infer(g, x, w16, want=(True, True, True), wide=(True, True)):
        from ..common import dtype as mstype

        dw, db = (mstype.float32 if w else x.dtype for w in wide)
        shapes = ((tuple(x.shape), x.dtype), (tuple(w16.shape), dw), ((w16.shape[0],), db))
        return tuple(Aval(s, d) for (s, d), w in zip(shapes, want) if w)

    def impl(g, x, w16, want=(True, True, True), wide=(True, True)):
        from ..amp import lowp
        from ..common import dtype as mstype
        from .array import Cast, SumTo

        fused = lowp.dense_backward16(g, x, w16 if want[0] else None, None, want[1:], wide)
        if fused is not None:
            return fused
        out = []
        if want[0]:
            out.append(MatMul.impl(g, w16, transpose_a=False, transpose_b=False))
        if want[1] and not wide[0]:
            out.append(MatMul.impl(g, x, transpose_a=True, transpose_b=False))
        elif want[1]:
            c = lowp.f32_product(g, x, True, False)
            if c is not None and c.size >= 256:  # rounded to 16 bits and back in place (the cast's kernel size)
                lowp._k().round16_inplace(c, lowp.is_bf16(g.dtype))
                out.append(c)
            else:
                dw = MatMul.impl(g, x, transpose_a=True, transpose_b=False) if c is None else lowp.narrow(c, g.dtype)
                out.append(Cast.impl(dw, mstype.float32))
        if want[2] and not wide[1]:
            out.append(SumTo.impl(g, (g.shape[1],)))
        elif want[2]:
            n = g.shape[1]
            if g.ndim == 2 and g.size >= 1024 and n >= 256:  # SumTo's C++ bias gradient, cast back in the same call
                out.append(lowp._k().bias_grad16(lowp._bits(g), lowp.is_bf16(g.dtype), True))
            else:
                out.append(Cast.impl(SumTo.impl(g, (n,)), mstype.float32))
        return tuple(out)


