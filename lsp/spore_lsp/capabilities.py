"""The `initialize` answer, as plain JSON data, for the fast start (`boot.py`).

The server answers `initialize` before pygls and lsprotocol have loaded, so it cannot ask pygls's
`ServerCapabilitiesBuilder` for its capabilities. `SERVER_CAPABILITIES` is what that builder computes from
the registered features (for a client with notebook support and UTF-16 positions), and `initialize_result`
applies the few things the builder takes from the client's capabilities (the position encoding is
always UTF-16). `tests/lsp/test_boot.py` starts
the server with `--no-fast-start` (pygls answers) for a range of clients and checks the two agree: after
adding or changing a feature, update `SERVER_CAPABILITIES` to what that test prints.
"""

from __future__ import annotations

import copy
from typing import Any

from . import __version__

SERVER_CAPABILITIES: dict[str, Any] = {
    "positionEncoding": "utf-16",
    "textDocumentSync": {"openClose": True, "change": 2, "save": False},
    "notebookDocumentSync": {"notebookSelector": [{"cells": [{"language": "python"}], "notebook": "*"}]},
    "completionProvider": {"triggerCharacters": [".", "(", ",", "="], "resolveProvider": True},
    "hoverProvider": True,
    "signatureHelpProvider": {"triggerCharacters": ["(", ","], "retriggerCharacters": [","]},
    "definitionProvider": True,
    "codeActionProvider": {"codeActionKinds": ["quickfix", "refactor.rewrite"]},
    "executeCommandProvider": {"commands": []},
    "inlayHintProvider": {"resolveProvider": False},
    "workspace": {"workspaceFolders": {"supported": True, "changeNotifications": True}, "fileOperations": {}},
}


def _get(data: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def position_encoding(client: dict[str, Any]) -> str:
    """Always UTF-16, whatever the client offers (see `server._utf16`: every position the server sends is in
    UTF-16 code units)."""
    return "utf-16"


def initialize_result(params: dict[str, Any]) -> dict[str, Any]:
    """The `initialize` result pygls would send for these `InitializeParams` (JSON)."""
    client = params.get("capabilities") if isinstance(params, dict) else None
    client = client if isinstance(client, dict) else {}
    caps = copy.deepcopy(SERVER_CAPABILITIES)
    caps["positionEncoding"] = position_encoding(client)
    if client.get("notebookDocument") is None:
        del caps["notebookDocumentSync"]
    sync = _get(client, "textDocument", "synchronization") or {}
    for key in ("willSave", "willSaveWaitUntil"):  # the client can; the server does not register it
        if isinstance(sync, dict) and sync.get(key):
            caps["textDocumentSync"][key] = False
    return {"capabilities": caps, "serverInfo": {"name": "spore-lsp", "version": __version__}}
