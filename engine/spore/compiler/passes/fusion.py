"""Fusion: merge chains of equations into single kernel calls.

- MatMul (x @ W^T) + Add(bias) [+ ReLU]  ->  `FusedDense`: one GEMM and an in-place epilogue;
- chains of elementwise ops on one shape  ->  `FusedElementwise`: the whole chain in one call that
  reuses its own buffers (see `elementwise_fusion`).

A fused equation keeps the SourceLoc of the last op it absorbed and lists the absorbed op names in
`fused`, so graph views can show what was merged. Only intermediates nobody else reads are fused.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..ir import Eqn, Graph, Var
from .elementwise_fusion import fuse_elementwise
from .rewrite import apply_subst


def _fused_dense_impl(x: np.ndarray, w: np.ndarray, b: np.ndarray, transpose_a: bool = False,
                      transpose_b: bool = False, relu: bool = False, matmul: Callable | None = None) -> np.ndarray:
    out = matmul(x, w, transpose_a=transpose_a, transpose_b=transpose_b)
    if not out.flags.writeable or out.base is not None:
        out = np.array(out)
    np.add(out, b, out=out)
    if relu:
        np.maximum(out, 0, out=out)
    return out


def _fused_dense_prim():
    from ...ops.primitive import Aval, Primitive

    def infer(x, w, b, transpose_a=False, transpose_b=False, relu=False, matmul=None):
        m = x.shape[1] if transpose_a else x.shape[0]
        n = w.shape[0] if transpose_b else w.shape[1]
        return Aval((m, n), x.dtype)

    return Primitive("FusedDense", infer, _fused_dense_impl, None,
                     "MatMul + bias add (+ ReLU) in one kernel call (made by the fusion pass).")


FUSED_DENSE = _fused_dense_prim()


def fuse(graph: Graph) -> Graph:
    graph = _fuse_dense(graph)
    return fuse_elementwise(graph)


def _fuse_dense(graph: Graph) -> Graph:
    uses = graph.uses()
    producer: dict[int, int] = {}
    eqns = list(graph.eqns)
    for i, e in enumerate(eqns):
        for o in e.outputs:
            producer[o.id] = i
    dead: set[int] = set()
    for i, e in enumerate(eqns):
        if e.prim.name != "Add" or i in dead:
            continue
        a, b = e.inputs
        mm_i = producer.get(a.id) if isinstance(a, Var) else None
        if mm_i is None or eqns[mm_i].prim.name != "MatMul" or uses.get(a.id, 0) != 1:
            continue
        if len(b.aval.shape) != 1 or b.aval.dtype is not a.aval.dtype:
            continue
        mm = eqns[mm_i]
        out = e.outputs[0]
        relu = False
        fused_names = ["MatMul", "Add"]
        consumers = [j for j in range(i + 1, len(eqns)) if any(isinstance(x, Var) and x.id == out.id
                                                               for x in eqns[j].inputs)]
        if uses.get(out.id, 0) == 1 and len(consumers) == 1 and eqns[consumers[0]].prim.name == "ReLU":
            relu_eqn = eqns[consumers[0]]
            relu = True
            fused_names.append("ReLU")
            dead.add(consumers[0])
            out = relu_eqn.outputs[0]
        attrs = {"transpose_a": mm.attrs.get("transpose_a", False), "transpose_b": mm.attrs.get("transpose_b", False),
                 "relu": relu, "matmul": mm.prim.impl}
        eqns[i] = Eqn(FUSED_DENSE, [mm.inputs[0], mm.inputs[1], b], attrs, [out],
                      e.loc if not relu else eqns[consumers[0]].loc, e.scope, fused_names)
        dead.add(mm_i)
    kept = [e for k, e in enumerate(eqns) if k not in dead]
    return apply_subst(graph, kept, {})
