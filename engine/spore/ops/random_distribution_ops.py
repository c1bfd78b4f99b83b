"""MindSpore's random samplers beyond uniform/normal (issue 14): `standard_normal`,
`standard_laplace`, `laplace`, `random_gamma`, `random_poisson`, `poisson`, `multinomial`,
`random_categorical`, `shuffle`, `kaiser_window`, and their class forms (`ops.StandardNormal`,
`ops.UniformInt`, `ops.RandomGamma`, `ops.Randperm`, ...).

Gamma and Poisson draws are the random primitive `ParamDraw` (NumPy's generator, one draw per
element of the broadcast parameter); Laplace is the inverse CDF of a uniform draw; categorical and
multinomial sampling use the Gumbel-max trick on the log-probabilities (Gumbel-top-k without
replacement), all from the global generator (`spore.set_seed`) unless a seed is given. As in
MindSpore, `seed=0` in the class forms means "no fixed seed".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor, tensor_method
from . import functional as F
from .creation import _draw, _gen, _size
from .operation import Operation
from .primitive import Aval, primitive


@primitive
class ParamDraw:
    """Draws one sample per element of the parameter tensor broadcast to `shape`: kind "gamma"
    (shape parameter alpha, scale 1) or "poisson" (rate)."""

    nondiff = True
    random = True

    def infer(param, kind="gamma", shape=(), dtype=mstype.float32, seed=None):
        if kind not in ("gamma", "poisson"):
            raise ValueError(f"ParamDraw: unknown kind {kind!r}")
        try:
            out = np.broadcast_shapes(tuple(shape), tuple(param.shape))
        except ValueError:
            raise ShapeError("ParamDraw", f"a parameter broadcasting to {tuple(shape)}",
                             f"shape {tuple(param.shape)}") from None
        return Aval(tuple(out), dtype)

    def impl(param, kind="gamma", shape=(), dtype=mstype.float32, seed=None):
        g = _gen(seed)
        p = np.broadcast_to(param, np.broadcast_shapes(tuple(shape), param.shape)).astype(np.float64)
        out = g.gamma(p) if kind == "gamma" else g.poisson(p)
        return np.asarray(out).astype(dtype.np)


def _seed(seed: Any) -> int | None:
    return None if seed is None or seed == 0 else int(seed)


def _tensor(v: Any, dt: mstype.DType = mstype.float32) -> Tensor:
    return v if isinstance(v, Tensor) else Tensor(np.asarray(v, dt.np))


def standard_normal(shape: Any, seed: int | None = None) -> Tensor:
    """Standard normal float32 samples of `shape`."""
    return _draw("normal", _size("standard_normal", (shape,)), mstype.float32, _seed(seed))


def standard_laplace(shape: Any, seed: int | None = None) -> Tensor:
    """Standard Laplace (location 0, scale 1) float32 samples of `shape`: -sign(u) log(1 - 2|u|)
    for u uniform in [-1/2, 1/2)."""
    u = F.sub(_draw("uniform", _size("standard_laplace", (shape,)), mstype.float32, _seed(seed)), 0.5)
    return F.neg(F.mul(F.sign(u), F.log1p(F.mul(F.abs(u), -2.0))))


def laplace(shape: Any, mean: Any, lambda_param: Any, seed: int | None = None) -> Tensor:
    """Laplace samples with location `mean` and scale `lambda_param` (broadcast with `shape`)."""
    m, b = _tensor(mean), _tensor(lambda_param)
    out = tuple(np.broadcast_shapes(_size("laplace", (shape,)), tuple(m.shape), tuple(b.shape)))
    return F.add(F.mul(standard_laplace(out, seed), b), m)


def random_gamma(shape: Any, alpha: Tensor, seed: int | None = None) -> Tensor:
    """Gamma(alpha, 1) samples of shape `shape` + alpha.shape (alpha's dtype)."""
    a = _tensor(alpha)
    if not a.dtype.is_float:
        raise DTypeError("random_gamma", "a float alpha", str(a.dtype))
    out = _size("random_gamma", (shape,)) + tuple(a.shape)
    return ParamDraw(a, kind="gamma", shape=out, dtype=a.dtype, seed=_seed(seed))


def random_poisson(shape: Any, rate: Tensor, seed: int | None = None, dtype: Any = mstype.float32) -> Tensor:
    """Poisson(rate) samples of shape `shape` + rate.shape, as `dtype`."""
    r = _tensor(rate)
    out = _size("random_poisson", (shape,)) + tuple(r.shape)
    return ParamDraw(r, kind="poisson", shape=out, dtype=mstype.to_dtype(dtype), seed=_seed(seed))


def poisson(shape: Any, mean: Tensor, seed: int | None = None) -> Tensor:
    """Poisson(mean) samples of `shape` broadcast with mean.shape, float32."""
    m = _tensor(mean)
    out = tuple(np.broadcast_shapes(_size("poisson", (shape,)), tuple(m.shape)))
    return ParamDraw(m, kind="poisson", shape=out, dtype=mstype.float32, seed=_seed(seed))


def _gumbel(shape: tuple[int, ...], seed: int | None, dt: mstype.DType) -> Tensor:
    u = _draw("uniform", shape, mstype.float64, seed)
    tiny = np.finfo(np.float64).tiny
    return F.cast(F.neg(F.log(F.neg(F.log(F.add(u, tiny))))), dt)


def random_categorical(logits: Tensor, num_sample: int, seed: int = 0, dtype: Any = mstype.int64) -> Tensor:
    """(batch, num_sample) class indices drawn from softmax(logits) per row (2-D logits)."""
    if logits.ndim != 2:
        raise ShapeError("random_categorical", "2-D logits (batch, classes)", f"shape {tuple(logits.shape)}")
    lg = F.cast(logits, mstype.float64)
    g = _gumbel((logits.shape[0], int(num_sample), logits.shape[1]), _seed(seed), mstype.float64)
    return F.cast(F.argmax(F.add(F.expand_dims(lg, 1), g), -1), dtype)


Tensor.random_categorical = lambda self, num_sample, seed=0, dtype=mstype.int64: random_categorical(  # noqa: E731
    self, num_sample, seed, dtype)


@tensor_method("multinomial")
def multinomial(input: Tensor, num_samples: int, replacement: bool = True, seed: int | None = None) -> Tensor:
    """int64 indices drawn with probabilities proportional to each row of `input` (1-D or 2-D,
    non-negative): with replacement independent draws, without it distinct indices (Gumbel-top-k)."""
    if input.ndim not in (1, 2):
        raise ShapeError("multinomial", "a 1-D or 2-D input of weights", f"shape {tuple(input.shape)}")
    n = int(num_samples)
    c = input.shape[-1]
    if not replacement and n > c:
        raise ValueError(f"multinomial: cannot draw {n} samples without replacement from {c} categories")
    logp = F.log(F.cast(input, mstype.float64))
    if replacement:
        shape = tuple(input.shape[:-1]) + (n, c)
        out = F.argmax(F.add(F.expand_dims(logp, -2), _gumbel(shape, _seed(seed), mstype.float64)), -1)
    else:
        _, out = F.topk(F.add(logp, _gumbel(tuple(input.shape), _seed(seed), mstype.float64)), n)
    return F.cast(out, mstype.int64)


def shuffle(x: Tensor, seed: int | None = None) -> Tensor:
    """x with its first axis randomly permuted."""
    if x.ndim == 0:
        return x
    perm = F.randperm(x.shape[0], seed=int(seed) if seed else 0)
    return F.gather(x, perm, 0)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype: Any = None) -> Tensor:
    """The Kaiser window I0(beta sqrt(1 - (2n/N - 1)^2)) / I0(beta); `periodic` drops the last
    point of a window one longer (for spectral analysis)."""
    if window_length < 0:
        raise ValueError(f"kaiser_window: window_length must be >= 0, got {window_length}")
    dt = mstype.to_dtype(dtype or mstype.float32)
    if window_length == 0:
        return Tensor(np.zeros(0, dt.np))
    if window_length == 1:
        return Tensor(np.ones(1, dt.np))
    n = window_length + 1 if periodic else window_length
    return Tensor(np.kaiser(n, beta)[:window_length].astype(dt.np))


