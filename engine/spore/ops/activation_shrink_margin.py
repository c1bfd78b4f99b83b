"""More of MindSpore's activations, losses and elementwise shorthands (issue 14): softsign,
soft_shrink, tanhshrink, threshold, logsigmoid, selu, softmin, prelu, rrelu, sinc, swiglu, rms_norm,
negative/subtract/tensor_gt/tensor_lt/tensor_muls, truncate_div/truncate_mod, and the margin-ranking,
soft-margin, multi-margin, multilabel, KL-divergence and triplet losses.

Each is a composite of registered ops (`functional`), so its gradient, Graph mode and shape rules
come from them. Formulas and defaults are MindSpore 2.10's documented ones.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor, tensor_method
from . import functional as F

_SELU_ALPHA = 1.67326324235437728481704299
_SELU_SCALE = 1.05070098735548049341933498


def _float(x: Tensor) -> Tensor:
    return x if x.dtype.is_float else F.cast(x, mstype.float32)


def _reduce(op: str, loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return F.mean(loss)
    if reduction == "sum":
        return F.reduce_sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"{op}: reduction must be 'none', 'mean' or 'sum', got {reduction!r}")


# --- activations -----------------------------------------------------------------------------------------
def softsign(x: Tensor) -> Tensor:
    """x / (1 + |x|)."""
    x = _float(x)
    return F.div(x, F.add(F.abs(x), 1))


@tensor_method("soft_shrink")
def soft_shrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x - lambd where x > lambd, x + lambd where x < -lambd, 0 in between (lambd >= 0)."""
    if lambd < 0:
        raise ValueError(f"soft_shrink: lambd must be >= 0, got {lambd}")
    zero = F.zeros_like(input)
    return F.where(F.greater(input, lambd), F.sub(input, lambd),
                   F.where(F.less(input, -lambd), F.add(input, lambd), zero))


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """The same as `soft_shrink`."""
    return soft_shrink(input, lambd)


def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x)."""
    x = _float(input)
    return F.sub(x, F.tanh(x))


def threshold(input: Tensor, thr: float, value: float) -> Tensor:
    """x where x > thr, `value` elsewhere."""
    return F.where(F.greater(input, thr), input, F.full_like(input, value))


def logsigmoid(x: Tensor) -> Tensor:
    """log(sigmoid(x)) = -softplus(-x), computed without overflow."""
    x = _float(x)
    return F.neg(F.softplus(F.neg(x)))


def selu(input_x: Tensor) -> Tensor:
    """scale * (x if x > 0 else alpha * (exp(x) - 1)) with SELU's fixed alpha and scale."""
    x = _float(input_x)
    neg = F.mul(F.expm1(F.minimum(x, 0)), _SELU_ALPHA)
    return F.mul(F.where(F.greater(x, 0), x, neg), _SELU_SCALE)


