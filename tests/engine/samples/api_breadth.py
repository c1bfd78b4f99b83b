"""Samples for the primitives added for MindSpore API breadth (issue 14)."""

import numpy as np

from . import Sample

r = np.random.default_rng(14)


def f(*shape):
    return r.standard_normal(shape)


def inside(*shape):
    """Values in (-0.8, 0.8): inside the domain of acos/asin/atanh, away from +-1."""
    return r.uniform(-0.8, 0.8, shape)


def distinct(*shape):
    """No two values equal (a shuffled spread grid plus a little noise)."""
    n = int(np.prod(shape))
    return (r.permutation(n) * 0.5 + r.random(n) * 0.1).reshape(shape)


SAMPLES = {
    # random matrices: distinct singular values, so the SVD gradient is defined
    "SingularValues": [Sample([f(3, 4)]), Sample([f(2, 4, 3)]), Sample([f(3, 3).astype(np.float32)], grad=False,
                                                                    why="float32: infer/impl dtype check only")],
    "SingularValuesGrad": [Sample([f(3), f(3, 4)], grad=False,
                                  why="the gradient of SingularValues; not differentiated again")],
    # inverse trig / hyperbolic: inside their domains, away from the edges where the slope blows up
    "ACos": [Sample([inside(3, 4)])],
    "Asin": [Sample([inside(3, 4)])],
    "Acosh": [Sample([1.2 + np.abs(f(3, 4))])],
    "Asinh": [Sample([f(3, 4)])],
    "Atanh": [Sample([inside(3, 4)])],
    "Erfc": [Sample([f(3, 4)])],
    # distinct values: the running extreme's index is unique, so the gradient is defined
    "Cummax": [Sample([distinct(3, 5)], {"axis": 1}), Sample([distinct(4, 2)], {"axis": 0}),
               Sample([r.integers(-5, 6, (3, 4))], {"axis": -1}, grad=False, why="integer input")],
    "Cummin": [Sample([distinct(3, 5)], {"axis": 1}), Sample([distinct(2, 3, 2)], {"axis": -2})],
}
