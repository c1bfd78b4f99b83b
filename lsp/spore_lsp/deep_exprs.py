"""Expressions in compiled code: what kind of value each is (a tracer, a one-element tracer, a real
tensor, or unknown) and the rejections an expression shows by itself — a tracer converted to a Python
value, a tensor in an f-string, a call Graph mode cannot trace. `deep_rules._Checker` walks the
statements and inherits these; see `deep_rules` for the rules and why unknown never reports.
"""

from __future__ import annotations

import ast
from typing import Any

from spore import ide

from .tensor_facts import BUILTIN_EXCEPTIONS, FULL_REDUCTIONS, SINGLE_OUTPUT_OPS, TENSOR_METHODS, dotted

# kinds of value: a tracer of unknown size, a one-element tracer, a real tensor (a Parameter or a Tensor
# made in construct: its value is known when compiling, but ops on it give tracers); None is unknown
T, TS, REAL = "t", "ts", "real"
TRACERS = (T, TS)
_MATH_FLOAT = frozenset({"sqrt", "exp", "log", "log2", "log10", "floor", "ceil", "sin", "cos", "tan", "fabs",
                         "isnan", "isinf", "isfinite", "erf", "tanh", "atan"})
_NUMPY_CONVERT = frozenset({"asarray", "array", "float32", "float64", "int32", "int64"})
_CONVERTERS = ("float", "int", "bool")


def loose(a: str | None, b: str | None) -> str | None:
    """The kind of a value that is `a` on one path and `b` on another."""
    if a == b:
        return a
    if a in TRACERS and b in TRACERS:
        return T
    return None


