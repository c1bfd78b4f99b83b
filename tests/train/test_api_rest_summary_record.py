"""SummaryRecord writes TensorBoard events that TensorBoard's own reader gets back (issue 14, rest slice)."""

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import spore as ms
from spore import nn


def _load(path):
    acc = EventAccumulator(str(path), size_guidance={"scalars": 0, "histograms": 0, "images": 0, "tensors": 0})
    acc.Reload()
    return acc


def test_scalars_histograms_images_and_graph_round_trip(tmp_path):
    w = np.random.default_rng(0).standard_normal(50).astype(np.float32)
    net = nn.Dense(2, 1)
    with ms.SummaryRecord(str(tmp_path), network=net) as rec:
        for step in (1, 2):
            rec.add_value("scalar", "loss", ms.Tensor(np.float32(0.5 * step)))
            rec.add_value("histogram", "w", ms.Tensor(w * step))
            rec.add_value("image", "img", ms.Tensor(np.full((3, 4, 5), 0.5, np.float32)))
            assert rec.record(step)
        rec.set_mode("eval")
        rec.add_value("scalar", "loss", 9.0)
        assert not rec.record(3)
    assert any("_MS" in f.name for f in tmp_path.iterdir())
    acc = _load(tmp_path)
    loss = [(e.step, e.value) for e in acc.Scalars("loss")]
    assert loss == [(1, 0.5), (2, 1.0)]
    hist = acc.Histograms("w")
    assert [h.step for h in hist] == [1, 2]
    np.testing.assert_allclose(hist[1].histogram_value.sum, float((w * 2).astype(np.float64).sum()), rtol=1e-5)
    assert hist[0].histogram_value.num == 50
    img = acc.Images("img")
    assert [(i.step, i.width, i.height) for i in img] == [(1, 5, 4), (2, 5, 4)]
    assert "network" in "".join(acc.Tags()["tensors"])


def test_errors_name_the_method(tmp_path):
    rec = ms.train.SummaryRecord(str(tmp_path))
    with pytest.raises(ValueError, match="add_value: plugin"):
        rec.add_value("audio", "x", 1.0)
    with pytest.raises(ValueError, match="a scalar must have one element"):
        rec.add_value("scalar", "x", np.ones(3))
    with pytest.raises(ValueError, match="record: step"):
        rec.record(-1)
    rec.close()
    with pytest.raises(RuntimeError, match="closed"):
        rec.record(1)
    with pytest.raises(ValueError, match="max_file_size"):
        ms.SummaryRecord(str(tmp_path), max_file_size=10)
