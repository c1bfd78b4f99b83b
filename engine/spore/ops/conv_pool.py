"""Convolution and pooling: the primitives (NCHW) and MindSpore's functional wrappers.

Kernels: float32 runs in C++ (`spore._kernels`: oneDNN convolution, OpenMP pooling loops); float64
(what gradient checks use) runs on the NumPy implementations below (im2col through stride tricks),
which double as the reference the C++ kernels are tested against. Other float dtypes go through
float32 C++ and are cast back.

Every primitive here is differentiable to any order: the gradient of a convolution is expressed
with the other convolution primitives (they are each other's adjoints; `Conv2DBackprop` computes
both gradients of a training step in one kernel call), average pooling and its
gradient are adjoint linear maps, and max pooling's gradient scatters through the argmax that the
forward pass already produced (`MaxPool` is a two-output primitive: output and argmax), whose
adjoint is a gather (`MaxPoolGradGrad`).

Geometry attributes are normalised by the wrappers: `stride`/`dilation`/`kernel_size`/`strides` are
(h, w) pairs and `pad` is (top, bottom, left, right), so asymmetric TF-style 'same' padding needs no
extra pad op.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import _kernels
from .._runtime import tuning_cache as _tuning_cache
from ..autodiff.tape import is_tracked
from ..common import dtype as mstype
from ..errors import ShapeError, located
from ..onnx.spec import OnnxMap
from ..tensor import Tensor
from ._rules import require_float, require_same_dtype
from .primitive import Aval, primitive

_tuning_cache.attach(_kernels)  # SPORE_TUNING: reuse the last process's conv autotuning (spore._runtime)

Pair = tuple[int, int]
Quad = tuple[int, int, int, int]

# ----------------------------------------------------------------------------------------------
# geometry


def _pair(name: str, value: Any, op: str) -> Pair:
    """An int or a 1-, 2- or 4-sequence (MindSpore's (1, 1, h, w) form) as an (h, w) pair."""
    if isinstance(value, (int, np.integer)):
        return int(value), int(value)
    v = tuple(int(a) for a in value)
    if len(v) == 1:
        return v[0], v[0]
    if len(v) == 2:
        return v  # type: ignore[return-value]
    if len(v) == 4:
        return v[2], v[3]
    raise ValueError(f"{op}: {name} must be an int or a tuple of 2 ints, got {value!r}")


def _quad(value: Any, op: str) -> Quad:
    """MindSpore padding: an int (all sides), (h, w), or (top, bottom, left, right)."""
    if isinstance(value, (int, np.integer)):
        return (int(value),) * 4  # type: ignore[return-value]
    v = tuple(int(a) for a in value)
    if len(v) == 1:
        return (v[0],) * 4  # type: ignore[return-value]
    if len(v) == 2:
        return v[0], v[0], v[1], v[1]
    if len(v) == 4:
        return v  # type: ignore[return-value]
    raise ValueError(f"{op}: padding must be an int or a tuple of 2 or 4 ints, got {value!r}")


def _same_pad(size: int, k: int, s: int, d: int) -> tuple[int, int]:
    """TF 'SAME' padding along one axis: output ceil(size / s); the odd pixel goes after."""
    out = -(-size // s)
    total = max((out - 1) * s + d * (k - 1) + 1 - size, 0)
    return total // 2, total - total // 2


def _out_size(size: int, k: int, s: int, d: int, before: int, after: int, ceil_mode: bool = False) -> int:
    """Output length of a sliding window; with ceil_mode the last window must start inside the
    input or its leading padding (PyTorch's and MindSpore's rule)."""
    span = size + before + after - d * (k - 1) - 1
    if span < 0:
        return 0
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + before:
        out -= 1
    return out


def _pads_for_mode(op: str, hw: Sequence[int], kernel: Pair, stride: Pair, dilation: Pair, pad_mode: str,
                   padding: Any) -> Quad:
    """(top, bottom, left, right) for MindSpore's pad_mode 'valid' / 'same' / 'pad'."""
    mode = str(pad_mode).lower()
    if mode == "pad":
        pads = _quad(padding, op)
        if min(pads) < 0:
            raise ValueError(f"{op}: padding must be non-negative, got {padding!r}")
        return pads
    if _quad(padding, op) != (0, 0, 0, 0):
        raise ValueError(f"{op}: padding must be 0 when pad_mode is '{pad_mode}' (use pad_mode='pad')")
    if mode == "valid":
        return 0, 0, 0, 0
    if mode == "same":
        return _same_pad(hw[0], kernel[0], stride[0], dilation[0]) + _same_pad(hw[1], kernel[1], stride[1], dilation[1])
    raise ValueError(f"{op}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")


def _conv_geom(op: str, xs: Sequence[int], ws: Sequence[int], stride: Pair, pad: Quad, dilation: Pair,
               group: int) -> tuple[int, int, int, int]:
    """Output shape (N, O, OH, OW) of a convolution, or a ShapeError naming `op`."""
    if len(xs) != 4 or len(ws) != 4:
        raise ShapeError(op, "a 4-D input (N, C, H, W) and a 4-D weight (C_out, C_in/group, kH, kW)",
                         f"input {tuple(xs)} and weight {tuple(ws)}")
    n, c, h, w = xs
    o, cg, kh, kw = ws
    if group < 1 or c % group or o % group or cg * group != c:
        raise ShapeError(op, f"weight in-channels * group == input channels ({c}) and out-channels "
                         f"divisible by group={group}", f"weight {tuple(ws)} for input {tuple(xs)}")
    if min(stride) < 1 or min(dilation) < 1 or min(pad) < 0:
        raise ShapeError(op, "stride and dilation >= 1 and non-negative padding",
                         f"stride={stride}, dilation={dilation}, pad={pad}")
    oh = _out_size(h, kh, stride[0], dilation[0], pad[0], pad[1])
    ow = _out_size(w, kw, stride[1], dilation[1], pad[2], pad[3])
    if oh < 1 or ow < 1:
        raise ShapeError(op, f"a (dilated) kernel {(dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1)} "
                         f"no larger than the padded input {(h + pad[0] + pad[1], w + pad[2] + pad[3])}",
                         f"input {tuple(xs)}, weight {tuple(ws)}, pad={pad}")
    return n, o, oh, ow


def _pool_geom(op: str, xs: Sequence[int], kernel: Pair, strides: Pair, pad: Quad, dilation: Pair,
               ceil_mode: bool) -> tuple[int, int, int, int]:
    """Output shape of a pooling, or a ShapeError naming `op`."""
    if len(xs) != 4:
        raise ShapeError(op, "a 4-D input (N, C, H, W)", f"shape {tuple(xs)}")
    if min(kernel) < 1 or min(strides) < 1 or min(dilation) < 1 or min(pad) < 0:
        raise ShapeError(op, "kernel, stride and dilation >= 1 and non-negative padding",
                         f"kernel={kernel}, strides={strides}, dilation={dilation}, pad={pad}")
    eff = (dilation[0] * (kernel[0] - 1) + 1, dilation[1] * (kernel[1] - 1) + 1)
    if max(pad[:2]) > eff[0] // 2 or max(pad[2:]) > eff[1] // 2:
        raise ShapeError(op, f"padding at most half the kernel {eff}", f"pad={pad}")
    n, c, h, w = xs
    oh = _out_size(h, kernel[0], strides[0], dilation[0], pad[0], pad[1], ceil_mode)
    ow = _out_size(w, kernel[1], strides[1], dilation[1], pad[2], pad[3], ceil_mode)
    if oh < 1 or ow < 1:
        padded = (h + pad[0] + pad[1], w + pad[2] + pad[3])
        raise ShapeError(op, f"a kernel {eff} no larger than the padded input {padded}",
                         f"input {tuple(xs)}, pad={pad}")
    return n, c, oh, ow


def _require_same_shape(op: str, a: Any, b: Any, what: str) -> None:
    if tuple(a.shape) != tuple(b.shape):
        raise ShapeError(op, f"{what} of shape {tuple(b.shape)}", f"{tuple(a.shape)}")


_LOWP: list[Any] = []


def _lowp() -> Any:
    """spore.amp.lowp (mixed precision's kernels), imported on first use: spore.amp imports the
    nn layers, which import this module."""
    if not _LOWP:
        from ..amp import lowp

        _LOWP.append(lowp)
    return _LOWP[0]


def _via_f32(fn: Any, *arrays: np.ndarray) -> np.ndarray:
    """Run a float32 C++ kernel on arrays of another float dtype and cast the result(s) back.

    float16/bfloat16 go through amp.lowp: an input's float32 twin is read where it has one, and a
    result keeps its own twin (`widen`, `narrow`), so a float16 network converts each array once."""
    lp = _lowp()
    dt = arrays[0].dtype
    if dt.itemsize == 2 and lp.is_lowp(dt):
        widen, narrow = lp.widen, lp.narrow
    else:
        widen, narrow = (lambda a: lp.cast(a, np.float32)), lp.cast
    out = fn(*[widen(a) for a in arrays])
    if isinstance(out, tuple):
        return tuple(narrow(o, dt) if isinstance(o, np.ndarray) and o.dtype == np.float32 else o for o in out)
    return narrow(out, dt) if isinstance(out, np.ndarray) else out


# ----------------------------------------------------------------------------------------------
# NumPy kernels (float64 and the reference for the C++ ones)


def _windows(xp: np.ndarray, kernel: Pair, stride: Pair, dilation: Pair, out: Pair) -> np.ndarray:
    """(N, C, OH, OW, kH, kW) view of every window of the padded input, no copy."""
    n, c = xp.shape[:2]
    s0, s1, s2, s3 = xp.strides
    return as_strided(xp, (n, c, out[0], out[1], kernel[0], kernel[1]),
                      (s0, s1, s2 * stride[0], s3 * stride[1], s2 * dilation[0], s3 * dilation[1]), writeable=False)


def _np_conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: Pair, pad: Quad, dilation: Pair,
               group: int) -> np.ndarray:
    n, o, oh, ow = _conv_geom("Conv2D", x.shape, w.shape, stride, pad, dilation, group)
    cg, og = w.shape[1], o // group
    xp = np.pad(x, ((0, 0), (0, 0), pad[:2], pad[2:]))
    cols = _windows(xp, w.shape[2:], stride, dilation, (oh, ow)).reshape(n, group, cg, oh, ow, *w.shape[2:])
    wg = w.reshape(group, og, cg, *w.shape[2:])
    y = np.empty((n, group, og, oh, ow), x.dtype)
    for g in range(group):  # (n, cg, oh, ow, kh, kw) . (og, cg, kh, kw) -> (n, oh, ow, og)
        y[:, g] = np.tensordot(cols[:, g], wg[g], axes=([1, 4, 5], [1, 2, 3])).transpose(0, 3, 1, 2)
    y = y.reshape(n, o, oh, ow)
    return y + b.reshape(1, -1, 1, 1) if b is not None else y


def _scatter_windows(d: np.ndarray, shape: Sequence[int], stride: Pair, pad: Quad, dilation: Pair) -> np.ndarray:
    """Adjoint of `_windows` + crop: add each window tap (N, C, OH, OW, kH, kW) back into an (N, C, H, W) input."""
    n, c, h, w = shape
    oh, ow, kh, kw = d.shape[2:]
    need = ((oh - 1) * stride[0] + (kh - 1) * dilation[0] + 1, (ow - 1) * stride[1] + (kw - 1) * dilation[1] + 1)
    xp = np.zeros((n, c, max(need[0], pad[0] + h), max(need[1], pad[2] + w)), d.dtype)
    for i in range(kh):
        for j in range(kw):
            r, q = i * dilation[0], j * dilation[1]
            xp[:, :, r:r + (oh - 1) * stride[0] + 1:stride[0], q:q + (ow - 1) * stride[1] + 1:stride[1]] += d[..., i, j]
    return xp[:, :, pad[0]:pad[0] + h, pad[2]:pad[2] + w]


def _np_conv2d_backprop_input(dy: np.ndarray, w: np.ndarray, input_size: Sequence[int], stride: Pair, pad: Quad,
                              dilation: Pair, group: int) -> np.ndarray:
    n, o, oh, ow = dy.shape
    cg, og = w.shape[1], o // group
    wg = w.reshape(group, og, cg, *w.shape[2:])
    dyg = dy.reshape(n, group, og, oh, ow)
    cols = np.empty((n, group, cg, oh, ow, *w.shape[2:]), dy.dtype)
    for g in range(group):  # (n, og, oh, ow) . (og, cg, kh, kw) -> (n, oh, ow, cg, kh, kw)
        cols[:, g] = np.tensordot(dyg[:, g], wg[g], axes=([1], [0])).transpose(0, 3, 1, 2, 4, 5)
    return _scatter_windows(cols.reshape(n, group * cg, oh, ow, *w.shape[2:]), input_size, stride, pad, dilation)


def _np_conv2d_backprop_filter(dy: np.ndarray, x: np.ndarray, filter_size: Sequence[int], stride: Pair, pad: Quad,
                               dilation: Pair, group: int) -> np.ndarray:
    n, o, oh, ow = dy.shape
    cg, og = filter_size[1], o // group
    xp = np.pad(x, ((0, 0), (0, 0), pad[:2], pad[2:]))
    cols = _windows(xp, filter_size[2:], stride, dilation, (oh, ow)).reshape(n, group, cg, oh, ow, *filter_size[2:])
    dyg = dy.reshape(n, group, og, oh, ow)
    dw = np.empty((group, og, cg, *filter_size[2:]), dy.dtype)
    for g in range(group):  # (n, og, oh, ow) . (n, cg, oh, ow, kh, kw) -> (og, cg, kh, kw)
        dw[g] = np.tensordot(dyg[:, g], cols[:, g], axes=([0, 2, 3], [0, 2, 3]))
    return dw.reshape(tuple(filter_size))


def _np_pool_pad(x: np.ndarray, kernel: Pair, strides: Pair, pad: Quad, dilation: Pair, out: Pair,
                 fill: float) -> np.ndarray:
    """Pad so every window (ceil_mode ones too) lies inside the array."""
    h, w = x.shape[2:]
    bottom = max((out[0] - 1) * strides[0] + (kernel[0] - 1) * dilation[0] + 1 - h - pad[0], 0)
    right = max((out[1] - 1) * strides[1] + (kernel[1] - 1) * dilation[1] + 1 - w - pad[2], 0)
    return np.pad(x, ((0, 0), (0, 0), (pad[0], bottom), (pad[2], right)), constant_values=fill)


def _np_max_pool(x: np.ndarray, kernel: Pair, strides: Pair, pad: Quad, dilation: Pair,
                 out: Pair) -> tuple[np.ndarray, np.ndarray]:
    xp = _np_pool_pad(x, kernel, strides, pad, dilation, out, -np.inf)
    win = _windows(xp, kernel, strides, dilation, out).reshape(*x.shape[:2], *out, -1)
    k = win.argmax(axis=-1)  # the first maximum (or the first NaN), like the C++ kernel
    y = np.take_along_axis(win, k[..., None], axis=-1)[..., 0]
    if np.isneginf(y).any():  # a window of -inf only: name its first element inside the input
        inside = _np_pool_pad(np.ones((1, 1, *x.shape[2:])), kernel, strides, pad, dilation, out, 0.0)
        first = _windows(inside, kernel, strides, dilation, out).reshape(*out, -1).argmax(axis=-1)
        k = np.where(np.isneginf(y), first, k)
    i, j = np.divmod(k, kernel[1])
    rows = np.arange(out[0])[:, None] * strides[0] - pad[0] + i * dilation[0]
    cols = np.arange(out[1])[None, :] * strides[1] - pad[2] + j * dilation[1]
    return y, (rows * x.shape[3] + cols).astype(np.int64)


def _np_max_pool_grad(g: np.ndarray, argmax: np.ndarray, input_shape: Sequence[int]) -> np.ndarray:
    n, c, h, w = input_shape
    idx = argmax.reshape(n * c, -1)
    flat = np.maximum(idx, 0) + (np.arange(n * c) * (h * w))[:, None]
    weights = np.where(idx >= 0, g.reshape(n * c, -1), 0).astype(np.float64)  # -1: a window of padding only
    dx = np.bincount(flat.ravel(), weights=weights.ravel(), minlength=n * c * h * w)
    return dx.reshape(tuple(input_shape)).astype(g.dtype)


def _avg_divisor(hw: Sequence[int], kernel: Pair, strides: Pair, pad: Quad, out: Pair, count_include_pad: bool,
                 divisor_override: int) -> np.ndarray:
    """(OH, OW) divisors of average pooling, PyTorch's / MindSpore's rule."""
    if divisor_override:
        return np.full(out, float(divisor_override))
    sizes = []
    for ax in range(2):
        start = np.arange(out[ax]) * strides[ax] - pad[2 * ax]
        if count_include_pad:
            sizes.append(np.minimum(start + kernel[ax], hw[ax] + pad[2 * ax + 1]) - start)
        else:
            sizes.append(np.minimum(start + kernel[ax], hw[ax]) - np.maximum(start, 0))
    return np.outer(*sizes).astype(np.float64)


def _np_avg_pool(x: np.ndarray, kernel: Pair, strides: Pair, pad: Quad, out: Pair, count_include_pad: bool,
                 divisor_override: int) -> np.ndarray:
    xp = _np_pool_pad(x, kernel, strides, pad, (1, 1), out, 0.0)
    s = _windows(xp, kernel, strides, (1, 1), out).sum(axis=(-2, -1))
    div = _avg_divisor(x.shape[2:], kernel, strides, pad, out, count_include_pad, divisor_override)
    return (s / div).astype(x.dtype)


def _np_avg_pool_grad(g: np.ndarray, input_shape: Sequence[int], kernel: Pair, strides: Pair, pad: Quad,
                      count_include_pad: bool, divisor_override: int) -> np.ndarray:
    out = g.shape[2:]
    d = g / _avg_divisor(input_shape[2:], kernel, strides, pad, out, count_include_pad, divisor_override)
    taps = np.broadcast_to(d[..., None, None], (*g.shape, *kernel))
    return _scatter_windows(taps, input_shape, strides, pad, (1, 1)).astype(g.dtype)


# ----------------------------------------------------------------------------------------------
# primitives


def _conv_infer_common(op: str, a: Any, b: Any) -> None:
    require_float(op, a, b)
    require_same_dtype(op, a, b)


@primitive
class Conv2D:
    """2-D convolution (cross-correlation) of an NCHW input with a (C_out, C_in/group, kH, kW) weight,
    plus an optional (C_out,) bias added inside the kernel. `pad` is (top, bottom, left, right)."""
    onnx = OnnxMap("Conv", to_onnx="conv_attrs")

    def infer(x, w, b=None, stride=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), group=1):
        _conv_infer_common("Conv2D", x, w)
        shape = _conv_geom("Conv2D", x.shape, w.shape, stride, pad, dilation, group)
        if b is not None:
            require_same_dtype("Conv2D", x, b)
            if tuple(b.shape) != (w.shape[0],):
                raise ShapeError("Conv2D", f"a bias of shape ({w.shape[0]},) (one per output channel)",
                                 f"bias {tuple(b.shape)}")
        return Aval(shape, x.dtype)

    def impl(x, w, b=None, stride=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), group=1):
        if x.dtype == np.float32:
            return _kernels.conv2d_forward(x, w, b, stride, pad, dilation, group)
        if x.dtype == np.float64:
            return _np_conv2d(x, w, b, stride, pad, dilation, group)
        if _lowp().use_bf16_conv(x.dtype, w.shape[1]):  # oneDNN's bf16 convolution (float32 accumulation)
            return _lowp().conv2d(x, w, b, stride, pad, dilation, group)
        args = (x, w) if b is None else (x, w, b)
        return _via_f32(lambda *a: _kernels.conv2d_forward(a[0], a[1], a[2] if len(a) > 2 else None, stride, pad,
                                                           dilation, group), *args)

    def vjp(g, out, x, w, b=None, stride=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), group=1):
        attrs = dict(stride=stride, pad=pad, dilation=dilation, group=group)
        want_x, want_w, want_b = is_tracked(x), is_tracked(w), b is not None and is_tracked(b)
        if want_x and want_w:  # the usual training step: one kernel call for every gradient
            grads = Conv2DBackprop(g, x, w, with_bias=want_b, **attrs)
            return grads if want_b else grads[:2] + ((None,) if b is not None else ())
        gx = Conv2DBackpropInput(g, w, input_size=tuple(x.shape), **attrs) if want_x else None
        gw = Conv2DBackpropFilter(g, x, filter_size=tuple(w.shape), **attrs) if want_w else None
        if b is None:
            return gx, gw
        return gx, gw, (BiasAddGrad(g) if want_b else None)


