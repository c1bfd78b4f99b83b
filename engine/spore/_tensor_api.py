"""Tensor names that are not ops: `Tensor.from_numpy` and the lookup of a missing method.

Kept out of tensor.py (which holds the Tensor itself) and installed on the class once the ops are
loaded (spore/ops/__init__.py imports this module), as `tensor_method` installs the op methods.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _missing
from .common import dtype as mstype
from .tensor import Tensor


def from_numpy(array: np.ndarray) -> Tensor:
    """A Tensor that shares memory with the NumPy `array` (MindSpore's ``Tensor.from_numpy``).

    Writing into the array is seen by the tensor and the other way round, as in MindSpore, where
    the tensor keeps a reference to the array's buffer instead of copying it. A non-contiguous
    array is made C-contiguous first (a copy: MindSpore does the same); its dtype is kept as it is
    (float64 stays float64, unlike ``Tensor(array)`` which makes float32).
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"Tensor.from_numpy: expected a numpy.ndarray, got {type(array).__name__}")
    if array.dtype not in mstype._BY_NP:
        mstype.from_numpy(array.dtype)  # raises a TypeError naming the dtype
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    return Tensor._wrap(array)


def _tensor_getattr(self: Tensor, name: str) -> Any:
    """Only reached when normal lookup fails: a MindSpore Tensor method Spore lacks raises
    NotSupportedError, anything else the AttributeError Python would raise."""
    if name.startswith("_"):  # dunder probes (numpy, copy, pickle) must stay cheap and plain
        raise AttributeError(f"'{type(self).__name__}' object has no attribute {name!r}")
    raise _missing.missing_attribute("mindspore.Tensor", name, owner=f"'{type(self).__name__}' object")


Tensor.from_numpy = staticmethod(from_numpy)  # type: ignore[attr-defined]
Tensor.__getattr__ = _tensor_getattr  # type: ignore[attr-defined]


def is_tensor(obj: Any) -> bool:
    """MindSpore's ``ms.is_tensor``: whether `obj` is a Tensor (a Parameter is one)."""
    return isinstance(obj, Tensor)
