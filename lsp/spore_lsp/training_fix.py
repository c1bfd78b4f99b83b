"""The PyTorch training step rewritten to Spore's `value_and_grad` pattern (the `torch-training-loop` fix).

In a block holding, in this order, the forward statements, ``loss.backward()`` and
``optimizer.step()`` (with ``optimizer.zero_grad()`` just before the forward statements or just after
the step), the statements from the first of them to the last become::

    def forward_fn():
        <the forward statements>
        return loss
    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
    loss, grads = grad_fn()
    optimizer(grads)

`forward_fn` reads the loop's variables as a closure, so nothing else changes. Offered only where that
keeps the block's meaning: the forward statements are plain assignments and expressions, and no name
they bind other than the loss is read after them in the block.
"""

from __future__ import annotations

import ast

from .analysis import Analysis, Edit, Fix

_BODIES = ("body", "orelse", "finalbody")


def _block_of(an: Analysis, stmt: ast.stmt) -> list[ast.stmt] | None:
    parent = an.parents.get(id(stmt))
    for name in _BODIES:
        block = getattr(parent, name, None)
        if isinstance(block, list) and any(s is stmt for s in block):
            return block
    return None


def _method_call(stmt: ast.stmt, method: str) -> str | None:
    """The receiver's text of a statement ``<receiver>.<method>()``, else None."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and not stmt.value.args \
            and not stmt.value.keywords and isinstance(stmt.value.func, ast.Attribute) \
            and stmt.value.func.attr == method:
        return ast.unparse(stmt.value.func.value)
    return None


def _stored(stmts: list[ast.stmt]) -> set[str]:
    return {n.id for s in stmts for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _loaded(stmts: list[ast.stmt]) -> set[str]:
    return {n.id for s in stmts for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def training_step_fix(an: Analysis, stmt: ast.stmt) -> Fix | None:
    """The rewrite of the training step `stmt` (a zero_grad/backward/step statement) belongs to, if any."""
    block = _block_of(an, stmt)
    if block is None:
        return None
    bw = next((i for i, s in enumerate(block) if isinstance(_method_call(s, "backward"), str)), None)
    if bw is None or bw + 1 >= len(block):
        return None
    loss, optimizer = _method_call(block[bw], "backward"), _method_call(block[bw + 1], "step")
    if optimizer is None or not loss or not loss.isidentifier():
        return None
    first, last = bw - 1, bw + 1
    while first >= 0 and isinstance(block[first], (ast.Assign, ast.AnnAssign, ast.Expr)) \
            and _method_call(block[first], "zero_grad") is None:
        first -= 1
    zero_before = first >= 0 and _method_call(block[first], "zero_grad") == optimizer
    forward = block[first + 1:bw]
    if last + 1 < len(block) and _method_call(block[last + 1], "zero_grad") == optimizer:
        last += 1
    elif not zero_before:
        return None  # no zero_grad next to the step: not recognisably a PyTorch training step
    start = first if zero_before else first + 1
    binds = [s for s in forward if isinstance(s, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == loss for t in s.targets)]
    if not forward or not binds or any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr))
                                       for s in forward for n in ast.walk(s)):
        return None
    if (_stored(forward) - {loss}) & _loaded(block[last + 1:]):
        return None  # a value computed in the forward statements is read later: it would be forward_fn's
    alias = an.alias_for("spore") or "ms"
    imports: list[Edit] = []
    if an.alias_for("spore") is None:
        from .jit_actions import spore_alias

        alias, imports = spore_alias(an, stmt.lineno - 1)
    l0 = block[start].lineno - 1
    l1 = (block[last].end_lineno or block[last].lineno) - 1
    text = an.program.line_text(block[bw].lineno - 1)
    ind = text[:len(text) - len(text.lstrip())]
    f0, f1 = forward[0].lineno - 1, (forward[-1].end_lineno or forward[-1].lineno) - 1
    body = "\n".join("    " + line if line.strip() else line for line in an.program.lines[f0:f1 + 1])
    new = (f"{ind}def forward_fn():\n{body}\n{ind}    return {loss}\n"
           f"{ind}grad_fn = {alias}.value_and_grad(forward_fn, None, {optimizer}.parameters)\n"
           f"{ind}{loss}, grads = grad_fn()\n{ind}{optimizer}(grads)")
    return Fix("Rewrite this training step with value_and_grad",
               tuple(imports + [Edit(l0, 0, l1, len(an.program.line_text(l1)), new)]), preferred=False)
