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


def get_rng_state() -> dict:
    """MindSpore's ``ms.get_rng_state``: the global generator's state (NumPy's bit-generator state, a
    dict), to hand back to `set_rng_state` and replay the same draws."""
    return _rng.bit_generator.state


def set_rng_state(state: dict) -> None:
    """MindSpore's ``ms.set_rng_state``: restore a state from `get_rng_state`."""
    if not isinstance(state, dict) or "bit_generator" not in state:
        raise TypeError(f"set_rng_state: state must be what get_rng_state returned, got {type(state).__name__}")
    _rng.bit_generator.state = state


class Generator:
    """MindSpore's ``ms.Generator``: a random generator of one's own (``manual_seed``, ``seed``,
    ``initial_seed``, ``get_state``/``set_state``), independent of the global one."""

    def __init__(self) -> None:
        self._seed = int(np.random.SeedSequence().entropy % (2 ** 63))
        self._gen = np.random.default_rng(self._seed)

    def manual_seed(self, seed: int) -> Generator:
        """Reseed; returns the generator, as MindSpore does."""
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise ValueError(f"Generator.manual_seed: seed must be a non-negative int, got {seed!r}")
        self._seed = seed
        self._gen = np.random.default_rng(seed)
        return self

    def seed(self) -> int:
        """Reseed from OS entropy and return the new seed."""
        self.manual_seed(int(np.random.SeedSequence().entropy % (2 ** 63)))
        return self._seed

    def initial_seed(self) -> int:
        """The seed the generator was last seeded with."""
        return self._seed

    def get_state(self) -> dict:
        """The generator's state."""
        return self._gen.bit_generator.state

    def set_state(self, state: dict) -> Generator:
        """Restore a state from `get_state`."""
        self._gen.bit_generator.state = state
        return self

    @property
    def numpy_generator(self) -> np.random.Generator:
        """The NumPy generator behind it (Spore's own addition, for drawing from it directly)."""
        return self._gen
