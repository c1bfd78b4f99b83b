"""More of MindSpore's everyday math ops (issue 14): inverse trigonometric and hyperbolic functions,
`erfc`, cumulative max/min with their indices, and `addmm`.

The elementwise ones are plain declarations with an `api` (their ``ops.<name>``, ``Tensor.<name>``,
NumPy-style aliases such as ``arccos`` and class forms follow from it); `Cummax`/`Cummin` return
(values, int64 indices) and send the gradient to the index each output came from.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..onnx.spec import same
from ..tensor import Tensor
from ._rules import norm_axis
from .elementwise import _as_float, _float_infer, _generate_wrappers, add, div, exp, mul, neg, sub
from .indexing import GatherDGrad
from .linalg import matmul
from .math_ops import sqrt, square
from .primitive import Api, Aval, primitive


@primitive
class ACos:
    """Arccosine of each element (radians, in [0, pi]); NaN outside [-1, 1]."""
    onnx = same("Acos")

    api = Api("acos", cls="ACos", aliases=("arccos",), floats=True)

    infer = _float_infer("ACos")

    def impl(a):
        return np.arccos(a)

    def vjp(g, out, a):
        return (neg(div(g, sqrt(sub(1, square(a))))),)


@primitive
class Asin:
    """Arcsine of each element (radians, in [-pi/2, pi/2]); NaN outside [-1, 1]."""
    onnx = same("Asin")

    api = Api("asin", cls="Asin", aliases=("arcsin",), floats=True)

    infer = _float_infer("Asin")

    def impl(a):
        return np.arcsin(a)

    def vjp(g, out, a):
        return (div(g, sqrt(sub(1, square(a)))),)


@primitive
class Acosh:
    """Inverse hyperbolic cosine of each element; NaN below 1."""
    onnx = same("Acosh")

    api = Api("acosh", cls="Acosh", aliases=("arccosh",), floats=True)

    infer = _float_infer("Acosh")

    def impl(a):
        return np.arccosh(a)

    def vjp(g, out, a):
        return (div(g, sqrt(sub(square(a), 1))),)


@primitive
class Asinh:
    """Inverse hyperbolic sine of each element."""
    onnx = same("Asinh")

    api = Api("asinh", cls="Asinh", aliases=("arcsinh",), floats=True)

    infer = _float_infer("Asinh")

    def impl(a):
        return np.arcsinh(a)

    def vjp(g, out, a):
        return (div(g, sqrt(add(square(a), 1))),)


@primitive
class Atanh:
    """Inverse hyperbolic tangent of each element; +-inf at +-1, NaN outside [-1, 1]."""
    onnx = same("Atanh")

    api = Api("atanh", cls="Atanh", aliases=("arctanh",), floats=True)

    infer = _float_infer("Atanh")

    def impl(a):
        return np.arctanh(a)

    def vjp(g, out, a):
        return (div(g, sub(1, square(a))),)


@primitive
class Erfc:
    """Complementary error function of each element: 1 - erf(x), accurate where erf(x) is near 1."""

    api = Api("erfc", cls="Erfc", floats=True)

    infer = _float_infer("Erfc")

    def impl(a):
        from scipy.special import erfc as _erfc  # an accurate tail; SciPy is a dependency of the engine

        return np.asarray(_erfc(a)).astype(a.dtype, copy=False)

    def vjp(g, out, a):
        return (mul(g, mul(exp(neg(square(a))), -2 / math.sqrt(math.pi))),)


# --- cumulative max / min ------------------------------------------------------------------------------
def _cum_infer(name: str):
    def infer(a: Any, axis: int = 0) -> tuple[Aval, Aval]:
        if a.ndim == 0:
            from ..errors import ShapeError

            raise ShapeError(name, "a tensor of rank >= 1", "a scalar")
        norm_axis(name, axis, a.ndim)
        if a.dtype is mstype.bool_:
            from ..errors import DTypeError

            raise DTypeError(name, "a numeric tensor", "Bool")
        return Aval(tuple(a.shape), a.dtype), Aval(tuple(a.shape), mstype.int64)

    return infer


def _cum_impl(better: Any):
    """Running extreme along `axis` and the index it came from (the latest one on ties, as
    MindSpore's CPU kernel; a NaN, once seen, stays)."""

    def impl(a: np.ndarray, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
        ax = axis % a.ndim
        x = np.moveaxis(a, ax, 0)
        vals = np.empty_like(x)
        idx = np.empty(x.shape, np.int64)
        vals[0], idx[0] = x[0], 0
        for i in range(1, x.shape[0]):
            prev = vals[i - 1]
            take = better(x[i], prev) | (x[i] == prev)  # a NaN compares False: a NaN seen earlier stays
            if x.dtype.kind == "f":
                take |= np.isnan(x[i])
            vals[i] = np.where(take, x[i], prev)
            idx[i] = np.where(take, i, idx[i - 1])
        return np.moveaxis(vals, 0, ax), np.moveaxis(idx, 0, ax)

    return impl


def _cum_vjp(g, out, a, axis=0):
    return (GatherDGrad(g[0], out[1], dim=axis % a.ndim, shape=tuple(a.shape)),)


@primitive
class Cummax:
    """(running maximum along `axis`, int64 index it came from); the gradient goes to that index."""

    multi_output = True
    infer = _cum_infer("Cummax")
    impl = _cum_impl(np.greater)
    vjp = _cum_vjp


@primitive
class Cummin:
    """(running minimum along `axis`, int64 index it came from); the gradient goes to that index."""

    multi_output = True
    infer = _cum_infer("Cummin")
    impl = _cum_impl(np.less)
    vjp = _cum_vjp


def cummax(input: Tensor, axis: int) -> tuple[Tensor, Tensor]:
    """(values, indices): the running maximum of `input` along `axis` and where each came from."""
    return Cummax(input, axis=int(axis))


def cummin(input: Tensor, axis: int) -> tuple[Tensor, Tensor]:
    """(values, indices): the running minimum of `input` along `axis` and where each came from."""
    return Cummin(input, axis=int(axis))


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2), `input` broadcasting to the product's shape."""
    prod = matmul(mat1, mat2)
    if alpha != 1:
        prod = mul(prod, alpha)
    if beta == 0:
        return prod
    return add(input if beta == 1 else mul(input, beta), prod)


_generate_wrappers(globals())  # ops.acos, Tensor.acos, ops.arccos, ... from the declarations' `api`


def arcsin(x: Tensor) -> Tensor:
    """Arcsine of each element (the same as `asin`; MindSpore names this alias's argument `x`)."""
    return Asin(_as_float(x))
