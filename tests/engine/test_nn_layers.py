"""Layers against NumPy references: Dense, Flatten, activations, Embedding, Dropout, norms, conv,
pooling; MindSpore's defaults, parameter names, and errors that point at the user's line."""

import math
import sys

import numpy as np
import pytest

import spore as ms
import spore.nn as nn
from spore import Tensor

from ..nets import SimpleCNN

RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(a.asnumpy() if isinstance(a, Tensor) else a, b, rtol=rtol, atol=atol)


# --- Dense -------------------------------------------------------------------------------------
def test_dense_matches_numpy_for_2d_and_3d_inputs():
    d = nn.Dense(5, 3, activation="tanh")
    w, b = d.weight.asnumpy(), d.bias.asnumpy()
    assert w.shape == (3, 5) and b.shape == (3,)
    x = rand(2, 4, 5)
    close(d(Tensor(x)), np.tanh(x @ w.T + b))
    close(d(Tensor(x[0])), np.tanh(x[0] @ w.T + b))


def test_dense_default_init_is_he_uniform_sqrt5_with_uniform_bias():
    d = nn.Dense(100, 400)
    bound = 1 / math.sqrt(100)  # HeUniform(negative_slope=sqrt(5)) on fan_in 100
    w, b = d.weight.asnumpy(), d.bias.asnumpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    assert np.abs(b).max() <= bound and np.abs(b).max() > 0.9 * bound
    assert abs(w.mean()) < 0.01


def test_dense_options_weight_tensor_no_bias_and_cell_activation():
    w = rand(2, 3)
    d = nn.Dense(3, 2, weight_init=Tensor(w), has_bias=False, activation=nn.ReLU())
    assert d.bias is None and [p.name for p in d.trainable_params()] == ["weight"]
    x = rand(4, 3)
    close(d(Tensor(x)), np.maximum(x @ w.T, 0))
    assert "Dense<\n  input_channels=3, output_channels=2, activation=ReLU<>\n  (activation): ReLU<>" in repr(d)
    with pytest.raises(ValueError, match="weight_init has shape"):
        nn.Dense(3, 2, weight_init=Tensor(rand(3, 2)))
    with pytest.raises(KeyError, match="unknown activation"):
        nn.Dense(3, 2, activation="relux")


def test_dense_wrong_input_names_layer_shapes_and_the_users_line():
    d = nn.Dense(4096, 10)
    line = sys._getframe().f_lineno + 2
    with pytest.raises(ms.ShapeError) as info:
        d(Tensor(np.zeros((2, 100), np.float32)))
    err = info.value
    assert err.op == "Dense"
    assert "(..., 4096)" in err.expected and "(2, 100)" in err.actual
    assert err.loc.file == __file__ and err.loc.line == line
    assert f"test_nn_layers.py:{line}" in str(err)


# --- Flatten / Identity / activations ----------------------------------------------------------
def test_flatten_and_identity():
    x = rand(2, 3, 4, 5)
    assert nn.Flatten()(Tensor(x)).shape == (2, 60)
    assert nn.Flatten(0, 2)(Tensor(x)).shape == (24, 5)
    assert nn.Flatten(start_dim=2)(Tensor(x)).shape == (2, 3, 20)
    close(nn.Flatten()(Tensor(x)), x.reshape(2, 60))
    t = Tensor(x)
    assert nn.Identity()(t) is t
    with pytest.raises(ValueError, match="start_dim"):
        nn.Flatten(2, 1)(Tensor(x))


