"""Static tensor shapes over real stdio: the wrong `nn.Dense(16 * 16 * 8, 10)` after conv/pool/flatten is an
error on its line with both numbers and a quick fix; a network the real engine runs gets no shape error, and
its inlay hints and hovers are the shapes the real engine computes (the test runs the same network, in this
process, as the oracle); where inference stops there is one information note and no error; notebooks too."""

from __future__ import annotations

import numpy as np
import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .helpers import apply_edits, by_code, open_and_diagnose, pos, uri_for, wait_diagnostics

pytestmark = pytest.mark.asyncio(loop_scope="module")

NET = '''import numpy as np
import spore as ms
from spore import nn, ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, pad_mode="pad", padding=1)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(16 * 16 * 8, 10)

    def construct(self, x):
        x = self.conv(x)
        x = self.relu(x)
        x = self.pool(x)
        x = self.flatten(x)
        x = self.fc(x)
        return x


net = Net()
out = net(ms.Tensor(np.ones((4, 3, 32, 32), np.float32)))
'''
GOOD = NET.replace("nn.Dense(16 * 16 * 8, 10)", "nn.Dense(4096, 10)")


def run_in_process(source: str) -> list[tuple[tuple[int, ...], str]]:
    """The oracle: the same network run by the real engine here (not in the server), step by step."""
    import spore as ms

    namespace: dict = {}
    exec(compile(source, "<oracle>", "exec"), namespace)  # the test's own text, run by the test, never the server
    net = namespace["Net"]()
    x = ms.Tensor(np.ones((4, 3, 32, 32), np.float32))
    shapes = [(tuple(x.shape), x.dtype.name)]
    for attr in ("conv", "relu", "pool", "flatten", "fc"):
        x = getattr(net, attr)(x)
        shapes.append((tuple(x.shape), x.dtype.name))
    assert tuple(namespace["out"].shape) == shapes[-1][0]
    return shapes


def has(code: str):
    return lambda ds: bool(by_code(ds, code))


async def hints(client: LanguageClient, uri: str, text: str) -> list[types.InlayHint]:
    whole = types.Range(start=types.Position(line=0, character=0),
                        end=types.Position(line=text.count("\n"), character=0))
    return await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=whole))


async def test_wrong_dense_is_an_error_with_both_numbers_and_a_fix_that_corrects_it(client: LanguageClient):
    uri, diags = await open_and_diagnose(client, "net.py", NET, has("shape-mismatch"))
    (d,) = by_code(diags, "shape-mismatch")
    assert d.severity == types.DiagnosticSeverity.Error and d.source == "spore"
    assert d.range.start == pos(NET, "self.fc(x)") and d.range.end == pos(NET, "self.fc(x)", len("self.fc(x)"))
    assert d.message == ("fc expects 2048 input features (nn.Dense(16 * 16 * 8, 10), line 13) but receives 4096 "
                         "from self.flatten (line 19)")
    assert not by_code(diags, "shape-stopped")
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=d.range,
        context=types.CodeActionContext(diagnostics=[d])))
    (fix,) = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
    assert fix.title == "Change fc's in_channels to 4096"
    assert apply_edits(NET, fix.edit.changes[uri]) == GOOD


async def test_the_engine_refuses_what_the_server_flags(client: LanguageClient):
    """The negative oracle: the flagged network really fails in the engine, on the same layer."""
    import spore as ms

    with pytest.raises(ms.ide.ShapeError, match="Dense"):
        run_in_process(NET)


async def test_a_network_the_engine_runs_has_no_shape_error_and_hints_are_the_engine_shapes(client: LanguageClient):
    expected = run_in_process(GOOD)  # the real engine accepts it, and these are its shapes
    uri, diags = await open_and_diagnose(client, "good.py", GOOD)
    assert not by_code(diags, "shape-mismatch") and not by_code(diags, "shape-stopped"), diags
    got = await hints(client, uri, GOOD)
    short = {"float32": "f32"}
    want = [f"‹({', '.join(map(str, s))}{',' if len(s) == 1 else ''}) {short[dt]}›" for s, dt in expected]
    assert [h.label for h in got] == want
    lines = [h.position.line for h in got]
    assert lines == [14, 15, 16, 17, 18, 19], "after the parameter x, then after each assignment in construct"
    assert got[1].position.character == len("        x = self.conv(x)")


