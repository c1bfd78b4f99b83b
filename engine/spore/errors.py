"""Every user-facing error class of Spore, and how each points at the user's own line.

Errors are part of the API: each carries structured fields (op, expected/actual shapes, source
location, hint) that the kernel, the language server and the debugger render, and a message that
reads well on its own in a terminal. The location is the innermost frame *outside* the spore
package — the line the user wrote — found by walking the stack, never the engine's internals.
"""

from __future__ import annotations

import functools
import keyword
import linecache
import os
import sys
import types
from dataclasses import dataclass
from types import FrameType
from typing import Any

_PKG_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


@dataclass(frozen=True)
class SourceLoc:
    """A place in the user's source: file, 1-based line, 0-based columns, and its text."""

    file: str
    line: int
    col: int = 0
    end_col: int | None = None

    @property
    def text(self) -> str:
        return linecache.getline(self.file, self.line).rstrip("\n")

    def frame_text(self) -> str:
        """A two-line code frame: the line and a caret under the columns."""
        text = self.text
        if not text:
            return ""
        start = self.col if self.col else len(text) - len(text.lstrip())
        end = self.end_col if self.end_col and self.end_col > start else len(text.rstrip())
        return f"    {text}\n    {' ' * start}{'^' * max(1, end - start)}"

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def is_engine_code(obj: Any) -> bool:
    """Whether `obj` is Spore's own code rather than the user's: the one test for it.

    Spore's own functions, Cells and layers are written for Graph mode and run directly over tracers,
    while user code is interpreted statement by statement; Spore's frames are left out of tracebacks
    and error locations. `obj` may be a file name, a code object, a function or method (judged by
    the file its code is in), or any other object — a class, a C function of `spore._kernels`, an
    instance of a Spore class — judged by its `__module__`.
    """
    if isinstance(obj, str):
        return _is_engine_path(obj)
    if isinstance(obj, types.CodeType):
        return _is_engine_path(obj.co_filename)
    code = getattr(obj, "__code__", None)  # functions, and methods through their __func__
    if isinstance(code, types.CodeType) and _is_engine_path(code.co_filename):
        return True
    mod = getattr(obj, "__module__", None)
    return isinstance(mod, str) and (mod == "spore" or mod.startswith("spore."))


def is_engine_file(filename: str) -> bool:
    """`is_engine_code` for a file name (kept: the kernel calls it under this name)."""
    return _is_engine_path(filename)


@functools.lru_cache(maxsize=4096)
def _is_engine_path(filename: str) -> bool:
    # normalised: spore imported through a path like bench/../engine names its files that way
    return not filename.startswith("<") and os.path.abspath(filename).startswith(_PKG_DIR)


def user_frame(start: FrameType | None = None) -> FrameType | None:
    """The innermost frame on the stack that is not inside spore: the user's line."""
    frame = start or sys._getframe(1)
    while frame is not None:
        fname = frame.f_code.co_filename
        if not is_engine_file(fname) and not fname.startswith("<frozen"):
            return frame
        frame = frame.f_back
    return None


def user_stacklevel() -> int:
    """The `stacklevel` for a `warnings.warn` made inside Spore that points the warning at the user's
    line (the first frame outside spore, as `user_frame`), however deep in Spore the call is."""
    frame, level = sys._getframe(1), 1
    while frame is not None:
        fname = frame.f_code.co_filename
        if not is_engine_file(fname) and not fname.startswith("<frozen"):
            return level
        frame, level = frame.f_back, level + 1
    return level


def user_location() -> SourceLoc | None:
    """SourceLoc of the user's line that led to the current engine call, with column span."""
    return frame_location(user_frame(sys._getframe(1)))


