"""Export-time folds: the ONNX patterns runtimes expect for what Graph mode fuses.

- MatMul(a, W, transpose_b) + Add(bias) with 2-D operands -> one `Gemm` (what FusedDense computes);
- Conv2D + BatchNorm (inference) with Parameter weights -> one `Conv` whose weight and bias have the
  normalisation folded in (what FusedConvBN computes): w' = w * g / sqrt(v + eps),
  b' = (b - m) * g / sqrt(v + eps) + beta.

`plan_folds` returns {id(eqn): emit function} for the equation that carries each fold's result and
the set of equations the fold absorbs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..compiler.ir import Const, Graph, Var


def plan_folds(graph: Graph) -> tuple[dict[int, Callable], set[int]]:
    uses = graph.uses()
    params = {p.var.id: p.param for p in graph.params}
    producer = {o.id: e for e in graph.eqns for o in e.outputs}
    folds: dict[int, Callable] = {}
    skip: set[int] = set()
    for e in graph.eqns:
        name = e.prim.name
        if name == "Add" and len(e.inputs) == 2:
            for k in (0, 1):
                mm, bias = e.inputs[k], e.inputs[1 - k]
                m = producer.get(mm.id) if isinstance(mm, Var) else None
                if m is None or m.prim.name != "MatMul" or uses.get(mm.id) != 1 or id(m) in skip:
                    continue
                if len(m.inputs[0].aval.shape) != 2 or len(m.inputs[1].aval.shape) != 2:
                    continue
                n_out = e.outputs[0].aval.shape[-1]
                if tuple(bias.aval.shape) != (n_out,) or bias.aval.dtype != e.outputs[0].aval.dtype:
                    continue
                if e.outputs[0].aval.shape != mm.aval.shape:
                    continue
                folds[id(e)] = _gemm(m, bias)
                skip.add(id(m))
                break
        elif name == "BatchNorm" and not e.attrs.get("is_training", False):
            x = e.inputs[0]
            c = producer.get(x.id) if isinstance(x, Var) else None
            if c is None or c.prim.name != "Conv2D" or uses.get(x.id) != 1:
                continue
            if e.attrs.get("data_format", "NCHW") != "NCHW":
                continue
            if any(uses.get(o.id, 0) for o in e.outputs[1:]):
                continue
            stats = [_value(a, params) for a in e.inputs[1:5]]
            w = _value(c.inputs[1], params)
            b = _value(c.inputs[2], params) if len(c.inputs) > 2 else None
            if w is None or any(s is None for s in stats) or (len(c.inputs) > 2 and b is None):
                continue
            folds[id(e)] = _conv_bn(c, e, params)
            skip.add(id(c))
    return folds, skip


def _value(atom: Any, params: dict) -> np.ndarray | None:
    if isinstance(atom, Const):
        return np.asarray(atom.value)
    p = params.get(atom.id)
    return None if p is None else p.asnumpy()


def _gemm(m: Any, bias: Any) -> Callable:
    def emit(ctx: Any, e: Any) -> list[str]:
        a, b = (ctx.name_of(x) for x in m.inputs)
        return ctx.node("Gemm", [a, b, ctx.name_of(bias)], transA=int(bool(m.attrs.get("transpose_a"))),
                        transB=int(bool(m.attrs.get("transpose_b"))))

    return emit


def _conv_bn(c: Any, bn: Any, params: dict) -> Callable:
    def emit(ctx: Any, e: Any) -> list[str]:
        from .mappings import conv_attrs

        gamma, beta, mean, var = (_value(a, params).astype(np.float64) for a in bn.inputs[1:5])
        w = _value(c.inputs[1], params)
        k = gamma / np.sqrt(var + float(bn.attrs.get("epsilon", 1e-5)))
        b = _value(c.inputs[2], params).astype(np.float64) if len(c.inputs) > 2 else np.zeros_like(mean)
        w_name = _param_name(c.inputs[1], params, "weight")
        wf = ctx.initializer(w_name, (w * k.reshape(-1, 1, 1, 1)).astype(w.dtype))
        bf = ctx.initializer(w_name.rsplit(".", 1)[0] + ".bias" if "." in w_name else "bias",
                             ((b - mean) * k + beta).astype(w.dtype))
        attrs = conv_attrs(c.attrs, ctx)
        return ctx.node("Conv", [ctx.name_of(c.inputs[0]), wf, bf], **attrs)

    return emit


def _param_name(atom: Any, params: dict, default: str) -> str:
    p = params.get(getattr(atom, "id", None))
    return p.name if p is not None else default
