"""`ReduceLROnPlateau`: lower the learning rate when a monitored value stops improving
(MindSpore's ``ReduceLROnPlateau``)."""

from __future__ import annotations

import logging
import math

import numpy as np

from ...tensor import Parameter, Tensor
from ._callback import Callback, RunContext
from .early_stopping import EarlyStopping

logger = logging.getLogger("spore.train")


class ReduceLROnPlateau(Callback):
    """After `patience` epochs without an improvement of `monitor` by more than `min_delta`, the
    optimizer's learning rate becomes ``max(lr * factor, min_lr)``; then `cooldown` epochs pass
    before the count starts again.

    `monitor` is read as `EarlyStopping` reads it (``"loss"``, or with `Model.fit` ``"eval_loss"``
    or a metric name); ``mode='auto'`` minimises losses and errors, maximises the rest. The
    optimizer must have a fixed (float) learning rate, a Parameter the new value is written into.
    """

    def __init__(self, monitor: str = "eval_loss", factor: float = 0.1, patience: int = 10, verbose: bool = False,
                 mode: str = "auto", min_delta: float = 1e-4, cooldown: int = 0, min_lr: float = 0) -> None:
        super().__init__()
        if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 0 <= factor < 1:
            raise ValueError(f"For 'ReduceLROnPlateau', 'factor' must be a float in [0, 1), got {factor!r}")
        for name, value in (("patience", patience), ("cooldown", cooldown)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"For 'ReduceLROnPlateau', '{name}' must be an int >= 0, got {value!r}")
        if isinstance(min_lr, bool) or not isinstance(min_lr, (int, float)) or min_lr < 0:
            raise ValueError(f"For 'ReduceLROnPlateau', 'min_lr' must be a number >= 0, got {min_lr!r}")
        self._watch = EarlyStopping(monitor=monitor, min_delta=min_delta, patience=patience, verbose=verbose,
                                    mode=mode)  # the same monitor reading and improvement test
        self.monitor, self.factor, self.patience, self.verbose = monitor, float(factor), patience, verbose
        self.mode, self.min_delta, self.cooldown, self.min_lr = mode, abs(float(min_delta)), cooldown, float(min_lr)
        self.best = math.inf
        self.wait = 0
        self.cooldown_counter = 0

    def on_train_begin(self, run_context: RunContext) -> None:
        self.best = math.inf if self._watch._minimize else -math.inf
        self.wait = 0
        self.cooldown_counter = 0

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        current = self._watch._monitor_value(cb_params)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._watch.is_improvement(current, self.best):
            self.best = current
            self.wait = 0
            return
        if self.cooldown_counter > 0:
            return
        self.wait += 1
        if self.wait < self.patience:
            return
        lr_param = getattr(cb_params.get("optimizer"), "learning_rate", None)
        if not isinstance(lr_param, Parameter):
            raise TypeError("ReduceLROnPlateau needs an optimizer with a fixed float learning rate (a Parameter); "
                            f"got {type(lr_param).__name__}")
        old = float(lr_param.asnumpy().reshape(()))
        new = max(old * self.factor, self.min_lr)
        if old - new > 1e-12 * max(old, 1.0):
            from ...ops import assign

            assign(lr_param, Tensor(np.asarray(new, lr_param.dtype.np)))
            if self.verbose:
                print(f"Epoch {cb_params.get('cur_epoch_num')}: ReduceLROnPlateau reducing learning rate to {new}.",
                      flush=True)
            logger.info("ReduceLROnPlateau: learning rate %s -> %s", old, new)
        self.cooldown_counter = self.cooldown
        self.wait = 0
