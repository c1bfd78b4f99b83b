"""Docs of Spore's API for inspection, rendered from the engine's op catalogue (`spore.ide`).

`ops.matmul` is a thin function over the `MatMul` primitive; the primitive's declaration (its
docstring, shape rule and gradient) is the one place the op is described, so inspecting the
function, the class form `ops.MatMul`, the Tensor method or the primitive shows that declaration
too. Which ops an API object applies is the engine's answer (`spore.ide.describe`); this module
only turns it into inspector sections.
"""

from __future__ import annotations

import inspect
from typing import Any


def is_spore_api(obj: Any) -> bool:
    """True for functions, classes and primitives that Spore itself defines."""
    from spore import ide

    return ide.is_spore_api(obj)


def lookup(name: str) -> Any:
    """Resolve an API name that is not bound in the notebook: `ops.matmul`, `MatMul`, `nn.Dense`."""
    from spore import ide

    return ide.lookup(name)


def signature(obj: Any) -> str:
    try:
        return f"{getattr(obj, '__name__', type(obj).__name__)}{inspect.signature(obj)}"
    except (TypeError, ValueError):
        return getattr(obj, "__name__", repr(obj))


def op_text(entry: dict[str, Any]) -> str:
    """One catalogue entry (an op's declaration) as text."""
    flags = ["differentiable (vjp declared)" if entry["differentiable"] else "no gradient"]
    for key, words in (("multi_output", "several outputs"), ("random", "random"),
                       ("side_effect", "writes state in place"), ("onnx", "ONNX export")):
        if entry[key]:
            flags.append(words)
    doc = entry["doc"] or "(no docstring)"
    return f"{entry['name']}: {doc}\n  shape rule: {entry['shape_rule']}\n  {'; '.join(flags)}"


def api_sections(obj: Any) -> list[tuple[str, str]]:
    """(title, body) sections describing a Spore API object."""
    from spore import ide

    info = ide.describe(obj)
    if info is None:
        return [("Signature", signature(obj))]
    sections = [("Signature", info["signature"])]
    if info["doc"]:
        sections.append(("Docstring", info["doc"]))
    if info["module"]:
        sections.append(("Defined in", info["module"]))
    ops = info["ops"]
    if ops:
        sections.append(("Spore op" if len(ops) == 1 else "Spore ops", "\n".join(op_text(e) for e in ops)))
    return sections
