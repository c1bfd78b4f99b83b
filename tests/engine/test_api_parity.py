"""Where Spore differed from MindSpore 2.10 in results or in checkpoint interchange (issue 14), each
checked against an independent oracle: NumPy (float64), the formula MindSpore documents, or a
checkpoint laid out as MindSpore writes it."""

from __future__ import annotations

import math

import numpy as np
import pytest

import spore as ms
from spore import nn, ops

from .gradcheck import check_vjp


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


# --- nn.Conv1d: MindSpore's (out, in/group, 1, k) weight ------------------------------------------
def np_conv1d(x, w, b, stride, pads, dilation, group):
    """Direct 1-D cross-correlation in float64; w is (out, in/group, k)."""
    n, c, length = x.shape
    out_c, cg, k = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), pads))
    span = dilation * (k - 1) + 1
    lo = (xp.shape[2] - span) // stride + 1
    y = np.zeros((n, out_c, lo))
    per = out_c // group
    for o in range(out_c):
        g = o // per
        for t in range(lo):
            seg = xp[:, g * cg:(g + 1) * cg, t * stride:t * stride + span:dilation]
            y[:, o, t] = (seg * w[o]).sum((1, 2))
    return y + (b[None, :, None] if b is not None else 0)


def test_conv1d_weight_has_mindspores_layout_and_a_mindspore_checkpoint_loads(tmp_path):
    conv = nn.Conv1d(4, 6, 3, stride=2, pad_mode="pad", padding=(1, 2), dilation=1, group=2, has_bias=True)
    assert conv.weight.shape == (6, 2, 1, 3)
    r = rng(1)
    w = r.standard_normal((6, 2, 1, 3)).astype(np.float32)
    b = r.standard_normal(6).astype(np.float32)
    path = str(tmp_path / "conv1d.ckpt")
    # written as MindSpore names and shapes them (a list of name/data entries, the 4-D weight)
    ms.save_checkpoint([{"name": "weight", "data": ms.Tensor(w)}, {"name": "bias", "data": ms.Tensor(b)}], path)
    not_loaded, _ = ms.load_param_into_net(conv, ms.load_checkpoint(path), strict_load=True)
    assert not_loaded == []
    np.testing.assert_array_equal(conv.weight.asnumpy(), w)
    x = r.standard_normal((2, 4, 11)).astype(np.float32)
    ref = np_conv1d(x.astype(np.float64), w[:, :, 0].astype(np.float64), b.astype(np.float64), 2, (1, 2), 1, 2)
    np.testing.assert_allclose(conv(ms.Tensor(x)).asnumpy(), ref, rtol=1e-5, atol=1e-5)


def test_conv1d_weight_gradient_has_the_weights_shape():
    conv = nn.Conv1d(3, 2, 3, has_bias=False)
    x = ms.Tensor(rng(2).standard_normal((1, 3, 7)).astype(np.float32))
    (g,) = ms.grad(lambda v: conv(v).sum(), None, conv.trainable_params())(x)
    assert g.shape == (2, 3, 1, 3)
    # d(sum y)/dw[o, c, 0, j] = sum over t of the input window entries: same for every o
    xs = np.pad(x.asnumpy()[0], ((0, 0), (1, 1)))
    want = np.stack([xs[:, j:j + 7].sum(1) for j in range(3)], 1)  # (3, 3): [c, j]
    np.testing.assert_allclose(g.asnumpy()[0, :, 0], want, rtol=1e-5)
    np.testing.assert_allclose(g.asnumpy()[1, :, 0], want, rtol=1e-5)


# --- nn.TransformerEncoderLayer: dense1/dense2 and the exact GELU ---------------------------------
def test_transformer_encoder_layer_names_its_feed_forward_dense1_dense2():
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)
    names = {n for n, _ in layer.parameters_and_names()}
    assert {"dense1.weight", "dense1.bias", "dense2.weight", "dense2.bias"} <= names
    assert not any(n.startswith("linear") for n in names)


def test_transformer_gelu_is_the_exact_erf_gelu():
    layer = nn.TransformerEncoderLayer(4, 1, dim_feedforward=8, dropout=0.0, activation="gelu")
    x = rng(3).standard_normal((5, 4)) * 2
    h = ms.Tensor(x.astype(np.float32))
    erf = np.vectorize(math.erf)
    exact = 0.5 * x * (1 + erf(x / math.sqrt(2)))
    tanh = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    got = layer.activation(h).asnumpy()
    np.testing.assert_allclose(got, exact, rtol=1e-5, atol=1e-6)
    assert np.abs(got - tanh).max() > 1e-4  # the two differ where this input reaches


# --- BatchNorm: the moving variance blends in the unbiased batch variance -------------------------
def test_batchnorm_moving_variance_uses_the_unbiased_batch_variance():
    bn = nn.BatchNorm1d(3, momentum=0.9)
    x = rng(4).standard_normal((6, 3)) * 3 + 1
    bn.set_train()
    out = bn(ms.Tensor(x.astype(np.float32))).asnumpy()
    n = x.shape[0]
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), 0.9 * 1 + 0.1 * x.var(0) * n / (n - 1), rtol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.1 * x.mean(0), rtol=1e-5, atol=1e-7)
    # the batch itself is normalised with the biased variance
    np.testing.assert_allclose(out, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), rtol=1e-4, atol=1e-5)


