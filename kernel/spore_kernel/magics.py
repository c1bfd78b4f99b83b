"""Spore's notebook magics.

- ``%spore_mode [graph|pynative]``: show or switch the execution mode.
- ``%spore_graph [--raw] NET INPUT_EXPR``: compile NET for the input(s) and show the graph
  (INPUT_EXPR is evaluated in the notebook; a tuple means several arguments).
- ``%%spore_profile [--top N]``: run the cell under `ms.Profiler` and show the per-op table with the
  notebook line of each op; the profiler is kept as ``_spore_profiler``.
- ``%spore_hints [on|off]``: show or switch the Graph-mode hints.
- ``%spore_plot EXPR``: a picture of a tensor (heatmap, channel grid or histogram).
"""

from __future__ import annotations

import ast
import shlex
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.display import display

from . import graphview, profile_view, sources
from .hints import HintSettings

_MODES = {"graph": "GRAPH_MODE", "pynative": "PYNATIVE_MODE"}


def mode_name() -> str:
    import spore

    return "graph" if spore.get_context("mode") == spore.GRAPH_MODE else "pynative"


def split_first(line: str) -> tuple[str, str]:
    """Split 'NET rest of line' at the end of the first Python expression-like token."""
    line = line.strip()
    depth = 0
    for i, ch in enumerate(line):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch.isspace() and depth == 0:
            return line[:i], line[i:].strip()
    return line, ""


@magics_class
class SporeMagics(Magics):
    """The magics; `settings` is shared with the hint machinery."""

    def __init__(self, shell: Any, settings: HintSettings) -> None:
        super().__init__(shell)
        self.settings = settings

    def _eval(self, expr: str, what: str) -> Any:
        try:
            return eval(compile(expr, f"<{what}>", "eval"), self.shell.user_ns)  # noqa: S307 - user's own code
        except SyntaxError as err:
            raise UsageError(f"{what}: {expr!r} is not a Python expression ({err.msg})") from None

    @line_magic
    def spore_mode(self, line: str) -> None:
        """%spore_mode [graph|pynative] — show or switch Spore's execution mode."""
        import spore

        arg = line.strip().lower()
        if arg:
            if arg not in _MODES:
                raise UsageError(f"%spore_mode: expected 'graph' or 'pynative', got {line.strip()!r}")
            spore.set_context(mode=getattr(spore, _MODES[arg]))
        print(f"Spore mode: {mode_name()} (ms.{_MODES[mode_name()]})")

    @line_magic
    def spore_hints(self, line: str) -> None:
        """%spore_hints [on|off] — show or switch the Graph-mode hints."""
        arg = line.strip().lower()
        if arg:
            if arg not in ("on", "off"):
                raise UsageError(f"%spore_hints: expected 'on' or 'off', got {line.strip()!r}")
            self.settings.enabled = arg == "on"
        print(f"Spore hints: {'on' if self.settings.enabled else 'off'}")

    @line_magic
    def spore_graph(self, line: str) -> None:
        """%spore_graph [--raw] NET INPUT_EXPR — compile NET for these inputs and show its graph."""
        raw = False
        rest = line.strip()
        if rest.startswith("--raw"):
            raw, rest = True, rest[len("--raw"):].strip()
        net_expr, input_expr = split_first(rest)
        if not net_expr or not input_expr:
            raise UsageError("usage: %spore_graph [--raw] NET INPUT_EXPR   e.g. %spore_graph net ms.ops.ones((2, 4))")
        net = self._eval(net_expr, "%spore_graph NET")
        inputs = self._eval(input_expr, "%spore_graph INPUT_EXPR")
        args = inputs if isinstance(inputs, tuple) else (inputs,)
        compiled = graphview.compile_graph(net, args, raw=raw)
        display(graphview.graph_bundle(compiled), raw=True)

    @line_magic
    def spore_plot(self, line: str) -> None:
        """%spore_plot EXPR — a PNG picture of a tensor."""
        from spore import Tensor

        from .plots import TensorPlot

        if not line.strip():
            raise UsageError("usage: %spore_plot EXPR")
        value = self._eval(line.strip(), "%spore_plot")
        if not isinstance(value, Tensor):
            raise UsageError(f"%spore_plot: {line.strip()!r} is a {type(value).__name__}, not a spore Tensor")
        display(TensorPlot(value, title=line.strip()))

    @cell_magic
    def spore_profile(self, line: str, cell: str) -> None:
        """%%spore_profile [--top N] — run the cell under the profiler and show the per-op table."""
        import spore

        args = shlex.split(line)
        top = 20
        if args[:1] == ["--top"] and len(args) == 2 and args[1].isdigit():
            top = int(args[1])
        elif args:
            raise UsageError("usage: %%spore_profile [--top N]")
        prof = spore.Profiler(start_profile=False)
        self.shell.user_ns["_spore_profiler"] = prof
        prof.start()
        try:
            value = self._run_body(cell)
        finally:
            prof.stop()
        if value is not None:
            display(value)
        display(profile_view.bundle(self.shell, prof, top), raw=True)

    def _run_body(self, cell: str) -> Any:
        """Run the cell body as notebook code (line numbers as in the cell; last expression's value)."""
        source = "\n" + self.shell.transform_cell(cell)  # line 1 is the %%spore_profile line
        number = sources.current_cell_number(self.shell)
        filename = self.shell.compile.cache(source, number, raw_code=source)
        tree = ast.parse(source, filename)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        ns = self.shell.user_ns
        exec(compile(tree, filename, "exec"), ns)  # noqa: S102 - the user's own cell
        if last is None:
            return None
        return eval(compile(ast.Expression(last.value), filename, "eval"), ns)  # noqa: S307
