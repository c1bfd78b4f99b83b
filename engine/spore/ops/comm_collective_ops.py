"""MindSpore's torch-style collectives of ``mindspore.ops`` (issue 14, slice A2): `all_reduce`,
`all_gather`, `all_gather_into_tensor`, `all_gather_into_tensor_uneven`, `all_gather_object`,
`broadcast`, `broadcast_object_list`, `barrier` / `Barrier`, `gather_into_tensor`, `gather_object`,
`all_to_all`, `all_to_all_single` and `batch_isend_irecv` — over Spore's MPI backend
(``mpirun``/``spore-run``, then ``spore.communication.init()``).

Like the point-to-point ops (ops/p2p_comm_ops.py, whose helpers these reuse), they run eagerly and
carry no gradient (the differentiable graph forms are `ops.AllReduce`, `ops.AllGather`, ... in
ops/collective.py). MindSpore's "in-place" convention is followed: results are written into the
given output tensors/lists and the functions return None, or a completed `CommHandle` when
``async_op=True`` (MPI's blocking call has already finished; `wait()` returns at once). `src`/`dst`
are global ranks, translated to ranks of `group`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..communication import _backend as B
from ..errors import ShapeError
from ..tensor import Tensor
from .operation import Operation
from .p2p_comm_ops import CommHandle, P2POp, _comm, _done, _group, _list, _peer, _tensor

# the class forms (ops/__init__.py CLASS_MODULES); the functions come from functional
__all__ = ["Barrier", "AlltoAll", "AlltoAllV", "AllGatherV", "CollectiveGather", "CollectiveScatter"]


def _arr(t: Tensor) -> np.ndarray:
    return np.ascontiguousarray(t.asnumpy())


def _into(name: str, out: Tensor, value: np.ndarray) -> None:
    """Write `value` into `out`, whose shape must match (its dtype is kept)."""
    if tuple(out.shape) != tuple(value.shape):
        raise ShapeError(name, f"output of shape {tuple(value.shape)}", f"shape {tuple(out.shape)}")
    out.assign_value(Tensor(np.asarray(value).astype(out.dtype.np, copy=False)))


def _sizes(name: str, arg: str, sizes: Any, total: int, n: int) -> list[int]:
    """Split sizes along axis 0: None means `n` equal parts of `total`."""
    if sizes is None:
        if total % n:
            raise ValueError(f"{name}: the first axis ({total}) does not divide by the group size {n}; "
                             f"give {arg}")
        return [total // n] * n
    out = [int(s) for s in sizes]
    if len(out) != n or min(out) < 0 or sum(out) != total:
        raise ValueError(f"{name}: {arg} must be {n} non-negative sizes summing to {total}, got {sizes!r}")
    return out


def all_reduce(tensor: Tensor, op: str = "sum", group: str | None = None,
               async_op: bool = False) -> CommHandle | None:
    """Reduce `tensor` over the ranks of `group` with `op` ('sum', 'max', 'min', 'prod'); every
    rank gets the result in `tensor`."""
    name = "all_reduce"
    comm = _comm(name, group)
    x = _arr(_tensor(name, tensor))
    out = np.empty_like(x)
    mop = B.mpi_op(op)
    B.run(lambda: comm.Allreduce(x, out, op=mop), f"all_reduce({op}) in {_group(group)}")
    tensor.assign_value(Tensor(out))
    return _done(async_op)


def _allgatherv(name: str, comm: Any, x: np.ndarray, counts: list[int]) -> np.ndarray:
    row = int(np.prod(x.shape[1:], dtype=np.int64))
    buf = np.empty((sum(counts), *x.shape[1:]), x.dtype)
    B.run(lambda: comm.Allgatherv(x, [buf, [c * row for c in counts]]), name)
    return buf


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group: str | None = None,
                           async_op: bool = False) -> CommHandle | None:
    """Concatenate every rank's `input_tensor` along axis 0 (rank order) into `output_tensor`."""
    name = "all_gather_into_tensor"
    comm = _comm(name, group)
    x = _arr(_tensor(name, input_tensor))
    if x.ndim == 0:
        x = x.reshape(1)
    _into(name, _tensor(name, output_tensor), _allgatherv(name, comm, x, [x.shape[0]] * comm.Get_size()))
    return _done(async_op)


