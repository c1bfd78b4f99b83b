"""A zoo of networks gives the same outputs and gradients in Graph mode as in PyNative (1e-5)."""

import numpy as np
import pytest

import spore as ms
from spore import nn, ops

from ..nets import SimpleCNN

rng = np.random.default_rng(0)


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(20, 32)
        self.fc2 = nn.Dense(32, 16)
        self.fc3 = nn.Dense(16, 4)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


class LeNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 3, pad_mode="pad", padding=1)
        self.conv2 = nn.Conv2d(6, 16, 3, pad_mode="pad", padding=1)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(16 * 2 * 2, 32)
        self.fc2 = nn.Dense(32, 10)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        return self.fc2(self.relu(self.fc1(self.flatten(x))))


class ShapeIf(nn.Cell):
    """The seeds' example: a static branch on the input's shape."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3)
        self.relu = nn.ReLU()

    def construct(self, x):
        if x.shape[1] > 3:
            x = x[:, :3]
        x = self.conv1(x)
        return self.relu(x)


class ValueIf(nn.Cell):
    """A branch on a tensor value (the seeds' LSTM example's pattern)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(6, 6)

    def construct(self, x):
        h = self.fc(x)
        if ops.reduce_sum(h) > 0:
            return h * 0.9
        else:
            return h * 1.1


class LSTMNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(input_size=5, hidden_size=7, num_layers=2)
        self.fc = nn.Dense(7, 3)

    def construct(self, x):
        output, (h_n, c_n) = self.lstm(x)
        return self.fc(output[-1]) + ops.reduce_sum(c_n)


class Encoder(nn.Cell):
    """The seeds' Transformer block: attention + residual + feed-forward."""

    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(embed_dim=16, num_heads=4)
        self.norm = nn.LayerNorm((16,))
        self.ffn = nn.Dense(16, 16)

    def construct(self, x):
        attn_output, _ = self.attention(x, x, x)
        x = self.norm(x + attn_output)
        return x + self.ffn(x)


class BNNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.bn(self.conv(x)))


ZOO = {
    "mlp": (MLP, (8, 20)),
    "lenet": (LeNet, (4, 1, 8, 8)),
    "simplecnn": (SimpleCNN, (2, 3, 32, 32)),
    "shape_if_wide": (ShapeIf, (2, 5, 8, 8)),
    "shape_if_narrow": (ShapeIf, (2, 3, 8, 8)),
    "value_if": (ValueIf, (3, 6)),
    "lstm": (LSTMNet, (6, 2, 5)),
    "encoder": (Encoder, (5, 2, 16)),
    "batchnorm_train": (BNNet, (4, 3, 6, 6)),
    "batchnorm_eval": (BNNet, (4, 3, 6, 6)),
}


def _run(net, x, mode):
    ms.set_context(mode=mode)
    loss = lambda x: ops.reduce_sum(net(x) * net(x))  # noqa: E731
    out = net(x)
    value, (gx, gw) = ms.value_and_grad(loss, 0, net.trainable_params())(x)
    return [out.asnumpy(), value.asnumpy(), gx.asnumpy()] + [g.asnumpy() for g in gw]


@pytest.mark.parametrize("name", sorted(ZOO))
def test_graph_mode_matches_pynative(name):
    cls, shape = ZOO[name]
    ms.set_seed(1)
    net = cls()
    net.set_train(name != "batchnorm_eval")
    x = ms.Tensor(rng.standard_normal(shape).astype(np.float32))
    state = {n: p.asnumpy().copy() for n, p in net.parameters_and_names()}
    pynative = _run(net, x, ms.PYNATIVE_MODE)
    for n, p in net.parameters_and_names():  # BatchNorm's moving stats moved: restore them
        p.set_data(ms.Tensor(state[n]))
    graph = _run(net, x, ms.GRAPH_MODE)
    assert net.compiled_construct.cache, "the Cell really ran compiled"
    assert len(graph) == len(pynative)
    for a, b in zip(graph, pynative):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    moved = {n: p.asnumpy() for n, p in net.parameters_and_names()}
    ms.set_context(mode=ms.PYNATIVE_MODE)
    for n, p in net.parameters_and_names():
        p.set_data(ms.Tensor(state[n]))
    _run(net, x, ms.PYNATIVE_MODE)
    for n, p in net.parameters_and_names():
        np.testing.assert_allclose(moved[n], p.asnumpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=f"state {n} after the same calls differs between modes")
