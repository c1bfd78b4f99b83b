"""LSTM/GRU/RNN and MultiheadAttention against NumPy implementations of their equations."""

import numpy as np
import pytest

import spore as ms
import spore.nn as nn
from spore import Tensor


def sig(x):
    return 1 / (1 + np.exp(-x))


def np_params(cell, prefix=""):
    return {n: p.asnumpy().astype(np.float64) for n, p in cell.parameters_and_names()}


def reverse_within(x, lengths):
    """Reverse each batch column of a (T, B, ...) array within its own length."""
    out = x.copy()
    for b, n in enumerate(lengths):
        out[:n, b] = x[:n, b][::-1]
    return out


def np_recurrent(kind, x, p, hidden, layers, bidirectional, states, lengths=None):
    """Reference stacked RNN. Reverse directions run forward over each sequence reversed within its
    length (MindSpore's ReverseSequence formulation), so the masking logic is checked independently."""
    steps, batch = x.shape[:2]
    nd = 2 if bidirectional else 1
    lengths = np.full(batch, steps) if lengths is None else np.asarray(lengths)
    layer_in, h_n, c_n = x, [], []
    for layer in range(layers):
        outs = []
        for d in range(nd):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            w_ih, w_hh = p["weight_ih" + sfx], p["weight_hh" + sfx]
            b_ih, b_hh = p.get("bias_ih" + sfx, 0.0), p.get("bias_hh" + sfx, 0.0)
            k = layer * nd + d
            h = states[0][k].astype(np.float64)
            c = states[1][k].astype(np.float64) if kind == "LSTM" else None
            seq = reverse_within(layer_in, lengths) if d else layer_in
            out = np.zeros((steps, batch, hidden))
            for t in range(steps):
                xi = seq[t] @ w_ih.T + b_ih
                hh = h @ w_hh.T + b_hh
                if kind == "LSTM":
                    i, f, g, o = np.split(xi + hh, 4, axis=1)
                    c_new = sig(f) * c + sig(i) * np.tanh(g)
                    h_new = sig(o) * np.tanh(c_new)
                elif kind == "GRU":
                    xr, xz, xn = np.split(xi, 3, axis=1)
                    hr, hz, hn = np.split(hh, 3, axis=1)
                    r, z = sig(xr + hr), sig(xz + hz)
                    n = np.tanh(xn + r * hn)
                    h_new = (1 - z) * n + z * h
                else:
                    h_new = np.maximum(xi + hh, 0) if kind == "RNN_RELU" else np.tanh(xi + hh)
                live = (t < lengths)[:, None]
                h = np.where(live, h_new, h)
                if kind == "LSTM":
                    c = np.where(live, c_new, c)
                out[t] = np.where(live, h_new, 0)
            outs.append(reverse_within(out, lengths) if d else out)
            h_n.append(h)
            c_n.append(c)
        layer_in = np.concatenate(outs, axis=-1)
    return layer_in, np.stack(h_n), (np.stack(c_n) if kind == "LSTM" else None)


def rand(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


# --- LSTM --------------------------------------------------------------------------------------
def test_lstm_parameters_have_mindspore_names_and_shapes():
    lstm = nn.LSTM(3, 5, num_layers=2, bidirectional=True)
    shapes = {n: p.shape for n, p in lstm.parameters_and_names()}
    assert shapes["weight_ih_l0"] == (20, 3)
    assert shapes["weight_hh_l0_reverse"] == (20, 5)
    assert shapes["weight_ih_l1"] == (20, 10)
    assert shapes["bias_hh_l1_reverse"] == (20,)
    assert len(shapes) == 16

    class Wrap(nn.Cell):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(3, 4, has_bias=False)

    assert [p.name for p in Wrap().trainable_params()] == ["rnn.weight_ih_l0", "rnn.weight_hh_l0"]


def test_lstm_one_layer_matches_numpy():
    rng = np.random.default_rng(0)
    lstm = nn.LSTM(3, 4)
    x = rand(rng, 6, 2, 3)
    out, (h, c) = lstm(Tensor(x))
    zeros = np.zeros((1, 2, 4))
    ref_out, ref_h, ref_c = np_recurrent("LSTM", x, np_params(lstm), 4, 1, False, (zeros, zeros))
    assert out.shape == (6, 2, 4) and h.shape == (1, 2, 4) and c.shape == (1, 2, 4)
    np.testing.assert_allclose(out.asnumpy(), ref_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.asnumpy(), ref_h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.asnumpy(), ref_c, rtol=1e-5, atol=1e-6)


def test_two_layer_bidirectional_batch_first_lstm_with_initial_state_matches_numpy():
    rng = np.random.default_rng(1)
    lstm = nn.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True)
    x = rand(rng, 2, 5, 3)  # (batch, seq, feature)
    h0, c0 = rand(rng, 4, 2, 4), rand(rng, 4, 2, 4)
    out, (h, c) = lstm(Tensor(x), (Tensor(h0), Tensor(c0)))
    ref_out, ref_h, ref_c = np_recurrent("LSTM", x.transpose(1, 0, 2), np_params(lstm), 4, 2, True, (h0, c0))
    assert out.shape == (2, 5, 8) and h.shape == (4, 2, 4)
    np.testing.assert_allclose(out.asnumpy(), ref_out.transpose(1, 0, 2), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.asnumpy(), ref_h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.asnumpy(), ref_c, rtol=1e-5, atol=1e-6)


