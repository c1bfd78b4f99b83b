"""MindSpore's fractional pooling (issue 14, vision slice): `ops.fractional_max_pool2d/3d` and
`FractionalMaxPoolWithFixedKsize` / `FractionalMaxPool3DWithFixedKsize` (PyTorch's rule: fixed
windows at pseudo-random starts), and TensorFlow's `FractionalMaxPool` / `FractionalAvgPool`
(random region boundaries, NHWC).

Fixed-kernel rule (per (n, c) plane and axis, sample u in [0, 1) from `random_samples`, last axis
ordered (w, h) in 2-D and (d, h, w) in 3-D, as PyTorch's kernels read it):
``start_i = int((i + u) * alpha) - int(u * alpha)`` with ``alpha = (in - k) / (out - 1)``, and the last
window starts at ``in - k``; each output is the max of the k-window at its start, and the index is
the flat position of that max in the plane (the first one on ties, scanning the window row-major).
The starts are computed with Spore ops from the samples tensor, so Graph mode keeps them as inputs;
without `_random_samples` they are drawn uniformly from Spore's global generator (in the graph, by
the RandomDraw primitive, so Graph mode draws fresh windows on every run as PyNative does).

TensorFlow's rule (`pooling_ratio` [1, rh, rw, 1], out = floor(in / ratio)): the boundaries are
cumulative sums of a shuffled mix of steps k = in // out and k + 1 (`pseudo_random=False`) or
``ceil(alpha (i + u)) - ceil(alpha u)`` with alpha = in / out (`pseudo_random=True`, u uniform in
[0, max_u) as in the paper); region i is [b_i, b_{i+1}) and also takes b_{i+1} when `overlapping`.
The regions are drawn in the graph (a RandomDraw primitive), so Graph mode draws fresh ones on each
run as PyNative does; with a non-zero (seed, seed2) every call draws the same ones (Spore's rule for
seeded random ops), else they come from Spore's global generator; `deterministic` draws them once
per op and reuses them. MindSpore returns the row and column boundary sequences (int64) with the
result.

All pool by gathering the windows (`gather_elements` / `gather`) and reducing them with
`amax` / a masked mean, so the gradient goes to each window's argmax (spread evenly for the
average) with no hand-written kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..common import seed as _seed
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor
from .operation import Operation

__all__ = ["FractionalMaxPoolWithFixedKsize", "FractionalMaxPool3DWithFixedKsize", "FractionalMaxPool",
           "FractionalAvgPool"]


def _F():  # the functional namespace (this module is one of its declaration modules)
    from . import functional as F

    return F


def _tuple(op: str, name: str, v: Any, n: int, kind: type) -> tuple:
    vals = tuple(v) if isinstance(v, (tuple, list)) else (v,) * n
    ok = len(vals) == n and all(isinstance(x, kind if kind is not float else (int, float)) and not isinstance(x, bool)
                                for x in vals)
    if not ok:
        raise TypeError(f"{op}: {name} must be a {kind.__name__} or a tuple of {n}, got {v!r}")
    return tuple(kind(x) for x in vals)


def _starts(u: Tensor, in_size: int, out_size: int, k: int) -> Tensor:
    """(N, C, out) int64 window starts along one axis from the per-plane samples u (N, C)."""
    F = _F()
    n, c = u.shape
    last = F.fill(mstype.int64, (n, c, 1), in_size - k)
    if out_size == 1:
        return last
    alpha = (in_size - k) / (out_size - 1)
    i = Tensor(np.arange(out_size - 1, dtype=u.dtype.np))
    uu = F.expand_dims(u, 2)
    seq = F.cast(F.floor((i + uu) * alpha), mstype.int64) - F.cast(F.floor(uu * alpha), mstype.int64)
    return F.concat([seq, last], 2)


def _fixed_pool(op: str, x: Tensor, ksize: tuple, out: tuple, samples: Tensor) -> tuple[Tensor, Tensor]:
    """(max, int64 flat argmax) over fixed windows of x (N, C, *spatial) at the sampled starts."""
    F = _F()
    nd = len(ksize)
    n, c, *sp = x.shape
    for d in range(nd):
        if out[d] < 1 or out[d] + ksize[d] - 1 > sp[d]:
            raise ValueError(f"{op}: output_size ({out[d]}) + kernel_size ({ksize[d]}) - 1 must be at most the input "
                             f"size ({sp[d]}) on spatial axis {d}")
    if not isinstance(samples, Tensor) or not samples.dtype.is_float:
        raise DTypeError(op, "a float random_samples Tensor", str(getattr(samples, "dtype", type(samples).__name__)))
    if samples.ndim != 3 or samples.shape[2] != nd or samples.shape[1] != c or samples.shape[0] not in (1, n):
        raise ShapeError(op, f"random_samples of shape ({n}, {c}, {nd})", f"shape {tuple(samples.shape)}")
    s = F.broadcast_to(samples, (n, c, nd))
    order = list(range(nd))[::-1] if nd == 2 else list(range(nd))  # 2-D samples are (w, h): PyTorch's order
    flat = None
    strides = [int(np.prod(sp[d + 1:])) for d in range(nd)]
    for d in range(nd):
        st = _starts(s[:, :, order[d]], sp[d], out[d], ksize[d])  # (N, C, O_d)
        pos = F.expand_dims(st, 3) + Tensor(np.arange(ksize[d], dtype=np.int64))  # (N, C, O_d, K_d)
        perm_pos = F.reshape(pos * strides[d], (n, c, *[out[e] if e == d else 1 for e in range(nd)],
                                                *[ksize[e] if e == d else 1 for e in range(nd)]))
        flat = perm_pos if flat is None else flat + perm_pos
    full = (n, c, *out, int(np.prod(ksize)))
    flat = F.reshape(F.broadcast_to(flat, (n, c, *out, *ksize)), full)
    vals = F.reshape(F.gather_elements(F.reshape(x, (n, c, -1)), 2, F.reshape(flat, (n, c, -1))), full)
    arg = F.argmax(vals, -1, True)
    return F.amax(vals, -1), F.squeeze(F.gather_elements(flat, len(full) - 1, arg), -1)


def _fractional_max_pool(op: str, nd: int, input: Tensor, kernel_size: Any, output_size: Any, output_ratio: Any,
                         return_indices: bool, _random_samples: Any) -> Any:
    F = _F()
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}: input must be a Tensor, got {type(input).__name__}")
    if input.ndim not in (nd + 1, nd + 2):
        raise ShapeError(op, f"a {nd + 1}-D or {nd + 2}-D input", f"shape {tuple(input.shape)}")
    if not input.dtype.is_float:
        raise DTypeError(op, "a float input", str(input.dtype))
    unbatched = input.ndim == nd + 1
    x = F.expand_dims(input, 0) if unbatched else input
    k = _tuple(op, "kernel_size", kernel_size, nd, int)
    sp = tuple(x.shape[2:])
    if output_size is not None:
        out = _tuple(op, "output_size", output_size, nd, int)
    elif output_ratio is not None:
        ratio = _tuple(op, "output_ratio", output_ratio, nd, float)
        if not all(0 < r < 1 for r in ratio):
            raise ValueError(f"{op}: output_ratio must be in (0, 1), got {output_ratio!r}")
        out = tuple(int(s * r) for s, r in zip(sp, ratio))
    else:
        raise ValueError(f"{op}: one of output_size and output_ratio must be given")
    if _random_samples is None:  # drawn in the graph, so Graph mode draws fresh windows on every run
        from .creation import _draw

        _random_samples = _draw("uniform", (x.shape[0], x.shape[1], nd), x.dtype, None)
    y, idx = _fixed_pool(op, x, k, out, _random_samples)
    if unbatched:
        y, idx = F.squeeze(y, 0), F.squeeze(idx, 0)
    return (y, idx) if return_indices else y


def fractional_max_pool2d(input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                          return_indices: bool = False, _random_samples: Tensor | None = None) -> Any:
    """Fractional max pooling of input (N, C, H, W) / (C, H, W): kernel_size windows at pseudo-random
    starts giving output_size (or int(input * output_ratio)); with return_indices also the int64
    flat argmax in each H * W plane. _random_samples (N or 1, C, 2) in [0, 1), (w, h) order."""
    return _fractional_max_pool("fractional_max_pool2d", 2, input, kernel_size, output_size, output_ratio,
                                return_indices, _random_samples)


def fractional_max_pool3d(input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                          return_indices: bool = False, _random_samples: Tensor | None = None) -> Any:
    """Fractional max pooling of input (N, C, D, H, W) / (C, D, H, W); _random_samples (N or 1, C, 3)
    in (d, h, w) order. See `fractional_max_pool2d`."""
    return _fractional_max_pool("fractional_max_pool3d", 3, input, kernel_size, output_size, output_ratio,
                                return_indices, _random_samples)


class _FixedKsize(Operation):
    _nd = 2
    _fmt = "NCHW"

    def __init__(self, ksize: Any, output_shape: Any, data_format: str = "NCHW") -> None:
        name = type(self).__name__
        self.ksize = _tuple(name, "ksize", ksize, self._nd, int)
        self.output_shape = _tuple(name, "output_shape", output_shape, self._nd, int)
        if data_format != self._fmt:
            raise ValueError(f"{name}: data_format must be '{self._fmt}', got {data_format!r}")
        self.data_format = data_format


def _run_fixed(op: _FixedKsize, x: Tensor, random_samples: Tensor) -> tuple[Tensor, Tensor]:
    """A fixed-ksize pool's call (a module function, so the IDE catalogue sees the ops it applies)."""
    name = type(op).__name__
    if not isinstance(x, Tensor) or x.ndim != op._nd + 2 or not x.dtype.is_float:
        raise ShapeError(name, f"a {op._nd + 2}-D float input", f"{getattr(x, 'shape', type(x).__name__)}")
    return _fixed_pool(name, x, op.ksize, op.output_shape, random_samples)


