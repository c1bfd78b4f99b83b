"""Elementwise math beyond the four arithmetic ops: roots and powers, trigonometric and hyperbolic
functions, erf, rounding, clamping, and the binary max/min/floor-div/mod/atan2 family.

Transcendental functions compute in floating point: their wrappers turn integer and bool tensors
into float32 first, so each primitive's rule stays "float in, the same float out". Rounding ops
(floor, ceil, round, trunc, sign) and floor division are piecewise constant: MindSpore gives zero
gradients through them, and declaring them `nondiff` gives exactly that (their inputs get zero
gradients) without running a backward rule. Tanh has a fused gradient primitive, as ReLU does,
because training steps run it on whole activations.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autodiff.tape import is_tracked
from ..common import dtype as mstype
from ..errors import DTypeError
from ..onnx.spec import OnnxMap, same
from ..tensor import Tensor, tensor_method
from ._rules import require_float, require_same_dtype
from .array import cast, sum_to
from .comparison import equal, greater
from .elementwise import (
    _as_float,
    _binary,
    _binary_infer,
    _float_infer,
    _generate_wrappers,
    _promoted,
    add,
    div,
    exp,
    log,
    mul,
    neg,
    sub,
)
from .primitive import Api, Aval, primitive


def _square_into(a: np.ndarray, out: np.ndarray) -> np.ndarray:
    return np.multiply(a, a, out=out)


def _erf(x: np.ndarray) -> np.ndarray:
    """Exact erf in x's dtype (what `ops.erf` computes): scipy's when it is installed (imported on first
    use: it takes a third of a second), else an exact, slower fallback."""
    try:
        from scipy.special import erf
    except ImportError:  # pragma: no cover - exercised only where scipy is absent
        return np.frompyfunc(math.erf, 1, 1)(x).astype(x.dtype)
    return np.asarray(erf(x)).astype(x.dtype, copy=False)


# Abramowitz & Stegun 7.1.26: |error| < 1.5e-7 in exact arithmetic, ~5e-7 evaluated in float32 (a few
# float32 ulps of Phi(x)); the rational form PyTorch's vectorised CPU erf uses. Ten times faster than
# scipy's scalar-loop erf on float32 data, so GELU uses it below float64. Its absolute error is what
# GELU needs; for tiny |x| its relative error is large, so `ops.erf` itself stays exact.
_AS_P = 0.3275911
_AS_A = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)


def _erf_fast(x: np.ndarray) -> np.ndarray:
    """erf in x's dtype: exact for float64, A&S 7.1.26 computed in float32 for narrower floats."""
    if x.dtype == np.float64:
        return _erf(x)
    if x.ndim == 0:  # NumPy ufuncs return scalars for 0-d arrays, which cannot be written in place
        return _erf_fast(x.reshape(1)).reshape(())
    xf = np.asarray(x, np.float32)
    z = np.abs(xf)
    t = z * _AS_P
    t += 1
    np.divide(1, t, out=t)
    poly = t * _AS_A[0]
    for c in _AS_A[1:]:
        poly += c
        poly *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z
    np.subtract(1, poly, out=poly)
    poly *= np.sign(xf)  # erf is odd (np.copysign is several times slower)
    return poly.astype(x.dtype, copy=False)


def _numeric_infer(name: str):
    def infer(a: Any) -> Aval:
        if a.dtype is mstype.bool_:
            raise DTypeError(name, "a numeric tensor", "Bool", hint="cast it first, e.g. x.astype(ms.int32)")
        return Aval(a.shape, a.dtype)

    return infer


# --- unary, differentiable --------------------------------------------------------------------------

@primitive
class Abs:
    """Absolute value of each element (the gradient at 0 is 0)."""
    onnx = same("Abs")

    ufunc = np.abs  # fusion, C++ opcode and in-place reuse: see ops/primitive.py
    opcode = 18

    infer = _numeric_infer("Abs")

    def impl(a):
        return np.abs(a)

    def vjp(g, out, a):
        return (mul(g, sign(a)),)


