"""`nn.DistributedGradReducer`: averages (or sums) gradients across the ranks of a data-parallel job.

PyNative: gradients are packed, in the order the backward pass finishes them (last layer first),
into flat float32 buckets of ``comm_fusion`` MB (25 by default, as PyTorch DDP). A bucket's
all-reduce is started on the communication thread the moment its last gradient is complete (a hook
in the tape's backward), so communication overlaps the rest of the backward; the reducer's call
then only waits for the buckets still in flight. Graph mode: one AllReduce equation per gradient
in the compiled graph (the executor runs them when the step runs).

With ``compression="fp16"`` buckets travel as float16; with ``"topk"`` only the largest
``topk_ratio`` of each bucket's entries travel and the rest is fed back into the next step.
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import Future
from typing import Any

import numpy as np

from ..communication import _backend as B
from ..nn.cell import Cell
from ..ops.collective import WORLD
from ..ops.collective import AllReduce as _AllReduce
from ..ops.primitive import TRACING
from ..tensor import Tensor
from . import _context
from ._compression import TopK, fp16_reduce


class _Bucket:
    __slots__ = ("index", "members", "offsets", "flat", "filled", "future", "submitted_us")

    def __init__(self, index: int, members: list[int], sizes: list[int]) -> None:
        self.index = index
        self.members = members
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.flat = np.zeros(int(self.offsets[-1]), np.float32)
        self.filled: set[int] = set()
        self.future: Future | None = None
        self.submitted_us = 0.0


class DistributedGradReducer(Cell):
    """MindSpore's ``nn.DistributedGradReducer(parameters, mean=True, degree=None, fusion_type=1,
    group=GlobalComm.WORLD_COMM_GROUP)``; Spore adds ``bucket_size_mb``, ``compression`` and ``overlap``
    (defaults from `set_auto_parallel_context`: ``comm_fusion``, ``grad_compression``, ``comm_overlap``)."""

    def __init__(self, parameters: Any, mean: bool = True, degree: int | None = None, fusion_type: int = 1,
                 group: str = WORLD, bucket_size_mb: float | None = None, compression: str | None = None,
                 overlap: bool | None = None) -> None:
        super().__init__(auto_prefix=False)
        params = tuple(parameters)
        if not all(isinstance(p, Tensor) for p in params):
            raise TypeError("DistributedGradReducer: parameters must be the Parameters whose gradients are reduced")
        if not isinstance(mean, bool):
            raise TypeError(f"DistributedGradReducer: mean must be a bool, got {type(mean).__name__}")
        size = B.group_size(group)
        if degree is not None and (not isinstance(degree, int) or degree < 1):
            raise ValueError(f"DistributedGradReducer: degree must be a positive int, got {degree!r}")
        self.__dict__["_reduced"] = params
        self.mean = mean
        self.degree = degree or size
        self.group = group
        mb = bucket_size_mb if bucket_size_mb is not None else _context.bucket_bytes() / 2**20
        if not isinstance(mb, (int, float)) or mb <= 0:
            raise ValueError(f"DistributedGradReducer: bucket_size_mb must be positive, got {mb!r}")
        self.bucket_bytes = int(mb * 1024 * 1024)
        self.compression = compression if compression is not None else _context._CONTEXT["grad_compression"]
        if self.compression not in (None, "fp16", "topk"):
            raise ValueError("DistributedGradReducer: compression must be None, 'fp16' or 'topk', "
                             f"got {self.compression!r}")
        self.overlap = _context._CONTEXT["comm_overlap"] if overlap is None else bool(overlap)
        self.__dict__["_topk"] = TopK(float(_context._CONTEXT["topk_ratio"])) if self.compression == "topk" else None
        self.__dict__["_buckets"] = self._make_buckets(params)
        self.__dict__["_where"] = {id(p): (b, j) for b in self._buckets for j, p in enumerate(b.members)}
        self.__dict__["_index"] = {id(p): i for i, p in enumerate(params)}
        self.__dict__["_comm_events"] = []   # (bucket, start_s, end_s) of the last step, for overlap measurements
        self.__dict__["_issued"] = {}        # bucket -> perf_counter when it was handed to the communication thread
        self.early_buckets = 0               # buckets of the last step started during the backward pass

    # --- buckets -------------------------------------------------------------------------------------
    def _make_buckets(self, params: tuple) -> list[_Bucket]:
        """Reverse parameter order (the backward finishes the last layers first), cut at bucket_bytes."""
        buckets, members, sizes, nbytes = [], [], [], 0
        for i in reversed(range(len(params))):
            n = int(np.prod(params[i].shape, dtype=np.int64))
            if members and nbytes + 4 * n > self.bucket_bytes:
                buckets.append(_Bucket(len(buckets), members, sizes))
                members, sizes, nbytes = [], [], 0
            members.append(i)
            sizes.append(n)
            nbytes += 4 * n
        if members:
            buckets.append(_Bucket(len(buckets), members, sizes))
        for b in buckets:
            b.members = [params[i] for i in b.members]
        return buckets

    @property
    def buckets(self) -> list[list[str]]:
        """The parameter names of each bucket, in the order they are reduced."""
        return [[p.name for p in b.members] for b in self._buckets]

    @property
    def last_step_events(self) -> list[tuple[int, float, float]]:
        """(bucket, start, end) times (perf_counter seconds) of the last step's reductions."""
        return list(self._comm_events)

    # --- the backward hook ---------------------------------------------------------------------------
    def begin(self) -> None:
        """Called before the backward pass: start reducing buckets as their gradients complete."""
        from ..autodiff import tape

        for b in self._buckets:
            b.filled.clear()
            b.future = None
        self._comm_events.clear()
        self._issued.clear()
        self.early_buckets = 0
        if self.overlap and B.group_size(self.group) > 1 and TRACING.builder is None:
            tape.GRAD_READY.hook = self._on_ready
            # the communication thread needs the GIL for a moment to start a bucket; by default it
            # would wait up to 5 ms for the backward (pure Python between kernels) to hand it over
            self.__dict__["_switch"] = sys.getswitchinterval()
            sys.setswitchinterval(_SWITCH_S)

    def end(self) -> None:
        from ..autodiff import tape

        if tape.GRAD_READY.hook == self._on_ready:
            tape.GRAD_READY.hook = None
        switch = self.__dict__.pop("_switch", None)
        if switch is not None:
            sys.setswitchinterval(switch)

    def _on_ready(self, param: Tensor, grad: Tensor | None) -> None:
        where = self._where.get(id(param))
        if where is None or grad is None:
            return
        bucket, j = where
        self._put(bucket, j, grad)
        if len(bucket.filled) == len(bucket.members):
            self._launch(bucket)
            self.early_buckets += 1

    def _put(self, bucket: _Bucket, j: int, grad: Tensor) -> None:
        a, b = bucket.offsets[j], bucket.offsets[j + 1]
        bucket.flat[a:b] = np.asarray(grad.asnumpy(), np.float32).reshape(-1)
        bucket.filled.add(j)

    def _launch(self, bucket: _Bucket) -> None:
        comm = B.comm_of(self.group)
        flat, topk, kind = bucket.flat, self._topk, self.compression
        events = self._comm_events

        def work() -> np.ndarray:
            t0 = time.perf_counter()
            if kind == "fp16":
                out = fp16_reduce(comm, flat)
            elif kind == "topk":
                out = topk.reduce(comm, bucket.index, flat)
            else:
                _polled_allreduce(comm, flat)
                out = flat
            events.append((bucket.index, t0, time.perf_counter()))
            return out

        B.STATE.calls += 1
        self._issued[bucket.index] = time.perf_counter()
        bucket.future = B.submit(work)

    # --- the call ------------------------------------------------------------------------------------
    def construct(self, grads: tuple) -> tuple:
        grads = tuple(grads)
        if len(grads) != len(self._reduced):
            raise ValueError(f"DistributedGradReducer: got {len(grads)} gradients for {len(self._reduced)} parameters")
        if B.group_size(self.group) == 1:
            return grads
        if TRACING.builder is not None:   # Graph mode: AllReduce equations in the compiled step
            from ..ops import functional as F

            out = tuple(_AllReduce(g, op="sum", group=self.group) for g in grads)
            return tuple(F.mul(g, 1.0 / self.degree) for g in out) if self.mean else out
        self.end()
        for b in self._buckets:
            if b.future is None:
                for j, p in enumerate(b.members):
                    if j not in b.filled:
                        g = grads[self._index[id(p)]]
                        if g is not None:
                            self._put(b, j, g)
                self._launch(b)
        result: list[Any] = list(grads)
        scale = 1.0 / self.degree if self.mean else 1.0
        profiler = _active_profiler()
        for b in self._buckets:
            flat = B.wait(b.future, f"gradient AllReduce of bucket {b.index} ({b.flat.nbytes / 1e6:.2f} MB)")
            for j, p in enumerate(b.members):
                i = self._index[id(p)]
                g = grads[i]
                piece = flat[b.offsets[j]:b.offsets[j + 1]].reshape(p.shape) * scale
                dtype = g.dtype if g is not None else p.dtype
                result[i] = Tensor(piece.astype(dtype.np), dtype=dtype)
        if profiler is not None:
            _record(profiler, self._comm_events, self._issued)
        return tuple(result)


