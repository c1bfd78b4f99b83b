"""Collective ops (`spore.ops.collective`) in a one-process world (no `init()`): each returns its
input, and its gradient rule (written with the other collectives) must reduce to the identity too.
The multi-rank behaviour is tested over real MPI ranks in tests/parallel."""

import numpy as np

from . import Sample

_X = np.random.default_rng(0).standard_normal((4, 3))

SAMPLES = {
    "AllReduce": [Sample([_X]), Sample([_X], {"op": "max"}), Sample([np.abs(_X) + 0.5], {"op": "prod"})],
    "AllGather": [Sample([_X])],
    "ReduceScatter": [Sample([_X])],
    "Broadcast": [Sample([_X], {"root_rank": 0})],
}
