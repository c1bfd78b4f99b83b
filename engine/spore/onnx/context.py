"""`ExportCtx`: the state of one export — value names, nodes, initializers — and the graph walk.

An op's `OnnxMap.export` function receives this context, its input names and its attributes, and
adds nodes with `ctx.node(...)`; constants go in with `ctx.const(...)`. `emit_graph` walks the IR,
applying the folds (MatMul+Add -> Gemm, Conv2D+BatchNorm -> Conv) and control flow (If, Loop).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ..errors import OnnxError


class ExportCtx:
    """Names, nodes and initializers of the model being written."""

    def __init__(self, opset: int) -> None:
        self.opset = opset
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self._init_names: set[str] = set()
        self._names: dict[int, str] = {}
        self._ids = itertools.count()
        self._node_names: set[str] = set()
        self._params: dict[int, Any] = {}
        self._no_output: dict[int, Any] = {}  # Var id -> the equation whose output ONNX lacks
        self.eqn: Any = None  # the equation being exported (scope and source line for node names)

    # -- names ---------------------------------------------------------------------------------
    def fresh(self, hint: str = "t") -> str:
        return f"{hint}_{next(self._ids)}"

    def bind(self, var: Any, name: str) -> str:
        self._names[var.id] = name
        return name

    def name_of(self, atom: Any) -> str:
        from ..compiler.ir import Const

        if isinstance(atom, Const):
            return self.const(np.asarray(atom.value, dtype=atom.aval.dtype.np))
        name = self._names.get(atom.id)
        if name is None and atom.id in self._params:
            p = self._params.pop(atom.id)
            name = self.bind(atom, self.initializer(p.name, np.asarray(p.asnumpy())))
        if name is None:
            raise OnnxError(f"internal: value {atom!r} is used before it is defined")
        if not name:
            e = self._no_output.get(atom.id)
            raise _no_mapping(e, f"{e.prim.name}'s output {e.outputs.index(atom)} has no ONNX equivalent")
        return name

    def input_names(self, e: Any) -> list[str]:
        """Names of an equation's inputs; a Python-scalar constant takes the dtype of the tensor
        operand beside it (Spore's weak typing for `x * 0.5`)."""
        from ..compiler.ir import Const

        like = next((a.aval.dtype.np for a in e.inputs if not isinstance(a, Const)), None)
        out = []
        for a in e.inputs:
            if isinstance(a, Const) and like is not None and not isinstance(a.value, np.ndarray) \
                    and isinstance(a.value, (int, float, bool, np.generic)) and np.ndim(a.value) == 0:
                out.append(self.const(np.asarray(a.value, dtype=like)))
            else:
                out.append(self.name_of(a))
        return out

    def param(self, var: Any, param: Any) -> None:
        """A Parameter, written as an initializer named as in Spore the first time it is read (a
        Parameter only a fold reads, like a BatchNorm's statistics, is not written at all)."""
        self._params[var.id] = param

    def initializer(self, name: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        base, k = name, 1
        while name in self._init_names:
            name, k = f"{base}_{k}", k + 1
        self._init_names.add(name)
        self.initializers.append(numpy_helper.from_array(np.array(value, order="C"), name))
        return name

    def const(self, value: Any, dtype: Any = None) -> str:
        """A constant input (an initializer; sub-graphs read it from the outer scope)."""
        arr = np.asarray(value, dtype=dtype)
        return self.initializer(self.fresh("const"), arr)

    def ints(self, values: Any) -> str:
        return self.const(np.asarray(list(values), dtype=np.int64))

    # -- nodes ---------------------------------------------------------------------------------
    def node(self, op_type: str, inputs: list[str], n_out: int = 1, outputs: list[str] | None = None,
             **attrs: Any) -> list[str]:
        from onnx import helper

        outs = outputs or [self.fresh(op_type.lower()) for _ in range(n_out)]
        scope, doc = _where(self.eqn)
        name = f"{scope}/{op_type}" if scope else op_type
        base, k = name, 1
        while name in self._node_names:
            name, k = f"{base}_{k}", k + 1
        self._node_names.add(name)
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=name, doc_string=doc,
                                           **{k: v for k, v in attrs.items() if v is not None}))
        return outs

    # -- the walk ------------------------------------------------------------------------------
    def emit_graph(self, graph: Any) -> None:
        from .folds import plan_folds

        folds, skip = plan_folds(graph)
        for e in graph.eqns:
            if id(e) in skip:
                continue
            self.eqn = e
            if id(e) in folds:
                outs = folds[id(e)](self, e)
            elif e.prim.name == "If":
                outs = _emit_if(self, e)
            elif e.prim.name == "While":
                outs = _emit_while(self, e)
            else:
                outs = _emit_op(self, e)
            for v, n in zip(e.outputs, outs):
                self.bind(v, n)
                if not n:
                    self._no_output[v.id] = e
        self.eqn = None

    def subgraph(self, graph: Any, name: str, inputs: list[tuple[Any, str]] = ()) -> Any:
        """An ONNX GraphProto for a control-flow sub-graph, whose free values come from the outer scope."""
        from onnx import helper

        saved, self.nodes = self.nodes, []
        for var, n in inputs:
            self.bind(var, n)
        self.emit_graph(graph)
        outs = []
        for a in graph.outputs:  # each output gets its own name (a sub-graph may return an outer value)
            outs.append(self.node("Identity", [self.name_of(a)])[0])
        nodes, self.nodes = self.nodes, saved
        g_in = [helper.make_tensor_value_info(n, _elem(v.aval), list(v.aval.shape)) for v, n in inputs]
        g_out = [helper.make_tensor_value_info(o, _elem(a.aval), list(a.aval.shape))
                 for o, a in zip(outs, graph.outputs)]
        return helper.make_graph(nodes, name, g_in, g_out)


