"""Spatial rearrangements, padding, uniqueness and bit ops (issue 14): `mirror_pad`,
`space_to_batch_nd`, `lrn`, `padding`, `unique_consecutive`, `unique_with_pad`, `nextafter`,
`population_count`, and the class forms `MirrorPad`, `SpaceToDepth`, `SpaceToBatch(ND)`, `LRN`,
`Padding`, `UniqueConsecutive`, `UniqueWithPad`, `UnravelIndex`, `NextAfter`, `PopulationCount`,
`LeftShift`, `RightShift`, `Lcm`, `LerpScalar`, `Logit` and the loss classes `TripletMarginLoss`,
`MultiMarginLoss`, `MultilabelMarginLoss`, `SigmoidCrossEntropyWithLogits`, `RmsNorm`.

Rearrangements are gathers with index arrays computed from the static shapes, so they carry
gradients; `unique_*` have data-dependent output sizes and run eagerly (NumPy), without gradients.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor, tensor_method
from . import activation_shrink_margin as A
from . import functional as F
from .operation import Operation
from .primitive import Aval, primitive


def _pairs(op: str, paddings: Any, ndim: int) -> list[tuple[int, int]]:
    p = paddings.asnumpy().tolist() if isinstance(paddings, Tensor) else [list(q) for q in paddings]
    if len(p) != ndim or any(len(q) != 2 for q in p):
        raise ShapeError(op, f"paddings of shape ({ndim}, 2)", f"{p}")
    return [(int(a), int(b)) for a, b in p]


def mirror_pad(input_x: Tensor, paddings: Any, mode: str) -> Tensor:
    """input_x padded by mirroring: 'REFLECT' excludes the edge (as np.pad 'reflect'),
    'SYMMETRIC' repeats it; paddings (ndim, 2) gives (before, after) per axis."""
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"mirror_pad: mode must be 'REFLECT' or 'SYMMETRIC', got {mode!r}")
    out = input_x
    for axis, (before, after) in enumerate(_pairs("mirror_pad", paddings, input_x.ndim)):
        if before == after == 0:
            continue
        n = input_x.shape[axis]
        limit = n - 1 if mode == "REFLECT" else n
        if before > limit or after > limit or before < 0 or after < 0:
            raise ValueError(f"mirror_pad: padding ({before}, {after}) on axis {axis} must be in [0, {limit}]")
        idx = np.pad(np.arange(n), (before, after), mode="reflect" if mode == "REFLECT" else "symmetric")
        out = F.gather(out, Tensor(idx.astype(np.int64)), axis)
    return out


def space_to_batch_nd(input_x: Tensor, block_size: Any, paddings: Any) -> Tensor:
    """The spatial axes (after N, C) zero-padded, then split into blocks moved into the batch:
    (N, C, H, W) -> (N * bh * bw, C, (H + pads) / bh, (W + pads) / bw), batch index
    (i_h * bw + i_w) * N + n."""
    m = input_x.ndim - 2
    blocks = [int(block_size)] * m if isinstance(block_size, (int, np.integer)) else [int(b) for b in block_size]
    pads = _pairs("space_to_batch_nd", paddings, len(blocks))
    if len(blocks) != m:
        raise ShapeError("space_to_batch_nd", f"{m} block sizes (one per spatial axis)", f"{blocks}")
    x = F.pad(input_x, tuple(v for p in reversed(pads) for v in p)) if any(a or b for a, b in pads) else input_x
    n, c = x.shape[:2]
    sizes = x.shape[2:]
    for s, b in zip(sizes, blocks):
        if s % b:
            raise ShapeError("space_to_batch_nd", f"padded spatial sizes divisible by the blocks {blocks}",
                             f"sizes {tuple(sizes)}")
    shape = [n, c]
    for s, b in zip(sizes, blocks):
        shape += [s // b, b]
    y = F.reshape(x, tuple(shape))
    block_axes = [3 + 2 * i for i in range(m)]
    outer_axes = [2 + 2 * i for i in range(m)]
    y = F.transpose(y, tuple(block_axes + [0, 1] + outer_axes))
    return F.reshape(y, (n * int(np.prod(blocks)), c) + tuple(s // b for s, b in zip(sizes, blocks)))


def _space_to_depth(x: Tensor, block_size: int) -> Tensor:
    if x.ndim != 4:
        raise ShapeError("SpaceToDepth", "a 4-D NCHW input", f"shape {tuple(x.shape)}")
    n, c, h, w = x.shape
    b = int(block_size)
    if b < 2 or h % b or w % b:
        raise ShapeError("SpaceToDepth", f"H and W divisible by block_size {b} (>= 2)", f"shape {tuple(x.shape)}")
    y = F.reshape(x, (n, c, h // b, b, w // b, b))
    y = F.transpose(y, (0, 3, 5, 1, 2, 4))  # channel index (bh * b + bw) * C + c
    return F.reshape(y, (n, c * b * b, h // b, w // b))


def lrn(x: Tensor, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0, beta: float = 0.5,
        norm_region: str = "ACROSS_CHANNELS") -> Tensor:
    """Local response normalisation across channels (axis 1 of NCHW):
    x / (bias + alpha * sum of x^2 over channels c - r..c + r) ** beta."""
    if norm_region != "ACROSS_CHANNELS":
        raise ValueError(f"lrn: norm_region must be 'ACROSS_CHANNELS', got {norm_region!r}")
    if x.ndim != 4:
        raise ShapeError("lrn", "a 4-D NCHW input", f"shape {tuple(x.shape)}")
    r, c = int(depth_radius), x.shape[1]
    sq = F.pad(F.square(x), (0, 0, 0, 0, r, r))
    window = None
    for k in range(2 * r + 1):
        part = F.narrow(sq, 1, k, c)
        window = part if window is None else F.add(window, part)
    return F.div(x, F.pow(F.add(F.mul(window, alpha), bias), beta))


def padding(x: Tensor, pad_dim_size: int = 8) -> Tensor:
    """x (..., 1) zero-padded on its last axis to pad_dim_size."""
    if x.ndim < 1 or x.shape[-1] != 1:
        raise ShapeError("padding", "a last axis of size 1", f"shape {tuple(x.shape)}")
    if pad_dim_size < 1:
        raise ValueError(f"padding: pad_dim_size must be positive, got {pad_dim_size}")
    return F.pad(x, (0, int(pad_dim_size) - 1))


@tensor_method("unique_consecutive")
def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:
    """Each run of equal consecutive elements (or slices along `dim`) collapsed to one; with
    return_inverse the run each input element belongs to, with return_counts each run's length."""
    a = input.asnumpy()
    if dim is None:
        flat = a.reshape(-1)
        starts = np.ones(flat.shape[0], bool)
        starts[1:] = flat[1:] != flat[:-1]
        out = flat[starts]
        inverse_shape = a.shape
    else:
        ax = dim % a.ndim
        moved = np.moveaxis(a, ax, 0)
        starts = np.ones(moved.shape[0], bool)
        if moved.shape[0] > 1:
            starts[1:] = (moved[1:] != moved[:-1]).reshape(moved.shape[0] - 1, -1).any(1)
        out = np.moveaxis(moved[starts], 0, ax)
        inverse_shape = (a.shape[ax],)
    inverse = (np.cumsum(starts) - 1).reshape(inverse_shape)
    counts = np.diff(np.append(np.flatnonzero(starts), starts.shape[0]))
    result: list[Tensor] = [Tensor(out)]
    if return_inverse:
        result.append(Tensor(inverse.astype(np.int64)))
    if return_counts:
        result.append(Tensor(counts.astype(np.int64)))
    return result[0] if len(result) == 1 else tuple(result)