# --- class forms ------------------------------------------------------------------------------------------
class _Seeded(Operation):
    def __init__(self, seed: int = 0, seed2: int = 0) -> None:
        if seed < 0 or seed2 < 0:
            raise ValueError(f"{type(self).__name__}: seed and seed2 must be >= 0, got {seed} and {seed2}")
        self.seed, self.seed2 = seed, seed2

    def _s(self) -> int | None:
        return None if self.seed == 0 and self.seed2 == 0 else self.seed * 1_000_003 + self.seed2


class StandardNormal(_Seeded):
    """``StandardNormal(seed=0, seed2=0)(shape)``: standard normal float32 samples."""

    def construct(self, shape: Any) -> Tensor:
        return standard_normal(shape, self._s())


class StandardLaplace(_Seeded):
    """``StandardLaplace(seed=0, seed2=0)(shape)``: standard Laplace float32 samples."""

    def construct(self, shape: Any) -> Tensor:
        return standard_laplace(shape, self._s())


class UniformReal(_Seeded):
    """``UniformReal(seed=0, seed2=0)(shape)``: float32 samples uniform in [0, 1)."""

    def construct(self, shape: Any) -> Tensor:
        return _draw("uniform", _size("UniformReal", (shape,)), mstype.float32, self._s())


class UniformInt(_Seeded):
    """``UniformInt(seed=0, seed2=0)(shape, minval, maxval)``: int32 samples uniform in [minval, maxval)."""

    def construct(self, shape: Any, minval: Any, maxval: Any) -> Tensor:
        lo = int(minval.item() if isinstance(minval, Tensor) else minval)
        hi = int(maxval.item() if isinstance(maxval, Tensor) else maxval)
        if lo >= hi:
            raise ValueError(f"UniformInt: minval ({lo}) must be < maxval ({hi})")
        return _draw("integers", _size("UniformInt", (shape,)), mstype.int32, self._s(), lo, hi)