def all_gather_into_tensor_uneven(output: Tensor, input: Tensor, output_split_sizes: list[int] | None = None,
                                  group: str | None = None, async_op: bool = False) -> CommHandle | None:
    """`all_gather_into_tensor` where rank i contributes ``output_split_sizes[i]`` rows (its
    `input`'s first axis); None means equal parts of `output`'s first axis."""
    name = "all_gather_into_tensor_uneven"
    comm = _comm(name, group)
    out_t, x = _tensor(name, output), _arr(_tensor(name, input))
    if x.ndim == 0 or len(out_t.shape) == 0:
        raise ShapeError(name, "input and output with a first axis", f"shapes {x.shape}, {tuple(out_t.shape)}")
    counts = _sizes(name, "output_split_sizes", output_split_sizes, out_t.shape[0], comm.Get_size())
    if x.shape[0] != counts[comm.Get_rank()]:
        raise ShapeError(name, f"input with {counts[comm.Get_rank()]} rows on this rank (output_split_sizes)",
                         f"shape {x.shape}")
    _into(name, out_t, _allgatherv(name, comm, x, counts))
    return _done(async_op)


def all_gather(tensor_list: list, tensor: Tensor, group: str | None = None,
               async_op: bool = False) -> CommHandle | None:
    """Gather every rank's `tensor` into `tensor_list` (one tensor per rank, in place)."""
    name = "all_gather"
    comm = _comm(name, group)
    items, n = _list(name, "tensor_list", tensor_list), comm.Get_size()
    x = _arr(_tensor(name, tensor))
    if len(items) != n:
        raise ValueError(f"{name}: tensor_list must hold one tensor per rank ({n}), got {len(items)}")
    buf = np.empty((n, *x.shape), x.dtype)
    B.run(lambda: comm.Allgather(x, buf), f"all_gather in {_group(group)}")
    for t, part in zip(items, buf, strict=True):
        _into(name, _tensor(name, t), part)
    return _done(async_op)


def all_gather_object(object_list: list, obj: Any, group: str | None = None) -> None:
    """Gather every rank's picklable `obj` into `object_list` (length: the group size), in place."""
    name = "all_gather_object"
    comm = _comm(name, group)
    items = _list(name, "object_list", object_list)
    if len(items) != comm.Get_size():
        raise ValueError(f"{name}: object_list must have room for one object per rank ({comm.Get_size()}), "
                         f"got {len(items)}")
    items[:] = B.run(lambda: comm.allgather(obj), f"all_gather_object in {_group(group)}")


def broadcast(tensor: Tensor, src: int, group: str | None = None, async_op: bool = False) -> CommHandle | None:
    """Copy global rank `src`'s `tensor` into `tensor` on every rank of `group`."""
    name = "broadcast"
    comm = _comm(name, group)
    t = _tensor(name, tensor)
    root = _peer(name, "src", src, group, comm)
    buf = np.array(t.asnumpy(), copy=True, order="C")
    B.run(lambda: comm.Bcast(buf, root=root), f"broadcast from {src}")
    t.assign_value(Tensor(buf))
    return _done(async_op)


def broadcast_object_list(object_list: list, src: int = 0, group: str | None = None, device: Any = None) -> None:
    """Replace `object_list` on every rank by rank `src`'s (picklable objects; same length on all
    ranks). `device` is accepted for MindSpore's signature; objects travel through host memory."""
    name = "broadcast_object_list"
    comm = _comm(name, group)
    items = _list(name, "object_list", object_list)
    root = _peer(name, "src", src, group, comm)
    got = B.run(lambda: comm.bcast(list(items) if comm.Get_rank() == root else None, root=root),
                f"broadcast_object_list from {src}")
    if len(got) != len(items):
        raise ValueError(f"{name}: rank {src} sent {len(got)} objects, object_list has room for {len(items)}")
    items[:] = got


def barrier(group: str | None = None, async_op: bool = False, device_ids: Any = None) -> CommHandle | None:
    """Block until every rank of `group` reaches the barrier. `device_ids` is accepted for
    MindSpore's signature (there are no devices to pick on CPU)."""
    comm = _comm("barrier", group)
    B.run(comm.Barrier, f"barrier in {_group(group)}")
    return _done(async_op)


class Barrier(Operation):
    """``ops.Barrier(group='hccl_world_group')``: calling it blocks until every rank of `group`
    arrives (MindSpore's world-group name is accepted for the world)."""

    def __init__(self, group: str = "hccl_world_group") -> None:
        if not isinstance(group, str):
            raise TypeError(f"Barrier: group must be a str, got {type(group).__name__}")
        self.group = group

    def construct(self) -> None:
        barrier(self.group)


def gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, dst: int = 0, group: str | None = None,
                       async_op: bool = False) -> CommHandle | None:
    """Concatenate every rank's `input_tensor` along axis 0 into `output_tensor` on rank `dst`
    (the other ranks' `output_tensor` is left alone)."""
    name = "gather_into_tensor"
    comm = _comm(name, group)
    x = _arr(_tensor(name, input_tensor))
    if x.ndim == 0:
        x = x.reshape(1)
    out_t = _tensor(name, output_tensor)
    root, n = _peer(name, "dst", dst, group, comm), comm.Get_size()
    mine = comm.Get_rank() == root
    want = (n * x.shape[0], *x.shape[1:])
    if mine and tuple(out_t.shape) != want:
        raise ShapeError(name, f"output_tensor of shape {want}", f"shape {tuple(out_t.shape)}")
    buf = np.empty(want, x.dtype) if mine else None
    B.run(lambda: comm.Gather(x, buf, root=root), f"gather_into_tensor to {dst}")
    if mine:
        _into(name, out_t, buf)
    return _done(async_op)


def gather_object(obj: Any, object_gather_list: list | None = None, dst: int = 0, group: str | None = None) -> None:
    """Gather every rank's picklable `obj` into `object_gather_list` on rank `dst` (which must
    give a list of the group size; the other ranks may pass None)."""
    name = "gather_object"
    comm = _comm(name, group)
    root, n = _peer(name, "dst", dst, group, comm), comm.Get_size()
    mine = comm.Get_rank() == root
    if mine:
        items = _list(name, "object_gather_list", object_gather_list)
        if len(items) != n:
            raise ValueError(f"{name}: object_gather_list must have room for one object per rank ({n}), "
                             f"got {len(items)}")
    got = B.run(lambda: comm.gather(obj, root=root), f"gather_object to {dst}")
    if mine:
        items[:] = got


def all_to_all(output_tensor_list: list, input_tensor_list: list, group: str | None = None,
               async_op: bool = False) -> CommHandle | None:
    """Rank i sends ``input_tensor_list[j]`` to rank j, which stores it in its
    ``output_tensor_list[i]``; the tensors may differ in shape (each output must match what
    arrives)."""
    name = "all_to_all"
    comm = _comm(name, group)
    n = comm.Get_size()
    outs, ins = _list(name, "output_tensor_list", output_tensor_list), _list(name, "input_tensor_list",
                                                                             input_tensor_list)
    if len(outs) != n or len(ins) != n:
        raise ValueError(f"{name}: output_tensor_list and input_tensor_list must hold {n} tensors each, "
                         f"got {len(outs)} and {len(ins)}")
    send = [_arr(_tensor(name, t)) for t in ins]
    for t in outs:
        _tensor(name, t)
    got = B.run(lambda: comm.alltoall(send), f"all_to_all in {_group(group)}")
    for t, part in zip(outs, got, strict=True):
        _into(name, t, part)
    return _done(async_op)


def all_to_all_single(output: Tensor, input: Tensor, output_split_sizes: list[int] | None = None,
                      input_split_sizes: list[int] | None = None, group: str | None = None,
                      async_op: bool = False) -> CommHandle | None:
    """Split `input` along axis 0 into group-size parts (``input_split_sizes``; None: equal), send
    part j to rank j, and concatenate what arrives from ranks 0..n-1 into `output`
    (``output_split_sizes`` rows from each; None: equal)."""
    name = "all_to_all_single"
    comm = _comm(name, group)
    n = comm.Get_size()
    out_t, x = _tensor(name, output), _arr(_tensor(name, input))
    if x.ndim == 0 or len(out_t.shape) == 0:
        raise ShapeError(name, "input and output with a first axis", f"shapes {x.shape}, {tuple(out_t.shape)}")
    if tuple(out_t.shape[1:]) != x.shape[1:]:
        raise ShapeError(name, f"output of shape (*, {', '.join(map(str, x.shape[1:]))})",
                         f"shape {tuple(out_t.shape)}")
    sin = _sizes(name, "input_split_sizes", input_split_sizes, x.shape[0], n)
    sout = _sizes(name, "output_split_sizes", output_split_sizes, out_t.shape[0], n)
    row = int(np.prod(x.shape[1:], dtype=np.int64))
    buf = np.empty((sum(sout), *x.shape[1:]), x.dtype)
    def spec(sizes: list[int]) -> tuple[list[int], list[int]]:
        counts = [s * row for s in sizes]
        return counts, [int(v) for v in np.concatenate([[0], np.cumsum(counts)[:-1]])]

    send_spec, recv_spec = spec(sin), spec(sout)
    B.run(lambda: comm.Alltoallv([x, send_spec], [buf, recv_spec]), f"all_to_all_single in {_group(group)}")
    _into(name, out_t, buf)
    return _done(async_op)


