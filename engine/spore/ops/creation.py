"""Tensor creation with MindSpore's names, signatures and default dtypes: constants (zeros, ones,
fill/full, eye), ranges (arange, range, linspace) and random draws (rand, randn, randint, uniform,
normal, randperm).

These make constants, not graph nodes, so they are plain functions over NumPy. Random draws come
from `spore.common.seed.rng()` — the generator `ms.set_seed` resets — unless a `seed` is given,
which makes that call reproducible on its own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..common.seed import rng
from ..tensor import Tensor, tensor_method
from .primitive import Aval, primitive


def _size(op: str, size: Any) -> tuple[int, ...]:
    """A shape from an int, a sequence, a Tensor, or varargs given as one tuple."""
    if isinstance(size, Tensor):
        size = size._data.tolist()
    if isinstance(size, (int, np.integer)):
        size = (int(size),)
    if len(size) == 1 and isinstance(size[0], (tuple, list, Tensor)):
        return _size(op, size[0])
    try:
        shape = tuple(int(s) for s in size)
    except TypeError:
        raise TypeError(f"{op}: a shape must be ints, got {size!r}") from None
    if any(s < 0 for s in shape):
        raise ValueError(f"{op}: a shape cannot have negative entries, got {shape}")
    return shape


def _dt(dtype: Any, default: mstype.DType) -> np.dtype:
    return (default if dtype is None else mstype.to_dtype(dtype)).np


def _num(v: Any) -> Any:
    return v.item() if isinstance(v, Tensor) else v


def _dtype_of(value: Any) -> mstype.DType:
    """MindSpore's default dtype for a Python value: bool, int64 or float32."""
    if isinstance(value, Tensor):
        return value.dtype
    if isinstance(value, (bool, np.bool_)):
        return mstype.bool_
    if isinstance(value, (int, np.integer)):
        return mstype.int64
    return mstype.float32


# --- constants ------------------------------------------------------------------------------------
def zeros(size: Any, dtype: Any = None) -> Tensor:
    """A tensor of zeros of shape `size` (float32 unless `dtype`)."""
    return Tensor._wrap(np.zeros(_size("zeros", size), _dt(dtype, mstype.float32)))


def ones(shape: Any, dtype: Any = None) -> Tensor:
    """A tensor of ones of `shape` (float32 unless `dtype`)."""
    return Tensor._wrap(np.ones(_size("ones", shape), _dt(dtype, mstype.float32)))


def fill(type: Any, shape: Any, value: Any) -> Tensor:
    """A tensor of `shape` and dtype `type` filled with `value`."""
    dt = _dtype_of(value).np if type is None else mstype.to_dtype(type).np
    return Tensor._wrap(np.full(_size("fill", shape), _num(value), dt))


def full(size: Any, fill_value: Any, *, dtype: Any = None) -> Tensor:
    """A tensor of shape `size` filled with `fill_value` (dtype from the value unless given)."""
    dt = _dtype_of(fill_value).np if dtype is None else mstype.to_dtype(dtype).np
    return Tensor._wrap(np.full(_size("full", size), _num(fill_value), dt))


def full_like(input: Tensor, fill_value: Any, *, dtype: Any = None) -> Tensor:
    """A tensor of `input`'s shape (and dtype unless given) filled with `fill_value`."""
    dt = input.dtype.np if dtype is None else mstype.to_dtype(dtype).np
    return Tensor._wrap(np.full(input.shape, _num(fill_value), dt))


def empty(*size: Any, dtype: Any = None) -> Tensor:
    """An uninitialised-in-spirit tensor; Spore zero-fills it so runs are deterministic."""
    return zeros(_size("empty", size), dtype)


def empty_like(input: Tensor, *, dtype: Any = None) -> Tensor:
    """Same as `zeros_like` (Spore zero-fills 'empty' tensors)."""
    return Tensor._wrap(np.zeros(input.shape, input.dtype.np if dtype is None else mstype.to_dtype(dtype).np))


def eye(n: int, m: int | None = None, dtype: Any = None) -> Tensor:
    """An n x m matrix with ones on the diagonal (float32 unless `dtype`)."""
    return Tensor._wrap(np.eye(int(n), None if m is None else int(m), dtype=_dt(dtype, mstype.float32)))


