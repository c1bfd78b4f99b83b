"""Diagnostics over real stdio: Graph-mode findings with the compiler's severity, PyTorch habits,
unknown Spore names, and no noise on plain PyTorch files."""

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .helpers import by_code, open_and_diagnose

pytestmark = pytest.mark.asyncio(loop_scope="module")

CELL = """import time
import spore as ms
from spore import nn
{setup}

class Net(nn.Cell):
    def construct(self, x):
        print(x)
        return x
"""


@pytest.mark.parametrize("setup, severity, words", [
    ("", types.DiagnosticSeverity.Information, "PYNATIVE_MODE"),
    ("ms.set_context(mode=ms.GRAPH_MODE)", types.DiagnosticSeverity.Warning, "graph break"),
    ("ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)", types.DiagnosticSeverity.Error,
     "GraphCompileError"),
    ("ms.set_context(mode=0, jit_syntax_level=0)", types.DiagnosticSeverity.Error, "GraphCompileError"),
    ("ms.set_context(mode=ms.GRAPH_MODE)\nms.set_context(mode=ms.PYNATIVE_MODE)", types.DiagnosticSeverity.Information,
     "PYNATIVE_MODE"),
    ("ms.set_context(mode=MODE)", types.DiagnosticSeverity.Information, "only known when it runs"),
    ("ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=LEVEL)", types.DiagnosticSeverity.Warning,
     "only known when it runs"),
])
async def test_graph_mode_severity_follows_mode_and_syntax_level(client: LanguageClient, setup, severity, words):
    text = CELL.format(setup=setup)
    _, diags = await open_and_diagnose(client, "net.py", text, lambda ds: bool(by_code(ds, "graph-print")))
    (d,) = by_code(diags, "graph-print")
    assert d.source == "spore" and d.severity == severity
    assert words in d.message and "ops.print_" in d.message, "the reason and the fix are in the message"
    line = text.split("\n").index("        print(x)")
    assert (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character) == (line, 8, line, 16)


async def test_jit_functions_fullgraph_is_an_error_plain_jit_a_graph_break(client: LanguageClient):
    text = ("import time\nimport spore as ms\n\n@ms.jit(fullgraph=True)\ndef f(x):\n    t = time.time()\n"
            "    return x\n\n@ms.jit\ndef g(x):\n    t = time.time()\n    return x\n")
    _, diags = await open_and_diagnose(client, "jit.py", text, lambda ds: len(by_code(ds, "graph-impure_call")) == 2)
    f_diag, g_diag = sorted(by_code(diags, "graph-impure_call"), key=lambda d: d.range.start.line)
    assert (f_diag.range.start.line, f_diag.severity) == (5, types.DiagnosticSeverity.Error)
    assert (g_diag.range.start.line, g_diag.severity) == (10, types.DiagnosticSeverity.Warning)
    assert "fullgraph=True" in f_diag.message and "graph break" in g_diag.message


async def test_jit_under_strict_says_it_falls_back_to_pynative(client: LanguageClient):
    text = ("import spore as ms\nms.set_context(jit_syntax_level=ms.STRICT)\n@ms.jit\ndef g(x):\n    print(x)\n"
            "    return x\n")
    _, diags = await open_and_diagnose(client, "jitstrict.py", text, lambda ds: bool(by_code(ds, "graph-print")))
    (d,) = by_code(diags, "graph-print")
    assert d.severity == types.DiagnosticSeverity.Warning and "GraphFallbackWarning" in d.message


