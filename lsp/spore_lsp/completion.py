"""Completion: Spore's names after `ops.` / `nn.` / `ms.` (with kind, signature and docs), the keyword
arguments of a Spore call, and `set_context`'s keys and values."""

from __future__ import annotations

import re
from typing import Any

from lsprotocol import types

from .lookup import Cursor, call_at, cursor, search_tail
from .server import SporeLanguageServer, guarded, server

KINDS = {"class": types.CompletionItemKind.Class, "function": types.CompletionItemKind.Function,
         "method": types.CompletionItemKind.Method, "property": types.CompletionItemKind.Property,
         "constant": types.CompletionItemKind.Constant, "module": types.CompletionItemKind.Module}
_MEMBER = re.compile(r"([A-Za-z_][\w.]*)\.\s*(\w*)$")  # `ms.ops.` / `nn.Con` before the cursor
NAMESPACE_OF = {"spore": "spore", "spore.ops": "ops", "spore.nn": "nn", "spore.Tensor": "Tensor"}


def _doc(ls: SporeLanguageServer, entry: dict[str, Any]) -> types.MarkupContent | None:
    return ls.markup(entry["doc"], "completion") if entry.get("doc") else None


def _members(ls: SporeLanguageServer, cur: Cursor, before: str) -> list[types.CompletionItem] | None:
    m = search_tail(_MEMBER, before)
    if not m:
        return None
    namespace = NAMESPACE_OF.get(cur.resolver.resolve(m.group(1)) or "")
    api = ls.api(timeout=5.0) if namespace else None
    if api is None or namespace is None:
        return None
    items = []
    for name in api.names(namespace):
        entry = api.entry(f"{namespace}.{name}") or {}
        kind = entry.get("kind", "function")
        items.append(types.CompletionItem(label=name, kind=KINDS.get(kind, types.CompletionItemKind.Variable),
                                          detail=f"{name}{entry.get('signature') or ''}" if kind != "module" else name,
                                          sort_text=("1" if name[0].isupper() else "0") + name.lower(),
                                          data={"qualname": f"{namespace}.{name}"}))
    return items  # docs come with completionItem/resolve: hundreds of docstrings per keystroke cost tens of ms


def _context_items(ls: SporeLanguageServer, cur: Cursor, typed: str, keyword: str | None,
                   used: list[str]) -> list[types.CompletionItem] | None:
    api = ls.api(timeout=5.0)
    if api is None:
        return None
    options = api.context
    value_m = re.match(r"\s*(\w+)\s*=\s*([\w.\"']*)$", typed)
    if keyword and value_m:
        spore_alias = cur.resolver.alias_for("spore") or "ms"
        key = value_m.group(1)
        out = []
        for v in options.get(key, {}).get("values", []):
            text = f"{spore_alias}.{v}" if v.isidentifier() and v not in ("True", "False") else v
            out.append(types.CompletionItem(label=text, kind=types.CompletionItemKind.Value,
                                            detail=f"{key}={text}", filter_text=text))
        return out
    out = []
    for key, opt in options.items():
        if key in used:
            continue
        values = ", ".join(opt["values"]) if opt["values"] else None
        doc = f"default: `{opt['default']}`" + (f"; values: {values}" if values else "")
        out.append(types.CompletionItem(label=f"{key}=", kind=types.CompletionItemKind.Property,
                                        insert_text=f"{key}=", detail=f"set_context key (default {opt['default']})",
                                        documentation=ls.markup(doc, "completion")))
    return out


def _keyword_items(ls: SporeLanguageServer, qual: str, used: list[str]) -> list[types.CompletionItem] | None:
    api = ls.api(timeout=5.0)
    entry = api.entry(qual) if api else None
    if not entry:
        return None
    out = []
    for p in entry["params"]:
        if p["kind"] in ("var_positional", "var_keyword", "positional_only") or p["name"] in used:
            continue
        detail = f"{p['name']}: {p['annotation']}" if p.get("annotation") else p["name"]
        if p.get("default") is not None:
            detail += f" = {p['default']}"
        out.append(types.CompletionItem(label=f"{p['name']}=", kind=types.CompletionItemKind.Variable,
                                        insert_text=f"{p['name']}=", detail=detail, sort_text="0" + p["name"]))
    return out


@server.feature(types.COMPLETION_ITEM_RESOLVE)
@guarded()
def resolve(ls: SporeLanguageServer, item: types.CompletionItem) -> types.CompletionItem:
    """Add the docstring to the item the editor is about to show."""
    qual = item.data.get("qualname") if isinstance(item.data, dict) else None
    api = ls.api(timeout=5.0) if qual else None
    entry = api.entry(qual) if api else None
    if entry:
        item.documentation = _doc(ls, entry)
    return item


@server.feature(types.TEXT_DOCUMENT_COMPLETION,
                types.CompletionOptions(trigger_characters=[".", "(", ",", "="], resolve_provider=True))
@guarded()
def completion(ls: SporeLanguageServer, params: types.CompletionParams) -> types.CompletionList | None:
    cur = cursor(ls, params.text_document.uri, params.position)
    if cur is None:
        return None
    before = cur.text[:cur.col]
    call = call_at(cur.program, cur.line, cur.col)
    qual = cur.resolver.resolve(call.callee) if call else None
    items: list[types.CompletionItem] | None = None
    if call is not None and qual == "spore.set_context" and (call.keyword or re.fullmatch(r"\s*\w*", call.typed)):
        items = _context_items(ls, cur, call.typed, call.keyword, call.used_keywords)
    elif search_tail(_MEMBER, before):
        items = _members(ls, cur, before)
    elif call is not None and qual and call.keyword is None and re.fullmatch(r"\s*\w*", call.typed):
        items = _keyword_items(ls, qual, call.used_keywords)
    return types.CompletionList(is_incomplete=False, items=items) if items is not None else None
