"""In-place Tensor methods and small Tensor/ops helpers (issue 14): `mul_`, `sub_`, `log_`,
`sigmoid_`, `sign_`, `tanh_`, `remainder_`, `masked_fill_`, `scatter_`, `masked_scatter(_)`, the
in-place fills `zero_`, `normal_`, `uniform_`, `random_`, `put_`, plus `lcm`, `Tensor.ldexp`,
`Tensor.mH`, `Tensor.type`, `Tensor.stride`, `Tensor.storage_offset`, `Tensor.uniform`,
`Tensor.log_normal` and the host-memory queries (`is_pinned`, `pin_memory`, ...).

In-place methods write through the recorded `setitem_` (as ``x[...] = v``), so autodiff and Graph
mode see the update. Random fills draw from the global generator (`spore.set_seed`) or from the
`generator` given (a `spore.Generator`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor, tensor_method
from . import functional as F
from .creation import _draw


def _write(target: Tensor, value: Tensor) -> Tensor:
    return F.setitem_(target, Ellipsis, F.cast(value, target.dtype) if value.dtype != target.dtype else value)


@tensor_method("mul_")
def _mul_(self: Tensor, other: Any) -> Tensor:
    """self *= other, in place."""
    return _write(self, F.mul(self, other))


@tensor_method("sub_")
def _sub_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """self -= alpha * other, in place."""
    return _write(self, F.sub(self, other if alpha == 1 else F.mul(other, alpha)))


@tensor_method("log_")
def _log_(self: Tensor) -> Tensor:
    """self = log(self), in place (a float tensor)."""
    return _write(self, F.log(self))


@tensor_method("sigmoid_")
def _sigmoid_(self: Tensor) -> Tensor:
    """self = sigmoid(self), in place."""
    return _write(self, F.sigmoid(self))


@tensor_method("sign_")
def _sign_(self: Tensor) -> Tensor:
    """self = sign(self), in place."""
    return _write(self, F.sign(self))


@tensor_method("remainder_")
def _remainder_(self: Tensor, other: Any) -> Tensor:
    """self = remainder(self, other) (the sign of other), in place."""
    return _write(self, F.remainder(self, other))


@tensor_method("tanh_")
def tanh_(input: Tensor) -> Tensor:
    """input = tanh(input), in place (returned)."""
    return _write(input, F.tanh(input))


@tensor_method("masked_fill_")
def _masked_fill_(self: Tensor, mask: Any, value: Any) -> Tensor:
    """self[mask] = value (mask broadcasting to self), in place."""
    return _write(self, F.masked_fill(self, mask, value))


@tensor_method("scatter_")
def _scatter_(self: Tensor, dim: int, index: Tensor, src: Any, *, reduce: str = "none") -> Tensor:
    """self[index[i][j]][j] = src[i][j] along `dim` (reduce 'add' accumulates), in place; `src`
    may be a number."""
    if not isinstance(src, Tensor):
        src = F.full(tuple(index.shape), src, dtype=self.dtype)
    return _write(self, F.tensor_scatter_elements(self, index, F.cast(src, self.dtype), axis=dim,
                                                  reduction="add" if reduce == "add" else "none"))


def _masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """input where mask is False; where it is True, source's elements taken in row-major order."""
    if mask.dtype is not mstype.bool_:
        raise DTypeError("masked_scatter", "a bool mask", str(mask.dtype))
    m = F.broadcast_to(mask, tuple(input.shape))
    flat_m = F.reshape(F.cast(m, mstype.int64), (-1,))
    order = F.sub(F.cumsum(flat_m, 0), 1)  # the k-th True takes source[k]
    src = F.reshape(source, (-1,))
    n_true = int(F.reduce_sum(flat_m).item())
    if n_true > src.shape[0]:
        raise ShapeError("masked_scatter", f"a source with at least {n_true} elements (the mask's True count)",
                         f"{src.shape[0]} elements")
    taken = F.gather(src, F.maximum(order, 0), 0)
    return F.reshape(F.where(F.cast(flat_m, mstype.bool_), taken, F.reshape(input, (-1,))), tuple(input.shape))


