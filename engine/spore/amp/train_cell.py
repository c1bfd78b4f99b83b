"""`TrainOneStepWithLossScaleCell`: a training step with loss scaling and overflow skipping.

One step: the loss is multiplied by the scale before the backward pass, the gradients are divided
by it, and the step is applied only when every gradient is finite; the scale is then moved by the
manager's update cell. It returns ``(loss, overflow, scale)`` as MindSpore does.

How the skip works in both modes. MindSpore writes ``if not overflow: optimizer(grads)``. Spore
runs its own cells as plain Python over tracers in Graph mode, so a Python ``if`` on the overflow
flag cannot be compiled here, and masking the gradients to zero would not do either: momentum,
Adam's moments, weight decay and ``global_step`` would still move. Instead the update goes through
one primitive, ``GuardedOptimizerStep(finite, *grads, *params)``, whose kernel runs the optimizer
when `finite` is true and does nothing otherwise. PyNative binds it eagerly; Graph mode records
it as a state-writing equation (like the plain ``OptimizerStep``) that decides each time the
compiled graph runs. Same code path, same result, and an overflowing step leaves parameters and
optimizer state exactly as they were.

The returned `scale` is the scale this step's loss was multiplied by (a copy, read before the
update). MindSpore's PyNative mode returns the scale Parameter itself (so, after the update) and
its Graph mode the value before it; Spore gives the same answer in both modes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autodiff.api import value_and_grad
from ..common import dtype as mstype
from ..nn.cell import Cell
from ..nn.wrap import TrainOneStepCell
from ..ops import functional as F
from ..ops.primitive import Aval, Primitive, bind, register
from ..tensor import Parameter, Tensor
from .loss_scale import all_finite

__all__ = ["TrainOneStepWithLossScaleCell"]


def _guarded_infer(finite: Any, *tensors: Any, optimizer: Any = None) -> Aval:
    return Aval((), mstype.bool_)


def _guarded_impl(finite: np.ndarray, *arrays: np.ndarray, optimizer: Any = None) -> np.ndarray:
    ok = bool(np.all(finite))
    if ok:
        n = len(optimizer.parameters)
        optimizer(tuple(Tensor._wrap(a) for a in arrays[:n]))
    return np.asarray(ok)


# The parameters are inputs too so that, in a graph, the update is ordered after every read of
# the old weights (as the unguarded OptimizerStep is).
GUARDED_STEP = register(Primitive("GuardedOptimizerStep", _guarded_infer, _guarded_impl, None,
                                  "Applies an optimizer update only when the flag is true (a step skipped on "
                                  "overflow).", nondiff=True, side_effect=True, internal=True))


def guarded_step(optimizer: Any, finite: Tensor, grads: tuple) -> Tensor:
    """``optimizer(grads)`` if `finite` (a scalar bool Tensor) else nothing; returns `finite`."""
    params = tuple(optimizer.parameters)
    if len(grads) != len(params):
        raise ValueError(f"{type(optimizer).__name__}: {len(grads)} gradients for {len(params)} parameters; compute "
                         "them with weights=optimizer.parameters")
    return bind(GUARDED_STEP, finite, *grads, *params, optimizer=optimizer)


def _scale_parameter(scale_sense: Any) -> Parameter:
    if isinstance(scale_sense, Cell):
        value = np.array(scale_sense.get_loss_scale(), np.float32)
    elif isinstance(scale_sense, Tensor):
        if tuple(scale_sense.shape) not in ((), (1,)):
            raise ValueError(f"TrainOneStepWithLossScaleCell: a Tensor scale_sense must have shape () or (1,), "
                             f"got {tuple(scale_sense.shape)}")
        value = np.array(scale_sense.asnumpy(), np.float32)
    else:
        raise TypeError(f"TrainOneStepWithLossScaleCell: scale_sense must be an update Cell (a loss-scale "
                        f"manager's get_update_cell()) or a Tensor, got {type(scale_sense).__name__}")
    return Parameter(Tensor(value), name="scale_sense", requires_grad=False)


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """A training step with loss scaling: returns ``(loss, overflow, scale)``.

    `scale_sense` is an update cell (``manager.get_update_cell()``, which also moves the scale) or
    a Tensor (a fixed scale, settable with `set_sense_scale`). Either way a step whose gradients
    are not all finite is skipped: parameters and optimizer state stay as they were.
    """

    def __init__(self, network: Cell, optimizer: Any, scale_sense: Any) -> None:
        super().__init__(network, optimizer)
        self.scale_sense = _scale_parameter(scale_sense)
        self.loss_scaling_manager = scale_sense if isinstance(scale_sense, Cell) else None

        def scaled_loss(*args: Any) -> tuple[Tensor, Tensor]:
            *inputs, scale = args
            loss = network(*inputs)
            return F.mul(loss, F.cast(scale, loss.dtype)), loss

        # the gradient of loss * scale is the backward pass with sensitivity `scale`, in the loss's
        # dtype (MindSpore's ones_like(loss) * cast(scale, dtype(loss)))
        self.__dict__["_grad_fn"] = value_and_grad(scaled_loss, None, self.weights, has_aux=True)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # an overflow is an expected, handled event here (reported and skipped), not a NumPy warning
        with np.errstate(over="ignore", invalid="ignore"):
            return super().__call__(*args, **kwargs)

    def construct(self, *inputs: Any) -> tuple[Tensor, Tensor, Tensor]:
        scale = F.mul(self.scale_sense, F.ones_like(self.scale_sense))  # a copy: the update below writes the Parameter
        (_, loss), grads = self.__dict__["_grad_fn"](*inputs, scale)
        inv = F.div(F.ones_like(scale), scale)
        grads = tuple(F.mul(g, F.cast(inv, g.dtype)) for g in grads)
        grads = self.grad_reducer(grads)
        status, grads = self.start_overflow_check(None, grads)
        cond = self.get_overflow_status(status, grads)
        overflow = self.process_loss_scale(cond)
        guarded_step(self.optimizer, F.logical_not(overflow), grads)
        return loss, cond, scale

    def start_overflow_check(self, pre_cond: Any, compute_input: Any) -> tuple[Tensor, Any]:
        """MindSpore's hook for devices with a hardware overflow flag; here the status is a False
        scalar and the check reads the gradients themselves."""
        return Tensor(np.array(False)), compute_input

    def get_overflow_status(self, status: Tensor, compute_output: Any) -> Tensor:
        """True (a scalar bool Tensor) when any value in `compute_output` is inf or nan."""
        return F.logical_or(status, F.logical_not(all_finite(compute_output)))

    def process_loss_scale(self, overflow: Tensor) -> Tensor:
        """Let the update cell move the scale; returns whether to skip the step."""
        if self.loss_scaling_manager is None:
            return overflow
        return self.loss_scaling_manager(self.scale_sense, overflow)

    def set_sense_scale(self, sens: Any) -> None:
        """Set the loss scale (a Tensor or a number), e.g. from a callback."""
        if isinstance(sens, Tensor):
            value = np.asarray(sens.asnumpy(), np.float32)
        elif isinstance(sens, (int, float)) and not isinstance(sens, bool):
            value = np.asarray(sens, np.float32)
        else:
            raise TypeError(f"set_sense_scale: sens must be a Tensor or a number, got {type(sens).__name__}")
        self.scale_sense.set_data(Tensor(value.reshape(self.scale_sense.shape)))
