"""`run_check()`: MindSpore's installation self-test."""

from __future__ import annotations

import numpy as np


def run_check() -> None:
    """Print the version and check a small computation (and the C++ kernels) end to end."""
    from . import __version__
    from .tensor import Tensor

    print(f"Spore version: {__version__}")
    a = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    b = (a @ a + 1).asnumpy()
    if not np.allclose(b, np.array([[8.0, 11.0], [16.0, 23.0]])):
        raise RuntimeError("run_check: the result of a 2x2 matrix product is wrong")
    try:
        from . import _kernels

        kernels = f"C++ kernels loaded ({_kernels.__name__})"
    except ImportError as err:
        raise RuntimeError(f"run_check: the C++ kernels are not built: {err}") from None
    print(f"The result of multiplication calculation is correct; {kernels}.")
    print("Spore has been installed on platform [CPU] successfully!")
