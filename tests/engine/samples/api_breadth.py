"""Samples for the primitives added for MindSpore API breadth (issue 14)."""

import numpy as np

from . import Sample

r = np.random.default_rng(14)


def f(*shape):
    return r.standard_normal(shape)


SAMPLES = {
    # random matrices: distinct singular values, so the SVD gradient is defined
    "SingularValues": [Sample([f(3, 4)]), Sample([f(2, 4, 3)]), Sample([f(3, 3).astype(np.float32)], grad=False,
                                                                    why="float32: infer/impl dtype check only")],
    "SingularValuesGrad": [Sample([f(3), f(3, 4)], grad=False,
                                  why="the gradient of SingularValues; not differentiated again")],
}