async def test_hover_on_a_variable_shows_its_shape_and_dtype(client: LanguageClient):
    uri, _ = await open_and_diagnose(client, "hover.py", GOOD)
    # x on the left of `x = self.pool(x)` is the pooled tensor; the x it reads is the previous one
    at_target = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos(GOOD, "x = self.pool(x)")))
    assert at_target is not None and "(4, 16, 16, 16) f32" in at_target.contents.value
    read = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos(GOOD, "self.pool(x)", len("self.pool("))))
    assert read is not None and "(4, 16, 32, 32) f32" in read.contents.value
    api = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos(GOOD, "nn.Dense", 4)))
    assert api is not None and "Dense" in api.contents.value and "Static shape" not in api.contents.value


STOPPED = '''import spore as ms
from spore import nn, ops


from mylib import helper



class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(8, 4)
        self.fc2 = nn.Dense(3, 2)

    # spore: input_shape=(B, 8)
    def construct(self, x):
        x = self.fc(x)
        y = helper(x)
        z = self.fc2(y)
        return z
'''


async def test_an_unknown_call_stops_inference_with_one_note_and_no_error(client: LanguageClient):
    uri, diags = await open_and_diagnose(client, "stopped.py", STOPPED, has("shape-stopped"))
    (d,) = by_code(diags, "shape-stopped")
    assert d.severity == types.DiagnosticSeverity.Information
    assert d.range.start == pos(STOPPED, "= helper(x)", 2) and "helper" in d.message
    assert not by_code(diags, "shape-mismatch"), "self.fc2 gets an unknown input: never a guessed error"
    got = await hints(client, uri, STOPPED)
    assert [h.label for h in got] == ["‹(B, 8) f32›", "‹(B, 4) f32›"], "symbolic B from the comment"


async def test_a_symbolic_batch_still_finds_the_mismatch(client: LanguageClient):
    text = STOPPED.replace("        y = helper(x)\n", "        y = x\n")
    _, diags = await open_and_diagnose(client, "sym.py", text, has("shape-mismatch"))
    (d,) = by_code(diags, "shape-mismatch")
    assert d.message.startswith("fc2 expects 3 input features (nn.Dense(3, 2), line 13) but receives 4 from self.fc")
    assert not by_code(diags, "shape-stopped")


async def test_a_notebook_is_one_program_and_the_error_lands_on_its_cell(client: LanguageClient):
    head, rest = NET.split("class Net", 1)
    body, call = ("class Net" + rest).split("\n\nnet = Net()", 1)
    cells = [head, body + "\n", "net = Net()" + call.replace("np.ones((4, 3, 32, 32), np.float32)",
                                                              "np.ones((2, 3, 32, 32), np.float32)")]
    nb = uri_for("shapes.ipynb")
    uris = [f"{nb}#cell{i}" for i in range(len(cells))]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(uri=nb, notebook_type="jupyter-notebook", version=1, cells=[
            types.NotebookCell(kind=types.NotebookCellKind.Code, document=u) for u in uris]),
        cell_text_documents=[types.TextDocumentItem(uri=u, language_id="python", version=1, text=t)
                             for u, t in zip(uris, cells)]))
    diags = await wait_diagnostics(client, uris[1], has("shape-mismatch"))
    (d,) = by_code(diags, "shape-mismatch")
    assert d.range.start == pos(cells[1], "self.fc(x)"), "cell-relative"
    assert d.message == ("fc expects 2048 input features (nn.Dense(16 * 16 * 8, 10), line 8) but receives 4096 "
                         "from self.flatten (line 14)")
    got = await hints(client, uris[1], cells[1])
    assert [h.label for h in got][:2] == ["‹(2, 3, 32, 32) f32›", "‹(2, 16, 32, 32) f32›"], "input from cell 3"
    assert await wait_diagnostics(client, uris[2]) == []


