"""State updates: `ops.assign` and friends write a Parameter's value in place.

They are how a Cell changes its own state (BatchNorm's moving statistics, optimizer moments) in a
way both modes see: PyNative writes the buffer at once; Graph mode records an `Assign` equation
that the compiled graph performs at the same point of the program each time it runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ShapeError
from ..tensor import Tensor, tensor_method
from ._rules import as_tensor
from .primitive import Aval, primitive


@primitive
class Assign:
    """Writes `value` into `variable` in place and returns the variable."""

    nondiff = True
    side_effect = True

    def infer(variable, value):
        if tuple(value.shape) != tuple(variable.shape) and value.shape != ():
            raise ShapeError("Assign", f"a value of shape {tuple(variable.shape)}", f"{tuple(value.shape)}")
        return Aval(tuple(variable.shape), variable.dtype)

    def impl(variable, value):
        np.copyto(variable, value, casting="unsafe")
        return variable


def assign(variable: Tensor, value: Any) -> Tensor:
    """Assigns `value` to the Parameter `variable` (in place) and returns it."""
    return Assign(variable, as_tensor(value, variable))


@tensor_method("assign_add")
def assign_add(variable: Tensor, value: Any) -> Tensor:
    """variable += value, in place."""
    from .elementwise import add

    return Assign(variable, add(variable, as_tensor(value, variable)))


@tensor_method("assign_sub")
def assign_sub(variable: Tensor, value: Any) -> Tensor:
    """variable -= value, in place."""
    from .elementwise import sub

    return Assign(variable, sub(variable, as_tensor(value, variable)))


def _format_for_print(template: tuple, arrays: tuple) -> str:
    from ..common.dtype import from_numpy

    parts, it = [], iter(arrays)
    for item in template:
        if item is None:
            arr = next(it)
            body = np.array2string(arr, separator=" ", threshold=1000)
            parts.append(f"Tensor(shape={list(arr.shape)}, dtype={from_numpy(arr.dtype)}, value={body})")
        else:
            parts.append(item)
    return "\n".join(parts)


@primitive
class Print:
    """Prints strings and tensor values when it runs (in Graph mode: each time the graph runs)."""

    nondiff = True
    side_effect = True

    def infer(*tensors, template=()):
        from ..common.dtype import int32

        return Aval((), int32)

    def impl(*arrays, template=()):
        print(_format_for_print(template, arrays), flush=True)
        return np.zeros((), np.int32)


def print_(*input_x: Any) -> None:
    """Outputs the inputs (strings and tensors) to stdout, in PyNative at once and in Graph mode
    every time the compiled graph runs (MindSpore's `ops.print_`)."""
    tensors, template = [], []
    for x in input_x:
        if isinstance(x, Tensor):
            tensors.append(x)
            template.append(None)
        else:
            template.append(str(x))
    Print(*tensors, template=tuple(template))
