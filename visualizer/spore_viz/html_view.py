"""The interactive page: one self-contained HTML file (inline CSS, JS and data; nothing fetched).

Python does the size-independent layout (layers and order per container, `order.py`) and ships it
with the items; the inline viewer (`assets/viewer.js`) places boxes for the current expand/collapse
state, so opening a scope re-lays the page out in milliseconds without a server. Self-contained
because the page must work from a file, inside a VS Code webview, and in a notebook iframe alike.
"""

from __future__ import annotations

import html
import json
import os
from pathlib import Path
from typing import Any

from .model import Model, build_model
from .order import Level, build_levels
from .place import CONSTANTS, default_expanded
from .svg_view import ASSETS, MARKER, category

DEFAULT_BUDGET = 150  # boxes visible on open: the outline of large graphs, everything of small ones


def payload(m: Model, levels: dict[int, Level], hops: list[list[tuple[int, int]]], expanded: list[bool]) -> dict:
    """The compact data the viewer needs: items as rows, interned edge labels, per-container skeletons."""
    label_ids: dict[str, int] = {}
    edges = []
    for e, path in zip(m.edges, hops, strict=True):
        lab = label_ids.setdefault(e.label, len(label_ids))
        edges.append([e.src, e.dst, lab, [x for hop in path for x in hop]])
    items = [[it.kind, it.label, it.parent, it.sub, it.w, it.h, it.n_ops, it.path,
              category(it.label) if it.kind == "op" else "", it.fused or 0] for it in m.items]
    details = {str(it.idx): it.node for it in m.items if it.node is not None}
    lvl = {str(c): [lv.n_port + lv.n_dummy, lv.layers, [[a, b, ch] for a, b, ch in lv.ledges], [int(r) for r in lv.rev]]
           for c, lv in levels.items()}
    sources = {f: {str(k): v for k, v in lines.items()} for f, lines in m.sources.items() if lines}
    return {"name": m.name, "C": CONSTANTS, "nOps": m.op_count, "items": items, "details": details, "levels": lvl,
            "labels": list(label_ids), "edges": edges, "expanded": [i for i, x in enumerate(expanded) if x],
            "sources": sources}


def _script_json(data: Any) -> str:
    """JSON safe inside a <script> element: no '<' can start '</script>' or a comment."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def render_html(graph: Any, out_path: str | os.PathLike | None = None, *, budget: int = DEFAULT_BUDGET,
                expand: str = "default", nonce: str | None = None) -> str:
    """The interactive page for `graph` (a spore.graph/1 dict, a JSON path or text, or a spore Graph).

    `expand="default"` opens the scope tree a depth at a time while at most `budget` boxes show
    (5,000-node graphs open on their outline); `"all"` opens everything. `nonce` is stamped on the
    inline <style>/<script> for pages shown under a Content-Security-Policy (VS Code webviews).
    Returns the HTML; writes it if asked.
    """
    m = build_model(graph)
    levels, hops = build_levels(m)
    if expand == "all":
        exp = [i in levels for i in range(len(m.items))]
    elif expand == "default":
        exp = default_expanded(m, levels, budget)
    else:
        raise ValueError(f"render_html: expand must be 'default' or 'all', got {expand!r}")
    page = (ASSETS / "viewer.html").read_text("utf-8") % {
        "title": html.escape(m.name),
        "graph_css": (ASSETS / "graph.css").read_text("utf-8"),
        "viewer_css": (ASSETS / "viewer.css").read_text("utf-8"),
        "marker": MARKER,
        "data": _script_json(payload(m, levels, hops, exp)),
        "viewer_js": (ASSETS / "viewer.js").read_text("utf-8"),
    }
    if nonce is not None:
        attr = f' nonce="{html.escape(nonce)}"'
        page = page.replace("<style>", f"<style{attr}>", 1).replace("<script>", f"<script{attr}>", 1)
    if out_path is not None:
        Path(out_path).write_text(page, encoding="utf-8")
    return page


def iframe(graph: Any, height: int = 640, **kw: Any) -> str:
    """The page inside an <iframe srcdoc>: how a notebook output or any HTML host embeds it in isolation."""
    page = render_html(graph, **kw)
    return (f'<iframe srcdoc="{html.escape(page, quote=True)}" style="width:100%;height:{int(height)}px;border:0" '
            'sandbox="allow-scripts"></iframe>')
