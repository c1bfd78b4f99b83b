"""Access to the fused C++ updates (`spore._kernels.*_update_multi`) and NumPy helpers for the fallback.

The kernels update float32, C-contiguous buffers in place and raise TypeError for anything else
before touching memory; the optimizers then run their NumPy formulation of the same step. The NumPy
path computes in float32 (float64 for float64 parameters) and writes results back into the
existing buffers, so Parameters keep their identity and dtype either way.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

try:  # the extension is optional at import time: a source checkout without a build still trains
    from ... import _kernels as _K
except ImportError:  # pragma: no cover - exercised only without the compiled extension
    _K = None


def kernel(name: str) -> Callable | None:
    """The named fused update, or None when the compiled extension lacks it."""
    return getattr(_K, name, None) if _K is not None else None


def compute_dtype(arr: np.ndarray) -> type:
    """The dtype the NumPy path computes in: float64 for float64 buffers, float32 otherwise
    (float16/bfloat16 parameters are updated in float32 and rounded once, as MindSpore's fp16
    optimizers accumulate in float32)."""
    return np.float64 if arr.dtype == np.float64 else np.float32


def write(dst: np.ndarray, value: np.ndarray) -> None:
    """Store `value` into `dst` in place (rounding to dst's dtype)."""
    np.copyto(dst, value, casting="unsafe")
