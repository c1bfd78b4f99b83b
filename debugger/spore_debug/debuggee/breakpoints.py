"""Which compiled graphs hold a breakpoint: the debuggee's answer to the engine's breakpoint probe.

The engine asks before each compiled call (see `spore.ide.debugging`); this module answers from the
debugger's own breakpoint table. With pydevd (what debugpy runs in the debuggee) that table is
``get_global_debugger().breakpoints`` — canonical file name -> {line: breakpoint} — and its
``mtime`` counter goes up on every change once the debugger runs (``ready_to_run``), so the
engine's cached answer is keyed by ``(debugger, mtime, ready_to_run)``. Every access is guarded:
pydevd's attributes are not a public API, and a missing one means "no debugger", never a crash.

Stepping into a compiled call (`stepIn` on the line `out = net(x)`) also runs that call eagerly, so
the step lands on the construct's first line: pydevd's per-thread step command is part of the
version, read from the thread's `additional_info`.

A source is injectable (`BreakpointProbe(source=...)`) so the answer is tested without pydevd.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Collection, Hashable
from threading import current_thread
from typing import Any, Protocol


class BreakpointSource(Protocol):
    """Where breakpoints are read from: a version that changes with them, and lines per file."""

    def version(self) -> Hashable: ...

    def lines(self, filename: str) -> Collection[int]: ...


_PYDEVD_CONSTANTS = "_pydevd_bundle.pydevd_constants"
# pydevd_comm_constants: CMD_STEP_INTO, CMD_SMART_STEP_INTO, CMD_STEP_INTO_MY_CODE, CMD_STEP_INTO_COROUTINE
_STEP_IN_COMMANDS = frozenset({107, 128, 144, 206})


class PydevdBreakpoints:
    """pydevd's line breakpoints (empty when no pydevd is loaded or it has no breakpoint table).

    `version()` runs before every compiled call, so it is kept to a cached function lookup, one call
    and two attribute reads; everything else happens only when the version changed."""

    def __init__(self) -> None:
        self._canonical: dict[str, str] = {}
        self._get: Any = None  # pydevd_constants.get_global_debugger, once pydevd is loaded

    def _getter(self) -> Any:
        get = self._get
        if get is None:
            constants = sys.modules.get(_PYDEVD_CONSTANTS)
            if constants is None:  # no pydevd loaded (the common case: checked first, cheaply)
                return None
            get = getattr(constants, "get_global_debugger", None)
            if callable(get):
                self._get = get
            else:
                get = None
        return get

    def debugger(self) -> Any:
        """pydevd's global debugger, only if pydevd is already loaded (never imported from here)."""
        get = self._getter()
        if get is None:
            return None
        try:
            return get()
        except Exception:  # noqa: BLE001 - see the module docstring
            return None

    def version(self) -> Hashable:
        get = self._get
        if get is None:
            if _PYDEVD_CONSTANTS not in sys.modules:
                return None
            get = self._getter()
            if get is None:
                return None
        try:
            dbg = get()
        except Exception:  # noqa: BLE001
            return None
        if dbg is None:
            return None
        # the debugger itself (a new one after a re-attach), its change counter, whether it runs yet
        # (before `ready_to_run` pydevd changes breakpoints without counting), and whether this thread
        # is stepping in (a step is no breakpoint change, but a compiled call then runs eagerly too)
        info = getattr(current_thread(), "additional_info", None)  # (stepping_in, inlined: every call)
        return (dbg, getattr(dbg, "mtime", None), getattr(dbg, "ready_to_run", None),
                getattr(info, "pydev_step_cmd", None) in _STEP_IN_COMMANDS)

    @staticmethod
    def stepping_in() -> bool:
        """Whether pydevd is stepping into calls on this thread (`stepIn`, its justMyCode and smart
        forms): stepping into a compiled Cell call should land on its construct's first line."""
        info = getattr(threading.current_thread(), "additional_info", None)
        return getattr(info, "pydev_step_cmd", None) in _STEP_IN_COMMANDS

    def lines(self, filename: str) -> Collection[int]:
        dbg = self.debugger()
        table = getattr(dbg, "breakpoints", None)
        if not isinstance(table, dict) or not table:
            return ()
        per_file = table.get(self.canonical(filename))
        if not isinstance(per_file, dict):
            return ()
        return [line for line in list(per_file) if isinstance(line, int)]

    def canonical(self, filename: str) -> str:
        """The key pydevd files breakpoints under (its own normalisation when available)."""
        known = self._canonical.get(filename)
        if known is not None:
            return known
        utils = sys.modules.get("pydevd_file_utils")
        canon = getattr(utils, "canonical_normalized_path", None)
        try:
            key = canon(filename) if canon is not None else os.path.normcase(os.path.realpath(filename))
        except Exception:  # noqa: BLE001
            key = os.path.normcase(os.path.realpath(filename))
        self._canonical[filename] = key
        return key


class BreakpointProbe:
    """The probe registered with `spore.ide.set_breakpoint_probe`: a graph runs eagerly while a
    breakpoint is on one of its lines. Says so once per compiled function on stderr (an `output`
    event under the debugger), so the user knows why this call is slower and what ran."""

    def __init__(self, source: BreakpointSource | None = None, stream: Any = None) -> None:
        self.source = source if source is not None else PydevdBreakpoints()
        self.stream = stream
        self.announced: set[str] = set()
        self.version = self.source.version  # asked before every compiled call: no extra call layer

    def version(self) -> Hashable:  # (replaced per instance in __init__)
        return self.source.version()

    def runs_eagerly(self, name: str, lines: tuple[tuple[str, int, int], ...]) -> bool:
        stepping = getattr(self.source, "stepping_in", None)
        if stepping is not None and stepping():
            return True  # stepIn on a line calling it: its construct's lines are where the step goes
        hit = next((f"{os.path.basename(file)}:{ln}" for file, first, last in lines
                    for ln in sorted(self.source.lines(file)) if first <= ln <= last), None)
        if hit is not None and name not in self.announced:
            self.announced.add(name)
            print(f"spore-debug: {name} is compiled (Graph mode); it runs eagerly (PyNative) while a breakpoint is "
                  f"set in it ({hit}), so the breakpoint hits with real tensors; without breakpoints it runs "
                  "compiled again", file=self.stream or sys.stderr, flush=True)
        return hit is not None
