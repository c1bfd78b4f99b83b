"""Samples for the convolution and pooling primitives (small float64 shapes: the finite-difference
check perturbs every input element).

The configurations cover what the gradient rules must get right: stride, dilation, groups,
asymmetric padding, bias, ceil_mode windows hanging over the edge, and every average-pooling
divisor rule.
"""

import numpy as np

from spore.ops.conv_pool import _conv_geom, _np_max_pool, _pool_geom

from . import Sample

r = np.random.default_rng(7)


def f(*shape):
    return r.standard_normal(shape)


def _conv_dy(xs, ws, stride, pad, dilation, group):
    """A random output gradient of the right shape for a convolution geometry."""
    return f(*_conv_geom("sample", xs, ws, stride, pad, dilation, group))


def _conv(stride=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), group=1):
    return {"stride": stride, "pad": pad, "dilation": dilation, "group": group}


_C_BASIC = _conv(pad=(1, 1, 1, 1))
_C_STRIDED = _conv(stride=(2, 1), pad=(0, 1, 1, 0), dilation=(1, 2))
_C_GROUPED = _conv(stride=(1, 2), pad=(1, 0, 0, 1), group=2)


def _pool(kernel=(2, 2), strides=(2, 2), pad=(0, 0, 0, 0), dilation=(1, 1), ceil_mode=False):
    return {"kernel_size": kernel, "strides": strides, "pad": pad, "dilation": dilation, "ceil_mode": ceil_mode}


_M_CEIL = _pool(kernel=(2, 2), strides=(2, 2), ceil_mode=True)
_M_PADDED = _pool(kernel=(3, 3), strides=(2, 1), pad=(1, 1, 0, 1), dilation=(1, 2))


def _avg(kernel=(2, 2), strides=(2, 2), pad=(0, 0, 0, 0), ceil_mode=False, count_include_pad=True,
         divisor_override=0):
    return {"kernel_size": kernel, "strides": strides, "pad": pad, "ceil_mode": ceil_mode,
            "count_include_pad": count_include_pad, "divisor_override": divisor_override}


_A_INCLUDE = _avg(kernel=(3, 3), strides=(2, 2), pad=(1, 1, 1, 1), ceil_mode=True)
_A_EXCLUDE = _avg(kernel=(3, 2), strides=(2, 1), pad=(1, 0, 1, 1), count_include_pad=False)
_A_OVERRIDE = _avg(kernel=(2, 3), strides=(1, 2), pad=(1, 1, 0, 0), divisor_override=5)


def _argmax(xs, attrs):
    x = f(*xs)
    out = _pool_geom("sample", xs, attrs["kernel_size"], attrs["strides"], attrs["pad"], attrs["dilation"],
                     attrs["ceil_mode"])[2:]
    return x, _np_max_pool(x, attrs["kernel_size"], attrs["strides"], attrs["pad"], attrs["dilation"], out)[1]


def _max_grad_sample(xs, attrs):
    _, idx = _argmax(xs, attrs)
    return Sample([f(*idx.shape), idx], {"input_shape": xs}, wrt=(0,))


def _max_gather_sample(xs, attrs):
    x, idx = _argmax(xs, attrs)
    return Sample([x, idx], wrt=(0,))


def _avg_grad_sample(xs, attrs):
    out = _pool_geom("sample", xs, attrs["kernel_size"], attrs["strides"], attrs["pad"], (1, 1), attrs["ceil_mode"])
    return Sample([f(*out)], {"input_shape": xs, **attrs})


SAMPLES = {
    "Conv2D": [
        Sample([f(2, 2, 5, 5), f(3, 2, 3, 3)], _C_BASIC),
        Sample([f(1, 2, 6, 7), f(4, 2, 2, 2), f(4)], _C_STRIDED),
        Sample([f(1, 4, 5, 5), f(4, 2, 3, 2), f(4)], _C_GROUPED),
    ],
    "Conv2DBackpropInput": [
        Sample([_conv_dy((2, 2, 5, 5), (3, 2, 3, 3), **_C_BASIC), f(3, 2, 3, 3)],
               {"input_size": (2, 2, 5, 5), **_C_BASIC}),
        Sample([_conv_dy((1, 2, 6, 7), (4, 2, 2, 2), **_C_STRIDED), f(4, 2, 2, 2)],
               {"input_size": (1, 2, 6, 7), **_C_STRIDED}),
        Sample([_conv_dy((1, 4, 5, 5), (4, 2, 3, 2), **_C_GROUPED), f(4, 2, 3, 2)],
               {"input_size": (1, 4, 5, 5), **_C_GROUPED}),
    ],
    "Conv2DBackpropFilter": [
        Sample([_conv_dy((2, 2, 5, 5), (3, 2, 3, 3), **_C_BASIC), f(2, 2, 5, 5)],
               {"filter_size": (3, 2, 3, 3), **_C_BASIC}),
        Sample([_conv_dy((1, 2, 6, 7), (4, 2, 2, 2), **_C_STRIDED), f(1, 2, 6, 7)],
               {"filter_size": (4, 2, 2, 2), **_C_STRIDED}),
        Sample([_conv_dy((1, 4, 5, 5), (4, 2, 3, 2), **_C_GROUPED), f(1, 4, 5, 5)],
               {"filter_size": (4, 2, 3, 2), **_C_GROUPED}),
    ],
    "Conv2DBackprop": [
        Sample([_conv_dy((2, 2, 5, 5), (3, 2, 3, 3), **_C_BASIC), f(2, 2, 5, 5), f(3, 2, 3, 3)], _C_BASIC),
        Sample([_conv_dy((1, 2, 6, 7), (4, 2, 2, 2), **_C_STRIDED), f(1, 2, 6, 7), f(4, 2, 2, 2)],
               {"with_bias": True, **_C_STRIDED}),
        Sample([_conv_dy((1, 4, 5, 5), (4, 2, 3, 2), **_C_GROUPED), f(1, 4, 5, 5), f(4, 2, 3, 2)],
               {"with_bias": True, **_C_GROUPED}),
    ],
    "BiasAdd": [
        Sample([f(2, 3, 4, 4), f(3)]),
        Sample([f(2, 4, 3), f(3)], {"data_format": "NHWC"}),
    ],
    "BiasAddGrad": [
        Sample([f(2, 3, 4, 5)]),
        Sample([f(2, 4, 3)], {"data_format": "NHWC"}),
    ],
    "MaxPool": [
        Sample([f(2, 2, 5, 5)], _M_CEIL),
        Sample([f(1, 2, 6, 7)], _M_PADDED),
    ],
    "MaxPoolGrad": [
        _max_grad_sample((2, 2, 5, 5), _M_CEIL),
        _max_grad_sample((1, 2, 6, 7), _M_PADDED),
    ],
    "MaxPoolGradGrad": [
        _max_gather_sample((2, 2, 5, 5), _M_CEIL),
        _max_gather_sample((1, 2, 6, 7), _M_PADDED),
    ],
    "AvgPool": [
        Sample([f(2, 2, 6, 6)], _avg()),
        Sample([f(1, 2, 6, 7)], _A_INCLUDE),
        Sample([f(1, 2, 5, 4)], _A_EXCLUDE),
        Sample([f(1, 2, 5, 6)], _A_OVERRIDE),
    ],
    "AvgPoolGrad": [
        _avg_grad_sample((1, 2, 6, 7), _A_INCLUDE),
        _avg_grad_sample((1, 2, 5, 4), _A_EXCLUDE),
        _avg_grad_sample((1, 2, 5, 6), _A_OVERRIDE),
    ],
}
