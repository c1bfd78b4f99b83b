"""More of MindSpore's functional activations, losses and channel dropouts (issue 14): `celu`, `glu`,
`hardshrink`, `hardtanh`, `fast_gelu`, `inplace_sigmoid`, `huber_loss`, `hinge_embedding_loss`,
`gaussian_nll_loss`, `cosine_embedding_loss`, `dropout1d/2d/3d` and `group_norm`.

Each is a composite of registered ops (gradients, Graph mode and shape rules are theirs), with
MindSpore's documented formulas and defaults:

* fast_gelu(x) = x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|)), i.e. x * sigmoid(1.702 x);
* hinge_embedding_loss: x where the target is 1, max(0, margin - x) where it is -1 (other target
  values add both terms, as MindSpore's and PyTorch's formula does);
* gaussian_nll_loss clamps `var` below at `eps` (no gradient flows to `var` where it is clamped);
* cosine_embedding_loss takes the cosine along axis 1 with 1e-12 added to each squared norm;
* dropout1d/2d/3d zero whole channels (the axes after the channel one share one draw) and scale the
  kept ones by 1/(1 - p); the mask comes from the global generator, as `ops.dropout`'s.
"""

from __future__ import annotations

import math

from ..errors import ShapeError
from ..tensor import Tensor, tensor_method
from . import functional as F
from .nn_misc import Dropout

_REDUCTIONS = ("none", "mean", "sum")


def _reduce(op: str, loss: Tensor, reduction: str) -> Tensor:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{op}: reduction must be one of 'none', 'mean', 'sum', got {reduction!r}")
    if reduction == "mean":
        return F.mean(loss)
    if reduction == "sum":
        return F.sum(loss)
    return loss


def _floats(op: str, *xs: Tensor) -> None:
    for x in xs:
        if not isinstance(x, Tensor):
            raise TypeError(f"{op}: expected a Tensor, got {type(x).__name__}")
        if not x.dtype.is_float:
            from ..errors import DTypeError

            raise DTypeError(op, "a float tensor", str(x.dtype))


# --- activations ----------------------------------------------------------------------------------
def celu(x: Tensor, alpha: float = 1.0) -> Tensor:
    """CELU: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) element-wise (alpha must not be 0)."""
    if alpha == 0:
        raise ValueError("celu: alpha must not be 0")
    _floats("celu", x)
    neg = F.mul(F.expm1(F.div(F.minimum(x, 0.0), alpha)), alpha)
    return F.add(F.maximum(x, 0.0), F.minimum(neg, 0.0))


