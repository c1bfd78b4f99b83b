"""Graph mode's refusal of an ``if`` on a tensor that leaves a variable with two shapes, seen before it runs.

Graph mode compiles both branches of ``if <tensor>:`` into one ``If`` op whose outputs are the variables
either branch assigns, one shape and dtype each (`spore.compiler.control_flow.tensor_if`). A variable that
is ``(2, 8)`` on one branch and ``(2, 4)`` on the other is refused with rule ``tensor_if`` on the ``if``
line — whether or not anything reads it afterwards (the compiler checks every name a branch assigns). Under
``jit_syntax_level=STRICT`` that is a `GraphCompileError`; under LAX (the default) the ``if`` becomes a graph
break (its header runs in Python); a ``@ms.jit`` function under STRICT runs in PyNative instead. The
severity is `graph_rules`' verdict for the function, so this finding reads like the other Graph-mode ones.

The shapes come from the static shape check (`shapes.check` records each such ``if`` in
`ConstructShapes.branches`, only where the condition is one element and the ``if`` is certainly compiled).
This module adds what the compiler does before it compares shapes, and never guesses:

- an ``if`` holding a ``return``, ``break`` or ``continue`` anywhere is compiled another way (the rest of
  the function is duplicated into both paths, or the loop exit is refused as ``tensor_break``): skipped;
- a shape with an unknown dim (``?``) or several possible shapes (``a | b``) is not certain: skipped, and
  so are shapes that could still be equal (``(B, 8)`` against ``(8, 8)`` with a symbolic ``B``);
- a difference in dtype alone counts only where no input's dtype is assumed (an ``input_shape`` comment
  assumes float32);
- where the deeper rules already report ``tensor_if`` on that line (a name bound in one branch only), the
  compiler stops at that first: nothing is added.
"""

from __future__ import annotations

import ast
import re

from . import graph_rules
from .analysis import Analysis, FunctionFacts
from .deep_rules import rule_text
from .shapes import ConstructShapes
from .shapes.inputs import INPUT_SHAPE
from .shapes.values import BranchShapes

RULE = "tensor_if"
_LABEL = re.compile(r"^\((.*)\) (\S+)$")


def check(an: Analysis) -> None:
    """One ``graph-tensor_if`` issue per tensor ``if`` that certainly leaves a variable with two shapes."""
    if an.tree is None:
        return
    code = graph_rules.code_for(RULE)
    taken = {i.line for i in an.issues if i.code == code}
    assumed: list[bool] = []  # computed once, only if a dtype-only difference needs it
    ifs: dict[int, ast.If] = {}  # the `if` statements by 0-based line, from the walk every check shares
    for fn in an.functions:
        rec = fn.facts.get("shapes")
        if not isinstance(rec, ConstructShapes) or not rec.branches:
            continue
        by_line: dict[int, dict[str, BranchShapes]] = {}
        for b in rec.branches:  # an unrolled loop records the same `if` once per iteration: the first counts
            by_line.setdefault(b.line, {}).setdefault(b.name, b)
        if not ifs:
            for n in an.nodes:
                if n.__class__ is ast.If:
                    ifs.setdefault(n.lineno - 1, n)
        for line, found in sorted(by_line.items()):
            node = ifs.get(line)
            if node is None or line in taken or not fn.lineno <= node.lineno <= fn.end_lineno:
                continue
            order, exits = _branch_names(node)  # the order the compiler compares them in
            if exits:
                continue
            sure = [b for name, b in found.items() if name in order and _differs(b, an, assumed)]
            if not sure:
                continue
            sure.sort(key=lambda b: order.index(b.name))
            _report(an, fn, node, sure)
            taken.add(line)


def _branch_names(node: ast.If) -> tuple[list[str], bool]:
    """What the compiler reads of an `if`'s branches (control_flow.tensor_if), in one walk: the names stored
    anywhere in them, in its order, and whether a return, break or continue is anywhere in them."""
    names: list[str] = []
    exits = False
    for stmt in node.body + node.orelse:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in names:
                names.append(n.id)
            elif isinstance(n, (ast.Return, ast.Break, ast.Continue)):
                exits = True
    return names, exits


def _parse(label: str) -> tuple[tuple[str, ...], str] | None:
    """``"(2, 8) f32"`` as (dims, dtype); None where the shape is not certain (an unknown dim, alternatives)."""
    m = _LABEL.match(label)
    if m is None or "|" in label:
        return None
    dims = tuple(d.strip() for d in m.group(1).split(",") if d.strip())
    if any("?" in d for d in dims):
        return None
    return dims, m.group(2)


def _differs(b: BranchShapes, an: Analysis, assumed: list[bool]) -> bool:
    """Whether the two branches' values certainly differ in shape or dtype, for any value of a symbolic dim."""
    then, orelse = _parse(b.then), _parse(b.orelse)
    if then is None or orelse is None:
        return False
    (d1, t1), (d2, t2) = then, orelse
    if len(d1) != len(d2) or any(x.isdigit() and y.isdigit() and x != y for x, y in zip(d1, d2)):
        return True
    if t1 == t2:
        return False  # equal, or shapes that a symbolic dim could still make equal
    if not assumed:
        assumed.append(any(INPUT_SHAPE.search(text) for text in an.program.lines))
    return not assumed[0]


def _report(an: Analysis, fn: FunctionFacts, node: ast.If, found: list[BranchShapes]) -> None:
    first = found[0]
    t_line, t_col, t_end_line, t_end = an.span(node.test)
    if t_line == t_end_line:  # as written (unparsing costs more than the rest of the report)
        test = an.program.line_text(t_line)[t_col:t_end]
    else:
        try:
            test = ast.unparse(node.test)
        except (ValueError, RecursionError):
            test = "..."
    test = test if len(test) <= 60 else test[:57] + "..."
    other = "the else branch" if node.orelse else "the else branch (its value before the if: there is no else)"
    detail = f"'{first.name}' is {first.then} in the if branch but {first.orelse} in {other} of `if {test}:`"
    if len(found) > 1:
        detail += "; so " + ("is " if len(found) == 2 else "are ") + ", ".join(
            f"'{b.name}' ({b.then} against {b.orelse})" for b in found[1:])
    severity, what = graph_rules._verdict(an, fn)
    names = " and ".join(f"'{b.name}'" for b in found)
    message = (f"{detail}: Graph mode compiles both branches of an if on a tensor into one If op, which gives each "
               f"variable one shape and dtype. In {fn.scope}: {what}. Fix: make both branches produce the same "
               f"shape for {names} (or give a branch's differently shaped result a name of its own)")
    if severity != "information":
        message += f"; or run the file with {graph_rules.PYNATIVE}"
    line = node.lineno - 1
    text = an.program.line_text(line)
    _, col, _, _ = an.span(node)
    end = len(text.rstrip())
    if t_end_line == line:  # the header `if <test>:` (a comment after it is not underlined)
        colon = text.find(":", t_end)
        end = colon + 1 if colon >= 0 else t_end
    an.issue(graph_rules.code_for(RULE), message, severity, (line, col, line, end), rule=RULE, scope=fn.scope,
             construct=rule_text(RULE).get("construct"), variable=first.name, then=first.then, orelse=first.orelse)
