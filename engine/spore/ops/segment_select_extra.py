"""Sorted-segment reductions and order/selection helpers (issue 14): `SegmentSum/Max/Min/Mean/Prod`,
`sparse_segment_mean`, `Tensor.kthvalue`, `renorm`, `Tensor.where`, `Tensor.new_empty`,
`Tensor.requires_grad_`, and the class forms `Renorm`, `NthElement`, `MaskedScatter`,
`ScatterAddWithAxis`, `ScatterNonAliasingAdd`, `TruncatedNormal`, `MatrixSolveLs`,
`MultinomialWithReplacement` (+ `multinomial_with_replacement`), `LogNormalReverse`, `ListDiff`,
`Print`.

Sorted segments number max(segment_ids) + 1, a value known only when the ids are: those ops read
the ids eagerly (a graph break in Graph mode) and then reduce with `unsorted_segment_*`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor, tensor_method
from . import functional as F
from . import scatter_segment_ops as S
from .operation import Operation


def _sorted_ids(op: str, segment_ids: Tensor) -> int:
    ids = segment_ids.asnumpy()
    if ids.ndim != 1:
        raise ShapeError(op, "1-D segment_ids", f"shape {ids.shape}")
    if ids.size and (np.any(np.diff(ids) < 0) or ids[0] < 0):
        raise ValueError(f"{op}: segment_ids must be sorted and non-negative, got {ids.tolist()}")
    return int(ids[-1]) + 1 if ids.size else 0


def _segment_class(name: str, fn: Any, doc: str) -> type[Operation]:
    def construct(self: Operation, input_x: Tensor, segment_ids: Tensor) -> Tensor:
        n = _sorted_ids(name, segment_ids)
        if input_x.shape[0] != segment_ids.shape[0]:
            raise ShapeError(name, f"segment_ids of length {input_x.shape[0]} (input_x's first axis)",
                             f"length {segment_ids.shape[0]}")
        return fn(input_x, segment_ids, n)

    construct.__qualname__ = f"{name}.construct"
    return type(name, (Operation,), {"construct": construct, "__module__": __name__,
                                     "__doc__": f"``{name}()(input_x, segment_ids)``: {doc}"})


def _segment_mean(x: Tensor, ids: Tensor, n: int) -> Tensor:
    total = S.unsorted_segment_sum(x, ids, n)
    count = S.unsorted_segment_sum(F.ones((x.shape[0],), x.dtype), ids, n)
    count = F.reshape(F.maximum(count, 1), (n,) + (1,) * (x.ndim - 1))
    return F.div(total, count)


def _segment_extreme(fn: Any) -> Any:
    def run(x: Tensor, ids: Tensor, n: int) -> Tensor:
        out = fn(x, ids, n)
        present = S.unsorted_segment_sum(F.ones((x.shape[0],), mstype.float32), ids, n)
        mask = F.reshape(F.greater(present, 0), (n,) + (1,) * (x.ndim - 1))
        return F.where(mask, out, F.zeros_like(out))  # an empty segment is 0 (MindSpore's Segment* rule)

    return run


SegmentSum = _segment_class("SegmentSum", S.unsorted_segment_sum, "the sum of each sorted segment.")
SegmentProd = _segment_class("SegmentProd", S.unsorted_segment_prod, "the product of each sorted segment.")
SegmentMean = _segment_class("SegmentMean", _segment_mean, "the mean of each sorted segment (0 when empty).")
SegmentMax = _segment_class("SegmentMax", _segment_extreme(S.unsorted_segment_max),
                            "the maximum of each sorted segment (0 when empty).")
SegmentMin = _segment_class("SegmentMin", _segment_extreme(S.unsorted_segment_min),
                            "the minimum of each sorted segment (0 when empty).")


def sparse_segment_mean(x: Tensor, indices: Tensor, segment_ids: Tensor) -> Tensor:
    """out[j] = mean of x[indices[i]] over the i with segment_ids[i] == j (sorted ids; 0 when empty)."""
    if indices.shape != segment_ids.shape:
        raise ShapeError("sparse_segment_mean", "indices and segment_ids of one shape",
                         f"{tuple(indices.shape)} and {tuple(segment_ids.shape)}")
    n = _sorted_ids("sparse_segment_mean", segment_ids)
    return _segment_mean(F.gather(x, indices, 0), segment_ids, n)


@tensor_method("kthvalue")
def _kthvalue(self: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """(values, indices) of the k-th smallest element (1-based) along `dim`."""
    n = self.shape[dim] if self.ndim else 1
    if not 1 <= k <= n:
        raise ValueError(f"Tensor.kthvalue: k must be in [1, {n}], got {k}")
    vals, idx = F.sort(self, dim)
    v, i = F.narrow(vals, dim, k - 1, 1), F.narrow(idx, dim, k - 1, 1)
    if not keepdim:
        v, i = F.squeeze(v, dim), F.squeeze(i, dim)
    return v, F.cast(i, mstype.int64)


@tensor_method("renorm")
def renorm(input: Tensor, p: float, axis: int, maxnorm: float) -> Tensor:
    """Each sub-tensor along `axis` (input[..., i, ...]) rescaled to p-norm `maxnorm` where its
    norm exceeds it (scale maxnorm / (norm + 1e-7), as MindSpore/PyTorch)."""
    if p <= 0:
        raise ValueError(f"renorm: p must be positive, got {p}")
    ax = axis % input.ndim
    others = tuple(d for d in range(input.ndim) if d != ax)
    norm = F.pow(F.reduce_sum(F.pow(F.abs(input), float(p)), others, True), 1.0 / p)
    scale = F.where(F.greater(norm, maxnorm), F.div(maxnorm, F.add(norm, 1e-7)), F.ones_like(norm))
    return F.mul(input, scale)


def _where_method(self: Tensor, condition: Tensor, y: Any) -> Tensor:
    """self where condition, y elsewhere."""
    return F.where(condition, self, y)


def _new_empty(self: Tensor, size: Any, *, dtype: Any = None) -> Tensor:
    """A new tensor of `size` (this dtype unless given); Spore fills it with zeros."""
    shape = (size,) if isinstance(size, int) else tuple(size)
    return F.zeros(shape, dtype or self.dtype)


def _requires_grad_(self: Tensor, requires_grad: bool = True) -> Tensor:
    """Sets `requires_grad` on this tensor (a Parameter's flag; plain tensors record it) and returns it."""
    self.requires_grad = bool(requires_grad)
    return self


Tensor.where = _where_method
Tensor.new_empty = _new_empty
Tensor.requires_grad_ = _requires_grad_


class Renorm(Operation):
    """``Renorm(p, dim, maxnorm)(input)``."""

    def __init__(self, p: float, dim: int, maxnorm: float) -> None:
        self.p, self.dim, self.maxnorm = p, dim, maxnorm

    def construct(self, input: Tensor) -> Tensor:
        return renorm(input, self.p, self.dim, self.maxnorm)


class NthElement(Operation):
    """``NthElement(reverse=False)(input, n)``: the n-th smallest (largest with reverse) value of
    each last-axis vector, 0-based."""

    def __init__(self, reverse: bool = False) -> None:
        self.reverse = reverse

    def construct(self, input: Tensor, n: Any) -> Tensor:
        k = int(n.item() if isinstance(n, Tensor) else n)
        if not 0 <= k < input.shape[-1]:
            raise ValueError(f"NthElement: n must be in [0, {input.shape[-1]}), got {k}")
        vals, _ = F.sort(input, -1, self.reverse)
        return F.squeeze(F.narrow(vals, -1, k, 1), -1)


class MaskedScatter(Operation):
    """``MaskedScatter()(x, mask, updates)``: x with its True positions filled from updates in order."""

    def construct(self, x: Tensor, mask: Tensor, updates: Tensor) -> Tensor:
        from .tensor_inplace_fill_ops import _masked_scatter

        return _masked_scatter(x, mask, updates)


class ScatterAddWithAxis(Operation):
    """``ScatterAddWithAxis(axis=0)(input_x, indices, updates)``: updates added at indices along `axis`."""

    def __init__(self, axis: int = 0) -> None:
        self.axis = axis

    def construct(self, input_x: Tensor, indices: Tensor, updates: Tensor) -> Tensor:
        return F.tensor_scatter_elements(input_x, indices, updates, axis=self.axis, reduction="add")


class ScatterNonAliasingAdd(Operation):
    """``ScatterNonAliasingAdd()(input_x, indices, updates)``: updates added at the N-d indices."""

    def construct(self, input_x: Tensor, indices: Tensor, updates: Tensor) -> Tensor:
        return S.scatter_nd_add(input_x, indices, updates)


class TruncatedNormal(Operation):
    """``TruncatedNormal(dtype=mstype.float32, seed=0, seed2=0)(shape)``: standard normal samples
    truncated to [-2, 2] (inverse CDF of a uniform draw)."""

    def __init__(self, dtype: Any = mstype.float32, seed: int = 0, seed2: int = 0) -> None:
        self.dtype, self.seed, self.seed2 = dtype, seed, seed2

    def construct(self, shape: Any) -> Tensor:
        from math import erf, sqrt

        from .creation import _draw, _size

        lo = 0.5 * (1 + erf(-2 / sqrt(2)))
        seed = None if self.seed == 0 and self.seed2 == 0 else self.seed * 1_000_003 + self.seed2
        u = _draw("uniform", _size("TruncatedNormal", (shape,)), mstype.float64, seed)
        p = F.add(F.mul(u, 1 - 2 * lo), lo)
        return F.cast(F.mul(F.erfinv(F.sub(F.mul(p, 2.0), 1.0)), sqrt(2.0)), self.dtype)


class MatrixSolveLs(Operation):
    """``MatrixSolveLs(fast=True)(matrix, rhs, l2)``: argmin ||matrix @ X - rhs||^2 + l2 ||X||^2."""

    def __init__(self, fast: bool = True) -> None:
        self.fast = fast

    def construct(self, matrix: Tensor, rhs: Tensor, l2: Any) -> Tensor:
        from .linalg_decompositions import Lstsq

        return Lstsq(self.fast, float(l2.item() if isinstance(l2, Tensor) else l2))(matrix, rhs)


def multinomial_with_replacement(x: Tensor, seed: Any, offset: Any, numsamples: int,
                                 replacement: bool = False) -> Tensor:
    """int64 draws from the rows of x (weights), `numsamples` per row (seed 0 with offset 0: the
    global generator)."""
    from .random_distribution_ops import multinomial

    s = int(seed.item() if isinstance(seed, Tensor) else seed)
    o = int(offset.item() if isinstance(offset, Tensor) else offset)
    return multinomial(x, numsamples, replacement, None if s == 0 and o == 0 else s * 1_000_003 + o)


class MultinomialWithReplacement(Operation):
    """``MultinomialWithReplacement(numsamples, replacement=False)(x, seed, offset)``."""

    def __init__(self, numsamples: int, replacement: bool = False) -> None:
        self.numsamples, self.replacement = numsamples, replacement

    def construct(self, x: Tensor, seed: Any, offset: Any) -> Tensor:
        return multinomial_with_replacement(x, seed, offset, self.numsamples, self.replacement)


class LogNormalReverse(Operation):
    """``LogNormalReverse(mean=1.0, std=2.0)(input)``: exp(N(mean, std)) samples of input's shape."""

    def __init__(self, mean: float = 1.0, std: float = 2.0) -> None:
        self.mean, self.std = mean, std

    def construct(self, input: Tensor) -> Tensor:
        from .tensor_inplace_fill_ops import _log_normal_method  # Tensor.log_normal, by name for the op catalogue

        return _log_normal_method(input, self.mean, self.std)


class ListDiff(Operation):
    """``ListDiff(out_idx=mstype.int32)(x, y)`` -> (out, idx): the elements of 1-D x not in y, in
    order, and their positions in x."""

    def __init__(self, out_idx: Any = mstype.int32) -> None:
        self.out_idx = out_idx

    def construct(self, x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
        if x.ndim != 1 or y.ndim != 1:
            raise ShapeError("ListDiff", "1-D x and y", f"shapes {tuple(x.shape)} and {tuple(y.shape)}")
        if x.dtype != y.dtype:
            raise DTypeError("ListDiff", "x and y of one dtype", f"{x.dtype} and {y.dtype}")
        a = x.asnumpy()
        keep = np.flatnonzero(~np.isin(a, y.asnumpy()))
        return Tensor(a[keep]), Tensor(keep.astype(mstype.to_dtype(self.out_idx).np))


class Print(Operation):
    """``Print()(*inputs)``: prints tensors and strings (see `ops.print_`)."""

    def construct(self, *inputs: Any) -> None:
        F.print_(*inputs)


__all__ = ["SegmentSum", "SegmentProd", "SegmentMean", "SegmentMax", "SegmentMin", "Renorm", "NthElement",
           "MaskedScatter", "ScatterAddWithAxis", "ScatterNonAliasingAdd", "TruncatedNormal", "MatrixSolveLs",
           "MultinomialWithReplacement", "LogNormalReverse", "ListDiff", "Print"]