class FractionalMaxPoolWithFixedKsize(_FixedKsize):
    """``FractionalMaxPoolWithFixedKsize(ksize, output_shape, data_format='NCHW')(input_x, random_samples)``:
    (y, argmax) of `fractional_max_pool2d` with the given samples."""

    def construct(self, input_x: Tensor, random_samples: Tensor) -> tuple[Tensor, Tensor]:
        return _run_fixed(self, input_x, random_samples)


class FractionalMaxPool3DWithFixedKsize(_FixedKsize):
    """``FractionalMaxPool3DWithFixedKsize(ksize, output_shape, data_format='NCDHW')(x, random_samples)``:
    (y, argmax) of `fractional_max_pool3d` with the given samples."""

    _nd = 3
    _fmt = "NCDHW"

    def __init__(self, ksize: Any, output_shape: Any, data_format: str = "NCDHW") -> None:
        super().__init__(ksize, output_shape, data_format)

    def construct(self, x: Tensor, random_samples: Tensor) -> tuple[Tensor, Tensor]:
        return _run_fixed(self, x, random_samples)


# --- TensorFlow's fractional pooling -------------------------------------------------------------------
def _tf_sequence(in_size: int, out_size: int, gen: np.random.Generator, pseudo_random: bool) -> np.ndarray:
    """The out_size + 1 region boundaries (0 ... in_size) of TensorFlow's fractional pooling."""
    if pseudo_random:
        alpha = in_size / out_size
        k = in_size // out_size
        max_u = min((k + 2) / alpha - 1, (in_size + 1 - k) / alpha - (out_size - 1))
        u = gen.random() * max_u
        seq = np.ceil(alpha * (np.arange(out_size + 1) + u)) - np.ceil(alpha * u)
        seq[0], seq[-1] = 0, in_size
        return seq.astype(np.int64)
    k, extra = divmod(in_size, out_size)
    diff = np.full(out_size, k, np.int64)
    diff[:extra] += 1
    return np.concatenate([[0], np.cumsum(gen.permutation(diff))]).astype(np.int64)


