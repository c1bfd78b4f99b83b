"""Samples for elementwise math, activations, comparisons and reductions (H1a).

Inputs keep clear of non-differentiable points (|x| > 0.1 where an op kinks at 0, distinct values
where an op picks an extreme), so central differences are meaningful.
"""

import numpy as np

import spore as ms

from . import Sample

r = np.random.default_rng(7)


def f(*shape):
    return r.standard_normal(shape)


def away(*shape, gap=0.1):
    """Normal samples pushed at least `gap` away from 0."""
    x = f(*shape)
    return x + np.sign(x) * gap


def pos(*shape, low=0.3):
    return np.abs(f(*shape)) + low


def ints(*shape, lo=-5, hi=6):
    return r.integers(lo, hi, shape)


def bools(*shape):
    return r.random(shape) > 0.5


CMP = "comparison: bool output, nothing to differentiate"
LOGIC = "logical op: bool inputs and output"
TEST = "value test: bool output"
STEP = "piecewise constant: zero gradient almost everywhere, treated as a constant"
INDEX = "returns integer indices"


def _binary_cmp():
    a, b = f(3, 4), f(4)
    b[1] = a[0, 1]  # one tie, so equality is exercised
    return [Sample([a, b], grad=False, why=CMP), Sample([ints(2, 1, 3), ints(4, 1)], grad=False, why=CMP)]


def _distinct(*shape):
    """Values with no ties (a permutation of a spread grid plus noise), for max/min gradients."""
    n = int(np.prod(shape))
    return (r.permutation(n) * 0.37 + r.random(n) * 0.1).reshape(shape) - n * 0.15


