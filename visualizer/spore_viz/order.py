"""Layers and in-layer order for every container: the size-independent half of the layered layout.

A container's children keep their layers and order whether a sibling scope is a 40-px collapsed box
or a 2,000-px expanded one, so this (the costly part: cycle breaking, layering, crossing reduction)
runs once in Python; only coordinates depend on sizes, and `place` (mirrored by the inline JS on
every expand/collapse) recomputes those cheaply.

An edge between two leaves is laid out at the innermost container holding both ends (its "LCA
hop"), between the two children containing them. Inside the containers it leaves and enters it is
routed too, through ports: an out-port on the container's bottom layer, an in-port on its top layer,
so it goes around the boxes inside instead of through them (the way ELK and TensorBoard route
hierarchical edges). Every edge thus has O(scope depth) hops, and the whole pass is
O((V + E * depth) log V).
"""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass, field

from .model import Model

MAX_SPAN = 24   # edges spanning more layers get no dummy chain (drawn directly): bounds dummies at O(E)
SWEEPS = 4      # barycenter sweeps (down + up); more rarely pays at these sizes


@dataclass
class Level:
    """Layout skeleton of one container. Local ids: children (0..nc-1), then ports, then dummies."""

    children: list[int]
    n_port: int = 0
    n_dummy: int = 0
    layers: list[list[int]] = field(default_factory=list)
    layer_of: list[int] = field(default_factory=list)
    # (upper, lower, dummy chain from upper to lower) in local ids; `rev` marks edges drawn bottom-up
    ledges: list[tuple[int, int, list[int]]] = field(default_factory=list)
    rev: list[bool] = field(default_factory=list)
    in_ports: set[int] = field(default_factory=set)
    pairs: dict[tuple[int, int], int] = field(default_factory=dict)
    ports: dict[tuple[str, int], int] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return len(self.children) + self.n_port + self.n_dummy

    def pair(self, a: int, b: int) -> int:
        return self.pairs.setdefault((a, b), len(self.pairs))

    def port(self, kind: str, src: int) -> int:
        """The in- or out-port of this container for values of leaf `src` (shared by all their edges)."""
        key = (kind, src)
        if key not in self.ports:
            self.ports[key] = len(self.children) + len(self.ports)
            if kind == "in":
                self.in_ports.add(self.ports[key])
        return self.ports[key]


def chain_to(m: Model, leaf: int, top: int) -> list[int]:
    """[leaf, parent, ..., child of `top`]: the containers an edge crosses on its way to `top`."""
    out = [leaf]
    while m.items[out[-1]].parent != top:
        out.append(m.items[out[-1]].parent)
    return out


def lca(m: Model, a: int, b: int) -> int:
    """Innermost container holding both; -1 if one holds the other (no edge to draw)."""
    items = m.items
    x, y = a, b
    while items[x].depth > items[y].depth:
        x = items[x].parent
    while items[y].depth > items[x].depth:
        y = items[y].parent
    if x == y:
        return -1
    while items[x].parent != items[y].parent:
        x, y = items[x].parent, items[y].parent
    return items[x].parent


def global_depths(m: Model) -> tuple[list[int], list[int]]:
    """(min, max) longest-path depth of the leaves below each item, over the whole leaf graph.

    Items are created in topological order (sources just before their first consumer), so one pass
    in index order is a longest-path layering; pure sources are then pulled down next to their
    first consumer. Containers use these spans to stack children that only connect through the
    outside (a Cell's `head`, fed by an `If` outside the Cell, still goes below `block2`).
    """
    n = len(m.items)
    preds: list[list[int]] = [[] for _ in range(n)]
    succs: list[list[int]] = [[] for _ in range(n)]
    for e in m.edges:
        if e.src < e.dst:
            preds[e.dst].append(e.src)
            succs[e.src].append(e.dst)
    gd = [0] * n
    for v in range(n):
        for u in preds[v]:
            gd[v] = max(gd[v], gd[u] + 1)
    for v in range(n - 1, -1, -1):
        if not preds[v] and succs[v]:
            gd[v] = min(gd[s] for s in succs[v]) - 1
    lo, hi = list(gd), list(gd)
    for it in reversed(m.items):
        if it.children:
            lo[it.idx] = min(lo[k] for k in it.children)
            hi[it.idx] = max(hi[k] for k in it.children)
    return lo, hi


