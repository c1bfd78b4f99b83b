"""`%spore_graph`: compile a Cell (or jitted function) for one input and show the graph.

The compile goes through `spore.ide.compile_graph` (the same path Graph mode uses), and the
compiled graph is only shown, never run: looking at a training step's graph must not take a training step.
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


def compile_graph(target: Any, args: tuple, kwargs: dict | None = None, raw: bool = False) -> dict[str, Any]:
    """The optimized (or, with raw, the traced) graph of `target` for these inputs: its JSON and IR."""
    from spore import ide

    return ide.compile_graph(target, args, kwargs, raw=raw)


def _viz() -> Any:
    try:
        import spore_viz
    except ImportError:
        return None
    return spore_viz


def graph_bundle(compiled: dict[str, Any]) -> dict[str, Any]:
    """text/plain IR, the graph JSON, and spore_viz's page when available."""
    data = compiled["graph"]
    out: dict[str, Any] = {"text/plain": compiled["ir"], MIME_GRAPH: data}
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
