"""Mode-switch hints: what to do when Graph mode cannot compile a cell, and when it would help.

When a cell raises `GraphCompileError`, the error output keeps IPython's traceback (whose last
frame is the user's own line, see `spore.errors.raise_at_user_line`) and adds a hint block: the
cell and line, the code with a caret under the construct, why Graph mode refuses it (from the
compiler's support table) and the concrete next step — `%spore_mode pynative`, or the rewrite the
table gives. The same hint goes out as an `application/vnd.spore.hint+json` display for IDEs.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from . import sources

log = logging.getLogger("spore_kernel")

MIME_HINT = "application/vnd.spore.hint+json"
PYNATIVE_MAGIC = "%spore_mode pynative"
LAX_SETTING = "ms.set_context(jit_syntax_level=ms.LAX)"
GRAPH_MAGIC = "%spore_mode graph"
_BOLD, _RESET = "\x1b[1;33m", "\x1b[0m"


class HintSettings:
    """Whether hints are shown (`%spore_hints on|off`)."""

    def __init__(self) -> None:
        self.enabled = True


def _caret_lines(loc: Any) -> list[str]:
    """The user's line (dedented) and a caret under the rejected construct."""
    text = loc.text if loc is not None else ""
    if not text.strip():
        return []
    indent = len(text) - len(text.lstrip())
    start = max(loc.col or indent, indent)
    end = loc.end_col if loc.end_col and loc.end_col > start else len(text.rstrip())
    return [text.strip(), " " * (start - indent) + "^" * max(1, end - start)]


_KERNEL_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_traceback(tb: Any) -> Any:
    """The traceback without Spore's own frames (SPORE_TRACEBACK=full keeps them).

    The compile error is raised at the user's line, but the frames it passed through on the way
    (Cell.__call__, the jit entry, the raising helper, a magic of this package) would stand
    between the user's call and that line.
    """
    from spore import ide

    return ide.user_traceback(tb, also=(_KERNEL_DIR,))


def compile_hint(shell: Any, err: Any) -> dict[str, Any]:
    """The hint for a GraphCompileError, as plain data (text included under "text")."""
    import spore
    from spore import ide

    rule = ide.support_rule(getattr(err, "rule", None))
    loc = err.loc
    graph_mode = spore.get_context("mode") == spore.GRAPH_MODE
    steps: list[dict[str, str]] = []
    if graph_mode:
        steps.append({"kind": "magic", "code": PYNATIVE_MAGIC,
                      "text": "run eagerly (PyNative), where every Python construct works"})
    if graph_mode and rule is not None and spore.get_context("jit_syntax_level") == spore.STRICT:
        steps.append({"kind": "code", "code": LAX_SETTING,
                      "text": "stay in Graph mode: this statement runs in Python between compiled parts"})
    rewrite = rule["fix"] if rule is not None else err.hint
    if rewrite:
        steps.append({"kind": "rewrite", "text": rewrite})
    data: dict[str, Any] = {
        "schema": "spore.hint/1", "kind": "compile",
        "title": f"Graph mode cannot compile {err.scope}" if err.scope else "Graph mode cannot compile this code",
        "reason": rule["reason"] if rule is not None else err.reason,
        "message": err.reason, "scope": err.scope,
        "rule": rule,
        "mode": "graph" if graph_mode else "pynative",
        "file": loc.file if loc else None, "line": loc.line if loc else None,
        "col": loc.col if loc else None, "end_col": loc.end_col if loc else None,
        "cell": sources.cell_label(shell, loc.file) if loc else None,
        "where": sources.where(shell, loc.file, loc.line) if loc else None,
        "code": loc.text if loc else "",
        "caret": _caret_lines(loc),
        "next_steps": steps,
    }
    data["text"] = hint_text(data)
    return data


def hint_text(data: dict[str, Any], color: bool = False) -> str:
    """The hint block shown under the traceback."""
    head = f"{_BOLD}Spore hint{_RESET}" if color else "Spore hint"
    construct = f" ({data['rule']['construct']})" if data.get("rule") else ""
    lines = [f"{head}: {data['title']}{construct}"]
    if data.get("where"):
        lines.append(f"  {data['where']}")
        lines.extend(f"      {c}" for c in data.get("caret") or [])
    lines.append(f"  why:  {data['reason']}")
    for i, step in enumerate(data["next_steps"]):
        label = "next:" if i == 0 else "  or:"
        body = f"{step['code']}  ({step['text']})" if step["kind"] in ("magic", "code") else step["text"]
        lines.append(f"  {label} {body}")
    return "\n".join(lines)


def short_text(data: dict[str, Any]) -> str:
    """One line for the display_data's text/plain: the first next step."""
    steps = data["next_steps"]
    if not steps:
        return f"Spore hint: {data['title']}"
    first = steps[0]
    return f"Spore hint: next step {first['code'] if first['kind'] in ('magic', 'code') else first['text']}"


def publish(data: dict[str, Any], text: str) -> None:
    from IPython.display import display

    display({"text/plain": text, MIME_HINT: data}, raw=True)


def make_handler(settings: HintSettings) -> Any:
    """The custom exception handler IPython calls for GraphCompileError."""

    def handler(shell: Any, etype: type, value: BaseException, tb: Any, tb_offset: int | None = None) -> list[str]:
        try:
            tb = user_traceback(tb)
        except Exception:  # noqa: BLE001 - the full traceback is still correct
            log.warning("trimming the traceback failed", exc_info=True)
        stb = shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=tb_offset)
        data = None
        if settings.enabled:
            try:
                data = compile_hint(shell, value)
                stb = list(stb) + [hint_text(data, color=True)]
            except Exception:  # noqa: BLE001 - the traceback alone still tells the user what failed
                log.warning("building the Graph-mode hint failed", exc_info=True)
                data = None
        shell._showtraceback(etype, value, stb)
        if data is not None:
            try:
                publish(data, short_text(data))
            except Exception:  # noqa: BLE001
                log.warning("publishing the Graph-mode hint failed", exc_info=True)
        return stb

    return handler


def install(shell: Any, settings: HintSettings) -> None:
    from spore.ide import GraphCompileError

    shell.set_custom_exc((GraphCompileError,), make_handler(settings))
