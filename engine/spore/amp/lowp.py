"""Low-precision matmul kernels for mixed precision on CPU: bfloat16 through oneDNN, float16 in float32.

Why: NumPy has no BLAS for float16 or bfloat16 (ml_dtypes), so an O2 network's matmuls ran in
NumPy's generic loops, several times slower than O0 - and NumPy's matmul on ml_dtypes' bfloat16
returns *float32*, which broke MatMul's dtype rule (the O2-bf16 "expected inputs of one dtype"
error in the backward). `spore.ops.linalg.MatMul` / `BatchMatMul` route float16 and bfloat16 here:

- bfloat16 on a CPU with AVX512-BF16 or AMX: oneDNN's bf16 matmul (float32 accumulation), result
  rounded once to bfloat16 for storage;
- bfloat16 on a CPU without either (said once, in a warning): float32 compute, bf16 storage rounding;
- float16 (no CPU here has fp16 GEMM units Spore uses): float32 compute through sgemm, rounded once
  to float16 - so O2-fp16 is never slower than O0 by more than the casts.

Convolutions in float16/bfloat16 (spore.ops.conv_pool) compute in float32 on the rounded operands
and round the result (`_via_f32`, using `cast` below); a oneDNN bf16 convolution is not wired yet.

Either way the result is what a float32 GEMM of the (already rounded) low-precision operands gives,
rounded once to the storage dtype: only the summation order differs from a float32 oracle.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

__all__ = ["bf16_native", "matmul", "batch_matmul", "is_bf16", "describe", "cast"]

_NATIVE: list[bool] = []

# Below this many multiply-adds a GEMM is cheaper in NumPy's float32 matmul than through a kernel call.
_SMALL = 4096


def is_bf16(dt: np.dtype) -> bool:
    """Whether `dt` is ml_dtypes' bfloat16 (a NumPy 'V' kind dtype named bfloat16)."""
    return dt.name == "bfloat16"


def bf16_native() -> bool:
    """Whether oneDNN runs bf16 GEMMs in hardware here (AVX512-BF16 or AMX); warns once if not."""
    if not _NATIVE:
        from .. import _kernels

        isa = _kernels.cpu_isa()
        _NATIVE.append(isa in ("avx512_core_bf16", "avx512_core_amx"))
        if not _NATIVE[0]:
            warnings.warn(f"this CPU has no bf16 arithmetic (oneDNN ISA {isa}): bfloat16 matmuls compute in "
                          "float32 and round the result to bfloat16", RuntimeWarning, stacklevel=3)
    return _NATIVE[0]


def cast(a: np.ndarray, dt: np.dtype) -> np.ndarray:
    """`a.astype(dt)`, with float32 <-> bfloat16 / float16 through Spore's kernels (2-3x faster than
    ml_dtypes' loops, ~10x NumPy's scalar float16 casts; the same bits: round to nearest even, NaN
    stays NaN). Other pairs use NumPy."""
    from .. import _kernels

    dt = np.dtype(dt)
    if a.dtype == np.float32 and is_bf16(dt) and a.size >= 1024:
        return _kernels.f32_to_bf16(a).view(dt)
    if is_bf16(a.dtype) and dt == np.float32 and a.size >= 1024:
        return _kernels.bf16_to_f32(a.view(np.uint16))
    if a.dtype == np.float32 and dt == np.float16 and a.size >= 1024:
        return _kernels.f32_to_f16(a).view(np.float16)
    if a.dtype == np.float16 and dt == np.float32 and a.size >= 1024:
        return _kernels.f16_to_f32(a.view(np.uint16))
    return a.astype(dt)


def _c(a: np.ndarray, trans: bool) -> tuple[np.ndarray, bool]:
    """`a` C-contiguous without copying when it is a transposed view (the flag flips instead)."""
    if a.flags.c_contiguous:
        return a, trans
    if a.T.flags.c_contiguous:
        return a.T, not trans
    return np.ascontiguousarray(a), trans


def _check(op: str, a: np.ndarray, b: np.ndarray) -> np.dtype:
    dt = a.dtype
    if dt != b.dtype or dt.itemsize != 2 or not (dt == np.float16 or is_bf16(dt)):
        raise TypeError(f"{op}: float16 or bfloat16 inputs of one dtype expected, got {a.dtype} and {b.dtype}")
    return dt


def matmul(a: np.ndarray, b: np.ndarray, transpose_a: bool = False, transpose_b: bool = False) -> np.ndarray:
    """op(a) @ op(b) for 2-D float16/bfloat16 arrays of one dtype, returned in that dtype."""
    from .. import _kernels

    dt = _check("MatMul", a, b)
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(f"MatMul: 2-D inputs expected, got shapes {a.shape} and {b.shape}")
    m, k = (a.shape[1], a.shape[0]) if transpose_a else a.shape
    n = b.shape[0] if transpose_b else b.shape[1]
    if m * n * k < _SMALL:
        a32 = a.astype(np.float32)
        b32 = b.astype(np.float32)
        return np.matmul(a32.T if transpose_a else a32, b32.T if transpose_b else b32).astype(dt)
    a, transpose_a = _c(a, transpose_a)
    b, transpose_b = _c(b, transpose_b)
    if is_bf16(dt) and bf16_native():
        return _kernels.bf16_matmul_bf16(a.view(np.uint16), b.view(np.uint16), transpose_a, transpose_b).view(dt)
    return cast(_kernels.sgemm(cast(a, np.float32), cast(b, np.float32), transpose_a, transpose_b), dt)


def batch_matmul(a: np.ndarray, b: np.ndarray, transpose_a: bool = False, transpose_b: bool = False) -> np.ndarray:
    """Batched op(a) @ op(b) (NumPy broadcasting over the leading axes) in float16/bfloat16.

    A stack times one matrix is one 2-D GEMM; otherwise each matrix pair of the broadcast batch is
    one `matmul` call (oneDNN's bf16 kernel each).
    """
    dt = _check("BatchMatMul", a, b)
    if b.ndim == 2 and not transpose_a:
        out = matmul(a.reshape(-1, a.shape[-1]), b, False, transpose_b)
        return out.reshape(a.shape[:-1] + out.shape[-1:])
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    ab = np.broadcast_to(a, batch + a.shape[-2:]).reshape((-1,) + a.shape[-2:])
    bb = np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    m = a.shape[-1] if transpose_a else a.shape[-2]
    n = b.shape[-2] if transpose_b else b.shape[-1]
    out = np.empty((ab.shape[0], m, n), dtype=dt)
    for i in range(ab.shape[0]):
        out[i] = matmul(ab[i], bb[i], transpose_a, transpose_b)
    return out.reshape(batch + (m, n))


def describe() -> dict[str, Any]:
    """What the low-precision paths run on this machine (for bench headers and reports)."""
    from .. import _kernels

    return {"onednn_isa": _kernels.cpu_isa(), "bf16_native": bf16_native(),
            "bf16_matmul_impl": _kernels.bf16_matmul_impl(256, 1024, 4096, False, True)}
