"""MindSpore's smaller everyday names (issue 14): aliases (`arctan`, `eq`, `divide`, `floor_div`,
`addn`, `accumulate_n`, the ``*_ext`` forms), `exp2`, `expand`/`expand_as`, `fills`/`Tensor.fill`,
`approximate_equal`, the clipping helpers (`clip_by_value`, `clip_by_norm`, `clip_by_global_norm`,
`clamp_`), in-place Tensor methods (`add_`, `div_`, `exp_`, `floor_`, `floor_divide_`, `copy_`,
`addmm_`), `Tensor.argmax_with_value`/`argmin_with_value`, counting (`bincount`, `bucketize`,
`histc`, `Tensor.count_nonzero`), `index_add`/`index_fill`, and the window functions.

All are composites of registered ops. In-place methods write through the recorded `setitem_`, so a
gradient through a tensor overwritten after being read is refused as for ``x[...] = v``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor, tensor_method
from . import functional as F
from .math_extra import addmm
from .reduction import ArgMaxWithValue, ArgMinWithValue
from .shape_ops import _expand, _expand_as  # Tensor.expand / Tensor.expand_as


def _t(x: Any, like: Tensor | None = None) -> Tensor:
    if isinstance(x, Tensor):
        return x
    return Tensor(np.asarray(x, like.dtype.np if like is not None else None))


# --- aliases ----------------------------------------------------------------------------------------
def arctan(input: Tensor) -> Tensor:
    """Arctangent of each element (the same as `atan`)."""
    return F.atan(input)


def eq(input: Any, other: Any) -> Tensor:
    """input == other element-wise (bool; the same as `equal`)."""
    return F.equal(input, other)


def divide(input: Any, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """input / other; `rounding_mode` 'floor' or 'trunc' rounds the quotient (the same as `div`)."""
    return F.div(input, other, rounding_mode=rounding_mode)


def floor_div(x: Any, y: Any) -> Tensor:
    """x / y rounded down element-wise (the same as `floor_divide`)."""
    return F.floor_divide(x, y)


def addn(x: Sequence[Tensor]) -> Tensor:
    """The element-wise sum of a list or tuple of tensors of one shape."""
    if not isinstance(x, (list, tuple)) or not x:
        raise TypeError("addn: expected a non-empty list or tuple of tensors")
    out = x[0]
    for t in x[1:]:
        if tuple(t.shape) != tuple(out.shape):
            raise ShapeError("addn", f"tensors of one shape {tuple(out.shape)}", f"{tuple(t.shape)}")
        out = F.add(out, t)
    return out


def accumulate_n(x: Sequence[Tensor]) -> Tensor:
    """The element-wise sum of a list or tuple of tensors (the same as `addn`)."""
    return addn(x)


def float_power_ext(input: Any, exponent: Any) -> Tensor:
    """input ** exponent computed in float64 (the same as `float_power`)."""
    return F.float_power(input, exponent)


def diff_ext(input: Tensor, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> Tensor:
    """The n-th forward difference along `dim` (the same as `diff`)."""
    return F.diff(input, n, dim, prepend, append)


def baddbmm_ext(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * input + alpha * (batch1 @ batch2) (the same as `baddbmm`)."""
    return F.baddbmm(input, batch1, batch2, beta, alpha)


def exp2(input: Tensor) -> Tensor:
    """2 ** x element-wise (integer inputs in float32)."""
    x = input if input.dtype.is_float else F.cast(input, mstype.float32)
    return F.exp(F.mul(x, math.log(2.0)))


def expand(input_x: Tensor, size: Any) -> Tensor:
    """`input_x` broadcast to `size` (a tuple or a 1-D int tensor; -1 keeps that axis)."""
    if isinstance(size, Tensor):
        size = tuple(int(v) for v in size.asnumpy().reshape(-1))
    # Tensor.expand's function called by name (not as a method), so the op catalogue sees BroadcastTo
    return _expand(input_x, *size) if isinstance(size, (tuple, list)) else _expand(input_x, size)


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    """`input` broadcast to the shape of `other`."""
    return _expand_as(input, other)


def fills(x: Tensor, value: Any) -> Tensor:
    """A tensor of `x`'s shape and dtype filled with `value` (a number or a 0-D tensor)."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise ShapeError("fills", "a number or a 0-D tensor value", f"shape {tuple(value.shape)}")
        return F.add(F.zeros_like(x), F.cast(value, x.dtype))
    if not isinstance(value, (int, float, bool)):
        raise TypeError(f"fills: value must be a number or a 0-D tensor, got {type(value).__name__}")
    return F.full_like(x, value)


tensor_method("fills")(fills)


@tensor_method("fill")
def _fill_method(self: Tensor, value: Any) -> Tensor:
    """A tensor of this one's shape and dtype filled with `value` (not in place; see fill_)."""
    return fills(self, value)


