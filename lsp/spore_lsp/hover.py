"""Hover: the signature, defaults, docs and shape rule of the Spore API name under the cursor, as Markdown."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from .documents import to_utf16
from .lookup import chain_at, cursor
from .server import SporeLanguageServer, guarded, server


def markdown(entry: dict[str, Any], shape_rule: str | None) -> str:
    """One API entry as hover Markdown: signature block, defaults, doc, shape rule, where it is defined."""
    qual = entry["qualname"].removeprefix("spore.")
    shown = ("ms." + qual) if entry["namespace"] == "spore" else qual
    sig = entry.get("signature") or ""
    head = f"({entry['kind']}) {shown}{sig}" if entry["kind"] != "constant" else f"(constant) {shown}{sig}"
    parts = [f"```python\n{head}\n```"]
    defaults = [f"`{p['name']}={p['default']}`" for p in entry.get("params", []) if p.get("default") is not None]
    if defaults:
        parts.append("**Defaults:** " + ", ".join(defaults))
    if entry.get("doc"):
        parts.append(entry["doc"])
    if shape_rule:
        parts.append(f"**Shape rule:** `{shape_rule}`")
    if entry.get("file") and entry.get("line"):
        parts.append(f"*Defined in* `{entry['module']}` (line {entry['line']})")
    return "\n\n".join(parts)


def shape_hover(ls: SporeLanguageServer, cur: Any, dotted: str, start: int, end: int, line: int) -> types.Hover | None:
    """A variable inside `construct`: the shape and dtype static shape inference gives it there."""
    from .shapes import label, value_of

    an = cur.analysis
    if "." in dotted or an is None or an.stale or an.tree is None:
        return None
    text = label(value_of(an, dotted, cur.line, start))
    if text is None:
        return None
    rng = types.Range(start=types.Position(line=line, character=to_utf16(cur.text, start)),
                      end=types.Position(line=line, character=to_utf16(cur.text, end)))
    body = f"```python\n{dotted}: Tensor {text}\n```\n\n*Static shape, from the engine's shape rules*"
    if " | " in text:  # a join: an `if` on a run-time value, or a dataset's full and short last batch
        body += "\n\n*One shape per path the code can take to here*"
    return types.Hover(contents=ls.markup(body, "hover"), range=rng)


@server.feature(types.TEXT_DOCUMENT_HOVER)
@guarded()
def hover(ls: SporeLanguageServer, params: types.HoverParams) -> types.Hover | None:
    cur = cursor(ls, params.text_document.uri, params.position)
    if cur is None:
        return None
    found = chain_at(cur.text, cur.col)
    if found is None:
        return None
    dotted, start, end = found
    variable = shape_hover(ls, cur, dotted, start, end, params.position.line)
    if variable is not None:
        return variable
    qual = cur.resolver.resolve(dotted)
    api = ls.api(timeout=5.0) if qual else None
    entry = api.entry(qual) if api and qual else None
    if entry is None:
        return None
    rng = types.Range(start=types.Position(line=params.position.line, character=to_utf16(cur.text, start)),
                      end=types.Position(line=params.position.line, character=to_utf16(cur.text, end)))
    text = markdown(entry, api.shape_rule(qual))
    if qual == "spore.set_context":  # its keys live in a table, not in the signature (**kwargs)
        text += "\n\n**Keys:** " + ", ".join(
            f"`{k}` (default `{o['default']}`" + (f"; {' / '.join(o['values'])}" if o["values"] else "") + ")"
            for k, o in api.context.items())
    return types.Hover(contents=ls.markup(text, "hover"), range=rng)
