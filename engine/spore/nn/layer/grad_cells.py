"""Differentiation Cells (issue 14): `Jvp`, `Vjp` and `WithGradCell`, MindSpore's wrappers over the
autodiff functions (`spore.jvp`, `spore.vjp`, `spore.grad`)."""

from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from ..cell import Cell

__all__ = ["Jvp", "Vjp", "WithGradCell"]


class Jvp(Cell):
    """``Jvp(fn)(*inputs, v)`` returns (fn(*inputs), the Jacobian of fn times the tangent `v`)
    (`v` a Tensor for one input, a tuple for several)."""

    def __init__(self, fn: Any) -> None:
        super().__init__()
        self.fn = fn

    def construct(self, *args: Any) -> Any:
        from ...autodiff.api import jvp

        if len(args) < 2:
            raise TypeError("Jvp: call it with the inputs followed by the tangent v")
        inputs, v = args[:-1], args[-1]
        tangents = v if isinstance(v, tuple) else (v,)
        return jvp(self.fn, inputs, tangents)


class Vjp(Cell):
    """``Vjp(fn)(*inputs, v)`` returns (fn(*inputs), v times the Jacobian of fn): one gradient per
    input (a tuple when there are several)."""

    def __init__(self, fn: Any) -> None:
        super().__init__()
        self.fn = fn

    def construct(self, *args: Any) -> Any:
        from ...autodiff.api import vjp

        if len(args) < 2:
            raise TypeError("Vjp: call it with the inputs followed by the cotangent v")
        inputs, v = args[:-1], args[-1]
        output, pullback = vjp(self.fn, *inputs)
        grads = pullback(v)
        if isinstance(grads, tuple) and len(grads) == 1:
            grads = grads[0]
        return output, grads


class WithGradCell(Cell):
    """Gradients of the network's trainable parameters: ``WithGradCell(network, loss_fn=None,
    sens=None)(*inputs)`` differentiates ``loss_fn(network(*inputs[:-1]), inputs[-1])`` (or the
    network's own output when loss_fn is None), the output gradient scaled by `sens`."""

    def __init__(self, network: Cell, loss_fn: Cell | None = None, sens: Any = None) -> None:
        super().__init__()
        self.network, self.loss_fn, self.sens = network, loss_fn, sens
        self.weights = network.trainable_params()

    def _forward(self, *inputs: Any) -> Tensor:
        if self.loss_fn is None:
            out = self.network(*inputs)
        else:
            out = self.loss_fn(self.network(*inputs[:-1]), inputs[-1])
        return out if self.sens is None else out * self.sens

    def construct(self, *inputs: Any) -> Any:
        from ...autodiff.api import grad

        return grad(self._forward, grad_position=None, weights=self.weights)(*inputs)
