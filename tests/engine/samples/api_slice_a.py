"""Samples for the primitives of special_functions, bitwise_ops and linalg_extra (issue 14, slice A)."""

import numpy as np

from . import Sample

r = np.random.default_rng(1414)


def f(*shape):
    return r.standard_normal(shape)


def pos(*shape, lo=0.5, hi=3.0):
    """Positive values away from 0 (the domain of K0/K1/Y0/Y1 and of the gamma functions)."""
    return r.uniform(lo, hi, shape)


def ints(*shape, lo=-20, hi=20, dt=np.int32):
    return r.integers(lo, hi, shape).astype(dt)


def spd(*batch, n=3):
    a = r.standard_normal((*batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def lower(*batch, n=3):
    return np.linalg.cholesky(spd(*batch, n=n))


def apart(*shape):
    """Two arrays whose entries differ by at least 0.2 (fmax/fmin's choice is unambiguous)."""
    a = f(*shape)
    return a, a + r.choice([-1.0, 1.0], shape) * r.uniform(0.2, 1.0, shape)


_fa, _fb = apart(3, 4)
_NO = "integer op: no gradient"

SAMPLES = {
    # Bessel functions: anywhere for I/J (I1, J1 divide by x only at 0), x > 0 for K and Y
    "BesselI0": [Sample([f(3, 4)])],
    "BesselI0e": [Sample([f(3, 4)])],
    "BesselI1": [Sample([f(3, 4)])],
    "BesselI1e": [Sample([f(3, 4)])],
    "BesselJ0": [Sample([f(3, 4) * 3])],
    "BesselJ1": [Sample([f(3, 4) * 3])],
    "BesselK0": [Sample([pos(3, 4)])],
    "BesselK0e": [Sample([pos(3, 4)])],
    "BesselK1": [Sample([pos(3, 4)])],
    "BesselK1e": [Sample([pos(3, 4)])],
    "BesselY0": [Sample([pos(3, 4)])],
    "BesselY1": [Sample([pos(3, 4)])],
    "Digamma": [Sample([pos(3, 4)])],
    "Trigamma": [Sample([pos(3, 4)], grad=False, why="the gradient of Digamma; not differentiated again")],
    "Erfinv": [Sample([r.uniform(-0.9, 0.9, (3, 4))])],
    "LogGamma": [Sample([pos(3, 4)], grad=False, why="normaliser inside gamma gradients; not differentiated")],
    "IgammaGradA": [Sample([pos(3, 4), pos(3, 4)], grad=False, why="a gradient itself (numerical in a)")],
    "Igamma": [Sample([pos(3, 4), pos(3, 4)], rtol=1e-4, atol=1e-6), Sample([pos(3, 1), pos(4)], rtol=1e-4)],
    "Igammac": [Sample([pos(3, 4), pos(3, 4)], rtol=1e-4, atol=1e-6)],
    "Betainc": [Sample([pos(3, 4), pos(3, 4), r.uniform(0.1, 0.9, (3, 4))], wrt=(2,))],
    # bitwise / integer ops
    "BitwiseAnd": [Sample([ints(3, 4), ints(3, 4)], grad=False, why=_NO),
                   Sample([r.random((2, 3)) > 0.5, r.random((2, 3)) > 0.5], grad=False, why=_NO)],
    "BitwiseOr": [Sample([ints(3, 4), ints(4)], grad=False, why=_NO)],
    "BitwiseXor": [Sample([ints(3, 4, dt=np.int64), ints(3, 4, dt=np.int64)], grad=False, why=_NO)],
    "BitwiseLeftShift": [Sample([ints(3, 4), ints(3, 4, lo=0, hi=8)], grad=False, why=_NO)],
    "BitwiseRightShift": [Sample([ints(3, 4), ints(3, 4, lo=0, hi=8)], grad=False, why=_NO)],
    "BitwiseNot": [Sample([ints(3, 4)], grad=False, why=_NO)],
    "Gcd": [Sample([ints(3, 4), ints(3, 4)], grad=False, why=_NO)],
    "Fmax": [Sample([_fa, _fb]), Sample([ints(3, 4), ints(4)], grad=False, why="integer inputs")],
    "Fmin": [Sample([_fb, _fa]), Sample([f(3, 1), f(4) + 5.0])],
    # linear algebra
    "Einsum": [Sample([f(2, 3), f(3, 4)], {"equation": "ij,jk->ik"}),
               Sample([f(2, 3, 4), f(2, 4, 5)], {"equation": "bij,bjk->bik"}),
               Sample([f(3, 3)], {"equation": "ii->i"}),
               Sample([f(2, 3), f(3)], {"equation": "...j,j"}),
               Sample([f(2, 3), f(4)], {"equation": "ij,k->ik"}),
               Sample([f(2, 3)], {"equation": "ij->"})],
    "Cholesky": [Sample([spd()]), Sample([spd(2)], {"upper": True})],
    "CholeskyGrad": [Sample([lower(), f(3, 3)], grad=False, why="the gradient of Cholesky")],
    "CholeskySolve": [Sample([f(3, 2), lower()]), Sample([f(2, 3, 1), np.swapaxes(lower(2), -1, -2)],
                                                        {"upper": True})],
    "Det": [Sample([spd()]), Sample([f(2, 3, 3)])],
    "DetCofactor": [Sample([spd()], grad=False, why="the gradient of Det")],
}
