"""Samples for the internal primitives (`spore.ops.primitive.INTERNAL`): the ones only the compiler
makes — control flow, a compiled `assert`, optimizer steps inside a training graph, the fused kernels
of the graph passes.

None has a tape gradient (`vjp`): control flow is differentiated by the graph transform
(`compiler/grad.py`), the fused kernels are made after differentiation, and the rest write state.
Samples marked ``graph=True`` run as a one-equation compiled graph, because their impl runs only
inside one (the executor runs their sub-graphs).
"""

import numpy as np

import spore as ms
from spore import nn, ops
from spore.compiler.control_flow import WHILE
from spore.compiler.grad import backprop
from spore.compiler.ir import Graph
from spore.compiler.passes.elementwise_fusion import fuse_elementwise
from spore.compiler.trace import GraphBuilder, building
from spore.ops.conv_pool import Conv2D
from spore.ops.linalg import MatMul
from spore.ops.primitive import Aval

from . import Sample

r = np.random.default_rng(7)


def f(*shape: int) -> np.ndarray:
    return r.standard_normal(shape)


def f32(*shape: int) -> np.ndarray:
    return f(*shape).astype(np.float32)


def f16(*shape: int) -> np.ndarray:
    return f(*shape).astype(np.float16)


def _graph(name: str, fn, *avals: Aval) -> Graph:
    """`fn` traced over inputs of the given avals into a Graph."""
    b = GraphBuilder(name)
    ins = [b.new_input(a) for a in avals]
    with building(b):
        out = fn(*ins)
    return b.finish(list(out) if isinstance(out, tuple) else [out])


def _while_parts() -> tuple[dict, dict]:
    """A While (x doubles while a counter below 3 steps) and the WhileGrad the graph transform makes
    of it, as (While attrs, WhileGrad attrs)."""
    x_aval, i_aval = Aval((2,), ms.float64), Aval((), ms.int32)
    cond = _graph("cond", lambda x, i: ops.less(i, 3), x_aval, i_aval)
    body = _graph("body", lambda x, i: (ops.mul(x, 2.0), ops.add(i, 1)), x_aval, i_aval)
    outer = GraphBuilder("outer")
    x, i = outer.new_input(x_aval), outer.new_input(i_aval)
    with building(outer):
        outer.bind(WHILE, [x, i], {"cond": cond, "body": body})
        cot = outer.new_input(x_aval, "cot")
    loop = outer.eqns[0]
    backprop(outer, [loop], loop.outputs[:1], [cot], [x._var])
    grad = next(e for e in outer.eqns if e.prim.name == "WhileGrad")
    return loop.attrs, grad.attrs


def _fused_elementwise_attrs(dtype: np.dtype) -> dict:
    """What the fusion pass makes of exp(x) * y + x for inputs of `dtype`."""
    a = Aval((3, 4), ms.float32 if dtype == np.float32 else ms.float64)
    g = fuse_elementwise(_graph("chain", lambda x, y: ops.add(ops.mul(ops.exp(x), y), x), a, a))
    (e,) = g.eqns
    return e.attrs


def _sgd(*shape: int) -> nn.Optimizer:
    return nn.SGD([ms.Parameter(ms.Tensor(f(*shape)), name="w")], learning_rate=0.1)


_CONV = {"conv": Conv2D.impl, "conv_attrs": tuple(sorted({"stride": (1, 1), "pad": (1, 1, 1, 1),
                                                          "dilation": (1, 1), "group": 1}.items()))}
_WHILE, _WHILE_GRAD = _while_parts()
_STATE = "writes state (an optimizer update); no gradient by design"
_FUSED = "made by a graph pass after differentiation; its gradient is the unfused ops'"
_GRAPH = "control flow is differentiated by the graph transform (compiler/grad.py), not a tape vjp"

