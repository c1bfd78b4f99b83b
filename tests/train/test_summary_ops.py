"""Summary operators (ops/summary_ops.py) record into SummaryRecord and SummaryCollector, in
PyNative and in Graph mode, read back with TensorBoard's own event reader."""

from __future__ import annotations

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import spore as ms
from spore import dataset as ds
from spore import nn, ops
from spore.ops import summary_ops
from spore.train import Model, SummaryCollector


def _load(path):
    acc = EventAccumulator(str(path), size_guidance={"scalars": 0, "histograms": 0, "images": 0, "tensors": 0})
    acc.Reload()
    return acc


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)
        self.scalar, self.hist = ops.ScalarSummary(), ops.HistogramSummary()
        self.image, self.tensor = ops.ImageSummary(), ops.TensorSummary()

    def construct(self, x):
        y = self.fc(x)
        self.scalar("y_mean", y.mean())
        self.hist("y", y)
        self.tensor("x", x)
        self.image("img", ops.reshape(ops.sigmoid(x), (1, 1, x.shape[0], 4)))
        return y


@pytest.fixture(autouse=True)
def _fresh():
    summary_ops.take_pending()
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_summary_ops_record_into_summary_record(tmp_path, mode):
    ms.set_context(mode=mode)
    ms.set_seed(0)
    net = Net()
    xs = [np.random.default_rng(s).standard_normal((2, 4)).astype(np.float32) for s in (1, 2)]
    means = []
    with ms.SummaryRecord(str(tmp_path)) as rec:
        for step, x in enumerate(xs, 1):
            y = net(ms.Tensor(x))
            means.append(float(y.asnumpy().mean()))
            assert rec.record(step)
    acc = _load(tmp_path)
    got = [(e.step, e.value) for e in acc.Scalars("y_mean")]
    assert [s for s, _ in got] == [1, 2]
    np.testing.assert_allclose([v for _, v in got], means, rtol=1e-5)
    hist = acc.Histograms("y")
    assert [h.step for h in hist] == [1, 2] and hist[0].histogram_value.num == 6
    assert [h.histogram_value.num for h in acc.Histograms("x")] == [8, 8]
    assert [(i.step, i.width, i.height) for i in acc.Images("img")] == [(1, 4, 2), (2, 4, 2)]
    assert summary_ops.take_pending() == []  # the record took everything


def test_summary_op_checks():
    with pytest.raises(Exception, match="ScalarSummary"):
        ops.ScalarSummary()("s", ms.Tensor(np.ones(3, np.float32)))
    with pytest.raises(Exception, match="ImageSummary"):
        ops.ImageSummary()("i", ms.Tensor(np.ones((3, 4), np.float32)))
    with pytest.raises(ValueError, match="name"):
        ops.TensorSummary()("", ms.Tensor(np.ones(3, np.float32)))
    ops.ScalarSummary()("a", ms.Tensor(np.float32(1)))
    ops.ScalarSummary()("a", ms.Tensor(np.float32(2)))  # the latest value under a name is kept
    assert [(p, n, float(v)) for p, n, v in summary_ops.take_pending()] == [("scalar", "a", 2.0)]


class LossNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)
        self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        self.summary = ops.ScalarSummary()

    def construct(self, x, y):
        loss = self.loss(self.fc(x), y)
        self.summary("my_loss", loss)
        return loss


def test_summary_collector_writes_summary_ops_on_its_steps(tmp_path):
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    data = ds.NumpySlicesDataset({"x": rng.standard_normal((12, 4)).astype(np.float32),
                                  "y": rng.integers(0, 3, 12).astype(np.int32)}, shuffle=False).batch(2)
    net = LossNet()
    model = Model(net, optimizer=nn.SGD(net.trainable_params(), 0.1))
    model.train(1, data, callbacks=SummaryCollector(tmp_path, collect_freq=3))
    acc = _load(tmp_path)
    mine, loss = acc.Scalars("my_loss"), acc.Scalars("loss")
    assert [e.step for e in mine] == [1, 3, 6] == [e.step for e in loss]
    np.testing.assert_allclose([e.value for e in mine], [e.value for e in loss], rtol=1e-6)


def test_values_staged_before_a_record_opens_are_not_written_by_it(tmp_path):
    """A summary operator run while no SummaryRecord was open (an earlier experiment) must not leak into
    the next record's first step."""
    ops.ScalarSummary()("loss", ms.Tensor(np.float32(123.0)))
    with ms.SummaryRecord(str(tmp_path)) as rec:
        rec.add_value("scalar", "loss", ms.Tensor(np.float32(0.5)))
        rec.record(1)
    acc = EventAccumulator(str(tmp_path), size_guidance={"scalars": 0})
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars("loss")] == [(1, 0.5)]


def test_values_staged_before_training_are_not_written_by_a_summary_collector(tmp_path):
    """The same for SummaryCollector: CI once saw another test's leftover ScalarSummary("loss") written
    at step 1 beside the collector's own loss."""
    ops.ScalarSummary()("loss", ms.Tensor(np.float32(123.0)))
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    data = ds.NumpySlicesDataset({"x": rng.standard_normal((12, 4)).astype(np.float32),
                                  "y": rng.integers(0, 3, 12).astype(np.int32)}, shuffle=False).batch(2)
    net = LossNet()
    Model(net, optimizer=nn.SGD(net.trainable_params(), 0.1)).train(
        1, data, callbacks=SummaryCollector(tmp_path, collect_freq=3))
    loss = _load(tmp_path).Scalars("loss")
    assert [e.step for e in loss] == [1, 3, 6] and 123.0 not in [e.value for e in loss]
