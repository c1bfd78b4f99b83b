"""Running the checks over an analysis: each check once over the whole program, or — for the checks that read
one top-level statement at a time — segment by segment, re-using the findings of segments an edit did not
touch (see `incremental.py`).

A check is a function of an `Analysis` that appends `Issue`s. One that fails (a pathological tree) is
recorded in `an.errors` and does not cost the others.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from .analysis import Analysis, Edit, Fix, Issue
from .incremental import Segment

# Checks that read one top-level statement at a time (with the file's imports and the API index): with
# segments they run per segment, and a segment's findings are re-used while it and those inputs are unchanged.
# A check belongs here only while it reads nothing else (no other statement, no set_context, no other
# finding); tests/lsp/test_incremental.py compares the per-segment results with a whole-file run.
LOCAL_CHECKS = ("pytorch habits", "unknown names")


def run_checks(an: Analysis, api: Any, segments: list[Segment] | None) -> None:
    """Every check that applies to the program, in a fixed order (their findings are sorted afterwards)."""
    from . import branch_shapes, graph_rules, habits, shapes, unknown_names

    checks: list[tuple[str, Callable[[Analysis], None]]] = []
    if an.is_spore:  # a file that does not import spore/mindspore is not Spore code: no noise there
        checks.append(("graph-mode", graph_rules.check))
        checks.append(("pytorch habits", lambda a: habits.check(a, api)))
        if api is not None:
            checks.append(("unknown names", lambda a: unknown_names.check(a, api)))
            # static shapes ask the engine (spore.ide), loaded by then: the first diagnostics never wait for it
            checks.append(("static shapes", lambda a: shapes.check(a, segments)))
            # reads what the shape check recorded (facts["shapes"].branches): after it, on the whole program
            checks.append(("branch shapes", branch_shapes.check))
            an.api_checked = True
    inputs = (tuple(sorted(an.aliases.items())), len(an.tree.body) == 1 if an.tree else False,
              id(api) if api is not None else None)
    for name, run in checks:  # one failing check (a pathological tree) must not cost the others
        if segments is not None and name in LOCAL_CHECKS and _run_per_segment(an, name, run, segments, inputs):
            continue
        try:
            run(an)
        except (Exception, RecursionError) as err:  # noqa: BLE001
            an.errors.append(f"{name} check failed: {type(err).__name__}: {err}")


def _run_per_segment(an: Analysis, name: str, run: Callable[[Analysis], None], segments: list[Segment],
                     inputs: tuple) -> bool:
    """Run a local check segment by segment, re-using unchanged segments' findings; False (nothing added)
    when it fails on one, so the caller runs it on the whole file and records the failure as a fresh
    analysis would."""
    found: list[Issue] = []
    for seg in segments:
        hit = seg.results.get(name)
        if hit is not None and hit[0] == inputs:
            relative = hit[1]
        else:
            view = _segment_view(an, seg)
            try:
                run(view)
            except (Exception, RecursionError):  # noqa: BLE001
                return False
            relative = [_moved(i, -seg.start) for i in view.issues]
            seg.results[name] = (inputs, relative)
        found.extend(_moved(i, seg.start) for i in relative)
    an.issues.extend(found)
    return True


def _segment_view(an: Analysis, seg: Segment) -> Analysis:
    """The analysis as a local check sees it, with only one segment's statements and nodes."""
    view = Analysis(an.program, ast.Module(body=seg.stmts, type_ignores=[]), aliases=an.aliases,
                    is_spore=an.is_spore, functions=an.functions, context_calls=an.context_calls,
                    parents=an.parents, only_child=an.only_child)
    view.nodes = [node for level in seg.levels for node in level]
    return view


def _moved(i: Issue, delta: int) -> Issue:
    """A copy of an issue `delta` lines further down, its fixes' edits with it."""
    fixes = [Fix(f.title, tuple(Edit(e.line + delta, e.col, e.end_line + delta, e.end_col, e.new_text)
                                for e in f.edits), f.preferred) for f in i.fixes]
    return Issue(i.code, i.message, i.severity, i.line + delta, i.col, i.end_line + delta, i.end_col, fixes,
                 dict(i.data))
