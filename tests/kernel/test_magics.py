"""%spore_mode, %spore_graph, %%spore_profile and %spore_hints, run through the kernel."""

from __future__ import annotations

import re

import pytest

from .harness import Kernel

SETUP = """import numpy as np
import spore as ms
from spore import nn

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 3)
        self.fc2 = nn.Dense(3, 2)

    def construct(self, x):
        h = ms.ops.relu(self.fc1(x))
        return self.fc2(h)

net = Net()
x = ms.ops.ones((2, 4), ms.float32)
"""
MIME_G = "application/vnd.spore.graph+json"
MIME_P = "application/vnd.spore.profile+json"


@pytest.fixture(scope="module")
def k(kernel: Kernel) -> Kernel:
    n = kernel.ok(SETUP).reply["content"]["execution_count"]
    kernel.setup_cell = n  # type: ignore[attr-defined]
    return kernel


def mode(k: Kernel) -> str:
    return k.ok("ms.get_context('mode')").result_data()["text/plain"]


def test_spore_mode_shows_and_switches_the_mode(k: Kernel) -> None:
    assert k.ok("%spore_mode").stdout == "Spore mode: pynative (ms.PYNATIVE_MODE)\n"
    assert k.ok("%spore_mode graph").stdout == "Spore mode: graph (ms.GRAPH_MODE)\n"
    assert mode(k) == "0"
    assert k.ok("net(x).shape").result_data()["text/plain"] == "(2, 2)"  # compiled and run
    assert k.ok("%spore_mode pynative").stdout == "Spore mode: pynative (ms.PYNATIVE_MODE)\n"
    assert mode(k) == "1"


def test_spore_mode_rejects_unknown_modes(k: Kernel) -> None:
    res = k.execute("%spore_mode fast")
    assert res.status == "error" and res.reply["content"]["ename"] == "UsageError"
    assert "expected 'graph' or 'pynative'" in res.reply["content"]["evalue"]
    assert mode(k) == "1"


def test_spore_graph_shows_the_compiled_graph_without_switching_mode(k: Kernel) -> None:
    res = k.ok("%spore_graph net x")
    (bundle,) = res.bundles()
    ir = bundle["text/plain"]
    assert re.match(r"graph Net\.construct\(%\d+: float32\[2, 4\]\)\n", ir)
    assert "# fc1.weight" in ir and "# fc2.bias" in ir
    graph = bundle[MIME_G]
    assert graph["schema"] == "spore.graph/1" and graph["name"] == "Net.construct"
    assert {p["name"] for p in graph["params"]} == {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}
    assert graph["inputs"][0]["shape"] == [2, 4]
    lines = {n["loc"]["line"] for n in graph["nodes"] if n["loc"]}
    assert lines == {12, 13}  # the two lines of construct in the setup cell (IPython numbering)
    assert {n["scope"] for n in graph["nodes"]} >= {"Net.fc1", "Net.fc2"}
    has_viz = k.ok("import importlib.util\nimportlib.util.find_spec('spore_viz') is not None")
    assert has_viz.result_data()["text/plain"] == "True"  # installed with the kernel (one distribution)
    assert mode(k) == "1"


def test_spore_graph_mime_data_carries_cells_sources_and_the_viewer_payload(k: Kernel) -> None:
    """What the VS Code renderer mounts: the view payload, each loc's In[n] cell, and the lines' text."""
    graph = k.ok("%spore_graph net x").bundles()[0][MIME_G]
    cell = k.setup_cell  # type: ignore[attr-defined]
    locs = [n["loc"] for n in graph["nodes"] if n["loc"]]
    assert locs and {loc["cell"] for loc in locs} == {cell}
    (lines,) = graph["sources"].values()
    assert lines == {"12": "        h = ms.ops.relu(self.fc1(x))", "13": "        return self.fc2(h)"}
    view = graph["view"]
    assert view["kind"] == "spore.view/1" and view["name"] == "Net.construct"
    assert view["nOps"] == len(graph["nodes"])
    assert {d["loc"]["cell"] for d in view["details"].values() if d.get("loc")} == {cell}
    assert view["sources"] == graph["sources"]


def test_spore_graph_html_fallback_is_a_sandboxed_iframe_with_a_csp(k: Kernel) -> None:
    import html
    import re

    frame = k.ok("%spore_graph net x").bundles()[0]["text/html"]
    assert frame.startswith("<iframe srcdoc=") and 'sandbox="allow-scripts"' in frame
    assert "allow-same-origin" not in frame
    page = html.unescape(re.match(r'<iframe srcdoc="([^"]*)"', frame).group(1))
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page).group(1)
    nonce = re.search(r"script-src 'nonce-([^']+)'", csp).group(1)
    assert csp.startswith("default-src 'none'; style-src 'nonce-") and f'<script type="module" nonce="{nonce}">' in page


def test_spore_graph_raw_shows_the_graph_before_fusion(k: Kernel) -> None:
    raw = k.ok("%spore_graph --raw net x").bundles()[0][MIME_G]
    ops = [n["op"] for n in raw["nodes"]]
    assert ops.count("MatMul") == 2 and "ReLU" in ops
    assert all(not n["fused"] for n in raw["nodes"])