def _gelu_erf(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def _sig(x):
    return 1 / (1 + np.exp(-x))


ACTIVATIONS = [
    (nn.ReLU(), lambda x: np.maximum(x, 0)),
    (nn.ReLU6(), lambda x: np.clip(x, 0, 6)),
    (nn.LeakyReLU(), lambda x: np.where(x >= 0, x, 0.2 * x)),
    (nn.LeakyReLU(0.01), lambda x: np.where(x >= 0, x, 0.01 * x)),
    (nn.GELU(), lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    (nn.GELU(approximate=False), _gelu_erf),
    (nn.FastGelu(), lambda x: x / (1 + np.exp(-1.702 * np.abs(x))) * np.exp(0.851 * (x - np.abs(x)))),
    (nn.SiLU(), lambda x: x * _sig(x)),
    (nn.Sigmoid(), _sig),
    (nn.Tanh(), np.tanh),
    (nn.ELU(), lambda x: np.where(x > 0, x, np.exp(x) - 1)),
    (nn.HSwish(), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    (nn.HSigmoid(), lambda x: np.clip(x + 3, 0, 6) / 6),
    (nn.Softplus(), lambda x: np.log1p(np.exp(x))),
    (nn.LogSigmoid(), lambda x: np.log(_sig(x))),
    (nn.Softsign(), lambda x: x / (1 + np.abs(x))),
    (nn.Mish(), lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    (nn.Softmax(), lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
    (nn.Softmax(axis=0), lambda x: np.exp(x) / np.exp(x).sum(0, keepdims=True)),
    (nn.LogSoftmax(), lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True))),
]


@pytest.mark.parametrize("cell,ref", ACTIVATIONS, ids=[f"{type(c).__name__}-{i}" for i, (c, _) in
                                                        enumerate(ACTIVATIONS)])
def test_activation_matches_numpy(cell, ref):
    x = rand(3, 7) * 3
    close(cell(Tensor(x)), ref(x.astype(np.float64)), rtol=1e-5, atol=1e-6)


def test_prelu_learns_a_slope_per_channel():
    pr = nn.PReLU(3, 0.1)
    assert [n for n, _ in pr.parameters_and_names()] == ["w"] and pr.w.shape == (3,)
    pr.w.set_data(np.array([0.1, 0.2, 0.3], np.float32))
    x = rand(2, 3, 4)
    close(pr(Tensor(x)), np.where(x >= 0, x, x * np.array([0.1, 0.2, 0.3])[None, :, None]))
    (g,) = ms.grad(lambda v: pr(v).sum(), None, [pr.w])(Tensor(x))
    close(g, np.where(x < 0, x, 0).sum((0, 2)), rtol=1e-5)


def test_activation_names_map_to_layers():
    assert isinstance(nn.get_activation("relu"), nn.ReLU)
    assert isinstance(nn.get_activation("GELU"), nn.GELU)
    assert nn.get_activation(None) is None


# --- Dropout ---------------------------------------------------------------------------------
def test_dropout_is_identity_until_set_train():
    drop = nn.Dropout(keep_prob=0.6)
    assert drop.p == pytest.approx(0.4)
    x = Tensor(np.ones((200, 50), np.float32))
    assert drop(x) is x
    drop.set_train()
    y = drop(x).asnumpy()
    kept = y != 0
    assert 0.55 < kept.mean() < 0.65
    np.testing.assert_allclose(y[kept], 1 / 0.6, rtol=1e-6)
    assert nn.Dropout(p=0.25).keep_prob == pytest.approx(0.75)
    with pytest.raises(ValueError):
        nn.Dropout(keep_prob=0.0)
    with pytest.raises(ValueError):
        nn.Dropout(p=1.0)


# --- Embedding -------------------------------------------------------------------------------
def test_embedding_looks_up_rows():
    emb = nn.Embedding(10, 4, padding_idx=0)
    table = emb.embedding_table.asnumpy()
    assert table.shape == (10, 4) and np.all(table[0] == 0)
    assert [p.name for p in emb.trainable_params()] == ["embedding_table"]
    ids = np.array([[1, 0, 9], [3, 3, 2]], np.int32)
    close(emb(Tensor(ids)), table[ids])
    one_hot = nn.Embedding(10, 4, use_one_hot=True, embedding_table=Tensor(table))
    close(one_hot(Tensor(ids)), table[ids])
    with pytest.raises(ms.DTypeError, match="integer ids"):
        emb(Tensor(ids.astype(np.float32)))


def test_embedding_gradient_accumulates_repeated_ids():
    emb = nn.Embedding(5, 2)
    ids = Tensor(np.array([1, 3, 1], np.int32))
    (g,) = ms.grad(lambda i: emb(i).sum(), None, emb.trainable_params())(ids)
    np.testing.assert_array_equal(g.asnumpy(), [[0, 0], [2, 2], [0, 0], [1, 1], [0, 0]])


# --- LayerNorm / GroupNorm ---------------------------------------------------------------------
def np_layer_norm(x, axes, eps):
    m = x.mean(axes, keepdims=True)
    v = x.var(axes, keepdims=True)
    return (x - m) / np.sqrt(v + eps)


def test_layer_norm_over_the_last_axis_with_mindspore_epsilon():
    ln = nn.LayerNorm((6,))
    assert ln.epsilon == 1e-7
    ln.gamma.set_data(rand(6))
    ln.beta.set_data(rand(6))
    x = rand(3, 4, 6)
    ref = np_layer_norm(x.astype(np.float64), (-1,), 1e-7) * ln.gamma.asnumpy() + ln.beta.asnumpy()
    close(ln(Tensor(x)), ref, rtol=1e-4, atol=1e-5)
    assert [p.name for p in ln.trainable_params()] == ["gamma", "beta"]


def test_layer_norm_with_begin_axes():
    x = rand(2, 3, 4)
    ln = nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1, epsilon=1e-5)
    close(ln(Tensor(x)), np_layer_norm(x.astype(np.float64), (1, 2), 1e-5), rtol=1e-4, atol=1e-5)
    ln2 = nn.LayerNorm((4,), begin_norm_axis=1, begin_params_axis=-1, epsilon=1e-5)
    ln2.gamma.set_data(rand(4))
    close(ln2(Tensor(x)), np_layer_norm(x.astype(np.float64), (1, 2), 1e-5) * ln2.gamma.asnumpy(),
          rtol=1e-4, atol=1e-5)
    with pytest.raises(ms.ShapeError, match="LayerNorm"):
        nn.LayerNorm((5,))(Tensor(x))


def test_group_norm_matches_numpy():
    gn = nn.GroupNorm(2, 4)
    gn.gamma.set_data(rand(4))
    x = rand(3, 4, 5, 5)
    g = x.reshape(3, 2, -1).astype(np.float64)
    ref = np_layer_norm(g, (2,), 1e-5).reshape(x.shape) * gn.gamma.asnumpy()[None, :, None, None]
    close(gn(Tensor(x)), ref, rtol=1e-4, atol=1e-5)


# --- Conv2d / Conv1d ----------------------------------------------------------------------------
def np_conv2d(x, w, b, stride, pads, dilation, groups):
    """Direct convolution: pads = (top, bottom, left, right)."""
    n, _, h, wd = x.shape
    o, cg, kh, kw = w.shape
    (sh, sw), (dh, dw) = stride, dilation
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pads[:2], pads[2:]))
    ho = (h + pads[0] + pads[1] - dh * (kh - 1) - 1) // sh + 1
    wo = (wd + pads[2] + pads[3] - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, ho, wo))
    og = o // groups
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                rows = slice(i * dh, i * dh + sh * (ho - 1) + 1, sh)
                cols = slice(j * dw, j * dw + sw * (wo - 1) + 1, sw)
                patch = xp[:, g * cg:(g + 1) * cg, rows, cols]
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, w[g * og:(g + 1) * og, :, i, j])
    return out if b is None else out + b[None, :, None, None]