class ExpressionRules:
    """The expression half of the deeper check (a mixin: the statement walker provides `env`, `bound`,
    `in_test`, `ctx`, `helpers`, `modules`, `resolve`, `add`, `text`, `builtin`, `test`, `bind`, `inline`)."""

    env: dict[str, str | None]
    bound: set[str]
    in_test: int
    self_name: str | None
    ctx: Any
    helpers: Any
    modules: dict[str, str]
    resolve: Any

    # ---- expressions ---------------------------------------------------------------------
    def expr(self, node: ast.expr | None) -> str | None:
        if node is None:
            return None
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is not None:
            return method(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child)
        return None

    def expr_Name(self, node: ast.Name) -> str | None:
        return self.env.get(node.id)

    def expr_Constant(self, node: ast.Constant) -> str | None:
        return None

    def expr_Lambda(self, node: ast.Lambda) -> str | None:
        return None  # compiled only when called, with arguments this check does not see

    def _comprehension(self, node: Any, parts: list[ast.expr]) -> None:
        saved = dict(self.env)
        for gen in node.generators:
            kind = self.expr(gen.iter)
            self.bind_local(gen.target, T if kind in TRACERS else None)
            for cond in gen.ifs:
                self.test(cond)
        for p in parts:
            self.expr(p)
        self.env = saved

    def bind_local(self, target: ast.expr, kind: str | None) -> None:
        for n in ast.walk(target):
            if isinstance(n, ast.Name):
                self.env[n.id] = kind

    def expr_ListComp(self, node: ast.ListComp) -> str | None:
        self._comprehension(node, [node.elt])
        return None

    expr_SetComp = expr_ListComp
    expr_GeneratorExp = expr_ListComp

    def expr_DictComp(self, node: ast.DictComp) -> str | None:
        self._comprehension(node, [node.key, node.value])
        return None

    def expr_NamedExpr(self, node: ast.NamedExpr) -> str | None:
        kind = self.expr(node.value)
        self.bind(node.target, kind)
        return kind

    def expr_JoinedStr(self, node: ast.JoinedStr) -> str | None:
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                if self.expr(v.value) in TRACERS:
                    self.add("dynamic_raise", v, f"`{self.text(v.value)}` is a tensor inside an f-string")
                if v.format_spec is not None:
                    self.expr(v.format_spec)
        return None

    @staticmethod
    def _arith(a: str | None, b: str | None, b_const: bool = False) -> str | None:
        kinds = {a, b}
        if not kinds & {T, TS, REAL}:
            return None
        if a == TS and (b == TS or b_const):
            return TS
        return T

    def expr_BinOp(self, node: ast.BinOp) -> str | None:
        a, b = self.expr(node.left), self.expr(node.right)
        if a == TS and b is None and _number(node.right):
            return TS
        if b == TS and a is None and _number(node.left):
            return TS
        return self._arith(a, b)

    def expr_UnaryOp(self, node: ast.UnaryOp) -> str | None:
        kind = self.expr(node.operand)
        if isinstance(node.op, ast.Not):
            if kind in TRACERS and not self.in_test:
                self.add("python_value_of_tensor", node, f"`not` of the tensor `{self.text(node.operand)}`")
                return None
            return kind if kind in TRACERS else None
        return T if kind == REAL else kind

    def expr_BoolOp(self, node: ast.BoolOp) -> str | None:
        kinds = [self.expr(v) for v in node.values]
        if kinds[0] in TRACERS and not self.in_test:
            word = "and" if isinstance(node.op, ast.And) else "or"
            self.add("python_value_of_tensor", node, f"`{word}` on the tensor `{self.text(node.values[0])}`")
            return None
        if self.in_test and all(k == TS for k in kinds):
            return TS
        return None

    def expr_Compare(self, node: ast.Compare) -> str | None:
        left = self.expr(node.left)
        rights = [self.expr(c) for c in node.comparators]
        if len(node.ops) != 1:
            return None
        op, right, comp = node.ops[0], rights[0], node.comparators[0]
        if isinstance(op, (ast.In, ast.NotIn)):
            if left in TRACERS and isinstance(comp, (ast.List, ast.Tuple, ast.Set)) and comp.elts \
                    and not self.in_test:
                self.add("python_value_of_tensor", node, f"`{self.text(node)}` compares the tensor with each item")
            return None
        if isinstance(op, (ast.Is, ast.IsNot)):
            return None
        if _is_none(node.left) or _is_none(comp):
            return None
        if left == TS and (right == TS or _number(comp)) or right == TS and _number(node.left):
            return TS
        if {left, right} & {T, TS, REAL}:
            return T
        return None

    def expr_IfExp(self, node: ast.IfExp) -> str | None:
        test = self.test(node.test)
        body, orelse = self.expr(node.body), self.expr(node.orelse)
        if test in TRACERS:
            return T
        return loose(body, orelse)

    def expr_Attribute(self, node: ast.Attribute) -> str | None:
        if self.self_name and isinstance(node.value, ast.Name) and node.value.id == self.self_name:
            return REAL if self.ctx.attr(node.attr) == "param" else None
        kind = self.expr(node.value)
        if kind in (T, TS, REAL) and node.attr in ("T", "mT"):
            return kind  # a Parameter's transpose is still a real tensor: only ops make tracers of it
        return None

    def expr_Subscript(self, node: ast.Subscript) -> str | None:
        value = self.expr(node.value)
        index = self.expr(node.slice)
        if index in TRACERS and not self.in_test and (
                isinstance(node.value, (ast.List, ast.Tuple)) or
                isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            self.add("python_value_of_tensor", node, f"the tensor `{self.text(node.slice)}` used as a Python index")
        return T if value in (T, TS, REAL) else None

    def expr_Call(self, node: ast.Call) -> str | None:
        func = node.func
        receiver = self.expr(func.value) if isinstance(func, ast.Attribute) else None
        args = [self.expr(a.value if isinstance(a, ast.Starred) else a) for a in node.args]
        for k in node.keywords:
            self.expr(k.value)
        if isinstance(func, ast.Name):
            return self.call_name(node, func.id, args)
        if isinstance(func, ast.Attribute):
            return self.call_attr(node, func, receiver, args)
        self.expr(func)
        return None

    def call_name(self, node: ast.Call, name: str, args: list[str | None]) -> str | None:
        if name in self.env or name in self.bound:
            return None  # a local: this check does not follow it
        if self.helpers is not None and name in self.helpers.functions:
            self.inline(node, self.helpers.functions[name], name, False, args)
            return None
        if self.builtin(name):
            return self.call_builtin(node, name, args)
        if name in dict(self.ctx.plain_classes):
            self.add("unsupported_call", node, f"`{name}` is a plain Python class (not a Cell)")
        elif self.ctx.instance_class(name) is not None:
            self.add("unsupported_call", node, f"`{name}` is an instance of the plain class "
                     f"`{self.ctx.instance_class(name)}`")
        return None

    def call_builtin(self, node: ast.Call, name: str, args: list[str | None]) -> str | None:
        if name in _CONVERTERS and len(node.args) == 1 and not node.keywords:
            if args[0] in TRACERS:
                if not self.in_test:
                    self.add("python_value_of_tensor", node, f"`{name}()` of the tensor `{self.text(node.args[0])}`")
                    return None
                return TS if args[0] == TS else None
            return None
        if name in ("max", "min") and len(node.args) >= 2 and any(a in TRACERS for a in args) and not self.in_test:
            self.add("python_value_of_tensor", node, f"`{name}()` compares tensors as Python values")
        elif name == "range" and any(a in TRACERS for a in args) and not self.in_test:
            self.add("python_value_of_tensor", node, "`range()` of a tensor")
        elif name not in ide.compile_time_builtins() and name not in ide.impure_builtins() and name != "print" \
                and name not in BUILTIN_EXCEPTIONS:
            self.add("unsupported_call", node, f"the builtin `{name}()` is not evaluated by Graph mode")
        return None

    def call_attr(self, node: ast.Call, func: ast.Attribute, receiver: str | None,
                  args: list[str | None]) -> str | None:
        method = func.attr
        if receiver in (T, TS, REAL):
            if method == "item" and node.args and not self.in_test:
                self.add("python_value_of_tensor", node, f"`.item(...)` of the tensor `{self.text(func.value)}`")
                return None
            if method == "item" and self.in_test:
                return TS if receiver == TS else None
            if method in TENSOR_METHODS:
                full = method in FULL_REDUCTIONS and not node.args and not node.keywords
                return TS if full or receiver == TS and method not in ("reshape", "view", "tile", "broadcast_to") \
                    else T
            return None
        value = func.value
        if isinstance(value, ast.Name) and value.id not in self.env and value.id not in self.bound:
            module = self._module(value.id)
            if module == "math" and method in _MATH_FLOAT and any(a in TRACERS for a in args) and not self.in_test:
                self.add("python_value_of_tensor", node, f"`math.{method}()` needs a Python float")
                return None
            if module == "numpy" and method in _NUMPY_CONVERT and args and args[0] in TRACERS and not self.in_test:
                self.add("python_value_of_tensor", node, f"`np.{method}()` of a tensor")
                return None
            cls = self.ctx.instance_class(value.id)
            if cls is not None and (self.ctx.methods(cls) or {}).get(method) == "plain":
                self.add("unsupported_call", node, f"`{value.id}.{method}` is a method of the plain class `{cls}`")
                return None
        if self.self_name and isinstance(value, ast.Name) and value.id == self.self_name:
            kind = self.ctx.attr(method)
            if kind is not None and kind.startswith("layer:"):
                return T
            if kind is None and self.helpers is not None and method in self.helpers.methods:
                self.inline(node, self.helpers.methods[method], f"{self.helpers.owner}.{method}", True, args)
                return None
            if kind is not None and kind.startswith("plain:"):
                self.add("unsupported_call", node, f"`self.{method}` is an instance of the plain class `{kind[6:]}`")
            return None
        if self.self_name and isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) \
                and value.value.id == self.self_name:
            kind = self.ctx.attr(value.attr)
            if kind is not None and kind.startswith("plain:") and (self.ctx.methods(kind[6:]) or {}).get(method) \
                    == "plain":
                self.add("unsupported_call", node, f"`self.{value.attr}.{method}` is a method of the plain class "
                         f"`{kind[6:]}`")
            return None
        qual = self._qual(func)
        if qual is not None and qual.startswith("ops."):
            op = qual[4:]
            if op in SINGLE_OUTPUT_OPS:
                full = op in FULL_REDUCTIONS and len(node.args) == 1 and not node.keywords
                return TS if full else T
        return None

    # ---- names ---------------------------------------------------------------------------
    def _module(self, name: str) -> str | None:
        return self.modules.get(name)

    def _qual(self, func: ast.expr) -> str | None:
        name = dotted(func)
        return self.resolve(name) if name is not None else None


def _number(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None