def build_levels(m: Model) -> tuple[dict[int, Level], list[list[tuple[int, int]]]]:
    """Levels per container, and for each model edge its hops: (container, lifted-edge index), in path order.

    Containers are laid out parents first: an edge gets ports below its LCA only if it runs
    downward there (edges closing a cycle between scopes are drawn upward, directly).
    """
    levels = {it.idx: Level(list(it.children)) for it in m.items if it.children}
    local = {c: i for lv in levels.values() for i, c in enumerate(lv.children)}
    at_lca: dict[int, list[int]] = {}
    hops: list[list[tuple[int, int]]] = []
    for k, e in enumerate(m.edges):
        c = lca(m, e.src, e.dst)
        hops.append([])
        if c < 0:
            continue
        at_lca.setdefault(c, []).append(k)
        su, sv = chain_to(m, e.src, c), chain_to(m, e.dst, c)
        hops[k].append((c, levels[c].pair(local[su[-1]], local[sv[-1]])))
    lo, hi = global_depths(m)
    for c in sorted(levels):
        lv = levels[c]
        # branches of a control-flow op stand side by side: their depths are not comparable
        spans = None if m.items[c].kind == "op" else ([lo[k] for k in lv.children], [hi[k] for k in lv.children])
        _layout_level(lv, spans, [bool(m.items[k].children) for k in lv.children])
        for k in at_lca.get(c, []):
            if lv.rev[hops[k][0][1]]:
                continue
            e = m.edges[k]
            su, sv = chain_to(m, e.src, c), chain_to(m, e.dst, c)
            out = [(x, levels[x].pair(local[inner], levels[x].port("out", e.src))) for inner, x in zip(su, su[1:])]
            into = [(y, levels[y].pair(levels[y].port("in", e.src), local[inner])) for inner, y in zip(sv, sv[1:])]
            hops[k] = out + hops[k] + into[::-1]
    return levels, hops


def _layout_level(lv: Level, spans: tuple[list[int], list[int]] | None, boxes: list[bool]) -> None:
    nc, n = len(lv.children), len(lv.children) + len(lv.ports)
    lv.n_port = n - nc
    pairs = list(lv.pairs)
    lo, hi = spans if spans is not None else ([0] * nc, [0] * nc)
    rank = _rank(nc, [(a, b) for a, b in pairs if a < nc and b < nc], lo)
    rev = [a < nc and b < nc and rank[a] > rank[b] for a, b in pairs]
    oriented = [(b, a) if r else (a, b) for (a, b), r in zip(pairs, rev, strict=True)]
    preds: list[list[int]] = [[] for _ in range(n)]
    succs: list[list[int]] = [[] for _ in range(n)]
    for a, b in oriented:
        preds[b].append(a)
        succs[a].append(b)
    by_rank = sorted(range(nc), key=rank.__getitem__)
    layer = [0] * n
    # Longest path from the sources (in-ports are layer 0), plus "a sibling whose leaves all come
    # before mine is above me": a prefix maximum of layers keyed by where each sibling's leaves
    # end (Fenwick tree), O(n log n).
    keys = sorted(set(hi))
    tree = [-1] * (len(keys) + 1)
    for v in by_rank:
        for u in preds[v]:
            layer[v] = max(layer[v], layer[u] + 1)
        if spans is not None:
            j = bisect.bisect_left(keys, lo[v])
            while j > 0:
                layer[v] = max(layer[v], tree[j] + 1)
                j -= j & -j
            j = bisect.bisect_left(keys, hi[v]) + 1
            while j <= len(keys):
                tree[j] = max(tree[j], layer[v])
                j += j & -j
    for v in reversed(by_rank):  # leaf sources sit just above their first consumer (inputs, params)
        inner = [s for s in succs[v] if s < nc]
        if not preds[v] and inner and not boxes[v]:
            layer[v] = min(layer[s] for s in inner) - 1
    bottom = max(layer[:nc], default=0)
    for p in range(nc, n):
        if p not in lv.in_ports:
            bottom = max(bottom, max(layer[u] + 1 for u in preds[p]))
    for p in range(nc, n):
        layer[p] = 0 if p in lv.in_ports else bottom
    n_layers = max(layer, default=-1) + 1
    layers: list[list[int]] = [[] for _ in range(n_layers)]
    for v in [*by_rank, *range(nc, n)]:  # ports last: the border they enter by is clear of the header
        layers[layer[v]].append(v)
    layer_of = list(layer)
    ledges = []
    for a, b in oriented:
        chain = []
        if 1 < layer[b] - layer[a] <= MAX_SPAN:
            for li in range(layer[a] + 1, layer[b]):
                d = len(layer_of)
                layer_of.append(li)
                layers[li].append(d)
                chain.append(d)
        ledges.append((a, b, chain))
    lv.n_dummy = len(layer_of) - n
    lv.layers, lv.layer_of, lv.ledges, lv.rev = layers, layer_of, ledges, rev
    _reduce_crossings(lv)


