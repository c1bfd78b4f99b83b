"""ops.Conv2DBackpropInput and ops.DepthwiseConv2dNative (ops/classes_conv_backprop.py) against a
NumPy convolution loop: depthwise outputs directly, the input gradient through the adjoint identity
<conv(x, w), dout> == <x, Conv2DBackpropInput(dout, w, x.shape)>."""

import numpy as np
import pytest

import spore as ms
from spore import ops


def np_conv(x, w, stride, pad, dil, groups=1):
    n, c, h, wd = x.shape
    co, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[1]), (pad[2], pad[3])))
    oh = (xp.shape[2] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (xp.shape[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, co, oh, ow))
    per = co // groups
    for o in range(co):
        g = o // per
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, i * dil[0]:i * dil[0] + stride[0] * oh:stride[0],
                           j * dil[1]:j * dil[1] + stride[1] * ow:stride[1]]
                out[:, o] += np.einsum("nchw,c->nhw", patch, w[o, :, i, j])
    return out


@pytest.mark.parametrize("kw,pads", [
    ({}, (0, 0, 0, 0)),
    ({"pad_mode": "pad", "pad": 1, "stride": 2}, (1, 1, 1, 1)),
    ({"pad_list": (0, 1, 1, 0), "dilation": 2}, (0, 1, 1, 0)),
])
def test_conv2d_backprop_input_is_the_adjoint_of_conv(kw, pads):
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=(2, 3, 7, 7)), rng.normal(size=(4, 3, 3, 3))
    stride = (kw.get("stride", 1),) * 2
    dil = (kw.get("dilation", 1),) * 2
    y = np_conv(x, w, stride, pads, dil)
    dout = rng.normal(size=y.shape)
    dx = ops.Conv2DBackpropInput(4, 3, **kw)(ms.Tensor(dout), ms.Tensor(w), x.shape).asnumpy()
    assert dx.shape == x.shape
    np.testing.assert_allclose((y * dout).sum(), (x * dx).sum(), rtol=1e-10)
    # and elementwise: d<conv(x, w), dout>/dx by finite differences at two positions
    for idx in [(0, 1, 2, 3), (1, 2, 6, 0)]:
        e = np.zeros_like(x)
        e[idx] = 1e-6
        fd = ((np_conv(x + e, w, stride, pads, dil) - np_conv(x - e, w, stride, pads, dil)) * dout).sum() / 2e-6
        np.testing.assert_allclose(dx[idx], fd, rtol=1e-5, atol=1e-7)


def test_same_pad_mode_matches_conv2d_gradient():
    rng = np.random.default_rng(1)
    x, w = rng.normal(size=(1, 2, 5, 6)), rng.normal(size=(3, 2, 3, 2))
    y = ops.conv2d(ms.Tensor(x), ms.Tensor(w), stride=2, pad_mode="same")
    dout = rng.normal(size=y.shape)
    dx = ops.Conv2DBackpropInput(3, (3, 2), pad_mode="same", stride=2)(ms.Tensor(dout), ms.Tensor(w), x.shape)
    np.testing.assert_allclose((y.asnumpy() * dout).sum(), (x * dx.asnumpy()).sum(), rtol=1e-10)


@pytest.mark.parametrize("mult,kw", [(1, {}), (2, {"pad_mode": "pad", "pad": 1, "stride": 2}), (3, {"dilation": 2})])
def test_depthwise_matches_numpy(mult, kw):
    rng = np.random.default_rng(2)
    x, w = rng.normal(size=(2, 3, 8, 7)), rng.normal(size=(mult, 3, 3, 3))
    got = ops.DepthwiseConv2dNative(mult, 3, **kw)(ms.Tensor(x), ms.Tensor(w)).asnumpy()
    p = kw.get("pad", 0)
    wc = w.transpose(1, 0, 2, 3).reshape(3 * mult, 1, 3, 3)
    want = np_conv(x, wc, (kw.get("stride", 1),) * 2, (p,) * 4, (kw.get("dilation", 1),) * 2, groups=3)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    # channel c * mult + k is input channel c with multiplier k
    one = np_conv(x[:, 1:2], w[mult - 1:mult, 1:2], (kw.get("stride", 1),) * 2, (p,) * 4, (kw.get("dilation", 1),) * 2)
    np.testing.assert_allclose(got[:, 1 * mult + mult - 1], one[:, 0], rtol=1e-10, atol=1e-10)


def test_errors_name_the_op():
    w = ms.Tensor(np.ones((4, 3, 3, 3), np.float32))
    with pytest.raises(Exception, match="Conv2DBackpropInput"):
        ops.Conv2DBackpropInput(5, 3)(ms.Tensor(np.ones((1, 4, 2, 2), np.float32)), w, (1, 3, 4, 4))
    with pytest.raises(ValueError, match="Conv2DBackpropInput: mode"):
        ops.Conv2DBackpropInput(4, 3, mode=2)
    with pytest.raises(Exception, match="DepthwiseConv2dNative"):
        ops.DepthwiseConv2dNative(2, 3)(ms.Tensor(np.ones((1, 3, 5, 5), np.float32)), w)
    with pytest.raises(ValueError, match="DepthwiseConv2dNative: channel_multiplier"):
        ops.DepthwiseConv2dNative(0, 3)
