"""An index of Spore's public API as plain data: names, kinds, signatures, defaults, docs, sources.

The language server's hover, completion, signature help, "did you mean" and go-to-definition all
need the same facts about `ops.<name>`, `nn.<name>`, `spore.<name>` and `Tensor.<name>`, and must
never get them by importing the user's code. They are read here from Spore's own objects with
`inspect` (Spore's code, not the user's), once per process, and returned as dicts and strings so
the server depends on no engine object. `context_options()` lists `set_context`'s keys with the
values each accepts, from the same table `set_context` validates against.
"""

from __future__ import annotations

import functools
import inspect
import sys
from typing import Any

_DOC_LIMIT = 4000  # characters of a docstring kept (hover shows the start; the source has the rest)
_TOP_SKIP = frozenset({"Any", "TYPE_CHECKING", "annotations", "importlib"})


def _kind(obj: Any) -> str:
    if inspect.isclass(obj):
        return "class"
    if isinstance(obj, property):
        return "property"
    if inspect.ismodule(obj):
        return "module"
    if callable(obj):
        return "function"
    return "constant"


def _target(obj: Any) -> Any:
    """The object whose signature and source describe `obj` (a class: its __init__)."""
    if isinstance(obj, (staticmethod, classmethod)):
        return obj.__func__
    if isinstance(obj, property):
        return obj.fget
    return obj


def _params(obj: Any, drop_self: bool) -> tuple[str | None, list[dict[str, Any]]]:
    try:
        sig = inspect.signature(_target(obj))
    except (TypeError, ValueError):
        return None, []
    params = list(sig.parameters.values())
    if drop_self and params and params[0].name in ("self", "cls"):
        params = params[1:]
        sig = sig.replace(parameters=params)
    out = []
    for p in params:
        out.append({"name": p.name, "kind": p.kind.name.lower(),
                    "default": None if p.default is p.empty else repr(p.default),
                    "annotation": None if p.annotation is p.empty else
                    (p.annotation if isinstance(p.annotation, str) else getattr(p.annotation, "__name__",
                                                                                 repr(p.annotation)))})
    text = str(sig.replace(return_annotation=inspect.Signature.empty))
    return text, out