def same_pads(size, k, s, d):
    total = max((math.ceil(size / s) - 1) * s + d * (k - 1) + 1 - size, 0)
    return total // 2, total - total // 2


def test_conv2d_defaults_follow_mindspore():
    conv = nn.Conv2d(3, 8, 3)
    assert conv.pad_mode == "same" and conv.has_bias is False and conv.bias is None
    assert [n for n, _ in conv.parameters_and_names()] == ["weight"]
    bound = 1 / math.sqrt(3 * 3 * 3)  # HeUniform(sqrt(5)) on fan_in = C_in * kh * kw
    w = conv.weight.asnumpy()
    assert w.shape == (8, 3, 3, 3) and np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert repr(conv) == ("Conv2d<input_channels=3, output_channels=8, kernel_size=(3, 3), stride=(1, 1), "
                          "pad_mode=same, padding=0, dilation=(1, 1), group=1, has_bias=False, "
                          f"weight_init={conv.weight_init!r}, bias_init={conv.bias_init!r}, format=NCHW>")


@pytest.mark.parametrize("kwargs,hw", [
    (dict(kernel_size=3, stride=2), (4, 5)),                                       # same: ceil(n / s)
    (dict(kernel_size=3, pad_mode="valid", dilation=2), (3, 5)),                    # valid: n - d(k-1)
    (dict(kernel_size=(3, 2), pad_mode="pad", padding=(1, 0, 2, 1), stride=(2, 1)), (3, 11)),
    (dict(kernel_size=3, pad_mode="pad", padding=1, group=2, has_bias=True), (7, 9)),
])
def test_conv2d_each_pad_mode_matches_numpy_and_mindspore_output_sizes(kwargs, hw):
    conv = nn.Conv2d(4, 6, **kwargs)
    x = rand(2, 4, 7, 9)
    out = conv(Tensor(x))
    k, s, d = conv.kernel_size, conv.stride, conv.dilation
    if conv.pad_mode == "same":
        pads = same_pads(7, k[0], s[0], d[0]) + same_pads(9, k[1], s[1], d[1])
    elif conv.pad_mode == "valid":
        pads = (0, 0, 0, 0)
    else:
        pads = (conv.padding,) * 4 if isinstance(conv.padding, int) else conv.padding
    b = conv.bias.asnumpy() if conv.bias is not None else None
    assert out.shape == (2, 6) + hw
    close(out, np_conv2d(x, conv.weight.asnumpy(), b, s, pads, d, conv.group), rtol=1e-4, atol=1e-5)