@tensor_method("new_zeros")
def _new_zeros(self: Tensor, size: Any, *, dtype: Any = None) -> Tensor:
    """Zeros of shape `size` in this tensor's dtype (unless given)."""
    return Tensor._wrap(np.zeros(_size("new_zeros", size), self.dtype.np if dtype is None
                                 else mstype.to_dtype(dtype).np))


@tensor_method("new_ones")
def _new_ones(self: Tensor, size: Any, *, dtype: Any = None) -> Tensor:
    """Ones of shape `size` in this tensor's dtype (unless given)."""
    return Tensor._wrap(np.ones(_size("new_ones", size), self.dtype.np if dtype is None
                                else mstype.to_dtype(dtype).np))


@tensor_method("new_full")
def _new_full(self: Tensor, size: Any, fill_value: Any, *, dtype: Any = None) -> Tensor:
    """`fill_value` in shape `size`, in this tensor's dtype (unless given)."""
    return Tensor._wrap(np.full(_size("new_full", size), _num(fill_value), self.dtype.np if dtype is None
                                else mstype.to_dtype(dtype).np))


# --- ranges ------------------------------------------------------------------------------------------
def arange(start: Any = 0, end: Any = None, step: Any = 1, *, dtype: Any = None) -> Tensor:
    """Values from `start` up to (not including) `end` by `step`; `arange(n)` counts 0..n-1.
    int64 when all arguments are integers, else float32, unless `dtype` is given."""
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise ValueError("arange: step must not be zero")
    if (end - start) * step < 0:
        raise ValueError(f"arange: step {step} does not lead from {start} to {end}")
    is_int = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (start, end, step))
    dt = (mstype.int64 if is_int else mstype.float32) if dtype is None else mstype.to_dtype(dtype)
    return Tensor._wrap(np.arange(start, end, step, dtype=np.float64 if not is_int else np.int64).astype(dt.np))


def range(start: Any, end: Any, step: Any, maxlen: int = 1000000) -> Tensor:
    """Values from `start` up to `end` by `step`, in the dtype of the inputs (int64 for Python
    ints, float32 for floats, a Tensor's own dtype); more than `maxlen` values is an error, as in
    MindSpore (its output buffer holds `maxlen`)."""
    dt = _dtype_of(start) if isinstance(start, Tensor) else (
        mstype.float32 if any(isinstance(_num(v), float) for v in (start, end, step)) else mstype.int64)
    out = arange(start, end, step, dtype=dt)
    if out.shape[0] > int(maxlen):
        raise ValueError(f"range: {out.shape[0]} values is more than maxlen={maxlen}")
    return out


def linspace(start: Any, end: Any, steps: int) -> Tensor:
    """`steps` evenly spaced float32 values from `start` to `end`, both included."""
    steps = int(_num(steps))
    if steps < 1:
        raise ValueError(f"linspace: steps must be positive, got {steps}")
    return Tensor._wrap(np.linspace(float(_num(start)), float(_num(end)), steps).astype(np.float32))


def logspace(start: Any, end: Any, steps: int, base: float = 10.0, *, dtype: Any = None) -> Tensor:
    """`steps` values base**t for t evenly spaced from `start` to `end` (float32 unless `dtype`)."""
    t = np.linspace(float(_num(start)), float(_num(end)), int(steps))
    return Tensor._wrap(np.power(float(base), t).astype(_dt(dtype, mstype.float32)))


# --- random -----------------------------------------------------------------------------------------
def _gen(seed: Any) -> np.random.Generator:
    if seed is None:
        return rng()
    return np.random.default_rng(tuple(int(s) for s in seed) if isinstance(seed, tuple) else int(seed))


@primitive
class RandomDraw:
    """Draws random numbers of a shape: kind "uniform" ([0, 1)), "normal" (standard), "integers"
    ([low, high)) or "permutation" (of 0..shape[0]-1).

    A primitive (not a compile-time constant) so that Graph mode draws fresh numbers on every run,
    as PyNative does; `random = True` keeps graph passes from folding or merging it.
    """

    nondiff = True
    random = True

    def infer(kind="uniform", shape=(), dtype=mstype.float32, seed=None, low=0, high=1):
        if kind not in ("uniform", "normal", "integers", "permutation"):
            raise ValueError(f"RandomDraw: unknown kind {kind!r}")
        return Aval(tuple(shape), dtype)

    def impl(kind="uniform", shape=(), dtype=mstype.float32, seed=None, low=0, high=1):
        g = _gen(seed)
        if kind == "uniform":
            out = g.random(shape)
        elif kind == "normal":
            out = g.standard_normal(shape)
        elif kind == "permutation":
            out = g.permutation(shape[0])
        else:
            out = g.integers(low, high, shape)
        return np.asarray(out).astype(dtype.np)


