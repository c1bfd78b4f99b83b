"""Point-to-point and rooted communication of MindSpore's ``mindspore.ops`` (issue 14, slice B2):
`send` / `recv`, `isend` / `irecv`, `P2POp`, `reduce`, `scatter_tensor`, `reduce_scatter`,
`reduce_scatter_tensor`, `reduce_scatter_tensor_uneven`, and the pickled-object
forms `send_object_list`, `recv_object_list`, `scatter_object_list` — over Spore's MPI backend
(`spore.communication`; launch with ``mpirun``/``spore-run``, then ``init()``).

These run eagerly (PyNative, as MindSpore documents for them) and carry no gradient. Ranks (`dst`,
`src`) are global ranks, as MindSpore's; they are translated to ranks of `group` (default: the
world). MindSpore's default "in-place" mode is followed: `recv` and `irecv` fill the given tensor
and return 0 (or a handle), `reduce` leaves the result in `tensor` on rank `dst`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..communication import _backend as B
from ..errors import ShapeError
from ..tensor import Tensor
from .operation import Operation

__all__ = ["Reduce"]  # the class form (ops/__init__.py CLASS_MODULES); the functions come from functional;
# P2POp (a plain description of one send/recv, not an op) is exported by ops/__init__.py itself


def _group(group: Any) -> str:
    if group is None:
        return B.WORLD
    if not isinstance(group, str):
        raise TypeError(f"group must be a str or None, got {type(group).__name__}")
    return group


def _comm(op: str, group: Any) -> Any:
    comm = B.comm_of(_group(group))
    if comm is None:
        raise RuntimeError(f"{op}: communication is not initialised (launch with mpirun and call "
                           "spore.communication.init() first)")
    return comm


def _peer(op: str, name: str, rank: Any, group: Any, comm: Any) -> int:
    """The rank of global rank `rank` within `group`."""
    if isinstance(rank, bool) or not isinstance(rank, int):
        raise TypeError(f"{op}: {name} must be an int (a global rank), got {type(rank).__name__}")
    g = _group(group)
    if g in B._WORLD_ALIASES:
        local = rank
    else:
        from ..communication.management import get_group_rank_from_world_rank

        local = get_group_rank_from_world_rank(rank, g)
    if not 0 <= local < comm.Get_size():
        raise ValueError(f"{op}: {name}={rank} is not a rank of group {g!r} (size {comm.Get_size()})")
    return local


def _tag(op: str, tag: Any) -> int:
    if isinstance(tag, bool) or not isinstance(tag, int) or tag < 0:
        raise TypeError(f"{op}: tag must be a non-negative int, got {tag!r}")
    return tag


def _tensor(op: str, tensor: Any) -> Tensor:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{op}: tensor must be a Tensor, got {type(tensor).__name__}")
    return tensor


class CommHandle:
    """The handle `isend`/`irecv`/`async_op=True` return: `wait()` blocks until the transfer is done
    (and, for a receive, writes the data into the tensor)."""

    def __init__(self, request: Any = None, on_done: Callable[[], None] | None = None, what: str = "") -> None:
        self._request, self._on_done, self._what, self._done = request, on_done, what, request is None

    def wait(self) -> bool:
        if not self._done:
            B.run(self._request.Wait, self._what)
            self._done = True
            if self._on_done is not None:
                self._on_done()
        return True

    def is_completed(self) -> bool:
        if not self._done and B.run(self._request.Test, self._what):
            self._done = True
            if self._on_done is not None:
                self._on_done()
        return self._done


def send(tensor: Tensor, dst: int = 0, group: str | None = None, tag: int = 0) -> int:
    """Send `tensor` to global rank `dst` (blocking until it can be reused); returns 0."""
    isend(tensor, dst, group, tag).wait()
    return 0


def recv(tensor: Tensor, src: int = 0, group: str | None = None, tag: int = 0) -> int:
    """Receive into `tensor` (its shape and dtype must match what `src` sends); returns 0."""
    irecv(tensor, src, group, tag).wait()
    return 0


def isend(tensor: Tensor, dst: int = 0, group: str | None = None, tag: int = 0) -> CommHandle:
    """Start sending `tensor` to global rank `dst`; the returned handle's `wait()` completes it."""
    op = "isend"
    comm = _comm(op, group)
    buf = np.ascontiguousarray(_tensor(op, tensor).asnumpy()).copy()
    peer, t = _peer(op, "dst", dst, group, comm), _tag(op, tag)
    req = B.run(lambda: comm.Isend(buf, dest=peer, tag=t), f"isend to {dst}")
    return CommHandle(req, None, f"isend to {dst} (tag {t})")


