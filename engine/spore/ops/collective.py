"""Collective communication primitives: AllReduce, AllGather, ReduceScatter, Broadcast.

Their kernels call MPI through `spore.communication` (each a blocking collective on the
communication thread, GIL released while MPI works); without `init()` the world is one process and
they return their input. In Graph mode they are equations like any other, run when the compiled
graph runs; ``random = True`` is set on them for what it means to the graph passes: never folded to
a constant, never merged with a twin (each call is one collective every rank must join).

Gradients (every rank computes its own loss; the gradient is that of the sum of the losses):
AllReduce(sum) -> AllReduce(sum) of the cotangents; AllGather -> ReduceScatter(sum);
ReduceScatter(sum) -> AllGather; Broadcast -> the sum of the cotangents, on the root only.
"""

from __future__ import annotations

from ..errors import ShapeError
from .primitive import Aval, primitive

WORLD = "hccl_world_group"


def _backend():
    from ..communication import _backend as B

    return B


class ReduceOp:
    """MindSpore's reduce operations for AllReduce / ReduceScatter."""

    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


def _check_op(name: str, op: str) -> None:
    if op not in ("sum", "max", "min", "prod"):
        raise ValueError(f"{name}: op must be ReduceOp.SUM/MAX/MIN/PROD, got {op!r}")


@primitive
class AllReduce:
    """Reduces the tensor across all ranks of `group` (sum, max, min or prod); every rank gets the result."""

    random = True

    def infer(x, op="sum", group=WORLD):
        _check_op("AllReduce", op)
        return Aval(tuple(x.shape), x.dtype)

    def impl(x, op="sum", group=WORLD):
        return _backend().allreduce(x, op, group)

    def vjp(g, out, x, op="sum", group=WORLD):
        from . import functional as F

        total = AllReduce(g, op="sum", group=group)
        if op == "sum":
            return (total,)
        if op == "prod":
            return (F.div(F.mul(total, out), x),)
        return (F.mul(total, F.cast(F.equal(x, out), total.dtype)),)   # max / min: to the ranks that won


@primitive
class AllGather:
    """Concatenates the ranks' tensors along the first axis (rank order)."""

    random = True

    def infer(x, group=WORLD):
        if len(x.shape) == 0:
            raise ShapeError("AllGather", "a tensor with at least one dimension", "a scalar")
        n = _backend().group_size(group)
        return Aval((n * x.shape[0],) + tuple(x.shape[1:]), x.dtype)

    def impl(x, group=WORLD):
        return _backend().allgather(x, group)

    def vjp(g, out, x, group=WORLD):
        return (ReduceScatter(g, op="sum", group=group),)


@primitive
class ReduceScatter:
    """Reduces across ranks, then rank r keeps the r-th of the equal slices along the first axis."""

    random = True

    def infer(x, op="sum", group=WORLD):
        _check_op("ReduceScatter", op)
        n = _backend().group_size(group)
        if len(x.shape) == 0 or x.shape[0] % n:
            raise ShapeError("ReduceScatter", f"a first dimension divisible by the group size {n}", f"{tuple(x.shape)}")
        return Aval((x.shape[0] // n,) + tuple(x.shape[1:]), x.dtype)

    def impl(x, op="sum", group=WORLD):
        return _backend().reduce_scatter(x, op, group)

    def vjp(g, out, x, op="sum", group=WORLD):
        if op != "sum":
            from ..errors import GradError

            raise GradError(f"ReduceScatter has a gradient for op='sum' only, got op={op!r}")
        return (AllGather(g, group=group),)


@primitive
class Broadcast:
    """Every rank of `group` gets the root rank's tensor."""

    random = True

    def infer(x, root_rank=0, group=WORLD):
        n = _backend().group_size(group)
        if not isinstance(root_rank, int) or not 0 <= root_rank < n:
            raise ValueError(f"Broadcast: root_rank must be a rank of the group (0..{n - 1}), got {root_rank!r}")
        return Aval(tuple(x.shape), x.dtype)

    def impl(x, root_rank=0, group=WORLD):
        return _backend().broadcast(x, root_rank, group)

    def vjp(g, out, x, root_rank=0, group=WORLD):
        from . import functional as F

        total = AllReduce(g, op="sum", group=group)
        mine = 1.0 if _backend().group_rank(group) == root_rank else 0.0
        return (F.mul(total, mine),)