NESTED = '''import numpy as np
import spore as ms
from spore import nn, ops

N = 8


class Block(nn.Cell):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.body = nn.SequentialCell([nn.Conv2d(c_in, c_out, 3), nn.BatchNorm2d(c_out), nn.ReLU()])

    def construct(self, x):
        return self.body(x)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.b1 = Block(3, N)
        self.b2 = Block(N * 2, 16)

    # spore: input_shape=((B, 3, 8, 8), (B, 5))
    def construct(self, x, y):
        h = self.b1(x)
        h2 = ops.concat((h, h), axis=1)
        h3 = self.b2(h2)
        z = ops.flatten(h3) + 1
        a, b = ops.split(z, 512, axis=1)
        w = z[:, :10] @ ops.ones((10, 3))
        return w.transpose(1, 0), y * 2
'''


async def test_user_cells_sequential_cells_ops_and_symbolic_batch_follow_the_engine(client: LanguageClient,
                                                                                      tmp_path):
    import importlib.util

    import spore as ms
    from spore import ide, ops

    path = tmp_path / "nested_oracle.py"  # the oracle, imported by the test process (Graph mode reads its source)
    path.write_text(NESTED)
    spec = importlib.util.spec_from_file_location("nested_oracle", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    net = module.Net()
    net.set_train(False)
    x, y = ops.ones((2, 3, 8, 8), ms.float32), ops.ones((2, 5), ms.float32)
    ide.compile_graph(net, (x, y))  # Graph mode accepts it as one graph
    h = net.b1(x)
    h2 = ops.concat((h, h), axis=1)
    h3 = net.b2(h2)
    z = ops.flatten(h3) + 1
    a, b = ops.split(z, 512, axis=1)
    w = z[:, :10] @ ops.ones((10, 3))
    real = [x, y, h, h2, h3, z, a, b, w]
    want = ["‹(" + ", ".join(["B", *map(str, t.shape[1:])]) + ") f32›" for t in real]

    uri, diags = await open_and_diagnose(client, "nested.py", NESTED)
    assert not by_code(diags, "shape-mismatch") and not by_code(diags, "shape-stopped"), diags
    got = await hints(client, uri, NESTED)
    construct_line = NESTED.count("\n", 0, NESTED.index("def construct(self, x, y)"))
    assert [h.label for h in got if h.position.line >= construct_line] == want


@pytest.mark.parametrize("case, source", [
    ("an attribute set again under an if", '''
class Net(nn.Cell):
    def __init__(self, big=False):
        super().__init__()
        self.fc = nn.Dense(3, 2)
        if big:
            self.fc = nn.Dense(4, 2)

    # spore: input_shape=(B, 4)
    def construct(self, x):
        return self.fc(x)
'''),
    ("an attribute replaced on the instance", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        return self.fc(x)


net = Net()
net.fc = nn.Dense(4, 2)
net(ops.ones((2, 4)))
'''),
    ("an input_shape comment says nothing of the dtype", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)

    # spore: input_shape=(B, 7)
    def construct(self, ids):
        return self.emb(ids)
'''),
])
async def test_when_unsure_it_says_where_it_stopped_and_never_errs(client: LanguageClient, case, source):
    text = "import spore as ms\nfrom spore import nn, ops\n" + source
    _, diags = await open_and_diagnose(client, "unsure.py", text, has("shape-stopped"))
    assert not by_code(diags, "shape-mismatch"), case
    assert len(by_code(diags, "shape-stopped")) == 1


async def test_integer_inputs_from_a_call_site_keep_their_dtype(client: LanguageClient):
    text = '''import numpy as np
import spore as ms
from spore import nn


class Net(nn.Cell):
    def __init__(self, vocab=100, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.fc = nn.Dense(dim * 2, 4)

    def construct(self, ids):
        e = self.emb(ids)
        e = e.reshape(e.shape[0], -1)
        return self.fc(e)


Net(dim=8)(ms.Tensor(np.zeros((3, 2), np.int32)))
'''
    uri, diags = await open_and_diagnose(client, "ints.py", text)
    assert not by_code(diags, "shape-mismatch") and not by_code(diags, "shape-stopped"), diags
    assert [h.label for h in await hints(client, uri, text)] == ["‹(3, 2) i32›", "‹(3, 2, 8) f32›", "‹(3, 16) f32›"]
    three = text.replace("np.zeros((3, 2)", "np.zeros((3, 3)")
    _, diags = await open_and_diagnose(client, "ints3.py", three, has("shape-mismatch"))
    (d,) = by_code(diags, "shape-mismatch")
    assert d.message == ("fc expects 16 input features (nn.Dense(dim * 2, 4), line 10) but receives 24 from .reshape "
                         "(line 14)")


FOLLOWED = '''import spore as ms
from spore import nn, ops


def scale(t, k=2):
    return t * k


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(8, 4)
        self.out = nn.Dense(5, 2)

    def head(self, h):
        return self.out(h)

    # spore: input_shape=(B, 8)
    def construct(self, x):
        x = scale(self.fc(x))
        y = self.head(x)
        return y
'''


async def test_helpers_the_construct_calls_are_followed(client: LanguageClient):
    uri, diags = await open_and_diagnose(client, "followed.py", FOLLOWED, has("shape-mismatch"))
    (d,) = by_code(diags, "shape-mismatch")
    assert d.range.start == pos(FOLLOWED, "self.out(h)"), "the refusal is flagged inside the method, where it is"
    assert d.message.startswith("out expects 5 input features (nn.Dense(5, 2), line 13) but receives 4 from scale")
    assert [h.label for h in await hints(client, uri, FOLLOWED)] == ["‹(B, 8) f32›", "‹(B, 4) f32›"]
    fixed = FOLLOWED.replace("nn.Dense(5, 2)", "nn.Dense(4, 2)")
    uri, diags = await open_and_diagnose(client, "followed2.py", fixed)
    assert not by_code(diags, "shape-mismatch") and not by_code(diags, "shape-stopped"), diags
    assert [h.label for h in await hints(client, uri, fixed)] == ["‹(B, 8) f32›", "‹(B, 4) f32›", "‹(B, 2) f32›"]


LOOPED = '''import numpy as np
import spore as ms
from spore import nn, ops


class Encoder(nn.Cell):
    def __init__(self, dim=16, depth=3):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.blocks = nn.CellList([nn.Dense(dim, dim), nn.Dense(dim, dim), nn.Dense(dim, dim)])
        self.norms = nn.CellList([nn.LayerNorm((dim,)), nn.LayerNorm((dim,)), nn.LayerNorm((dim,))])
        self.depth = depth
        self.head = nn.Dense(dim, 3)

    def construct(self, x):
        a, w = self.attn(x, x, x)
        print(a)
        for blk in self.blocks:
            a = blk(a)
        for i in range(self.depth):
            a = self.norms[i](a)
        return self.head(a), w


enc = Encoder()
out = enc(ops.ones((2, 5, 16)))
'''


async def test_cell_lists_loops_and_tuple_outputs_follow_the_engine(client: LanguageClient, tmp_path):
    import importlib.util

    path = tmp_path / "looped_oracle.py"
    path.write_text(LOOPED)
    spec = importlib.util.spec_from_file_location("looped_oracle", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # the oracle: the real engine runs it here
    head, w = module.out
    uri, diags = await open_and_diagnose(client, "looped.py", LOOPED)
    assert not by_code(diags, "shape-mismatch") and not by_code(diags, "shape-stopped"), diags
    labels = [h.label for h in await hints(client, uri, LOOPED)]
    assert labels[:3] == ["‹(2, 5, 16) f32›", "‹(2, 5, 16) f32›", f"‹{tuple(w.shape)} f32›"], "x, then a, w unpacked"
    assert labels[3:] == ["‹(2, 5, 16) f32›", "‹(2, 5, 16) f32›"], "one hint per loop body line"
    assert tuple(head.shape) == (2, 5, 3)
    wrong = LOOPED.replace("nn.Dense(dim, dim), nn.Dense(dim, dim)])", "nn.Dense(dim, dim), nn.Dense(8, dim)])")
    _, diags = await open_and_diagnose(client, "looped2.py", wrong, has("shape-mismatch"))
    (d,) = by_code(diags, "shape-mismatch")
    assert d.range.start == pos(wrong, "blk(a)")
    assert d.message.startswith("blocks[2] expects 8 input features (nn.Dense(8, dim), line 10) but receives 16")