def irecv(tensor: Tensor, src: int = 0, group: str | None = None, tag: int = 0) -> CommHandle:
    """Start receiving into `tensor` from global rank `src`; the data is there after `wait()`."""
    op = "irecv"
    comm = _comm(op, group)
    t = _tensor(op, tensor)
    buf = np.empty(t.shape, t.dtype.np)
    peer, tg = _peer(op, "src", src, group, comm), _tag(op, tag)
    req = B.run(lambda: comm.Irecv(buf, source=peer, tag=tg), f"irecv from {src}")
    return CommHandle(req, lambda: t.assign_value(Tensor(buf)), f"irecv from {src} (tag {tg})")


class P2POp:
    """``P2POp(op, tensor, peer, group=None, tag=0)``: a deferred `isend`/`irecv` (pass the function
    or its name) for batching; `run()` starts it and returns its handle."""

    def __init__(self, op: Any, tensor: Tensor, peer: int, group: str | None = None, tag: int = 0) -> None:
        names = {"isend": isend, "irecv": irecv}
        fn = names.get(op) if isinstance(op, str) else op
        if fn not in (isend, irecv):
            raise TypeError(f"P2POp: op must be ops.isend or ops.irecv (or their names), got {op!r}")
        self.op, self.tensor, self.peer, self.group, self.tag = fn, _tensor("P2POp", tensor), peer, group, tag

    def run(self) -> CommHandle:
        return self.op(self.tensor, self.peer, self.group, self.tag)


def _done(async_op: bool) -> CommHandle | None:
    return CommHandle() if async_op else None


def reduce(tensor: Tensor, dst: int, op: str = "sum", group: str | None = None,
           async_op: bool = False) -> CommHandle | None:
    """Reduce `tensor` over the ranks of `group` with `op` ('sum', 'max', 'min', 'prod'); rank `dst`
    gets the result in `tensor`, the others keep theirs."""
    name = "reduce"
    comm = _comm(name, group)
    t = _tensor(name, tensor)
    root = _peer(name, "dst", dst, group, comm)
    x = np.ascontiguousarray(t.asnumpy())
    out = np.empty_like(x)
    mop = B.mpi_op(op)
    B.run(lambda: comm.Reduce(x, out, op=mop, root=root), f"reduce({op}) to {dst}")
    if comm.Get_rank() == root:
        t.assign_value(Tensor(out))
    return _done(async_op)


def scatter_tensor(output_tensor: Tensor, input_tensor: Tensor, src: int = 0, group: str | None = None,
                   async_op: bool = False) -> CommHandle | None:
    """Rank `src` splits `input_tensor` along axis 0 into group-size equal parts; rank i receives
    part i into `output_tensor`."""
    name = "scatter_tensor"
    comm = _comm(name, group)
    out_t, in_t = _tensor(name, output_tensor), _tensor(name, input_tensor)
    root, n = _peer(name, "src", src, group, comm), comm.Get_size()
    send_buf = None
    if comm.Get_rank() == root:
        x = np.ascontiguousarray(in_t.asnumpy())
        if x.ndim == 0 or x.shape[0] != n * out_t.shape[0] or x.shape[1:] != tuple(out_t.shape[1:]):
            raise ShapeError(name, f"input_tensor of shape ({n} * {out_t.shape[0]}, ...{tuple(out_t.shape[1:])})",
                             f"shape {x.shape}")
        send_buf = x.astype(out_t.dtype.np)
    buf = np.empty(out_t.shape, out_t.dtype.np)
    B.run(lambda: comm.Scatter(send_buf, buf, root=root), f"scatter_tensor from {src}")
    out_t.assign_value(Tensor(buf))
    return _done(async_op)