def softmin(x: Tensor, axis: Any = -1, *, dtype: Any = None) -> Tensor:
    """softmax(-x) along `axis` (cast to `dtype` first when given)."""
    if dtype is not None:
        x = F.cast(x, dtype)
    return F.softmax(F.neg(x), axis)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x where x >= 0, weight * x elsewhere; `weight` is one slope or one per channel (axis 1)."""
    w = weight if isinstance(weight, Tensor) else Tensor(np.asarray(weight, input.dtype.np))
    if w.ndim > 1:
        raise ShapeError("prelu", "a 1-D weight (one slope, or one per channel)", f"shape {tuple(w.shape)}")
    if w.ndim == 1 and w.shape[0] != 1:
        if input.ndim < 2 or input.shape[1] != w.shape[0]:
            raise ShapeError("prelu", f"input with {w.shape[0]} channels on axis 1", f"shape {tuple(input.shape)}")
        w = F.reshape(w, (w.shape[0],) + (1,) * (input.ndim - 2))
    return F.where(F.greater_equal(input, 0), input, F.mul(w, input))


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3) -> Tensor:
    """x where x >= 0, a * x elsewhere with each a drawn from U[lower, upper) (MindSpore draws on
    every call)."""
    if lower > upper:
        raise ValueError(f"rrelu: lower ({lower}) must be <= upper ({upper})")
    x = _float(input)
    a = F.uniform(tuple(x.shape), Tensor(np.asarray(lower, np.float32)), Tensor(np.asarray(upper, np.float32)),
                  dtype=x.dtype)
    return F.where(F.greater_equal(x, 0), x, F.mul(a, x))


@tensor_method("sinc")
def sinc(input: Tensor) -> Tensor:
    """sin(pi x) / (pi x), 1 at x = 0."""
    x = _float(input)
    px = F.mul(x, math.pi)
    zero = F.equal(x, 0)
    safe = F.where(zero, F.ones_like(px), px)
    return F.where(zero, F.ones_like(px), F.div(F.sin(safe), safe))


def swiglu(input: Tensor, dim: int = -1) -> Tensor:
    """a * silu(b), `input` split in two halves (a, b) along `dim`."""
    if input.shape[dim] % 2:
        raise ShapeError("swiglu", f"an even size on dim {dim}", f"shape {tuple(input.shape)}")
    a, b = F.split(input, input.shape[dim] // 2, dim)
    return F.mul(a, F.silu(b))


def rms_norm(x: Tensor, gamma: Tensor, epsilon: float = 1e-6) -> tuple[Tensor, Tensor]:
    """(x / rms(x) * gamma, 1 / rms(x)), the root mean square over gamma's trailing axes
    (MindSpore returns the reciprocal rms as the second output)."""
    axes = tuple(range(x.ndim - gamma.ndim, x.ndim))
    rstd = F.rsqrt(F.add(F.mean(F.square(x), axes, True), epsilon))
    return F.mul(F.mul(x, rstd), gamma), rstd


# --- elementwise shorthands -----------------------------------------------------------------------------
def negative(input: Tensor) -> Tensor:
    """-input (the same as `neg`)."""
    return F.neg(input)


def subtract(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """input - alpha * other."""
    return F.sub(input, other if alpha == 1 else F.mul(other, alpha))


def tensor_gt(input: Any, other: Any) -> Tensor:
    """input > other element-wise (the same as `gt`)."""
    return F.greater(input, other)


def tensor_lt(input: Any, other: Any) -> Tensor:
    """input < other element-wise (the same as `lt`)."""
    return F.less(input, other)


def tensor_muls(input: Any, other: Any) -> Tensor:
    """input * other with a scalar `other` (the same as `mul`)."""
    return F.mul(input, other)


def truncate_div(x: Any, y: Any) -> Tensor:
    """x / y rounded toward zero (integer division that truncates, unlike floor_divide)."""
    if isinstance(x, Tensor) and not x.dtype.is_float:
        q = F.trunc(F.div(F.cast(x, mstype.float64), y))
        return F.cast(q, x.dtype)
    return F.trunc(F.div(x, y))


def truncate_mod(x: Any, y: Any) -> Tensor:
    """The remainder of `truncate_div`, with the sign of x (C's %; `fmod`)."""
    if not isinstance(x, Tensor):
        x = Tensor(np.asarray(x, y.dtype.np if isinstance(y, Tensor) else None))
    return F.fmod(x, y)


# --- losses ------------------------------------------------------------------------------------------------
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: str = "mean") -> Tensor:
    """max(0, -target * (input1 - input2) + margin), reduced."""
    loss = F.relu(F.add(F.mul(F.neg(target), F.sub(input1, input2)), margin))
    return _reduce("margin_ranking_loss", loss, reduction)


def soft_margin_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """log(1 + exp(-target * input)), reduced (the mean is over every element)."""
    loss = F.softplus(F.neg(F.mul(target, input)))
    return _reduce("soft_margin_loss", loss, reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                reduction: str = "mean") -> Tensor:
    """-mean over classes of (y log sigmoid(x) + (1 - y) log sigmoid(-x)) (times `weight`), reduced
    over the batch."""
    if input.ndim != 2:
        raise ShapeError("multilabel_soft_margin_loss", "a 2-D input (N, C)", f"shape {tuple(input.shape)}")
    per = F.add(F.mul(target, logsigmoid(input)), F.mul(F.sub(1, target), logsigmoid(F.neg(input))))
    if weight is not None:
        per = F.mul(per, weight)
    loss = F.neg(F.mean(per, -1))
    return _reduce("multilabel_soft_margin_loss", loss, reduction)


