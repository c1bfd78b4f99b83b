"""The safe constant evaluator: literals and constant arithmetic computed without `eval`.

Constructor arguments (``nn.Dense(16 * 16 * 8, 10)``), shape literals and static conditions
(``if x.shape[1] != 16``) are computed here from the AST alone; anything else raises `NotConst`, so the
user's code is never run.
"""

from __future__ import annotations

import ast
import operator
from typing import Any

MAX_TUPLE = 64  # a tuple built by `*` is at most this long (a shape, not data)


class NotConst(Exception):
    """The expression is not a constant the safe evaluator can compute."""


def const_eval(node: ast.AST, env: dict[str, Any]) -> Any:
    """A literal or constant arithmetic, computed without `eval`; raises NotConst otherwise."""
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (int, float, str, bool))):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List)):
        vals = [const_eval(e, env) for e in node.elts]
        return tuple(vals) if isinstance(node, ast.Tuple) else vals
    if isinstance(node, ast.Name) and node.id in env and is_plain(env[node.id]):
        return env[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = const_eval(node.operand, env)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        v = const_eval(node.operand, env)
        if is_plain(v) and not isinstance(v, list):
            return not v
    if isinstance(node, ast.BinOp):
        return arith(node.op, const_eval(node.left, env), const_eval(node.right, env))
    if isinstance(node, ast.Compare):
        left = const_eval(node.left, env)
        for op, right_node in zip(node.ops, node.comparators):
            right = const_eval(right_node, env)
            if not compare(op, left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.BoolOp):
        value: Any = None
        for e in node.values:  # Python's and/or: the deciding operand, later ones not evaluated
            value = const_eval(e, env)
            if not is_plain(value) or isinstance(value, list):
                raise NotConst("truth of a non-constant")
            if bool(value) == isinstance(node.op, ast.Or):
                return value
        return value
    raise NotConst(type(node).__name__)  # cheap: raised for every non-constant expression


def is_plain(v: Any) -> bool:
    """A value the evaluator computes with: None, numbers, strings, and tuples/lists of them."""
    if v is None or isinstance(v, (int, float, str)):
        return True
    return isinstance(v, (tuple, list)) and all(is_plain(x) for x in v)


_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
            ast.NotIn: lambda a, b: a not in b}


def compare(op: ast.cmpop, a: Any, b: Any) -> bool:
    """``a <op> b`` for plain constants (``is`` only against None); NotConst for anything else."""
    if isinstance(op, (ast.Is, ast.IsNot)):
        if a is None or b is None:
            return (a is b) == isinstance(op, ast.Is)
        raise NotConst("identity")
    fn = _COMPARE.get(type(op))
    if fn is None or not (is_plain(a) and is_plain(b)):
        raise NotConst("comparison")
    if isinstance(op, (ast.In, ast.NotIn)) and not isinstance(b, (tuple, list, str)):
        raise NotConst("membership")
    try:
        return bool(fn(a, b))
    except TypeError:
        raise NotConst("comparison") from None


def arith(op: ast.operator, a: Any, b: Any) -> Any:
    num = (int, float)
    if isinstance(a, bool) or isinstance(b, bool):
        raise NotConst("bool arithmetic")
    if isinstance(a, num) and isinstance(b, num):
        if isinstance(op, ast.Add):
            out = a + b
        elif isinstance(op, ast.Sub):
            out = a - b
        elif isinstance(op, ast.Mult):
            out = a * b
        elif isinstance(op, (ast.FloorDiv, ast.Mod, ast.Div)) and b != 0:
            out = a // b if isinstance(op, ast.FloorDiv) else a % b if isinstance(op, ast.Mod) else a / b
        elif isinstance(op, ast.Pow) and isinstance(b, int) and 0 <= b <= 64 and abs(a) <= 2 ** 32:
            out = a ** b
        else:
            raise NotConst("operator")
        if abs(out) > 2 ** 62:
            raise NotConst("too large")
        return out
    if isinstance(a, tuple) and isinstance(b, tuple) and isinstance(op, ast.Add):
        return a + b
    if isinstance(a, tuple) and isinstance(b, int) and isinstance(op, ast.Mult) and 0 <= b * len(a) <= MAX_TUPLE:
        return a * b
    raise NotConst("operator")


def dotted(node: ast.AST) -> str | None:
    """``ms.nn.Dense`` for the attribute chain of a name, None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None