@primitive
class Conv2DBackpropInput:
    """Gradient of Conv2D with respect to its input (a transposed convolution of `dout` with `weight`)
    back to an input of shape `input_size`."""
    onnx = OnnxMap("ConvTranspose", to_onnx="conv_transpose_attrs")

    def infer(dout, weight, input_size, stride=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), group=1):
        _conv_infer_common("Conv2DBackpropInput", dout, weight)
        expect = _conv_geom("Conv2DBackpropInput", input_size, weight.shape, stride, pad, dilation, group)
        if tuple(dout.shape) != expect:
            raise ShapeError("Conv2DBackpropInput", f"dout of the conv output shape {expect}", f"{tuple(dout.shape)}")
        return Aval(tuple(input_size), dout.dtype)

    def impl(dout, weight, input_size, stride=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), group=1):
        size = tuple(input_size)
        if dout.dtype == np.float32:
            return _kernels.conv2d_backward_data(dout, weight, size, stride, pad, dilation, group)
        if dout.dtype == np.float64:
            return _np_conv2d_backprop_input(dout, weight, size, stride, pad, dilation, group)
        if _lowp().use_bf16_conv(dout.dtype, weight.shape[1], "backward_data"):
            return _lowp().conv2d_backward_data(dout, weight, size, stride, pad, dilation, group)
        return _via_f32(lambda d, w: _kernels.conv2d_backward_data(d, w, size, stride, pad, dilation, group),
                        dout, weight)

    def vjp(g, out, dout, weight, input_size, stride=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), group=1):
        attrs = dict(stride=stride, pad=pad, dilation=dilation, group=group)
        gd = Conv2D(g, weight, **attrs) if is_tracked(dout) else None
        gw = Conv2DBackpropFilter(dout, g, filter_size=tuple(weight.shape), **attrs) if is_tracked(weight) else None
        return gd, gw


