"""Display bundles of tensors, Parameters and Cells, as a notebook receives them from the kernel."""

from __future__ import annotations

import base64
import struct

import pytest

from .harness import Kernel

SETUP = """import numpy as np
import spore as ms
from spore import nn

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 3)
        self.bn = nn.BatchNorm1d(3)
        self.fc2 = nn.Dense(3, 2)

    def construct(self, x):
        return self.fc2(self.bn(self.fc1(x)))

net = Net()
"""
MIME_T = "application/vnd.spore.tensor+json"
MIME_C = "application/vnd.spore.cell+json"


@pytest.fixture(scope="module")
def k(kernel: Kernel) -> Kernel:
    kernel.ok(SETUP)
    return kernel


def png_size(data_b64: str) -> tuple[int, int]:
    raw = base64.b64decode(data_b64)
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", raw[16:24])


def test_tensor_text_plain_is_a_one_line_summary_then_small_values(k: Kernel) -> None:
    text = k.ok("ms.Tensor(np.array([[1, -2], [3, 4]], np.float32))").result_data()["text/plain"]
    first, *rest = text.splitlines()
    assert first == "Tensor[2, 2] float32 n=4 16 B x∈[-2, 4] μ=1.5 σ=2.291"
    assert rest == ["[[ 1., -2.],", " [ 3.,  4.]]"]


def test_summary_flags_nan_inf_and_all_zeros(k: Kernel) -> None:
    text = k.ok("ms.Tensor(np.array([1, np.nan, np.inf, -np.inf, 2], np.float32))").result_data()["text/plain"]
    assert "NaN!1" in text and "+Inf!1" in text and "-Inf!1" in text
    assert "x∈[1, 2]" in text  # range of the finite values
    zeros = k.ok("ms.ops.zeros((3, 5), ms.float32)").result_data()["text/plain"]
    assert zeros.startswith("Tensor[3, 5] float32 n=15 60 B") and "all zeros" in zeros


def test_scalar_and_bool_and_int_summaries(k: Kernel) -> None:
    assert k.ok("ms.Tensor(2.5)").result_data()["text/plain"] == "Tensor[] float32 2.5"
    booleans = k.ok("ms.Tensor(np.array([True, False, True]))").result_data()["text/plain"]
    assert booleans.startswith("Tensor[3] bool n=3 3 B true=2/3")
    ints = k.ok("ms.Tensor(np.arange(10))").result_data()["text/plain"]
    assert ints.startswith("Tensor[10] int64 n=10 80 B x∈[0, 9] μ=4.5")


def test_tensor_html_has_stats_values_and_histogram(k: Kernel) -> None:
    html = k.ok("ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))").result_data()["text/html"]
    assert "<table class='spore-stats'>" in html and "mean / std" in html
    assert "<table class='spore-values'><tr><td>0</td><td>1</td><td>2</td></tr><tr><td>3</td>" in html
    assert "<svg class='spore-hist'" in html


def test_tensor_json_bundle_carries_summary_stats_and_values(k: Kernel) -> None:
    data = k.ok("ms.Tensor(np.array([[1, -2], [3, 4]], np.float32))").result_data()[MIME_T]
    assert data["schema"] == "spore.tensor/1" and data["type"] == "Tensor"
    assert data["stats"]["shape"] == [2, 2] and data["stats"]["min"] == -2.0 and data["stats"]["max"] == 4.0
    assert data["values"] == {"kind": "full", "data": [[1.0, -2.0], [3.0, 4.0]]}
    assert sum(data["stats"]["histogram"]["counts"]) == 4


def test_nan_and_inf_are_valid_json_strings(k: Kernel) -> None:
    data = k.ok("ms.Tensor(np.array([np.nan, np.inf], np.float32))").result_data()[MIME_T]
    assert data["values"]["data"] == ["NaN", "Infinity"]
    assert data["stats"]["n_nan"] == 1 and data["stats"]["n_posinf"] == 1


def test_huge_tensor_is_summarised_from_a_bounded_sample(k: Kernel) -> None:
    # 400 million elements as a broadcast view: any full pass or flattening copy would take
    # gigabytes; the displays must read only a bounded sample.
    res = k.ok("big = ms.Tensor(np.broadcast_to(np.float32(1.5), (20000, 20000)))\nbig")
    data = res.result_data()
    assert data["text/plain"] == ("Tensor[20000, 20000] float32 n=400,000,000 1.5 GiB x∈≈[1.5, 1.5] μ=≈1.5 σ=≈0 "
                                  "(from 65,536 sampled values)")
    stats = data[MIME_T]["stats"]
    assert stats["sampled"] is True and stats["n_read"] == 65536 and stats["size"] == 400_000_000
    values = data[MIME_T]["values"]
    assert values["kind"] == "sample" and values["count"] == 256 and len(values["indices"]) == 256
    table = data["text/html"].split("<table class='spore-values'>")[1]
    assert table.count("<td>") == 9 * 9 and "⋮" in table and "…" in table  # 4 + gap + 4 per axis


