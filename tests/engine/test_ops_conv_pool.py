"""spore.ops convolution and pooling: MindSpore's functional and class forms, their shapes for every
pad_mode, their gradients (first and second order) and their error messages."""

import math

import numpy as np
import pytest

import spore as ms
from spore import ops
from spore.errors import DTypeError, ShapeError
from spore.ops.primitive import REGISTRY

from .gradcheck import numeric_vjp
from .test_kernels_conv_pool import naive_avg_pool, naive_conv, naive_conv_grads, naive_max_pool

R = np.random.default_rng(21)


def T(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype))


def rand(*shape):
    return R.standard_normal(shape)


# ----------------------------------------------------------------------------------------------
# shapes: MindSpore's formulas


@pytest.mark.parametrize("h", [5, 6, 7, 8])
@pytest.mark.parametrize("k,s,d", [(1, 1, 1), (2, 1, 1), (3, 2, 1), (3, 3, 1), (2, 2, 2), (3, 1, 2)])
def test_conv2d_output_size_follows_mindspore_for_each_pad_mode(h, k, s, d):
    x = T(rand(1, 2, h, h + 1))
    w = T(rand(3, 2, k, k))
    ext = d * (k - 1) + 1
    valid = ops.conv2d(x, w, stride=s, dilation=d)
    assert valid.shape == (1, 3, (h - ext) // s + 1, (h + 1 - ext) // s + 1)
    same = ops.conv2d(x, w, stride=s, pad_mode="same", dilation=d)
    assert same.shape == (1, 3, math.ceil(h / s), math.ceil((h + 1) / s))
    padded = ops.conv2d(x, w, stride=s, pad_mode="pad", padding=(1, 2, 0, 3), dilation=d)
    assert padded.shape == (1, 3, (h + 3 - ext) // s + 1, (h + 1 + 3 - ext) // s + 1)


@pytest.mark.parametrize("h,k,s,pads", [(6, 2, 1, (0, 1)), (7, 3, 2, (1, 1)), (8, 3, 2, (0, 1)), (5, 4, 1, (1, 2)),
                                        (9, 1, 2, (0, 0))])
def test_conv2d_same_pads_like_tensorflow_with_the_extra_pixel_at_bottom_right(h, k, s, pads):
    x, w = rand(2, 3, h, h), rand(4, 3, k, k)
    got = ops.conv2d(T(x, np.float64), T(w, np.float64), stride=s, pad_mode="same").asnumpy()
    want = naive_conv(x, w, None, (s, s), pads + pads, (1, 1), 1)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("padding,pads", [(1, (1, 1, 1, 1)), ((2, 1), (2, 2, 1, 1)), ((0, 2, 1, 3), (0, 2, 1, 3))])
def test_conv2d_pad_mode_pad_accepts_int_pair_and_four_sides(padding, pads):
    x, w = rand(1, 2, 5, 6), rand(3, 2, 3, 2)
    got = ops.conv2d(T(x, np.float64), T(w, np.float64), pad_mode="pad", padding=padding).asnumpy()
    np.testing.assert_allclose(got, naive_conv(x, w, None, (1, 1), pads, (1, 1), 1), rtol=1e-10, atol=1e-10)


def test_conv2d_float32_kernel_with_bias_matches_the_reference():
    x, w, b = rand(2, 4, 9, 7), rand(6, 2, 3, 3), rand(6)
    got = ops.conv2d(T(x), T(w), T(b), stride=(2, 1), pad_mode="pad", padding=(1, 0, 2, 1), dilation=(1, 2),
                     groups=2)
    assert got.dtype == ms.float32
    want = naive_conv(x, w, b, (2, 1), (1, 0, 2, 1), (1, 2), 2)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-4, atol=1e-4)


def test_conv2d_in_float16_runs_in_float32_and_returns_float16():
    x, w = rand(1, 3, 6, 6), rand(4, 3, 3, 3)
    got = ops.conv2d(T(x, np.float16), T(w, np.float16), pad_mode="same")
    assert got.dtype == ms.float16
    want = naive_conv(x.astype(np.float16).astype(np.float64), w.astype(np.float16).astype(np.float64), None,
                      (1, 1), (1, 1, 1, 1), (1, 1), 1)
    np.testing.assert_allclose(got.asnumpy().astype(np.float64), want, rtol=2e-2, atol=2e-2)


def test_conv1d_is_a_direct_correlation_along_the_length():
    x, w, b = rand(2, 4, 11), rand(6, 2, 3), rand(6)
    got = ops.conv1d(T(x, np.float64), T(w, np.float64), T(b, np.float64), stride=2, pad_mode="pad",
                     padding=(1, 2), dilation=2, groups=2).asnumpy()
    xp = np.pad(x, ((0, 0), (0, 0), (1, 2)))
    length = (11 + 3 - 2 * 2 - 1) // 2 + 1
    want = np.zeros((2, 6, length))
    for o in range(6):
        g = o // 3
        for i in range(length):
            for t in range(3):
                want[:, o, i] += xp[:, 2 * g:2 * g + 2, 2 * i + 2 * t] @ w[o, :, t]
    np.testing.assert_allclose(got, want + b[None, :, None], rtol=1e-10, atol=1e-10)
    assert ops.conv1d(T(x), T(rand(5, 4, 4)), pad_mode="same").shape == (2, 5, 11)


# ----------------------------------------------------------------------------------------------
# gradients


def test_conv2d_gradients_run_through_the_cpp_kernels_and_match_direct_loops():
    x, w, b = rand(2, 3, 7, 6), rand(4, 3, 3, 2), rand(4)
    s, p = (2, 1), (1, 0, 0, 1)
    dy = rand(*naive_conv(x, w, None, s, p, (1, 1), 1).shape)

    def loss(x, w, b):
        return ops.reduce_sum(ops.mul(ops.conv2d(x, w, b, stride=s, pad_mode="pad", padding=p), T(dy)))

    gx, gw, gb = ms.grad(loss, grad_position=(0, 1, 2))(T(x), T(w), T(b))
    dx, dw = naive_conv_grads(x, w, dy, s, p, (1, 1), 1)
    assert gx.dtype == ms.float32
    np.testing.assert_allclose(gx.asnumpy(), dx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gw.asnumpy(), dw, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gb.asnumpy(), dy.sum(axis=(0, 2, 3)), rtol=1e-4, atol=1e-4)


def test_weight_gradient_alone_skips_the_input_gradient_kernel(monkeypatch):
    # the first conv layer's input needs no gradient: its backward-data pass must not run
    calls = []
    prim = REGISTRY["Conv2DBackpropInput"]
    real = prim.impl
    monkeypatch.setattr(prim, "impl", lambda *a, **k: calls.append(1) or real(*a, **k))
    x, w = T(rand(2, 3, 6, 6)), T(rand(4, 3, 3, 3))
    gw = ms.grad(lambda w: ops.reduce_sum(ops.conv2d(x, w, pad_mode="same")), grad_position=0)(w)
    assert gw.shape == (4, 3, 3, 3) and calls == []
    ms.grad(lambda x: ops.reduce_sum(ops.conv2d(x, w, pad_mode="same")), grad_position=0)(x)
    assert calls == [1]


def test_input_weight_and_bias_gradients_come_from_one_fused_backward_call(monkeypatch):
    calls = {name: 0 for name in ("Conv2DBackprop", "Conv2DBackpropInput", "Conv2DBackpropFilter", "BiasAddGrad")}
    for name in calls:
        prim = REGISTRY[name]
        monkeypatch.setattr(prim, "impl", lambda *a, _n=name, _f=prim.impl, **k: calls.__setitem__(_n, calls[_n] + 1)
                            or _f(*a, **k))
    x, w, b = T(rand(2, 3, 6, 6)), T(rand(4, 3, 3, 3)), T(rand(4))
    grads = ms.grad(lambda x, w, b: ops.reduce_sum(ops.conv2d(x, w, b, pad_mode="same")), grad_position=(0, 1, 2))(
        x, w, b)
    assert [g.shape for g in grads] == [(2, 3, 6, 6), (4, 3, 3, 3), (4,)]
    np.testing.assert_allclose(grads[2].asnumpy(), np.full(4, 2 * 36.0), rtol=1e-6)
    assert calls == {"Conv2DBackprop": 1, "Conv2DBackpropInput": 0, "Conv2DBackpropFilter": 0, "BiasAddGrad": 0}


def test_second_order_gradient_of_conv_matches_finite_differences():
    # F(w) = <v, d/dx sum(conv(x, w)^2) / 2>: its gradient needs the vjps of both backprop prims
    x, w0, v = rand(1, 2, 5, 4), rand(3, 2, 2, 3), rand(1, 2, 5, 4)
    attrs = dict(stride=(2, 1), pad_mode="pad", padding=(1, 0, 1, 1))

    def inner(x, w):
        y = ops.conv2d(x, w, **attrs)
        return ops.reduce_sum(ops.mul(y, y)) * 0.5

    def outer(w):
        gx = ms.grad(inner, grad_position=0)(T(x, np.float64), w)
        return ops.reduce_sum(ops.mul(gx, T(v, np.float64)))

    got = ms.grad(outer)(T(w0, np.float64)).asnumpy()
    num = numeric_vjp(lambda ws: [outer(T(ws[0], np.float64)).asnumpy()], [w0.copy()], 0, [np.ones(())], 1e-6)
    np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-7)