@primitive
class Conv2DBackpropFilter:
    """Gradient of Conv2D with respect to its weight: correlates `input` with `dout` into a weight of
    shape `filter_size`."""

    def infer(dout, input, filter_size, stride=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), group=1):
        _conv_infer_common("Conv2DBackpropFilter", dout, input)
        expect = _conv_geom("Conv2DBackpropFilter", input.shape, filter_size, stride, pad, dilation, group)
        if tuple(dout.shape) != expect:
            raise ShapeError("Conv2DBackpropFilter", f"dout of the conv output shape {expect}", f"{tuple(dout.shape)}")
        return Aval(tuple(filter_size), dout.dtype)

    def impl(dout, input, filter_size, stride=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), group=1):
        size = tuple(filter_size)
        if dout.dtype == np.float32:
            return _kernels.conv2d_backward_weights(dout, input, size, stride, pad, dilation, group)
        if dout.dtype == np.float64:
            return _np_conv2d_backprop_filter(dout, input, size, stride, pad, dilation, group)
        if _lowp().use_bf16_conv(dout.dtype, size[1], "backward_weights"):
            return _lowp().conv2d_backward_weights(dout, input, size, stride, pad, dilation, group)[0]
        return _via_f32(lambda d, x: _kernels.conv2d_backward_weights(d, x, size, stride, pad, dilation, group),
                        dout, input)

    def vjp(g, out, dout, input, filter_size, stride=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), group=1):
        attrs = dict(stride=stride, pad=pad, dilation=dilation, group=group)
        gd = Conv2D(input, g, **attrs) if is_tracked(dout) else None
        gx = Conv2DBackpropInput(dout, g, input_size=tuple(input.shape), **attrs) if is_tracked(input) else None
        return gd, gx


