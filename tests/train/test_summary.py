"""SummaryCollector writes TensorBoard event files that TensorBoard's own reader understands."""

from __future__ import annotations

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import spore as ms
import spore.dataset as ds
from spore import nn
from spore.train.callback import Callback, SummaryCollector
from spore.train.model import Model

SIZE_GUIDANCE = {"scalars": 0, "histograms": 0, "tensors": 0}  # 0: keep every event


class Losses(Callback):
    def __init__(self):
        self.values = {}

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        self.values[cb.cur_step_num] = float(cb.net_outputs.asnumpy())


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.fc2 = nn.Dense(8, 8)
        self.fc3 = nn.Dense(8, 3)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


def data(n: int = 40, batch: int = 8):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, n).astype(np.int32)
    x = (np.eye(3, 4, dtype=np.float32)[y] * 3 + rng.standard_normal((n, 4))).astype(np.float32)
    return ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(batch)


def model(lr: float = 0.01) -> Model:
    ms.set_seed(0)
    net = Net()
    return Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                 nn.Adam(net.trainable_params(), learning_rate=lr), metrics={"accuracy"})


def read(path) -> EventAccumulator:
    acc = EventAccumulator(str(path), size_guidance=SIZE_GUIDANCE)
    acc.Reload()
    return acc


def test_loss_and_learning_rate_scalars_at_first_step_and_every_collect_freq(tmp_path):
    losses = Losses()
    model(lr=0.01).train(2, data(), callbacks=[losses, SummaryCollector(tmp_path, collect_freq=4)])  # 10 steps
    acc = read(tmp_path)
    events = acc.Scalars("loss")
    assert [e.step for e in events] == [1, 4, 8]
    np.testing.assert_allclose([e.value for e in events], [losses.values[s] for s in (1, 4, 8)], rtol=1e-6)
    lr = acc.Scalars("learning_rate")
    assert [e.step for e in lr] == [1, 4, 8] and all(e.value == pytest.approx(0.01) for e in lr)
    assert "network/text_summary" in acc.Tags()["tensors"]  # text summaries are stored as string tensors


def test_histograms_default_to_the_first_five_parameters_or_follow_histogram_regular(tmp_path):
    m = model()
    m.train(1, data(), callbacks=SummaryCollector(tmp_path / "default", collect_freq=2))
    tags = read(tmp_path / "default").Tags()["histograms"]
    assert sorted(tags) == sorted(["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "fc3.weight"])
    m.train(1, data(), callbacks=SummaryCollector(tmp_path / "re", collect_freq=5,
                                                  collect_specified_data={"histogram_regular": r"^fc3\."}))
    acc = read(tmp_path / "re")
    assert sorted(acc.Tags()["histograms"]) == ["fc3.bias", "fc3.weight"]
    hist = acc.Histograms("fc3.weight")
    assert [h.step for h in hist] == [1, 5]
    w = m.predict_network.fc3.weight.asnumpy()  # after step 5, the last one
    last = hist[-1].histogram_value
    assert last.num == w.size and last.min == pytest.approx(w.min()) and last.max == pytest.approx(w.max())
    assert last.sum == pytest.approx(float(w.sum()), abs=1e-4)


def test_fit_writes_evaluation_results_per_epoch(tmp_path):
    m = model()
    m.fit(3, data(), data(), callbacks=SummaryCollector(tmp_path, collect_freq=100))
    acc = read(tmp_path)
    accuracy = acc.Scalars("eval/accuracy")
    assert [e.step for e in accuracy] == [5, 10, 15]
    assert accuracy[-1].value == pytest.approx(m.eval(data())["accuracy"])
    assert [e.step for e in acc.Scalars("eval/eval_loss")] == [5, 10, 15]


def test_train_then_eval_into_one_directory_keeps_both(tmp_path):
    m = model()
    collector = SummaryCollector(tmp_path, collect_freq=5)
    m.train(1, data(), callbacks=collector)   # 5 steps
    result = m.eval(data(), callbacks=collector)  # within the same second: a second event file, not a clash
    acc = read(tmp_path)
    assert [e.step for e in acc.Scalars("loss")] == [1, 5]
    assert [(e.step, e.value) for e in acc.Scalars("eval/accuracy")] == [(5, pytest.approx(result["accuracy"]))]


def test_collect_metric_off_and_keep_default_action(tmp_path):
    model().train(1, data(), callbacks=SummaryCollector(tmp_path / "a", collect_freq=1,
                                                        collect_specified_data={"collect_metric": False}))
    tags = read(tmp_path / "a").Tags()
    assert "loss" not in tags["scalars"] and tags["histograms"]
    model().train(1, data(), callbacks=SummaryCollector(tmp_path / "b", collect_freq=1, keep_default_action=False,
                                                        collect_specified_data={"collect_metric": True}))
    tags = read(tmp_path / "b").Tags()
    assert "loss" in tags["scalars"] and not tags["histograms"] and not tags["tensors"]


def test_arguments_are_checked(tmp_path):
    with pytest.raises(ValueError, match="collect_freq"):
        SummaryCollector(tmp_path, collect_freq=0)
    with pytest.raises(ValueError, match="unknown keys"):
        SummaryCollector(tmp_path, collect_specified_data={"collect_loss": True})
    with pytest.raises(TypeError):
        SummaryCollector(tmp_path, collect_specified_data={"collect_metric": "yes"})
    with pytest.raises(TypeError, match="custom_lineage_data"):
        SummaryCollector(tmp_path, custom_lineage_data={"a": [1]})
