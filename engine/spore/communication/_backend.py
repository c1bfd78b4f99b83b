"""The one place Spore talks to MPI (Open MPI through mpi4py).

Every collective of a process runs on one communication thread, in the order it was submitted, so
MPI sees a single caller (ranks stay in lock-step however the Python side is threaded) and the main
thread can keep computing the backward pass while a gradient bucket is being reduced. mpi4py's
buffer calls (`Allreduce` on NumPy arrays) release the GIL while MPI works.

A collective that does not finish within the timeout (``SPORE_COMM_TIMEOUT`` seconds, default 300,
or `set_timeout`) means another rank has died or hangs: this rank then prints which ranks it was
waiting for and aborts the whole job through ``MPI_Abort``, so no rank is left hanging.
An uncaught exception on any rank does the same (see `install_excepthook`).
"""

from __future__ import annotations

import os
import sys
import threading
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Callable

import numpy as np

WORLD = "hccl_world_group"          # MindSpore's name for the group of all ranks
_WORLD_ALIASES = {WORLD, "nccl_world_group", "mccl_world_group", "world_group"}
_DEFAULT_TIMEOUT = 300.0


class CommState:
    """What this process knows of the job: its MPI communicators and the communication thread."""

    def __init__(self) -> None:
        self.initialized = False
        self.mpi: Any = None
        self.groups: dict[str, Any] = {}
        self.group_ranks: dict[str, list[int]] = {}
        self.executor: ThreadPoolExecutor | None = None
        self.timeout = float(os.environ.get("SPORE_COMM_TIMEOUT", _DEFAULT_TIMEOUT))
        self.calls = 0
        self.lock = threading.Lock()


STATE = CommState()


def launched_by_mpi() -> bool:
    """True when this process was started by mpirun/mpiexec (Open MPI, MPICH/Hydra or PMIx)."""
    return any(k in os.environ for k in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"))


def start() -> None:
    """Initialise MPI (idempotent) and the communication thread."""
    if STATE.initialized:
        return
    try:
        from mpi4py import MPI
    except ImportError as err:  # pragma: no cover - mpi4py is a dependency of the parallel extra
        raise RuntimeError("spore.communication.init: mpi4py is not installed (pip install mpi4py; "
                           "Debian: apt-get install openmpi-bin libopenmpi-dev)") from err
    STATE.mpi = MPI
    STATE.groups = {WORLD: MPI.COMM_WORLD}
    STATE.group_ranks = {WORLD: list(range(MPI.COMM_WORLD.Get_size()))}
    STATE.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="spore-comm")
    STATE.initialized = True
    install_excepthook()


def stop() -> None:
    """Release the groups and the communication thread (MPI itself finalises at exit)."""
    if not STATE.initialized:
        return
    if STATE.executor is not None:
        STATE.executor.shutdown(wait=True)
    for name, comm in list(STATE.groups.items()):
        if name != WORLD and comm is not None and comm != STATE.mpi.COMM_NULL:
            comm.Free()
    STATE.groups, STATE.group_ranks, STATE.executor = {}, {}, None
    STATE.initialized = False


def rank() -> int:
    return STATE.groups[WORLD].Get_rank() if STATE.initialized else 0


def size() -> int:
    return STATE.groups[WORLD].Get_size() if STATE.initialized else 1


def comm_of(group: str) -> Any:
    """The MPI communicator of `group` (None when MPI is not initialised: a one-process world)."""
    if not STATE.initialized:
        if group in _WORLD_ALIASES:
            return None
        raise ValueError(f"communication group {group!r} does not exist (call spore.communication.init() "
                         "and create_group first)")
    name = WORLD if group in _WORLD_ALIASES else group
    if name not in STATE.groups:
        raise ValueError(f"communication group {group!r} does not exist; known groups: {sorted(STATE.groups)}")
    return STATE.groups[name]


def group_size(group: str) -> int:
    comm = comm_of(group)
    return 1 if comm is None else comm.Get_size()


def group_rank(group: str) -> int:
    comm = comm_of(group)
    return 0 if comm is None else comm.Get_rank()


