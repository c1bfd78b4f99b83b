"""Diagnostics: publish each program's issues on open and change, per document (per notebook cell).

The first diagnostics go out at once, without waiting for the engine: the Graph-mode checks need only
the support table. When the API index has loaded in the background, every open program is analysed
again and republished with the checks that need Spore's public names (unknown names).
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from lsprotocol import types

from .analysis import Analysis, stale_issue
from .convert import diagnostics_by_uri
from .documents import Program
from .server import SporeLanguageServer, guarded, server


def publish_analysis(ls: SporeLanguageServer, current: Program, an: Analysis) -> None:
    """Publish an analysis's diagnostics on each document of `current` (each notebook cell)."""
    for err in an.errors:
        ls.log(f"spore-lsp: {current.key}: {err}", types.MessageType.Warning)
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


# Analyses run on one worker thread, so a long one (a 10,000-line file) never keeps the server from
# answering hovers and completions; a version superseded before its turn is skipped, and a result that
# is no longer the newest is dropped instead of published.
_WORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="spore-analysis")
_LATEST: dict[str, object] = {}


def publish(ls: SporeLanguageServer, uri: str) -> None:
    """Analyse the program holding `uri` (off the event loop) and publish its diagnostics."""
    current = ls.program_for(uri)  # a snapshot of the documents, taken on the loop thread
    if current is None:
        return
    token = object()
    _LATEST[current.key] = token
    api = ls.api()
    loop = asyncio.get_running_loop()

    def analyse() -> Analysis | None:
        if _LATEST.get(current.key) is not token:
            return None  # a newer version is queued: this one is stale before it starts
        return ls.analyses.get(current, api)

    def done(future: asyncio.Future) -> None:
        if future.cancelled() or _LATEST.get(current.key) is not token:
            return
        err = future.exception()
        if err is not None:
            ls.log(f"spore-lsp: analysing {current.key} failed: {err!r}", types.MessageType.Error)
            return
        an = future.result()
        if an is not None:
            try:
                publish_analysis(ls, current, an)
            except Exception as exc:  # noqa: BLE001
                ls.log(f"spore-lsp: publishing {current.key} failed: {exc!r}", types.MessageType.Error)

    loop.run_in_executor(_WORKER, analyse).add_done_callback(done)


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
    _LATEST.pop(params.text_document.uri, None)
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
    _LATEST.pop(params.notebook_document.uri, None)
    ls.analyses.drop(params.notebook_document.uri)
    for cell in params.cell_text_documents:
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=cell.uri, diagnostics=[]))