def test_functional_batch_norm_blends_the_unbiased_variance_too():
    x = rng(5).standard_normal((2, 3, 4, 5))
    rm, rv = ms.Tensor(np.zeros(3, np.float64)), ms.Tensor(np.ones(3, np.float64))
    ops.batch_norm(ms.Tensor(x), rm, rv, None, None, training=True, momentum=0.25)
    np.testing.assert_allclose(rv.asnumpy(), 0.75 + 0.25 * x.var((0, 2, 3), ddof=1), rtol=1e-10)


# --- nn.Embedding(padding_idx): zeroed at init, gradient flows ------------------------------------
def test_embedding_padding_row_starts_at_zero_and_gets_its_gradient():
    emb = nn.Embedding(5, 2, padding_idx=1)
    np.testing.assert_array_equal(emb.embedding_table.asnumpy()[1], [0, 0])
    ids = ms.Tensor(np.array([1, 3, 1, 0], np.int32))
    (g,) = ms.grad(lambda i: emb(i).sum(), None, emb.trainable_params())(ids)
    np.testing.assert_array_equal(g.asnumpy(), [[1, 1], [2, 2], [0, 0], [1, 1], [0, 0]])
    # one SGD step moves the padding row, as in MindSpore
    opt = nn.SGD(emb.trainable_params(), learning_rate=0.5)
    opt((g,))
    np.testing.assert_allclose(emb.embedding_table.asnumpy()[1], [-1.0, -1.0])


# --- nn.SGD: weight decay skips beta/gamma --------------------------------------------------------
def test_sgd_weight_decay_skips_parameters_named_beta_or_gamma():
    params = [ms.Parameter(ms.Tensor(np.full(2, 2.0, np.float32)), name=n)
              for n in ("fc.weight", "bn.gamma", "bn.beta", "ln.bias")]
    opt = nn.SGD(params, learning_rate=0.1, weight_decay=0.5)
    opt(tuple(ms.Tensor(np.zeros(2, np.float32)) for _ in params))
    got = [p.asnumpy()[0] for p in params]
    np.testing.assert_allclose(got, [2 - 0.1 * 0.5 * 2, 2.0, 2.0, 2 - 0.1 * 0.5 * 2], rtol=1e-6)


# --- ops.max / ops.min: int64 indices ------------------------------------------------------------
@pytest.mark.parametrize("fn,np_fn,np_arg", [(ops.max, np.max, np.argmax), (ops.min, np.min, np.argmin)])
def test_max_min_return_int64_indices(fn, np_fn, np_arg):
    x = rng(6).permutation(12).reshape(3, 4).astype(np.float32)
    values, index = fn(ms.Tensor(x), 1)
    assert index.dtype == ms.int64
    np.testing.assert_array_equal(index.asnumpy(), np_arg(x, 1))
    np.testing.assert_array_equal(values.asnumpy(), np_fn(x, 1))
    _, flat = fn(ms.Tensor(x))
    assert flat.dtype == ms.int64 and int(flat.asnumpy()) == int(np_arg(x))


# --- ops.unique: first-appearance order ----------------------------------------------------------
def test_unique_keeps_first_appearance_order():
    x = np.array([[5, 2, 5], [9, 2, 7]], np.int64)
    values, idx = ops.unique(ms.Tensor(x))
    np.testing.assert_array_equal(values.asnumpy(), [5, 2, 9, 7])
    np.testing.assert_array_equal(idx.asnumpy(), [[0, 1, 0], [2, 1, 3]])
    np.testing.assert_array_equal(values.asnumpy()[idx.asnumpy()], x)  # rebuilds the input
    f = np.array([0.5, -1.0, 0.5, 3.0], np.float32)
    v, i = ops.unique(ms.Tensor(f))
    np.testing.assert_array_equal(v.asnumpy(), [0.5, -1.0, 3.0])
    assert i.dtype == ms.int64


# --- ops.norm: 2, -2 and 'nuc' matrix norms -------------------------------------------------------
@pytest.mark.parametrize("ord_", [2, -2, "nuc"])
def test_matrix_norms_from_singular_values_match_numpy(ord_):
    a = rng(7).standard_normal((2, 3, 4))
    got = ops.norm(ms.Tensor(a), ord_, dim=(1, 2)).asnumpy()
    np.testing.assert_allclose(got, np.linalg.norm(a, ord_, axis=(1, 2)), rtol=1e-10)
    kept = ops.norm(ms.Tensor(a), ord_, dim=(0, 2), keepdim=True).asnumpy()
    np.testing.assert_allclose(kept, np.linalg.norm(a, ord_, axis=(0, 2), keepdims=True), rtol=1e-10)
    np.testing.assert_allclose(ops.norm(ms.Tensor(a[0]), ord_).asnumpy(), np.linalg.norm(a[0], ord_), rtol=1e-10)


@pytest.mark.parametrize("ord_", [2, -2, "nuc"])
def test_matrix_norm_gradients_match_finite_differences(ord_):
    a = rng(8).standard_normal((3, 4))

    def fn(x):
        return ops.norm(x, ord_)

    eps = 1e-6
    g = ms.grad(fn)(ms.Tensor(a)).asnumpy()
    num = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[idx] = eps
        num[idx] = (np.linalg.norm(a + d, ord_) - np.linalg.norm(a - d, ord_)) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-7)


def test_singular_values_gradient_by_the_registry_checker():
    from spore.ops.primitive import REGISTRY

    check_vjp(REGISTRY["SingularValues"], [rng(9).standard_normal((4, 3))], {})