def test_max_pool_gradient_goes_to_each_window_maximum_and_accumulates_on_overlaps():
    x = rand(2, 3, 6, 6)
    dy_shape = (2, 3, 6, 6)
    dy = rand(*dy_shape)
    g = ms.grad(lambda t: ops.reduce_sum(ops.mul(ops.max_pool2d(t, 3, 1, 1), T(dy))))(T(x)).asnumpy()
    _, idx = naive_max_pool(x, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), False)
    want = np.zeros(x.shape)
    for (n, c, i, j), at in np.ndenumerate(idx):
        want[n, c].flat[at] += dy[n, c, i, j]
    np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-5)


def test_bias_add_gradient_is_the_per_channel_sum():
    x, b, dy = rand(2, 3, 4, 5), rand(3), rand(2, 3, 4, 5)
    np.testing.assert_allclose(ops.bias_add(T(x), T(b)).asnumpy(), x + b[:, None, None], rtol=1e-6, atol=1e-6)
    gb = ms.grad(lambda b: ops.reduce_sum(ops.mul(ops.bias_add(T(x), b), T(dy))))(T(b)).asnumpy()
    np.testing.assert_allclose(gb, dy.sum(axis=(0, 2, 3)), rtol=1e-5, atol=1e-5)
    xh = rand(2, 4, 3)
    np.testing.assert_allclose(ops.bias_add(T(xh), T(b), "NHWC").asnumpy(), xh + b, rtol=1e-6, atol=1e-6)