def frame_location(frame: FrameType | None) -> SourceLoc | None:
    """SourceLoc of the line a frame is running, with the column span of its current instruction."""
    if frame is None:
        return None
    col, end_col = 0, None
    try:  # Python 3.11 knows the column span of the instruction being run
        positions = list(frame.f_code.co_positions())
        pos = positions[frame.f_lasti // 2]
        if pos[0] == pos[1] == frame.f_lineno and pos[2] is not None:
            col, end_col = pos[2], pos[3]
    except (IndexError, AttributeError, ValueError):
        pass
    return SourceLoc(frame.f_code.co_filename, frame.f_lineno, col, end_col)


class SporeError(Exception):
    """Base of Spore's errors: a message, an optional user SourceLoc and an optional hint."""

    def __init__(self, message: str, *, loc: SourceLoc | None = None, hint: str | None = None):
        self.reason = message
        self.loc = loc
        self.hint = hint
        super().__init__(self._render())

    def _headline(self) -> str:
        return self.reason

    def _render(self) -> str:
        parts = [self._headline()]
        if self.loc is not None:
            parts.append(f"  at {self.loc}")
            frame = self.loc.frame_text()
            if frame:
                parts.append(frame)
        if self.hint:
            parts.append(f"  hint: {self.hint}")
        return "\n".join(parts)

    def to_dict(self) -> dict:
        """Plain data for IDE front ends (kernel hint bundle, LSP diagnostic, DAP exceptionInfo)."""
        loc = self.loc
        return {
            "type": type(self).__name__,
            "reason": self.reason,
            "hint": self.hint,
            "file": loc.file if loc else None,
            "line": loc.line if loc else None,
            "col": loc.col if loc else None,
            "end_col": loc.end_col if loc else None,
        }


class ShapeError(SporeError, ValueError):
    """An op got inputs whose shapes it cannot take. Names the op, expected and actual shapes."""

    def __init__(self, op: str, expected: str, actual: str, *, loc: SourceLoc | None = None,
                 hint: str | None = None):
        self.op, self.expected, self.actual = op, expected, actual
        super().__init__(f"{op}: expected {expected}, got {actual}", loc=loc, hint=hint)


class DTypeError(SporeError, TypeError):
    """An op got an input of a dtype it does not accept."""

    def __init__(self, op: str, expected: str, actual: str, *, loc: SourceLoc | None = None,
                 hint: str | None = None):
        self.op, self.expected, self.actual = op, expected, actual
        super().__init__(f"{op}: expected {expected}, got {actual}", loc=loc, hint=hint)


class ValueDependentShapeError(SporeError, ValueError):
    """An op's output size depends on tensor values, which a graph being compiled does not have
    (`unique`, `nonzero`, boolean-mask indexing): refused rather than given a guessed size."""


class NotSupportedError(SporeError, AttributeError):
    """A MindSpore name that Spore does not have (yet, or by design: see `spore._missing`).

    A subclass of AttributeError so that `hasattr(ms.ops, "name")` and `getattr(..., default)` keep
    answering False / the default, while code that uses the name fails with a message saying which
    MindSpore name it is and why it is missing, instead of a bare "module has no attribute".
    """

    def __init__(self, qualname: str, reason: str | None = None, *, hint: str | None = None):
        self.qualname = qualname
        message = (f"spore does not have {qualname}: {reason}" if reason
                   else f"spore does not have {qualname} yet")
        super().__init__(message, hint=hint)
        self.name = qualname.rsplit(".", 1)[-1]  # AttributeError's field: the missing attribute


class ContextError(SporeError, ValueError):
    """A bad `set_context` key or value."""


class GradError(SporeError, RuntimeError):
    """A gradient was asked for where there is none (non-differentiable op, bad position)."""


def located(err: SporeError) -> SporeError:
    """Attach the user's current line to an error raised without one, and return it."""
    if err.loc is None:
        err.loc = user_location()
        err.args = (err._render(),)
    return err


class GraphCompileError(SporeError, RuntimeError):
    """Graph mode cannot compile a construct. Carries the rule, the user's line and the fix.

    `scope` is the user function being compiled (``Net.construct``); `layer` is, for an error raised
    inside one of Spore's own layers, that layer's Cell path (``Net.block.2.fc``): the user's line
    (`loc`) is then the call in the user's code that reached the layer, as the layer's own source
    is not the user's.
    """

    def __init__(self, reason: str, *, loc: SourceLoc | None = None, hint: str | None = None,
                 scope: str = "", rule: str | None = None, layer: str = ""):
        self.scope = scope
        self.rule = rule
        self.layer = layer
        super().__init__(reason, loc=loc, hint=hint)

    def _headline(self) -> str:
        head = f"Graph mode cannot compile {self.scope}: " if self.scope else "Graph mode: "
        return head + self.reason + (f" (in layer {self.layer})" if self.layer else "")

    def to_dict(self) -> dict:
        d = super().to_dict()
        d.update(scope=self.scope, rule=self.rule, layer=self.layer)
        return d


class InputTypeError(SporeError, TypeError):
    """A Cell, a compiled function or an op was given a value where it takes a Tensor (a NumPy array,
    a list of numbers, ...). MindSpore refuses these too rather than guess a dtype; the message names
    the argument and the function, and `loc` the user's call.

    `value` is the offending object itself, so an enclosing Cell that was handed the very same object
    can say which of *its* arguments it came in through (the user's mistake is at that call).
    """

    def __init__(self, function: str, argument: str, value: Any, *, expected: str = "a Tensor",
                 loc: SourceLoc | None = None, hint: str | None = None):
        self.function, self.argument, self.expected = function, argument, expected
        self.actual = type_name(value)
        self.value = value
        if hint is None and _looks_numeric(value):
            hint = f"pass ms.Tensor({argument}) instead (ms.Tensor({argument}, ms.float32) to choose the dtype)"
        super().__init__(f"expected {expected}, got {self.actual} for argument `{argument}` of {function}",
                         loc=loc, hint=hint)

    def to_dict(self) -> dict:
        d = super().to_dict()
        d.update(function=self.function, argument=self.argument, expected=self.expected, actual=self.actual)
        return d


def type_name(value: Any) -> str:
    """How an error names a value's type: ``numpy.ndarray``, ``list``, ``spore.Tensor``."""
    t = type(value)
    mod = t.__module__
    if mod == "builtins":
        return t.__qualname__
    return f"{mod.split('.')[0]}.{t.__qualname__}"


def _looks_numeric(value: Any) -> bool:
    """A NumPy array or scalar, a number, or a (nested) list/tuple of numbers: data that would make a
    Tensor (the error's hint then says how)."""
    if type(value).__module__ == "numpy":
        return True
    if isinstance(value, (list, tuple)):
        return bool(value) and all(_looks_numeric(v) for v in value[:64])
    return isinstance(value, (int, float, complex)) and not isinstance(value, bool)


class OnnxError(SporeError, ValueError):
    """An ONNX model Spore cannot export or import: a broken or hostile file, an op without a
    mapping, an unsupported opset. Carries `op` (the op type or primitive), `node` (the node or
    Cell scope) when known, so the message says what and where."""

    def __init__(self, message: str, *, op: str | None = None, node: str | None = None,
                 loc: SourceLoc | None = None, hint: str | None = None):
        self.op, self.node = op, node
        super().__init__(message, loc=loc, hint=hint)


class NonFiniteError(SporeError, FloatingPointError):
    """An op produced NaN or Inf, caught by a NaN/Inf guard (the debugger's ``breakOnNaN``).

    Names the op, the user's line that ran it, the Cell scope, and plain statistics of the op's
    inputs and outputs (dicts with ``shape``, ``dtype``, ``min``, ``max``, ``mean``, ``nan``, ``inf``;
    an input the op overwrote in place has ``"overwritten": True`` instead of values), so the
    message says where the first bad value appeared and from what.
    """

    def __init__(self, op: str, kind: str = "NaN", *, inputs: tuple[dict, ...] | list[dict] = (),
                 outputs: tuple[dict, ...] | list[dict] = (), loc: SourceLoc | None = None, scope: str = "",
                 mode: str = "pynative", hint: str | None = None):
        self.op, self.kind, self.scope, self.mode = op, kind, scope, mode
        self.inputs, self.outputs = [dict(d) for d in inputs], [dict(d) for d in outputs]
        super().__init__(f"{kind} produced by {op}", loc=loc, hint=hint)

    def _render(self) -> str:
        parts = [self._headline()]
        if self.loc is not None:
            parts.append(f"  at {self.loc}" + (f" (in {self.scope}, {self.mode} mode)" if self.scope else ""))
            frame = self.loc.frame_text()
            if frame:
                parts.append(frame)
        parts += [f"  input {i}: {describe_stats(d)}" for i, d in enumerate(self.inputs)]
        parts += [f"  output {i}: {describe_stats(d)}" for i, d in enumerate(self.outputs)]
        if self.hint:
            parts.append(f"  hint: {self.hint}")
        return "\n".join(parts)

    def to_dict(self) -> dict:
        d = super().to_dict()
        d.update(op=self.op, kind=self.kind, scope=self.scope, mode=self.mode, inputs=self.inputs,
                 outputs=self.outputs)
        return d


def describe_stats(d: dict) -> str:
    """One line for a tensor's statistics dict: ``f32[2, 3] min=-1 max=2 mean=0.5 nan=1 inf=0``."""
    head = f"{d.get('dtype', '?')}{list(d.get('shape', ()))}"
    if d.get("overwritten"):
        return head + " (overwritten in place by the op)"
    fields = [f"{k}={d[k]:.6g}" if isinstance(d[k], float) else f"{k}={d[k]}"
              for k in ("min", "max", "mean", "nan", "inf") if d.get(k) is not None]
    return " ".join([head, *fields])


def _raise_source(loc: SourceLoc, params: tuple[str, ...]) -> str:
    """A function `_f(<params>)` whose `raise _e` sits on the user's line, at its indentation and
    as wide as its text.

    A constant template: only newlines, spaces and the parameter names (checked to be
    identifiers) vary, never other user text (the user's file name is only metadata of the
    compiled code object). Matching the statement's width to the user's line keeps tracebacks from
    drawing carets that belong to this template.
    """
    text = linecache.getline(loc.file, loc.line).rstrip("\n")
    indent = len(text) - len(text.lstrip())
    width = len(text.strip())
    stmt = "raise" + " " * max(1, width - 7) + "_e"
    head = f"def _f({', '.join(params)}):"
    if indent and loc.line > 1:  # the header on the line above, the raise at the user's indentation
        return "\n" * (loc.line - 2) + head + "\n" + " " * indent + stmt
    return "\n" * (loc.line - 1) + f"{head} {stmt}"  # a top-level line: a one-liner on it


def raise_at_user_line(err: SporeError, user_locals: dict[str, Any] | None = None) -> None:
    """Raise `err` so that its traceback ends in a frame at the user's file and line.

    The error is thrown by a small function compiled under the user's file name with the `raise`
    on the user's line number and called with `user_locals` (names -> values) as its arguments, so Python's traceback
    printer, pytest, IPython and debuggers all land on the user's statement (and show its source),
    and a debugger stopped there shows the user's own variables (for a compile error: the
    construct's arguments, `self` and the inputs — nothing of it ran yet) rather than the engine's.
    Engine frames between the user's call and here are marked hidden for pytest/IPython unless
    SPORE_TRACEBACK=full.
    """
    __tracebackhide__ = True
    loc = err.loc
    if loc is None or os.environ.get("SPORE_TRACEBACK", "") == "full":
        raise err
    values = {k: v for k, v in (user_locals or {}).items()
              if isinstance(k, str) and k.isidentifier() and not keyword.iskeyword(k) and k != "_e"}
    scope = getattr(err, "scope", "") or "<spore>"
    module = compile(_raise_source(loc, tuple(values)), loc.file, "exec")
    # the function's code alone, never the module's: no other line of the user's file "runs" (a
    # debugger's breakpoint on the line above must not stop in this template)
    code = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    fn = types.FunctionType(code.replace(co_name=scope, co_qualname=scope), {"_e": err.with_traceback(None)})
    fn(*values.values())


def without_engine_frames(tb: types.TracebackType | None, also: tuple[str, ...] = ()) -> types.TracebackType | None:
    """A copy of a traceback chain without Spore's own frames, nor those of files under the `also`
    directories (an IDE face's own), the user's frames staying in order."""
    kept = []
    while tb is not None:
        fname = tb.tb_frame.f_code.co_filename
        if not is_engine_file(fname) and not (also and fname.startswith(also)):
            kept.append((tb.tb_frame, tb.tb_lasti, tb.tb_lineno))
        tb = tb.tb_next
    out = None
    for frame, lasti, lineno in reversed(kept):
        out = types.TracebackType(out, frame, lasti, lineno)
    return out


def _excepthook(etype: type, value: BaseException, tb: types.TracebackType | None) -> None:
    if isinstance(value, SporeError) and os.environ.get("SPORE_TRACEBACK", "") != "full":
        tb = without_engine_frames(tb) or tb
        value = value.with_traceback(tb)  # the printer reads the exception's own traceback
    _PREVIOUS_HOOK(etype, value, tb)


_PREVIOUS_HOOK = sys.excepthook
if sys.excepthook is sys.__excepthook__:  # plain Python: show Spore errors from the user's frames only
    sys.excepthook = _excepthook


class GraphFallbackWarning(UserWarning):
    """A `jit` function with fullgraph=False could not be compiled and runs in PyNative."""


class GraphBreakWarning(GraphFallbackWarning):
    """A statement of a compiled function runs in Python between compiled segments (a graph break,
    under jit_syntax_level=LAX); said once per statement, with its line and the rule."""


class GraphRecompileWarning(UserWarning):
    """A compiled function keeps being recompiled because a Python value it reads (an attribute, a
    global) keeps changing between calls; said once, naming the value."""