@primitive
class Sqrt:
    """Square root of each element (float input)."""
    onnx = same("Sqrt")

    ufunc = np.sqrt  # fusion, C++ opcode and in-place reuse: see ops/primitive.py
    opcode = 14
    inplace = True

    infer = _float_infer("Sqrt")

    def impl(a):
        return np.sqrt(a)

    def vjp(g, out, a):
        return (div(mul(g, 0.5), out),)


@primitive
class Rsqrt:
    """Reciprocal of the square root of each element: 1 / sqrt(x) (float input)."""
    onnx = OnnxMap(export="rsqrt")

    api = Api("rsqrt", cls="Rsqrt", floats=True)  # its public names: see ops/primitive.py

    infer = _float_infer("Rsqrt")

    def impl(a):
        out = np.asarray(np.sqrt(a))
        return np.reciprocal(out, out=out)

    def vjp(g, out, a):  # d/dx x^-1/2 = -1/2 x^-3/2 = -1/2 out^3
        return (mul(mul(g, -0.5), mul(out, square(out))),)


@primitive
class Square:
    """Square of each element: x * x."""
    onnx = OnnxMap(export="square")

    ufunc = _square_into  # fusion, C++ opcode and in-place reuse: see ops/primitive.py
    opcode = 15

    infer = _numeric_infer("Square")

    def impl(a):
        return np.square(a)

    def vjp(g, out, a):
        return (mul(g, mul(a, 2)),)


@primitive
class Reciprocal:
    """Reciprocal of each element: 1 / x (float input)."""
    onnx = same("Reciprocal")

    api = Api("reciprocal", cls="Reciprocal", floats=True)  # its public names: see ops/primitive.py

    ufunc = np.reciprocal  # fusion, C++ opcode and in-place reuse: see ops/primitive.py
    opcode = 19

    infer = _float_infer("Reciprocal")

    def impl(a):
        return np.reciprocal(a)

    def vjp(g, out, a):
        return (neg(mul(g, square(out))),)


@primitive
class Sin:
    """Sine of each element (radians)."""
    onnx = same("Sin")

    api = Api("sin", cls="Sin", floats=True)  # its public names: see ops/primitive.py

    ufunc = np.sin  # fusion, C++ opcode and in-place reuse: see ops/primitive.py
    opcode = 20

    infer = _float_infer("Sin")

    def impl(a):
        return np.sin(a)

    def vjp(g, out, a):
        return (mul(g, Cos(a)),)


@primitive
class Cos:
    """Cosine of each element (radians)."""
    onnx = same("Cos")

    api = Api("cos", cls="Cos", floats=True)  # its public names: see ops/primitive.py

    ufunc = np.cos  # fusion, C++ opcode and in-place reuse: see ops/primitive.py
    opcode = 21

    infer = _float_infer("Cos")

    def impl(a):
        return np.cos(a)

    def vjp(g, out, a):
        return (neg(mul(g, Sin(a))),)


@primitive
class Tan:
    """Tangent of each element (radians)."""
    onnx = same("Tan")

    api = Api("tan", cls="Tan", floats=True)  # its public names: see ops/primitive.py

    infer = _float_infer("Tan")

    def impl(a):
        return np.tan(a)

    def vjp(g, out, a):
        return (mul(g, add(square(out), 1)),)


@primitive
class Atan:
    """Arctangent of each element (radians)."""
    onnx = same("Atan")

    infer = _float_infer("Atan")

    def impl(a):
        return np.arctan(a)

    def vjp(g, out, a):
        return (div(g, add(square(a), 1)),)


@primitive
class Sinh:
    """Hyperbolic sine of each element."""
    onnx = same("Sinh")

    api = Api("sinh", cls="Sinh", floats=True)  # its public names: see ops/primitive.py

    infer = _float_infer("Sinh")

    def impl(a):
        return np.sinh(a)

    def vjp(g, out, a):
        return (mul(g, Cosh(a)),)


