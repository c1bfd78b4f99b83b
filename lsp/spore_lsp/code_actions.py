"""Code actions: the quick fixes of the issues under the cursor, and "switch this file to
PYNATIVE_MODE / GRAPH_MODE" (edits the `set_context` call, or inserts one after the imports)."""

from __future__ import annotations

import ast

from lsprotocol import types

from . import jit_actions
from .analysis import Analysis, Edit
from .convert import code_action, diagnostic, workspace_edit
from .server import SporeLanguageServer, guarded, server


def _overlaps(a: types.Range, b: types.Range) -> bool:
    return (a.start.line, a.start.character) <= (b.end.line, b.end.character) and \
        (b.start.line, b.start.character) <= (a.end.line, a.end.character)


def mode_switch(an: Analysis, line: int, target: str) -> Edit | None:
    """The edit that makes code at a program line run in `target` ("GRAPH_MODE" / "PYNATIVE_MODE")."""
    alias = an.alias_for("spore")
    value = f"{alias or 'ms'}.{target}"
    calls = [c for c in an.context_calls if not an.program.is_notebook or c.line <= line]
    with_mode = [c for c in calls if any(k.arg == "mode" for k in c.node.keywords)]
    if with_mode:
        kw = next(k for k in with_mode[-1].node.keywords if k.arg == "mode")
        return Edit(*an.span(kw.value), value)
    if calls:
        call = calls[-1].node
        l, c, _, _ = an.span(call.func)
        _, _, fl, fc = an.span(call.func)
        sep = ", " if call.args or call.keywords else ""
        return Edit(fl, fc + 1, fl, fc + 1, f"mode={value}{sep}")
    tree = an.tree
    imports = [s for s in (tree.body if tree else []) if isinstance(s, (ast.Import, ast.ImportFrom))]
    if an.program.is_notebook:
        imports = [s for s in imports if s.lineno - 1 <= line] or imports[:1]
    stmt = ("" if alias else "import spore as ms\n") + f"{alias or 'ms'}.set_context(mode={value})"
    if imports:  # at the end of the last import's line: in a notebook that stays in the import's own cell
        end = (imports[-1].end_lineno or imports[-1].lineno) - 1
        col = len(an.program.line_text(end))
        return Edit(end, col, end, col, "\n" + stmt)
    chunk = an.program.chunk_of(line) if an.program.is_notebook else None
    at = chunk.first_line if chunk else 0
    return Edit(at, 0, at, 0, stmt + "\n")


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix,
                                                           types.CodeActionKind.RefactorRewrite]))
@guarded(default=[])
def code_actions(ls: SporeLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    program = ls.program_for(uri)
    if program is None:
        return []
    an = ls.analyses.get(program, ls.api())
    if an.tree is None:
        return []
    out: list[types.CodeAction] = []
    refactor = types.CodeActionKind.RefactorRewrite
    for issue in [] if an.stale else an.issues:  # a stale analysis's positions may no longer fit the text
        if not issue.fixes and not issue.code.startswith("graph-"):
            continue
        diag_uri, diag = diagnostic(an.program, issue)
        if diag_uri != uri or not _overlaps(diag.range, params.range):
            continue
        out.extend(code_action(an.program, fix, diag) for fix in issue.fixes)
        if issue.code.startswith("graph-"):
            for title, edits in jit_actions.move_out(an, issue, an.issues):
                out.append(types.CodeAction(title=title, kind=refactor, diagnostics=[diag],
                                            edit=workspace_edit(an.program, edits)))
    line = an.program.to_program(uri, params.range.start.line)
    if an.is_spore and line is not None and not an.stale:
        found = jit_actions.jit_candidate(an, line)
        if found is not None:
            fn, scope = found
            alias = an.alias_for("spore") or "ms"
            out.append(types.CodeAction(title=f"Compile {scope} with @{alias}.jit", kind=refactor,
                                        edit=workspace_edit(an.program, jit_actions.decorate(an, fn))))
    if an.is_spore and line is not None and not an.stale:
        mode, _ = an.context_before(line)
        target = "PYNATIVE_MODE" if mode == "GRAPH_MODE" else "GRAPH_MODE"
        edit = mode_switch(an, line, target)
        if edit is not None:
            where = "this notebook" if an.program.is_notebook else "this file"
            out.append(types.CodeAction(title=f"Switch {where} to {target}", kind=types.CodeActionKind.RefactorRewrite,
                                        edit=workspace_edit(an.program, [edit])))
    return only_kinds(out, params.context.only)


def only_kinds(actions: list[types.CodeAction], only: list[str] | None) -> list[types.CodeAction]:
    """The actions of the kinds the client asked for (`context.only`; LSP: a kind matches its own
    sub-kinds, `refactor` takes `refactor.rewrite`). VS Code asks for `quickfix` alone on the light
    bulb and logs a warning for every action of another kind it is sent."""
    if not only:
        return actions
    wanted = [_kind(k) for k in only]
    return [a for a in actions if a.kind is not None
            and any(_kind(a.kind) == w or _kind(a.kind).startswith(w + ".") for w in wanted)]


def _kind(kind: object) -> str:
    """A code action kind as its protocol string (lsprotocol's enum or the client's plain string)."""
    return str(getattr(kind, "value", kind))
