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


def manual_seed(seed: int) -> None:
    """MindSpore's ``ms.manual_seed`` (the torch-style name): the same as `set_seed`."""
    set_seed(seed)


def initial_seed() -> int:
    """MindSpore's ``ms.initial_seed``: the seed the global generator started from (one is drawn and
    set when none was given, so the answer can be used to replay the run)."""
    if _seed is None:
        seed()
    return int(_seed)  # type: ignore[arg-type]


def seed() -> int:
    """MindSpore's ``ms.seed``: seeds the global generator from OS entropy and returns that seed."""
    value = int(np.random.SeedSequence().entropy % (2 ** 63))
    set_seed(value)
    return value
