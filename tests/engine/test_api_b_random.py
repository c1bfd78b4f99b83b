"""Distributions of random_distribution_ops' samplers, checked by moments and frequencies on large
draws (fixed seeds: deterministic), and their seeding and shapes."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import spore as ms
from spore import ops
from spore.errors import ShapeError


def T(a, dt=None):
    return ms.Tensor(np.asarray(a, dt))


def test_standard_normal_and_laplace_moments():
    ms.set_seed(11)
    z = ops.standard_normal((20000,)).asnumpy()
    assert z.dtype == np.float32 and abs(z.mean()) < 0.03 and abs(z.std() - 1) < 0.03
    lap = ops.standard_laplace((20000,), seed=3).asnumpy()
    assert stats.kstest(lap, "laplace").pvalue > 1e-3
    np.testing.assert_array_equal(lap, ops.standard_laplace((20000,), seed=3).asnumpy())  # a seed repeats
    lp = ops.laplace((4000, 2), T(np.float32(2.0)), T(np.float32(0.5)), seed=1).asnumpy()
    assert abs(np.median(lp) - 2.0) < 0.05 and abs(np.abs(lp - 2.0).mean() - 0.5) < 0.05
    assert ops.StandardNormal(seed=2)((3, 4)).shape == (3, 4)
    u = ops.UniformReal(seed=5)((5000,)).asnumpy()
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.02
    i = ops.UniformInt(seed=5)((4000,), 2, 7).asnumpy()
    assert i.dtype == np.int32 and set(np.unique(i)) == {2, 3, 4, 5, 6}


def test_gamma_and_poisson():
    alpha = T(np.array([0.5, 2.0, 5.0], np.float32))
    g = ops.random_gamma((6000,), alpha, seed=7).asnumpy()
    assert g.shape == (6000, 3)
    np.testing.assert_allclose(g.mean(0), [0.5, 2.0, 5.0], rtol=0.06)
    np.testing.assert_allclose(g.var(0), [0.5, 2.0, 5.0], rtol=0.12)
    p = ops.random_poisson((5000,), T(np.array([1.0, 4.0], np.float32)), seed=1, dtype=ms.int32).asnumpy()
    assert p.dtype == np.int32 and p.shape == (5000, 2)
    np.testing.assert_allclose(p.mean(0), [1.0, 4.0], rtol=0.05)
    q = ops.poisson((3000, 2), T(np.array([3.0, 0.5], np.float32)), seed=2).asnumpy()
    np.testing.assert_allclose(q.mean(0), [3.0, 0.5], rtol=0.08)
    assert ops.RandomGamma(seed=1)((2,), alpha).shape == (2, 3)
    assert ops.Poisson(seed=1)((4, 2), T(np.array([1.0, 2.0], np.float32))).dtype == ms.int32
    assert ops.RandomPoisson(seed=1)((4,), T(np.array([1.0], np.float32))).dtype == ms.int64


def test_categorical_and_multinomial_frequencies():
    probs = np.array([[0.1, 0.6, 0.3], [0.5, 0.0, 0.5]])
    draws = ops.random_categorical(T(np.log(probs + 1e-30)), 8000, seed=3).asnumpy()
    assert draws.shape == (2, 8000) and draws.dtype == np.int64
    for row in range(2):
        freq = np.bincount(draws[row], minlength=3) / 8000
        np.testing.assert_allclose(freq, probs[row], atol=0.02)
    m = ops.multinomial(T(probs * 10), 6000, seed=4).asnumpy()
    np.testing.assert_allclose(np.bincount(m[0], minlength=3) / 6000, probs[0], atol=0.02)
    assert (m[1] != 1).all()  # zero weight: never drawn
    w = ops.multinomial(T(np.array([1.0, 1.0, 1.0, 5.0])), 4, replacement=False, seed=1).asnumpy()
    assert sorted(w.tolist()) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="multinomial"):
        ops.multinomial(T(np.ones(3)), 4, replacement=False)
    assert ops.Multinomial(seed=1)(T(probs), 5).dtype == ms.int32
    assert ops.RandomCategorical()(T(np.log(probs + 1e-30)), 3, 1).shape == (2, 3)
    with pytest.raises(ShapeError, match="random_categorical"):
        ops.random_categorical(T(np.ones(3)), 2)


def test_shuffle_randperm_kaiser():
    x = T(np.arange(10) * 3)
    s = ops.shuffle(x, seed=3).asnumpy()
    assert sorted(s.tolist()) == (np.arange(10) * 3).tolist()
    np.testing.assert_array_equal(s, ops.shuffle(x, seed=3).asnumpy())
    assert sorted(ops.RandomShuffle(seed=1)(x).asnumpy().tolist()) == sorted(x.asnumpy().tolist())
    rp = ops.Randperm(max_length=6, pad=-1)(T(np.array([4], np.int32))).asnumpy()
    assert sorted(rp[:4].tolist()) == [0, 1, 2, 3] and rp[4:].tolist() == [-1, -1]
    np.testing.assert_allclose(ops.kaiser_window(8, False, 5.0).asnumpy(), np.kaiser(8, 5.0), rtol=1e-6)
    np.testing.assert_allclose(ops.kaiser_window(8).asnumpy(), np.kaiser(9, 12.0)[:8], rtol=1e-6)
