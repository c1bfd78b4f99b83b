"""The pygls `LanguageServer` and what every feature shares: programs, analyses, the API index.

Features live one per module (diagnostics, hover, completion, signature_help, code_actions,
definition); each is a small decorated function over `server.analysis_for(uri)`. Every handler is
wrapped by `guarded`, so an exception in one answer is logged (window/logMessage) and answered with
an empty result instead of taking the server down.
"""

from __future__ import annotations

import functools
import traceback
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import unquote

from lsprotocol import types
from pygls.capabilities import ServerCapabilitiesBuilder
from pygls.lsp.server import LanguageServer

from . import __version__
from .analysis import Analysis, AnalysisCache
from .api import ApiIndex, ApiLoader
from .documents import Program, from_cells, from_text

F = TypeVar("F", bound=Callable[..., Any])



def _utf16(cls: type, client_capabilities: types.ClientCapabilities) -> str:
    """The position encoding the server announces: always UTF-16. Every position it sends (convert.py, hover,
    inlay hints, edits) counts UTF-16 code units, the encoding every client must support; pygls would pick
    the client's first choice (utf-8 for Neovim 0.10+ and Helix), and columns after a non-ASCII character
    would then be off."""
    return types.PositionEncodingKind.Utf16


ServerCapabilitiesBuilder.choose_position_encoding = classmethod(_utf16)  # type: ignore[method-assign]

NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[types.NotebookDocumentFilterWithCells(cells=[types.NotebookCellLanguage(language="python")],
                                                             notebook="*")])


class SporeLanguageServer(LanguageServer):
    """The Spore language server: static analysis of Spore code, never running it."""

    def __init__(self) -> None:
        super().__init__("spore-lsp", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         notebook_document_sync=NOTEBOOK_SYNC)
        self.analyses = AnalysisCache()
        self.api_loader = ApiLoader()

    # ---- programs ---------------------------------------------------------------------------
    def program_for(self, uri: str) -> Program | None:
        """The program a document belongs to: its notebook's cells in order, or the text document alone.

        pygls keys `text_documents` by the *unquoted* URI, so lookups unquote too: VS Code's cell URIs end in
        a quoted fragment (`#W0sZmlsZQ%3D%3D`) and its file URIs quote spaces. The program keeps the URIs as
        the client sent them (diagnostics and edits go back under those)."""
        ws = self.workspace
        notebook = ws.get_notebook_document(cell_uri=uri) or ws.get_notebook_document(notebook_uri=uri)
        if notebook is not None:
            cells = []
            for cell in notebook.cells:
                if cell.kind != types.NotebookCellKind.Code:
                    continue
                doc = ws.text_documents.get(unquote(cell.document))
                if doc is None or (doc.language_id or "python") != "python":
                    continue
                cells.append((cell.document, doc.source, doc.version))
            return from_cells(notebook.uri, notebook.version, cells)
        doc = ws.text_documents.get(unquote(uri))
        if doc is None:
            return None
        return from_text(uri, doc.source, doc.version)

    def api(self, timeout: float = 0.0) -> ApiIndex | None:
        """The API index, waiting at most `timeout` seconds for the background load."""
        return self.api_loader.get(timeout)

    def analysis_for(self, uri: str) -> Analysis | None:
        program = self.program_for(uri)
        if program is None:
            return None
        return self.analyses.get(program, self.api())

    def markup(self, value: str, feature: str) -> types.MarkupContent:
        """Markdown where the client says it renders it for `feature` ("hover", "completion", "signature"),
        else (not declared, or not listed) the same text as plain text."""
        kinds = None
        try:
            td = self.client_capabilities.text_document
            if feature == "hover" and td and td.hover:
                kinds = td.hover.content_format
            elif feature == "completion" and td and td.completion and td.completion.completion_item:
                kinds = td.completion.completion_item.documentation_format
            elif feature == "signature" and td and td.signature_help and td.signature_help.signature_information:
                kinds = td.signature_help.signature_information.documentation_format
        except AttributeError:
            kinds = None
        kind = types.MarkupKind.Markdown if kinds and types.MarkupKind.Markdown in kinds else types.MarkupKind.PlainText
        return types.MarkupContent(kind=kind, value=value)

    def log(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        try:
            self.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:  # noqa: BLE001 - logging must never raise
            pass


server = SporeLanguageServer()


def guarded(default: Any = None) -> Callable[[F], F]:
    """Wrap a handler so that an exception is logged and answered with `default`, never raised."""

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def inner(ls: SporeLanguageServer, params: Any) -> Any:
            try:
                return fn(ls, params)
            except Exception:  # noqa: BLE001 - a bad answer must not kill the server
                ls.log(f"spore-lsp: {fn.__name__} failed:\n{traceback.format_exc()}", types.MessageType.Error)
                return default

        return inner  # type: ignore[return-value]

    return wrap