@primitive
class Conv2DBackprop:
    """Both gradients of Conv2D at once, (d input, d weight) plus d bias when `with_bias`: what a
    training step needs, in one kernel call that reorders `dout` into oneDNN's layout only once."""

    multi_output = True

    def infer(dout, input, weight, stride=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), group=1, with_bias=False):
        _conv_infer_common("Conv2DBackprop", dout, input)
        require_same_dtype("Conv2DBackprop", input, weight)
        expect = _conv_geom("Conv2DBackprop", input.shape, weight.shape, stride, pad, dilation, group)
        if tuple(dout.shape) != expect:
            raise ShapeError("Conv2DBackprop", f"dout of the conv output shape {expect}", f"{tuple(dout.shape)}")
        outs = (Aval(tuple(input.shape), dout.dtype), Aval(tuple(weight.shape), dout.dtype))
        return outs + ((Aval((weight.shape[0],), dout.dtype),) if with_bias else ())

    def impl(dout, input, weight, stride=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), group=1, with_bias=False):
        if dout.dtype == np.float64:
            dx = _np_conv2d_backprop_input(dout, weight, input.shape, stride, pad, dilation, group)
            dw = _np_conv2d_backprop_filter(dout, input, weight.shape, stride, pad, dilation, group)
            return (dx, dw, dout.sum(axis=(0, 2, 3))) if with_bias else (dx, dw)
        if dout.dtype == np.float32:
            dx, dw, db = _kernels.conv2d_backward(dout, input, weight, stride, pad, dilation, group, with_bias)
        elif _lowp().use_bf16_conv(dout.dtype, weight.shape[1], "backward_weights"):
            lp = _lowp()
            if lp.use_bf16_conv(dout.dtype, weight.shape[1], "backward_data"):
                dx = lp.conv2d_backward_data(dout, weight, input.shape, stride, pad, dilation, group)
            else:  # few channels: the input gradient in float32 (see lowp.use_bf16_conv)
                dx = _via_f32(lambda d, w: _kernels.conv2d_backward_data(d, w, tuple(input.shape), stride, pad,
                                                                         dilation, group), dout, weight)
            dw, db = lp.conv2d_backward_weights(dout, input, weight.shape, stride, pad, dilation, group, with_bias)
        else:  # float16, or bfloat16 without bf16 hardware: float32 compute on the rounded operands
            dx, dw, db = _via_f32(lambda d, x, w: _kernels.conv2d_backward(d, x, w, stride, pad, dilation, group,
                                                                           with_bias), dout, input, weight)
        return (dx, dw, db) if with_bias else (dx, dw)

    def vjp(gs, outs, dout, input, weight, stride=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), group=1,
            with_bias=False):
        from .elementwise import add

        attrs = dict(stride=stride, pad=pad, dilation=dilation, group=group)
        gdx, gdw = gs[0], gs[1]
        gd = gi = gw = None
        if is_tracked(dout):  # dout enters every output linearly: dx through w, dw through x, db summed
            bias = (gs[2],) if with_bias else ()
            gd = add(Conv2D(gdx, weight, **attrs), Conv2D(input, gdw, *bias, **attrs))
        if is_tracked(input):
            gi = Conv2DBackpropInput(dout, gdw, input_size=tuple(input.shape), **attrs)
        if is_tracked(weight):
            gw = Conv2DBackpropFilter(dout, gdx, filter_size=tuple(weight.shape), **attrs)
        return gd, gi, gw


