"""MindSpore's special functions (issue 14): the Bessel family (`bessel_i0` ... `bessel_y1`, `i0`),
`digamma`, `erfinv`, the regularized incomplete gamma functions `igamma`/`igammac`, and the
regularized incomplete beta function behind `ops.Betainc`.

Kernels are SciPy's (`scipy.special`, a dependency of the engine); gradients are the closed-form
derivatives (I0' = I1, J1' = J0 - J1/x, ...) written with these same ops, so second derivatives
exist where the closed form is made of ops that have them. MindSpore names the argument of the
Bessel functions `x` (``ops.bessel_j0(x)``) and of the others `input`; the wrappers below keep those
names. Two gradients have no closed form:

* d igamma(a, x) / da is computed numerically (a fourth-order central difference in float64, relative
  error about 1e-10), as MindSpore's IgammaGradA also approximates it (by a series);
* Betainc's gradient is taken with respect to `x` only; `a` and `b` get none (MindSpore's CPU kernel
  has no gradient for them either).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special as sp

from ..errors import DTypeError
from ..tensor import Tensor, tensor_method
from ._rules import broadcast_shapes, require_float
from .array import sum_to, where
from .elementwise import _as_float, _float_infer, _generate_wrappers, div, exp, log, mul, sub
from .math_ops import sign, square
from .primitive import Api, Aval, primitive


def _k(fn: Any):
    """A SciPy kernel that keeps the input's dtype (SciPy computes float16/32 in float64 at times)."""

    def impl(a: np.ndarray) -> np.ndarray:
        return np.asarray(fn(a)).astype(a.dtype, copy=False)

    return impl


# --- Bessel functions of the first (J, I) and second (Y, K) kind, orders 0 and 1 -------------------
@primitive
class BesselI0:
    """Modified Bessel function of the first kind, order 0, of each element."""

    api = Api("bessel_i0", cls="BesselI0", aliases=("i0",), floats=True)
    infer = _float_infer("BesselI0")
    impl = _k(sp.i0)

    def vjp(g, out, a):
        return (mul(g, BesselI1(a)),)


@primitive
class BesselI0e:
    """Exponentially scaled modified Bessel function of the first kind, order 0: exp(-|x|) * I0(x)."""

    api = Api("bessel_i0e", cls="BesselI0e", floats=True)
    infer = _float_infer("BesselI0e")
    impl = _k(sp.i0e)

    def vjp(g, out, a):
        return (mul(g, sub(BesselI1e(a), mul(sign(a), out))),)


@primitive
class BesselI1:
    """Modified Bessel function of the first kind, order 1, of each element."""

    api = Api("bessel_i1", cls="BesselI1", floats=True)
    infer = _float_infer("BesselI1")
    impl = _k(sp.i1)

    def vjp(g, out, a):
        # I1'(x) = I0(x) - I1(x) / x, which is 1/2 at x = 0
        safe = where(a == 0, 1.0, a)
        return (mul(g, where(a == 0, 0.5, sub(BesselI0(a), div(out, safe)))),)


@primitive
class BesselI1e:
    """Exponentially scaled modified Bessel function of the first kind, order 1: exp(-|x|) * I1(x)."""

    api = Api("bessel_i1e", cls="BesselI1e", floats=True)
    infer = _float_infer("BesselI1e")
    impl = _k(sp.i1e)

    def vjp(g, out, a):
        # d/dx exp(-|x|) I1(x) = I0e(x) - I1e(x) * (sign(x) + 1/x), which is 1/2 at x = 0
        safe = where(a == 0, 1.0, a)
        slope = sub(BesselI0e(a), mul(out, sign(a) + div(1.0, safe)))
        return (mul(g, where(a == 0, 0.5, slope)),)


@primitive
class BesselJ0:
    """Bessel function of the first kind, order 0, of each element."""

    api = Api("bessel_j0", cls="BesselJ0", floats=True)
    infer = _float_infer("BesselJ0")
    impl = _k(sp.j0)

    def vjp(g, out, a):
        return (mul(g, -BesselJ1(a)),)


@primitive
class BesselJ1:
    """Bessel function of the first kind, order 1, of each element."""

    api = Api("bessel_j1", cls="BesselJ1", floats=True)
    infer = _float_infer("BesselJ1")
    impl = _k(sp.j1)

    def vjp(g, out, a):
        safe = where(a == 0, 1.0, a)
        return (mul(g, where(a == 0, 0.5, sub(BesselJ0(a), div(out, safe)))),)


@primitive
class BesselK0:
    """Modified Bessel function of the second kind, order 0 (inf at 0, NaN below 0)."""

    api = Api("bessel_k0", cls="BesselK0", floats=True)
    infer = _float_infer("BesselK0")
    impl = _k(sp.k0)

    def vjp(g, out, a):
        return (mul(g, -BesselK1(a)),)


