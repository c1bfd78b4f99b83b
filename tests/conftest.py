"""Test-wide determinism: one BLAS/OpenMP thread, fixed seeds for NumPy and Spore."""

import os

for _k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_k, "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

try:
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
except ImportError:  # pragma: no cover
    pass


@pytest.fixture(autouse=True)
def _seeded():
    """Every test starts from the same random state and a default context."""
    import spore
    from spore import context

    np.random.seed(0)
    spore.set_seed(0)
    context._reset_for_tests()
    yield
    context._reset_for_tests()
