"""Tensor-dependent control flow: `if` and `while` on tensor values become `If` / `While` equations.

`If(cond, then=Graph, else=Graph)` runs one branch; each branch is a sub-graph that may read the
enclosing graph's values. The outputs are the variables either branch assigns (they must have the
same shape and dtype on both sides). A `return` inside a branch is compiled by duplicating the rest
of the function into both branches, so both end in a return and the If yields the return value.

`While(*carried, cond=Graph, body=Graph)` loops over the variables the body reassigns: `cond` maps
them to a scalar bool tensor, `body` to their next values (same shapes and dtypes).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

import numpy as np

from ..common.tree import flatten, layout, unflatten
from ..ops.primitive import Aval, Primitive, register
from ..tensor import Tensor
from .ir import Graph
from .trace import GraphBuilder, Tracer, building

if TYPE_CHECKING:  # pragma: no cover
    from .frontend import Frontend, _Scope


def _outputs_infer(*_: Any, **attrs: Any) -> tuple[Aval, ...]:
    g: Graph = attrs.get("then") or attrs["body"]
    return tuple(a.aval for a in g.outputs)


def _no_eager(*_: Any, **__: Any) -> Any:
    raise TypeError("control-flow equations run only inside a compiled graph")


IF = register(Primitive("If", _outputs_infer, _no_eager, None,
                        "Runs the `then` or the `else` sub-graph depending on a scalar boolean tensor.",
                        multi_output=True, internal=True))
WHILE = register(Primitive("While", _outputs_infer, _no_eager, None,
                           "Repeats the `body` sub-graph on the loop-carried values while `cond` is true.",
                           multi_output=True, internal=True))


def _assigned_names(stmts: list[ast.stmt]) -> list[str]:
    names: list[str] = []
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id not in names:
                names.append(node.id)
    return names


def _has_exit(stmts: list[ast.stmt], kinds: tuple[type, ...]) -> bool:
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, kinds):
                return True
    return False


def _scalar_cond(fe: Frontend, node: ast.AST, cond: Tracer) -> Tracer:
    from ..common import dtype as mstype
    from ..ops import functional as F

    if cond.size != 1:
        raise fe.error(node, f"an if/while on a tensor needs a single-element condition, got shape {tuple(cond.shape)}",
                       "reduce it first (e.g. (x > 0).all()), or use ops.where for element-wise choices",
                       "tensor_condition")
    if cond.shape != ():
        cond = F.reshape(cond, ())
    return cond if cond.dtype is mstype.bool_ else F.cast(cond, mstype.bool_)


def _run_branch(fe: Frontend, name: str, stmts: list[ast.stmt], scope: _Scope) -> tuple[GraphBuilder, Any, _Scope]:
    parent = fe.builder
    child = GraphBuilder(name, parent=parent)
    sub_scope = scope.copy()
    fe.builder = child
    try:
        with building(child):
            signal = fe.exec_block(stmts, sub_scope)
    finally:
        fe.builder = parent
    child.changes = child.take_rebound()  # outer tensors this path wrote in place: merged by the If
    return child, signal, sub_scope


def _on_path(b: GraphBuilder, value: Any) -> Any:
    """`value` as it is at the end of branch `b`: a tracer the branch wrote in place (and whose write
    `take_rebound` undid for the other path) stands for its value on this path."""
    for t, _, end, _ in b.changes:
        if value is t:
            return Tracer(end, b)
    return value


def _written_in_branches(then_b: GraphBuilder, else_b: GraphBuilder) -> tuple[list, list, list, list]:
    """The outer tracers either branch wrote in place (or hooked), with their value on each path."""
    order: dict[int, Tracer] = {}
    ends: list[dict[int, tuple[Any, dict]]] = [{}, {}]
    for k, b in enumerate((then_b, else_b)):
        for t, _, end, attrs in b.changes:
            order.setdefault(id(t), t)
            ends[k][id(t)] = (end, attrs)
    tracers = list(order.values())
    then_vals = [Tracer(ends[0].get(id(t), (t._var,))[0], then_b) for t in tracers]
    else_vals = [Tracer(ends[1].get(id(t), (t._var,))[0], else_b) for t in tracers]
    attrs = [(ends[0].get(id(t), (None, None))[1], ends[1].get(id(t), (None, None))[1]) for t in tracers]
    return tracers, then_vals, else_vals, attrs


def _rebind_merged(tracers: list, outs: list, attrs: list) -> None:
    """After the If: each tracer a branch wrote takes the If's output, and the attributes a branch
    set on it (a hook registered inside the graph) hold after the if; when the two paths differ in
    hooks, `Tensor.hooks()` on it refuses (the answer would depend on the condition's value)."""
    for t, out, (a_then, a_else) in zip(tracers, outs, attrs):
        t._rebind(out)
        merged = {**(a_else or {}), **(a_then or {})}
        if (a_then or t.__dict__).get("_graph_hooks") is not (a_else or t.__dict__).get("_graph_hooks"):
            merged["_graph_hooks_conditional"] = True
        t.__dict__.update(merged)


def _as_tensor_value(fe: Frontend, node: ast.AST, name: str, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float, np.number, np.ndarray)):
        return Tensor(value)
    raise fe.error(node, f"'{name}' is a {type(value).__name__} set inside a tensor-dependent branch; "
                         "only tensors and numbers can differ between branches", None, "tensor_if")


