"""One analysis per document version: the parse, the facts every feature reads, and the findings.

Every feature (diagnostics, hover, completion, code actions, ...) reads the same `Analysis`, made
once per program version by `analyse()` and cached in `AnalysisCache`. It is static only: the
text is parsed with `ast`, never imported, executed or evaluated. When the text does not parse
(the user is half-way through a line), the last analysis that parsed is kept and marked stale,
so diagnostics, hovers and fixes stay useful while typing.

The cache analyses each program incrementally (`incremental.py`): a new version re-parses only the
top-level statements an edit touched, and the checks that read one statement at a time keep their
findings for the others (`checking.py`); the result is exactly what `analyse()` without the segments
gives, which `tests/lsp/test_incremental.py` checks over thousands of random edits.

The facts are kept per function (`FunctionFacts`) so later analyses — static tensor shapes, inlay
hints — can attach their results to the same objects without a second parse.
"""

from __future__ import annotations

import ast
import dataclasses
import gc
import threading
from dataclasses import dataclass, field
from typing import Any

from .documents import Program, byte_to_char
from .incremental import MARKED, SegmentedTree, merge

SPORE_ROOTS = ("spore", "mindspore")


@dataclass(frozen=True)
class Edit:
    """Replace program text [line:col, end_line:end_col) (0-based lines, code-point columns)."""

    line: int
    col: int
    end_line: int
    end_col: int
    new_text: str


@dataclass(frozen=True)
class Fix:
    """A quick fix: a title and the edits that make it."""

    title: str
    edits: tuple[Edit, ...]
    preferred: bool = True


@dataclass
class Issue:
    """One finding, in program coordinates (0-based lines, code-point columns)."""

    code: str
    message: str
    severity: str  # "error" | "warning" | "information" | "hint"
    line: int
    col: int
    end_line: int
    end_col: int
    fixes: list[Fix] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class FunctionFacts:
    """A function Graph mode would compile (a Cell's `construct` or a `@jit` function)."""

    scope: str               # "Net.construct" or the function's name
    node: ast.FunctionDef
    jit: bool                # decorated with @jit (compiled in either mode)
    fullgraph: bool          # @jit(fullgraph=True): refused rather than broken
    facts: dict[str, Any] = field(default_factory=dict)  # room for later analyses (shapes, ...)
    # its 1-based first and last lines when analysed: a later version may move the shared node (incremental.py)
    lineno: int = field(init=False, default=0)
    end_lineno: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.lineno = self.node.lineno
        self.end_lineno = self.node.end_lineno or self.node.lineno


@dataclass
class ContextCall:
    """A `set_context(...)` call: the line it is on and the mode / syntax level it sets."""

    node: ast.Call
    line: int                # 0-based program line
    mode: str | None         # "GRAPH_MODE" | "PYNATIVE_MODE" | "?" (not a literal) | None (not set here)
    level: str | None        # "STRICT" | "LAX" | "COMPATIBLE" | None


