"""`spore.onnx`: export a Cell's compiled graph to ONNX and import ONNX models as Cells.

- `export(net, *inputs, file_name, opset_version=17, dynamic_axes=None, ...)` walks the Graph-mode
  IR of `net` for these inputs and writes an ONNX model (`exporter`); each primitive's mapping is
  the `onnx` field of its declaration in `spore/ops` (an `OnnxMap`, see `spec`).
- `load(path_or_bytes)` returns an `OnnxCell`: the ONNX graph as a Cell whose float initializers
  are trainable Parameters, runnable in PyNative and Graph mode (`importer`).

The names load lazily: `import spore.onnx` imports neither `onnx` nor the engine, because the op
declarations import `spore.onnx.spec` while the registry is being built.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "export": ("exporter", "export"),
    "to_model": ("exporter", "to_model"),
    "load": ("importer", "load"),
    "OnnxCell": ("importer", "OnnxCell"),
    "import_table": ("importer", "import_table"),
    "OnnxMap": ("spec", "OnnxMap"),
}


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'spore.onnx' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{target[0]}"), target[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["OnnxCell", "OnnxMap", "export", "import_table", "load", "to_model"]
