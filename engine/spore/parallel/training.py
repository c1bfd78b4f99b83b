"""What `Model` does differently under data parallelism: which callbacks run on which rank, and how
evaluation outputs are combined so metrics are those of the whole validation set.

- Writers (``ModelCheckpoint``, ``SummaryCollector``, ``ProgressBar``, ``LossMonitor``) run on rank 0
  only; a ``ModelCheckpoint`` whose ``CheckpointConfig`` has ``save_on_all_ranks=True`` runs on every
  rank and writes into ``<directory>/rank_<id>`` (MindSpore's per-rank layout).
- In ``Model.eval`` each step's outputs are all-gathered (a scalar, such as the loss, is averaged), so
  every metric is updated with every rank's batch and all ranks report the same numbers.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..communication import _backend as B
from . import _context


def _writer_kinds() -> tuple[type, ...]:
    from ..train.callback.checkpoint_cb import ModelCheckpoint
    from ..train.callback.loss_monitor import LossMonitor
    from ..train.callback.progress import ProgressBar
    from ..train.callback.summary import SummaryCollector

    return ModelCheckpoint, SummaryCollector, ProgressBar, LossMonitor


def rank_callbacks(callbacks: list) -> list:
    """The callbacks this rank runs (all of them when not data-parallel)."""
    if not _context.data_parallel():
        return callbacks
    from ..train.callback.checkpoint_cb import ModelCheckpoint

    kinds, rank, kept = _writer_kinds(), B.rank(), []
    for cb in callbacks:
        if isinstance(cb, ModelCheckpoint) and cb._config._kwargs.get("save_on_all_ranks"):
            _per_rank_directory(cb, rank)
            kept.append(cb)
        elif rank == 0 or not isinstance(cb, kinds):
            kept.append(cb)
    return kept


def _per_rank_directory(cb: Any, rank: int) -> None:
    sub = f"rank_{rank}"
    if os.path.basename(cb._directory) != sub:
        cb._directory = os.path.join(cb._directory, sub)
        os.makedirs(cb._directory, exist_ok=True)


def gather_outputs(outputs: Any) -> Any:
    """One evaluation step's outputs from every rank: tensors concatenated along axis 0 in rank
    order, scalars averaged (the same on every rank)."""
    from ..tensor import Tensor

    if not _context.data_parallel():
        return outputs

    def one(x: Any) -> Any:
        if not isinstance(x, Tensor):
            return x
        a = np.ascontiguousarray(x.asnumpy())
        if a.ndim == 0:
            mean = B.allreduce(a.astype(np.float64).reshape(1)) / B.size()
            return Tensor(mean.reshape(()).astype(a.dtype), dtype=x.dtype)
        return Tensor(B.allgather(a), dtype=x.dtype)

    if isinstance(outputs, (tuple, list)):
        return type(outputs)(one(x) for x in outputs)
    return one(outputs)


def parallel_info() -> tuple[str, int]:
    """(parallel_mode, number of ranks) for the callback parameters."""
    return _context._CONTEXT["parallel_mode"], B.size()
