"""`LearningRateScheduler`: sets the optimizer's learning rate after each step from a user function."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

import numpy as np

from ...tensor import Parameter, Tensor
from ._callback import Callback, RunContext

logger = logging.getLogger("spore.train")


class LearningRateScheduler(Callback):
    """Call ``learning_rate_function(lr, cur_step_num) -> new_lr`` after every training step.

    The new value is written into the optimizer's ``learning_rate`` Parameter, so it takes effect
    from the next step (also in a compiled Graph-mode step, which reads the Parameter each run).
    The optimizer must have a fixed (float) learning rate: a schedule or list already decides it.
    """

    def __init__(self, learning_rate_function: Callable[[float, int], float]) -> None:
        super().__init__()
        if not callable(learning_rate_function):
            raise TypeError("For 'LearningRateScheduler', 'learning_rate_function' must be callable, "
                            f"got {type(learning_rate_function).__name__}")
        self.learning_rate_function = learning_rate_function

    def step_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        optimizer = cb_params.get("optimizer")
        lr_param = getattr(optimizer, "learning_rate", None)
        if not isinstance(lr_param, Parameter):
            raise TypeError("LearningRateScheduler needs an optimizer with a fixed float learning rate (a Parameter); "
                            f"got {type(lr_param).__name__}. Give the optimizer a float learning_rate, or drop the "
                            "callback when the rate is already a schedule.")
        lr = float(lr_param.asnumpy().reshape(()))
        new_lr = float(self.learning_rate_function(lr, cb_params.get("cur_step_num")))
        if not math.isclose(lr, new_lr, rel_tol=1e-10):
            from ...ops import assign

            assign(lr_param, Tensor(np.float32(new_lr)))
            logger.info("At step %s, learning_rate change to %s", cb_params.get("cur_step_num"), new_lr)
