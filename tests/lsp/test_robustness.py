"""Broken, half-typed and hostile texts never crash or block the server: it keeps the last good analysis,
says where the text stops parsing, and keeps answering."""

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .helpers import by_code, change_text, open_and_diagnose, pos, wait_diagnostics

pytestmark = pytest.mark.asyncio(loop_scope="module")

GOOD = """import spore as ms
from spore import nn, ops
ms.set_context(mode=ms.GRAPH_MODE)


class Net(nn.Cell):
    def construct(self, x):
        print(x)
        return ops.relu(x)
"""

BROKEN_TAILS = [
    "def f(:\n",
    "x = ops.\n",
    "y = (((\n",
    "z = 'unterminated\n",
    "a = 1\x00\n",
    "b = '\ud800'\n)",
    "c = [" + "1, " * 40000 + "\n",
    "d = " + "(" * 500 + "\n",
    "e = " + "1+" * 100000 + "1\n",
    "class\n",
    "   return return\n",
    "\t\tif if if\n",
]


async def test_broken_texts_keep_the_last_good_analysis_and_the_server_answers(client: LanguageClient):
    uri, diags = await open_and_diagnose(client, "broken.py", GOOD, lambda ds: bool(by_code(ds, "graph-print")))
    good_print = by_code(diags, "graph-print")[0]
    for i, tail in enumerate(BROKEN_TAILS):
        text = GOOD + "\n" * i + tail  # the breakage moves down a line each time, so each wait sees its own answer
        change_text(client, uri, text, i + 2)
        line = GOOD.count("\n") + i
        diags = await wait_diagnostics(client, uri, lambda ds, line=line: any(
            d.code == "spore-stale" and d.range.start.line >= line for d in ds))
        assert by_code(diags, "graph-print") == [good_print], f"the last good analysis is kept ({tail[:20]!r})"
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=pos(GOOD, "relu")))
        assert hover is not None and "relu" in hover.contents.value
    change_text(client, uri, GOOD.replace("print(x)", "y = x"), 100)
    diags = await wait_diagnostics(client, uri, lambda ds: not by_code(ds, "spore-stale"))
    assert diags == [], "fixing the text clears both the stale note and the fixed finding"


async def test_requests_on_unknown_documents_and_odd_positions_get_empty_answers(client: LanguageClient):
    doc = types.TextDocumentIdentifier(uri="file:///not/open.py")
    far = types.Position(line=10_000, character=10_000)
    assert await client.text_document_hover_async(types.HoverParams(text_document=doc, position=far)) is None
    assert await client.text_document_completion_async(types.CompletionParams(text_document=doc, position=far)) is None
    uri, _ = await open_and_diagnose(client, "odd.py", GOOD)
    known = types.TextDocumentIdentifier(uri=uri)
    assert await client.text_document_hover_async(types.HoverParams(text_document=known, position=far)) is None
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=known, range=types.Range(start=far, end=far), context=types.CodeActionContext(diagnostics=[])))
    assert [a.title for a in actions] == ["Switch this file to PYNATIVE_MODE"]


async def test_a_file_that_never_parsed_says_so_and_gets_no_other_findings(client: LanguageClient):
    _, diags = await open_and_diagnose(client, "never.py", "import spore as ms\nclass (:\n")
    assert [(d.code, d.range.start.line) for d in diags] == [("spore-stale", 1)]
    assert "resume" in diags[0].message
