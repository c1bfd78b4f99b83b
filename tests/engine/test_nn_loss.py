"""Loss cells against NumPy formulas, for every reduction, plus their defaults and errors."""

import numpy as np
import pytest

import spore as ms
import spore.nn as nn
from spore import Tensor


def reduce(x, reduction):
    return {"mean": np.mean, "sum": np.sum, "none": lambda a: a}[reduction](x)


def log_softmax(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


RNG = np.random.default_rng(0)
A = RNG.standard_normal((4, 3)).astype(np.float32)
B = RNG.standard_normal((4, 3)).astype(np.float32)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_l1_and_smooth_l1_match_numpy(reduction):
    d = A - B
    np.testing.assert_allclose(nn.MSELoss(reduction)(Tensor(A), Tensor(B)).asnumpy(), reduce(d ** 2, reduction),
                               rtol=1e-5)
    np.testing.assert_allclose(nn.L1Loss(reduction)(Tensor(A), Tensor(B)).asnumpy(), reduce(np.abs(d), reduction),
                               rtol=1e-5)
    beta = 0.5
    ad = np.abs(d)
    smooth = np.where(ad < beta, 0.5 * d ** 2 / beta, ad - 0.5 * beta)
    np.testing.assert_allclose(nn.SmoothL1Loss(beta, reduction)(Tensor(A), Tensor(B)).asnumpy(),
                               reduce(smooth, reduction), rtol=1e-5)


def test_mindspore_defaults_of_reduction():
    assert nn.MSELoss().reduction == "mean"
    assert nn.SmoothL1Loss().reduction == "none"
    assert nn.SoftmaxCrossEntropyWithLogits().reduction == "none"
    assert nn.SoftmaxCrossEntropyWithLogits().sparse is False
    assert nn.CrossEntropyLoss().reduction == "mean"
    with pytest.raises(ValueError, match="reduction"):
        nn.MSELoss("average")


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_softmax_cross_entropy_dense_and_sparse(reduction):
    labels = np.array([2, 0, 1, 1])
    onehot = np.eye(3, dtype=np.float32)[labels]
    ref = reduce(-(onehot * log_softmax(A.astype(np.float64))).sum(-1), reduction)
    dense = nn.SoftmaxCrossEntropyWithLogits(reduction=reduction)(Tensor(A), Tensor(onehot))
    sparse_loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=reduction)
    sparse = sparse_loss(Tensor(A), Tensor(labels.astype(np.int32)))
    np.testing.assert_allclose(dense.asnumpy(), ref, rtol=1e-5)
    np.testing.assert_allclose(sparse.asnumpy(), ref, rtol=1e-5)


def test_softmax_cross_entropy_gradient_is_softmax_minus_labels():
    labels = np.array([2, 0, 1, 1], np.int32)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="sum")
    g = ms.grad(lambda z: loss(z, Tensor(labels)))(Tensor(A))
    p = np.exp(log_softmax(A.astype(np.float64)))
    np.testing.assert_allclose(g.asnumpy(), p - np.eye(3)[labels], rtol=1e-5, atol=1e-6)


def test_softmax_cross_entropy_label_shape_errors_point_at_the_user_line():
    loss = nn.SoftmaxCrossEntropyWithLogits()
    with pytest.raises(ms.ShapeError, match="sparse=True") as info:
        loss(Tensor(A), Tensor(np.array([0, 1, 2, 0], np.int32)))
    assert info.value.loc is not None and info.value.loc.file == __file__


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_loss_with_class_ids_weights_and_ignore_index(reduction):
    labels = np.array([2, 0, -100, 1])
    weight = np.array([0.2, 1.0, 3.0], np.float32)
    nll = -log_softmax(A.astype(np.float64))[np.arange(4), np.maximum(labels, 0)]
    w = np.where(labels == -100, 0.0, weight[np.maximum(labels, 0)])
    per = w * nll
    ref = {"mean": per.sum() / w.sum(), "sum": per.sum(), "none": per}[reduction]
    got = nn.CrossEntropyLoss(Tensor(weight), reduction=reduction)(Tensor(A), Tensor(labels.astype(np.int32)))
    np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-5)


def test_cross_entropy_loss_with_probabilities_and_label_smoothing():
    probs = np.abs(B) / np.abs(B).sum(-1, keepdims=True)
    ref = -(probs * log_softmax(A.astype(np.float64))).sum(-1).mean()
    np.testing.assert_allclose(nn.CrossEntropyLoss()(Tensor(A), Tensor(probs)).asnumpy(), ref, rtol=1e-5)
    labels = np.array([2, 0, 1, 1])
    eps = 0.1
    target = (1 - eps) * np.eye(3)[labels] + eps / 3
    ref = -(target * log_softmax(A.astype(np.float64))).sum(-1).mean()
    got = nn.CrossEntropyLoss(label_smoothing=eps)(Tensor(A), Tensor(labels.astype(np.int32)))
    np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-5)


def test_nll_loss_picks_the_log_probability_of_the_class():
    logp = log_softmax(A.astype(np.float64)).astype(np.float32)
    labels = np.array([1, 2, 0, 2])
    ref = -logp[np.arange(4), labels].mean()
    np.testing.assert_allclose(nn.NLLLoss()(Tensor(logp), Tensor(labels.astype(np.int32))).asnumpy(), ref,
                               rtol=1e-5)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy_losses(reduction):
    z = A.astype(np.float64)
    y = (B > 0).astype(np.float64)
    pos_weight = np.array([1.0, 2.0, 0.5])
    weight = np.array([0.5, 1.0, 2.0])
    ls = -np.logaddexp(0, -z)      # log sigmoid(z)
    lns = -np.logaddexp(0, z)      # log (1 - sigmoid(z))
    ref = reduce(-weight * (pos_weight * y * ls + (1 - y) * lns), reduction)
    got = nn.BCEWithLogitsLoss(reduction, Tensor(weight.astype(np.float32)), Tensor(pos_weight.astype(np.float32)))(
        Tensor(A), Tensor(y.astype(np.float32)))
    np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-5)
    p = 1 / (1 + np.exp(-z))
    ref = reduce(-weight * (y * np.log(p) + (1 - y) * np.log(1 - p)), reduction)
    got = nn.BCELoss(Tensor(weight.astype(np.float32)), reduction)(Tensor(p.astype(np.float32)),
                                                                     Tensor(y.astype(np.float32)))
    np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-4)


def test_elementwise_losses_name_mismatched_shapes():
    with pytest.raises(ms.ShapeError, match=r"MSELoss: .*logits \(4, 3\) and labels \(4, 2\)"):
        nn.MSELoss()(Tensor(A), Tensor(B[:, :2]))


def test_float16_loss_is_computed_in_float32_and_returned_in_float16():
    got = nn.MSELoss()(Tensor(A.astype(np.float16)), Tensor(B.astype(np.float16)))
    assert got.dtype == ms.float16
    np.testing.assert_allclose(float(got.asnumpy()), np.mean((A - B) ** 2), rtol=2e-3)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_custom_loss_on_loss_base_applies_weights_and_reduction(reduction):
    class Cubic(nn.LossBase):
        def construct(self, logits, labels):
            return self.get_loss((logits - labels) ** 3, weights=Tensor(np.array([1.0, 2.0, 0.5], np.float32)))

    ref = reduce((A - B) ** 3 * np.array([1.0, 2.0, 0.5]), reduction)
    np.testing.assert_allclose(Cubic(reduction)(Tensor(A), Tensor(B)).asnumpy(), ref, rtol=1e-5)
