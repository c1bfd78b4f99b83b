"""DatasetHelper, data_sink, connect_network_with_dataset and load_segmented_checkpoints (issue 14,
rest slice): batches and step counts checked against the NumPy data the dataset was built from."""

import numpy as np
import pytest

import spore as ms
import spore.dataset as ds
from spore import nn


def _ds():
    return ds.NumpySlicesDataset({"x": np.arange(12, dtype=np.float32).reshape(6, 2)}, shuffle=False).batch(2)


def test_dataset_helper_yields_each_batch_per_epoch():
    h = ms.DatasetHelper(_ds(), dataset_sink_mode=False, epoch_num=2)
    for _ in range(2):
        got = [b[0].asnumpy() for b in h]
        np.testing.assert_array_equal(np.concatenate(got), np.arange(12, dtype=np.float32).reshape(6, 2))
    with pytest.raises(RuntimeError, match="DatasetHelper"):
        list(h)
    assert ms.train.DatasetHelper(_ds()).sink_size() == 3
    sized = ms.DatasetHelper(_ds(), sink_size=2)
    assert sized.sink_size() == 2 and len(list(sized)) == 2
    with pytest.raises(ValueError, match="DatasetHelper: sink_size"):
        ms.DatasetHelper(_ds(), sink_size=0)


def test_connect_network_returns_the_network():
    net = nn.Dense(2, 1)
    h = ms.DatasetHelper(_ds(), dataset_sink_mode=False)
    assert ms.connect_network_with_dataset(net, h) is net
    with pytest.raises(TypeError, match="connect_network_with_dataset"):
        ms.connect_network_with_dataset(net, _ds())


def test_data_sink_runs_sink_size_steps_per_call_and_wraps_epochs():
    seen = []

    def step(x):
        seen.append(x.asnumpy()[0, 0])
        return x.sum()

    sink = ms.data_sink(step, _ds(), sink_size=2)
    out1 = sink()
    out2 = sink()
    assert seen == [0.0, 4.0, 8.0, 0.0]  # batch starts: 0, 4, 8, then a new epoch
    assert float(out1.asnumpy()) == float(np.arange(4, 8).sum())
    assert float(out2.asnumpy()) == float(np.arange(0, 4).sum())
    with pytest.raises(ValueError, match="data_sink: sink_size"):
        ms.train.data_sink(step, _ds(), sink_size=0)


def test_load_segmented_checkpoints_merges_files(tmp_path):
    w = np.ones((1, 2), np.float32) * 3
    b = np.array([0.5], np.float32)
    ms.save_checkpoint([{"name": "weight", "data": ms.Tensor(w)}], str(tmp_path / "part0.ckpt"))
    ms.save_checkpoint([{"name": "bias", "data": ms.Tensor(b)}], str(tmp_path / "part1.ckpt"))
    net = nn.Dense(2, 1)
    params = ms.load_segmented_checkpoints(str(tmp_path), net)
    assert set(params) == {"weight", "bias"}
    np.testing.assert_array_equal(net.weight.asnumpy(), w)
    np.testing.assert_array_equal(net.bias.asnumpy(), b)
    ms.save_checkpoint([{"name": "bias", "data": ms.Tensor(b)}], str(tmp_path / "part2.ckpt"))
    with pytest.raises(ValueError, match="more than one file"):
        ms.load_segmented_checkpoints(str(tmp_path))
