"""`python -m spore_viz capture FILE --line N`: the graph of the construct under the cursor, for the
inputs the program really passes.

The language server never runs user code; this command does, explicitly, because the user asked
for it ("Spore: Show Graph" on a .py file). It runs FILE as `__main__` (its folder as cwd and
sys.path[0]) with a profile hook watching calls, until the first call of the target:

- the `construct` of a Cell class whose body holds line N (any instance of that class or of a
  subclass that inherits that construct), caught at `Cell.__call__` so Graph mode, which compiles
  construct without running it, is caught too;
- or a function holding line N (decorated with `@jit` or not), caught at its jit wrapper or its frame;
- a construct that only runs compiled inside another graph is shown in that graph: a sub-Cell in
  Graph mode as the part of its parent's graph under its scope, a Cell used by a `@jit` function as
  that function's graph.

Then it takes the instance and the arguments, compiles the graph with `spore.ide.compile_graph`
(never running the step), prints the view payload JSON on stdout and leaves at once with
`os._exit`, so none of the program's remaining work (the training loop) runs. A program that ends
without calling the target, or raises first, is an error naming that, on stderr with exit code 3.
"""

from __future__ import annotations

import ast
import json
import os
import runpy
import sys
import threading
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

NOT_FOUND = 2   # exit codes the extension tells apart
NO_CALL = 3
FAILED = 4
TIMED_OUT = 5

JIT_NAMES = {"jit", "ms_function"}


@dataclass(frozen=True)
class Target:
    """What to catch: a Cell class's construct or a function, by where its code object starts."""

    kind: str           # "cell" | "function"
    name: str           # "Net" or "step"
    file: str           # resolved path
    lines: frozenset    # co_firstlineno candidates: the def line and the first decorator's line

    def matches(self, code: CodeType | None) -> bool:
        return (code is not None and code.co_firstlineno in self.lines
                and os.path.realpath(code.co_filename) == self.file)

    def describe(self) -> str:
        return f"{self.name}.construct" if self.kind == "cell" else f"{self.name}()"


def _is_jit(dec: ast.expr) -> bool:
    node = dec.func if isinstance(dec, ast.Call) else dec
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return name in JIT_NAMES


def find_target(source: str, file: str, line: int) -> Target:
    """The construct (innermost Cell-like class with a `construct` holding `line`) or function at `line`.

    Pure (parses only), so the extension's question "is the cursor somewhere I can show?" has one answer.
    """
    try:
        tree = ast.parse(source, filename=file)
    except SyntaxError as err:
        raise LookupError(f"{file}:{err.lineno}: cannot parse the file: {err.msg}") from None
    best: tuple[int, Target] | None = None

    def span(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int]:
        first = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
        return first, fn.end_lineno or fn.lineno

    def consider(depth: int, target: Target) -> None:
        nonlocal best
        if best is None or depth >= best[0]:
            best = (depth, target)

    def visit(node: ast.AST, depth: int, cls: ast.ClassDef | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, depth + 1, child)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first, last = span(child)
                if first <= line <= last:
                    lines = frozenset({first, child.lineno})
                    if cls is not None and child.name == "construct":
                        consider(depth, Target("cell", cls.name, file, lines))
                    elif cls is None or any(_is_jit(d) for d in child.decorator_list):
                        consider(depth, Target("function", child.name, file, lines))
                visit(child, depth + 1, None)

    visit(tree, 0, None)
    if best is None:
        raise LookupError(f"{file}:{line}: the cursor is not inside a Cell's construct or a function")
    return best[1]


