"""Training wrappers: WithLossCell, WithEvalCell and TrainOneStepCell (with a minimal SGD whose
update is written here, so the test pins the wrapper, not an optimizer)."""

import numpy as np
import pytest

import spore as ms
import spore.nn as nn
from spore import ParameterTuple, Tensor

from ..nets import SimpleCNN


class TinySGD:
    """Just what TrainOneStepCell needs from an optimizer: `parameters` and `__call__(grads)`."""

    def __init__(self, params, lr):
        self.parameters = ParameterTuple(params)
        self.lr = lr
        self.calls = 0

    def __call__(self, grads):
        self.calls += 1
        for p, g in zip(self.parameters, grads):
            p.asnumpy()[...] -= self.lr * g.asnumpy()
        return True


def regression_data(seed=0, n=16):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]]) + 0.3).astype(np.float32)
    return Tensor(x), Tensor(y)


def test_with_loss_cell_computes_the_loss_of_the_backbone_output():
    net = nn.Dense(3, 1)
    x, y = regression_data()
    loss = nn.WithLossCell(net, nn.MSELoss())(x, y)
    pred = x.asnumpy() @ net.weight.asnumpy().T + net.bias.asnumpy()
    np.testing.assert_allclose(float(loss.asnumpy()), np.mean((pred - y.asnumpy()) ** 2), rtol=1e-5)
    assert nn.WithLossCell(net, nn.MSELoss()).backbone_network is net


def test_one_step_applies_the_exact_sgd_update():
    net = nn.Dense(3, 1)
    x, y = regression_data()
    w0, b0 = net.weight.asnumpy().copy(), net.bias.asnumpy().copy()
    opt = TinySGD(net.trainable_params(), lr=0.1)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    loss = step(x, y)
    xa, ya = x.asnumpy().astype(np.float64), y.asnumpy().astype(np.float64)
    resid = xa @ w0.T + b0 - ya
    np.testing.assert_allclose(float(loss.asnumpy()), np.mean(resid ** 2), rtol=1e-5)
    gw = 2 * resid.T @ xa / len(xa)
    gb = 2 * resid.sum(0) / len(xa)
    np.testing.assert_allclose(net.weight.asnumpy(), w0 - 0.1 * gw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.bias.asnumpy(), b0 - 0.1 * gb, rtol=1e-5, atol=1e-6)
    assert opt.calls == 1


def test_a_few_steps_reduce_the_loss():
    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(3, 16, activation="relu")
            self.fc2 = nn.Dense(16, 1)

        def construct(self, x):
            return self.fc2(self.fc1(x))

    net = MLP()
    x, y = regression_data(1, 32)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), TinySGD(net.trainable_params(), 0.05))
    step.set_train()
    losses = [float(step(x, y).asnumpy()) for _ in range(30)]
    assert losses[-1] < 0.3 * losses[0]
    assert all(b <= a * 1.05 for a, b in zip(losses, losses[1:]))


def test_return_grad_gives_gradients_by_parameter_name():
    net = nn.Dense(3, 1)
    x, y = regression_data()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), TinySGD(net.trainable_params(), 0.0),
                               return_grad=True)
    loss, grads = step(x, y)
    assert set(grads) == {"weight", "bias"}
    pred = x.asnumpy() @ net.weight.asnumpy().T + net.bias.asnumpy()
    np.testing.assert_allclose(grads["bias"].asnumpy(), 2 * (pred - y.asnumpy()).mean(0), rtol=1e-5)


def test_sens_scales_the_gradients():
    x, y = regression_data()
    ms.set_seed(5)
    a = nn.Dense(3, 1)
    ms.set_seed(5)
    b = nn.Dense(3, 1)
    np.testing.assert_array_equal(a.weight.asnumpy(), b.weight.asnumpy())
    nn.TrainOneStepCell(nn.WithLossCell(a, nn.MSELoss()), TinySGD(a.trainable_params(), 0.1))(x, y)
    nn.TrainOneStepCell(nn.WithLossCell(b, nn.MSELoss()), TinySGD(b.trainable_params(), 0.05), sens=2.0)(x, y)
    np.testing.assert_allclose(a.weight.asnumpy(), b.weight.asnumpy(), rtol=1e-6)


def test_wrappers_do_not_rename_the_network_parameters():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 1)

        def construct(self, x):
            return self.fc(x)

    net = Net()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), TinySGD(net.trainable_params(), 0.1))
    assert [p.name for p in step.trainable_params()] == ["fc.weight", "fc.bias"]


def test_with_eval_cell_returns_loss_outputs_and_labels():
    net = nn.Dense(3, 1).to_float(ms.float16)
    x, y = regression_data()
    loss, out, label = nn.WithEvalCell(net, nn.MSELoss(), add_cast_fp32=True)(x, y)
    assert out.dtype == ms.float32 and label is not None and out.shape == (16, 1)
    np.testing.assert_allclose(float(loss.asnumpy()), np.mean((out.asnumpy() - y.asnumpy()) ** 2), rtol=1e-5)


def test_train_one_step_needs_an_optimizer_with_parameters():
    with pytest.raises(TypeError, match="parameters"):
        nn.TrainOneStepCell(nn.Dense(1, 1), object())


def image_batch(seed=0, n=8):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n).astype(np.int32)
    x = rng.standard_normal((n, 3, 32, 32)).astype(np.float32) * 0.5
    x[np.arange(n), labels % 3, labels, :] += 2.0  # a learnable signature per class
    return Tensor(x), Tensor(labels)


def test_seed_training_loop_with_value_and_grad_and_adam_reduces_the_loss():
    net = SimpleCNN()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    optimizer = nn.Adam(params=net.trainable_params(), learning_rate=0.001)

    def forward_fn(data, label):
        logits = net(data)
        return loss_fn(logits, label), logits

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
    net.set_train()
    x, y = image_batch()
    losses = []
    for _ in range(8):
        (loss, _), grads = grad_fn(x, y)
        optimizer(grads)
        losses.append(float(loss.asnumpy()))
    assert losses[-1] < 0.5 * losses[0]


def test_train_one_step_cell_with_sgd_trains_the_seed_network():
    net = SimpleCNN()
    loss_net = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    train = nn.TrainOneStepCell(loss_net, nn.SGD(net.trainable_params(), learning_rate=0.05)).set_train()
    x, y = image_batch(1)
    losses = [float(train(x, y).asnumpy()) for _ in range(8)]
    assert losses[-1] < 0.5 * losses[0]
    assert [p.name for p in train.trainable_params()] == ["conv1.weight", "fc.weight", "fc.bias"]