def _list(op: str, name: str, x: Any) -> list:
    if not isinstance(x, list):
        raise TypeError(f"{op}: {name} must be a list, got {type(x).__name__}")
    return x


def send_object_list(object_list: list, dst: int, group: str | None = None, device: Any = None) -> None:
    """Send the (picklable) objects of `object_list` to global rank `dst`. `device` is accepted for
    MindSpore's signature; objects travel through host memory."""
    comm = _comm("send_object_list", group)
    objs = _list("send_object_list", "object_list", object_list)
    peer = _peer("send_object_list", "dst", dst, group, comm)
    B.run(lambda: comm.send(list(objs), dest=peer, tag=0x5EED), f"send_object_list to {dst}")


def recv_object_list(object_list: list, src: int = 0, group: str | None = None, device: Any = None) -> None:
    """Receive `len(object_list)` objects from global rank `src` into `object_list`, in place."""
    comm = _comm("recv_object_list", group)
    objs = _list("recv_object_list", "object_list", object_list)
    peer = _peer("recv_object_list", "src", src, group, comm)
    got = B.run(lambda: comm.recv(source=peer, tag=0x5EED), f"recv_object_list from {src}")
    if len(got) != len(objs):
        raise ValueError(f"recv_object_list: rank {src} sent {len(got)} objects, object_list has room for "
                         f"{len(objs)}")
    objs[:] = got


def scatter_object_list(scatter_object_output_list: list, scatter_object_input_list: list, src: int = 0,
                        group: str | None = None) -> None:
    """Rank `src` sends object i of `scatter_object_input_list` (one per rank) to rank i, which
    stores it in ``scatter_object_output_list[0]``."""
    name = "scatter_object_list"
    comm = _comm(name, group)
    out = _list(name, "scatter_object_output_list", scatter_object_output_list)
    if not out:
        raise ValueError(f"{name}: scatter_object_output_list must have room for one object")
    root, n = _peer(name, "src", src, group, comm), comm.Get_size()
    items = None
    if comm.Get_rank() == root:
        items = list(_list(name, "scatter_object_input_list", scatter_object_input_list))
        if len(items) != n:
            raise ValueError(f"{name}: scatter_object_input_list needs one object per rank ({n}), got {len(items)}")
    out[0] = B.run(lambda: comm.scatter(items, root=root), f"scatter_object_list from {src}")


def _reduce_scatter_into(name: str, output: Tensor, x: np.ndarray, counts: list[int], op: str, group: Any) -> None:
    comm = _comm(name, group)
    out_t = _tensor(name, output)
    mine = counts[comm.Get_rank()]
    if x.ndim == 0 or tuple(out_t.shape) != (mine, *x.shape[1:]):
        raise ShapeError(name, f"output of shape {(mine, *x.shape[1:])} (this rank's slice of input)",
                         f"shape {tuple(out_t.shape)}")
    row = int(np.prod(x.shape[1:], dtype=np.int64))
    buf = np.empty((mine, *x.shape[1:]), x.dtype)
    mop = B.mpi_op(op)
    B.run(lambda: comm.Reduce_scatter(x, buf, recvcounts=[c * row for c in counts], op=mop),
          f"{name}({op}) in {_group(group)}")
    out_t.assign_value(Tensor(buf))


