"""spatial_unique_ops and its class forms against NumPy loops written here."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import ops

R = np.random.default_rng(5414)


def T(a, dt=None):
    return ms.Tensor(np.asarray(a, dt))


def close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got.asnumpy()), want, rtol=rtol, atol=atol)


def test_mirror_pad_both_modes_and_gradient():
    x = R.standard_normal((3, 4))
    pads = [[1, 2], [2, 1]]
    close(ops.mirror_pad(T(x), T(np.array(pads)), "REFLECT"), np.pad(x, pads, "reflect"))
    close(ops.MirrorPad("SYMMETRIC")(T(x), pads), np.pad(x, pads, "symmetric"))
    g = ms.grad(lambda a: ops.reduce_sum(ops.mirror_pad(a, pads, "REFLECT")))(T(x)).asnumpy()
    counts = np.zeros(x.shape)
    ri, ci = np.pad(np.arange(3), (1, 2), "reflect"), np.pad(np.arange(4), (2, 1), "reflect")
    for i in ri:
        for j in ci:
            counts[i, j] += 1
    np.testing.assert_allclose(g, counts)
    with pytest.raises(ValueError, match="mirror_pad"):
        ops.mirror_pad(T(x), [[3, 0], [0, 0]], "REFLECT")


def test_space_to_batch_and_depth():
    x = R.standard_normal((2, 3, 4, 6))
    y = ops.space_to_batch_nd(T(x), [2, 3], [[0, 0], [0, 0]]).asnumpy()
    assert y.shape == (12, 3, 2, 2)
    for bh in range(2):
        for bw in range(3):
            for n in range(2):
                np.testing.assert_allclose(y[(bh * 3 + bw) * 2 + n], x[n, :, bh::2, bw::3])
    xp = R.standard_normal((1, 1, 3, 3))
    yp = ops.SpaceToBatch(2, [[1, 0], [0, 1]])(T(xp)).asnumpy()
    padded = np.pad(xp, ((0, 0), (0, 0), (1, 0), (0, 1)))
    for bh in range(2):
        for bw in range(2):
            np.testing.assert_allclose(yp[bh * 2 + bw, 0], padded[0, 0, bh::2, bw::2])
    d = ops.SpaceToDepth(2)(T(x[:, :, :, :4])).asnumpy()
    assert d.shape == (2, 12, 2, 2)
    for bh in range(2):
        for bw in range(2):
            for c in range(3):
                np.testing.assert_allclose(d[:, (bh * 2 + bw) * 3 + c], x[:, c, bh::2, bw:4:2])


def test_lrn_matches_the_sum():
    x = R.standard_normal((2, 7, 3, 3))
    r, bias, alpha, beta = 2, 1.5, 0.3, 0.75
    want = np.empty_like(x)
    for c in range(7):
        s = (x[:, max(0, c - r):c + r + 1] ** 2).sum(1)
        want[:, c] = x[:, c] / (bias + alpha * s) ** beta
    close(ops.lrn(T(x), r, bias, alpha, beta), want)
    close(ops.LRN(r, bias, alpha, beta)(T(x)), want)


def test_unique_and_bits():
    x = np.array([1, 1, 2, 2, 3, 1, 1, 2])
    out, inv, cnt = ops.unique_consecutive(T(x), True, True)
    close(out, [1, 2, 3, 1, 2])
    close(inv, [0, 0, 1, 1, 2, 3, 3, 4])
    close(cnt, [2, 2, 1, 2, 1])
    m = np.array([[1, 2], [1, 2], [3, 4], [1, 2]])
    close(T(m).unique_consecutive(dim=0), [[1, 2], [3, 4], [1, 2]])
    o, i, c = ops.UniqueConsecutive(return_counts=True)(T(x))
    assert i.shape == (0,) and c.asnumpy().tolist() == [2, 2, 1, 2, 1]
    y, idx = ops.unique_with_pad(T(np.array([5, 3, 5, 7, 3, 3], np.int32)), -1)
    close(y, [5, 3, 7, -1, -1, -1])
    close(idx, [0, 1, 0, 2, 1, 1])
    a, b = np.array([1.0, 2.0, -1.0], np.float32), np.array([2.0, 0.0, -np.inf], np.float32)
    close(ops.nextafter(T(a), T(b)), np.nextafter(a, b), rtol=0, atol=0)
    ints = np.array([0, 7, -1, 255], np.int16)
    close(ops.population_count(T(ints)), np.bitwise_count(ints))
    assert ops.PopulationCount()(T(ints)).dtype == ms.uint8
    close(ops.UnravelIndex()(T(np.array([5, 7], np.int32)), T(np.array([3, 4], np.int32))),
          np.stack(np.unravel_index([5, 7], (3, 4))))
    close(ops.LeftShift()(T(np.array([1, 3], np.int32)), T(np.array([2, 1], np.int32))), [4, 6])
    close(ops.RightShift()(T(np.array([8, 7], np.int32)), T(np.array([2, 1], np.int32))), [2, 3])
    close(ops.Lcm()(T(np.array([4, 6])), T(np.array([6, 5]))), [12, 30])
    close(ops.padding(T(np.ones((2, 1))), 4), [[1, 0, 0, 0], [1, 0, 0, 0]])


def test_loss_classes():
    x = R.standard_normal((4, 5))
    t = np.array([1, 0, 4, 2])
    close(ops.MultiMarginLoss()(T(x), T(t)), ops.multi_margin_loss(T(x), T(t)).asnumpy())
    lg, lb = R.standard_normal((3, 4)), (R.random((3, 4)) > 0.5).astype(float)
    close(ops.SigmoidCrossEntropyWithLogits()(T(lg), T(lb)),
          np.maximum(lg, 0) - lg * lb + np.log1p(np.exp(-np.abs(lg))))
    tgt = np.array([[3, 0, -1, 1], [1, 2, 3, -1]])
    loss, is_t = ops.MultilabelMarginLoss("none")(T(x[:2, :4]), T(tgt))
    close(is_t, [[1, 0, 0, 1], [0, 1, 1, 1]])
    assert loss.shape == (2,)
    a, p, n = (R.standard_normal((4, 3)) for _ in range(3))
    close(ops.TripletMarginLoss()(T(a), T(p), T(n), T(np.float32(0.5))),
          ops.triplet_margin_loss(T(a), T(p), T(n), 0.5).asnumpy())
    y, rstd = ops.RmsNorm()(T(x), T(np.ones(5)))
    close(rstd, 1 / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6))
    close(ops.Logit(eps=0.1)(T(np.array([0.05, 0.5]))), np.log(np.array([0.1, 0.5]) / (1 - np.array([0.1, 0.5]))))
    close(ops.LerpScalar()(T(np.zeros(3)), T(np.ones(3)), 0.25), np.full(3, 0.25))