def all_to_all_v_c(output: Tensor, input: Tensor, send_count_matrix: list[int], group: str | None = None,
                   async_op: bool = False) -> CommHandle | None:
    """`all_to_all_single` with every rank's split sizes in one flat n x n matrix:
    ``send_count_matrix[i * n + j]`` rows (of `input`'s first axis) go from rank i to rank j."""
    name = "all_to_all_v_c"
    n, r = _comm(name, group).Get_size(), _comm(name, group).Get_rank()
    if not isinstance(send_count_matrix, (list, tuple)):
        raise TypeError(f"{name}: send_count_matrix must be a list of ints, got {type(send_count_matrix).__name__}")
    m = [int(v) for v in send_count_matrix]
    if len(m) != n * n or min(m) < 0:
        raise ValueError(f"{name}: send_count_matrix must hold {n} x {n} non-negative counts, got {len(m)} values")
    return all_to_all_single(output, input, [m[j * n + r] for j in range(n)], m[r * n:(r + 1) * n], group, async_op)


def _cls_group(cls: str, group: Any) -> str:
    if not isinstance(group, str):
        raise TypeError(f"{cls}: group must be a str, got {type(group).__name__}")
    return group


def _counts(cls: str, name: str, v: Any) -> list[int]:
    vals = v.asnumpy().reshape(-1).tolist() if isinstance(v, Tensor) else list(v)
    if any(isinstance(x, bool) or int(x) != x or x < 0 for x in vals):
        raise ValueError(f"{cls}: {name} must be non-negative ints, got {vals!r}")
    return [int(x) for x in vals]


class AlltoAll(Operation):
    """``ops.AlltoAll(split_count, split_dim, concat_dim, group)(input_x)``: split `input_x` along
    `split_dim` into `split_count` (= the group size) blocks, send block i to rank i, and
    concatenate the blocks received from ranks 0..n-1 along `concat_dim`."""

    def __init__(self, split_count: int, split_dim: int, concat_dim: int, group: str = "hccl_world_group") -> None:
        for k, v in (("split_count", split_count), ("split_dim", split_dim), ("concat_dim", concat_dim)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"AlltoAll: {k} must be an int, got {type(v).__name__}")
        self.split_count, self.split_dim, self.concat_dim = split_count, split_dim, concat_dim
        self.group = _cls_group("AlltoAll", group)

    def construct(self, input_x: Tensor) -> Tensor:
        name = "AlltoAll"
        comm = _comm(name, self.group)
        x = _arr(_tensor(name, input_x))
        n = comm.Get_size()
        if self.split_count != n:
            raise ValueError(f"{name}: split_count ({self.split_count}) must equal the group size {n}")
        sd, cd = self.split_dim % max(x.ndim, 1), self.concat_dim % max(x.ndim, 1)
        if x.ndim == 0 or x.shape[sd] % n:
            raise ShapeError(name, f"input_x whose axis {self.split_dim} divides by {n}", f"shape {x.shape}")
        blocks = [np.ascontiguousarray(b) for b in np.split(x, n, axis=sd)]
        got = B.run(lambda: comm.alltoall(blocks), f"AlltoAll in {self.group}")
        return Tensor(np.concatenate(got, axis=cd))


class AlltoAllV(Operation):
    """``ops.AlltoAllV(group, block_size=1)(input_x, send_numel_list, recv_numel_list)``: the
    uneven all-to-all of flat tensors: ``send_numel_list[j] * block_size`` elements go to rank j,
    ``recv_numel_list[j] * block_size`` arrive from it; returns them concatenated (1-D)."""

    def __init__(self, group: str = "hccl_world_group", block_size: int = 1) -> None:
        if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 1:
            raise ValueError(f"AlltoAllV: block_size must be a positive int, got {block_size!r}")
        self.group, self.block_size = _cls_group("AlltoAllV", group), block_size

    def construct(self, input_x: Tensor, send_numel_list: Any, recv_numel_list: Any) -> Tensor:
        name = "AlltoAllV"
        x = _arr(_tensor(name, input_x)).reshape(-1)
        bs = self.block_size
        sin = [c * bs for c in _counts(name, "send_numel_list", send_numel_list)]
        sout = [c * bs for c in _counts(name, "recv_numel_list", recv_numel_list)]
        if sum(sin) != x.size:
            raise ValueError(f"{name}: send_numel_list * block_size sums to {sum(sin)}, input_x has {x.size} elements")
        out = Tensor(np.zeros(sum(sout), x.dtype))
        all_to_all_single(out, Tensor(x), sout, sin, self.group)
        return out


