"""Class-form collective ops with MindSpore's signatures: ``ops.AllReduce(ReduceOp.SUM)(x)``,
``ops.AllGather()(x)``, ``ops.ReduceScatter()(x)``, ``ops.Broadcast(0)((x,))``.

They map MindSpore's conventions onto the primitives of `collective` (kernels, rules, gradients).
"""

from __future__ import annotations

from ..tensor import Tensor
from . import collective as _C
from .collective import ReduceOp
from .operation import Operation

__all__ = ["AllGather", "AllReduce", "Broadcast", "ReduceScatter"]


def _group(group: str) -> str:
    if not isinstance(group, str):
        raise TypeError(f"group must be a str (a communication group name), got {type(group).__name__}")
    return group


class AllReduce(Operation):
    """Reduces `x` across the ranks of `group`; every rank gets the result (gradient: AllReduce sum)."""

    def __init__(self, op: str = ReduceOp.SUM, group: str = _C.WORLD) -> None:
        _C._check_op("AllReduce", op)
        self.op = op
        self.group = _group(group)

    def construct(self, x: Tensor) -> Tensor:
        return _C.AllReduce(x, op=self.op, group=self.group)


class AllGather(Operation):
    """Concatenates the ranks' `x` along axis 0 in rank order (gradient: ReduceScatter sum)."""

    def __init__(self, group: str = _C.WORLD) -> None:
        self.group = _group(group)

    def construct(self, x: Tensor) -> Tensor:
        return _C.AllGather(x, group=self.group)


class ReduceScatter(Operation):
    """Reduces `x` across ranks and gives rank r the r-th slice along axis 0 (gradient: AllGather)."""

    def __init__(self, op: str = ReduceOp.SUM, group: str = _C.WORLD) -> None:
        _C._check_op("ReduceScatter", op)
        self.op = op
        self.group = _group(group)

    def construct(self, x: Tensor) -> Tensor:
        return _C.ReduceScatter(x, op=self.op, group=self.group)


class Broadcast(Operation):
    """Every rank gets `root_rank`'s tensors; called with a tuple of tensors, returns a tuple."""

    def __init__(self, root_rank: int, group: str = _C.WORLD) -> None:
        if not isinstance(root_rank, int) or isinstance(root_rank, bool) or root_rank < 0:
            raise ValueError(f"Broadcast: root_rank must be a non-negative int, got {root_rank!r}")
        self.root_rank = root_rank
        self.group = _group(group)

    def construct(self, input_x: tuple) -> tuple:
        if isinstance(input_x, Tensor):
            raise TypeError("Broadcast: input_x must be a tuple of Tensors, as in MindSpore (got one Tensor)")
        return tuple(_C.Broadcast(x, root_rank=self.root_rank, group=self.group) for x in input_x)
