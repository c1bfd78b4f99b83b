"""The nn layers and the optimizer added for issue 14 against NumPy formulas (float64): the RNN
cells (also against one step of nn.GRU/nn.LSTM/nn.RNN with the same weights), BatchNorm3d, Upsample,
the activations, Adadelta, and the metrics re-exported from nn."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit as sigmoid

import spore as ms
from spore import nn


def rng(seed=0):
    return np.random.default_rng(seed)


def params(cell):
    return {p.name.split(".")[-1]: p.asnumpy().astype(np.float64) for p in cell.get_parameters()}


def T(a):
    return ms.Tensor(np.asarray(a, np.float32))


def test_gru_cell_matches_the_formula_and_one_gru_step():
    ms.set_seed(1)
    cell = nn.GRUCell(3, 4)
    p = params(cell)
    x, h = rng(1).standard_normal((2, 3)), rng(2).standard_normal((2, 4))
    gi, gh = x @ p["weight_ih"].T + p["bias_ih"], h @ p["weight_hh"].T + p["bias_hh"]
    r, z = sigmoid(gi[:, :4] + gh[:, :4]), sigmoid(gi[:, 4:8] + gh[:, 4:8])
    n = np.tanh(gi[:, 8:] + r * gh[:, 8:])
    want = (1 - z) * n + z * h
    np.testing.assert_allclose(cell(T(x), T(h)).asnumpy(), want, rtol=1e-5, atol=1e-6)
    gru = nn.GRU(3, 4)
    for name, src in (("weight_ih_l0", "weight_ih"), ("weight_hh_l0", "weight_hh"), ("bias_ih_l0", "bias_ih"),
                      ("bias_hh_l0", "bias_hh")):
        next(q for q in gru.get_parameters() if q.name.endswith(name)).set_data(T(p[src]))
    out, _ = gru(T(x[None]), T(h[None]))
    np.testing.assert_allclose(out.asnumpy()[0], want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cell(T(x[0])).asnumpy(), cell(T(x[:1]), T(np.zeros((1, 4)))).asnumpy()[0], rtol=1e-6)


def test_lstm_cell_and_rnn_cell_match_the_formulas():
    ms.set_seed(2)
    cell = nn.LSTMCell(3, 2)
    p = params(cell)
    x, h, c = rng(3).standard_normal((4, 3)), rng(4).standard_normal((4, 2)), rng(5).standard_normal((4, 2))
    g = x @ p["weight_ih"].T + p["bias_ih"] + h @ p["weight_hh"].T + p["bias_hh"]
    i, f, gg, o = sigmoid(g[:, :2]), sigmoid(g[:, 2:4]), np.tanh(g[:, 4:6]), sigmoid(g[:, 6:])
    c2 = f * c + i * gg
    h2, c2_got = cell(T(x), (T(h), T(c)))
    np.testing.assert_allclose(c2_got.asnumpy(), c2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h2.asnumpy(), o * np.tanh(c2), rtol=1e-5, atol=1e-6)
    assert sorted(p) == ["bias_hh", "bias_ih", "weight_hh", "weight_ih"]
    rnn = nn.RNNCell(3, 2, nonlinearity="relu", has_bias=False)
    q = params(rnn)
    np.testing.assert_allclose(rnn(T(x), T(h)).asnumpy(), np.maximum(x @ q["weight_ih"].T + h @ q["weight_hh"].T, 0),
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="nonlinearity"):
        nn.RNNCell(3, 2, nonlinearity="gelu")
    with pytest.raises(ms.ShapeError, match="GRUCell"):
        nn.GRUCell(3, 2)(T(np.zeros((2, 4))))


def test_rnn_cell_gradient_flows_to_the_weights():
    cell = nn.GRUCell(2, 3)
    x, h = T(rng(6).standard_normal((2, 2))), T(rng(12).standard_normal((2, 3)))  # h != 0: weight_hh matters
    grads = ms.grad(lambda v: cell(v, h).sum(), None, cell.trainable_params())(x)
    assert [g.shape for g in grads] == [(9, 2), (9, 3), (9,), (9,)]
    assert all(np.abs(g.asnumpy()).sum() > 0 for g in grads)


def test_batchnorm3d_normalises_per_channel_and_updates_unbiased_variance():
    bn = nn.BatchNorm3d(2, momentum=0.5)
    x = rng(7).standard_normal((2, 2, 2, 3, 3)) * 2 + 1
    bn.set_train()
    out = bn(T(x)).asnumpy()
    axes = (0, 2, 3, 4)
    mu, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    np.testing.assert_allclose(out, (x - mu) / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-5)
    n = x.size // 2
    np.testing.assert_allclose(bn.bn2d.moving_variance.asnumpy(), 0.5 + 0.5 * x.var(axes) * n / (n - 1), rtol=1e-5)
    # MindSpore's layout: a BatchNorm2d named bn2d inside, so its checkpoints load
    assert [p.name for p in bn.get_parameters()] == ["bn2d.moving_mean", "bn2d.moving_variance", "bn2d.gamma",
                                                      "bn2d.beta"]
    with pytest.raises(ms.ShapeError, match=r"\(N, C, D, H, W\)"):
        bn(T(np.zeros((2, 2, 3, 3))))


def test_upsample_is_interpolate():
    x = T(rng(8).standard_normal((1, 2, 3, 4)))
    np.testing.assert_array_equal(nn.Upsample(size=(5, 6), mode="bilinear", align_corners=True)(x).asnumpy(),
                                  ms.ops.interpolate(x, size=(5, 6), mode="bilinear", align_corners=True).asnumpy())


@pytest.mark.parametrize("cell,ref", [
    (nn.Hardtanh(-0.5, 1.5), lambda x: np.clip(x, -0.5, 1.5)),
    (nn.Tanhshrink(), lambda x: x - np.tanh(x)),
    (nn.Softmin(0), lambda x: np.exp(-x) / np.exp(-x).sum(0, keepdims=True)),
    (nn.HShrink(0.5), lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    (nn.SoftShrink(0.5), lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0))),
    (nn.SeLU(), lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * (np.exp(x) - 1))),
    (nn.CELU(0.7), lambda x: np.where(x > 0, x, 0.7 * (np.exp(x / 0.7) - 1))),
    (nn.GLU(), lambda x: x[:, :3] * sigmoid(x[:, 3:])),
    (nn.Threshold(0.2, -7.0), lambda x: np.where(x > 0.2, x, -7.0)),
])
def test_activations_match_numpy(cell, ref):
    x = rng(9).standard_normal((4, 6)) * 2
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), ref(x), rtol=1e-12, atol=1e-12)


def test_softmax2d_normalises_the_channel_axis():
    x = rng(10).standard_normal((2, 3, 2, 2))
    out = nn.Softmax2d()(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(out, np.exp(x) / np.exp(x).sum(1, keepdims=True), rtol=1e-12)


def test_adadelta_matches_its_update_rule_and_skips_gamma_decay():
    w0 = rng(11).standard_normal(3)
    params_ = [ms.Parameter(ms.Tensor(w0.copy()), name=n) for n in ("fc.weight", "bn.gamma")]
    opt = nn.Adadelta(params_, learning_rate=0.5, rho=0.8, epsilon=1e-3, weight_decay=0.1)
    grads = [rng(20 + t).standard_normal(3) for t in range(4)]
    want = []
    for decay in (0.1, 0.0):
        w, acc, upd_acc = w0.copy(), np.zeros(3), np.zeros(3)
        for g in grads:
            g = g + decay * w
            acc = 0.8 * acc + 0.2 * g * g
            upd = np.sqrt(upd_acc + 1e-3) / np.sqrt(acc + 1e-3) * g
            upd_acc = 0.8 * upd_acc + 0.2 * upd * upd
            w = w - 0.5 * upd
        want.append(w)
    for g in grads:
        opt((ms.Tensor(g), ms.Tensor(g)))
    np.testing.assert_allclose(params_[0].asnumpy(), want[0], rtol=1e-10)
    np.testing.assert_allclose(params_[1].asnumpy(), want[1], rtol=1e-10)
    with pytest.raises(ValueError, match="rho"):
        nn.Adadelta(params_, rho=1.5)


def test_nn_reexports_the_metrics():
    assert nn.Accuracy is ms.train.Accuracy and nn.get_metric_fn is ms.train.get_metric_fn
    acc = nn.Accuracy()
    acc.update(ms.Tensor(np.array([[0.1, 0.9], [0.8, 0.2]])), ms.Tensor(np.array([1, 1])))
    assert acc.eval() == pytest.approx(0.5)


# --- losses (float64, against the formulas) ------------------------------------------------------------
X, Y = rng(30).standard_normal((4, 5)), rng(31).standard_normal((4, 5))
SIGN = np.where(rng(32).random((4, 5)) > 0.5, 1.0, -1.0)


def np_log_sigmoid(x):
    return -np.logaddexp(0, -x)


@pytest.mark.parametrize("cell,args,want", [
    (nn.HuberLoss(delta=0.7), (X, Y), np.mean(np.where(np.abs(X - Y) < 0.7, 0.5 * (X - Y) ** 2,
                                                        0.7 * (np.abs(X - Y) - 0.35)))),
    (nn.SoftMarginLoss("sum"), (X, SIGN), np.sum(np.log1p(np.exp(-SIGN * X)))),
    (nn.HingeEmbeddingLoss(0.5), (X, SIGN), np.mean(np.where(SIGN == 1, X, np.maximum(0, 0.5 - X)))),
    (nn.MAELoss("none"), (X, Y), np.abs(X - Y)),
    (nn.RMSELoss(), (X, Y), np.sqrt(np.mean((X - Y) ** 2))),
    (nn.KLDivLoss("batchmean"), (X, np.abs(Y)), np.sum(np.abs(Y) * (np.log(np.abs(Y)) - X)) / 4),
    (nn.MarginRankingLoss(0.2), (X[0], Y[0], SIGN[0]), np.mean(np.maximum(0, -SIGN[0] * (X[0] - Y[0]) + 0.2))),
    (nn.PoissonNLLLoss(), (X, np.abs(Y)), np.mean(np.exp(X) - np.abs(Y) * X)),
    (nn.GaussianNLLLoss(full=True), (X, Y, np.abs(X) + 0.1),
     np.mean(0.5 * (np.log(np.abs(X) + 0.1) + (X - Y) ** 2 / (np.abs(X) + 0.1)) + 0.5 * np.log(2 * np.pi))),
    (nn.MultiLabelSoftMarginLoss(), (X, (Y > 0).astype(float)),
     np.mean(-np.mean((Y > 0) * np_log_sigmoid(X) + (Y <= 0) * np_log_sigmoid(-X), -1))),
])
def test_losses_match_their_formulas(cell, args, want):
    got = cell(*[ms.Tensor(a) for a in args]).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_cosine_embedding_and_triplet_losses():
    a, b, c = rng(33).standard_normal((4, 3)), rng(34).standard_normal((4, 3)), rng(35).standard_normal((4, 3))
    y = np.array([1.0, -1.0, 1.0, -1.0])
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    want = np.mean(np.where(y == 1, 1 - cos, np.maximum(0, cos - 0.1)))
    got = nn.CosineEmbeddingLoss(0.1)(ms.Tensor(a), ms.Tensor(b), ms.Tensor(y)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-8)

    def d(u, v):
        return np.linalg.norm(u - v + 1e-6, axis=1)

    want = np.mean(np.maximum(d(a, b) - np.minimum(d(a, c), d(b, c)) + 1.0, 0))
    got = nn.TripletMarginLoss(swap=True)(ms.Tensor(a), ms.Tensor(b), ms.Tensor(c)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-10)
    with pytest.raises(ValueError, match="reduction"):
        nn.HuberLoss("avg")


def test_losses_are_differentiable():
    x = ms.Tensor(X)
    g = ms.grad(lambda v: nn.HuberLoss(delta=0.7)(v, ms.Tensor(Y)))(x).asnumpy()
    d = X - Y
    np.testing.assert_allclose(g, np.where(np.abs(d) < 0.7, d, 0.7 * np.sign(d)) / d.size, rtol=1e-10)


# --- padding, pixel shuffles, unflatten -----------------------------------------------------------------
def test_padding_layers_match_numpy_pad():
    x = rng(36).standard_normal((1, 2, 3, 4))
    t = ms.Tensor(x)
    np.testing.assert_array_equal(nn.ZeroPad2d((1, 0, 2, 1))(t).asnumpy(),
                                  np.pad(x, ((0, 0), (0, 0), (2, 1), (1, 0))))
    np.testing.assert_array_equal(nn.ConstantPad2d(1, 3.5)(t).asnumpy(),
                                  np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=3.5))
    np.testing.assert_array_equal(nn.ReflectionPad2d((2, 1, 1, 0))(t).asnumpy(),
                                  np.pad(x, ((0, 0), (0, 0), (1, 0), (2, 1)), mode="reflect"))
    np.testing.assert_array_equal(nn.ReplicationPad1d(2)(t).asnumpy(),
                                  np.pad(x, ((0, 0), (0, 0), (0, 0), (2, 2)), mode="edge"))
    np.testing.assert_array_equal(nn.ConstantPad3d(1, -1.0)(t).asnumpy(),
                                  np.pad(x, ((0, 0), (1, 1), (1, 1), (1, 1)), constant_values=-1.0))
    with pytest.raises(TypeError, match="padding"):
        nn.ZeroPad2d((1, 2, 3))


def test_pixel_shuffle_round_trip_and_layout():
    x = rng(37).standard_normal((2, 8, 3, 2))
    up = nn.PixelShuffle(2)(ms.Tensor(x)).asnumpy()
    want = x.reshape(2, 2, 2, 2, 3, 2).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 6, 4)
    np.testing.assert_array_equal(up, want)
    np.testing.assert_array_equal(nn.PixelUnshuffle(2)(ms.Tensor(up)).asnumpy(), x)
    assert nn.Unflatten(1, (2, 4))(ms.Tensor(x)).shape == (2, 2, 4, 3, 2)
    assert nn.Unflatten(-1, (1, -1))(ms.Tensor(x)).shape == (2, 8, 3, 1, 2)
