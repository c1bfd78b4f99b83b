"""Run a callback once a module has been imported, without importing it.

The debuggee's hooks are installed before the user's program runs, but the engine must not be
loaded for a program that never imports it (nor before the program sets up its own `sys.path` or
environment). So `when_imported("spore.ops", fn)` calls `fn(module)` right away if the module is
loaded, or else right after the program's own import of it finishes executing: a finder placed
first on `sys.meta_path` lets the real finders locate the module and wraps only its loader's
`exec_module`, then takes itself off the path. (Plain classes with the finder and loader methods,
not `importlib.abc` subclasses: the import system asks for the methods only, and `importlib.abc`
costs the launcher's start-up.)
"""

from __future__ import annotations

import sys
import threading
import types
from collections.abc import Callable
from typing import Any

Callback = Callable[[types.ModuleType], None]

_LOCK = threading.Lock()


def when_imported(name: str, callback: Callback) -> None:
    """Call `callback(module)` now if `name` is imported, else once its import has run."""
    with _LOCK:
        module = sys.modules.get(name)
        if module is None:
            finder = _finder()
            finder.pending.setdefault(name, []).append(callback)
            return
    # (loaded, or being loaded by the caller's own import chain: no later import would find it, so now)
    callback(module)


def _finder() -> _AfterImport:
    for f in sys.meta_path:
        if isinstance(f, _AfterImport):
            return f
    f = _AfterImport()
    sys.meta_path.insert(0, f)
    return f


def cancel() -> None:
    """Forget every pending callback and take the finder off `sys.meta_path` (tests use it)."""
    with _LOCK:
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _AfterImport)]


class _AfterImport:
    """Finds nothing itself: asks the finders after it, and wraps the loader of a watched module."""

    def __init__(self) -> None:
        self.pending: dict[str, list[Callback]] = {}
        self._busy: set[str] = set()

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname not in self.pending or fullname in self._busy:
            return None
        self._busy.add(fullname)
        try:
            spec = None
            for finder in [f for f in sys.meta_path if f is not self]:
                find = getattr(finder, "find_spec", None)
                if find is None:
                    continue
                spec = find(fullname, path, target)
                if spec is not None:
                    break
        finally:
            self._busy.discard(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _Loader(spec.loader, self.pending.pop(fullname), self)
        return spec

    def done(self) -> None:
        if not self.pending:
            with _LOCK:
                if self in sys.meta_path and not self.pending:
                    sys.meta_path.remove(self)


class _Loader:
    """The real loader, whose `exec_module` is followed by the callbacks; after it the module's
    `__loader__` and `__spec__.loader` are the real loader again (source lookups, reloads)."""

    def __init__(self, real: Any, callbacks: list[Callback], finder: _AfterImport) -> None:
        self.real, self.callbacks, self.finder = real, callbacks, finder

    def create_module(self, spec: Any) -> types.ModuleType | None:
        return self.real.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        try:
            self.real.exec_module(module)
        finally:
            module.__loader__ = self.real
            if module.__spec__ is not None:
                module.__spec__.loader = self.real
        # the import statement's own sys.modules entry may be what the module replaced itself with
        for cb in self.callbacks:
            try:
                cb(sys.modules.get(module.__name__, module))
            except Exception as err:  # noqa: BLE001 - a debugger hook must never break the program's import
                print(f"spore-debug: a hook on {module.__name__} failed ({err!r}); the program runs on without it",
                      file=sys.stderr)
        self.finder.done()

    def __getattr__(self, name: str) -> Any:  # get_source, get_code, is_package, resource readers...
        return getattr(self.real, name)
