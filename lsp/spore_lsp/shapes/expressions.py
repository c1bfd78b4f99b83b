"""The expression half of the interpreter: names, attributes, indexing, operators, comparisons and calls,
each step answered by the engine (`spore.ide.layer_output` / `op_output` / `method_output`) over abstract
values. Unknown in, unknown out, silently; a `Conflict` (a value paths disagree on) is reported once a
step needs it."""

from __future__ import annotations

import ast
from typing import Any

from .cells import MAX_DEPTH, MAX_UNROLL
from .consts import NotConst, arith, compare, const_eval, dotted, is_plain
from .findings import Findings
from .values import (
    UNKNOWN,
    Conflict,
    LayerSpec,
    Seq,
    TVal,
    Unknown,
    UserCell,
    conflict_in,
    from_tree,
    has_tensor,
    has_unknown,
    join,
    relabel,
    to_engine,
)

BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
          ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul"}
TENSOR_COMPARE = {ast.Eq: "__eq__", ast.NotEq: "__ne__", ast.Lt: "__lt__", ast.LtE: "__le__", ast.Gt: "__gt__",
                  ast.GtE: "__ge__"}
REVERSED = {"__lt__": "__gt__", "__gt__": "__lt__", "__le__": "__ge__", "__ge__": "__le__"}  # 3 < x is x > 3
MAX_ALTS = 4  # an input joined from more paths than this is not tried path by path
CELLS = (LayerSpec, Seq, UserCell)


