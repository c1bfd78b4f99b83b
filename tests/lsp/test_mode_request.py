"""`spore/mode` over real stdio: the mode at a position, where it comes from, whether the code there runs
compiled, and the mode to switch to; notebooks take the last set_context up to the cell; applying the
server's own "Switch this file to <switchTo>" action flips the answer; bad params get a clear error."""

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from .helpers import apply_edits, change_text, open_and_diagnose, open_text, uri_for, wait_diagnostics

pytestmark = pytest.mark.asyncio(loop_scope="module")

HEAD = "import spore as ms\nfrom spore import nn, ops\n"
NET = ("class Net(nn.Cell):\n"
       "    def construct(self, x):\n"
       "        return ops.relu(x)\n"
       "\n"
       "@ms.jit\n"
       "def step(x):\n"
       "    return x + 1\n"
       "\n"
       "def plain(x):\n"
       "    return x * 2\n")


async def mode(client: LanguageClient, uri: str, line: int | None, character: int = 8) -> dict:
    params: dict = {"textDocument": {"uri": uri}}
    if line is not None:
        params["position"] = {"line": line, "character": character}
    return plain(await client.protocol.send_request_async("spore/mode", params))


def plain(value):
    """The answer as JSON data (pygls's client hands a custom request's result over as nested namedtuples)."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    return value


def line_of(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n")


async def test_default_mode_without_set_context(client: LanguageClient):
    text = HEAD + NET
    uri, _ = await open_and_diagnose(client, "default.py", text)
    at_construct = await mode(client, uri, line_of(text, "return ops.relu"))
    assert at_construct["mode"] == "PYNATIVE_MODE" and at_construct["source"] == "default (PYNATIVE_MODE)"
    assert at_construct["sourceLocation"] is None
    assert at_construct["compiled"] is False, "a construct under PYNATIVE_MODE runs op by op"
    assert at_construct["switchTo"] == "GRAPH_MODE" and at_construct["spore"] is True
    at_jit = await mode(client, uri, line_of(text, "return x + 1"))
    assert at_jit["compiled"] is True and at_jit["compiledScope"] == "step", "@jit compiles in either mode"


async def test_graph_mode_names_its_line_and_compiled_code(client: LanguageClient):
    text = HEAD + "ms.set_context(device_target='CPU')\nms.set_context(mode=ms.GRAPH_MODE)\n" + NET
    uri, _ = await open_and_diagnose(client, "graph.py", text)
    construct = await mode(client, uri, line_of(text, "return ops.relu"))
    assert construct["mode"] == "GRAPH_MODE"
    assert construct["source"] == "set_context at line 4", "the call that sets the mode, 1-based"
    assert construct["sourceLocation"] == {"uri": uri, "line": 3}
    assert construct["compiled"] is True and construct["compiledScope"] == "Net.construct"
    assert construct["switchTo"] == "PYNATIVE_MODE"
    plain = await mode(client, uri, line_of(text, "return x * 2"))
    assert plain["mode"] == "GRAPH_MODE" and plain["compiled"] is False, "a plain function is not compiled"
    top = await mode(client, uri, None)
    assert top["mode"] == "GRAPH_MODE" and top["compiled"] is False


async def test_a_file_without_spore_says_so(client: LanguageClient):
    uri, _ = await open_and_diagnose(client, "plain.py", "x = 1\n")
    got = await mode(client, uri, 0)
    assert got["spore"] is False and got["mode"] == "PYNATIVE_MODE"


async def test_mode_from_a_variable_is_unknown(client: LanguageClient):
    text = HEAD + "m = ms.GRAPH_MODE\nms.set_context(mode=m)\n"
    uri, _ = await open_and_diagnose(client, "var.py", text)
    got = await mode(client, uri, 0)
    assert got["mode"] == "UNKNOWN" and got["source"] == "set_context at line 4 (mode from a variable)"
    assert got["switchTo"] == "GRAPH_MODE"


async def test_applying_the_switch_action_flips_the_mode(client: LanguageClient):
    """What the status bar's click does: ask for refactor.rewrite actions, take the one titled with
    switchTo, apply it; the next spore/mode answer has the other mode."""
    text = HEAD + "ms.set_context(mode=ms.GRAPH_MODE)\n" + NET
    uri, _ = await open_and_diagnose(client, "flip.py", text)
    version = 1
    for expected in ("GRAPH_MODE", "PYNATIVE_MODE", "GRAPH_MODE"):
        got = await mode(client, uri, line_of(text, "return ops.relu"))
        assert got["mode"] == expected
        at = types.Position(line=line_of(text, "return ops.relu"), character=8)
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=types.Range(start=at, end=at),
            context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.RefactorRewrite])))
        (switch,) = [a for a in actions if a.title == f"Switch this file to {got['switchTo']}"]
        text = apply_edits(text, switch.edit.changes[uri])
        assert f"ms.set_context(mode=ms.{got['switchTo']})" in text
        version += 1
        change_text(client, uri, text, version)
        await wait_diagnostics(client, uri, lambda ds: True)


async def test_notebook_takes_the_last_set_context_up_to_the_cell(client: LanguageClient):
    nb = uri_for("mode.ipynb")
    cells = [HEAD, "ms.set_context(mode=ms.GRAPH_MODE)\n", NET, "ms.set_context(mode=ms.PYNATIVE_MODE)\n", "x = 1\n"]
    uris = [f"{nb}#cell{i}" for i in range(len(cells))]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(uri=nb, notebook_type="jupyter-notebook", version=1, cells=[
            types.NotebookCell(kind=types.NotebookCellKind.Code, document=u) for u in uris]),
        cell_text_documents=[types.TextDocumentItem(uri=u, language_id="python", version=1, text=t)
                             for u, t in zip(uris, cells)]))
    await wait_diagnostics(client, uris[0])
    first = await mode(client, uris[0], 0)
    assert first["mode"] == "PYNATIVE_MODE" and first["source"] == "default (PYNATIVE_MODE)"
    net = await mode(client, uris[2], 2)
    assert net["mode"] == "GRAPH_MODE" and net["source"] == "set_context at cell 2, line 1"
    assert net["sourceLocation"] == {"uri": uris[1], "line": 0}
    assert net["compiled"] is True and net["compiledScope"] == "Net.construct"
    last = await mode(client, uris[4], 0)
    assert last["mode"] == "PYNATIVE_MODE" and last["source"] == "set_context at cell 4, line 1"
    whole = await mode(client, nb, None)
    assert whole["mode"] == "PYNATIVE_MODE", "the notebook's own URI: after its last cell"


@pytest.mark.parametrize("params, names", [
    ({}, "params.textDocument.uri"),
    ({"textDocument": {"uri": 3}}, "params.textDocument.uri"),
    ({"textDocument": {"uri": "file:///x.py"}, "position": {"line": -1, "character": 0}}, "params.position.line"),
    ({"textDocument": {"uri": "file:///x.py"}, "position": {"line": "2"}}, "params.position.line"),
    ({"textDocument": {"uri": "file:///never-opened.py"}}, "file:///never-opened.py is not open"),
])
async def test_bad_params_get_an_error_naming_the_field(client: LanguageClient, params, names):
    with pytest.raises(JsonRpcException) as err:
        await client.protocol.send_request_async("spore/mode", params)
    assert names in str(err.value)
    # the server is still answering
    uri, _ = await open_and_diagnose(client, "after.py", HEAD)
    assert (await mode(client, uri, 0))["mode"] == "PYNATIVE_MODE"


async def test_cell_and_file_uris_with_escapes_as_vs_code_sends_them(client: LanguageClient):
    """VS Code's cell URIs end in a quoted base64 fragment (`#W0sZmlsZQ%3D%3D`) and file URIs quote spaces;
    pygls keys its documents by the unquoted URI, so the server must look them up that way too (before,
    a VS Code notebook was analysed as an empty program: "default (PYNATIVE_MODE)", no Spore)."""
    nb = uri_for("my%20nb.ipynb")
    uris = [f"vscode-notebook-cell:{nb[len('file:'):]}#W{i}sZmlsZQ%3D%3D" for i in range(2)]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(uri=nb, notebook_type="jupyter-notebook", version=1, cells=[
            types.NotebookCell(kind=types.NotebookCellKind.Code, document=u) for u in uris]),
        cell_text_documents=[types.TextDocumentItem(uri=u, language_id="python", version=1, text=t)
                             for u, t in zip(uris, [HEAD + "ms.set_context(mode=ms.GRAPH_MODE)\n", NET])]))
    await wait_diagnostics(client, uris[1])
    got = await mode(client, uris[1], 2)
    assert got["mode"] == "GRAPH_MODE" and got["source"] == "set_context at cell 1, line 3"
    assert got["sourceLocation"] == {"uri": uris[0], "line": 2}, "locations keep the URI the client sent"
    assert got["compiled"] is True and got["spore"] is True
    spaced = uri_for("my%20model.py")
    open_text(client, spaced, HEAD + "ms.set_context(mode=ms.GRAPH_MODE)\n")
    await wait_diagnostics(client, spaced)
    assert (await mode(client, spaced, 0))["mode"] == "GRAPH_MODE"
