"""Each quick fix, applied to the text as an editor would, gives the expected Spore code; the mode
switch edits the set_context call or inserts one."""

import importlib.util

import numpy as np
import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

import spore as ms

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


# ---- "compile with @ms.jit" ------------------------------------------------------------------
NET = """import numpy as np
import spore as ms
from spore import nn, ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 2)

    def construct(self, x):
        y = self.fc(x)
        z = ops.relu(y)
        print(z)
        out = z * 2 + y
        return out
"""
HEAD_MOVED = NET.replace("""        y = self.fc(x)
        z = ops.relu(y)
        print(z)""", """        y, z = self.construct_head(x)
        print(z)""") + """
    @ms.jit
    def construct_head(self, x):
        y = self.fc(x)
        z = ops.relu(y)
        return y, z
"""
TAIL_MOVED = NET.replace("""        out = z * 2 + y
        return out
""", """        return self.construct_tail(y, z)

    @ms.jit
    def construct_tail(self, y, z):
        out = z * 2 + y
        return out
""")


def run_net(source: str, tmp_path, name: str) -> np.ndarray:
    """The refactoring keeps what the Cell computes: run it (this test's own sample, not the server)."""
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"_jit_action_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ms.set_seed(0)
    net = module.Net()
    return net(ms.Tensor(np.array([[1.0, -2.0]], np.float32))).asnumpy()


@pytest.mark.parametrize("where, expected", [("before", HEAD_MOVED), ("after", TAIL_MOVED)])
async def test_a_graph_mode_finding_in_construct_offers_to_move_the_pure_part_into_a_jit_method(
        client: LanguageClient, tmp_path, capsys, where, expected):
    uri, diags = await open_and_diagnose(client, "move.py", NET, lambda ds: bool(by_code(ds, "graph-print")))
    diag = by_code(diags, "graph-print")[0]
    actions = await actions_for(client, uri, diag)
    (move,) = [a for a in actions if a.title.startswith("Move lines") and where in a.title]
    assert move.kind == types.CodeActionKind.RefactorRewrite and "@ms.jit method" in move.title
    after = applied(NET, uri, move)
    assert after == expected
    np.testing.assert_allclose(run_net(after, tmp_path, where), run_net(NET, tmp_path, "original"))


async def test_no_move_where_a_value_crossing_the_cut_may_be_unbound(client: LanguageClient):
    text = NET.replace("        y = self.fc(x)\n", "        if x.shape[0] > 1:\n            y = self.fc(x)\n"
                       "        else:\n            y = x\n")
    uri, diags = await open_and_diagnose(client, "nomove.py", text, lambda ds: bool(by_code(ds, "graph-print")))
    titles = [a.title for a in await actions_for(client, uri, by_code(diags, "graph-print")[0])]
    assert not [t for t in titles if t.startswith("Move")], "y is bound by an if, not by a top-level statement"
    moved = text.replace("        out = z * 2 + y\n", "        out = z * 2\n")  # y no longer crosses the cut
    uri, diags = await open_and_diagnose(client, "move2.py", moved, lambda ds: bool(by_code(ds, "graph-print")))
    titles = [a.title for a in await actions_for(client, uri, by_code(diags, "graph-print")[0])]
    assert len([t for t in titles if t.startswith("Move")]) == 2


@pytest.mark.parametrize("before, line, title, after", [
    ("def helper(x):\n    return ops.relu(x) + 1\n", 3, "Compile helper with @ms.jit",
     "@ms.jit\ndef helper(x):\n    return ops.relu(x) + 1\n"),
    ("class Net(nn.Cell):\n    def construct(self, x):\n        return ops.relu(x)\n", 4,
     "Compile Net.construct with @ms.jit", "class Net(nn.Cell):\n    @ms.jit\n    def construct(self, x):\n"
     "        return ops.relu(x)\n"),
])
async def test_compile_with_jit_decorates_the_function(client: LanguageClient, before, line, title, after):
    text = HEAD + before
    uri, _ = await open_and_diagnose(client, "jit.py", text)
    (action,) = [a for a in await actions_at(client, uri, line) if a.title.startswith("Compile")]
    assert action.title == title
    assert applied(text, uri, action) == HEAD + after