def _draw_sequence(in_size: int, out_size: int, seed: int | None, pseudo_random: bool) -> Tensor:
    """`_tf_sequence` drawn in the graph (a RandomDraw primitive and Spore ops), so Graph mode
    draws fresh regions on every run as PyNative does (the same ones every run when seeded)."""
    F = _F()
    from .creation import _draw

    if pseudo_random:
        alpha = in_size / out_size
        k = in_size // out_size
        max_u = min((k + 2) / alpha - 1, (in_size + 1 - k) / alpha - (out_size - 1))
        u = _draw("uniform", (1,), mstype.float64, seed) * max_u
        i = Tensor(np.arange(1, out_size, dtype=np.float64))
        mid = F.cast(F.ceil(alpha * (i + u)) - F.ceil(alpha * u), mstype.int64)
        return F.concat([Tensor(np.zeros(1, np.int64)), mid, Tensor(np.full(1, in_size, np.int64))])
    k, extra = divmod(in_size, out_size)
    perm = _draw("permutation", (out_size,), mstype.int64, seed)
    diff = F.cast(perm < extra, mstype.int64) + k
    return F.concat([Tensor(np.zeros(1, np.int64)), F.cumsum(diff, 0)])


def _regions(seq: Tensor, size: int, width: int, overlapping: bool) -> tuple[Tensor, Tensor]:
    """(O, width) indices of each region (padded by repeating its last index) and the (O, width) mask."""
    F = _F()
    starts = F.expand_dims(seq[:-1], 1)
    ends = F.expand_dims(F.clamp(seq[1:] + (1 if overlapping else 0), None, size), 1)
    idx = starts + Tensor(np.arange(width, dtype=np.int64))
    mask = idx < ends
    return F.where(mask, idx, ends - 1), mask