@primitive
class BesselK0e:
    """Exponentially scaled modified Bessel function of the second kind, order 0: exp(x) * K0(x)."""

    api = Api("bessel_k0e", cls="BesselK0e", floats=True)
    infer = _float_infer("BesselK0e")
    impl = _k(sp.k0e)

    def vjp(g, out, a):
        return (mul(g, sub(out, BesselK1e(a))),)


@primitive
class BesselK1:
    """Modified Bessel function of the second kind, order 1 (inf at 0, NaN below 0)."""

    api = Api("bessel_k1", cls="BesselK1", floats=True)
    infer = _float_infer("BesselK1")
    impl = _k(sp.k1)

    def vjp(g, out, a):
        return (mul(g, -(BesselK0(a) + div(out, a))),)


@primitive
class BesselK1e:
    """Exponentially scaled modified Bessel function of the second kind, order 1: exp(x) * K1(x)."""

    api = Api("bessel_k1e", cls="BesselK1e", floats=True)
    infer = _float_infer("BesselK1e")
    impl = _k(sp.k1e)

    def vjp(g, out, a):
        return (mul(g, sub(out - div(out, a), BesselK0e(a))),)


@primitive
class BesselY0:
    """Bessel function of the second kind, order 0 (-inf at 0, NaN below 0)."""

    api = Api("bessel_y0", cls="BesselY0", floats=True)
    infer = _float_infer("BesselY0")
    impl = _k(sp.y0)

    def vjp(g, out, a):
        return (mul(g, -BesselY1(a)),)


@primitive
class BesselY1:
    """Bessel function of the second kind, order 1 (-inf at 0, NaN below 0)."""

    api = Api("bessel_y1", cls="BesselY1", floats=True)
    infer = _float_infer("BesselY1")
    impl = _k(sp.y1)

    def vjp(g, out, a):
        return (mul(g, sub(BesselY0(a), div(out, a))),)


# --- digamma, erfinv ------------------------------------------------------------------------------
@primitive(internal=True)
class Trigamma:
    """psi'(x), the derivative of digamma (its gradient; not differentiated again)."""

    infer = _float_infer("Trigamma")

    def impl(a):
        return np.asarray(sp.polygamma(1, a)).astype(a.dtype, copy=False)


@primitive
class Digamma:
    """The digamma function psi(x) = d/dx log Gamma(x) of each element (poles at 0, -1, -2, ...)."""

    api = Api("digamma", cls="Digamma", floats=True)
    infer = _float_infer("Digamma")
    impl = _k(sp.digamma)

    def vjp(g, out, a):
        return (mul(g, Trigamma(a)),)


@primitive
class Erfinv:
    """The inverse error function of each element: y with erf(y) = x, +-inf at +-1, NaN outside."""

    api = Api("erfinv", cls="Erfinv", floats=True)
    infer = _float_infer("Erfinv")
    impl = _k(sp.erfinv)

    def vjp(g, out, a):
        return (mul(g, mul(exp(square(out)), math.sqrt(math.pi) / 2)),)


# --- incomplete gamma and beta --------------------------------------------------------------------
def _gamma_infer(name: str):
    def infer(a: Any, x: Any) -> Aval:
        require_float(name, a, x)
        if a.dtype is not x.dtype:
            raise DTypeError(name, f"`input` and `other` of one dtype ({a.dtype})", str(x.dtype))
        return Aval(broadcast_shapes(name, a.shape, x.shape), a.dtype)

    return infer


def _gamma_pdf(a: Tensor, x: Tensor) -> Tensor:
    """x**(a-1) * exp(-x) / Gamma(a): the derivative of igamma(a, x) in x."""
    return exp(sub(sub(mul(a - 1, log(x)), x), LogGamma(a)))


@primitive(internal=True)
class LogGamma:
    """log |Gamma(a)| (the normaliser in the incomplete gamma gradients; not differentiated)."""

    infer = _float_infer("LogGamma")

    def impl(a):
        return np.asarray(sp.gammaln(a)).astype(a.dtype, copy=False)


@primitive(internal=True)
class IgammaGradA:
    """d igamma(a, x) / da by a fourth-order central difference in float64 (no closed form exists)."""

    infer = _gamma_infer("IgammaGradA")

    def impl(a, x):
        a64, x64 = np.asarray(a, np.float64), np.asarray(x, np.float64)
        h = 1e-3 * np.maximum(1.0, np.abs(a64))
        lo2 = np.maximum(a64 - 2 * h, 1e-300)  # stay inside a > 0 near the edge
        d = (8 * (sp.gammainc(a64 + h, x64) - sp.gammainc(np.maximum(a64 - h, 1e-300), x64))
             - (sp.gammainc(a64 + 2 * h, x64) - sp.gammainc(lo2, x64))) / (12 * h)
        return np.asarray(d).astype(a.dtype, copy=False)


