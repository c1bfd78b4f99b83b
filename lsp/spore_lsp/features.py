"""Every feature module, imported for its decorated handlers; `server` is the ready server."""

from __future__ import annotations

from . import (
    code_actions,
    completion,
    definition,
    diagnostics,
    hover,
    inlay_hints,
    mode_request,
    signature_help,
    text_sync,
)
from .server import server

__all__ = ["code_actions", "completion", "definition", "diagnostics", "hover", "inlay_hints", "mode_request", "server",
           "signature_help", "text_sync"]