@tensor_method("unique_with_pad")
def unique_with_pad(x: Tensor, pad_num: Any) -> tuple[Tensor, Tensor]:
    """(y, idx): the unique elements of 1-D x in order of first appearance, padded to x's length
    with pad_num, and idx with x == y[idx]."""
    if x.ndim != 1:
        raise ShapeError("unique_with_pad", "a 1-D tensor", f"shape {tuple(x.shape)}")
    a = x.asnumpy()
    _, first, inv = np.unique(a, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.shape[0])
    y = np.full(a.shape, pad_num.item() if isinstance(pad_num, Tensor) else pad_num, a.dtype)
    y[:order.shape[0]] = a[np.sort(first)]
    return Tensor(y), Tensor(rank[inv].astype(x.dtype.np if x.dtype.is_int else np.int32))


@primitive
class NextAfter:
    """The next float after x1 towards x2, element-wise (broadcast)."""

    nondiff = True

    def infer(a, b):
        if not a.dtype.is_float or a.dtype != b.dtype:
            raise DTypeError("NextAfter", "two float tensors of one dtype", f"{a.dtype} and {b.dtype}")
        from ._rules import broadcast_shapes

        return Aval(broadcast_shapes("NextAfter", a.shape, b.shape), a.dtype)

    def impl(a, b):
        return np.nextafter(a, b)


