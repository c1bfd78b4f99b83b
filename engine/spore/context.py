"""`set_context` / `get_context`: the run configuration, with MindSpore's keys.

Only keys Spore understands are accepted: a misspelt key is an error naming the known ones, not a
silent no-op. Keys MindSpore has for other hardware (Ascend/GPU tuning) are refused the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import ContextError, located

GRAPH_MODE = 0
PYNATIVE_MODE = 1
# jit_syntax_level, with MindSpore's values: STRICT compiles the Graph-mode subset or refuses;
# LAX (MindSpore's default) may also run what a graph cannot hold in Python between compiled parts.
STRICT = 0
COMPATIBLE = 1
LAX = 2

_DEFAULTS: dict[str, Any] = {
    "mode": PYNATIVE_MODE,
    "device_target": "CPU",
    "device_id": 0,
    "save_graphs": False,
    "save_graphs_path": ".",
    "max_call_depth": 1000,
    "deterministic": "OFF",
    "runtime_num_threads": None,
    "pynative_synchronize": False,
    "jit_config": None,
    "reserve_class_name_in_scope": True,
    "check_bprop": False,
    "memory_optimize_level": "O0",
    "max_device_memory": None,
    "enable_graph_kernel": False,
    "precompile_only": False,
    "jit_syntax_level": LAX,
}
_CONTEXT: dict[str, Any] = dict(_DEFAULTS)
# Compile-relevant structure of Cells (train/eval, casts, children) changes bump this, so compiled
# graphs cached under an older value are not reused.
STRUCTURE_VERSION = [0]


def bump_structure_version() -> None:
    STRUCTURE_VERSION[0] += 1
_DEVICES = ("CPU",)


def _check(key: str, value: Any) -> Any:
    if key == "mode":
        if value not in (GRAPH_MODE, PYNATIVE_MODE):
            raise located(ContextError(f"set_context: mode must be ms.GRAPH_MODE (0) or ms.PYNATIVE_MODE (1), "
                                       f"got {value!r}"))
        if value == GRAPH_MODE and not graph_mode_available():
            raise located(ContextError(
                "set_context: GRAPH_MODE is not yet available in this build of Spore",
                hint="use ms.set_context(mode=ms.PYNATIVE_MODE); your code runs unchanged in PyNative"))
    elif key == "device_target":
        if not isinstance(value, str) or value.upper() not in _DEVICES:
            raise located(ContextError(
                f"set_context: device_target {value!r} is not supported; Spore runs on {', '.join(_DEVICES)}",
                hint='use device_target="CPU"'))
        value = value.upper()
    elif key in ("save_graphs", "pynative_synchronize", "enable_graph_kernel", "check_bprop",
                 "precompile_only", "reserve_class_name_in_scope"):
        if not isinstance(value, (bool, int)):
            raise located(ContextError(f"set_context: {key} must be a bool, got {value!r}"))
    elif key == "jit_syntax_level":
        if value not in (STRICT, COMPATIBLE, LAX):
            raise located(ContextError(f"set_context: jit_syntax_level must be ms.STRICT, ms.COMPATIBLE or ms.LAX, "
                                       f"got {value!r}"))
    elif key in ("device_id", "max_call_depth") and (not isinstance(value, int) or value < 0):
        raise located(ContextError(f"set_context: {key} must be a non-negative int, got {value!r}"))
    return value


def graph_mode_available() -> bool:
    """Whether this build has the Graph-mode compiler."""
    import importlib.util

    return importlib.util.find_spec("spore.compiler.frontend") is not None


def set_context(**kwargs: Any) -> None:
    """Set context keys (mode, device_target, device_id, save_graphs, save_graphs_path, ...)."""
    for key in kwargs:
        if key not in _DEFAULTS:
            raise located(ContextError(f"set_context: unknown key {key!r}",
                                       hint="known keys: " + ", ".join(sorted(_DEFAULTS))))
    checked = {k: _check(k, v) for k, v in kwargs.items()}
    _CONTEXT.update(checked)
    if "mode" in checked:
        call_state_changed()


def get_context(attr_key: str) -> Any:
    """The value of one context key."""
    if attr_key not in _DEFAULTS:
        raise located(ContextError(f"get_context: unknown key {attr_key!r}",
                                   hint="known keys: " + ", ".join(sorted(_DEFAULTS))))
    return _CONTEXT[attr_key]


def set_device(device_target: str, device_id: int | None = None) -> None:
    """Set the device (MindSpore 2.x's `set_device`)."""
    set_context(device_target=device_target, **({"device_id": device_id} if device_id is not None else {}))


# Listeners told when something that decides how a call runs has changed: the mode here, a graph
# starting or ending compilation (compiler/trace.py), a profiler starting or stopping. `nn.cell`
# registers the one that recomputes the flag `Cell.__call__` tests, so the ordinary PyNative call
# reads one precomputed flag instead of three pieces of state; the notifiers import nothing above
# this module.
_CALL_STATE_LISTENERS: list[Callable[[], None]] = []


def on_call_state_change(listener: Callable[[], None]) -> Callable[[], None]:
    """Register `listener` (called with no arguments) for `call_state_changed`; returns it."""
    _CALL_STATE_LISTENERS.append(listener)
    listener()
    return listener


def call_state_changed() -> None:
    """Tell the listeners that the mode, the graph being compiled or the running profiler changed."""
    for listener in _CALL_STATE_LISTENERS:
        listener()


def _reset_for_tests() -> None:
    _CONTEXT.clear()
    _CONTEXT.update(_DEFAULTS)
    call_state_changed()


def set_deterministic(deterministic: bool) -> None:
    """MindSpore's ``ms.set_deterministic``: the same as ``set_context(deterministic="ON"/"OFF")``
    (Spore's CPU kernels are deterministic either way; the setting is kept and reported)."""
    if not isinstance(deterministic, bool):
        raise TypeError(f"set_deterministic: deterministic must be a bool, got {type(deterministic).__name__}")
    set_context(deterministic="ON" if deterministic else "OFF")


def set_recursion_limit(recursion_limit: int = 1000) -> None:
    """MindSpore's ``ms.set_recursion_limit``: how deep Graph mode follows calls when compiling,
    the same as ``set_context(max_call_depth=...)``."""
    if isinstance(recursion_limit, bool) or not isinstance(recursion_limit, int) or recursion_limit <= 0:
        raise ValueError(f"set_recursion_limit: recursion_limit must be a positive int, got {recursion_limit!r}")
    set_context(max_call_depth=recursion_limit)
