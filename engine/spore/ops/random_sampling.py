"""MindSpore's sampling ops that transform uniform draws (issue 14): `bernoulli` (and `bernoulli_`,
`bernoulli_ext`, `Tensor.bernoulli`), `exponential_`, `Tensor.cauchy`, `gumbel_softmax`.

Uniform numbers come from the global generator (`ms.set_seed` makes them reproducible) through
`ops.rand_like`, or from an `ms.Generator` when one is passed as `generator`; each distribution
is then the inverse of its CDF (exponential: -log(1 - U) / lambd; Cauchy: median + sigma *
tan(pi (U - 1/2))). Samples carry no gradient, except gumbel_softmax's, which is the softmax's (and,
with `hard`, the straight-through estimator: forward one-hot, backward the soft sample's gradient).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..tensor import Tensor, tensor_method
from . import functional as F


def _uniform(like: Tensor, generator: Any = None, seed: Any = None) -> Tensor:
    """U[0, 1) of `like`'s shape, in its float dtype (float32 for integer tensors)."""
    dt = like.dtype if like.dtype.is_float else mstype.float32
    if generator is None:
        return F.stop_gradient(F.rand_like(like, seed, dtype=dt))
    gen = getattr(generator, "numpy_generator", None)
    if gen is None:
        raise TypeError(f"generator must be a spore.Generator, got {type(generator).__name__}")
    return Tensor(np.asarray(gen.random(tuple(like.shape)), dt.np))


def _check_p(op: str, p: Any) -> None:
    if isinstance(p, (int, float)) and not 0.0 <= p <= 1.0:
        raise ValueError(f"{op}: p must be in [0, 1], got {p}")


def bernoulli(input: Tensor, p: Any = 0.5, seed: int | None = None) -> Tensor:
    """0/1 samples in `input`'s shape and dtype, each 1 with probability `p` (a number or a tensor
    broadcasting to `input`)."""
    _check_p("bernoulli", p)
    u = _uniform(input, seed=seed)
    return F.cast(F.less(u, F.cast(p, u.dtype) if isinstance(p, Tensor) else p), input.dtype)


def bernoulli_ext(input: Tensor, *, generator: Any = None) -> Tensor:
    """0/1 samples, each 1 with the probability given by the matching element of `input`."""
    u = _uniform(input, generator)
    return F.cast(F.less(u, F.cast(input, u.dtype)), input.dtype)


tensor_method("bernoulli")(bernoulli_ext)


@tensor_method("bernoulli_")
def bernoulli_(input: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    """Fills `input` in place with 0/1 samples that are 1 with probability `p`."""
    _check_p("bernoulli_", p)
    u = _uniform(input, generator)
    draws = F.cast(F.less(u, F.cast(p, u.dtype) if isinstance(p, Tensor) else p), input.dtype)
    return F.setitem_(input, Ellipsis, F.broadcast_to(draws, tuple(input.shape)))


@tensor_method("exponential_")
def exponential_(input: Tensor, lambd: float = 1, *, generator: Any = None) -> Tensor:
    """Fills `input` in place with samples of the exponential distribution of rate `lambd`."""
    if lambd <= 0:
        raise ValueError(f"exponential_: lambd must be positive, got {lambd}")
    u = _uniform(input, generator)
    return F.setitem_(input, Ellipsis, F.cast(F.div(F.neg(F.log1p(F.neg(u))), float(lambd)), input.dtype))


@tensor_method("cauchy")
def _cauchy(self: Tensor, median: float = 0.0, sigma: float = 1.0) -> Tensor:
    """Fills this tensor in place with Cauchy samples (location `median`, scale `sigma`)."""
    if sigma <= 0:
        raise ValueError(f"cauchy: sigma must be positive, got {sigma}")
    u = _uniform(self)
    draws = F.add(F.mul(F.tan(F.mul(F.sub(u, 0.5), math.pi)), float(sigma)), float(median))
    return F.setitem_(self, Ellipsis, F.cast(draws, self.dtype))


def gumbel_softmax(logits: Tensor, tau: float = 1.0, hard: bool = False, dim: int = -1) -> Tensor:
    """A sample of the Gumbel-softmax distribution: softmax((logits + Gumbel noise) / tau) along
    `dim`; with `hard`, the one-hot of its argmax in the forward pass and the soft sample's gradient
    in the backward one."""
    if not isinstance(logits, Tensor) or not logits.dtype.is_float:
        raise TypeError("gumbel_softmax: logits must be a float Tensor")
    if tau <= 0:
        raise ValueError(f"gumbel_softmax: tau must be positive, got {tau}")
    if logits.ndim == 0:
        raise ValueError("gumbel_softmax: logits must have at least one dimension")
    u = _uniform(logits)
    tiny = float(np.finfo(logits.dtype.np).tiny)
    gumbel = F.neg(F.log(F.neg(F.log(F.add(u, tiny)))))
    y = F.softmax(F.div(F.add(logits, gumbel), tau), dim)
    if not hard:
        return y
    ax = dim % logits.ndim
    idx = F.argmax(y, ax, True)
    n = logits.shape[ax]
    ar = np.arange(n).reshape([n if i == ax else 1 for i in range(logits.ndim)])
    one_hot = F.cast(F.equal(Tensor(ar.astype(np.int64)), F.cast(idx, mstype.int64)), y.dtype)
    return F.add(F.sub(one_hot, F.stop_gradient(y)), y)
