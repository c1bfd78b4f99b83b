"""`spore/mode`: the execution mode the code at a position runs in, for the editor's mode status bar.

The status bar must say the same thing the diagnostics assume, so this answers from the very analysis the
checks use (`Analysis.context_before`: in a file, the file's last `set_context`; in a notebook, the last one
in this cell or an earlier one), and names the call that decided it so the tooltip can say where the mode
comes from. `switchTo` is the mode the "Switch this file to ..." code action (`code_actions.py`) would set,
so a client can pick that action by title; `spore` says whether the program uses Spore at all (the server
offers that action only then).

Request params: ``{textDocument: {uri}, position?: {line, character}}`` (a cell URI or a text document URI;
the notebook's own URI means "after its last cell"). Result::

    {mode: "GRAPH_MODE" | "PYNATIVE_MODE" | "UNKNOWN", source: "set_context at line 4",
     sourceLocation: {uri, line} | null, compiled: bool, compiledScope: "Net.construct" | null,
     switchTo: "PYNATIVE_MODE" | "GRAPH_MODE", spore: bool}

"UNKNOWN" is a `set_context(mode=some_variable)`: the server cannot know its value without running the code.
A malformed request is answered with an InvalidParams error that names the missing field; a document the
server does not have open, with an InvalidParams error that names the URI.
"""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from .analysis import Analysis, ContextCall
from .server import SporeLanguageServer, server

METHOD = "spore/mode"
DEFAULT_MODE = "PYNATIVE_MODE"


def _field(obj: Any, name: str) -> Any:
    """A field of the request params: pygls hands a custom request's params over as nested namedtuples
    (``Object``), a direct caller may pass a dict."""
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def parse_params(params: Any) -> tuple[str, int | None]:
    """(document URI, 0-based document line or None when no position was given); InvalidParams otherwise."""
    doc = _field(params, "textDocument")
    uri = _field(doc, "uri") if doc is not None else None
    if not isinstance(uri, str) or not uri:
        raise JsonRpcInvalidParams(f"{METHOD}: params.textDocument.uri must be a string (got {uri!r})")
    position = _field(params, "position")
    if position is None:
        return uri, None
    line = _int(_field(position, "line"))
    if line is None:
        raise JsonRpcInvalidParams(f"{METHOD}: params.position.line must be a non-negative integer "
                                   f"(got {_field(position, 'line')!r})")
    return uri, line


def deciding_call(an: Analysis, line: int) -> ContextCall | None:
    """The `set_context(mode=...)` that `Analysis.context_before(line)` takes its mode from (same rule: the
    file's last one; in a notebook, the last one before the end of the line's cell)."""
    limit = None
    if an.program.is_notebook:
        chunk = an.program.chunk_of(line)
        limit = chunk.first_line + chunk.n_lines if chunk else None
    found = None
    for call in an.context_calls:
        if limit is not None and call.line >= limit:
            continue
        if call.mode is not None:
            found = call
    return found


def describe(an: Analysis, call: ContextCall | None) -> tuple[str, dict[str, Any] | None]:
    """The tooltip's "where the mode comes from" and the call's document location (1-based lines in text)."""
    if call is None:
        return f"default ({DEFAULT_MODE})", None
    uri, local = an.program.to_local(call.line)
    where = f"line {local + 1}"
    if an.program.is_notebook:
        where = f"cell {an.program.chunk_index(call.line) + 1}, line {local + 1}"
    note = " (mode from a variable)" if call.mode == "?" else ""
    return f"set_context at {where}{note}", {"uri": uri, "line": local}


def mode_at(an: Analysis, uri: str, line: int | None) -> dict[str, Any]:
    """The `spore/mode` answer for a document line of an analysed program."""
    program = an.program
    at = program.to_program(uri, line or 0)
    placed = at is not None and line is not None  # a real position in a real document of the program
    if at is None:  # the notebook's own URI: after its last cell
        at = max(len(program.lines) - 1, 0)
    mode, _ = an.context_before(at)
    mode = "UNKNOWN" if mode == "?" else mode
    source, location = describe(an, deciding_call(an, at))
    fn = an.function_at(at) if placed else None
    compiled = fn is not None and (fn.jit or mode == "GRAPH_MODE")
    return {"mode": mode, "source": source, "sourceLocation": location, "compiled": compiled,
            "compiledScope": fn.scope if compiled and fn is not None else None,
            "switchTo": "PYNATIVE_MODE" if mode == "GRAPH_MODE" else "GRAPH_MODE", "spore": an.is_spore}


@server.feature(METHOD)
def spore_mode(ls: SporeLanguageServer, params: Any) -> dict[str, Any]:
    """Answer `spore/mode` (errors are JSON-RPC errors, never a crash: pygls answers the request with them)."""
    uri, line = parse_params(params)
    an = ls.analysis_for(uri)
    if an is None:
        raise JsonRpcInvalidParams(f"{METHOD}: {uri} is not open in the server (send textDocument/didOpen first)")
    return mode_at(an, uri, line)
