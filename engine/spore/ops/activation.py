"""Activation functions: softmax/log-softmax, sigmoid, GELU, SiLU, and the piecewise family
(leaky ReLU, ELU, ReLU6, hard sigmoid/swish), softplus and mish.

Softmax, log-softmax, sigmoid, GELU and SiLU are single primitives with fused gradient primitives
(one NumPy pass instead of a chain of recorded ops), because training steps apply them to whole
activations; each fused gradient has its own vjp, so higher-order gradients still work. Softmax and
log-softmax subtract the maximum along the axis first, so large logits do not overflow. The rest
are short compositions, or primitives whose gradients are written with ops.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..onnx.spec import OnnxMap, same
from ..tensor import Tensor, tensor_method
from ._rules import norm_axes, require_float, require_same_dtype
from .array import cast
from .comparison import greater
from .elementwise import _as_float, _float_infer, add, exp, mul, sub
from .math_ops import _erf_fast, clamp, square, tanh
from .primitive import Aval, primitive
from .reduction import ReduceSum

_SQRT_2 = math.sqrt(2.0)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_GELU_C = math.sqrt(2.0 / math.pi)  # tanh approximation: 0.5 x (1 + tanh(c (x + k x^3)))
_GELU_K = 0.044715


def _axes(name: str, a: Any, axis: Any) -> tuple[int, ...]:
    return norm_axes(name, axis if isinstance(axis, (tuple, list)) else (axis,), a.ndim)


def _softmax_infer(name: str):
    def infer(a: Any, axis: Any = -1) -> Aval:
        require_float(name, a)
        _axes(name, a, axis)
        return Aval(a.shape, a.dtype)

    return infer


def _grad_infer(name: str):
    def infer(g: Any, x: Any, **attrs: Any) -> Aval:
        require_same_dtype(name, g, x)
        return Aval(g.shape, g.dtype)

    return infer


@primitive
class Softmax:
    """Softmax along `axis` (int or tuple): exp(x - max) / sum(exp(x - max)); float input."""
    onnx = OnnxMap(
        "Softmax",
        to_onnx=lambda a,
        c: {"axis": int(a.get("axis", -1))},
        imports=("Softmax",),
        from_onnx="softmax_from",
    )

    infer = _softmax_infer("Softmax")

    def impl(a, axis=-1):
        ax = _axes("Softmax", a, axis)
        e = np.asarray(a - a.max(axis=ax, keepdims=True))
        np.exp(e, out=e)
        e /= e.sum(axis=ax, keepdims=True)
        return e

    def vjp(g, out, a, axis=-1):
        return (SoftmaxGrad(g, out, axis=axis),)


@primitive
class SoftmaxGrad:
    """Gradient of Softmax from its output y: y * (g - sum(g * y, axis))."""

    infer = _grad_infer("SoftmaxGrad")

    def impl(g, y, axis=-1):
        ax = _axes("SoftmaxGrad", y, axis)
        gy = np.asarray(g * y)
        gy -= y * gy.sum(axis=ax, keepdims=True)
        return gy

    def vjp(gg, _, g, y, axis=-1):
        ax = _axes("SoftmaxGrad", y, axis)
        s = ReduceSum(mul(g, y), axis=ax, keep_dims=True)
        t = ReduceSum(mul(gg, y), axis=ax, keep_dims=True)
        return SoftmaxGrad(gg, y, axis=axis), sub(mul(gg, sub(g, s)), mul(g, t))


@primitive
class LogSoftmax:
    """Log of softmax along `axis`: x - max - log(sum(exp(x - max))); float input."""
    onnx = OnnxMap(
        "LogSoftmax",
        to_onnx=lambda a,
        c: {"axis": int(a.get("axis", -1))},
        imports=("LogSoftmax",),
        from_onnx="softmax_from",
    )

    infer = _softmax_infer("LogSoftmax")

    def impl(a, axis=-1):
        ax = _axes("LogSoftmax", a, axis)
        s = np.asarray(a - a.max(axis=ax, keepdims=True))
        s -= np.log(np.exp(s).sum(axis=ax, keepdims=True))
        return s

    def vjp(g, out, a, axis=-1):
        return (LogSoftmaxGrad(g, out, axis=axis),)


@primitive
class LogSoftmaxGrad:
    """Gradient of LogSoftmax from its output y: g - exp(y) * sum(g, axis)."""

    infer = _grad_infer("LogSoftmaxGrad")

    def impl(g, y, axis=-1):
        ax = _axes("LogSoftmaxGrad", y, axis)
        e = np.asarray(np.exp(y))
        e *= g.sum(axis=ax, keepdims=True)
        return np.subtract(g, e, out=e)

    def vjp(gg, _, g, y, axis=-1):
        ax = _axes("LogSoftmaxGrad", y, axis)
        e = exp(y)
        gg_g = sub(gg, ReduceSum(mul(gg, e), axis=ax, keep_dims=True))
        return gg_g, mul(mul(gg, e), mul(ReduceSum(g, axis=ax, keep_dims=True), -1))


def _sigmoid_into(a: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Sigmoid into `out` as 1 / (1 + exp(-a)) (what the fused C++ kernel computes; equal to `impl` to
    float rounding)."""
    np.negative(a, out=out)
    np.exp(out, out=out)
    np.add(out, 1, out=out)
    return np.reciprocal(out, out=out)