SAMPLES = {
    # --- elementwise math -------------------------------------------------------------------
    "Abs": [Sample([away(3, 4)]), Sample([ints(5)], grad=False, why="integer input")],
    "Sqrt": [Sample([pos(3, 4)])],
    "Rsqrt": [Sample([pos(3, 4)])],
    "Square": [Sample([f(2, 3)]), Sample([ints(4)], grad=False, why="integer input")],
    "Reciprocal": [Sample([away(3, 4, gap=0.4)])],
    "Sin": [Sample([f(3, 4)])],
    "Cos": [Sample([f(3, 4)])],
    "Tan": [Sample([f(3, 4) * 0.5])],
    "Atan": [Sample([f(3, 4)])],
    "Sinh": [Sample([f(3, 4)])],
    "Cosh": [Sample([f(3, 4)])],
    "Tanh": [Sample([f(3, 4)])],
    "TanhGrad": [Sample([f(3, 4), np.tanh(f(3, 4))])],
    "Erf": [Sample([f(3, 4)])],
    "Log1p": [Sample([pos(3, 4, low=0.1) - 0.5])],
    "Expm1": [Sample([f(3, 4)])],
    "Log2": [Sample([pos(3, 4)])],
    "Log10": [Sample([pos(3, 4)])],
    "Sign": [Sample([away(3, 4)], grad=False, why=STEP), Sample([ints(6)], grad=False, why=STEP)],
    "Floor": [Sample([f(3, 4) * 3], grad=False, why=STEP)],
    "Ceil": [Sample([f(3, 4) * 3], grad=False, why=STEP)],
    "Trunc": [Sample([f(3, 4) * 3], grad=False, why=STEP)],
    "Round": [Sample([f(3, 4) * 3], grad=False, why=STEP),
              Sample([f(5) * 3], {"decimals": 2}, grad=False, why=STEP)],
    "Pow": [Sample([pos(3, 4), f(3, 4)]), Sample([pos(2, 3), f(3)]),
            Sample([f(2, 3), np.full((), 3.0)], wrt=(0,))],
    "Xlogy": [Sample([f(3, 4), pos(4)]), Sample([np.array([0.0, 1.5, 0.0]), np.array([0.5, 2.0, 3.0])])],
    "Maximum": [Sample([f(3, 4), f(4)]), Sample([f(2, 1, 3), f(4, 1)])],
    "Minimum": [Sample([f(3, 4), f(4)]), Sample([f(2, 1, 3), f(4, 1)])],
    "FloorDiv": [Sample([f(3, 4) * 4, away(4, gap=0.5)], grad=False, why=STEP),
                 Sample([ints(3, 4), ints(4, lo=1)], grad=False, why=STEP)],
    "FloorMod": [Sample([f(3, 4) * 4, pos(4, low=0.7)]), Sample([ints(3, 4), ints(4, lo=1)], grad=False,
                                                                  why="integer input")],
    "Atan2": [Sample([f(3, 4), f(4)])],
    "Clamp": [Sample([f(3, 4)], {"min": -0.5, "max": 0.5}), Sample([f(6)], {"min": 0.2}),
              Sample([f(6)], {"max": 0.1}), Sample([ints(6)], {"min": -1, "max": 2}, grad=False, why="integer input")],
    "ClampGrad": [Sample([f(3, 4), f(3, 4)], {"min": -0.5, "max": 0.5}, wrt=(0,))],
    # --- activations ------------------------------------------------------------------------
    "Softmax": [Sample([f(3, 5)]), Sample([f(2, 3, 4)], {"axis": 1}), Sample([f(2, 3, 4)], {"axis": (0, 2)})],
    "SoftmaxGrad": [Sample([f(3, 5), f(3, 5)]), Sample([f(2, 3, 4), f(2, 3, 4)], {"axis": 1})],
    "LogSoftmax": [Sample([f(3, 5)]), Sample([f(2, 3, 4)], {"axis": 0})],
    "LogSoftmaxGrad": [Sample([f(3, 5), f(3, 5)]), Sample([f(2, 3, 4), f(2, 3, 4)], {"axis": 0})],
    "Sigmoid": [Sample([f(3, 4) * 3])],
    "SigmoidGrad": [Sample([f(3, 4), f(3, 4)])],
    "GeLU": [Sample([f(3, 4) * 2]), Sample([f(3, 4) * 2], {"approximate": "tanh"})],
    "GeLUGrad": [Sample([f(3, 4), f(3, 4) * 2]), Sample([f(3, 4), f(3, 4) * 2], {"approximate": "tanh"})],
    "SiLU": [Sample([f(3, 4) * 2])],
    "SiLUGrad": [Sample([f(3, 4), f(3, 4) * 2])],
    "LeakyReLU": [Sample([away(3, 4)]), Sample([away(5)], {"alpha": 0.01})],
    "Elu": [Sample([away(3, 4)]), Sample([away(5)], {"alpha": 0.5})],
    "Softplus": [Sample([f(3, 4) * 3]), Sample([f(3, 4)], {"beta": 2.0, "threshold": 1.5})],
    # --- comparisons and tests --------------------------------------------------------------
    "Equal": _binary_cmp(),
    "NotEqual": _binary_cmp(),
    "Less": _binary_cmp(),
    "LessEqual": _binary_cmp(),
    "Greater": _binary_cmp(),
    "GreaterEqual": _binary_cmp(),
    "LogicalAnd": [Sample([bools(3, 4), bools(4)], grad=False, why=LOGIC)],
    "LogicalOr": [Sample([bools(3, 4), bools(4)], grad=False, why=LOGIC)],
    "LogicalXor": [Sample([bools(3, 4), bools(4)], grad=False, why=LOGIC)],
    "LogicalNot": [Sample([bools(3, 4)], grad=False, why=LOGIC)],
    "IsNan": [Sample([np.array([1.0, np.nan, np.inf, -np.inf])], grad=False, why=TEST),
              Sample([ints(3)], grad=False, why=TEST)],
    "IsInf": [Sample([np.array([1.0, np.nan, np.inf, -np.inf])], grad=False, why=TEST),
              Sample([ints(3)], grad=False, why=TEST)],
    "IsFinite": [Sample([np.array([1.0, np.nan, np.inf, -np.inf])], grad=False, why=TEST),
                 Sample([bools(3)], grad=False, why=TEST)],
    "IsClose": [Sample([f(3, 4), f(4)], {"rtol": 0.1, "atol": 0.5}, grad=False, why=TEST)],
    # --- reductions -------------------------------------------------------------------------
    "ReduceMean": [Sample([f(3, 4, 2)], {"axis": (0, 2)}), Sample([f(3, 4)], {"axis": 1, "keep_dims": True}),
                   Sample([f(3, 4)])],
    "ReduceMax": [Sample([_distinct(3, 4, 2)], {"axis": (0, 2)}), Sample([_distinct(3, 4)], {"axis": 1,
                                                                                            "keep_dims": True}),
                  Sample([_distinct(3, 4)])],
    "ReduceMin": [Sample([_distinct(3, 4, 2)], {"axis": 1}), Sample([_distinct(3, 4)], {"keep_dims": True})],
    "ReduceProd": [Sample([away(3, 4)], {"axis": 1}), Sample([away(2, 3, 2)], {"axis": (0, 2), "keep_dims": True}),
                   Sample([np.array([[0.0, 2.0, 3.0], [1.5, 0.0, 0.0], [0.5, 2.0, -1.0]])], {"axis": 1})],
    "ReduceAll": [Sample([bools(3, 4)], {"axis": 1}, grad=False, why="bool reduction"),
                  Sample([np.ones((2, 3), bool)], grad=False, why="bool reduction")],
    "ReduceAny": [Sample([bools(3, 4)], {"axis": 0, "keep_dims": True}, grad=False, why="bool reduction")],
    "Argmax": [Sample([f(3, 4)], {"axis": 1}, grad=False, why=INDEX),
               Sample([f(3, 4)], {"axis": None, "output_type": ms.int64}, grad=False, why=INDEX),
               Sample([f(3, 4)], {"axis": 0, "keep_dims": True}, grad=False, why=INDEX)],
    "Argmin": [Sample([f(3, 4)], {"axis": -1}, grad=False, why=INDEX),
               Sample([ints(3, 4)], {"axis": None}, grad=False, why=INDEX)],
    "ArgMaxWithValue": [Sample([_distinct(3, 4)], {"axis": 1}), Sample([_distinct(2, 3, 4)], {"axis": 0,
                                                                                              "keep_dims": True})],
    "ArgMinWithValue": [Sample([_distinct(3, 4)], {"axis": -1}), Sample([_distinct(2, 3)], {"axis": 0,
                                                                                            "keep_dims": True})],
    "CumSum": [Sample([f(3, 4)], {"axis": 1}), Sample([f(3, 4)], {"axis": 0, "reverse": True}),
               Sample([f(2, 5)], {"axis": 1, "exclusive": True}),
               Sample([f(2, 5)], {"axis": -1, "exclusive": True, "reverse": True}),
               Sample([ints(3, 4)], {"axis": 0}, grad=False, why="integer input")],
}
