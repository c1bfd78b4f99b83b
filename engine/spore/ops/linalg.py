"""Matrix products. `MatMul` is the 2-D GEMM (with MindSpore's transpose flags); `BatchMatMul`
covers batched and broadcast products. Both run through a tuned BLAS.
"""

from __future__ import annotations

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

    lead = input.shape[:-1]
    x = input if input.ndim == 2 else reshape(input, (-1, input.shape[-1]))
    out = MatMul(x, weight, transpose_b=True)
    if bias is not None:
        out = add(out, bias)
    return out if input.ndim == 2 else reshape(out, lead + (weight.shape[0],))


