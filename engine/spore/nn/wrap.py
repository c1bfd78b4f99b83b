"""Training and evaluation wrappers: `WithLossCell`, `WithEvalCell`, `TrainOneStepCell`.

They are built with ``auto_prefix=False`` as in MindSpore, so wrapping a network does not rename
its parameters ("conv1.weight" stays "conv1.weight" inside ``TrainOneStepCell(WithLossCell(...))``).
"""

from __future__ import annotations

from typing import Any

from ..autodiff.api import value_and_grad
from ..common import dtype as mstype
from ..ops import functional as F
from ..tensor import Tensor
from .cell import Cell


class WithLossCell(Cell):
    """``loss_fn(backbone(data), label)``: joins a network and its loss into one cell."""

    def __init__(self, backbone: Cell, loss_fn: Cell) -> None:
        super().__init__(auto_prefix=False)
        if not callable(backbone) or not callable(loss_fn):
            raise TypeError("WithLossCell: backbone and loss_fn must be Cells (or callables)")
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data: Tensor, label: Tensor) -> Tensor:
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self) -> Cell:
        """The wrapped network."""
        return self._backbone


class WithEvalCell(Cell):
    """Evaluation: returns ``(loss, outputs, label)``, optionally cast to float32 first."""

    def __init__(self, network: Cell, loss_fn: Cell, add_cast_fp32: bool = False) -> None:
        super().__init__(auto_prefix=False)
        self._network = network
        self._loss_fn = loss_fn
        self.add_cast_fp32 = add_cast_fp32

    def construct(self, data: Tensor, label: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        outputs = self._network(data)
        if self.add_cast_fp32:  # MindSpore's mixed_precision_cast: floating tensors only, class ids stay ints
            if label.dtype.is_float:
                label = F.cast(label, mstype.float32)
            outputs = F.cast(outputs, mstype.float32)
        loss = self._loss_fn(outputs, label)
        return loss, outputs, label


class TrainOneStepCell(Cell):
    """One training step: loss and gradients of ``optimizer.parameters``, then ``optimizer(grads)``.

    Returns the loss (and, with ``return_grad=True``, also a dict of gradients keyed by parameter
    name). A given `sens` scales the gradients, as MindSpore's sensitivity does (loss scaling).
    """

    def __init__(self, network: Cell, optimizer: Any, sens: float | None = None, return_grad: bool = False) -> None:
        super().__init__(auto_prefix=False)
        self.network = network
        if isinstance(network, Cell):
            network.set_grad()
        self.optimizer = optimizer
        weights = getattr(optimizer, "parameters", None)
        if weights is None:
            raise TypeError(f"TrainOneStepCell: optimizer must have `parameters` (got {type(optimizer).__name__})")
        # kept as a plain attribute: these Parameters are registered already, in the network
        self.__dict__["weights"] = tuple(weights)
        self.sens = sens
        self.return_grad = return_grad
        self.grad_reducer = _identity  # where data-parallel training averages gradients across processes
        from ..parallel import _context as parallel_context

        if parallel_context.data_parallel():  # DATA_PARALLEL on several ranks: reduce, start from rank 0
            from ..parallel import broadcast_parameters
            from ..parallel.grad_reducer import DistributedGradReducer

            broadcast_parameters(network if isinstance(network, Cell) else self.weights)
            self.grad_reducer = DistributedGradReducer(self.weights, parallel_context._CONTEXT["gradients_mean"])
        self.__dict__["_grad_fn"] = value_and_grad(network, grad_position=None, weights=self.weights)

    def construct(self, *inputs: Any) -> Any:
        begin = getattr(self.grad_reducer, "begin", None)
        if begin is not None:
            begin()  # bucketed all-reduce starts as the backward pass completes each bucket
        loss, grads = self.__dict__["_grad_fn"](*inputs)
        if self.sens is not None:
            grads = tuple(F.mul(g, self.sens) for g in grads)
        grads = self.grad_reducer(grads)
        self.optimizer(grads)
        if self.return_grad:
            return loss, {w.name: g for w, g in zip(self.weights, grads)}
        return loss


def _identity(grads: Any) -> Any:
    return grads
