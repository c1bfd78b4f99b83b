"""The interactive page is one self-contained file; the SVG is well-formed with one box per op."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from spore_viz import build_model, iframe, render_html, render_svg

SVG = "{http://www.w3.org/2000/svg}"
EMPTY = {"schema": "spore.graph/1", "name": "empty", "inputs": [], "params": [], "nodes": [], "edges": [],
         "outputs": []}


def _payload(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="spore-data">(.*?)</script>', page, re.S)
    assert m, "no embedded graph data"
    return json.loads(m.group(1))


def test_page_is_self_contained(resmlp_paths, tmp_path):
    out = tmp_path / "g.html"
    page = render_html(resmlp_paths[1], out)
    assert out.read_text("utf-8") == page
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.I)
    assert not re.search(r"<link\b|<script[^>]*\bsrc=|@import|url\(\s*['\"]?https?:", page, re.I)
    assert '<script type="module" nonce=' in page and "function place()" in page  # the viewer is inline


def test_page_carries_ops_scopes_fused_members_and_source_locations(resmlp_paths, resmlp_after):
    page = render_html(resmlp_paths[1], sources_root=Path(__file__).parent)  # graphs.py, where the net is
    data = _payload(page)
    labels = {row[1] for row in data["items"]}
    assert {"FusedDense", "FusedElementwise", "If", "Exp", "ReduceSum"} <= labels
    scopes = {row[7] for row in data["items"] if row[0] == "scope"}
    assert {"ResMLP.block1.fc1", "ResMLP.block2", "ResMLP.head"} <= scopes
    assert ["MatMul", "Add", "ReLU"] in [row[9] for row in data["items"]]
    locs = [d["loc"] for d in data["details"].values() if d.get("loc")]
    assert locs and all(loc["file"].endswith("graphs.py") for loc in locs)
    (lines,) = data["sources"].values()
    line = str(next(d["loc"]["line"] for d in data["details"].values() if d["op"] == "FusedElementwise"))
    assert "F.relu(self.fc2(self.fc1(x)) * 0.5 + x)" in lines[line]
    assert data["nOps"] == build_model(resmlp_after).op_count


def test_script_data_cannot_close_its_script_element():
    graph = {"schema": "spore.graph/1", "name": "</script><b>x", "inputs": [], "params": [], "outputs": [],
             "edges": [], "nodes": [{"id": "n0", "op": "Op</script>", "inputs": [], "outputs": ["%1"],
                                     "shapes": [[1]], "dtypes": ["float32"], "attrs": {}, "scope": "", "loc": None,
                                     "fused": []}]}
    page = render_html(graph)
    assert page.count("</script>") == 2  # the data block and the viewer, nothing injected
    assert _payload(page)["items"][1][1] == "Op</script>"


def test_svg_parses_with_one_node_group_per_op_and_translucent_scope_boxes(resmlp_paths, resmlp_after, tmp_path):
    out = tmp_path / "g.svg"
    svg = render_svg(resmlp_after, out)
    assert out.read_text("utf-8") == svg
    root = ET.fromstring(svg)
    groups = list(root.iter(f"{SVG}g"))
    nodes = [g for g in groups if "node" in g.get("class", "").split()]
    assert len(nodes) == build_model(resmlp_after).op_count
    scopes = [g for g in groups if "scope" in g.get("class", "").split()]
    assert len(scopes) == sum(1 for it in build_model(resmlp_after).items if it.kind == "scope")
    labels = [t.text for g in nodes for t in g.iter(f"{SVG}text") if t.get("class") == "lbl"]
    assert "FusedDense" in labels and "Exp" in labels
    assert root.find(f".//{SVG}marker[@id='arrow']") is not None
    assert len([p for p in root.iter(f"{SVG}path") if p.get("class") == "edge"]) > len(nodes)
    assert "rgba(" in svg and "marker-end: url(#arrow)" in svg  # translucent boxes, arrowheads


def test_svg_of_the_default_outline_shows_collapsed_scopes(big_graph):
    root = ET.fromstring(render_svg(big_graph, expand="default"))
    collapsed = [g for g in root.iter(f"{SVG}g") if g.get("class", "").startswith("scope collapsed")]
    assert len(collapsed) == 50


def test_5000_node_graph_renders_to_reasonably_sized_files(big_graph, big_html):
    page = big_html
    svg = render_svg(big_graph)
    assert len(page) < 4_000_000  # ~0.4 kB a node, data and viewer included
    assert len(svg) < 6_000_000
    assert ET.fromstring(svg) is not None
    print(f"\n5,000 nodes: html {len(page) / 1e6:.1f} MB, svg {len(svg) / 1e6:.1f} MB")


def test_nonce_is_stamped_on_the_inline_style_and_script_for_csp_hosts():
    page = render_html(EMPTY, nonce="abc123xyz")
    assert '<style nonce="abc123xyz">' in page and '<script type="module" nonce="abc123xyz">' in page
    assert "<script>" not in page
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page).group(1)
    assert csp == "default-src 'none'; style-src 'nonce-abc123xyz'; script-src 'nonce-abc123xyz'; img-src data:"


def test_every_page_gets_a_fresh_nonce_and_a_bad_nonce_is_refused():
    import pytest

    nonces = {re.search(r"script-src 'nonce-([^']+)'", render_html(EMPTY)).group(1) for _ in range(3)}
    assert len(nonces) == 3 and all(len(n) >= 16 for n in nonces)
    with pytest.raises(ValueError, match="nonce"):
        render_html(EMPTY, nonce="x' 'unsafe-inline")


def test_iframe_embeds_the_escaped_page_in_isolation():
    frame = iframe(EMPTY, height=300)
    assert frame.startswith("<iframe srcdoc=") and 'sandbox="allow-scripts"' in frame and "300px" in frame
    assert "<script" not in frame  # all of it escaped inside the attribute


def test_degenerate_graphs_render_empty_graph_and_branch_returning_a_captured_value():
    branchy = {"schema": "spore.graph/1", "name": "b", "inputs": [{"id": "%0", "shape": [2], "dtype": "float32",
                                                                    "name": "x"}],
               "params": [], "outputs": ["%5"],
               "edges": [{"from": "input:%0", "to": "n0", "var": "%0", "shape": [2], "dtype": "float32"}],
               "nodes": [{"id": "n0", "op": "If", "inputs": ["%0"], "outputs": ["%5"], "shapes": [[2]],
                          "dtypes": ["float32"], "attrs": {}, "scope": "", "loc": None, "fused": [],
                          "subgraphs": {"then": {**EMPTY, "name": "then", "outputs": ["%0"]},
                                        "else": {**EMPTY, "name": "else", "outputs": ["%0"]}}}]}
    for g in (EMPTY, branchy):
        assert ET.fromstring(render_svg(g)) is not None
        assert _payload(render_html(g))["name"] == g["name"]
    m = build_model(branchy)
    kinds = [m.items[k].kind for k in m.items[next(it.idx for it in m.items if it.label == "then")].children]
    assert kinds == ["outer", "output"]


def test_png_of_a_5000_node_graph_draws_its_outline(big_graph, tmp_path):
    from spore_viz import render_png

    fig = render_png(big_graph, tmp_path / "big.png")
    assert (tmp_path / "big.png").read_bytes()[:4] == b"\x89PNG"
    assert max(fig.get_size_inches() * fig.dpi) <= 16000
