"""The global random state behind `set_seed`: initializers, dropout and dataset shuffles all draw
from generators derived here, so one seed makes a whole run reproducible.
"""

from __future__ import annotations

import numpy as np

_seed: int | None = None
_rng = np.random.default_rng()


def set_seed(seed: int) -> None:
    """Set the global seed (MindSpore's `set_seed`)."""
    global _seed, _rng
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"set_seed: seed must be a non-negative int, got {seed!r}")
    _seed = seed
    _rng = np.random.default_rng(seed)


def get_seed() -> int | None:
    """The seed last given to `set_seed`, or None."""
    return _seed


def rng() -> np.random.Generator:
    """The global generator (advances with each draw)."""
    return _rng