@primitive
class Cosh:
    """Hyperbolic cosine of each element."""
    onnx = same("Cosh")

    api = Api("cosh", cls="Cosh", floats=True)  # its public names: see ops/primitive.py

    infer = _float_infer("Cosh")

    def impl(a):
        return np.cosh(a)

    def vjp(g, out, a):
        return (mul(g, Sinh(a)),)


@primitive
class Tanh:
    """Hyperbolic tangent of each element."""
    onnx = same("Tanh")

    api = Api("tanh", cls="Tanh", floats=True)  # its public names: see ops/primitive.py

    ufunc = np.tanh  # fusion, C++ opcode and in-place reuse: see ops/primitive.py
    opcode = 16
    inplace = True

    infer = _float_infer("Tanh")

    def impl(a):
        return np.tanh(a)

    def vjp(g, out, a):
        return (TanhGrad(g, out),)


@primitive
class TanhGrad:
    """Gradient of Tanh from its output: g * (1 - out^2)."""

    def infer(g, out):
        require_same_dtype("TanhGrad", g, out)
        return Aval(g.shape, g.dtype)

    def impl(g, out):
        d = np.asarray(np.square(out))
        np.subtract(1, d, out=d)
        d *= g
        return d

    def vjp(gg, _, g, out):
        return TanhGrad(gg, out), mul(mul(gg, g), mul(out, -2))


@primitive
class Erf:
    """Gauss error function of each element: erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt."""
    onnx = same("Erf")

    api = Api("erf", cls="Erf", floats=True)  # its public names: see ops/primitive.py

    infer = _float_infer("Erf")

    def impl(a):
        return _erf(a)

    def vjp(g, out, a):
        return (mul(g, mul(exp(neg(square(a))), 2 / math.sqrt(math.pi))),)


@primitive
class Log1p:
    """log(1 + x) of each element, accurate for small x."""

    infer = _float_infer("Log1p")

    def impl(a):
        return np.log1p(a)

    def vjp(g, out, a):
        return (div(g, add(a, 1)),)


@primitive
class Expm1:
    """exp(x) - 1 of each element, accurate for small x."""

    infer = _float_infer("Expm1")

    def impl(a):
        return np.expm1(a)

    def vjp(g, out, a):
        return (mul(g, add(out, 1)),)


@primitive
class Log2:
    """Base-2 logarithm of each element."""

    infer = _float_infer("Log2")

    def impl(a):
        return np.log2(a)

    def vjp(g, out, a):
        return (div(g, mul(a, math.log(2.0))),)


@primitive
class Log10:
    """Base-10 logarithm of each element."""

    infer = _float_infer("Log10")

    def impl(a):
        return np.log10(a)

    def vjp(g, out, a):
        return (div(g, mul(a, math.log(10.0))),)


# --- unary, piecewise constant (no gradient) -------------------------------------------------------

@primitive
class Sign:
    """Sign of each element: -1, 0 or 1 (zero gradient)."""
    onnx = same("Sign")

    nondiff = True
    infer = _numeric_infer("Sign")

    def impl(a):
        return np.sign(a)


@primitive
class Floor:
    """Largest integer not greater than each element (zero gradient)."""
    onnx = same("Floor")

    nondiff = True
    infer = _float_infer("Floor")

    def impl(a):
        return np.floor(a)


@primitive
class Ceil:
    """Smallest integer not less than each element (zero gradient)."""
    onnx = same("Ceil")

    nondiff = True
    infer = _float_infer("Ceil")

    def impl(a):
        return np.ceil(a)


@primitive
class Trunc:
    """Each element rounded toward zero (zero gradient)."""

    nondiff = True
    infer = _float_infer("Trunc")

    def impl(a):
        return np.trunc(a)


_ROUND_INFER = _numeric_infer("Round")


