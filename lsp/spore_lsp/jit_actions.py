"""The "compile this with @ms.jit" code actions, as plain edits.

- A plain function that calls Spore ops, or a Cell's `construct` in a file that runs PYNATIVE_MODE:
  decorate it with ``@ms.jit`` (the alias the file binds for spore/mindspore; ``import spore as ms`` is
  added when it binds none), so it runs as one compiled graph.
- A Graph-mode finding inside a `construct` (a statement Graph mode cannot compile): the support table's
  fix "put @ms.jit on a smaller part", done mechanically — the statements before the offending one (or
  after it) move into a new ``@ms.jit`` method of the Cell, called with the local values they read and
  returning the ones the rest of `construct` reads. The offending statement stays in `construct`, which
  runs it in Python in PYNATIVE_MODE while the moved part runs compiled. The move is offered only where
  it keeps what the code does: every value crossing the cut is certainly bound there, and the moved
  statements hold no other finding and no `return` (before the cut) or `yield`.
"""

from __future__ import annotations

import ast

from .analysis import Analysis, Edit, FunctionFacts, Issue

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp)


def spore_alias(an: Analysis, line: int) -> tuple[str, list[Edit]]:
    """The name the file uses for spore (`ms`, `mindspore`, ...) and the edit importing it if there is none."""
    alias = an.alias_for("spore")
    if alias:
        return alias, []
    tree = an.tree
    imports = [s for s in (tree.body if tree else []) if isinstance(s, (ast.Import, ast.ImportFrom))]
    if an.program.is_notebook:
        imports = [s for s in imports if s.lineno - 1 <= line] or imports[:1]
    if imports:
        end = (imports[-1].end_lineno or imports[-1].lineno) - 1
        col = len(an.program.line_text(end))
        return "ms", [Edit(end, col, end, col, "\nimport spore as ms")]
    chunk = an.program.chunk_of(line) if an.program.is_notebook else None
    at = chunk.first_line if chunk else 0
    return "ms", [Edit(at, 0, at, 0, "import spore as ms\n")]


def _indent(an: Analysis, line: int) -> str:
    text = an.program.line_text(line)
    return text[:len(text) - len(text.lstrip())]


def decorate(an: Analysis, fn: ast.FunctionDef) -> list[Edit]:
    """Put ``@ms.jit`` right above the def (below any other decorator)."""
    line = fn.lineno - 1
    alias, edits = spore_alias(an, line)
    return edits + [Edit(line, 0, line, 0, f"{_indent(an, line)}@{alias}.jit\n")]


def _calls_spore_ops(an: Analysis, fn: ast.FunctionDef) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            try:
                qual = an.resolve(ast.unparse(node.func))
            except (ValueError, RecursionError):
                continue
            if qual is not None and qual.startswith("ops."):
                return True
    return False


def jit_candidate(an: Analysis, line: int) -> tuple[ast.FunctionDef, str] | None:
    """The function at a 0-based program line that @ms.jit would compile, and what to call it: a plain
    function calling Spore ops, or a construct of a file in PYNATIVE_MODE (innermost first)."""
    compiled = {id(f.node) for f in an.functions}
    best: ast.FunctionDef | None = None
    for node in an.nodes:
        if isinstance(node, ast.FunctionDef) and node.lineno - 1 <= line <= (node.end_lineno or node.lineno) - 1:
            if best is None or node.lineno > best.lineno:
                best = node
    if best is None:
        return None
    parent = an.parents.get(id(best))
    while parent is not None:  # nested in compiled code: compiled with it already
        if id(parent) in compiled:
            return None
        parent = an.parents.get(id(parent))
    owner = an.parents.get(id(best))
    fn = next((f for f in an.functions if f.node is best), None)
    if fn is not None:
        if fn.jit or an.context_before(best.lineno - 1)[0] != "PYNATIVE_MODE":
            return None
        return best, fn.scope
    generator = any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(best))
    if not generator and _calls_spore_ops(an, best):
        return best, f"{owner.name}.{best.name}" if isinstance(owner, ast.ClassDef) else best.name
    return None


# ---- moving a pure part of construct into a @ms.jit method ------------------------------------
def _walk_own(stmts: list[ast.stmt]):
    """The nodes of the statements, not entering nested scopes (their names are not construct's)."""
    todo: list[ast.AST] = list(reversed(stmts))
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, _SCOPES):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                todo.extend(reversed(node.decorator_list))
            continue
        todo.extend(reversed(list(ast.iter_child_nodes(node))))


def _loads(stmts: list[ast.stmt]) -> list[str]:
    """Names read by the statements (nested scopes included: they read construct's locals too), in order."""
    out: list[str] = []
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in out:
                out.append(n.id)
    return out


def _stores(stmts: list[ast.stmt]) -> list[str]:
    out: list[str] = []
    for n in _walk_own(stmts):
        name = n.id if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) else \
            n.name if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else None
        if name is not None and name not in out:
            out.append(name)
    return out


