"""Run set-up code when a module is first imported, not before.

The kernel must answer its first request fast, and `import spore`'s engine (NumPy, the op
registry, the C++ kernels) takes about a second: anything that patches engine classes waits for
the user's first cell that loads them. `when_imported` runs the callback at once if the module is
already loaded, else right after its import finishes (a meta-path finder that wraps the module's
loader, then steps aside).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

_PENDING: dict[str, list[Callable[[ModuleType], None]]] = {}


class _Loader(importlib.abc.Loader):
    def __init__(self, inner: Any, name: str) -> None:
        self.inner = inner
        self.name = name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.inner.exec_module(module)
        for fn in _PENDING.pop(self.name, []):
            fn(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if name not in _PENDING:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Loader(spec.loader, name)
                return spec
        return None


_FINDER = _Finder()


def when_imported(name: str, fn: Callable[[ModuleType], None]) -> None:
    """Call `fn(module)` once module `name` is imported (now, if it already is)."""
    module = sys.modules.get(name)
    if module is not None:
        fn(module)
        return
    _PENDING.setdefault(name, []).append(fn)
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