def test_conv1d_matches_a_unit_height_conv2d():
    conv = nn.Conv1d(3, 5, 3, pad_mode="pad", padding=(2, 1), has_bias=True)
    assert conv.weight.shape == (5, 3, 1, 3)  # MindSpore's layout
    x = rand(2, 3, 10)
    ref = np_conv2d(x[:, :, None], conv.weight.asnumpy(), conv.bias.asnumpy(), (1, 1), (0, 0, 2, 1),
                    (1, 1), 1)[:, :, 0]
    close(conv(Tensor(x)), ref, rtol=1e-4, atol=1e-5)


def test_conv2d_wrong_channels_points_at_the_users_line():
    conv = nn.Conv2d(3, 8, 3)
    line = sys._getframe().f_lineno + 2
    with pytest.raises(ms.ShapeError) as info:
        conv(Tensor(np.zeros((1, 4, 8, 8), np.float32)))
    assert info.value.op == "Conv2d" and "C=3" in info.value.expected and "(1, 4, 8, 8)" in info.value.actual
    assert (info.value.loc.file, info.value.loc.line) == (__file__, line)
    with pytest.raises(ValueError, match="pad_mode='pad'"):
        nn.Conv2d(3, 8, 3, padding=1)


# --- pooling ---------------------------------------------------------------------------------
def np_pool(x, k, s, pads, mode, count_pad=True):
    n, c, h, w = x.shape
    fill = -np.inf if mode == "max" else 0.0
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pads[:2], pads[2:]), constant_values=fill)
    ones = np.pad(np.ones((h, w)), (pads[:2], pads[2:]))
    ho = (h + pads[0] + pads[1] - k) // s + 1
    wo = (w + pads[2] + pads[3] - k) // s + 1
    out = np.zeros((n, c, ho, wo))
    for i in range(ho):
        for j in range(wo):
            win = xp[:, :, i * s:i * s + k, j * s:j * s + k]
            if mode == "max":
                out[:, :, i, j] = win.max((2, 3))
            else:
                cnt = k * k if count_pad else ones[i * s:i * s + k, j * s:j * s + k].sum()
                out[:, :, i, j] = win.sum((2, 3)) / cnt
    return out


