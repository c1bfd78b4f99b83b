"""Candidate samplers (ops/candidate_sampling.py), nn.SampledSoftmaxLoss and
nn.MultiFieldEmbeddingLookup (nn/sampled_embedding.py) against NumPy/SciPy oracles."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import spore as ms
from spore import nn, ops

T = ms.Tensor
TRUE = T(np.array([[1], [3]], np.int64))


def test_uniform_sampler_unique_and_avoiding_true_classes():
    s, te, se = ops.UniformCandidateSampler(1, 6, True, 10, seed=3, remove_accidental_hits=True)(TRUE)
    v = s.asnumpy()
    assert v.dtype == np.int64 and len(set(v.tolist())) == 6 and not ({1, 3} & set(v.tolist()))
    assert v.min() >= 0 and v.max() < 10
    assert te.shape == (2, 1) and se.shape == (6,) and te.dtype == ms.float32
    # unique: 1 - (1 - p) ** tries with an integer number of tries >= num_sampled
    tries = np.log1p(-se.asnumpy().astype(np.float64)) / np.log1p(-0.1)
    assert np.all(tries >= 6 - 1e-3) and np.allclose(tries, np.round(tries), atol=2e-3)
    np.testing.assert_allclose(te.asnumpy(), np.full((2, 1), se.asnumpy()[0]))


def test_uniform_sampler_with_replacement_is_uniform():
    op = ops.UniformCandidateSampler(1, 50, False, 5, seed=7)
    draws = np.concatenate([op(TRUE.astype(ms.int32))[0].asnumpy() for _ in range(40)])
    assert draws.dtype == np.int32
    counts = np.bincount(draws, minlength=5)
    assert stats.chisquare(counts).pvalue > 1e-3
    _, te, se = op(TRUE)
    np.testing.assert_allclose(se.asnumpy(), np.full(50, 50 / 5))
    with pytest.raises(ValueError, match="UniformCandidateSampler"):
        ops.UniformCandidateSampler(1, 6, True, 5)


def test_log_uniform_sampler_matches_zipf():
    rmax = 8
    op = ops.LogUniformCandidateSampler(1, 400, False, rmax, seed=2)
    draws = np.concatenate([op(TRUE)[0].asnumpy() for _ in range(10)])
    p = np.log((np.arange(rmax) + 2.0) / (np.arange(rmax) + 1.0)) / np.log(rmax + 1.0)
    assert abs(p.sum() - 1) < 1e-12
    assert stats.chisquare(np.bincount(draws, minlength=rmax), p * draws.size).pvalue > 1e-3
    s, te, se = op(TRUE)
    np.testing.assert_allclose(se.asnumpy(), p[s.asnumpy()] * 400, rtol=1e-6)
    np.testing.assert_allclose(te.asnumpy(), p[[[1], [3]]] * 400, rtol=1e-6)
    s2, _, _ = ops.log_uniform_candidate_sampler(TRUE, 1, 5, True, 8, seed=1)
    assert len(set(s2.asnumpy().tolist())) == 5


def test_functional_forms_follow_the_seed():
    a = ops.uniform_candidate_sampler(TRUE, 1, 4, True, 9, seed=5)[0].asnumpy()
    b = ops.uniform_candidate_sampler(TRUE, 1, 4, True, 9, seed=5)[0].asnumpy()
    np.testing.assert_array_equal(a, b)


def test_compute_accidental_hits_vs_brute_force():
    r = np.random.default_rng(0)
    tc = r.integers(0, 6, (4, 2)).astype(np.int64)
    sc = r.integers(0, 6, 5).astype(np.int64)
    idx, ids, w = ops.ComputeAccidentalHits(2)(T(tc), T(sc))
    want = [(i, j) for i in range(4) for j in range(5) if sc[j] in set(tc[i].tolist())]
    assert list(zip(idx.asnumpy().tolist(), ids.asnumpy().tolist())) == want
    assert idx.dtype == ms.int32 and ids.dtype == ms.int64
    np.testing.assert_array_equal(w.asnumpy(), np.full(len(want), -np.finfo(np.float32).max, np.float32))


def _np_sampled_softmax(w, b, labels, x, sampled, te, se, num_true):
    tl = np.einsum("bd,btd->bt", x, w[labels]) + b[labels] - np.log(te)
    sl = x @ w[sampled].T + b[sampled] - np.log(se)
    logits = np.concatenate([tl, sl], 1)
    tgt = np.concatenate([np.full_like(tl, 1.0 / num_true), np.zeros_like(sl)], 1)
    e = np.exp(logits - logits.max(1, keepdims=True))
    return -(tgt * np.log(e / e.sum(1, keepdims=True) + 1e-20)).sum(1)


def test_sampled_softmax_loss_vs_numpy_and_gradient():
    r = np.random.default_rng(1)
    w, b, x = (r.standard_normal(s).astype(np.float32) for s in ((9, 4), (9,), (3, 4)))
    labels = np.array([[0, 2], [5, 1], [8, 3]], np.int32)
    sampled = np.array([4, 6, 7], np.int64)
    te, se = np.full((3, 2), 0.3, np.float32), np.array([0.2, 0.5, 0.25], np.float32)
    loss = nn.SampledSoftmaxLoss(3, 9, num_true=2, sampled_values=(T(sampled), T(te), T(se)))
    out = loss(T(w), T(b), T(labels), T(x))
    np.testing.assert_allclose(out.asnumpy(), _np_sampled_softmax(w, b, labels, x, sampled, te, se, 2), rtol=1e-5)
    mean = nn.SampledSoftmaxLoss(3, 9, num_true=2, sampled_values=(T(sampled), T(te), T(se)), reduction="mean")
    g = ms.grad(lambda wt: mean(wt, T(b), T(labels), T(x)))(T(w)).asnumpy()
    eps, num = 1e-3, np.zeros_like(w, np.float64)
    w64 = w.astype(np.float64)
    for i in np.ndindex(*w.shape):
        d = np.zeros_like(w64)
        d[i] = eps
        num[i] = (_np_sampled_softmax(w64 + d, b, labels, x, sampled, te, se, 2).mean()
                  - _np_sampled_softmax(w64 - d, b, labels, x, sampled, te, se, 2).mean()) / (2 * eps)
    np.testing.assert_allclose(g, num, atol=2e-3)


def test_sampled_softmax_loss_with_its_sampler():
    ms.set_seed(0)
    loss = nn.SampledSoftmaxLoss(num_sampled=4, num_classes=7, seed=2)
    r = np.random.default_rng(2)
    out = loss(T(r.standard_normal((7, 3)).astype(np.float32)), T(np.zeros(7, np.float32)),
               T(np.array([0, 1, 2], np.int32)), T(r.standard_normal((3, 3)).astype(np.float32)))
    assert out.shape == (3,) and np.all(np.isfinite(out.asnumpy())) and np.all(out.asnumpy() > 0)
    with pytest.raises(ValueError, match="num_sampled"):
        nn.SampledSoftmaxLoss(8, 7)


def _np_multi_field(table, ids, vals, fields, nf, op):
    batch = ids.shape[0]
    out = np.zeros((batch, nf, table.shape[1]), np.float32)
    for bi in range(batch):
        for f in range(nf):
            m = fields[bi] == f
            rows = table[ids[bi][m]] * vals[bi][m][:, None]
            if op == "SUM":
                out[bi, f] = rows.sum(0)
            elif op == "MEAN":
                c = np.abs(vals[bi][m]).sum()
                out[bi, f] = rows.sum(0) / c if c else 0
            else:
                keep = vals[bi][m] != 0
                out[bi, f] = rows[keep].max(0) if keep.any() else 0
    return out


@pytest.mark.parametrize("op", ["SUM", "MEAN", "MAX"])
def test_multi_field_embedding_lookup_vs_numpy(op):
    ids = np.array([[2, 4, 6, 0, 0], [1, 3, 5, 0, 0]], np.int32)
    vals = np.array([[1, 0.5, 2, 0, 0], [1, -1, 1, 0, 0]], np.float32)
    fields = np.array([[0, 1, 1, 0, 0], [0, 0, 1, 0, 2]], np.int32)
    net = nn.MultiFieldEmbeddingLookup(10, 3, field_size=3, operator=op)
    out = net(T(ids), T(vals), T(fields)).asnumpy()
    table = net.embedding_table.asnumpy()
    np.testing.assert_allclose(out, _np_multi_field(table, ids, vals, fields, 3, op), rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="operator"):
        nn.MultiFieldEmbeddingLookup(10, 3, 2, operator="MIN")
