"""Class forms of the math, activation, comparison and reduction ops with MindSpore's signatures:
configured once with their attributes (``ops.ReduceSum(keep_dims=True)``), then called with tensors
(``op(x, axis)``). Each forwards to the functional wrapper, which applies the registered primitive;
like MindSpore's primitives, binary ones accept Python numbers and promote mixed dtypes.

The plain forwards are rows of `_TABLE` (`Op` in `operation`: wrapper, call signature, doc, and
constructor attributes); the classes below it are the ones with logic of their own.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Sequence
from typing import Any

from ..common import dtype as mstype
from ..tensor import Tensor
from . import activation as Act
from . import comparison as C
from . import elementwise as E
from . import linalg as L
from . import math_ops as M
from . import reduction as R
from .operation import Op, Operation, op_classes
from .primitive import REGISTRY, Primitive

# the table's classes are made at import time, so a linter cannot see the names listed here
__all__ = [  # noqa: F822 (the declared ones are added below)
    "Abs", "Add", "AddN", "ArgMaxWithValue", "ArgMinWithValue", "Argmax", "Argmin", "Atan", "Atan2", "BatchMatMul",
    "Ceil", "ClipByValue", "CumSum", "Div", "Elu", "Equal", "Exp", "Expm1", "Floor", "FloorDiv", "FloorMod", "GeLU",
    "Greater", "GreaterEqual", "HSigmoid", "HSwish", "IsClose", "IsFinite", "IsInf", "IsNan", "Lerp", "Less",
    "LessEqual", "Log", "Log1p", "LogSoftmax", "LogicalAnd", "LogicalNot", "LogicalOr", "LogicalXor", "MatMul",
    "Maximum", "Minimum", "Mish", "Mul", "Neg", "NotEqual", "Pow", "ReLU", "ReLU6", "RealDiv", "ReduceAll",
    "ReduceAny", "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "Round", "SiLU", "Sigmoid",
    "Sign", "Softmax", "Softplus", "Sqrt", "Square", "Sub", "Trunc", "Xlogy",
]




def _arity(p: Primitive) -> int:
    return sum(1 for q in inspect.signature(p.infer).parameters.values() if q.default is q.empty)


_X = "x: Tensor"
_XY = "x: Any, y: Any"
_REDUCE = "x: Tensor, axis: Any = ()"
_KEEP = "keep_dims: bool = False"

_TABLE = {
    # arithmetic
    "Add": Op(E.add, _XY, "x + y element-wise."),
    "Sub": Op(E.sub, _XY, "x - y element-wise."),
    "Mul": Op(E.mul, _XY, "x * y element-wise."),
    "Div": Op(E.div, _XY, "x / y element-wise (true division)."),
    "RealDiv": Op(E.div, _XY, "x / y element-wise (true division)."),
    "Pow": Op(M.pow, _XY, "x ** y element-wise."),
    "Maximum": Op(M.maximum, _XY, "element-wise maximum."),
    "Minimum": Op(M.minimum, _XY, "element-wise minimum."),
    "FloorDiv": Op(M.floor_divide, _XY, "x / y rounded down element-wise."),
    "FloorMod": Op(M.remainder, _XY, "remainder of floor division, with the sign of y."),
    "Atan2": Op(M.atan2, _XY, "arctangent of x / y in the right quadrant."),
    "Xlogy": Op(M.xlogy, _XY, "x * log(y), 0 where x == 0."),
    "Lerp": Op(M.lerp, "start: Tensor, end: Any, weight: Any", "start + weight * (end - start)."),
    "ClipByValue": Op(M.clamp, "x: Tensor, clip_value_min: Any, clip_value_max: Any", "clamp into [min, max]."),
    "Neg": Op(E.neg, _X, "-x element-wise."),
    "Exp": Op(E.exp, _X, "e ** x element-wise."),
    "Log": Op(E.log, _X, "natural logarithm element-wise."),
    "Sqrt": Op(M.sqrt, _X, "square root element-wise."),
    "Square": Op(M.square, _X, "x * x element-wise."),
    "Abs": Op(M.abs, _X, "|x| element-wise."),
    "Atan": Op(M.atan, _X, "arctangent element-wise."),
    "Log1p": Op(M.log1p, _X, "log(1 + x) element-wise."),
    "Expm1": Op(M.expm1, _X, "exp(x) - 1 element-wise."),
    "Floor": Op(M.floor, _X, "round down element-wise."),
    "Ceil": Op(M.ceil, _X, "round up element-wise."),
    "Round": Op(M.round, _X, "round half to even element-wise."),
    "Trunc": Op(M.trunc, _X, "round toward zero element-wise."),
    "Sign": Op(M.sign, _X, "-1, 0 or 1 element-wise."),
    # activations
    "ReLU": Op(E.relu, _X, "max(x, 0) element-wise."),
    "ReLU6": Op(Act.relu6, _X, "min(max(x, 0), 6) element-wise."),
    "Sigmoid": Op(Act.sigmoid, _X, "1 / (1 + exp(-x)) element-wise."),
    "HSigmoid": Op(Act.hardsigmoid, _X, "relu6(x + 3) / 6 element-wise."),
    "HSwish": Op(Act.hardswish, _X, "x * relu6(x + 3) / 6 element-wise."),
    "SiLU": Op(Act.silu, _X, "x * sigmoid(x) element-wise."),
    "Mish": Op(Act.mish, _X, "x * tanh(softplus(x)) element-wise."),
    "Softplus": Op(Act.softplus, _X, "log(1 + exp(x)) element-wise."),
    "Elu": Op(Act.elu, "input_x: Tensor", "x where positive, alpha * (exp(x) - 1) elsewhere.", "alpha: float = 1.0"),
    "Softmax": Op(Act.softmax, "logits: Tensor", "exp(logits) normalised to sum to 1 along `axis`.",
                  "axis: int | tuple[int, ...] = -1"),
    "LogSoftmax": Op(Act.log_softmax, "logits: Tensor", "log of the softmax along `axis`.", "axis: int = -1"),
    # comparisons and logic
    "Equal": Op(C.equal, _XY, "x == y element-wise (bool)."),
    "NotEqual": Op(C.not_equal, _XY, "x != y element-wise (bool)."),
    "Less": Op(C.less, _XY, "x < y element-wise (bool)."),
    "LessEqual": Op(C.less_equal, _XY, "x <= y element-wise (bool)."),
    "Greater": Op(C.greater, _XY, "x > y element-wise (bool)."),
    "GreaterEqual": Op(C.greater_equal, _XY, "x >= y element-wise (bool)."),
    "LogicalAnd": Op(C.logical_and, _XY, "x AND y element-wise."),
    "LogicalOr": Op(C.logical_or, _XY, "x OR y element-wise."),
    "LogicalXor": Op(C.logical_xor, _XY, "x XOR y element-wise."),
    "LogicalNot": Op(C.logical_not, _X, "NOT x element-wise."),
    "IsNan": Op(C.isnan, _X, "which elements are NaN."),
    "IsInf": Op(C.isinf, _X, "which elements are infinite."),
    "IsFinite": Op(C.isfinite, _X, "which elements are finite."),
    "IsClose": Op(C.isclose, "input: Any, other: Any", "where |input - other| <= atol + rtol * |other|.",
                  "rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False"),
    # reductions over `axis` (every axis when empty)
    "ReduceMean": Op(R.reduce_mean, _REDUCE, "mean over `axis`.", _KEEP),
    "ReduceMax": Op(R.reduce_max, _REDUCE, "maximum over `axis`.", _KEEP),
    "ReduceMin": Op(R.reduce_min, _REDUCE, "minimum over `axis`.", _KEEP),
    "ReduceProd": Op(R.reduce_prod, _REDUCE, "product over `axis`.", _KEEP),
    "ReduceAll": Op(R.all, _REDUCE, "logical AND over `axis`.", _KEEP),
    "ReduceAny": Op(R.any, _REDUCE, "logical OR over `axis`.", _KEEP),
}
# plain elementwise ops whose declaration names its class form (`api`, see ops/primitive.py)
_DECLARED = {p.api.cls: Op(getattr(sys.modules[p.impl.__module__], p.api.function), _XY if _arity(p) == 2 else _X,
                           p.doc[:1].lower() + p.doc[1:])
             for p in REGISTRY.values() if p.api is not None and p.api.cls is not None}
globals().update(op_classes({**_TABLE, **_DECLARED}, __name__))
__all__ = sorted([*__all__, *_DECLARED])


class AddN(Operation):
    """``AddN()(x)``: the element-wise sum of a tuple/list of tensors."""

    def construct(self, x: Sequence[Tensor]) -> Tensor:
        out = x[0]
        for t in x[1:]:
            out = E.add(out, t)
        return out


class GeLU(Operation):
    """``GeLU()(x)``: GELU with the tanh approximation, as MindSpore's GeLU primitive computes it."""

    def construct(self, x: Tensor) -> Tensor:
        return Act.gelu(x, approximate="tanh")


