"""Running code for an IDE face: observers on every op, and measuring a Cell without touching it.

The kernel's speed hint measures a copy of the user's Cell in both modes; the debugger watches
each Graph-mode node; a NaN guard checks every output. These need the engine's cooperation
(its random state, its compiled-graph caches, its execution hook), offered here as plain calls.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Iterator
from typing import Any


def observe_ops(*observers: Any) -> contextlib.AbstractContextManager[None]:
    """``with observe_ops(obs): ...`` — each observer's ``before(event)``/``after(event)`` is called
    around every op run inside the block, in both modes (see `spore.ops.observers.OpEvent`)."""
    return _observing(observers)


@contextlib.contextmanager
def _observing(observers: tuple[Any, ...]) -> Iterator[None]:
    from ..ops.observers import add_observer, remove_observer

    added = []
    try:
        for o in observers:
            add_observer(o)
            added.append(o)
        yield
    finally:
        for o in added:
            remove_observer(o)


def add_observer(observer: Any) -> None:
    """Start calling `observer.before/after` around every op (until `remove_observer`)."""
    from ..ops.observers import add_observer as add

    add(observer)


def remove_observer(observer: Any) -> None:
    """Stop calling `observer` (no error if it was not observing)."""
    from ..ops.observers import remove_observer as remove

    remove(observer)


def is_busy() -> bool:
    """True while the engine records or watches what runs: a gradient tape, a Graph-mode trace,
    or an observer (the profiler). Re-running a user's Cell then would change what they measure."""
    from ..autodiff import tape
    from ..ops.observers import OBSERVERS
    from ..ops.primitive import TRACING

    return bool(tape.STATE.depth or TRACING.builder is not None or OBSERVERS.active)


def random_state() -> Any:
    """Spore's global random state (restore it with `set_random_state`)."""
    from ..common import seed

    return seed.rng().bit_generator.state


def set_random_state(state: Any) -> None:
    """Restore a state from `random_state`: what ran in between leaves the user's draws unchanged."""
    from ..common import seed

    seed.rng().bit_generator.state = state


def clone_cell(cell: Any) -> Any:
    """A deep copy of a Cell (parameters, optimizer state, statistics) without its compiled graphs,
    which the copy compiles for itself (copies of a Cell leave them behind)."""
    return copy.deepcopy(cell)


def graph_runner(cell: Any) -> Callable[..., Any]:
    """A callable running `cell`'s construct as one compiled graph of its own (compiled on its first
    call; a construct that cannot be one graph raises its `GraphCompileError`), whatever the mode
    and whatever the Cell itself has compiled."""
    from ..compiler.jit import compile_cell

    return compile_cell(cell, fullgraph=True)


def tensor_origin(t: Any) -> dict[str, Any]:
    """Where a tensor came from: ``{"parameter": name | None, "op": <primitive> | None,
    "requires_grad": bool | None}`` (``op`` is set for a tensor recorded on the gradient tape)."""
    is_param = hasattr(t, "requires_grad") and isinstance(getattr(t, "name", None), str)
    node = getattr(t, "_node", None)
    return {"parameter": t.name if is_param else None,
            "op": node.prim.name if node is not None else None,
            "requires_grad": bool(t.requires_grad) if is_param else None}