def test_spore_graph_takes_a_tuple_as_several_arguments(k: Kernel) -> None:
    k.ok("def pair(a, b):\n    return a * b + a")
    graph = k.ok("%spore_graph pair (x, x)").bundles()[0][MIME_G]
    assert [i["shape"] for i in graph["inputs"]] == [[2, 4], [2, 4]]


def test_spore_graph_usage_errors(k: Kernel) -> None:
    res = k.execute("%spore_graph net")
    assert res.status == "error" and res.reply["content"]["ename"] == "UsageError"


def test_spore_profile_shows_ops_with_their_notebook_lines(k: Kernel) -> None:
    res = k.ok("%%spore_profile\ny = net(x)\nz = y @ ms.ops.ones((2, 5), ms.float32)\nz.sum()")
    n = res.reply["content"]["execution_count"]
    value, table = res.bundles()
    assert value["text/plain"].startswith("Tensor[] float32")
    rows = table[MIME_P]["rows"]
    by_code = {(r["op"], r["code"]): r for r in rows}
    matmul = by_code[("MatMul", "z = y @ ms.ops.ones((2, 5), ms.float32)")]
    assert (matmul["cell"], matmul["line"], matmul["mode"], matmul["calls"]) == (f"In[{n}]", 3, "pynative", 1)
    assert by_code[("ReduceSum", "z.sum()")]["line"] == 4
    inner = by_code[("MatMul", "h = ms.ops.relu(self.fc1(x))")]
    assert inner["cell"] == f"In[{k.setup_cell}]" and inner["line"] == 12 and inner["scope"] == "fc1"
    text = table["text/plain"]
    assert text.startswith("Spore profile:") and f"In[{n}] line 3" in text
    assert k.ok("len(_spore_profiler.events) > 0").result_data()["text/plain"] == "True"


def test_spore_profile_propagates_errors_with_cell_lines_and_stops_the_profiler(k: Kernel) -> None:
    res = k.execute("%%spore_profile\ny = net(x)\nraise ValueError('inside')")
    assert res.status == "error" and res.reply["content"]["ename"] == "ValueError"
    assert "line 3" in res.error_text()
    assert k.ok("ms.Profiler._active is None").result_data()["text/plain"] == "True"


def test_spore_profile_in_graph_mode_reports_graph_events(k: Kernel) -> None:
    k.ok("%spore_mode graph")
    try:
        res = k.ok("net(x)\n")  # compile outside the profile
        res = k.ok("%%spore_profile\nfor _ in range(3):\n    y = net(x)")
        rows = res.bundles()[0][MIME_P]["rows"]
        assert rows and all(r["mode"] == "graph" for r in rows)
        assert {r["calls"] for r in rows} == {3}
    finally:
        k.ok("%spore_mode pynative")


def test_spore_hints_switch(k: Kernel) -> None:
    assert k.ok("%spore_hints").stdout == "Spore hints: on\n"
    assert k.ok("%spore_hints off").stdout == "Spore hints: off\n"
    assert k.ok("%spore_hints on").stdout == "Spore hints: on\n"
    res = k.execute("%spore_hints maybe")
    assert res.status == "error" and res.reply["content"]["ename"] == "UsageError"


def _user_expression(k: Kernel, expr: str) -> dict:
    """Evaluate `expr` the way the VS Code extension's KernelSession.evaluate does (user_expressions)."""
    msg_id = k.kc.execute("", silent=True, store_history=False, user_expressions={"e": expr})
    reply = k.collect(msg_id).reply["content"]
    assert reply["status"] == "ok", reply
    return reply["user_expressions"]["e"]


# the expressions vscode-extension/src/graphView/kernelExpr.ts builds
HELPERS = '__import__("spore_kernel.graphview", fromlist=["graphview"])'


def test_show_graph_in_a_notebook_lists_cells_and_compiles_through_user_expressions(k: Kernel) -> None:
    k.ok("class Sub(Net):\n    pass\n\nsub = Sub()\nblock = nn.Dense(2, 2)")
    listed = _user_expression(k, f'{HELPERS}.cell_variables("Net")')
    assert listed["status"] == "ok"
    assert listed["data"]["application/json"] == [{"name": "net", "class": "Net"}, {"name": "sub", "class": "Sub"}]
    every = _user_expression(k, f"{HELPERS}.cell_variables(None)")["data"]["application/json"]
    assert {"name": "block", "class": "Dense"} in every
    shown = _user_expression(k, f"{HELPERS}.graph_display(net, (x))")
    assert shown["status"] == "ok"
    graph = shown["data"][MIME_G]
    assert graph["view"]["kind"] == "spore.view/1" and graph["inputs"][0]["shape"] == [2, 4]
    bad = _user_expression(k, f"{HELPERS}.graph_display(net, (undefined_name))")
    assert bad["status"] == "error" and bad["ename"] == "NameError"
    count = k.ok("1").reply["content"]["execution_count"]
    assert k.ok("1").reply["content"]["execution_count"] == count + 1  # the evaluations took no execution count
