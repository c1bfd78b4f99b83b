"""What a debugger registers with the engine so breakpoints hit inside compiled code.

A compiled `construct` (or `@ms.jit` function) never runs its Python lines, so a breakpoint in it
would never hit. Spore's debugger registers a *breakpoint probe* here; before each compiled call
the engine asks it (through a cached, O(1) check) whether the graph's source lines hold a
breakpoint, and if so runs that call eagerly — the real lines, with real tensors — instead of the
graph. The probe is plain data in and out, and the engine imports no debugger:

    class Probe:
        def version(self) -> Hashable: ...          # changes whenever breakpoints may have
        def runs_eagerly(self, name: str, lines: tuple[tuple[str, int, int], ...]) -> bool: ...

``name`` is the compiled function's ("Net.construct"), ``lines`` the ``(file, first, last)`` ranges
of every user function its graph covers (the construct and the user Cells and helpers it calls).
The answer is cached per graph until ``version()`` changes. Registering does not load the engine.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..compiler import debug_hooks


class BreakpointProbe(Protocol):
    """What `set_breakpoint_probe` accepts."""

    def version(self) -> Any: ...

    def runs_eagerly(self, name: str, lines: tuple[tuple[str, int, int], ...]) -> bool: ...


def set_breakpoint_probe(probe: BreakpointProbe | None) -> None:
    """Make compiled calls ask `probe` whether to run eagerly (None: never, the default)."""
    if probe is not None and not (callable(getattr(probe, "version", None))
                                  and callable(getattr(probe, "runs_eagerly", None))):
        raise TypeError(f"a breakpoint probe needs version() and runs_eagerly(name, lines), got {type(probe).__name__}")
    debug_hooks.PROBE[0] = probe


def breakpoint_probe() -> BreakpointProbe | None:
    """The registered probe, or None."""
    return debug_hooks.PROBE[0]


def covered_lines(obj: Any) -> list[tuple[str, int, int]]:
    """The ``(file, first, last)`` source ranges the graphs compiled so far for `obj` cover: a Cell
    (its compiled construct) or an ``@ms.jit`` function. Empty before the first compiled call."""
    jit_fn = getattr(obj, "compiled_construct", obj)
    found: set[tuple[str, int, int]] = set()
    for fn in [jit_fn, *_segments(jit_fn)]:
        for entry in dict(getattr(fn, "cache", None) or {}).values():
            found.update(getattr(entry, "lines", ()))
    return sorted(found)


def _segments(jit_fn: Any) -> list[Any]:
    segmented = getattr(jit_fn, "segmented", None)
    return list(getattr(segmented, "segments", {}).values()) if segmented is not None else []
