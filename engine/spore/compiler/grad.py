"""Gradient transform on the IR: reverse mode over recorded equations, with the op registry's rules.

`backprop` walks a span of equations backwards and, for each one that lies on a path from the
wanted inputs to the outputs, calls the primitive's own `vjp` rule on tracers — so the rules
PyNative's tape uses emit the backward equations here, and the two modes cannot disagree. Each
backward equation inherits the SourceLoc and scope of the forward one it differentiates.

An `If` is differentiated into an `If` over the branches' gradient graphs (each replays its branch's
forward equations, so the backward graph stands on its own); a `While`
into a `WhileGrad` that re-runs the loop keeping each iteration's carried values and then applies
the body's gradient graph in reverse.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..autodiff import tape
from ..ops import functional as F
from ..ops.primitive import Aval, Primitive, register
from ..tensor import Tensor
from .control_flow import IF, WHILE
from .ir import Const, Eqn, Graph, Var, has_subgraphs, subgraphs
from .trace import GraphBuilder, Tracer, building


class _Env:
    """One Tracer object per Var (vjp rules test tensors by identity), cotangents by Var id."""

    def __init__(self, builder: GraphBuilder) -> None:
        self.builder = builder
        self.tracers: dict[int, Tracer] = {}
        self.cots: dict[int, Tensor] = {}

    def tensor(self, atom: Var | Const) -> Tensor:
        if isinstance(atom, Const):
            return Tensor._wrap(np.asarray(atom.value))
        t = self.tracers.get(atom.id)
        if t is None:
            t = self.tracers[atom.id] = Tracer(atom, self.builder)
        return t

    def add(self, var: Var, g: Tensor) -> None:
        prev = self.cots.get(var.id)
        self.cots[var.id] = g if prev is None else F.add(prev, g)


def _needs(eqns: Sequence[Eqn], wrt_ids: set[int]) -> set[int]:
    """Var ids that depend on the wanted inputs through differentiable equations."""
    needs = set(wrt_ids)
    for e in eqns:
        if e.prim.nondiff or e.prim.side_effect:
            continue
        for a in e.inputs:
            if isinstance(a, Var) and a.id in needs:
                break
        else:  # no input read needs it: a sub-graph's reads may
            if not (e.attrs and has_subgraphs(e) and any(vid in needs for sub in subgraphs(e)
                                                         for vid in sub.free_uses())):
                continue
        needs.update(o.id for o in e.outputs)
    return needs


def backprop(builder: GraphBuilder, eqns: Sequence[Eqn], roots: Sequence[Var | Const],
             cots: Sequence[Tensor], wrt: Sequence[Var]) -> list[Tensor | None]:
    """Append to `builder` the equations for d<cots, roots>/d wrt; returns one tracer (or None) per wrt."""
    env = _Env(builder)
    needs = _needs(eqns, {v.id for v in wrt})
    for r, c in zip(roots, cots):
        if isinstance(r, Var) and r.id in needs:
            env.add(r, c)
    saved = (builder.loc, builder.scope)
    try:
        with building(builder):
            for e in reversed(eqns):
                if not any(o.id in env.cots for o in e.outputs) or e.prim.nondiff or e.prim.side_effect:
                    continue
                builder.loc, builder.scope = e.loc, e.scope
                if e.prim is IF:
                    _vjp_if(env, e, needs)
                elif e.prim is WHILE:
                    _vjp_while(env, e, needs)
                else:
                    _vjp_eqn(env, e, needs)
    finally:
        builder.loc, builder.scope = saved
    return [env.cots.get(v.id) for v in wrt]


def _out_cots(env: _Env, e: Eqn) -> list[Tensor]:
    cots = env.cots
    return [cots.pop(o.id) if o.id in cots else F.zeros_like(env.tensor(o)) for o in e.outputs]


def _vjp_eqn(env: _Env, e: Eqn, needs: set[int]) -> None:
    tape.check_vjp(e.prim, e.loc)
    ins = [env.tensor(a) for a in e.inputs]
    outs = [env.tensor(o) for o in e.outputs]
    cots = _out_cots(env, e)
    tracked = [t for a, t in zip(e.inputs, ins) if isinstance(a, Var) and a.id in needs]
    with tape.watching(tracked):
        grads = tape.apply_vjp(e.prim, cots, outs, ins, e.attrs)
    for a, g in zip(e.inputs, grads):
        if g is not None and isinstance(a, Var) and a.id in needs:
            env.add(a, g)


def _free_needing(g: Graph, needs: set[int]) -> list[int]:
    return [vid for vid in g.free_uses() if vid in needs]


def _branch_grad(env: _Env, g: Graph, cots: list[Tensor], wanted: list[Var], name: str) -> Graph:
    child = GraphBuilder(name, parent=env.builder)
    # Replay the branch's forward equations inside the gradient branch, so the backward graph does
    # not depend on values that only existed inside the forward If (it may run in another executable).
    child.eqns = list(g.eqns)
    grads = backprop(child, list(g.eqns), g.outputs, cots, wanted)
    with building(child):
        return child.finish(_or_zeros(grads, wanted))


def _or_zeros(grads: list[Tensor | None], wrt: list[Var]) -> list[Tensor]:
    """A sub-graph's gradient outputs: zeros where a wanted value got no gradient (no path to it)."""
    return [g if g is not None else F.zeros(tuple(v.aval.shape), v.aval.dtype) for g, v in zip(grads, wrt)]