class Catcher:
    """The profile hook: on the first call of the target, compile its graph and hand the payload on."""

    def __init__(self, target: Target, expand: str, emit: Any) -> None:
        self.target = target
        self.expand = expand
        self.emit = emit           # emit(payload | None, error | None): prints and exits the process
        self.done = False
        self.scope: str | None = None   # the graph is the part under this scope (a sub-Cell in Graph mode)
        self.looked_at: set[int] = set()

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or self.done:
            return
        code = frame.f_code
        try:
            if code.co_name == "__call__":
                hit = self._wrapper_call(frame)
            elif self.target.matches(code):
                hit = self._direct_call(frame)
            else:
                return
        except Exception:  # noqa: BLE001 - an odd object must not break the user's program; keep watching
            return
        if hit is not None:
            self.done = True
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]
            self._compile(*hit)

    def _wrapper_call(self, frame: FrameType) -> tuple[Any, tuple, dict] | None:
        """Cell.__call__(self, *args, **kwargs) of an instance whose construct is the target, or a jit
        wrapper's __call__ whose wrapped function is."""
        loc = frame.f_locals
        obj = loc.get("self")
        if obj is None:
            return None
        args, kwargs = loc.get("args", ()), loc.get("kwargs", {})
        if not isinstance(args, tuple) or not isinstance(kwargs, dict):
            return None
        if self.target.kind == "cell":
            construct = getattr(type(obj), "construct", None)
            if self.target.matches(getattr(construct, "__code__", None)):
                from spore import nn

                return (obj, args, kwargs) if isinstance(obj, nn.Cell) else None
            hit = self._enclosing_call(obj, args, kwargs)
            if hit is not None:
                return hit
        inner = getattr(obj, "__wrapped__", None) or getattr(obj, "fn", None)
        if self.target.kind == "function":
            return (obj, args, kwargs) if self.target.matches(getattr(inner, "__code__", None)) else None
        return self._jit_using_target(obj, inner, args, kwargs)

    def _enclosing_call(self, obj: Any, args: tuple, kwargs: dict) -> tuple[Any, tuple, dict] | None:
        """In Graph mode a sub-Cell's construct is compiled as part of its parent's graph, never called
        on its own: catch the first call of a Cell holding an instance of the target class, and keep
        the part of its graph under that instance's scope (`self.scope`)."""
        mod = sys.modules.get("spore.nn")
        if mod is None or not hasattr(mod, "Cell") or not isinstance(obj, mod.Cell):
            return None  # spore still importing, or not a Cell: checked before anything costly
        if id(obj) in self.looked_at:
            return None
        self.looked_at.add(id(obj))
        import spore as ms

        if ms.get_context("mode") != ms.GRAPH_MODE:
            return None  # PyNative calls the sub-Cell itself, with its real inputs: wait for that
        scope = self._scope_in(obj)
        if scope is not None and "." in scope:
            self.scope = scope
            return obj, args, kwargs
        return None

    def _scope_in(self, cell: Any) -> str | None:
        """The scope path of the target's instance inside `cell` ("Net" itself, or "Net.block.2")."""
        if self.target.matches(getattr(getattr(type(cell), "construct", None), "__code__", None)):
            return type(cell).__name__
        for name, sub in cell.cells_and_names():
            if name and self.target.matches(getattr(getattr(type(sub), "construct", None), "__code__", None)):
                return f"{type(cell).__name__}.{name}"
        return None

    def _jit_using_target(self, obj: Any, fn: Any, args: tuple, kwargs: dict) -> tuple[Any, tuple, dict] | None:
        """A @jit function whose code uses a Cell holding the target (`net(x)` inside a jitted step): the
        Cell is compiled into the function's graph, never called, so the graph shown is the function's
        (its Cells' scopes there are relative to no root, so the target's part cannot be cut out by
        scope; the panel highlights the nodes of the cursor's line instead)."""
        code = getattr(fn, "__code__", None)
        mod = sys.modules.get("spore.nn")
        if code is None or mod is None or id(obj) in self.looked_at:
            return None
        self.looked_at.add(id(obj))
        refs = [fn.__globals__.get(n) for n in code.co_names] if hasattr(fn, "__globals__") else []
        refs += [c.cell_contents for c in (getattr(fn, "__closure__", None) or ()) if _has_contents(c)]
        for ref in refs:
            if isinstance(ref, mod.Cell):
                if self._scope_in(ref) is not None:
                    return obj, args, kwargs
        return None

    def _direct_call(self, frame: FrameType) -> tuple[Any, tuple, dict] | None:
        """The target's own frame: construct called as a method, or an undecorated function."""
        code, loc = frame.f_code, frame.f_locals
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        values = [loc[n] for n in names if n in loc]
        if self.target.kind == "cell":
            if not values:
                return None
            obj, args = values[0], tuple(values[1:code.co_argcount])
        else:
            obj = frame.f_globals.get(code.co_name)
            if getattr(obj, "__code__", None) is not code:
                return None
            args = tuple(values[:code.co_argcount])
        kwargs = {n: loc[n] for n in code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
                  if n in loc}
        if code.co_flags & 0x04:  # *args
            args += tuple(loc.get(code.co_varnames[code.co_argcount + code.co_kwonlyargcount], ()))
        return obj, args, kwargs

    def _compile(self, obj: Any, args: tuple, kwargs: dict) -> None:
        from spore import ide

        from .html_view import view_payload
        from .model import embed_sources

        try:
            args = tuple(_concrete(a) for a in args)
            kwargs = {k: _concrete(v) for k, v in kwargs.items()}
            compiled = ide.compile_graph(obj, args, kwargs)
            graph = compiled["graph"] if self.scope is None else scope_subgraph(compiled["graph"], self.scope)
            graph = embed_sources(graph)
            self.emit(view_payload(graph, expand=self.expand), None)
        except Exception as err:  # noqa: BLE001 - reported to the user, the program's step never runs
            msg = str(err) if isinstance(err, ide.SporeError) else \
                "".join(traceback.format_exception_only(type(err), err)).strip()
            self.emit(None, f"compiling the graph of {self.target.describe()} failed: {msg}")