class _TFFractionalPool(Operation):
    _avg = False

    def __init__(self, pooling_ratio: Any, pseudo_random: bool = False, overlapping: bool = False,
                 deterministic: bool = False, seed: int = 0, seed2: int = 0) -> None:
        name = type(self).__name__
        ratio = tuple(pooling_ratio) if isinstance(pooling_ratio, (tuple, list)) else ()
        if (len(ratio) != 4 or not all(isinstance(r, (int, float)) and not isinstance(r, bool) for r in ratio)
                or ratio[0] != 1.0 or ratio[3] != 1.0 or ratio[1] < 1.0 or ratio[2] < 1.0):
            raise ValueError(f"{name}: pooling_ratio must be [1.0, rh >= 1, rw >= 1, 1.0], got {pooling_ratio!r}")
        for flag, v in (("pseudo_random", pseudo_random), ("overlapping", overlapping),
                        ("deterministic", deterministic)):
            if not isinstance(v, bool):
                raise TypeError(f"{name}: {flag} must be a bool, got {type(v).__name__}")
        for flag, v in (("seed", seed), ("seed2", seed2)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"{name}: {flag} must be an int >= 0, got {v!r}")
        self.pooling_ratio = [float(r) for r in ratio]
        self.pseudo_random, self.overlapping, self.deterministic = pseudo_random, overlapping, deterministic
        self.seed, self.seed2 = seed, seed2
        self._fixed: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

    def _sequences(self, h: int, w: int) -> tuple[Tensor, Tensor, int, int]:
        name = type(self).__name__
        oh, ow = int(np.floor(h / self.pooling_ratio[1])), int(np.floor(w / self.pooling_ratio[2]))
        if oh < 1 or ow < 1:
            raise ValueError(f"{name}: pooling_ratio {self.pooling_ratio} leaves no output for input {h}x{w}")
        seed = None if self.seed == 0 and self.seed2 == 0 else self.seed * 1_000_003 + self.seed2
        if not self.deterministic:
            return (_draw_sequence(h, oh, seed, self.pseudo_random), _draw_sequence(w, ow, seed, self.pseudo_random),
                    h // oh, w // ow)
        if (h, w) not in self._fixed:  # drawn once, then the same regions every call
            gen = np.random.default_rng(seed) if seed is not None else _seed.rng()
            self._fixed[(h, w)] = (_tf_sequence(h, oh, gen, self.pseudo_random),
                                   _tf_sequence(w, ow, gen, self.pseudo_random))
        rows, cols = self._fixed[(h, w)]
        return Tensor(rows), Tensor(cols), h // oh, w // ow

    def construct(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        F = _F()
        name = type(self).__name__
        if not isinstance(x, Tensor) or x.ndim != 4:
            raise ShapeError(name, "a 4-D NHWC x", f"{getattr(x, 'shape', type(x).__name__)}")
        if x.dtype is mstype.bool_:
            raise DTypeError(name, "a real numeric x", str(x.dtype))
        n, h, w, c = x.shape
        rows, cols, kh, kw = self._sequences(h, w)
        ov = 1 if self.overlapping else 0
        ri, rm = _regions(rows, h, kh + 1 + ov, self.overlapping)
        ci, cm = _regions(cols, w, kw + 1 + ov, self.overlapping)
        (oh, kh), (ow, kw) = ri.shape, ci.shape
        y = F.reshape(F.gather(x, F.reshape(ri, (-1,)), 1), (n, oh, kh, w, c))
        y = F.reshape(F.gather(y, F.reshape(ci, (-1,)), 3), (n, oh, kh, ow, kw, c))
        if self._avg:
            xf = y if y.dtype.is_float else F.cast(y, mstype.float32)
            mask = F.cast(F.logical_and(F.reshape(rm, (oh, kh, 1, 1)), F.reshape(cm, (1, 1, ow, kw))), xf.dtype)
            weight = mask / F.sum(mask, (1, 3), True)
            out = F.sum(xf * F.reshape(weight, (1, oh, kh, ow, kw, 1)), (2, 4))
            out = out if x.dtype.is_float else F.cast(F.floor(out), x.dtype)
        else:
            out = F.amax(y, (2, 4))
        return out, rows, cols


class FractionalMaxPool(_TFFractionalPool):
    """``FractionalMaxPool(pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False,
    seed=0, seed2=0)(x)``: TensorFlow's fractional max pooling of NHWC x -> (y, row_pooling_sequence,
    col_pooling_sequence)."""


class FractionalAvgPool(_TFFractionalPool):
    """``FractionalAvgPool(pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False,
    seed=0, seed2=0)(x)``: TensorFlow's fractional average pooling of NHWC x -> (y, row_pooling_sequence,
    col_pooling_sequence)."""

    _avg = True
