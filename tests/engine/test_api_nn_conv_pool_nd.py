"""N-d convolution/pooling ops and layers (issue 14) against independent NumPy loop oracles, with
float64 gradients checked by central finite differences."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import spore as ms
from spore import nn, ops

RNG = np.random.default_rng(1234)


def T(a):  # noqa: N802
    return ms.Tensor(np.asarray(a))


# --- oracles: direct loops over output positions --------------------------------------------------


def ref_conv(x, w, stride, pad_b, pad_a, dil, groups):
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    k = w.shape[2:]
    nd = len(k)
    xp = np.pad(x, [(0, 0), (0, 0)] + list(zip(pad_b, pad_a)))
    out = [(xp.shape[2 + a] - dil[a] * (k[a] - 1) - 1) // stride[a] + 1 for a in range(nd)]
    y = np.zeros((n, o, *out))
    og = o // groups
    for pos in itertools.product(*[range(v) for v in out]):
        sl = tuple(slice(pos[a] * stride[a], pos[a] * stride[a] + dil[a] * (k[a] - 1) + 1, dil[a]) for a in range(nd))
        patch = xp[(slice(None), slice(None)) + sl]  # (n, c, *k)
        for g in range(groups):
            pg = patch[:, g * cg:(g + 1) * cg]
            wg = w[g * og:(g + 1) * og]
            y[(slice(None), slice(g * og, (g + 1) * og)) + pos] = np.tensordot(pg, wg, axes=(list(range(1, nd + 2)),
                                                                                           list(range(1, nd + 2))))
    return y


def ref_conv_transpose(x, w, stride, pad_b, pad_a, dil, groups, out_pad):
    """Scatter definition: every input element adds x * kernel into the output."""
    n, cin = x.shape[:2]
    cout_g = w.shape[1]
    k = w.shape[2:]
    nd = len(k)
    cin_g = cin // groups
    full = [(x.shape[2 + a] - 1) * stride[a] + dil[a] * (k[a] - 1) + 1 + out_pad[a] for a in range(nd)]
    y = np.zeros((n, cout_g * groups, *full))
    for pos in itertools.product(*[range(v) for v in x.shape[2:]]):
        sl = tuple(slice(pos[a] * stride[a], pos[a] * stride[a] + dil[a] * (k[a] - 1) + 1, dil[a]) for a in range(nd))
        for g in range(groups):
            xv = x[(slice(None), slice(g * cin_g, (g + 1) * cin_g)) + pos]  # (n, cin_g)
            contrib = np.tensordot(xv, w[g * cin_g:(g + 1) * cin_g], axes=([1], [0]))  # (n, cout_g, *k)
            y[(slice(None), slice(g * cout_g, (g + 1) * cout_g)) + sl] += contrib
    crop = tuple(slice(pad_b[a], full[a] - pad_a[a]) for a in range(nd))
    return y[(slice(None), slice(None)) + crop]


def ref_pool(x, k, s, pad_b, pad_a, dil, ceil_mode, kind, count_include_pad=True, divisor=0):
    nd = len(k)
    spatial = x.shape[2:]
    out = []
    for a in range(nd):
        span = spatial[a] + pad_b[a] + pad_a[a] - dil[a] * (k[a] - 1) - 1
        o = (-(-span // s[a]) if ceil_mode else span // s[a]) + 1
        if ceil_mode and (o - 1) * s[a] >= spatial[a] + pad_b[a]:
            o -= 1
        out.append(o)
    y = np.zeros(x.shape[:2] + tuple(out))
    idx = np.zeros(x.shape[:2] + tuple(out), np.int64)
    for pos in itertools.product(*[range(v) for v in out]):
        taps = [[pos[a] * s[a] - pad_b[a] + j * dil[a] for j in range(k[a])] for a in range(nd)]
        vals, flat, cnt_in = [], [], 0
        for tap in itertools.product(*taps):
            inside = all(0 <= tap[a] < spatial[a] for a in range(nd))
            in_padded = all(-pad_b[a] <= tap[a] < spatial[a] + pad_a[a] for a in range(nd))
            cnt_in += in_padded if count_include_pad else inside
            if inside:
                vals.append(x[(slice(None), slice(None)) + tap])
                flat.append(int(np.ravel_multi_index(tap, spatial)))
        v = np.stack(vals, -1)
        if kind == "max":
            am = v.argmax(-1)
            y[(slice(None), slice(None)) + pos] = v.max(-1)
            idx[(slice(None), slice(None)) + pos] = np.array(flat)[am]
        else:
            y[(slice(None), slice(None)) + pos] = v.sum(-1) / (divisor or cnt_in)
    return y, idx


def ref_adaptive(x, out, kind):
    nd = len(out)
    spatial = x.shape[2:]
    y = np.zeros(x.shape[:2] + tuple(out))
    idx = np.zeros(x.shape[:2] + tuple(out), np.int64)
    for pos in itertools.product(*[range(v) for v in out]):
        rng = [range((pos[a] * spatial[a]) // out[a], -(-((pos[a] + 1) * spatial[a]) // out[a])) for a in range(nd)]
        taps = list(itertools.product(*rng))
        v = np.stack([x[(slice(None), slice(None)) + t] for t in taps], -1)
        if kind == "max":
            y[(slice(None), slice(None)) + pos] = v.max(-1)
            idx[(slice(None), slice(None)) + pos] = np.array([np.ravel_multi_index(t, spatial) for t in taps])[
                v.argmax(-1)]
        else:
            y[(slice(None), slice(None)) + pos] = v.mean(-1)
    return y, idx


def fd_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        g[i] = (f(xp) - f(xm)) / (2 * eps)
    return g


def check_grad(fn, *arrays, pos=0):
    """Spore's gradient of sum(fn(...) * w) against finite differences, in float64."""
    w = RNG.standard_normal(np.asarray(fn(*[T(a) for a in arrays]).shape))
    got = ms.grad(lambda *ts: (fn(*ts) * T(w)).sum(), grad_position=pos)(*[T(a) for a in arrays]).asnumpy()

    def scalar(v):
        args = list(arrays)
        args[pos] = v
        return float((fn(*[T(a) for a in args]).asnumpy() * w).sum())

    np.testing.assert_allclose(got, fd_grad(scalar, arrays[pos]), rtol=1e-5, atol=1e-7)


