"""The line protocol between the VS Code extension and `python -m spore_kernel.bridge`: parsing and
validating requests, and building the lines the bridge writes back.

Kept apart from the bridge's asyncio plumbing so that what counts as a well-formed request is one
table (`REQUESTS`) that the bridge, its tests and its docstring share. Every line is one JSON object
followed by a newline; see `spore_kernel.bridge` for the whole protocol.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

# request type -> {field: (accepted python types, required)}; `id` and `type` are checked for all
REQUESTS: dict[str, dict[str, tuple[tuple[type, ...], bool]]] = {
    "start": {"cwd": ((str,), False), "kernel_name": ((str,), False)},
    "execute": {"code": ((str,), True), "cell": ((str,), False), "metadata": ((dict,), False)},
    "evaluate": {"expression": ((str,), True)},
    "complete": {"code": ((str,), True), "cursor_pos": ((int,), False)},
    "inspect": {"code": ((str,), True), "cursor_pos": ((int,), False), "detail_level": ((int,), False)},
    "input_reply": {"value": ((str,), True)},
    "interrupt": {},
    "restart": {},
    "shutdown": {},
}

# iopub message types that belong to a cell's output, forwarded in the order the kernel sent them
OUTPUT_TYPES = frozenset({"stream", "display_data", "update_display_data", "execute_result", "error",
                          "clear_output"})


class ProtocolError(ValueError):
    """A line that is not a valid request; `request_id` is set when the line had a usable id."""

    def __init__(self, message: str, request_id: Any = None) -> None:
        super().__init__(message)
        self.request_id = request_id


@dataclass(frozen=True)
class Request:
    """One validated request: its id, type and fields (type-checked, unknown fields dropped)."""

    id: int | str
    type: str
    fields: dict[str, Any]

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)


def _type_names(types: tuple[type, ...]) -> str:
    return " or ".join({str: "a string", int: "an integer", dict: "an object"}[t] for t in types)


def parse_request(line: str | bytes) -> Request:
    """Parse one input line; raise ProtocolError saying exactly what is wrong with it."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ProtocolError(f"the line is not UTF-8: {err}") from None
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as err:
        raise ProtocolError(f"the line is not JSON ({err.msg} at column {err.colno})") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"a request must be a JSON object, got {type(obj).__name__}")
    rid = obj.get("id")
    # bool is an int in Python: an id of true would be ambiguous, so it is refused
    if isinstance(rid, bool) or not isinstance(rid, (int, str)):
        raise ProtocolError("a request needs an \"id\" (a string or an integer)")
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("a request needs a \"type\" (a string)", rid)
    spec = REQUESTS.get(kind)
    if spec is None:
        raise ProtocolError(f"unknown request type {kind!r}; known: {', '.join(sorted(REQUESTS))}", rid)
    fields: dict[str, Any] = {}
    for name, (types, required) in spec.items():
        if name not in obj or obj[name] is None:
            if required:
                raise ProtocolError(f"{kind} needs {name!r} ({_type_names(types)})", rid)
            continue
        value = obj[name]
        if isinstance(value, bool) or not isinstance(value, types):
            raise ProtocolError(f"{kind}: {name!r} must be {_type_names(types)}, got {type(value).__name__}", rid)
        fields[name] = value
    return Request(rid, kind, fields)


def encode(obj: dict[str, Any]) -> str:
    """One protocol line. ensure_ascii keeps U+2028/U+2029 (line separators to some readers) escaped."""
    return json.dumps(obj, ensure_ascii=True, separators=(",", ":"), default=str) + "\n"


def reply(request_id: int | str, **result: Any) -> dict[str, Any]:
    """The successful answer to one request."""
    return {"reply": request_id, "ok": True, **result}


def failure(request_id: int | str | None, message: str, **extra: Any) -> dict[str, Any]:
    """The failed answer to one request (or, with no id, an `error` event about an unusable line)."""
    if request_id is None:
        return {"event": "error", "message": message, **extra}
    return {"reply": request_id, "ok": False, "error": message, **extra}


def event(name: str, **fields: Any) -> dict[str, Any]:
    return {"event": name, **fields}
