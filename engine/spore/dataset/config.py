"""``spore.dataset.config``: MindSpore's pipeline-wide settings.

The seed is Spore's one global seed (``spore.set_seed``): a dataset shuffle and a weight
initializer under the same seed are both reproducible, and one call fixes both. The default
worker count is 1, not MindSpore's 8: on a shared machine a serial pipeline is the predictable
default, and ``map(num_parallel_workers=n)`` or ``set_num_parallel_workers(n)`` opts in.
"""

from __future__ import annotations

from ..common import seed as _seed

_num_parallel_workers = 1
_prefetch_size = 16


def set_seed(seed: int) -> None:
    """Seed every shuffle, sampler and random transform (same as ``spore.set_seed``)."""
    _seed.set_seed(seed)


def get_seed() -> int | None:
    """The global seed, or None when shuffles draw fresh entropy each run."""
    return _seed.get_seed()


def set_num_parallel_workers(num: int) -> None:
    """Default worker count for ``map``/``batch``/sources given ``num_parallel_workers=None``."""
    global _num_parallel_workers
    if not isinstance(num, int) or isinstance(num, bool) or num < 1:
        raise ValueError(f"set_num_parallel_workers: expected a positive int, got {num!r}")
    _num_parallel_workers = num


def get_num_parallel_workers() -> int:
    """The default worker count (1 unless changed)."""
    return _num_parallel_workers


def set_prefetch_size(size: int) -> None:
    """Default buffer size of ``Dataset.prefetch()`` when it is called without one."""
    global _prefetch_size
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise ValueError(f"set_prefetch_size: expected a positive int, got {size!r}")
    _prefetch_size = size


def get_prefetch_size() -> int:
    """The default prefetch buffer size."""
    return _prefetch_size


_shared_mem = True


def set_enable_shared_mem(enable: bool) -> None:
    """Accepted for MindSpore scripts; Spore's worker processes always exchange rows by pickling."""
    global _shared_mem
    _shared_mem = bool(enable)


def get_enable_shared_mem() -> bool:
    """The value last given to ``set_enable_shared_mem`` (it changes nothing in Spore)."""
    return _shared_mem