@primitive
class PopulationCount:
    """The number of 1 bits of each integer element (uint8)."""

    nondiff = True

    def infer(a):
        if not a.dtype.is_int:
            raise DTypeError("PopulationCount", "an integer tensor", str(a.dtype))
        return Aval(tuple(a.shape), mstype.uint8)

    def impl(a):
        return np.bitwise_count(a).astype(np.uint8)


@tensor_method("nextafter")
def nextafter(input: Tensor, other: Any) -> Tensor:
    """The next representable float after each element of input towards other."""
    o = other if isinstance(other, Tensor) else Tensor(np.asarray(other, input.dtype.np))
    return NextAfter(input, F.cast(o, input.dtype))


def population_count(input_x: Tensor) -> Tensor:
    """The number of 1 bits of each integer element, as uint8."""
    return PopulationCount(input_x)


# --- class forms --------------------------------------------------------------------------------------------
class MirrorPad(Operation):
    """``MirrorPad(mode='REFLECT')(input_x, paddings)``."""

    def __init__(self, mode: str = "REFLECT") -> None:
        self.mode = mode

    def construct(self, input_x: Tensor, paddings: Any) -> Tensor:
        return mirror_pad(input_x, paddings, self.mode)


class SpaceToDepth(Operation):
    """``SpaceToDepth(block_size)(x)``: NCHW blocks moved into channels."""

    def __init__(self, block_size: int) -> None:
        self.block_size = block_size

    def construct(self, x: Tensor) -> Tensor:
        return _space_to_depth(x, self.block_size)


class SpaceToBatchND(Operation):
    """``SpaceToBatchND(block_shape, paddings)(input_x)``."""

    def __init__(self, block_shape: Any, paddings: Any) -> None:
        self.block_shape, self.paddings = block_shape, paddings

    def construct(self, input_x: Tensor) -> Tensor:
        return space_to_batch_nd(input_x, self.block_shape, self.paddings)


class SpaceToBatch(Operation):
    """``SpaceToBatch(block_size, paddings)(input_x)``: the 2-D SpaceToBatchND with a square block."""

    def __init__(self, block_size: int, paddings: Any) -> None:
        self.block_size, self.paddings = block_size, paddings

    def construct(self, input_x: Tensor) -> Tensor:
        return space_to_batch_nd(input_x, [self.block_size, self.block_size], self.paddings)


class LRN(Operation):
    """``LRN(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region='ACROSS_CHANNELS')(x)``."""

    def __init__(self, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0, beta: float = 0.5,
                 norm_region: str = "ACROSS_CHANNELS") -> None:
        self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region = (depth_radius, bias, alpha, beta,
                                                                                norm_region)

    def construct(self, x: Tensor) -> Tensor:
        return lrn(x, self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region)


class Padding(Operation):
    """``Padding(pad_dim_size=8)(x)``."""

    def __init__(self, pad_dim_size: int = 8) -> None:
        self.pad_dim_size = pad_dim_size

    def construct(self, x: Tensor) -> Tensor:
        return padding(x, self.pad_dim_size)


class UniqueConsecutive(Operation):
    """``UniqueConsecutive(return_inverse=False, return_counts=False, dim=None)(input)``:
    (output, inverse, counts) as in MindSpore (inverse/counts empty unless asked for)."""

    def __init__(self, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None) -> None:
        self.return_inverse, self.return_counts, self.dim = return_inverse, return_counts, dim

    def construct(self, input: Tensor) -> Any:
        out, inv, cnt = unique_consecutive(input, True, True, self.dim)
        empty = Tensor(np.zeros(0, np.int64))
        return out, (inv if self.return_inverse else empty), (cnt if self.return_counts else empty)


class UniqueWithPad(Operation):
    """``UniqueWithPad()(x, pad_num)``: (y, idx) of `unique_with_pad`."""

    def construct(self, x: Tensor, pad_num: Any) -> tuple[Tensor, Tensor]:
        return unique_with_pad(x, pad_num)


class UnravelIndex(Operation):
    """``UnravelIndex()(indices, dims)``: (len(dims), N) coordinates of the flat `indices`."""

    def construct(self, indices: Tensor, dims: Tensor) -> Tensor:
        d = tuple(int(v) for v in np.asarray(dims.asnumpy() if isinstance(dims, Tensor) else dims).reshape(-1))
        idx = np.asarray(indices.asnumpy() if isinstance(indices, Tensor) else indices)
        if np.any((idx < 0) | (idx >= int(np.prod(d)))):
            raise ValueError(f"UnravelIndex: indices must be in [0, {int(np.prod(d))})")
        return Tensor(np.stack(np.unravel_index(idx, d)).astype(idx.dtype))