# ----------------------------------------------------------------------------------------------
# pooling


def test_max_pool2d_defaults_stride_to_the_kernel_and_returns_plane_indices():
    x = rand(2, 3, 7, 8)
    y, idx = ops.max_pool2d(T(x), 2, return_indices=True)
    assert y.shape == (2, 3, 3, 4) and idx.dtype == ms.int64
    flat = x.reshape(2, 3, -1)
    np.testing.assert_allclose(np.take_along_axis(flat, idx.asnumpy().reshape(2, 3, -1), 2).reshape(y.shape),
                               y.asnumpy(), rtol=1e-6)
    y_ref, idx_ref = naive_max_pool(x, (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), False)
    np.testing.assert_array_equal(idx.asnumpy(), idx_ref)


@pytest.mark.parametrize("kw", [dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
                                dict(kernel_size=(2, 3), stride=(1, 2), padding=(1, 1), dilation=(2, 1)),
                                dict(kernel_size=3, stride=2, ceil_mode=True)])
def test_max_pool2d_matches_direct_loops(kw):
    x = rand(1, 2, 7, 8)
    k = kw["kernel_size"] if isinstance(kw["kernel_size"], tuple) else (kw["kernel_size"],) * 2
    s = kw["stride"] if isinstance(kw["stride"], tuple) else (kw["stride"],) * 2
    p = kw.get("padding", 0)
    p = (p[0], p[0], p[1], p[1]) if isinstance(p, tuple) else (p,) * 4
    want, _ = naive_max_pool(x, k, s, p, kw.get("dilation", (1, 1)), kw.get("ceil_mode", False))
    for dt in (np.float32, np.float64):
        np.testing.assert_allclose(ops.max_pool2d(T(x, dt), **kw).asnumpy(), want, rtol=1e-6)


@pytest.mark.parametrize("kw", [dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
                                dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
                                dict(kernel_size=(2, 3), stride=(2, 1), padding=(1, 1), divisor_override=4)])