async def test_compile_with_jit_imports_spore_when_the_file_binds_no_alias(client: LanguageClient):
    text = "from spore import ops\n\n\ndef helper(x):\n    return ops.relu(x)\n"
    uri, _ = await open_and_diagnose(client, "jit2.py", text)
    (action,) = [a for a in await actions_at(client, uri, 4) if a.title.startswith("Compile")]
    assert applied(text, uri, action) == ("from spore import ops\nimport spore as ms\n\n\n@ms.jit\ndef helper(x):\n"
                                          "    return ops.relu(x)\n")


@pytest.mark.parametrize("text, line", [
    (HEAD + "def plain(x):\n    return x + 1\n", 3),  # no Spore op: nothing to compile
    (HEAD + "ms.set_context(mode=ms.GRAPH_MODE)\nclass Net(nn.Cell):\n    def construct(self, x):\n"
     "        return ops.relu(x)\n", 5),  # compiled already
    (HEAD + "@ms.jit\ndef step(x):\n    return ops.relu(x)\n", 4),
])
async def test_compile_with_jit_is_not_offered_where_it_changes_nothing(client: LanguageClient, text, line):
    uri, _ = await open_and_diagnose(client, "nojit.py", text)
    assert not [a for a in await actions_at(client, uri, line) if a.title.startswith("Compile")]


# ---- Graph-mode and training-loop quick fixes -----------------------------------------------------
CELL = "class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n" \
       "        self.step = ms.Parameter(ms.Tensor(0.0), name='step')\n\n    def construct(self, x):\n"
LOOP = """net = nn.Dense(2, 1)
optimizer = nn.SGD(net.trainable_params(), 0.1)
loss_fn = nn.MSELoss()
data = [(ms.Tensor(np.ones((4, 2), np.float32)), ms.Tensor(np.zeros((4, 1), np.float32)))] * 3
losses = []
for x, y in data:
    optimizer.zero_grad()
    out = net(x)
    loss = loss_fn(out, y)
    loss.backward()
    optimizer.step()
    losses.append(float(loss))
"""
LOOP_REWRITTEN = LOOP.replace("""    optimizer.zero_grad()
    out = net(x)
    loss = loss_fn(out, y)
    loss.backward()
    optimizer.step()
""", """    def forward_fn():
        out = net(x)
        loss = loss_fn(out, y)
        return loss
    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
    loss, grads = grad_fn()
    optimizer(grads)
""")


@pytest.mark.parametrize("code, before, title, after", [
    ("graph-print", CELL + "        print('x is', x)\n        return x\n", "Replace print with ops.print_",
     CELL + "        ops.print_('x is', x)\n        return x\n"),
    ("graph-print", CELL + "        print(x, end='')\n        return x\n", "Remove the print",
     CELL + "        return x\n"),
    ("graph-import", "import numpy as np\n" + CELL + "        import math\n        return x * math.pi\n",
     "Move the import", "import numpy as np\nimport math\n" + CELL + "        return x * math.pi\n"),
    ("graph-self_assign", CELL + "        self.step += 1\n        return x\n",
     "Update the Parameter with ops.assign_add", CELL + "        ops.assign_add(self.step, 1)\n        return x\n"),
    ("graph-self_assign", CELL + "        self.step = x.sum()\n        return x\n",
     "Update the Parameter with ops.assign", CELL + "        ops.assign(self.step, x.sum())\n        return x\n"),
    ("graph-unsupported_call", CELL + "        if ops.relu(x).sum() < 0:\n            raise ValueError('negative')\n"
     "        return x\n", "Check it with assert",
     CELL + "        assert not (ops.relu(x).sum() < 0), 'negative'\n        return x\n"),
    ("torch-training-loop", "import numpy as np\n" + LOOP, "Rewrite this training step with value_and_grad",
     "import numpy as np\n" + LOOP_REWRITTEN),
])
async def test_each_graph_mode_and_training_fix_gives_the_expected_text(client: LanguageClient, code, before,
                                                                        title, after):
    text = HEAD + before
    uri, diags = await open_and_diagnose(client, "gfix.py", text, lambda ds: bool(by_code(ds, code)))
    fixes = [a for d in by_code(diags, code) for a in await actions_for(client, uri, d)
             if a.kind == types.CodeActionKind.QuickFix and a.title.startswith(title)]
    assert fixes, f"no '{title}' fix for {code}: {[d.message for d in by_code(diags, code)]}"
    assert applied(text, uri, fixes[0]) == HEAD + after


