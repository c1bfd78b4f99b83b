"""Where every random draw of a pipeline comes from, so that one seed reproduces a whole run.

An epoch of a pipeline is described by an ``EpochCtx``: the run's base seed, the epoch number and
the position of a node in the pipeline tree (its path from the root). Each node derives its own
generator from that triple, so shuffles differ between epochs and between nodes yet repeat
exactly under the same ``set_seed``. Random transforms inside ``map`` draw from a generator
derived from the sample's position as well, installed per thread while the sample is processed:
the result of a sample never depends on which worker ran it or in which order workers finished,
so a parallel map equals the serial one bit for bit.

Without ``set_seed`` the base is fresh entropy per dataset object, so runs differ — except for
the *shared* seed used by ``DistributedSampler``: every data-parallel rank must draw the same
permutation or the shards would overlap, so without a global seed it falls back to a constant
(MindSpore's sampler does the same with its default seed).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from ..common import seed as _seed

_NODE, _SAMPLE, _SHARED = 0, 1, 2
SHARED_DEFAULT_SEED = 5489  # std::mt19937's default, the seed MindSpore's samplers start from


@dataclass(frozen=True)
class EpochCtx:
    """One epoch of one pipeline, seen from one node (``path`` is the node's place in the tree)."""

    base: int
    shared: int
    epoch: int
    path: tuple[int, ...] = ()

    def child(self, i: int) -> EpochCtx:
        """The context of this node's ``i``-th input (or ``i``-th repetition, for repeat)."""
        return EpochCtx(self.base, self.shared, self.epoch, self.path + (i,))

    def _entropy(self, kind: int, base: int, extra: tuple[int, ...] = ()) -> list[int]:
        # the path length keeps (1,) and (1, 0) apart: SeedSequence pads entropy with zeros
        return [kind, base, self.epoch, len(self.path), *self.path, *extra]

    def rng(self) -> np.random.Generator:
        """This node's generator for this epoch (shuffle buffers, samplers)."""
        return np.random.default_rng(self._entropy(_NODE, self.base))

    def shared_rng(self) -> np.random.Generator:
        """A generator every rank of a data-parallel job derives identically (sharded shuffles)."""
        return np.random.default_rng(self._entropy(_SHARED, self.shared))

    def sample_entropy(self, position: int) -> list[int]:
        """Seed material for the random transforms applied to the sample at ``position``."""
        return self._entropy(_SAMPLE, self.base, (position,))


def make_ctx(dataset_entropy: int, epoch: int) -> EpochCtx:
    """The root context of ``epoch``: the global seed if set, else the dataset's own entropy."""
    s = _seed.get_seed()
    base = s if s is not None else dataset_entropy
    shared = s if s is not None else SHARED_DEFAULT_SEED
    return EpochCtx(base, shared, epoch)


_tls = threading.local()


def set_sample_entropy(entropy: list[int] | None) -> None:
    """Install (or, with None, remove) the current thread's per-sample random source."""
    _tls.entropy = entropy
    _tls.gen = None


def current_rng() -> np.random.Generator:
    """The generator a random transform should draw from right now.

    Inside a pipeline: the sample's own generator (made on first use). Called directly on an
    image: Spore's global generator, which ``set_seed`` resets.
    """
    entropy = getattr(_tls, "entropy", None)
    if entropy is None:
        return _seed.rng()
    gen = _tls.gen
    if gen is None:
        gen = _tls.gen = np.random.default_rng(entropy)
    return gen