def test_avg_pool2d_matches_direct_loops(kw):
    x = rand(2, 2, 7, 6)
    k = kw["kernel_size"] if isinstance(kw["kernel_size"], tuple) else (kw["kernel_size"],) * 2
    s = kw["stride"] if isinstance(kw["stride"], tuple) else (kw["stride"],) * 2
    p = kw["padding"]
    p = (p[0], p[0], p[1], p[1]) if isinstance(p, tuple) else (p,) * 4
    want = naive_avg_pool(x, k, s, p, kw.get("ceil_mode", False), kw.get("count_include_pad", True),
                          kw.get("divisor_override", 0))
    for dt in (np.float32, np.float64):
        np.testing.assert_allclose(ops.avg_pool2d(T(x, dt), **kw).asnumpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("h", [4, 5, 7])
@pytest.mark.parametrize("k,s", [(1, 1), (2, 2), (3, 2), (3, 1), (2, 3)])
def test_pad_mode_pooling_output_sizes_follow_mindspore(h, k, s):
    x = T(rand(1, 2, h, h + 2))
    for fn in (ops.max_pool2d_padmode, ops.avg_pool2d_padmode):
        assert fn(x, k, s, "valid").shape == (1, 2, math.ceil((h - k + 1) / s), math.ceil((h + 2 - k + 1) / s))
        assert fn(x, k, s, "same").shape == (1, 2, math.ceil(h / s), math.ceil((h + 2) / s))
    assert ops.pool2d(x, "max", k, s, "same").shape == (1, 2, math.ceil(h / s), math.ceil((h + 2) / s))


def test_same_average_pooling_leaves_the_padding_out_of_the_divisor():
    x = rand(1, 1, 5, 5)
    y = ops.avg_pool2d_padmode(T(x, np.float64), 2, 2, "same").asnumpy()  # pads one row/col at bottom/right
    assert y.shape == (1, 1, 3, 3)
    np.testing.assert_allclose(y[0, 0, 2, 2], x[0, 0, 4, 4], rtol=1e-12)
    np.testing.assert_allclose(y[0, 0, 0, 2], x[0, 0, 0:2, 4].mean(), rtol=1e-12)
    m = ops.pool2d(T(x, np.float64), "max", 3, 2, "same").asnumpy()  # pads (1, 1): -inf never wins
    np.testing.assert_allclose(m[0, 0, 0, 0], x[0, 0, :2, :2].max(), rtol=1e-12)


def test_pad_mode_pad_pooling_honours_padding_and_ceil_mode():
    x = rand(1, 2, 6, 6)
    got = ops.max_pool2d_padmode(T(x, np.float64), 3, 2, "pad", 1, ceil_mode=True).asnumpy()
    np.testing.assert_allclose(got, naive_max_pool(x, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True)[0])
    got = ops.avg_pool2d_padmode(T(x, np.float64), 3, 2, "pad", 1, count_include_pad=False).asnumpy()
    np.testing.assert_allclose(got, naive_avg_pool(x, (3, 3), (2, 2), (1, 1, 1, 1), False, False, 0), rtol=1e-12)


def _adaptive_reference(x, oh, ow):
    h, w = x.shape[-2:]
    out = np.zeros(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            r0, r1 = (i * h) // oh, -(-((i + 1) * h) // oh)
            c0, c1 = (j * w) // ow, -(-((j + 1) * w) // ow)
            out[..., i, j] = x[..., r0:r1, c0:c1].mean(axis=(-2, -1))
    return out


@pytest.mark.parametrize("size,want_hw", [(1, (1, 1)), ((3, 2), (3, 2)), ((4, None), (4, 6)), ((5, 4), (5, 4))])
def test_adaptive_avg_pool2d_averages_mindspore_bins(size, want_hw):
    x = rand(2, 3, 8, 6)
    got = ops.adaptive_avg_pool2d(T(x, np.float64), size).asnumpy()
    assert got.shape == (2, 3) + want_hw
    np.testing.assert_allclose(got, _adaptive_reference(x, *want_hw), rtol=1e-12, atol=1e-12)
    unbatched = ops.adaptive_avg_pool2d(T(x[0]), size)
    np.testing.assert_allclose(unbatched.asnumpy(), _adaptive_reference(x[0], *want_hw), rtol=1e-5, atol=1e-6)


def test_adaptive_avg_pool_gradients_match_finite_differences():
    x0, v = rand(1, 2, 5, 7), rand(1, 2, 3, 3)

    def f(x):
        return ops.reduce_sum(ops.mul(ops.adaptive_avg_pool2d(x, 3), T(v, np.float64)))

    got = ms.grad(f)(T(x0, np.float64)).asnumpy()
    num = numeric_vjp(lambda xs: [f(T(xs[0], np.float64)).asnumpy()], [x0.copy()], 0, [np.ones(())], 1e-6)
    np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-8)


def test_adaptive_avg_pool1d_bins_the_length():
    x = rand(2, 3, 10)
    got = ops.adaptive_avg_pool1d(T(x, np.float64), 4).asnumpy()
    np.testing.assert_allclose(got, _adaptive_reference(x[:, :, None, :], 1, 4)[:, :, 0], rtol=1e-12)


# ----------------------------------------------------------------------------------------------
# class forms


def test_conv2d_class_matches_the_functional_form():
    x, w = T(rand(2, 4, 7, 7)), T(rand(6, 2, 3, 3))
    op = ops.Conv2D(out_channel=6, kernel_size=3, pad_mode="pad", pad=(1, 0, 2, 1), stride=2, group=2)
    want = ops.conv2d(x, w, None, 2, "pad", (1, 0, 2, 1), 1, 2)
    np.testing.assert_array_equal(op(x, w).asnumpy(), want.asnumpy())
    with pytest.raises(ShapeError, match="Conv2D"):
        ops.Conv2D(out_channel=5, kernel_size=3)(x, w)
    with pytest.raises(ValueError, match="pad must be 0"):
        ops.Conv2D(6, 3, pad_mode="same", pad=1)
    with pytest.raises(ValueError, match="NCHW"):
        ops.Conv2D(6, 3, data_format="NHWC")


def test_pooling_bias_and_adaptive_classes():
    x = rand(1, 2, 5, 5)
    np.testing.assert_allclose(ops.MaxPool(2, 2)(T(x)).asnumpy(), x[:, :, :4, :4].reshape(1, 2, 2, 2, 2, 2)
                               .max(axis=(3, 5)), rtol=1e-6)
    same = ops.AvgPool(kernel_size=2, strides=2, pad_mode="SAME")(T(x, np.float64)).asnumpy()
    np.testing.assert_allclose(same[0, :, 2, 2], x[0, :, 4, 4], rtol=1e-12)
    b = rand(2)
    np.testing.assert_allclose(ops.BiasAdd()(T(x), T(b)).asnumpy(), x + b[:, None, None], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ops.AdaptiveAvgPool2D(1)(T(x)).asnumpy(), x.mean(axis=(2, 3), keepdims=True),
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="pad_mode"):
        ops.MaxPool(2, 2, pad_mode="pad")
    with pytest.raises(ValueError, match="output_size"):
        ops.AdaptiveAvgPool2D((0, 2))


# ----------------------------------------------------------------------------------------------
# errors


def test_conv2d_channel_mismatch_names_the_op_and_both_shapes():
    x, w = T(rand(2, 4, 6, 6)), T(rand(3, 3, 3, 3))
    with pytest.raises(ShapeError) as err:
        ops.conv2d(x, w)
    msg = str(err.value)
    assert "Conv2D" in msg and "(3, 3, 3, 3)" in msg and "(2, 4, 6, 6)" in msg and "group=1" in msg
    assert err.value.loc is not None and err.value.loc.file == __file__


def test_conv2d_kernel_larger_than_padded_input_is_a_shape_error():
    with pytest.raises(ShapeError, match=r"no larger than the padded input \(6, 6\)"):
        ops.conv2d(T(rand(1, 2, 4, 4)), T(rand(3, 2, 7, 7)), pad_mode="pad", padding=1)


def test_conv2d_rejects_bad_bias_rank_modes_and_dtypes():
    x, w = T(rand(1, 2, 5, 5)), T(rand(3, 2, 3, 3))
    with pytest.raises(ShapeError, match=r"bias of shape \(3,\)"):
        ops.conv2d(x, w, T(rand(4)))
    with pytest.raises(ShapeError, match="4-D input"):
        ops.conv2d(T(rand(2, 5, 5)), w)
    with pytest.raises(ValueError, match="pad_mode must be"):
        ops.conv2d(x, w, pad_mode="full")
    with pytest.raises(ValueError, match="padding must be 0"):
        ops.conv2d(x, w, pad_mode="same", padding=1)
    with pytest.raises(DTypeError):
        ops.conv2d(x, T(rand(3, 2, 3, 3), np.float64))


def test_pooling_errors_name_the_op_and_shapes():
    x = T(rand(1, 2, 4, 4))
    with pytest.raises(ShapeError, match=r"MaxPool: .*no larger than the padded input \(4, 4\)"):
        ops.max_pool2d(x, 5)
    with pytest.raises(ShapeError, match="AvgPool: expected padding at most half the kernel"):
        ops.avg_pool2d(x, 2, 1, padding=2)
    with pytest.raises(ShapeError, match=r"4-D input.*\(2, 4, 4\)"):
        ops.max_pool2d(T(rand(2, 4, 4)), 2)
    with pytest.raises(ValueError, match="mode must be 'max' or 'avg'"):
        ops.pool2d(x, "min", 2, 2)
