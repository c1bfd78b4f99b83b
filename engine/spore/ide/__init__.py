"""`spore.ide`: the one engine surface the IDE faces use (kernel, language server, debug adapter,
visualizer, VS Code extension).

Everything here takes and returns plain data (dicts, lists, strings, NumPy arrays) or Spore's
user-facing objects, so a face never reaches into `_`-names, a Cell's `__dict__`, the tracer or the
tape, and the engine can change inside without breaking them. `tests/ide/test_seam.py` scans the
faces' imports and fails on any other engine import. Importing this module is cheap and loads
neither NumPy nor the engine; each function loads what it needs when called.

- graphs: `compile_graph`, `graph_json`, `is_graph`
- Graph-mode support table: `support_rules`, `support_rule`, `check`, `compile_time_builtins`,
  `impure_builtins`
- op catalogue: `op_catalogue`, `op`, `describe`, `lookup`, `is_spore_api`
- API index (the language server's names, signatures, docs, source lines): `api_index`, `api_names`,
  `shape_rules`, `context_options`
- errors: `error_dict`, and the error classes faces catch (`SporeError`, `GraphCompileError`, ...)
- sources: `engine_paths`, `is_engine_file`, `user_traceback`
- static shapes: `layer_output`, `op_output`, `method_output` over `Abstract` tensors (`Sym` dims)
- running: `observe_ops`, `add_observer`, `remove_observer`, `is_busy`, `random_state`,
  `set_random_state`, `clone_cell`, `graph_runner`, `tensor_origin`
- debugging: `set_breakpoint_probe`, `breakpoint_probe`, `covered_lines` (breakpoints inside
  compiled code), `NonFiniteError` (the NaN/Inf guard's error)
"""

from __future__ import annotations

from typing import Any

from ..errors import (
    DTypeError,
    GradError,
    GraphBreakWarning,
    GraphCompileError,
    GraphFallbackWarning,
    GraphRecompileWarning,
    NonFiniteError,
    ShapeError,
    SourceLoc,
    SporeError,
    ValueDependentShapeError,
)
from .api_index import api_index, api_names, context_options, shape_rules
from .catalogue import describe, is_spore_api, lookup, op, op_catalogue
from .debugging import breakpoint_probe, covered_lines, set_breakpoint_probe
from .graphs import compile_graph, graph_json, is_graph
from .rules import check, compile_time_builtins, impure_builtins, support_rule, support_rules
from .runtime import (
    add_observer,
    clone_cell,
    graph_runner,
    is_busy,
    observe_ops,
    random_state,
    remove_observer,
    set_random_state,
    tensor_origin,
)
from .shapes import Abstract, Sym, layer_output, method_output, op_output
from .sources import engine_paths, is_engine_file, user_traceback


def error_dict(err: BaseException) -> dict[str, Any]:
    """Any exception as plain data: a Spore error's structured fields (`SporeError.to_dict`), else
    its type and message."""
    if isinstance(err, SporeError):
        return err.to_dict()
    return {"type": type(err).__name__, "reason": str(err), "hint": None, "file": None, "line": None,
            "col": None, "end_col": None}


__all__ = [
    "DTypeError", "GradError", "GraphBreakWarning", "GraphCompileError", "GraphFallbackWarning",
    "GraphRecompileWarning", "NonFiniteError", "ShapeError", "SourceLoc", "SporeError", "ValueDependentShapeError",
    "add_observer", "check", "clone_cell", "compile_graph", "describe", "engine_paths", "error_dict",
    "graph_json", "graph_runner", "is_busy", "is_engine_file", "is_graph", "is_spore_api", "lookup",
    "observe_ops", "op", "op_catalogue", "random_state", "remove_observer", "set_random_state",
    "support_rule", "support_rules", "compile_time_builtins", "impure_builtins", "tensor_origin",
    "user_traceback",
    "api_index", "api_names", "context_options", "shape_rules",
    "Abstract", "Sym", "layer_output", "method_output", "op_output",
    "breakpoint_probe", "covered_lines", "set_breakpoint_probe",
]
