"""Samples for mixed precision's fused Dense primitives (`AmpDense`, `AmpDenseGrad`, ops/linalg.py).

Their inputs are 16-bit, where finite differences say nothing; tests/amp/test_fast_paths.py checks
their gradients bit for bit against the decomposition they fuse (casts, MatMul, Add, SumTo)."""

import ml_dtypes
import numpy as np

from . import Sample

_WHY = "16-bit operands: the gradient is checked bit for bit against the decomposition in tests/amp/test_fast_paths.py"


def _h(dt, *shape: int) -> np.ndarray:
    return np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32).astype(dt)


def _f(*shape: int) -> np.ndarray:
    return np.random.default_rng(sum(shape) + 1).standard_normal(shape).astype(np.float32)


_BF = np.dtype(ml_dtypes.bfloat16)
_F16 = np.dtype(np.float16)

SAMPLES = {
    "AmpDense": [
        Sample([_h(_BF, 4, 3), _f(5, 3), _h(_BF, 5, 3), _f(5), _h(_BF, 5)], {"has_bias": True}, grad=False, why=_WHY),
        Sample([_h(_F16, 64, 96), _f(40, 96), _h(_F16, 40, 96), _f(40), _h(_F16, 40)],
               {"has_bias": True, "direct": (True, False)}, grad=False, why=_WHY),
        Sample([_h(_F16, 6, 3), _f(2, 3), _h(_F16, 2, 3)], {"has_bias": False}, grad=False, why=_WHY),
    ],
    "AmpDenseGrad": [
        Sample([_h(_BF, 4, 5), _h(_BF, 4, 3), _h(_BF, 5, 3)], grad=False, why=_WHY),
        Sample([_h(_F16, 64, 300), _h(_F16, 64, 96), _h(_F16, 300, 96)], {"want": (False, True, True)},
               grad=False, why=_WHY),
        Sample([_h(_F16, 8, 5), _h(_F16, 8, 3), _h(_F16, 5, 3)], {"want": (True, True, True), "wide": (False, False)},
               grad=False, why=_WHY),
    ],
}