def approximate_equal(x: Any, y: Any, tolerance: float = 1e-05) -> Tensor:
    """|x - y| < tolerance element-wise (bool)."""
    x, y = _t(x, y if isinstance(y, Tensor) else None), _t(y, x if isinstance(x, Tensor) else None)
    return F.less(F.abs(F.sub(x, y)), tolerance)


@tensor_method("approximate_equal")
def _approximate_equal_method(self: Tensor, other: Any, tolerance: float = 1e-05) -> Tensor:
    """|self - other| < tolerance element-wise (bool)."""
    return approximate_equal(self, other, tolerance)


# --- clipping ---------------------------------------------------------------------------------------
def clip_by_value(x: Any, clip_value_min: Any = None, clip_value_max: Any = None) -> Any:
    """Clamps `x` (a tensor, or a list/tuple of them) into [clip_value_min, clip_value_max]."""
    if clip_value_min is None and clip_value_max is None:
        raise ValueError("clip_by_value: at least one of clip_value_min and clip_value_max must be given")
    if isinstance(x, (list, tuple)):
        return type(x)(F.clamp(t, clip_value_min, clip_value_max) for t in x)
    return F.clamp(x, clip_value_min, clip_value_max)


def _norm_of(ts: Sequence[Tensor], p: float) -> Tensor:
    if p == float("inf"):
        return F.reduce_max(F.stack([F.reduce_max(F.abs(t)) for t in ts]))
    parts = [F.sum(F.pow(F.abs(t), float(p))) for t in ts]
    return F.pow(addn(parts) if len(parts) > 1 else parts[0], 1.0 / p)


def clip_by_norm(x: Any, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False) -> Any:
    """Scales `x` (a tensor or a list/tuple of them) so that their total `norm_type` norm is at most
    `max_norm` (factor max_norm / (norm + 1e-6), capped at 1), as MindSpore's clip_by_norm."""
    ts = list(x) if isinstance(x, (list, tuple)) else [x]
    total = _norm_of(ts, float(norm_type))
    if error_if_nonfinite and not bool(F.isfinite(total)):
        raise ValueError(f"clip_by_norm: the total norm of order {norm_type} is non-finite")
    coef = F.minimum(F.div(max_norm, F.add(total, 1e-6)), 1.0)
    out = [F.mul(t, F.cast(coef, t.dtype)) for t in ts]
    return type(x)(out) if isinstance(x, (list, tuple)) else out[0]


def clip_by_global_norm(x: Sequence[Tensor], clip_norm: float = 1.0, use_norm: Any = None) -> tuple[Tensor, ...]:
    """Scales the tensors of `x` by clip_norm / max(global_norm, clip_norm), global_norm being the
    L2 norm of all of them together (or `use_norm` when given)."""
    if not isinstance(x, (list, tuple)):
        raise TypeError("clip_by_global_norm: x must be a tuple or list of tensors")
    if clip_norm <= 0:
        raise ValueError(f"clip_by_global_norm: clip_norm must be positive, got {clip_norm}")
    g = _norm_of(list(x), 2.0) if use_norm is None else _t(use_norm)
    scale = F.div(clip_norm, F.maximum(g, clip_norm))
    return tuple(F.mul(t, F.cast(scale, t.dtype)) for t in x)


# --- in-place Tensor methods ------------------------------------------------------------------------
def _write(target: Tensor, value: Tensor) -> Tensor:
    return F.setitem_(target, Ellipsis, value)


