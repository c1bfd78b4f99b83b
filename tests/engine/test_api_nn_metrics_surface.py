"""Surface-distance metrics (issue 14) against brute force: surfaces found by a 4-neighbour scan
(the image border counts as background) and distances by exhaustive search over surface pixels."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms


def surface(mask):
    padded = np.pad(mask, 1)
    inner = padded[1:-1, 1:-1]
    all_in = padded[:-2, 1:-1] & padded[2:, 1:-1] & padded[1:-1, :-2] & padded[1:-1, 2:] & inner
    return np.argwhere(inner & ~all_in)


def dists(a, b, metric="euclidean"):
    diff = np.abs(a[:, None, :] - b[None, :, :])
    if metric == "euclidean":
        return np.sqrt((diff ** 2).sum(-1)).min(1)
    if metric == "chessboard":
        return diff.max(-1).min(1)
    return diff.sum(-1).min(1)


RNG = np.random.default_rng(3)
PRED = np.zeros((12, 14), np.int32)
PRED[2:8, 3:10] = 1
PRED[5:7, 11:13] = 1
TRUE = np.zeros((12, 14), np.int32)
TRUE[3:10, 2:9] = 1


@pytest.mark.parametrize("metric", ["euclidean", "chessboard", "taxicab"])
def test_hausdorff(metric):
    sp, st = surface(PRED == 1), surface(TRUE == 1)
    d1, d2 = dists(sp, st, metric), dists(st, sp, metric)
    m = ms.HausdorffDistance(distance_metric=metric)
    m.update(ms.Tensor(PRED), ms.Tensor(TRUE), 1)
    assert m.eval() == pytest.approx(max(d1.max(), d2.max()))
    directed = ms.train.HausdorffDistance(distance_metric=metric, percentile=90, directed=True)
    directed.update(PRED, TRUE, 1)
    assert directed.eval() == pytest.approx(np.percentile(d1, 90))


def test_mean_and_rms_surface_distance():
    sp, st = surface(PRED == 1), surface(TRUE == 1)
    d1, d2 = dists(sp, st), dists(st, sp)
    m = ms.MeanSurfaceDistance()
    m.update(PRED, TRUE, 1)
    assert m.eval() == pytest.approx(d1.mean())
    s = ms.nn.MeanSurfaceDistance(symmetric=True)
    s.update(PRED, TRUE, 1)
    assert s.eval() == pytest.approx((d1.mean() + d2.mean()) / 2)
    r = ms.RootMeanSquareDistance(symmetric=True)
    r.update(PRED, TRUE, 1)
    assert r.eval() == pytest.approx((np.sqrt((d1 ** 2).mean()) + np.sqrt((d2 ** 2).mean())) / 2)
    empty = ms.RootMeanSquareDistance()
    empty.update(np.zeros_like(PRED), TRUE, 1)
    assert empty.eval() == float("inf")
    with pytest.raises(RuntimeError, match="update"):
        ms.HausdorffDistance().eval()
    with pytest.raises(ValueError, match="one shape"):
        ms.HausdorffDistance().update(PRED, TRUE[:3], 1)
