"""OcclusionSensitivity (issue 14, vision slice): MindSpore's documented example, and a small conv
model checked against a direct NumPy loop (occlude each window, rerun the model, subtract)."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import nn, train


class DenseNet(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        w = np.array([[0.1, 0.8, 0.1, 0.1], [1, 1, 1, 1]], np.float32)
        b = np.array([0.3, 0.6], np.float32)
        self.dense = nn.Dense(4, 2, weight_init=ms.Tensor(w), bias_init=ms.Tensor(b))

    def construct(self, x):
        return self.dense(x)


def test_documented_example_and_exports():
    assert ms.OcclusionSensitivity is nn.OcclusionSensitivity is train.OcclusionSensitivity
    metric = ms.OcclusionSensitivity()
    metric.clear()
    metric.update(DenseNet(), np.array([[0.1, 0.2, 0.3, 0.4]], np.float32), np.array(1, np.int32))
    np.testing.assert_allclose(metric.eval(), [0.3, 0.6, 1.0, 0.9], rtol=1e-5)


class TinyConv(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        r = np.random.default_rng(0)
        self.w = ms.Parameter(ms.Tensor(r.standard_normal((3, 1 * 5 * 6)).astype(np.float32)), name="w")

    def construct(self, x):
        return ms.ops.matmul(ms.ops.reshape(ms.ops.tanh(x), (x.shape[0], -1)), ms.ops.transpose(self.w, (1, 0)))


def reference(model_np, x, label, pad, margin, box):
    shape = np.array(x.shape)
    lo, hi = np.array(box[::2]), np.array(box[1::2])
    base = model_np(x)[0, label]
    out = np.zeros(tuple(hi - lo + 1))
    for idx in np.ndindex(*out.shape):
        p = np.array(idx) + lo
        y = x.copy()
        y[tuple(slice(max(a - margin, 0), min(a + margin, s)) for a, s in zip(p, shape))] = pad
        out[idx] = base - model_np(y)[0, label]
    return np.squeeze(out)


@pytest.mark.parametrize("n_batch", [1, 7, 128])
def test_matches_a_direct_occlusion_loop(n_batch):
    model = TinyConv()
    w = model.w.asnumpy()

    def model_np(a):
        return np.tanh(a).reshape(a.shape[0], -1) @ w.T

    x = np.random.default_rng(1).standard_normal((1, 1, 5, 6)).astype(np.float32)
    metric = train.OcclusionSensitivity(pad_val=0.5, margin=1, n_batch=n_batch, b_box=[0, 0, 0, 0, 1, 3, -1, 4])
    metric.update(model, ms.Tensor(x), 2)
    got = metric.eval()
    want = reference(model_np, x, 2, 0.5, 1, [0, 0, 0, 0, 1, 3, 0, 4])
    assert got.shape == (3, 5)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    full = train.OcclusionSensitivity(margin=2)
    full.update(model, x, ms.Tensor(np.array([0])))
    np.testing.assert_allclose(full.eval(), reference(model_np, x, 0, 0.0, 2, [0, 0, 0, 0, 0, 4, 0, 5]),
                               rtol=1e-4, atol=1e-5)


def test_errors():
    metric = nn.OcclusionSensitivity()
    with pytest.raises(RuntimeError, match="OcclusionSensitivity.eval"):
        metric.eval()
    with pytest.raises(RuntimeError, match="OcclusionSensitivity.update"):
        metric.update(DenseNet(), np.zeros((2, 4), np.float32), 1)
    with pytest.raises(TypeError, match="OcclusionSensitivity.update"):
        metric.update(lambda x: x, np.zeros((1, 4), np.float32), 1)
    with pytest.raises(ValueError, match="OcclusionSensitivity"):
        ms.OcclusionSensitivity(b_box=[0, 0, 0, 9]).update(DenseNet(), np.zeros((1, 4), np.float32), 1)
    with pytest.raises(ValueError, match="OcclusionSensitivity"):
        ms.OcclusionSensitivity(n_batch=0)
