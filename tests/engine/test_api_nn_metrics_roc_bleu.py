"""ROC and BleuScore (issue 14): ROC against a brute-force threshold sweep, BLEU against the
documented examples of MindSpore and torchmetrics (whose formula MindSpore follows)."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms


def brute_roc(scores, positive):
    thresholds = np.unique(scores)[::-1]
    tpr = [0.0] + [float((scores[positive] >= t).mean()) for t in thresholds]
    fpr = [0.0] + [float((scores[~positive] >= t).mean()) for t in thresholds]
    return np.array(fpr), np.array(tpr), np.r_[thresholds[0] + 1, thresholds]


def test_binary_roc_matches_threshold_sweep():
    rng = np.random.default_rng(0)
    scores = np.round(rng.random(40), 1)  # ties
    y = (rng.random(40) < 0.4).astype(np.int32)
    m = ms.ROC()
    m.update(ms.Tensor(scores[:25]), ms.Tensor(y[:25]))
    m.update(scores[25:], y[25:])
    fpr, tpr, thr = m.eval()
    rf, rt, rth = brute_roc(scores, y == 1)
    np.testing.assert_allclose(fpr, rf)
    np.testing.assert_allclose(tpr, rt)
    np.testing.assert_allclose(thr, rth)
    m2 = ms.train.ROC(pos_label=0)
    m2.update(scores, y)
    np.testing.assert_allclose(m2.eval()[1], brute_roc(scores, y == 0)[1])


def test_multiclass_roc_is_one_vs_rest():
    rng = np.random.default_rng(1)
    scores = rng.random((30, 3))
    y = rng.integers(0, 3, 30)
    m = ms.nn.ROC(class_num=3)
    m.update(scores, y)
    fpr, tpr, thr = m.eval()
    assert len(fpr) == 3
    for c in range(3):
        rf, rt, _ = brute_roc(scores[:, c], y == c)
        np.testing.assert_allclose(fpr[c], rf)
        np.testing.assert_allclose(tpr[c], rt)
    with pytest.raises(RuntimeError, match="ROC"):
        ms.ROC().eval()


def test_bleu_documented_examples():
    m = ms.BleuScore()
    m.update([["i", "have", "a", "pen", "on", "my", "desk"]],
             [[["i", "have", "a", "pen", "in", "my", "desk"], ["there", "is", "a", "pen", "on", "the", "desk"]]])
    assert abs(m.eval() - 0.5946035575013605) < 1e-12  # MindSpore's docstring value
    t = ms.train.BleuScore()
    t.update(["the cat is on the mat".split()], [["there is a cat on the mat".split(), "a cat is on the mat".split()]])
    assert abs(t.eval() - 0.7598356856515925) < 1e-12  # torchmetrics' docstring value (0.7598)
    s = ms.nn.BleuScore(n_gram=2, smooth=True)
    s.update([["a", "b", "c"]], [[["a", "b", "d", "e"]]])
    # unigram 2/3, bigram 1/2 -> smoothed 3/4, 2/3; brevity exp(1 - 4/3)
    assert abs(s.eval() - np.exp(1 - 4 / 3) * np.sqrt(3 / 4 * 2 / 3)) < 1e-12
    z = ms.BleuScore()
    z.update([["x", "y"]], [[["a", "b"]]])
    assert z.eval() == 0.0