def reduce_scatter_tensor(output: Tensor, input: Tensor, op: str = "sum", group: str | None = None,
                          async_op: bool = False) -> CommHandle | None:
    """Reduce `input` over the ranks with `op`, then rank i gets the i-th of the group-size equal
    slices along axis 0 in `output`."""
    name = "reduce_scatter_tensor"
    x = np.ascontiguousarray(_tensor(name, input).asnumpy())
    n = _comm(name, group).Get_size()
    if x.ndim == 0 or x.shape[0] % n:
        raise ShapeError(name, f"input whose first axis divides by the group size {n}", f"shape {x.shape}")
    _reduce_scatter_into(name, output, x, [x.shape[0] // n] * n, op, group)
    return _done(async_op)


def reduce_scatter(output: Tensor, input_list: list, op: str = "sum", group: str | None = None,
                   async_op: bool = False) -> CommHandle | None:
    """Reduce the list of group-size tensors element-wise over the ranks; rank i gets the reduced
    i-th tensor in `output`."""
    name = "reduce_scatter"
    items = _list(name, "input_list", input_list)
    n = _comm(name, group).Get_size()
    if len(items) != n or any(tuple(_tensor(name, t).shape) != tuple(items[0].shape) for t in items):
        raise ShapeError(name, f"input_list of {n} tensors of one shape", f"{[tuple(t.shape) for t in items]}")
    x = np.ascontiguousarray(np.concatenate([np.asarray(t.asnumpy())[None] for t in items]))
    flat = x.reshape(n, -1)
    out_t = _tensor(name, output)
    tmp = Tensor(np.zeros((1, flat.shape[1]), x.dtype))
    _reduce_scatter_into(name, tmp, flat, [1] * n, op, group)
    out_t.assign_value(Tensor(tmp.asnumpy().reshape(items[0].shape)))
    return _done(async_op)


def reduce_scatter_tensor_uneven(output: Tensor, input: Tensor, input_split_sizes: list[int] | None = None,
                                 op: str = "sum", group: str | None = None,
                                 async_op: bool = False) -> CommHandle | None:
    """`reduce_scatter_tensor` with slices of the given sizes along axis 0 (rank i gets
    ``input_split_sizes[i]`` rows); None means equal slices."""
    name = "reduce_scatter_tensor_uneven"
    x = np.ascontiguousarray(_tensor(name, input).asnumpy())
    n = _comm(name, group).Get_size()
    if input_split_sizes is None:
        if x.ndim == 0 or x.shape[0] % n:
            raise ShapeError(name, f"input whose first axis divides by the group size {n}", f"shape {x.shape}")
        sizes = [x.shape[0] // n] * n
    else:
        sizes = [int(s) for s in input_split_sizes]
        if len(sizes) != n or min(sizes) < 0 or x.ndim == 0 or sum(sizes) != x.shape[0]:
            raise ValueError(f"{name}: input_split_sizes must be {n} non-negative sizes summing to input's first "
                             f"axis ({x.shape[0] if x.ndim else 'scalar'}), got {input_split_sizes!r}")
    _reduce_scatter_into(name, output, x, sizes, op, group)
    return _done(async_op)


class Reduce(Operation):
    """``Reduce(dest_rank, op='sum', group='hccl_world_group')(input_x)``: the reduction of `input_x`
    over `group` on rank `dest_rank` (a rank *of the group*, as MindSpore's); every other rank gets
    a shape-[1] zero tensor, which MindSpore documents as having no meaning."""

    def __init__(self, dest_rank: int, op: str = "sum", group: str = B.WORLD) -> None:
        if isinstance(dest_rank, bool) or not isinstance(dest_rank, int) or dest_rank < 0:
            raise TypeError(f"Reduce: dest_rank must be a non-negative int, got {dest_rank!r}")
        if not isinstance(op, str) or not isinstance(group, str):
            raise TypeError("Reduce: op and group must be str")
        self.dest_rank, self.op, self.group = dest_rank, op, group

    def construct(self, input_x: Tensor) -> Tensor:
        name = "Reduce"
        comm = _comm(name, self.group)
        if self.dest_rank >= comm.Get_size():
            raise ValueError(f"Reduce: dest_rank {self.dest_rank} is not a rank of group {self.group!r} "
                             f"(size {comm.Get_size()})")
        x = np.ascontiguousarray(_tensor(name, input_x).asnumpy())
        out = np.empty_like(x)
        mop = B.mpi_op(self.op)
        B.run(lambda: comm.Reduce(x, out, op=mop, root=self.dest_rank), f"Reduce({self.op}) to {self.dest_rank}")
        return Tensor(out) if comm.Get_rank() == self.dest_rank else Tensor(np.zeros(1, x.dtype))
