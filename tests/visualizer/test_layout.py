"""The layered layout: layers and order per container (`order`), coordinates and routes (`place`)."""

from __future__ import annotations

import time

from spore_viz.model import build_model
from spore_viz.order import build_levels
from spore_viz.place import default_expanded, place, routes

from .graphs import synthetic


def _layout(graph: dict, expand_all: bool = True):
    m = build_model(graph, read_sources=False)
    levels, hops = build_levels(m)
    exp = [i in levels for i in range(len(m.items))] if expand_all else default_expanded(m, levels)
    return m, levels, hops, place(m, levels, exp)


def _assert_boxes_disjoint_and_nested(m, levels, g) -> None:
    """Within each open container: boxes of a layer do not overlap, layers do not overlap, all inside the box."""
    for c, lv in levels.items():
        if not (g.visible[c] and g.expanded[c]):
            continue
        rows: dict[int, list[int]] = {}
        for i, k in enumerate(lv.children):
            rows.setdefault(lv.layer_of[i], []).append(k)
            assert g.x[c] <= g.x[k] and g.x[k] + g.w[k] <= g.x[c] + g.w[c], (m.items[k].label, "sticks out of", c)
            assert g.y[c] <= g.y[k] and g.y[k] + g.h[k] <= g.y[c] + g.h[c]
        bands = []
        for li, row in sorted(rows.items()):
            row.sort(key=lambda k: g.x[k])
            for a, b in zip(row, row[1:]):
                assert g.x[a] + g.w[a] < g.x[b], f"{m.items[a].label} overlaps {m.items[b].label} in layer {li}"
            bands.append((min(g.y[k] for k in row), max(g.y[k] + g.h[k] for k in row)))
        for (_, bottom), (top, _) in zip(bands, bands[1:]):
            assert bottom < top


def test_flat_dag_boxes_do_not_overlap_and_every_edge_runs_downward():
    m, levels, hops, g = _layout(synthetic(4, 100, scoped=False))
    _assert_boxes_disjoint_and_nested(m, levels, g)
    lv = levels[0]
    local = {k: i for i, k in enumerate(lv.children)}
    assert not any(lv.rev)
    for e in m.edges:
        assert lv.layer_of[local[e.src]] < lv.layer_of[local[e.dst]]
        assert g.y[e.src] + g.h[e.src] < g.y[e.dst]
    for r in routes(m, levels, hops, g):
        ys = [y for _, y in r.points]
        assert ys == sorted(ys), f"route {m.items[r.src].label} -> {m.items[r.dst].label} goes up"


def test_scoped_dag_routes_run_downward_through_ports_and_boxes_nest():
    m, levels, hops, g = _layout(synthetic(3, 60, scoped=True))
    _assert_boxes_disjoint_and_nested(m, levels, g)
    rs = routes(m, levels, hops, g)
    assert len(rs) == len({(e.src, e.dst) for e in m.edges})
    for r in rs:
        ys = [y for _, y in r.points]
        assert ys == sorted(ys)
    # an edge into a nested scope enters through its top border: a point on that border
    e = next(e for e in m.edges if m.items[e.dst].path.endswith("layer1") and m.items[e.src].path.endswith("layer0"))
    scope = m.items[e.dst].parent
    r = next(r for r in rs if (r.src, r.dst) == (e.src, e.dst))
    assert any(y == g.y[scope] for _, y in r.points)


def test_real_graph_layout_is_disjoint_and_every_edge_runs_downward(resmlp_after):
    m, levels, hops, g = _layout(resmlp_after)
    _assert_boxes_disjoint_and_nested(m, levels, g)
    # every op carries its Cell's scope (the root's own If too), so the scoped graph is acyclic
    assert sum(sum(lv.rev) for lv in levels.values()) == 0
    rs = routes(m, levels, hops, g)
    assert not [r for r in rs if r.points[-1][1] < r.points[0][1]]


def test_collapsed_scopes_fold_their_edges_into_one_route_with_a_count():
    m, levels, hops, _ = _layout(synthetic(2, 50))
    exp = [i in levels and m.items[i].kind != "scope" for i in range(len(m.items))]
    exp[next(it.idx for it in m.items if it.path == "Net")] = True
    g = place(m, levels, exp)
    rs = routes(m, levels, hops, g)
    blocks = {it.idx for it in m.items if it.kind == "scope" and it.path.count(".") == 1}
    assert all(g.visible[b] and not g.expanded[b] for b in blocks)
    between = [r for r in rs if r.src in blocks and r.dst in blocks]
    assert len(between) == 1 and between[0].count >= 1


def test_default_outline_of_5000_nodes_shows_whole_levels_within_budget(big_graph):
    m, levels, hops, g = _layout(big_graph, expand_all=False)
    shown = [i for i in range(1, len(m.items)) if g.visible[i] and not (i in levels and g.expanded[i])]
    assert 1 < len(shown) <= 150
    blocks = [it.idx for it in m.items if it.kind == "scope" and it.path.count(".") == 1]
    assert len(blocks) == 50 and all(g.visible[b] and not g.expanded[b] for b in blocks)


def test_5000_node_layout_completes_with_bounded_dummies(big_graph):
    t0 = time.perf_counter()
    m, levels, hops, g = _layout(big_graph)
    elapsed = time.perf_counter() - t0
    assert m.op_count == 5000
    dummies = sum(lv.n_dummy for lv in levels.values())
    assert dummies <= 2 * len(m.edges)  # O(E), not O(E * span)
    _assert_boxes_disjoint_and_nested(m, levels, g)
    print(f"\nlayout of 5,000 nodes (model + order + place, all open): {elapsed * 1000:.0f} ms")