@dataclass
class Analysis:
    """Everything the features need to know about one program version."""

    program: Program
    tree: ast.Module | None
    syntax_error: tuple[int, int, str] | None = None  # (0-based line, col, message) when the text does not parse
    stale: bool = False       # the tree is from an earlier version (the current one does not parse)
    aliases: dict[str, str] = field(default_factory=dict)   # local name -> "spore", "spore.ops", "torch.nn", ...
    is_spore: bool = False
    functions: list[FunctionFacts] = field(default_factory=list)
    context_calls: list[ContextCall] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    api_checked: bool = False  # the unknown-name check ran (the API index was loaded)
    errors: list[str] = field(default_factory=list)  # checks that failed on this text (logged by the server)
    nodes: list[ast.AST] = field(default_factory=list)       # every node, walked once (checks filter this list)
    parents: dict[int, ast.AST] = field(default_factory=dict)  # id(node) -> its parent
    only_child: set[int] = field(default_factory=set)        # ids of statements alone in their block
    # the imports, classes, functions and set_context calls among `nodes`, in the same order: what checks that
    # look only for those can scan instead of every node (a few hundred nodes where `nodes` has tens of thousands)
    marked: list[ast.AST] = field(default_factory=list)

    # ---- coordinates --------------------------------------------------------------------
    def span(self, node: ast.AST) -> tuple[int, int, int, int]:
        """A node's (line, col, end_line, end_col): 0-based lines, code-point columns."""
        line = node.lineno - 1
        end_line = (getattr(node, "end_lineno", None) or node.lineno) - 1
        col = byte_to_char(self.program.line_text(line), node.col_offset)
        end_col = byte_to_char(self.program.line_text(end_line), getattr(node, "end_col_offset", None) or 0)
        return line, col, end_line, end_col

    def attr_span(self, node: ast.Attribute) -> tuple[int, int, int, int]:
        """The span of an attribute's name (``reduce_summ`` in ``ops.reduce_summ``)."""
        _, _, end_line, end_col = self.span(node)
        return end_line, end_col - len(node.attr), end_line, end_col

    def issue(self, code: str, message: str, severity: str, node: ast.AST | tuple[int, int, int, int],
              fixes: list[Fix] | None = None, **data: Any) -> Issue:
        line, col, end_line, end_col = node if isinstance(node, tuple) else self.span(node)
        out = Issue(code, message, severity, line, col, end_line, end_col, fixes or [], data)
        self.issues.append(out)
        return out

    # ---- names --------------------------------------------------------------------------
    def resolve(self, dotted: str) -> str | None:
        """A dotted name as the file writes it (``ms.ops.matmul``, ``nn.Dense``) as Spore's qualified
        name (``ops.matmul``, ``nn.Dense``, ``spore.set_context``, ``Tensor.reshape``), or None."""
        head, _, rest = dotted.partition(".")
        target = self.aliases.get(head)
        if target is None:
            return None
        full = f"{target}.{rest}" if rest else target
        root, _, tail = full.partition(".")
        if root not in SPORE_ROOTS:
            return None
        if not tail:
            return "spore"
        for ns in ("ops", "nn", "Tensor"):
            if tail == ns:
                return f"spore.{ns}" if ns != "Tensor" else "spore.Tensor"
            if tail.startswith(ns + "."):
                return ns + "." + tail[len(ns) + 1:]
        return "spore." + tail

    def alias_for(self, qual_module: str) -> str | None:
        """A local name the file binds to a Spore module ("spore", "spore.ops", "spore.nn"), if any."""
        for name, target in self.aliases.items():
            root, _, tail = target.partition(".")
            if root in SPORE_ROOTS and (tail or "spore") == (qual_module.partition(".")[2] or "spore"):
                return name
        return None

    def function_at(self, line: int) -> FunctionFacts | None:
        """The innermost compiled function containing a 0-based program line."""
        best = None
        for f in self.functions:
            if f.lineno - 1 <= line <= f.end_lineno - 1 and (best is None or f.lineno > best.lineno):
                best = f
        return best

    def context_before(self, line: int) -> tuple[str, str]:
        """(mode, jit_syntax_level) that apply to code at a 0-based program line ("?" for a mode set from a
        variable): in a text file, the last
        `set_context` of the file (a Cell runs when called, usually after the file's set-up); in a notebook,
        the last one in this cell or an earlier one (later cells have not run yet)."""
        mode, level = "PYNATIVE_MODE", "LAX"
        limit = None
        if self.program.is_notebook:
            chunk = self.program.chunk_of(line)
            limit = chunk.first_line + chunk.n_lines if chunk else None
        for call in self.context_calls:
            if limit is not None and call.line >= limit:
                continue
            mode = call.mode or mode
            level = call.level or level
        return mode, "LAX" if level == "COMPATIBLE" else level


def stale_issue(an: Analysis, current: Program) -> Issue | None:
    """An information-level note where the current text stops parsing: silence must not read as "checked"."""
    if an.syntax_error is None:
        return None
    line, col, msg = an.syntax_error
    text = current.line_text(line)
    col = min(col, len(text))
    what = ("showing Spore's diagnostics from the last version that parsed" if an.tree is not None
            else "Spore's checks resume when it parses")
    return Issue("spore-stale", f"this code does not parse here ({msg}); {what}", "information", line, col, line,
                 max(col + 1, len(text)) if col < len(text) else col)



# ---- building an analysis -------------------------------------------------------------------
_BODIES = ("body", "orelse", "finalbody")


def _walk(tree: ast.AST) -> tuple[list[ast.AST], dict[int, ast.AST], set[int]]:
    """Every node (breadth first, as ast.walk; the shared Load/Store/operator markers left out), its parent,
    and the statements alone in their block: one pass that every check shares (a walk of a 3,000-line
    file costs tens of milliseconds)."""
    nodes: list[ast.AST] = [tree]
    parents: dict[int, ast.AST] = {}
    only_child: set[int] = set()
    append, node_type = nodes.append, ast.AST
    skip = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)  # shared singletons
    for node in nodes:  # grows while iterating: a breadth-first walk
        for name in node._fields:
            value = getattr(node, name, None)
            if value.__class__ is list:
                if len(value) == 1 and name in _BODIES:
                    only_child.add(id(value[0]))
                for child in value:
                    if isinstance(child, node_type) and not isinstance(child, skip):
                        parents[id(child)] = node
                        append(child)
            elif isinstance(value, node_type) and not isinstance(value, skip):
                parents[id(value)] = node
                append(value)
    return nodes, parents, only_child