def test_lstm_seq_length_stops_each_sequence_at_its_length():
    rng = np.random.default_rng(2)
    lstm = nn.LSTM(2, 3, bidirectional=True)
    x = rand(rng, 5, 3, 2)
    lengths = np.array([5, 2, 3])
    out, (h, c) = lstm(Tensor(x), seq_length=Tensor(lengths.astype(np.int32)))
    zeros = np.zeros((2, 3, 3))
    ref_out, ref_h, ref_c = np_recurrent("LSTM", x, np_params(lstm), 3, 1, True, (zeros, zeros), lengths)
    np.testing.assert_allclose(out.asnumpy(), ref_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.asnumpy(), ref_h, rtol=1e-5, atol=1e-6)
    assert np.all(out.asnumpy()[2:, 1] == 0)  # past the second sequence's length


def test_gru_and_relu_rnn_match_numpy():
    rng = np.random.default_rng(3)
    x = rand(rng, 4, 2, 3)
    gru = nn.GRU(3, 5, num_layers=2)
    out, h = gru(Tensor(x))
    zeros = np.zeros((2, 2, 5))
    ref_out, ref_h, _ = np_recurrent("GRU", x, np_params(gru), 5, 2, False, (zeros,))
    np.testing.assert_allclose(out.asnumpy(), ref_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.asnumpy(), ref_h, rtol=1e-5, atol=1e-6)
    rnn = nn.RNN(3, 4, nonlinearity="relu", bidirectional=True)
    out, h = rnn(Tensor(x))
    ref_out, ref_h, _ = np_recurrent("RNN_RELU", x, np_params(rnn), 4, 1, True, (np.zeros((2, 2, 4)),))
    np.testing.assert_allclose(out.asnumpy(), ref_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.asnumpy(), ref_h, rtol=1e-5, atol=1e-6)


def test_lstm_gradients_match_finite_differences():
    lstm = nn.LSTM(2, 2, bidirectional=True, dtype=ms.float64)
    x = Tensor(np.random.default_rng(4).standard_normal((3, 2, 2)))
    w = lstm.w_hh_list[1]

    def loss(x):
        out, (h, c) = lstm(x)
        return (out * out).sum() + c.sum()

    gx, gw = ms.grad(loss, 0, [w])(x)
    eps = 1e-6
    for arr, g in ((x.asnumpy(), gx), (w.asnumpy(), gw[0])):
        num = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            old = arr[idx]
            arr[idx] = old + eps
            hi = float(loss(x).asnumpy())
            arr[idx] = old - eps
            lo = float(loss(x).asnumpy())
            arr[idx] = old
            num[idx] = (hi - lo) / (2 * eps)
        np.testing.assert_allclose(g.asnumpy(), num, rtol=1e-5, atol=1e-8)


def test_lstm_wrong_input_size_names_the_layer():
    lstm = nn.LSTM(3, 4)
    with pytest.raises(ms.ShapeError, match=r"LSTM: expected a 3-D input \(seq, batch, input_size\) "
                                            r"with input_size=3, got shape \(5, 2, 7\)"):
        lstm(Tensor(np.zeros((5, 2, 7), np.float32)))


