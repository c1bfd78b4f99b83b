"""Callbacks: the base protocol, LossMonitor/TimeMonitor output, ModelCheckpoint files, EarlyStopping,
LearningRateScheduler, History and the tqdm ProgressBar, each through a real `Model.train`/`fit`.
"""

from __future__ import annotations

import io
import os
import re

import numpy as np
import pytest

import spore as ms
import spore.dataset as ds
from spore import nn
from spore.train.callback import (
    Callback,
    CallbackList,
    CheckpointConfig,
    EarlyStopping,
    History,
    LearningRateScheduler,
    LossMonitor,
    ModelCheckpoint,
    ProgressBar,
    RunContext,
    TimeMonitor,
    _InternalCallbackParam,
)
from spore.train.checkpoint import load_checkpoint
from spore.train.model import Model


def blobs(n: int = 48, seed: int = 0):
    rng = np.random.default_rng(seed)
    centers = np.array([[3, 0, 0, 0], [0, 3, 0, 0], [0, 0, 3, 0]], np.float32)
    y = rng.integers(0, 3, n).astype(np.int32)
    return (centers[y] + 0.5 * rng.standard_normal((n, 4))).astype(np.float32), y


def data(n: int = 48, batch: int = 16):
    x, y = blobs(n)
    return ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(batch)


def make_model(lr: float = 0.05, metrics=None):
    ms.set_seed(1)
    net = nn.Dense(4, 3)
    opt = nn.Adam(net.trainable_params(), learning_rate=lr)
    return Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt, metrics=metrics), net, opt


def ctx(**fields) -> RunContext:
    return RunContext(_InternalCallbackParam(fields))


# --- base protocol ----------------------------------------------------------------------------------
def test_on_train_hooks_forward_to_the_1x_names_and_eval_hooks_default_to_nothing():
    seen = []

    class Old(Callback):
        pass

    for name in ("begin", "epoch_begin", "step_begin", "step_end", "epoch_end", "end"):
        setattr(Old, name, lambda self, rc, _n=name: seen.append(_n))
    cb = Old()
    rc = ctx()
    for hook in ("on_train_begin", "on_train_epoch_begin", "on_train_step_begin", "on_train_step_end",
                 "on_train_epoch_end", "on_train_end", "on_eval_begin", "on_eval_step_end", "on_eval_end"):
        getattr(cb, hook)(rc)
    assert seen == ["begin", "epoch_begin", "step_begin", "step_end", "epoch_end", "end"]


def test_callback_list_enters_in_order_exits_in_reverse_even_on_error():
    log = []

    class Res(Callback):
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            log.append(("enter", self.name))
            return self

        def __exit__(self, *err):
            log.append(("exit", self.name, err[0].__name__ if err[0] else None))

    with pytest.raises(KeyError):
        with CallbackList([Res("a"), Res("b")]):
            raise KeyError("x")
    assert log == [("enter", "a"), ("enter", "b"), ("exit", "b", "KeyError"), ("exit", "a", "KeyError")]
    with pytest.raises(TypeError, match="Callback"):
        CallbackList([Res("a"), object()])


def test_run_context_and_cb_params():
    cb = _InternalCallbackParam(cur_step_num=3)
    cb.mode = "train"
    rc = RunContext(cb)
    assert rc.original_args() is cb and cb["mode"] == "train" and cb.cur_step_num == 3
    assert not hasattr(cb, "missing")
    assert not rc.get_stop_requested()
    rc.request_stop()
    assert rc.get_stop_requested()
    with pytest.raises(TypeError, match="dict"):
        RunContext([1])


# --- LossMonitor / TimeMonitor -----------------------------------------------------------------------
def test_loss_monitor_prints_mindspores_line_every_n_steps(capsys):
    model, _, _ = make_model()
    model.train(2, data(), callbacks=LossMonitor(per_print_times=2))
    lines = capsys.readouterr().out.splitlines()
    assert [re.sub(r"loss is \S+", "loss is X", ln) for ln in lines] == [
        "epoch: 1 step: 2, loss is X", "epoch: 2 step: 1, loss is X", "epoch: 2 step: 3, loss is X"]
    values = [float(ln.rsplit(" ", 1)[1]) for ln in lines]
    assert all(np.isfinite(values)) and values[-1] < values[0]
    with pytest.raises(ValueError, match="per_print_times"):
        LossMonitor(-1)


def test_loss_monitor_stops_on_nan_and_prints_eval_results_in_fit(capsys):
    mon = LossMonitor()
    with pytest.raises(ValueError, match="epoch: 2 step: 1. Invalid loss"):
        mon.on_train_step_end(ctx(net_outputs=ms.Tensor(np.float32("nan")), cur_step_num=4, batch_num=3,
                                  cur_epoch_num=2))
    model, _, _ = make_model(metrics={"accuracy"})
    model.fit(1, data(), data(), callbacks=[LossMonitor(0)])
    assert re.fullmatch(r"Eval result: epoch 1, metrics: \{'accuracy': [\d.]+\}\n", capsys.readouterr().out)