def _emit(fe: Frontend, prim: Primitive, inputs: list[Any], attrs: dict, avals: list[Aval]) -> list[Tracer]:
    b = fe.builder
    return [Tracer(v, b) for v in b.emit(prim, inputs, attrs, avals)]


def _check_same(fe: Frontend, node: ast.AST, name: str, a: Aval, b: Aval, where: str) -> None:
    if tuple(a.shape) != tuple(b.shape) or a.dtype is not b.dtype:
        raise fe.error(node, f"'{name}' is {tuple(a.shape)} {a.dtype} {where[0]} but {tuple(b.shape)} {b.dtype} "
                             f"{where[1]}", "give it the same shape and dtype on both paths", "tensor_if")


def tensor_if(fe: Frontend, stmt: ast.If, cond: Tracer, rest: list[ast.stmt], scope: _Scope) -> Any:
    """Compile `if <tensor>:` (and the statements after it) into an If equation."""
    cond = _scalar_cond(fe, stmt.test, cond)
    if _has_exit(stmt.body + stmt.orelse, (ast.Break, ast.Continue)):
        raise fe.rule_error(stmt, "tensor_break")
    if _has_exit(stmt.body + stmt.orelse, (ast.Return,)):
        return _if_with_return(fe, stmt, cond, rest, scope)
    before = dict(scope.vars)
    then_b, _, then_s = _run_branch(fe, "then", stmt.body, scope)
    else_b, _, else_s = _run_branch(fe, "else", stmt.orelse, scope)
    names = [n for n in _assigned_names(stmt.body + stmt.orelse)
             if then_s.vars.get(n, before.get(n)) is not before.get(n, _MISSING)
             or else_s.vars.get(n, before.get(n)) is not before.get(n, _MISSING)]
    then_vals, else_vals, merged = [], [], []
    for n in names:
        if n not in then_s.vars or n not in else_s.vars:
            raise fe.error(stmt, f"'{n}' is assigned in only one branch of a tensor-dependent if",
                           f"give '{n}' a value before the if, or in both branches", "tensor_if")
        tv, ev = _on_path(then_b, then_s.vars[n]), _on_path(else_b, else_s.vars[n])
        if not isinstance(tv, Tensor) and not isinstance(ev, Tensor) and _static_equal(tv, ev):
            scope.vars[n] = tv
            continue
        tv, ev = _as_tensor_value(fe, stmt, n, tv), _as_tensor_value(fe, stmt, n, ev)
        then_vals.append(tv)
        else_vals.append(ev)
        merged.append(n)
    written, w_then, w_else, w_attrs = _written_in_branches(then_b, else_b)
    g_then = _finish(then_b, then_vals + w_then)
    g_else = _finish(else_b, else_vals + w_else)
    labels = merged + ["a tensor written in place in a branch"] * len(written)
    for n, a, b in zip(labels, g_then.outputs, g_else.outputs):
        _check_same(fe, stmt, n, a.aval, b.aval, ("in the if branch", "in the else branch"))
    fe.builder.loc = fe.loc(stmt)
    outs = _emit(fe, IF, [cond], {"then": g_then, "else": g_else}, [a.aval for a in g_then.outputs])
    for n, t in zip(merged, outs):
        scope.vars[n] = t
    _rebind_merged(written, outs[len(merged):], w_attrs)
    return fe.exec_block(rest, scope)


_MISSING = object()


def _static_equal(a: Any, b: Any) -> bool:
    try:
        return a is b or bool(a == b)
    except Exception:  # noqa: BLE001 - objects with odd __eq__ are simply not equal here
        return False


def _finish(b: GraphBuilder, outputs: list[Tensor]) -> Graph:
    with building(b):
        return b.finish(outputs)


