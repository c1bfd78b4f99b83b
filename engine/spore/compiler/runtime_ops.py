"""IR-only primitives the frontend emits for Python statements that act at run time.

They are not user ops (registered as internal, no functional name): `assert` on a tensor value
becomes an `Assert` equation that checks the value each time the graph runs, exactly as the
Python `assert` would in PyNative.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.primitive import TRACING, Aval, Primitive, register
from ..tensor import Tensor


def _assert_infer(x: Any, message: str = "", where: str = "") -> Aval:
    from ..common.dtype import bool_

    return Aval((), bool_)


def _assert_impl(x: np.ndarray, message: str = "", where: str = "") -> np.ndarray:
    if not np.all(x):
        raise AssertionError(f"{message} (assert at {where})")
    return np.asarray(True)


ASSERT = register(Primitive("Assert", _assert_infer, _assert_impl, None,
                            "Raises AssertionError when the tensor is not all true (a compiled `assert`).",
                            nondiff=True, side_effect=True, internal=True))


def assert_all(x: Tensor, message: str, where: str) -> None:
    """Record (in a graph) or check (eagerly) a tensor-valued assert."""
    builder = TRACING.builder
    if builder is not None:
        builder.bind(ASSERT, [x], {"message": message, "where": where})
    else:
        _assert_impl(x._data, message, where)