def _channel_axis(op: str, ndim: int, data_format: str) -> int:
    if data_format in ("NCHW", "NCDHW", "NCL", "NC"):
        return 1
    if data_format == "NHWC":
        return ndim - 1
    raise ValueError(f"{op}: data_format must be 'NCHW', 'NHWC' or 'NCDHW', got {data_format!r}")


@primitive
class BiasAdd:
    """Adds a per-channel bias (C,) to an input whose channel axis is 1 (NCHW) or last (NHWC)."""

    def infer(x, b, data_format="NCHW"):
        require_same_dtype("BiasAdd", x, b)
        if x.ndim < 2:
            raise ShapeError("BiasAdd", "an input of rank >= 2", f"shape {tuple(x.shape)}")
        c = x.shape[_channel_axis("BiasAdd", x.ndim, data_format)]
        if tuple(b.shape) != (c,):
            raise ShapeError("BiasAdd", f"a bias of shape ({c},) for input {tuple(x.shape)} ({data_format})",
                             f"bias {tuple(b.shape)}")
        return Aval(tuple(x.shape), x.dtype)

    def impl(x, b, data_format="NCHW"):
        axis = _channel_axis("BiasAdd", x.ndim, data_format)
        return x + b.reshape((-1,) + (1,) * (x.ndim - 1 - axis))

    def vjp(g, out, x, b, data_format="NCHW"):
        return g, (BiasAddGrad(g, data_format=data_format) if is_tracked(b) else None)


@primitive
class BiasAddGrad:
    """Gradient of BiasAdd with respect to the bias: sums `dout` over every axis but the channel one."""

    def infer(dout, data_format="NCHW"):
        if dout.ndim < 2:
            raise ShapeError("BiasAddGrad", "an input of rank >= 2", f"shape {tuple(dout.shape)}")
        return Aval((dout.shape[_channel_axis("BiasAddGrad", dout.ndim, data_format)],), dout.dtype)

    def impl(dout, data_format="NCHW"):
        axis = _channel_axis("BiasAddGrad", dout.ndim, data_format)
        if axis == 1 and dout.dtype == np.float32:
            return _kernels.bias_add_grad(dout.reshape(dout.shape[0], dout.shape[1], -1))
        if axis == 1 and dout.dtype.itemsize == 2 and dout.dtype.kind in "fV":  # float16/bfloat16: sum in float32
            return _via_f32(lambda d: _kernels.bias_add_grad(d.reshape(d.shape[0], d.shape[1], -1)), dout)
        return np.asarray(dout.sum(axis=tuple(i for i in range(dout.ndim) if i != axis), dtype=dout.dtype))

    def vjp(g, out, dout, data_format="NCHW"):
        from .array import broadcast_to, reshape

        axis = _channel_axis("BiasAddGrad", dout.ndim, data_format)
        shape = tuple(-1 if i == axis else 1 for i in range(dout.ndim))
        return (broadcast_to(reshape(g, shape), dout.shape),)