def _rank(n: int, pairs: list[tuple[int, int]], lo: list[int]) -> list[int]:
    """A topological order preferring early leaves, then creation order; on a cycle the earliest remaining goes next.

    Children are created in the graph's (topological) node order, so for a DAG of leaves this is
    that order; cycles only appear between scopes (a Cell called twice, re-entered scopes) and the
    edges that close them are drawn upwards.
    """
    indeg = [0] * n
    succs: list[list[int]] = [[] for _ in range(n)]
    for a, b in pairs:
        succs[a].append(b)
        indeg[b] += 1
    ready = [(lo[v], v) for v in range(n) if indeg[v] == 0]
    heapq.heapify(ready)
    rank = [-1] * n
    nxt, scan = 0, 0
    while nxt < n:
        if ready:
            v = heapq.heappop(ready)[1]
            if rank[v] >= 0:
                continue
        else:
            while rank[scan] >= 0:
                scan += 1
            v = scan
        rank[v] = nxt
        nxt += 1
        for s in succs[v]:
            indeg[s] -= 1
            if indeg[s] == 0 and rank[s] < 0:
                heapq.heappush(ready, (lo[s], s))
    return rank


def _reduce_crossings(lv: Level) -> None:
    """Barycenter heuristic, alternating sweep direction, keeping the order with the fewest crossings."""
    size = lv.size
    up: list[list[int]] = [[] for _ in range(size)]
    down: list[list[int]] = [[] for _ in range(size)]
    for a, b, chain in lv.ledges:
        seq = [a, *chain, b]
        for u, v in zip(seq, seq[1:], strict=False):
            up[v].append(u)
            down[u].append(v)
    pos = [0] * size
    for layer in lv.layers:
        for i, v in enumerate(layer):
            pos[v] = i
    best, best_layers = _crossings(lv, down, pos), [list(layer) for layer in lv.layers]
    for sweep in range(2 * SWEEPS):
        if best == 0:
            break
        downward = sweep % 2 == 0
        idxs = range(1, len(lv.layers)) if downward else range(len(lv.layers) - 2, -1, -1)
        nbrs = up if downward else down
        for li in idxs:
            layer = lv.layers[li]
            keys = {}
            for v in layer:
                nb = nbrs[v]
                keys[v] = (sum(pos[u] for u in nb) / len(nb)) if nb else float(pos[v])
            layer.sort(key=lambda v: (keys[v], pos[v]))
            for i, v in enumerate(layer):
                pos[v] = i
        count = _crossings(lv, down, pos)
        if count < best:
            best, best_layers = count, [list(layer) for layer in lv.layers]
    lv.layers = best_layers


def _crossings(lv: Level, down: list[list[int]], pos: list[int]) -> int:
    """Edge crossings between adjacent layers: inversions of lower positions, counted with a Fenwick tree."""
    total = 0
    for li in range(len(lv.layers) - 1):
        width = len(lv.layers[li + 1])
        ends = sorted((pos[u], pos[v]) for u in lv.layers[li] for v in down[u] if lv.layer_of[v] == li + 1)
        tree = [0] * (width + 1)
        seen = 0
        for _, p in ends:
            j = p + 1  # crossings = earlier edges ending strictly right of p
            less_eq = 0
            while j > 0:
                less_eq += tree[j]
                j -= j & -j
            total += seen - less_eq
            j = p + 1
            while j <= width:
                tree[j] += 1
                j += j & -j
            seen += 1
    return total
