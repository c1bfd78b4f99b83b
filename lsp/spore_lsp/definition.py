"""Go to definition: a Spore API name to its definition in Spore's installed sources."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from .lookup import chain_at, cursor
from .server import SporeLanguageServer, guarded, server


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
@guarded()
def definition(ls: SporeLanguageServer, params: types.DefinitionParams) -> list[types.Location] | None:
    cur = cursor(ls, params.text_document.uri, params.position)
    if cur is None:
        return None
    found = chain_at(cur.text, cur.col)
    qual = cur.resolver.resolve(found[0]) if found else None
    api = ls.api(timeout=5.0) if qual else None
    entry = api.entry(qual) if api and qual else None
    if not entry or not entry.get("file") or not entry.get("line"):
        return None
    pos = types.Position(line=entry["line"] - 1, character=0)
    return [types.Location(uri=Path(entry["file"]).resolve().as_uri(), range=types.Range(start=pos, end=pos))]
