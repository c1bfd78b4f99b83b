"""MindSpore's two-parameter Gamma sampler (issue 14, slice A2): `ops.gamma(shape, alpha, beta,
seed=None)` and its class form `ops.Gamma(seed=0, seed2=0)(shape, alpha, beta)`.

Built on `random_gamma` (Gamma(alpha, 1) draws, ops/random_distribution_ops.py): the samples are
Gamma(alpha, 1) / beta, i.e. `beta` is the *inverse scale* (rate), as MindSpore's parameter docs
say ("β ... inverse scale parameter"); its density formula, written with exp(-x/β), reads β as a
scale — the parameter text is followed, and the test checks the mean alpha / beta. The output has
the broadcast shape of `shape`, `alpha` and `beta` and is float32.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError
from ..tensor import Tensor
from . import functional as F
from .random_distribution_ops import _Seeded, random_gamma


def _param(op: str, name: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: {name} must be a Tensor, got {type(x).__name__}")
    if not x.dtype.is_float:
        raise DTypeError(op, f"a float32 {name}", str(x.dtype))
    return F.cast(x, mstype.float32)


def gamma(shape: tuple[int, ...], alpha: Tensor, beta: Tensor, seed: int | None = None) -> Tensor:
    """Gamma(alpha, rate=beta) float32 samples of the broadcast shape of `shape`, `alpha`, `beta`."""
    op = "gamma"
    if not isinstance(shape, tuple) or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0
                                               for s in shape):
        raise TypeError(f"{op}: shape must be a tuple of non-negative ints, got {shape!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise TypeError(f"{op}: seed must be a non-negative int or None, got {seed!r}")
    a, b = _param(op, "alpha", alpha), _param(op, "beta", beta)
    out = tuple(np.broadcast_shapes(shape, tuple(a.shape), tuple(b.shape)))
    draws = random_gamma((), F.broadcast_to(a, out), seed)
    return draws / F.broadcast_to(b, out)


class Gamma(_Seeded):
    """``Gamma(seed=0, seed2=0)(shape, alpha, beta)``: Gamma(alpha, rate=beta) float32 samples of
    the broadcast shape of `shape`, `alpha` and `beta`."""

    def construct(self, shape: Any, alpha: Tensor, beta: Tensor) -> Tensor:
        return gamma(tuple(shape), alpha, beta, self._s())


__all__ = ["Gamma"]  # the class form (ops/__init__.py CLASS_MODULES); the function comes from functional
