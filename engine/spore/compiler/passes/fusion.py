"""Fusion: merge chains of equations into single kernel calls.

- MatMul (x @ W^T) + Add(bias) [+ ReLU]  ->  `FusedDense`: one GEMM with the bias and ReLU as its
  epilogue (C++ `dense_forward` for float32);
- Conv2D + BatchNorm (inference) [+ ReLU]  ->  `FusedConvBN`: the BatchNorm folded into the conv's
  weights and bias at run time (so later weight updates are seen), one conv call, ReLU in place;
- a loss with its gradient, a Dense layer's whole backward  ->  one call each (see
  `backward_fusion`);
- chains of elementwise ops on one shape  ->  `FusedElementwise`: the whole chain in one call that
  reuses its own buffers (see `elementwise_fusion`).

A fused equation keeps the SourceLoc of the last op it absorbed and lists the absorbed op names in
`fused`, so graph views can show what was merged. Only intermediates nobody else reads are fused.
"""

from __future__ import annotations

import numpy as np

from ... import _kernels  # (the fused kernels below call it at every run: imported once here)
from ...ops.conv_pool import Conv2D
from ...ops.elementwise import Add, ReLU
from ...ops.linalg import MatMul
from ...ops.normalization import BatchNorm
from ...ops.primitive import Aval, primitive
from ..ir import Eqn, Graph, Var
from .backward_fusion import fuse_backward
from .elementwise_fusion import fuse_elementwise
from .rewrite import apply_subst


@primitive(internal=True)
class FusedDense:
    """MatMul + bias add (+ ReLU) in one kernel call (made by the fusion pass); `matmul` is the
    MatMul kernel used outside float32."""

    def infer(x, w, b, transpose_a=False, transpose_b=False, relu=False, matmul=None):
        m = x.shape[1] if transpose_a else x.shape[0]
        n = w.shape[0] if transpose_b else w.shape[1]
        return Aval((m, n), x.dtype)

    def impl(x, w, b, transpose_a=False, transpose_b=False, relu=False, matmul=None):
        if x.dtype == np.float32 and w.dtype == np.float32 and b.dtype == np.float32:
            return _kernels.dense_forward(x, w, b, transpose_a, transpose_b, relu)  # bias and ReLU as the epilogue
        if x.dtype.itemsize == 2 and x.dtype.kind in "fV":  # float16/bfloat16: PyNative's AmpDense pass
            from ...amp import lowp  # (spore.amp imports the compiler)

            y = lowp.dense16(x, w, b, transpose_a, transpose_b, relu)
            if y is not None:
                return y
        out = matmul(x, w, transpose_a=transpose_a, transpose_b=transpose_b)
        if out.dtype.itemsize == 2 and out.dtype == b.dtype and out.dtype.kind in "fV":
            # float16/bfloat16 (mixed precision): PyNative's Add and ReLU (C++ casts and masks; NumPy's
            # 16-bit loops are scalar), so both modes give the same bits
            out = Add.impl(out, b)
            return ReLU.impl(out) if relu else out
        if not out.flags.writeable or out.base is not None:
            out = np.array(out)
        np.add(out, b, out=out)
        if relu:
            np.maximum(out, 0, out=out)
        return out


def fuse(graph: Graph) -> Graph:
    graph = _fuse_conv_bn(graph)
    graph = _fuse_dense(graph)
    graph = fuse_backward(graph)
    return fuse_elementwise(graph)



@primitive(internal=True)
class FusedConvBN:
    """Conv2D + BatchNorm (inference) (+ ReLU) with the norm folded into the conv (fusion pass).

    Inputs: x, the conv weight, its bias when `has_bias`, then BatchNorm's gamma, beta, mean and
    variance; `conv` is the Conv2D kernel and `conv_attrs` its attributes.
    """

    def infer(x, w, *rest, has_bias=False, epsilon=1e-5, relu=False, conv=None, conv_attrs=()):
        return Conv2D.infer(x, w, *rest[:1] if has_bias else (), **dict(conv_attrs))

    def impl(x, w, *rest, has_bias=False, epsilon=1e-5, relu=False, conv=None, conv_attrs=()):
        b = rest[0] if has_bias else None
        gamma, beta, mean, var = rest[1:] if has_bias else rest
        scale = gamma.astype(np.float64) / np.sqrt(var.astype(np.float64) + epsilon)
        w2 = (w * scale.reshape((-1,) + (1,) * (w.ndim - 1))).astype(w.dtype)
        b2 = ((b if b is not None else 0.0) - mean) * scale + beta
        out = conv(x, w2, b2.astype(w.dtype), **dict(conv_attrs))
        if relu:
            if not out.flags.writeable or out.base is not None:
                out = np.array(out)
            np.maximum(out, 0, out=out)
        return out


