"""Samples for the vision/sequence slice's primitives (issue 14): CTCLossV2, its gradient and CTCLogAlpha."""

import numpy as np

from . import Sample

r = np.random.default_rng(14)


def _lp(t: int, n: int, c: int) -> np.ndarray:
    x = r.standard_normal((t, n, c))
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


_TG = np.array([[1, 2, 2], [3, 1, 0]], np.int64)
_IL = np.array([5, 4], np.int64)
_TL = np.array([3, 2], np.int64)

SAMPLES = {
    "CTCLossV2": [Sample([_lp(5, 2, 4), _TG, _IL, _TL], wrt=(0,)),
                  Sample([_lp(4, 2, 3), np.array([[2, 2], [1, 0]], np.int64), np.array([4, 3], np.int64),
                          np.array([2, 0], np.int64)], {"blank": 0, "zero_infinity": True}, wrt=(0,)),
                  Sample([_lp(3, 1, 3), np.array([[1, 2]], np.int64), np.array([3], np.int64),
                          np.array([2], np.int64)], {"blank": 0}, wrt=(0,))],
    "CTCLogAlpha": [Sample([_lp(5, 2, 4), _TG, _IL, _TL], grad=False, why="forward variables, not differentiated"),
                    Sample([_lp(3, 1, 3), np.array([[2]], np.int64), np.array([3], np.int64),
                            np.array([1], np.int64)], {"blank": 1}, grad=False, why="forward variables")],
    "CTCLossV2Grad": [Sample([_lp(5, 2, 4), _TG, _IL, _TL], grad=False,
                             why="the first derivative of CTCLossV2; not differentiated again")],
}