def test_time_monitor_prints_epoch_and_step_times(capsys):
    model, _, _ = make_model()
    model.train(2, data(), callbacks=[TimeMonitor(), TimeMonitor(data_time=True)])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4
    for ln in lines[0::2]:
        assert re.fullmatch(r"Train epoch time: \d+\.\d{3} ms, per step time: \d+\.\d{3} ms", ln), ln
    for ln in lines[1::2]:
        assert re.fullmatch(r"Train epoch time: [\d.]+ ms, per step time: [\d.]+ ms \(data time: [\d.]+ ms\)", ln)
    epoch_ms, step_ms = map(float, re.findall(r"([\d.]+) ms", lines[0])[:2])
    assert step_ms == pytest.approx(epoch_ms / 3, abs=2e-3)  # 3 steps per epoch
    with pytest.raises(ValueError):
        TimeMonitor(data_size=0)
    with pytest.raises(TypeError):
        TimeMonitor(data_time=1)


# --- ModelCheckpoint -----------------------------------------------------------------------------------
def test_checkpoint_names_keep_max_and_existing_prefix(tmp_path):
    model, net, opt = make_model()
    cfg = CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=2)
    cb = ModelCheckpoint("net", tmp_path, cfg)
    model.train(3, data(), callbacks=cb)  # 9 steps: saves at 2, 4, 6, 8 and the end (9)
    assert sorted(os.listdir(tmp_path)) == ["net-3_2.ckpt", "net-3_3.ckpt"]
    assert cb.latest_ckpt_file_name == os.path.join(os.path.realpath(tmp_path), "net-3_3.ckpt")
    saved = load_checkpoint(cb.latest_ckpt_file_name)
    np.testing.assert_array_equal(saved["weight"].asnumpy(), net.weight.asnumpy())
    assert {"learning_rate", "global_step", "moment1.weight", "moment2.bias"} <= set(saved)
    # a second run into the same directory gets a new prefix instead of overwriting
    model.train(1, data(), callbacks=ModelCheckpoint("net", tmp_path, CheckpointConfig(save_checkpoint_steps=3)))
    model.train(1, data(), callbacks=ModelCheckpoint("net", tmp_path, CheckpointConfig(save_checkpoint_steps=3)))
    assert sorted(os.listdir(tmp_path)) == ["net-3_2.ckpt", "net-3_3.ckpt", "net_1-1_3.ckpt", "net_2-1_3.ckpt"]


def test_checkpoint_append_info_and_saved_network(tmp_path):
    model, net, _ = make_model()
    other = nn.Dense(2, 2)
    cfg = CheckpointConfig(save_checkpoint_steps=3, append_info=["epoch_num", "step_num", {"tag": 7}])
    model.train(2, data(), callbacks=ModelCheckpoint("a", tmp_path, cfg))
    saved = load_checkpoint(str(tmp_path / "a-2_3.ckpt"))
    assert int(saved["epoch_num"].asnumpy()) == 2 and int(saved["step_num"].asnumpy()) == 6
    assert int(saved["tag"].asnumpy()) == 7
    model.train(1, data(), callbacks=ModelCheckpoint("b", tmp_path, CheckpointConfig(saved_network=other)))
    assert set(load_checkpoint(str(tmp_path / "b-1_3.ckpt"))) == {"weight", "bias"}
    np.testing.assert_array_equal(load_checkpoint(str(tmp_path / "b-1_3.ckpt"))["weight"].asnumpy(),
                                  other.weight.asnumpy())


def test_checkpoint_config_validation():
    cfg = CheckpointConfig(save_checkpoint_steps=10, save_checkpoint_seconds=5, keep_checkpoint_max=3,
                           keep_checkpoint_per_n_minutes=2)
    assert cfg.save_checkpoint_seconds is None and cfg.keep_checkpoint_per_n_minutes is None  # steps/max win
    assert cfg.get_checkpoint_policy()["save_checkpoint_steps"] == 10
    with pytest.raises(ValueError, match="all None or 0"):
        CheckpointConfig(0, 0, 0, 0)
    with pytest.raises(ValueError):
        CheckpointConfig(save_checkpoint_steps=-1)
    with pytest.raises(ValueError, match="append_info"):
        CheckpointConfig(append_info=["loss"])
    with pytest.raises(ValueError, match="prefix"):
        ModelCheckpoint("a/b")
    with pytest.raises(TypeError, match="config"):
        ModelCheckpoint(config={"x": 1})


# --- EarlyStopping -------------------------------------------------------------------------------------
def _drive(cb: EarlyStopping, values: list[float], key: str = "eval_loss", network=None) -> int | None:
    """Feed one monitored value per epoch; returns the epoch at which a stop was requested."""
    cb.on_train_begin(ctx())
    for epoch, value in enumerate(values, 1):
        rc = ctx(cur_epoch_num=epoch, eval_results={key: value}, train_network=network)
        if network is not None:
            network.weight.set_data(np.full(network.weight.shape, value, np.float32))
        cb.on_train_epoch_end(rc)
        if rc.get_stop_requested():
            return epoch
    return None