class Evaluator(Findings):
    """Expressions over the interpreter's `env` (mixed into `Interpreter`, which sets the attributes)."""

    env: dict[str, Any]
    training: bool | None

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
            self.session.speculative.append(f"{kind} at {at}")
        try:
            a, b = self.expr(node.body), self.expr(node.orelse)
        finally:
            if t is None:
                self.session.speculative.pop()
        return join(a, b, f"`{self.source(node)[:40]}`", kind, at, node.lineno - 1, t is not None)

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
            if node.attr == "dtype":
                return "dtype:" + base.dtype
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

    # ---- calls ------------------------------------------------------------------------------------------
    def call(self, node: ast.Call) -> Any:
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            target = self.cell.attrs.get(func.attr)
            method = self.prog.method(self.cell.cls, func.attr) if target is None else None
            if method is not None:
                return self.follow(node, method, True)
            return self.call_value(node, target, f"self.{func.attr}")
        if isinstance(func, ast.Name) and func.id in self.prog.functions and func.id not in self.env:
            return self.follow(node, self.prog.functions[func.id], False)
        name = dotted(func)
        qual = self.an.resolve(name) if name else None
        if qual is not None and qual.startswith("ops."):
            args, kwargs = self.arguments(node)
            if args is None:
                return UNKNOWN
            op = qual[4:]
            return self.ask(node, lambda a, k: self.ide.op_output(op, to_engine(a, self.ide), to_engine(k, self.ide)),
                            args, kwargs, qual, None)
        if isinstance(func, ast.Name) and isinstance(self.env.get(func.id), CELLS):
            return self.call_value(node, self.env[func.id], func.id)  # `for blk in self.blocks: x = blk(x)`
        if isinstance(func, ast.Name) and func.id not in self.env and not node.keywords:
            builtin = self.builtin(node, func.id)
            if builtin is not NotImplemented:
                return builtin
        if isinstance(func, ast.Attribute):
            base = self.expr(func.value)
            if isinstance(base, TVal):
                args, kwargs = self.arguments(node)
                return UNKNOWN if args is None else self.method(node, base, func.attr, args, kwargs)
            if isinstance(base, Unknown):
                return self.need(node, base)
        if isinstance(func, ast.Subscript):  # self.blocks[i](x)
            target = self.expr(func)
            if isinstance(target, CELLS):
                return self.call_value(node, target, self.source(func))
            if isinstance(target, Unknown):
                return self.need(node, target)
        return self.stop(node, f"calls `{self.source(func)[:40]}`, which the shape check does not model")

    def builtin(self, node: ast.Call, name: str) -> Any:
        """range / len / enumerate / zip over values known statically; NotImplemented for anything else."""
        if name == "range":
            bounds = [self.expr(a) for a in node.args]
            try:
                if not all(type(b) is int for b in bounds):
                    raise TypeError("not ints")
                r = range(*bounds)
            except (TypeError, ValueError):
                return self.need(node, *bounds) if any(isinstance(b, Conflict) for b in bounds) else \
                    self.stop(node, "a range() over values only known when it runs")
            return tuple(r) if len(r) <= MAX_UNROLL else self.stop(node, f"a loop of {len(r)} iterations")
        if name == "len" and len(node.args) == 1:
            v = self.expr(node.args[0])
            v = v.items if isinstance(v, Seq) else v
            return len(v) if isinstance(v, (tuple, list)) else shape_of(v)[0] if isinstance(v, TVal) and v.shape \
                else self.need(node, v)
        if name in ("enumerate", "zip") and node.args and not any(isinstance(a, ast.Starred) for a in node.args):
            seqs = [self.expr(a) for a in node.args]
            seqs = [s.items if isinstance(s, Seq) else s for s in seqs]
            if not all(isinstance(s, (tuple, list)) for s in seqs) or name == "enumerate" and len(seqs) != 1:
                return self.need(node, *seqs)
            return tuple(enumerate(seqs[0])) if name == "enumerate" else tuple(zip(*seqs))
        return NotImplemented

    def arguments(self, node: ast.Call) -> tuple[list | None, dict]:
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.expr(a.value)
                if not isinstance(v, (tuple, list)):
                    self.need(node, v)
                    return None, {}
                args.extend(v)
            else:
                args.append(self.expr(a))
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords if k.arg}
        if any(k.arg is None for k in node.keywords) or has_unknown(args) or has_unknown(kwargs):
            self.need(node, args, kwargs)
            return None, {}
        return args, kwargs

    def follow(self, node: ast.Call, fn: ast.FunctionDef, method: bool) -> Any:
        """A helper the construct calls (a method of the Cell, a function of the module): interpreted too."""
        label = f"self.{fn.name}" if method else fn.name
        if self.depth >= MAX_DEPTH or fn.decorator_list:
            return self.stop(node, f"calls `{label}`, which the shape check does not follow (decorated or too deep)")
        args, kwargs = self.arguments(node)
        if args is None:
            return UNKNOWN
        sub = self.sub(self.cell, fn, None, method)
        return relabel(sub.run(list(args), kwargs), label, node.lineno - 1)

    def call_value(self, node: ast.Call, target: Any, label: str) -> Any:
        if isinstance(target, Conflict):
            return self.need(node, target)
        if target is None or isinstance(target, Unknown):
            return self.stop(node, f"`{label}` is not set once, from literals, in __init__")
        if not isinstance(target, CELLS):
            return self.stop(node, f"`{label}` is not a layer the shape check knows")
        args, kwargs = self.arguments(node)
        if args is None:
            return UNKNOWN
        return self.apply(node, target, label, args, kwargs)

    def apply(self, node: ast.Call, target: Any, label: str, args: list, kwargs: dict) -> Any:
        if isinstance(target, LayerSpec):
            return self.ask(node, lambda a, k: self.ide.layer_output(target.layer, target.args, target.kwargs,
                                                                     to_engine(a, self.ide), to_engine(k, self.ide)),
                            args, kwargs, label, target)
        if isinstance(target, Seq):
            if not target.callable:
                return self.stop(node, f"`{label}` is a CellList: index it or loop over it")
            value: Any = args[0] if len(args) == 1 and not kwargs else UNKNOWN
            for i, item in enumerate(target.items):
                if isinstance(value, Unknown):
                    return UNKNOWN
                if isinstance(item, Unknown) or not isinstance(item, CELLS):
                    return self.stop(node, f"`{label}[{i}]` is not built from literals in __init__")
                value = self.apply(node, item, f"{label}[{i}]", [value], {})
            return value
        fn = self.prog.method(target.cls, "construct")
        if fn is None or self.depth >= MAX_DEPTH:
            return self.stop(node, f"`{label}` has no construct the shape check can read")
        record = self.prog.record_for(fn) if not self.session.quiet else None
        out = self.sub(target, fn, record, True).run(list(args), kwargs)
        return relabel(out, label, node.lineno - 1)

    def method(self, node: ast.AST, base: TVal, name: str, args: list | None, kwargs: dict) -> Any:
        """A Tensor method call, or with ``args=None`` a Tensor property (``x.T``), answered by the engine."""
        if has_unknown(args or []) or has_unknown(kwargs):
            return self.need(node, args, kwargs)
        label = f".{name}" if not name.startswith("__") else self.source(node)[:40]
        return self.ask(node, lambda a, k: self.ide.method_output(name, to_engine(a[0], self.ide), None if args is None
                                                                  else to_engine(a[1:], self.ide),
                                                                  to_engine(k, self.ide)),
                        [base, *(args or [])], kwargs, label, None)

    def ask(self, node: ast.AST, query: Any, args: list, kwargs: dict, label: str, layer: LayerSpec | None) -> Any:
        """One engine query, and when it cannot tell because an input is a join of paths (``if`` branches with
        different shapes), the same query for each path's shape: all fit → their results joined; one refused →
        that path's mismatch, in the engine's words."""
        res = query(args, kwargs)
        joined = _joined((args, kwargs)) if res.get("status") == "unknown" else None
        if joined is None:
            return self.engine(node, res, label, (layer, args) if layer is not None else None)
        outs = []
        for alt in joined.alts[:MAX_ALTS]:
            a2, k2 = _swap((args, kwargs), joined, alt)
            res2 = query(a2, k2)
            if res2.get("status") == "error":
                if joined.maybe:
                    self.session.speculative.append(f"one path of {joined.origin.removeprefix('either path of ')}")
                try:
                    return self.engine(node, res2, label, (layer, a2) if layer is not None else None)
                finally:
                    if joined.maybe:
                        self.session.speculative.pop()
            if res2.get("status") != "ok":
                return self.engine(node, res, label, None)
            outs.append(from_tree(res2["tree"], res2["outputs"], label, node.lineno - 1))
        kind = joined.origin.removeprefix("either path of ")
        out = outs[0]
        for other in outs[1:]:
            out = join(out, other, f"`{label}`", kind, self.where(joined.line), node.lineno - 1)
        return relabel(out, label, node.lineno - 1) if not isinstance(out, Unknown) else out

    def engine(self, node: ast.AST, res: dict, label: str, layer: tuple | None) -> Any:
        """The value of an engine answer: its outputs, or (reported) a mismatch or where inference stops."""
        status = res.get("status")
        if status == "ok":
            return from_tree(res["tree"], res["outputs"], label, node.lineno - 1)
        if status == "error" and res.get("type") == "DTypeError" and self.assumed_dtype:
            return self.stop(node, f"`{label}` needs another dtype than the float32 an input_shape comment assumes")
        if status == "error":
            self.mismatch(node, res, label, layer)
            return UNKNOWN
        return self.stop(node, f"`{label}`: {res.get('reason', 'not modelled')}")


