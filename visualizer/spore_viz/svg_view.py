"""Static SVG of a graph: the layout of `place`, every scope expanded, styled by the same sheet as the page.

The markup (classes, nesting, `transform="translate(x,y)"` on each box) is the same the inline JS
builds, so one stylesheet serves both and tests can compare the two box by box.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from .model import Item, Model, build_model
from .order import Level, build_levels
from .place import Geometry, Route, _n, default_expanded, path_d, place, routes

ASSETS = Path(__file__).with_name("assets")

_CATS = (("cf", ("If", "While", "For", "Switch", "Case")),
         ("conv", ("Conv",)), ("dense", ("MatMul", "Dense", "BatchMatMul", "Linear")),
         ("norm", ("Norm",)), ("pool", ("Pool",)),
         ("act", ("ReLU", "Sigmoid", "Tanh", "GeLU", "Gelu", "Softmax", "SiLU", "Exp", "Log", "Elu")),
         ("shape", ("Reshape", "Transpose", "Flatten", "Concat", "Split", "Slice", "Gather", "Squeeze",
                    "ExpandDims", "Broadcast", "Cast", "Stack", "Tile")),
         ("reduce", ("Reduce", "Mean", "ArgMax", "ArgMin")),
         ("fused", ("Fused",)))


def category(op: str) -> str:
    """Colour family of an op: a glance tells convolutions from reshapes in a 5,000-node graph."""
    for cat, keys in _CATS:
        if any(k in op for k in keys):
            return cat
    return "other"


def _t(s: str) -> str:
    return escape(s, {'"': "&quot;"})


def _title(it: Item) -> str:
    parts = [it.label]
    if it.path:
        parts.append(it.path)
    if it.fused:
        parts.append("fused: " + " + ".join(it.fused))
    loc = (it.node or {}).get("loc")
    if loc:
        parts.append(f"{os.path.basename(str(loc.get('file')))}:{loc.get('line')}")
    return "<title>" + _t(" · ".join(parts)) + "</title>"


def leaf_markup(it: Item, x: float, y: float, w: float, h: float, collapsed: bool) -> str:
    """One box: op / pseudo node / collapsed container (mirrored by `leaf()` in viewer.js)."""
    tr = f' data-i="{it.idx}" transform="translate({_n(x)},{_n(y)})"'
    cx = _n(w / 2)
    if it.kind == "op":
        cls = f"node op cat-{category(it.label)}" + (" fused" if it.fused else "") + (" cf" if it.children else "")
        out = [f'<g class="{cls}"{tr}><rect class="body" width="{_n(w)}" height="{_n(h)}" rx="5"/>',
               f'<rect class="stripe" width="4" height="{_n(h)}" rx="2"/>',
               f'<text class="lbl" x="{cx}" y="15">{_t(it.label)}</text>',
               f'<text class="sub" x="{cx}" y="29">{_t(it.sub)}</text>']
        if it.fused:
            out.append(f'<text class="fz" x="{cx}" y="43">{_t("+".join(it.fused))}</text>')
            out.append(f'<g class="badge" transform="translate({_n(w - 16)},-8)"><rect width="30" height="15" rx="7"/>'
                       f'<text x="15" y="11">×{len(it.fused)}</text></g>')
        if it.children:
            out.append(f'<g class="tog" transform="translate({_n(w - 22)},4)"><rect width="18" height="16" rx="3"/>'
                       f'<text x="9" y="12">+{len(it.children)}</text></g>')
        out.append(_title(it) + "</g>")
        return "".join(out)
    if collapsed:
        return (f'<g class="scope collapsed"{tr}>'
                f'<rect class="stack" x="4" y="4" width="{_n(w)}" height="{_n(h)}" rx="6"/>'
                f'<rect class="body" width="{_n(w)}" height="{_n(h)}" rx="6"/>'
                f'<text class="lbl" x="{cx}" y="17">▸ {_t(it.label)}</text>'
                f'<text class="sub" x="{cx}" y="31">{it.n_ops} ops</text>{_title(it)}</g>')
    return (f'<g class="io {it.kind}"{tr}><rect class="body" width="{_n(w)}" height="{_n(h)}" rx="{_n(h / 2)}"/>'
            f'<text class="lbl" x="{cx}" y="13">{_t(it.label)}</text>'
            f'<text class="sub" x="{cx}" y="25">{_t(it.sub)}</text>{_title(it)}</g>')


def box_markup(it: Item, x: float, y: float, w: float, h: float) -> str:
    """An expanded container: translucent rectangle and a header that collapses it (mirrored in viewer.js)."""
    if it.kind == "op":
        cls, head = f"node op cf open cat-{category(it.label)}", f"▾ {it.label}  ({it.sub})"
    else:
        cls, head = f"{'branch' if it.kind == 'graph' else 'scope'} open d{it.depth % 4}", f"▾ {it.label}"
    return (f'<g class="{cls}" data-i="{it.idx}" transform="translate({_n(x)},{_n(y)})">'
            f'<rect class="box" width="{_n(w)}" height="{_n(h)}" rx="8"/>'
            f'<text class="hdr" x="10" y="16">{_t(head)}</text>{_title(it)}</g>')


def edge_markup(r: Route) -> tuple[str, str]:
    """(path, label) for one route; the label sits halfway along the segment leaving the source.

    Near the source, because all edges of one output carry the same text: they overlap into one label
    instead of crowding the inputs of the consumer.
    """
    (x0, y0), (x1, y1) = r.points[0], r.points[1]
    text = r.label + (f" ×{r.count}" if r.count > 1 else "")
    path = f'<path class="edge" data-s="{r.src}" data-t="{r.dst}" d="{path_d(r.points)}"/>'
    label = f'<text class="elabel" x="{_n((x0 + x1) / 2 + 5)}" y="{_n((y0 + y1) / 2 + 3)}">{_t(text)}</text>'
    return path, label


def scene_markup(m: Model, levels: dict[int, Level], hops: list[list[tuple[int, int]]], g: Geometry) -> str:
    """Boxes, then edges, then labels and leaves on top: the z-order both renderers use."""
    boxes, leaves = [], []
    for it in m.items:
        i = it.idx
        if i == 0 or not g.visible[i]:
            continue
        if i in levels and g.expanded[i]:
            boxes.append(box_markup(it, g.x[i], g.y[i], g.w[i], g.h[i]))
        else:
            leaves.append(leaf_markup(it, g.x[i], g.y[i], g.w[i], g.h[i], i in levels))
    paths, labels = [], []
    labelled = set()
    for r in routes(m, levels, hops, g):
        p, lab = edge_markup(r)
        paths.append(p)
        key = (r.src, lab[lab.index(">") + 1:])
        # one label per value leaving a box; none from parameters, whose pill already shows the shape
        if key not in labelled and m.items[r.src].kind != "param":
            labelled.add(key)
            labels.append(lab)
    return (f'<g class="boxes">{"".join(boxes)}</g><g class="edges">{"".join(paths)}</g>'
            f'<g class="elabels">{"".join(labels)}</g><g class="leaves">{"".join(leaves)}</g>')


MARKER = ('<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
          'orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" class="arrowhead"/></marker></defs>')


def render_svg(graph: Any, out_path: str | os.PathLike | None = None, *, expand: str = "all") -> str:
    """A standalone SVG document of `graph` (a spore.graph/1 dict, JSON path or spore Graph).

    `expand="all"` opens every scope and control-flow branch (a static picture cannot be clicked);
    `expand="default"` uses the page's initial outline, which keeps 5,000-node graphs legible.
    """
    m = build_model(graph, read_sources=False)
    levels, hops = build_levels(m)
    if expand == "all":
        exp = [i in levels for i in range(len(m.items))]
    elif expand == "default":
        exp = default_expanded(m, levels)
    else:
        raise ValueError(f"render_svg: expand must be 'all' or 'default', got {expand!r}")
    g = place(m, levels, exp)
    w, h = _n(g.w[0]), _n(g.h[0])
    css = (ASSETS / "graph.css").read_text("utf-8")
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" class="spore-graph" width="{w}" height="{h}" '
           f'viewBox="0 0 {w} {h}"><title>{_t(m.name)}</title><style>{css}</style>{MARKER}'
           f'<rect class="bg" width="{w}" height="{h}"/>{scene_markup(m, levels, hops, g)}</svg>\n')
    if out_path is not None:
        Path(out_path).write_text(svg, encoding="utf-8")
    return svg