def _if_with_return(fe: Frontend, stmt: ast.If, cond: Tracer, rest: list[ast.stmt], scope: _Scope) -> Any:
    from .frontend import _Return

    if fe.loop_depth:
        raise fe.error(stmt, "a return inside a tensor-dependent if inside a loop is not supported",
                       "assign the result to a variable and return after the loop", "tensor_if")
    then_b, then_sig, _ = _run_branch(fe, "then", list(stmt.body) + list(rest), scope)
    else_b, else_sig, _ = _run_branch(fe, "else", list(stmt.orelse) + list(rest), scope)
    then_val = then_sig.value if isinstance(then_sig, _Return) else None
    else_val = else_sig.value if isinstance(else_sig, _Return) else None
    tl, tt = flatten(then_val)
    el, et = flatten(else_val)
    if layout(tt) != layout(et) or len(tl) != len(el):
        raise fe.error(stmt, "the two paths of a tensor-dependent if return different structures",
                       "return the same tuple layout of tensors on both paths", "tensor_if")
    tl = [_on_path(then_b, v) for v in tl]
    el = [_on_path(else_b, v) for v in el]
    written, w_then, w_else, w_attrs = _written_in_branches(then_b, else_b)
    g_then, g_else = _finish(then_b, tl + w_then), _finish(else_b, el + w_else)
    for i, (a, b) in enumerate(zip(g_then.outputs, g_else.outputs)):
        what = f"return value {i}" if i < len(tl) else "a tensor written in place in a branch"
        _check_same(fe, stmt, what, a.aval, b.aval, ("on the if path", "on the else path"))
    fe.builder.loc = fe.loc(stmt)
    outs = _emit(fe, IF, [cond], {"then": g_then, "else": g_else}, [a.aval for a in g_then.outputs])
    _rebind_merged(written, outs[len(tl):], w_attrs)
    return _Return(unflatten(tt, outs[:len(tl)]))


def loop_writes_error(cond_b: GraphBuilder, body_b: GraphBuilder) -> str | None:
    """Why a loop on a tensor condition cannot be compiled when its condition or body wrote a tensor
    from outside the loop in place (or hooked it): the loop carries only the values it reassigns, so
    such a write would be lost (or read a value of one iteration after the loop). None if none did."""
    if not (cond_b.take_rebound() + body_b.take_rebound()):
        return None
    return ("a tensor from outside a loop on a tensor condition is written in place (or given a hook) inside "
            "the loop; the loop carries only the values it reassigns")


def _refuse_loop_writes(fe: Frontend, stmt: ast.While, cond_b: GraphBuilder, body_b: GraphBuilder) -> None:
    why = loop_writes_error(cond_b, body_b)
    if why is not None:
        raise fe.error(stmt, why, "assign the new value to a name instead (x = x + 1 rather than x.add_(1)), so the "
                                  "loop carries it", "tensor_while")


def tensor_while(fe: Frontend, stmt: ast.While, scope: _Scope) -> None:
    """Compile `while <tensor>:` into a While equation over the variables the body reassigns."""
    if _has_exit(stmt.body, (ast.Break, ast.Continue, ast.Return)):
        raise fe.rule_error(stmt, "tensor_break", "break/continue/return in a while loop on a tensor")
    carried = [n for n in _assigned_names(stmt.body) if n in scope.vars]
    init = [_as_tensor_value(fe, stmt, n, scope.vars[n]) for n in carried]
    parent = fe.builder

    def sub(name: str) -> tuple[GraphBuilder, Any]:
        b = GraphBuilder(name, parent=parent)
        s = scope.copy()
        for n, v in zip(carried, init):
            s.vars[n] = b.new_input(Aval(tuple(v.shape), v.dtype), n)
        return b, s

    cond_b, cond_s = sub("cond")
    fe.builder = cond_b
    try:
        with building(cond_b):
            test = fe.eval_test(stmt.test, cond_s)
            if not isinstance(test, Tracer):
                raise fe.error(stmt.test, "the loop condition must stay a tensor", None, "tensor_while")
            test = _scalar_cond(fe, stmt.test, test)
        body_b, body_s = sub("body")
        fe.builder = body_b
        fe.loop_depth += 1
        with building(body_b):
            fe.exec_block(stmt.body, body_s)
        fe.loop_depth -= 1
    finally:
        fe.builder = parent
    _refuse_loop_writes(fe, stmt, cond_b, body_b)
    nxt = [_as_tensor_value(fe, stmt, n, body_s.vars[n]) for n in carried]
    g_cond, g_body = _finish(cond_b, [test]), _finish(body_b, nxt)
    for n, v0, out in zip(carried, init, g_body.outputs):
        _check_same(fe, stmt, n, Aval(tuple(v0.shape), v0.dtype), out.aval, ("before the loop", "after one iteration"))
    fe.builder.loc = fe.loc(stmt)
    outs = _emit(fe, WHILE, init, {"cond": g_cond, "body": g_body}, [Aval(tuple(v.shape), v.dtype) for v in init])
    for n, t in zip(carried, outs):
        scope.vars[n] = t