@pytest.mark.parametrize("pad_mode,k,s,pads", [
    ("valid", 2, 2, (0, 0, 0, 0)),
    ("same", 3, 2, same_pads(7, 3, 2, 1) + same_pads(6, 3, 2, 1)),
    ("pad", 3, 2, (1, 1, 1, 1)),
])
def test_max_and_avg_pool_match_numpy(pad_mode, k, s, pads):
    x = rand(2, 3, 7, 6)
    padding = 1 if pad_mode == "pad" else 0
    mp = nn.MaxPool2d(kernel_size=k, stride=s, pad_mode=pad_mode, padding=padding)
    close(mp(Tensor(x)), np_pool(x, k, s, pads, "max"))
    ap = nn.AvgPool2d(kernel_size=k, stride=s, pad_mode=pad_mode, padding=padding)
    # MindSpore's 'same' average never counts the padding; 'pad' counts it (count_include_pad=True)
    close(ap(Tensor(x)), np_pool(x, k, s, pads, "avg", count_pad=pad_mode != "same"), rtol=1e-5)


def test_pool_defaults_1d_forms_and_adaptive():
    assert nn.MaxPool2d().kernel_size == (1, 1) and nn.MaxPool2d().pad_mode == "valid"
    x = rand(2, 3, 8)
    close(nn.MaxPool1d(2, 2)(Tensor(x)), x.reshape(2, 3, 4, 2).max(-1))
    close(nn.AvgPool1d(4, 4)(Tensor(x)), x.reshape(2, 3, 2, 4).mean(-1))
    x4 = rand(2, 3, 6, 4)
    close(nn.AdaptiveAvgPool2d((3, 2))(Tensor(x4)), x4.reshape(2, 3, 3, 2, 2, 2).mean((3, 5)))
    assert repr(nn.MaxPool2d(2, 2)) == "MaxPool2d<kernel_size=(2, 2), stride=(2, 2), pad_mode=valid>"


# --- BatchNorm -------------------------------------------------------------------------------
def test_batchnorm2d_training_uses_batch_stats_and_updates_moving_ones():
    bn = nn.BatchNorm2d(3, momentum=0.8)
    bn.gamma.set_data(rand(3))
    bn.beta.set_data(rand(3))
    x = rand(4, 3, 5, 5) * 2 + 1
    xd = x.astype(np.float64)
    mean, var = xd.mean((0, 2, 3)), xd.var((0, 2, 3))
    g, b = bn.gamma.asnumpy()[None, :, None, None], bn.beta.asnumpy()[None, :, None, None]
    bn.set_train()
    out = bn(Tensor(x))
    close(out, (xd - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5) * g + b,
          rtol=1e-4, atol=1e-5)
    close(bn.moving_mean, 0.8 * 0 + 0.2 * mean, rtol=1e-5)       # MindSpore: momentum weights the old value
    close(bn.moving_variance, 0.8 * 1 + 0.2 * xd.var((0, 2, 3), ddof=1), rtol=1e-5)  # unbiased, as MindSpore
    bn.set_train(False)
    mm, mv = bn.moving_mean.asnumpy().copy(), bn.moving_variance.asnumpy().copy()
    out = bn(Tensor(x))
    close(out, (xd - mm[None, :, None, None]) / np.sqrt(mv[None, :, None, None] + 1e-5) * g + b, rtol=1e-4,
          atol=1e-5)
    np.testing.assert_array_equal(bn.moving_mean.asnumpy(), mm)  # inference leaves them alone


def test_batchnorm_parameters_and_use_batch_statistics():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1d(4, use_batch_statistics=True)

        def construct(self, x):
            return self.bn(x)

    net = Net()
    assert [p.name for p in net.trainable_params()] == ["bn.gamma", "bn.beta"]
    assert [p.name for p in net.untrainable_params()] == ["bn.moving_mean", "bn.moving_variance"]
    x = rand(6, 4, 3)
    out = net(Tensor(x))  # inference mode, but batch statistics were asked for
    xd = x.astype(np.float64)
    ref = (xd - xd.mean((0, 2), keepdims=True)) / np.sqrt(xd.var((0, 2), keepdims=True) + 1e-5)
    close(out, ref, rtol=1e-4, atol=1e-5)
    assert nn.BatchNorm2d(3).momentum == 0.9
    with pytest.raises(ms.ShapeError, match=r"BatchNorm2d: expected input of shape \(N, C, H, W\) with C=3"):
        nn.BatchNorm2d(3)(Tensor(rand(2, 3, 4)))


