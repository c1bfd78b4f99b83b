"""Incremental text sync that counts lines as LSP does.

LSP positions count lines ended by "\\n", "\\r\\n" or "\\r" only. pygls 2's `TextDocument.lines` uses
`str.splitlines`, which also breaks at "\\x0b", "\\x0c" (form feed, legal Python whitespace), "\\x1c"-"\\x1e",
"\\x85", "\\u2028" and "\\u2029": after such a character every incremental edit lands on the wrong line
and the server's text silently differs from the editor's. The workspace's documents are made as
`LspTextDocument`, whose lines follow the protocol's rule.

pygls also converts every UTF-16 column by counting a line's characters one by one in Python: about
60 ms a position on a 100,000-character line, on the event loop, for each edit. `LspPositionCodec` does
the common case (a line with no character beyond the BMP, where UTF-16 columns are code points) in C.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace import PositionCodec, ServerTextPosition, TextDocument, Workspace
from pygls.workspace.position_codec import Utf16

from .server import SporeLanguageServer, guarded, server

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")


def lsp_lines(text: str) -> tuple[str, ...]:
    """`text`'s lines with their ends, split where LSP splits (as `splitlines(True)` for plain "\\n" text)."""
    return tuple(_LINE.findall(text))


class LspTextDocument(TextDocument):
    @property
    def lines(self) -> Sequence[str]:
        return lsp_lines(self.source)


class LspPositionCodec(PositionCodec):
    """pygls's codec with the same answers, in C where a line has no astral character (UTF-16 only)."""

    def client_num_units(self, string: str) -> int:
        if isinstance(self.impl, Utf16):
            return len(string) + len(_ASTRAL.findall(string))
        return super().client_num_units(string)

    def position_from_client_units(self, lines: Sequence[str], position: types.Position) -> ServerTextPosition:
        if isinstance(self.impl, Utf16) and 0 <= position.line < len(lines):
            line = lines[position.line].replace("\r\n", "\n")  # as pygls does
            if not _ASTRAL.search(line):  # pygls: past the line's length means its last character
                n, col = len(line), position.character
                return ServerTextPosition(position.line, col if col <= n else max(n - 1, 0))
        return super().position_from_client_units(lines, position)

    def position_to_client_units(self, lines: Sequence[str], position) -> types.Position:
        if isinstance(self.impl, Utf16) and 0 <= position.line < len(lines):
            part = lines[position.line][:position.character]
            if not _ASTRAL.search(part):
                return types.Position(line=position.line, character=len(part))
        return super().position_to_client_units(lines, position)


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
        if type(ls.workspace.position_codec) is PositionCodec:
            ls.workspace._position_codec = LspPositionCodec(ls.workspace.position_encoding)