class NextAfter_(Operation):
    """``NextAfter()(x1, x2)``."""

    def construct(self, x1: Tensor, x2: Tensor) -> Tensor:
        return nextafter(x1, x2)


class PopulationCount_(Operation):
    """``PopulationCount()(input_x)``."""

    def construct(self, input_x: Tensor) -> Tensor:
        return population_count(input_x)


class LeftShift(Operation):
    """``LeftShift()(x1, x2)``: x1 << x2."""

    def construct(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.bitwise_left_shift(x1, x2)


class RightShift(Operation):
    """``RightShift()(input_x, input_y)``: input_x >> input_y."""

    def construct(self, input_x: Tensor, input_y: Tensor) -> Tensor:
        return F.bitwise_right_shift(input_x, input_y)


class Lcm(Operation):
    """``Lcm()(x1, x2)``: the least common multiple."""

    def construct(self, x1: Tensor, x2: Tensor) -> Tensor:
        from .tensor_inplace_fill_ops import lcm

        return lcm(x1, x2)


class LerpScalar(Operation):
    """``LerpScalar()(input, end, weight)``: input + weight * (end - input), a scalar weight."""

    def construct(self, input: Tensor, end: Tensor, weight: float) -> Tensor:
        return F.lerp(input, end, weight)


class Logit(Operation):
    """``Logit(eps=-1.0)(x)``: log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps >= 0."""

    def __init__(self, eps: float = -1.0) -> None:
        self.eps = eps

    def construct(self, x: Tensor) -> Tensor:
        return F.logit(x, None if self.eps < 0 else self.eps)


class TripletMarginLoss(Operation):
    """``TripletMarginLoss(p=2, swap=False, eps=1e-06, reduction='mean')(x, positive, negative, margin)``."""

    def __init__(self, p: int = 2, swap: bool = False, eps: float = 1e-06, reduction: str = "mean") -> None:
        self.p, self.swap, self.eps, self.reduction = p, swap, eps, reduction

    def construct(self, x: Tensor, positive: Tensor, negative: Tensor, margin: Any) -> Tensor:
        m = float(margin.item() if isinstance(margin, Tensor) else margin)
        return A.triplet_margin_loss(x, positive, negative, m, self.p, self.eps, self.swap, self.reduction)


class MultiMarginLoss(Operation):
    """``MultiMarginLoss(p=1, margin=1.0, reduction='mean')(inputs, target, weight=None)``."""

    def __init__(self, p: int = 1, margin: float = 1.0, reduction: str = "mean") -> None:
        self.p, self.margin, self.reduction = p, margin, reduction

    def construct(self, inputs: Tensor, target: Tensor, weight: Tensor | None = None) -> Tensor:
        return A.multi_margin_loss(inputs, target, self.p, self.margin, weight, self.reduction)


class MultilabelMarginLoss(Operation):
    """``MultilabelMarginLoss(reduction='mean')(x, target)`` -> (loss, is_target): is_target (int32,
    target's shape) marks the target classes of each sample."""

    def __init__(self, reduction: str = "mean") -> None:
        self.reduction = reduction

    def construct(self, x: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
        loss = A.multilabel_margin_loss(x, target, self.reduction)
        t = target.asnumpy()
        is_target = np.zeros(t.shape, np.int32)
        for row, trow in zip(is_target.reshape(-1, t.shape[-1]), t.reshape(-1, t.shape[-1])):
            for v in trow:
                if v < 0:
                    break
                row[v] = 1
        return loss, Tensor(is_target)


class SigmoidCrossEntropyWithLogits(Operation):
    """``SigmoidCrossEntropyWithLogits()(logits, label)``: the element-wise binary cross-entropy
    of sigmoid(logits) against `label` (no reduction)."""

    def construct(self, logits: Tensor, label: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(logits, label, reduction="none")


class RmsNorm(Operation):
    """``RmsNorm(epsilon=1e-06)(x, gamma)`` -> (y, rstd)."""

    def __init__(self, epsilon: float = 1e-06) -> None:
        self.epsilon = epsilon

    def construct(self, x: Tensor, gamma: Tensor) -> tuple[Tensor, Tensor]:
        return A.rms_norm(x, gamma, self.epsilon)


NextAfter_.__name__ = NextAfter_.__qualname__ = "NextAfter"
PopulationCount_.__name__ = PopulationCount_.__qualname__ = "PopulationCount"