def fatal(message: str) -> None:
    """Say what went wrong, naming this rank, and end every rank of the job (MPI_Abort)."""
    sys.stderr.write(f"[spore rank {rank()}/{size()}] {message}\n")
    sys.stderr.flush()
    if STATE.initialized:
        STATE.mpi.COMM_WORLD.Abort(1)
    os._exit(1)  # pragma: no cover - Abort does not return


def install_excepthook() -> None:
    """An uncaught exception on a rank aborts the job instead of leaving the others blocked in a
    collective forever (the default would run MPI_Finalize, which waits for them)."""
    previous = sys.excepthook

    def hook(kind: type, value: BaseException, tb: Any) -> None:
        if size() <= 1:
            previous(kind, value, tb)
            return
        text = "".join(traceback.format_exception(kind, value, tb))
        fatal(f"failed with an uncaught exception; aborting all ranks\n{text}")

    sys.excepthook = hook


def submit(fn: Callable[[], Any]) -> Future:
    """Queue `fn` (which makes MPI calls) on the communication thread."""
    assert STATE.executor is not None
    return STATE.executor.submit(fn)


def wait(future: Future, what: str) -> Any:
    """The result of a submitted collective, or abort the job when it exceeds the timeout."""
    try:
        return future.result(timeout=STATE.timeout)
    except FutureTimeout:
        others = [r for r in range(size()) if r != rank()]
        fatal(f"{what} did not complete within {STATE.timeout:g} s (SPORE_COMM_TIMEOUT): rank(s) {others} "
              "did not join it (a rank died, hangs or runs different code); aborting the job")


def run(fn: Callable[[], Any], what: str) -> Any:
    """Run one collective on the communication thread and wait for it (bounded by the timeout)."""
    STATE.calls += 1
    return wait(submit(fn), f"collective {what} (#{STATE.calls})")


_OPS = ("sum", "max", "min", "prod")


def mpi_op(op: str) -> Any:
    if op not in _OPS:
        raise ValueError(f"reduce op must be one of {_OPS}, got {op!r}")
    m = STATE.mpi
    return {"sum": m.SUM, "max": m.MAX, "min": m.MIN, "prod": m.PROD}[op]


def allreduce(x: np.ndarray, op: str = "sum", group: str = WORLD) -> np.ndarray:
    comm = comm_of(group)
    out = np.array(x, copy=True, order="C")
    if comm is None or comm.Get_size() == 1:
        return out
    run(lambda: comm.Allreduce(STATE.mpi.IN_PLACE, out, op=mpi_op(op)), f"AllReduce({op}) in {group}")
    return out


def allgather(x: np.ndarray, group: str = WORLD) -> np.ndarray:
    comm = comm_of(group)
    x = np.ascontiguousarray(x)
    if comm is None or comm.Get_size() == 1:
        return x.copy()
    n = comm.Get_size()
    out = np.empty((n * x.shape[0],) + x.shape[1:] if x.ndim else (n,), x.dtype)
    run(lambda: comm.Allgather(x, out), f"AllGather in {group}")
    return out


def reduce_scatter(x: np.ndarray, op: str = "sum", group: str = WORLD) -> np.ndarray:
    comm = comm_of(group)
    x = np.ascontiguousarray(x)
    if comm is None or comm.Get_size() == 1:
        return x.copy()
    n = comm.Get_size()
    out = np.empty((x.shape[0] // n,) + x.shape[1:], x.dtype)
    run(lambda: comm.Reduce_scatter_block(x, out, op=mpi_op(op)), f"ReduceScatter({op}) in {group}")
    return out


def broadcast(x: np.ndarray, root: int = 0, group: str = WORLD) -> np.ndarray:
    comm = comm_of(group)
    out = np.array(x, copy=True, order="C")
    if comm is None or comm.Get_size() == 1:
        return out
    run(lambda: comm.Bcast(out, root=root), f"Broadcast(root={root}) in {group}")
    return out


def allgather_object(obj: Any, group: str = WORLD) -> list:
    """Every rank's `obj` (small Python objects: start-up checks, metric states)."""
    comm = comm_of(group)
    if comm is None or comm.Get_size() == 1:
        return [obj]
    return run(lambda: comm.allgather(obj), f"allgather_object in {group}")


def barrier(group: str = WORLD) -> None:
    comm = comm_of(group)
    if comm is not None and comm.Get_size() > 1:
        run(comm.Barrier, f"Barrier in {group}")
