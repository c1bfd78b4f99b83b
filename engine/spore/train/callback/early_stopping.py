"""`EarlyStopping`: stop training when a monitored value stops improving (MindSpore's ``EarlyStopping``)."""

from __future__ import annotations

import logging
import math
from typing import Any

import numpy as np

from ._callback import Callback, RunContext, loss_value

logger = logging.getLogger("spore.train")

# names where smaller is better, for mode='auto' (MindSpore's list)
SMALLER_IS_BETTER = frozenset({"hausdorff_distance", "mae", "mse", "loss", "perplexity", "mean_surface_distance",
                               "root_mean_square_distance", "eval_loss"})


class EarlyStopping(Callback):
    """Stop when `monitor` has not improved by more than `min_delta` for `patience` epochs.

    `monitor` is ``"loss"`` (the training loss of the epoch's last step) or, with `Model.fit`,
    ``"eval_loss"`` or a metric name given to `Model` (e.g. ``"accuracy"``). ``mode='auto'`` picks
    "min" for losses and errors, "max" otherwise. With a `baseline`, an epoch only counts as an
    improvement when it also beats the baseline. ``restore_best_weights=True`` puts back the
    parameters of the best epoch when it stops.

    Spore counts patience as Keras does: an improving epoch never stops training, and training stops
    after `patience` consecutive epochs without improvement (``patience=0``: at the first one).
    MindSpore 2.x's loop also stops right after an improving epoch when ``patience=0``, and reads
    `baseline` from `min_delta`; both are treated here as the bugs they are.
    """

    def __init__(self, monitor: str = "eval_loss", min_delta: float = 0, patience: int = 0, verbose: bool = False,
                 mode: str = "auto", baseline: float | None = None, restore_best_weights: bool = False) -> None:
        super().__init__()
        if not isinstance(monitor, str):
            raise TypeError(f"For 'EarlyStopping', 'monitor' must be a str, got {type(monitor).__name__}")
        if isinstance(min_delta, bool) or not isinstance(min_delta, (int, float)):
            raise TypeError(f"For 'EarlyStopping', 'min_delta' must be a number, got {type(min_delta).__name__}")
        if isinstance(patience, bool) or not isinstance(patience, int) or patience < 0:
            raise ValueError(f"For 'EarlyStopping', 'patience' must be an int >= 0, got {patience!r}")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"mode should be 'auto', 'min' or 'max', but got {mode!r}.")
        if baseline is not None and (isinstance(baseline, bool) or not isinstance(baseline, (int, float))):
            raise TypeError(f"For 'EarlyStopping', 'baseline' must be a number or None, got {type(baseline).__name__}")
        for name, value in (("verbose", verbose), ("restore_best_weights", restore_best_weights)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'EarlyStopping', '{name}' must be a bool, got {type(value).__name__}")
        self.monitor = monitor
        self.min_delta = abs(float(min_delta))
        self.patience = patience
        self.verbose = verbose
        self.mode = mode
        self.baseline = None if baseline is None else float(baseline)
        self.restore_best_weights = restore_best_weights
        self._minimize = mode == "min" or (mode == "auto" and monitor in SMALLER_IS_BETTER)
        self.wait = 0
        self.stopped_epoch = 0
        self.best = math.inf if self._minimize else -math.inf
        self.best_weights_param_dict: dict[int, np.ndarray] | None = None

    def is_improvement(self, current: float, reference: float) -> bool:
        """Whether `current` beats `reference` by more than min_delta in the monitored direction."""
        if self._minimize:
            return current < reference - self.min_delta
        return current > reference + self.min_delta

    def on_train_begin(self, run_context: RunContext) -> None:
        self.wait = 0
        self.stopped_epoch = 0
        self.best = math.inf if self._minimize else -math.inf
        self.best_weights_param_dict = None

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        current = self._monitor_value(cb_params)
        if current is None:
            return
        network = cb_params.get("train_network")
        if self.is_improvement(current, self.best):
            self.best = current
            if self.restore_best_weights and network is not None:
                self.best_weights_param_dict = {id(p): p.asnumpy().copy() for p in network.get_parameters()}
            if self.baseline is None or self.is_improvement(current, self.baseline):
                self.wait = 0
                return
        self.wait += 1
        if self.wait >= max(self.patience, 1):
            self.stopped_epoch = cb_params.get("cur_epoch_num", 0)
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights_param_dict is not None and network is not None:
                if self.verbose:
                    print("Restoring model weights from the end of the best epoch.", flush=True)
                for p in network.get_parameters():
                    saved = self.best_weights_param_dict.get(id(p))
                    if saved is not None:
                        p.set_data(saved)

    def on_train_end(self, run_context: RunContext) -> None:
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch:05d}: early stopping", flush=True)

    def _monitor_value(self, cb_params: dict) -> float | None:
        if self.monitor == "loss":
            value: Any = loss_value(cb_params.get("net_outputs"))
            candidates: dict = {}
        else:
            candidates = cb_params.get("eval_results") or {}
            value = candidates.get(self.monitor)
        if value is None:
            logger.warning("Early stopping is conditioned on %s, which is not available. Available choices are: %s",
                           self.monitor, sorted({"loss", *candidates}))
            return None
        arr = np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value, dtype=np.float64)
        if arr.shape != ():
            raise ValueError(f"EarlyStopping only supports a scalar monitor; {self.monitor!r} has shape {arr.shape}.")
        return float(arr)