@functools.cache
def _class_lines(file: str) -> dict[str, int]:
    """Qualified class name -> line, for one source file (parsed once: `inspect.getsourcelines` would
    parse the file again for every class, seconds over the whole API)."""
    import ast

    try:
        with open(file, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return {}
    out: dict[str, int] = {}

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                out.setdefault(prefix + node.name, node.lineno)
                walk(node.body, prefix + node.name + ".")

    walk(tree.body, "")
    return out


def _source(obj: Any) -> tuple[str | None, int | None]:
    """The file and line where `obj` is defined (functions from their code object, classes from a
    once-per-file parse)."""
    target = _target(obj)
    try:
        target = inspect.unwrap(target)
    except ValueError:
        return None, None
    if inspect.isclass(target):
        module = sys.modules.get(target.__module__)
        file = getattr(module, "__file__", None)
        if not file:
            return None, None
        return file, _class_lines(file).get(target.__qualname__)
    code = getattr(target, "__code__", None)
    if code is None:
        return None, None
    return code.co_filename, _def_line(code.co_filename, code.co_firstlineno)


def _def_line(file: str, first: int) -> int:
    """The `def` line of a function whose code starts at `first` (past its decorators)."""
    import linecache

    for line in range(first, first + 40):
        text = linecache.getline(file, line).lstrip()
        if text.startswith(("def ", "async def ")):
            return line
        if not text:
            break
    return first


def _entry(namespace: str, name: str, obj: Any, method: bool = False) -> dict[str, Any]:
    kind = _kind(obj)
    if method and kind == "function":
        kind = "method"
    sig, params = (None, [])
    if kind == "class":
        sig, params = _params(obj, drop_self=False)
    elif kind in ("function", "method", "property"):
        sig, params = _params(obj, drop_self=method or kind == "property")
    doc = inspect.getdoc(_target(obj)) if kind != "constant" else None
    if kind == "constant":
        sig = f" = {obj!r}" if isinstance(obj, (int, float, str, bool)) else None
    file, line = _source(obj) if kind != "constant" else (None, None)
    return {"namespace": namespace, "name": name, "qualname": f"{namespace}.{name}", "kind": kind,
            "signature": sig, "params": params, "doc": (doc or "")[:_DOC_LIMIT], "file": file, "line": line,
            "module": getattr(_target(obj), "__module__", None)}


def _is_spore(obj: Any) -> bool:
    module = getattr(_target(obj), "__module__", None) or ""
    return module == "spore" or module.startswith("spore.")


@functools.lru_cache(maxsize=1)
def api_index() -> dict[str, dict[str, Any]]:
    """Every public name of ``spore``, ``spore.ops``, ``spore.nn`` and ``Tensor``, keyed by qualified name
    (``"ops.matmul"``, ``"nn.Dense"``, ``"spore.set_context"``, ``"Tensor.reshape"``): kind (class,
    function, method, property, constant, module), signature text, parameters with defaults, doc,
    and the source file and line. Loads the engine (about half a second); cached."""
    import spore
    from spore import nn, ops

    out: dict[str, dict[str, Any]] = {}
    for name in getattr(ops, "__all__", None) or dir(ops):
        obj = getattr(ops, name, None)
        if not name.startswith("_") and obj is not None and not inspect.ismodule(obj):
            out[f"ops.{name}"] = _entry("ops", name, obj)
    for name in getattr(nn, "__all__", None) or dir(nn):
        obj = getattr(nn, name, None)
        if not name.startswith("_") and obj is not None and not inspect.ismodule(obj) and (
                _is_spore(obj) or not callable(obj)):
            out[f"nn.{name}"] = _entry("nn", name, obj)
    for name in dir(spore):
        obj = getattr(spore, name, None)
        if name.startswith("_") or name in _TOP_SKIP or obj is None:
            continue
        if inspect.ismodule(obj) and not (obj.__name__.startswith("spore.") and name in ("ops", "nn", "dataset",
                                                                                         "train", "amp")):
            continue
        if callable(obj) and not inspect.ismodule(obj) and not _is_spore(obj):
            continue
        out[f"spore.{name}"] = _entry("spore", name, obj)
    for klass in reversed(spore.Tensor.__mro__):
        if klass is object:
            continue
        for name, obj in vars(klass).items():
            if name.startswith("_") or not (isinstance(obj, (property, staticmethod, classmethod))
                                            or inspect.isfunction(obj)):
                continue
            out[f"Tensor.{name}"] = _entry("Tensor", name, obj, method=True)
    return out


def api_names() -> dict[str, list[str]]:
    """Every public attribute that exists on ``spore``, ``spore.ops``, ``spore.nn`` and ``Tensor`` (sorted), documented
    in `api_index` or not (submodules, dtypes, re-exports): what "is this name real" is checked against."""
    import spore
    from spore import nn, ops

    return {ns: sorted(n for n in dir(obj) if not n.startswith("_"))
            for ns, obj in (("spore", spore), ("ops", ops), ("nn", nn), ("Tensor", spore.Tensor))}


def shape_rules() -> dict[str, str]:
    """Qualified public name -> the shape rule (`infer` signature) of the first op it applies."""
    from .catalogue import op_catalogue

    out: dict[str, str] = {}
    for op in op_catalogue():
        for qual in op["api"]:
            out.setdefault(qual, f"{op['name']}.{op['shape_rule']}")
    return out


# set_context's accepted values for the keys that take a fixed set (the rest: their default's type)
_CONTEXT_VALUES: dict[str, list[str]] = {
    "mode": ["GRAPH_MODE", "PYNATIVE_MODE"],
    "jit_syntax_level": ["STRICT", "LAX", "COMPATIBLE"],
    "device_target": ['"CPU"'],
    "deterministic": ['"OFF"', '"ON"'],
    "memory_optimize_level": ['"O0"', '"O1"'],
}


def context_options() -> dict[str, dict[str, Any]]:
    """`set_context`'s keys: default (repr) and the values it accepts (names of `spore` constants such
    as ``GRAPH_MODE``, or literals such as ``"CPU"``, ``True``)."""
    from .. import context

    out: dict[str, dict[str, Any]] = {}
    for key, default in context._DEFAULTS.items():
        if key in _CONTEXT_VALUES:
            values = list(_CONTEXT_VALUES[key])
        elif isinstance(default, bool):
            values = ["True", "False"]
        else:
            values = []
        shown = {context.GRAPH_MODE: "GRAPH_MODE", context.PYNATIVE_MODE: "PYNATIVE_MODE"}.get(default) \
            if key == "mode" else ({context.STRICT: "STRICT", context.LAX: "LAX", context.COMPATIBLE: "COMPATIBLE"}
                                   .get(default) if key == "jit_syntax_level" else repr(default))
        out[key] = {"default": shown, "values": values}
    return out


__all__ = ["api_index", "api_names", "context_options", "shape_rules"]
