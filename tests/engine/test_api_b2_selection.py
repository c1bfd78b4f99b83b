"""NMSWithMask, NonMaxSuppressionWithOverlaps, RandomChoiceWithMask, RaggedRange, NoRepeatNGram and
is_available/is_initialized (ops/vision_nms_ops.py) against brute-force NumPy oracles."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import spore as ms
from spore import Tensor, ops
from spore.errors import DTypeError, ShapeError

R = np.random.default_rng(11)


def _iou(a, b):
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def _nms_oracle(b, thr):
    order = sorted(range(len(b)), key=lambda i: -b[i, 4])
    kept = []
    for i in order:
        if all(_iou(b[i].astype(float), b[j].astype(float)) <= thr for j in kept):
            kept.append(i)
    return order, [i in kept for i in order]


@pytest.mark.parametrize("thr", [0.1, 0.5])
def test_nms_with_mask_matches_greedy_oracle(thr):
    lo = R.uniform(0, 4, (12, 2))
    b = np.concatenate([lo, lo + R.uniform(0.5, 3, (12, 2)), R.permutation(12)[:, None] / 12.0], 1)
    b = b.astype(np.float32)
    boxes, idx, mask = ops.NMSWithMask(thr)(Tensor(b))
    order, keep = _nms_oracle(b, thr)
    assert idx.dtype == ms.int32 and mask.dtype == ms.bool_
    np.testing.assert_array_equal(idx.asnumpy(), order)
    np.testing.assert_array_equal(boxes.asnumpy(), b[order])
    np.testing.assert_array_equal(mask.asnumpy(), keep)
    assert 0 < sum(keep) < 12 or thr == 0.5


def test_nms_with_mask_errors():
    with pytest.raises(ShapeError, match="NMSWithMask"):
        ops.NMSWithMask()(Tensor(np.zeros((3, 4), np.float32)))


def test_non_max_suppression_with_overlaps_matches_oracle():
    n = 8
    ov = R.random((n, n)).astype(np.float32)
    ov = (ov + ov.T) / 2
    sc = R.random(n).astype(np.float32)
    for k, thr, sthr in [(8, 0.5, 0.0), (2, 0.5, 0.0), (8, 0.3, 0.4)]:
        got = ops.NonMaxSuppressionWithOverlaps()(Tensor(ov), Tensor(sc), Tensor(np.int32(k)),
                                                  Tensor(np.float32(thr)), Tensor(np.float32(sthr)))
        picked = []
        for i in np.argsort(-sc):
            if len(picked) < k and sc[i] > sthr and all(ov[i, j] <= thr for j in picked):
                picked.append(i)
        assert got.dtype == ms.int32
        np.testing.assert_array_equal(got.asnumpy(), picked)
    with pytest.raises(ShapeError, match="NonMaxSuppressionWithOverlaps"):
        ops.NonMaxSuppressionWithOverlaps()(Tensor(ov[:3]), Tensor(sc), 2, 0.5, 0.0)


def test_random_choice_with_mask_returns_each_true_coordinate_once():
    x = R.random((4, 5, 3)) > 0.6
    n = int(x.sum())
    idx, mask = ops.RandomChoiceWithMask(count=n + 4, seed=3)(Tensor(x))
    idx, mask = idx.asnumpy(), mask.asnumpy()
    assert idx.shape == (n + 4, 3) and idx.dtype == np.int32
    np.testing.assert_array_equal(mask, np.arange(n + 4) < n)
    assert sorted(map(tuple, idx[:n])) == sorted(map(tuple, np.argwhere(x)))
    np.testing.assert_array_equal(idx[n:], 0)
    few, fmask = ops.RandomChoiceWithMask(count=2, seed=3)(Tensor(x))
    assert fmask.asnumpy().all() and all(x[tuple(c)] for c in few.asnumpy())
    again, _ = ops.RandomChoiceWithMask(count=n + 4, seed=3)(Tensor(x))
    np.testing.assert_array_equal(again.asnumpy(), idx)       # same seed, same order
    with pytest.raises(DTypeError, match="RandomChoiceWithMask"):
        ops.RandomChoiceWithMask()(Tensor(np.zeros(3, np.float32)))


def test_ragged_range_matches_python_ranges():
    starts = np.array([2, 5, 8, 0], np.int64)
    limits = np.array([3, 5, 12, -6], np.int64)
    deltas = np.array([1, 1, 2, -2], np.int64)
    splits, values = ops.RaggedRange(ms.int32)(Tensor(starts), Tensor(limits), Tensor(deltas))
    rows = [list(range(a, b, c)) for a, b, c in zip(starts, limits, deltas)]
    assert splits.dtype == ms.int32 and values.dtype == ms.int64
    np.testing.assert_array_equal(splits.asnumpy(), np.cumsum([0] + [len(r) for r in rows]))
    np.testing.assert_array_equal(values.asnumpy(), list(itertools.chain(*rows)))
    fs, fv = ops.RaggedRange(ms.int64)(Tensor(np.array([0.0, 1.0], np.float32)), Tensor(np.array([1.0, 2.0],
                                       np.float32)), Tensor(np.float32(0.25)))
    np.testing.assert_array_equal(fs.asnumpy(), [0, 4, 8])
    np.testing.assert_allclose(fv.asnumpy(), np.concatenate([np.arange(0, 1, 0.25), np.arange(1, 2, 0.25)]))
    with pytest.raises(ValueError, match="RaggedRange: deltas"):
        ops.RaggedRange(ms.int64)(Tensor(starts), Tensor(limits), Tensor(np.zeros(4, np.int64)))


def _ngram_oracle(seq, lp, n):
    out = lp.copy()
    for b, k in np.ndindex(seq.shape[:2]):
        s = list(seq[b, k])
        grams = {tuple(s[i:i + n]) for i in range(len(s) - n + 1)}
        for tok in range(lp.shape[2]):
            if tuple(s[len(s) - n + 1:] + [tok]) in grams if n > 1 else (tok,) in grams:
                out[b, k, tok] = np.finfo(lp.dtype).min
    return out


@pytest.mark.parametrize("n", [1, 2, 3])
def test_no_repeat_ngram_bans_exactly_the_repeating_tokens(n):
    seq = R.integers(0, 4, (2, 3, 9)).astype(np.int32)
    lp = R.standard_normal((2, 3, 5)).astype(np.float32)
    got = ops.NoRepeatNGram(n)(Tensor(seq), Tensor(lp)).asnumpy()
    np.testing.assert_array_equal(got, _ngram_oracle(seq, lp, n))


def test_no_repeat_ngram_errors():
    with pytest.raises(ValueError, match="NoRepeatNGram: ngram_size"):
        ops.NoRepeatNGram(0)
    with pytest.raises(ShapeError, match="NoRepeatNGram"):
        ops.NoRepeatNGram(2)(Tensor(np.zeros((2, 5), np.int32)), Tensor(np.zeros((2, 3, 4), np.float32)))


def test_communication_availability():
    import importlib.util

    assert ops.is_available() is (importlib.util.find_spec("mpi4py") is not None)
    assert ops.is_initialized() is False        # no init() in this single-process test