class ReduceSum(Operation):
    """``ReduceSum(keep_dims=False, skip_mode=False)(x, axis=())``; with `skip_mode` an empty axis
    returns `x` unchanged instead of summing everything."""

    def __init__(self, keep_dims: bool = False, skip_mode: bool = False) -> None:
        self.keep_dims, self.skip_mode = keep_dims, skip_mode

    def construct(self, x: Tensor, axis: Any = ()) -> Tensor:
        if self.skip_mode and (axis is None or (isinstance(axis, (tuple, list)) and not axis)):
            return x
        return R.reduce_sum(x, axis, self.keep_dims)


class Argmax(Operation):
    """``Argmax(axis=-1, output_type=mstype.int32)(input_x)``: index of the maximum along `axis`."""

    def __init__(self, axis: int = -1, output_type: Any = mstype.int32) -> None:
        self.axis, self.output_type = axis, mstype.to_dtype(output_type)

    def construct(self, input_x: Tensor) -> Tensor:
        return R.Argmax(input_x, axis=self.axis, keep_dims=False, output_type=self.output_type)


class Argmin(Operation):
    """``Argmin(axis=-1, output_type=mstype.int32)(input_x)``: index of the minimum along `axis`."""

    def __init__(self, axis: int = -1, output_type: Any = mstype.int32) -> None:
        self.axis, self.output_type = axis, mstype.to_dtype(output_type)

    def construct(self, input_x: Tensor) -> Tensor:
        return R.Argmin(input_x, axis=self.axis, keep_dims=False, output_type=self.output_type)


