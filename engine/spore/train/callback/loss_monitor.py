"""`LossMonitor`: prints the training loss like MindSpore (``epoch: 1 step: 32, loss is 0.123``)."""

from __future__ import annotations

import math

from ._callback import Callback, RunContext, loss_value


def step_in_epoch(cb_params: dict) -> int:
    """The 1-based step within the current epoch, from the global step and the batches per epoch."""
    batch_num = cb_params.get("batch_num") or 0
    cur = cb_params.get("cur_step_num", 0)
    return (cur - 1) % batch_num + 1 if batch_num > 0 else cur


class LossMonitor(Callback):
    """Print the loss every `per_print_times` steps (0: never) and stop on a NaN/Inf loss.

    In `Model.fit` it also prints the evaluation results at the end of each evaluated epoch
    (``Eval result: epoch 2, metrics: {'accuracy': 0.97}``).
    """

    def __init__(self, per_print_times: int = 1) -> None:
        super().__init__()
        if isinstance(per_print_times, bool) or not isinstance(per_print_times, int) or per_print_times < 0:
            raise ValueError(f"The argument 'per_print_times' must be int and >= 0, but got {per_print_times!r}")
        self._per_print_times = per_print_times
        self._last_print_time = 0

    def on_train_begin(self, run_context: RunContext) -> None:
        self._last_print_time = run_context.original_args().get("cur_step_num", 0)

    def step_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        loss = loss_value(cb_params.get("net_outputs"))
        step = step_in_epoch(cb_params)
        if loss is not None and (math.isnan(loss) or math.isinf(loss)):
            raise ValueError(f"epoch: {cb_params.get('cur_epoch_num')} step: {step}. Invalid loss, terminating "
                             "training.")
        cur = cb_params.get("cur_step_num", 0)
        if self._per_print_times and cur - self._last_print_time >= self._per_print_times:
            self._last_print_time = cur
            shown = loss if loss is not None else cb_params.get("net_outputs")
            print(f"epoch: {cb_params.get('cur_epoch_num')} step: {step}, loss is {shown}", flush=True)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        metrics = cb_params.get("metrics")
        if metrics:
            print(f"Eval result: epoch {cb_params.get('cur_epoch_num')}, metrics: {metrics}", flush=True)