def _draw(kind: str, shape: tuple[int, ...], dtype: mstype.DType, seed: Any, low: int = 0, high: int = 1) -> Tensor:
    return RandomDraw(kind=kind, shape=tuple(shape), dtype=dtype, seed=None if seed is None else int(seed),
                      low=int(low), high=int(high))


def rand(*size: Any, dtype: Any = None, seed: Any = None) -> Tensor:
    """Uniform samples from [0, 1) of shape `size` (float32 unless `dtype`)."""
    return _draw("uniform", _size("rand", size), mstype.to_dtype(dtype or mstype.float32), seed)


def randn(*size: Any, dtype: Any = None, seed: Any = None) -> Tensor:
    """Standard normal samples of shape `size` (float32 unless `dtype`)."""
    return _draw("normal", _size("randn", size), mstype.to_dtype(dtype or mstype.float32), seed)


def randint(low: int, high: int, size: Any, seed: Any = None, *, dtype: Any = None) -> Tensor:
    """Integers drawn uniformly from [low, high) in shape `size` (int64 unless `dtype`)."""
    if high <= low:
        raise ValueError(f"randint: high ({high}) must be greater than low ({low})")
    return _draw("integers", _size("randint", size), mstype.to_dtype(dtype or mstype.int64), seed, low, high)


def rand_like(input: Tensor, seed: Any = None, *, dtype: Any = None) -> Tensor:
    """`rand` in `input`'s shape (and dtype unless given)."""
    return rand(input.shape, dtype=input.dtype if dtype is None else dtype, seed=seed)


def randn_like(input: Tensor, seed: Any = None, *, dtype: Any = None) -> Tensor:
    """`randn` in `input`'s shape (and dtype unless given)."""
    return randn(input.shape, dtype=input.dtype if dtype is None else dtype, seed=seed)


def randint_like(input: Tensor, low: int, high: int, seed: Any = None, *, dtype: Any = None) -> Tensor:
    """`randint` in `input`'s shape (and dtype unless given)."""
    return randint(low, high, input.shape, seed, dtype=input.dtype if dtype is None else dtype)


def uniform(shape: Any, minval: Any, maxval: Any, seed: Any = None, dtype: Any = mstype.float32) -> Tensor:
    """Samples uniform in [minval, maxval) (broadcast with `shape`); integer dtypes draw integers."""
    from .elementwise import add, mul, sub

    dt = mstype.to_dtype(dtype)
    lo, hi = _as_t(minval, dt), _as_t(maxval, dt)
    out_shape = np.broadcast_shapes(_size("uniform", shape), lo.shape, hi.shape)
    if dt.is_int:
        if lo.size != 1 or hi.size != 1:
            raise TypeError("uniform: integer draws take scalar bounds")
        return _draw("integers", out_shape, dt, seed, int(lo.item()), int(hi.item()))
    u = _draw("uniform", out_shape, dt, seed)
    return add(mul(u, sub(hi, lo)), lo)


def _as_t(v: Any, dt: mstype.DType) -> Tensor:
    return v if isinstance(v, Tensor) else Tensor._wrap(np.asarray(v, dt.np))


def normal(shape: Any, mean: Any, stddev: Any, seed: Any = None) -> Tensor:
    """Normal samples with `mean` and `stddev` (broadcast with `shape`), float32."""
    from .elementwise import add, mul

    m, s = _as_t(mean, mstype.float32), _as_t(stddev, mstype.float32)
    out_shape = np.broadcast_shapes(_size("normal", shape), m.shape, s.shape)
    return add(mul(_draw("normal", out_shape, mstype.float32, seed), s), m)


def randperm(n: int, seed: int = 0, offset: int = 0, dtype: Any = mstype.int64) -> Tensor:
    """A random permutation of 0..n-1 (from the global generator when `seed` is 0)."""
    return RandomDraw(kind="permutation", shape=(int(n),), dtype=mstype.to_dtype(dtype),
                      seed=(int(seed), int(offset)) if seed else None)
