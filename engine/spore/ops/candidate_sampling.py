"""MindSpore's candidate samplers for sampled-softmax training (issue 14): `UniformCandidateSampler`
/ `uniform_candidate_sampler`, `LogUniformCandidateSampler` / `log_uniform_candidate_sampler`
and `ComputeAccidentalHits` — TensorFlow's candidate-sampling ops, which MindSpore follows.

A sampler returns (sampled_candidates [num_sampled], true_expected_count [batch, num_true],
sampled_expected_count [num_sampled]); an expected count is how often the class is expected
among the draws: ``p * num_sampled`` when drawing with replacement, ``1 - (1 - p) ** num_tries``
when `unique` (drawing until num_sampled distinct classes were found took num_tries draws).
The uniform sampler gives every class p = 1 / range_max; the log-uniform (Zipfian) one
``p(k) = log((k + 2) / (k + 1)) / log(range_max + 1)``, drawing ``floor(exp(u * log(range_max + 1))) - 1``.
With `remove_accidental_hits`, the uniform sampler rejects draws equal to one of the true classes
(they count as tries), as MindSpore's kernel does.

Draws are on the host from Spore's global generator (seed 0) or the op's own generator (a
nonzero seed, advancing with each call); a compiled construct refuses them at the user's line.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..common import seed as _seed
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor
from .operation import Operation

__all__ = ["UniformCandidateSampler", "LogUniformCandidateSampler", "ComputeAccidentalHits"]


def _int(op: str, name: str, v: Any, lo: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < lo:
        raise ValueError(f"{op}: {name} must be an int >= {lo}, got {v!r}")
    return int(v)


def _true_classes(op: str, true_classes: Any, num_true: int) -> np.ndarray:
    if not isinstance(true_classes, Tensor):
        raise TypeError(f"{op}: true_classes must be a Tensor, got {type(true_classes).__name__}")
    if true_classes.dtype not in (mstype.int32, mstype.int64):
        raise DTypeError(op, "int32 or int64 true_classes", str(true_classes.dtype))
    t = true_classes.asnumpy()
    if t.ndim != 2 or t.shape[1] != num_true:
        raise ShapeError(op, f"true_classes of shape (batch, num_true={num_true})", f"shape {t.shape}")
    return t


def _expected(p: np.ndarray, num_sampled: int, num_tries: int, unique: bool) -> np.ndarray:
    if not unique or num_tries == num_sampled:
        return (p * num_sampled).astype(np.float32)
    return (-np.expm1(num_tries * np.log1p(-p))).astype(np.float32)


class _Sampler(Operation):
    _op = ""

    def _setup(self, num_true: Any, num_sampled: Any, unique: Any, range_max: Any, seed: Any) -> None:
        op = self._op
        self.num_true = _int(op, "num_true", num_true, 1)
        self.num_sampled = _int(op, "num_sampled", num_sampled, 1)
        self.range_max = _int(op, "range_max", range_max, 1)
        self.seed = _int(op, "seed", seed, 0)
        if not isinstance(unique, bool):
            raise TypeError(f"{op}: unique must be a bool, got {type(unique).__name__}")
        self.unique = unique
        if unique and self.num_sampled > self.range_max:
            raise ValueError(f"{op}: with unique=True, num_sampled ({self.num_sampled}) must not exceed "
                             f"range_max ({self.range_max})")
        self._gen = np.random.default_rng(self.seed) if self.seed else None

    def _rng(self) -> np.random.Generator:
        return self._gen if self._gen is not None else _seed.rng()

    def _draw(self, gen: np.random.Generator, n: int) -> np.ndarray:
        raise TypeError(f"{type(self).__name__} must define _draw")

    def _prob(self, k: np.ndarray) -> np.ndarray:
        raise TypeError(f"{type(self).__name__} must define _prob")

    def _sample(self, avoid: set[int]) -> tuple[np.ndarray, int]:
        gen, want = self._rng(), self.num_sampled
        if not self.unique and not avoid:
            return self._draw(gen, want), want
        picked: list[int] = []
        seen: set[int] = set()
        tries = 0
        while len(picked) < want:
            for v in self._draw(gen, max(2 * (want - len(picked)), 16)).tolist():
                tries += 1
                if v in avoid or (self.unique and v in seen):
                    continue
                picked.append(v)
                seen.add(v)
                if len(picked) == want:
                    break
            if tries > 10_000 * (want + self.range_max):
                raise ValueError(f"{self._op}: cannot draw {want} candidates outside the true classes")
        return np.asarray(picked, np.int64), tries

    def _run(self, true_classes: Any, avoid_true: bool, out_dtype: Any) -> tuple[Tensor, Tensor, Tensor]:
        t = _true_classes(self._op, true_classes, self.num_true)
        if t.size and (t.min() < 0 or t.max() >= self.range_max):
            raise ValueError(f"{self._op}: true_classes must lie in [0, range_max={self.range_max})")
        avoid = set(t.reshape(-1).tolist()) if avoid_true else set()
        if avoid_true and self.unique and self.num_sampled > self.range_max - len(avoid):
            raise ValueError(f"{self._op}: {self.num_sampled} distinct candidates cannot avoid "
                             f"{len(avoid)} true classes among {self.range_max}")
        sampled, tries = self._sample(avoid)
        true_exp = _expected(self._prob(t), self.num_sampled, tries, self.unique)
        samp_exp = _expected(self._prob(sampled), self.num_sampled, tries, self.unique)
        return Tensor(sampled.astype(out_dtype)), Tensor(true_exp), Tensor(samp_exp)


class UniformCandidateSampler(_Sampler):
    """``UniformCandidateSampler(num_true, num_sampled, unique, range_max, seed=0,
    remove_accidental_hits=False)(true_classes)``: `num_sampled` classes drawn uniformly from
    [0, range_max) (see the module docstring); sampled_candidates has true_classes' dtype."""

    _op = "UniformCandidateSampler"

    def __init__(self, num_true: int, num_sampled: int, unique: bool, range_max: int, seed: int = 0,
                 remove_accidental_hits: bool = False) -> None:
        self._setup(num_true, num_sampled, unique, range_max, seed)
        if not isinstance(remove_accidental_hits, bool):
            raise TypeError(f"{self._op}: remove_accidental_hits must be a bool")
        self.remove_accidental_hits = remove_accidental_hits

    def _draw(self, gen: np.random.Generator, n: int) -> np.ndarray:
        return gen.integers(0, self.range_max, n, dtype=np.int64)

    def _prob(self, k: np.ndarray) -> np.ndarray:
        return np.full(np.shape(k), 1.0 / self.range_max)

    def construct(self, true_classes: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        return self._run(true_classes, self.remove_accidental_hits, true_classes.dtype.np)


class LogUniformCandidateSampler(_Sampler):
    """``LogUniformCandidateSampler(num_true=1, num_sampled=5, unique=True, range_max=5, seed=0)
    (true_classes)``: `num_sampled` classes from the log-uniform (Zipfian) distribution over
    [0, range_max), small ids the likeliest (see the module docstring); int64 candidates."""

    _op = "LogUniformCandidateSampler"

    def __init__(self, num_true: int = 1, num_sampled: int = 5, unique: bool = True, range_max: int = 5,
                 seed: int = 0) -> None:
        self._setup(num_true, num_sampled, unique, range_max, seed)
        self._log_range = math.log1p(self.range_max)

    def _draw(self, gen: np.random.Generator, n: int) -> np.ndarray:
        v = np.floor(np.exp(gen.random(n) * self._log_range)).astype(np.int64) - 1
        return np.clip(v, 0, self.range_max - 1)

    def _prob(self, k: np.ndarray) -> np.ndarray:
        k = np.asarray(k, np.float64)
        return np.log((k + 2.0) / (k + 1.0)) / self._log_range

    def construct(self, true_classes: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        return self._run(true_classes, False, np.int64)


def uniform_candidate_sampler(true_classes: Tensor, num_true: int, num_sampled: int, unique: bool, range_max: int,
                              seed: int = 0, remove_accidental_hits: bool = False) -> tuple[Tensor, Tensor, Tensor]:
    """Uniform candidate sampling (`UniformCandidateSampler`): (sampled_candidates,
    true_expected_count, sampled_expected_count)."""
    return UniformCandidateSampler(num_true, num_sampled, unique, range_max, seed, remove_accidental_hits)(
        true_classes)


def log_uniform_candidate_sampler(true_classes: Tensor, num_true: int = 1, num_sampled: int = 5, unique: bool = True,
                                  range_max: int = 5, seed: int = 0) -> tuple[Tensor, Tensor, Tensor]:
    """Log-uniform (Zipfian) candidate sampling (`LogUniformCandidateSampler`)."""
    return LogUniformCandidateSampler(num_true, num_sampled, unique, range_max, seed)(true_classes)


class ComputeAccidentalHits(Operation):
    """``ComputeAccidentalHits(num_true=1)(true_classes, sampled_candidates)``: where a sampled
    candidate equals one of row i's true classes: (indices: the rows i, int32; ids: the positions
    in sampled_candidates, of true_classes' dtype; weights: float32 -FLT_MAX, to add to those
    sampled logits), row by row, candidates in order within a row."""

    def __init__(self, num_true: int = 1) -> None:
        self.num_true = _int("ComputeAccidentalHits", "num_true", num_true, 1)

    def construct(self, true_classes: Tensor, sampled_candidates: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        op = "ComputeAccidentalHits"
        t = _true_classes(op, true_classes, self.num_true)
        if not isinstance(sampled_candidates, Tensor) or sampled_candidates.ndim != 1:
            raise ShapeError(op, "a 1-D sampled_candidates", f"{getattr(sampled_candidates, 'shape', None)}")
        if sampled_candidates.dtype != true_classes.dtype:
            raise DTypeError(op, f"sampled_candidates of true_classes' dtype {true_classes.dtype}",
                             str(sampled_candidates.dtype))
        s = sampled_candidates.asnumpy()
        rows, ids = [], []
        for i, row in enumerate(t):
            members = set(row.tolist())
            for j, c in enumerate(s.tolist()):
                if c in members:
                    rows.append(i)
                    ids.append(j)
        weights = np.full(len(rows), -np.finfo(np.float32).max, np.float32)
        return (Tensor(np.asarray(rows, np.int32)), Tensor(np.asarray(ids, t.dtype)), Tensor(weights))