@primitive
class Sigmoid:
    """Logistic sigmoid 1 / (1 + exp(-x)) of each element, computed stably as (1 + tanh(x/2)) / 2."""
    onnx = same("Sigmoid")

    ufunc = _sigmoid_into  # fusion, C++ opcode and in-place reuse: see ops/primitive.py
    opcode = 17

    infer = _float_infer("Sigmoid")

    def impl(a):
        t = np.asarray(np.tanh(a * 0.5))
        t *= 0.5
        t += 0.5
        return t.astype(a.dtype, copy=False)  # bfloat16 * Python float gives float32

    def vjp(g, out, a):
        return (SigmoidGrad(g, out),)


@primitive
class SigmoidGrad:
    """Gradient of Sigmoid from its output y: g * y * (1 - y)."""

    infer = _grad_infer("SigmoidGrad")

    def impl(g, y):
        d = np.asarray(1 - y)
        d *= y
        d *= g
        return d

    def vjp(gg, _, g, y):
        return SigmoidGrad(gg, y), mul(mul(gg, g), sub(1, mul(y, 2)))


def _gelu_derivative(x: np.ndarray, approximate: str) -> np.ndarray:
    """gelu'(x) in x's dtype, computed in place on fresh buffers (large temporaries cost page faults)."""
    if x.ndim == 0:  # NumPy ufuncs return scalars for 0-d arrays, which cannot be written in place
        return _gelu_derivative(x.reshape(1), approximate).reshape(())
    if approximate == "tanh":  # 0.5 (1 + t) + 0.5 x (1 - t^2) c (1 + 3k x^2), t = tanh(c (x + k x^3))
        x2 = np.asarray(np.square(x))
        t = x2 * _GELU_K
        t += 1
        t *= x
        t *= _GELU_C
        np.tanh(t, out=t)
        x2 *= 3 * _GELU_K
        x2 += 1
        x2 *= 0.5 * _GELU_C
        x2 *= x
        sech2 = np.asarray(np.square(t))
        np.subtract(1, sech2, out=sech2)
        sech2 *= x2
        t += 1
        t *= 0.5
        t += sech2
        return t
    d = np.asarray(_erf_fast(x * (1 / _SQRT_2)))  # Phi(x) + x phi(x)
    d += 1
    d *= 0.5
    xpdf = np.asarray(np.square(x))
    xpdf *= -0.5
    np.exp(xpdf, out=xpdf)
    xpdf *= x
    xpdf *= 1 / _SQRT_2PI
    d += xpdf
    return d


def _gelu_check(name: str, approximate: str) -> None:
    if approximate not in ("none", "tanh"):
        raise ValueError(f"{name}: approximate must be 'none' or 'tanh', got {approximate!r}")


