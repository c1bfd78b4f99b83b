"""ConfusionMatrixMetric against a brute-force oracle (loops over every element, textbook formulas)
and MindSpore's documented example (issue 14, rest slice)."""

import math

import numpy as np
import pytest

import spore as ms


def _counts(yp, yt):
    tp = fp = tn = fn = 0
    for a, b in zip(yp.ravel().tolist(), yt.ravel().tolist()):
        tp += a == 1 and b == 1
        fp += a == 1 and b == 0
        tn += a == 0 and b == 0
        fn += a == 0 and b == 1
    return tp, fp, tn, fn


def _rate(name, tp, fp, tn, fn):
    div = lambda a, b: a / b if b else math.nan  # noqa: E731
    return {"sensitivity": div(tp, tp + fn), "specificity": div(tn, tn + fp), "precision": div(tp, tp + fp),
            "f1 score": div(2 * tp, 2 * tp + fp + fn), "accuracy": div(tp + tn, tp + fp + tn + fn),
            "matthews correlation coefficient": div(tp * tn - fp * fn,
                                                    math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)))}[name]


def test_mindspore_doc_example():
    m = ms.train.ConfusionMatrixMetric(skip_channel=True, metric_name="tpr", calculation_method=False)
    m.clear()
    m.update(ms.Tensor(np.array([[[0], [1]], [[1], [0]]])), ms.Tensor(np.array([[[0], [1]], [[0], [1]]])))
    np.testing.assert_allclose(m.eval(), [0.5])
    assert ms.nn.ConfusionMatrixMetric is ms.ConfusionMatrixMetric is ms.train.ConfusionMatrixMetric


@pytest.mark.parametrize("name", ["sensitivity", "specificity", "precision", "f1 score", "accuracy",
                                  "matthews correlation coefficient"])
def test_accumulated_over_batches_matches_brute_force(name):
    rng = np.random.default_rng(3)
    batches = [(rng.integers(0, 2, (4, 3)), rng.integers(0, 2, (4, 3))) for _ in range(3)]
    m = ms.nn.ConfusionMatrixMetric(metric_name=name)
    for yp, yt in batches:
        m.update(yp, yt)
    total = np.array([_counts(yp, yt) for yp, yt in batches]).sum(axis=0)
    np.testing.assert_allclose(m.eval(), [_rate(name, *total)])


def test_skip_channel_false_drops_channel_zero_as_mindspore():
    rng = np.random.default_rng(4)
    yp, yt = rng.integers(0, 2, (5, 3)), rng.integers(0, 2, (5, 3))
    m = ms.nn.ConfusionMatrixMetric(skip_channel=False, metric_name="precision")
    m.update(yp, yt)
    np.testing.assert_allclose(m.eval(), [_rate("precision", *_counts(yp[:, 1:], yt[:, 1:]))])


def test_per_sample_mean_matches_brute_force():
    rng = np.random.default_rng(5)
    yp, yt = rng.integers(0, 2, (3, 2, 4, 4)), rng.integers(0, 2, (3, 2, 4, 4))
    m = ms.nn.ConfusionMatrixMetric(metric_name="f1 score", calculation_method=True, decrease="mean")
    m.update(yp, yt)
    per_sample = []
    for b in range(3):
        vals = [_rate("f1 score", *_counts(yp[b, c], yt[b, c])) for c in range(2)]
        vals = [v for v in vals if not math.isnan(v)]
        if vals:
            per_sample.append(sum(vals) / len(vals))
    np.testing.assert_allclose(m.eval(), sum(per_sample) / len(per_sample))


def test_errors_name_the_metric():
    with pytest.raises(ValueError, match="metric_name"):
        ms.nn.ConfusionMatrixMetric(metric_name="nope")
    with pytest.raises(ValueError, match="decrease"):
        ms.nn.ConfusionMatrixMetric(decrease="max")
    m = ms.nn.ConfusionMatrixMetric()
    with pytest.raises(ValueError, match="binarised"):
        m.update(np.ones((2, 2)), np.full((2, 2), 0.5))
    with pytest.raises(ValueError, match="2 inputs"):
        m.update(np.ones((2, 2)))
    with pytest.raises(RuntimeError, match="ConfusionMatrixMetric.eval"):
        ms.nn.ConfusionMatrixMetric(calculation_method=True).eval()