def _fuse_conv_bn(graph: Graph) -> Graph:
    if not any(e.prim is BatchNorm for e in graph.eqns):
        return graph
    uses = graph.uses()
    eqns = list(graph.eqns)
    producer = {o.id: i for i, e in enumerate(eqns) for o in e.outputs}
    consumers: dict[int, list[int]] = {}
    for i, e in enumerate(eqns):
        for a in e.inputs:
            if isinstance(a, Var):
                consumers.setdefault(a.id, []).append(i)
    dead: set[int] = set()
    for i, e in enumerate(eqns):
        if e.prim is not BatchNorm or e.attrs.get("is_training") or e.attrs.get("data_format", "NCHW") != "NCHW":
            continue
        x = e.inputs[0]
        ci = producer.get(x.id) if isinstance(x, Var) else None
        if ci is None or ci in dead or eqns[ci].prim is not Conv2D or uses.get(x.id, 0) != 1:
            continue
        if any(uses.get(o.id, 0) for o in e.outputs[1:]):
            continue  # the batch statistics are read elsewhere
        conv = eqns[ci]
        out = e.outputs[0]
        relu = False
        names = ["Conv2D", "BatchNorm"]
        nxt = consumers.get(out.id, [])
        if uses.get(out.id, 0) == 1 and len(nxt) == 1 and eqns[nxt[0]].prim is ReLU:
            relu = True
            names.append("ReLU")
            dead.add(nxt[0])
            out = eqns[nxt[0]].outputs[0]
        has_bias = len(conv.inputs) > 2
        attrs = {"has_bias": has_bias, "epsilon": e.attrs.get("epsilon", 1e-5), "relu": relu, "conv": conv.prim.impl,
                 "conv_attrs": tuple(sorted(conv.attrs.items()))}
        loc = eqns[nxt[0]].loc if relu else e.loc
        eqns[i] = Eqn(FusedConvBN, list(conv.inputs) + list(e.inputs[1:]), attrs, [out], loc, e.scope, names)
        dead.add(ci)
    if not dead:
        return graph
    return apply_subst(graph, [e for k, e in enumerate(eqns) if k not in dead], {})


def _fuse_dense(graph: Graph) -> Graph:
    if not any(e.prim is Add for e in graph.eqns):
        return graph
    uses = graph.uses()
    producer: dict[int, int] = {}
    readers: dict[int, list[int]] = {}  # var id -> the equations reading it, in order (each once)
    eqns = list(graph.eqns)
    for i, e in enumerate(eqns):
        for o in e.outputs:
            producer[o.id] = i
        for x in e.inputs:
            if isinstance(x, Var):
                at = readers.setdefault(x.id, [])
                if not at or at[-1] != i:
                    at.append(i)
    dead: set[int] = set()
    for i, e in enumerate(eqns):
        if e.prim is not Add or i in dead:
            continue
        a, b = e.inputs
        mm_i = producer.get(a.id) if isinstance(a, Var) else None
        if mm_i is None or eqns[mm_i].prim is not MatMul or uses.get(a.id, 0) != 1:
            continue
        if len(b.aval.shape) != 1 or b.aval.dtype is not a.aval.dtype:
            continue
        mm = eqns[mm_i]
        out = e.outputs[0]
        relu = False
        fused_names = ["MatMul", "Add"]
        consumers = [j for j in readers.get(out.id, ()) if j > i]  # (the equations after i are still the graph's)
        if uses.get(out.id, 0) == 1 and len(consumers) == 1 and eqns[consumers[0]].prim is ReLU:
            relu_eqn = eqns[consumers[0]]
            relu = True
            fused_names.append("ReLU")
            dead.add(consumers[0])
            out = relu_eqn.outputs[0]
        attrs = {"transpose_a": mm.attrs.get("transpose_a", False), "transpose_b": mm.attrs.get("transpose_b", False),
                 "relu": relu, "matmul": mm.prim.impl}
        eqns[i] = Eqn(FusedDense, [mm.inputs[0], mm.inputs[1], b], attrs, [out],
                      e.loc if not relu else eqns[consumers[0]].loc, e.scope, fused_names)
        dead.add(mm_i)
    kept = [e for k, e in enumerate(eqns) if k not in dead]
    return apply_subst(graph, kept, {})
