"""Each quick fix, applied to the text as an editor would, gives the expected Spore code; the mode
switch edits the set_context call or inserts one."""

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .helpers import apply_edits, by_code, open_and_diagnose

pytestmark = pytest.mark.asyncio(loop_scope="module")

HEAD = "import spore as ms\nfrom spore import nn, ops\n"


async def actions_for(client: LanguageClient, uri: str, diag: types.Diagnostic) -> list[types.CodeAction]:
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag])))


async def actions_at(client: LanguageClient, uri: str, line: int) -> list[types.CodeAction]:
    at = types.Position(line=line, character=0)
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=types.Range(start=at, end=at),
        context=types.CodeActionContext(diagnostics=[])))


def applied(text: str, uri: str, action: types.CodeAction) -> str:
    assert action.edit is not None and action.edit.changes is not None
    assert set(action.edit.changes) == {uri}
    return apply_edits(text, action.edit.changes[uri])


@pytest.mark.parametrize("code, before, after", [
    ("torch-module", "class Net(nn.Module):\n    pass\n", "class Net(nn.Cell):\n    pass\n"),
    ("torch-forward", "class Net(nn.Cell):\n    def forward(self, x):\n        return x\n",
     "class Net(nn.Cell):\n    def construct(self, x):\n        return x\n"),
    ("torch-linear", "fc = nn.Linear(4, 2)\n", "fc = nn.Dense(4, 2)\n"),
    ("torch-conv-padding", "conv = nn.Conv2d(3, 8, 3, padding=1)\n",
     'conv = nn.Conv2d(3, 8, 3, pad_mode="pad", padding=1)\n'),
    ("torch-view", "def f(x):\n    return x.view(-1, 4)\n", "def f(x):\n    return x.reshape(-1, 4)\n"),
    ("torch-size", "def f(x):\n    return x.size()\n", "def f(x):\n    return x.shape\n"),
    ("torch-size", "def f(x):\n    return x.size(1) + 1\n", "def f(x):\n    return x.shape[1] + 1\n"),
    ("torch-function", "import torch\ny = torch.relu(x)\n", "import torch\ny = ops.relu(x)\n"),
    ("torch-device", "x = x.to(device)\n", "x = x\n"),
    ("torch-device", "net.cuda()\nnet(x)\n", "net(x)\n"),
    ("torch-device", "def f(net):\n    net.cuda()\n", "def f(net):\n    pass\n"),
    ("torch-import", "import torch\nx = 1\n", "x = 1\n"),
    ("torch-training-loop", "optimizer.zero_grad()\nloss = 1\n", "loss = 1\n"),
    ("unknown-api", "y = ops.reduce_summ(x)\n", "y = ops.reduce_sum(x)\n"),
    ("unknown-api", "fc = nn.Dence(2, 2)\n", "fc = nn.Dense(2, 2)\n"),
    ("unknown-api", "ms.set_contxt(mode=ms.GRAPH_MODE)\n", "ms.set_context(mode=ms.GRAPH_MODE)\n"),
])
async def test_each_quick_fix_gives_the_expected_text(client: LanguageClient, code, before, after):
    text = HEAD + before
    uri, diags = await open_and_diagnose(client, "fix.py", text, lambda ds: bool(by_code(ds, code)))
    diag = by_code(diags, code)[0]
    fixes = [a for a in await actions_for(client, uri, diag) if a.kind == types.CodeActionKind.QuickFix]
    assert fixes, f"no quick fix for {code}"
    preferred = [a for a in fixes if a.is_preferred] or fixes
    assert applied(text, uri, preferred[0]) == HEAD + after
    assert preferred[0].diagnostics and preferred[0].diagnostics[0].code == code


@pytest.mark.parametrize("before, title, after", [
    ("x = 1\n", "Switch this file to GRAPH_MODE", "ms.set_context(mode=ms.GRAPH_MODE)\nx = 1\n"),
    ("ms.set_context(mode=ms.GRAPH_MODE)\n", "Switch this file to PYNATIVE_MODE",
     "ms.set_context(mode=ms.PYNATIVE_MODE)\n"),
    ('ms.set_context(device_target="CPU")\n', "Switch this file to GRAPH_MODE",
     'ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")\n'),
])
async def test_switch_mode_edits_or_inserts_set_context(client: LanguageClient, before, title, after):
    text = HEAD + before
    uri, _ = await open_and_diagnose(client, "mode.py", text)
    actions = await actions_at(client, uri, 2)
    (switch,) = [a for a in actions if a.title.startswith("Switch")]
    assert switch.title == title
    assert applied(text, uri, switch) == HEAD + after


async def test_switch_mode_imports_spore_when_the_file_only_imports_mindspore_names(client: LanguageClient):
    text = "from spore import nn\nx = 1\n"
    uri, _ = await open_and_diagnose(client, "mode2.py", text)
    actions = await actions_at(client, uri, 1)
    (switch,) = [a for a in actions if a.title.startswith("Switch")]
    expected = "from spore import nn\nimport spore as ms\nms.set_context(mode=ms.GRAPH_MODE)\nx = 1\n"
    assert applied(text, uri, switch) == expected
