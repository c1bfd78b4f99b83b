"""Reading a Cell's `__init__`: which layer each ``self.<attr>`` holds, built from what arguments.

`__init__` is read, never run: its straight-line statements, ``if``s on constants (the branch taken),
``for`` loops and list comprehensions over constant ranges or tuples (unrolled, so
``layers.append(Block(c, 2 * c))`` for ``c in (8, 16)`` gives two Blocks), local lists that
``append``/``extend`` fill, and ``nn.SequentialCell(layers)`` / ``nn.CellList(layers)`` of them. Parameters
take their values from the Cell's own construction (``Net(dim=8)``) or their defaults; a nested user Cell
(``Block(c, 2 * c)``) is read with the values its arguments have there. Whatever any other statement
stores is unknown, and an attribute also set anywhere else is unknown: never a guessed layer.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable
from typing import Any

from .consts import NotConst, arith, const_eval, dotted, is_plain
from .program import Program
from .values import UNKNOWN, LayerSpec, Seq, Unknown, UserCell

MAX_DEPTH = 8  # user Cells calling user Cells, nested this deep at most
MAX_UNROLL = 64  # a loop in __init__ (or construct) is unrolled up to this many iterations
CONTAINERS = ("nn.SequentialCell", "nn.CellList")


def instance(prog: Program, cls: ast.ClassDef, call: ast.Call | None, env: dict[str, Any],
             depth: int = 0, value_of: Callable[[ast.AST], Any] | None = None) -> UserCell:
    """The attributes `__init__` gives an instance of `cls` built by `call` (its arguments' values computed by
    `value_of`, by default as constants over `env`)."""
    cell = UserCell(cls, {})
    init = prog.method(cls, "__init__")
    if init is None or depth > MAX_DEPTH:
        return cell
    reader = InitReader(prog, cell, depth)
    reader.bind_params(init, call, value_of or (lambda node: prog.const(node, env)))
    reader.block(init.body)
    # an attribute also set anywhere else (under an `if` on a non-constant, in another method, on an instance
    # outside the class) may not hold what the plain assignment says: unknown, never a guessed error
    mine = prog.self_stores.get(id(cls), [])
    again = prog.outside | {node.attr for node in mine if id(node) not in reader.plain}
    for name in list(cell.attrs) if "*" in again else again:
        cell.attrs[name] = UNKNOWN
    return cell


class InitReader:
    """Follows one `__init__` body over constants and layer specs."""

    def __init__(self, prog: Program, cell: UserCell, depth: int) -> None:
        self.prog, self.cell, self.depth = prog, cell, depth
        self.local: dict[str, Any] = dict(prog.consts)
        self.plain: set[int] = set()  # the `self.<x>` store nodes read here (others make the attribute unknown)
        self.loop = 0  # inside an unrolled loop or comprehension: a layer's argument may differ per iteration

    def bind_params(self, init: ast.FunctionDef, call: ast.Call | None, value_of: Callable[[ast.AST], Any]) -> None:
        local, a = self.local, init.args
        params = [p.arg for p in a.args][1:]
        for p, d in zip(params[len(params) - len(a.defaults):], a.defaults):  # defaults: module-level names
            local[p] = self.prog.const(d, self.prog.consts)
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            local[p.arg] = self.prog.const(d, self.prog.consts) if d is not None else UNKNOWN
        if call is not None:
            if any(isinstance(x, ast.Starred) for x in call.args) or any(k.arg is None for k in call.keywords):
                for p in params + [k.arg for k in a.kwonlyargs]:
                    local[p] = UNKNOWN
                return
            for p, x in zip(params, call.args):
                local[p] = value_of(x)
            for k in call.keywords:
                local[k.arg] = value_of(k.value)
        for p in params:
            local.setdefault(p, UNKNOWN)

    # ---- statements ---------------------------------------------------------------------------
    def block(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.stmt(stmt)

    def stmt(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            self.assign(stmt.targets[0], stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self.assign(stmt.target, stmt.value)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            old, new = self.local.get(stmt.target.id, UNKNOWN), self.value(stmt.value)
            if isinstance(old, list) and isinstance(new, (list, tuple)) and isinstance(stmt.op, ast.Add):
                old.extend(new)  # `layers += [...]` extends the same list, as Python does
                return
            try:
                self.local[stmt.target.id] = arith(stmt.op, old, new)
            except NotConst:
                self.local[stmt.target.id] = UNKNOWN
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            self.expr_call(stmt.value)
        elif isinstance(stmt, (ast.Pass, ast.Expr)):
            return
        elif isinstance(stmt, ast.If) and (test := self.static_test(stmt.test)) is not None:
            self.block(stmt.body if test else stmt.orelse)  # the other branch never runs (its self.<x> stay unplain)
        elif isinstance(stmt, ast.For) and self.unroll(stmt):
            return
        else:
            self.forget([stmt])

    def forget(self, body: list[ast.stmt]) -> None:
        """What statements not followed store is unknown from here on (their `self.<x>` stores stay not plain)."""
        for stmt in body:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                    self.local[node.id] = UNKNOWN
                elif isinstance(node, ast.Call):  # `helper(layers)` may fill a local list
                    for arg in [*node.args, *(k.value for k in node.keywords)]:
                        if isinstance(arg, ast.Name) and isinstance(self.local.get(arg.id), list):
                            self.local[arg.id] = UNKNOWN

    def assign(self, target: ast.AST, value_node: ast.AST) -> None:
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
            value = self.value(value_node, target.attr)
            self.cell.attrs[target.attr] = value
            self.plain.add(id(target))
        elif isinstance(target, ast.Name):
            self.local[target.id] = self.value(value_node, target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            value = self.value(value_node)
            items = value if isinstance(value, (tuple, list)) and len(value) == len(target.elts) else None
            for i, t in enumerate(target.elts):
                if isinstance(t, ast.Name):
                    self.local[t.id] = items[i] if items is not None else UNKNOWN
                else:
                    self.forget([ast.Expr(t)])
        else:
            self.forget([ast.Expr(target)])

    def expr_call(self, call: ast.Call) -> None:
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                isinstance(self.local.get(func.value.id), list) and func.attr in ("append", "extend") and \
                len(call.args) == 1 and not call.keywords:
            target, arg = self.local[func.value.id], self.value(call.args[0])
            if func.attr == "append":
                target.append(arg)
            elif isinstance(arg, (list, tuple)):
                target.extend(arg)
            else:
                self.local[func.value.id] = UNKNOWN
            return
        if isinstance(func, ast.Attribute) and func.attr == "__init__" and isinstance(func.value, ast.Call) and \
                isinstance(func.value.func, ast.Name) and func.value.func.id == "super":
            return  # super().__init__(): Spore's Cell set-up
        self.forget([ast.Expr(call)])

    def static_test(self, test: ast.AST) -> bool | None:
        try:
            return bool(const_eval(test, self.consts_env()))
        except NotConst:
            return None

    def consts_env(self) -> dict[str, Any]:
        return {k: v for k, v in self.local.items() if is_plain(v)}

    def iterable(self, node: ast.AST) -> list | None:
        """The items of a constant ``range(...)``, tuple or list (None when not constant or too long)."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range" and \
                "range" not in self.local and not node.keywords:
            try:
                bounds = [const_eval(a, self.consts_env()) for a in node.args]
                items = list(range(*bounds)) if all(type(b) is int for b in bounds) else None
            except (NotConst, TypeError, ValueError):
                return None
        else:
            value = self.value(node)
            items = list(value.items if isinstance(value, Seq) else value) if isinstance(value, (
                tuple, list, Seq)) else None
        return items if items is not None and len(items) <= MAX_UNROLL else None

    def unroll(self, stmt: ast.For) -> bool:
        if stmt.orelse or any(isinstance(n, (ast.Break, ast.Continue)) for b in stmt.body for n in ast.walk(b)):
            return False
        items = self.iterable(stmt.iter)
        if items is None:
            return False
        self.loop += 1
        try:
            for item in items:
                self.bind_target(stmt.target, item)
                self.block(stmt.body)
        finally:
            self.loop -= 1
        return True

    def bind_target(self, target: ast.AST, item: Any) -> None:
        if isinstance(target, ast.Name):
            self.local[target.id] = item
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = item if isinstance(item, (tuple, list)) and len(item) == len(target.elts) else None
            for i, t in enumerate(target.elts):
                self.bind_target(t, items[i] if items is not None else UNKNOWN)
        else:
            self.forget([ast.Expr(target)])

    # ---- values ---------------------------------------------------------------------------------
    def value(self, node: ast.AST, name: str = "?") -> Any:
        """What an expression of `__init__` holds: a constant, a dtype name, a layer spec, a list of them."""
        try:
            return const_eval(node, self.consts_env())
        except NotConst:
            pass
        if isinstance(node, ast.Name):
            return self.local.get(node.id, UNKNOWN)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return self.cell.attrs.get(node.attr, UNKNOWN)
        if isinstance(node, (ast.List, ast.Tuple)):
            items: list = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    inner = self.value(e.value)
                    if not isinstance(inner, (list, tuple)):
                        return UNKNOWN
                    items.extend(inner)
                else:
                    items.append(self.value(e, f"{name}[{len(items)}]"))
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.ListComp):
            return self.comprehension(node, name)
        if isinstance(node, ast.IfExp):  # `nn.Dense(8, 4) if proj else None`: the branch a constant picks
            test = self.static_test(node.test)
            return UNKNOWN if test is None else self.value(node.body if test else node.orelse, name)
        if isinstance(node, ast.BinOp):
            try:
                return arith(node.op, self.value(node.left), self.value(node.right))
            except NotConst:
                left, right = self.value(node.left), self.value(node.right)
                if isinstance(node.op, ast.Add) and isinstance(left, list) and isinstance(right, list):
                    return left + right
                return UNKNOWN
        if isinstance(node, ast.Call):
            return self.call(node, name)
        dtype = self.prog.dtype(node)
        return dtype if dtype is not None else UNKNOWN

    def arg_value(self, node: ast.AST) -> Any:
        """A constructor argument of a nested user Cell: a constant (or dtype) computed here, else unknown."""
        value = self.value(node)
        return value if is_plain(value) else UNKNOWN

    def comprehension(self, node: ast.ListComp, name: str) -> Any:
        if len(node.generators) != 1 or node.generators[0].ifs or node.generators[0].is_async:
            return UNKNOWN
        gen = node.generators[0]
        items = self.iterable(gen.iter)
        if items is None:
            return UNKNOWN
        saved = dict(self.local)
        out = []
        self.loop += 1
        try:
            for item in items:
                self.bind_target(gen.target, item)
                out.append(self.value(node.elt, f"{name}[{len(out)}]"))
        finally:
            self.loop -= 1
            self.local = saved  # a comprehension's variable does not leak (Python 3)
        return out

    def call(self, node: ast.Call, name: str) -> Any:
        func_name = dotted(node.func)
        qual = self.prog.an.resolve(func_name) if func_name else None
        if qual in CONTAINERS:
            if node.keywords or qual == "nn.CellList" and len(node.args) > 1:
                return UNKNOWN
            if len(node.args) == 1 and not isinstance(node.args[0], ast.Starred):
                items = self.value(node.args[0])
                items = items if isinstance(items, (list, tuple)) else UNKNOWN
            else:
                items = self.value(ast.Tuple(elts=node.args, ctx=ast.Load()))
            if isinstance(items, Unknown):
                return UNKNOWN
            return Seq(name, [renamed(v, f"{name}[{i}]") for i, v in enumerate(items)], qual == "nn.SequentialCell")
        if qual is not None and qual.startswith("nn."):
            return self.layer(name, qual[3:], node)
        if isinstance(node.func, ast.Name) and node.func.id in self.prog.classes and node.func.id not in self.local:
            return instance(self.prog, self.prog.classes[node.func.id], node, {}, self.depth + 1, self.arg_value)
        return UNKNOWN

    def layer(self, attr: str, name: str, call: ast.Call) -> LayerSpec | Unknown:
        args, kwargs, nodes = [], {}, {}
        for i, a in enumerate(call.args):
            v = UNKNOWN if isinstance(a, ast.Starred) else self.value(a)
            if not is_plain(v):
                return UNKNOWN
            args.append(Program.engine_const(v))
            nodes[i] = a
        for k in call.keywords:
            v = UNKNOWN if k.arg is None else self.value(k.value)
            if not is_plain(v):
                return UNKNOWN
            kwargs[k.arg] = Program.engine_const(v)
            nodes[k.arg] = k.value
        return LayerSpec(attr, name, args, kwargs, call, nodes, fixable=self.loop == 0)


def renamed(value: Any, name: str) -> Any:
    """A layer spec or container placed in a SequentialCell/CellList is named by its position there."""
    if isinstance(value, (LayerSpec, Seq)):
        return dataclasses.replace(value, attr=name)
    return value
