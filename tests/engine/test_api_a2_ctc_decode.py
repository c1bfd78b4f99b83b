"""ctc_greedy_decoder / CTCGreedyDecoder (ops/ctc_decode_ops.py): MindSpore's documented example, an
itertools.groupby best-path reference on random logits (with and without merging), and errors."""

import itertools

import numpy as np
import pytest

import spore as ms
from spore import ops


def reference(x, lens, merge):
    blank = x.shape[2] - 1
    seqs, logp = [], []
    for b in range(x.shape[1]):
        best = x[:lens[b], b].argmax(-1).tolist()
        runs = [k for k, _ in itertools.groupby(best)] if merge else best
        seqs.append([c for c in runs if c != blank])
        logp.append(-x[:lens[b], b].max(-1).sum())
    return seqs, np.array(logp)[:, None]


def test_mindspore_documented_example():
    x = np.array([[[0.6, 0.4, 0.2], [0.8, 0.6, 0.3]], [[0.0, 0.6, 0.0], [0.5, 0.4, 0.5]]], np.float32)
    idx, val, shape, logp = ops.CTCGreedyDecoder()(ms.Tensor(x), ms.Tensor(np.array([2, 2], np.int32)))
    np.testing.assert_array_equal(idx.asnumpy(), [[0, 0], [0, 1], [1, 0]])
    np.testing.assert_array_equal(val.asnumpy(), [0, 1, 0])
    np.testing.assert_array_equal(shape.asnumpy(), [2, 2])
    np.testing.assert_allclose(logp.asnumpy(), [[-1.2], [-1.3]], rtol=1e-6)
    assert idx.dtype == ms.int64 and val.dtype == ms.int64 and logp.dtype == ms.float32


@pytest.mark.parametrize("merge", [True, False])
def test_matches_groupby_reference(merge):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(9, 4, 4))
    x[2:5, :, 1] += 3.0                                   # long runs of class 1, to be merged or kept
    lens = np.array([9, 0, 5, 7], np.int32)
    idx, val, shape, logp = ops.ctc_greedy_decoder(ms.Tensor(x), ms.Tensor(lens), merge)
    seqs, want_logp = reference(x, lens, merge)
    got = [[] for _ in seqs]
    for (b, i), v in zip(idx.asnumpy().tolist(), val.asnumpy().tolist(), strict=True):
        assert i == len(got[b])
        got[b].append(v)
    assert got == seqs
    np.testing.assert_array_equal(shape.asnumpy(), [4, max(len(s) for s in seqs)])
    np.testing.assert_allclose(logp.asnumpy(), want_logp, rtol=1e-12)


def test_errors_name_the_op():
    x = ms.Tensor(np.zeros((3, 2, 4), np.float32))
    with pytest.raises(Exception, match="ctc_greedy_decoder"):
        ops.ctc_greedy_decoder(ms.Tensor(np.zeros((3, 4), np.float32)), ms.Tensor(np.array([3], np.int32)))
    with pytest.raises(ValueError, match="ctc_greedy_decoder: sequence_length"):
        ops.ctc_greedy_decoder(x, ms.Tensor(np.array([4, 1], np.int32)))
    with pytest.raises(Exception, match="ctc_greedy_decoder"):
        ops.ctc_greedy_decoder(x, ms.Tensor(np.array([1, 1, 1], np.int32)))
    with pytest.raises(TypeError, match="CTCGreedyDecoder: merge_repeated"):
        ops.CTCGreedyDecoder(1)
