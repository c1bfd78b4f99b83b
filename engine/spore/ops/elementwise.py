"""Elementwise arithmetic primitives and their functional wrappers.

Binary ops broadcast like NumPy; their wrappers convert Python numbers and promote mixed dtypes
(bool < int < float) with explicit casts, so the primitives themselves always see one dtype and
their gradients come back in each input's own dtype and shape.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor, tensor_method
from ._rules import as_tensor, broadcast_shapes, promote, require_same_dtype
from .primitive import Aval, primitive


def _binary_infer(name: str):
    def infer(a: Any, b: Any) -> Aval:
        require_same_dtype(name, a, b)
        return Aval(broadcast_shapes(name, a.shape, b.shape), a.dtype)

    return infer


@primitive
class Add:
    """Adds two tensors element-wise, with broadcasting."""

    infer = _binary_infer("Add")

    def impl(a, b):
        return np.add(a, b)

    def vjp(g, out, a, b):
        return sum_to(g, a.shape), sum_to(g, b.shape)


@primitive
class Sub:
    """Subtracts the second tensor from the first element-wise, with broadcasting."""

    infer = _binary_infer("Sub")

    def impl(a, b):
        return np.subtract(a, b)

    def vjp(g, out, a, b):
        return sum_to(g, a.shape), sum_to(neg(g), b.shape)


@primitive
class Mul:
    """Multiplies two tensors element-wise, with broadcasting."""

    infer = _binary_infer("Mul")

    def impl(a, b):
        return np.multiply(a, b)

    def vjp(g, out, a, b):
        return sum_to(mul(g, b), a.shape), sum_to(mul(g, a), b.shape)


@primitive
class RealDiv:
    """Divides the first tensor by the second element-wise (true division), with broadcasting."""

    infer = _binary_infer("RealDiv")

    def impl(a, b):
        return np.true_divide(a, b).astype(a.dtype, copy=False) if a.dtype.kind == "f" \
            else np.true_divide(a, b).astype(np.float32)

    def vjp(g, out, a, b):
        ga = div(g, b)
        return sum_to(ga, a.shape), sum_to(neg(mul(ga, out)), b.shape)


@primitive
class Neg:
    """Negates a tensor element-wise."""

    def infer(a):
        return Aval(a.shape, a.dtype)

    def impl(a):
        return np.negative(a)

    def vjp(g, out, a):
        return (neg(g),)


@primitive
class Exp:
    """Computes e raised to each element."""

    def infer(a):
        return Aval(a.shape, a.dtype)

    def impl(a):
        return np.exp(a)

    def vjp(g, out, a):
        return (mul(g, out),)


@primitive
class Log:
    """Computes the natural logarithm of each element."""

    def infer(a):
        return Aval(a.shape, a.dtype)

    def impl(a):
        return np.log(a)

    def vjp(g, out, a):
        return (div(g, a),)


@primitive
class ReLU:
    """Rectified linear unit: max(x, 0) element-wise."""

    def infer(a):
        return Aval(a.shape, a.dtype)

    def impl(a):
        return np.maximum(a, 0)

    def vjp(g, out, a):
        return (relu_grad(g, out),)


@primitive
class ReluGrad:
    """Gradient of ReLU: passes `g` where the ReLU output is positive."""

    def infer(g, out):
        return Aval(g.shape, g.dtype)

    def impl(g, out):
        return np.where(out > 0, g, np.zeros((), g.dtype))

    def vjp(gg, _, g, out):
        return relu_grad(gg, out), None


def _binary(prim, a: Any, b: Any) -> Tensor:
    if not isinstance(a, Tensor):
        a = as_tensor(a, b if isinstance(b, Tensor) else None)
    if not isinstance(b, Tensor):
        b = as_tensor(b, a)
    if a.dtype is not b.dtype:
        from .array import cast

        dt = promote(a.dtype, b.dtype)
        a, b = cast(a, dt), cast(b, dt)
    return prim(a, b)


@tensor_method("add")
def add(input: Any, other: Any) -> Tensor:
    """Adds `other` to `input` element-wise."""
    return _binary(Add, input, other)


@tensor_method("sub", "subtract")
def sub(input: Any, other: Any) -> Tensor:
    """Subtracts `other` from `input` element-wise."""
    return _binary(Sub, input, other)


@tensor_method("mul", "multiply")
def mul(input: Any, other: Any) -> Tensor:
    """Multiplies `input` by `other` element-wise."""
    return _binary(Mul, input, other)


@tensor_method("div", "divide", "true_divide")
def div(input: Any, other: Any) -> Tensor:
    """Divides `input` by `other` element-wise."""
    return _binary(RealDiv, input, other)


@tensor_method("neg", "negative")
def neg(input: Tensor) -> Tensor:
    """Returns -input element-wise."""
    return Neg(input)


@tensor_method("exp")
def exp(input: Tensor) -> Tensor:
    """Computes exponential of the input tensor element-wise."""
    return Exp(input)


@tensor_method("log")
def log(input: Tensor) -> Tensor:
    """Computes the natural logarithm of the input tensor element-wise."""
    return Log(input)


@tensor_method("relu")
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """Computes ReLU (rectified linear unit) of the input element-wise."""
    return ReLU(input)


def relu_grad(g: Tensor, out: Tensor) -> Tensor:
    return ReluGrad(g, out)


from .array import sum_to  # noqa: E402  (array ops use the wrappers above)
