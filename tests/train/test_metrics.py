"""Metrics agree with scikit-learn (or a NumPy formula where MindSpore defines them differently).

Each metric accumulates over several `update` calls, so results are checked on data split into
uneven batches: a metric that only looked at the last batch would fail.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

import spore as ms
from spore.train.metrics import (
    F1,
    MAE,
    MSE,
    Accuracy,
    Fbeta,
    Loss,
    Metric,
    Precision,
    Recall,
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
    get_metric_fn,
    get_metrics,
    names,
    rearrange_inputs,
)

C = 5


def _data(n: int = 97, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    scores = rng.standard_normal((n, C)).astype(np.float32)
    scores[np.arange(n), y] += 0.8  # better than chance, not perfect
    return scores, y


def _feed(metric: Metric, *arrays: np.ndarray, cuts: tuple[int, ...] = (10, 41, 42)) -> Metric:
    """update() over uneven batches (as Tensors for the first, arrays/lists after)."""
    bounds = [0, *cuts, len(arrays[0])]
    metric.clear()
    for k, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
        batch = [x[a:b] for x in arrays]
        if k == 0:
            batch = [ms.Tensor(x) for x in batch]
        elif k == 2:
            batch = [x.tolist() for x in batch]
        metric.update(*batch)
    return metric


def _onehot(y: np.ndarray, c: int = C) -> np.ndarray:
    return np.eye(c, dtype=np.float32)[y]


# --- Accuracy --------------------------------------------------------------------------------------
def test_accuracy_classification_matches_sklearn_for_index_and_onehot_labels():
    scores, y = _data()
    expected = skm.accuracy_score(y, scores.argmax(1))
    assert 0.3 < expected < 0.95
    assert _feed(Accuracy(), scores, y).eval() == pytest.approx(expected)
    assert _feed(Accuracy("classification"), scores, _onehot(y)).eval() == pytest.approx(expected)


def test_accuracy_multilabel_is_sklearn_subset_accuracy():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, (60, 4))
    pred = y.copy()
    flip = rng.random((60, 4)) < 0.1
    pred[flip] = 1 - pred[flip]
    expected = skm.accuracy_score(y, pred)
    assert 0.3 < expected < 1.0
    assert _feed(Accuracy("multilabel"), pred.astype(np.float32), y).eval() == pytest.approx(expected)


def test_accuracy_errors_name_the_problem():
    with pytest.raises(TypeError, match="eval_type"):
        Accuracy("regression")
    with pytest.raises(RuntimeError, match="number of samples is 0"):
        Accuracy().eval()
    with pytest.raises(ValueError, match="2 inputs"):
        Accuracy().update(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="dimension"):
        Accuracy().update(np.zeros((4, 3)), np.zeros((4, 2, 2)))
    acc = Accuracy()
    acc.update(np.zeros((2, 3)), np.zeros(2))
    with pytest.raises(ValueError, match="class count changed"):
        acc.update(np.zeros((2, 4)), np.zeros(2))


# --- Precision / Recall / F-beta ------------------------------------------------------------------
@pytest.mark.parametrize("cls, sk", [(Precision, skm.precision_score), (Recall, skm.recall_score)])
def test_precision_recall_per_class_and_macro_match_sklearn(cls, sk):
    scores, y = _data(seed=2)
    scores[:, 4] -= 10.0  # class 4 is never predicted: precision 0/0 must give 0, not NaN
    pred = scores.argmax(1)
    per_class = sk(y, pred, labels=range(C), average=None, zero_division=0)
    m = _feed(cls(), scores, y)
    np.testing.assert_allclose(m.eval(), per_class, rtol=1e-12, atol=1e-12)
    assert m.eval(average=True) == pytest.approx(sk(y, pred, labels=range(C), average="macro", zero_division=0))
    np.testing.assert_allclose(_feed(cls(), scores, _onehot(y)).eval(), per_class, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("cls, sk", [(Precision, skm.precision_score), (Recall, skm.recall_score)])
def test_precision_recall_multilabel_are_per_sample_like_sklearn_samples_average(cls, sk):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, (50, 6))
    pred = np.where(rng.random((50, 6)) < 0.75, y, 1 - y)
    m = _feed(cls("multilabel"), pred.astype(np.float32), y)
    assert m.eval().shape == (50,)
    assert m.eval(average=True) == pytest.approx(sk(y, pred, average="samples", zero_division=0))


def test_fbeta_and_f1_match_sklearn():
    scores, y = _data(seed=4)
    pred = scores.argmax(1)
    np.testing.assert_allclose(_feed(Fbeta(2.0), scores, y).eval(),
                               skm.fbeta_score(y, pred, beta=2.0, labels=range(C), average=None, zero_division=0),
                               rtol=1e-12)
    f1 = _feed(F1(), scores, y)
    np.testing.assert_allclose(f1.eval(), skm.f1_score(y, pred, labels=range(C), average=None), rtol=1e-12)
    assert f1.eval(average=True) == pytest.approx(skm.f1_score(y, pred, labels=range(C), average="macro"))
    with pytest.raises(ValueError, match="beta"):
        Fbeta(0)


# --- regression errors ----------------------------------------------------------------------------
def test_mae_mse_match_sklearn_on_vectors():
    rng = np.random.default_rng(5)
    y, p = rng.standard_normal(83), rng.standard_normal(83)
    assert _feed(MAE(), p, y).eval() == pytest.approx(skm.mean_absolute_error(y, p), rel=1e-12)
    assert _feed(MSE(), p, y).eval() == pytest.approx(skm.mean_squared_error(y, p), rel=1e-12)


def test_mae_mse_divide_by_samples_for_matrix_outputs_as_mindspore():
    rng = np.random.default_rng(6)
    y, p = rng.standard_normal((70, 3)), rng.standard_normal((70, 3))
    assert _feed(MAE(), p, y).eval() == pytest.approx(np.abs(y - p).sum() / 70, rel=1e-12)
    assert _feed(MSE(), p, y).eval() == pytest.approx(((y - p) ** 2).sum() / 70, rel=1e-12)


# --- top-k ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("k", [1, 2, 3])
def test_topk_matches_sklearn(k):
    scores, y = _data(seed=7)
    expected = skm.top_k_accuracy_score(y, scores, k=k, labels=range(C))
    assert _feed(TopKCategoricalAccuracy(k), scores, y).eval() == pytest.approx(expected)
    assert _feed(TopKCategoricalAccuracy(k), scores, _onehot(y)).eval() == pytest.approx(expected)


def test_top1_top5_are_k_1_and_5():
    rng = np.random.default_rng(8)
    scores, y = rng.standard_normal((64, 10)), rng.integers(0, 10, 64)
    assert _feed(Top1CategoricalAccuracy(), scores, y).eval() == pytest.approx(skm.accuracy_score(y, scores.argmax(1)))
    assert _feed(Top5CategoricalAccuracy(), scores, y).eval() == pytest.approx(
        skm.top_k_accuracy_score(y, scores, k=5, labels=range(10)))
    with pytest.raises(ValueError):
        TopKCategoricalAccuracy(0)
    with pytest.raises(TypeError):
        TopKCategoricalAccuracy(2.0)


# --- Loss -----------------------------------------------------------------------------------------
def test_loss_is_the_mean_over_updates_of_each_update_mean():
    m = Loss()
    m.update(ms.Tensor(np.float32(2.0)))
    m.update(np.array([1.0, 3.0, 5.0]))     # contributes its mean, 3.0
    m.update(ms.Tensor(np.array([4.0], np.float32)))
    assert m.eval() == pytest.approx((2.0 + 3.0 + 4.0) / 3)
    with pytest.raises(ValueError, match="dimension"):
        m.update(np.zeros((2, 2)))
    with pytest.raises(RuntimeError):
        Loss().eval()


# --- base class, indexes, registry ----------------------------------------------------------------
def test_set_indexes_picks_inputs_and_call_evaluates_one_batch():
    scores, y = _data(n=20, seed=9)
    loss = np.float32(0.5)
    acc = Accuracy().set_indexes([1, 2])
    assert acc.indexes == [1, 2]
    assert acc(loss, scores, y) == pytest.approx(skm.accuracy_score(y, scores.argmax(1)))
    with pytest.raises(ValueError, match="indexes"):
        Accuracy().set_indexes((1, 2))

    class Last(Metric):
        def clear(self):
            self.seen = None

        @rearrange_inputs
        def update(self, *inputs):
            self.seen = inputs

        def eval(self):
            return self.seen

    assert Last().set_indexes([2, 0])("a", "b", "c") == ("c", "a")


def test_registry_has_mindsporses_names_and_builds_metrics():
    assert {"accuracy", "acc", "precision", "recall", "F1", "mae", "mse", "loss", "topk", "top_1_accuracy",
            "top_5_accuracy"} <= set(names())
    assert names() == sorted(names())
    assert isinstance(get_metric_fn("acc"), Accuracy)
    assert get_metric_fn("precision", eval_type="multilabel")._type == "multilabel"
    assert get_metric_fn("topk", 3).k == 3
    with pytest.raises(KeyError, match="unsupported metric"):
        get_metric_fn("f1_score")


def test_get_metrics_accepts_sets_dicts_and_metric_objects():
    got = get_metrics({"accuracy", "loss"})
    assert set(got) == {"accuracy", "loss"} and isinstance(got["loss"], Loss)
    mine = Precision()
    assert get_metrics({"p": mine}) == {"p": mine}
    mixed = get_metrics(["mae", Recall()])
    assert set(mixed) == {"mae", "recall"}
    assert get_metrics(None) is None
    with pytest.raises(TypeError):
        get_metrics({"p": "precision"})
    with pytest.raises(TypeError):
        get_metrics("accuracy")
    with pytest.raises(TypeError, match="input data type"):
        Accuracy().update(object(), object())
