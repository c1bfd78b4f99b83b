"""Shared pieces of the language-server tests: start the real server over stdio, open documents,
wait for the diagnostics the server publishes (no sleeps: each wait is on a notification), and apply
a WorkspaceEdit to a text the way an editor would."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Sequence
from itertools import count

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

CONFIG = ClientServerConfig(server_command=[sys.executable, "-m", "spore_lsp"],
                            server_env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
TIMEOUT = 30.0
_ids = count()


def uri_for(name: str) -> str:
    return f"file:///spore-lsp-test/{next(_ids)}/{name}"


async def initialize(client: LanguageClient) -> None:
    markdown = [types.MarkupKind.Markdown, types.MarkupKind.PlainText]
    await client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
            hover=types.HoverClientCapabilities(content_format=markdown),
            completion=types.CompletionClientCapabilities(completion_item=types.ClientCompletionItemOptions(
                documentation_format=markdown)),
            signature_help=types.SignatureHelpClientCapabilities(signature_information=types.ClientSignatureInformationOptions(
                documentation_format=markdown, parameter_information=types.ClientSignatureParameterInformationOptions(
                    label_offset_support=True), active_parameter_support=True)),
            code_action=types.CodeActionClientCapabilities(code_action_literal_support=types.ClientCodeActionLiteralOptions(
                code_action_kind=types.ClientCodeActionKindOptions(value_set=[types.CodeActionKind.QuickFix,
                                                                                types.CodeActionKind.RefactorRewrite])),
                is_preferred_support=True)),
        notebook_document=types.NotebookDocumentClientCapabilities(
            synchronization=types.NotebookDocumentSyncClientCapabilities()))))
    # Wait until the server has its API index (unknown-name checks run only with it), so tests see full results.
    uri = uri_for("warmup.py")
    open_text(client, uri, "from spore import ops\nops.reduce_summ\n")
    await wait_diagnostics(client, uri, lambda ds: any(d.code == "unknown-api" for d in ds))


def open_text(client: LanguageClient, uri: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))


def change_text(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


async def wait_diagnostics(client: LanguageClient, uri: str,
                           done: Callable[[Sequence[types.Diagnostic]], bool] = lambda ds: True,
                           timeout: float = TIMEOUT) -> list[types.Diagnostic]:
    """The diagnostics published for `uri` once they satisfy `done` (waits on publishDiagnostics)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        # registered before the check: a notification arriving after the check resolves it
        future = asyncio.wrap_future(client.protocol.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS))
        if uri in client.diagnostics and done(client.diagnostics[uri]):
            return list(client.diagnostics[uri])
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise AssertionError(f"no matching diagnostics for {uri}; last: {client.diagnostics.get(uri)}")
        try:
            await asyncio.wait_for(future, remaining)
        except TimeoutError:
            raise AssertionError(f"no matching diagnostics for {uri}; last: {client.diagnostics.get(uri)}") from None


async def open_and_diagnose(client: LanguageClient, name: str, text: str,
                            done: Callable[[Sequence[types.Diagnostic]], bool] = lambda ds: True
                            ) -> tuple[str, list[types.Diagnostic]]:
    uri = uri_for(name)
    open_text(client, uri, text)
    return uri, await wait_diagnostics(client, uri, done)


def offset(text: str, pos: types.Position) -> int:
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[:pos.line]) + pos.character


def apply_edits(text: str, edits: Sequence[types.TextEdit]) -> str:
    """Apply LSP text edits (ASCII test texts: UTF-16 columns are character columns)."""
    spans = sorted(((offset(text, e.range.start), offset(text, e.range.end), e.new_text) for e in edits),
                   reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def by_code(diags: Sequence[types.Diagnostic], code: str) -> list[types.Diagnostic]:
    return [d for d in diags if d.code == code]


def pos(text: str, needle: str, delta: int = 0) -> types.Position:
    """The position of the first `needle` in `text` (plus `delta` characters)."""
    i = text.index(needle) + delta
    line = text.count("\n", 0, i)
    return types.Position(line=line, character=i - (text.rfind("\n", 0, i) + 1))
