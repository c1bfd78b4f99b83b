"""Export: a Cell's compiled Graph-mode IR as an ONNX model (`export`, `to_model`).

The exporter walks the graph as traced (before the fusion passes, so every equation is a registered
primitive whose `onnx` field says how it maps), plus two folds that give the ONNX a runtime expects:
MatMul + bias Add -> Gemm, and Conv2D + eval BatchNorm -> one Conv with folded weights. Control flow
keeps its structure: `If` becomes ONNX `If` with two sub-graphs, `While` becomes `Loop`. Parameters
are initializers named as in Spore (`fc1.weight`), node names carry the Cell scope
(`features.conv1/Conv`), and each node's `doc_string` is the user's source line.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..common.atomic_write import atomic_write
from ..errors import OnnxError
from .context import ExportCtx

MIN_OPSET, MAX_OPSET = 13, 21


def _compile(net: Any, inputs: tuple) -> Any:
    from ..common.tree import flatten
    from ..compiler.jit import JitFunction, compile_cell
    from ..errors import GraphCompileError, raise_at_user_line
    from ..nn import Cell

    jf = compile_cell(net, fullgraph=True) if isinstance(net, Cell) else (
        net if isinstance(net, JitFunction) else JitFunction(net, fullgraph=True))
    leaves, _ = flatten((inputs, {}))
    try:
        return jf.compile(inputs, {}, leaves).raw
    except GraphCompileError as err:
        raise_at_user_line(err)
        raise


def to_model(net: Any, *inputs: Any, opset_version: int = 17, dynamic_axes: dict | None = None,
             input_names: Sequence[str] | None = None, output_names: Sequence[str] | None = None) -> Any:
    """The `onnx.ModelProto` of `net` compiled for `inputs` (what `export` writes).

    A quantized network (`spore.quant.quantize_static`'s QuantizedNet) writes itself as QDQ ONNX."""
    import onnx
    from onnx import helper

    qdq = getattr(net, "_to_qdq_model", None)
    if callable(qdq):
        return qdq(*inputs, opset_version=opset_version, dynamic_axes=dynamic_axes, input_names=input_names,
                   output_names=output_names)

    if not isinstance(opset_version, int) or not MIN_OPSET <= opset_version <= MAX_OPSET:
        raise OnnxError(f"opset_version must be an int in {MIN_OPSET}..{MAX_OPSET}, got {opset_version!r}",
                        hint="opset 17 is the default; see spore.onnx's README section for per-op needs")
    from ..tensor import Tensor

    for i, x in enumerate(inputs):
        if not isinstance(x, Tensor):
            raise OnnxError(f"export input {i} must be a Tensor, got {type(x).__name__}")
    graph = _compile(net, tuple(inputs))
    ctx = ExportCtx(opset_version)
    in_names = list(input_names or [])
    if len(in_names) > len(graph.inputs):
        raise OnnxError(f"input_names has {len(in_names)} names for {len(graph.inputs)} inputs")
    in_names += [f"input_{i}" if i else "x" for i in range(len(in_names), len(graph.inputs))]
    for v, n in zip(graph.inputs, in_names):
        ctx.bind(v, n)
    for p in graph.params:
        ctx.param(p.var, p.param)
    ctx.emit_graph(graph)
    outs = [ctx.name_of(a) for a in graph.outputs]
    out_names = list(output_names or [])
    if len(out_names) > len(outs):
        raise OnnxError(f"output_names has {len(out_names)} names for {len(outs)} outputs")
    out_names += [f"output_{i}" if i else "y" for i in range(len(out_names), len(outs))]
    for src, dst in zip(outs, out_names):
        ctx.nodes.append(helper.make_node("Identity", [src], [dst], name=f"{dst}/Identity"))
    dyn = _check_dynamic_axes(dynamic_axes, in_names, out_names)
    g_in = [_value_info(n, v.aval, dyn.get(n)) for n, v in zip(in_names, graph.inputs)]
    g_out = [_value_info(n, a.aval, dyn.get(n), unknown=bool(dyn) and n not in dyn)
             for n, a in zip(out_names, graph.outputs)]
    g = helper.make_graph(ctx.nodes, type(net).__name__, g_in, g_out, initializer=ctx.initializers)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset_version)],
                              producer_name="spore", producer_version=_version())
    model.ir_version = min(model.ir_version, 10)  # onnxruntime 1.31 reads IR <= 10
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as err:  # a mapping bug: say so instead of writing a model nothing can run
        raise OnnxError(f"the exported model does not pass onnx.checker: {err}") from err
    return model


def export(net: Any, *inputs: Any, file_name: str, opset_version: int = 17, dynamic_axes: dict | None = None,
           input_names: Sequence[str] | None = None, output_names: Sequence[str] | None = None) -> str:
    """Compile `net` for `inputs` and write it to `file_name` as ONNX (".onnx" added when missing).

    The write is atomic (a temporary file in the same folder, then a rename): a failed export never
    leaves a half-written model behind. Returns the path written.
    """
    model = to_model(net, *inputs, opset_version=opset_version, dynamic_axes=dynamic_axes,
                     input_names=input_names, output_names=output_names)
    path = os.fspath(file_name)
    if not path.endswith(".onnx"):
        path += ".onnx"
    with atomic_write(path, prefix=".spore-export-") as f:
        f.write(model.SerializeToString())
    return path


def _check_dynamic_axes(dynamic_axes: dict | None, in_names: list[str], out_names: list[str]) -> dict:
    if not dynamic_axes:
        return {}
    if not isinstance(dynamic_axes, dict):
        raise OnnxError(f"dynamic_axes must be a dict like {{'x': {{0: 'batch'}}}}, got {type(dynamic_axes).__name__}")
    known = set(in_names) | set(out_names)
    out: dict[str, dict[int, str]] = {}
    for name, axes in dynamic_axes.items():
        if name not in known:
            raise OnnxError(f"dynamic_axes names {name!r}, which is no input or output (have {sorted(known)})")
        if isinstance(axes, (list, tuple)):
            axes = {int(a): f"{name}_dim{a}" for a in axes}
        out[name] = {int(k): str(v) for k, v in axes.items()}
    return out


def _value_info(name: str, aval: Any, dyn: dict[int, str] | None, unknown: bool = False) -> Any:
    from onnx import helper

    elem = helper.np_dtype_to_tensor_dtype(np.dtype(aval.dtype.np))
    if unknown:
        return helper.make_tensor_value_info(name, elem, [None] * len(aval.shape))
    shape: list[Any] = list(aval.shape)
    for axis, label in (dyn or {}).items():
        if not -len(shape) <= axis < len(shape):
            raise OnnxError(f"dynamic_axes: {name} has {len(shape)} dims, no axis {axis}")
        shape[axis] = label
    return helper.make_tensor_value_info(name, elem, shape)


def _version() -> str:
    from .. import __version__

    return __version__
