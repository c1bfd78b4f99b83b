"""N-d convolution and pooling (issue 14): 3-D convolution and its transpose, the 2-D transposed
convolution, 1-d/3-d average and max pooling, adaptive max pooling (1/2/3-d) and adaptive average
pooling (3-d), LP pooling, max unpooling, fold/unfold (col2im/im2col) and pixel (un)shuffle.

These are composites of registered primitives, so each is differentiable (to any order) and runs
the same in Graph mode and PyNative without a kernel of its own:

- a sliding window is a `Pad` (with the pooling's fill: -inf for max, 0 otherwise) followed by one
  `Gather` per spatial axis with a constant (out, k) index table, giving (N, C, *out, *kernel);
- convolution contracts those windows with the weight in one `BatchMatMul`;
- a transposed convolution is, in 2-D, MindSpore's own definition (the input-gradient primitive
  `Conv2DBackpropInput`), and in 3-D the equivalent convolution of the stride-dilated input with the
  flipped, in/out-swapped kernel;
- max pooling takes the first maximum of each window (`ArgMaxWithValue` order) and gathers it, so
  the gradient goes to that element only, as MindSpore's kernels do; its indices are flat positions
  within each input plane/volume (int64);
- `unfold`/`fold` are a convolution / transposed convolution with a one-hot identity kernel.

Geometry follows MindSpore: `pad_mode` 'same' is TensorFlow's (the odd pixel after), 3-D `padding`
is an int, (d, h, w) or (front, back, top, bottom, left, right).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import ShapeError, located
from ..tensor import Tensor, tensor_method
from .conv_pool import _out_size, _same_pad

__all__ = [
    "conv3d", "conv_transpose2d", "conv3d_transpose", "max_pool3d", "avg_pool3d", "avg_pool1d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "adaptive_avg_pool3d",
    "adaptive_avg_pool2d_ext", "lp_pool1d", "lp_pool2d", "max_unpool1d", "max_unpool2d", "max_unpool3d",
    "unfold", "fold", "pixel_shuffle", "pixel_unshuffle", "upsample",
]


# ----------------------------------------------------------------------------------------------
# geometry


def _ntuple(op: str, name: str, value: Any, n: int) -> tuple[int, ...]:
    """An int or an n-sequence (or MindSpore's (1, 1, *n) form) as an n-tuple of ints."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),) * n
    if isinstance(value, (tuple, list)):
        v = tuple(int(a) for a in value)
        if len(v) == 1:
            return v * n
        if len(v) == n:
            return v
        if len(v) == n + 2 and v[:2] == (1, 1):
            return v[2:]
    raise ValueError(f"{op}: {name} must be an int or a tuple of {n} ints, got {value!r}")


def _pads(op: str, value: Any, n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(before, after) per spatial axis from an int, n ints (symmetric) or 2n ints (before/after pairs)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        v: tuple[int, ...] = (int(value),) * n
        before, after = v, v
    else:
        t = tuple(int(a) for a in value)
        if len(t) == n:
            before, after = t, t
        elif len(t) == 2 * n:
            before, after = t[0::2], t[1::2]
        elif len(t) == 1:
            before = after = t * n
        else:
            raise ValueError(f"{op}: padding must be an int or a tuple of {n} or {2 * n} ints, got {value!r}")
    if min(before + after) < 0:
        raise ValueError(f"{op}: padding must be non-negative, got {value!r}")
    return before, after


def _mode_pads(op: str, pad_mode: str, padding: Any, spatial: Sequence[int], kernel: Sequence[int],
               stride: Sequence[int], dilation: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """MindSpore's pad_mode: 'valid' (none), 'same' (TF padding, output ceil(n / s)), 'pad' (`padding`)."""
    mode, n = str(pad_mode).lower(), len(kernel)
    if mode == "pad":
        return _pads(op, padding, n)
    if _pads(op, padding, n) != ((0,) * n, (0,) * n):
        raise ValueError(f"{op}: padding must be 0 when pad_mode is {pad_mode!r} (use pad_mode='pad')")
    if mode == "valid":
        return (0,) * n, (0,) * n
    if mode == "same":
        p = [_same_pad(spatial[a], kernel[a], stride[a], dilation[a]) for a in range(n)]
        return tuple(q[0] for q in p), tuple(q[1] for q in p)
    raise ValueError(f"{op}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")


def _check(op: str, x: Any, ranks: Sequence[int], what: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: expected a Tensor, got {type(x).__name__}")
    if x.ndim not in ranks:
        raise located(ShapeError(op, what, f"shape {tuple(x.shape)}"))


def _out_sizes(op: str, spatial: Sequence[int], kernel: Sequence[int], stride: Sequence[int],
               dilation: Sequence[int], before: Sequence[int], after: Sequence[int],
               ceil_mode: bool = False) -> list[int]:
    if min(kernel) < 1 or min(stride) < 1 or min(dilation) < 1:
        raise located(ShapeError(op, "kernel, stride and dilation >= 1",
                                 f"kernel={tuple(kernel)}, stride={tuple(stride)}, dilation={tuple(dilation)}"))
    out = [_out_size(spatial[a], kernel[a], stride[a], dilation[a], before[a], after[a], ceil_mode)
           for a in range(len(kernel))]
    if min(out) < 1:
        raise located(ShapeError(op, f"a (dilated) kernel {tuple(kernel)} no larger than the padded input",
                                 f"input spatial {tuple(spatial)}, padding {tuple(before)}/{tuple(after)}"))
    return out


def _windows(x: Tensor, kernel: Sequence[int], stride: Sequence[int], dilation: Sequence[int],
             before: Sequence[int], after: Sequence[int], out: Sequence[int], fill: float) -> Tensor:
    """(*lead, *out, *kernel) windows of the last len(kernel) axes of `x` (padded with `fill`)."""
    from .indexing import gather
    from .shape_ops import pad, transpose

    n = len(kernel)
    lead = x.ndim - n
    spatial = x.shape[lead:]
    ends = [max(after[a], (out[a] - 1) * stride[a] + (kernel[a] - 1) * dilation[a] + 1 - spatial[a] - before[a])
            for a in range(n)]
    padding: list[int] = []
    for a in reversed(range(n)):
        padding += [int(before[a]), int(ends[a])]
    if any(padding):
        x = pad(x, padding, value=fill)
    for a in range(n):
        idx = np.arange(out[a])[:, None] * stride[a] + np.arange(kernel[a])[None, :] * dilation[a]
        x = gather(x, Tensor._wrap(idx.astype(np.int64)), lead + 2 * a)
    perm = list(range(lead)) + [lead + 2 * a for a in range(n)] + [lead + 2 * a + 1 for a in range(n)]
    return transpose(x, tuple(perm))


def _flat_index_windows(spatial: Sequence[int], kernel: Sequence[int], stride: Sequence[int],
                        dilation: Sequence[int], before: Sequence[int], out: Sequence[int]) -> np.ndarray:
    """(*out, prod kernel) flat input positions of every window tap (-1 for padding)."""
    flat = np.arange(math.prod(spatial)).reshape(tuple(spatial))
    padded = np.pad(flat, [(b, max(0, (o - 1) * s + (k - 1) * d + 1 - n - b)) for b, o, s, k, d, n in
                           zip(before, out, stride, kernel, dilation, spatial)], constant_values=-1)
    for a in range(len(kernel)):
        idx = np.arange(out[a])[:, None] * stride[a] + np.arange(kernel[a])[None, :] * dilation[a]
        padded = np.take(padded, idx, axis=2 * a)
    n = len(kernel)
    padded = padded.transpose([2 * a for a in range(n)] + [2 * a + 1 for a in range(n)])
    return padded.reshape(*out, -1)


def _first_max(win: Tensor, flat_idx: np.ndarray | None, return_indices: bool) -> Any:
    """Max over the last axis of `win` taken at its first maximum (so the gradient goes there), and
    the flat input positions of those maxima when asked."""
    from .array import broadcast_to, reshape
    from .indexing import gather_elements
    from .reduction import argmax

    k = argmax(win, -1, True)
    y = reshape(gather_elements(win, -1, k), win.shape[:-1])
    if not return_indices:
        return y
    idx = broadcast_to(Tensor._wrap(flat_idx.astype(np.int64)), win.shape)
    return y, reshape(gather_elements(idx, -1, k), win.shape[:-1])


def _require_float(op: str, x: Tensor) -> None:
    from ..common import dtype as mstype

    if x.dtype not in (mstype.float16, mstype.float32, mstype.float64, mstype.bfloat16):
        raise TypeError(f"{op}: input must be a float tensor, got {x.dtype}")


def _batched(op: str, x: Tensor, n: int) -> tuple[Tensor, bool]:
    """(N, C, *spatial) from an input with or without its batch axis."""
    from .array import reshape

    _check(op, x, (n + 1, n + 2), f"a {n + 1}-D or {n + 2}-D input (N, C, *{n} spatial)")
    if x.ndim == n + 1:
        return reshape(x, (1, *x.shape)), True
    return x, False


def _unbatch(y: Any, unbatched: bool) -> Any:
    from .array import reshape

    if not unbatched:
        return y
    if isinstance(y, tuple):
        return tuple(reshape(t, t.shape[1:]) for t in y)
    return reshape(y, y.shape[1:])


# ----------------------------------------------------------------------------------------------
# convolution


def _conv_nd(op: str, x: Tensor, w: Tensor, bias: Tensor | None, stride: Sequence[int], before: Sequence[int],
             after: Sequence[int], dilation: Sequence[int], groups: int) -> Tensor:
    """N-d convolution: windows contracted with the weight (O, C/groups, *k) in one BatchMatMul."""
    from .array import broadcast_to, reshape
    from .linalg import BatchMatMul
    from .shape_ops import transpose

    n = len(stride)
    nb, c = x.shape[:2]
    o, cg = w.shape[:2]
    k = tuple(w.shape[2:])
    groups = int(groups)
    if groups < 1 or c % groups or o % groups or cg * groups != c:
        raise located(ShapeError(op, f"weight in-channels * groups == input channels ({c}) and out-channels "
                                 f"divisible by groups={groups}",
                                 f"weight {tuple(w.shape)} for input {tuple(x.shape)}"))
    if x.dtype is not w.dtype:
        raise TypeError(f"{op}: input and weight must have the same dtype, got {x.dtype} and {w.dtype}")
    out = _out_sizes(op, x.shape[2:], k, stride, dilation, before, after)
    p, kk, og = math.prod(out), math.prod(k), o // groups
    cols = reshape(_windows(x, k, stride, dilation, before, after, out, 0.0), (nb, groups, cg, p, kk))
    cols = reshape(transpose(cols, (0, 1, 3, 2, 4)), (nb * groups, p, cg * kk))
    wm = transpose(reshape(w, (groups, og, cg * kk)), (0, 2, 1))  # (G, Cg*K, Og)
    wm = reshape(broadcast_to(reshape(wm, (1, groups, cg * kk, og)), (nb, groups, cg * kk, og)),
                 (nb * groups, cg * kk, og))
    y = BatchMatMul(cols, wm)  # (N*G, P, Og)
    y = reshape(transpose(reshape(y, (nb, groups, p, og)), (0, 1, 3, 2)), (nb, o, *out))
    if bias is not None:
        y = y + reshape(bias, (1, o) + (1,) * n)
    return y


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, pad_mode: str = "valid",
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """3-D convolution of an (N, C, D, H, W) input with a (C_out, C_in/groups, kD, kH, kW) weight.

    pad_mode 'valid' pads nothing, 'same' pads (TF style) so the output is ceil(input / stride),
    'pad' uses `padding`: an int, (d, h, w), or (front, back, top, bottom, left, right).
    """
    _check("conv3d", input, (5,), "a 5-D input (N, C, D, H, W)")
    _check("conv3d", weight, (5,), "a 5-D weight (C_out, C_in/groups, kD, kH, kW)")
    s, d = _ntuple("conv3d", "stride", stride, 3), _ntuple("conv3d", "dilation", dilation, 3)
    before, after = _mode_pads("conv3d", pad_mode, padding, input.shape[2:], weight.shape[2:], s, d)
    return _conv_nd("conv3d", input, weight, bias, s, before, after, d, groups)


def _transpose_out(op: str, n_in: int, k: int, s: int, d: int, before: int, after: int, out_pad: int) -> int:
    size = (n_in - 1) * s - before - after + d * (k - 1) + 1 + out_pad
    if size < 1:
        raise located(ShapeError(op, "a positive output size", f"{size} from input {n_in}, kernel {k}, "
                                 f"stride {s}, dilation {d}, padding ({before}, {after})"))
    return size


def _transpose_mode_pads(op: str, pad_mode: str, padding: Any, spatial: Sequence[int], kernel: Sequence[int],
                         stride: Sequence[int], dilation: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...],
                                                                                 tuple[int, ...]]:
    """(before, after, extra) of a transposed convolution under MindSpore's pad_mode: 'same' gives
    input * stride, 'valid' input * stride + max(dilated kernel - stride, 0), 'pad' uses `padding`;
    `extra` is the output length added past the convolution's reach (zeros before the bias)."""
    mode, n = str(pad_mode).lower(), len(kernel)
    if mode == "pad":
        b, a = _pads(op, padding, n)
        return b, a, (0,) * n
    if _pads(op, padding, n) != ((0,) * n, (0,) * n):
        raise ValueError(f"{op}: padding must be 0 when pad_mode is {pad_mode!r} (use pad_mode='pad')")
    before, after, extra = [], [], []
    for ax in range(n):
        dk = dilation[ax] * (kernel[ax] - 1) + 1
        if mode == "valid":
            before.append(0)
            after.append(0)
            extra.append(max(stride[ax] - dk, 0))
        elif mode == "same":
            total = dk - stride[ax]
            if total >= 0:
                before.append(total // 2)
                after.append(total - total // 2)
                extra.append(0)
            else:
                before.append(0)
                after.append(0)
                extra.append(-total)
        else:
            raise ValueError(f"{op}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    return tuple(before), tuple(after), tuple(extra)


def _conv_transpose_2d(op: str, x: Tensor, weight: Tensor, stride: Sequence[int], before: Sequence[int],
                       after: Sequence[int], dilation: Sequence[int], groups: int,
                       output_padding: Sequence[int]) -> Tensor:
    """MindSpore's definition: the input gradient of a convolution (Conv2DBackpropInput)."""
    from .conv_pool import Conv2DBackpropInput

    nb, c = x.shape[:2]
    if weight.shape[0] != c:
        raise located(ShapeError(op, f"a weight (C_in={c}, C_out/groups, kH, kW)", f"{tuple(weight.shape)}"))
    k = weight.shape[2:]
    size = tuple(_transpose_out(op, x.shape[2 + a], k[a], stride[a], dilation[a], before[a], after[a],
                                output_padding[a]) for a in range(2))
    return Conv2DBackpropInput(x, weight, input_size=(nb, weight.shape[1] * int(groups), *size),
                               stride=tuple(stride), pad=(before[0], after[0], before[1], after[1]),
                               dilation=tuple(dilation), group=int(groups))


def _conv_transpose_nd(op: str, x: Tensor, weight: Tensor, stride: Sequence[int], before: Sequence[int],
                       after: Sequence[int], dilation: Sequence[int], groups: int,
                       output_padding: Sequence[int]) -> Tensor:
    """Transposed convolution as the convolution of the stride-dilated, re-padded input with the
    flipped kernel whose in/out channels are swapped per group."""
    from .array import reshape
    from .indexing import gather
    from .shape_ops import flip, pad, transpose

    n = len(stride)
    nb, c = x.shape[:2]
    g = int(groups)
    if weight.shape[0] != c or c % g:
        raise located(ShapeError(op, f"a weight (C_in={c}, C_out/groups, *kernel) with C_in divisible by groups={g}",
                                 f"{tuple(weight.shape)}"))
    k = tuple(weight.shape[2:])
    sizes = [_transpose_out(op, x.shape[2 + a], k[a], stride[a], dilation[a], before[a], after[a], output_padding[a])
             for a in range(n)]
    for a in range(n):  # dilate: s - 1 zeros between elements (gather from a trailing zero)
        s, length = stride[a], x.shape[2 + a]
        if s > 1 and length > 1:
            spec = [0, 0] * n
            spec[2 * (n - 1 - a) + 1] = 1
            xz = pad(x, spec)
            j = np.arange((length - 1) * s + 1)
            idx = np.where(j % s == 0, j // s, length)
            x = gather(xz, Tensor._wrap(idx.astype(np.int64)), 2 + a)
    spec = []
    for a in reversed(range(n)):
        reach = dilation[a] * (k[a] - 1)
        spec += [reach - before[a], reach - after[a] + output_padding[a]]
    x = pad(x, spec)
    cout_g, cin_g = weight.shape[1], c // g
    w = reshape(weight, (g, cin_g, cout_g, *k))
    w = reshape(transpose(w, (0, 2, 1) + tuple(range(3, 3 + n))), (g * cout_g, cin_g, *k))
    w = flip(w, tuple(range(2, 2 + n)))
    y = _conv_nd(op, x, w, None, (1,) * n, (0,) * n, (0,) * n, dilation, g)
    if list(y.shape[2:]) != sizes:
        raise located(ShapeError(op, f"output spatial {tuple(sizes)}", f"{tuple(y.shape[2:])}"))
    return y


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """2-D transposed convolution of (N, C_in, H, W) with a (C_in, C_out/groups, kH, kW) weight:
    output (H - 1) * stride - 2 * padding + dilation * (k - 1) + 1 + output_padding per axis."""
    from .array import reshape

    x, unbatched = _batched("conv_transpose2d", input, 2)
    _check("conv_transpose2d", weight, (4,), "a 4-D weight (C_in, C_out/groups, kH, kW)")
    s, d = _ntuple("conv_transpose2d", "stride", stride, 2), _ntuple("conv_transpose2d", "dilation", dilation, 2)
    p = _ntuple("conv_transpose2d", "padding", padding, 2)
    op_ = _ntuple("conv_transpose2d", "output_padding", output_padding, 2)
    if any(o >= max(si, di) for o, si, di in zip(op_, s, d)):
        raise ValueError(f"conv_transpose2d: output_padding {op_} must be smaller than stride or dilation")
    y = _conv_transpose_2d("conv_transpose2d", x, weight, s, p, p, d, groups, op_)
    if bias is not None:
        y = y + reshape(bias, (1, -1, 1, 1))
    return _unbatch(y, unbatched)


def conv3d_transpose(inputs: Tensor, weight: Tensor, pad_mode: str = "valid", padding: Any = 0, stride: Any = 1,
                     dilation: Any = 1, group: int = 1, output_padding: Any = 0) -> Tensor:
    """3-D transposed convolution of (N, C_in, D, H, W) with a (C_in, C_out/group, kD, kH, kW)
    weight; pad_mode as in MindSpore's Conv3DTranspose ('valid', 'same' or 'pad' with `padding`)."""
    _check("conv3d_transpose", inputs, (5,), "a 5-D input (N, C, D, H, W)")
    _check("conv3d_transpose", weight, (5,), "a 5-D weight (C_in, C_out/group, kD, kH, kW)")
    s, d = _ntuple("conv3d_transpose", "stride", stride, 3), _ntuple("conv3d_transpose", "dilation", dilation, 3)
    op_ = _ntuple("conv3d_transpose", "output_padding", output_padding, 3)
    before, after, extra = _transpose_mode_pads("conv3d_transpose", pad_mode, padding, inputs.shape[2:],
                                                weight.shape[2:], s, d)
    if any(o >= max(si, di) for o, si, di in zip(op_, s, d)):
        raise ValueError(f"conv3d_transpose: output_padding {op_} must be smaller than stride or dilation")
    return _conv_transpose_nd("conv3d_transpose", inputs, weight, s, before, after, d, group,
                              tuple(a + b for a, b in zip(op_, extra)))


# ----------------------------------------------------------------------------------------------
# pooling


def _max_pool_nd(op: str, x: Tensor, n: int, kernel_size: Any, stride: Any, before: Sequence[int],
                 after: Sequence[int], dilation: Any, ceil_mode: bool, return_indices: bool) -> Any:
    k = _ntuple(op, "kernel_size", kernel_size, n)
    s = k if stride is None or stride == 0 else _ntuple(op, "stride", stride, n)
    d = _ntuple(op, "dilation", dilation, n)
    _require_float(op, x)
    if any(2 * b > k[a] for a, b in enumerate(before)) or any(2 * b > k[a] for a, b in enumerate(after)):
        raise ValueError(f"{op}: padding must be at most half the kernel size {k}, got {tuple(before)}")
    out = _out_sizes(op, x.shape[2:], k, s, d, before, after, ceil_mode)
    from .array import reshape

    win = _windows(x, k, s, d, before, after, out, -math.inf)
    win = reshape(win, (*x.shape[:2], *out, math.prod(k)))
    flat = _flat_index_windows(x.shape[2:], k, s, d, before, out) if return_indices else None
    return _first_max(win, flat, return_indices)


def _avg_divisor_nd(spatial: Sequence[int], kernel: Sequence[int], stride: Sequence[int], before: Sequence[int],
                    after: Sequence[int], out: Sequence[int], count_include_pad: bool,
                    divisor_override: int) -> np.ndarray:
    if divisor_override:
        return np.full(tuple(out), float(divisor_override))
    div = np.ones((), np.float64)
    for a in range(len(kernel)):
        start = np.arange(out[a]) * stride[a] - before[a]
        if count_include_pad:
            size = np.minimum(start + kernel[a], spatial[a] + after[a]) - start
        else:
            size = np.minimum(start + kernel[a], spatial[a]) - np.maximum(start, 0)
        div = np.multiply.outer(div, size.astype(np.float64))
    return div


def _avg_pool_nd(op: str, x: Tensor, n: int, kernel_size: Any, stride: Any, before: Sequence[int],
                 after: Sequence[int], ceil_mode: bool, count_include_pad: bool, divisor_override: int) -> Tensor:
    from .array import reshape
    from .reduction import reduce_sum

    k = _ntuple(op, "kernel_size", kernel_size, n)
    s = k if stride is None or stride == 0 else _ntuple(op, "stride", stride, n)
    _require_float(op, x)
    if any(2 * b > k[a] for a, b in enumerate(before)) or any(2 * b > k[a] for a, b in enumerate(after)):
        raise ValueError(f"{op}: padding must be at most half the kernel size {k}, got {tuple(before)}")
    out = _out_sizes(op, x.shape[2:], k, s, (1,) * n, before, after, ceil_mode)
    win = reshape(_windows(x, k, s, (1,) * n, before, after, out, 0.0), (*x.shape[:2], *out, math.prod(k)))
    div = _avg_divisor_nd(x.shape[2:], k, s, before, after, out, count_include_pad, int(divisor_override or 0))
    return reduce_sum(win, -1) / Tensor._wrap(div.astype(x.dtype.np))


def max_pool3d(x: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """3-D max pooling of an (N, C, D, H, W) or (C, D, H, W) input; `padding` (an int or (d, h, w))
    pads both sides with -inf. With return_indices, also the argmax: the flat index d*H*W + h*W + w
    within each input volume (int64)."""
    xb, unbatched = _batched("max_pool3d", x, 3)
    b, a = _pads("max_pool3d", padding, 3)
    return _unbatch(_max_pool_nd("max_pool3d", xb, 3, kernel_size, stride, b, a, dilation, ceil_mode,
                                 return_indices), unbatched)


def avg_pool3d(input_x: Tensor, kernel_size: Any = 1, stride: Any = 1, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int = 0) -> Tensor:
    """3-D average pooling of an (N, C, D, H, W) input; `padding` is an int or (front, back, top,
    bottom, left, right) of zeros, counted in the divisor when count_include_pad; a non-zero
    divisor_override replaces the divisor."""
    xb, unbatched = _batched("avg_pool3d", input_x, 3)
    b, a = _pads("avg_pool3d", padding, 3)
    return _unbatch(_avg_pool_nd("avg_pool3d", xb, 3, kernel_size, stride, b, a, ceil_mode, count_include_pad,
                                 divisor_override), unbatched)


def avg_pool1d(input_x: Tensor, kernel_size: Any = 1, stride: Any = 1, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """1-D average pooling of an (N, C, L) input; `padding` is an int or (left, right) of zeros."""
    _check("avg_pool1d", input_x, (3,), "a 3-D input (N, C, L)")
    b, a = _pads("avg_pool1d", padding, 1)
    return _avg_pool_nd("avg_pool1d", input_x, 1, kernel_size, stride, b, a, ceil_mode, count_include_pad, 0)


def _lp_pool(op: str, x: Tensor, n: int, norm_type: Any, kernel_size: Any, stride: Any, ceil_mode: bool) -> Tensor:
    """MindSpore's LP pooling: (sum of x^p over each window)^(1/p), computed as prod(kernel) times the
    average of x^p (so ceil_mode's partial windows are scaled as MindSpore scales them)."""
    from .math_ops import pow as _pow

    if isinstance(norm_type, bool) or not isinstance(norm_type, (int, float)) or norm_type == 0:
        raise ValueError(f"{op}: norm_type must be a non-zero int or float, got {norm_type!r}")
    xb, unbatched = _batched(op, x, n)
    k = _ntuple(op, "kernel_size", kernel_size, n)
    zeros = (0,) * n
    avg = _avg_pool_nd(op, _pow(xb, float(norm_type)), n, k, stride, zeros, zeros, ceil_mode, True, 0)
    y = _pow(avg * float(math.prod(k)), 1.0 / float(norm_type))
    return _unbatch(y, unbatched)


def lp_pool1d(x: Tensor, norm_type: Any, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """1-D power-average pooling of an (N, C, L) or (C, L) input: (sum over the window of x^p)^(1/p)."""
    return _lp_pool("lp_pool1d", x, 1, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(x: Tensor, norm_type: Any, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """2-D power-average pooling of an (N, C, H, W) input: (sum over the window of x^p)^(1/p)."""
    _check("lp_pool2d", x, (4,), "a 4-D input (N, C, H, W)")
    return _lp_pool("lp_pool2d", x, 2, norm_type, kernel_size, stride, ceil_mode)


# --- adaptive pooling ------------------------------------------------------------------------------


def _adaptive_sizes(op: str, output_size: Any, spatial: Sequence[int]) -> tuple[int, ...]:
    n = len(spatial)
    if isinstance(output_size, (int, np.integer)) or output_size is None:
        output_size = (output_size,) * n
    t = tuple(output_size)
    if len(t) != n:
        raise ValueError(f"{op}: output_size must be an int or a tuple of {n}, got {output_size!r}")
    out = tuple(spatial[a] if t[a] is None else int(t[a]) for a in range(n))
    if min(out) < 1:
        raise ValueError(f"{op}: output_size must be positive, got {output_size!r}")
    return out


def _bins(size: int, out: int) -> np.ndarray:
    """(out, kmax) input positions of each adaptive bin [floor(i*n/o), ceil((i+1)*n/o)), the last
    position repeated to pad a short bin (harmless for a max)."""
    lo = (np.arange(out) * size) // out
    hi = -(-((np.arange(out) + 1) * size) // out)
    kmax = int((hi - lo).max())
    return np.minimum(lo[:, None] + np.arange(kmax)[None, :], hi[:, None] - 1)


def _adaptive_max(op: str, input: Tensor, n: int, output_size: Any, return_indices: bool) -> Any:
    from .array import reshape
    from .indexing import gather
    from .shape_ops import transpose

    x, unbatched = _batched(op, input, n)
    spatial = x.shape[2:]
    out = _adaptive_sizes(op, output_size, spatial)
    tables = [_bins(spatial[a], out[a]) for a in range(n)]
    win = x
    for a in range(n):
        win = gather(win, Tensor._wrap(tables[a].astype(np.int64)), 2 + 2 * a)
    perm = (0, 1) + tuple(2 + 2 * a for a in range(n)) + tuple(3 + 2 * a for a in range(n))
    kk = math.prod(t.shape[1] for t in tables)
    win = reshape(transpose(win, perm), (*x.shape[:2], *out, kk))
    flat = None
    if return_indices:
        flat = np.arange(math.prod(spatial)).reshape(tuple(spatial))
        for a in range(n):
            flat = np.take(flat, tables[a], axis=2 * a)
        flat = flat.transpose([2 * a for a in range(n)] + [2 * a + 1 for a in range(n)]).reshape(*out, kk)
    return _unbatch(_first_max(win, flat, return_indices), unbatched)


def adaptive_max_pool1d(input: Tensor, output_size: int) -> Tensor:
    """Adaptive 1-D max pooling of an (N, C, L) or (C, L) input to length `output_size`: bin i
    covers [floor(i L / out), ceil((i + 1) L / out))."""
    if isinstance(output_size, bool) or not isinstance(output_size, (int, np.integer)):
        raise TypeError(f"adaptive_max_pool1d: output_size must be an int, got {output_size!r}")
    return _adaptive_max("adaptive_max_pool1d", input, 1, int(output_size), False)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Adaptive 2-D max pooling of an (N, C, H, W) or (C, H, W) input to `output_size` (an int or
    (h, w); None keeps that size). With return_indices, also the flat argmax h * W + w (int64)."""
    return _adaptive_max("adaptive_max_pool2d", input, 2, output_size, return_indices)


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Adaptive 3-D max pooling of an (N, C, D, H, W) or (C, D, H, W) input to `output_size`. With
    return_indices, also the flat argmax d*H*W + h*W + w within each volume (int64)."""
    return _adaptive_max("adaptive_max_pool3d", input, 3, output_size, return_indices)


def _adaptive_avg_nd(op: str, input: Tensor, n: int, output_size: Any) -> Tensor:
    """Separable: along each spatial axis a product with the constant (out, n) averaging matrix."""
    from .conv_pool import _adaptive_matrix
    from .linalg import matmul
    from .shape_ops import movedim

    x, unbatched = _batched(op, input, n)
    out = _adaptive_sizes(op, output_size, x.shape[2:])
    for a in range(n):
        m = Tensor._wrap(_adaptive_matrix(x.shape[2 + a], out[a], x.dtype.np).T.copy())
        x = movedim(matmul(movedim(x, 2 + a, -1), m), -1, 2 + a)
    return _unbatch(x, unbatched)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Adaptive 3-D average pooling of an (N, C, D, H, W) or (C, D, H, W) input to `output_size`
    (an int or (d, h, w); None keeps that size)."""
    return _adaptive_avg_nd("adaptive_avg_pool3d", input, 3, output_size)


def adaptive_avg_pool2d_ext(input: Tensor, output_size: Any) -> Tensor:
    """Adaptive 2-D average pooling (MindSpore's `_ext` form, same semantics as adaptive_avg_pool2d)."""
    return _adaptive_avg_nd("adaptive_avg_pool2d_ext", input, 2, output_size)


# --- max unpooling ---------------------------------------------------------------------------------


def _max_unpool(op: str, x: Tensor, indices: Tensor, n: int, kernel_size: Any, stride: Any, padding: Any,
                output_size: Any) -> Tensor:
    """Scatters each value to the flat position its index names in a zero output plane/volume."""
    from .array import reshape
    from .creation import zeros
    from .indexing import scatter

    xb, unbatched = _batched(op, x, n)
    if not isinstance(indices, Tensor) or tuple(indices.shape) != tuple(x.shape):
        raise located(ShapeError(op, f"indices of the input's shape {tuple(x.shape)}",
                                 f"{getattr(indices, 'shape', indices)!r}"))
    ib = reshape(indices, xb.shape)
    k = _ntuple(op, "kernel_size", kernel_size, n)
    s = k if stride is None or stride == 0 else _ntuple(op, "stride", stride, n)
    p = _ntuple(op, "padding", padding, n)
    size = [(xb.shape[2 + a] - 1) * s[a] - 2 * p[a] + k[a] for a in range(n)]
    if output_size is not None and len(output_size) > 0:
        t = tuple(int(v) for v in output_size)
        t = t[-n:]
        if len(t) != n:
            raise ValueError(f"{op}: output_size must end with the {n} spatial sizes, got {output_size!r}")
        for a in range(n):
            if not size[a] - s[a] < t[a] < size[a] + s[a]:
                raise ValueError(f"{op}: output_size {t} must be within a stride of the default {tuple(size)}")
        size = list(t)
    nb, c = xb.shape[:2]
    flat_x = reshape(xb, (nb, c, -1))
    flat_i = reshape(ib, (nb, c, -1))
    base = zeros((nb, c, math.prod(size)), xb.dtype)
    y = reshape(scatter(base, 2, flat_i, flat_x), (nb, c, *size))
    return _unbatch(y, unbatched)


def max_unpool1d(x: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """Partial inverse of max_pool1d: each value goes to the position its index names in a zero
    output of length (L - 1) * stride - 2 * padding + kernel_size (or output_size)."""
    return _max_unpool("max_unpool1d", x, indices, 1, kernel_size, stride, padding, output_size)


def max_unpool2d(x: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """Partial inverse of max_pool2d (with return_indices): values scattered to their flat
    positions h * W_out + w in a zero output."""
    return _max_unpool("max_unpool2d", x, indices, 2, kernel_size, stride, padding, output_size)


def max_unpool3d(x: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """Partial inverse of max_pool3d (with return_indices): values scattered to their flat
    positions in a zero output volume."""
    return _max_unpool("max_unpool3d", x, indices, 3, kernel_size, stride, padding, output_size)


# --- im2col / col2im and pixel shuffle -------------------------------------------------------------


def _identity_kernel(kh: int, kw: int, dtype: Any) -> Tensor:
    w = np.eye(kh * kw, dtype=dtype).reshape(kh * kw, 1, kh, kw)
    return Tensor._wrap(w)


@tensor_method("unfold")
def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    """im2col: (N, C, H, W) -> (N, C * kH * kW, L), every sliding block's values as a column
    (channel-major, then kernel row, then column), L blocks in row-major order."""
    from .array import reshape
    from .conv_pool import Conv2D

    _check("unfold", input, (4,), "a 4-D input (N, C, H, W)")
    k = _ntuple("unfold", "kernel_size", kernel_size, 2)
    d, s = _ntuple("unfold", "dilation", dilation, 2), _ntuple("unfold", "stride", stride, 2)
    p = _ntuple("unfold", "padding", padding, 2)
    nb, c, h, w = input.shape
    x = reshape(input, (nb * c, 1, h, w))
    cols = Conv2D(x, _identity_kernel(*k, input.dtype.np), stride=s, pad=(p[0], p[0], p[1], p[1]), dilation=d, group=1)
    return reshape(cols, (nb, c * k[0] * k[1], -1))


@tensor_method("fold")
def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Tensor:
    """col2im, the adjoint of `unfold`: (N, C * kH * kW, L) -> (N, C, H, W), overlapping values summed."""
    from .array import reshape
    from .conv_pool import Conv2DBackpropInput

    _check("fold", input, (3,), "a 3-D input (N, C * kH * kW, L)")
    k = _ntuple("fold", "kernel_size", kernel_size, 2)
    d, s = _ntuple("fold", "dilation", dilation, 2), _ntuple("fold", "stride", stride, 2)
    p = _ntuple("fold", "padding", padding, 2)
    osz = tuple(int(v) for v in (output_size.asnumpy() if isinstance(output_size, Tensor) else
                                 ((output_size,) * 2 if isinstance(output_size, int) else output_size)))
    nb, ck, length = input.shape
    kk = k[0] * k[1]
    blocks = [_out_size(osz[a], k[a], s[a], d[a], p[a], p[a]) for a in range(2)]
    if ck % kk or blocks[0] * blocks[1] != length:
        raise located(ShapeError("fold", f"(N, C * {kk}, {blocks[0] * blocks[1]}) for output_size {osz}",
                                 f"{tuple(input.shape)}"))
    c = ck // kk
    cols = reshape(input, (nb * c, kk, *blocks))
    y = Conv2DBackpropInput(cols, _identity_kernel(*k, input.dtype.np), input_size=(nb * c, 1, *osz), stride=s,
                            pad=(p[0], p[0], p[1], p[1]), dilation=d, group=1)
    return reshape(y, (nb, c, *osz))


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(..., C r^2, H, W) -> (..., C, H r, W r): depth to space (sub-pixel convolution)."""
    from .array import reshape
    from .shape_ops import transpose

    r = int(upscale_factor)
    _check("pixel_shuffle", input, tuple(range(3, 9)), "an input of rank >= 3 (..., C, H, W)")
    if r < 1 or input.shape[-3] % (r * r):
        raise located(ShapeError("pixel_shuffle", f"channels divisible by upscale_factor^2 = {r * r}",
                                 f"shape {tuple(input.shape)}"))
    *lead, c, h, w = input.shape
    m = len(lead)
    x = reshape(input, (*lead, c // (r * r), r, r, h, w))
    x = transpose(x, tuple(range(m)) + (m, m + 3, m + 1, m + 4, m + 2))
    return reshape(x, (*lead, c // (r * r), h * r, w * r))


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(..., C, H r, W r) -> (..., C r^2, H, W): space to depth, the inverse of pixel_shuffle."""
    from .array import reshape
    from .shape_ops import transpose

    r = int(downscale_factor)
    _check("pixel_unshuffle", input, tuple(range(3, 9)), "an input of rank >= 3 (..., C, H, W)")
    if r < 1 or input.shape[-2] % r or input.shape[-1] % r:
        raise located(ShapeError("pixel_unshuffle", f"height and width divisible by downscale_factor = {r}",
                                 f"shape {tuple(input.shape)}"))
    *lead, c, h, w = input.shape
    m = len(lead)
    x = reshape(input, (*lead, c, h // r, r, w // r, r))
    x = transpose(x, tuple(range(m)) + (m, m + 2, m + 4, m + 1, m + 3))
    return reshape(x, (*lead, c * r * r, h // r, w // r))


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None, recompute_scale_factor: bool | None = None) -> Tensor:
    """MindSpore's alias of `interpolate` (same arguments and semantics)."""
    from .resize import interpolate

    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)
