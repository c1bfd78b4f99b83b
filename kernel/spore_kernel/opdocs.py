"""Docs of Spore's API for inspection: signatures, docstrings and the op registry's declarations.

`ops.matmul` is a thin function over the `MatMul` primitive; the primitive's declaration (its
docstring, shape rule and gradient) is the one place the op is described, so inspecting either
the function, the class form `ops.MatMul` or the primitive shows that declaration too.
"""

from __future__ import annotations

import inspect
import types
from typing import Any


def _registry() -> dict[str, Any]:
    from spore.ops.primitive import REGISTRY

    return REGISTRY


def _norm(name: str) -> str:
    return name.replace("_", "").lower()


def is_spore_api(obj: Any) -> bool:
    """True for functions, classes and primitives that Spore itself defines."""
    from spore.ops.primitive import Primitive

    if isinstance(obj, Primitive):
        return True
    if not (inspect.isfunction(obj) or inspect.isclass(obj) or inspect.ismethod(obj) or inspect.isbuiltin(obj)):
        return False
    module = getattr(obj, "__module__", "") or ""
    return module == "spore" or module.startswith("spore.")


def _code_objects(obj: Any) -> list[types.CodeType]:
    if inspect.ismethod(obj):
        obj = obj.__func__
    if inspect.isfunction(obj):
        return [obj.__code__]
    if inspect.isclass(obj):
        return [m.__code__ for name in ("__init__", "__call__", "construct")
                if inspect.isfunction(m := obj.__dict__.get(name))]
    return []


def primitives_for(obj: Any) -> list[Any]:
    """The registered primitives behind an API object: those its code calls, else the one of its name."""
    from spore.ops.primitive import Primitive

    if isinstance(obj, Primitive):
        return [obj]
    found: list[Any] = []
    module = inspect.getmodule(obj)
    fn_globals = getattr(obj, "__globals__", None) or (vars(module) if module is not None else {})
    for code in _code_objects(obj):
        for name in code.co_names:
            p = fn_globals.get(name)
            if isinstance(p, Primitive) and p not in found:
                found.append(p)
    if not found:
        name = getattr(obj, "__name__", "")
        p = _by_name(name)
        if p is not None:
            found.append(p)
    return found


def _by_name(name: str) -> Any:
    reg = _registry()
    if name in reg:
        return reg[name]
    target = _norm(name)
    for key, p in reg.items():
        if _norm(key) == target:
            return p
    return None


def lookup(name: str) -> Any:
    """Resolve an API name that is not bound in the notebook: `ops.matmul`, `MatMul`, `nn.Dense`."""
    import spore
    from spore import nn, ops

    last = name.rsplit(".", 1)[-1]
    if not last.isidentifier():
        return None
    for space in (ops, nn, spore):
        obj = getattr(space, last, None)
        if obj is not None and not isinstance(obj, types.ModuleType):
            return obj
    return _by_name(last)


def signature(obj: Any) -> str:
    from spore.ops.primitive import Primitive

    if isinstance(obj, Primitive):
        try:
            return f"{obj.name}{inspect.signature(obj.infer)}"
        except (TypeError, ValueError):
            return obj.name
    try:
        return f"{getattr(obj, '__name__', type(obj).__name__)}{inspect.signature(obj)}"
    except (TypeError, ValueError):
        return getattr(obj, "__name__", repr(obj))


def primitive_text(p: Any) -> str:
    """The registry's declaration of one primitive, as text."""
    flags = []
    flags.append("differentiable (vjp declared)" if p.vjp is not None and not p.nondiff else "no gradient")
    if p.multi_output:
        flags.append("several outputs")
    if p.random:
        flags.append("random")
    if p.side_effect:
        flags.append("writes state in place")
    if p.onnx is not None:
        flags.append("ONNX export")
    try:
        rule = f"infer{inspect.signature(p.infer)}"
    except (TypeError, ValueError):
        rule = "infer(...)"
    doc = p.doc or "(no docstring)"
    return f"{p.name}: {doc}\n  shape rule: {rule}\n  {'; '.join(flags)}"


def api_sections(obj: Any) -> list[tuple[str, str]]:
    """(title, body) sections describing a Spore API object."""
    from spore.ops.primitive import Primitive

    sections = [("Signature", signature(obj))]
    doc = None if isinstance(obj, Primitive) else inspect.getdoc(obj)  # a primitive's doc is in its section
    if doc:
        sections.append(("Docstring", doc))
    module = getattr(obj, "__module__", None)
    if module:
        sections.append(("Defined in", module))
    prims = primitives_for(obj)
    if prims:
        sections.append(("Spore op" if len(prims) == 1 else "Spore ops", "\n".join(primitive_text(p) for p in prims)))
    return sections