@primitive
class GeLU:
    """Gaussian error linear unit x * Phi(x); `approximate='tanh'` uses the tanh approximation."""
    onnx = OnnxMap(
        export="gelu",
        imports=("Gelu",),
        from_onnx=lambda a,
        c: {"approximate": a.get("approximate", "none")},
    )

    def infer(a, approximate="none"):
        _gelu_check("GeLU", approximate)
        require_float("GeLU", a)
        return Aval(a.shape, a.dtype)

    def impl(a, approximate="none"):
        if a.ndim == 0:
            return GeLU.impl(a.reshape(1), approximate).reshape(())
        if approximate == "tanh":
            inner = np.asarray(a * a)
            inner *= _GELU_K
            inner += 1
            inner *= a
            inner *= _GELU_C
            np.tanh(inner, out=inner)
            inner += 1
            inner *= a
            inner *= 0.5
            return inner.astype(a.dtype, copy=False)
        out = np.asarray(_erf_fast(a * (1 / _SQRT_2)))
        out += 1
        out *= a
        out *= 0.5
        return out.astype(a.dtype, copy=False)

    def vjp(g, out, a, approximate="none"):
        return (GeLUGrad(g, a, approximate=approximate),)


@primitive
class GeLUGrad:
    """Gradient of GeLU from its input x: g * gelu'(x)."""

    infer = _grad_infer("GeLUGrad")

    def impl(g, x, approximate="none"):
        d = _gelu_derivative(x, approximate)
        d *= g
        return d.astype(g.dtype, copy=False)

    def vjp(gg, _, g, x, approximate="none"):
        return GeLUGrad(gg, x, approximate=approximate), mul(mul(gg, g), _gelu_second(x, approximate))


def _gelu_second(x: Tensor, approximate: str) -> Tensor:
    """gelu''(x), written with ops so it can be differentiated again."""
    if approximate == "tanh":
        x2 = square(x)
        t = tanh(mul(mul(x, add(mul(x2, _GELU_K), 1)), _GELU_C))
        du = mul(add(mul(x2, 3 * _GELU_K), 1), _GELU_C)           # u'
        d2u = mul(x, 6 * _GELU_K * _GELU_C)                       # u''
        inner = sub(add(du, mul(mul(x, d2u), 0.5)), mul(mul(x, t), square(du)))
        return mul(sub(1, square(t)), inner)
    pdf = mul(exp(mul(square(x), -0.5)), 1 / _SQRT_2PI)
    return mul(pdf, sub(2, square(x)))


@primitive
class SiLU:
    """Sigmoid linear unit (swish): x * sigmoid(x)."""
    onnx = OnnxMap(export="silu")

    infer = _float_infer("SiLU")

    def impl(a):
        out = Sigmoid.impl(a)
        out *= a
        return out.astype(a.dtype, copy=False)

    def vjp(g, out, a):
        return (SiLUGrad(g, a),)


@primitive
class SiLUGrad:
    """Gradient of SiLU from its input x: g * s * (1 + x * (1 - s)), s = sigmoid(x)."""

    infer = _grad_infer("SiLUGrad")

    def impl(g, x):
        s = Sigmoid.impl(x)
        d = np.asarray(1 - s)
        d *= x
        d += 1
        d *= s
        d *= g
        return d.astype(g.dtype, copy=False)

    def vjp(gg, _, g, x):  # silu'' = s (1 - s) (2 + x (1 - 2 s))
        s = sigmoid(x)
        second = mul(mul(s, sub(1, s)), add(mul(x, sub(1, mul(s, 2))), 2))
        return SiLUGrad(gg, x), mul(mul(gg, g), second)


@primitive
class LeakyReLU:
    """Leaky ReLU: x where x > 0, alpha * x elsewhere."""
    onnx = OnnxMap(
        "LeakyRelu",
        to_onnx=lambda a,
        c: {"alpha": float(a.get("alpha", 0.2))},
        imports=("LeakyRelu",),
        from_onnx=lambda a,
        c: {"alpha": float(a.get("alpha", 0.01))},
    )

    def infer(a, alpha=0.2):
        require_float("LeakyReLU", a)
        return Aval(a.shape, a.dtype)

    def impl(a, alpha=0.2):
        return np.where(a > 0, a, a * alpha).astype(a.dtype, copy=False)

    def vjp(g, out, a, alpha=0.2):
        pos = cast(greater(a, 0), g.dtype)
        return (mul(g, add(mul(pos, 1 - alpha), alpha)),)


