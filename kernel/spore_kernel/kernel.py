"""`SporeKernel`: IPython's kernel with Spore set up before the first cell runs.

Everything protocol-related (execution, completion, history, the debugger, interrupts, restarts)
is ipykernel's; this class names the implementation, writes the banner and calls
`extension.setup`. The debugger is ipykernel's with Spore's hooks (`debugger.SporeDebugger`).
Inspection goes through the shell's inspector (replaced in `setup`), with one addition here: a
Spore API name the notebook has not imported yet is still documented. History range replies name
the current session by its number (IPython says 0), as tail replies do.
"""

from __future__ import annotations

import sys
from typing import Any

from ipykernel.ipkernel import IPythonKernel
from traitlets import Type

from . import __version__
from .extension import SporeSession, setup


class SporeKernel(IPythonKernel):
    """The Spore kernel (language python, implementation "spore")."""

    implementation = "spore"
    # ipykernel's debugger plus Spore's hooks (breakpoints in compiled construct, compile errors on the
    # cell's line, tensors shown as tensors), installed when the debugger starts: see debugger.py
    debugger_class = Type("spore_kernel.debugger.SporeDebugger")
    implementation_version = __version__
    language_info = dict(IPythonKernel.language_info)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spore: SporeSession = setup(self.shell)

    @property
    def banner(self) -> str:  # type: ignore[override]
        import IPython

        import spore

        from .magics import mode_name

        return (f"Spore {spore.__version__} kernel (spore_kernel {__version__}) on Python {sys.version.split()[0]}, "
                f"IPython {IPython.__version__}\nmode: {mode_name()}  |  magics: %spore_mode, %spore_graph, "
                "%%spore_profile, %spore_hints, %spore_plot\nimport spore as ms")

    def do_history(self, hist_access_type: str, output: bool, raw: bool, session: int = 0, start: int = 0,
                   stop: int | None = None, n: int | None = None, pattern: str | None = None,
                   unique: bool = False) -> dict:
        """IPython reports the current session as 0 in range replies; give its real number, as tail does."""
        reply = super().do_history(hist_access_type, output, raw, session, start, stop, n, pattern, unique)
        current = self.shell.history_manager.session_number
        reply["history"] = [(current if s == 0 else s, *rest) for s, *rest in reply.get("history", [])]
        return reply

    def do_inspect(self, code: str, cursor_pos: int, detail_level: int = 0, omit_sections: Any = ()) -> dict:
        reply = super().do_inspect(code, cursor_pos, detail_level, omit_sections)
        if reply.get("found"):
            return reply
        from IPython.utils.tokenutil import token_at_cursor

        from .inspection import inspect_unbound

        name = token_at_cursor(code, cursor_pos)
        bundle = inspect_unbound(self.shell, name, detail_level) if name else None
        if bundle is None:
            return reply
        if not self.shell.enable_html_pager:
            bundle.pop("text/html", None)
        return {"status": "ok", "found": True, "data": bundle, "metadata": {}}
