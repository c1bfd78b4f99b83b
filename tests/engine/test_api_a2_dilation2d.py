"""ops.Dilation2D (ops/dilation2d_ops.py) against a NumPy loop of TensorFlow's dilation2d (padded
pixels never count), VALID and SAME, its gradient (to the arg-max pixel / filter tap), and errors."""

import numpy as np
import pytest

import spore as ms
from spore import ops


def np_dilation(x, f, s, d, mode):
    n, c, h, w = x.shape
    _, kh, kw = f.shape
    if mode == "SAME":
        pads = []
        for size, k, ss, dd in ((h, kh, s[0], d[0]), (w, kw, s[1], d[1])):
            out = -(-size // ss)
            t = max((out - 1) * ss + (k - 1) * dd + 1 - size, 0)
            pads.append((t // 2, t - t // 2))
        x = np.pad(x, ((0, 0), (0, 0), pads[0], pads[1]), constant_values=-np.inf)
        h, w = x.shape[2:]
    oh, ow = (h - d[0] * (kh - 1) - 1) // s[0] + 1, (w - d[1] * (kw - 1) - 1) // s[1] + 1
    out = np.full((n, c, oh, ow), -np.inf)
    for i in range(kh):
        for j in range(kw):
            v = x[:, :, i * d[0]:i * d[0] + s[0] * (oh - 1) + 1:s[0], j * d[1]:j * d[1] + s[1] * (ow - 1) + 1:s[1]]
            out = np.maximum(out, v + f[None, :, i, j, None, None])
    return out


@pytest.mark.parametrize("s,d,mode", [((1, 1), (1, 1), "VALID"), ((2, 1), (1, 2), "VALID"),
                                      ((1, 1), (1, 1), "SAME"), ((2, 2), (2, 1), "same")])
def test_matches_numpy(s, d, mode):
    rng = np.random.default_rng(0)
    x, f = rng.normal(size=(2, 3, 7, 6)), rng.normal(size=(3, 2, 3))
    got = ops.Dilation2D(s, (1, 1, *d), mode)(ms.Tensor(x), ms.Tensor(f)).asnumpy()
    np.testing.assert_allclose(got, np_dilation(x, f, s, d, mode.upper()), rtol=1e-12)


def test_gradients_go_to_the_winning_pixel_and_tap():
    rng = np.random.default_rng(1)
    x, f = rng.normal(size=(1, 1, 4, 4)), rng.normal(size=(1, 2, 2))
    op = ops.Dilation2D(1, 1, "VALID")
    gx, gf = ms.grad(lambda a, b: op(a, b).sum(), grad_position=(0, 1))(ms.Tensor(x), ms.Tensor(f))
    wx, wf = np.zeros_like(x), np.zeros_like(f)
    for a in range(3):
        for b in range(3):
            vals = x[0, 0, a:a + 2, b:b + 2] + f[0]
            i, j = np.unravel_index(vals.argmax(), (2, 2))
            wx[0, 0, a + i, b + j] += 1
            wf[0, i, j] += 1
    np.testing.assert_allclose(gx.asnumpy(), wx)
    np.testing.assert_allclose(gf.asnumpy(), wf)


def test_errors_name_the_op():
    with pytest.raises(ValueError, match="Dilation2D: pad_mode"):
        ops.Dilation2D(1, 1, "FULL")
    with pytest.raises(ValueError, match="Dilation2D: stride"):
        ops.Dilation2D((1, 2, 3), 1)
    with pytest.raises(Exception, match="Dilation2D"):
        ops.Dilation2D(1, 1)(ms.Tensor(np.ones((1, 2, 4, 4), np.float32)), ms.Tensor(np.ones((3, 2, 2), np.float32)))