# --- MultiheadAttention -----------------------------------------------------------------------
def np_mha(q, k, v, p, heads, key_padding_mask=None, attn_mask=None, average=True):
    """Reference attention on (L, N, E) inputs with PyTorch/MindSpore mask semantics."""
    L, N, E = q.shape
    S = k.shape[0]
    hd = E // heads
    if "in_proj_weight" in p:
        wq, wk, wv = np.split(p["in_proj_weight"], 3)
    else:
        wq, wk, wv = p["q_proj_weight"], p["k_proj_weight"], p["v_proj_weight"]
    bq, bk, bv = np.split(p["in_proj_bias"], 3)
    Q = (q @ wq.T + bq).reshape(L, N, heads, hd).transpose(1, 2, 0, 3)
    K = (k @ wk.T + bk).reshape(S, N, heads, hd).transpose(1, 2, 0, 3)
    V = (v @ wv.T + bv).reshape(S, N, heads, hd).transpose(1, 2, 0, 3)
    scores = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(hd)  # (N, H, L, S)
    if attn_mask is not None:
        m = attn_mask if attn_mask.ndim == 2 else attn_mask.reshape(N, heads, L, S)
        scores = np.where(m, -np.inf, scores) if m.dtype == bool else scores + m
    if key_padding_mask is not None:
        scores = np.where(key_padding_mask[:, None, None, :], -np.inf, scores)
    w = np.exp(scores - scores.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    out = (w @ V).transpose(2, 0, 1, 3).reshape(L, N, E)
    out = out @ p["out_proj.weight"].T + p["out_proj.bias"]
    return out, (w.mean(1) if average else w)


def test_multihead_attention_parameter_names():
    mha = nn.MultiheadAttention(8, 2)
    assert [n for n, _ in mha.parameters_and_names()] == ["in_proj_weight", "in_proj_bias",
                                                         "out_proj.weight", "out_proj.bias"]
    assert mha.in_proj_weight.shape == (24, 8)
    other = nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True)
    assert {n: p.shape for n, p in other.parameters_and_names()} == {
        "q_proj_weight": (8, 8), "k_proj_weight": (8, 3), "v_proj_weight": (8, 5), "in_proj_bias": (24,),
        "out_proj.weight": (8, 8), "out_proj.bias": (8,), "bias_k": (1, 1, 8), "bias_v": (1, 1, 8)}


def _randomize_bias(mha, rng):
    mha.in_proj_bias.set_data(rng.standard_normal(mha.in_proj_bias.shape).astype(np.float32))