# --- a whole CNN --------------------------------------------------------------------------------
def test_seed_simple_cnn_parameters_output_and_repr():
    net = SimpleCNN()
    # MindSpore's Conv2d has no bias by default, so the seed network has three parameters
    assert {n: p.shape for n, p in net.parameters_and_names()} == {
        "conv1.weight": (16, 3, 3, 3), "fc.weight": (10, 4096), "fc.bias": (10,)}
    assert [p.name for p in net.trainable_params()] == ["conv1.weight", "fc.weight", "fc.bias"]
    x = rand(2, 3, 32, 32)
    out = net(Tensor(x))
    h = np.maximum(np_conv2d(x, net.conv1.weight.asnumpy(), None, (1, 1), (1, 1, 1, 1), (1, 1), 1), 0)
    h = h.reshape(2, 16, 16, 2, 16, 2).max((3, 5)).reshape(2, -1)
    close(out, h @ net.fc.weight.asnumpy().T + net.fc.bias.asnumpy(), rtol=1e-4, atol=1e-5)
    text = repr(net)
    assert text.startswith("SimpleCNN<\n  (conv1): Conv2d<input_channels=3, output_channels=16, kernel_size=(3, 3)")
    assert "\n  (pool): MaxPool2d<kernel_size=(2, 2), stride=(2, 2), pad_mode=valid>" in text
    assert "\n  (fc): Dense<input_channels=4096, output_channels=10, has_bias=True>" in text


def test_cnn_with_batchnorm_gradients_match_finite_differences():
    class Tiny(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 2, 3, pad_mode="pad", padding=1, has_bias=True, dtype=ms.float64)
            self.bn = nn.BatchNorm2d(2, dtype=ms.float64)
            self.conv2 = nn.Conv2d(2, 2, 3, dtype=ms.float64)  # 'same': its input gradient is needed too
            self.pool = nn.AvgPool2d(2, 2)
            self.fc = nn.Dense(8, 1, dtype=ms.float64)

        def construct(self, x):
            return self.fc(nn.Flatten()(self.pool(self.conv2(nn.ReLU()(self.bn(self.conv(x)))))))

    net = Tiny().set_train()
    net.bn.gamma.set_data(np.array([1.5, 0.5]))
    x = Tensor(np.random.default_rng(3).standard_normal((3, 1, 4, 4)))
    params = [net.conv.weight, net.bn.gamma, net.conv2.weight, net.fc.weight]

    def loss(x):
        return (net(x) ** 2).sum()

    grads = ms.grad(loss, None, params)(x)
    eps = 1e-6
    for p, g in zip(params, grads):
        arr = p.asnumpy()
        num = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            old = arr[idx]
            arr[idx] = old + eps
            hi = float(loss(x).asnumpy())
            arr[idx] = old - eps
            lo = float(loss(x).asnumpy())
            arr[idx] = old
            num[idx] = (hi - lo) / (2 * eps)
        np.testing.assert_allclose(g.asnumpy(), num, rtol=1e-4, atol=1e-7, err_msg=p.name)


def test_shape_error_inside_a_network_points_at_the_construct_line():
    import inspect

    lines, start = inspect.getsourcelines(SimpleCNN.construct)
    fc_line = start + next(i for i, text in enumerate(lines) if "self.fc(x)" in text)
    with pytest.raises(ms.ShapeError) as info:
        SimpleCNN()(Tensor(np.zeros((2, 3, 28, 28), np.float32)))  # 28x28 images: 3136 features, not 4096
    assert (info.value.loc.file, info.value.loc.line) == (inspect.getsourcefile(SimpleCNN), fc_line)
    assert "got shape (2, 3136)" in str(info.value) and "return self.fc(x)" in str(info.value)
