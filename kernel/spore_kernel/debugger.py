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
- a `spore-nan` filter ("Spore: NaN/Inf produced", off by default), the notebook's `breakOnNaN`: a
  notebook has no launch configuration, so the guard is switched with the exception filters
  (`SPORE_DEBUG_BREAK_ON_NAN=1` in the kernel's environment turns it on as well);
- Spore's installed folders hidden from the stack like the kernel's own modules (they are editable
  installs, which pydevd would show as user code).

Everything else (dumpCell, breakpoints, stepping, variables, rich inspection) is ipykernel's.
"""

from __future__ import annotations

import logging
from typing import Any

from ipykernel.debugger import Debugger

log = logging.getLogger("spore_kernel")


NAN_FILTER = {
    "filter": "spore-nan",
    "label": "Spore: NaN/Inf produced",
    "default": False,
    "description": "Stop on your line at the first op whose output holds NaN or Inf (every op is checked "
                   "while this is on), with the op and its input and output statistics.",
}


def install_hooks(break_on_nan: bool | None = None) -> None:
    """Spore's debuggee hooks and tensor presentation in this process (idempotent; `break_on_nan`
    None keeps the environment's setting); a failure is logged, never raised into the debug request."""
    try:
        from spore_debug.presentation_pydevd import register

        register()
    except Exception:
        log.warning("Spore tensor presentation not installed in the debugger", exc_info=True)
    try:
        from spore_debug.debuggee import install

        install(break_on_nan=break_on_nan)
    except Exception:
        log.warning("Spore debuggee hooks not installed", exc_info=True)


def exception_breakpoints(arguments: dict[str, Any]) -> dict[str, Any]:
    """`setExceptionBreakpoints` in debugpy's terms, switching the NaN guard to match `spore-nan`."""
    from spore_debug.debuggee import env_break_on_nan
    from spore_debug.rewrite import exception_breakpoints as translate

    filters = [f for f in arguments.get("filters") or [] if isinstance(f, str)]
    nan = NAN_FILTER["filter"] in filters or env_break_on_nan()
    install_hooks(break_on_nan=nan)
    return translate({**arguments, "filters": [f for f in filters if f != NAN_FILTER["filter"]]}, nan)


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
            message = {**message, "arguments": exception_breakpoints(dict(message.get("arguments") or {}))}
        reply = await super().process_request(message)
        if command == "initialize" and reply.get("success"):
            from spore_debug.rewrite import initialize_response

            body = initialize_response(reply.get("body"))
            body["exceptionBreakpointFilters"] = [*body["exceptionBreakpointFilters"], dict(NAN_FILTER)]
            reply["body"] = body
        elif command == "exceptionInfo" and reply.get("success"):
            from spore_debug.rewrite import exception_info

            reply["body"] = exception_info(reply.get("body"))
        return reply
