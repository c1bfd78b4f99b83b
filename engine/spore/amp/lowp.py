"""Low-precision matmul kernels for mixed precision on CPU: bfloat16 through oneDNN, float16 in float32.

Why: NumPy has no BLAS for float16 or bfloat16 (ml_dtypes), so an O2 network's matmuls ran in
NumPy's generic loops, several times slower than O0. Here:

- bfloat16 on a CPU with AVX512-BF16 or AMX: oneDNN's bf16 matmul (float32 accumulation), result
  rounded once to bfloat16 for storage;
- bfloat16 on a CPU without either (said once, in a warning): float32 compute, bf16 storage rounding;
- float16 (no CPU here has fp16 GEMM units Spore uses): float32 compute through sgemm, rounded once
  to float16 - so O2-fp16 is never slower than O0 by more than the casts.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

__all__ = ["bf16_native", "matmul"]

_NATIVE: list[bool] = []


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


def _c(a: np.ndarray, trans: bool) -> tuple[np.ndarray, bool]:
    """`a` C-contiguous without copying when it is a transposed view (the flag flips instead)."""
    if a.flags.c_contiguous:
        return a, trans
    if a.T.flags.c_contiguous:
        return a.T, not trans
    return np.ascontiguousarray(a), trans


def matmul(a: np.ndarray, b: np.ndarray, transpose_a: bool, transpose_b: bool) -> Any:
    """op(a) @ op(b) for 2-D float16/bfloat16 arrays of one dtype, in that dtype; None if not handled."""
    from .. import _kernels

    dt = a.dtype
    if dt != b.dtype or a.ndim != 2 or b.ndim != 2 or dt.itemsize != 2:
        return None
    a, transpose_a = _c(a, transpose_a)
    b, transpose_b = _c(b, transpose_b)
    if dt.kind == "V" or dt.name == "bfloat16":
        if bf16_native():
            return _kernels.bf16_matmul(a.view(np.uint16), b.view(np.uint16), transpose_a, transpose_b).astype(dt)
    elif dt != np.float16:
        return None
    return _kernels.sgemm(a.astype(np.float32), b.astype(np.float32), transpose_a, transpose_b).astype(dt)
