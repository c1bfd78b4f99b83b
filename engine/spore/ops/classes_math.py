"""Class forms of the math, activation, comparison and reduction ops with MindSpore's signatures:
configured once with their attributes (``ops.ReduceSum(keep_dims=True)``), then called with tensors
(``op(x, axis)``). Each forwards to the functional wrapper, which applies the registered primitive;
like MindSpore's primitives, binary ones accept Python numbers and promote mixed dtypes.
"""

from __future__ import annotations

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
from .operation import Operation


class _Unary(Operation):
    """``Op()(x)``: one tensor in, one out."""

    _fn: Any = None

    def construct(self, x: Tensor) -> Tensor:
        return self._fn(x)


class _Binary(Operation):
    """``Op()(x, y)``: two operands (tensors or numbers, broadcast and promoted), one tensor out."""

    _fn: Any = None

    def construct(self, x: Any, y: Any) -> Tensor:
        return self._fn(x, y)


# --- arithmetic -----------------------------------------------------------------------------------

class Add(_Binary):
    """``Add()(x, y)``: x + y element-wise."""
    _fn = staticmethod(E.add)


class Sub(_Binary):
    """``Sub()(x, y)``: x - y element-wise."""
    _fn = staticmethod(E.sub)


class Mul(_Binary):
    """``Mul()(x, y)``: x * y element-wise."""
    _fn = staticmethod(E.mul)


class Div(_Binary):
    """``Div()(x, y)``: x / y element-wise (true division)."""
    _fn = staticmethod(E.div)


class RealDiv(_Binary):
    """``RealDiv()(x, y)``: x / y element-wise (true division)."""
    _fn = staticmethod(E.div)


class Pow(_Binary):
    """``Pow()(x, y)``: x ** y element-wise."""
    _fn = staticmethod(M.pow)


class Maximum(_Binary):
    """``Maximum()(x, y)``: element-wise maximum."""
    _fn = staticmethod(M.maximum)


class Minimum(_Binary):
    """``Minimum()(x, y)``: element-wise minimum."""
    _fn = staticmethod(M.minimum)


class FloorDiv(_Binary):
    """``FloorDiv()(x, y)``: x / y rounded down element-wise."""
    _fn = staticmethod(M.floor_divide)


class FloorMod(_Binary):
    """``FloorMod()(x, y)``: remainder of floor division, with the sign of y."""
    _fn = staticmethod(M.remainder)


class Atan2(_Binary):
    """``Atan2()(x, y)``: arctangent of x / y in the right quadrant."""
    _fn = staticmethod(M.atan2)


class Xlogy(_Binary):
    """``Xlogy()(x, y)``: x * log(y), 0 where x == 0."""
    _fn = staticmethod(M.xlogy)


class AddN(Operation):
    """``AddN()(x)``: the element-wise sum of a tuple/list of tensors."""

    def construct(self, x: Sequence[Tensor]) -> Tensor:
        out = x[0]
        for t in x[1:]:
            out = E.add(out, t)
        return out


class Lerp(Operation):
    """``Lerp()(start, end, weight)``: start + weight * (end - start)."""

    def construct(self, start: Tensor, end: Any, weight: Any) -> Tensor:
        return M.lerp(start, end, weight)


class ClipByValue(Operation):
    """``ClipByValue()(x, clip_value_min, clip_value_max)``: clamp into [min, max]."""

    def construct(self, x: Tensor, clip_value_min: Any, clip_value_max: Any) -> Tensor:
        return M.clamp(x, clip_value_min, clip_value_max)


class Neg(_Unary):
    """``Neg()(x)``: -x element-wise."""
    _fn = staticmethod(E.neg)


class Exp(_Unary):
    """``Exp()(x)``: e ** x element-wise."""
    _fn = staticmethod(E.exp)


class Log(_Unary):
    """``Log()(x)``: natural logarithm element-wise."""
    _fn = staticmethod(E.log)


class Sqrt(_Unary):
    """``Sqrt()(x)``: square root element-wise."""
    _fn = staticmethod(M.sqrt)


class Rsqrt(_Unary):
    """``Rsqrt()(x)``: 1 / sqrt(x) element-wise."""
    _fn = staticmethod(M.rsqrt)


class Square(_Unary):
    """``Square()(x)``: x * x element-wise."""
    _fn = staticmethod(M.square)


class Abs(_Unary):
    """``Abs()(x)``: |x| element-wise."""
    _fn = staticmethod(M.abs)


class Reciprocal(_Unary):
    """``Reciprocal()(x)``: 1 / x element-wise."""
    _fn = staticmethod(M.reciprocal)


