"""A graph JSON is untrusted input: the viewer shows every value in it as text, runs none of it, sets a
strict CSP, and never reads files the JSON names (issue 15, "Graph viewer").

The hostile document puts markup and script in every field the viewer shows (names, scope paths, op
names, loc.file/line/col, attrs, fused members, shapes, dtypes); the page is opened in headless
Chromium on `#select=n0`, so the details panel with the location is built too. A control page shows
the same payload does run when written with innerHTML and no CSP, so the checks can fail.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from spore_viz import build_model, render_html, view_payload

from .chromium import console_errors, dump_dom

RUN = "window.__pwned=1;document.documentElement.setAttribute('data-pwned','1')"
IMG = f'"><img src=x onerror="{RUN}">'
SCRIPT = "</script><script>window.__pwned=2;document.documentElement.setAttribute('data-pwned','2')</script>"
SVG = "<svg onload=\"window.__pwned=3\"><a href=\"javascript:window.__pwned=4\">x</a></svg>"
BAD = [IMG, SCRIPT, SVG]


def hostile_graph() -> dict:
    x = "".join(BAD)
    node = {"id": "n0", "op": "Op" + IMG, "inputs": ["%0" + SCRIPT], "outputs": ["%1" + IMG], "shapes": [[2, IMG]],
            "dtypes": ["float32" + SVG], "scope": "Net" + IMG + ".blk" + SCRIPT,
            "attrs": {"k" + IMG: "v" + SCRIPT, "nested": {"a": [IMG]}},
            "loc": {"file": "/tmp/" + IMG + ".py", "line": IMG, "col": IMG, "end_col": SCRIPT}, "fused": [IMG, SCRIPT]}
    node2 = {**node, "id": "n1", "op": "Add" + SVG, "inputs": ["%1" + IMG], "outputs": ["%2"], "shapes": [[2]],
             "dtypes": ["float32"], "loc": {"file": "/tmp/a" + SCRIPT + ".py", "line": 3, "col": 4}}
    return {"schema": "spore.graph/1", "name": "g" + x,
            "inputs": [{"id": "%0" + SCRIPT, "name": "x" + IMG, "shape": [2], "dtype": "float32"}],
            "params": [{"id": "p" + IMG, "name": "w" + SVG, "shape": [2], "dtype": "float32"}],
            "nodes": [node, node2], "outputs": ["%2"],
            "edges": [{"from": "input:%0" + SCRIPT, "to": "n0", "var": "%0" + SCRIPT, "shape": [2], "dtype": "float32"},
                      {"from": "param:p" + IMG, "to": "n0", "var": "p" + IMG, "shape": [2], "dtype": "float32"},
                      {"from": "n0", "to": "n1", "var": "%1" + IMG, "shape": [2, IMG], "dtype": "float32" + SVG}],
            "sources": {"/tmp/a" + SCRIPT + ".py": {"3": "    y = x" + IMG + SCRIPT}}}


PROBE = """<script type="module" nonce="hostile-nonce">
const r = document.querySelector(".spore-graph-view");
const out = {pwned: window.__pwned === undefined ? null : window.__pwned,
  injected: document.querySelectorAll("img, iframe, object, embed, a, foreignObject, svg svg").length,
  scripts: document.scripts.length, details: document.querySelector(".sv-details").textContent,
  labels: [...r.querySelectorAll("text.lbl")].map(function (t) { return t.textContent; }),
  where: (document.querySelector(".sv-details .where") || {}).textContent || "",
  nodeIds: [...r.querySelectorAll("[data-node-id]")].map(function (g) { return g.getAttribute("data-node-id"); })};
