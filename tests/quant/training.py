"""Training helpers the quantization tests share (PTQ and QAT train the same small nets the same way)."""

from __future__ import annotations

import numpy as np

import spore as ms
from spore import nn


def train(net: nn.Cell, x: np.ndarray, y: np.ndarray, epochs: int, lr: float = 0.003, seed: int = 0) -> nn.Cell:
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Adam(net.trainable_params(), learning_rate=lr)
    grad_fn = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)
    rng = np.random.default_rng(seed)
    net.set_train(True)
    for _ in range(epochs):
        idx = rng.permutation(len(x))
        for i in range(0, len(idx), 32):
            b = idx[i:i + 32]
            _, g = grad_fn(ms.Tensor(x[b]), ms.Tensor(y[b]))
            opt(g)
    net.set_train(False)
    return net


def accuracy(net: nn.Cell, x: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean(net(ms.Tensor(x)).asnumpy().argmax(1) == y))


def blobs(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """10 classes of 3x32x32 images: a smooth class template plus heavy noise (not linearly trivial)."""
    rng = np.random.default_rng(1234)
    yy, xx = np.mgrid[0:32, 0:32] / 32.0
    templates = np.stack([np.stack([np.sin(2 * np.pi * (f * xx + g * yy) + ph)
                                    for f, g, ph in rng.uniform(0.5, 2.5, (3, 3))]) for _ in range(10)])
    r = np.random.default_rng(seed)
    y = r.integers(0, 10, n).astype(np.int32)
    x = templates[y] * 0.15 + r.normal(size=(n, 3, 32, 32))
    return x.astype(np.float32), y
