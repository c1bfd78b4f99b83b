"""Im2Col, Col2Im, ops.col2im / Tensor.col2im (ops/im2col_ops.py) against NumPy loops, the
adjoint identity <Im2Col(x), c> == <x, Col2Im(c)>, a gradient check, and errors."""

import numpy as np
import pytest

import spore as ms
from spore import ops


def np_im2col(x, k, s, d, p):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c, k[0] * k[1], oh * ow), x.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            for a in range(oh):
                for b in range(ow):
                    out[:, :, i * k[1] + j, a * ow + b] = xp[:, :, a * s[0] + i * d[0], b * s[1] + j * d[1]]
    return out


def np_col2im(cols, size, k, s, d, p):
    n, c, _, _ = cols.shape
    h, w = size
    xp = np.zeros((n, c, h + 2 * p[0], w + 2 * p[1]), cols.dtype)
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    for i in range(k[0]):
        for j in range(k[1]):
            for a in range(oh):
                for b in range(ow):
                    xp[:, :, a * s[0] + i * d[0], b * s[1] + j * d[1]] += cols[:, :, i * k[1] + j, a * ow + b]
    return xp[:, :, p[0]:p[0] + h, p[1]:p[1] + w]


CASES = [((2, 3), (1, 1), (1, 1), (0, 0)), ((3, 2), (2, 1), (1, 2), (1, 0)), ((2, 2), (2, 2), (2, 1), (1, 1))]


@pytest.mark.parametrize("k,s,d,p", CASES)
def test_im2col_and_col2im_match_numpy(k, s, d, p):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3, 7, 6))
    got = ops.Im2Col(ksizes=k, strides=s, dilations=d, pads=p)(ms.Tensor(x)).asnumpy()
    want = np_im2col(x, k, s, d, p)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    c = rng.normal(size=want.shape)
    back = ops.Col2Im(k, dilation=d, padding=p, stride=s)(ms.Tensor(c), ms.Tensor(np.array([7, 6], np.int32)))
    np.testing.assert_allclose(back.asnumpy(), np_col2im(c, (7, 6), k, s, d, p), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ops.col2im(ms.Tensor(c), (7, 6), k, d, p, s).asnumpy(), back.asnumpy(), rtol=1e-12)
    np.testing.assert_allclose(ms.Tensor(c).col2im((7, 6), k, d, p, s).asnumpy(), back.asnumpy(), rtol=1e-12)
    np.testing.assert_allclose((got * c).sum(), (x * back.asnumpy()).sum(), rtol=1e-10)   # adjoint pair


def test_im2col_gradient_is_col2im():
    rng = np.random.default_rng(1)
    x, c = rng.normal(size=(1, 2, 5, 5)), rng.normal(size=(1, 2, 4, 16))
    im = ops.Im2Col(ksizes=2, pads=0)
    g = ms.grad(lambda t: (im(t) * ms.Tensor(c)).sum())(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(g, np_col2im(c, (5, 5), (2, 2), (1, 1), (1, 1), (0, 0)), rtol=1e-12)


def test_errors_name_the_op():
    with pytest.raises(Exception, match="Im2Col"):
        ops.Im2Col(ksizes=2)(ms.Tensor(np.ones((2, 3, 4), np.float32)))
    with pytest.raises(Exception, match="col2im"):
        ops.col2im(ms.Tensor(np.ones((2, 3, 4), np.float32)), (4, 4), 2, 1, 0, 1)
    with pytest.raises(Exception, match="fold"):
        ops.col2im(ms.Tensor(np.ones((1, 1, 4, 5), np.float32)), (4, 4), 2, 1, 0, 1)
