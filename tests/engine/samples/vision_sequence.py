"""Samples for the vision/sequence slice's primitives (issue 14): CTCLossV2, its gradient and CTCLogAlpha; the
TensorFlow-style CTCLoss and RNNTLoss primitives."""

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
    "CTCLossWithGradient": [
        Sample([r.standard_normal((4, 2, 4)), np.array([[0, 0], [0, 1], [1, 0]], np.int64),
                np.array([0, 2, 1], np.int32), np.array([4, 3], np.int32)], grad=False,
               why="its second output is the loss gradient itself (not differentiated again); the loss's gradient "
                   "is checked by finite differences in tests/engine/test_sequence_losses.py"),
        Sample([r.standard_normal((3, 1, 3)), np.array([[0, 0]], np.int64), np.array([1], np.int32),
                np.array([3], np.int32)], {"ctc_merge_repeated": False, "preprocess_collapse_repeated": True},
               grad=False, why="as above")],
    "RNNTLossWithGradient": [
        Sample([r.standard_normal((2, 3, 3, 4)), np.array([[1, 2], [3, 0]], np.int32), np.array([3, 2], np.int32),
                np.array([2, 1], np.int32)], grad=False,
               why="its second output is the cost gradient itself; the costs' gradient is checked by finite "
                   "differences in tests/engine/test_sequence_losses.py"),
        Sample([r.standard_normal((1, 2, 2, 3)), np.array([[2]], np.int32), np.array([2], np.int32),
                np.array([1], np.int32)], {"blank_label": 1}, grad=False, why="as above")],
    "CTCLossV2Grad": [Sample([_lp(5, 2, 4), _TG, _IL, _TL], grad=False,
                             why="the first derivative of CTCLossV2; not differentiated again")],
}