@primitive
class Round:
    """Each element rounded half to even, to `decimals` places (zero gradient)."""

    nondiff = True

    def infer(a, decimals=0):
        return _ROUND_INFER(a)

    def impl(a, decimals=0):
        return np.round(a, decimals)


# --- binary ---------------------------------------------------------------------------------------

@primitive
class Pow:
    """First tensor raised to the power of the second element-wise, with broadcasting."""
    onnx = same("Pow")

    infer = _binary_infer("Pow")

    def impl(a, b):
        return np.power(a, b)

    def vjp(g, out, a, b):
        ga = gb = None
        if is_tracked(a):
            ga = sum_to(mul(g, mul(b, Pow(a, sub(b, 1)))), a.shape)
        if is_tracked(b):  # d/db a^b = a^b log a; 0 where a == 0 (xlogy), NaN where a < 0
            gb = sum_to(Xlogy(mul(g, out), a), b.shape)
        return ga, gb


_XLOGY_INFER = _binary_infer("Xlogy")


@primitive
class Xlogy:
    """x * log(y) element-wise, defined as 0 where x == 0 (with broadcasting; float inputs)."""

    def infer(a, b):
        require_float("Xlogy", a)
        return _XLOGY_INFER(a, b)

    def impl(a, b):
        with np.errstate(divide="ignore", invalid="ignore"):
            out = a * np.log(b)
        return np.where(a == 0, np.zeros((), out.dtype), out)

    def vjp(g, out, a, b):
        ga = sum_to(mul(g, log(b)), a.shape) if is_tracked(a) else None
        gb = sum_to(div(mul(g, a), b), b.shape) if is_tracked(b) else None
        return ga, gb


def _max_min_vjp(g: Tensor, a: Tensor, b: Tensor, a_wins: Tensor) -> tuple[Any, Any]:
    """Route g to the winning input; on ties each input gets half (as PyTorch does)."""
    dt = g.dtype
    share = add(cast(a_wins, dt), mul(cast(equal(a, b), dt), 0.5))
    ga = mul(g, share)
    gb = sub(g, ga) if is_tracked(b) else None
    return (sum_to(ga, a.shape) if is_tracked(a) else None), (sum_to(gb, b.shape) if gb is not None else None)


@primitive
class Maximum:
    """Element-wise maximum of two tensors, with broadcasting (NaN propagates)."""
    onnx = same("Max")

    ufunc = np.maximum  # fusion, C++ opcode and in-place reuse: see ops/primitive.py
    opcode = 4

    infer = _binary_infer("Maximum")

    def impl(a, b):
        return np.maximum(a, b)

    def vjp(g, out, a, b):
        return _max_min_vjp(g, a, b, greater(a, b))


@primitive
class Minimum:
    """Element-wise minimum of two tensors, with broadcasting (NaN propagates)."""
    onnx = same("Min")

    ufunc = np.minimum  # fusion, C++ opcode and in-place reuse: see ops/primitive.py
    opcode = 5

    infer = _binary_infer("Minimum")

    def impl(a, b):
        return np.minimum(a, b)

    def vjp(g, out, a, b):
        return _max_min_vjp(g, a, b, greater(b, a))


@primitive
class FloorDiv:
    """Divides the first tensor by the second and rounds the quotient down (zero gradient)."""

    nondiff = True
    infer = _binary_infer("FloorDiv")

    def impl(a, b):
        return np.floor_divide(a, b)


@primitive
class FloorMod:
    """Remainder of floor division element-wise; the result has the sign of the divisor."""

    infer = _binary_infer("FloorMod")

    def impl(a, b):
        return np.remainder(a, b)

    def vjp(g, out, a, b):  # a - floor(a / b) * b
        ga = sum_to(g, a.shape) if is_tracked(a) else None
        gb = sum_to(neg(mul(g, FloorDiv(a, b))), b.shape) if is_tracked(b) else None
        return ga, gb


_ATAN2_INFER = _binary_infer("Atan2")


