"""Samplers: which indices of a random-accessible source an epoch reads, and in what order.

A sampler turns (dataset size, epoch context) into an index array. Random samplers draw from the
epoch's generator, so every epoch has a new order that ``set_seed`` reproduces. A user class may
subclass ``Sampler`` and implement ``__iter__`` (yielding indices), as in MindSpore; any plain
iterable of ints (a list, a range) is accepted wherever a sampler is.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ._seeding import EpochCtx


def _check_num_samples(num_samples: int | None) -> int | None:
    if num_samples is None:
        return None
    if not isinstance(num_samples, (int, np.integer)) or isinstance(num_samples, bool) or num_samples < 0:
        raise ValueError(f"num_samples must be a non-negative int or None, got {num_samples!r}")
    return int(num_samples) or None  # MindSpore treats 0 as "all"


class Sampler:
    """Base of all samplers. Subclass and implement ``__iter__`` to write a custom one.

    ``self.dataset_size`` is set before ``__iter__`` is called each epoch.
    """

    def __init__(self, num_samples: int | None = None) -> None:
        self.num_samples = _check_num_samples(num_samples)
        self.dataset_size = 0

    def __iter__(self):  # pragma: no cover - overridden by user samplers
        raise NotImplementedError("a custom Sampler must implement __iter__ yielding indices")

    def get_num_samples(self) -> int | None:
        return self.num_samples

    # --- what the sources call ---------------------------------------------------------------
    def _draw(self, n: int, ctx: EpochCtx) -> np.ndarray:
        self.dataset_size = n
        return np.fromiter((int(i) for i in iter(self)), dtype=np.int64)

    def _indices(self, n: int, ctx: EpochCtx) -> np.ndarray:
        idx = self._draw(n, ctx)
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            bad = idx[(idx < 0) | (idx >= n)][0]
            raise IndexError(f"{type(self).__name__} produced index {bad} for a dataset of {n} rows")
        return idx[: self.num_samples] if self.num_samples else idx

    def _count(self, n: int) -> int | None:
        """Rows per epoch without drawing them, or None when only drawing can tell."""
        return None


class SequentialSampler(Sampler):
    """Indices in order, from ``start_index``."""

    def __init__(self, start_index: int | None = None, num_samples: int | None = None) -> None:
        super().__init__(num_samples)
        self.start_index = int(start_index or 0)
        if self.start_index < 0:
            raise ValueError(f"start_index must be >= 0, got {start_index}")

    def _draw(self, n: int, ctx: EpochCtx) -> np.ndarray:
        return np.arange(min(self.start_index, n), n, dtype=np.int64)

    def _count(self, n: int) -> int:
        m = max(0, n - self.start_index)
        return min(m, self.num_samples) if self.num_samples else m


class RandomSampler(Sampler):
    """A new random permutation each epoch (or ``num_samples`` draws with replacement)."""

    def __init__(self, replacement: bool = False, num_samples: int | None = None, shuffle: Any = "global") -> None:
        super().__init__(num_samples)
        self.replacement = bool(replacement)
        # MindSpore's Shuffle.GLOBAL (the one mode it documents for this sampler); kept for its calls
        self.shuffle = getattr(shuffle, "value", shuffle)

    def _draw(self, n: int, ctx: EpochCtx) -> np.ndarray:
        rng = ctx.rng()
        if self.replacement:
            return rng.integers(0, n, size=self.num_samples or n, dtype=np.int64) if n else np.zeros(0, np.int64)
        return rng.permutation(n).astype(np.int64)

    def _count(self, n: int) -> int:
        return min(n, self.num_samples) if self.num_samples and not self.replacement else (self.num_samples or n)


class DistributedSampler(Sampler):
    """The shard ``shard_id`` of ``num_shards`` equal shards, for data-parallel training.

    Every rank builds the same order (the permutation comes from the shared seed, see
    ``_seeding``), pads it by wrapping around to ``num_shards * ceil(n / num_shards)`` indices, and
    takes every ``num_shards``-th one starting at ``shard_id``. Shards are equal in size, as
    MindSpore's are; when ``n`` is not divisible, the first few indices of the order appear in
    two shards.
    """

    def __init__(self, num_shards: int, shard_id: int, shuffle: bool = True, num_samples: int | None = None,
                 offset: int = -1) -> None:
        super().__init__(num_samples)
        if not isinstance(num_shards, int) or num_shards < 1:
            raise ValueError(f"num_shards must be a positive int, got {num_shards!r}")
        if not isinstance(shard_id, int) or not 0 <= shard_id < num_shards:
            raise ValueError(f"shard_id must be an int in [0, {num_shards - 1}], got {shard_id!r}")
        if not isinstance(shuffle, bool):
            raise TypeError(f"shuffle must be a bool, got {shuffle!r}")
        self.num_shards, self.shard_id, self.shuffle, self.offset = num_shards, shard_id, shuffle, offset

    def _draw(self, n: int, ctx: EpochCtx) -> np.ndarray:
        order = ctx.shared_rng().permutation(n) if self.shuffle else np.arange(n)
        if n == 0:
            return order.astype(np.int64)
        per = math.ceil(n / self.num_shards)
        return np.resize(order, per * self.num_shards)[self.shard_id :: self.num_shards].astype(np.int64)

    def _count(self, n: int) -> int:
        per = math.ceil(n / self.num_shards)
        return min(per, self.num_samples) if self.num_samples else per


class SubsetSampler(Sampler):
    """The given indices, in the given order."""

    def __init__(self, indices: Sequence[int], num_samples: int | None = None) -> None:
        super().__init__(num_samples)
        self.indices = np.asarray(list(indices), dtype=np.int64)

    def _draw(self, n: int, ctx: EpochCtx) -> np.ndarray:
        return self.indices.copy()

    def _count(self, n: int) -> int:
        m = len(self.indices)
        return min(m, self.num_samples) if self.num_samples else m


class SubsetRandomSampler(SubsetSampler):
    """The given indices in a new random order each epoch."""

    def _draw(self, n: int, ctx: EpochCtx) -> np.ndarray:
        return ctx.rng().permutation(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probability proportional to ``weights``."""

    def __init__(self, weights: Sequence[float], num_samples: int | None = None, replacement: bool = True) -> None:
        super().__init__(num_samples)
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim != 1 or w.size == 0 or (w < 0).any() or w.sum() <= 0:
            raise ValueError("weights must be a non-empty 1-D sequence of non-negative numbers, not all zero")
        self.weights, self.replacement = w, bool(replacement)

    def _draw(self, n: int, ctx: EpochCtx) -> np.ndarray:
        k = self.num_samples or len(self.weights)
        return ctx.rng().choice(len(self.weights), size=k, replace=self.replacement,
                                p=self.weights / self.weights.sum()).astype(np.int64)

    def _count(self, n: int) -> int:
        return self.num_samples or len(self.weights)