def _aliases(tree: ast.Module, nodes: list[ast.AST] | None = None) -> dict[str, str]:
    """Local names bound by imports (anywhere in the file) to the module or object they import."""
    out: dict[str, str] = {}
    for node in nodes if nodes is not None else ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    out[a.asname] = a.name
                else:
                    root = a.name.split(".")[0]
                    out[root] = root
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                if a.name != "*":
                    out[a.asname or a.name] = f"{node.module}.{a.name}"
    return out


def _is_context_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return (f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)) == "set_context"


def _is_jit(dec: ast.expr) -> tuple[bool, bool]:
    """(is a jit decorator, fullgraph=True)."""
    target = dec.func if isinstance(dec, ast.Call) else dec
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    if name != "jit":
        return False, False
    full = isinstance(dec, ast.Call) and any(
        k.arg == "fullgraph" and isinstance(k.value, ast.Constant) and bool(k.value.value) for k in dec.keywords)
    return True, full


def _functions(nodes: list[ast.AST]) -> list[FunctionFacts]:
    out: list[FunctionFacts] = []
    seen: set[int] = set()
    for node in nodes:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    jits = [_is_jit(d) for d in item.decorator_list]
                    is_jit = any(j for j, _ in jits)
                    if item.name == "construct" or is_jit:
                        out.append(FunctionFacts(f"{node.name}.{item.name}", item, is_jit, any(f for _, f in jits)))
                        seen.add(id(item))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and id(node) not in seen:
            jits = [_is_jit(d) for d in node.decorator_list]
            if any(j for j, _ in jits):
                out.append(FunctionFacts(node.name, node, True, any(f for _, f in jits)))
    return out


def _const_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return str(node.value)
    return None


def _context_calls(nodes: list[ast.AST]) -> list[ContextCall]:
    out = []
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
        if name != "set_context":
            continue
        mode = level = None
        for k in node.keywords:
            value = _const_name(k.value)
            if k.arg == "mode":
                mode = {"0": "GRAPH_MODE", "1": "PYNATIVE_MODE"}.get(value or "", value)
                mode = mode if mode in ("GRAPH_MODE", "PYNATIVE_MODE") else "?"  # "?": set from a variable
            elif k.arg == "jit_syntax_level":
                level = {"0": "STRICT", "1": "COMPATIBLE", "2": "LAX"}.get(value or "", value)
                level = level if level in ("STRICT", "LAX", "COMPATIBLE") else "?"
        out.append(ContextCall(node, node.lineno - 1, mode, level))
    out.sort(key=lambda c: (c.line, c.node.col_offset))
    return out


def parse(program: Program) -> tuple[ast.Module | None, tuple[int, int, str] | None]:
    """The module's AST, or None and (0-based line, col, message) of where it stops parsing."""
    try:
        return ast.parse(program.text), None
    except SyntaxError as err:
        if err.lineno is not None:
            return None, (err.lineno - 1, max((err.offset or 1) - 1, 0), err.msg)
        return None, (*_first_bad_char(program.text), err.msg)
    except ValueError as err:  # lone surrogates
        return None, (*_first_bad_char(program.text), f"{type(err).__name__}: {str(err)[:200]}")
    except (RecursionError, MemoryError) as err:  # absurd nesting: no position given, blame the longest line
        longest = max(range(len(program.lines)), key=lambda i: len(program.lines[i]))
        return None, (longest, 0, f"{type(err).__name__}: {str(err)[:200]}")


def _first_bad_char(text: str) -> tuple[int, int]:
    """Where a NUL or a lone surrogate is (errors about them carry no position); else the start."""
    for i, ch in enumerate(text):
        if ch == "\x00" or 0xD800 <= ord(ch) <= 0xDFFF:
            line = text.count("\n", 0, i)
            return line, i - (text.rfind("\n", 0, i) + 1)
    return 0, 0


