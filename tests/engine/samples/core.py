"""Samples for the skeleton's primitives (array, elementwise core, linalg, reduction)."""

import numpy as np

from . import Sample

r = np.random.default_rng(1)


def f(*shape):
    return r.standard_normal(shape)


SAMPLES = {
    "Add": [Sample([f(3, 4), f(4)]), Sample([f(2, 1, 3), f(4, 1)])],
    "Sub": [Sample([f(3, 4), f(3, 1)])],
    "Mul": [Sample([f(3, 4), f(1, 4)])],
    "RealDiv": [Sample([f(3, 4), np.abs(f(3, 4)) + 0.5])],
    "Neg": [Sample([f(5)])],
    "Exp": [Sample([f(2, 3)])],
    "Log": [Sample([np.abs(f(2, 3)) + 0.2])],
    "ReLU": [Sample([f(4, 5) + 0.01])],
    "ReluGrad": [Sample([f(4, 5), f(4, 5)], wrt=(0,))],
    "Cast": [Sample([f(3, 2)], {"dtype": __import__("spore").float64}),
             Sample([f(3, 2)], {"dtype": __import__("spore").int32}, grad=False, why="integer output")],
    "Reshape": [Sample([f(2, 6)], {"shape": (3, 4)})],
    "BroadcastTo": [Sample([f(3, 1)], {"shape": (2, 3, 4)})],
    "SumTo": [Sample([f(2, 3, 4)], {"shape": (3, 1)})],
    "StopGradient": [Sample([f(3)], grad=False, why="blocks gradients by definition")],
    "Identity": [Sample([f(3)])],
    "MatMul": [Sample([f(3, 4), f(4, 2)]), Sample([f(4, 3), f(2, 4)], {"transpose_a": True, "transpose_b": True})],
    "BatchMatMul": [Sample([f(2, 3, 4), f(4, 5)]), Sample([f(2, 1, 4, 3), f(3, 5, 4)],
                                                          {"transpose_a": True, "transpose_b": True})],
    "ReduceSum": [Sample([f(3, 4, 2)], {"axis": (0, 2)}), Sample([f(3, 4)], {"axis": 1, "keep_dims": True})],
}
SAMPLES["ScheduleRate"] = [
    Sample([np.array([0, 3, 9], np.int32)], {"schedule": __import__("spore").nn.CosineDecayLR(0.01, 0.1, 4)},
           grad=False, why="a learning rate as a function of an integer step; no gradient by design"),
]
SAMPLES["Assign"] = [Sample([f(2, 3), f(2, 3)], grad=False, why="writes state in place; no gradient by design")]
SAMPLES["Print"] = [Sample([f(2)], {"template": ("x:", None)}, grad=False, why="prints; no gradient by design")]
