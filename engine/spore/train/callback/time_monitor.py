"""`TimeMonitor`: prints epoch time and mean step time (``Train epoch time: 812.345 ms, per step time: ...``)."""

from __future__ import annotations

import time

from ._callback import Callback, RunContext


class TimeMonitor(Callback):
    """Print the wall time of each training epoch and its mean per step, in milliseconds.

    The step count is cb_params.batch_num when the model knows it, else `data_size`. With
    ``data_time=True`` it adds the mean time spent fetching each batch from the dataset (on the
    host, synchronously, since Spore does not sink data to a device).
    """

    def __init__(self, data_size: int | None = None, data_time: bool = False) -> None:
        super().__init__()
        if data_size is not None and (isinstance(data_size, bool) or not isinstance(data_size, int) or data_size < 1):
            raise ValueError(f"For 'TimeMonitor', 'data_size' must be a positive int or None, got {data_size!r}")
        if not isinstance(data_time, bool):
            raise TypeError(f"For 'TimeMonitor', 'data_time' must be a bool, got {type(data_time).__name__}")
        self.data_size = data_size
        self.data_time = data_time
        self.epoch_time = time.perf_counter()
        self.data_time_sum = 0.0
        self.data_time_start = 0.0

    def on_train_step_begin(self, run_context: RunContext) -> None:
        if self.data_time:
            self.data_time_sum += time.perf_counter() - self.data_time_start

    def on_train_step_end(self, run_context: RunContext) -> None:
        if self.data_time:
            self.data_time_start = time.perf_counter()

    def epoch_begin(self, run_context: RunContext) -> None:
        self.epoch_time = time.perf_counter()
        self.data_time_sum = 0.0
        self.data_time_start = self.epoch_time

    def epoch_end(self, run_context: RunContext) -> None:
        epoch_ms = (time.perf_counter() - self.epoch_time) * 1000
        cb_params = run_context.original_args()
        steps = cb_params.get("batch_num")
        if not (isinstance(steps, int) and steps > 0):
            steps = self.data_size
        if not (isinstance(steps, int) and steps > 0):
            raise ValueError("For 'TimeMonitor', the steps per epoch are unknown: the dataset has no size; "
                             "pass TimeMonitor(data_size=<steps per epoch>)")
        mode = str(cb_params.get("mode", "")).title()
        line = f"{mode} epoch time: {epoch_ms:5.3f} ms, per step time: {epoch_ms / steps:5.3f} ms"
        if self.data_time:
            line += f" (data time: {self.data_time_sum * 1000 / steps:5.3f} ms)"
        print(line, flush=True)
