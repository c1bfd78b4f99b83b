"""Fusions across the forward/backward boundary of a training graph: ops that PyNative runs one by one
because it cannot see what comes next.

- `SparseSoftmaxCrossEntropyWithLogits` and its `...Grad` on the same logits and labels -> one
  `FusedSparseSoftmaxCE` equation with two outputs: the C++ kernel computes the loss and the logits
  gradient in the same pass over the logits, so the step pays one call (and one label check) instead
  of two. Only when the gradient's cotangent is known before the loss (a constant sensitivity, or a
  value computed earlier), since the fused equation sits where the forward one was.
- `ReluGrad(g, y)` whose result a `SumTo` reduces to a bias gradient (axis 0 of a matrix) ->
  `FusedReluGradBias`: the mask and the column sums in one pass, both outputs kept.
- a Dense layer's backward — the bias gradient (that fused mask, or a `SumTo`), the weight gradient
  `r^T @ x` and the input gradient `r @ W` of the same `r` — -> one `DenseBackward` call (C++
  `dense_backward` in float32); the first layer's has no input gradient. In float16/bfloat16 (O2)
  the casts of the weight and bias gradients back to the float32 master weights join it too, and
  it runs PyNative's AmpDense backward (`AmpDenseGrad`: the same kernels, so the same bits).

The fused kernels do the unfused ops' arithmetic: masks and bias sums are bit-identical; a product
the unfused MatMul would have left to NumPy (under ~1e5 multiply-adds) goes through oneDNN's sgemm
here, and a loss is summed in another order, so those agree to float32 rounding (tests compare).
"""

from __future__ import annotations

import numpy as np

from ... import _kernels  # (the fused kernels below call it at every run: imported once here)
from ...ops.array import Cast, SumTo
from ...ops.elementwise import ReluGrad
from ...ops.linalg import AmpDenseGrad, MatMul
from ...ops.loss_ops import (
    SparseSoftmaxCrossEntropyWithLogits,
    SparseSoftmaxCrossEntropyWithLogitsGrad,
    sparse_softmax_ce_value_and_grad,
)
from ...ops.primitive import Aval, primitive
from ..ir import Const, Eqn, Graph, Var
from .rewrite import apply_subst


@primitive(internal=True)
class FusedSparseSoftmaxCE:
    """Sparse softmax cross-entropy and its logits gradient from one kernel pass (loss fusion)."""

    multi_output = True

    def infer(g, logits, labels, *weight, **attrs):
        return (SparseSoftmaxCrossEntropyWithLogits.infer(logits, labels, *weight, **attrs),
                SparseSoftmaxCrossEntropyWithLogitsGrad.infer(g, logits, labels, *weight, **attrs))

    def impl(g, logits, labels, *weight, **attrs):
        return sparse_softmax_ce_value_and_grad(g, logits, labels, weight[0] if weight else None, **attrs)


@primitive(internal=True)
class FusedReluGradBias:
    """ReLU gradient of a Dense layer and its bias gradient (the column sums) in one pass (fusion pass)."""

    multi_output = True

    def infer(g, y):
        r = ReluGrad.infer(g, y)
        return r, Aval(tuple(r.shape[1:]), r.dtype)

    def impl(g, y):
        if g.dtype == np.float32 and y.dtype == np.float32:
            return _kernels.relu_grad_bias(g, y)
        if g.dtype.itemsize == 2 and g.dtype == y.dtype and g.ndim == 2:
            # float16/bfloat16 (mixed precision): PyNative's kernels (C++ mask, float32 column sums),
            # so both modes give the same bits
            r = ReluGrad.impl(g, y)
            return r, SumTo.impl(r, tuple(r.shape[1:]))
        r = np.multiply(g, y > 0, dtype=g.dtype)
        return r, r.sum(axis=0)


