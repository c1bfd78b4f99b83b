"""Notebook documents (LSP 3.17 notebookDocument/* sync): the code cells are one program in order;
each diagnostic and edit lands on its own cell with cell-relative lines; a set_context in an earlier
cell governs a later cell, one in a later cell does not."""

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .helpers import apply_edits, by_code, uri_for, wait_diagnostics

pytestmark = pytest.mark.asyncio(loop_scope="module")

SETUP = "import spore as ms\nfrom spore import nn, ops\n"
NET = "class Net(nn.Cell):\n    def construct(self, x):\n        print(x)\n        return ops.reduce_summ(x)\n"


def open_notebook(client: LanguageClient, cells: list[str]) -> tuple[str, list[str]]:
    nb = uri_for("nb.ipynb")
    uris = [f"{nb}#cell{i}" for i in range(len(cells))]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(uri=nb, notebook_type="jupyter-notebook", version=1, cells=[
            types.NotebookCell(kind=types.NotebookCellKind.Code, document=u) for u in uris]),
        cell_text_documents=[types.TextDocumentItem(uri=u, language_id="python", version=1, text=t)
                             for u, t in zip(uris, cells)]))
    return nb, uris


async def test_a_diagnostic_in_cell_2_maps_to_cell_2_and_graph_mode_from_cell_1_applies(client: LanguageClient):
    nb, (c1, c2) = open_notebook(client, [SETUP + "ms.set_context(mode=ms.GRAPH_MODE)\n", NET])
    diags = await wait_diagnostics(client, c2, lambda ds: bool(by_code(ds, "graph-print")) and
                                   bool(by_code(ds, "unknown-api")))
    (d,) = by_code(diags, "graph-print")
    assert (d.range.start.line, d.range.start.character, d.range.end.character) == (2, 8, 16), "cell-relative"
    assert d.severity == types.DiagnosticSeverity.Warning, "GRAPH_MODE set in cell 1 makes it a graph break"
    (u,) = by_code(diags, "unknown-api")
    assert (u.range.start.line, u.range.start.character) == (3, 19)
    assert await wait_diagnostics(client, c1) == []

    # the quick fix edits cell 2 only, at cell-relative positions
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=c2), range=u.range,
        context=types.CodeActionContext(diagnostics=[u])))
    fix = next(a for a in actions if a.kind == types.CodeActionKind.QuickFix and a.is_preferred)
    assert list(fix.edit.changes) == [c2]
    assert apply_edits(NET, fix.edit.changes[c2]) == NET.replace("reduce_summ", "reduce_sum")

    # editing cell 1 back to PyNative changes cell 2's severity
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(uri=nb, version=2),
        change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
            types.NotebookDocumentCellContentChanges(
                document=types.VersionedTextDocumentIdentifier(uri=c1, version=2),
                changes=[types.TextDocumentContentChangeWholeDocument(text=SETUP)])]))))
    diags = await wait_diagnostics(client, c2, lambda ds: any(
        d.code == "graph-print" and d.severity == types.DiagnosticSeverity.Information for d in ds))
    assert len(by_code(diags, "graph-print")) == 1


async def test_graph_mode_set_in_a_later_cell_does_not_apply_to_an_earlier_one(client: LanguageClient):
    later = "ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)\n"
    _, (c1, c2, c3) = open_notebook(client, [SETUP, NET, later])
    diags = await wait_diagnostics(client, c2, lambda ds: bool(by_code(ds, "graph-print")))
    assert by_code(diags, "graph-print")[0].severity == types.DiagnosticSeverity.Information


async def test_magics_are_skipped_and_lines_stay_exact(client: LanguageClient):
    _, (c1, c2) = open_notebook(client, ["%matplotlib inline\n!pip list\n" + SETUP,
                                         "%%time\nprint(1)\n", ])
    _, (d1, d2, d3) = open_notebook(client, [SETUP + "%time x = 1\n", "ms.set_context(mode=ms.GRAPH_MODE)\n", NET])
    diags = await wait_diagnostics(client, d3, lambda ds: bool(by_code(ds, "graph-print")))
    d = by_code(diags, "graph-print")[0]
    assert d.range.start.line == 2 and d.severity == types.DiagnosticSeverity.Warning
    assert await wait_diagnostics(client, c1) == [] and await wait_diagnostics(client, c2) == []


async def test_switching_a_notebook_to_graph_mode_edits_the_cell_with_the_imports(client: LanguageClient):
    _, (c1, c2) = open_notebook(client, [SETUP, NET])
    await wait_diagnostics(client, c2, lambda ds: bool(by_code(ds, "graph-print")))
    at = types.Position(line=0, character=0)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=c2), range=types.Range(start=at, end=at),
        context=types.CodeActionContext(diagnostics=[])))
    (switch,) = [a for a in actions if a.title.startswith("Switch")]
    assert switch.title == "Switch this notebook to GRAPH_MODE" and list(switch.edit.changes) == [c1]
    assert apply_edits(SETUP, switch.edit.changes[c1]) == SETUP + "ms.set_context(mode=ms.GRAPH_MODE)\n"
