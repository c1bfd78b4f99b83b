"""The call half of the expression evaluator: layers, ``ops.*``, Tensor methods, helpers the construct calls
and the builtins it can know (``range``, ``len``, ``enumerate``, ``zip``), each step asked of the engine —
path by path when an input is a join of paths with different shapes."""

from __future__ import annotations

import ast
from typing import Any

from .cells import MAX_DEPTH, MAX_UNROLL
from .consts import dotted
from .findings import Findings
from .values import (
    UNKNOWN,
    Conflict,
    LayerSpec,
    Seq,
    TVal,
    Unknown,
    UserCell,
    from_tree,
    has_unknown,
    join,
    relabel,
    shape_of,
    to_engine,
)

MAX_ALTS = 4  # an input joined from more paths than this is not tried path by path
MAX_LEVELS = 2  # inputs tried path by path in one step (each multiplies the queries)
CELLS = (LayerSpec, Seq, UserCell)


class Calls(Findings):
    """Calls over the interpreter's `env` (mixed into `Evaluator`; `expr` and `need` come from it)."""

    env: dict[str, Any]
    expr: Any
    need: Any

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
        """One engine query — or, when inputs are joins of paths with different shapes (``if`` branches, a
        dataset's full and last batch), the query for each combination of their paths: all fit → the results
        joined (the union travels on); every one refused → that refusal, in the engine's words; some refused →
        an error only where that path certainly reaches the step (a join of one ``if``'s branches at the top
        level, used at the top level, the only joined input), else a note."""
        leaves: list[tuple[dict, list]] = []
        certain = self.probe(query, args, kwargs, 0, leaves)
        def answer(res: dict, a: list) -> Any:
            return self.engine(node, res, label, (layer, a) if layer is not None else None)
        if len(leaves) == 1:
            return answer(*leaves[0])
        for res, a in leaves:
            if res.get("status") not in ("ok", "error"):
                return answer(res, a)
        refused = [(res, a) for res, a in leaves if res["status"] == "error"]
        if refused and (certain or len(refused) == len(leaves)):
            return answer(*refused[0])
        if refused:
            joined = _joined((args, kwargs))
            self.session.speculative.append(f"on one path of {joined.origin.removeprefix('either path of ')} "
                                            f"at {self.where(joined.line)}")
            try:
                return answer(*refused[0])
            finally:
                self.session.speculative.pop()
        outs = [from_tree(res["tree"], res["outputs"], label, node.lineno - 1) for res, _ in leaves]
        joined = _joined((args, kwargs))
        kind = joined.origin.removeprefix("either path of ")
        tag = joined.tag if len(outs) == 2 == len(joined.alts) and _same_width((args, kwargs), joined) else None
        value = outs[0]
        for other in outs[1:]:  # path i's result is the result's alt i: the tag travels on
            value = join(value, other, f"`{label}`", kind, self.where(joined.line), joined.line, certain, tag)
        return relabel(value, label, node.lineno - 1) if not isinstance(value, Unknown) else value

    def probe(self, query: Any, args: list, kwargs: dict, level: int, leaves: list) -> bool:
        """The engine's answers (`leaves`: (answer, args)) for each combination of the joined inputs' paths;
        True when each path certainly reaches the step (see `ask`)."""
        joined = _joined((args, kwargs)) if level < MAX_LEVELS else None
        if joined is None or len(joined.alts) > MAX_ALTS:
            leaves.append((query(args, kwargs), args))
            return True
        certain = not joined.maybe and self.session.runtime == 0 and level == 0
        tagged = joined.tag is not None and _same_width((args, kwargs), joined)
        for i, alt in enumerate(joined.alts):
            # inputs joined at the same `if` (or batched from one dataset) take path i together
            a2, k2 = _swap_tag((args, kwargs), joined.tag, i) if tagged else _swap((args, kwargs), joined, alt)
            certain = self.probe(query, a2, k2, level + 1, leaves) and certain and _joined((a2, k2)) is None
        return certain

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


def _tagged(value: Any, tag: Any) -> list[TVal]:
    if isinstance(value, TVal):
        return [value] if value.tag is tag and value.alts else []
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (tuple, list)) else ()
    return [t for v in items for t in _tagged(v, tag)]


def _same_width(value: Any, joined: TVal) -> bool:
    """Every input sharing `joined`'s tag has as many paths (so path i means the same branch in each)."""
    return all(len(t.alts) == len(joined.alts) for t in _tagged(value, joined.tag))


def _swap_tag(value: Any, tag: Any, i: int) -> Any:
    """`value` with every input of `tag` replaced by its path i."""
    if isinstance(value, TVal):
        return value.alts[i] if value.tag is tag and value.alts else value
    if isinstance(value, tuple):
        return tuple(_swap_tag(v, tag, i) for v in value)
    if isinstance(value, list):
        return [_swap_tag(v, tag, i) for v in value]
    if isinstance(value, dict):
        return {k: _swap_tag(v, tag, i) for k, v in value.items()}
    return value


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
