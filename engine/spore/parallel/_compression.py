"""Gradient compression for data parallelism: fp16 cast, and top-k with error feedback.

Both exchange compressed buckets with an all-gather and sum them on each rank in float32 (MPI has
no float16 sum, and sparse top-k sets differ per rank). Top-k keeps what it did not send in a
residual added to the next step's gradient (error feedback), so nothing is lost, only delayed.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def fp16_reduce(comm: Any, flat: np.ndarray) -> np.ndarray:
    """Sum of the ranks' `flat` (float32), sent as float16."""
    half = flat.astype(np.float16)
    out = np.empty((comm.Get_size(), half.size), np.float16)
    comm.Allgather(half.view(np.uint16), out.view(np.uint16))
    return out.astype(np.float32).sum(axis=0)


class TopK:
    """Top-k sparsification with a per-bucket residual (error feedback)."""

    def __init__(self, ratio: float) -> None:
        self.ratio = ratio
        self.residual: dict[int, np.ndarray] = {}

    def reduce(self, comm: Any, key: int, flat: np.ndarray) -> np.ndarray:
        acc = flat + self.residual.get(key, 0.0)
        k = max(1, int(acc.size * self.ratio))
        idx = np.argpartition(np.abs(acc), acc.size - k)[acc.size - k:].astype(np.int32)
        vals = acc[idx].astype(np.float32)
        rest = acc.copy()
        rest[idx] = 0.0
        self.residual[key] = rest
        n = comm.Get_size()
        all_idx = np.empty((n, k), np.int32)
        all_vals = np.empty((n, k), np.float32)
        comm.Allgather(idx, all_idx)
        comm.Allgather(vals, all_vals)
        out = np.zeros(flat.size, np.float32)
        np.add.at(out, all_idx.ravel(), all_vals.ravel())
        return out