SAMPLES = {
    "Assert": [Sample([np.array([True, True])], {"message": "x > 0", "where": "sample.py:1"}, grad=False,
                      why="checks a value; no gradient by design")],
    "OptimizerStep": [Sample([f(2, 3), f(2, 3)], {"optimizer": _sgd(2, 3)}, grad=False, why=_STATE)],
    "GuardedOptimizerStep": [
        Sample([np.array(True), f(3), f(3)], {"optimizer": _sgd(3)}, grad=False, why=_STATE),
        Sample([np.array(False), f(3), f(3)], {"optimizer": _sgd(3)}, grad=False, why=_STATE),
    ],
    "If": [
        Sample([np.array(flag)], {"then": _graph("then", lambda: ops.exp(ms.Tensor(f(2, 3)))),
                                  "else": _graph("else", lambda: ops.neg(ms.Tensor(f(2, 3))))},
               grad=False, why=_GRAPH, graph=True)
        for flag in (True, False)
    ],
    "While": [Sample([f(2), np.array(0, np.int32)], _WHILE, grad=False, why=_GRAPH, graph=True)],
    "WhileGrad": [Sample([f(2), np.array(0, np.int32), f(2)], _WHILE_GRAD, grad=False, why=_GRAPH, graph=True)],
    "FusedDense": [
        Sample([f32(4, 3), f32(5, 3), f32(5)], {"transpose_b": True, "relu": True, "matmul": MatMul.impl},
               grad=False, why=_FUSED),
        Sample([f(3, 4), f(3, 5), f(5)], {"transpose_a": True, "matmul": MatMul.impl}, grad=False, why=_FUSED),
    ],
    "FusedConvBN": [
        Sample([f32(2, 2, 5, 5), f32(3, 2, 3, 3), f32(3), f32(3), f32(3), np.abs(f32(3)) + 0.5],
               {"epsilon": 1e-5, **_CONV}, grad=False, why=_FUSED),
        Sample([f(1, 2, 4, 4), f(3, 2, 3, 3), f(3), f(3), f(3), f(3), np.abs(f(3)) + 0.5],
               {"has_bias": True, "relu": True, **_CONV}, grad=False, why=_FUSED),
    ],
    "FusedSparseSoftmaxCE": [
        Sample([np.array(1.0, np.float32), f32(4, 5), np.array([0, 4, 2, 1], np.int32)], {"reduction": "mean"},
               grad=False, why=_FUSED),
        Sample([f(4), f(4, 5), np.array([0, 4, -100, 1], np.int32), np.abs(f(5))], {"reduction": "none"},
               grad=False, why=_FUSED),
    ],
    "FusedReluGradBias": [Sample([f32(4, 3), f32(4, 3)], grad=False, why=_FUSED),
                          Sample([f(4, 3), f(4, 3)], grad=False, why=_FUSED)],
    "DenseBackward": [
        Sample([f32(4, 3), f32(4, 5), f32(3, 5), f32(4, 3)], {"has_w": True, "relu": True}, grad=False, why=_FUSED),
        Sample([f32(4, 3), f32(4, 5)], {"has_w": False, "relu": False}, grad=False, why=_FUSED),
        # O2: float16 gradients, the weight and bias gradients cast back to float32 inside
        Sample([f16(32, 64), f16(32, 96), f16(64, 96), f16(32, 64)], {"has_w": True, "relu": True,
                                                                      "wide": (True, True)}, grad=False, why=_FUSED),
    ],
    "FusedMaxPoolReLU": [Sample([f32(1, 2, 4, 5)], {"kernel_size": (2, 2), "strides": (2, 2)}, grad=False,
                                why=_FUSED)],
    "FusedElementwise": [Sample([f32(3, 4), f32(3, 4)], _fused_elementwise_attrs(np.float32), grad=False, why=_FUSED),
                         Sample([f(3, 4), f(3, 4)], _fused_elementwise_attrs(np.float64), grad=False, why=_FUSED)],
    "GradientRefused": [Sample([f(3, 2), f(6, 2)], {"op": "ReduceScatterV"}, grad=False,
                               why="refuses a gradient on purpose: the exchange it guards has none in Spore")],
}
