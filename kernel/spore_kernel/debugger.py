"""The Spore kernel's debugger: ipykernel's (debugpy in the kernel process), plus Spore's hooks.

JupyterLab and VS Code debug a notebook through the kernel's `debug_request` messages, which
ipykernel's `Debugger` serves with debugpy running inside the kernel. What Spore adds is what
`spore-debug` adds to a script, done here because the kernel is the debuggee and its own adapter:

- on `initialize` (the debugger starting), `spore_debug.debuggee.install()` — a breakpoint inside
  a Graph-mode `construct` defined in a cell makes that call run eagerly so it stops there, and a
  graph-compile error is raised from the cell's line — and the tensor presentation
  (`spore_debug.presentation_pydevd.register`): tensors, Parameters and Cells show as in any
  Spore debug session. Both are cheap: the engine is not loaded by them, only hooked when it is;
- the `spore-compile` exception filter offered in the `initialize` response, translated to
  debugpy's exceptionOptions in `setExceptionBreakpoints`, and Spore's message as the
  `exceptionInfo` description (the adapter's own rewrites, `spore_debug.rewrite`);
- Spore's installed folders hidden from the stack like the kernel's own modules (they are editable
  installs, which pydevd would show as user code).

Everything else (dumpCell, breakpoints, stepping, variables, rich inspection) is ipykernel's.
"""

from __future__ import annotations

import logging
from typing import Any

from ipykernel.debugger import Debugger

log = logging.getLogger("spore_kernel")


def install_hooks() -> None:
    """Spore's debuggee hooks and tensor presentation in this process (idempotent); a failure is
    logged, never raised into the debug request."""
    try:
        from spore_debug.presentation_pydevd import register

        register()
    except Exception:
        log.warning("Spore tensor presentation not installed in the debugger", exc_info=True)
    try:
        from spore_debug.debuggee import install

        install()
    except Exception:
        log.warning("Spore debuggee hooks not installed", exc_info=True)


def hidden_folders() -> list[str]:
    """Spore's own folders (engine, faces, debugger), as the adapter hides them under justMyCode."""
    try:
        from spore_debug.rewrite import spore_rules
    except Exception:
        return []
    return [rule["path"] for rule in spore_rules(True)]


class SporeDebugger(Debugger):
    """ipykernel's Debugger with Spore's hooks installed when it starts, and Spore's exception filter."""

    def __init__(self, log: Any, debugpy_stream: Any, event_callback: Any, shell_socket: Any, session: Any,
                 kernel_modules: list[str], just_my_code: bool = False, filter_internal_frames: bool = True) -> None:
        super().__init__(log, debugpy_stream, event_callback, shell_socket, session,
                         [*kernel_modules, *hidden_folders()], just_my_code, filter_internal_frames)

    async def process_request(self, message: dict[str, Any]) -> dict[str, Any]:
        command = message.get("command")
        if command == "initialize":
            install_hooks()
        elif command == "setExceptionBreakpoints":
            from spore_debug.debuggee import env_break_on_nan
            from spore_debug.rewrite import exception_breakpoints

            message = {**message, "arguments": exception_breakpoints(dict(message.get("arguments") or {}),
                                                                     env_break_on_nan())}
        reply = await super().process_request(message)
        if command == "initialize" and reply.get("success"):
            from spore_debug.rewrite import initialize_response

            reply["body"] = initialize_response(reply.get("body"))
        elif command == "exceptionInfo" and reply.get("success"):
            from spore_debug.rewrite import exception_info

            reply["body"] = exception_info(reply.get("body"))
        return reply