def glu(x: Tensor, axis: int = -1) -> Tensor:
    """Gated linear unit: the first half of `x` along `axis` times the sigmoid of the second half."""
    _floats("glu", x)
    if x.ndim == 0:
        raise ShapeError("glu", "a tensor of rank >= 1", "a scalar")
    ax = axis % x.ndim
    n = x.shape[ax]
    if n % 2:
        raise ShapeError("glu", f"an even size along axis {axis}", f"size {n} (shape {tuple(x.shape)})")
    a, b = F.split(x, n // 2, ax)
    return F.mul(a, F.sigmoid(b))


@tensor_method("hardshrink")
def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Hard shrinkage: x where |x| > lambd, 0 elsewhere."""
    _floats("hardshrink", input)
    return F.where(F.abs(input) > lambd, input, F.zeros_like(input))


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """Clamps each element into [min_val, max_val] (zero gradient outside)."""
    if min_val > max_val:
        raise ValueError(f"hardtanh: min_val ({min_val}) must not exceed max_val ({max_val})")
    _floats("hardtanh", input)
    return F.clamp(input, min_val, max_val)


def fast_gelu(x: Tensor) -> Tensor:
    """FastGeLU: x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|)), i.e. x * sigmoid(1.702 x)."""
    _floats("fast_gelu", x)
    return F.mul(x, F.sigmoid(F.mul(x, 1.702)))


def inplace_sigmoid(input: Tensor) -> Tensor:
    """Sigmoid written over `input` in place (returned)."""
    _floats("inplace_sigmoid", input)
    return F.setitem_(input, Ellipsis, F.sigmoid(input))


# --- losses ---------------------------------------------------------------------------------------
def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0) -> Tensor:
    """Huber loss: 0.5 z^2 where |z| < delta, delta (|z| - 0.5 delta) elsewhere (z = input - target)."""
    if delta <= 0:
        raise ValueError(f"huber_loss: delta must be positive, got {delta}")
    _floats("huber_loss", input, target)
    z = F.abs(F.sub(input, target))
    loss = F.where(z < delta, F.mul(F.square(z), 0.5), F.mul(F.sub(z, 0.5 * delta), delta))
    return _reduce("huber_loss", loss, reduction)


def hinge_embedding_loss(inputs: Tensor, targets: Tensor, margin: float = 1.0, reduction: str = "mean") -> Tensor:
    """Hinge embedding loss: x where the target is 1, max(0, margin - x) where it is -1."""
    _floats("hinge_embedding_loss", inputs)
    targets = F.cast(targets, inputs.dtype)
    zero = F.zeros_like(inputs)
    hinge = F.where(targets != 1, F.maximum(F.sub(margin, inputs), 0.0), zero)
    loss = F.add(hinge, F.where(targets != -1, inputs, zero))
    return _reduce("hinge_embedding_loss", loss, reduction)


def gaussian_nll_loss(x: Tensor, target: Tensor, var: Tensor, full: bool = False, eps: float = 1e-06,
                      reduction: str = "mean") -> Tensor:
    """Gaussian negative log likelihood: 0.5 (log(var) + (x - target)^2 / var) (+ 0.5 log(2 pi) when
    `full`), with `var` clamped below at `eps`; `var` may have one dimension fewer or a last size of 1
    (one variance per row)."""
    _floats("gaussian_nll_loss", x, target)
    if not isinstance(var, Tensor):
        var = F.full_like(x, float(var))
    if var.ndim == x.ndim - 1 and tuple(var.shape) == tuple(x.shape[:-1]):
        var = F.expand_dims(var, -1)
    try:
        F.broadcast_to(var, tuple(x.shape))
    except Exception as e:
        raise ShapeError("gaussian_nll_loss", f"var broadcastable to {tuple(x.shape)}", f"{tuple(var.shape)}") from e
    if not _tracing() and bool(F.reduce_min(var) < 0):
        raise ValueError("gaussian_nll_loss: var has negative entries")
    v = F.maximum(var, eps)
    loss = F.mul(F.add(F.log(v), F.div(F.square(F.sub(x, target)), v)), 0.5)
    if full:
        loss = F.add(loss, 0.5 * math.log(2 * math.pi))
    return _reduce("gaussian_nll_loss", loss, reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: str = "mean") -> Tensor:
    """1 - cos(x1, x2) where the target is 1, max(0, cos(x1, x2) - margin) where it is -1 (cosine
    along axis 1)."""
    _floats("cosine_embedding_loss", input1, input2)
    if tuple(input1.shape) != tuple(input2.shape):
        raise ShapeError("cosine_embedding_loss", "input1 and input2 of one shape",
                         f"{tuple(input1.shape)} and {tuple(input2.shape)}")
    if not -1.0 <= margin <= 1.0:
        raise ValueError(f"cosine_embedding_loss: margin must be in [-1, 1], got {margin}")
    prod = F.reduce_sum(F.mul(input1, input2), 1)
    m1 = F.add(F.reduce_sum(F.square(input1), 1), 1e-12)
    m2 = F.add(F.reduce_sum(F.square(input2), 1), 1e-12)
    cos = F.div(prod, F.sqrt(F.mul(m1, m2)))
    target = F.cast(target, input1.dtype)
    zero = F.zeros_like(cos)
    pos = F.where(target == 1, F.sub(1.0, cos), zero)
    neg = F.where(target == -1, F.maximum(F.sub(cos, margin), 0.0), zero)
    return _reduce("cosine_embedding_loss", F.add(pos, neg), reduction)


def _tracing() -> bool:
    from .primitive import TRACING

    return TRACING.builder is not None


# --- channel dropout ------------------------------------------------------------------------------
def _channel_dropout(op: str, input: Tensor, p: float, training: bool, ranks: tuple[int, ...]) -> Tensor:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{op}: p must be in [0, 1], got {p}")
    if input.ndim not in ranks:
        raise ShapeError(op, f"a tensor of rank {' or '.join(map(str, ranks))}", f"shape {tuple(input.shape)}")
    _floats(op, input)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return F.zeros_like(input)
    spatial = max(ranks) - 2  # axes after the channel one
    lead = input.ndim - spatial
    mask_shape = tuple(input.shape[:lead]) + (1,) * spatial
    keep = Dropout(F.ones(mask_shape, input.dtype), keep_prob=1.0 - float(p), seed=None)[0]
    return F.mul(input, keep)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True) -> Tensor:
    """Zeroes whole channels of an (N, C, L) or (C, L) input with probability `p` (kept ones scaled
    by 1/(1 - p)); the input itself when not training."""
    return _channel_dropout("dropout1d", input, p, training, (2, 3))


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True) -> Tensor:
    """Zeroes whole channels of an (N, C, H, W) input with probability `p` (kept ones scaled by
    1/(1 - p)); the input itself when not training."""
    return _channel_dropout("dropout2d", input, p, training, (3, 4))


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True) -> Tensor:
    """Zeroes whole channels of an (N, C, D, H, W) input with probability `p` (kept ones scaled by
    1/(1 - p)); the input itself when not training."""
    return _channel_dropout("dropout3d", input, p, training, (4, 5))


# --- group normalization --------------------------------------------------------------------------
def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-05) -> Tensor:
    """Group normalization of an (N, C, *) input: mean and (biased) variance over each group of
    C / num_groups channels and the spatial axes, then the per-channel affine `weight`, `bias`."""
    _floats("group_norm", input)
    if input.ndim < 2:
        raise ShapeError("group_norm", "an input of shape (N, C, *)", f"shape {tuple(input.shape)}")
    n, c = input.shape[0], input.shape[1]
    if num_groups <= 0 or c % num_groups:
        raise ValueError(f"group_norm: num_groups ({num_groups}) must divide the channel count ({c})")
    x = F.reshape(input, (n, num_groups, -1))
    mean = F.mean(x, 2, True)
    var = F.mean(F.square(F.sub(x, mean)), 2, True)
    y = F.reshape(F.div(F.sub(x, mean), F.sqrt(F.add(var, eps))), tuple(input.shape))
    affine = (1, c) + (1,) * (input.ndim - 2)
    if weight is not None:
        y = F.mul(y, F.reshape(weight, affine))
    if bias is not None:
        y = F.add(y, F.reshape(bias, affine))
    return y