@primitive
class MaxPool:
    """2-D max pooling of an NCHW input. Two outputs: the pooled values and, for each, the flat
    index (h * W + w) of the chosen element within its input plane (what `return_indices` gives, and
    what the gradient scatters through). Ties pick the first maximum; a NaN wins its window."""
    onnx = OnnxMap("MaxPool", to_onnx="pool_attrs")

    multi_output = True

    def infer(x, kernel_size=(1, 1), strides=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), ceil_mode=False):
        require_float("MaxPool", x)
        shape = _pool_geom("MaxPool", x.shape, kernel_size, strides, pad, dilation, ceil_mode)
        return Aval(shape, x.dtype), Aval(shape, mstype.int64)

    def impl(x, kernel_size=(1, 1), strides=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), ceil_mode=False):
        out = _pool_geom("MaxPool", x.shape, kernel_size, strides, pad, dilation, ceil_mode)[2:]
        if x.dtype == np.float64:
            return _np_max_pool(x, kernel_size, strides, pad, dilation, out)
        if x.dtype == np.float32:
            return _kernels.max_pool2d_forward(x, kernel_size, strides, pad, dilation, out)
        # float16/bfloat16: exact in float32 (a max picks an element), the casts in C++
        return _via_f32(lambda a: _kernels.max_pool2d_forward(a, kernel_size, strides, pad, dilation, out), x)

    def vjp(gs, outs, x, kernel_size=(1, 1), strides=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), ceil_mode=False):
        return (MaxPoolGrad(gs[0], outs[1], input_shape=tuple(x.shape)),)


@primitive
class MaxPoolGrad:
    """Gradient of MaxPool: scatters `dout` into an input of shape `input_shape` at the `argmax`
    positions (flat h * W + w per plane) that MaxPool returned."""

    def infer(dout, argmax, input_shape):
        require_float("MaxPoolGrad", dout)
        _require_same_shape("MaxPoolGrad", argmax, dout, "argmax")
        if dout.ndim != 4 or len(input_shape) != 4 or tuple(dout.shape[:2]) != tuple(input_shape[:2]):
            raise ShapeError("MaxPoolGrad", f"a 4-D dout with the batch and channels of {tuple(input_shape)}",
                             f"dout {tuple(dout.shape)}")
        return Aval(tuple(input_shape), dout.dtype)

    def impl(dout, argmax, input_shape):
        shape = tuple(input_shape)
        if dout.dtype == np.float32:
            return _kernels.max_pool2d_backward(dout, argmax, shape)
        if dout.dtype.itemsize == 2:  # float16/bfloat16 (mixed precision): the C++ scatter, exact in float32
            return _via_f32(lambda d: _kernels.max_pool2d_backward(d, argmax, shape), dout)
        return _np_max_pool_grad(dout, argmax, shape)

    def vjp(g, out, dout, argmax, input_shape):
        return MaxPoolGradGrad(g, argmax), None


@primitive
class MaxPoolGradGrad:
    """Gathers, per plane, the elements of `x` at the `argmax` positions: the adjoint of MaxPoolGrad,
    so max pooling stays differentiable to any order."""

    def infer(x, argmax):
        require_float("MaxPoolGradGrad", x)
        if x.ndim != 4 or argmax.ndim != 4 or tuple(x.shape[:2]) != tuple(argmax.shape[:2]):
            raise ShapeError("MaxPoolGradGrad", "4-D x and argmax with the same batch and channels",
                             f"x {tuple(x.shape)} and argmax {tuple(argmax.shape)}")
        return Aval(tuple(argmax.shape), x.dtype)

    def impl(x, argmax):
        n, c = x.shape[:2]
        flat = argmax.reshape(n, c, -1)
        out = np.take_along_axis(x.reshape(n, c, -1), np.maximum(flat, 0), axis=2)
        return np.where(flat >= 0, out, 0).astype(x.dtype).reshape(argmax.shape)

    def vjp(g, out, x, argmax):
        return MaxPoolGrad(g, argmax, input_shape=tuple(x.shape)), None


@primitive
class AvgPool:
    """2-D average pooling of an NCHW input. `count_include_pad` counts zero padding in the divisor;
    a non-zero `divisor_override` replaces the divisor."""
    onnx = OnnxMap("AveragePool", to_onnx="pool_attrs")

    def infer(x, kernel_size=(1, 1), strides=(1, 1), pad=(0, 0, 0, 0), ceil_mode=False, count_include_pad=True,
              divisor_override=0):
        require_float("AvgPool", x)
        return Aval(_pool_geom("AvgPool", x.shape, kernel_size, strides, pad, (1, 1), ceil_mode), x.dtype)

    def impl(x, kernel_size=(1, 1), strides=(1, 1), pad=(0, 0, 0, 0), ceil_mode=False, count_include_pad=True,
             divisor_override=0):
        out = _pool_geom("AvgPool", x.shape, kernel_size, strides, pad, (1, 1), ceil_mode)[2:]
        if x.dtype == np.float32:
            return _kernels.avg_pool2d_forward(x, kernel_size, strides, pad, out, count_include_pad,
                                               int(divisor_override or 0))
        if x.dtype == np.float64:
            return _np_avg_pool(x, kernel_size, strides, pad, out, count_include_pad, int(divisor_override or 0))
        return _via_f32(lambda a: _kernels.avg_pool2d_forward(a, kernel_size, strides, pad, out, count_include_pad,
                                                              int(divisor_override or 0)), x)

    def vjp(g, out, x, kernel_size=(1, 1), strides=(1, 1), pad=(0, 0, 0, 0), ceil_mode=False,
            count_include_pad=True, divisor_override=0):
        return (AvgPoolGrad(g, input_shape=tuple(x.shape), kernel_size=kernel_size, strides=strides, pad=pad,
                            ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                            divisor_override=divisor_override),)


