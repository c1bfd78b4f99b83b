"""`OnnxMap`: how one primitive maps to ONNX, declared as the `onnx` field next to the op.

One declaration serves both directions:

- export: ``op_type`` with ``to_onnx(attrs, ctx) -> dict`` of ONNX attributes (a one-to-one node),
  or ``export(ctx, inputs, attrs) -> list[str]`` for ops that need several nodes;
- import: every ONNX op type in ``imports`` becomes this primitive, with
  ``from_onnx(attrs, ctx) -> dict`` of Spore attributes (or ``importer(ctx, inputs, attrs)`` for a
  custom translation).

``since`` is the lowest opset the export needs (the default export opset is 17; 13..21 accepted).
This module imports nothing heavy: the op modules import it while the registry is being built.
A QDQ export (quantization) can be added as a pass over the ONNX graph the exporter builds, or as a
``qdq`` field here naming which inputs take QuantizeLinear/DequantizeLinear pairs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class OnnxMap:
    """One primitive's ONNX mapping (see the module docstring)."""

    op_type: str | None = None
    to_onnx: Callable[[dict, Any], dict] | None = None
    export: Callable[..., list[str]] | None = None
    imports: tuple[str, ...] = ()
    from_onnx: Callable[[dict, Any], dict] | None = None
    importer: Callable[..., Any] | None = None
    since: int = 13

    def describe(self) -> str:
        """One line for the op catalogue: what it exports as and imports from."""
        out = self.op_type or "custom"
        ins = ", ".join(self.imports) or "-"
        return f"exports as {out} (opset >= {self.since}); imports {ins}"


def same(op_type: str, **kw: Any) -> OnnxMap:
    """A one-to-one op without attributes (Relu, Add, ...), exported and imported as `op_type`."""
    return OnnxMap(op_type=op_type, imports=(op_type,), **kw)
