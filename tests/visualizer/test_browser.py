"""The page in a real browser: the inline JS runs, builds the graph, and draws what Python draws.

Headless Chromium loads the file and dumps the DOM after the scripts ran. A syntax or runtime error
in the viewer leaves the canvas empty, so the node count catches it; comparing every box position
and edge path with the Python SVG pins `viewer.js` to `place.py`/`svg_view.py`, its mirror.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from spore_viz import build_model, render_html, render_svg

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1400,900",
         "--enable-logging=stderr", "--v=0"]
BOX = re.compile(r'<g class="([^"]*)" data-i="(\d+)" transform="([^"]*)"')
EDGE = re.compile(r'<path class="edge[^"]*" data-s="(\d+)" data-t="(\d+)" d="([^"]*)"')


def _dump_dom(page: Path, fragment: str = "") -> str:
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: the viewer's browser test needs Debian's chromium "
                    "(apt-get install -y chromium; `make` installs it)")
    proc = subprocess.run([CHROMIUM, *FLAGS, "--dump-dom", page.resolve().as_uri() + fragment],
                          capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0, proc.stderr[-2000:]
    errors = [ln for ln in proc.stderr.splitlines() if "CONSOLE" in ln and ("Uncaught" in ln or "Error" in ln)]
    assert not errors, "\n".join(errors)
    return proc.stdout


def _boxes(markup: str) -> dict[str, tuple[str, str]]:
    return {i: (cls, tr) for cls, i, tr in BOX.findall(markup)}


def _edges(markup: str) -> dict[tuple[str, str], str]:
    return {(s, t): d for s, t, d in EDGE.findall(markup)}


def test_viewer_builds_every_op_of_the_real_graph_where_python_places_it(resmlp_paths, resmlp_after, tmp_path):
    page = tmp_path / "resmlp.html"
    render_html(resmlp_paths[1], page)
    dom = _dump_dom(page, "#expand=all")
    nodes = [cls for cls, _ in _boxes(dom).values() if "node" in cls.split()]
    assert len(nodes) == build_model(resmlp_after).op_count
    assert 'class="lbl" x=' in dom and ">FusedDense<" in dom
    svg = render_svg(resmlp_after)  # everything open, like #expand=all
    assert _boxes(dom) == _boxes(svg)
    assert _edges(dom) == _edges(svg)


def test_viewer_opens_5000_nodes_on_the_outline_python_computes(big_graph, big_html, tmp_path):
    page = tmp_path / "big.html"
    page.write_text(big_html, encoding="utf-8")
    dom = _dump_dom(page)
    svg = render_svg(big_graph, expand="default")
    boxes = _boxes(dom)
    assert sum("collapsed" in cls for cls, _ in boxes.values()) == 50
    assert boxes == _boxes(svg)
    assert _edges(dom) == _edges(svg)
    shown = re.search(r'data-rendered="(\d+)"', dom)
    assert shown and int(shown.group(1)) == len([b for b in boxes.values() if "open" not in b[0]])


PROBE = """<script type="module" nonce="probe-nonce-1">
(function () {
  const out = {}, svg = document.querySelector(".sv-canvas");
  const click = function (el) { el.dispatchEvent(new MouseEvent("click", {bubbles: true})); };
  out.before = +svg.getAttribute("data-rendered");
  click(document.querySelector("g.scope.collapsed"));            // expand a collapsed Cell (a block) ...
  click(document.querySelector("g.scope.collapsed"));            // ... and the first of its layers
  out.expanded = +svg.getAttribute("data-rendered");
  click(document.querySelector("g.node .body"));                 // select an op
  out.details = document.querySelector(".sv-details").textContent;
  click(document.querySelector("g.scope.open .hdr"));            // collapse via its header
  out.collapsed = +svg.getAttribute("data-rendered");
  const input = document.querySelector(".sv-search");
  input.value = "batchnorm";
  input.dispatchEvent(new Event("input"));
  setTimeout(function () {
    out.results = document.querySelectorAll(".sv-results li[data-r]").length;
    out.hits = document.querySelectorAll(".hit").length;
    document.body.insertAdjacentHTML("beforeend", "<pre id='probe'>" + JSON.stringify(out) + "</pre>");
  }, 400);
})();
</script>"""


def test_clicks_expand_collapse_and_select_and_search_highlights(big_graph, tmp_path):
    page = tmp_path / "probe.html"
    html = render_html(big_graph, nonce="probe-nonce-1")  # the probe runs under the page's CSP with its nonce
    i = html.rindex("</body>")
    page.write_text(html[:i] + PROBE + html[i:], encoding="utf-8")
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing (apt-get install -y chromium)")
    proc = subprocess.run([CHROMIUM, *FLAGS, "--virtual-time-budget=3000", "--dump-dom", page.resolve().as_uri()],
                          capture_output=True, text=True, timeout=90)
    m = re.search(r"<pre id=\"probe\">(.*?)</pre>", proc.stdout)
    assert m, proc.stderr[-2000:]
    out = json.loads(m.group(1).replace("&quot;", '"'))
    assert out["expanded"] > out["before"]          # a block opened into its layers
    assert "scope" in out["details"] and "synthetic.py:" in out["details"]
    assert out["collapsed"] < out["expanded"]
    assert out["results"] > 0 and out["hits"] > 0  # matches listed and their boxes highlighted


def test_screenshot_of_the_real_graph_shows_its_nodes(resmlp_paths, tmp_path):
    """A real screenshot: the page paints fused nodes (amber badges/borders) and dense stripes (violet)."""
    from PIL import Image

    page = tmp_path / "graph.html"
    render_html(str(resmlp_paths[1]), str(page))
    shot = tmp_path / "shot.png"
    proc = subprocess.run([CHROMIUM, *FLAGS, f"--screenshot={shot}", page.resolve().as_uri() + "#expand=all"],
                          capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0 and shot.exists(), proc.stderr[-2000:]
    import numpy as np

    img = Image.open(shot).convert("RGB")
    assert img.size == (1400, 900)
    pixels = [tuple(p) for p in np.asarray(img).reshape(-1, 3).tolist()]
    amber = sum(1 for p in pixels if p == (0xF5, 0x9E, 0x0B))   # fused-node badges and borders
    violet = sum(1 for p in pixels if p == (0x7C, 0x3A, 0xED))  # the stripe of dense (MatMul) nodes
    background = sum(1 for p in pixels if p == (0xFA, 0xFB, 0xFC))
    assert amber > 100 and violet > 100, f"nodes not visible: amber={amber} violet={violet}"
    assert background < len(pixels), "the page is not blank"
