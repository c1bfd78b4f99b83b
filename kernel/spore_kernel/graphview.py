"""`%spore_graph`: compile a Cell (or jitted function) for one input and show the graph.

The compile goes through the same `JitFunction.compile` that Graph mode uses, but the compiled
graph is only shown, never run: looking at a training step's graph must not take a training step.
The display carries the IR text (always), the graph JSON for IDE renderers, and — when the
`spore_viz` package is importable — its interactive page, isolated in an iframe so its styles and
scripts cannot touch the notebook's.
"""

from __future__ import annotations

import html
import logging
from typing import Any

log = logging.getLogger("spore_kernel")

MIME_GRAPH = "application/vnd.spore.graph+json"


def compile_graph(target: Any, args: tuple, kwargs: dict | None = None, raw: bool = False) -> Any:
    """The optimized (or, with raw, the traced) IR graph of `target` for these inputs."""
    from spore.compiler.jit import JitFunction, flatten
    from spore.errors import GraphCompileError, raise_at_user_line
    from spore.nn import Cell

    kwargs = kwargs or {}
    if isinstance(target, Cell):
        jf = JitFunction(type(target).construct, self_obj=target, fullgraph=True,
                         name=f"{type(target).__name__}.construct")
    elif isinstance(target, JitFunction):
        jf = target
    elif callable(target):
        jf = JitFunction(target, fullgraph=True)
    else:
        raise TypeError(f"%spore_graph: expected a Cell or a function, got {type(target).__name__}")
    leaves, _ = flatten((args, kwargs))
    try:
        entry = jf.compile(args, kwargs, leaves)
    except GraphCompileError as err:
        raise_at_user_line(err)
        raise
    return entry.raw if raw else entry.graph


def _viz() -> Any:
    try:
        import spore_viz
    except ImportError:
        return None
    return spore_viz


def graph_bundle(graph: Any) -> dict[str, Any]:
    """text/plain IR, the graph JSON, and spore_viz's page when available."""
    from spore.compiler.printer import format_graph, graph_to_json

    data = graph_to_json(graph)
    out: dict[str, Any] = {"text/plain": format_graph(graph), MIME_GRAPH: data}
    viz = _viz()
    if viz is not None:
        try:
            page = viz.render_html(data)
            out["text/html"] = (f"<iframe srcdoc=\"{html.escape(page, quote=True)}\" "
                                f"style='width:100%;height:520px;border:1px solid #ddd' "
                                f"title='graph {html.escape(data['name'])}'></iframe>")
        except Exception:  # noqa: BLE001 - the IR text is still shown
            log.warning("spore_viz.render_html failed; showing the IR text", exc_info=True)
    return out