@primitive
class Igamma:
    """Regularized lower incomplete gamma function P(a, x) = gamma(a, x) / Gamma(a), element-wise
    with broadcasting (`input` is a, `other` is x)."""

    api = Api("igamma", cls="Igamma", floats=True)
    infer = _gamma_infer("Igamma")

    def impl(a, x):
        return np.asarray(sp.gammainc(a, x)).astype(a.dtype, copy=False)

    def vjp(g, out, a, x):
        return sum_to(mul(g, IgammaGradA(a, x)), a.shape), sum_to(mul(g, _gamma_pdf(a, x)), x.shape)


@primitive
class Igammac:
    """Regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x), element-wise with
    broadcasting (`input` is a, `other` is x)."""

    api = Api("igammac", cls="Igammac", floats=True)
    infer = _gamma_infer("Igammac")

    def impl(a, x):
        return np.asarray(sp.gammaincc(a, x)).astype(a.dtype, copy=False)

    def vjp(g, out, a, x):
        return sum_to(mul(g, -IgammaGradA(a, x)), a.shape), sum_to(mul(g, -_gamma_pdf(a, x)), x.shape)


@primitive
class Betainc:
    """Regularized incomplete beta function I_x(a, b), element-wise (inputs of one shape and dtype);
    the gradient flows to `x` only."""

    def infer(a: Any, b: Any, x: Any) -> Aval:
        require_float("Betainc", a, b, x)
        if not (a.dtype is b.dtype is x.dtype):
            raise DTypeError("Betainc", "a, b and x of one dtype", f"{a.dtype}, {b.dtype}, {x.dtype}")
        if not (tuple(a.shape) == tuple(b.shape) == tuple(x.shape)):
            from ..errors import ShapeError

            raise ShapeError("Betainc", "a, b and x of one shape",
                             f"{tuple(a.shape)}, {tuple(b.shape)}, {tuple(x.shape)}")
        return Aval(tuple(a.shape), a.dtype)

    def impl(a, b, x):
        return np.asarray(sp.betainc(a, b, x)).astype(a.dtype, copy=False)

    def vjp(g, out, a, b, x):
        # x**(a-1) (1-x)**(b-1) / B(a, b)
        logb = LogGamma(a) + LogGamma(b) - LogGamma(a + b)
        dens = exp(sub(mul(a - 1, log(x)) + mul(b - 1, log(sub(1.0, x))), logb))
        return None, None, mul(g, dens)


_generate_wrappers(globals())  # ops.bessel_i0, Tensor.digamma, ops.Igamma, ... from the declarations' `api`


# MindSpore names the Bessel functions' argument `x`; these replace the generated `input` wrappers
def bessel_i0(x: Tensor) -> Tensor:
    """Modified Bessel function of the first kind, order 0, of each element."""
    return BesselI0(_as_float(x))


def bessel_i0e(x: Tensor) -> Tensor:
    """exp(-|x|) * I0(x) element-wise: I0 without its overflow for large |x|."""
    return BesselI0e(_as_float(x))


def bessel_i1(x: Tensor) -> Tensor:
    """Modified Bessel function of the first kind, order 1, of each element."""
    return BesselI1(_as_float(x))


def bessel_i1e(x: Tensor) -> Tensor:
    """exp(-|x|) * I1(x) element-wise: I1 without its overflow for large |x|."""
    return BesselI1e(_as_float(x))


def bessel_j0(x: Tensor) -> Tensor:
    """Bessel function of the first kind, order 0, of each element."""
    return BesselJ0(_as_float(x))


def bessel_j1(x: Tensor) -> Tensor:
    """Bessel function of the first kind, order 1, of each element."""
    return BesselJ1(_as_float(x))


def bessel_k0(x: Tensor) -> Tensor:
    """Modified Bessel function of the second kind, order 0 (defined for x > 0)."""
    return BesselK0(_as_float(x))


def bessel_k0e(x: Tensor) -> Tensor:
    """exp(x) * K0(x) element-wise (defined for x > 0)."""
    return BesselK0e(_as_float(x))


def bessel_k1(x: Tensor) -> Tensor:
    """Modified Bessel function of the second kind, order 1 (defined for x > 0)."""
    return BesselK1(_as_float(x))


def bessel_k1e(x: Tensor) -> Tensor:
    """exp(x) * K1(x) element-wise (defined for x > 0)."""
    return BesselK1e(_as_float(x))


def bessel_y0(x: Tensor) -> Tensor:
    """Bessel function of the second kind, order 0 (defined for x > 0)."""
    return BesselY0(_as_float(x))


def bessel_y1(x: Tensor) -> Tensor:
    """Bessel function of the second kind, order 1 (defined for x > 0)."""
    return BesselY1(_as_float(x))


@tensor_method("erfinv_")
def erfinv_(input: Tensor) -> Tensor:
    """In-place erfinv: `input` becomes erfinv(input) (returned)."""
    return _inplace(input, Erfinv(_as_float(input)))


def _inplace(target: Tensor, value: Tensor) -> Tensor:
    """Write `value` over all of `target` (a recorded in-place write: gradients stay right)."""
    from .indexing import setitem_

    return setitem_(target, Ellipsis, value)