setTimeout(function () {  // after the image error events would have fired
  out.pwnedLater = window.__pwned === undefined ? null : window.__pwned;
  const pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
}, 300);
</script>"""


def _page(tmp_path: Path, strip_csp: bool = False) -> Path:
    page = render_html(hostile_graph(), nonce="hostile-nonce")
    if strip_csp:  # defence in depth: the escaping alone must hold
        page, n = re.subn(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
        assert n == 1
    i = page.rindex("</body>")
    path = tmp_path / ("nocsp.html" if strip_csp else "hostile.html")
    path.write_text(page[:i] + PROBE + page[i:], encoding="utf-8")
    return path


def _probe(dom: str) -> dict:
    m = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert m, dom[-3000:]
    return json.loads(m.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))


def _assert_inert(dom: str, out: dict) -> None:
    assert not re.search(r"<html[^>]*data-pwned", dom)  # the attribute the payloads would set
    assert out["pwned"] is None and out["pwnedLater"] is None
    assert out["injected"] == 0
    assert out["scripts"] == 3  # the JSON block, the viewer, the probe: nothing injected
    assert "<img" not in dom and "<iframe" not in dom  # in the dump, markup from the data exists only as text
    # the hostile strings did reach the page, as text
    assert IMG in out["details"] and SCRIPT in out["details"]
    assert "Op" + IMG in out["labels"]
    assert out["where"] == IMG + ".py:" + IMG  # loc.file's base name and the (non-numeric) line, as text
    assert "n0" in out["nodeIds"]


def test_hostile_graph_json_renders_as_text_and_runs_nothing(tmp_path):
    page = _page(tmp_path)
    dom, err = dump_dom(page, "#select=n0", budget_ms=2000)
    assert not console_errors(err), console_errors(err)
    out = _probe(dom)
    _assert_inert(dom, out)
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', dom)
    assert csp and csp.group(1).startswith("default-src 'none'; style-src 'nonce-hostile-nonce'; "
                                           "script-src 'nonce-hostile-nonce'")


def test_without_the_csp_the_escaping_alone_still_holds(tmp_path):
    dom, _ = dump_dom(_page(tmp_path, strip_csp=True), "#select=n0", budget_ms=2000)
    _assert_inert(dom, _probe(dom))


def test_control_the_payload_runs_when_written_as_markup_without_a_csp(tmp_path):
    """What the old viewer did (innerHTML with a location field): the same payload runs here."""
    page = tmp_path / "control.html"
    write = f"document.getElementById('d').innerHTML = '<div class=\"where\">f.py:' + {json.dumps(IMG)} + '</div>';"
    page.write_text(f"<!DOCTYPE html><html><body><div id='d'></div><script>{write}</script></body></html>",
                    encoding="utf-8")
    dom, _ = dump_dom(page, budget_ms=2000)
    assert 'data-pwned="1"' in dom


def test_script_data_block_holds_no_raw_markup():
    page = render_html(hostile_graph())
    block = re.search(r'<script type="application/json" id="spore-data">(.*?)</script>', page, re.S)
    assert block and "<" not in block.group(1)
    assert page.count("</script>") == 2


def test_a_json_naming_a_local_file_never_gets_its_text_embedded(tmp_path):
    secret = tmp_path / "home" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("TOP-SECRET-TOKEN-1234\n", encoding="utf-8")
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "model.py").write_text("import spore\ny = net(x)  # line two\n", encoding="utf-8")
    (proj / "link.py").symlink_to(secret)
    (proj / "fifo.py").write_text("")

    def graph(file: str) -> dict:
        return {"schema": "spore.graph/1", "name": "g", "inputs": [], "params": [], "outputs": [], "edges": [],
                "nodes": [{"id": "n0", "op": "Add", "inputs": [], "outputs": ["%1"], "shapes": [[1]],
                           "dtypes": ["float32"], "attrs": {}, "scope": "", "fused": [],
                           "loc": {"file": file, "line": 1, "col": 0}}]}

    for file in (str(secret), "../home/secret.txt", str(proj / "link.py")):
        assert "TOP-SECRET" not in render_html(graph(file))                     # no root: no file is read
        assert "TOP-SECRET" not in render_html(graph(file), sources_root=proj)  # outside the root, or a symlink out
    g = graph(str(proj / "model.py"))
    g["nodes"][0]["loc"]["line"] = 2
    assert view_payload(g, sources_root=proj)["sources"] == {str(proj / "model.py"): {"2": "y = net(x)  # line two"}}
    assert view_payload(g)["sources"] == {}
    rel = graph("model.py")
    rel["nodes"][0]["loc"]["line"] = 2
    assert build_model(rel, sources_root=proj).sources == {"model.py": {2: "y = net(x)  # line two"}}


def test_sources_the_exporter_wrote_are_shown_and_a_bad_shape_is_a_clear_error():
    file = hostile_graph()["nodes"][1]["loc"]["file"]
    g = {**hostile_graph(), "sources": {file: {"3": "  y = f(x)\n", "9": "not a located line"}, "b.py": {"1": "b"}}}
    assert view_payload(g)["sources"] == {file: {"3": "  y = f(x)"}}  # only the lines the nodes point at
    import pytest

    for bad, what in (([1], "'sources' must map"), ({"a.py": {"x": "t"}}, "line 'x'"), ({"a.py": "text"}, "a.py")):
        with pytest.raises(ValueError, match=re.escape(what)):
            view_payload({**hostile_graph(), "sources": bad})


def test_a_malformed_document_is_a_value_error_naming_it():
    import pytest

    broken = {**hostile_graph(), "nodes": [{"id": "n0"}]}
    with pytest.raises(ValueError, match="malformed spore.graph/1 document"):
        view_payload(broken)


def test_the_sandboxed_iframe_runs_the_viewer_under_its_csp(resmlp_after, tmp_path):
    """What Jupyter front ends without the Spore renderer show (the kernel's text/html): the page in an
    `<iframe srcdoc sandbox="allow-scripts">` with its own CSP. Its DOM is out of the host's reach
    (opaque origin), so the viewer posts the number of boxes it drew to its parent, and the host page
    writes it into its title, which `--dump-dom` prints once the page has settled. (A screenshot has no
    paint event to wait on, and shot the frame before its first paint under load.)"""
    import re
    import subprocess

    from spore_viz import iframe

    from .chromium import CHROMIUM, FLAGS

    listener = ("<script>window.addEventListener('message', function (e) {"
                " if (e.data && e.data.spore === 'rendered') document.title = 'rendered ' + e.data.boxes; });</script>")
    host = tmp_path / "host.html"
    host.write_text(f"<!DOCTYPE html><html><head><title>waiting</title>{listener}</head><body style='margin:0'>"
                    f"{iframe(resmlp_after, height=880)}</body></html>", encoding="utf-8")
    # the sandboxed frame in the page's own process, so the virtual-time budget covers its scripts too
    cmd = [CHROMIUM, *FLAGS, "--disable-site-isolation-trials", "--disable-features=IsolateOrigins,site-per-process",
           "--virtual-time-budget=10000", "--dump-dom", host.resolve().as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0, proc.stderr[-2000:]
    title = re.search(r"<title>([^<]*)</title>", proc.stdout)
    assert title and title.group(1).startswith("rendered "), f"the viewer did not run in the iframe: {title}"
    assert int(title.group(1).split()[1]) > 5, title.group(1)   # resmlp: its blocks and dense nodes
