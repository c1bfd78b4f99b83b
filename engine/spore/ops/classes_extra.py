"""Class forms of the issue-14 ops of special_functions, activation_loss_extra, linalg_extra and
tensor_misc_ops (and of a few older functional ops MindSpore also has as classes): configured once
with MindSpore's constructor arguments, then called with tensors, forwarding to the functional ops.

The plain forwards are rows of `_TABLE` (see `operation.Op`); the classes below it have logic of
their own (attribute translation, tuples of operands).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..common import dtype as mstype
from ..tensor import Tensor
from . import activation_loss_extra as AL
from . import functional as F
from . import linalg_extra as LA
from . import special_functions as SF
from . import tensor_misc_ops as TM
from .operation import Op, Operation, op_classes

_XY = "x1: Tensor, x2: Tensor"

_TABLE = {
    "Addcdiv": Op(F.addcdiv, "input_data: Tensor, x1: Tensor, x2: Tensor, value: Any",
                  "input_data + value * x1 / x2 element-wise."),
    "Addcmul": Op(F.addcmul, "input_data: Tensor, x1: Tensor, x2: Tensor, value: Any",
                  "input_data + value * x1 * x2 element-wise."),
    "Hypot": Op(F.hypot, _XY, "sqrt(x1^2 + x2^2) element-wise."),
    "Heaviside": Op(F.heaviside, "x: Tensor, values: Any", "0 below 0, 1 above, `values` at 0."),
    "Ger": Op(F.ger, _XY, "the outer product of two 1-D tensors."),
    "Cdist": Op(F.cdist, "input_x: Tensor, input_y: Tensor", "p-norm distances between the rows of two batches.",
                "p: float = 2.0"),
    "Diag": Op(F.diag, "input_x: Tensor", "a diagonal matrix of a 1-D tensor (or the diagonal of a 2-D one)."),
    "ApproximateEqual": Op(TM.approximate_equal, "x: Any, y: Any", "|x - y| < tolerance element-wise.",
                           "tolerance: float = 1e-05"),
    "CeLU": Op(AL.celu, "input_x: Tensor", "max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).", "alpha: float = 1.0"),
    "GLU": Op(AL.glu, "x: Tensor", "the first half of x along `axis` times the sigmoid of the second.",
              "axis: int = -1"),
    "HShrink": Op(AL.hardshrink, "input_x: Tensor", "x where |x| > lambd, 0 elsewhere.", "lambd: float = 0.5"),
    "FastGeLU": Op(AL.fast_gelu, "x: Tensor", "x * sigmoid(1.702 x)."),
    "FastGelu": Op(AL.fast_gelu, "x: Tensor", "x * sigmoid(1.702 x) (the older name of FastGeLU)."),
    "Cholesky": Op(LA.cholesky, "input_x: Tensor", "the Cholesky factor (lower unless `upper`).",
                   "upper: bool = False"),
    "CholeskyInverse": Op(LA.cholesky_inverse, "x: Tensor", "A^-1 from A's Cholesky factor.", "upper: bool = False"),
    "CholeskySolve": Op(LA.cholesky_solve, _XY, "x with A x = x1, x2 being A's Cholesky factor.",
                        "upper: bool = False"),
    "Inv": Op(LA.inv, "x: Tensor", "1 / x element-wise."),
    "Fills": Op(TM.fills, "x: Tensor, value: Any", "a tensor of x's shape filled with `value`."),
    "Expand": Op(TM.expand, "x: Tensor, shape: Any", "x broadcast to `shape`."),
    "IndexFill": Op(TM.index_fill, "x: Tensor, dim: int, index: Tensor, value: Any",
                    "x with the slices at `index` along `dim` set to `value`."),
    "Betainc": Op(lambda a, b, x: SF.Betainc(a, b, x), "a: Tensor, b: Tensor, x: Tensor",
                  "the regularized incomplete beta function I_x(a, b)."),
}
globals().update(op_classes(_TABLE, __name__))


class Cross(Operation):
    """``Cross(dim=-65530)(x1, x2)``: the cross product along `dim` (-65530: the first axis of size 3)."""

    def __init__(self, dim: int = -65530) -> None:
        self.dim = dim

    def construct(self, x1: Tensor, x2: Tensor) -> Tensor:
        return LA.cross(x1, x2, None if self.dim == -65530 else self.dim)


class Einsum(Operation):
    """``Einsum(equation)(operands)``: Einstein summation of a tuple of tensors."""

    def __init__(self, equation: str) -> None:
        if not isinstance(equation, str):
            raise TypeError(f"Einsum: equation must be a str, got {type(equation).__name__}")
        self.equation = equation

    def construct(self, operands: Sequence[Tensor]) -> Tensor:
        return LA.einsum(self.equation, *operands)


class IndexAdd(Operation):
    """``IndexAdd(axis, use_lock=True, check_index_bound=True)(input_x, indices, input_y)``."""

    def __init__(self, axis: int, use_lock: bool = True, check_index_bound: bool = True) -> None:
        self.axis, self.use_lock, self.check_index_bound = axis, use_lock, check_index_bound

    def construct(self, input_x: Tensor, indices: Tensor, input_y: Tensor) -> Tensor:
        return TM.index_add(input_x, indices, input_y, self.axis)


def _window_class(name: str, fn: Any, doc: str) -> type[Operation]:
    def __init__(self, periodic: bool = True, dtype: Any = mstype.float32) -> None:
        self.periodic, self.dtype = periodic, dtype

    def construct(self, window_length: Tensor) -> Tensor:
        return fn(window_length, self.periodic, dtype=self.dtype)

    return type(name, (Operation,), {"__init__": __init__, "construct": construct, "__doc__": doc,
                                     "__module__": __name__, "__qualname__": name})


BartlettWindow = _window_class("BartlettWindow", TM.bartlett_window,
                               "``BartlettWindow(periodic=True, dtype=float32)(window_length)``: a Bartlett window.")
BlackmanWindow = _window_class("BlackmanWindow", TM.blackman_window,
                               "``BlackmanWindow(periodic=True, dtype=float32)(window_length)``: a Blackman window.")


class HammingWindow(Operation):
    """``HammingWindow(periodic=True, alpha=0.54, beta=0.46, dtype=float32)(length)``: a Hamming window."""

    def __init__(self, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46,
                 dtype: Any = mstype.float32) -> None:
        self.periodic, self.alpha, self.beta, self.dtype = periodic, alpha, beta, dtype

    def construct(self, length: Tensor) -> Tensor:
        return TM.hamming_window(length, self.periodic, self.alpha, self.beta, dtype=self.dtype)


__all__ = sorted([*_TABLE, "Cross", "Einsum", "IndexAdd", "BartlettWindow", "BlackmanWindow", "HammingWindow"])
