"""spore_viz: views of Spore graphs and tensors.

- `render_html(graph, out_path=None)`: one self-contained interactive page (layered layout, Cell
  scopes as collapsible boxes, fused-op badges, control-flow branches, search, details with source)
  under a strict nonce'd Content-Security-Policy.
- `view_payload(graph)`: what the viewer (`assets/viewer.js`, `mount(root, payload, hooks)`) takes;
  the page, the VS Code notebook renderer and the Show Graph webview all mount the same viewer.
- `embed_sources(graph)`: the graph with the text of its located lines (exporter side), so viewers
  never read files a graph names. `build_model(..., sources_root=DIR)` reads lines only from files
  under DIR, symlinks resolved.
- `render_svg(graph, out_path=None)`: the same layout as a static SVG.
- `render_png(graph, out_path)`: the same layout drawn with matplotlib (for reports without a browser).
- `iframe(graph)`: the page wrapped in an isolated <iframe srcdoc> (notebook outputs, other HTML hosts).
- `spore_viz.plots`: matplotlib tensor and training views (heatmap, histogram, channel grid, curves).

`python -m spore_viz capture FILE --line N` (`capture.py`) runs a program until the construct under
the cursor is first called and prints its graph's payload (the VS Code "Spore: Show Graph" command).

A graph file is untrusted input: every value reaches the page as text (never parsed as markup).

`graph` is a "spore.graph/1" dict (`spore.compiler.printer.graph_to_json`), a path to the JSON
that `set_context(save_graphs=True)` writes, or a compiled spore `Graph`.
"""

from .html_view import iframe, render_html, view_payload
from .model import SCHEMA, build_model, embed_sources, load_graph
from .svg_view import render_svg


def render_png(graph, out_path, **kw):
    """PNG of the graph layout (matplotlib; imported lazily so the HTML/SVG views never need it)."""
    from .png_view import render_png as _render_png

    return _render_png(graph, out_path, **kw)


__all__ = ["SCHEMA", "build_model", "embed_sources", "iframe", "load_graph", "render_html", "render_png", "render_svg",
           "view_payload"]
