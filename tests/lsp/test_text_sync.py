"""Incremental edits after a form feed or another character `str.splitlines` breaks at (but LSP does not)
land where the editor meant them (regression: pygls's own line split put them on the wrong line, and the
server's text silently differed from the editor's from then on)."""

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .helpers import by_code, open_and_diagnose, pos, uri_for, wait_diagnostics

pytestmark = pytest.mark.asyncio(loop_scope="module")

TEXT = """import spore as ms
from spore import nn
{odd}

class Net(nn.Module):
    def construct(self, x):
        return x
"""


@pytest.mark.parametrize("odd", ["\x0c", "# page\x0cbreak", "s = 'a\u2028b\u2029c'", "# \x0b\x1c\x1d\x1e\x85"])
async def test_an_incremental_edit_after_a_splitlines_only_line_break_lands_on_its_line(client: LanguageClient, odd):
    text = TEXT.format(odd=odd)
    uri, diags = await open_and_diagnose(client, "sync.py", text, lambda ds: bool(by_code(ds, "torch-module")))
    start = pos(text, "Module")
    assert by_code(diags, "torch-module")[0].range.start == start
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=start, end=types.Position(line=start.line, character=start.character + 6)),
            text="Cell")]))
    fixed = text.replace("nn.Module", "nn.Cell")
    # the server's text is now `fixed`: the same diagnostics as a fresh open of it (none)
    _, fresh = await open_and_diagnose(client, "sync-fresh.py", fixed)
    assert fresh == []
    assert await wait_diagnostics(client, uri, lambda ds: list(ds) == fresh) == []
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos(fixed, "Cell")))
    assert hover is not None and "Cell" in hover.contents.value, "the server's text has `nn.Cell` where the edit put it"


async def test_a_notebook_cell_with_a_form_feed_is_edited_in_place_too(client: LanguageClient):
    nb = uri_for("sync.ipynb")
    cell = nb + "#cell0"
    text = TEXT.format(odd="\x0c")
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(uri=nb, notebook_type="jupyter-notebook", version=1, cells=[
            types.NotebookCell(kind=types.NotebookCellKind.Code, document=cell)]),
        cell_text_documents=[types.TextDocumentItem(uri=cell, language_id="python", version=1, text=text)]))
    await wait_diagnostics(client, cell, lambda ds: bool(by_code(ds, "torch-module")))
    start = pos(text, "Module")
    end = types.Position(line=start.line, character=start.character + 6)
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(uri=nb, version=2),
        change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
            types.NotebookDocumentCellContentChanges(
                document=types.VersionedTextDocumentIdentifier(uri=cell, version=2),
                changes=[types.TextDocumentContentChangePartial(range=types.Range(start=start, end=end),
                                                                text="Cell")])]))))
    assert await wait_diagnostics(client, cell, lambda ds: not by_code(ds, "torch-module")) == []


async def test_edits_on_a_100k_character_line_cost_the_event_loop_little(client: LanguageClient):
    # pygls counts UTF-16 columns char by char in Python (25-60 ms a position on such a line, two per edit,
    # on the event loop); text_sync.LspPositionCodec does lines without astral characters in C
    text = "from spore import nn\ndata = '" + "x" * 100_000 + "'\n\nclass Net(nn.Module):\n    pass\n"
    uri, _ = await open_and_diagnose(client, "long.py", text, lambda ds: bool(by_code(ds, "torch-module")))
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    for v in range(2, 202):
        col = 50_000 + v
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=v),
            content_changes=[types.TextDocumentContentChangePartial(range=types.Range(
                start=types.Position(line=1, character=col), end=types.Position(line=1, character=col + 1)),
                text="y")]))
    # answered after the 200 notifications before it are applied (in order, on the event loop)
    await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos(text, "nn.Module", 4)))
    elapsed = loop.time() - t0
    assert elapsed < 5.0, f"200 edits on a 100k-character line and a hover took {elapsed:.1f} s"
    lines = text.split("\n")
    lines[1] = lines[1][:50_002] + "y" * 200 + lines[1][50_202:]
    expected = "\n".join(lines)
    _, fresh = await open_and_diagnose(client, "long-fresh.py", expected, lambda ds: bool(by_code(ds, "torch-module")))
    assert await wait_diagnostics(client, uri, lambda ds: list(ds) == fresh) == fresh