@primitive
class Elu:
    """Exponential linear unit: x where x > 0, alpha * (exp(x) - 1) elsewhere."""
    onnx = OnnxMap(
        "Elu",
        to_onnx=lambda a,
        c: {"alpha": float(a.get("alpha", 1.0))},
        imports=("Elu",),
        from_onnx=lambda a,
        c: {"alpha": float(a.get("alpha", 1.0))},
    )

    def infer(a, alpha=1.0):
        require_float("Elu", a)
        return Aval(a.shape, a.dtype)

    def impl(a, alpha=1.0):
        return np.where(a > 0, a, np.expm1(np.minimum(a, 0)) * alpha).astype(a.dtype, copy=False)

    def vjp(g, out, a, alpha=1.0):  # 1 where x > 0, out + alpha = alpha exp(x) elsewhere
        pos = cast(greater(a, 0), g.dtype)
        return (mul(g, add(pos, mul(sub(1, pos), add(out, alpha)))),)


@primitive
class Softplus:
    """Softplus log(1 + exp(beta x)) / beta, linear where beta * x > threshold (stable)."""

    def infer(a, beta=1.0, threshold=20.0):
        require_float("Softplus", a)
        return Aval(a.shape, a.dtype)

    def impl(a, beta=1.0, threshold=20.0):
        z = a * beta
        return np.where(z > threshold, a, np.logaddexp(0, z) / beta).astype(a.dtype, copy=False)

    def vjp(g, out, a, beta=1.0, threshold=20.0):  # sigmoid(beta x), and 1 where the linear branch is used
        z = mul(a, beta)
        linear = cast(greater(z, threshold), g.dtype)
        return (mul(g, add(mul(sigmoid(z), sub(1, linear)), linear)),)


# --- functional wrappers --------------------------------------------------------------------------

@tensor_method("softmax")
def softmax(input: Tensor, axis: Any = -1, *, dtype: Any = None) -> Tensor:
    """Softmax along `axis`; `dtype` casts the input first. Integer inputs compute in float32."""
    x = cast(input, dtype) if dtype is not None else _as_float(input)
    return Softmax(x, axis=axis)


@tensor_method("log_softmax")
def log_softmax(logits: Tensor, axis: int = -1) -> Tensor:
    """Log of softmax along `axis`, computed stably."""
    return LogSoftmax(_as_float(logits), axis=axis)


@tensor_method("sigmoid")
def sigmoid(input: Tensor) -> Tensor:
    """Computes Sigmoid of input element-wise: 1 / (1 + exp(-x))."""
    return Sigmoid(_as_float(input))


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """Gaussian error linear unit; `approximate` is 'none' (erf) or 'tanh'."""
    return GeLU(_as_float(input), approximate=approximate)


def silu(input: Tensor) -> Tensor:
    """Sigmoid linear unit: input * sigmoid(input)."""
    return SiLU(_as_float(input))


def leaky_relu(input: Tensor, alpha: float = 0.2) -> Tensor:
    """Leaky ReLU: input where positive, alpha * input elsewhere."""
    return LeakyReLU(_as_float(input), alpha=float(alpha))


def elu(input_x: Tensor, alpha: float = 1.0) -> Tensor:
    """Exponential linear unit: x where positive, alpha * (exp(x) - 1) elsewhere."""
    return Elu(_as_float(input_x), alpha=float(alpha))


def relu6(x: Tensor) -> Tensor:
    """ReLU capped at 6: min(max(x, 0), 6)."""
    return clamp(x, 0, 6)


def softplus(input: Tensor, beta: float = 1, threshold: float = 20) -> Tensor:
    """Softplus log(1 + exp(beta * x)) / beta, linear above `threshold` (of beta * x)."""
    return Softplus(_as_float(input), beta=beta, threshold=threshold)


def hardsigmoid(input: Tensor) -> Tensor:
    """Hard sigmoid: relu6(x + 3) / 6."""
    return clamp(add(mul(_as_float(input), 1 / 6), 0.5), 0.0, 1.0)


def hardswish(input: Tensor) -> Tensor:
    """Hard swish: x * relu6(x + 3) / 6."""
    x = _as_float(input)
    return mul(x, hardsigmoid(x))


def mish(x: Tensor) -> Tensor:
    """Mish: x * tanh(softplus(x))."""
    x = _as_float(x)
    return mul(x, tanh(Softplus(x)))

