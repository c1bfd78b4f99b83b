"""MindSpore's point-to-point and uneven collective class forms (issue 14): `Send`, `Receive`,
`NeighborExchange`, `BatchISendIRecv`, `ReduceScatterV` and `AlltoAllVC`, over Spore's MPI
backend (launch with ``mpirun``/``spore-run``, then ``spore.communication.init()``).

They run eagerly (on values, as MindSpore's PyNative communication does) and carry no gradient.
Ranks (`dest_rank`, `src_rank`, `send_rank_ids`, `remote_ranks`) are global ranks, translated to
ranks of `group`, as the function forms in ops/p2p_comm_ops.py do. Results:

- ``Send(sr_tag, dest_rank)(x)`` returns `x` (for ``ops.depend``), ``Receive(sr_tag, src_rank,
  shape, dtype)()`` the received tensor;
- ``NeighborExchange(...)(inputs)`` sends ``inputs[k]`` to ``send_rank_ids[k]`` and returns the
  tensors received from ``recv_rank_ids`` (of `recv_shapes`, dtype `recv_type`);
- ``BatchISendIRecv(op_types, remote_ranks, receive_shapes, receive_dtypes)(inputs)`` runs the
  listed isend/irecv together; its outputs follow `op_types`: the received tensor at an "irecv",
  a scalar placeholder (0) at an "isend", as MindSpore documents;
- ``ReduceScatterV(op)(input_x, input_split_sizes)``: `input_x` reduced over the ranks, rank i
  keeping the i-th slice along axis 0 (``input_split_sizes[i]`` rows);
- ``AlltoAllVC(group, block_size, transpose)(input_x, send_count_matrix)``: the flattened (n, n)
  matrix says how many blocks (of `block_size` elements) rank i sends to rank j (its transpose
  with `transpose`, for the backward pass); rank j returns the concatenation, in rank order, of
  what every rank sent it, as a 1-D tensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..communication import _backend as B
from ..errors import ShapeError
from ..tensor import Tensor
from .operation import Operation
from .p2p_comm_ops import _comm, _peer, _tag, _tensor, reduce_scatter_tensor_uneven
from .primitive import Aval, primitive

__all__ = ["Send", "Receive", "NeighborExchange", "BatchISendIRecv", "ReduceScatterV", "AlltoAllVC"]


def _shape(op: str, s: Any) -> tuple[int, ...]:
    if not isinstance(s, (tuple, list)) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                                                   for d in s):
        raise TypeError(f"{op}: a shape must be a tuple of non-negative ints, got {s!r}")
    return tuple(s)


class Send(Operation):
    """``Send(sr_tag, dest_rank, group='hccl_world_group', group_back='hccl_world_group')(input_x)``:
    send `input_x` to `dest_rank` with tag `sr_tag` (blocking); returns `input_x`."""

    def __init__(self, sr_tag: int, dest_rank: int, group: str = B.WORLD, group_back: str = B.WORLD) -> None:
        self.sr_tag, self.dest_rank = _tag("Send", sr_tag), dest_rank
        self.group, self.group_back = group, group_back

    def construct(self, input_x: Tensor) -> Tensor:
        op = "Send"
        comm = _comm(op, self.group)
        buf = np.ascontiguousarray(_tensor(op, input_x).asnumpy())
        peer = _peer(op, "dest_rank", self.dest_rank, self.group, comm)
        B.run(lambda: comm.Send(buf, dest=peer, tag=self.sr_tag), f"Send to {self.dest_rank}")
        return input_x


class Receive(Operation):
    """``Receive(sr_tag, src_rank, shape, dtype, group='hccl_world_group',
    group_back='hccl_world_group')()``: the tensor of `shape` and `dtype` that `src_rank` sends
    with tag `sr_tag`."""

    def __init__(self, sr_tag: int, src_rank: int, shape: Any, dtype: Any, group: str = B.WORLD,
                 group_back: str = B.WORLD) -> None:
        self.sr_tag, self.src_rank = _tag("Receive", sr_tag), src_rank
        self.shape, self.dtype = _shape("Receive", shape), mstype.to_dtype(dtype)
        self.group, self.group_back = group, group_back

    def construct(self, *unused: Any) -> Tensor:
        op = "Receive"
        comm = _comm(op, self.group)
        buf = np.empty(self.shape, self.dtype.np)
        peer = _peer(op, "src_rank", self.src_rank, self.group, comm)
        B.run(lambda: comm.Recv(buf, source=peer, tag=self.sr_tag), f"Receive from {self.src_rank}")
        return Tensor(buf)


def _exchange(op: str, group: Any, sends: list[tuple[int, np.ndarray]], recvs: list[tuple[int, tuple, Any]],
              tag: int = 0) -> list[np.ndarray]:
    """Start every send and receive, then wait for all (no ordering deadlock)."""
    comm = _comm(op, group)
    reqs, bufs = [], []
    for rank, arr in sends:
        peer = _peer(op, "a send rank", rank, group, comm)
        data = np.ascontiguousarray(arr).copy()
        reqs.append(B.run(lambda p=peer, d=data: comm.Isend(d, dest=p, tag=tag), f"{op} send to {rank}"))
    for rank, shape, dt in recvs:
        peer = _peer(op, "a receive rank", rank, group, comm)
        buf = np.empty(shape, dt)
        bufs.append(buf)
        reqs.append(B.run(lambda p=peer, b=buf: comm.Irecv(b, source=p, tag=tag), f"{op} receive from {rank}"))
    for r in reqs:
        B.run(r.Wait, op)
    return bufs


class NeighborExchange(Operation):
    """``NeighborExchange(send_rank_ids, recv_rank_ids, recv_shapes, send_shapes, recv_type,
    group='hccl_world_group')(input_x)``: see the module docstring."""

    def __init__(self, send_rank_ids: Any, recv_rank_ids: Any, recv_shapes: Any, send_shapes: Any, recv_type: Any,
                 group: str = B.WORLD) -> None:
        op = "NeighborExchange"
        self.send_rank_ids, self.recv_rank_ids = list(send_rank_ids), list(recv_rank_ids)
        self.recv_shapes = [_shape(op, s) for s in recv_shapes]
        self.send_shapes = [_shape(op, s) for s in send_shapes]
        if len(self.recv_shapes) != len(self.recv_rank_ids) or len(self.send_shapes) != len(self.send_rank_ids):
            raise ValueError(f"{op}: one shape per rank id is needed (send {len(self.send_rank_ids)} ids, "
                             f"{len(self.send_shapes)} shapes; recv {len(self.recv_rank_ids)} ids, "
                             f"{len(self.recv_shapes)} shapes)")
        self.recv_type, self.group = mstype.to_dtype(recv_type), group

    def construct(self, input_x: Any) -> tuple[Tensor, ...]:
        op = "NeighborExchange"
        xs = list(input_x) if isinstance(input_x, (tuple, list)) else [input_x]
        if len(xs) != len(self.send_rank_ids):
            raise ValueError(f"{op}: {len(self.send_rank_ids)} tensors to send, got {len(xs)}")
        sends = []
        for k, (r, t, s) in enumerate(zip(self.send_rank_ids, xs, self.send_shapes)):
            if tuple(_tensor(op, t).shape) != s:
                raise ShapeError(op, f"input_x[{k}] of send_shapes[{k}] {s}", f"shape {tuple(t.shape)}")
            sends.append((r, t.asnumpy()))
        recvs = [(r, s, self.recv_type.np) for r, s in zip(self.recv_rank_ids, self.recv_shapes)]
        return tuple(Tensor(b) for b in _exchange(op, self.group, sends, recvs))


class BatchISendIRecv(Operation):
    """``BatchISendIRecv(op_types, remote_ranks, receive_shapes=None, receive_dtypes=None,
    group='hccl_world_group')(input_x)``: see the module docstring."""

    def __init__(self, op_types: Any, remote_ranks: Any, receive_shapes: Any = None, receive_dtypes: Any = None,
                 group: str = B.WORLD) -> None:
        op = "BatchISendIRecv"
        self.op_types, self.remote_ranks = tuple(op_types), tuple(remote_ranks)
        if not self.op_types or any(t not in ("isend", "irecv") for t in self.op_types):
            raise ValueError(f"{op}: op_types must be a non-empty tuple of 'isend'/'irecv', got {op_types!r}")
        if len(self.remote_ranks) != len(self.op_types):
            raise ValueError(f"{op}: one remote rank per op type, got {len(self.remote_ranks)} for "
                             f"{len(self.op_types)}")
        n_recv = self.op_types.count("irecv")
        self.receive_shapes = [_shape(op, s) for s in (receive_shapes or ())]
        self.receive_dtypes = [mstype.to_dtype(d) for d in (receive_dtypes or ())]
        if len(self.receive_shapes) != n_recv or len(self.receive_dtypes) != n_recv:
            raise ValueError(f"{op}: receive_shapes and receive_dtypes need one entry per 'irecv' ({n_recv})")
        self.group = group

    def construct(self, input_x: Any) -> tuple[Tensor, ...]:
        op = "BatchISendIRecv"
        xs = list(input_x) if isinstance(input_x, (tuple, list)) else [input_x]
        n_send = self.op_types.count("isend")
        if len(xs) != n_send:
            raise ValueError(f"{op}: {n_send} tensors to send (one per 'isend'), got {len(xs)}")
        sends, recvs, it_s, it_r = [], [], iter(xs), iter(zip(self.receive_shapes, self.receive_dtypes))
        for t, r in zip(self.op_types, self.remote_ranks):
            if t == "isend":
                sends.append((r, _tensor(op, next(it_s)).asnumpy()))
            else:
                s, d = next(it_r)
                recvs.append((r, s, d.np))
        got = iter(_exchange(op, self.group, sends, recvs))
        return tuple(Tensor(next(got)) if t == "irecv" else Tensor(np.array(0, np.int32)) for t in self.op_types)


@primitive(internal=True)
class GradientRefused:
    """`y` unchanged; differentiating through it to `xs` raises a GradError naming `op`.

    Why: the uneven exchanges below run in NumPy over MPI, outside the tape, so without this a
    gradient through them would be a silent zero where MindSpore has a real one."""

    def infer(y, *xs, op=""):
        return Aval(tuple(y.shape), y.dtype)

    def impl(y, *xs, op=""):
        return y

    def vjp(g, out, y, *xs, op=""):
        from ..errors import GradError

        raise GradError(f"{op}: Spore has no gradient for this exchange yet; use ops.stop_gradient on its "
                        f"input, or the even collectives (ops.ReduceScatter, ops.AlltoAll), which have one")


class ReduceScatterV(Operation):
    """``ReduceScatterV(op='sum', group='hccl_world_group')(input_x, input_split_sizes)``: see the
    module docstring (the class form of `ops.reduce_scatter_tensor_uneven`)."""

    def __init__(self, op: str = "sum", group: str = B.WORLD) -> None:
        self.op, self.group = op, group

    def construct(self, input_x: Tensor, input_split_sizes: Any) -> Tensor:
        sizes = input_split_sizes.asnumpy().tolist() if isinstance(input_split_sizes, Tensor) else \
            list(input_split_sizes)
        x = _tensor("ReduceScatterV", input_x)
        comm = _comm("ReduceScatterV", self.group)
        mine = int(sizes[comm.Get_rank()]) if len(sizes) == comm.Get_size() else 0
        out = Tensor(np.zeros((mine, *x.shape[1:]), x.dtype.np))
        reduce_scatter_tensor_uneven(out, x, [int(s) for s in sizes], self.op, self.group)
        return GradientRefused(out, x, op="ReduceScatterV")


class AlltoAllVC(Operation):
    """``AlltoAllVC(group='hccl_world_group', block_size=1, transpose=False)(input_x,
    send_count_matrix)``: see the module docstring."""

    def __init__(self, group: str = B.WORLD, block_size: int = 1, transpose: bool = False) -> None:
        if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 1:
            raise ValueError(f"AlltoAllVC: block_size must be a positive int, got {block_size!r}")
        self.group, self.block_size, self.transpose = group, block_size, bool(transpose)

    def construct(self, input_x: Tensor, send_count_matrix: Any) -> Tensor:
        op = "AlltoAllVC"
        comm = _comm(op, self.group)
        n, me = comm.Get_size(), comm.Get_rank()
        m = np.asarray(send_count_matrix.asnumpy() if isinstance(send_count_matrix, Tensor) else send_count_matrix,
                       np.int64).reshape(-1)
        if m.size != n * n or np.any(m < 0):
            raise ValueError(f"{op}: send_count_matrix must hold {n}x{n} non-negative counts, got {m.size} values")
        counts = m.reshape(n, n)
        if self.transpose:
            counts = counts.T
        counts = counts * self.block_size
        x = np.ascontiguousarray(_tensor(op, input_x).asnumpy().reshape(-1))
        send, recv = counts[me], counts[:, me]
        if send.sum() != x.size:
            raise ShapeError(op, f"input_x of {int(send.sum())} elements (row {me} of the count matrix)",
                             f"{x.size} elements")
        out = np.empty(int(recv.sum()), x.dtype)
        sdis = np.concatenate([[0], np.cumsum(send)[:-1]]).astype(np.int64)
        rdis = np.concatenate([[0], np.cumsum(recv)[:-1]]).astype(np.int64)
        B.run(lambda: comm.Alltoallv([x, (send.tolist(), sdis.tolist())], [out, (recv.tolist(), rdis.tolist())]),
              f"{op} in {self.group}")
        return GradientRefused(Tensor(out), input_x, op=op)
