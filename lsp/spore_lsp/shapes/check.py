"""The entry points the server calls: `check` (one analysis: every construct with known inputs is
interpreted, its steps recorded in `FunctionFacts.facts["shapes"]`, its findings added as issues), and
`steps_at` / `value_of`, which hover and inlay hints read."""

from __future__ import annotations

import ast
from typing import Any

from ..analysis import Analysis, FunctionFacts
from .cells import instance
from .inputs import call_sites, comment_inputs
from .interpreter import Interpreter
from .program import Program
from .values import ConstructShapes, Step, TVal


def check(an: Analysis, segments: list[Any] | None = None) -> None:
    """Infer the shapes of every construct with known inputs; record issues and `facts["shapes"]`.

    `segments`: the analysis's `incremental.Segment`s when it was made incrementally (`Program` then keeps
    its pass over each unchanged segment's nodes; the result is the same)."""
    if an.tree is None:
        return
    if not any(f.node.name == "construct" for f in an.functions):
        return  # no Cell: nothing to infer, and no pass over the file
    from spore import ide

    prog = Program(an, ide, segments)
    if not prog.classes:
        return
    facts_by_node: dict[int, FunctionFacts] = {id(f.node): f for f in an.functions}
    prog.record_for = lambda fn: _record(facts_by_node, fn)
    sites = call_sites(prog)
    for name, cls in prog.classes.items():
        fn = prog.method(cls, "construct")
        if fn is None or fn.name != "construct" or id(fn) not in facts_by_node:
            continue
        params = fn.args.args[1:]
        commented = comment_inputs(an, fn, ide)
        ctor, kwargs, training = None, {}, None
        if commented is not None:
            inputs = [TVal(tuple(s), "float32", f"the input {p.arg}", line) for (s, line), p in zip(commented, params)]
        elif name in sites:
            site = sites[name]
            names = [p.arg for p in params]
            if any(k not in names for k in site.kwargs) or len(site.args) > len(names):
                continue  # the engine would refuse the call itself (not a shape question)
            # an input is named with the line of the call that passes it (a message adds "(line N)")
            inputs = [_named(v, f"the input {p.arg}", site.line) for v, p in zip(site.args, params)]
            kwargs = {k: _named(v, f"the input {k}", site.line) for k, v in site.kwargs.items()}
            ctor, training = site.ctor, site.training
            if training is None and not prog.mentions_training:
                training = False  # a Cell is built in inference mode; nothing in the program changes that
        else:
            continue
        record = _record(facts_by_node, fn)
        if record is None:
            continue
        run = Interpreter(prog, instance(prog, cls, ctor, prog.consts), fn, record, 0)
        run.assumed_dtype = commented is not None
        run.training = training
        run.run(inputs, kwargs)


def _named(v: TVal, origin: str, line: int) -> TVal:
    return TVal(v.shape, v.dtype, origin, line, tuple(_named(a, origin, line) for a in v.alts), v.maybe, v.tag)


def _record(facts_by_node: dict[int, FunctionFacts], fn: ast.FunctionDef) -> ConstructShapes | None:
    """The record of a construct's steps: the first interpretation of it records, later ones only infer."""
    facts = facts_by_node.get(id(fn))
    if facts is None or "shapes" in facts.facts:
        return None
    rec = ConstructShapes()
    facts.facts["shapes"] = rec
    return rec


def steps_at(an: Analysis, line: int) -> list[Step]:
    """The recorded steps of the construct holding a 0-based program line."""
    fn = an.function_at(line)
    rec = fn.facts.get("shapes") if fn is not None else None
    return list(rec.steps) if isinstance(rec, ConstructShapes) else []


def value_of(an: Analysis, name: str, line: int, col: int) -> Any:
    """The value of variable `name` at a program position in a construct (None when not known)."""
    best = None
    for step in steps_at(an, line):
        if step.name != name:
            continue
        on_target = step.line == line and col < step.value_col
        if step.line < line or on_target or (step.line == line and step.value_col == step.end_col):
            best = step
    return best.value if best is not None else None