def _var_index(env: _Env, e: Eqn) -> dict[int, Var]:
    """Vars an equation's sub-graphs read from outside, by id."""
    found: dict[int, Var] = {}

    def scan(g: Graph) -> None:
        inner = {v.id for v in g.inputs}
        for eq in g.eqns:
            inner.update(o.id for o in eq.outputs)
        for eq in g.eqns:
            for a in eq.inputs:
                if isinstance(a, Var) and a.id not in inner:
                    found.setdefault(a.id, a)
            for sub in subgraphs(eq):
                scan(sub)
        for a in g.outputs:
            if isinstance(a, Var) and a.id not in inner:
                found.setdefault(a.id, a)

    for sub in subgraphs(e):
        scan(sub)
    return found


def _emit(env: _Env, prim: Primitive, inputs: list[Any], attrs: dict, avals: list[Aval]) -> list[Tracer]:
    return [env.tensor(v) for v in env.builder.emit(prim, inputs, attrs, avals)]


def _vjp_if(env: _Env, e: Eqn, needs: set[int]) -> None:
    cots = _out_cots(env, e)
    by_id = _var_index(env, e)
    wanted_ids = sorted(set(_free_needing(e.attrs["then"], needs)) | set(_free_needing(e.attrs["else"], needs)))
    wanted = [by_id[i] for i in wanted_ids if i in by_id]
    if not wanted:
        return
    g_then = _branch_grad(env, e.attrs["then"], cots, wanted, "then_grad")
    g_else = _branch_grad(env, e.attrs["else"], cots, wanted, "else_grad")
    cond = env.tensor(e.inputs[0])
    grads = _emit(env, IF, [cond], {"then": g_then, "else": g_else}, [v.aval for v in wanted])
    for v, g in zip(wanted, grads):
        env.add(v, g)


def _while_grad_infer(*args: Any, **attrs: Any) -> tuple[Aval, ...]:
    return tuple(a.aval for a in attrs["body_grad"].outputs)


def _no_eager(*_: Any, **__: Any) -> Any:
    raise TypeError("WhileGrad runs only inside a compiled graph")


WHILE_GRAD = register(Primitive("WhileGrad", _while_grad_infer, _no_eager, None,
                                "Gradient of a While loop: replays the loop, then runs the body's gradient in "
                                "reverse.", multi_output=True, internal=True))


def _vjp_while(env: _Env, e: Eqn, needs: set[int]) -> None:
    """d(loop outputs)/d(initial carried values and the outer values the loop reads)."""
    cots = _out_cots(env, e)
    body: Graph = e.attrs["body"]
    by_id = _var_index(env, e)
    free_ids = [i for i in _free_needing(body, needs) if i in by_id]
    free = [by_id[i] for i in free_ids]
    n = len(body.inputs)
    # body_grad(carried_in..., cot_out...) -> (cot_carried_in..., cot_free...)
    child = GraphBuilder("body_grad", parent=env.builder)
    with building(child):
        cot_in = [child.new_input(v.aval, "cot") for v in body.inputs]
    # rebind the body's inputs as this graph's inputs (values are set per iteration by the executor)
    child.inputs = list(body.inputs) + child.inputs
    grads = backprop(child, body.eqns, body.outputs, cot_in, list(body.inputs) + free)
    with building(child):
        g_body = child.finish(_or_zeros(grads, list(body.inputs) + free))
    init = [env.tensor(a) for a in e.inputs]
    results = _emit(env, WHILE_GRAD, init + cots, {"cond": e.attrs["cond"], "body": body, "body_grad": g_body,
                                                   "n_carried": n}, [a.aval for a in g_body.outputs])
    for a, g in zip(e.inputs, results[:n]):
        if isinstance(a, Var) and a.id in needs:
            env.add(a, g)
    for v, g in zip(free, results[n:]):
        env.add(v, g)