class Sin(_Unary):
    """``Sin()(x)``: sine element-wise."""
    _fn = staticmethod(M.sin)


class Cos(_Unary):
    """``Cos()(x)``: cosine element-wise."""
    _fn = staticmethod(M.cos)


class Tan(_Unary):
    """``Tan()(x)``: tangent element-wise."""
    _fn = staticmethod(M.tan)


class Atan(_Unary):
    """``Atan()(x)``: arctangent element-wise."""
    _fn = staticmethod(M.atan)


class Sinh(_Unary):
    """``Sinh()(x)``: hyperbolic sine element-wise."""
    _fn = staticmethod(M.sinh)


class Cosh(_Unary):
    """``Cosh()(x)``: hyperbolic cosine element-wise."""
    _fn = staticmethod(M.cosh)


class Tanh(_Unary):
    """``Tanh()(x)``: hyperbolic tangent element-wise."""
    _fn = staticmethod(M.tanh)


class Erf(_Unary):
    """``Erf()(x)``: Gauss error function element-wise."""
    _fn = staticmethod(M.erf)


class Log1p(_Unary):
    """``Log1p()(x)``: log(1 + x) element-wise."""
    _fn = staticmethod(M.log1p)


class Expm1(_Unary):
    """``Expm1()(x)``: exp(x) - 1 element-wise."""
    _fn = staticmethod(M.expm1)


class Floor(_Unary):
    """``Floor()(x)``: round down element-wise."""
    _fn = staticmethod(M.floor)


class Ceil(_Unary):
    """``Ceil()(x)``: round up element-wise."""
    _fn = staticmethod(M.ceil)


class Round(_Unary):
    """``Round()(x)``: round half to even element-wise."""
    _fn = staticmethod(M.round)


class Trunc(_Unary):
    """``Trunc()(x)``: round toward zero element-wise."""
    _fn = staticmethod(M.trunc)


class Sign(_Unary):
    """``Sign()(x)``: -1, 0 or 1 element-wise."""
    _fn = staticmethod(M.sign)


# --- activations ----------------------------------------------------------------------------------

class ReLU(_Unary):
    """``ReLU()(x)``: max(x, 0) element-wise."""
    _fn = staticmethod(E.relu)


class ReLU6(_Unary):
    """``ReLU6()(x)``: min(max(x, 0), 6) element-wise."""
    _fn = staticmethod(Act.relu6)


class Sigmoid(_Unary):
    """``Sigmoid()(x)``: 1 / (1 + exp(-x)) element-wise."""
    _fn = staticmethod(Act.sigmoid)


class HSigmoid(_Unary):
    """``HSigmoid()(x)``: relu6(x + 3) / 6 element-wise."""
    _fn = staticmethod(Act.hardsigmoid)


class HSwish(_Unary):
    """``HSwish()(x)``: x * relu6(x + 3) / 6 element-wise."""
    _fn = staticmethod(Act.hardswish)


class SiLU(_Unary):
    """``SiLU()(x)``: x * sigmoid(x) element-wise."""
    _fn = staticmethod(Act.silu)


class Mish(_Unary):
    """``Mish()(x)``: x * tanh(softplus(x)) element-wise."""
    _fn = staticmethod(Act.mish)


class Softplus(_Unary):
    """``Softplus()(x)``: log(1 + exp(x)) element-wise."""
    _fn = staticmethod(Act.softplus)


class GeLU(_Unary):
    """``GeLU()(x)``: GELU with the tanh approximation, as MindSpore's GeLU primitive computes it."""

    def construct(self, x: Tensor) -> Tensor:
        return Act.gelu(x, approximate="tanh")


class Elu(Operation):
    """``Elu(alpha=1.0)(input_x)``: x where positive, alpha * (exp(x) - 1) elsewhere."""

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = alpha

    def construct(self, input_x: Tensor) -> Tensor:
        return Act.elu(input_x, self.alpha)


class Softmax(Operation):
    """``Softmax(axis=-1)(logits)``."""

    def __init__(self, axis: int | tuple[int, ...] = -1) -> None:
        self.axis = axis

    def construct(self, logits: Tensor) -> Tensor:
        return Act.softmax(logits, self.axis)


class LogSoftmax(Operation):
    """``LogSoftmax(axis=-1)(logits)``."""

    def __init__(self, axis: int = -1) -> None:
        self.axis = axis

    def construct(self, logits: Tensor) -> Tensor:
        return Act.log_softmax(logits, self.axis)


