"""Incremental parsing: a program kept as top-level statement *segments*, re-parsed only where an edit lands.

Parsing a 3,000-line file with `ast` takes 60-70 ms and walking it as long again, so an edit cannot be
re-diagnosed in 50 ms by parsing the whole text. A `SegmentedTree` keeps the tree of the last text that
parsed, cut into segments: a segment starts on a line where a top-level statement starts at column 0
(its first decorator for a decorated def/class) and runs to the next segment; comments and blank lines
belong to the segment above them. An edit re-parses only the segments it touches — and the one before
it, which an indented insertion may continue — on their own, and keeps the trees of the others, shifting
their line numbers when the edit changed the number of lines.

Why a region parsed on its own gives exactly the nodes the whole text would: the text before it and the
text after it are unchanged sequences of whole top-level statements, each starting at column 0 on a line
the previous line does not continue (no backslash). A region that parses alone closes every bracket and
string it opens and ends with no continuation, so Python's tokenizer is in the same state (no open
bracket, indentation back to column 0) at the region's end as at the start of the text after it, and the
grammar reads a file as a plain sequence of statements. A statement cannot start with `else`/`except`/
`finally`/`elif`, so the following statement never joins the region's last one. Where that reasoning does
not cover a case — the region does not parse alone, a line ends with a backslash, a lone "\\r" (Python
counts it as a line break, the program's lines do not) — the whole text is parsed, as a fresh analysis
would, and the segments are rebuilt from that parse. `tests/lsp/test_incremental.py` applies thousands of
seeded random edits and compares every result with a from-scratch analysis.

Nodes are shared between successive versions: shifting a segment moves its nodes' line numbers in place,
so an `Analysis` is consistent with its program only until a newer version of the same program is
analysed (features read the newest analysis; `FunctionFacts` keeps its own line numbers).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

_BODIES = ("body", "orelse", "finalbody")
_SKIP = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)  # shared singletons: not walked
MARKED = (ast.Import, ast.ImportFrom, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
# fields that never hold a node worth walking (names, numbers, flags, the operator singletons)
_SCALAR = frozenset({"id", "attr", "name", "asname", "module", "level", "arg", "type_comment", "kind", "is_async",
                     "conversion", "simple", "tag", "ctx", "op", "ops"})
_WALKED: dict[type, bool] = {}   # node class -> walked (an AST node that is not a shared singleton)
_INFO: dict[type, tuple[tuple[str, ...], bool, Any]] = {}  # class -> (fields to visit, has lines, marked)


def _info(cls: type) -> tuple[tuple[str, ...], bool, Any]:
    """What the walk needs to know about a node class, computed once per class."""
    got = _INFO.get(cls)
    if got is None:
        fields = () if cls is ast.Constant else tuple(f for f in cls._fields if f not in _SCALAR)
        mark = True if cls in MARKED else ("call" if cls is ast.Call else False)
        got = _INFO[cls] = (fields, "lineno" in cls._attributes, mark)
    return got


for _cls in vars(ast).values():
    if isinstance(_cls, type) and issubclass(_cls, ast.AST):
        _WALKED[_cls] = not issubclass(_cls, _SKIP)


def _is_context_call(node: ast.AST) -> bool:
    f = node.func  # type: ignore[attr-defined]
    return (f.attr if type(f) is ast.Attribute else getattr(f, "id", None)) == "set_context"


@dataclass(eq=False)
class Segment:
    """Whole top-level statements on lines [start, start + n_lines), with their walked nodes."""

    start: int
    n_lines: int
    stmts: list[ast.stmt]
    levels: list[list[ast.AST]] = field(default_factory=list)  # breadth-first levels; levels[0] is `stmts`
    parents: dict[int, ast.AST] = field(default_factory=dict)  # id(node) -> parent, below the statements
    only_child: set[int] = field(default_factory=set)          # ids of nodes alone in their block
    located: list[ast.AST] = field(default_factory=list)       # the nodes with line numbers
    marks: list[tuple[int, int, ast.AST]] = field(default_factory=list)  # (depth, index in level, node)
    results: dict[str, tuple[Any, list[Any]]] = field(default_factory=dict)  # per check: (inputs, findings)

    @property
    def end(self) -> int:
        return self.start + self.n_lines

    def walk(self) -> None:
        """One breadth-first pass, as `analysis._walk` does for a whole module, level by level (with the
        fields that never hold a node skipped: about twice as fast)."""
        level: list[ast.AST] = list(self.stmts)
        parents, only_child, marks = self.parents, self.only_child, self.marks
        walked, info, bodies, depth = _WALKED, _INFO, _BODIES, 0
        while level:
            self.levels.append(level)
            nxt: list[ast.AST] = []
            append = nxt.append
            for i, node in enumerate(level):
                cls = node.__class__
                fields, _, mark = info.get(cls) or _info(cls)
                if mark and (mark is True or _is_context_call(node)):
                    marks.append((depth, i, node))
                for name in fields:
                    value = getattr(node, name, None)
                    if value.__class__ is list:
                        if len(value) == 1 and name in bodies:
                            only_child.add(id(value[0]))
                        for child in value:
                            if walked.get(child.__class__, False):
                                parents[id(child)] = node
                                append(child)
                    elif walked.get(value.__class__, False):
                        parents[id(value)] = node
                        append(value)
            level = nxt
            depth += 1

    def shift(self, delta: int) -> None:
        """Move the segment `delta` lines down (up when negative), its nodes with it."""
        if not delta:
            return
        self.start += delta
        if not self.located:  # found on the first move (most segments never move)
            self.located = [n for level in self.levels for n in level if _info(n.__class__)[1]]
        for node in self.located:
            node.lineno += delta
            end = getattr(node, "end_lineno", None)
            if end is not None:
                node.end_lineno = end + delta


def first_line(stmt: ast.stmt) -> int:
    """The 0-based line a top-level statement starts on (its first decorator's, for a decorated one)."""
    decorators = getattr(stmt, "decorator_list", None)
    return min([stmt.lineno] + [d.lineno for d in decorators]) - 1 if decorators else stmt.lineno - 1


def _continues(line: str) -> bool:
    """Whether a line ends with a backslash (the next line continues it; conservative: comments too)."""
    return line.rstrip("\r").endswith("\\")


def split(stmts: list[ast.stmt], lines: list[str], start: int, end: int) -> list[Segment]:
    """Statements (already in program line numbers) covering lines [start, end) as walked segments."""
    out: list[Segment] = []
    seg_start, current = start, []
    for stmt in stmts:
        first = first_line(stmt)
        if current and first > seg_start and (stmt.col_offset == 0 or getattr(stmt, "decorator_list", None)) \
                and not _continues(lines[first - 1]):
            out.append(Segment(seg_start, first - seg_start, current))
            seg_start, current = first, []
        current.append(stmt)
    if end > seg_start or current:
        out.append(Segment(seg_start, end - seg_start, current))
    for seg in out:
        seg.walk()
    return out


def _parse_region(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


class SegmentedTree:
    """The segments of the last text of one program that parsed; `update` brings them to a new text."""

    def __init__(self) -> None:
        self.lines: list[str] | None = None
        self.segments: list[Segment] = []
        self.reparsed = 0  # lines parsed by the last update (what the tests and the bench look at)
        # every segment's parents and only-children in one place, kept up to date segment by segment (merging
        # them afresh for each version costs milliseconds on a large file)
        self.parents: dict[int, ast.AST] = {}
        self.only_child: set[int] = set()

    def reset(self) -> None:
        """Forget the segments: the next update parses the whole text."""
        self.lines, self.segments = None, []
        self.parents, self.only_child = {}, set()

    def _index(self, removed: list[Segment], added: list[Segment]) -> None:
        parents, only_child = self.parents, self.only_child
        for seg in removed:
            for key in seg.parents:
                del parents[key]
            only_child -= seg.only_child
        for seg in added:
            parents.update(seg.parents)
            only_child |= seg.only_child

    def update(self, lines: list[str], parse_all: Any) -> tuple[list[Segment] | None, Any]:
        """The segments of the text `lines` ("\\n"-separated), or (None, what `parse_all` said).

        `parse_all()` parses the whole text and returns (tree or None, error): it is called when the edit
        cannot be handled locally, and its error is what a fresh analysis reports. The state changes only
        when the new text parses."""
        old = self.lines
        if old is not None and len(old) == len(lines) and old == lines:
            self.reparsed = 0
            return self.segments, None
        if old is not None and self.segments:
            segments = self._local(old, lines)
            if segments is not None:
                self.lines, self.segments = list(lines), segments
                return segments, None
        tree, error = parse_all()
        self.reparsed = len(lines)
        if tree is None:
            return None, error
        self.lines = list(lines)
        self.parents, self.only_child = {}, set()
        self.segments = split(tree.body, self.lines, 0, len(self.lines))
        self._index([], self.segments)
        return self.segments, None

    def _local(self, old: list[str], new: list[str]) -> list[Segment] | None:
        """The segments after re-parsing only the region the edit touched, or None when that is not safe."""
        n_old, n_new = len(old), len(new)
        limit = min(n_old, n_new)
        p = 0
        while p < limit and old[p] == new[p]:
            p += 1
        s = 0
        while s < limit - p and old[n_old - 1 - s] == new[n_new - 1 - s]:
            s += 1
        lo = max(p - 1, 0)                       # the line before the edit: an insertion may continue it
        hi = min(max(n_old - s, p + 1), n_old)   # old lines [lo, hi) changed or may be continued
        segs = self.segments
        i = next((k for k, seg in enumerate(segs) if seg.end > lo), len(segs) - 1)
        j = next((k for k in range(len(segs) - 1, -1, -1) if segs[k].start < hi), i) + 1
        j = max(j, i + 1)
        a, b_old = segs[i].start, segs[j - 1].end
        delta = n_new - n_old
        b_new = b_old + delta
        if b_new < a or b_new < n_new - s or a > p:
            return None
        region = new[a:b_new]
        text = "\n".join(region)
        if (a > 0 and "\ufeff" in text) or (b_new < n_new and region and _continues(region[-1])):
            return None
        tree = _parse_region(text)
        if tree is None:
            return None
        fresh = split(tree.body, region, 0, len(region))
        for seg in fresh:
            seg.shift(a)
        for seg in segs[j:]:
            seg.shift(delta)
        self._index(segs[i:j], fresh)
        self.reparsed = len(region)
        return segs[:i] + fresh + segs[j:]


def merge(tree: SegmentedTree) -> tuple[ast.Module, list[ast.AST], dict[int, ast.AST], set[int], list[ast.AST]]:
    """(module, every node in breadth-first order, parents, only-children, marked nodes in that order):
    what `analysis._walk` gives for the whole tree, put together from the segments' own walks (the whole
    tree's breadth-first order is, depth by depth, each segment's level in turn). The parents and
    only-children are copies: an analysis keeps its own while the tree moves on to the next version."""
    segments = tree.segments
    body = [stmt for seg in segments for stmt in seg.stmts]
    module = ast.Module(body=body, type_ignores=[])
    nodes: list[ast.AST] = [module]
    depth = 0
    while True:
        added = False
        for seg in segments:
            if depth < len(seg.levels):
                nodes.extend(seg.levels[depth])
                added = True
        if not added:
            break
        depth += 1
    parents = dict(tree.parents)
    for stmt in body:
        parents[id(stmt)] = module
    only_child = set(tree.only_child)
    if len(body) == 1:
        only_child.add(id(body[0]))
    marks = sorted(((d, k, i), node) for k, seg in enumerate(segments) for d, i, node in seg.marks)
    return module, nodes, parents, only_child, [node for _, node in marks]