_POLL_S = 5e-5      # sleep between tests of a pending all-reduce
_SWITCH_S = 2e-4    # GIL switch interval while buckets are reduced beside the backward
_BLOCKING_BYTES = 256 * 1024   # buckets up to this size use a blocking all-reduce


def _polled_allreduce(comm: Any, flat: np.ndarray) -> None:
    """Non-blocking all-reduce, tested with short sleeps in between: a blocking MPI call busy-polls
    its core, which starves the backward pass running beside it when ranks have one core each;
    MPI progresses the request on each Test."""
    mpi = B.STATE.mpi
    if flat.nbytes <= _BLOCKING_BYTES:   # short enough that polling it costs more than it frees
        comm.Allreduce(mpi.IN_PLACE, flat, op=mpi.SUM)
        return
    req = comm.Iallreduce(mpi.IN_PLACE, flat, op=mpi.SUM)
    while not req.Test():
        time.sleep(_POLL_S)


def _active_profiler() -> Any:
    from ..profiler.profiler import Profiler

    return Profiler._active


def _record(profiler: Any, events: list, issued: dict[int, float]) -> None:
    """The step's bucket reductions as "communication" events of the running Profiler. Each carries
    when the backward handed it over (`issued_ts`): on a loaded machine the communication thread may
    start it only later, so the span alone does not show whether the hand-over was early."""
    from ..profiler.profiler import ProfilerEvent

    for index, t0, t1 in events:
        t_issued = issued.get(index)
        profiler._add(ProfilerEvent(f"AllReduce[bucket {index}]", (t0 - profiler._t0) * 1e6, (t1 - t0) * 1e6,
                                    "communication", scope="DistributedGradReducer",
                                    issued_us=None if t_issued is None else (t_issued - profiler._t0) * 1e6))
