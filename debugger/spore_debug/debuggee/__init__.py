"""What runs inside the debugged process: Spore's hooks for the debugger.

`install()` is called by `python -m spore_debug.run` before the user's program starts (and by the
Spore Jupyter kernel's debugger). It is idempotent and may run before or after `import spore`:
engine work waits until the program imports the engine (`deferred.when_imported`), so a program
that never uses Spore pays nothing. It sets up:

- the breakpoint probe (`breakpoints.BreakpointProbe`, registered with
  `spore.ide.set_breakpoint_probe`): a compiled `construct` or `@ms.jit` function whose lines hold
  a pydevd breakpoint runs eagerly, so the breakpoint hits on the real line with real tensors and
  `next`/`stepIn` walk its lines; without breakpoints it runs compiled, the check being one cached
  comparison per call;
- the tensor presentation for pydevd (`spore_debug.presentation_pydevd.register`);
- with ``break_on_nan``, the NaN/Inf guard (`nan_guard.NanGuard`, an execution observer): the first
  op producing NaN or Inf raises `NonFiniteError` at the user's line.

Compile errors need no hook: the engine raises every `GraphCompileError` from a frame at the user's
line whose locals are the construct's arguments (`spore.errors.raise_at_user_line`), which pydevd
stops at like any user frame.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from . import deferred

ENV_BREAK_ON_NAN = "SPORE_DEBUG_BREAK_ON_NAN"

_LOCK = threading.RLock()
_STATE: dict[str, Any] = {"installed": False, "break_on_nan": False, "probe": None, "guard": None}


def env_break_on_nan() -> bool:
    """``SPORE_DEBUG_BREAK_ON_NAN`` as a flag (1/true/yes/on)."""
    return os.environ.get(ENV_BREAK_ON_NAN, "").strip().lower() in ("1", "true", "yes", "on")


def install(break_on_nan: bool | None = None, *, probe: Any = None) -> None:
    """Install Spore's debuggee hooks (again: only the NaN guard setting changes).

    ``break_on_nan=None`` reads `SPORE_DEBUG_BREAK_ON_NAN`. ``probe`` replaces the pydevd-backed
    breakpoint probe (tests pass one reading a fake breakpoint table)."""
    want_nan = env_break_on_nan() if break_on_nan is None else bool(break_on_nan)
    with _LOCK:
        if not _STATE["installed"]:
            from .breakpoints import BreakpointProbe

            _STATE["probe"] = probe if probe is not None else BreakpointProbe()
            _STATE["installed"] = True
            deferred.when_imported("spore", _register_probe)
            _register_presentation()
        elif probe is not None and probe is not _STATE["probe"]:
            _STATE["probe"] = probe
            deferred.when_imported("spore", _register_probe)
        if want_nan != _STATE["break_on_nan"]:
            _STATE["break_on_nan"] = want_nan
            deferred.when_imported("spore.ops", _apply_nan_guard)


def uninstall() -> None:
    """Take every hook out again (the engine then runs as if no debugger had been there)."""
    import sys

    with _LOCK:
        deferred.cancel()
        ide = sys.modules.get("spore.ide")
        if ide is not None:
            if _STATE["probe"] is not None and ide.breakpoint_probe() is _STATE["probe"]:
                ide.set_breakpoint_probe(None)
            if _STATE["guard"] is not None:
                ide.remove_observer(_STATE["guard"])
        _STATE.update(installed=False, break_on_nan=False, probe=None, guard=None)


def installed() -> dict[str, Any]:
    """What is installed, as plain data: ``{"installed", "break_on_nan", "probe", "guard"}``."""
    with _LOCK:
        return {"installed": _STATE["installed"], "break_on_nan": _STATE["break_on_nan"],
                "probe": _STATE["probe"] is not None, "guard": _STATE["guard"] is not None}


def _register_presentation() -> None:
    """Tensors shown as tensors (`spore_debug.presentation_pydevd.register`: now if pydevd is loaded,
    else when it loads); a failure there must not stop the program, so it is only said."""
    try:
        from ..presentation_pydevd import register

        register()
    except Exception as err:  # noqa: BLE001
        import sys

        print(f"spore-debug: tensor presentation not installed ({err!r})", file=sys.stderr)


def _register_probe(_module: Any) -> None:
    from spore import ide

    with _LOCK:
        if _STATE["installed"] and _STATE["probe"] is not None:
            ide.set_breakpoint_probe(_STATE["probe"])


def _apply_nan_guard(_module: Any) -> None:
    """Add or remove the guard observer to match the current setting (runs once the engine's ops
    are loaded)."""
    from spore import ide

    from .nan_guard import NanGuard

    with _LOCK:
        if not _STATE["installed"]:
            return
        if _STATE["break_on_nan"] and _STATE["guard"] is None:
            _STATE["guard"] = NanGuard()
            ide.add_observer(_STATE["guard"])
        elif not _STATE["break_on_nan"] and _STATE["guard"] is not None:
            ide.remove_observer(_STATE["guard"])
            _STATE["guard"] = None
