"""The measured speed hint: "this Cell ran N times in PyNative; Graph mode runs it K× faster".

Seeing which Cells run often must cost the user nothing and change nothing, so nothing is hooked
into Spore: while a cell executes in PyNative mode, a daemon thread samples the executing thread's
stack every `INTERVAL` seconds and notes the outermost `Cell.__call__` frame — the top-level Cell
being run — counting distinct call frames (a lower bound on its calls) and keeping that call's
arguments (the `args` tuple of `__call__` is never rebound, unlike construct's own locals).

After a cell that ran some Cell at least `MIN_CALLS` times, the hint is decided once per Cell by
measurement, never by guess: a deep copy of the Cell (so the user's parameters, optimizer state
and BatchNorm statistics are untouched) runs its last inputs alternately in PyNative and compiled,
and the hint is shown only when the measured median speed-up reaches `THRESHOLD`. Spore's global
random state is restored afterwards, so a Dropout in the copy does not shift the user's results.
"""

from __future__ import annotations

import logging
import statistics
import sys
import threading
import time
import warnings
import weakref
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("spore_kernel")

INTERVAL = 0.01
MIN_CALLS = 20
THRESHOLD = 1.5
MAX_CALL_S = 1.0            # Cells slower than this per call are not re-run to measure
BUDGET_S = 1.0              # time spent timing the two modes (after compiling)
MAX_PARAM_BYTES = 256 << 20  # larger networks are not copied to measure


@dataclass
class CellRecord:
    """What sampling saw of one top-level Cell."""

    ref: Any
    name: str
    calls: int = 0
    samples: int = 0
    last_frame: Any = None
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    decided: bool = False


class CallSampler:
    """Samples one thread's stack while a notebook cell runs."""

    def __init__(self, interval: float = INTERVAL) -> None:
        self._call_code: Any = None  # Cell.__call__'s code, once the engine is loaded (it loads lazily)
        self.interval = interval
        self.records: dict[int, CellRecord] = {}
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._ident = 0

    def start(self, ident: int) -> None:
        self.stop()
        self._ident = ident
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(self._stop,), name="spore-call-sampler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
        for rec in self.records.values():
            rec.last_frame = None  # frames hold locals alive; a new cell starts new calls anyway

    def _run(self, stop: threading.Event) -> None:
        while not stop.wait(self.interval):
            try:
                self.sample()
            except Exception:  # noqa: BLE001 - sampling is best effort and must not disturb the cell
                log.debug("sampling failed", exc_info=True)

    def sample(self) -> None:
        if self._call_code is None:
            cell_module = sys.modules.get("spore.nn.cell")  # no engine loaded yet: no Cell can be running
            if cell_module is None or not hasattr(cell_module, "Cell"):
                return
            self._call_code = cell_module.Cell.__call__.__code__
        frame = sys._current_frames().get(self._ident)
        outer = None
        while frame is not None:
            if frame.f_code is self._call_code:
                outer = frame
            frame = frame.f_back
        if outer is None:
            return
        local = outer.f_locals
        cell = local.get("self")
        if cell is None:
            return
        rec = self.records.get(id(cell))
        if rec is None or rec.ref() is not cell:
            rec = self.records[id(cell)] = CellRecord(weakref.ref(cell), type(cell).__name__)
        rec.samples += 1
        if outer is not rec.last_frame:
            rec.calls += 1
            rec.last_frame = outer
            rec.args = tuple(local.get("args", ()))
            rec.kwargs = dict(local.get("kwargs", {}))

    def candidates(self) -> list[CellRecord]:
        """Cells seen running at least MIN_CALLS times whose hint is not decided yet."""
        out = []
        for key, rec in list(self.records.items()):
            if rec.ref() is None:
                del self.records[key]
            elif not rec.decided and rec.calls >= MIN_CALLS:
                out.append(rec)
        return out


@dataclass
class Measurement:
    pynative_s: float
    graph_s: float
    compile_s: float
    runs: int

    @property
    def ratio(self) -> float:
        return self.pynative_s / self.graph_s if self.graph_s > 0 else 0.0


