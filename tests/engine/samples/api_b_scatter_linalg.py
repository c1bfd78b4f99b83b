"""Samples for the primitives of scatter_segment_ops and linalg_det_inverse (issue 14, slice B)."""

import numpy as np

from . import Sample

r = np.random.default_rng(1415)


def f(*shape):
    return r.standard_normal(shape)


def spd(n, batch=()):
    """Well-conditioned matrices (away from singular), so inverse/determinant gradients are smooth."""
    return f(*batch, n, n) + 3 * np.eye(n)


def distinct(*shape):
    n = int(np.prod(shape))
    return (r.permutation(n) * 0.5 + r.random(n) * 0.1 - n / 4).reshape(shape)


_IDX = np.array([[0], [2], [0]])  # row 0 twice: repeated updates combine
SAMPLES = {
    "ScatterNdReduce": [
        Sample([distinct(4, 3), _IDX, distinct(3, 3)], {"reduction": "max"}, wrt=(0, 2)),
        Sample([distinct(4, 3), _IDX, distinct(3, 3)], {"reduction": "min"}, wrt=(0, 2)),
        Sample([f(4, 3), _IDX, r.uniform(0.5, 2.0, (3, 3))], {"reduction": "mul"}, wrt=(0, 2)),
        Sample([distinct(3, 4), np.array([[0, 1], [2, 3]]), distinct(2)], {"reduction": "max"}, wrt=(0, 2)),
    ],
    "MatrixInverse": [Sample([spd(3)]), Sample([spd(2, (2,))])],
    "SLogDet": [Sample([spd(3)]), Sample([spd(2, (3,))])],
    "Polygamma": [Sample([r.uniform(0.5, 4.0, (3, 4))], {"n": 0}), Sample([r.uniform(0.5, 4.0, (5,))], {"n": 2})],
    "Lgamma": [Sample([r.uniform(0.3, 5.0, (3, 4))])],
    "Zeta": [Sample([r.uniform(1.5, 4.0, (3, 4)), r.uniform(0.5, 3.0, (4,))], wrt=(1,))],
}

import spore as _ms  # noqa: E402

SAMPLES["ParamDraw"] = [
    Sample([r.uniform(0.5, 3.0, (3,))], {"kind": "gamma", "shape": (2, 3), "dtype": _ms.float32, "seed": 4},
           grad=False, why="random draw"),
    Sample([r.uniform(0.5, 3.0, (2, 1))], {"kind": "poisson", "shape": (2, 4), "dtype": _ms.int64}, grad=False,
           why="random integer draw"),
]

_NOGRAD = "LAPACK decomposition without a gradient rule (autodiff refuses it)"
SAMPLES["Svd"] = [Sample([f(4, 3)], grad=False, why=_NOGRAD),
                  Sample([f(2, 3, 5)], {"full_matrices": True}, grad=False, why=_NOGRAD)]
SAMPLES["Qr"] = [Sample([f(4, 3)], grad=False, why=_NOGRAD),
                 Sample([f(2, 3, 5)], {"mode": "complete"}, grad=False, why=_NOGRAD)]
SAMPLES["Pinv"] = [Sample([f(4, 3)], grad=False, why=_NOGRAD), Sample([f(2, 3, 5)], {"rtol": 1e-6}, grad=False,
                                                                      why=_NOGRAD)]

SAMPLES["NextAfter"] = [Sample([f(3, 4), f(3, 4)], grad=False, why="piecewise constant step to the next float"),
                        Sample([f(3, 4).astype(np.float32), f(4).astype(np.float32)], grad=False, why="float32")]
SAMPLES["PopulationCount"] = [Sample([r.integers(-100, 100, (3, 4)).astype(np.int16)], grad=False,
                                     why="integer bit count")]