@primitive
class Atan2:
    """Element-wise arctangent of y / x choosing the quadrant from both signs (radians)."""

    def infer(a, b):
        require_float("Atan2", a)
        return _ATAN2_INFER(a, b)

    def impl(a, b):
        return np.arctan2(a, b)

    def vjp(g, out, a, b):
        r = div(g, add(square(a), square(b)))
        ga = sum_to(mul(r, b), a.shape) if is_tracked(a) else None
        gb = sum_to(neg(mul(r, a)), b.shape) if is_tracked(b) else None
        return ga, gb


_CLAMP_INFER = _numeric_infer("Clamp")


@primitive
class Clamp:
    """Limits each element to [min, max] (Python-number bounds; either may be None)."""

    def infer(a, min=None, max=None):
        if min is None and max is None:
            raise DTypeError("Clamp", "at least one of min and max", "both None")
        return _CLAMP_INFER(a)

    def impl(a, min=None, max=None):
        return np.clip(a, min, max).astype(a.dtype, copy=False)

    def vjp(g, out, a, min=None, max=None):
        return (ClampGrad(g, a, min=min, max=max),)


@primitive
class ClampGrad:
    """Gradient of Clamp: passes `g` where min <= x <= max (bounds inclusive)."""

    def infer(g, a, min=None, max=None):
        return Aval(g.shape, g.dtype)

    def impl(g, a, min=None, max=None):
        keep = (a >= min) if max is None else (a <= max) if min is None else (a >= min) & (a <= max)
        return np.where(keep, g, np.zeros((), g.dtype))

    def vjp(gg, _, g, a, min=None, max=None):
        return ClampGrad(gg, a, min=min, max=max), None


# --- functional wrappers --------------------------------------------------------------------------

@tensor_method("abs", "absolute")
def abs(input: Tensor) -> Tensor:
    """Returns the absolute value of a tensor element-wise."""
    return Abs(input)


absolute = abs


@tensor_method("sqrt")
def sqrt(x: Tensor) -> Tensor:
    """Returns sqrt of a tensor element-wise."""
    return Sqrt(_as_float(x))


@tensor_method("square")
def square(input: Tensor) -> Tensor:
    """Returns the square of a tensor element-wise."""
    return Square(input)


@tensor_method("atan", "arctan")
def atan(input: Tensor) -> Tensor:
    """Computes the arctangent of the input element-wise."""
    return Atan(_as_float(input))


@tensor_method("log1p")
def log1p(input: Tensor) -> Tensor:
    """Returns the natural logarithm of one plus the input element-wise."""
    return Log1p(_as_float(input))


@tensor_method("expm1")
def expm1(input: Tensor) -> Tensor:
    """Returns exponential then minus 1 of a tensor element-wise."""
    return Expm1(_as_float(input))


@tensor_method("log2")
def log2(input: Tensor) -> Tensor:
    """Returns the logarithm to the base 2 of a tensor element-wise."""
    return Log2(_as_float(input))


@tensor_method("log10")
def log10(input: Tensor) -> Tensor:
    """Returns the logarithm to the base 10 of a tensor element-wise."""
    return Log10(_as_float(input))


@tensor_method("sign")
def sign(input: Tensor) -> Tensor:
    """Returns -1, 0 or 1 per element according to its sign (bool input is read as 0/1)."""
    return Sign(cast(input, mstype.int32) if input.dtype is mstype.bool_ else input)


@tensor_method("floor")
def floor(input: Tensor) -> Tensor:
    """Rounds each element down to the nearest integer (integer tensors are returned as they are)."""
    return Floor(input) if input.dtype.is_float or input.dtype.is_complex else input  # complex: Floor refuses


@tensor_method("ceil")
def ceil(input: Tensor) -> Tensor:
    """Rounds each element up to the nearest integer (integer tensors are returned as they are)."""
    return Ceil(input) if input.dtype.is_float or input.dtype.is_complex else input  # complex: Ceil refuses


