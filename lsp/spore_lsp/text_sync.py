"""Incremental text sync that counts lines as LSP does.

LSP positions count lines ended by "\\n", "\\r\\n" or "\\r" only. pygls 2's `TextDocument.lines` uses
`str.splitlines`, which also breaks at "\\x0b", "\\x0c" (form feed, legal Python whitespace), "\\x1c"-"\\x1e",
"\\x85", "\\u2028" and "\\u2029": after such a character every incremental edit lands on the wrong line
and the server's text silently differs from the editor's. The workspace's documents are made as
`LspTextDocument`, whose lines follow the protocol's rule.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

from .server import SporeLanguageServer, guarded, server

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def lsp_lines(text: str) -> tuple[str, ...]:
    """`text`'s lines with their ends, split where LSP splits (as `splitlines(True)` for plain "\\n" text)."""
    return tuple(_LINE.findall(text))


class LspTextDocument(TextDocument):
    @property
    def lines(self) -> Sequence[str]:
        return lsp_lines(self.source)


class LspWorkspace(Workspace):
    def _create_text_document(self, doc_uri: str, source: str | None = None, version: int | None = None,
                              language_id: str | None = None) -> TextDocument:
        return LspTextDocument(doc_uri, source=source, version=version, language_id=language_id,
                               sync_kind=self._sync_kind, position_codec=self._position_codec)


@server.feature(types.INITIALIZE)
@guarded()
def on_initialize(ls: SporeLanguageServer, params: types.InitializeParams) -> None:
    # pygls makes the workspace just before this handler and no document exists yet: make it an LspWorkspace
    if type(ls.workspace) is Workspace:
        ls.workspace.__class__ = LspWorkspace