class ArgMaxWithValue(Operation):
    """``ArgMaxWithValue(axis=0, keep_dims=False)(x)`` -> ``(index, value)`` of the maximum."""

    def __init__(self, axis: int = 0, keep_dims: bool = False) -> None:
        self.axis, self.keep_dims = axis, keep_dims

    def construct(self, x: Tensor) -> tuple[Tensor, Tensor]:
        return R.ArgMaxWithValue(x, axis=self.axis, keep_dims=self.keep_dims)


class ArgMinWithValue(Operation):
    """``ArgMinWithValue(axis=0, keep_dims=False)(x)`` -> ``(index, value)`` of the minimum."""

    def __init__(self, axis: int = 0, keep_dims: bool = False) -> None:
        self.axis, self.keep_dims = axis, keep_dims

    def construct(self, x: Tensor) -> tuple[Tensor, Tensor]:
        return R.ArgMinWithValue(x, axis=self.axis, keep_dims=self.keep_dims)


class CumSum(Operation):
    """``CumSum(exclusive=False, reverse=False)(input, axis)``: cumulative sum along `axis`."""

    def __init__(self, exclusive: bool = False, reverse: bool = False) -> None:
        self.exclusive, self.reverse = exclusive, reverse

    def construct(self, input: Tensor, axis: int) -> Tensor:
        return R.CumSum(input, axis=int(axis), exclusive=self.exclusive, reverse=self.reverse)


class MatMul(Operation):
    """``MatMul(transpose_a=False, transpose_b=False)(a, b)``: product of two 2-D matrices."""

    def __init__(self, transpose_a: bool = False, transpose_b: bool = False) -> None:
        self.transpose_a, self.transpose_b = transpose_a, transpose_b

    def construct(self, a: Tensor, b: Tensor) -> Tensor:
        if a.dtype is not b.dtype:
            a, b = E._promoted(a, b)
        return L.MatMul(a, b, transpose_a=self.transpose_a, transpose_b=self.transpose_b)


class BatchMatMul(Operation):
    """``BatchMatMul(transpose_a=False, transpose_b=False)(x, y)``: batched matrix product."""

    def __init__(self, transpose_a: bool = False, transpose_b: bool = False) -> None:
        self.transpose_a, self.transpose_b = transpose_a, transpose_b

    def construct(self, x: Tensor, y: Tensor) -> Tensor:
        if x.dtype is not y.dtype:
            x, y = E._promoted(x, y)
        return L.BatchMatMul(x, y, transpose_a=self.transpose_a, transpose_b=self.transpose_b)
