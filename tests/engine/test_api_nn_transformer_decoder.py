"""TransformerDecoderLayer / TransformerDecoder / Transformer (issue 14) against a NumPy
implementation of multi-head attention, the feed-forward block and LayerNorm, using the layers'
own parameters (eval mode: dropout off)."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import nn

RNG = np.random.default_rng(5)


def T(a):  # noqa: N802
    return ms.Tensor(np.asarray(a, np.float32))


def ln(x, g, b, eps=1e-5):
    m = x.mean(-1, keepdims=True)
    return (x - m) / np.sqrt(x.var(-1, keepdims=True) + eps) * g + b


def mha(prefix, params, q, k, v, heads, mask=None):
    """(L, N, E) sequence-first attention with packed in_proj."""
    w, b = params[prefix + "in_proj_weight"], params[prefix + "in_proj_bias"]
    e = q.shape[-1]
    qp, kp, vp = q @ w[:e].T + b[:e], k @ w[e:2 * e].T + b[e:2 * e], v @ w[2 * e:].T + b[2 * e:]
    d = e // heads

    def split(t):  # (L, N, E) -> (N, H, L, d)
        return t.reshape(t.shape[0], t.shape[1], heads, d).transpose(1, 2, 0, 3)

    s = split(qp) @ split(kp).transpose(0, 1, 3, 2) / np.sqrt(d)
    if mask is not None:
        s = s + mask
    a = np.exp(s - s.max(-1, keepdims=True))
    a = a / a.sum(-1, keepdims=True)
    o = (a @ split(vp)).transpose(2, 0, 1, 3).reshape(q.shape[0], q.shape[1], e)
    return o @ params[prefix + "out_proj.weight"].T + params[prefix + "out_proj.bias"]


def ref_decoder_layer(params, p, x, mem, heads, norm_first, mask=None):
    def ff(t):
        h = np.maximum(t @ params[p + "dense1.weight"].T + params[p + "dense1.bias"], 0)
        return h @ params[p + "dense2.weight"].T + params[p + "dense2.bias"]

    def norm(i, t):
        return ln(t, params[p + f"norm{i}.gamma"], params[p + f"norm{i}.beta"])

    if norm_first:
        n1 = norm(1, x)
        x = x + mha(p + "self_attn.", params, n1, n1, n1, heads, mask)
        n2 = norm(2, x)
        x = x + mha(p + "multihead_attn.", params, n2, mem, mem, heads)
        return x + ff(norm(3, x))
    x = norm(1, x + mha(p + "self_attn.", params, x, x, x, heads, mask))
    x = norm(2, x + mha(p + "multihead_attn.", params, x, mem, mem, heads))
    return norm(3, x + ff(x))


def params_of(cell):
    return {p.name: p.asnumpy().astype(np.float64) for p in cell.get_parameters()}


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_matches_numpy(norm_first):
    ms.set_seed(1)
    layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.1, norm_first=norm_first)
    layer.set_train(False)
    tgt, mem = RNG.standard_normal((4, 3, 8)), RNG.standard_normal((6, 3, 8))
    causal = np.triu(np.full((4, 4), -np.inf), 1)
    got = layer(T(tgt), T(mem), tgt_mask=T(causal)).asnumpy()
    ref = ref_decoder_layer(params_of(layer), "", tgt, mem, 2, norm_first, causal)
    np.testing.assert_allclose(got, ref, rtol=2e-4, atol=2e-5)
    names = {p.name for p in layer.get_parameters()}
    assert {"multihead_attn.in_proj_weight", "dense1.weight", "norm3.gamma"} <= names


def test_decoder_stack_and_transformer():
    ms.set_seed(2)
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 4, 16), 2, nn.LayerNorm((8,)))
    dec.set_train(False)
    tgt, mem = RNG.standard_normal((3, 2, 8)), RNG.standard_normal((5, 2, 8))
    params = params_of(dec)
    assert dec.layers[0].dense1.weight is not dec.layers[1].dense1.weight  # deep copies: own parameters
    x = tgt
    for i in range(2):
        x = ref_decoder_layer(params, f"layers.{i}.", x, mem, 4, False)
    x = ln(x, params["norm.gamma"], params["norm.beta"])
    np.testing.assert_allclose(dec(T(tgt), T(mem)).asnumpy(), x, rtol=2e-4, atol=2e-5)

    model = nn.Transformer(8, 2, 1, 1, 16, batch_first=True)
    model.set_train(False)
    src, tg = RNG.standard_normal((2, 5, 8)), RNG.standard_normal((2, 3, 8))
    out = model(T(src), T(tg)).asnumpy()
    assert out.shape == (2, 3, 8)
    memory = model.encoder(T(src)).asnumpy()
    np.testing.assert_allclose(out, model.decoder(T(tg), T(memory)).asnumpy(), rtol=1e-5, atol=1e-6)
    w = model.decoder.layers[0].dense1.weight.asnumpy()
    bound = np.sqrt(6 / (8 + 16))  # XavierUniform re-initialisation of every matrix
    assert np.abs(w).max() <= bound + 1e-6
    with pytest.raises(Exception, match="Transformer"):
        model(T(src), T(RNG.standard_normal((3, 3, 8))))
