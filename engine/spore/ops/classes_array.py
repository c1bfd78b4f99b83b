"""Class forms of the array ops with MindSpore's signatures: configured once with their attributes
(``ops.Concat(axis=1)``), then called with tensors. Each forwards to the functional wrapper, which
applies the registered primitive.

The plain forwards are rows of `_TABLE` (`Op` in `operation`: wrapper, call signature, doc, and
constructor attributes); the classes below it are the ones with logic of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..tensor import Tensor
from . import array as A
from . import creation as C
from . import indexing as I
from . import shape_ops as S
from .operation import Op, Operation, op_classes

# the table's classes are made at import time, so a linter cannot see the names listed here
__all__ = [  # noqa: F822
    "BroadcastTo", "Cast", "Concat", "ExpandDims", "Eye", "Fill", "Flatten", "Gather", "GatherD", "GatherNd",
    "Identity", "MaskedFill", "MaskedSelect", "Meshgrid", "NonZero", "OneHot", "Ones", "OnesLike", "Pad", "Range",
    "Rank", "Reshape", "ReverseV2", "Roll", "ScatterNd", "Select", "Shape", "Size", "Slice", "Sort", "Split",
    "Squeeze", "Stack", "StopGradient", "StridedSlice", "TensorScatterAdd", "TensorScatterElements",
    "TensorScatterUpdate", "Tile", "TopK", "Transpose", "Unique", "Unstack", "Zeros", "ZerosLike",
]


_TABLE = {
    "Reshape": Op(A.reshape, "input_x: Tensor, input_shape: Sequence[int]", "input_x with the shape input_shape."),
    "Transpose": Op(S.transpose, "input_x: Tensor, input_perm: Sequence[int]", "input_x with its axes permuted."),
    "Cast": Op(A.cast, "input_x: Tensor, type: Any", "input_x converted to the dtype `type`."),
    "Concat": Op(S.concat, "input_x: Sequence[Tensor]", "a tuple/list of tensors joined along `axis`.",
                 "axis: int = 0"),
    "Stack": Op(S.stack, "input_x: Sequence[Tensor]", "a tuple/list of tensors stacked on a new axis `axis`.",
                "axis: int = 0"),
    "Squeeze": Op(S.squeeze, "input_x: Tensor", "drops the size-1 axes `axis` (all of them when empty).",
                  "axis: Any = ()"),
    "ExpandDims": Op(S.expand_dims, "input_x: Tensor, axis: int", "a size-1 axis inserted at `axis`."),
    "Flatten": Op(S.flatten, "input_x: Tensor", "keeps dimension 0, merges the rest."),
    "Tile": Op(S.tile, "input: Tensor, dims: Sequence[int]", "input repeated `dims` times along each axis."),
    "Slice": Op(S.slice, "input_x: Tensor, begin: Sequence[int], size: Sequence[int]",
                "the block of shape `size` starting at `begin`."),
    "StridedSlice": Op(S.strided_slice, "input_x: Tensor, begin: Sequence[int], end: Sequence[int], "
                       "strides: Sequence[int]", "input_x[begin:end:strides] with the masks' meanings.",
                       "begin_mask: int = 0, end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0, "
                       "shrink_axis_mask: int = 0"),
    "Roll": Op(S.roll, "input_x: Tensor", "elements shifted by `shifts` along `dims`, wrapping around.",
               "shifts: Any, dims: Any = None"),
    "Gather": Op(I.gather, "input_params: Tensor, input_indices: Tensor, axis: int",
                 "the slices of input_params at input_indices along axis.", "batch_dims: int = 0"),
    "GatherD": Op(I.gather_elements, "x: Tensor, dim: int, index: Tensor", "x's elements at `index` along `dim`."),
    "GatherNd": Op(I.gather_nd, "input_x: Tensor, indices: Tensor", "the slices of input_x at N-d `indices`."),
    "ScatterNd": Op(I.scatter_nd, "indices: Tensor, updates: Tensor, shape: Sequence[int]",
                    "zeros of `shape` with `updates` added at `indices`."),
    "TensorScatterUpdate": Op(I.tensor_scatter_update, "input_x: Tensor, indices: Tensor, updates: Tensor",
                              "input_x with `updates` written at `indices`."),
    "TensorScatterAdd": Op(I.tensor_scatter_add, "input_x: Tensor, indices: Tensor, updates: Tensor",
                           "input_x with `updates` added at `indices`."),
    "TensorScatterElements": Op(I.tensor_scatter_elements, "input_x: Tensor, indices: Tensor, updates: Tensor",
                                "input_x with `updates` combined by `reduction` at `indices` along `axis`.",
                                "axis: int = 0, reduction: str = 'none'"),
    "OneHot": Op(A.one_hot, "indices: Tensor, depth: int, on_value: Any, off_value: Any",
                 "on_value at each index, off_value elsewhere, on a new axis `axis`.", "axis: int = -1"),
    "Select": Op(A.select, "cond: Tensor, x: Any, y: Any", "x where cond, else y."),
    "MaskedFill": Op(A.masked_fill, "input: Tensor, mask: Tensor, value: Any", "input with `value` where mask."),
    "MaskedSelect": Op(A.masked_select, "x: Tensor, mask: Tensor", "the elements of x where mask, flat."),
    "Sort": Op(A.sort, "x: Tensor -> tuple[Tensor, Tensor]", "(values, indices) sorted along `axis`.",
               "axis: int = -1, descending: bool = False"),
    "Unique": Op(A.unique, "input_x: Tensor -> tuple[Tensor, Tensor]",
                 "(unique values, index of each input element)."),
    "NonZero": Op(A.nonzero, "input: Tensor", "(count, ndim) int64 coordinates of the nonzero elements."),
    "Fill": Op(C.fill, "type: Any, shape: Sequence[int], value: Any", "a tensor of `shape` filled with `value`."),
    "Zeros": Op(C.zeros, "size: Any, type: Any = None", "zeros of shape `size`."),
    "Ones": Op(C.ones, "shape: Any, type: Any = None", "ones of `shape`."),
    "ZerosLike": Op(A.zeros_like, "input_x: Tensor", "zeros of input_x's shape and dtype."),
    "OnesLike": Op(A.ones_like, "input_x: Tensor", "ones of input_x's shape and dtype."),
    "Eye": Op(C.eye, "n: int, m: int, t: Any", "the n x m identity matrix of dtype t."),
    "StopGradient": Op(A.stop_gradient, "input_x: Tensor", "input_x, with no gradient flowing back through it."),
    "Identity": Op(A.identity, "x: Tensor", "a copy."),
}
globals().update(op_classes(_TABLE, __name__))


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


class Unstack(Operation):
    """``Unstack(axis=0, num=None)(input_x)``."""

    def __init__(self, axis: int = 0, num: int | None = None) -> None:
        self.axis, self.num = axis, num

    def construct(self, input_x: Tensor) -> tuple[Tensor, ...]:
        return S.unstack(input_x, self.axis)


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


class ReverseV2(Operation):
    """``ReverseV2(axis)(input_x)``: flips the given axes."""

    def __init__(self, axis: Sequence[int]) -> None:
        self.axis = tuple(axis)

    def construct(self, input_x: Tensor) -> Tensor:
        return S.flip(input_x, self.axis)


class Meshgrid(Operation):
    """``Meshgrid(indexing='xy')(inputs)``."""

    def __init__(self, indexing: str = "xy") -> None:
        self.indexing = indexing

    def construct(self, inputs: Sequence[Tensor]) -> tuple[Tensor, ...]:
        return S.meshgrid(*inputs, indexing=self.indexing)


class TopK(Operation):
    """``TopK(sorted=True)(input_x, k)`` -> (values, indices) along the last dimension."""

    def __init__(self, sorted: bool = True) -> None:
        self.sorted = sorted

    def construct(self, input_x: Tensor, k: int) -> tuple[Tensor, Tensor]:
        return A.topk(input_x, k, -1, True, self.sorted)


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
