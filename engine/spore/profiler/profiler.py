"""`Profiler(output_path=DIR)` ... `profiler.analyse()`: one event per op, with its Cell scope and
the user's source line, written as a Chrome trace (opens in Perfetto or chrome://tracing) and
summarised as a table of the ops that took the most time.

The profiler is an execution observer (`spore.ops.observers`). PyNative: every kernel call made
through the op registry is timed (the user's line is found by walking the stack, which is why this
only happens while a profiler runs). Graph mode: compiled graphs time each step of their schedule;
the line and scope come from the IR node. A graph break is one "python" event.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from ..ops.observers import OpEvent, add_observer, remove_observer


@dataclass
class ProfilerEvent:
    """One timed op."""

    op: str
    start_us: float
    dur_us: float
    mode: str            # "pynative" or "graph"
    scope: str = ""
    file: str | None = None
    line: int | None = None
    fused: tuple[str, ...] = ()
    issued_us: float | None = None   # communication: when the backward handed the bucket over

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.file else ""


class Profiler:
    """MindSpore's `Profiler`: starts on construction (unless ``start_profile=False``)."""

    _active: Profiler | None = None

    def __init__(self, output_path: str = "./data", start_profile: bool = True, **kwargs: Any) -> None:
        unknown = set(kwargs) - {"profile_memory", "profile_communication", "data_process", "parallel_strategy",
                                 "aicore_metrics", "l2_cache", "hbm_ddr", "pcie", "sync_enable", "data_simplification",
                                 "with_stack", "timeline_limit", "op_time", "profiler_level", "activities"}
        if unknown:
            raise ValueError(f"Profiler: unknown options {sorted(unknown)}")
        self.output_path = output_path
        self.events: list[ProfilerEvent] = []
        self._t0 = time.perf_counter()
        self._lock = threading.Lock()
        self._running = False
        if start_profile:
            self.start()

    # --- control -------------------------------------------------------------------------------
    def start(self) -> None:
        if Profiler._active is not None and Profiler._active is not self:
            raise RuntimeError("another Profiler is already running; stop it first")
        Profiler._active = self
        self._running = True
        add_observer(self)

    def stop(self) -> None:
        if Profiler._active is self:
            Profiler._active = None
            remove_observer(self)
        self._running = False

    def __enter__(self) -> Profiler:
        if not self._running:
            self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # --- recording -----------------------------------------------------------------------------
    def _now_us(self) -> float:
        return (time.perf_counter() - self._t0) * 1e6

    def before(self, event: OpEvent) -> None:
        """Execution observer: nothing to do before an op (its time is measured around the kernel)."""

    def after(self, event: OpEvent) -> None:
        """Execution observer: one event per op run (PyNative kernel, graph node or graph break)."""
        loc = event.loc
        self._add(ProfilerEvent(event.op, (event.start - self._t0) * 1e6, event.duration * 1e6, event.mode,
                                event.scope, loc.file if loc else None, loc.line if loc else None, event.fused))

    def _add(self, event: ProfilerEvent) -> None:
        with self._lock:
            self.events.append(event)

    # --- results -------------------------------------------------------------------------------
    def table(self, top: int = 20) -> list[dict]:
        """Ops grouped by (op, mode, source line), most total time first."""
        groups: dict[tuple, dict] = {}
        for ev in self.events:
            key = (ev.op, ev.mode, ev.where, ev.scope)
            g = groups.setdefault(key, {"op": ev.op, "mode": ev.mode, "where": ev.where, "scope": ev.scope,
                                        "calls": 0, "total_us": 0.0})
            g["calls"] += 1
            g["total_us"] += ev.dur_us
        rows = sorted(groups.values(), key=lambda r: -r["total_us"])[:top]
        total = sum(ev.dur_us for ev in self.events) or 1.0
        for r in rows:
            r["percent"] = 100.0 * r["total_us"] / total
        return rows

    def format_table(self, top: int = 20) -> str:
        rows = self.table(top)
        head = f"{'op':<22}{'mode':<10}{'calls':>7}{'total ms':>11}{'%':>7}  {'scope':<24}source"
        lines = [head, "-" * len(head)]
        for r in rows:
            lines.append(f"{r['op'][:21]:<22}{r['mode']:<10}{r['calls']:>7}{r['total_us'] / 1e3:>11.3f}"
                         f"{r['percent']:>7.1f}  {r['scope'][:23]:<24}{r['where']}")
        return "\n".join(lines)

    def chrome_trace(self) -> dict:
        rank, size = _rank_and_size()
        pid = os.getpid() if size == 1 else rank   # data parallel: one track (process) per rank
        tids = {"pynative": 0, "graph": 1, "communication": 2}  # bucket all-reduces on a track of their own
        events = []
        if size > 1:
            events.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": f"rank {rank}"}})
        for ev in self.events:
            events.append({"name": ev.op, "cat": ev.mode, "ph": "X", "ts": round(ev.start_us, 3),
                           "dur": round(ev.dur_us, 3), "pid": pid, "tid": tids.get(ev.mode, 1),
                           "args": {"scope": ev.scope, "source": ev.where, "fused": list(ev.fused),
                                    **({} if ev.issued_us is None else {"issued_ts": round(ev.issued_us, 3)})}})
        return {"traceEvents": events, "displayTimeUnit": "ms",
                "otherData": {"producer": "spore.Profiler", "rank": rank, "ranks": size}}

    def analyse(self, offline_path: str | None = None, pretty: bool = False, step_list: Any = None,
                mode: str = "sync") -> str:
        """Stop, write `<output_path>/spore_trace.json` (Chrome trace) and print the top-ops table.

        Returns the trace file's path.
        """
        self.stop()
        os.makedirs(self.output_path, exist_ok=True)
        rank, size = _rank_and_size()
        name = "spore_trace.json" if size == 1 else f"spore_trace_rank{rank}.json"  # merge: spore.parallel
        path = os.path.join(self.output_path, name)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(self.chrome_trace(), f, indent=1 if pretty else None)
        os.replace(tmp, path)
        print(self.format_table())
        return path


def _rank_and_size() -> tuple[int, int]:
    """This process's rank and the number of ranks (0, 1 outside a data-parallel job)."""
    from ..communication import _backend

    return _backend.rank(), _backend.size()