def scope_subgraph(graph: dict, scope: str) -> dict:
    """The nodes of `graph` under Cell scope `scope` ("Net.b"), as a graph of its own: the values they
    read from outside become its inputs (the viewer's "outer" boxes), those read outside its outputs."""
    inside = [n for n in graph.get("nodes", []) if (n.get("scope") or "") == scope
              or (n.get("scope") or "").startswith(scope + ".")]
    ids = {n["id"] for n in inside}
    produced = {v for n in inside for v in n.get("outputs", [])}
    used_outside = {e.get("var") for e in graph.get("edges", []) if e.get("to") not in ids}
    used_outside.update(graph.get("outputs", []))
    params = {e.get("var") for e in graph.get("edges", [])
              if e.get("to") in ids and str(e.get("from")).startswith("param:")}
    return {**graph, "name": f"{scope} (in {graph.get('name')})", "inputs": [],
            "params": [p for p in graph.get("params", []) if p.get("id") in params],
            "nodes": inside, "edges": [e for e in graph.get("edges", []) if e.get("to") in ids],
            "outputs": [v for n in inside for v in n.get("outputs", []) if v in used_outside and v in produced]}


def _has_contents(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty closure cell raises
    except ValueError:
        return False
    return True


def _concrete(value: Any) -> Any:
    """A value the compile can take: a tensor being traced (the target called inside another
    graph's compile) becomes zeros of its shape and dtype, the only things the graph depends on."""
    import spore as ms

    if isinstance(value, ms.Tensor) and type(value) not in (ms.Tensor, ms.Parameter):
        return ms.ops.zeros(tuple(value.shape), value.dtype)
    return value


def _emit_and_exit(payload: dict | None, error: str | None) -> None:
    """Print the payload (stdout) or the error (stderr) and leave now, skipping the program's rest."""
    if payload is not None:
        sys.__stdout__.write(json.dumps(payload, separators=(",", ":"), ensure_ascii=False))
        sys.__stdout__.write("\n")
    else:
        sys.__stderr__.write(f"spore-viz capture: {error}\n")
    sys.__stdout__.flush()
    sys.__stderr__.flush()
    os._exit(0 if payload is not None else FAILED)


def _watchdog(seconds: float, target: Target, name: str) -> None:
    """Leave after `seconds` if the target was not called by then (a program that loops forever)."""
    def fire() -> None:
        sys.__stderr__.write(f"spore-viz capture: {name} did not call {target.describe()} within {seconds:g} s\n")
        sys.__stderr__.flush()
        os._exit(TIMED_OUT)

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()


def run(file: str, line: int, expand: str = "default", argv: list[str] | None = None,
        timeout: float | None = None) -> int:
    """Run `file` until the target at `line` is first called; see the module docstring."""
    path = Path(file).resolve()
    if not path.is_file():
        print(f"spore-viz capture: {file}: no such file", file=sys.stderr)
        return NOT_FOUND
    try:
        target = find_target(path.read_text("utf-8", errors="replace"), str(path), line)
    except LookupError as err:
        print(f"spore-viz capture: {err}", file=sys.stderr)
        return NOT_FOUND
    catcher = Catcher(target, expand, _emit_and_exit)
    if timeout:
        _watchdog(timeout, target, path.name)
    os.chdir(path.parent)
    sys.path.insert(0, str(path.parent))
    sys.argv = [str(path), *(argv or [])]
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # the program's prints must not mix with the payload on stdout
    threading.setprofile(catcher)  # type: ignore[arg-type]
    sys.setprofile(catcher)
    try:
        runpy.run_path(str(path), run_name="__main__")
    except SystemExit as err:
        sys.setprofile(None)
        if not catcher.done:
            print(f"spore-viz capture: {path.name} exited (code {err.code}) without calling "
                  f"{target.describe()}", file=sys.stderr)
            return NO_CALL
    except BaseException as err:  # noqa: BLE001 - the user's program raised before the call
        sys.setprofile(None)
        tb = traceback.extract_tb(err.__traceback__)
        user = [f for f in tb if os.path.realpath(f.filename) == str(path)]
        at = f" at {path.name}:{user[-1].lineno}" if user else ""
        print(f"spore-viz capture: {path.name} raised {type(err).__name__}: {err}{at} before calling "
              f"{target.describe()}", file=sys.stderr)
        return NO_CALL
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
        sys.stdout = real_stdout
    print(f"spore-viz capture: {path.name} ended without calling {target.describe()} "
          f"(line {line} is in it; is it called when the file runs as a script?)", file=sys.stderr)
    return NO_CALL
