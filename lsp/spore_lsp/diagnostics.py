"""Diagnostics: publish each program's issues on open and change, per document (per notebook cell).

The first diagnostics go out at once, without waiting for the engine: the Graph-mode checks need only
the support table. When the API index has loaded in the background, every open program is analysed
again and republished with the checks that need Spore's public names (unknown names).
"""

from __future__ import annotations

import asyncio

from lsprotocol import types

from .analysis import Analysis, Issue
from .convert import diagnostics_by_uri
from .documents import Program
from .server import SporeLanguageServer, guarded, server


def stale_issue(an: Analysis, current: Program) -> Issue | None:
    """An information-level note where the current text stops parsing: silence must not read as "checked"."""
    if an.syntax_error is None:
        return None
    line, col, msg = an.syntax_error
    text = current.line_text(line)
    col = min(col, len(text))
    what = ("showing Spore's diagnostics from the last version that parsed" if an.tree is not None
            else "Spore's checks resume when it parses")
    return Issue("spore-stale", f"this code does not parse here ({msg}); {what}", "information", line, col, line,
                 max(col + 1, len(text)) if col < len(text) else col)


def publish(ls: SporeLanguageServer, uri: str) -> None:
    """Analyse the program holding `uri` and publish the diagnostics of each of its documents."""
    current = ls.program_for(uri)
    if current is None:
        return
    an = ls.analyses.get(current, ls.api())
    for err in an.errors:
        ls.log(f"spore-lsp: {uri}: {err}", types.MessageType.Warning)
    by_uri = diagnostics_by_uri(an.program, an.issues if an.tree is not None else [])
    for chunk in current.chunks:
        by_uri.setdefault(chunk.uri, [])
    note = stale_issue(an, current)
    if note is not None:
        extra = diagnostics_by_uri(current, [note])
        for u, diags in extra.items():
            by_uri.setdefault(u, []).extend(diags)
    versions = {c.uri: c.version for c in current.chunks}
    for u, diags in by_uri.items():
        if u not in versions:
            continue  # a cell that has gone since the last good parse
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=u, diagnostics=diags,
                                                                            version=versions[u]))


def republish_all(ls: SporeLanguageServer) -> None:
    keys: set[str] = set()
    for nb in list(ls.workspace.notebook_documents.values()):
        keys.add(nb.uri)
    cells = {c.document for nb in ls.workspace.notebook_documents.values() for c in nb.cells}
    for uri in list(ls.workspace.text_documents):
        if uri not in cells:
            keys.add(uri)
    for key in sorted(keys):
        try:
            publish(ls, key)
        except Exception as err:  # noqa: BLE001
            ls.log(f"spore-lsp: republishing {key} failed: {err!r}", types.MessageType.Error)


@server.feature(types.INITIALIZED)
@guarded()
def on_initialized(ls: SporeLanguageServer, params: types.InitializedParams) -> None:
    loop = asyncio.get_running_loop()

    def loaded() -> None:
        if ls.api_loader.error is not None:
            loop.call_soon_threadsafe(ls.log, f"spore-lsp: the API index did not load: {ls.api_loader.error!r}",
                                      types.MessageType.Warning)
        loop.call_soon_threadsafe(republish_all, ls)

    ls.api_loader.start(loaded)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
@guarded()
def did_open(ls: SporeLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    if ls.workspace.get_notebook_document(cell_uri=params.text_document.uri) is None:
        publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
@guarded()
def did_change(ls: SporeLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
@guarded()
def did_close(ls: SporeLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.analyses.drop(params.text_document.uri)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri,
                                                                        diagnostics=[]))


@server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
@guarded()
def notebook_did_open(ls: SporeLanguageServer, params: types.DidOpenNotebookDocumentParams) -> None:
    publish(ls, params.notebook_document.uri)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
@guarded()
def notebook_did_change(ls: SporeLanguageServer, params: types.DidChangeNotebookDocumentParams) -> None:
    publish(ls, params.notebook_document.uri)
    structure = params.change.cells.structure if params.change.cells else None
    for closed in (structure.did_close or []) if structure else []:
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=closed.uri, diagnostics=[]))


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
@guarded()
def notebook_did_close(ls: SporeLanguageServer, params: types.DidCloseNotebookDocumentParams) -> None:
    ls.analyses.drop(params.notebook_document.uri)
    for cell in params.cell_text_documents:
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=cell.uri, diagnostics=[]))