@primitive
class AvgPoolGrad:
    """Gradient of AvgPool: spreads each `dout` element, divided by its window's divisor, over the
    window, into an input of shape `input_shape`."""

    def infer(dout, input_shape, kernel_size=(1, 1), strides=(1, 1), pad=(0, 0, 0, 0), ceil_mode=False,
              count_include_pad=True, divisor_override=0):
        require_float("AvgPoolGrad", dout)
        expect = _pool_geom("AvgPoolGrad", input_shape, kernel_size, strides, pad, (1, 1), ceil_mode)
        if tuple(dout.shape) != expect:
            raise ShapeError("AvgPoolGrad", f"dout of the pooled shape {expect}", f"{tuple(dout.shape)}")
        return Aval(tuple(input_shape), dout.dtype)

    def impl(dout, input_shape, kernel_size=(1, 1), strides=(1, 1), pad=(0, 0, 0, 0), ceil_mode=False,
             count_include_pad=True, divisor_override=0):
        shape, div = tuple(input_shape), int(divisor_override or 0)
        if dout.dtype == np.float32:
            return _kernels.avg_pool2d_backward(dout, shape, kernel_size, strides, pad, count_include_pad, div)
        if dout.dtype == np.float64:
            return _np_avg_pool_grad(dout, shape, kernel_size, strides, pad, count_include_pad, div)
        return _via_f32(lambda d: _kernels.avg_pool2d_backward(d, shape, kernel_size, strides, pad,
                                                               count_include_pad, div), dout)

    def vjp(g, out, dout, input_shape, kernel_size=(1, 1), strides=(1, 1), pad=(0, 0, 0, 0), ceil_mode=False,
            count_include_pad=True, divisor_override=0):
        return (AvgPool(g, kernel_size=kernel_size, strides=strides, pad=pad, ceil_mode=ceil_mode,
                        count_include_pad=count_include_pad, divisor_override=divisor_override),)


# ----------------------------------------------------------------------------------------------
# functional wrappers (MindSpore 2.10 signatures)