def test_parameter_shows_name_and_grad_state(k: Kernel) -> None:
    data = k.ok("ms.Parameter(ms.Tensor(np.ones((2, 3), np.float32)), name='w')").result_data()
    assert data["text/plain"].startswith("Parameter[2, 3] 'w' float32 n=6 24 B x∈[1, 1] μ=1 σ=0")
    assert data["text/plain"].splitlines()[0].endswith("requires_grad")
    assert data[MIME_T]["type"] == "Parameter" and data[MIME_T]["name"] == "w"
    assert data[MIME_T]["grad"] == "requires_grad"
    frozen = k.ok("ms.Parameter(ms.Tensor([1.0]), name='f', requires_grad=False)").result_data()[MIME_T]
    assert frozen["grad"] == "no_grad"


def test_cell_shows_parameter_table_with_totals(k: Kernel) -> None:
    data = k.ok("net").result_data()
    text = data["text/plain"]
    assert text.startswith("Net<")
    assert "Net: 3 sub-cells, 8 parameter tensors, 35 parameters (29 trainable), 140 B" in text
    lines = text.splitlines()
    assert any(line.split() == ["fc1.weight", "(3,", "4)", "float32", "12", "yes"] for line in lines)
    assert any(line.split()[:2] == ["bn.moving_mean", "(3,)"] and line.split()[-1] == "no" for line in lines)
    assert lines[-1].split() == ["total", "35", "(29", "trainable)"]
    summary = data[MIME_C]
    assert summary["totals"] == {"tensors": 8, "total": 35, "trainable": 29, "nbytes": 140}
    assert [p["name"] for p in summary["params"]][:2] == ["fc1.weight", "fc1.bias"]
    assert "<table class='spore-params'>" in data["text/html"] and "fc2.bias" in data["text/html"]


def test_plt_gives_a_heatmap_png_for_2d(k: Kernel) -> None:
    data = k.ok("ms.Tensor(np.random.rand(6, 9).astype(np.float32)).plt").result_data()
    assert png_size(data["image/png"]) == (450, 360)
    assert data["text/plain"].startswith("<plot of Tensor[6, 9] float32")


def test_plt_gives_a_channel_grid_for_4d(k: Kernel) -> None:
    data = k.ok("ms.Tensor(np.random.rand(2, 3, 8, 8).astype(np.float32)).plt").result_data()
    # rows are samples, columns channels: 1.6 in per panel + margins at 80 dpi
    assert png_size(data["image/png"]) == (432, 288)


def test_spore_plot_magic_displays_a_png(k: Kernel) -> None:
    res = k.ok("img = ms.Tensor(np.random.rand(3, 16, 16).astype(np.float32))\n%spore_plot img")
    assert png_size(res.of_type("display_data")[0]["data"]["image/png"])[0] > 0
    bad = k.execute("%spore_plot 3")
    assert bad.status == "error" and bad.reply["content"]["ename"] == "UsageError"


def test_a_failing_view_falls_back_to_repr_without_breaking_the_output(k: Kernel) -> None:
    k.ok("import spore_kernel.tensor_view as _tv\n_saved = _tv.bundle\n_tv.bundle = lambda t: 1 / 0")
    try:
        res = k.ok("ms.Tensor([1.0, 2.0])")
        assert res.result_data() == {"text/plain": "Tensor(shape=[2], dtype=Float32, value= [1., 2.])"}
        assert not res.of_type("error") and "Traceback" not in res.stderr + res.stdout
    finally:
        k.ok("_tv.bundle = _saved")
    assert MIME_T in k.ok("ms.Tensor([1.0])").result_data()


def test_vscode_variable_and_data_viewer_contract(k: Kernel) -> None:
    # VS Code's Jupyter variable view takes `shape` when it is a tuple whose str looks like "(2, 3)",
    # and its data viewer converts objects whose type is named "Tensor" with .numpy(), others
    # through pandas.DataFrame(obj).
    code = ("import pandas as pd\nt = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))\n"
            "p = ms.Parameter(t, name='p')\n"
            "(type(t).__name__, isinstance(t.shape, tuple), str(t.shape), str(ms.Tensor([1.0]).shape), len(t),"
            " type(t.numpy()).__name__, pd.DataFrame(t.numpy()).values.tolist(), pd.DataFrame(p).values.tolist())")
    value = k.ok(code).result_data()["text/plain"]
    rows = "[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]"
    assert value == f"('Tensor',\n True,\n '(2, 3)',\n '(1,)',\n 2,\n 'ndarray',\n {rows},\n {rows})"
