"""ops.ExtractImagePatches (ops/extract_patches_ops.py) against a NumPy transcription of
TensorFlow's extract_image_patches (NHWC windows, depth ordered (row, col, channel)), VALID and SAME,
a gradient check, and errors."""

import numpy as np
import pytest

import spore as ms
from spore import ops


def np_patches(x, k, s, r, padding):
    xh = x.transpose(0, 2, 3, 1)                                   # NHWC, as TensorFlow
    n, h, w, c = xh.shape
    if padding == "SAME":
        pads = []
        for size, kk, ss, rr in ((h, k[0], s[0], r[0]), (w, k[1], s[1], r[1])):
            out = -(-size // ss)
            t = max((out - 1) * ss + (kk - 1) * rr + 1 - size, 0)
            pads.append((t // 2, t - t // 2))
        xh = np.pad(xh, ((0, 0), pads[0], pads[1], (0, 0)))
        n, h, w, c = xh.shape
    oh, ow = (h - r[0] * (k[0] - 1) - 1) // s[0] + 1, (w - r[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, oh, ow, k[0] * k[1] * c))
    for a in range(oh):
        for b in range(ow):
            win = xh[:, a * s[0]:a * s[0] + r[0] * (k[0] - 1) + 1:r[0], b * s[1]:b * s[1] + r[1] * (k[1] - 1) + 1:r[1]]
            out[:, a, b] = win.reshape(n, -1)
    return out.transpose(0, 3, 1, 2)


@pytest.mark.parametrize("k,s,r,padding", [((2, 2), (1, 1), (1, 1), "VALID"), ((3, 2), (2, 1), (1, 2), "VALID"),
                                           ((3, 3), (2, 2), (1, 1), "SAME"), ((2, 3), (3, 2), (2, 1), "SAME")])
def test_matches_tensorflow_semantics(k, s, r, padding):
    x = np.random.default_rng(0).normal(size=(2, 3, 7, 8))
    got = ops.ExtractImagePatches([1, 1, *k], [1, 1, *s], [1, 1, *r], padding)(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, np_patches(x, k, s, r, padding), rtol=1e-12, atol=1e-12)


def test_gradient_counts_window_memberships():
    x = ms.Tensor(np.random.default_rng(1).normal(size=(1, 2, 5, 5)))
    op = ops.ExtractImagePatches([1, 1, 3, 3], [1, 1, 2, 2], [1, 1, 1, 1], "VALID")
    g = ms.grad(lambda t: op(t).sum())(x).asnumpy()
    want = np.zeros((5, 5))
    for a in range(2):
        for b in range(2):
            want[2 * a:2 * a + 3, 2 * b:2 * b + 3] += 1
    np.testing.assert_allclose(g, np.broadcast_to(want, (1, 2, 5, 5)))


def test_errors_name_the_op():
    with pytest.raises(ValueError, match="ExtractImagePatches: ksizes"):
        ops.ExtractImagePatches([2, 2], [1, 1, 1, 1], [1, 1, 1, 1])
    with pytest.raises(ValueError, match="ExtractImagePatches: padding"):
        ops.ExtractImagePatches([1, 1, 2, 2], [1, 1, 1, 1], [1, 1, 1, 1], "FULL")
    with pytest.raises(Exception, match="ExtractImagePatches"):
        ops.ExtractImagePatches([1, 1, 2, 2], [1, 1, 1, 1], [1, 1, 1, 1])(ms.Tensor(np.ones((2, 3, 4), np.float32)))