class AllGatherV(Operation):
    """``ops.AllGatherV(group)(input_x, output_split_sizes)``: concatenate every rank's flat
    `input_x` (rank i contributes ``output_split_sizes[i]`` elements) into one 1-D tensor."""

    def __init__(self, group: str = "hccl_world_group") -> None:
        self.group = _cls_group("AllGatherV", group)

    def construct(self, input_x: Tensor, output_split_sizes: Any) -> Tensor:
        name = "AllGatherV"
        x = _arr(_tensor(name, input_x)).reshape(-1)
        sizes = _counts(name, "output_split_sizes", output_split_sizes)
        out = Tensor(np.zeros(sum(sizes), x.dtype))
        all_gather_into_tensor_uneven(out, Tensor(x), sizes, self.group)
        return out


class CollectiveGather(Operation):
    """``ops.CollectiveGather(dest_rank, group)(input_x)``: rank `dest_rank` gets every rank's
    `input_x` concatenated along axis 0; the other ranks get zeros of that shape (MindSpore leaves
    their output unspecified)."""

    def __init__(self, dest_rank: int, group: str = "hccl_world_group") -> None:
        if isinstance(dest_rank, bool) or not isinstance(dest_rank, int):
            raise TypeError(f"CollectiveGather: dest_rank must be an int, got {type(dest_rank).__name__}")
        self.dest_rank, self.group = dest_rank, _cls_group("CollectiveGather", group)

    def construct(self, input_x: Tensor) -> Tensor:
        name = "CollectiveGather"
        x = _arr(_tensor(name, input_x))
        x = x.reshape(1) if x.ndim == 0 else x
        n = _comm(name, self.group).Get_size()
        out = Tensor(np.zeros((n * x.shape[0], *x.shape[1:]), x.dtype))
        gather_into_tensor(out, Tensor(x), self.dest_rank, self.group)
        return out


class CollectiveScatter(Operation):
    """``ops.CollectiveScatter(src_rank=0, group)(input_x)``: rank `src_rank` splits its
    `input_x` along axis 0 into group-size equal parts and rank i gets part i (the other ranks'
    `input_x` only gives the shape)."""

    def __init__(self, src_rank: int = 0, group: str = "hccl_world_group") -> None:
        if isinstance(src_rank, bool) or not isinstance(src_rank, int):
            raise TypeError(f"CollectiveScatter: src_rank must be an int, got {type(src_rank).__name__}")
        self.src_rank, self.group = src_rank, _cls_group("CollectiveScatter", group)

    def construct(self, input_x: Tensor) -> Tensor:
        from .p2p_comm_ops import scatter_tensor

        name = "CollectiveScatter"
        x = _arr(_tensor(name, input_x))
        n = _comm(name, self.group).Get_size()
        if x.ndim == 0 or x.shape[0] % n:
            raise ShapeError(name, f"input_x whose first axis divides by the group size {n}", f"shape {x.shape}")
        out = Tensor(np.zeros((x.shape[0] // n, *x.shape[1:]), x.dtype))
        scatter_tensor(out, Tensor(x), self.src_rank, self.group)
        return out


def get_backend(group: str | None = None) -> str:
    """The name of the communication backend `group` runs on: always ``"mpi"`` in Spore (MindSpore
    answers "hccl"/"nccl"/"mccl" for its device backends)."""
    _comm("get_backend", group)
    return "mpi"


def batch_isend_irecv(p2p_op_list: list) -> list[CommHandle]:
    """Start every `P2POp` of the list (isend/irecv) and return their handles; `wait()` on each
    completes the transfers (receives write their tensors then)."""
    items = _list("batch_isend_irecv", "p2p_op_list", p2p_op_list)
    if not items or not all(isinstance(p, P2POp) for p in items):
        raise TypeError("batch_isend_irecv: p2p_op_list must be a non-empty list of ops.P2POp")
    return [p.run() for p in items]