def measure(cell: Any, args: tuple, kwargs: dict, budget_s: float = BUDGET_S) -> Measurement | None:
    """Median time per call of a copy of `cell` in PyNative and compiled; None if it cannot compile."""
    from spore import ide

    state = ide.random_state()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            twin = ide.clone_cell(cell)
            jf = ide.graph_runner(twin)
            start = time.perf_counter()
            try:
                jf(*args, **kwargs)
            except ide.SporeError:
                return None
            compile_s = time.perf_counter() - start
            twin(*args, **kwargs)  # warm the PyNative path too
            py, gr = [], []
            deadline = time.perf_counter() + budget_s
            while len(py) < 3 or (time.perf_counter() < deadline and len(py) < 25):
                t0 = time.perf_counter()
                twin(*args, **kwargs)
                t1 = time.perf_counter()
                jf(*args, **kwargs)
                t2 = time.perf_counter()
                py.append(t1 - t0)
                gr.append(t2 - t1)
    finally:
        ide.set_random_state(state)
    return Measurement(statistics.median(py), statistics.median(gr), compile_s, len(py))


def _param_bytes(cell: Any) -> int:
    return sum(int(p.nbytes) for p in cell.get_parameters())


def _user_name(shell: Any, cell: Any) -> str | None:
    for name, value in shell.user_ns.items():
        if value is cell and not name.startswith("_"):
            return name
    return None


def _us(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.0f} µs"


def speed_hint(shell: Any, rec: CellRecord, m: Measurement) -> dict[str, Any]:
    from .hints import GRAPH_MAGIC

    cell = rec.ref()
    var = _user_name(shell, cell) if cell is not None else None
    who = f"{var} ({rec.name})" if var else rec.name
    text = (f"Spore hint: {who} has run at least {rec.calls} times in PyNative mode. Measured on a copy with its "
            f"last inputs, Graph mode runs it {m.ratio:.1f}× faster ({_us(m.pynative_s)} → {_us(m.graph_s)} per call, "
            f"median of {m.runs}; one-time compile {_us(m.compile_s)}). Try {GRAPH_MAGIC}.")
    return {"schema": "spore.hint/1", "kind": "speed", "cell": rec.name, "variable": var, "calls_seen": rec.calls,
            "pynative_s": m.pynative_s, "graph_s": m.graph_s, "compile_s": m.compile_s, "runs": m.runs,
            "ratio": m.ratio, "threshold": THRESHOLD,
            "next_steps": [{"kind": "magic", "code": GRAPH_MAGIC, "text": "compile Cells into graphs"}],
            "text": text}


class SpeedAdvisor:
    """Runs the sampler around PyNative cells and shows the one-time measured hint."""

    def __init__(self, shell: Any, settings: Any) -> None:
        self.shell = shell
        self.settings = settings
        self.sampler = CallSampler()

    def pre_run_cell(self, info: Any = None) -> None:
        import spore

        if self.settings.enabled and spore.get_context("mode") == spore.PYNATIVE_MODE:
            self.sampler.start(threading.get_ident())

    def post_run_cell(self, result: Any = None) -> None:
        self.sampler.stop()
        if not self.settings.enabled or (result is not None and not result.success):
            return
        try:
            for rec in self.sampler.candidates():
                self.decide(rec)
        except KeyboardInterrupt:  # the user interrupted the measurement: no hint, no retry
            for rec in self.sampler.candidates():
                rec.decided = True

    def decide(self, rec: CellRecord) -> None:
        import spore
        from spore import ide

        if spore.get_context("mode") != spore.PYNATIVE_MODE or ide.is_busy():
            return
        rec.decided = True
        cell = rec.ref()
        args, kwargs = rec.args, rec.kwargs
        rec.args, rec.kwargs = (), {}
        per_call = rec.samples * INTERVAL / max(rec.calls, 1)
        if cell is None or per_call > MAX_CALL_S or _param_bytes(cell) > MAX_PARAM_BYTES:
            return
        try:
            m = measure(cell, args, kwargs)
        except Exception:  # noqa: BLE001 - a Cell that cannot be copied or re-run gets no hint
            log.info("could not measure %s for the speed hint", rec.name, exc_info=True)
            return
        if m is None or m.ratio < THRESHOLD:
            return
        from .hints import publish

        data = speed_hint(self.shell, rec, m)
        publish(data, data["text"])
