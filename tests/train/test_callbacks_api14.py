"""LambdaCallback and ReduceLROnPlateau (MindSpore's names, issue 14), run by a real Model and
through RunContext with hand-made cb_params."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
import spore.dataset as ds
from spore import nn
from spore.train import LambdaCallback, Model, ReduceLROnPlateau, RunContext
from spore.train.callback import _InternalCallbackParam


def data(n: int = 32, batch: int = 8):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = rng.integers(0, 3, n).astype(np.int32)
    return ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(batch)


def test_lambda_callback_hooks_run_in_models_order():
    ms.set_seed(0)
    net = nn.Dense(4, 3)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.SGD(net.trainable_params(), 0.1))
    seen: list[tuple[str, int]] = []

    def rec(name):
        return lambda rc: seen.append((name, rc.original_args().cur_step_num))

    cb = LambdaCallback(on_train_begin=rec("begin"), on_train_epoch_begin=rec("epoch_begin"),
                        on_train_step_end=rec("step_end"), on_train_epoch_end=rec("epoch_end"),
                        on_train_end=rec("end"))
    model.train(2, data(), callbacks=[cb])
    names = [n for n, _ in seen]
    assert names == ["begin"] + (["epoch_begin"] + ["step_end"] * 4 + ["epoch_end"]) * 2 + ["end"]
    assert [s for n, s in seen if n == "step_end"] == list(range(1, 9))


def test_lambda_callback_refuses_a_non_callable():
    with pytest.raises(TypeError, match="on_train_end"):
        LambdaCallback(on_train_end=3)


def _run(cb, losses, lr=1.0):
    opt = nn.SGD([ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="w")], learning_rate=lr)
    rates = []
    cb.on_train_begin(RunContext(_InternalCallbackParam({"optimizer": opt})))
    for epoch, loss in enumerate(losses, 1):
        cb.on_train_epoch_end(RunContext(_InternalCallbackParam(
            {"optimizer": opt, "cur_epoch_num": epoch, "eval_results": {"eval_loss": loss}})))
        rates.append(float(opt.learning_rate.asnumpy()))
    return rates


def test_reduce_lr_on_plateau_after_patience_then_cooldown():
    cb = ReduceLROnPlateau(monitor="eval_loss", factor=0.5, patience=2, cooldown=1, min_delta=0.0)
    # Keras' counting, which MindSpore's callback follows: 1 best, 2 wait 1, 3 wait 2 -> reduce and cool down;
    # 4 ends the cooldown (the counter reaches 0 and the epoch counts as wait 1), 5 wait 2 -> reduce; 6 cools down
    rates = _run(cb, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    np.testing.assert_allclose(rates, [1.0, 1.0, 0.5, 0.5, 0.25, 0.25], rtol=1e-6)
    longer = ReduceLROnPlateau(monitor="eval_loss", factor=0.5, patience=1, cooldown=2, min_delta=0.0)
    # patience 1: 2 -> reduce; 3 cooling (2 -> 1, skipped); 4 ends it and waits -> reduce
    np.testing.assert_allclose(_run(longer, [1.0] * 4), [1.0, 0.5, 0.5, 0.25], rtol=1e-6)


def test_reduce_lr_on_plateau_improvement_resets_and_min_lr_floors():
    cb = ReduceLROnPlateau(monitor="eval_loss", factor=0.1, patience=1, min_lr=0.05, min_delta=0.0)
    rates = _run(cb, [1.0, 0.9, 0.95, 0.8, 0.85, 0.85])
    np.testing.assert_allclose(rates, [1.0, 1.0, 0.1, 0.1, 0.05, 0.05], rtol=1e-6)


def test_reduce_lr_on_plateau_maximises_accuracy_in_auto_mode():
    cb = ReduceLROnPlateau(monitor="accuracy", factor=0.5, patience=1, min_delta=0.0)
    opt = nn.SGD([ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="w")], learning_rate=1.0)
    cb.on_train_begin(RunContext(_InternalCallbackParam({"optimizer": opt})))
    for acc in (0.5, 0.6, 0.55):
        cb.on_train_epoch_end(RunContext(_InternalCallbackParam({"optimizer": opt, "eval_results": {"accuracy": acc}})))
    assert float(opt.learning_rate.asnumpy()) == pytest.approx(0.5)


@pytest.mark.parametrize("kw,match", [({"factor": 1.0}, "factor"), ({"patience": -1}, "patience"),
                                      ({"min_lr": -1}, "min_lr"), ({"mode": "up"}, "mode")])
def test_reduce_lr_on_plateau_checks_its_arguments(kw, match):
    with pytest.raises(ValueError, match=match):
        ReduceLROnPlateau(**kw)


# --- the metrics added for issue 14 -------------------------------------------------------------------
def test_perplexity_confusion_matrix_cosine_dice_and_auc():
    from spore.train import ConfusionMatrix, CosineSimilarity, Dice, Perplexity, auc

    probs = np.array([[0.1, 0.9], [0.6, 0.4], [0.3, 0.7]])
    labels = np.array([1, 0, 0])
    p = Perplexity()
    p.update(ms.Tensor(probs), ms.Tensor(labels))
    assert p.eval() == pytest.approx(np.exp(-np.mean(np.log([0.9, 0.6, 0.3]))))
    q = Perplexity(ignore_label=0)
    q.update(ms.Tensor(probs), ms.Tensor(labels))
    assert q.eval() == pytest.approx(1 / 0.9)
    cm = ConfusionMatrix(2)
    cm.update(ms.Tensor(probs), ms.Tensor(labels))
    np.testing.assert_array_equal(cm.eval(), [[1, 1], [0, 1]])  # rows: true class, columns: predicted
    cmn = ConfusionMatrix(2, normalize="target")
    cmn.update(ms.Tensor(probs), ms.Tensor(labels))
    np.testing.assert_allclose(cmn.eval(), [[0.5, 0.5], [0.0, 1.0]])
    x = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]])
    cs = CosineSimilarity()
    cs.update(ms.Tensor(x))
    u = x / np.linalg.norm(x, axis=1, keepdims=True)
    want = u @ u.T
    np.fill_diagonal(want, 0)
    np.testing.assert_allclose(cs.eval(), want)
    d = Dice(smooth=1e-5)
    y_pred, y = np.array([[1, 0, 1, 1]], float), np.array([[1, 1, 0, 1]], float)
    d.update(ms.Tensor(y_pred), ms.Tensor(y))
    assert d.eval() == pytest.approx((2 * 2 + 1e-5) / (6 + 1e-5))
    assert auc([0, 0.5, 1], [0, 0.75, 1]) == pytest.approx(0.625)
    assert auc([1, 0.5, 0], [1, 0.75, 0]) == pytest.approx(0.625)
    with pytest.raises(ValueError, match="reorder"):
        auc([0, 1, 0.5], [0, 1, 0.5])
    with pytest.raises(RuntimeError, match="number of samples is 0"):
        Perplexity().eval()
    assert ms.nn.ConfusionMatrix is ConfusionMatrix and ms.Perplexity is Perplexity