class _IterableSampler(Sampler):
    """Wraps a plain iterable of indices (MindSpore accepts one as ``sampler=``)."""

    def __init__(self, source: Iterable[int]) -> None:
        super().__init__(None)
        self.source = source

    def _draw(self, n: int, ctx: EpochCtx) -> np.ndarray:
        return np.fromiter((int(i) for i in self.source), dtype=np.int64)

    def _count(self, n: int) -> int | None:
        return len(self.source) if hasattr(self.source, "__len__") else None  # type: ignore[arg-type]


def resolve_sampler(sampler: Any, shuffle: bool | None, num_samples: int | None, num_shards: int | None,
                    shard_id: int | None, owner: str) -> Sampler:
    """MindSpore's rules for a source's (sampler, shuffle, num_samples, num_shards, shard_id).

    A sampler excludes ``shuffle`` and sharding; sharding needs both ``num_shards`` and
    ``shard_id``; with none of them, ``shuffle=None`` means shuffled (MindSpore's default).
    """
    if shuffle is not None and not isinstance(shuffle, bool):
        raise TypeError(f"{owner}: shuffle must be a bool or None, got {shuffle!r}")
    if (num_shards is None) != (shard_id is None):
        raise ValueError(f"{owner}: give both num_shards and shard_id, or neither")
    if sampler is not None:
        if shuffle is not None:
            raise ValueError(f"{owner}: sampler and shuffle cannot both be given (the sampler decides the order)")
        if num_shards is not None:
            raise ValueError(f"{owner}: sampler and num_shards cannot both be given; use a DistributedSampler")
        s = copy.copy(sampler) if isinstance(sampler, Sampler) else _IterableSampler(sampler)
        if num_samples:
            s.num_samples = _check_num_samples(num_samples)
        return s
    if num_shards is not None:
        return DistributedSampler(num_shards, shard_id, shuffle=shuffle is not False, num_samples=num_samples)
    auto = _data_parallel_shard()
    if auto is not None:  # DATA_PARALLEL on several ranks: each rank reads its own shard of the same order
        return DistributedSampler(auto[0], auto[1], shuffle=shuffle is not False, num_samples=num_samples)
    if shuffle is False:
        return SequentialSampler(num_samples=num_samples)
    return RandomSampler(num_samples=num_samples)


def _data_parallel_shard() -> tuple[int, int] | None:
    """(ranks, this rank) under data-parallel training on several ranks (`spore.parallel`), else None."""
    from ..parallel._context import data_parallel

    if not data_parallel():
        return None
    from ..communication import get_group_size, get_rank

    return get_group_size(), get_rank()