HABITS = """import torch
import spore as ms
from spore import nn, ops


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        x = x.view(-1, 4)
        n = x.size()
        x = torch.relu(x)
        x = x.to(device)
        return x


def train(net, optimizer, loss):
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""

EXPECTED_HABITS = {  # code -> (the text the diagnostic underlines, severity)
    "torch-import": ("import torch", types.DiagnosticSeverity.Warning),
    "torch-module": ("Module", types.DiagnosticSeverity.Error),
    "torch-linear": ("Linear", types.DiagnosticSeverity.Error),
    "torch-conv-padding": ("padding=1", types.DiagnosticSeverity.Error),
    "torch-forward": ("forward", types.DiagnosticSeverity.Warning),
    "torch-view": ("view", types.DiagnosticSeverity.Information),
    "torch-size": ("size()", types.DiagnosticSeverity.Warning),
    "torch-function": ("torch.relu", types.DiagnosticSeverity.Warning),
    "torch-device": (".to(device)", types.DiagnosticSeverity.Warning),
}


def _covered(text: str, r: types.Range) -> str:
    lines = text.split("\n")
    assert r.start.line == r.end.line
    return lines[r.start.line][r.start.character:r.end.character]


async def test_each_pytorch_habit_is_flagged_on_its_exact_range(client: LanguageClient):
    _, diags = await open_and_diagnose(client, "habits.py", HABITS,
                                       lambda ds: set(EXPECTED_HABITS) <= {d.code for d in ds})
    for code, (covered, severity) in EXPECTED_HABITS.items():
        (d,) = by_code(diags, code)
        assert _covered(HABITS, d.range) == covered, code
        assert d.severity == severity and d.source == "spore", code
    loop = by_code(diags, "torch-training-loop")
    assert [d.range.start.line for d in loop] == [20, 21, 22]
    assert all("value_and_grad" in d.message for d in loop)
    assert not by_code(diags, "unknown-api"), "nn.Module / nn.Linear are reported once, as habits"


async def test_a_plain_pytorch_file_gets_no_spore_diagnostics(client: LanguageClient):
    text = HABITS.replace("import spore as ms\nfrom spore import nn, ops\n", "from torch import nn\n")
    _, diags = await open_and_diagnose(client, "torch_only.py", text)
    assert diags == []


async def test_a_file_that_is_not_spore_code_gets_no_graph_mode_diagnostics(client: LanguageClient):
    text = CELL.format(setup="").replace("import spore as ms\nfrom spore import nn\n", "from somewhere import nn\n")
    _, diags = await open_and_diagnose(client, "other.py", text)
    assert diags == []


async def test_conv_padding_is_flagged_only_when_literally_nonzero(client: LanguageClient):
    text = ("from spore import nn\na = nn.Conv2d(3, 8, 3, padding=0)\nb = nn.Conv2d(3, 8, 3, padding=p)\n"
            "c = nn.Conv2d(3, 8, 3, padding=(0, 1))\nd = nn.Conv2d(3, 8, 3, pad_mode='pad', padding=1)\n")
    _, diags = await open_and_diagnose(client, "pads.py", text)
    assert [d.range.start.line for d in by_code(diags, "torch-conv-padding")] == [3]


async def test_unknown_api_names_with_did_you_mean_for_every_alias(client: LanguageClient):
    text = ("import mindspore as ms\nfrom spore import ops, nn\nimport spore.ops as P\nfrom spore.nn import Dence\n"
            "a = ops.reduce_summ\nb = nn.Dence\nc = ms.ops.matmull\nd = ms.set_contxt\ne = P.relu\nf = ms.Tensor\n")
    _, diags = await open_and_diagnose(client, "names.py", text, lambda ds: len(by_code(ds, "unknown-api")) >= 5)
    found = {(d.range.start.line, _covered(text, d.range)): d.message for d in by_code(diags, "unknown-api")}
    assert set(found) == {(3, "Dence"), (4, "reduce_summ"), (5, "Dence"), (6, "matmull"), (7, "set_contxt")}
    assert "did you mean 'reduce_sum'" in found[(4, "reduce_summ")]
    assert "'Dense'" in found[(5, "Dence")] and "'matmul'" in found[(6, "matmull")]
    assert "'set_context'" in found[(7, "set_contxt")]


async def test_a_deeper_finding_names_what_it_saw_and_the_fix_on_the_exact_range(client: LanguageClient):
    text = ("import spore as ms\nfrom spore import nn, ops\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
            "        y = ops.relu(x)\n        v = float(y.sum()) + 1\n        return y * v\n")
    code = "graph-python_value_of_tensor"
    _, diags = await open_and_diagnose(client, "deep.py", text, lambda ds: bool(by_code(ds, code)))
    (d,) = by_code(diags, code)
    line = text.split("\n").index("        v = float(y.sum()) + 1")
    start = len("        v = ")
    assert (d.range.start.line, d.range.start.character, d.range.end.character) == (line, start,
                                                                                     start + len("float(y.sum())"))
    assert d.severity == types.DiagnosticSeverity.Information, "a PyNative file: fine there, refused in Graph mode"
    assert "`float()` of the tensor `y.sum()`" in d.message and "ops.where" in d.message
    assert d.data["rule"] == "python_value_of_tensor"