@primitive(internal=True)
class DenseBackward:
    """A Dense layer's input, weight and bias gradients (after its ReLU mask) in one call (fusion pass).

    Inputs: the output gradient g (N, O), the layer input x (N, I), the weight (O, I) when the input
    gradient is wanted (`has_w`), the ReLU output (N, O) when g is masked by it (`relu`). Outputs:
    (dx,) dw, db: float32 through C++ `dense_backward`; float16/bfloat16 through `AmpDenseGrad`,
    dw and db cast to float32 where `wide` says so (the casts it absorbed).
    """

    multi_output = True

    def infer(g, x, *rest, has_w=True, relu=False, wide=(False, False)):
        from ...common import dtype as mstype

        dwt, dbt = (mstype.float32 if w else g.dtype for w in wide)
        dw = Aval((g.shape[1], x.shape[1]), dwt)
        db = Aval((g.shape[1],), dbt)
        return (Aval(tuple(x.shape), g.dtype), dw, db) if has_w else (dw, db)

    def impl(g, x, *rest, has_w=True, relu=False, wide=(False, False)):
        w = rest[0] if has_w else None
        if g.dtype.itemsize == 2:  # mixed precision: the unfused kernels' bits (PyNative's AmpDense backward)
            from ...amp import lowp  # (not at import: spore.amp imports the compiler)

            fused = lowp.dense_backward16(g, x, w, rest[-1] if relu else None, (True, True), wide)
            if fused is not None:
                return fused
            r = ReluGrad.impl(g, rest[-1]) if relu else g
            return AmpDenseGrad.impl(r, x, w, want=(has_w, True, True), wide=wide)
        dx, dw, db = _kernels.dense_backward(g, x, w, rest[-1] if relu else None)
        return (dx, dw, db) if has_w else (dw, db)


def fuse_backward(graph: Graph) -> Graph:
    graph = _fuse_loss(graph)
    graph = _fuse_relu_grad_bias(graph)
    return _fuse_dense_backward(graph)


def _producers(graph: Graph) -> dict[int, int]:
    return {o.id: i for i, e in enumerate(graph.eqns) for o in e.outputs}


def _same_atom(a, b) -> bool:
    if isinstance(a, Var) or isinstance(b, Var):
        return isinstance(a, Var) and isinstance(b, Var) and a.id == b.id
    return a is b


def _fuse_loss(graph: Graph) -> Graph:
    if not any(e.prim is SparseSoftmaxCrossEntropyWithLogits for e in graph.eqns):
        return graph
    eqns: list[Eqn | None] = list(graph.eqns)
    producer = _producers(graph)
    changed = False
    for i, fwd in enumerate(graph.eqns):
        if fwd.prim is not SparseSoftmaxCrossEntropyWithLogits:
            continue
        for j in range(i + 1, len(graph.eqns)):
            bwd = graph.eqns[j]
            if (eqns[j] is None or bwd.prim is not SparseSoftmaxCrossEntropyWithLogitsGrad
                    or bwd.attrs != fwd.attrs or len(bwd.inputs) != len(fwd.inputs) + 1
                    or not all(_same_atom(a, b) for a, b in zip(bwd.inputs[1:], fwd.inputs))):
                continue
            g = bwd.inputs[0]
            if not (isinstance(g, Const) or producer.get(g.id, -1) < i):
                continue  # the cotangent is computed from the loss (or later): the two calls stay
            eqns[i] = Eqn(FusedSparseSoftmaxCE, [g] + list(fwd.inputs), dict(fwd.attrs),
                          [fwd.outputs[0], bwd.outputs[0]], fwd.loc, fwd.scope,
                          [fwd.prim.name, bwd.prim.name])
            eqns[j] = None
            changed = True
            break
    if not changed:
        return graph
    return apply_subst(graph, [e for e in eqns if e is not None], {})


def _fuse_relu_grad_bias(graph: Graph) -> Graph:
    if not any(e.prim is SumTo for e in graph.eqns):
        return graph
    eqns: list[Eqn | None] = list(graph.eqns)
    producer = _producers(graph)
    changed = False
    for j, s in enumerate(graph.eqns):
        if s.prim is not SumTo or not isinstance(s.inputs[0], Var):
            continue
        r = s.inputs[0]
        i = producer.get(r.id)
        if i is None or eqns[i] is None or graph.eqns[i].prim is not ReluGrad:
            continue
        rg = graph.eqns[i]
        if (len(r.aval.shape) != 2 or tuple(s.attrs["shape"]) != (r.aval.shape[1],)
                or any(a.aval.dtype is not r.aval.dtype for a in rg.inputs)
                or tuple(rg.inputs[1].aval.shape) != tuple(r.aval.shape)):
            continue
        eqns[i] = Eqn(FusedReluGradBias, list(rg.inputs), {}, [r, s.outputs[0]], rg.loc, rg.scope,
                      ["ReluGrad", "SumTo"])
        eqns[j] = None
        changed = True
    if not changed:
        return graph
    return apply_subst(graph, [e for e in eqns if e is not None], {})


def _is_matmul(e: Eqn, r: Var, transpose_a: bool) -> bool:
    return (e.prim is MatMul and isinstance(e.inputs[0], Var) and e.inputs[0].id == r.id
            and bool(e.attrs.get("transpose_a", False)) is transpose_a and not e.attrs.get("transpose_b", False))