def test_self_attention_matches_numpy():
    rng = np.random.default_rng(5)
    mha = nn.MultiheadAttention(8, 2)
    _randomize_bias(mha, rng)
    x = Tensor(rand(rng, 4, 3, 8))
    out, w = mha(x, x, x)
    ref_out, ref_w = np_mha(x.asnumpy(), x.asnumpy(), x.asnumpy(), np_params(mha), 2)
    assert out.shape == (4, 3, 8) and w.shape == (3, 4, 4)
    np.testing.assert_allclose(out.asnumpy(), ref_out, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


def test_cross_attention_with_masks_matches_numpy():
    rng = np.random.default_rng(6)
    mha = nn.MultiheadAttention(6, 3)
    _randomize_bias(mha, rng)
    q, k, v = rand(rng, 2, 2, 6), rand(rng, 5, 2, 6), rand(rng, 5, 2, 6)
    kpm = np.array([[False, False, True, False, True], [False, True, False, False, False]])
    causal = np.triu(np.ones((2, 5), bool), k=4)
    out, w = mha(Tensor(q), Tensor(k), Tensor(v), key_padding_mask=Tensor(kpm), attn_mask=Tensor(causal),
                 average_attn_weights=False)
    ref_out, ref_w = np_mha(q, k, v, np_params(mha), 3, kpm, causal, average=False)
    assert w.shape == (2, 3, 2, 5)
    np.testing.assert_allclose(out.asnumpy(), ref_out, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    assert np.all(w.asnumpy()[0, :, :, 2] == 0) and np.all(w.asnumpy()[:, :, 0, 4] == 0)


def test_float_and_per_head_attention_masks_are_added_to_the_scores():
    rng = np.random.default_rng(7)
    mha = nn.MultiheadAttention(4, 2)
    q, k = rand(rng, 3, 2, 4), rand(rng, 3, 2, 4)
    mask3 = rand(rng, 4, 3, 3)  # (N * heads, L, S)
    out, w = mha(Tensor(q), Tensor(k), Tensor(k), attn_mask=Tensor(mask3))
    ref_out, ref_w = np_mha(q, k, k, np_params(mha), 2, attn_mask=mask3)
    np.testing.assert_allclose(out.asnumpy(), ref_out, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


def test_batch_first_unbatched_and_separate_kv_dims():
    rng = np.random.default_rng(8)
    mha = nn.MultiheadAttention(4, 2, kdim=3, vdim=5, batch_first=True)
    q, k, v = rand(rng, 2, 3, 4), rand(rng, 2, 6, 3), rand(rng, 2, 6, 5)
    out, w = mha(Tensor(q), Tensor(k), Tensor(v))
    ref_out, ref_w = np_mha(q.transpose(1, 0, 2), k.transpose(1, 0, 2), v.transpose(1, 0, 2), np_params(mha), 2)
    np.testing.assert_allclose(out.asnumpy(), ref_out.transpose(1, 0, 2), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    single = nn.MultiheadAttention(4, 1)
    x = rand(rng, 3, 4)
    out, w = single(Tensor(x), Tensor(x), Tensor(x))
    ref_out, ref_w = np_mha(x[:, None], x[:, None], x[:, None], np_params(single), 1)
    assert out.shape == (3, 4) and w.shape == (3, 3)
    np.testing.assert_allclose(out.asnumpy(), ref_out[:, 0], rtol=1e-5, atol=1e-5)
    out2, none = single(Tensor(x), Tensor(x), Tensor(x), need_weights=False)
    assert none is None
    np.testing.assert_allclose(out2.asnumpy(), out.asnumpy())


def test_attention_gradient_matches_finite_differences():
    mha = nn.MultiheadAttention(4, 2, dtype=ms.float64)
    x = Tensor(np.random.default_rng(9).standard_normal((3, 1, 4)))
    w = mha.in_proj_weight

    def loss(x):
        out, _ = mha(x, x, x)
        return (out * out).sum()

    (g,) = ms.grad(loss, None, [w])(x)
    arr, eps = w.asnumpy(), 1e-6
    num = np.zeros_like(arr)
    for idx in np.ndindex(arr.shape):
        old = arr[idx]
        arr[idx] = old + eps
        hi = float(loss(x).asnumpy())
        arr[idx] = old - eps
        lo = float(loss(x).asnumpy())
        arr[idx] = old
        num[idx] = (hi - lo) / (2 * eps)
    np.testing.assert_allclose(g.asnumpy(), num, rtol=1e-5, atol=1e-8)


def test_attention_rejects_a_wrong_embedding_size():
    mha = nn.MultiheadAttention(8, 2)
    x = Tensor(np.zeros((3, 2, 6), np.float32))
    with pytest.raises(ms.ShapeError, match=r"MultiheadAttention: expected query of shape \(L, N, 8\)"):
        mha(x, x, x)


# --- dropout and the encoder layer ---------------------------------------------------------------
def test_recurrent_and_attention_dropout_apply_only_in_training():
    x = Tensor(rand(np.random.default_rng(10), 5, 2, 4))
    for cell, run in ((nn.LSTM(4, 4, num_layers=2, dropout=0.5), lambda c: c(x)[0]),
                      (nn.MultiheadAttention(4, 2, dropout=0.5), lambda c: c(x, x, x)[1])):
        a, b = run(cell).asnumpy(), run(cell).asnumpy()
        np.testing.assert_array_equal(a, b)
        cell.set_train()
        assert np.abs(run(cell).asnumpy() - a).max() > 1e-3


def np_layer_norm(x, gamma, beta, eps):
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps) * gamma + beta


def test_transformer_encoder_layer_matches_numpy_and_encoder_copies_it():
    rng = np.random.default_rng(11)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.1)
    x = rand(rng, 3, 2, 8)
    p = np_params(layer)
    sa = {k[len("self_attn."):]: v for k, v in p.items() if k.startswith("self_attn.")}
    h = np_layer_norm(x + np_mha(x, x, x, sa, 2)[0], p["norm1.gamma"], p["norm1.beta"], 1e-5)
    ff = np.maximum(h @ p["dense1.weight"].T + p["dense1.bias"], 0) @ p["dense2.weight"].T + p["dense2.bias"]
    ref = np_layer_norm(h + ff, p["norm2.gamma"], p["norm2.beta"], 1e-5)
    np.testing.assert_allclose(layer(Tensor(x)).asnumpy(), ref, rtol=1e-4, atol=1e-5)
    enc = nn.TransformerEncoder(layer, 2)
    names = [n for n, _ in enc.parameters_and_names()]
    assert "layers.0.self_attn.in_proj_weight" in names and "layers.1.dense2.bias" in names
    assert enc.layers[0].dense1.weight is not enc.layers[1].dense1.weight
    assert enc.layers[1].dense1.weight.name == "layers.1.dense1.weight"
    ref2 = enc.layers[1](enc.layers[0](Tensor(x)))
    np.testing.assert_allclose(enc(Tensor(x)).asnumpy(), ref2.asnumpy(), rtol=1e-6)
