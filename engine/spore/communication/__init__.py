"""`spore.communication`: MindSpore's `mindspore.communication` on MPI (Open MPI through mpi4py).

Launch with ``mpirun -n 2 python train.py`` (as root add ``--allow-run-as-root``) or with
``spore-run -n 2 train.py`` (`spore.communication.run`), then call `init()` in the script.
"""

from ._backend import barrier as _barrier  # noqa: F401
from .management import (
    HCCL_WORLD_COMM_GROUP,
    MCCL_WORLD_COMM_GROUP,
    NCCL_WORLD_COMM_GROUP,
    GlobalComm,
    create_group,
    destroy_group,
    get_group_rank_from_world_rank,
    get_group_size,
    get_local_rank,
    get_local_rank_size,
    get_rank,
    get_world_rank_from_group_rank,
    init,
    release,
)


def set_timeout(seconds: float) -> None:
    """How long a collective may wait for the other ranks before the job is aborted (Spore's own;
    also ``SPORE_COMM_TIMEOUT``). A rank that dies or hangs then ends the job instead of hanging it."""
    from . import _backend

    if not isinstance(seconds, (int, float)) or seconds <= 0:
        raise ValueError(f"set_timeout: seconds must be a positive number, got {seconds!r}")
    _backend.STATE.timeout = float(seconds)


__all__ = ["HCCL_WORLD_COMM_GROUP", "MCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP", "GlobalComm", "create_group",
           "destroy_group", "get_group_rank_from_world_rank", "get_group_size", "get_local_rank",
           "get_local_rank_size", "get_rank", "get_world_rank_from_group_rank", "init", "release", "set_timeout"]
