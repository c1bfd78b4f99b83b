"""What Graph mode accepts, as plain data: the support table and the static checker's findings.

The compiler raises from the same table (`spore.compiler.support`), so an editor's diagnostic, a
kernel hint and a compile error say the same thing. Importing this loads neither NumPy nor the
engine: a language server can lint without the framework's start-up cost.
"""

from __future__ import annotations

import ast
from typing import Any

from ..compiler import support


def _rule_dict(rule: support.Rule) -> dict[str, str]:
    return {"id": rule.id, "construct": rule.construct, "reason": rule.reason, "fix": rule.fix}


def support_rules() -> list[dict[str, str]]:
    """Every construct Graph mode refuses: id, construct (in words), reason, fix."""
    return [_rule_dict(r) for r in support.RULES.values()]


def support_rule(rule_id: str | None) -> dict[str, str] | None:
    """One rule by id (a `GraphCompileError`'s ``rule``), or None."""
    rule = support.RULES.get(rule_id) if rule_id else None
    return None if rule is None else _rule_dict(rule)


def compile_time_builtins() -> frozenset[str]:
    """The builtins Graph mode evaluates while compiling (`len`, `range`, `float`, ...); calling any other
    builtin from compiled code is refused (rule ``unsupported_call``)."""
    return support.COMPILE_TIME_BUILTINS


def impure_builtins() -> frozenset[str]:
    """The builtins whose calls Graph mode refuses as impure (`open`, `input`, `id`, ...: ``impure_call``)."""
    return support.IMPURE_BUILTINS


def check(source: str | ast.AST) -> list[dict[str, Any]]:
    """Graph-mode findings for a module's source, without running it: rule, message, hint, span, scope.

    Lines are 1-based, columns 0-based; a source that does not parse gives no findings (syntax
    errors are the editor's job).
    """
    return [{"rule": f.rule.id, "message": f.message, "hint": f.hint, "line": f.line, "col": f.col,
             "end_line": f.end_line, "end_col": f.end_col, "scope": f.scope} for f in support.check(source)]