def clamp_(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Clamps `input` into [min, max] in place (returned)."""
    return _write(input, F.clamp(input, min, max))


tensor_method("clamp_")(clamp_)


@tensor_method("add_")
def _add_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """self += alpha * other, in place."""
    return _write(self, F.add(self, other if alpha == 1 else F.mul(other, alpha)))


@tensor_method("div_")
def _div_(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """self /= other in place (`rounding_mode` as in `div`)."""
    return _write(self, F.div(self, other, rounding_mode=rounding_mode))


@tensor_method("exp_")
def _exp_(self: Tensor) -> Tensor:
    """self = exp(self), in place."""
    return _write(self, F.exp(self))


@tensor_method("floor_")
def _floor_(self: Tensor) -> Tensor:
    """self = floor(self), in place."""
    return _write(self, F.floor(self))


@tensor_method("floor_divide_")
def _floor_divide_(self: Tensor, other: Any) -> Tensor:
    """self = floor(self / other), in place."""
    return _write(self, F.floor_divide(self, other))


@tensor_method("copy_")
def _copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """Copies `src` (broadcast, cast to this dtype) into this tensor, in place."""
    return _write(self, F.broadcast_to(F.cast(_t(src, self), self.dtype), tuple(self.shape)))


@tensor_method("addmm_")
def _addmm_(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """self = beta * self + alpha * (mat1 @ mat2), in place."""
    return _write(self, addmm(self, mat1, mat2, beta=beta, alpha=alpha))


@tensor_method("argmax_with_value")
def _argmax_with_value(self: Tensor, axis: int = 0, keep_dims: bool = False) -> tuple[Tensor, Tensor]:
    """(index, value) of the maximum along `axis`."""
    return ArgMaxWithValue(self, axis=axis, keep_dims=keep_dims)


@tensor_method("argmin_with_value")
def _argmin_with_value(self: Tensor, axis: int = 0, keep_dims: bool = False) -> tuple[Tensor, Tensor]:
    """(index, value) of the minimum along `axis`."""
    return ArgMinWithValue(self, axis=axis, keep_dims=keep_dims)


@tensor_method("count_nonzero")
def _count_nonzero(self: Tensor, axis: Any = (), keep_dims: bool = False, dtype: Any = mstype.int32) -> Tensor:
    """How many elements are not zero, over `axis` (every axis when empty)."""
    return F.count_nonzero(self, axis, keep_dims, dtype)


# --- counting ---------------------------------------------------------------------------------------
def _host(op: str, x: Tensor) -> np.ndarray:
    from .primitive import TRACING

    if TRACING.builder is not None:
        from ..errors import SporeError

        raise SporeError(f"{op}: the output size depends on the values, which a compiled graph does not know",
                         hint=f"call ops.{op} outside the jit function")
    return x.asnumpy()


@tensor_method("bincount")
def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """Counts of each value 0..max(input) of a 1-D non-negative integer tensor (summed `weights`
    instead when given), at least `minlength` long."""
    if input.ndim != 1 or not input.dtype.is_int:
        raise ShapeError("bincount", "a 1-D integer tensor", f"shape {tuple(input.shape)}, dtype {input.dtype}")
    if minlength < 0:
        raise ValueError(f"bincount: minlength must be non-negative, got {minlength}")
    v = _host("bincount", input)
    if v.size and v.min() < 0:
        raise ValueError("bincount: input has negative values")
    n = max(int(v.max()) + 1 if v.size else 0, minlength)
    if weights is None:
        return Tensor(np.bincount(v, minlength=n).astype(np.int64))
    if tuple(weights.shape) != tuple(input.shape):
        raise ShapeError("bincount", f"weights of shape {tuple(input.shape)}", f"{tuple(weights.shape)}")
    w = weights if weights.dtype.is_float else F.cast(weights, mstype.float32)
    return F.tensor_scatter_add(F.zeros((n,), w.dtype), Tensor(v.astype(np.int64).reshape(-1, 1)), w)


def bucketize(input: Tensor, boundaries: Sequence[float], *, right: bool = False) -> Tensor:
    """The index of the bucket of each element among sorted `boundaries` (int32 for a tensor input):
    boundaries[i-1] < x <= boundaries[i], or boundaries[i-1] <= x < boundaries[i] when `right`."""
    if isinstance(boundaries, Tensor):
        boundaries = [float(b) for b in boundaries.asnumpy().reshape(-1)]
    b = list(boundaries)
    if any(b[i] > b[i + 1] for i in range(len(b) - 1)):
        raise ValueError("bucketize: boundaries must be sorted in ascending order")
    x = input if isinstance(input, Tensor) else Tensor(input)
    out = F.zeros(tuple(x.shape), mstype.int32)
    for v in b:
        hit = (x >= v) if right else (x > v)
        out = F.add(out, F.cast(hit, mstype.int32))
    return out


@tensor_method("histc")
def histc(input: Tensor, bins: int = 100, min: float = 0.0, max: float = 0.0) -> Tensor:
    """Histogram of `input` in `bins` equal bins over [min, max] (the data's range when both are 0);
    values outside are ignored, the last bin includes `max`."""
    if bins <= 0:
        raise ValueError(f"histc: bins must be positive, got {bins}")
    if min > max:
        raise ValueError(f"histc: min ({min}) must not exceed max ({max})")
    v = _host("histc", input).astype(np.float64).reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi:
        lo, hi = (float(v.min()), float(v.max())) if v.size else (0.0, 0.0)
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    counts, _ = np.histogram(v[(v >= lo) & (v <= hi)], bins=bins, range=(lo, hi))
    dt = input.dtype if input.dtype.is_float else mstype.float32
    return Tensor(counts.astype(dt.np))


# --- index_add / index_fill -------------------------------------------------------------------------
def _index_positions(op: str, x: Tensor, axis: int, index: Any) -> tuple[int, np.ndarray]:
    if x.ndim == 0:
        raise ShapeError(op, "a tensor of rank >= 1", "a scalar")
    ax = axis % x.ndim
    idx = np.asarray(index.asnumpy() if isinstance(index, Tensor) else index).reshape(-1)
    if idx.dtype.kind not in "iu":
        raise DTypeError(op, "integer indices", str(idx.dtype))
    n = x.shape[ax]
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError(f"{op}: index out of range for axis {axis} of size {n}: {idx.tolist()}")
    return ax, idx % n


def index_add(x: Tensor, indices: Tensor, y: Tensor, axis: int, use_lock: bool = True,
              check_index_bound: bool = True) -> Tensor:
    """`x` with the slices of `y` added at positions `indices` along `axis` (repeats accumulate)."""
    ax, idx = _index_positions("index_add", x, axis, indices)
    want = tuple(x.shape[:ax]) + (idx.size,) + tuple(x.shape[ax + 1:])
    if tuple(y.shape) != want:
        raise ShapeError("index_add", f"y of shape {want}", f"{tuple(y.shape)}")
    xm, ym = F.moveaxis(x, ax, 0), F.moveaxis(F.cast(y, x.dtype), ax, 0)
    out = F.tensor_scatter_add(xm, Tensor(idx.astype(np.int64).reshape(-1, 1)), ym)
    return F.moveaxis(out, 0, ax)


@tensor_method("index_add")
def _index_add_method(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """This tensor with alpha * `source` added at positions `index` along `dim`."""
    return index_add(self, index, source if alpha == 1 else F.mul(source, alpha), dim)


@tensor_method("index_add_")
def _index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """In place: alpha * `source` added at positions `index` along `dim`."""
    return _write(self, _index_add_method(self, dim, index, source, alpha=alpha))


def index_fill(x: Tensor, axis: int, index: Tensor, value: Any) -> Tensor:
    """`x` with the slices at positions `index` along `axis` set to `value` (a number or 0-D tensor)."""
    ax, idx = _index_positions("index_fill", x, axis, index)
    mask = np.zeros(x.shape[ax], bool)
    mask[idx] = True
    shape = [1] * x.ndim
    shape[ax] = x.shape[ax]
    v = F.cast(value, x.dtype) if isinstance(value, Tensor) else value
    return F.where(Tensor(mask.reshape(shape)), F.add(F.zeros_like(x), v), x)


tensor_method("index_fill")(index_fill)


@tensor_method("index_fill_")
def _index_fill_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """In place: the slices at positions `index` along `dim` set to `value`."""
    return _write(self, index_fill(self, dim, index, value))


# --- window functions -------------------------------------------------------------------------------
def _window(op: str, window_length: Any, periodic: bool, dtype: Any, make: Any) -> Tensor:
    if isinstance(window_length, Tensor):
        window_length = int(window_length.asnumpy())
    if not isinstance(window_length, (int, np.integer)) or isinstance(window_length, bool) or window_length < 0:
        raise ValueError(f"{op}: window_length must be a non-negative int, got {window_length!r}")
    dt = mstype.to_dtype(dtype) if dtype is not None else mstype.float32
    if not dt.is_float:
        raise DTypeError(op, "a float dtype", str(dt))
    n = int(window_length)
    if n == 0:
        return Tensor(np.zeros(0, dt.np))
    if n == 1:
        return Tensor(np.ones(1, dt.np))
    m = n + 1 if periodic else n
    return Tensor(np.asarray(make(m)[:n], dt.np))


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Any = None) -> Tensor:
    """The Bartlett (triangular) window of `window_length` points (periodic: for spectral analysis)."""
    return _window("bartlett_window", window_length, periodic, dtype, np.bartlett)


def blackman_window(window_length: int, periodic: bool = True, *, dtype: Any = None) -> Tensor:
    """The Blackman window of `window_length` points (periodic: for spectral analysis)."""
    return _window("blackman_window", window_length, periodic, dtype, np.blackman)


def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = None) -> Tensor:
    """The Hann window 0.5 - 0.5 cos(2 pi k / (N - 1)) of `window_length` points."""
    return _window("hann_window", window_length, periodic, dtype, np.hanning)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype: Any = None) -> Tensor:
    """The generalized Hamming window alpha - beta cos(2 pi k / (N - 1)) of `window_length` points."""
    def make(m: int) -> np.ndarray:
        return alpha - beta * np.cos(2 * np.pi * np.arange(m) / (m - 1))

    return _window("hamming_window", window_length, periodic, dtype, make)


def eps(x: Tensor) -> Tensor:
    """A tensor of `x`'s shape and float dtype filled with that dtype's machine epsilon (the gap
    between 1 and the next representable number: 1.1920929e-07 for float32, as MindSpore prints)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"eps: expected a Tensor, got {type(x).__name__}")
    if not x.dtype.is_float:
        raise DTypeError("eps", "a float16, float32 or float64 tensor", str(x.dtype))
    return F.full_like(x, float(np.finfo(x.dtype.np).eps))
