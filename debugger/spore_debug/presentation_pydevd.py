"""pydevd's side of the tensor presentation: a type resolver and a str provider, and their registration.

pydevd (inside debugpy) finds extensions as modules named `pydevd_plugin*` in the package
`pydevd_plugins.extensions`, whose `__path__` its own `__init__` extends with `pkgutil.extend_path`:
every `pydevd_plugins/extensions` portion a `sys.path` entry's finder reports is added.
`debugger/pydevd_plugins/extensions/pydevd_plugin_spore.py` is such a module, in a PEP 420 namespace
portion (no `__init__.py`, deliberately):

- a regular (wheel) install puts it in site-packages, whose FileFinder reports the portion;
- the editable install (`pip install -e .`) maps packages to their source folders through
  setuptools' finder and puts no source folder on `sys.path`. For a regular package with pydevd's
  recommended `__init__` preamble, `extend_path` then never sees `debugger/pydevd_plugins`. For a
  namespace portion the editable install records the folders in its NAMESPACES table and serves
  them through a `sys.path` placeholder entry's path hook, which `extend_path` does consult
  (tests/debugger/test_presentation_install.py makes both kinds of editable install and debugs
  through each). An editable install made before the plugin existed has no such entry until it is
  re-run.

Hence `register()` as well, which `spore_debug.debuggee.install()` and the Spore kernel's debugger
call: it adds the two providers to pydevd's extension lists directly (now, if pydevd is loaded; else
the moment pydevd loads its extension manager, e.g. at a later `debugpy.listen`), once, however they
were found.

The classes here do not inherit pydevd's ABCs (so this module imports no pydevd and the unit tests
run without a debugger); `register()` and the plugin module register them with the ABCs, which
pydevd's `issubclass` check accepts. Every method catches everything: a failing summary is the
object's repr, failing children are one `error` entry, nothing raises into pydevd.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from typing import Any

from . import presentation as P
from . import presentation_cell as C

_NODES = (P.StatsView, P.ExactStats, P.Slice, C.ParameterList, C.Attributes)
_EXT_UTILS = "_pydevd_bundle.pydevd_extension_utils"


def _safe_repr(obj: Any) -> str:
    try:
        return repr(obj)
    except Exception as err:
        return f"<{type(obj).__name__}: repr failed: {type(err).__name__}: {err}>"


def is_spore_type(tp: Any) -> bool:
    """A type this module presents: a Spore Tensor/Parameter, a Cell, or one of its own nodes."""
    try:
        return tp in _NODES or P.is_tensor_type(tp) or P.is_cell_type(tp)
    except Exception:
        return False


def present(obj: Any) -> str:
    """The value string pydevd shows; the repr if formatting fails."""
    try:
        if isinstance(obj, _NODES):
            return obj.text()
        if P.is_cell_type(type(obj)):
            return C.cell_summary(obj)
        return P.summary(obj)
    except Exception:
        return _safe_repr(obj)


def contents(obj: Any) -> list[P.Child]:
    """Children as (name, value, evaluate-name suffix or callable), in display order."""
    try:
        if isinstance(obj, _NODES):
            return obj.children()
        if P.is_cell_type(type(obj)):
            return C.cell_children(obj)
        return P.tensor_children(obj)
    except Exception as err:
        return [("error", f"{type(err).__name__}: {err}", None), ("repr", _safe_repr(obj), None)]


class SporeResolver:
    """pydevd TypeResolveProvider for Spore tensors, Cells and the presentation's nodes."""

    def can_provide(self, type_object: Any, type_name: str) -> bool:
        return is_spore_type(type_object)

    def get_contents_debug_adapter_protocol(self, obj: Any, fmt: Any = None) -> list[P.Child]:
        return contents(obj)

    def get_dictionary(self, obj: Any) -> dict[str, Any]:
        return {name: value for name, value, _ in contents(obj)}

    def resolve(self, var: Any, attribute: str) -> Any:
        for name, value, _ in contents(var):
            if name == attribute:
                return value
        return None


class SporeStrProvider:
    """pydevd StrPresentationProvider: the one-line summary (the repr for "Copy Value")."""

    def can_provide(self, type_object: Any, type_name: str) -> bool:
        return is_spore_type(type_object)

    def get_str_in_context(self, val: Any, context: str) -> str:
        if context == "clipboard" and not isinstance(val, _NODES):
            return _safe_repr(val)
        return present(val)

    def get_str(self, val: Any) -> str:
        return present(val)


def register_abcs() -> None:
    """Declare the providers to pydevd's ABCs (pydevd must be importable)."""
    from _pydevd_bundle.pydevd_extension_api import (  # pyright: ignore[reportMissingImports] (debugpy-vendored)
        StrPresentationProvider,
        TypeResolveProvider,
    )

    TypeResolveProvider.register(SporeResolver)
    StrPresentationProvider.register(SporeStrProvider)


def register() -> bool:
    """Make pydevd present Spore objects; True when done now, False when deferred until pydevd
    loads (a later `debugpy.listen`, the kernel's debugger). Idempotent."""
    utils = sys.modules.get(_EXT_UTILS)
    if utils is None:
        if _HOOK not in sys.meta_path:
            sys.meta_path.insert(0, _HOOK)
        return False
    _register_into(utils)
    return True


def _register_into(utils: Any) -> None:
    from _pydevd_bundle.pydevd_extension_api import (  # pyright: ignore[reportMissingImports] (debugpy-vendored)
        StrPresentationProvider,
        TypeResolveProvider,
    )

    register_abcs()
    manager = utils.EXTENSION_MANAGER_INSTANCE
    for ext_type, cls in ((TypeResolveProvider, SporeResolver), (StrPresentationProvider, SporeStrProvider)):
        providers = manager.get_extension_classes(ext_type)  # the list pydevd's type handler reads
        if not any(type(p).__name__ == cls.__name__ for p in providers):
            providers.insert(0, cls())
    _forget_cached_answers()


def _forget_cached_answers() -> None:
    """pydevd caches, per type, which resolver and str provider it found; a Spore type shown before
    registration must be asked again."""
    xml = sys.modules.get("_pydevd_bundle.pydevd_xml")
    handler = getattr(xml, "_TYPE_RESOLVE_HANDLER", None)
    for name in ("_type_to_resolver_cache", "_type_to_str_provider_cache"):
        cache = getattr(handler, name, None)
        if isinstance(cache, dict):
            for tp in [t for t in cache if is_spore_type(t)]:
                cache.pop(tp, None)


class _Loader(importlib.abc.Loader):
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
        return self.inner.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.inner.exec_module(module)
        try:
            _register_into(module)
        except Exception:  # never break the debugger's own start-up
            pass


class _WhenPydevdLoads(importlib.abc.MetaPathFinder):
    """Registers the providers right after pydevd imports its extension manager, then steps aside."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if name != _EXT_UTILS:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None:
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                spec = find(name, path, target) if find else None
                if spec is not None:
                    break
        if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _Loader(spec.loader)
        return spec


_HOOK = _WhenPydevdLoads()