def analyse(program: Program, previous: Analysis | None, api: Any = None,
            segmented: SegmentedTree | None = None) -> Analysis:
    """The analysis of one program version; `previous` (the last good one) is kept when this does not parse.

    `api` is the loaded `api.ApiIndex` or None while it loads: the checks that need Spore's public
    names (unknown names) run only with it, and the analysis says whether they ran.

    `segmented` (the program's `incremental.SegmentedTree`, kept from version to version) makes it
    incremental: only the top-level statements an edit touched are parsed and walked again, and the checks
    that read one statement at a time keep their findings for the others. The result is the same as
    without it (`tests/lsp/test_incremental.py`).
    """

    was_enabled = gc.isenabled()
    gc.disable()  # tens of thousands of fresh AST nodes would otherwise trigger collection after collection
    try:
        return _analyse(program, previous, api, segmented)
    finally:
        if was_enabled:
            gc.enable()


def _lone_cr(text: str) -> bool:
    """A "\r" not followed by "\n": Python breaks the line there, `Program.lines` does not."""
    return "\r" in text and text.count("\r") != text.count("\r\n")


def _analyse(program: Program, previous: Analysis | None, api: Any, segmented: SegmentedTree | None) -> Analysis:
    if segmented is not None and _lone_cr(program.text):
        segmented.reset()  # parsed whole; the next version that has none starts the segments afresh
        segmented = None
    if segmented is None:
        tree, error = parse(program)
        segments = None
    else:
        segments, error = segmented.update(program.lines, lambda: parse(program))
        tree = None
    if tree is None and segments is None:
        if previous is not None and previous.tree is not None:
            return dataclasses.replace(previous, syntax_error=error, stale=True, issues=list(previous.issues),
                                       errors=[])
        return Analysis(program, None, error)
    if segments is None:
        assert tree is not None
        an = Analysis(program, tree)
        an.nodes, an.parents, an.only_child = _walk(tree)
        marked = [n for n in an.nodes if isinstance(n, MARKED) or _is_context_call(n)]
    else:
        assert segmented is not None
        module, nodes, parents, only_child, marked = merge(segmented)
        an = Analysis(program, module, nodes=nodes, parents=parents, only_child=only_child)
    an.marked = marked
    an.aliases = _aliases(an.tree, marked)
    an.is_spore = any(t.split(".")[0] in SPORE_ROOTS for t in an.aliases.values())
    an.functions = _functions(marked)
    an.context_calls = _context_calls(marked)
    from .checking import run_checks  # the checks import this module

    run_checks(an, api, segments)
    an.issues.sort(key=_order)
    return an


def _order(i: Issue) -> tuple:
    """Issues in reading order; the later fields only break ties, so the order never depends on the walk's."""
    return i.line, i.col, i.code, i.end_line, i.end_col, i.severity, i.message


class AnalysisCache:
    """The analysis of each open program, made once per version (and again when the API index arrives).

    Each program keeps its `SegmentedTree`, so a new version is analysed incrementally; analyses of one
    program are made one at a time (the segments are shared state), different programs in parallel."""

    def __init__(self, incremental: bool = True) -> None:
        self.incremental = incremental
        self._lock = threading.Lock()
        self._by_key: dict[str, tuple[Any, Analysis]] = {}
        self._good: dict[str, Analysis] = {}
        self._trees: dict[str, SegmentedTree] = {}
        self._busy: dict[str, threading.Lock] = {}

    def get(self, program: Program, api: Any = None) -> Analysis:
        stamp = (program.version, hash(program.text), api is not None)
        with self._lock:
            hit = self._by_key.get(program.key)
            busy = self._busy.setdefault(program.key, threading.Lock())
        if hit is not None and hit[0] == stamp:
            return hit[1]
        with busy:
            with self._lock:
                hit = self._by_key.get(program.key)
                tree = self._trees.setdefault(program.key, SegmentedTree()) if self.incremental else None
                previous = self._good.get(program.key)
            if hit is not None and hit[0] == stamp:  # made by another thread while this one waited
                return hit[1]
            an = analyse(program, previous, api, tree)
            with self._lock:
                self._by_key[program.key] = (stamp, an)
                if not an.stale and an.tree is not None:
                    self._good[program.key] = an
        return an

    def latest(self, key: str) -> Analysis | None:
        """The newest analysis made for a program, whatever its version (None before the first)."""
        with self._lock:
            hit = self._by_key.get(key)
        return hit[1] if hit is not None else None

    def drop(self, key: str) -> None:
        with self._lock:
            self._by_key.pop(key, None)
            self._good.pop(key, None)
            self._trees.pop(key, None)
            self._busy.pop(key, None)