def _sure_stores(stmts: list[ast.stmt]) -> set[str]:
    """Names the statements certainly bind: the targets of their own top-level assignments and defs."""
    out: set[str] = set()
    for s in stmts:
        targets = s.targets if isinstance(s, ast.Assign) else [s.target] if isinstance(
            s, (ast.AnnAssign, ast.AugAssign)) and (not isinstance(s, ast.AnnAssign) or s.value is not None) else []
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    out.add(n.id)
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(s.name)
    return out


def _exits(stmts: list[ast.stmt], kinds: tuple[type, ...]) -> bool:
    return any(isinstance(n, kinds) for n in _walk_own(stmts))


def _method_name(cls: ast.ClassDef, base: str) -> str:
    taken = {i.name for i in cls.body if isinstance(i, (ast.FunctionDef, ast.AsyncFunctionDef))}
    name, k = base, 2
    while name in taken:
        name, k = f"{base}{k}", k + 1
    return name


def _lines(an: Analysis, stmts: list[ast.stmt]) -> tuple[int, int]:
    return stmts[0].lineno - 1, (stmts[-1].end_lineno or stmts[-1].lineno) - 1


def move_out(an: Analysis, issue: Issue, issues: list[Issue]) -> list[tuple[str, list[Edit]]]:
    """(title, edits) for moving the part of construct before (and after) the statement holding `issue`
    into a @ms.jit method of the Cell; empty where the move could change what the code does."""
    fn: FunctionFacts | None = an.function_at(issue.line)
    if fn is None or fn.jit or fn.node.name != "construct":
        return []
    cls = an.parents.get(id(fn.node))
    node = fn.node
    params = [a.arg for a in node.args.posonlyargs + node.args.args]
    if not isinstance(cls, ast.ClassDef) or not params or node.args.vararg or node.args.kwarg or \
            node.args.kwonlyargs:
        return []
    me, params = params[0], params[1:]
    body = list(node.body)
    start = 1 if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
        and isinstance(body[0].value.value, str) else 0
    k = next((i for i, s in enumerate(body) if s.lineno - 1 <= issue.line <= (s.end_lineno or s.lineno) - 1), None)
    if k is None or k < start:
        return []
    others = {i.line for i in issues if i.code.startswith("graph-")}

    def clean(part: list[ast.stmt]) -> bool:
        first, last = _lines(an, part)
        return not any(first <= li <= last for li in others) and not _exits(part, (ast.Yield, ast.YieldFrom,
                                                                                   ast.Global, ast.Nonlocal))

    alias, imports = spore_alias(an, node.lineno - 1)
    def_indent = _indent(an, node.lineno - 1)
    body_indent = _indent(an, body[k].lineno - 1)
    after_fn = (node.end_lineno or node.lineno) - 1
    end_col = len(an.program.line_text(after_fn))
    mode = an.context_before(node.lineno - 1)[0]
    note = "" if mode == "PYNATIVE_MODE" else " (compiled when construct runs in PYNATIVE_MODE)"
    out: list[tuple[str, list[Edit]]] = []

    def moved(first: int, last: int, call: str, name: str, args: list[str], part: list[ast.stmt],
              ret: str) -> list[Edit]:
        """The call replacing lines first..last, and the new method after construct (one edit where the
        replaced lines end construct: edits must not touch)."""
        p_first, p_last = _lines(an, part)
        text = "\n".join(an.program.lines[p_first:p_last + 1])
        new = f"\n\n{def_indent}@{alias}.jit\n{def_indent}def {name}({', '.join([me] + args)}):\n{text}{ret}"
        end = len(an.program.line_text(last))
        if last == after_fn:
            return [Edit(first, 0, last, end, call + new)]
        return [Edit(first, 0, last, end, call), Edit(after_fn, end_col, after_fn, end_col, new)]

    def shown(line: int) -> int:
        return an.program.to_local(line)[1] + 1

    head = body[start:k]
    if head and clean(head) and not _exits(head, (ast.Return,)):
        rest = body[k:]
        needed = set(_loads(rest))
        outs = [n for n in _stores(head) if n in needed]
        ins = [p for p in params if p in _loads(head)]
        if outs and set(outs) <= _sure_stores(head):
            name = _method_name(cls, "construct_head")
            first, last = _lines(an, head)
            targets = ", ".join(outs)
            edits = moved(first, last, f"{body_indent}{targets} = {me}.{name}({', '.join(ins)})", name, ins, head,
                          f"\n{body_indent}return {targets}")
            out.append((f"Move lines {shown(first)}-{shown(last)} before it into a @{alias}.jit method "
                        f"`{name}`{note}", imports + edits))
    tail = body[k + 1:]
    if tail and clean(tail):
        before = body[:k + 1]
        bound = set(params) | set(_stores(before))
        ins = [n for n in _loads(tail) if n in bound and n != me]
        if set(ins) <= set(params) | _sure_stores(before):
            name = _method_name(cls, "construct_tail")
            first, last = _lines(an, tail)
            edits = moved(first, last, f"{body_indent}return {me}.{name}({', '.join(ins)})", name, ins, tail, "")
            out.append((f"Move lines {shown(first)}-{shown(last)} after it into a @{alias}.jit method "
                        f"`{name}`{note}", imports + edits))
    return out
