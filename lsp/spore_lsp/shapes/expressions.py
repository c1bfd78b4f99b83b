"""The expression half of the interpreter: names, attributes, indexing, operators, comparisons, conditional
expressions and static truth (what Graph mode decides when it compiles); calls are in `calls`. Tensor steps
are answered by the engine over abstract values. Unknown in, unknown out, silently; a `Conflict` (a value
paths disagree on) is reported once a step needs it."""

from __future__ import annotations

import ast
from typing import Any

from .calls import Calls
from .consts import NotConst, arith, compare, const_eval, is_plain
from .findings import unsure_branch
from .values import (
    UNKNOWN,
    Conflict,
    LayerSpec,
    Seq,
    TVal,
    Unknown,
    UserCell,
    conflict_in,
    has_tensor,
    has_unknown,
    join,
    shape_of,
)

BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
          ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul"}
TENSOR_COMPARE = {ast.Eq: "__eq__", ast.NotEq: "__ne__", ast.Lt: "__lt__", ast.LtE: "__le__", ast.Gt: "__gt__",
                  ast.GtE: "__ge__"}
REVERSED = {"__lt__": "__gt__", "__gt__": "__lt__", "__le__": "__ge__", "__ge__": "__le__"}  # 3 < x is x > 3


class Evaluator(Calls):
    """Expressions over the interpreter's `env` (mixed into `Interpreter`, which sets the attributes)."""

    env: dict[str, Any]
    training: bool | None
    assumed_dtype: bool

    def need(self, node: ast.AST, *values: Any) -> Unknown:
        """Unknown for a step that cannot use a value; a `Conflict` among them is said (once) here."""
        for v in values:
            found = conflict_in(v)
            if found is not None:
                return self.stop(node, found.why)
        return UNKNOWN

    def expr(self, node: ast.AST) -> Any:
        try:
            return const_eval(node, self.env)
        except NotConst:
            pass
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id]
            return self.stop(node, f"`{node.id}` is not a value the shape check knows")
        if isinstance(node, (ast.Tuple, ast.List)):
            vals = [self.expr(e) for e in node.elts]
            return tuple(vals) if isinstance(node, ast.Tuple) else vals
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.BinOp):
            return self.binop(node.op, self.expr(node.left), self.expr(node.right), node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = self.expr(node.operand)
            return self.method(node, v, "__neg__", [], {}) if isinstance(v, TVal) else self.need(node, v)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            v = self.truth(self.expr(node.operand))
            return (not v) if isinstance(v, bool) else UNKNOWN
        if isinstance(node, ast.Compare):
            return self.comparison(node)
        if isinstance(node, ast.BoolOp):
            return self.boolop(node)
        if isinstance(node, ast.IfExp):
            return self.ifexp(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Slice):
            return slice(*(self.expr(p) if p is not None else None for p in (node.lower, node.upper, node.step)))
        return self.stop(node, f"`{self.source(node)[:40]}` is not modelled")

    # ---- static truth: what Graph mode decides when it compiles ------------------------------------
    @staticmethod
    def truth(value: Any) -> bool | TVal | None:
        """A condition's value: True/False when static, the tensor when it is a run-time value, else None."""
        if isinstance(value, TVal):
            return value
        if isinstance(value, (tuple, list, str, int, float)) or value is None:
            return bool(value)  # a tuple is true when not empty, whatever it holds
        if isinstance(value, Seq):
            return bool(value.items)
        return None  # unknown, a symbolic dim, a layer (which may define __len__)

    def comparison(self, node: ast.Compare) -> Any:
        left = self.expr(node.left)
        out: Any = True
        for op, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node)
            if isinstance(op, (ast.Is, ast.IsNot)) and (left is None or right is None):
                other = right if left is None else left
                if other is None or isinstance(other, (TVal, LayerSpec, Seq, UserCell, int, float, str, tuple)):
                    step = (other is None) == isinstance(op, ast.Is)
                else:
                    return UNKNOWN
            elif isinstance(left, TVal) or isinstance(right, TVal):
                name = TENSOR_COMPARE.get(type(op))
                if name is None or len(node.ops) > 1:
                    return self.need(node, left, right)
                if isinstance(left, TVal):
                    return self.method(node, left, name, [right], {})
                return self.method(node, right, REVERSED.get(name, name), [left], {})
            else:
                try:
                    step = compare(op, left, right) if not _symbolic(left) and not _symbolic(right) else None
                except NotConst:
                    step = None
                if step is None:
                    return UNKNOWN
            if not step:
                out = False
            left = right
        return out

    def boolop(self, node: ast.BoolOp) -> Any:
        value: Any = None
        for e in node.values:
            value = self.expr(e)
            t = self.truth(value)
            if not isinstance(t, bool):
                return UNKNOWN  # a tensor `and`/`or` is a run-time value, but not one the check models
            if t == isinstance(node.op, ast.Or):
                return value
        return value

    def ifexp(self, node: ast.IfExp) -> Any:
        t = self.truth(self.expr(node.test))
        if isinstance(t, bool):
            return self.expr(node.body if t else node.orelse)
        kind, at = "the conditional expression", self.where(node.lineno - 1)
        if t is None:
            self.session.speculative.append(unsure_branch(kind, at))
        self.session.runtime += 1
        try:
            a, b = self.expr(node.body), self.expr(node.orelse)
        finally:
            self.session.runtime -= 1
            if t is None:
                self.session.speculative.pop()
        return join(a, b, f"`{self.source(node)[:40]}`", kind, at, node.lineno - 1,
                    t is not None and not self.session.runtime, object())

    # ---- names, attributes, indexing, operators ---------------------------------------------------
    def attribute(self, node: ast.Attribute) -> Any:
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            if node.attr in self.cell.attrs:
                return self.cell.attrs[node.attr]
            if node.attr == "training" and self.training is not None:
                return self.training  # Graph mode compiles the branch of the mode the Cell is called in
            if node.attr == "training":
                return UNKNOWN
            return self.stop(node, f"`self.{node.attr}` is not set from literals in __init__")
        dtype = self.prog.dtype(node)
        if dtype is not None:
            return self.prog.engine_const(dtype)
        base = self.expr(node.value)
        if isinstance(base, TVal):
            if node.attr == "shape":
                return shape_of(base)
            if node.attr == "ndim":
                return len(base.shape)
            if node.attr == "dtype":  # an input_shape comment only assumes float32: not a fact to branch on
                return UNKNOWN if self.assumed_dtype else "dtype:" + base.dtype
            return self.method(node, base, node.attr, None, {})
        if isinstance(base, Unknown):
            return self.need(node, base)
        return self.stop(node, f"`{self.source(node)[:40]}` is not modelled")

    def subscript(self, node: ast.Subscript) -> Any:
        base = self.expr(node.value)
        index = self.expr(node.slice)
        if isinstance(base, Unknown) or has_unknown(index):
            return self.need(node, base, index)
        if isinstance(base, Seq):
            base = base.items
        if isinstance(base, (tuple, list, dict)):
            try:
                return base[index]
            except (TypeError, IndexError, KeyError):
                return self.stop(node, "an index the shape check cannot follow")
        if isinstance(base, TVal):
            if has_tensor(index):
                return self.stop(node, "indexing with a tensor (a data-dependent shape)")
            return self.method(node, base, "__getitem__", [index], {})
        return self.stop(node, f"`{self.source(node)[:40]}` is not modelled")

    def binop(self, op: ast.operator, a: Any, b: Any, node: ast.AST) -> Any:
        name = BINOPS.get(type(op))
        if name is None:
            return self.stop(node, "an operator the shape check does not model")
        if isinstance(a, Unknown) or isinstance(b, Unknown):
            if has_tensor((a, b)) or not isinstance(a, Conflict) and not isinstance(b, Conflict):
                return self.need(node, a, b)
            return a if isinstance(a, Conflict) else b  # a counter paths disagree on: said when a step needs it
        if isinstance(a, TVal):
            return self.method(node, a, f"__{name}__", [b], {})
        if isinstance(b, TVal):
            return self.method(node, b, f"__r{name}__", [a], {})
        try:
            return arith(op, a, b)
        except NotConst:
            return UNKNOWN


def _symbolic(value: Any) -> bool:
    """A dim that is not a number (a `Sym`): comparing it is not static."""
    if isinstance(value, (tuple, list)):
        return any(_symbolic(v) for v in value)
    return not is_plain(value)
