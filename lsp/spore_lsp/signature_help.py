"""Signature help for Spore calls: the signature, its docs, and which parameter the cursor is on."""

from __future__ import annotations

from lsprotocol import types

from .lookup import call_at, cursor, split_signature
from .server import SporeLanguageServer, guarded, server


@server.feature(types.TEXT_DOCUMENT_SIGNATURE_HELP,
                types.SignatureHelpOptions(trigger_characters=["(", ","], retrigger_characters=[","]))
@guarded()
def signature_help(ls: SporeLanguageServer, params: types.SignatureHelpParams) -> types.SignatureHelp | None:
    cur = cursor(ls, params.text_document.uri, params.position)
    if cur is None:
        return None
    call = call_at(cur.program, cur.line, cur.col)
    qual = cur.resolver.resolve(call.callee) if call else None
    api = ls.api(timeout=5.0) if qual else None
    entry = api.entry(qual) if api and qual else None
    if not entry or not entry.get("signature") or entry["kind"] not in ("function", "method", "class"):
        return None
    label = entry["qualname"].removeprefix("spore.") + entry["signature"]
    offset = len(label) - len(entry["signature"])
    spans = split_signature(entry["signature"])
    names = [p["name"] for p in entry["params"]]
    params_info = [types.ParameterInformation(label=(offset + s, offset + e)) for s, e in spans]
    active = call.arg_index
    if call.keyword and call.keyword in names:
        active = names.index(call.keyword)
    else:
        star = next((i for i, p in enumerate(entry["params"]) if p["kind"] == "var_positional"), None)
        if star is not None and active > star:
            active = star
    active = min(active, max(len(params_info) - 1, 0))
    doc = ls.markup(entry.get("doc") or "", "signature")
    sig = types.SignatureInformation(label=label, documentation=doc, parameters=params_info, active_parameter=active)
    return types.SignatureHelp(signatures=[sig], active_signature=0, active_parameter=active)
