"""A client that declares nothing (no Markdown, no notebook support) gets plain text and text sync only."""

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from .helpers import CONFIG, open_and_diagnose, pos

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def plain(lsp_client: LanguageClient):
    result = await lsp_client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities()))
    lsp_client.server_capabilities_seen = result.capabilities
    yield
    await lsp_client.shutdown_session()


async def test_hover_is_plain_text_and_no_notebook_sync_is_offered(plain: LanguageClient):
    assert plain.server_capabilities_seen.notebook_document_sync is None
    text = "from spore import ops\ny = ops.matmul\n"
    uri, _ = await open_and_diagnose(plain, "plain.py", text)
    hover = await plain.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos(text, "matmul")))
    assert hover.contents.kind == types.MarkupKind.PlainText and "ops.matmul(" in hover.contents.value