@tensor_method("masked_scatter")
def _masked_scatter_method(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """self with the True positions of `mask` filled from `source` in order."""
    return _masked_scatter(self, mask, source)


@tensor_method("masked_scatter_")
def _masked_scatter_inplace(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """`masked_scatter`, in place."""
    return _write(self, _masked_scatter(self, mask, source))


# --- in-place fills ----------------------------------------------------------------------------------
def _uniform01(shape: tuple[int, ...], dt: mstype.DType, generator: Any) -> Tensor:
    if generator is None:
        return _draw("uniform", shape, dt, None)
    return Tensor(generator.numpy_generator.random(shape).astype(dt.np))


def _normal01(shape: tuple[int, ...], dt: mstype.DType, generator: Any) -> Tensor:
    if generator is None:
        return _draw("normal", shape, dt, None)
    return Tensor(generator.numpy_generator.standard_normal(shape).astype(dt.np))


def zero_(input: Tensor) -> Tensor:
    """Fills `input` with zeros, in place."""
    return _write(input, F.zeros_like(input))


def normal_(input: Tensor, mean: Any = 0, std: Any = 1, *, generator: Any = None) -> Tensor:
    """Fills `input` with normal samples of `mean` and `std`, in place."""
    if not input.dtype.is_float:
        raise DTypeError("normal_", "a float tensor", str(input.dtype))
    z = _normal01(tuple(input.shape), input.dtype, generator)
    return _write(input, F.add(F.mul(z, std), mean))


def uniform_(input: Tensor, from_: Any = 0, to: Any = 1, *, generator: Any = None) -> Tensor:
    """Fills `input` with samples uniform in [from_, to), in place."""
    if not input.dtype.is_float:
        raise DTypeError("uniform_", "a float tensor", str(input.dtype))
    if from_ > to:
        raise ValueError(f"uniform_: from_ ({from_}) must be <= to ({to})")
    u = _uniform01(tuple(input.shape), input.dtype, generator)
    return _write(input, F.add(F.mul(u, to - from_), from_))


def random_(input: Tensor, from_: int = 0, to: int | None = None, *, generator: Any = None) -> Tensor:
    """Fills `input` with integers uniform in [from_, to) (to=None: up to the dtype's largest
    exactly representable value, 2**mantissa for floats), in place."""
    if to is None:
        if input.dtype.is_float:
            to = 2 ** int(np.finfo(input.dtype.np).nmant + 1)
        elif input.dtype is mstype.bool_:
            to = 2
        else:
            to = int(np.iinfo(input.dtype.np).max)
    if from_ >= to:
        raise ValueError(f"random_: from_ ({from_}) must be < to ({to})")
    shape = tuple(input.shape)
    if generator is None:
        vals = _draw("integers", shape, mstype.int64, None, int(from_), int(to))
    else:
        vals = Tensor(generator.numpy_generator.integers(int(from_), int(to), shape).astype(np.int64))
    return _write(input, F.cast(vals, input.dtype))


def put_(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """input.flatten()[index] = source (or += with accumulate), in place; negative indices count
    from the end."""
    if not index.dtype.is_int:
        raise DTypeError("put_", "an integer index", str(index.dtype))
    n = input.size
    flat_idx = F.reshape(index, (-1, 1))
    flat_idx = F.where(F.less(flat_idx, 0), F.add(flat_idx, n), flat_idx)
    src = F.reshape(F.cast(source, input.dtype), (-1,))
    if src.shape[0] != flat_idx.shape[0]:
        raise ShapeError("put_", f"a source with {flat_idx.shape[0]} elements (one per index)",
                         f"{src.shape[0]} elements")
    flat = F.reshape(input, (-1,))
    out = F.tensor_scatter_add(flat, flat_idx, src) if accumulate else F.tensor_scatter_update(flat, flat_idx, src)
    return _write(input, F.reshape(out, tuple(input.shape)))


Tensor.zero_ = zero_
Tensor.normal_ = lambda self, mean=0, std=1, *, generator=None: normal_(self, mean, std, generator=generator)  # noqa: E731
Tensor.uniform_ = lambda self, from_=0, to=1, *, generator=None: uniform_(self, from_, to, generator=generator)  # noqa: E731
Tensor.random_ = lambda self, from_=0, to=None, *, generator=None: random_(self, from_, to, generator=generator)  # noqa: E731
Tensor.put_ = put_


def _uniform_method(self: Tensor, from_: float = 0.0, to: float = 1.0, generator: Any = None) -> Tensor:
    """A new tensor of this shape and dtype with samples uniform in [from_, to)."""
    u = _uniform01(tuple(self.shape), self.dtype if self.dtype.is_float else mstype.float32, generator)
    return F.add(F.mul(u, to - from_), from_)


def _log_normal_method(self: Tensor, mean: float = 1.0, std: float = 2.0) -> Tensor:
    """A new tensor of this shape with exp(N(mean, std)) samples."""
    dt = self.dtype if self.dtype.is_float else mstype.float32
    return F.exp(F.add(F.mul(_normal01(tuple(self.shape), dt, None), std), mean))


Tensor.uniform = _uniform_method
Tensor.log_normal = _log_normal_method


# --- other Tensor methods ----------------------------------------------------------------------------
@tensor_method("lcm")
def lcm(input: Tensor, other: Tensor) -> Tensor:
    """The least common multiple of integer tensors, element-wise (0 where either is 0)."""
    for name, t in (("input", input), ("other", other)):
        if not isinstance(t, Tensor) or not t.dtype.is_int:
            raise DTypeError("lcm", f"an integer tensor {name}", str(getattr(t, "dtype", type(t).__name__)))
    g = F.gcd(input, other)
    safe = F.where(F.equal(g, 0), F.ones_like(g), g)
    return F.abs(F.mul(F.floor_divide(input, safe), other))


@tensor_method("ldexp")
def _ldexp_method(self: Tensor, other: Any) -> Tensor:
    """self * 2 ** other."""
    return F.ldexp(self, other)


def _mH(self: Tensor) -> Tensor:
    """The conjugate transpose of the last two axes (real tensors: the transpose)."""
    if self.ndim < 2:
        raise ShapeError("Tensor.mH", "a tensor of rank >= 2", f"shape {tuple(self.shape)}")
    return F.swapaxes(self, -1, -2)


Tensor.mH = property(_mH)


def _type(self: Tensor, dtype: Any = None) -> Any:
    """With no dtype, the dtype's name ('Float32', ...); with one, this tensor cast to it."""
    if dtype is None:
        return str(self.dtype)
    return F.cast(self, dtype)


def _stride(self: Tensor, dim: int | None = None) -> Any:
    """Strides in elements (a contiguous row-major layout): a tuple, or one axis' with `dim`."""
    strides, acc = [], 1
    for n in reversed(self.shape):
        strides.append(acc)
        acc *= max(n, 1)
    strides = tuple(reversed(strides))
    if dim is None:
        return strides
    if not -self.ndim <= dim < max(self.ndim, 1):
        raise IndexError(f"Tensor.stride: dim {dim} is out of range for rank {self.ndim}")
    return strides[dim]


def _storage_offset(self: Tensor) -> int:
    """0: every Spore tensor starts at the beginning of its own storage."""
    return 0


def _value(self: Tensor) -> Tensor:
    """The tensor itself (MindSpore's Parameter.value(): the current data)."""
    return self


def _set_const_arg(self: Tensor, const_arg: bool = True) -> Tensor:
    """Marks the tensor as a constant argument for Graph mode's compile cache; returns it."""
    self.const_arg = bool(const_arg)
    return self


def _itemset(self: Tensor, *args: Any) -> None:
    """itemset(value) for a one-element tensor, or itemset(index, value) (flat int or a tuple), in place."""
    if len(args) == 1:
        if self.size != 1:
            raise ValueError("Tensor.itemset: a single value needs a tensor of one element")
        idx, value = (0,) * self.ndim, args[0]
    elif len(args) == 2:
        idx, value = args
        if isinstance(idx, (int, np.integer)):
            idx = tuple(int(i) for i in np.unravel_index(int(idx), self.shape))
    else:
        raise TypeError(f"Tensor.itemset takes 1 or 2 arguments, got {len(args)}")
    F.setitem_(self, tuple(idx) if idx else Ellipsis, value)


def _to_(self: Tensor, device: Any = None, non_blocking: bool = False) -> Tensor:
    """Moves the tensor to `device` in place: only the CPU exists here, so it returns itself."""
    if device not in (None, "CPU", "cpu"):
        raise ValueError(f"Tensor.to_: Spore runs on the CPU only, got device {device!r}")
    return self


Tensor.type = _type
Tensor.stride = _stride
Tensor.storage_offset = _storage_offset
Tensor.value = _value
Tensor.set_const_arg = _set_const_arg
Tensor.itemset = _itemset
Tensor.to_ = _to_
Tensor.is_pinned = lambda self: False  # noqa: E731  (no device memory: nothing is pinned)
Tensor.is_shared = lambda self: False  # noqa: E731
Tensor.pin_memory = lambda self: self  # noqa: E731