@tensor_method("trunc")
def trunc(input: Tensor) -> Tensor:
    """Rounds each element toward zero (integer tensors are returned as they are)."""
    return Trunc(input) if input.dtype.is_float or input.dtype.is_complex else input  # complex: Trunc refuses


@tensor_method("round")
def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    """Rounds each element half to even, to `decimals` decimal places."""
    return Round(input, decimals=int(decimals))


@tensor_method("pow")
def pow(input: Any, exponent: Any) -> Tensor:
    """Raises `input` to the power `exponent` element-wise (either may be a Python number).

    A Python exponent of 2 runs as `square`, whose gradient is cheaper.
    """
    if exponent.__class__ is int and exponent == 2 and isinstance(input, Tensor):
        return Square(input)
    return _binary(Pow, input, exponent)


@tensor_method("xlogy")
def xlogy(input: Any, other: Any) -> Tensor:
    """Computes input * log(other) element-wise, 0 where input is 0."""
    a, b = _promoted(input, other)
    return Xlogy(_as_float(a), _as_float(b))


@tensor_method("maximum")
def maximum(input: Any, other: Any) -> Tensor:
    """Computes the maximum of two inputs element-wise (ties share the gradient equally)."""
    return _binary(Maximum, input, other)


@tensor_method("minimum")
def minimum(input: Any, other: Any) -> Tensor:
    """Computes the minimum of two inputs element-wise (ties share the gradient equally)."""
    return _binary(Minimum, input, other)


@tensor_method("floor_divide")
def floor_divide(input: Any, other: Any) -> Tensor:
    """Divides `input` by `other` element-wise and rounds the quotient down."""
    return _binary(FloorDiv, input, other)


@tensor_method("remainder")
def remainder(input: Any, other: Any) -> Tensor:
    """Remainder of floor division element-wise (the result has the sign of `other`)."""
    return _binary(FloorMod, input, other)


def floor_mod(x: Any, y: Any) -> Tensor:
    """Remainder of floor division element-wise (the result has the sign of `y`)."""
    return _binary(FloorMod, x, y)


@tensor_method("atan2", "arctan2")
def atan2(input: Any, other: Any) -> Tensor:
    """Arctangent of input / other element-wise, in the quadrant given by both signs."""
    a, b = _promoted(input, other)
    return Atan2(_as_float(a), _as_float(b))


arctan2 = atan2


@tensor_method("clamp", "clip")
def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Clamps each element into [min, max]; bounds are numbers, tensors (broadcast) or None.

    Where a bound is hit the gradient is passed through (bounds inclusive).
    """
    if min is None and max is None:
        raise ValueError("clamp: at least one of min and max must be given")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        out = input if min is None else maximum(input, min)
        return out if max is None else minimum(out, max)
    if not input.dtype.is_float and (isinstance(min, float) or isinstance(max, float)):
        input = cast(input, mstype.float32)
    return Clamp(input, min=min, max=max)


clip = clamp


@tensor_method("lerp")
def lerp(input: Tensor, end: Any, weight: Any) -> Tensor:
    """Linear interpolation: input + weight * (end - input)."""
    return add(input, mul(weight, sub(end, input)))


@tensor_method("addcmul")
def addcmul(input: Tensor, tensor1: Any, tensor2: Any, value: Any = 1) -> Tensor:
    """input + value * tensor1 * tensor2, element-wise with broadcasting."""
    prod = mul(tensor1, tensor2)
    return add(input, prod if isinstance(value, (int, float)) and value == 1 else mul(prod, value))


@tensor_method("addcdiv")
def addcdiv(input: Tensor, tensor1: Any, tensor2: Any, value: Any = 1) -> Tensor:
    """input + value * tensor1 / tensor2, element-wise with broadcasting."""
    q = div(tensor1, tensor2)
    return add(input, q if isinstance(value, (int, float)) and value == 1 else mul(q, value))


_generate_wrappers(globals())  # ops.sin, Tensor.sin, ... from the declarations' `api`