# --- convolution -----------------------------------------------------------------------------------


@pytest.mark.parametrize("stride,pad_mode,padding,dil,groups", [
    (1, "valid", 0, 1, 1), (2, "same", 0, 1, 2), ((1, 2, 1), "pad", (1, 0, 2, 1, 0, 1), (1, 1, 2), 1)])
def test_conv3d_matches_loops(stride, pad_mode, padding, dil, groups):
    x = RNG.standard_normal((2, 4, 5, 6, 7))
    w = RNG.standard_normal((6, 4 // groups, 2, 3, 2))
    b = RNG.standard_normal(6)
    got = ops.conv3d(T(x), T(w), T(b), stride, pad_mode, padding, dil, groups).asnumpy()
    s = (stride,) * 3 if isinstance(stride, int) else stride
    d = (dil,) * 3 if isinstance(dil, int) else dil
    if pad_mode == "valid":
        pb = pa = (0, 0, 0)
    elif pad_mode == "same":
        tot = [max((-(-n // si) - 1) * si + di * (k - 1) + 1 - n, 0)
               for n, si, di, k in zip((5, 6, 7), s, d, (2, 3, 2))]
        pb, pa = tuple(t // 2 for t in tot), tuple(t - t // 2 for t in tot)
    else:
        pb, pa = padding[0::2], padding[1::2]
    np.testing.assert_allclose(got, ref_conv(x, w, s, pb, pa, d, groups) + b.reshape(1, -1, 1, 1, 1), rtol=1e-10)


def test_conv3d_gradients():
    x = RNG.standard_normal((1, 2, 3, 4, 3))
    w = RNG.standard_normal((2, 2, 2, 2, 2))
    check_grad(lambda a, b: ops.conv3d(a, b, stride=(1, 2, 1), pad_mode="pad", padding=1), x, w, pos=0)
    check_grad(lambda a, b: ops.conv3d(a, b, stride=(1, 2, 1), pad_mode="pad", padding=1), x, w, pos=1)


@pytest.mark.parametrize("stride,padding,out_pad,groups,dil", [(2, 1, 1, 1, 1), (1, 0, 0, 2, 2), (3, 2, 2, 1, 1)])
def test_conv_transpose2d_matches_scatter(stride, padding, out_pad, groups, dil):
    x = RNG.standard_normal((2, 4, 3, 4))
    w = RNG.standard_normal((4, 3, 3, 2))
    b = RNG.standard_normal(3 * groups)
    got = ops.conv_transpose2d(T(x), T(w), T(b), stride, padding, out_pad, groups, dil).asnumpy()
    ref = ref_conv_transpose(x, w, (stride,) * 2, (padding,) * 2, (padding,) * 2, (dil,) * 2, groups, (out_pad,) * 2)
    np.testing.assert_allclose(got, ref + b.reshape(1, -1, 1, 1), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("stride,pad_mode,padding,groups,out_pad", [
    (2, "valid", 0, 1, 0), ((1, 2, 2), "pad", (1, 0, 0, 1, 1, 1), 2, (0, 1, 0)), (1, "same", 0, 1, 0)])
def test_conv3d_transpose_matches_scatter(stride, pad_mode, padding, groups, out_pad):
    x = RNG.standard_normal((1, 4, 3, 2, 3))
    w = RNG.standard_normal((4, 2, 3, 2, 2))
    got = ops.conv3d_transpose(T(x), T(w), pad_mode, padding, stride, 1, groups, out_pad).asnumpy()
    s = (stride,) * 3 if isinstance(stride, int) else stride
    op_ = (out_pad,) * 3 if isinstance(out_pad, int) else out_pad
    if pad_mode == "pad":
        pb, pa = padding[0::2], padding[1::2]
    elif pad_mode == "same":  # output = input * stride: total padding dilated kernel - stride
        tot = [k - si for k, si in zip((3, 2, 2), s)]
        pb, pa = tuple(t // 2 for t in tot), tuple(t - t // 2 for t in tot)
    else:
        pb = pa = (0, 0, 0)
    ref = ref_conv_transpose(x, w, s, pb, pa, (1, 1, 1), groups, op_)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)
    if pad_mode == "same":
        assert got.shape[2:] == (3, 2, 3)


def test_conv3d_transpose_gradient_and_adjointness():
    x = RNG.standard_normal((1, 2, 2, 3, 2))
    w = RNG.standard_normal((2, 2, 2, 2, 2))
    check_grad(lambda a, b: ops.conv3d_transpose(a, b, stride=2), x, w, pos=0)
    check_grad(lambda a, b: ops.conv3d_transpose(a, b, stride=2), x, w, pos=1)
    # <conv3d(z, w), x> == <z, conv3d_transpose(x, w)>: the transpose is the adjoint
    z = RNG.standard_normal((1, 2, 4, 6, 4))
    lhs = (ops.conv3d(T(z), T(w), stride=2).asnumpy() * x).sum()
    rhs = (z * ops.conv3d_transpose(T(x), T(w), stride=2).asnumpy()).sum()
    assert abs(lhs - rhs) < 1e-9


def test_conv_layers_weights_and_modes():
    ms.set_seed(3)
    x = RNG.standard_normal((2, 3, 5)).astype(np.float32)
    layer = nn.Conv1dTranspose(3, 4, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
    assert layer.weight.shape == (3, 4, 1, 3)
    w = layer.weight.asnumpy()[:, :, 0]
    ref = ref_conv_transpose(x.astype(np.float64), w, (2,), (1,), (1,), (1,), 1, (0,)) + layer.bias.asnumpy()[:, None]
    np.testing.assert_allclose(layer(T(x)).asnumpy(), ref, rtol=1e-5, atol=1e-5)
    for mode, size in (("same", 10), ("valid", 11)):
        assert nn.Conv1dTranspose(3, 4, 3, stride=2, pad_mode=mode)(T(x)).shape == (2, 4, size)
    assert nn.Conv2dTranspose(3, 6, 2, stride=4, pad_mode="valid", group=3).weight.shape == (3, 2, 2, 2)
    assert nn.Conv2dTranspose(3, 6, 2, stride=4, pad_mode="valid")(T(RNG.random((1, 3, 2, 2), np.float32))).shape \
        == (1, 6, 8, 8)  # in * stride (kernel < stride: trailing zeros), MindSpore's 'valid'
    c3 = nn.Conv3d(3, 2, (1, 2, 3), pad_mode="valid", has_bias=True)
    assert c3.weight.shape == (2, 3, 1, 2, 3)
    x3 = RNG.standard_normal((1, 3, 2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(c3(T(x3)).asnumpy(), ref_conv(x3.astype(np.float64), c3.weight.asnumpy(), (1,) * 3,
                                                             (0,) * 3, (0,) * 3, (1,) * 3, 1)
                               + c3.bias.asnumpy().reshape(1, -1, 1, 1, 1), rtol=1e-5, atol=1e-5)
    t3 = nn.Conv3dTranspose(3, 2, 2, stride=2)
    assert t3.weight.shape == (3, 2, 2, 2, 2) and t3(T(x3)).shape == (1, 2, 4, 6, 8)
    with pytest.raises(ValueError, match="Conv3d: padding must be 0"):
        nn.Conv3d(3, 2, 3, padding=1)
    with pytest.raises(Exception, match="Conv3d"):
        c3(T(x3[:, :2]))


# --- pooling ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("k,s,p,d,ceil", [(2, None, 0, 1, False), ((2, 3, 2), (1, 2, 2), (1, 1, 0), 1, True),
                                          (2, 1, 0, 2, False)])
def test_max_pool3d_values_and_indices(k, s, p, d, ceil):
    x = RNG.standard_normal((2, 3, 5, 6, 5))
    y, i = ops.max_pool3d(T(x), k, s, p, d, ceil, True)
    kk = (k,) * 3 if isinstance(k, int) else k
    ss = kk if s is None else ((s,) * 3 if isinstance(s, int) else s)
    pp = (p,) * 3 if isinstance(p, int) else p
    ry, ri = ref_pool(x, kk, ss, pp, pp, (d,) * 3, ceil, "max")
    np.testing.assert_array_equal(y.asnumpy(), ry)
    np.testing.assert_array_equal(i.asnumpy(), ri)
    assert i.dtype == ms.int64


@pytest.mark.parametrize("p,ceil,cip,div", [(0, False, True, 0), (1, True, True, 0), (1, True, False, 0),
                                            ((1, 0, 0, 1, 1, 1), False, True, 5)])
def test_avg_pool3d(p, ceil, cip, div):
    x = RNG.standard_normal((1, 2, 5, 4, 6))
    got = ops.avg_pool3d(T(x), 3, 2, p, ceil, cip, div).asnumpy()
    if isinstance(p, int):
        pb = pa = (p,) * 3
    else:
        pb, pa = p[0::2], p[1::2]
    ref, _ = ref_pool(x, (3,) * 3, (2,) * 3, pb, pa, (1,) * 3, ceil, "avg", cip, div)
    np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_avg_pool1d_and_lp_pool():
    x = RNG.standard_normal((2, 3, 9))
    ref, _ = ref_pool(x, (4,), (3,), (2,), (2,), (1,), True, "avg", False)
    np.testing.assert_allclose(ops.avg_pool1d(T(x), 4, 3, 2, True, False).asnumpy(), ref, rtol=1e-12)
    xp = np.abs(x) + 0.1
    ref = np.stack([(xp[..., i:i + 3] ** 3).sum(-1) ** (1 / 3) for i in range(0, 7, 2)], -1)
    np.testing.assert_allclose(ops.lp_pool1d(T(xp), 3, 3, 2).asnumpy(), ref, rtol=1e-12)
    x2 = np.abs(RNG.standard_normal((1, 2, 4, 6))) + 0.1
    ref2 = np.sqrt((x2.reshape(1, 2, 2, 2, 3, 2) ** 2).sum(axis=(3, 5)))
    np.testing.assert_allclose(ops.lp_pool2d(T(x2), 2, 2).asnumpy(), ref2, rtol=1e-12)
    np.testing.assert_allclose(nn.LPPool2d(2, 2)(T(x2)).asnumpy(), ref2, rtol=1e-12)


def test_pooling_gradients():
    x = RNG.standard_normal((1, 2, 4, 3, 4))
    check_grad(lambda a: ops.max_pool3d(a, 2, 1, 1), x)
    check_grad(lambda a: ops.avg_pool3d(a, 2, 1, 1, False, False), x)
    check_grad(lambda a: ops.adaptive_max_pool3d(a, (3, 2, 3)), x)
    check_grad(lambda a: ops.adaptive_avg_pool3d(a, (3, 2, 3)), x)
    check_grad(lambda a: ops.lp_pool1d(a, 2, 2), np.abs(x[0, :, 0]) + 0.5)


@pytest.mark.parametrize("fn,shape,out", [
    (ops.adaptive_max_pool1d, (2, 3, 7), (3,)), (ops.adaptive_max_pool2d, (2, 3, 7, 5), (3, 4)),
    (ops.adaptive_max_pool3d, (1, 2, 5, 4, 6), (2, 3, 4))])
def test_adaptive_max_pool(fn, shape, out):
    x = RNG.standard_normal(shape)
    ry, ri = ref_adaptive(x, out, "max")
    if fn is ops.adaptive_max_pool1d:
        np.testing.assert_array_equal(fn(T(x), out[0]).asnumpy(), ry)
        return
    y, i = fn(T(x), out, True)
    np.testing.assert_array_equal(y.asnumpy(), ry)
    np.testing.assert_array_equal(i.asnumpy(), ri)
    unbatched = fn(T(x[0]), out)
    np.testing.assert_array_equal(unbatched.asnumpy(), ry[0])


def test_adaptive_avg_pool3d_and_layers():
    x = RNG.standard_normal((2, 2, 5, 7, 4))
    ry, _ = ref_adaptive(x, (2, 3, 4), "avg")
    np.testing.assert_allclose(ops.adaptive_avg_pool3d(T(x), (2, 3, None)).asnumpy(), ry, rtol=1e-12)
    np.testing.assert_allclose(nn.AdaptiveAvgPool3d((2, 3, 4))(T(x)).asnumpy(), ry, rtol=1e-12)
    ry, ri = ref_adaptive(x, (3, 3, 3), "max")
    y, i = nn.AdaptiveMaxPool3d(3, return_indices=True)(T(x))
    np.testing.assert_array_equal(y.asnumpy(), ry)
    np.testing.assert_array_equal(i.asnumpy(), ri)
    y, i = ops.AdaptiveMaxPool3D()(T(x), (3, 3, 3))
    np.testing.assert_array_equal(i.asnumpy(), ri)
    assert i.dtype == ms.int32
    y2 = nn.AdaptiveMaxPool1d(2)(T(x[:, 0, 0]))
    np.testing.assert_array_equal(y2.asnumpy(), ref_adaptive(x[:, 0, 0], (2,), "max")[0])


def test_pool3d_layers_and_class_forms():
    x = RNG.standard_normal((2, 2, 6, 5, 4)).astype(np.float32)
    ry, ri = ref_pool(x, (2, 2, 2), (2, 2, 2), (0,) * 3, (0,) * 3, (1,) * 3, False, "max")
    y, i = nn.MaxPool3d(2, 2, return_indices=True)(T(x))
    np.testing.assert_array_equal(y.asnumpy(), ry)
    np.testing.assert_array_equal(ops.MaxPool3D(2, 2)(T(x)).asnumpy(), ry)
    # 'same': TF padding (odd pixel after), never counted in the average
    got = nn.AvgPool3d(3, 2, "same")(T(x)).asnumpy()
    tot = [max((-(-n // 2) - 1) * 2 + 3 - n, 0) for n in (6, 5, 4)]
    ref, _ = ref_pool(x, (3,) * 3, (2,) * 3, tuple(t // 2 for t in tot), tuple(t - t // 2 for t in tot), (1,) * 3,
                      False, "avg", False)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ops.AvgPool3D(3, 2, "same")(T(x)).asnumpy(), ref, rtol=1e-5, atol=1e-6)
    # unpooling inverts the max positions
    up = nn.MaxUnpool3d(2, 2)(y, i, x.shape).asnumpy()  # H=5 is odd: the default would be 4
    dense = np.zeros_like(x).reshape(2, 2, -1)
    np.put_along_axis(dense, ri.reshape(2, 2, -1), ry.reshape(2, 2, -1), axis=2)
    np.testing.assert_array_equal(up, dense.reshape(x.shape))
    np.testing.assert_array_equal(ops.MaxUnpool3D(2, 2, output_shape=x.shape)(y, i).asnumpy(), up)
    with pytest.raises(ValueError, match="MaxPool3d: padding must be 0"):
        nn.MaxPool3d(2, padding=1)


def test_max_unpool2d_and_1d():
    x = RNG.standard_normal((1, 2, 4, 6))
    y, i = ops.max_pool2d(T(x), 2, return_indices=True)
    up = ops.max_unpool2d(y, i, 2).asnumpy()
    assert up.shape == (1, 2, 4, 6)
    np.testing.assert_array_equal(up.max(axis=(2, 3)), x.max(axis=(2, 3)))
    assert np.count_nonzero(up) == y.size
    np.testing.assert_array_equal(ops.MaxUnpool2D(2, 2)(y, i).asnumpy(), up)
    np.testing.assert_array_equal(nn.MaxUnpool2d(2)(y, i).asnumpy(), up)
    up2 = ops.max_unpool2d(y, i, 2, output_size=(1, 2, 5, 7)).asnumpy()
    assert up2.shape == (1, 2, 5, 7)
    v = T(np.array([[[3.0, 5.0]]]))
    np.testing.assert_array_equal(ops.max_unpool1d(v, T(np.array([[[1, 2]]], np.int64)), 2).asnumpy(),
                                  [[[0.0, 3.0, 5.0, 0.0]]])


# --- fold / unfold / pixel shuffle / channel shuffle ---------------------------------------------------


def test_unfold_fold_match_im2col():
    x = RNG.standard_normal((2, 3, 5, 6))
    cols = ops.unfold(T(x), (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)).asnumpy()
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    oh, ow = (7 - 2 - 1) // 1 + 1, (8 - 3) // 2 + 1
    ref = np.zeros((2, 3, 2, 3, oh, ow))
    for i in range(2):
        for j in range(3):
            ref[:, :, i, j] = xp[:, :, i * 2:i * 2 + oh, j:j + 2 * (ow - 1) + 1:2]
    np.testing.assert_allclose(cols, ref.reshape(2, 18, oh * ow), rtol=1e-12)
    # fold is unfold's adjoint: <unfold(x), c> == <x, fold(c)>
    c = RNG.standard_normal(cols.shape)
    back = ops.fold(T(c), (5, 6), (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)).asnumpy()
    assert abs((cols * c).sum() - (x * back).sum()) < 1e-9
    np.testing.assert_allclose(T(x).unfold(2, 1, 0, 1).asnumpy().shape, (2, 12, 20))
    check_grad(lambda a: ops.fold(a, (4, 4), 2, stride=2), RNG.standard_normal((1, 8, 4)))


def test_pixel_and_channel_shuffle():
    x = RNG.standard_normal((2, 8, 3, 2))
    y = ops.pixel_shuffle(T(x), 2).asnumpy()
    ref = x.reshape(2, 2, 2, 2, 3, 2).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 6, 4)
    np.testing.assert_array_equal(y, ref)
    np.testing.assert_array_equal(ops.pixel_unshuffle(T(y), 2).asnumpy(), x)
    cs = nn.ChannelShuffle(2)(T(x)).asnumpy()
    np.testing.assert_array_equal(cs[:, [0, 1, 2, 3]], x[:, [0, 4, 1, 5]])
    with pytest.raises(Exception, match="pixel_shuffle"):
        ops.pixel_shuffle(T(x), 3)


def test_argmax_class_forms_and_upsample():
    x = RNG.standard_normal((2, 3, 5, 6, 5))
    y, i = ops.MaxPool3DWithArgmax(2, (1, 2, 2), 1, argmax_type=ms.int32)(T(x))
    ry, ri = ref_pool(x, (2, 2, 2), (1, 2, 2), (1, 1, 1), (1, 1, 1), (1, 1, 1), False, "max")
    np.testing.assert_array_equal(y.asnumpy(), ry)
    np.testing.assert_array_equal(i.asnumpy(), ri)
    assert i.dtype == ms.int32
    x2 = x[:, :, 0]
    y2, i2 = ops.MaxPoolWithArgmax(2, 2)(T(x2))
    ry2, ri2 = ref_pool(x2, (2, 2), (2, 2), (0, 0), (0, 0), (1, 1), False, "max")
    np.testing.assert_array_equal(y2.asnumpy(), ry2)
    np.testing.assert_array_equal(i2.asnumpy(), ri2)
    np.testing.assert_array_equal(ops.upsample(T(x2), scale_factor=2.0).asnumpy(),
                                  x2.repeat(2, axis=2).repeat(2, axis=3))


def test_train_export_and_load_are_the_top_level_ones():
    assert ms.train.export is ms.export and ms.train.load is ms.load
    assert "export" in ms.train.__all__


def test_lrn_matches_tensorflow_formula():
    x = RNG.standard_normal((2, 7, 3, 4))
    r, bias, alpha, beta = 2, 1.5, 0.3, 0.75
    ref = np.empty_like(x)
    for c in range(7):
        s = (x[:, max(0, c - r):c + r + 1] ** 2).sum(1)
        ref[:, c] = x[:, c] / (bias + alpha * s) ** beta
    np.testing.assert_allclose(nn.LRN(r, bias, alpha, beta)(T(x)).asnumpy(), ref, rtol=1e-10)


@pytest.mark.parametrize("padding", ["valid", "same"])
def test_unfold_extract_image_patches(padding):
    x = RNG.standard_normal((2, 3, 5, 6))
    k, s, r = (2, 3), (2, 1), (1, 2)
    got = nn.Unfold([1, *k, 1], [1, *s, 1], [1, *r, 1], padding)(T(x)).asnumpy()
    if padding == "valid":
        pb = (0, 0)
    else:
        tot = [max((-(-n // si) - 1) * si + ri * (ki - 1) + 1 - n, 0) for n, si, ri, ki in zip((5, 6), s, r, k)]
        pb = tuple(t // 2 for t in tot)
    xp = np.pad(x, ((0, 0), (0, 0), (pb[0], 10), (pb[1], 10)))
    oh, ow = got.shape[2:]
    ref = np.zeros((2, k[0], k[1], 3, oh, ow))
    for i in range(k[0]):
        for j in range(k[1]):
            ref[:, i, j] = xp[:, :, i * r[0]:i * r[0] + s[0] * oh:s[0], j * r[1]:j * r[1] + s[1] * ow:s[1]]
    np.testing.assert_array_equal(got, ref.reshape(2, -1, oh, ow))
    assert got.shape[2:] == ((2, 2) if padding == "valid" else (3, 6))


def _linear_matrix(n_in, n_out, align):
    m = np.zeros((n_out, n_in))
    for i in range(n_out):
        src = i * (n_in - 1) / (n_out - 1) if align and n_out > 1 else max((i + 0.5) * n_in / n_out - 0.5, 0)
        lo = min(int(np.floor(src)), n_in - 1)
        hi = min(lo + 1, n_in - 1)
        m[i, lo] += 1 - (src - lo)
        m[i, hi] += src - lo
    return m


@pytest.mark.parametrize("align", [False, True])
def test_upsample_3d_class_forms(align):
    x = RNG.standard_normal((1, 2, 2, 3, 4))
    out = (3, 5, 7)
    near = ops.UpsampleNearest3D()(T(x), out).asnumpy()
    idx = [np.floor(np.arange(o) * n / o).astype(int) for o, n in zip(out, (2, 3, 4))]
    np.testing.assert_array_equal(near, x[:, :, idx[0]][:, :, :, idx[1]][..., idx[2]])
    tri = ops.UpsampleTrilinear3D(align)(T(x), out).asnumpy()
    md, mh, mw = (_linear_matrix(n, o, align) for n, o in zip((2, 3, 4), out))
    ref = np.einsum("pd,qh,rw,ncdhw->ncpqr", md, mh, mw, x)
    np.testing.assert_allclose(tri, ref, rtol=1e-10, atol=1e-12)
    assert ops.UpsampleNearest3D()(T(x), scales=(2.0, 1.0, 0.5)).shape == (1, 2, 4, 3, 2)
    with pytest.raises(ValueError, match="exactly one"):
        ops.UpsampleNearest3D()(T(x))
