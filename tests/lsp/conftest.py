"""One real `python -m spore_lsp` per test module, over stdio."""

import pytest_lsp
from pytest_lsp import LanguageClient

from .helpers import CONFIG, initialize


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def client(lsp_client: LanguageClient):
    await initialize(lsp_client)
    yield
    await lsp_client.shutdown_session()
