"""Class forms of the order-statistic, norm and array ops added for issue 14 (`ops.Median`,
`ops.LowerBound`, `ops.ReverseSequence`, `ops.Pack`, `ops.L2Normalize`, `ops.LpNorm`,
`ops.SquaredDifference`, `ops.ReduceStd`, ...), with MindSpore's constructor and call signatures;
each forwards to the functional ops."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import ShapeError
from ..tensor import Tensor
from . import array_sequence_ops as A
from . import functional as F
from . import sort_stats_ops as S
from .operation import Op, Operation, op_classes


def _bound(right: bool):
    def fn(sorted_x: Tensor, values: Tensor, out_type: Any) -> Tensor:
        if sorted_x.ndim != 2 or values.ndim != 2 or sorted_x.shape[0] != values.shape[0]:
            raise ShapeError("LowerBound/UpperBound", "2-D sorted_x and values with the same number of rows",
                             f"shapes {tuple(sorted_x.shape)} and {tuple(values.shape)}")
        return F.cast(S.searchsorted(sorted_x, values, right=right), out_type)

    return fn


def _l2_normalize(x: Tensor, axis: Any, epsilon: float) -> Tensor:
    ssum = F.reduce_sum(F.square(x), axis if isinstance(axis, int) else tuple(axis), True)
    return F.mul(x, F.rsqrt(F.maximum(ssum, epsilon)))


def _lp_norm(input: Tensor, axis: Any, p: int, keep_dims: bool, epsilon: float) -> Tensor:
    out = S.vector_norm(input, p, axis, keep_dims)
    return F.maximum(out, epsilon) if epsilon else out


def _reduce_std(input_x: Tensor, axis: Any, unbiased: bool, keep_dims: bool) -> tuple[Tensor, Tensor]:
    ax = None if axis in ([], ()) else (tuple(axis) if isinstance(axis, (list, tuple)) else axis)
    return F.std_mean(input_x, ax, 1 if unbiased else 0, keep_dims)


def _square_sum_all(x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    return F.reduce_sum(F.square(x)), F.reduce_sum(F.square(y))


def _mul_no_nan(x: Any, y: Any) -> Tensor:
    prod = F.mul(x, y)
    return F.where(F.equal(y, 0), F.zeros_like(prod), prod)


def _median(x: Tensor, global_median: bool, axis: int, keep_dims: bool, ignore_nan: bool) -> tuple[Tensor, Tensor]:
    fn = S.nanmedian if ignore_nan else S.median
    if global_median:
        v, i = fn(F.reshape(x, (-1,)), 0, False)
        return v, i
    return fn(x, axis, keep_dims)


_TABLE = {
    "Median": Op(_median, "x: Tensor -> tuple[Tensor, Tensor]", "(values, indices) of the median along `axis`.",
                 "global_median: bool = False, axis: int = 0, keep_dims: bool = False, ignore_nan: bool = False"),
    "LowerBound": Op(_bound(False), "sorted_x: Tensor, values: Tensor",
                     "per row, the first index where each value could be inserted.", "out_type: Any = mstype.int32"),
    "UpperBound": Op(_bound(True), "sorted_x: Tensor, values: Tensor",
                     "per row, the last index where each value could be inserted.", "out_type: Any = mstype.int32"),
    "ReverseSequence": Op(lambda x, seq_lengths, seq_dim, batch_dim: A.reverse_sequence(x, seq_lengths, seq_dim,
                                                                                          batch_dim),
                          "x: Tensor, seq_lengths: Tensor", "the first seq_lengths[b] elements reversed.",
                          "seq_dim: int, batch_dim: int = 0"),
    "Pack": Op(lambda x, axis: F.stack(x, axis), "x: Sequence[Tensor]", "the tensors stacked along `axis`.",
               "axis: int = 0"),
    "Unpack": Op(lambda x, axis: F.unstack(x, axis), "x: Tensor -> tuple[Tensor, ...]",
                 "the slices along `axis`.", "axis: int = 0"),
    "L2Loss": Op(lambda x: F.div(F.reduce_sum(F.square(x)), 2), "input_x: Tensor", "sum(x ** 2) / 2."),
    "L2Normalize": Op(_l2_normalize, "x: Tensor", "x / sqrt(max(sum(x ** 2, axis), epsilon)).",
                      "axis: Any = 0, epsilon: float = 0.0001"),
    "LpNorm": Op(_lp_norm, "input: Tensor", "the p-norm over `axis` (at least epsilon).",
                 "axis: Any, p: int = 2, keep_dims: bool = False, epsilon: float = 1e-12"),
    "ReduceStd": Op(_reduce_std, "input_x: Tensor -> tuple[Tensor, Tensor]", "(std, mean) over `axis`.",
                    "axis: Any = [], unbiased: bool = True, keep_dims: bool = False"),
    "SquaredDifference": Op(lambda x, y: F.square(F.sub(x, y)), "x: Any, y: Any", "(x - y) ** 2."),
    "SquareSumAll": Op(_square_sum_all, "x: Tensor, y: Tensor -> tuple[Tensor, Tensor]",
                       "(sum(x ** 2), sum(y ** 2))."),
    "MulNoNan": Op(_mul_no_nan, "x: Any, y: Any", "x * y, 0 where y == 0 (even for an inf/NaN x)."),
    "Xdivy": Op(F.xdivy, "x: Any, y: Any", "x / y, 0 where x == 0."),
    "Rint": Op(F.round, "input_x: Tensor", "round half to even."),
    "Trace": Op(F.trace, "x: Tensor", "the sum of the main diagonal."),
    "Tril": Op(lambda x, diagonal: F.tril(x, diagonal), "x: Tensor", "the lower triangle.", "diagonal: int = 0"),
    "Triu": Op(lambda x, diagonal: F.triu(x, diagonal), "x: Tensor", "the upper triangle.", "diagonal: int = 0"),
    "NanToNum": Op(lambda x, nan, posinf, neginf: F.nan_to_num(x, nan if nan is not None else 0.0, posinf, neginf),
                   "x: Tensor", "NaN and infinities replaced by finite numbers.",
                   "nan: Any = None, posinf: Any = None, neginf: Any = None"),
    "LinSpace": Op(lambda start, stop, num: F.linspace(start, stop, int(num)), "start: Any, stop: Any, num: Any",
                   "num evenly spaced values from start to stop."),
    "LogSpace": Op(lambda start, end, steps, base, dtype: F.logspace(start, end, steps, base, dtype=dtype),
                   "start: Any, end: Any", "base ** linspace(start, end, steps).",
                   "steps: int = 10, base: int = 10, dtype: Any = mstype.float32"),
    "Invert": Op(A.invert, "x: Tensor", "bitwise NOT."),
    "ScalarToTensor": Op(A.scalar_to_tensor, "input_x: Any, dtype: Any = mstype.float32", "a 0-d tensor."),
    "ScalarToArray": Op(A.scalar_to_array, "input_x: Any", "a 0-d tensor."),
    "TupleToArray": Op(A.tuple_to_array, "input_x: Any", "a 1-D tensor from a tuple of numbers."),
    "ScalarCast": Op(A.scalar_cast, "input_x: Any, input_y: Any -> Any", "a number converted to a type."),
}
globals().update(op_classes(_TABLE, __name__))


class SearchSorted(Operation):
    """``SearchSorted(dtype=mstype.int64, right=False)(sorted_sequence, values)``: insertion indices."""

    def __init__(self, dtype: Any = mstype.int64, right: bool = False) -> None:
        self.dtype, self.right = dtype, right

    def construct(self, sorted_sequence: Tensor, values: Tensor) -> Tensor:
        return F.cast(S.searchsorted(sorted_sequence, values, right=self.right), self.dtype)


class SplitV(Operation):
    """``SplitV(size_splits, split_dim, num_split)(input_x)``: pieces of the given sizes along
    `split_dim` (one size may be -1: the rest)."""

    def __init__(self, size_splits: Sequence[int], split_dim: int, num_split: int) -> None:
        if len(size_splits) != num_split:
            raise ValueError(f"SplitV: size_splits has {len(size_splits)} entries, num_split is {num_split}")
        self.size_splits, self.split_dim, self.num_split = list(size_splits), split_dim, num_split

    def construct(self, input_x: Tensor) -> tuple[Tensor, ...]:
        sizes = list(self.size_splits)
        if sizes.count(-1) > 1:
            raise ValueError("SplitV: at most one size may be -1")
        if -1 in sizes:
            sizes[sizes.index(-1)] = input_x.shape[self.split_dim] - (sum(sizes) + 1)
        return F.split(input_x, sizes, self.split_dim)


class TensorShape(Operation):
    """``TensorShape()(input_x)``: the shape as a 1-D int64 tensor."""

    def construct(self, input_x: Tensor) -> Tensor:
        return Tensor(np.asarray(input_x.shape, np.int64))


class InvertPermutation(Operation):
    """``InvertPermutation()(input_x)``: the inverse of a permutation of 0..n-1 (a tuple/list)."""

    def construct(self, input_x: Any) -> tuple[int, ...]:
        perm = [int(v) for v in (input_x.asnumpy().tolist() if isinstance(input_x, Tensor) else input_x)]
        if sorted(perm) != list(range(len(perm))):
            raise ValueError(f"InvertPermutation: input_x must be a permutation of 0..{len(perm) - 1}, got {perm}")
        inv = [0] * len(perm)
        for i, p in enumerate(perm):
            inv[p] = i
        return tuple(inv)


__all__ = sorted([*_TABLE, "SearchSorted", "SplitV", "TensorShape", "InvertPermutation"])