def test_early_stopping_patience_min_delta_and_mode():
    losses = [1.0, 0.8, 0.79, 0.85, 0.9, 0.7]
    assert _drive(EarlyStopping(patience=2), losses) == 5           # 0.79 is the last improvement
    assert _drive(EarlyStopping(patience=2, min_delta=0.05), losses) == 4   # 0.79 is not better by > 0.05
    assert _drive(EarlyStopping(patience=0), losses) == 4
    assert _drive(EarlyStopping(patience=3), losses) is None
    acc = [0.5, 0.6, 0.6, 0.55]
    assert _drive(EarlyStopping(monitor="accuracy", patience=2), acc, "accuracy") == 4  # auto: larger is better
    assert _drive(EarlyStopping(monitor="accuracy", mode="min", patience=1), acc, "accuracy") == 2
    assert _drive(EarlyStopping(monitor="accuracy", patience=1, baseline=0.7), acc, "accuracy") == 1
    with pytest.raises(ValueError, match="mode"):
        EarlyStopping(mode="up")


def test_early_stopping_restores_best_weights_and_reports(capsys):
    net = nn.Dense(2, 2)
    cb = EarlyStopping(patience=1, restore_best_weights=True, verbose=True)
    assert _drive(cb, [0.9, 0.5, 0.7], network=net) == 3
    np.testing.assert_array_equal(net.weight.asnumpy(), np.full((2, 2), 0.5, np.float32))
    cb.on_train_end(ctx())
    assert capsys.readouterr().out.splitlines() == ["Restoring model weights from the end of the best epoch.",
                                                    "Epoch 00003: early stopping"]


def test_early_stopping_stops_fit_on_a_metric():
    model, _, _ = make_model(lr=1e-6, metrics={"accuracy"})  # too small to improve accuracy
    hist = History()
    model.fit(10, data(), data(), callbacks=[EarlyStopping(monitor="accuracy", patience=2), hist])
    assert hist.epoch["epoch"] == [1, 2, 3]


# --- LearningRateScheduler, History --------------------------------------------------------------------
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_learning_rate_scheduler_sets_the_rate_used_by_later_steps(mode):
    ms.set_context(mode=mode)
    model, net, opt = make_model(lr=0.1)
    seen = []

    def halve(lr, step):
        seen.append((round(lr, 6), step))
        return lr / 2

    model.train(1, data(), callbacks=LearningRateScheduler(halve))
    assert seen == [(0.1, 1), (0.05, 2), (0.025, 3)]
    assert float(opt.learning_rate.asnumpy()) == pytest.approx(0.0125)
    # the rate really drives the (compiled, in Graph mode) update: with lr 0 the weights stay put
    model2, net2, opt2 = make_model()
    sgd = nn.SGD(net2.trainable_params(), learning_rate=0.1)
    m = Model(net2, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), sgd)
    m.train(1, data(), callbacks=LearningRateScheduler(lambda lr, step: 0.0))
    before = net2.weight.asnumpy().copy()
    m.train(1, data(), callbacks=LearningRateScheduler(lambda lr, step: 0.0))
    np.testing.assert_array_equal(net2.weight.asnumpy(), before)
    sgd.learning_rate.set_data(ms.Tensor(np.float32(0.1)))
    m.train(1, data())
    assert not np.array_equal(net2.weight.asnumpy(), before)


def test_history_records_loss_and_metrics_per_epoch():
    model, _, _ = make_model(metrics={"accuracy", "loss"})
    hist = History()
    model.fit(3, data(), data(), callbacks=hist)
    assert hist.epoch == {"epoch": [1, 2, 3]}
    assert set(hist.history) == {"net_output", "accuracy", "loss"}
    assert all(len(v) == 3 for v in hist.history.values())
    assert hist.history["loss"][2] < hist.history["loss"][0]
    assert model.eval(data())["accuracy"] == pytest.approx(hist.history["accuracy"][-1])


# --- ProgressBar -----------------------------------------------------------------------------------------
def test_progress_bar_shows_epochs_loss_throughput_and_metrics():
    buf = io.StringIO()
    model, _, _ = make_model(metrics={"accuracy"})
    model.fit(2, data(), data(), callbacks=ProgressBar(file=buf, ncols=200))
    text = buf.getvalue()
    assert "Epoch 1/2" in text and "Epoch 2/2" in text and "3/3" in text
    final = text.replace("\r", "\n").splitlines()[-1]
    assert re.search(r"loss=\d+\.\d{4}", final) and re.search(r"samples/s=[\d.]+", final)
    assert re.search(r"eval_accuracy=\d\.\d{4}", final)
    with pytest.raises(ValueError):
        ProgressBar(update_every=0)
