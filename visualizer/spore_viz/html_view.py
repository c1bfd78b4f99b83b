"""The interactive page: one self-contained HTML file (inline CSS, JS and data; nothing fetched).

Python does the size-independent layout (layers and order per container, `order.py`) and ships it
with the items as the *view payload* (`view_payload`); the viewer (`assets/viewer.js`, an ES module
whose `mount()` the page, the VS Code notebook renderer and the Show Graph webview all call) places
boxes for the current expand/collapse state, so opening a scope re-lays the page out in milliseconds
without a server. The page sets a strict Content-Security-Policy: the graph file is untrusted data.
"""

from __future__ import annotations

import html
import json
import os
import re
import secrets
from pathlib import Path
from typing import Any

from .model import SCHEMA, Model, build_model
from .order import Level, build_levels
from .place import CONSTANTS, default_expanded
from .svg_view import ASSETS, category

NONCE_RE = re.compile(r"[A-Za-z0-9+/=_-]{8,128}")

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


VIEW_KIND = "spore.view/1"  # what a payload says it is, so hosts can tell it from a raw graph


def view_payload(graph: Any, *, budget: int = DEFAULT_BUDGET, expand: str = "default",
                 read_sources: bool = True, sources_root: str | os.PathLike | None = None) -> dict:
    """What `assets/viewer.js`'s `mount()` takes, for any host (page, notebook renderer, webview).

    `expand="default"` opens the scope tree a depth at a time while at most `budget` boxes show
    (5,000-node graphs open on their outline); `"all"` opens everything. Source lines: see `build_model`.
    A document of the right schema but the wrong shape is a ValueError naming what broke.
    """
    if expand not in ("default", "all"):
        raise ValueError(f"spore_viz: expand must be 'default' or 'all', got {expand!r}")
    try:
        m = build_model(graph, read_sources, sources_root=sources_root)
        levels, hops = build_levels(m)
    except (KeyError, TypeError, AttributeError, IndexError) as err:
        raise ValueError(f"spore_viz: malformed {SCHEMA} document ({type(err).__name__}: {err})") from None
    exp = [i in levels for i in range(len(m.items))] if expand == "all" else default_expanded(m, levels, budget)
    return {"kind": VIEW_KIND, **payload(m, levels, hops, exp)}


def _script_json(data: Any) -> str:
    """JSON safe inside a <script> element: no '<' can start '</script>' or a comment."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def csp(nonce: str) -> str:
    """The page's Content-Security-Policy: nothing loads, only the nonce'd inline style and script run."""
    return f"default-src 'none'; style-src 'nonce-{nonce}'; script-src 'nonce-{nonce}'; img-src data:"


def render_html(graph: Any, out_path: str | os.PathLike | None = None, *, budget: int = DEFAULT_BUDGET,
                expand: str = "default", nonce: str | None = None,
                sources_root: str | os.PathLike | None = None) -> str:
    """The interactive page for `graph` (a spore.graph/1 dict, a JSON path or text, or a spore Graph).

    The page carries a strict CSP (`csp()`), and its one <style> and <script> carry `nonce` (a fresh
    random one unless given, e.g. by a host that sets its own policy). Returns the HTML; writes it if asked.
    """
    data = view_payload(graph, budget=budget, expand=expand, sources_root=sources_root)
    nonce = nonce if nonce is not None else secrets.token_urlsafe(18)
    if not NONCE_RE.fullmatch(nonce):
        raise ValueError("render_html: nonce must be 8-128 characters of [A-Za-z0-9+/=_-]")
    page = (ASSETS / "viewer.html").read_text("utf-8") % {
        "csp": csp(nonce),
        "nonce": nonce,
        "title": html.escape(str(data["name"])),
        "graph_css": (ASSETS / "graph.css").read_text("utf-8"),
        "viewer_css": (ASSETS / "viewer.css").read_text("utf-8"),
        "data": _script_json(data),
        "viewer_js": (ASSETS / "viewer.js").read_text("utf-8"),
        "page_js": (ASSETS / "page.js").read_text("utf-8"),
    }
    if out_path is not None:
        Path(out_path).write_text(page, encoding="utf-8")
    return page


def iframe(graph: Any, height: int = 640, **kw: Any) -> str:
    """The page inside a sandboxed <iframe srcdoc>: how a notebook output or any HTML host embeds it in
    isolation (scripts run, but in an opaque origin: no access to the host page, its cookies or storage)."""
    page = render_html(graph, **kw)
    return (f'<iframe srcdoc="{html.escape(page, quote=True)}" style="width:100%;height:{int(height)}px;border:0" '
            'sandbox="allow-scripts"></iframe>')