def test_the_rewritten_training_step_trains(tmp_path):
    """The value_and_grad rewrite runs with the real engine and lowers the loss as the PyTorch-shaped loop
    meant to (this test's own sample)."""
    path = tmp_path / "train_step.py"
    path.write_text(HEAD + "import numpy as np\n" + LOOP_REWRITTEN)
    spec = importlib.util.spec_from_file_location("_lsp_training_step", path)
    module = importlib.util.module_from_spec(spec)
    ms.set_seed(0)
    spec.loader.exec_module(module)
    assert module.losses[2] < module.losses[1] < module.losses[0]


def test_the_ops_print_fix_runs_in_graph_mode(tmp_path, capfd):
    """ops.print_ is what the fix puts in construct: it compiles and prints the value each run."""
    source = HEAD + "import numpy as np\n" + CELL + "        ops.print_('x is', x)\n        return x\n"
    path = tmp_path / "print_fix.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("_lsp_print_fix", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    try:
        module.Net()(ms.Tensor(np.array([7.0], np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, jit_syntax_level=ms.LAX)
    assert "x is" in capfd.readouterr().out


def test_the_parameter_update_and_assert_fixes_compile_in_graph_mode(tmp_path):
    """What the self_assign and raise fixes write compiles under STRICT: the Parameter is updated each run
    and the assert is checked when the graph runs."""
    source = HEAD + "import numpy as np\n" + CELL + "        ops.assign_add(self.step, 1)\n" \
        "        assert not (ops.relu(x).sum() < 0), 'negative'\n        return x\n"
    path = tmp_path / "update_fix.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("_lsp_update_fix", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    try:
        net = module.Net()
        net(ms.Tensor(np.array([1.0], np.float32)))
        net(ms.Tensor(np.array([2.0], np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, jit_syntax_level=ms.LAX)
    assert float(net.step.asnumpy()) == 2.0


async def test_in_a_notebook_the_jit_and_print_fixes_edit_the_cell_they_belong_to(client: LanguageClient):
    """Cell 1 imports, cell 2 holds the construct: the print fix and the move into a @ms.jit method land in
    cell 2 only, with cell-relative lines (and the file's alias from cell 1)."""
    from .helpers import wait_diagnostics
    from .test_notebooks import open_notebook

    setup = "import numpy as np\nimport spore as ms\nfrom spore import nn, ops\n"
    cell = NET.split("\n\n\n", 1)[1]
    _, (c1, c2) = open_notebook(client, [setup, cell])
    diags = await wait_diagnostics(client, c2, lambda ds: bool(by_code(ds, "graph-print")))
    actions = await actions_for(client, c2, by_code(diags, "graph-print")[0])
    fix = next(a for a in actions if a.title.startswith("Replace print with ops.print_"))
    assert applied(cell, c2, fix) == cell.replace("print(z)", "ops.print_(z)")
    move = next(a for a in actions if a.title.startswith("Move lines") and "before it" in a.title)
    assert applied(cell, c2, move) == HEAD_MOVED.split("\n\n\n", 1)[1]


async def test_context_only_limits_the_actions_to_the_kinds_asked_for(client: LanguageClient):
    """VS Code's light bulb asks for `quickfix` only and warns about every other kind it is sent;
    `refactor` takes its sub-kind `refactor.rewrite`."""
    uri, diags = await open_and_diagnose(client, "only.py", NET, lambda ds: bool(by_code(ds, "graph-print")))
    diag = by_code(diags, "graph-print")[0]

    async def kinds(only):
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag], only=only)))
        return {a.kind for a in actions}

    every = await kinds(None)
    assert {types.CodeActionKind.QuickFix, types.CodeActionKind.RefactorRewrite} <= every
    assert await kinds([types.CodeActionKind.QuickFix]) == {types.CodeActionKind.QuickFix}
    assert await kinds([types.CodeActionKind.Refactor]) == {types.CodeActionKind.RefactorRewrite}
    assert await kinds([types.CodeActionKind.Source]) == set()
