"""Execution observers: code outside the engine that watches every op run, in both modes.

The profiler times ops; the debug adapter stops at a Graph-mode node on a breakpointed line and
shows its input values; a NaN guard looks at each output. They all need the same thing — "tell me
before and after each kernel runs, with the op, the user's line and the values" — so the engine
offers one hook for it instead of one special case per tool:

    class NanGuard:
        def before(self, event): pass
        def after(self, event):
            if any(np.isnan(o).any() for o in event.outputs): ...

    with spore.ide.observe(NanGuard()):
        net(x)

PyNative reports every kernel `bind` runs (``mode == "pynative"``); a compiled graph reports each
node of its schedule (``mode == "graph"``), nodes inside `if`/`while` bodies included; a statement
that ran in Python between compiled segments (a graph break) is one ``mode == "python"`` event.
When nothing observes, the cost is one truth test per kernel call (PyNative) or per graph run.

An observer's exception propagates to the user's call: a guard may raise to stop a run.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ..errors import SourceLoc, frame_location, user_frame


class Observer(Protocol):
    """What `observe` accepts: two callbacks, each given the same `OpEvent` for one op."""

    def before(self, event: OpEvent) -> None: ...

    def after(self, event: OpEvent) -> None: ...


class OpEvent:
    """One op run: what it is, where the user wrote it, its values, and (after) how long it took.

    ``inputs`` are the kernel's input arrays; during ``after`` they may already be overwritten when
    the op reused its input's buffer (in-place elementwise ops in Graph mode). ``outputs`` is empty
    during ``before``. Arrays are the engine's own buffers: copy before keeping them.
    """

    __slots__ = ("op", "mode", "attrs", "fused", "inputs", "outputs", "start", "duration", "_loc", "_scope",
                 "_frame")

    def __init__(self, op: str, mode: str, inputs: Sequence[Any] = (), attrs: dict | None = None, *,
                 loc: SourceLoc | None = None, scope: str | None = None, fused: tuple[str, ...] = ()) -> None:
        self.op = op
        self.mode = mode
        self.attrs = attrs or {}
        self.fused = fused
        self.inputs = list(inputs)
        self.outputs: list[Any] = []
        self.start = 0.0          # time.perf_counter() when the kernel started
        self.duration = 0.0       # seconds the kernel took (set before `after`)
        self._loc = loc
        self._scope = scope
        # PyNative: the caller's frame, from which the user's line is looked up when first asked
        # (walking the stack from an observer would find the observer's own line)
        self._frame = sys._getframe(1) if loc is None and mode == "pynative" else None

    @property
    def loc(self) -> SourceLoc | None:
        """The user's line that ran the op (PyNative: found on the stack, while the op runs)."""
        if self._frame is not None:
            frame, self._frame = self._frame, None
            self._loc = frame_location(user_frame(frame))
        return self._loc

    @property
    def scope(self) -> str:
        """The path of the Cell whose construct ran the op ("" outside Cells)."""
        if self._scope is None:
            from ..nn.cell import current_scope

            self._scope = current_scope()
        return self._scope

    def __repr__(self) -> str:
        where = f" at {self.loc.file}:{self.loc.line}" if self.loc else ""
        return f"<OpEvent {self.op} ({self.mode}){where}>"


class _Observers:
    """The active observers, as a tuple read on the hot paths (`bind`, the executor)."""

    __slots__ = ("active",)

    def __init__(self) -> None:
        self.active: tuple[Any, ...] = ()


OBSERVERS = _Observers()


def add_observer(observer: Any) -> None:
    """Start notifying `observer` (idempotent)."""
    if not (callable(getattr(observer, "before", None)) and callable(getattr(observer, "after", None))):
        raise TypeError(f"an observer needs before(event) and after(event) methods, got {type(observer).__name__}")
    if observer not in OBSERVERS.active:
        OBSERVERS.active = (*OBSERVERS.active, observer)
        _changed()


def remove_observer(observer: Any) -> None:
    """Stop notifying `observer` (no error if it was not observing)."""
    if observer in OBSERVERS.active:
        OBSERVERS.active = tuple(o for o in OBSERVERS.active if o is not observer)
        _changed()


def _changed() -> None:
    from ..context import call_state_changed  # Cells switch to the call path that records scopes

    call_state_changed()


def run_observed(event: OpEvent, call: Callable[[], Any], outputs: Callable[[Any], list]) -> Any:
    """Notify, run `call`, record its time and outputs on the event, notify again; return its result."""
    observers = OBSERVERS.active
    for o in observers:
        o.before(event)
    t0 = time.perf_counter()
    result = call()
    event.start, event.duration = t0, time.perf_counter() - t0
    event.outputs = outputs(result)
    for o in observers:
        o.after(event)
    return result
