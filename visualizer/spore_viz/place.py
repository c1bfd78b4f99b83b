"""Coordinates for a given expand/collapse state, and the edge routes between visible boxes.

This is the size-dependent half of the layout. `assets/viewer.js` implements the same arithmetic
(same loops, same order of float operations, integral snapping) so the interactive page and the
static SVG draw the same picture; tests/visualizer compare the two positions box by box. Change one,
change the other.

Per container: y comes from the layers (each as tall as its tallest box), x from a few alternating
sweeps that pull every box toward the mean x of its neighbours in the previous layer, solved exactly
per layer under the keep-order/no-overlap constraints by weighted isotonic regression
(pool-adjacent-violators) — O(layer) per sweep, so the whole placement is O(V + E) per pass.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .model import LABEL_CH, Model
from .order import Level

PAD = 14
HEADER = 24
HGAP = 28
DGAP = 10
VGAP = 48
PORT_GAP = 24
DUMMY_W = 8
PASSES = 3
WEAK = ("param", "input", "outer")  # sources placed after their consumers

CONSTANTS = {"PAD": PAD, "HEADER": HEADER, "HGAP": HGAP, "DGAP": DGAP, "VGAP": VGAP, "PORT_GAP": PORT_GAP,
             "DUMMY_W": DUMMY_W, "PASSES": PASSES, "LABEL_CH": LABEL_CH,
             "WEAK": list(WEAK)}


@dataclass
class Geometry:
    """Placed boxes: top-left corners (absolute) and sizes of every visible item."""

    expanded: list[bool]
    visible: list[bool]
    x: list[float]
    y: list[float]
    w: list[float]
    h: list[float]
    # per expanded container: local centre x of every local id, layer tops and heights
    cx: dict[int, list[float]] = field(default_factory=dict)
    tops: dict[int, list[float]] = field(default_factory=dict)
    heights: dict[int, list[float]] = field(default_factory=dict)


def default_expanded(m: Model, levels: dict[int, Level], budget: int = 150) -> list[bool]:
    """Open the tree one depth at a time, a whole depth or none, while at most `budget` boxes show.

    Large graphs therefore open on an even outline (every top-level Cell a box), small ones fully.
    """
    exp = [False] * len(m.items)
    exp[0] = True
    visible = len(m.items[0].children)
    frontier = [c for c in m.items[0].children if c in levels]
    while frontier:
        grow = sum(len(m.items[c].children) - 1 for c in frontier)
        if visible + grow > budget:
            break
        visible += grow
        nxt = []
        for c in frontier:
            exp[c] = True
            nxt.extend(k for k in m.items[c].children if k in levels)
        frontier = nxt
    return exp


def place(m: Model, levels: dict[int, Level], expanded: list[bool]) -> Geometry:
    """Sizes bottom-up (an expanded container is as big as its placed children), positions top-down."""
    n = len(m.items)
    W = [float(it.w) for it in m.items]
    H = [float(it.h) for it in m.items]
    visible = [False] * n
    pre = []  # visible expanded containers, parents first
    stack = [0]
    visible[0] = True
    while stack:
        c = stack.pop()
        if c in levels and expanded[c]:
            pre.append(c)
            for k in reversed(m.items[c].children):
                visible[k] = True
                stack.append(k)
    g = Geometry(list(expanded), visible, [0.0] * n, [0.0] * n, W, H)
    weak = [it.kind in WEAK for it in m.items]
    for c in reversed(pre):
        min_w = 0 if c == 0 else len(m.items[c].label) * LABEL_CH + 48
        W[c], H[c] = place_level(levels[c], W, H, 0 if c == 0 else HEADER, min_w, g, c, weak)
    for c in pre:
        lv = levels[c]
        for i, k in enumerate(lv.children):
            g.x[k] = g.x[c] + g.cx[c][i] - W[k] / 2
            g.y[k] = g.y[c] + g.tops[c][lv.layer_of[i]]
    return g


def place_level(lv: Level, W: list[float], H: list[float], header: int, min_w: float, g: Geometry,
                c: int, weak: list[bool]) -> tuple[float, float]:
    nc = len(lv.children)
    size = lv.size
    w = [W[lv.children[i]] if i < nc else DUMMY_W for i in range(size)]
    h = [H[lv.children[i]] if i < nc else 0.0 for i in range(size)]
    wk = [i < nc and weak[lv.children[i]] for i in range(size)]  # params follow their consumer, never lead it
    preds: list[list[int]] = [[] for _ in range(size)]
    succs: list[list[int]] = [[] for _ in range(size)]
    for a, b, chain in lv.ledges:
        prev = a
        for v in [*chain, b]:
            if not wk[prev]:
                preds[v].append(prev)
            succs[prev].append(v)
            prev = v
    x = [0.0] * size
    for layer in lv.layers:
        s = 0.0
        for k, v in enumerate(layer):
            if k > 0:
                s += w[layer[k - 1]] / 2 + _gap(layer[k - 1], v, nc) + w[v] / 2
            x[v] = s
    for _ in range(PASSES):
        for li in range(1, len(lv.layers)):
            _align(lv.layers[li], preds, x, w, nc, wk)
        for li in range(len(lv.layers) - 2, -1, -1):
            _align(lv.layers[li], succs, x, w, nc, wk)
    left = math.inf
    for v in range(size):
        left = min(left, x[v] - w[v] / 2)
    right = 0.0
    for v in range(size):
        x[v] = math.floor(x[v] - left + 0.5) + PAD
        right = max(right, x[v] + w[v] / 2)
    heights = []
    for layer in lv.layers:
        hl = 0.0
        for v in layer:
            hl = max(hl, h[v])
        heights.append(hl)
    tops = []
    y = float(header + PAD)
    for li in range(len(heights)):
        if li > 0:  # a layer of only ports and dummies (height 0) needs less room around it
            y += heights[li - 1] + (VGAP if heights[li - 1] > 0 and heights[li] > 0 else PORT_GAP)
        tops.append(y)
    g.cx[c], g.tops[c], g.heights[c] = x, tops, heights
    height = y + heights[-1] + PAD if lv.layers else float(header + 2 * PAD)
    return float(max(_even(right + PAD), _even(min_w))), height  # even: child centres stay integral


def _even(v: float) -> int:
    n = math.ceil(v)
    return n + (n & 1)


def _gap(a: int, b: int, nc: int) -> float:
    return HGAP if a < nc and b < nc else DGAP


def _align(layer: list[int], nbrs: list[list[int]], x: list[float], w: list[float], nc: int, wk: list[bool]) -> None:
    """Move `layer` toward its neighbours' mean x, keeping order and gaps (pool adjacent violators)."""
    offs = []
    bsum: list[float] = []
    bw: list[float] = []
    bn: list[int] = []
    s = 0.0
    for k, v in enumerate(layer):
        if k > 0:
            s += w[layer[k - 1]] / 2 + _gap(layer[k - 1], v, nc) + w[v] / 2
        offs.append(s)
        nb = nbrs[v]
        if nb:
            # a box follows the boxes it connects to, not the dummies of edges passing by: else
            # every skip connection would nudge the chain sideways and long graphs drift diagonally
            t, cnt = 0.0, 0
            if v < nc:
                for u in nb:
                    if u < nc:
                        t += x[u]
                        cnt += 1
            if cnt == 0:
                for u in nb:
                    t += x[u]
                    cnt += 1
            d = t / cnt
            q = 0.001 if wk[v] else cnt * (0.02 if v >= nc else 1.0)
        else:
            d = x[v]
            q = 0.05
        bsum.append((d - s) * q)
        bw.append(q)
        bn.append(1)
        while len(bsum) > 1 and bsum[-2] / bw[-2] > bsum[-1] / bw[-1]:
            bsum[-2] += bsum[-1]
            bw[-2] += bw[-1]
            bn[-2] += bn[-1]
            bsum.pop()
            bw.pop()
            bn.pop()
    k = 0
    for j in range(len(bsum)):
        z = bsum[j] / bw[j]
        for _ in range(bn[j]):
            x[layer[k]] = z + offs[k]
            k += 1


