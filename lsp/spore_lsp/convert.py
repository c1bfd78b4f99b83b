"""Findings and fixes as lsprotocol types, mapped from program coordinates to each document.

Issues carry 0-based program lines and code-point columns; LSP wants, per document URI (a text
document or one notebook cell), document-relative lines and UTF-16 columns.
"""

from __future__ import annotations

from lsprotocol import types

from .analysis import Edit, Fix, Issue
from .documents import Program, to_utf16

SOURCE = "spore"
SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
            "information": types.DiagnosticSeverity.Information, "hint": types.DiagnosticSeverity.Hint}


def position(program: Program, line: int, col: int) -> tuple[str, types.Position]:
    """(URI, LSP position) of a program position."""
    uri, local = program.to_local(line)
    return uri, types.Position(line=local, character=to_utf16(program.line_text(line), col))


def span_range(program: Program, line: int, col: int, end_line: int, end_col: int) -> tuple[str, types.Range]:
    """(URI, LSP range) of a program span; a span running past its cell is cut at the cell's end."""
    uri, start = position(program, line, col)
    end_uri, end = position(program, end_line, end_col)
    if end_uri != uri:
        chunk = program.chunk_by_uri(uri)
        last = chunk.first_line + chunk.n_lines - 1 if chunk else line
        _, end = position(program, last, len(program.line_text(last)))
    return uri, types.Range(start=start, end=end)


def diagnostic(program: Program, issue: Issue) -> tuple[str, types.Diagnostic]:
    uri, rng = span_range(program, issue.line, issue.col, issue.end_line, issue.end_col)
    data = dict(issue.data)
    return uri, types.Diagnostic(range=rng, message=issue.message, severity=SEVERITY[issue.severity],
                                 code=issue.code, source=SOURCE, data=data or None)


def diagnostics_by_uri(program: Program, issues: list[Issue]) -> dict[str, list[types.Diagnostic]]:
    """Every document of the program (each notebook cell too) with its diagnostics, empty lists included
    (so a fixed problem's diagnostic is cleared)."""
    out: dict[str, list[types.Diagnostic]] = {c.uri: [] for c in program.chunks}
    for issue in issues:
        uri, diag = diagnostic(program, issue)
        out.setdefault(uri, []).append(diag)
    return out


def text_edit(program: Program, edit: Edit) -> tuple[str, types.TextEdit]:
    uri, rng = span_range(program, edit.line, edit.col, edit.end_line, edit.end_col)
    return uri, types.TextEdit(range=rng, new_text=edit.new_text)


def workspace_edit(program: Program, edits: tuple[Edit, ...] | list[Edit]) -> types.WorkspaceEdit:
    changes: dict[str, list[types.TextEdit]] = {}
    for e in edits:
        uri, te = text_edit(program, e)
        changes.setdefault(uri, []).append(te)
    return types.WorkspaceEdit(changes=changes)


def code_action(program: Program, fix: Fix, diag: types.Diagnostic | None) -> types.CodeAction:
    return types.CodeAction(title=fix.title, kind=types.CodeActionKind.QuickFix,
                            diagnostics=[diag] if diag is not None else None, is_preferred=fix.preferred,
                            edit=workspace_edit(program, fix.edits))
