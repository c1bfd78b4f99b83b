"""SummaryLandscape: the result landscape of a linear model is a quadratic surface in the two
directions (checked by an exact least-squares fit), its centre is the trained loss computed with
NumPy, the parameters are restored, and the files are written."""

from __future__ import annotations

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import spore as ms
from spore import dataset as ds
from spore import nn
from spore.train import Model


def _setup():
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 2)).astype(np.float32)
    y = (x @ np.array([[1.5], [-0.5]], np.float32) + 0.2).astype(np.float32)
    net = nn.Dense(2, 1)
    model = Model(net, nn.MSELoss(), metrics={"Loss": nn.Loss()})
    data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
    return net, model, data, x, y


def test_result_landscape_is_the_quadratic_loss_surface(tmp_path):
    net, model, data, x, y = _setup()
    before = [p.asnumpy().copy() for p in net.trainable_params()]
    land = ms.SummaryLandscape(str(tmp_path))
    out = land.gen_landscapes_with_multi_process(
        lambda: {"model": model, "network": net, "dataset": data, "metrics": {"Loss": nn.Loss()}},
        collect_landscape={"landscape_size": 5, "num_samples": 16, "create_landscape": {"train": False,
                                                                                         "result": True}})
    z, xs = out["z"], out["x"]
    assert z.shape == (5, 5) and np.allclose(xs, np.linspace(-1, 1, 5))
    for p, w in zip(net.trainable_params(), before):
        np.testing.assert_array_equal(p.asnumpy(), w)  # restored
    w, b = net.weight.asnumpy(), net.bias.asnumpy()
    assert z[2, 2] == pytest.approx(float(np.mean((x @ w.T + b - y) ** 2)), rel=1e-5)
    a, bb = np.meshgrid(xs, xs)
    design = np.stack([np.ones_like(a), a, bb, a * a, a * bb, bb * bb], -1).reshape(-1, 6)
    coef, *_ = np.linalg.lstsq(design, z.reshape(-1), rcond=None)
    np.testing.assert_allclose(design @ coef, z.reshape(-1), rtol=1e-4, atol=1e-5)
    assert coef[3] > 0 and coef[5] > 0  # the loss curves up along both directions
    saved = np.load(tmp_path / "landscape_result.npz")
    np.testing.assert_allclose(saved["z"], z)
    acc = EventAccumulator(str(tmp_path), size_guidance={"images": 0, "tensors": 0})
    acc.Reload()
    assert [(i.width, i.height) for i in acc.Images("landscape/result")] == [(5, 5)]


def test_train_landscape_and_bad_arguments_are_refused(tmp_path):
    net, model, data, _, _ = _setup()
    land = ms.train.SummaryLandscape(str(tmp_path))
    fn = lambda: {"model": model, "network": net, "dataset": data, "metrics": {"Loss": nn.Loss()}}  # noqa: E731
    with pytest.raises(ValueError, match="'train' landscape"):
        land.gen_landscapes_with_multi_process(fn, {"create_landscape": {"train": True, "result": True}})
    with pytest.raises(ValueError, match="landscape_size"):
        land.gen_landscapes_with_multi_process(fn, {"landscape_size": 1})
    with pytest.raises(ValueError, match="'metrics'"):
        land.gen_landscapes_with_multi_process(lambda: {"model": model, "network": net, "dataset": data})
    (tmp_path / "ckpt_dir").mkdir()
    land.clean_ckpt()
    assert not (tmp_path / "ckpt_dir").exists()