def _dense_dtype(dt: np.dtype) -> bool:
    """float32, float16 or bfloat16: the dtypes DenseBackward runs in."""
    return dt == np.float32 or (dt.itemsize == 2 and (dt == np.float16 or dt.name == "bfloat16"))


def _cast_back(graph: Graph, eqns: list[Eqn | None], readers: dict[int, list[int]], uses: dict[int, int],
               v: Var) -> int | None:
    """The index of the Cast to float32 that is the only reader of the 16-bit gradient `v` (a master
    weight's gradient on its way to the optimizer), or None."""
    at = readers.get(v.id, [])
    if len(at) != 1 or uses.get(v.id, 0) != 1 or eqns[at[0]] is None:
        return None
    e = graph.eqns[at[0]]
    if e.prim is not Cast or e.outputs[0].aval.dtype.np != np.float32:
        return None
    return at[0]


def _fuse_dense_backward(graph: Graph) -> Graph:
    if not any(e.prim is FusedReluGradBias or e.prim is SumTo for e in graph.eqns):
        return graph
    eqns: list[Eqn | None] = list(graph.eqns)
    readers: dict[int, list[int]] = {}
    defined_at: dict[int, int] = {}  # var id -> the (first) equation defining it
    for k, e in enumerate(graph.eqns):
        for a in e.inputs:
            if isinstance(a, Var):
                readers.setdefault(a.id, []).append(k)
        for o in e.outputs:
            defined_at.setdefault(o.id, k)
    uses = graph.uses()
    changed = False
    for k, e in enumerate(graph.eqns):
        if eqns[k] is None:
            continue
        if e.prim is FusedReluGradBias:  # r and db come from the fused mask
            r, db = e.outputs
            g, y = e.inputs
            bias_at, inputs_tail = k, [y]
        elif e.prim is SumTo and isinstance(e.inputs[0], Var) and len(e.inputs[0].aval.shape) == 2 \
                and tuple(e.attrs["shape"]) == (e.inputs[0].aval.shape[1],):
            r, db = e.inputs[0], e.outputs[0]
            g, bias_at, inputs_tail = r, k, []
        else:
            continue
        others = [j for j in readers.get(r.id, []) if j != bias_at]
        dw_at = [j for j in others if _is_matmul(graph.eqns[j], r, True)]
        dx_at = [j for j in others if _is_matmul(graph.eqns[j], r, False)]
        if len(dw_at) != 1 or len(dx_at) > 1 or any(eqns[j] is None for j in dw_at + dx_at):
            continue
        if inputs_tail and (len(others) != len(dw_at) + len(dx_at) or uses.get(r.id, 0) != len(others)):
            continue  # the masked gradient is read elsewhere too: it has to exist, keep the ops
        dw_eqn = graph.eqns[dw_at[0]]
        x = dw_eqn.inputs[1]
        w = [graph.eqns[dx_at[0]].inputs[1]] if dx_at else []
        atoms = [g, x] + w + inputs_tail
        dt = g.aval.dtype
        if any(a.aval.dtype is not dt or len(a.aval.shape) != 2 for a in atoms) or not _dense_dtype(dt.np):
            continue
        if w and tuple(w[0].aval.shape) != (r.aval.shape[1], x.aval.shape[1]):
            continue  # r @ M with an M that is not (O, I): not this layer's input gradient
        at = min([bias_at] + dw_at + dx_at)
        if any(isinstance(a, Var) and defined_at.get(a.id, -1) >= at for a in [x] + w):
            continue
        grads = [dw_eqn.outputs[0], db]
        casts = [_cast_back(graph, eqns, readers, uses, v) if dt.np.itemsize == 2 else None for v in grads]
        outs = (([graph.eqns[dx_at[0]].outputs[0]] if dx_at else [])
                + [v if c is None else graph.eqns[c].outputs[0] for v, c in zip(grads, casts)])
        fused_from = eqns[bias_at]
        attrs = {"has_w": bool(dx_at), "relu": bool(inputs_tail)}
        if dt.np.itemsize == 2:
            attrs["wide"] = tuple(c is not None for c in casts)
        eqns[at] = Eqn(DenseBackward, atoms, attrs, outs, dw_eqn.loc, dw_eqn.scope,
                       list(fused_from.fused or [fused_from.prim.name]) + ["MatMul"] * (1 + len(dx_at))
                       + ["Cast"] * sum(c is not None for c in casts))
        for j in {bias_at, *dw_at, *dx_at, *(c for c in casts if c is not None)} - {at}:
            eqns[j] = None
        changed = True
    if not changed:
        return graph
    return apply_subst(graph, [e for e in eqns if e is not None], {})
