"""What a debugger asks of compiled code: run this call eagerly, because a breakpoint is in it.

A breakpoint on a line of a compiled `construct` (or `@jit` function) can only hit if that line
runs as Python. So before each compiled call the call path asks the registered *probe* (set through
`spore.ide.debugging.set_breakpoint_probe`; None when no debugger is attached, the usual case) whether
the lines the graph covers hold a breakpoint; if so the call runs its Python function instead, with
real tensors, and the debugger stops on the real line.

The probe answers plain data: ``version()`` is any hashable that changes whenever the breakpoints
may have (pydevd's breakpoint-change counter), and ``runs_eagerly(name, lines)`` takes the graph's
name and its covered ``(file, first_line, last_line)`` ranges. The answer is cached per compiled
graph and version, so a call costs one ``version()`` and a comparison when nothing changed; with no
probe it costs one list read. This module imports nothing of the engine, so a debugger registers
its probe before the engine loads.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

# [probe or None]: read on every compiled call, hence a one-slot list rather than a function call
PROBE: list[Any] = [None]


# thread id -> depth of calls running eagerly for a breakpoint (a dict, not threading.local: its
# emptiness is the test on every compiled call, and it is empty unless a breakpoint is being hit)
_EAGER: dict[int, int] = {}


@contextlib.contextmanager
def eager_for_debugger() -> Iterator[None]:
    """While a call runs eagerly for a breakpoint, the compiled calls it makes (its sub-cells, the
    Spore layers it uses) run eagerly too, in this thread: its graph had them inlined, so stepping
    into a user sub-cell's construct reaches real lines and every value is PyNative's."""
    me = threading.get_ident()
    _EAGER[me] = _EAGER.get(me, 0) + 1
    try:
        yield
    finally:
        left = _EAGER[me] - 1
        if left:
            _EAGER[me] = left
        else:
            del _EAGER[me]


def runs_eagerly(name: str, holder: Any, lines: tuple[tuple[str, int, int], ...]) -> bool:
    """The probe's cached answer for one compiled graph (`holder` keeps it in `debug_answer`).

    A probe that fails counts as "no breakpoint": a debugger's bug must not change the program."""
    probe = PROBE[0]
    if probe is None:
        return False
    if _EAGER and threading.get_ident() in _EAGER:
        return True
    try:
        version = probe.version()
        cached = holder.debug_answer
        if cached is not None and cached[1] is probe and cached[0] == version:
            return cached[2]
        answer = bool(probe.runs_eagerly(name, lines))
    except Exception:  # noqa: BLE001 - see the docstring
        return False
    holder.debug_answer = (version, probe, answer)
    return answer
