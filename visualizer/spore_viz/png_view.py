"""PNG of a graph, drawn with matplotlib from the same layout as the SVG and the page.

For reports, CI artifacts and anywhere a browser is not at hand. Boxes and edges go into a few
collections (one artist each, so thousands of nodes stay cheap); text is drawn only while it
would still be legible.
"""

from __future__ import annotations

import os
from typing import Any

from .model import build_model
from .order import build_levels
from .place import default_expanded, place, routes

MAX_SIDE_PX = 16000   # matplotlib/Agg limit is 2**16; this keeps files small too
TEXT_LIMIT = 2500     # beyond this many visible boxes labels would be unreadable anyway


def render_png(graph: Any, out_path: str | os.PathLike, *, expand: str = "auto", dpi: int = 100) -> Any:
    """Write a PNG of `graph`; returns the matplotlib Figure.

    `expand="auto"` opens everything up to 600 ops and the page's outline beyond; "all"/"default" force it.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # no pyplot: the user's backend stays as it is
    from matplotlib.collections import LineCollection, PatchCollection
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyBboxPatch, PathPatch
    from matplotlib.path import Path as MPath

    m = build_model(graph, read_sources=False)
    levels, hops = build_levels(m)
    if expand == "auto":
        expand = "all" if m.op_count <= 600 else "default"
    exp = [i in levels for i in range(len(m.items))] if expand == "all" else default_expanded(m, levels)
    g = place(m, levels, exp)
    W, H = g.w[0], g.h[0]
    scale = min(1.0, MAX_SIDE_PX / max(W, H))
    fig = Figure(figsize=(max(W * scale, 200) / dpi, max(H * scale, 200) / dpi), dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, W)
    ax.set_ylim(H, 0)
    ax.axis("off")
    fill = {"op": "#ffffff", "input": "#dcfce7", "param": "#fef9c3", "output": "#fee2e2", "outer": "#f1f5f9"}
    groups, leaves, leaf_colors, leaf_strokes = [], [], [], []
    shown = []
    for it in m.items[1:]:
        i = it.idx
        if not g.visible[i]:
            continue
        box = FancyBboxPatch((g.x[i], g.y[i]), g.w[i], g.h[i], boxstyle="round,pad=0,rounding_size=5")
        if i in levels and exp[i]:
            groups.append(box)
        else:
            leaves.append(box)
            leaf_colors.append("#eef2ff" if i in levels and it.kind != "op" else
                               ("#fffbeb" if it.fused else fill.get(it.kind, "#ffffff")))
            leaf_strokes.append("#f59e0b" if it.fused else "#6b7280")
            shown.append(i)
    ax.add_collection(PatchCollection(groups, facecolor=(0.39, 0.40, 0.95, 0.06), edgecolor=(0.39, 0.40, 0.95, 0.5),
                                      linewidth=0.8))
    paths = []
    rs = routes(m, levels, hops, g)
    for r in rs:
        verts, codes = [r.points[0]], [MPath.MOVETO]
        for (x0, y0), (x1, y1) in zip(r.points, r.points[1:], strict=False):
            ym = (y0 + y1) / 2
            verts += [(x0, ym), (x1, ym), (x1, y1)]
            codes += [MPath.CURVE4] * 3
        paths.append(MPath(verts, codes))
    for p in paths:
        ax.add_patch(PathPatch(p, facecolor="none", edgecolor="#8b93a7", linewidth=0.8))
    arrows = [[(g.x[r.dst] + g.w[r.dst] / 2 - 3, r.points[-1][1] - 5), r.points[-1],
               (g.x[r.dst] + g.w[r.dst] / 2 + 3, r.points[-1][1] - 5)] for r in rs
              if r.points[-1][1] > r.points[-2][1]]
    ax.add_collection(LineCollection(arrows, colors="#8b93a7", linewidths=0.8))
    ax.add_collection(PatchCollection(leaves, facecolor=leaf_colors, edgecolor=leaf_strokes, linewidth=0.8))
    if len(shown) <= TEXT_LIMIT:
        fs = 7.5 * scale * 100 / dpi
        for i in shown:
            it = m.items[i]
            label = f"▸ {it.label}" if i in levels and it.kind != "op" else it.label
            ax.text(g.x[i] + g.w[i] / 2, g.y[i] + 13, label, ha="center", va="center", fontsize=fs,
                    fontweight="bold")
            sub = f"{it.n_ops} ops" if i in levels and it.kind != "op" else it.sub
            ax.text(g.x[i] + g.w[i] / 2, g.y[i] + 26, sub, ha="center", va="center", fontsize=fs * 0.85,
                    color="#4b5563")
        for it in m.items[1:]:
            if g.visible[it.idx] and it.idx in levels and exp[it.idx]:
                ax.text(g.x[it.idx] + 8, g.y[it.idx] + 14, f"▾ {it.label}", fontsize=fs * 0.9, color="#3730a3",
                        va="center")
    fig.savefig(out_path, dpi=dpi, facecolor="#fafbfc")
    return fig