def _joined(value: Any) -> TVal | None:
    """The first input that is a join of paths with different shapes."""
    if isinstance(value, TVal):
        return value if value.alts and len(value.alts) > 1 else None
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (tuple, list)) else ()
    for v in items:
        found = _joined(v)
        if found is not None:
            return found
    return None


def _swap(value: Any, old: TVal, new: TVal) -> Any:
    """`value` with the input `old` (by identity) replaced by one of its paths' values."""
    if value is old:
        return new
    if isinstance(value, tuple):
        return tuple(_swap(v, old, new) for v in value)
    if isinstance(value, list):
        return [_swap(v, old, new) for v in value]
    if isinstance(value, dict):
        return {k: _swap(v, old, new) for k, v in value.items()}
    return value


def _symbolic(value: Any) -> bool:
    """A dim that is not a number (a `Sym`): comparing it is not static."""
    if isinstance(value, (tuple, list)):
        return any(_symbolic(v) for v in value)
    return not is_plain(value)


def shape_of(t: TVal) -> tuple:
    """``x.shape`` as the construct reads it: a dim nobody knows (None) is a `Conflict` saying so, so that a
    step using it (``x.reshape(x.shape[1], -1)``, ``if x.shape[1] == 8``) is never decided on a guess."""
    return tuple(Conflict(f"dim {i} of the shape of {t.origin} is only known when it runs") if d is None else d
                 for i, d in enumerate(t.shape))
