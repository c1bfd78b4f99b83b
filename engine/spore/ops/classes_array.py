"""Class forms of the array ops with MindSpore's signatures: configured once with their attributes
(``ops.Concat(axis=1)``), then called with tensors. Each forwards to the functional wrapper, which
applies the registered primitive."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..tensor import Tensor
from . import array as A
from . import creation as C
from . import indexing as I
from . import shape_ops as S
from .operation import Operation


class Reshape(Operation):
    """``Reshape()(input_x, input_shape)``."""

    def construct(self, input_x: Tensor, input_shape: Sequence[int]) -> Tensor:
        return A.reshape(input_x, tuple(input_shape))


class Transpose(Operation):
    """``Transpose()(input_x, input_perm)``."""

    def construct(self, input_x: Tensor, input_perm: Sequence[int]) -> Tensor:
        return S.transpose(input_x, input_perm)


class Cast(Operation):
    """``Cast()(input_x, type)``."""

    def construct(self, input_x: Tensor, type: Any) -> Tensor:
        return A.cast(input_x, type)


class Concat(Operation):
    """``Concat(axis=0)(input_x)`` with a tuple/list of tensors."""

    def __init__(self, axis: int = 0) -> None:
        self.axis = axis

    def construct(self, input_x: Sequence[Tensor]) -> Tensor:
        return S.concat(input_x, self.axis)


class Stack(Operation):
    """``Stack(axis=0)(input_x)`` with a tuple/list of tensors."""

    def __init__(self, axis: int = 0) -> None:
        self.axis = axis

    def construct(self, input_x: Sequence[Tensor]) -> Tensor:
        return S.stack(input_x, self.axis)


class Unstack(Operation):
    """``Unstack(axis=0, num=None)(input_x)``."""

    def __init__(self, axis: int = 0, num: int | None = None) -> None:
        self.axis, self.num = axis, num

    def construct(self, input_x: Tensor) -> tuple[Tensor, ...]:
        return S.unstack(input_x, self.axis)


class Split(Operation):
    """``Split(axis=0, output_num=1)(input_x)``: `output_num` equal pieces."""

    def __init__(self, axis: int = 0, output_num: int = 1) -> None:
        self.axis, self.output_num = axis, output_num

    def construct(self, input_x: Tensor) -> tuple[Tensor, ...]:
        n = input_x.shape[self.axis]
        if n % self.output_num:
            from ..errors import ShapeError, located

            raise located(ShapeError("Split", f"an axis size divisible by output_num={self.output_num}",
                                     f"size {n} on axis {self.axis}"))
        return S.split(input_x, n // self.output_num, self.axis)


class Squeeze(Operation):
    """``Squeeze(axis=())(input_x)``."""

    def __init__(self, axis: Any = ()) -> None:
        self.axis = axis

    def construct(self, input_x: Tensor) -> Tensor:
        return S.squeeze(input_x, self.axis)


class ExpandDims(Operation):
    """``ExpandDims()(input_x, axis)``."""

    def construct(self, input_x: Tensor, axis: int) -> Tensor:
        return S.expand_dims(input_x, axis)


class Flatten(Operation):
    """``Flatten()(input_x)``: keeps dimension 0, merges the rest."""

    def construct(self, input_x: Tensor) -> Tensor:
        return S.flatten(input_x)


class Tile(Operation):
    """``Tile()(input, dims)``."""

    def construct(self, input: Tensor, dims: Sequence[int]) -> Tensor:
        return S.tile(input, dims)


class BroadcastTo(Operation):
    """``BroadcastTo(shape)(input_x)``."""

    def __init__(self, shape: Sequence[int]) -> None:
        self.shape = tuple(shape)

    def construct(self, input_x: Tensor) -> Tensor:
        return A.broadcast_to(input_x, self.shape)


class Pad(Operation):
    """``Pad(paddings)(input_x)`` with one (before, after) pair per dimension."""

    def __init__(self, paddings: Sequence[Sequence[int]]) -> None:
        self.paddings = tuple(tuple(int(v) for v in p) for p in paddings)

    def construct(self, input_x: Tensor) -> Tensor:
        flat: list[int] = []
        for lo, hi in reversed(self.paddings):
            flat += [lo, hi]
        return S.pad(input_x, flat)


class Slice(Operation):
    """``Slice()(input_x, begin, size)``."""

    def construct(self, input_x: Tensor, begin: Sequence[int], size: Sequence[int]) -> Tensor:
        return S.slice(input_x, begin, size)


class StridedSlice(Operation):
    """``StridedSlice(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
    shrink_axis_mask=0)(input_x, begin, end, strides)``."""

    def __init__(self, begin_mask: int = 0, end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                 shrink_axis_mask: int = 0) -> None:
        self.begin_mask, self.end_mask, self.ellipsis_mask = begin_mask, end_mask, ellipsis_mask
        self.new_axis_mask, self.shrink_axis_mask = new_axis_mask, shrink_axis_mask

    def construct(self, input_x: Tensor, begin: Sequence[int], end: Sequence[int], strides: Sequence[int]) -> Tensor:
        return S.strided_slice(input_x, begin, end, strides, self.begin_mask, self.end_mask, self.ellipsis_mask,
                               self.new_axis_mask, self.shrink_axis_mask)


class ReverseV2(Operation):
    """``ReverseV2(axis)(input_x)``: flips the given axes."""

    def __init__(self, axis: Sequence[int]) -> None:
        self.axis = tuple(axis)

    def construct(self, input_x: Tensor) -> Tensor:
        return S.flip(input_x, self.axis)


class Roll(Operation):
    """``Roll(shift, axis)(input_x)``."""

    def __init__(self, shift: Any, axis: Any) -> None:
        self.shift, self.axis = shift, axis

    def construct(self, input_x: Tensor) -> Tensor:
        return S.roll(input_x, self.shift, self.axis)


class Meshgrid(Operation):
    """``Meshgrid(indexing='xy')(inputs)``."""

    def __init__(self, indexing: str = "xy") -> None:
        self.indexing = indexing

    def construct(self, inputs: Sequence[Tensor]) -> tuple[Tensor, ...]:
        return S.meshgrid(*inputs, indexing=self.indexing)


class Gather(Operation):
    """``Gather(batch_dims=0)(input_params, input_indices, axis)``."""

    def __init__(self, batch_dims: int = 0) -> None:
        self.batch_dims = batch_dims

    def construct(self, input_params: Tensor, input_indices: Tensor, axis: int) -> Tensor:
        return I.gather(input_params, input_indices, axis, self.batch_dims)


class GatherD(Operation):
    """``GatherD()(x, dim, index)``."""

    def construct(self, x: Tensor, dim: int, index: Tensor) -> Tensor:
        return I.gather_elements(x, dim, index)


class GatherNd(Operation):
    """``GatherNd()(input_x, indices)``."""

    def construct(self, input_x: Tensor, indices: Tensor) -> Tensor:
        return I.gather_nd(input_x, indices)


class ScatterNd(Operation):
    """``ScatterNd()(indices, updates, shape)``."""

    def construct(self, indices: Tensor, updates: Tensor, shape: Sequence[int]) -> Tensor:
        return I.scatter_nd(indices, updates, shape)


class TensorScatterUpdate(Operation):
    """``TensorScatterUpdate()(input_x, indices, updates)``."""

    def construct(self, input_x: Tensor, indices: Tensor, updates: Tensor) -> Tensor:
        return I.tensor_scatter_update(input_x, indices, updates)


class TensorScatterAdd(Operation):
    """``TensorScatterAdd()(input_x, indices, updates)``."""

    def construct(self, input_x: Tensor, indices: Tensor, updates: Tensor) -> Tensor:
        return I.tensor_scatter_add(input_x, indices, updates)


class TensorScatterElements(Operation):
    """``TensorScatterElements(axis=0, reduction='none')(input_x, indices, updates)``."""

    def __init__(self, axis: int = 0, reduction: str = "none") -> None:
        self.axis, self.reduction = axis, reduction

    def construct(self, input_x: Tensor, indices: Tensor, updates: Tensor) -> Tensor:
        return I.tensor_scatter_elements(input_x, indices, updates, self.axis, self.reduction)


class OneHot(Operation):
    """``OneHot(axis=-1)(indices, depth, on_value, off_value)``."""

    def __init__(self, axis: int = -1) -> None:
        self.axis = axis

    def construct(self, indices: Tensor, depth: int, on_value: Any, off_value: Any) -> Tensor:
        return A.one_hot(indices, depth, on_value, off_value, self.axis)


class Select(Operation):
    """``Select()(cond, x, y)``."""

    def construct(self, cond: Tensor, x: Any, y: Any) -> Tensor:
        return A.select(cond, x, y)


class MaskedFill(Operation):
    """``MaskedFill()(input, mask, value)``."""

    def construct(self, input: Tensor, mask: Tensor, value: Any) -> Tensor:
        return A.masked_fill(input, mask, value)


class MaskedSelect(Operation):
    """``MaskedSelect()(x, mask)``."""

    def construct(self, x: Tensor, mask: Tensor) -> Tensor:
        return A.masked_select(x, mask)


class Sort(Operation):
    """``Sort(axis=-1, descending=False)(x)`` -> (values, indices)."""

    def __init__(self, axis: int = -1, descending: bool = False) -> None:
        self.axis, self.descending = axis, descending

    def construct(self, x: Tensor) -> tuple[Tensor, Tensor]:
        return A.sort(x, self.axis, self.descending)


class TopK(Operation):
    """``TopK(sorted=True)(input_x, k)`` -> (values, indices) along the last dimension."""

    def __init__(self, sorted: bool = True) -> None:
        self.sorted = sorted

    def construct(self, input_x: Tensor, k: int) -> tuple[Tensor, Tensor]:
        return A.topk(input_x, k, -1, True, self.sorted)


class Unique(Operation):
    """``Unique()(input_x)`` -> (unique values, index of each input element)."""

    def construct(self, input_x: Tensor) -> tuple[Tensor, Tensor]:
        return A.unique(input_x)


class NonZero(Operation):
    """``NonZero()(input)`` -> (count, ndim) int64 coordinates."""

    def construct(self, input: Tensor) -> Tensor:
        return A.nonzero(input)


class Fill(Operation):
    """``Fill()(type, shape, value)``."""

    def construct(self, type: Any, shape: Sequence[int], value: Any) -> Tensor:
        return C.fill(type, shape, value)


class Zeros(Operation):
    """``Zeros()(size, type)``."""

    def construct(self, size: Any, type: Any = None) -> Tensor:
        return C.zeros(size, type)


class Ones(Operation):
    """``Ones()(shape, type)``."""

    def construct(self, shape: Any, type: Any = None) -> Tensor:
        return C.ones(shape, type)


class ZerosLike(Operation):
    """``ZerosLike()(input_x)``."""

    def construct(self, input_x: Tensor) -> Tensor:
        return A.zeros_like(input_x)


class OnesLike(Operation):
    """``OnesLike()(input_x)``."""

    def construct(self, input_x: Tensor) -> Tensor:
        return A.ones_like(input_x)


class Eye(Operation):
    """``Eye()(n, m, t)``."""

    def construct(self, n: int, m: int, t: Any) -> Tensor:
        return C.eye(n, m, t)


class Range(Operation):
    """``Range(maxlen=1000000)(start, limit, delta)``."""

    def __init__(self, maxlen: int = 1000000) -> None:
        self.maxlen = maxlen

    def construct(self, start: Any, limit: Any, delta: Any) -> Tensor:
        out = C.range(start, limit, delta)
        if out.size > self.maxlen:
            raise ValueError(f"Range: {out.size} elements exceed maxlen={self.maxlen}")
        return out


class Shape(Operation):
    """``Shape()(input_x)`` -> the shape as a tuple."""

    def construct(self, input_x: Tensor) -> tuple[int, ...]:
        return tuple(input_x.shape)


class Rank(Operation):
    """``Rank()(input_x)`` -> the number of dimensions."""

    def construct(self, input_x: Tensor) -> int:
        return input_x.ndim


class Size(Operation):
    """``Size()(input_x)`` -> the number of elements."""

    def construct(self, input_x: Tensor) -> int:
        return input_x.size


class StopGradient(Operation):
    """``StopGradient()(input_x)``."""

    def construct(self, input_x: Tensor) -> Tensor:
        return A.stop_gradient(input_x)


class Identity(Operation):
    """``Identity()(x)``: a copy."""

    def construct(self, x: Tensor) -> Tensor:
        return A.identity(x)
