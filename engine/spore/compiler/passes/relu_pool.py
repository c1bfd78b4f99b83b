"""ReLU before max pooling runs after it: `MaxPool(ReLU(x))` == `ReLU(MaxPool(x))`, on a 4x smaller
tensor for 2x2 pooling.

Both are monotone, so the pooled values are equal. In a training graph the backward pair changes too:
`ReluGrad(MaxPoolGrad(dp, idx), relu_out)` becomes `MaxPoolGrad(ReluGrad(dp, pooled), idx_of_x)` — the
mask is applied to the small pooled gradient. Where the window's max is positive both pick the same
element; where it is not, both gradients are zero. The rewrite only fires when nothing else reads the
full-size ReLU output or the pooling indices (a user who asked for `return_indices` keeps them exact).

For float32 the swapped pair then runs as one kernel call, `FusedMaxPoolReLU`: the C++ pooling
applies the ReLU to its maxima and marks the outputs it zeroes with argmax -1, which the backward
scatter skips, so the ReluGrad disappears too (MaxPool + ReLU forward, MaxPoolGrad alone backward).
The gradient is the unfused one except where an inf/NaN cotangent meets a zeroed output (there the
fused pair gives 0, as `np.where`-style ReLU gradients do, and the mask multiply gives NaN).

PyNative runs the ops as written; this is one of the rewrites only a compiled graph can make.
"""

from __future__ import annotations

import numpy as np

from ... import _kernels  # (the fused kernels below call it at every run: imported once here)
from ...ops.conv_pool import MaxPool, MaxPoolGrad, _pool_geom
from ...ops.elementwise import ReLU, ReluGrad
from ...ops.primitive import primitive
from ..ir import Eqn, Graph, Var
from .rewrite import apply_subst


@primitive(internal=True)
class FusedMaxPoolReLU:
    """Max pooling then ReLU in one call; argmax -1 where the ReLU passes no gradient (float32)."""

    multi_output = True

    def infer(x, **attrs):
        return MaxPool.infer(x, **attrs)  # MaxPool's outputs: the pooled values and their indices

    def impl(x, kernel_size=(1, 1), strides=(1, 1), pad=(0, 0, 0, 0), dilation=(1, 1), ceil_mode=False):
        out = _pool_geom("MaxPool", x.shape, kernel_size, strides, pad, dilation, ceil_mode)[2:]
        return _kernels.max_pool2d_forward(x, kernel_size, strides, pad, dilation, out, True)


def _readers(graph: Graph) -> dict[int, list[int]]:
    readers: dict[int, list[int]] = {}
    for i, e in enumerate(graph.eqns):
        for a in e.inputs:
            if isinstance(a, Var):
                readers.setdefault(a.id, []).append(i)
    return readers


def swap_relu_maxpool(graph: Graph) -> Graph:
    if not any(e.prim is MaxPool for e in graph.eqns):
        return graph
    uses = graph.uses()
    readers = _readers(graph)
    relu_of: dict[int, int] = {}  # a ReLU's output -> the (first) ReLU making it
    for i, e in enumerate(graph.eqns):
        if e.prim is ReLU:
            relu_of.setdefault(e.outputs[0].id, i)
    eqns: list[Eqn | None] = list(graph.eqns)
    changed = False
    for ip, pool in enumerate(graph.eqns):
        if pool.prim is not MaxPool or not isinstance(pool.inputs[0], Var):
            continue
        r = pool.inputs[0]
        ir_ = relu_of.get(r.id)
        if ir_ is None or eqns[ir_] is None:
            continue
        p, idx = pool.outputs
        r_readers = [i for i in readers.get(r.id, []) if i != ip]
        idx_readers = readers.get(idx.id, [])
        # the only other reader of r may be the ReluGrad of the backward pair; idx only its MaxPoolGrad
        grad_pair = None
        if r_readers or idx_readers:
            if len(r_readers) != 1 or len(idx_readers) != 1:
                continue
            irg, ipg = r_readers[0], idx_readers[0]
            rg, pg = graph.eqns[irg], graph.eqns[ipg]
            same_pair = (rg.prim is ReluGrad and pg.prim is MaxPoolGrad
                         and isinstance(rg.inputs[1], Var) and rg.inputs[1].id == r.id
                         and isinstance(rg.inputs[0], Var) and rg.inputs[0].id == pg.outputs[0].id
                         and uses.get(pg.outputs[0].id, 0) == 1)
            if not same_pair:
                continue
            grad_pair = (irg, ipg)
        if uses.get(r.id, 0) != 1 + (1 if grad_pair else 0) or uses.get(idx.id, 0) != (1 if grad_pair else 0):
            continue  # read from a sub-graph, returned, or written back: keep the program as written
        x = graph.eqns[ir_].inputs[0]
        eqns[ir_] = None
        if x.aval.dtype.np == np.float32:  # one C++ call each way (the float32 kernels skip argmax -1)
            eqns[ip] = Eqn(FusedMaxPoolReLU, [x] + list(pool.inputs[1:]), dict(pool.attrs), [p, idx], pool.loc,
                           pool.scope, ["MaxPool", "ReLU"])
            if grad_pair:
                irg, ipg = grad_pair
                eqns[ipg] = graph.eqns[ipg].replaced(outputs=list(graph.eqns[irg].outputs))
                eqns[irg] = None
            changed = True
            continue
        pooled = Var(p.aval, "pooled")
        eqns[ip] = pool.replaced(inputs=[x] + list(pool.inputs[1:]), outputs=[pooled, idx])
        relu_small = Eqn(ReLU, [pooled], {}, [p], pool.loc, pool.scope, ["MaxPool", "ReLU"])
        eqns[ip] = [eqns[ip], relu_small]  # type: ignore[assignment]
        if grad_pair:
            irg, ipg = grad_pair
            rg, pg = graph.eqns[irg], graph.eqns[ipg]
            masked = Var(pg.inputs[0].aval, "masked")
            eqns[ipg] = [Eqn(ReluGrad, [pg.inputs[0], p], {}, [masked], rg.loc, rg.scope),  # type: ignore
                         pg.replaced(inputs=[masked] + list(pg.inputs[1:]), outputs=list(rg.outputs))]
            eqns[irg] = None
        changed = True
    if not changed:
        return graph
    flat: list[Eqn] = []
    for item in eqns:
        if item is None:
            continue
        flat.extend(item if isinstance(item, list) else [item])
    return apply_subst(graph, flat, {})