def _where(eqn: Any) -> tuple[str, str]:
    if eqn is None:
        return "", ""
    scope = eqn.scope.split(".", 1)[1] if "." in eqn.scope else ""
    loc = eqn.loc
    doc = f"{loc.file}:{loc.line}: {loc.text.strip()}" if loc is not None else ""
    return scope, doc


def _elem(aval: Any) -> int:
    from onnx import helper

    return helper.np_dtype_to_tensor_dtype(np.dtype(aval.dtype.np))


def _emit_op(ctx: ExportCtx, e: Any) -> list[str]:
    spec = e.prim.onnx
    if any(getattr(getattr(getattr(v, "aval", None), "dtype", None), "is_complex", False)
           for v in (*e.inputs, *e.outputs)):  # ONNX's operators take no complex tensors
        raise _no_mapping(e, f"{e.prim.name} on a complex tensor (ONNX has no complex arithmetic)")
    if spec is None or (spec.export is None and spec.op_type is None):
        raise _no_mapping(e, f"{e.prim.name} has no ONNX mapping")
    if spec.since > ctx.opset:
        raise _no_mapping(e, f"{e.prim.name} needs opset >= {spec.since} for ONNX, export asked for {ctx.opset}")
    ins = ctx.input_names(e)
    if spec.export is not None:
        from .mappings import resolve

        outs = resolve(spec.export)(ctx, ins, e.attrs)
    else:
        from .mappings import resolve

        attrs = resolve(spec.to_onnx)(e.attrs, ctx) if spec.to_onnx else {}
        outs = ctx.node(spec.op_type, ins, **attrs)
    return list(outs) + [""] * (len(e.outputs) - len(outs))  # outputs ONNX lacks: refused if read


def _no_mapping(e: Any, reason: str) -> OnnxError:
    scope = e.scope or "?"
    where = f"{e.loc.file}:{e.loc.line}" if e.loc else "unknown line"
    text = e.loc.text.strip() if e.loc else ""
    return OnnxError(f"cannot export to ONNX: {reason} (in {scope}, at {where}: {text})", op=e.prim.name,
                     node=scope, loc=e.loc, hint="export in opset 13..21 supports the ops listed by "
                     "spore.ide.op_catalogue() with an 'onnx' mapping; rewrite this line with those")


def _emit_if(ctx: ExportCtx, e: Any) -> list[str]:
    cond = ctx.name_of(e.inputs[0])
    then_g = ctx.subgraph(e.attrs["then"], "then")
    else_g = ctx.subgraph(e.attrs["else"], "else")
    return ctx.node("If", [cond], n_out=len(e.outputs), then_branch=then_g, else_branch=else_g)


def _emit_while(ctx: ExportCtx, e: Any) -> list[str]:
    """`While(carried; cond, body)` as `Loop(M="", cond0, carried)`: the body computes the next
    values and then the condition on them (ONNX checks the condition before each iteration)."""
    from ..compiler.ir import Graph

    cond_g: Graph = e.attrs["cond"]
    body_g: Graph = e.attrs["body"]
    init = [ctx.name_of(a) for a in e.inputs]
    for v, n in zip(cond_g.inputs, init):
        ctx.bind(v, n)
    ctx.emit_graph(cond_g)
    cond0 = ctx.name_of(cond_g.outputs[0])
    # the body: (iter, cond_in, *carried) -> (cond_out, *next)
    saved = ctx.nodes
    ctx.nodes = []
    it, cin = ctx.fresh("iter"), ctx.fresh("cond_in")
    from onnx import TensorProto, helper

    carried = [ctx.fresh("carried") for _ in body_g.inputs]
    for v, n in zip(body_g.inputs, carried):
        ctx.bind(v, n)
    ctx.emit_graph(body_g)
    nxt = [ctx.name_of(a) for a in body_g.outputs]
    for v, n in zip(cond_g.inputs, nxt):
        ctx.bind(v, n)
    ctx.emit_graph(cond_g)
    cond_out = ctx.node("Identity", [ctx.name_of(cond_g.outputs[0])])[0]
    outs = [ctx.node("Identity", [n])[0] for n in nxt]
    nodes, ctx.nodes = ctx.nodes, saved
    g_in = [helper.make_tensor_value_info(it, TensorProto.INT64, []),
            helper.make_tensor_value_info(cin, TensorProto.BOOL, [])]
    g_in += [helper.make_tensor_value_info(n, _elem(v.aval), list(v.aval.shape))
             for v, n in zip(body_g.inputs, carried)]
    g_out = [helper.make_tensor_value_info(cond_out, TensorProto.BOOL, [])]
    g_out += [helper.make_tensor_value_info(o, _elem(a.aval), list(a.aval.shape)) for o, a in zip(outs, body_g.outputs)]
    body = helper.make_graph(nodes, "body", g_in, g_out)
    return ctx.node("Loop", ["", cond0, *init], n_out=len(e.outputs), body=body)
