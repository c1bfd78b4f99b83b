"""Small networks and data shared by the amp tests (deterministic: seeded by the caller)."""

from __future__ import annotations

import numpy as np

import spore as ms
from spore import nn


class MLP(nn.Cell):
    """Dense -> BatchNorm -> ReLU -> Dense: one white-listed, one black-listed and one neutral layer."""

    def __init__(self, n_in: int = 4, hidden: int = 16, n_out: int = 3) -> None:
        super().__init__()
        self.fc1 = nn.Dense(n_in, hidden)
        self.bn = nn.BatchNorm1d(hidden)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(hidden, n_out)

    def construct(self, x):
        return self.fc2(self.relu(self.bn(self.fc1(x))))


class Plain(nn.Cell):
    """Dense -> ReLU -> Dense without BatchNorm (no state besides the weights)."""

    def __init__(self, n_in: int = 4, hidden: int = 8, n_out: int = 3) -> None:
        super().__init__()
        self.fc1 = nn.Dense(n_in, hidden)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(hidden, n_out)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


class SmallCNN(nn.Cell):
    """Conv2d -> BatchNorm2d -> ReLU -> Flatten -> Dense on (N, 1, 6, 6) images."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.flat = nn.Flatten()
        self.fc = nn.Dense(4 * 6 * 6, 2)

    def construct(self, x):
        return self.fc(self.flat(self.relu(self.bn(self.conv(x)))))


def blobs(n: int = 48, n_in: int = 4, n_out: int = 3, seed: int = 0) -> tuple[ms.Tensor, ms.Tensor]:
    """Three well-separated Gaussian blobs: a classification task a small net learns in a few steps."""
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((n_out, n_in)).astype(np.float32) * 3
    labels = np.arange(n) % n_out
    x = centers[labels] + 0.3 * rng.standard_normal((n, n_in)).astype(np.float32)
    return ms.Tensor(x.astype(np.float32)), ms.Tensor(labels.astype(np.int32))


def record_dtypes(cells: dict) -> dict:
    """Forward hooks that store (input dtype, output dtype) of each named cell as it runs."""
    seen: dict = {}
    for name, cell in cells.items():
        cell.register_forward_hook(lambda c, args, out, name=name: seen.__setitem__(name, (args[0].dtype, out.dtype)))
    return seen


def snapshot(params) -> list[np.ndarray]:
    return [p.asnumpy().copy() for p in params]