class RandomGamma(_Seeded):
    """``RandomGamma(seed=0, seed2=0)(shape, alpha)``: Gamma(alpha, 1) samples of shape + alpha.shape."""

    def construct(self, shape: Any, alpha: Tensor) -> Tensor:
        return random_gamma(shape, alpha, self._s())


class Poisson(_Seeded):
    """``Poisson(seed=0, seed2=0)(shape, mean)``: Poisson(mean) int32 samples broadcast with mean."""

    def construct(self, shape: Any, mean: Tensor) -> Tensor:
        return F.cast(poisson(shape, mean, self._s()), mstype.int32)


class RandomPoisson(Operation):
    """``RandomPoisson(seed=0, seed2=0, dtype=mstype.int64)(shape, rate)``: samples of shape + rate.shape."""

    def __init__(self, seed: int = 0, seed2: int = 0, dtype: Any = mstype.int64) -> None:
        self.seed, self.seed2, self.dtype = seed, seed2, dtype

    def construct(self, shape: Any, rate: Tensor) -> Tensor:
        s = None if self.seed == 0 and self.seed2 == 0 else self.seed * 1_000_003 + self.seed2
        return random_poisson(shape, rate, s, self.dtype)


class RandomCategorical(Operation):
    """``RandomCategorical(dtype=mstype.int64)(logits, num_sample, seed=0)``: class draws per row."""

    def __init__(self, dtype: Any = mstype.int64) -> None:
        self.dtype = dtype

    def construct(self, logits: Tensor, num_sample: int, seed: int = 0) -> Tensor:
        return random_categorical(logits, num_sample, seed, self.dtype)


class Multinomial(Operation):
    """``Multinomial(seed=0, seed2=0, dtype=mstype.int32)(x, num_samples)``: draws with replacement."""

    def __init__(self, seed: int = 0, seed2: int = 0, dtype: Any = mstype.int32) -> None:
        self.seed, self.seed2, self.dtype = seed, seed2, dtype

    def construct(self, x: Tensor, num_samples: int) -> Tensor:
        s = None if self.seed == 0 and self.seed2 == 0 else self.seed * 1_000_003 + self.seed2
        return F.cast(multinomial(x, num_samples, True, s), self.dtype)


class RandomShuffle(_Seeded):
    """``RandomShuffle(seed=0, seed2=0)(x)``: x with its first axis randomly permuted."""

    def construct(self, x: Tensor) -> Tensor:
        return shuffle(x, self._s())


class Randperm(Operation):
    """``Randperm(max_length=1, pad=-1, dtype=mstype.int32)(n)``: a random permutation of 0..n-1
    padded with `pad` to `max_length`."""

    def __init__(self, max_length: int = 1, pad: int = -1, dtype: Any = mstype.int32) -> None:
        self.max_length, self.pad, self.dtype = max_length, pad, dtype

    def construct(self, n: Any) -> Tensor:
        k = int(n.reshape(-1)[0].item() if isinstance(n, Tensor) else n)
        if not 0 <= k <= self.max_length:
            raise ValueError(f"Randperm: n must be in [0, max_length={self.max_length}], got {k}")
        perm = F.cast(F.randperm(k), self.dtype)
        if k == self.max_length:
            return perm
        return F.cat([perm, F.full((self.max_length - k,), self.pad, dtype=self.dtype)], 0)
