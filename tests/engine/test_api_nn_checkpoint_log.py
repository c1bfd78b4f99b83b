"""merge_sliced_parameter, load_checkpoint_async, async_ckpt_thread_status, get_level and
get_log_config (issue 14)."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import nn
from spore.tensor import Parameter


def test_merge_sliced_parameter_concatenates_along_axis_0():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(6.0, 15.0).reshape(3, 3)
    merged = ms.merge_sliced_parameter([Parameter(a, name="w"), Parameter(b, name="w")])
    np.testing.assert_array_equal(merged.asnumpy(), np.concatenate([a, b]))
    assert merged.name == "w" and ms.train.merge_sliced_parameter is ms.merge_sliced_parameter
    with pytest.raises(ValueError, match="name"):
        ms.merge_sliced_parameter([Parameter(a, name="w"), Parameter(b, name="v")])
    with pytest.raises(ValueError, match="after axis 0"):
        ms.merge_sliced_parameter([Parameter(a, name="w"), Parameter(np.ones((2, 2)), name="w")])


def test_load_checkpoint_async(tmp_path):
    ms.set_seed(0)
    net = nn.Dense(3, 2)
    path = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(net, path, async_save=True)
    future = ms.load_checkpoint_async(path)
    params = future.result(timeout=30)
    np.testing.assert_array_equal(params["weight"].asnumpy(), net.weight.asnumpy())
    assert ms.async_ckpt_thread_status() is False  # the background save has finished (the load waited for it)
    bad = ms.train.load_checkpoint_async(str(tmp_path / "missing.ckpt"))
    with pytest.raises(Exception, match="missing"):
        bad.result(timeout=30)


def test_log_config(monkeypatch):
    monkeypatch.delenv("GLOG_v", raising=False)
    monkeypatch.delenv("GLOG_logtostderr", raising=False)
    assert ms.get_level() == "2"
    monkeypatch.setenv("GLOG_v", "1")
    monkeypatch.setenv("GLOG_logtostderr", "0")
    monkeypatch.setenv("GLOG_log_dir", "/tmp/logs")
    cfg = ms.get_log_config()
    assert cfg["GLOG_v"] == "1" and cfg["GLOG_log_dir"] == "/tmp/logs" and cfg["logger_backupCount"] == "30"
    monkeypatch.setenv("GLOG_v", "9")
    with pytest.raises(ValueError, match="GLOG_v"):
        ms.get_level()
