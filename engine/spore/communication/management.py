"""MindSpore's `mindspore.communication` functions, on MPI.

    from spore.communication import init, get_rank, get_group_size
    init()                       # under mpirun: joins the job; alone: a world of one process
    rank, size = get_rank(), get_group_size()

On CPU MindSpore itself communicates through MPI; Spore does the same for every backend name it is
given ("mpi", and MindSpore's "hccl"/"nccl"/"mccl", which all mean the host's MPI here).
"""

from __future__ import annotations

import os

from . import _backend as B

HCCL_WORLD_COMM_GROUP = B.WORLD
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MCCL_WORLD_COMM_GROUP = "mccl_world_group"
_BACKENDS = (None, "mpi", "hccl", "nccl", "mccl")


class GlobalComm:
    """MindSpore's global communication settings: the backend in use and the world group's name."""

    BACKEND = "mpi"
    WORLD_COMM_GROUP = HCCL_WORLD_COMM_GROUP
    INITED = False


def init(backend_name: str | None = None) -> None:
    """Join the job: MPI is initialised, the world group made, and uncaught errors abort every rank.

    Called once per process, before any collective; safe to call again. Without a launcher
    (plain ``python train.py``) the world is this one process.
    """
    if backend_name not in _BACKENDS:
        raise ValueError(f"init: backend_name must be one of {_BACKENDS[1:]} or None, got {backend_name!r} "
                         "(Spore communicates through MPI on every backend name)")
    B.start()
    GlobalComm.INITED = True
    from ..parallel._context import on_init

    on_init(B.size())


def release() -> None:
    """Release the communication groups (MindSpore's `release`); MPI finalises when the process ends."""
    B.stop()
    GlobalComm.INITED = False


def _check_group(group: str) -> None:
    if not isinstance(group, str):
        raise TypeError(f"group must be a str, got {type(group).__name__}")


def get_rank(group: str = HCCL_WORLD_COMM_GROUP) -> int:
    """This process's rank in `group` (0 .. size-1)."""
    _check_group(group)
    return B.group_rank(group)


def get_group_size(group: str = HCCL_WORLD_COMM_GROUP) -> int:
    """The number of ranks in `group`."""
    _check_group(group)
    return B.group_size(group)


def get_local_rank(group: str = HCCL_WORLD_COMM_GROUP) -> int:
    """This process's rank among the ranks of its own machine."""
    _check_group(group)
    for key in ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMIX_LOCAL_RANK"):
        if key in os.environ:
            return int(os.environ[key])
    return 0


def get_local_rank_size(group: str = HCCL_WORLD_COMM_GROUP) -> int:
    """The number of ranks on this machine."""
    _check_group(group)
    for key in ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"):
        if key in os.environ:
            return int(os.environ[key])
    return 1


def get_world_rank_from_group_rank(group: str, group_rank_id: int) -> int:
    """The world rank of rank `group_rank_id` of `group`."""
    B.comm_of(group)
    ranks = B.STATE.group_ranks.get(group, [0])
    return ranks[group_rank_id]


def get_group_rank_from_world_rank(world_rank_id: int, group: str) -> int:
    """The rank within `group` of world rank `world_rank_id`."""
    B.comm_of(group)
    ranks = B.STATE.group_ranks.get(group, [0])
    if world_rank_id not in ranks:
        raise ValueError(f"world rank {world_rank_id} is not in group {group!r} (ranks {ranks})")
    return ranks.index(world_rank_id)


def create_group(group: str, rank_ids: list[int]) -> None:
    """Make a communication group of the given world ranks; every rank in `rank_ids` must call it."""
    if not B.STATE.initialized:
        raise RuntimeError("create_group: call spore.communication.init() first")
    _check_group(group)
    if group in B.STATE.groups or group in B._WORLD_ALIASES:
        raise ValueError(f"create_group: group {group!r} exists already")
    ids = list(rank_ids)
    size = B.size()
    if not ids or len(set(ids)) != len(ids) or any(not isinstance(r, int) or not 0 <= r < size for r in ids):
        raise ValueError(f"create_group: rank_ids must be distinct ranks in [0, {size}), got {rank_ids!r}")
    if B.rank() not in ids:
        raise ValueError(f"create_group: this rank ({B.rank()}) is not in rank_ids {ids}; only members call it")
    world = B.STATE.groups[B.WORLD]
    mpi_group = world.Get_group().Incl(sorted(ids))
    comm = B.run(lambda: world.Create_group(mpi_group, tag=len(B.STATE.groups)), f"create_group {group}")
    B.STATE.groups[group] = comm
    B.STATE.group_ranks[group] = sorted(ids)


def destroy_group(group: str) -> None:
    """Free a group made by `create_group` (the world group cannot be destroyed)."""
    if group in B._WORLD_ALIASES:
        raise ValueError("destroy_group: the world group cannot be destroyed")
    comm = B.comm_of(group)
    B.STATE.groups.pop(group)
    B.STATE.group_ranks.pop(group, None)
    comm.Free()
