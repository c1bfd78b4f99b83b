"""Quick fixes for Graph-mode findings where the support table's fix is mechanical.

- ``graph-print``: ``print(a, b)`` -> ``ops.print_(a, b)`` (prints every time the graph runs, with
  values), or remove the statement;
- ``graph-import``: move the import to the top of the file (in a notebook: under the imports of
  the cells before);
- ``graph-self_assign`` on an attribute ``__init__`` makes a Parameter: ``self.p = v`` ->
  ``ops.assign(self.p, v)``, ``self.p += v`` / ``-= v`` -> ``ops.assign_add`` / ``ops.assign_sub``
  (the Parameter is updated in the graph, as the support table says);
- ``graph-raise`` / ``graph-unsupported_call`` on ``if <tensor>: raise E("message")``: check it with
  ``assert not (<tensor>), "message"``, which the graph checks each time it runs (it raises
  AssertionError rather than E).

Each fix is an `analysis.Fix` in program coordinates, built from the finding's node.
"""

from __future__ import annotations

import ast
from typing import Any

from .analysis import Analysis, Edit, Fix


def _node_at(root: ast.AST, kinds: tuple[type, ...], line: int, col: int) -> ast.AST | None:
    """The node of one of `kinds` starting at a 1-based line and 0-based byte column (descending only into
    nodes whose lines hold it: a finding's fixes must not cost a walk of the whole function)."""
    todo = [root]
    while todo:
        node = todo.pop()
        if isinstance(node, kinds) and node.lineno == line and node.col_offset == col:
            return node
        for child in ast.iter_child_nodes(node):
            first = getattr(child, "lineno", None)
            if first is None or first <= line <= (getattr(child, "end_lineno", None) or first):
                todo.append(child)
    return None


def ops_prefix(an: Analysis, line: int) -> tuple[str, list[Edit]]:
    """How the file names spore.ops (``ops``, ``ms.ops``), and an import edit when it names neither."""
    ops = an.alias_for("spore.ops")
    if ops:
        return ops, []
    spore = an.alias_for("spore")
    if spore:
        return f"{spore}.ops", []
    return "ops", [_top_insert(an, line, "from spore import ops")]


def _top_insert(an: Analysis, line: int, stmt: str) -> Edit:
    """An edit adding a statement after the file's top-level imports (in a notebook, those before `line`)."""
    tree = an.tree
    imports = [s for s in (tree.body if tree else []) if isinstance(s, (ast.Import, ast.ImportFrom))]
    if an.program.is_notebook:
        imports = [s for s in imports if s.lineno - 1 < line]
    if imports:
        end = (imports[-1].end_lineno or imports[-1].lineno) - 1
        col = len(an.program.line_text(end))
        return Edit(end, col, end, col, "\n" + stmt)
    chunk = an.program.chunk_of(line) if an.program.is_notebook else None
    at = chunk.first_line if chunk else 0
    return Edit(at, 0, at, 0, stmt + "\n")


def _remove(an: Analysis, stmt: ast.stmt) -> Edit:
    """Delete a statement's lines (``pass`` where it is alone in its block)."""
    if id(stmt) in an.only_child:
        return Edit(*an.span(stmt), "pass")
    line, _, end_line, _ = an.span(stmt)
    return Edit(line, 0, end_line + 1, 0, "")


def _print_fixes(an: Analysis, fn: ast.AST, f: dict[str, Any]) -> list[Fix]:
    call = _node_at(fn, (ast.Call,), f["line"], f["col"])
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        return []
    out = []
    if not call.keywords and not any(isinstance(a, ast.Starred) for a in call.args):
        prefix, imports = ops_prefix(an, f["line"] - 1)
        out.append(Fix(f"Replace print with {prefix}.print_ (prints each time the graph runs)",
                       tuple(imports + [Edit(*an.span(call.func), f"{prefix}.print_")])))
    stmt = an.parents.get(id(call))
    if isinstance(stmt, ast.Expr):
        out.append(Fix("Remove the print", (_remove(an, stmt),), preferred=not out))
    return out


def _import_fixes(an: Analysis, fn: ast.AST, f: dict[str, Any]) -> list[Fix]:
    stmt = _node_at(fn, (ast.Import, ast.ImportFrom), f["line"], f["col"])
    if stmt is None or (isinstance(stmt, ast.ImportFrom) and stmt.level):
        return []
    return [Fix("Move the import to the top of the file",
                (_top_insert(an, f["line"] - 1, ast.unparse(stmt)), _remove(an, stmt)))]


def _assign_fixes(an: Analysis, fn: ast.AST, f: dict[str, Any], params: set[str]) -> list[Fix]:
    target = _node_at(fn, (ast.Attribute,), f["line"], f["col"])
    if not isinstance(target, ast.Attribute) or target.attr not in params:
        return []
    stmt = an.parents.get(id(target))
    prefix, imports = ops_prefix(an, f["line"] - 1)
    name = ast.unparse(target)
    if isinstance(stmt, ast.Assign) and stmt.targets == [target]:
        new, how = f"{prefix}.assign({name}, {ast.unparse(stmt.value)})", "assign"
    elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, (ast.Add, ast.Sub)):
        how = "assign_add" if isinstance(stmt.op, ast.Add) else "assign_sub"
        new = f"{prefix}.{how}({name}, {ast.unparse(stmt.value)})"
    else:
        return []
    return [Fix(f"Update the Parameter with {prefix}.{how}", tuple(imports + [Edit(*an.span(stmt), new)]))]


def _raise_fixes(an: Analysis, fn: ast.AST, f: dict[str, Any]) -> list[Fix]:
    raise_stmt = _node_at(fn, (ast.Raise,), f["line"], _col_of_raise(an, f["line"]))
    node = an.parents.get(id(raise_stmt)) if raise_stmt is not None else None
    if isinstance(node, ast.If) and not node.orelse and node.body == [raise_stmt]:
        exc = node.body[0].exc
        if isinstance(exc, ast.Call) and isinstance(exc.func, ast.Name) and not exc.keywords and (
                not exc.args or len(exc.args) == 1 and isinstance(exc.args[0], ast.Constant)
                and isinstance(exc.args[0].value, str)):
            message = exc.args[0].value if exc.args else exc.func.id
        elif isinstance(exc, ast.Name):
            message = exc.id
        else:
            return []
        line, col, _, _ = an.span(node)
        _, _, end_line, end_col = an.span(node.body[0])
        new = f"assert not ({ast.unparse(node.test)}), {message!r}"
        return [Fix("Check it with assert, in the graph (raises AssertionError when it fails)",
                    (Edit(line, col, end_line, end_col, new),))]
    return []


def _col_of_raise(an: Analysis, line: int) -> int:
    """The byte column where a ``raise`` statement starting on a 1-based line begins (its indentation)."""
    text = an.program.line_text(line - 1)
    return len(text[:len(text) - len(text.lstrip())].encode("utf-8"))


def fixes(an: Analysis, fn: ast.AST, f: dict[str, Any], params: set[str]) -> list[Fix]:
    """The quick fixes of one Graph-mode finding `f` (a support/deep finding dict) inside function `fn`;
    `params`: the attributes the owner Cell's ``__init__`` makes Parameters."""
    rule = f["rule"]
    if rule == "print":
        return _print_fixes(an, fn, f)
    if rule == "import":
        return _import_fixes(an, fn, f)
    if rule == "self_assign":
        return _assign_fixes(an, fn, f, params)
    if rule in ("raise", "unsupported_call"):
        return _raise_fixes(an, fn, f)
    return []
