"""MindSpore's ``ms.set_cpu_affinity``: bind this process to a set of CPU cores (issue 14).

``set_cpu_affinity(True)`` binds the process to the cores it may run on now (the whole allowed
set: with one CPU process there is no device to share them with); ``affinity_cpu_list`` names the
cores instead, as MindSpore's range strings (``["0-3", "8"]``) or ints. ``module_to_cpu_dict``
assigns cores per module (MindSpore's "main", "runtime", "pynative", "minddata"): Spore runs every
module's work in this one process, so "main" (or, without it, the union of all listed cores)
becomes the binding; the others are checked and kept in `cpu_affinity_config()`.
``set_cpu_affinity(False)`` restores the binding the process had before the first call.

Binding uses ``os.sched_setaffinity`` (Linux). `bind_file` (MindSpore's per-device JSON for
Ascend hosts) is refused: give the cores in `affinity_cpu_list` instead.
"""

from __future__ import annotations

import os
from typing import Any

_MODULES = ("main", "runtime", "pynative", "minddata")
_original: set[int] | None = None
_config: dict[str, Any] = {}


def _cores(value: Any, what: str) -> set[int]:
    items = value if isinstance(value, (list, tuple)) else [value]
    out: set[int] = set()
    for item in items:
        if isinstance(item, bool):
            raise TypeError(f"set_cpu_affinity: {what} entries must be ints or 'a-b' strings, got {item!r}")
        if isinstance(item, int):
            lo = hi = item
        elif isinstance(item, str):
            parts = item.strip().split("-")
            try:
                lo, hi = (int(parts[0]), int(parts[-1])) if len(parts) in (1, 2) else (None, None)
            except ValueError:
                lo = hi = None
            if lo is None:
                raise ValueError(f"set_cpu_affinity: {what} entry {item!r} is not 'N' or 'A-B'")
        else:
            raise TypeError(f"set_cpu_affinity: {what} entries must be ints or 'a-b' strings, got {item!r}")
        if lo < 0 or hi < lo:
            raise ValueError(f"set_cpu_affinity: {what} entry {item!r} is not a valid core range")
        out.update(range(lo, hi + 1))
    return out


def set_cpu_affinity(enable_affinity: bool, affinity_cpu_list: Any = None, module_to_cpu_dict: Any = None,
                     bind_file: Any = None) -> None:
    """Bind (or, with False, unbind) this process's CPU cores; see the module docstring."""
    global _original
    if not isinstance(enable_affinity, bool):
        raise TypeError(f"set_cpu_affinity: enable_affinity must be a bool, got {type(enable_affinity).__name__}")
    if bind_file is not None:
        raise ValueError("set_cpu_affinity: bind_file (MindSpore's per-device JSON for Ascend hosts) is not "
                         "supported; give the cores in affinity_cpu_list")
    if not hasattr(os, "sched_setaffinity"):
        raise RuntimeError("set_cpu_affinity: this platform has no os.sched_setaffinity (Linux only)")
    if _original is None:
        _original = set(os.sched_getaffinity(0))
    if not enable_affinity:
        os.sched_setaffinity(0, _original)
        _config.clear()
        return
    allowed = set(os.sched_getaffinity(0)) | _original
    modules: dict[str, set[int]] = {}
    if module_to_cpu_dict is not None:
        if not isinstance(module_to_cpu_dict, dict):
            raise TypeError("set_cpu_affinity: module_to_cpu_dict must be a dict of module name -> cores")
        for k, v in module_to_cpu_dict.items():
            if k not in _MODULES:
                raise ValueError(f"set_cpu_affinity: module_to_cpu_dict keys must be in {list(_MODULES)}, got {k!r}")
            modules[k] = _cores(v, f"module_to_cpu_dict[{k!r}]")
    if affinity_cpu_list is not None:
        cores = _cores(affinity_cpu_list, "affinity_cpu_list")
    elif modules:
        cores = modules.get("main") or set().union(*modules.values())
    else:
        cores = allowed
    bad = sorted(cores - allowed)
    if bad or not cores:
        raise ValueError(f"set_cpu_affinity: cores {bad or '(none)'} are not available to this process "
                         f"(available: {sorted(allowed)})")
    os.sched_setaffinity(0, cores)
    _config.clear()
    _config.update({"enable_affinity": True, "cores": sorted(cores),
                    "modules": {k: sorted(v) for k, v in modules.items()}})


def cpu_affinity_config() -> dict[str, Any]:
    """What the last `set_cpu_affinity` call set (empty when unbound)."""
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in _config.items()}
