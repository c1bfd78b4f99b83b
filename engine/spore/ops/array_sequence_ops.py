"""Array helpers of MindSpore's that are compositions of existing ops (issue 14): `reverse`,
`reverse_sequence`, `repeat_elements`, `row_stack`, `sequence_mask`, `select_scatter`,
`slice_scatter`, `invert`, `is_tensor`, `is_nonzero`, `isnan_ext`, the scalar/tuple-to-tensor
converters, `view_as`, and the functional transforms `ops.value_and_grad`, `ops.vjp`, `ops.jvp`,
`ops.jacrev`, `ops.jacfwd`, `ops.vmap` (the same objects' behaviour as `spore.value_and_grad`, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor, tensor_method
from . import functional as F
from ._rules import norm_axis


@tensor_method("reverse")
def reverse(x: Tensor, axis: Any) -> Tensor:
    """x with the order of the elements along each axis in `axis` reversed (the same as `flip`)."""
    return F.flip(x, tuple(axis) if isinstance(axis, (list, tuple)) else (axis,))


def reverse_sequence(x: Tensor, seq_lengths: Tensor, seq_dim: int, batch_dim: int = 0) -> Tensor:
    """For each batch entry b (along `batch_dim`), the first seq_lengths[b] elements along
    `seq_dim` reversed, the rest kept in place."""
    sd, bd = norm_axis("reverse_sequence", seq_dim, x.ndim), norm_axis("reverse_sequence", batch_dim, x.ndim)
    if sd == bd:
        raise ValueError("reverse_sequence: seq_dim and batch_dim must differ")
    if seq_lengths.ndim != 1 or seq_lengths.shape[0] != x.shape[bd]:
        raise ShapeError("reverse_sequence", f"seq_lengths of shape ({x.shape[bd]},) (x's batch size)",
                         f"shape {tuple(seq_lengths.shape)}")
    n = x.shape[sd]
    shape = [1] * x.ndim
    shape[sd] = n
    pos = Tensor(np.arange(n, dtype=np.int64).reshape(shape))
    lshape = [1] * x.ndim
    lshape[bd] = x.shape[bd]
    lens = F.reshape(F.cast(seq_lengths, mstype.int64), tuple(lshape))
    idx = F.where(F.less(pos, lens), F.sub(F.sub(lens, 1), pos), pos)
    return F.gather_elements(x, sd, F.broadcast_to(idx, tuple(x.shape)))


Tensor.reverse_sequence = lambda self, seq_lengths, seq_dim=0, batch_dim=0: reverse_sequence(  # noqa: E731
    self, seq_lengths, seq_dim, batch_dim)
Tensor.reverse_sequence.__doc__ = reverse_sequence.__doc__


def repeat_elements(x: Tensor, rep: int, axis: int = 0) -> Tensor:
    """Each element repeated `rep` times along `axis` (the same as `repeat_interleave`)."""
    if not isinstance(rep, (int, np.integer)) or rep < 1:
        raise ValueError(f"repeat_elements: rep must be a positive int, got {rep!r}")
    return F.repeat_interleave(x, int(rep), axis)


def row_stack(tensors: Sequence[Tensor]) -> Tensor:
    """The tensors stacked as rows (the same as `vstack`)."""
    return F.vstack(tensors)


def sequence_mask(lengths: Tensor, maxlen: int | None = None) -> Tensor:
    """mask[..., j] = j < lengths[...]: a bool tensor of shape lengths.shape + (maxlen,), maxlen
    defaulting to the largest length."""
    if not lengths.dtype.is_int:
        raise DTypeError("sequence_mask", "integer lengths", str(lengths.dtype))
    n = int(F.amax(lengths).item()) if maxlen is None else int(maxlen)
    if n <= 0:
        raise ValueError(f"sequence_mask: maxlen must be positive, got {n}")
    return F.less(Tensor(np.arange(n, dtype=lengths.dtype.np)), F.expand_dims(lengths, -1))


def _placed(input: Tensor, src: Tensor, axis: int, positions: np.ndarray) -> Tensor:
    """input with src's slices written at `positions` along `axis` (a static index list)."""
    n = input.shape[axis]
    owner = np.full(n, -1, np.int64)
    owner[positions] = np.arange(len(positions))
    shape = [1] * input.ndim
    shape[axis] = n
    mask = Tensor((owner >= 0).reshape(shape))
    taken = F.gather(src, Tensor(np.maximum(owner, 0)), axis)
    return F.where(mask, taken, input)


