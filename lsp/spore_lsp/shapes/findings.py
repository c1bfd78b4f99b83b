"""What static shape inference reports, and how it words it: a ``shape-mismatch`` error in the engine's
terms (for a layer whose input size is a constructor argument, both numbers, where the wrong one came
from, and a quick fix), and the one ``shape-stopped`` note per construct that says where inference
stopped and why, so silence never reads as "checked"."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from ..analysis import Edit, Fix
from .values import UNKNOWN, ConstructShapes, TVal, Unknown, fmt

# layers whose input channel count is a constructor argument: (parameter, position, input axis, noun)
CHANNELS = {
    "Dense": ("in_channels", 0, -1, "input features"),
    **{f"Conv{d}": ("in_channels", 0, 1, "input channels") for d in ("1d", "2d", "3d", "1dTranspose", "2dTranspose",
                                                                      "3dTranspose")},
    **{f"BatchNorm{d}": ("num_features", 0, 1, "channels") for d in ("1d", "2d", "3d")},
}


@dataclass
class Session:
    """State shared by every interpreter of one construct's check (helpers and nested Cells included)."""

    quiet: int = 0  # > 0: a trial run (a loop's fixpoint search) that records and reports nothing
    speculative: list[str] = field(default_factory=list)  # why a refusal here may be on a path that never runs
    runtime: int = 0  # inside this many branches (or loop bodies) on run-time values
    budget: int = 2_000  # statements one check may interpret (nested unrolled loops multiply)


class Findings:
    """The reporting half of the interpreter (mixed into it): needs `an`, `fn`, `sink` and `session`."""

    an: Any
    prog: Any
    fn: ast.FunctionDef
    sink: ConstructShapes | None
    session: Session

    def stop(self, node: ast.AST, why: str) -> Unknown:
        rec = self.sink
        if rec is not None and not rec.stopped and not self.session.quiet:
            rec.stopped = True
            self.an.issue("shape-stopped", f"shape inference stops here: {why}; shapes from here on in this "
                          "construct are not checked", "information", node)
        return UNKNOWN

    def where(self, line: int) -> str:
        """A line as the user sees it (cell-relative in a notebook)."""
        _, local = self.an.program.to_local(line)
        if self.an.program.is_notebook and self.an.program.chunk_of(line) is not \
                self.an.program.chunk_of(self.fn.lineno - 1):
            return f"line {local + 1} of cell {self.an.program.chunk_index(line) + 1}"
        return f"line {local + 1}"

    def source(self, node: ast.AST) -> str:
        """The node's text as written (from the program's lines: `ast.get_source_segment` splits the whole
        text on every call, tens of milliseconds on a large file)."""
        line, col, end_line, end_col = self.an.span(node)
        lines = self.an.program.lines
        if line == end_line:
            return lines[line][col:end_col] if 0 <= line < len(lines) else ast.unparse(node)
        return "\n".join([lines[line][col:], *lines[line + 1:end_line], lines[end_line][:end_col]])

    def rewritable(self, arg: ast.AST) -> bool:
        """A constructor argument the quick fix may replace by a number: literals, constant arithmetic and module
        constants (a parameter or a local may stand for other values elsewhere; rewriting it would break them)."""
        return all(n.id in self.prog.consts for n in ast.walk(arg) if isinstance(n, ast.Name))

    def mismatch(self, node: ast.AST, res: dict, label: str, layer: tuple | None) -> None:
        if self.session.quiet:
            return
        fixes: list[Fix] = []
        msg = None
        if layer is not None:
            spec, args = layer
            src = self.source(spec.node)
            line = self.where(spec.node.lineno - 1)
            x = args[0] if args and isinstance(args[0], TVal) else None
            table = CHANNELS.get(spec.layer)
            if table is not None and x is not None:
                pname, pos, axis, noun = table
                arg_node = spec.arg_nodes.get(pname, spec.arg_nodes.get(pos))
                expected = spec.kwargs.get(pname, spec.args[pos] if pos < len(spec.args) else None)
                got = x.shape[axis] if len(x.shape) > abs(axis) - (axis < 0) else None
                if isinstance(expected, int) and isinstance(got, int) and expected != got and arg_node is not None:
                    msg = (f"{spec.attr} expects {expected} {noun} ({src}, {line}) but receives {got} from "
                           f"{x.origin} ({self.where(x.line)})")
                    if spec.fixable and self.rewritable(arg_node):
                        fixes.append(Fix(f"Change {spec.attr}'s {pname} to {got}",
                                         (Edit(*self.an.span(arg_node), str(got)),)))
            if msg is None:
                origins = ", ".join(f"{v.origin} ({self.where(v.line)}): {fmt(v)}"
                                    for v in args if isinstance(v, TVal))
                msg = f"{spec.attr} ({src}, {line}) refuses its input {origins}: {res.get('reason')}"
        else:
            msg = f"`{label}`: {res.get('reason')}"
        if self.session.speculative:  # that branch may never run: say so, never a guessed error
            self.stop(node, f"{msg}, {self.session.speculative[-1]} (not flagged as an error: that path may never run)")
            return
        self.an.issue("shape-mismatch", msg, "error", node, fixes, op=res.get("op"), expected=res.get("expected"),
                      actual=res.get("actual"))


def unsure_branch(kind: str, at: str) -> str:
    """The reason a refusal in a branch on a value the check cannot compute is only a note."""
    return f"in {kind} at {at}, whose condition is not known statically"
