"""The networks the equivalence tests train: an MLP, the seeds' SimpleCNN and a BatchNorm network."""

from __future__ import annotations

from spore import nn


class MLP(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Dense(20, 64)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(64, 10)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


class SimpleCNN(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, pad_mode="same")
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(8, 16, 3, pad_mode="same")
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(16 * 4 * 4, 10)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        return self.fc(self.flatten(x))


class BNNet(nn.Cell):
    """Dense -> BatchNorm1d (or SyncBatchNorm) -> ReLU -> Dense; BatchNorm's statistics are per rank
    (as in MindSpore), SyncBatchNorm's global."""

    def __init__(self, sync: bool = False) -> None:
        super().__init__()
        self.fc1 = nn.Dense(20, 32)
        self.bn = nn.SyncBatchNorm(32) if sync else nn.BatchNorm1d(32)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(32, 10)

    def construct(self, x):
        return self.fc2(self.relu(self.bn(self.fc1(x))))


def make_net(name: str):
    """(net, input shape without batch, number of classes)."""
    if name == "mlp":
        return MLP(), (20,), 10
    if name == "cnn":
        return SimpleCNN(), (1, 16, 16), 10
    if name == "bn":
        return BNNet(), (20,), 10
    if name == "syncbn":
        return BNNet(sync=True), (20,), 10
    raise ValueError(name)
