"""ctc_loss / nn.CTCLoss / ops.CTCLoss, RNNTLoss and EditDistance (issue 14, vision/sequence slice)
against brute-force oracles: every alignment path enumerated and summed (CTC, RNN-T), a memoised
recursive Levenshtein distance, and finite differences for the gradients."""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest

import spore as ms
from spore import nn, ops

T = ms.Tensor


def log_softmax(x: np.ndarray) -> np.ndarray:
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def brute_ctc(lp: np.ndarray, target: list[int], blank: int, merge: bool = True) -> float:
    """-log sum over every length-T path that collapses to `target` of its probability (lp (T, C))."""
    t_max, c = lp.shape
    total = 0.0
    for path in itertools.product(range(c), repeat=t_max):
        out, prev = [], None
        for k in path:
            if k != blank and (not merge or k != prev):
                out.append(k)
            prev = k
        if out == list(target):
            total += math.exp(sum(lp[t, k] for t, k in enumerate(path)))
    return -math.log(total) if total > 0 else math.inf


def fd(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    g = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        hi, lo = x.copy(), x.copy()
        hi[idx] += eps
        lo[idx] -= eps
        g[idx] = (f(hi) - f(lo)) / (2 * eps)
    return g


def _case(seed: int = 0):
    r = np.random.default_rng(seed)
    lp = log_softmax(r.standard_normal((5, 3, 4)))
    tg = np.array([[1, 2, 2], [3, 1, 0], [2, 3, 1]], np.int64)
    il = np.array([5, 4, 3], np.int64)
    tl = np.array([3, 2, 0], np.int64)
    return lp, tg, il, tl


# --- ctc_loss ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("blank", [0, 2])
def test_ctc_loss_matches_path_enumeration(blank):
    lp, tg, il, tl = _case()
    tg = np.where(tg == blank, (blank + 1) % 4, tg)
    loss, log_alpha = ops.ctc_loss(T(lp.astype(np.float32)), T(tg), T(il), T(tl), blank=blank, reduction="none")
    want = [brute_ctc(lp[:il[n], n], tg[n, :tl[n]].tolist(), blank) for n in range(3)]
    np.testing.assert_allclose(loss.asnumpy(), want, rtol=1e-5)
    assert log_alpha.shape == (3, 5, 7) and loss.dtype == ms.float32
    la = log_alpha.asnumpy()
    assert np.isneginf(la[1, 4]).all() and np.isneginf(la[2, :, 1:]).all()  # past input / label lengths
    # log_alpha at the last frame holds the likelihood: its two end states sum to exp(-loss)
    end = np.logaddexp(la[0, 4, 6], la[0, 4, 5])
    np.testing.assert_allclose(-end, want[0], rtol=1e-5)


def test_ctc_loss_reductions_and_tuple_lengths():
    lp, tg, il, tl = _case(1)
    per = np.array([brute_ctc(lp[:il[n], n], tg[n, :tl[n]].tolist(), 0) for n in range(3)])
    mean, _ = ops.ctc_loss(T(lp), T(tg), tuple(il.tolist()), tuple(tl.tolist()))
    np.testing.assert_allclose(mean.asnumpy(), np.mean(per / np.maximum(tl, 1)), rtol=1e-10)
    total, _ = ops.ctc_loss(T(lp), T(tg), T(il), T(tl), reduction="sum")
    np.testing.assert_allclose(total.asnumpy(), per.sum(), rtol=1e-10)


def test_ctc_loss_infinite_and_zero_infinity():
    lp = log_softmax(np.random.default_rng(2).standard_normal((2, 1, 3)))
    tg = np.array([[1, 1]], np.int64)  # 1 1 needs a blank between: 3 frames
    loss, _ = ops.ctc_loss(T(lp), T(tg), T(np.array([2])), T(np.array([2])), reduction="none")
    assert np.isinf(loss.asnumpy()).all()
    z, _ = ops.ctc_loss(T(lp), T(tg), T(np.array([2])), T(np.array([2])), reduction="none", zero_infinity=True)
    assert (z.asnumpy() == 0).all()
    g = ms.grad(lambda a: ops.ctc_loss(a, T(tg), T(np.array([2])), T(np.array([2])), reduction="sum",
                                       zero_infinity=True)[0])(T(lp))
    assert (g.asnumpy() == 0).all()


def test_ctc_loss_gradient_matches_finite_differences_and_logits_gradient():
    lp, tg, il, tl = _case(3)

    def loss_np(a: np.ndarray) -> float:
        return sum(brute_ctc(a[:il[n], n], tg[n, :tl[n]].tolist(), 0) / max(tl[n], 1) for n in range(3)) / 3

    g = ms.grad(lambda a: ops.ctc_loss(a, T(tg), T(il), T(tl))[0])(T(lp))
    np.testing.assert_allclose(g.asnumpy(), fd(loss_np, lp), rtol=1e-5, atol=1e-8)
    # through log_softmax (how it is used): the logits' gradient equals PyTorch's closed form softmax - occupancy
    x = np.random.default_rng(4).standard_normal((5, 3, 4))
    gx = ms.grad(lambda a: ops.ctc_loss(ops.log_softmax(a, 2), T(tg), T(il), T(tl), reduction="sum")[0])(T(x))
    np.testing.assert_allclose(gx.asnumpy(), fd(lambda a: sum(
        brute_ctc(log_softmax(a)[:il[n], n], tg[n, :tl[n]].tolist(), 0) for n in range(3)), x), rtol=1e-5, atol=1e-8)


def test_nn_ctc_loss_cell_and_unbatched_input():
    lp, tg, il, tl = _case(5)
    cell = nn.CTCLoss(blank=0, reduction="sum")
    got = cell(T(lp), T(tg), T(il), T(tl)).asnumpy()
    np.testing.assert_allclose(got, sum(brute_ctc(lp[:il[n], n], tg[n, :tl[n]].tolist(), 0) for n in range(3)),
                               rtol=1e-10)
    one = nn.CTCLoss(reduction="none")(T(lp[:, 0]), T(tg[0]), T(il[:1]), T(tl[:1])).asnumpy()
    np.testing.assert_allclose(one, brute_ctc(lp[:5, 0], tg[0].tolist(), 0), rtol=1e-10)
    with pytest.raises(ValueError, match="CTCLoss: reduction"):
        nn.CTCLoss(reduction="batchmean")


def test_ctc_loss_errors_name_the_op():
    lp, tg, il, tl = _case()
    with pytest.raises(ValueError, match="ctc_loss: input_lengths"):
        ops.ctc_loss(T(lp), T(tg), T(il + 1), T(tl))
    with pytest.raises(ValueError, match="ctc_loss: targets"):
        ops.ctc_loss(T(lp), T(tg + 5), T(il), T(tl))
    with pytest.raises(ValueError, match="ctc_loss"):
        ops.ctc_loss(T(lp[0]), T(tg), T(il), T(tl))
    with pytest.raises(ValueError, match="ctc_loss: reduction"):
        ops.ctc_loss(T(lp), T(tg), T(il), T(tl), reduction="avg")


# --- ops.CTCLoss (TensorFlow's) ------------------------------------------------------------------------
def _sparse(labels: list[list[int]]):
    idx = [(b, i) for b, lab in enumerate(labels) for i in range(len(lab))]
    vals = [v for lab in labels for v in lab]
    return T(np.array(idx, np.int64).reshape(-1, 2)), T(np.array(vals, np.int32))


@pytest.mark.parametrize("merge", [True, False])
@pytest.mark.parametrize("collapse", [False, True])
def test_tf_ctc_loss_matches_enumeration_and_its_gradient(merge, collapse):
    r = np.random.default_rng(6)
    x = r.standard_normal((4, 3, 4))
    labels = [[0, 0], [2, 1, 1], [1]]
    seq = np.array([4, 4, 3], np.int32)
    ind, vals = _sparse(labels)
    loss, grad = ops.CTCLoss(collapse, merge)(T(x.astype(np.float32)), ind, vals, T(seq))
    used = [[v for i, v in enumerate(lab) if i == 0 or v != lab[i - 1]] if collapse else lab for lab in labels]

    def nll(a: np.ndarray, b: int) -> float:
        return brute_ctc(log_softmax(a)[:seq[b], b], used[b], 3, merge)

    want = np.array([nll(x, b) for b in range(3)])
    np.testing.assert_allclose(loss.asnumpy(), want, rtol=1e-5)
    fin = np.isfinite(want)
    fdg = fd(lambda a: sum(nll(a, b) for b in range(3) if fin[b]), x)
    np.testing.assert_allclose(grad.asnumpy()[:, fin], fdg[:, fin], rtol=1e-3, atol=1e-5)
    assert (grad.asnumpy()[3, 2] == 0).all()  # past sequence_length


def test_tf_ctc_loss_longer_labels():
    x = T(np.zeros((2, 1, 3), np.float32))
    ind, vals = _sparse([[0, 1, 0]])
    with pytest.raises(ValueError, match="CTCLoss: labels of batch entry 0"):
        ops.CTCLoss()(x, ind, vals, T(np.array([2], np.int32)))
    loss, grad = ops.CTCLoss(ignore_longer_outputs_than_inputs=True)(x, ind, vals, T(np.array([2], np.int32)))
    assert loss.asnumpy().tolist() == [0.0] and (grad.asnumpy() == 0).all()


# --- RNNTLoss --------------------------------------------------------------------------------------------
def brute_rnnt(lp: np.ndarray, labels: list[int], blank: int) -> float:
    """-log of the sum over every lattice path (T frames, U labels, ending in the final blank)."""
    t_max, u1, _ = lp.shape
    u_max = len(labels)

    @functools.lru_cache(None)
    def walk(t: int, u: int) -> float:  # probability of finishing from node (t, u)
        if t == t_max - 1 and u == u_max:
            return math.exp(lp[t, u, blank])
        total = 0.0
        if t < t_max - 1:
            total += math.exp(lp[t, u, blank]) * walk(t + 1, u)
        if u < u_max:
            total += math.exp(lp[t, u, labels[u]]) * walk(t, u + 1)
        return total

    return -math.log(walk(0, 0))


def test_rnnt_loss_matches_lattice_enumeration_and_gradient():
    r = np.random.default_rng(7)
    acts = r.standard_normal((2, 4, 3, 5))
    labels = np.array([[1, 3], [4, 0]], np.int32)
    il = np.array([4, 3], np.int32)
    ll = np.array([2, 1], np.int32)
    costs, grads = ops.RNNTLoss(blank_label=0)(T(acts.astype(np.float32)), T(labels), T(il), T(ll))

    def cost(a: np.ndarray, b: int) -> float:
        return brute_rnnt(log_softmax(a[b, :il[b], :ll[b] + 1]), labels[b, :ll[b]].tolist(), 0)

    np.testing.assert_allclose(costs.asnumpy(), [cost(acts, 0), cost(acts, 1)], rtol=1e-5)
    want = fd(lambda a: cost(a, 0) + cost(a, 1), acts)
    np.testing.assert_allclose(grads.asnumpy(), want, rtol=1e-3, atol=1e-5)
    assert (grads.asnumpy()[1, 3] == 0).all() and (grads.asnumpy()[1, :, 2] == 0).all()
    blank2 = ops.RNNTLoss(blank_label=2)(T(acts), T(labels), T(il), T(ll))[0].asnumpy()
    np.testing.assert_allclose(blank2[0], brute_rnnt(log_softmax(acts[0]), [1, 3], 2), rtol=1e-10)


def test_rnnt_loss_errors():
    with pytest.raises(ValueError, match="RNNTLoss: expected labels"):
        ops.RNNTLoss()(T(np.zeros((1, 2, 3, 4), np.float32)), T(np.zeros((1, 3), np.int32)),
                       T(np.array([2], np.int32)), T(np.array([2], np.int32)))
    with pytest.raises(ValueError, match="RNNTLoss: input_lengths"):
        ops.RNNTLoss()(T(np.zeros((1, 2, 3, 4), np.float32)), T(np.zeros((1, 2), np.int32)),
                       T(np.array([3], np.int32)), T(np.array([2], np.int32)))


# --- EditDistance ----------------------------------------------------------------------------------------
def lev(a: tuple, b: tuple) -> int:
    @functools.lru_cache(None)
    def d(i: int, j: int) -> int:
        if i == 0 or j == 0:
            return i + j
        return min(d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (a[i - 1] != b[j - 1]))
    return d(len(a), len(b))


def _to_sparse(seqs: dict[tuple, list], rank: int):
    idx, vals = [], []
    for key, seq in seqs.items():
        for i, v in enumerate(seq):
            idx.append((*key, i))
            vals.append(v)
    return np.array(idx, np.int64).reshape(-1, rank), np.array(vals, np.int64)


@pytest.mark.parametrize("normalize", [True, False])
def test_edit_distance_matches_levenshtein(normalize):
    hyp = {(0, 0): [1, 2, 3], (0, 1): [4], (1, 0): [2, 2], (1, 2): [5, 6]}
    truth = {(0, 0): [1, 3], (0, 1): [4, 5, 6], (1, 0): [2, 2], (1, 1): [7, 8, 9]}
    hi, hv = _to_sparse(hyp, 3)
    ti, tv = _to_sparse(truth, 3)
    perm = np.random.default_rng(8).permutation(len(hv))  # the op reads the index order, not the storage order
    out = ops.EditDistance(normalize)(T(hi[perm]), T(hv[perm]), T(np.array([2, 3, 3])), T(ti), T(tv),
                                      T(np.array([2, 2, 3]))).asnumpy()
    assert out.shape == (2, 3) and out.dtype == np.float32
    want = np.zeros((2, 3))
    for key in set(hyp) | set(truth):
        h, t = tuple(hyp.get(key, [])), tuple(truth.get(key, []))
        dist = lev(h, t)
        want[key] = (dist / len(t) if t else math.inf) if normalize else dist
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_edit_distance_errors():
    ind = T(np.zeros((1, 2), np.int64))
    with pytest.raises(TypeError, match="EditDistance"):
        ops.EditDistance()(ind, T(np.array([1], np.int64)), T(np.array([1, 1])), ind, T(np.array([1], np.int32)),
                           T(np.array([1, 1])))
    with pytest.raises(ValueError, match="EditDistance"):
        ops.EditDistance()(ind, T(np.array([1], np.int64)), T(np.array([1, 1, 1])), ind,
                           T(np.array([1], np.int64)), T(np.array([1, 1])))


def test_class_form_losses_differentiate_through_their_gradient_output():
    r = np.random.default_rng(9)
    x = r.standard_normal((4, 2, 4))
    ind, vals = _sparse([[0, 2], [1]])
    seq = T(np.array([4, 3], np.int32))
    probe = r.standard_normal(2)
    op = ops.CTCLoss()
    g = ms.grad(lambda a: (op(a, ind, vals, seq)[0] * T(probe)).sum())(T(x)).asnumpy()
    grad_out = op(T(x), ind, vals, seq)[1].asnumpy()
    np.testing.assert_allclose(g, grad_out * probe[None, :, None], rtol=1e-12)
    np.testing.assert_allclose(g, fd(lambda a: (op(T(a), ind, vals, seq)[0].asnumpy() * probe).sum(), x), rtol=1e-5,
                               atol=1e-8)
    acts = r.standard_normal((2, 3, 3, 4))
    args = (T(np.array([[1, 2], [3, 0]], np.int32)), T(np.array([3, 2], np.int32)), T(np.array([2, 1], np.int32)))
    rnnt = ops.RNNTLoss()
    gr = ms.grad(lambda a: (rnnt(a, *args)[0] * T(probe)).sum())(T(acts)).asnumpy()
    np.testing.assert_allclose(gr, fd(lambda a: (rnnt(T(a), *args)[0].asnumpy() * probe).sum(), acts), rtol=1e-5,
                               atol=1e-8)
