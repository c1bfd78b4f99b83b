"""Slice A's second batch (issue 14): sampling ops (distribution checks with fixed seeds), row
updates, index_put, intopk, check_valid, channel_shuffle, the fft shifts, framework helpers and the
class forms (CumProd, DivNoNan, EuclideanNorm, GradOperation, Dropout2D, ...), against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import ops
from spore.errors import ShapeError

r = np.random.default_rng(77)


def T(a):
    return ms.Tensor(np.asarray(a))


def test_bernoulli_family_frequencies_and_reproducibility():
    ms.set_seed(5)
    a = ops.bernoulli(T(np.zeros((200, 100), np.float32)), 0.3).asnumpy()
    assert set(np.unique(a)) <= {0.0, 1.0} and abs(a.mean() - 0.3) < 0.01
    ms.set_seed(5)
    np.testing.assert_array_equal(ops.bernoulli(T(np.zeros((200, 100), np.float32)), 0.3).asnumpy(), a)
    probs = np.tile(np.array([0.1, 0.9], np.float32), (20000, 1))
    b = ops.bernoulli_ext(T(probs)).asnumpy()
    np.testing.assert_allclose(b.mean(0), [0.1, 0.9], atol=0.01)
    np.testing.assert_allclose(T(probs).bernoulli().asnumpy().mean(0), [0.1, 0.9], atol=0.01)
    g = ms.Generator().manual_seed(3)
    x = T(np.zeros(10000, np.float32))
    x.bernoulli_(0.75, generator=g)
    assert abs(x.asnumpy().mean() - 0.75) < 0.02
    with pytest.raises(ValueError, match="bernoulli"):
        ops.bernoulli(x, 1.5)


def test_exponential_and_cauchy_match_their_distributions():
    ms.set_seed(11)
    x = T(np.zeros(40000))
    x.exponential_(2.0)
    v = x.asnumpy()
    assert v.min() >= 0 and abs(v.mean() - 0.5) < 0.01 and abs(np.median(v) - np.log(2) / 2) < 0.01
    c = T(np.zeros(40000))
    c.cauchy(1.0, 2.0)
    q = np.quantile(c.asnumpy(), [0.25, 0.5, 0.75])  # Cauchy quartiles: median -+ sigma
    np.testing.assert_allclose(q, [-1.0, 1.0, 3.0], atol=0.1)


def test_gumbel_softmax_is_a_distribution_and_hard_is_one_hot():
    ms.set_seed(2)
    logits = T(np.log(np.array([[0.7, 0.2, 0.1]] * 20000)))
    y = ops.gumbel_softmax(logits, 1.0).asnumpy()
    np.testing.assert_allclose(y.sum(1), 1.0, rtol=1e-12)
    h = ops.gumbel_softmax(logits, 0.5, hard=True).asnumpy()
    assert set(np.unique(h)) == {0.0, 1.0} and (h.sum(1) == 1).all()
    np.testing.assert_allclose(h.mean(0), [0.7, 0.2, 0.1], atol=0.015)  # the Gumbel-max trick's frequencies
    g = ms.grad(lambda t: (ops.gumbel_softmax(t, hard=True) * T(np.array([1.0, 2.0, 3.0]))).sum())(logits[:2])
    assert np.abs(g.asnumpy()).sum() > 0  # the straight-through gradient is the soft sample's


def test_row_updates_write_into_x():
    x = r.standard_normal((4, 3))
    v = r.standard_normal((2, 3))
    t = T(x.copy())
    assert ops.inplace_add(t, T(v), (1, 3)) is t
    want = x.copy()
    want[[1, 3]] += v
    np.testing.assert_allclose(t.asnumpy(), want)
    ops.InplaceSub((0, 0))(t, T(v))
    want[0] -= v[0] + v[1]
    np.testing.assert_allclose(t.asnumpy(), want)
    ops.inplace_update(t, T(v), T(np.array([2, 2], np.int32)))
    want[2] = v[1]  # the last row wins
    np.testing.assert_allclose(t.asnumpy(), want)
    with pytest.raises(ShapeError, match="inplace_add"):
        ops.inplace_add(t, T(v), (1,))
    with pytest.raises(IndexError, match="inplace_update"):
        ops.inplace_update(t, T(v), (1, 9))


def test_index_put_and_inplace_index_add():
    x = r.standard_normal((3, 4))
    i, j = np.array([0, 2, 0]), np.array([1, 3, 1])
    vals = r.standard_normal(3)
    got = T(x).index_put((T(i), T(j)), T(vals), True).asnumpy()
    want = x.copy()
    np.add.at(want, (i, j), vals)
    np.testing.assert_allclose(got, want)
    rows = T(x).index_put((T(np.array([1])),), T(np.array(7.0))).asnumpy()
    want = x.copy()
    want[1] = 7.0
    np.testing.assert_allclose(rows, want)
    var = T(x.copy())
    ops.inplace_index_add(var, T(np.array([1, 1], np.int32)), T(np.ones((3, 2))), 1)
    want = x.copy()
    want[:, 1] += 2
    np.testing.assert_allclose(var.asnumpy(), want)


def test_intopk_check_valid_channel_shuffle():
    x1 = r.standard_normal((50, 6))
    x2 = r.integers(0, 6, 50)
    for k in (1, 2, 5):
        top = np.argsort(-x1, 1)[:, :k]
        want = np.array([x2[n] in top[n] for n in range(50)])
        np.testing.assert_array_equal(ops.intopk(T(x1), T(x2), k).asnumpy(), want)
        np.testing.assert_array_equal(ops.InTopK(k)(T(x1), T(x2)).asnumpy(), want)
    boxes = np.array([[0, 0, 10, 10], [-1, 0, 5, 5], [0, 0, 99, 49], [0, 0, 100, 10]], np.float32)
    np.testing.assert_array_equal(ops.check_valid(T(boxes), T(np.array([50.0, 100.0, 1.0], np.float32))).asnumpy(),
                                  [True, False, True, False])
    x = r.standard_normal((2, 6, 3))
    want = x.reshape(2, 3, 2, 3).transpose(0, 2, 1, 3).reshape(2, 6, 3)
    np.testing.assert_allclose(ops.channel_shuffle(T(x), 3).asnumpy(), want)
    with pytest.raises(ValueError, match="channel_shuffle"):
        ops.channel_shuffle(T(x), 4)


def test_fft_shifts_and_frequencies_match_numpy():
    x = r.standard_normal((4, 5))
    np.testing.assert_allclose(ops.fftshift(T(x)).asnumpy(), np.fft.fftshift(x))
    np.testing.assert_allclose(ops.ifftshift(T(x), 1).asnumpy(), np.fft.ifftshift(x, 1))
    np.testing.assert_allclose(ops.ifftshift(ops.fftshift(T(x))).asnumpy(), x)
    np.testing.assert_allclose(ops.fftfreq(7, 0.25).asnumpy(), np.fft.fftfreq(7, 0.25), rtol=1e-6)


def test_framework_helpers():
    g = ops.grad(lambda a, b: (a * a * b).sum(), (0, 1))(T([1.0, 2.0]), T([3.0, 4.0]))
    np.testing.assert_allclose(g[0].asnumpy(), [6.0, 16.0])
    np.testing.assert_allclose(g[1].asnumpy(), [1.0, 4.0])
    ga = ops.GradOperation(get_all=True)(lambda a, b: (a * b).sum())(T([1.0, 2.0]), T([3.0, 4.0]))
    np.testing.assert_allclose(ga[0].asnumpy(), [3.0, 4.0])
    np.testing.assert_allclose(ga[1].asnumpy(), [1.0, 2.0])
    gs = ops.GradOperation(sens_param=True)(lambda a: a * 3.0)(T([1.0, 2.0]), T([1.0, -1.0]))
    np.testing.assert_allclose(gs.asnumpy(), [3.0, -3.0])
    w = ms.Parameter(T(np.array([2.0, 5.0])), name="w")
    gw = ops.GradOperation(get_by_list=True)(lambda a: (a * w).sum(), ms.ParameterTuple([w]))(T([1.0, 3.0]))
    np.testing.assert_allclose(gw[0].asnumpy(), [1.0, 3.0])

    @ops.constexpr
    def const_two():
        return 2

    assert const_two() == 2
    f = ops.add_flags(lambda: 1, cache=True)
    assert f.cache is True
    np.testing.assert_array_equal(ops.dyn_shape(T(np.zeros((2, 5)))).asnumpy(), [2, 5])
    d = ops.deepcopy(T(np.array([1.0, 2.0])))
    np.testing.assert_array_equal(d.asnumpy(), [1.0, 2.0])


def test_more_class_forms():
    x = r.uniform(0.5, 2.0, (3, 4))
    for excl, rev in ((False, False), (True, False), (False, True), (True, True)):
        y = x[:, ::-1] if rev else x
        c = np.cumprod(y, 1)
        if excl:
            c = np.concatenate([np.ones((3, 1)), np.cumprod(y, 1)[:, :-1]], 1)
        want = c[:, ::-1] if rev else c
        np.testing.assert_allclose(ops.CumProd(excl, rev)(T(x), 1).asnumpy(), want, rtol=1e-12)
    a, b = r.standard_normal(6), np.array([0.0, 1.0, 0.0, 2.0, -1.0, 0.0])
    np.testing.assert_allclose(ops.DivNoNan()(T(a), T(b)).asnumpy(),
                               np.where(b == 0, 0, a / np.where(b == 0, 1, b)))
    np.testing.assert_allclose(ops.EuclideanNorm(True)(T(x), (1,)).asnumpy(),
                               np.linalg.norm(x, axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_array_equal(ops.EqualCount()(T([1, 2, 3]), T([1, 0, 3])).asnumpy(), [2])
    np.testing.assert_allclose(ops.DiagPart()(T(x[:, :3])).asnumpy(), np.diag(x[:, :3]))
    assert ops.CountNonZero()(T(np.array([[0, 1], [2, 0]]))).asnumpy() == 2
    ms.set_seed(0)
    out, mask = ops.Dropout2D(0.5)(T(np.ones((4, 8, 2, 2), np.float32)))
    assert mask.dtype == ms.bool_ and tuple(mask.shape) == (4, 8, 2, 2)
    np.testing.assert_array_equal(out.asnumpy() != 0, mask.asnumpy())
    v = ms.Parameter(T(np.zeros(3)), name="v")
    ops.AssignAdd()(v, T(np.ones(3)))
    ops.AssignSub()(v, T(np.full(3, 0.25)))
    np.testing.assert_allclose(v.asnumpy(), 0.75)
