"""Names for places in notebook code: 'Cell In[3], line 9' rather than '/tmp/ipykernel_81/2f3a.py:9'.

IPython compiles each cell under a generated file name and registers its source in linecache, so
Spore's SourceLocs (and profiler events, and compile errors) point at those files. These helpers
turn such a location back into what the user sees in the notebook, and find the cell that last
assigned a variable (where an inspected tensor came from).
"""

from __future__ import annotations

import ast
import linecache
import sys
from typing import Any


def cell_label(shell: Any, filename: str | None) -> str | None:
    """'In[3]' for a file IPython made from cell 3; None for an ordinary file."""
    if not filename or shell is None:
        return None
    try:
        named = shell.compile.format_code_name(filename)
    except Exception:  # noqa: BLE001 - an unknown compiler must not break error display
        return None
    return named[1] if named else None


def where(shell: Any, filename: str | None, line: int | None) -> str:
    """'Cell In[3], line 9' for notebook code, 'path.py:9' otherwise."""
    if not filename:
        return "<unknown>"
    label = cell_label(shell, filename)
    if label:
        return f"Cell {label}, line {line}"
    return f"{filename}:{line}"


def line_text(filename: str | None, line: int | None) -> str:
    if not filename or not line:
        return ""
    return linecache.getline(filename, line).rstrip("\n")


def _assigned_names(target: ast.AST) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for t in target.elts for n in _assigned_names(t)]
    if isinstance(target, ast.Starred):
        return _assigned_names(target.value)
    return []


def _assignments(tree: ast.AST) -> list[tuple[int, list[str]]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            found.append((node.lineno, [n for t in node.targets for n in _assigned_names(t)]))
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            found.append((node.lineno, _assigned_names(node.target)))
        elif isinstance(node, (ast.For, ast.With)):
            targets = [node.target] if isinstance(node, ast.For) else [i.optional_vars for i in node.items
                                                                         if i.optional_vars is not None]
            found.append((node.lineno, [n for t in targets for n in _assigned_names(t)]))
        elif isinstance(node, ast.NamedExpr):
            found.append((node.lineno, _assigned_names(node.target)))
    return found


def last_assignment(shell: Any, name: str) -> tuple[int, int, str] | None:
    """(cell number, line, source line) of the latest top-level assignment to `name` in this session."""
    try:
        cells = shell.history_manager.input_hist_parsed
    except AttributeError:
        return None
    for number in range(len(cells) - 1, 0, -1):
        source = cells[number]
        if name not in source:
            continue
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        hits = [line for line, names in _assignments(tree) if name in names]
        if hits:
            line = max(hits)
            return number, line, source.splitlines()[line - 1].strip()
    return None


def current_cell_number(shell: Any) -> int:
    """The In[n] number of the notebook cell now running (found on the stack).

    IPython bumps `execution_count` before a cell runs, so during the cell it already names the
    next one; the cell's own code frame, registered under its number, is the reliable witness.
    """
    frame = sys._getframe(1)
    while frame is not None:
        label = cell_label(shell, frame.f_code.co_filename)
        if label and label.startswith("In[") and label[3:-1].isdigit():
            return int(label[3:-1])
        frame = frame.f_back
    return max(int(shell.execution_count) - 1, 1)
