"""Timing: median wall time of repeated calls after warm-up, with a per-measurement time budget.

The median (not the mean or the minimum) because the bench runs on shared cores: other processes
add long outliers that the median ignores, while the minimum would flatter whichever backend got
lucky once. The budget keeps the whole bench to a few minutes whatever the speed of each backend.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Timing:
    """Result of one measurement, in seconds per call."""

    median_s: float
    min_s: float
    reps: int

    def to_json(self) -> dict[str, Any]:
        """Plain dict for the worker's JSON output."""
        return asdict(self)


def measure(fn: Callable[[], Any], budget_s: float = 0.8, warmup: int = 2, min_reps: int = 5,
            max_reps: int = 400) -> Timing:
    """Time `fn()`: `warmup` untimed calls, then as many timed calls as fit in `budget_s` (within bounds).

    `fn` must block until its result is computed (all backends here are synchronous CPU code).
    """
    t0 = time.perf_counter()
    for _ in range(max(warmup, 1)):
        fn()
    per_call = (time.perf_counter() - t0) / max(warmup, 1)
    reps = int(min(max_reps, max(min_reps, budget_s / max(per_call, 1e-9))))
    samples = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return Timing(median_s=statistics.median(samples), min_s=min(samples), reps=reps)
