"""bounding_box_encode / bounding_box_decode (ops/box_coder_ops.py) against a NumPy transcription of
MindSpore's CPU kernels' formulas, MindSpore's documented decode example, round trips, gradients by
finite differences, and errors."""

import numpy as np
import pytest

import spore as ms
from spore import ops


def np_encode(a, g, means, stds):
    def ctr(b):
        return (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2, b[:, 2] - b[:, 0] + 1, b[:, 3] - b[:, 1] + 1
    px, py, pw, ph = ctr(a)
    gx, gy, gw, gh = ctr(g)
    d = np.stack([(gx - px) / pw, (gy - py) / ph, np.log(gw / pw), np.log(gh / ph)], 1)
    return (d - np.array(means)) / np.array(stds)


def np_decode(a, d, max_shape, means, stds, clip):
    d = d * np.array(stds) + np.array(means)
    r = abs(np.log(clip))
    dw, dh = np.clip(d[:, 2], -r, r), np.clip(d[:, 3], -r, r)
    px, py = (a[:, 0] + a[:, 2]) / 2, (a[:, 1] + a[:, 3]) / 2
    pw, ph = a[:, 2] - a[:, 0] + 1, a[:, 3] - a[:, 1] + 1
    gx, gy, gw, gh = px + pw * d[:, 0], py + ph * d[:, 1], pw * np.exp(dw), ph * np.exp(dh)
    h, w = max_shape
    return np.stack([np.clip(gx - gw / 2 + 0.5, 0, w), np.clip(gy - gh / 2 + 0.5, 0, h),
                     np.clip(gx + gw / 2 - 0.5, 0, w), np.clip(gy + gh / 2 - 0.5, 0, h)], 1)


def boxes(rng, n):
    lo = rng.uniform(0, 50, (n, 2))
    return np.concatenate([lo, lo + rng.uniform(1, 30, (n, 2))], 1)


def test_encode_matches_numpy_and_class_form():
    rng = np.random.default_rng(0)
    a, g = boxes(rng, 7), boxes(rng, 7)
    means, stds = (0.1, -0.2, 0.0, 0.3), (0.1, 0.1, 0.2, 0.2)
    got = ops.bounding_box_encode(ms.Tensor(a.astype(np.float32)), ms.Tensor(g.astype(np.float32)), means, stds)
    np.testing.assert_allclose(got.asnumpy(), np_encode(a, g, means, stds), rtol=1e-4, atol=1e-4)
    cls = ops.BoundingBoxEncode(means=means, stds=stds)(ms.Tensor(a), ms.Tensor(g))
    assert cls.dtype == ms.float64
    np.testing.assert_allclose(cls.asnumpy(), np_encode(a, g, means, stds), rtol=1e-12)


def test_decode_matches_numpy_and_mindspore_example():
    anchor = ms.Tensor(np.array([[4, 1, 2, 1], [2, 2, 2, 3]], np.float32))
    deltas = ms.Tensor(np.array([[3, 1, 2, 2], [1, 2, 1, 4]], np.float32))
    got = ops.BoundingBoxDecode(max_shape=(768, 1280), wh_ratio_clip=0.016)(anchor, deltas).asnumpy()
    # MindSpore's documented output (printed at float16 precision there)
    np.testing.assert_allclose(got, [[4.1953125, 0.0, 0.0, 5.1953125], [2.140625, 0.0, 3.859375, 60.59375]],
                               atol=2e-2)
    rng = np.random.default_rng(1)
    a, d = boxes(rng, 9), rng.normal(0, 1.5, (9, 4))
    args = ((40, 60), (0.0, 0.1, 0.0, -0.1), (1.0, 0.5, 2.0, 1.0), 0.05)
    out = ops.bounding_box_decode(ms.Tensor(a), ms.Tensor(d), *args).asnumpy()
    np.testing.assert_allclose(out, np_decode(a, d, *args), rtol=1e-12, atol=1e-12)


def test_decode_inverts_encode_inside_the_image():
    rng = np.random.default_rng(2)
    a, g = boxes(rng, 5), boxes(rng, 5)
    means, stds = (0.0, 0.0, 0.0, 0.0), (0.1, 0.1, 0.2, 0.2)
    d = ops.bounding_box_encode(ms.Tensor(a), ms.Tensor(g), means, stds)
    back = ops.bounding_box_decode(ms.Tensor(a), d, (1000, 1000), means, stds, 1e-6)
    np.testing.assert_allclose(back.asnumpy(), g, rtol=1e-10, atol=1e-9)


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(3)
    a, g = boxes(rng, 3), boxes(rng, 3)
    w = rng.normal(size=(3, 4))

    def loss_np(gt):
        return float((np_encode(a, gt, (0,) * 4, (1,) * 4) * w).sum())

    def loss(gt):
        return (ops.bounding_box_encode(ms.Tensor(a), gt) * ms.Tensor(w)).sum()

    grad = ms.grad(loss)(ms.Tensor(g)).asnumpy()
    fd = np.zeros_like(g)
    for idx in np.ndindex(g.shape):
        e = np.zeros_like(g)
        e[idx] = 1e-6
        fd[idx] = (loss_np(g + e) - loss_np(g - e)) / 2e-6
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6)


def test_errors_name_the_op():
    x = ms.Tensor(np.ones((2, 4), np.float32))
    with pytest.raises(TypeError, match="bounding_box_encode: means"):
        ops.bounding_box_encode(x, x, means=[0.0] * 4 and 0.0)
    with pytest.raises(ValueError, match="bounding_box_encode: stds"):
        ops.bounding_box_encode(x, x, stds=(1.0, 1.0, 1.0))
    with pytest.raises(Exception, match="bounding_box_encode"):
        ops.bounding_box_encode(x, ms.Tensor(np.ones((3, 4), np.float32)))
    with pytest.raises(Exception, match="bounding_box_decode"):
        ops.bounding_box_decode(ms.Tensor(np.ones((2, 3), np.float32)), x, (4, 4))
    with pytest.raises(ValueError, match="bounding_box_decode: max_shape"):
        ops.bounding_box_decode(x, x, 4)
    with pytest.raises(Exception, match="bounding_box_encode"):
        ops.bounding_box_encode(ms.Tensor(np.ones((2, 4), np.int32)), x)