def _check_tensor_rank(op: str, x: Any, ranks: Sequence[int], what: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: expected a Tensor, got {type(x).__name__}")
    if x.ndim not in ranks:
        raise located(ShapeError(op, what, f"shape {tuple(x.shape)}"))


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, pad_mode: str = "valid",
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-D convolution over an NCHW input with a (C_out, C_in/groups, kH, kW) weight.

    pad_mode 'valid' pads nothing, 'same' pads (asymmetrically when needed, extra at the bottom/right)
    so the output is ceil(input / stride), 'pad' uses `padding`: an int, (h, w) or
    (top, bottom, left, right).
    """
    _check_tensor_rank("conv2d", input, (4,), "a 4-D input (N, C, H, W)")
    _check_tensor_rank("conv2d", weight, (4,), "a 4-D weight (C_out, C_in/groups, kH, kW)")
    s, d = _pair("stride", stride, "conv2d"), _pair("dilation", dilation, "conv2d")
    pads = _pads_for_mode("conv2d", input.shape[2:], tuple(weight.shape[2:]), s, d, pad_mode, padding)
    args = (input, weight) if bias is None else (input, weight, bias)
    return Conv2D(*args, stride=s, pad=pads, dilation=d, group=int(groups))


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, pad_mode: str = "valid",
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """1-D convolution over an (N, C, L) input with a (C_out, C_in/groups, k) weight (a 2-D
    convolution on a unit height). `padding` is an int or (left, right)."""
    from .array import reshape

    _check_tensor_rank("conv1d", input, (3,), "a 3-D input (N, C, L)")
    _check_tensor_rank("conv1d", weight, (3,), "a 3-D weight (C_out, C_in/groups, k)")
    s, d = _pair("stride", stride, "conv1d")[1], _pair("dilation", dilation, "conv1d")[1]
    if str(pad_mode).lower() == "pad":  # (left, right) along L; none along the unit height
        p = (padding,) if isinstance(padding, (int, np.integer)) else tuple(padding)
        padding = (0, 0, int(p[0]), int(p[-1]))
    x = reshape(input, (input.shape[0], input.shape[1], 1, input.shape[2]))
    w = reshape(weight, (weight.shape[0], weight.shape[1], 1, weight.shape[2]))
    y = conv2d(x, w, bias, (1, s), pad_mode, padding, (1, d), groups)
    return reshape(y, (y.shape[0], y.shape[1], y.shape[3]))


def bias_add(input_x: Tensor, bias: Tensor, data_format: str = "NCHW") -> Tensor:
    """Adds a per-channel bias (C,) to an NCHW (channel axis 1) or NHWC (channel last) input."""
    return BiasAdd(input_x, bias, data_format=data_format)


def max_pool2d(x: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               return_indices: bool = False, ceil_mode: bool = False) -> Any:
    """2-D max pooling over an NCHW input; `padding` (an int or (h, w)) pads both sides with -inf.
    With return_indices, also returns the argmax: the flat index h * W + w within each input plane."""
    k = _pair("kernel_size", kernel_size, "max_pool2d")
    s = k if stride is None else _pair("stride", stride, "max_pool2d")
    y, idx = MaxPool(x, kernel_size=k, strides=s, pad=_quad(_pair("padding", padding, "max_pool2d"), "max_pool2d"),
                     dilation=_pair("dilation", dilation, "max_pool2d"), ceil_mode=bool(ceil_mode))
    return (y, idx) if return_indices else y


def avg_pool2d(input_x: Tensor, kernel_size: Any = 1, stride: Any = 1, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int = 0) -> Tensor:
    """2-D average pooling over an NCHW input; `padding` (an int or (h, w)) is zero padding on both
    sides, counted in the divisor when count_include_pad; divisor_override (non-zero) replaces it."""
    k = _pair("kernel_size", kernel_size, "avg_pool2d")
    s = k if stride is None else _pair("stride", stride, "avg_pool2d")
    return AvgPool(input_x, kernel_size=k, strides=s, pad=_quad(_pair("padding", padding, "avg_pool2d"), "avg_pool2d"),
                   ceil_mode=bool(ceil_mode), count_include_pad=bool(count_include_pad),
                   divisor_override=int(divisor_override or 0))


def max_pool2d_padmode(x: Tensor, kernel_size: Any = 1, stride: Any = 1, pad_mode: str = "valid", padding: Any = 0,
                       dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """Max pooling with nn.MaxPool2d's pad_mode: 'valid' (no padding), 'same' (output
    ceil(input / stride), TF padding) or 'pad' (`padding`: an int, (h, w) or (top, bottom, left, right))."""
    k = _pair("kernel_size", kernel_size, "MaxPool2d")
    s = k if stride is None else _pair("stride", stride, "MaxPool2d")
    d = _pair("dilation", dilation, "MaxPool2d")
    _check_tensor_rank("MaxPool2d", x, (4,), "a 4-D input (N, C, H, W)")
    pads = _pads_for_mode("MaxPool2d", x.shape[2:], k, s, d, pad_mode, padding)
    y, idx = MaxPool(x, kernel_size=k, strides=s, pad=pads, dilation=d,
                     ceil_mode=bool(ceil_mode) and str(pad_mode).lower() != "same")
    return (y, idx) if return_indices else y


def avg_pool2d_padmode(x: Tensor, kernel_size: Any = 1, stride: Any = 1, pad_mode: str = "valid", padding: Any = 0,
                       ceil_mode: bool = False, count_include_pad: bool = True,
                       divisor_override: int | None = None) -> Tensor:
    """Average pooling with nn.AvgPool2d's pad_mode. 'same' follows TensorFlow (and MindSpore's
    AvgPool): the padding is never counted in the divisor; 'pad' honours count_include_pad."""
    k = _pair("kernel_size", kernel_size, "AvgPool2d")
    s = k if stride is None else _pair("stride", stride, "AvgPool2d")
    _check_tensor_rank("AvgPool2d", x, (4,), "a 4-D input (N, C, H, W)")
    pads = _pads_for_mode("AvgPool2d", x.shape[2:], k, s, (1, 1), pad_mode, padding)
    is_pad = str(pad_mode).lower() == "pad"
    return AvgPool(x, kernel_size=k, strides=s, pad=pads, ceil_mode=bool(ceil_mode) and str(pad_mode).lower() != "same",
                   count_include_pad=bool(count_include_pad) and is_pad, divisor_override=int(divisor_override or 0))


def _adaptive_matrix(size: int, out: int, dtype: Any) -> np.ndarray:
    """(out, size) averaging matrix of adaptive pooling: bin i covers [floor(i*size/out), ceil((i+1)*size/out))."""
    m = np.zeros((out, size), dtype)
    for i in range(out):
        lo, hi = (i * size) // out, -(-((i + 1) * size) // out)
        m[i, lo:hi] = 1.0 / (hi - lo)
    return m


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Adaptive 2-D average pooling of an (N, C, H, W) or (C, H, W) input to `output_size` (an int
    or (h, w); None keeps that dimension). Evenly dividing sizes run as one AvgPool; others as
    products with constant averaging matrices, so both stay differentiable."""
    from .array import reshape
    from .linalg import BatchMatMul

    _check_tensor_rank("adaptive_avg_pool2d", input, (3, 4), "a 3-D or 4-D input (N, C, H, W)")
    x = input if input.ndim == 4 else reshape(input, (1, *input.shape))
    h, w = x.shape[2:]
    osz = (output_size, output_size) if isinstance(output_size, (int, np.integer)) or output_size is None \
        else tuple(output_size)
    oh, ow = (h if osz[0] is None else int(osz[0])), (w if osz[1] is None else int(osz[1]))
    if oh < 1 or ow < 1:
        raise located(ShapeError("adaptive_avg_pool2d", "a positive output size", f"output_size={output_size!r}"))
    if h % oh == 0 and w % ow == 0:
        y = AvgPool(x, kernel_size=(h // oh, w // ow), strides=(h // oh, w // ow))
    else:
        dt = x.dtype.np
        ph = Tensor._wrap(_adaptive_matrix(h, oh, dt))
        pw = Tensor._wrap(_adaptive_matrix(w, ow, dt))
        y = BatchMatMul(BatchMatMul(ph, x), pw, transpose_b=True)
    return y if input.ndim == 4 else reshape(y, y.shape[1:])


def adaptive_avg_pool1d(input: Tensor, output_size: int) -> Tensor:
    """Adaptive 1-D average pooling of an (N, C, L) or (C, L) input to length `output_size`."""
    from .array import reshape

    _check_tensor_rank("adaptive_avg_pool1d", input, (2, 3), "a 2-D or 3-D input (N, C, L)")
    x = reshape(input, (*input.shape[:-1], 1, input.shape[-1]))
    y = adaptive_avg_pool2d(x, (1, int(output_size)))
    return reshape(y, (*input.shape[:-1], y.shape[-1]))


def pool2d(x: Tensor, mode: str, kernel_size: Any = 1, stride: Any = 1, pad_mode: str = "valid") -> Tensor:
    """Max (`mode='max'`) or average (`mode='avg'`) pooling with TF-style pad_mode 'valid' / 'same',
    as nn.MaxPool2d / nn.AvgPool2d and ops.MaxPool / ops.AvgPool do it (for 'same', average pooling
    does not count the padding)."""
    if mode == "max":
        return max_pool2d_padmode(x, kernel_size, stride, pad_mode)
    if mode == "avg":
        return avg_pool2d_padmode(x, kernel_size, stride, pad_mode)
    raise ValueError(f"pool2d: mode must be 'max' or 'avg', got {mode!r}")