@tensor_method("slice_scatter")
def slice_scatter(input: Tensor, src: Tensor, axis: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """input with input[start:end:step] along `axis` replaced by `src`."""
    ax = norm_axis("slice_scatter", axis, input.ndim)
    positions = np.arange(input.shape[ax])[slice(start, end, step)]
    want = tuple(input.shape[:ax]) + (len(positions),) + tuple(input.shape[ax + 1:])
    if tuple(src.shape) != want:
        raise ShapeError("slice_scatter", f"src of shape {want}", f"shape {tuple(src.shape)}")
    return _placed(input, F.cast(src, input.dtype), ax, positions)


@tensor_method("select_scatter")
def select_scatter(input: Tensor, src: Tensor, axis: int, index: int) -> Tensor:
    """input with the slice at `index` along `axis` replaced by `src` (input's shape without that axis)."""
    ax = norm_axis("select_scatter", axis, input.ndim)
    n = input.shape[ax]
    if not -n <= index < n:
        raise IndexError(f"select_scatter: index {index} is out of range for axis {axis} of size {n}")
    want = tuple(input.shape[:ax]) + tuple(input.shape[ax + 1:])
    if tuple(src.shape) != want:
        raise ShapeError("select_scatter", f"src of shape {want}", f"shape {tuple(src.shape)}")
    return _placed(input, F.expand_dims(F.cast(src, input.dtype), ax), ax, np.array([index % n]))


@tensor_method("invert")
def invert(x: Tensor) -> Tensor:
    """Bitwise NOT of an integer tensor (~x = -x - 1), logical NOT of a bool one."""
    if x.dtype is mstype.bool_:
        return F.logical_not(x)
    if not x.dtype.is_int:
        raise DTypeError("invert", "an integer or bool tensor", str(x.dtype))
    return F.sub(F.neg(x), 1) if x.dtype.np.kind == "i" else F.sub(np.iinfo(x.dtype.np).max, x)


def is_tensor(obj: Any) -> bool:
    """Whether `obj` is a Tensor (a Parameter is one)."""
    return isinstance(obj, Tensor)


def is_nonzero(input: Tensor) -> bool:
    """Whether the single element of `input` is nonzero (an error for any other size)."""
    if input.size != 1:
        raise ValueError(f"is_nonzero: input must have exactly one element, got shape {tuple(input.shape)}")
    return bool(F.reshape(input, ()).item() != 0)


def isnan_ext(tensor: Tensor) -> Tensor:
    """Which elements are NaN (the same as `isnan`)."""
    return F.isnan(tensor)


def scalar_to_tensor(input_x: Any, dtype: Any = mstype.float32) -> Tensor:
    """A 0-d tensor holding the Python number `input_x`."""
    if not isinstance(input_x, (bool, int, float, np.number)):
        raise TypeError(f"scalar_to_tensor: input_x must be a Python number, got {type(input_x).__name__}")
    return Tensor(np.asarray(input_x, mstype.to_dtype(dtype).np))


def scalar_to_array(input_x: Any) -> Tensor:
    """A 0-d tensor holding the Python number `input_x` (ints become int64, floats float32)."""
    if not isinstance(input_x, (bool, int, float)):
        raise TypeError(f"scalar_to_array: input_x must be an int or float, got {type(input_x).__name__}")
    return Tensor(input_x)


def tuple_to_array(input_x: Sequence[Any]) -> Tensor:
    """A 1-D tensor from a tuple of numbers (ints give int64, floats float32)."""
    if not isinstance(input_x, (tuple, list)) or not input_x:
        raise TypeError(f"tuple_to_array: input_x must be a non-empty tuple, got {input_x!r}")
    return Tensor(list(input_x))


def scalar_cast(input_x: Any, input_y: Any) -> Any:
    """The Python number `input_x` converted to the type `input_y` (mstype.int64 -> int, float -> float, bool)."""
    dt = mstype.to_dtype(input_y) if not isinstance(input_y, type) else input_y
    if dt in (bool, mstype.bool_):
        return bool(input_x)
    if dt is int or (isinstance(dt, mstype.DType) and dt.is_int):
        return int(input_x)
    return float(input_x)


def view_as(input: Tensor, other: Tensor) -> Tensor:
    """input reshaped to other's shape."""
    return F.reshape(input, tuple(other.shape))


# --- functional transforms: MindSpore exports them from ops too ------------------------------------------
def value_and_grad(fn: Callable, grad_position: Any = 0, weights: Any = None, has_aux: bool = False,
                   return_ids: bool = False, sens_param: bool = False) -> Callable:
    """A function returning (fn's value, its gradients); see `spore.value_and_grad`."""
    from .. import value_and_grad as _vg

    return _vg(fn, grad_position, weights, has_aux, return_ids, sens_param)


def vjp(fn: Callable, *inputs: Tensor, weights: Any = None, has_aux: bool = False) -> Any:
    """(fn(*inputs), a function of the cotangent giving the input cotangents); see `spore.vjp`."""
    from .. import vjp as _vjp

    return _vjp(fn, *inputs, weights=weights, has_aux=has_aux)


def jvp(fn: Callable, inputs: Any, v: Any, has_aux: bool = False) -> Any:
    """(fn(inputs), the Jacobian-vector product with `v`); see `spore.jvp`."""
    from .. import jvp as _jvp

    return _jvp(fn, inputs, v, has_aux)


def jacrev(fn: Callable, grad_position: Any = 0, has_aux: bool = False) -> Callable:
    """fn's Jacobian by reverse mode; see `spore.jacrev`."""
    from .. import jacrev as _jacrev

    return _jacrev(fn, grad_position, has_aux)


def jacfwd(fn: Callable, grad_position: Any = 0, has_aux: bool = False) -> Callable:
    """fn's Jacobian by forward mode; see `spore.jacfwd`."""
    from .. import jacfwd as _jacfwd

    return _jacfwd(fn, grad_position, has_aux)


def vmap(fn: Callable, in_axes: Any = 0, out_axes: Any = 0) -> Callable:
    """fn mapped over an axis of its inputs; see `spore.vmap`."""
    from .. import vmap as _vmap

    return _vmap(fn, in_axes, out_axes)