@dataclass
class Route:
    """A visible edge: the boxes it joins (after collapsing), its polyline and label."""

    src: int
    dst: int
    points: list[tuple[float, float]]
    label: str
    count: int = 1


def representatives(m: Model, g: Geometry) -> list[int]:
    """The visible box standing for each item: itself, or its outermost collapsed ancestor."""
    rep = list(range(len(m.items)))
    for it in m.items:  # parents precede children
        p = it.parent
        if p >= 0 and (rep[p] != p or not g.expanded[p]):
            rep[it.idx] = rep[p]
    return rep


def routes(m: Model, levels: dict[int, Level], hops: list[list[tuple[int, int]]], g: Geometry) -> list[Route]:
    """One route per distinct pair of visible boxes (parallel edges fold into a count).

    A route walks the edge's hops whose container is open: out through the ports of the
    containers around its source, along the dummy chain of its LCA hop, in through the ports of
    the containers around its target. An edge closing a cycle has one (reversed) hop, drawn upward.
    """
    rep = representatives(m, g)
    seen: dict[tuple[int, int], Route] = {}
    out = []
    for e, path in zip(m.edges, hops, strict=True):
        a, b = rep[e.src], rep[e.dst]
        if not path or a == b:
            continue
        r = seen.get((a, b))
        if r is not None:
            r.count += 1
            continue
        rev = len(path) == 1 and levels[path[0][0]].rev[path[0][1]]
        pts = [(g.x[a] + g.w[a] / 2, g.y[a] + (0 if rev else g.h[a]))]
        for c, li in path:
            if g.visible[c] and g.expanded[c]:
                pts += _hop_points(levels[c], li, c, g, rev)
        pts.append((g.x[b] + g.w[b] / 2, g.y[b] + (g.h[b] if rev else 0)))
        r = Route(a, b, pts, e.label)
        seen[(a, b)] = r
        out.append(r)
    return out


