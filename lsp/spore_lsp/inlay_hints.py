"""Inlay hints: the shape and dtype static shape inference gives each assignment in `construct`
(``x = self.pool(x)  ‹(32, 16, 16, 16) f32›``), from the same analysis the diagnostics publish."""

from __future__ import annotations

from lsprotocol import types

from .documents import to_utf16
from .server import SporeLanguageServer, guarded, server
from .shapes import ConstructShapes, label


@server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
@guarded(default=[])
def inlay_hints(ls: SporeLanguageServer, params: types.InlayHintParams) -> list[types.InlayHint]:
    uri = params.text_document.uri
    an = ls.analysis_for(uri)
    if an is None or an.tree is None or an.stale:  # a stale analysis's positions may not fit the text
        return []
    first, last = params.range.start.line, params.range.end.line
    # one hint per statement: a loop body unrolled over a CellList binds the same line once per iteration,
    # shown as one hint of its distinct shapes in order ("‹(2, 16) f32 | (2, 8) f32›")
    at: dict[tuple[int, int, str], list[str]] = {}
    for fn in an.functions:
        rec = fn.facts.get("shapes")
        if not isinstance(rec, ConstructShapes):
            continue
        for step in rec.steps:
            if not step.hint:  # a value joined after an `if` or restored at a branch: hover only
                continue
            text = label(step.value)
            if text is None:
                continue
            texts = at.setdefault((step.end_line, step.end_col, step.name), [])
            if text not in texts:
                texts.append(text)
    out: list[types.InlayHint] = []
    for (line, col, _), texts in at.items():
        hint_uri, local = an.program.to_local(line)
        if hint_uri != uri or not first <= local <= last:
            continue
        character = to_utf16(an.program.line_text(line), col)
        out.append(types.InlayHint(position=types.Position(line=local, character=character),
                                   label="‹" + " | ".join(texts) + "›", kind=types.InlayHintKind.Type,
                                   padding_left=True))
    return out
