"""Numerics of slice A's special functions and integer ops (issue 14) against SciPy and NumPy:
the Bessel family, digamma, erfinv, igamma/igammac (and their gradients), Betainc, the bitwise
ops, gcd and fmax/fmin."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special as sp

import spore as ms
from spore import ops
from spore.errors import DTypeError

r = np.random.default_rng(20261202)

BESSEL = {
    "bessel_i0": (sp.i0, False), "bessel_i0e": (sp.i0e, False), "bessel_i1": (sp.i1, False),
    "bessel_i1e": (sp.i1e, False), "bessel_j0": (sp.j0, False), "bessel_j1": (sp.j1, False),
    "bessel_k0": (sp.k0, True), "bessel_k0e": (sp.k0e, True), "bessel_k1": (sp.k1, True),
    "bessel_k1e": (sp.k1e, True), "bessel_y0": (sp.y0, True), "bessel_y1": (sp.y1, True),
}


@pytest.mark.parametrize("name", sorted(BESSEL))
def test_bessel_values_and_derivatives_match_scipy(name):
    ref, positive = BESSEL[name]
    x = r.uniform(0.3, 6.0, 40) if positive else r.uniform(-6.0, 6.0, 40)
    got = getattr(ops, name)(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, ref(x), rtol=1e-12, atol=1e-14)
    # the class form and float32
    cls = "Bessel" + name.split("_")[1].upper().replace("E", "e")
    np.testing.assert_allclose(getattr(ops, cls)()(ms.Tensor(x.astype(np.float32))).asnumpy(), ref(x), rtol=2e-6,
                               atol=1e-6)
    # the gradient against a central difference of SciPy's function
    h = 1e-6
    num = (ref(x + h) - ref(x - h)) / (2 * h)
    g = ms.grad(lambda t: getattr(ops, name)(t).sum())(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-7)


def test_bessel_gradients_at_zero_are_the_limits():
    z = ms.Tensor(np.zeros(1))
    for name, want in (("bessel_i1", 0.5), ("bessel_i1e", 0.5), ("bessel_j1", 0.5), ("bessel_j0", 0.0),
                       ("bessel_i0", 0.0)):
        assert ms.grad(lambda t: getattr(ops, name)(t).sum())(z).asnumpy()[0] == pytest.approx(want)


def test_bessel_takes_mindspores_argument_name_and_i0_alias():
    x = np.linspace(-2, 2, 7)
    np.testing.assert_allclose(ops.bessel_j0(x=ms.Tensor(x)).asnumpy(), sp.j0(x), rtol=1e-12)
    np.testing.assert_allclose(ops.i0(ms.Tensor(x)).asnumpy(), sp.i0(x), rtol=1e-12)
    np.testing.assert_allclose(ms.Tensor(x).i0().asnumpy(), sp.i0(x), rtol=1e-12)
    # integer input is computed in float32, as MindSpore's math functions
    out = ops.bessel_i0(ms.Tensor(np.array([0, 1, 2], np.int32)))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), sp.i0([0, 1, 2]), rtol=1e-6)


def test_digamma_and_its_gradient():
    x = r.uniform(0.2, 8.0, 30)
    np.testing.assert_allclose(ops.digamma(ms.Tensor(x)).asnumpy(), sp.digamma(x), rtol=1e-12)
    np.testing.assert_allclose(ms.Tensor(x).digamma().asnumpy(), sp.digamma(x), rtol=1e-12)
    g = ms.grad(lambda t: ops.digamma(t).sum())(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(g, sp.polygamma(1, x), rtol=1e-12)


def test_erfinv_inverts_erf_and_its_gradient():
    x = r.uniform(-0.99, 0.99, 30)
    y = ops.erfinv(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(sp.erf(y), x, rtol=1e-12, atol=1e-14)
    g = ms.grad(lambda t: ops.erfinv(t).sum())(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(g, np.sqrt(np.pi) / 2 * np.exp(y ** 2), rtol=1e-12)
    edges = ops.erfinv(ms.Tensor([-1.0, 1.0, 2.0])).asnumpy()
    assert edges[0] == -np.inf and edges[1] == np.inf and np.isnan(edges[2])


def test_erfinv_in_place():
    x = ms.Tensor(np.array([0.1, -0.5, 0.7], np.float32))
    out = x.erfinv_()
    np.testing.assert_allclose(x.asnumpy(), sp.erfinv([0.1, -0.5, 0.7]), rtol=1e-6)
    assert out is x
    y = ms.Tensor(np.array([0.25], np.float32))
    ops.erfinv_(y)
    np.testing.assert_allclose(y.asnumpy(), sp.erfinv([0.25]), rtol=1e-6)


def test_igamma_igammac_values_broadcast_and_gradients():
    a, x = r.uniform(0.5, 4.0, (3, 1)), r.uniform(0.1, 6.0, (4,))
    np.testing.assert_allclose(ops.igamma(ms.Tensor(a), ms.Tensor(x)).asnumpy(), sp.gammainc(a, x), rtol=1e-12)
    np.testing.assert_allclose(ms.Tensor(a).igammac(ms.Tensor(x)).asnumpy(), sp.gammaincc(a, x), rtol=1e-12)
    np.testing.assert_allclose(ops.Igamma()(ms.Tensor(a), ms.Tensor(x)).asnumpy(), sp.gammainc(a, x), rtol=1e-12)
    ga, gx = ms.grad(lambda s, t: ops.igamma(s, t).sum(), (0, 1))(ms.Tensor(a), ms.Tensor(x))
    h = 1e-6
    num_a = ((sp.gammainc(a + h, x) - sp.gammainc(a - h, x)) / (2 * h)).sum(1, keepdims=True)
    num_x = ((sp.gammainc(a, x + h) - sp.gammainc(a, x - h)) / (2 * h)).sum(0)
    np.testing.assert_allclose(ga.asnumpy(), num_a, rtol=1e-6)
    np.testing.assert_allclose(gx.asnumpy(), num_x, rtol=1e-6)
    gc = ms.grad(lambda t: ops.igammac(ms.Tensor(a), t).sum())(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(gc, -num_x, rtol=1e-6)


def test_igamma_promotes_mixed_dtypes_and_its_primitive_refuses_them():
    out = ops.Igamma()(ms.Tensor(np.ones(2, np.float32)), ms.Tensor(np.ones(2, np.float64)))
    assert out.dtype == ms.float64  # the wrappers promote, as MindSpore's primitives do
    from spore.ops.special_functions import Igamma

    with pytest.raises(DTypeError, match="Igamma"):
        Igamma(ms.Tensor(np.ones(2, np.float32)), ms.Tensor(np.ones(2, np.float64)))


def test_betainc_and_its_x_gradient():
    a, b, x = r.uniform(0.5, 3, 6), r.uniform(0.5, 3, 6), r.uniform(0.05, 0.95, 6)
    out = ops.Betainc()(ms.Tensor(a), ms.Tensor(b), ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(out, sp.betainc(a, b, x), rtol=1e-12)
    g = ms.grad(lambda t: ops.Betainc()(ms.Tensor(a), ms.Tensor(b), t).sum())(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(g, x ** (a - 1) * (1 - x) ** (b - 1) / sp.beta(a, b), rtol=1e-10)


def test_bitwise_ops_match_numpy():
    a = r.integers(-100, 100, (3, 4)).astype(np.int32)
    b = r.integers(-100, 100, (4,)).astype(np.int32)
    A, B = ms.Tensor(a), ms.Tensor(b)
    np.testing.assert_array_equal(ops.bitwise_and(A, B).asnumpy(), a & b)
    np.testing.assert_array_equal(ops.bitwise_or(A, B).asnumpy(), a | b)
    np.testing.assert_array_equal(A.bitwise_xor(B).asnumpy(), a ^ b)
    np.testing.assert_array_equal(ops.BitwiseAnd()(A, B).asnumpy(), a & b)
    np.testing.assert_array_equal(A.bitwise_not().asnumpy(), ~a)
    np.testing.assert_array_equal(ops.bitwise_and(A, 7).asnumpy(), a & 7)  # a Python int takes int32
    s = r.integers(0, 6, (3, 4)).astype(np.int32)
    np.testing.assert_array_equal(ops.bitwise_left_shift(A, ms.Tensor(s)).asnumpy(), a << s)
    np.testing.assert_array_equal(A.bitwise_right_shift(ms.Tensor(s)).asnumpy(), a >> s)  # arithmetic
    m, n = ms.Tensor(np.array([True, False, True])), ms.Tensor(np.array([True, True, False]))
    np.testing.assert_array_equal(ops.bitwise_xor(m, n).asnumpy(), [False, True, True])


def test_bitwise_refuses_floats_naming_the_op():
    with pytest.raises(DTypeError, match="BitwiseAnd"):
        ops.bitwise_and(ms.Tensor([1.0]), ms.Tensor([2.0]))
    with pytest.raises(DTypeError, match="BitwiseLeftShift"):
        ops.bitwise_left_shift(ms.Tensor(np.array([True])), ms.Tensor(np.array([True])))


def test_gcd_matches_numpy():
    a, b = r.integers(-60, 60, 20), r.integers(-60, 60, 20)
    np.testing.assert_array_equal(ops.gcd(ms.Tensor(a), ms.Tensor(b)).asnumpy(), np.gcd(a, b))
    np.testing.assert_array_equal(ms.Tensor(a).gcd(ms.Tensor(b)).asnumpy(), np.gcd(a, b))
    assert ops.Gcd()(ms.Tensor([0]), ms.Tensor([0])).asnumpy()[0] == 0


def test_fmax_fmin_ignore_nan_and_route_the_gradient():
    x = np.array([1.0, np.nan, 3.0, np.nan, -2.0])
    y = np.array([2.0, 1.0, np.nan, np.nan, -5.0])
    np.testing.assert_array_equal(ops.fmax(ms.Tensor(x), ms.Tensor(y)).asnumpy(), np.fmax(x, y))
    np.testing.assert_array_equal(ms.Tensor(x).fmin(ms.Tensor(y)).asnumpy(), np.fmin(x, y))
    np.testing.assert_array_equal(ops.Fmax()(ms.Tensor(x), ms.Tensor(y)).asnumpy(), np.fmax(x, y))
    gx, gy = ms.grad(lambda a, b: ops.fmax(a, b).sum(), (0, 1))(ms.Tensor(x), ms.Tensor(y))
    # x chosen where x >= y or y is NaN
    np.testing.assert_array_equal(gx.asnumpy(), [0, 0, 1, 1, 1])
    np.testing.assert_array_equal(gy.asnumpy(), [1, 1, 0, 0, 0])
    i = ops.fmin(ms.Tensor(np.array([3, -1])), ms.Tensor(np.array([2, 5])))
    np.testing.assert_array_equal(i.asnumpy(), [2, -1])