def _hop_points(lv: Level, li: int, c: int, g: Geometry, rev: bool) -> list[tuple[float, float]]:
    """Points of one hop in container `c`: port exits/entries run straight to the container's border."""
    a, b, chain = lv.ledges[li]
    nc = len(lv.children)
    pts: list[tuple[float, float]] = []
    if a >= nc:  # in-port: enter through the top border, down the port's slot in the first layer
        px = g.x[c] + g.cx[c][a]
        pts += [(px, g.y[c]), (px, g.y[c] + g.tops[c][0] + g.heights[c][0])]
    for d in (reversed(chain) if rev else chain):
        dx = g.x[c] + g.cx[c][d]
        top = g.y[c] + g.tops[c][lv.layer_of[d]]
        bot = top + g.heights[c][lv.layer_of[d]]
        pts += [(dx, bot), (dx, top)] if rev else [(dx, top), (dx, bot)]
    if b >= nc:  # out-port: from its slot in the last layer, out through the bottom border
        px = g.x[c] + g.cx[c][b]
        pts += [(px, g.y[c] + g.tops[c][lv.layer_of[b]]), (px, g.y[c] + g.h[c])]
    return pts


def path_d(pts: list[tuple[float, float]]) -> str:
    """SVG path: cubic segments with vertical tangents (their midpoint lies halfway, where labels go)."""
    d = [f"M{_n(pts[0][0])},{_n(pts[0][1])}"]
    for (x0, y0), (x1, y1) in zip(pts, pts[1:], strict=False):
        if x0 == x1:
            d.append(f"L{_n(x1)},{_n(y1)}")
        else:
            ym = (y0 + y1) / 2
            d.append(f"C{_n(x0)},{_n(ym)} {_n(x1)},{_n(ym)} {_n(x1)},{_n(y1)}")
    return "".join(d)


def _n(v: float) -> str:
    """Number text identical to the JS side: integers bare, otherwise one decimal."""
    r = math.floor(v * 10 + 0.5) / 10
    return str(int(r)) if r == int(r) else f"{r:.1f}"