def kl_div(logits: Tensor, labels: Tensor, reduction: str = "mean") -> Tensor:
    """labels * (log(labels) - logits) (0 where labels == 0), reduced: 'mean' over every element,
    'batchmean' over the first axis, 'sum' or 'none'."""
    pos = F.greater(labels, 0)
    safe = F.where(pos, labels, F.ones_like(labels))
    loss = F.where(pos, F.mul(labels, F.sub(F.log(safe), logits)), F.zeros_like(logits))
    if reduction == "batchmean":
        return F.div(F.reduce_sum(loss), logits.shape[0] if logits.ndim else 1)
    return _reduce("kl_div", loss, reduction)


def mse_loss_ext(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """(input - target) ** 2 (broadcast), reduced."""
    return _reduce("mse_loss_ext", F.square(F.sub(input, target)), reduction)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: int = 2,
                        eps: float = 1e-06, swap: bool = False, reduction: str = "mean") -> Tensor:
    """max(d(a, p) - d(a, n) + margin, 0) with d the p-norm distance along the last axis (eps added
    to the difference, as MindSpore/PyTorch's pairwise_distance); `swap` uses min(d(a, n), d(p, n))."""
    def dist(u: Tensor, v: Tensor) -> Tensor:
        diff = F.add(F.sub(u, v), eps)
        return F.pow(F.reduce_sum(F.pow(F.abs(diff), p), -1), 1.0 / p)

    d_pos, d_neg = dist(anchor, positive), dist(anchor, negative)
    if swap:
        d_neg = F.minimum(d_neg, dist(positive, negative))
    return _reduce("triplet_margin_loss", F.relu(F.add(F.sub(d_pos, d_neg), margin)), reduction)


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1, weight: Tensor | None = None,
                      reduction: str = "mean") -> Tensor:
    """Per sample: sum over i != y of max(0, margin - x[y] + x[i]) ** p / C (times weight[y])."""
    if p not in (1, 2):
        raise ValueError(f"multi_margin_loss: p must be 1 or 2, got {p}")
    if input.ndim != 2:
        raise ShapeError("multi_margin_loss", "a 2-D input (N, C)", f"shape {tuple(input.shape)}")
    if not target.dtype.is_int:
        raise DTypeError("multi_margin_loss", "an integer target", str(target.dtype))
    c = input.shape[1]
    hot = F.cast(F.one_hot(target, c, 1, 0), input.dtype)
    x_y = F.reduce_sum(F.mul(input, hot), -1, True)
    m = F.relu(F.add(F.sub(input, x_y), margin))
    if p == 2:
        m = F.square(m)
    m = F.mul(m, F.sub(1, hot))
    if weight is not None:
        m = F.mul(m, F.expand_dims(F.gather(weight, target, 0), -1))
    loss = F.div(F.reduce_sum(m, -1), c)
    return _reduce("multi_margin_loss", loss, reduction)


def multilabel_margin_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Per sample: sum over target classes j (target's entries before its first -1) and non-target
    classes i of max(0, 1 - (x[j] - x[i])) / C."""
    if tuple(input.shape) != tuple(target.shape) or input.ndim not in (1, 2):
        raise ShapeError("multilabel_margin_loss", "input and target of the same shape (C) or (N, C)",
                         f"shapes {tuple(input.shape)} and {tuple(target.shape)}")
    x = input if input.ndim == 2 else F.expand_dims(input, 0)
    t = target if target.ndim == 2 else F.expand_dims(target, 0)
    c = x.shape[1]
    valid = F.equal(F.cumprod(F.cast(F.not_equal(t, -1), mstype.int32), 1), 1)  # before the first -1
    safe_t = F.where(valid, t, F.zeros_like(t))
    hot = F.mul(F.cast(F.one_hot(safe_t, c, 1, 0), x.dtype), F.expand_dims(F.cast(valid, x.dtype), -1))  # (N, K, C)
    not_target = F.cast(F.equal(F.reduce_sum(hot, 1), 0), x.dtype)  # (N, C)
    x_j = F.reduce_sum(F.mul(F.expand_dims(x, 1), hot), -1)  # (N, K)
    hinge = F.relu(F.sub(1, F.sub(F.expand_dims(x_j, -1), F.expand_dims(x, 1))))  # (N, K, C)
    mask = F.mul(F.expand_dims(F.cast(valid, x.dtype), -1), F.expand_dims(not_target, 1))
    loss = F.div(F.reduce_sum(F.mul(hinge, mask), (1, 2)), c)
    if input.ndim == 1:
        loss = F.reshape(loss, ())
    return _reduce("multilabel_margin_loss", loss, reduction)