# --- comparisons and logic ------------------------------------------------------------------------

class Equal(_Binary):
    """``Equal()(x, y)``: x == y element-wise (bool)."""
    _fn = staticmethod(C.equal)


class NotEqual(_Binary):
    """``NotEqual()(x, y)``: x != y element-wise (bool)."""
    _fn = staticmethod(C.not_equal)


class Less(_Binary):
    """``Less()(x, y)``: x < y element-wise (bool)."""
    _fn = staticmethod(C.less)


class LessEqual(_Binary):
    """``LessEqual()(x, y)``: x <= y element-wise (bool)."""
    _fn = staticmethod(C.less_equal)


class Greater(_Binary):
    """``Greater()(x, y)``: x > y element-wise (bool)."""
    _fn = staticmethod(C.greater)


class GreaterEqual(_Binary):
    """``GreaterEqual()(x, y)``: x >= y element-wise (bool)."""
    _fn = staticmethod(C.greater_equal)


class LogicalAnd(_Binary):
    """``LogicalAnd()(x, y)``: x AND y element-wise."""
    _fn = staticmethod(C.logical_and)


class LogicalOr(_Binary):
    """``LogicalOr()(x, y)``: x OR y element-wise."""
    _fn = staticmethod(C.logical_or)


class LogicalXor(_Binary):
    """``LogicalXor()(x, y)``: x XOR y element-wise."""
    _fn = staticmethod(C.logical_xor)


class LogicalNot(_Unary):
    """``LogicalNot()(x)``: NOT x element-wise."""
    _fn = staticmethod(C.logical_not)


class IsNan(_Unary):
    """``IsNan()(x)``: which elements are NaN."""
    _fn = staticmethod(C.isnan)


class IsInf(_Unary):
    """``IsInf()(x)``: which elements are infinite."""
    _fn = staticmethod(C.isinf)


class IsFinite(_Unary):
    """``IsFinite()(x)``: which elements are finite."""
    _fn = staticmethod(C.isfinite)


class IsClose(Operation):
    """``IsClose(rtol=1e-05, atol=1e-08, equal_nan=True)(input, other)``."""

    def __init__(self, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = True) -> None:
        self.rtol, self.atol, self.equal_nan = rtol, atol, equal_nan

    def construct(self, input: Any, other: Any) -> Tensor:
        return C.isclose(input, other, self.rtol, self.atol, self.equal_nan)


# --- reductions -----------------------------------------------------------------------------------

class _Reduce(Operation):
    """``Op(keep_dims=False)(x, axis=())``: reduce over `axis` (every axis when empty)."""

    _fn: Any = None

    def __init__(self, keep_dims: bool = False) -> None:
        self.keep_dims = keep_dims

    def construct(self, x: Tensor, axis: Any = ()) -> Tensor:
        return self._fn(x, axis, self.keep_dims)


class ReduceSum(_Reduce):
    """``ReduceSum(keep_dims=False, skip_mode=False)(x, axis=())``; with `skip_mode` an empty axis
    returns `x` unchanged instead of summing everything."""

    def __init__(self, keep_dims: bool = False, skip_mode: bool = False) -> None:
        self.keep_dims, self.skip_mode = keep_dims, skip_mode

    def construct(self, x: Tensor, axis: Any = ()) -> Tensor:
        if self.skip_mode and (axis is None or (isinstance(axis, (tuple, list)) and not axis)):
            return x
        return R.reduce_sum(x, axis, self.keep_dims)


class ReduceMean(_Reduce):
    """``ReduceMean(keep_dims=False)(x, axis=())``."""
    _fn = staticmethod(R.reduce_mean)


class ReduceMax(_Reduce):
    """``ReduceMax(keep_dims=False)(x, axis=())``."""
    _fn = staticmethod(R.reduce_max)


class ReduceMin(_Reduce):
    """``ReduceMin(keep_dims=False)(x, axis=())``."""
    _fn = staticmethod(R.reduce_min)


class ReduceProd(_Reduce):
    """``ReduceProd(keep_dims=False)(x, axis=())``."""
    _fn = staticmethod(R.reduce_prod)


class ReduceAll(_Reduce):
    """``ReduceAll(keep_dims=False)(x, axis=())``: logical AND over `axis`."""
    _fn = staticmethod(R.all)


class ReduceAny(_Reduce):
    """``ReduceAny(keep_dims=False)(x, axis=())``: logical OR over `axis`."""
    _fn = staticmethod(R.any)


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


# --- matrix products ------------------------------------------------------------------------------

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
