"""`spore.parallel`: data-parallel training on MPI.

The auto-parallel context (`set_auto_parallel_context`, `ParallelMode`), the gradient reducer
(`DistributedGradReducer`, re-exported as `spore.nn.DistributedGradReducer`), the start-up
parameter broadcast and check, and the merge of per-rank Profiler traces into one timeline.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import numpy as np

from ._context import (
    ParallelMode,
    data_parallel,
    get_auto_parallel_context,
    is_writer,
    reset_auto_parallel_context,
    set_auto_parallel_context,
)


class ParameterMismatchError(ValueError):
    """Ranks hold different parameters (names, shapes, dtypes or counts): they run different models."""


def _params_of(net_or_params: Any) -> list:
    if hasattr(net_or_params, "parameters_and_names"):
        return [p for _, p in net_or_params.parameters_and_names()]
    return list(net_or_params)


def check_parameters(net_or_params: Any, group: str = "hccl_world_group") -> None:
    """Raise `ParameterMismatchError` on every rank when any rank's parameters differ from rank 0's."""
    from ..communication import _backend as B

    params = _params_of(net_or_params)
    mine = [(p.name, tuple(p.shape), str(p.dtype)) for p in params]
    everyone = B.allgather_object(mine, group)
    ref = everyone[0]
    for r, theirs in enumerate(everyone[1:], start=1):
        if len(theirs) != len(ref):
            raise ParameterMismatchError(f"data parallel start-up: rank {r} has {len(theirs)} parameters, "
                                         f"rank 0 has {len(ref)}; every rank must build the same network")
        for a, b in zip(ref, theirs):
            if a != b:
                raise ParameterMismatchError(f"data parallel start-up: parameter {b[0]!r} on rank {r} is "
                                             f"{b[1]} {b[2]}, rank 0 has {a[0]!r} {a[1]} {a[2]}; every rank "
                                             "must build the same network")


def broadcast_parameters(net_or_params: Any, root: int = 0, group: str = "hccl_world_group") -> None:
    """Check that ranks hold the same parameters, then give every rank `root`'s values (in place)."""
    from ..communication import _backend as B

    if B.group_size(group) <= 1:
        return
    check_parameters(net_or_params, group)
    if not get_auto_parallel_context("parameter_broadcast"):
        return
    for p in _params_of(net_or_params):
        data = B.broadcast(np.ascontiguousarray(p.asnumpy()), root, group)
        p.set_data(_tensor(data, p.dtype))


def _tensor(data: np.ndarray, dtype: Any) -> Any:
    from ..tensor import Tensor

    return Tensor(data, dtype=dtype)


def merge_chrome_traces(paths: Iterable[str], out_path: str) -> str:
    """One Chrome trace with one track (process) per rank from the ranks' `Profiler` traces."""
    events: list[dict] = []
    for rank, path in enumerate(paths):
        with open(path, encoding="utf-8") as f:
            trace = json.load(f)
        rank = trace.get("otherData", {}).get("rank", rank)
        events.append({"name": "process_name", "ph": "M", "pid": rank, "args": {"name": f"rank {rank}"}})
        for ev in trace["traceEvents"]:
            if ev.get("ph") != "M":
                events.append({**ev, "pid": rank})
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"traceEvents": events, "displayTimeUnit": "ms", "otherData": {"producer": "spore.parallel"}}, f)
    return out_path


def __getattr__(name: str) -> Any:
    if name == "DistributedGradReducer":  # loaded on use: it needs spore.nn, which imports this package
        from .grad_reducer import DistributedGradReducer

        return DistributedGradReducer
    raise AttributeError(f"module 'spore.parallel' has no attribute {name!r}")


__all__ = ["DistributedGradReducer", "ParallelMode", "ParameterMismatchError", "broadcast_parameters",
           "check_parameters", "data_parallel", "get_auto_parallel_context", "is_writer", "merge_chrome_traces",
           "reset_auto_parallel_context", "set_auto_parallel_context"]
