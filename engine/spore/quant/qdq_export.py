"""QDQ ONNX for int8 models: QuantizeLinear / DequantizeLinear around each Conv and Gemm, with int8
weight and int32 bias initializers — the form onnxruntime's `quantize_static` writes and runs as
QLinearConv / QGemm, and spore.lite runs on its int8 kernels.

Two ways in:
- `export_qdq(qnet, x, file_name=...)` (also `ms.export(qnet, x, file_format="ONNX")`) for a
  `QuantizedNet` from `quantize_static`: the network is compiled in Graph mode with its quantized
  cells in `float_view()` (dequantized weights), which gives the topology (each layer is the
  Conv/Gemm node reading its `weight` initializer); then each such node gets
  DQ(Q(x; x_scale, x_zp)) on its input, DQ(w_q; w_scale, axis 0) and DQ(b_q; x_scale * w_scale)
  as weight and bias, and Q/DQ(y_scale, y_zp) after its output (after the fused Relu). The numbers
  are the Cell's own, so onnxruntime, spore.lite and the Cell compute the same integer layers.
- `quantize_onnx(model, calibration_batches, method)` for a float ONNX file (`spore-convert
  --quant FULL_QUANT`): the same static PTQ done on the graph — Conv/Gemm nodes with constant
  weights, a Relu that is their only reader fused — with the activations observed by running the
  float graph in spore.lite with every layer's input and output exposed.

Layout written: activations uint8 (asymmetric, per tensor), weights int8 symmetric per output
channel (axis 0; a Gemm's B is stored (N, K) with transB=1), biases int32 with zero point 0. A
layer whose output is a graph output keeps a float32 output (no Q/DQ after it).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..common.atomic_write import atomic_write
from ..errors import SporeError
from .observers import make_observer
from .qmodules import bias_scale, quantize_bias, quantize_weight


def _spec(path: str, q: Any) -> dict[str, Any]:
    return {"path": path, "w_q": q.w_q, "w_scale": q.w_scale, "b_q": q.b_q, "b_scale": q.b_scale,
            "x_scale": q.x_scale, "x_zp": q.x_zp, "y_scale": q.y_scale, "y_zp": q.y_zp, "relu": q.relu}


def write_qdq(model: Any, specs: dict[str, dict[str, Any]]) -> Any:
    """Rewrite the float `model` in place: each Conv/Gemm whose weight initializer is a key of
    `specs` becomes its QDQ form (see the module docstring). Returns `model`."""
    from onnx import helper, numpy_helper

    g = model.graph
    inits = {t.name: t for t in g.initializer}
    consumers: dict[str, list[Any]] = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    graph_outputs = {o.name for o in g.output}
    new_inits: list[Any] = []
    new_nodes: dict[int, tuple[list[Any], list[Any]]] = {}  # id(node) -> (nodes before, nodes after)
    found: set[str] = set()
    nonneg: set[str] = set()  # dequantized outputs of fused-ReLU layers with zero point 0
    for n in g.node:
        if n.op_type not in ("Conv", "Gemm") or len(n.input) < 2 or n.input[1] not in specs:
            continue
        wname = n.input[1]
        s = specs[wname]
        p = s["path"]
        found.add(wname)
        before: list[Any] = []
        after: list[Any] = []
        c = len(s["w_scale"])

        def init(name: str, arr: np.ndarray) -> str:
            new_inits.append(numpy_helper.from_array(np.array(arr, copy=True, order="C"), name))
            return name

        xs = init(f"{p}.x_scale", np.array(s["x_scale"], np.float32))
        xz = init(f"{p}.x_zero_point", np.array(s["x_zp"], np.uint8))
        x_in = n.input[0]
        before.append(helper.make_node("QuantizeLinear", [x_in, xs, xz], [f"{p}.x_quantized"],
                                       name=f"{p}/QuantizeLinear"))
        before.append(helper.make_node("DequantizeLinear", [f"{p}.x_quantized", xs, xz], [f"{p}.x_dequantized"],
                                       name=f"{p}/DequantizeLinear"))
        wq = init(f"{p}.weight_quantized", s["w_q"].astype(np.int8))
        ws = init(f"{p}.weight_scale", np.asarray(s["w_scale"], np.float32).reshape(c))
        wz = init(f"{p}.weight_zero_point", np.zeros(c, np.int8))
        before.append(helper.make_node("DequantizeLinear", [wq, ws, wz], [f"{p}.weight_dequantized"], axis=0,
                                       name=f"{p}/DequantizeLinear_weight"))
        bq = init(f"{p}.bias_quantized", s["b_q"].astype(np.int32))
        bs = init(f"{p}.bias_scale", np.asarray(s["b_scale"], np.float32).reshape(c))
        bz = init(f"{p}.bias_zero_point", np.zeros(c, np.int32))
        before.append(helper.make_node("DequantizeLinear", [bq, bs, bz], [f"{p}.bias_dequantized"], axis=0,
                                       name=f"{p}/DequantizeLinear_bias"))
        old_bias = n.input[2] if len(n.input) > 2 else ""
        ins = [f"{p}.x_dequantized", f"{p}.weight_dequantized", f"{p}.bias_dequantized"]
        del n.input[:]
        n.input.extend(ins)
        if n.op_type == "Gemm":
            for a in list(n.attribute):
                if a.name == "transB":
                    n.attribute.remove(a)
            n.attribute.append(helper.make_attribute("transB", 1))
        tail = n
        if s["relu"]:
            # the fused Relu, possibly after the Reshapes a Dense on (..., K) inputs exports as
            readers = consumers.get(n.output[0], [])
            while (len(readers) == 1 and readers[0].op_type in ("Reshape", "Flatten", "Squeeze", "Unsqueeze")
                   and readers[0].output[0] not in graph_outputs):
                readers = consumers.get(readers[0].output[0], [])
            if len(readers) != 1 or readers[0].op_type != "Relu" or n.output[0] in graph_outputs:
                raise SporeError(f"QDQ export: layer {p!r} fuses a ReLU, but its output is not read by one Relu "
                                 "in the traced graph")
            tail = readers[0]
        if s["y_scale"] is not None:
            y = tail.output[0]
            if s["relu"] and int(s["y_zp"]) == 0:
                nonneg.add(y)
            pre = f"{p}.y_float"
            tail.output[0] = pre
            # the tail's readers keep reading `y`, which is now DQ's output: nothing to rewire
            ys = init(f"{p}.y_scale", np.array(s["y_scale"], np.float32))
            yz = init(f"{p}.y_zero_point", np.array(s["y_zp"], np.uint8))
            after.append(helper.make_node("QuantizeLinear", [pre, ys, yz], [f"{p}.y_quantized"],
                                          name=f"{p}/QuantizeLinear_output"))
            after.append(helper.make_node("DequantizeLinear", [f"{p}.y_quantized", ys, yz], [y],
                                          name=f"{p}/DequantizeLinear_output"))
        new_nodes[id(n)] = (before, [])
        if after:
            prev = new_nodes.get(id(tail), ([], []))
            new_nodes[id(tail)] = (prev[0], prev[1] + after)
        for old in (wname, old_bias):
            if old and old in inits and all(old not in m.input for m in g.node if m is not n):
                g.initializer.remove(inits.pop(old))
    missing = sorted(set(specs) - found)
    if missing:
        raise SporeError(f"QDQ export: no Conv/Gemm node reads the weight(s) {missing}; the layer was not traced "
                         "as one Conv/Gemm (is it called inside the network's construct?)")
    nodes = list(g.node)
    del g.node[:]
    for n in nodes:
        before, after = new_nodes.get(id(n), ([], []))
        g.node.extend(before + [n] + after)
    g.initializer.extend(new_inits)
    _drop_identity_relus(g, nonneg)
    return model


def _drop_identity_relus(g: Any, nonneg: set[str]) -> int:
    """Remove each Relu that reads a fused-ReLU layer's dequantized output (zero point 0, so never
    negative: the Relu is the identity there). The network's own ReLU cell after a fused layer
    exports as such a Relu; without it, DQ -> MaxPool/Reshape -> Q chains are pure integer
    pass-through for the runtimes (spore.lite, onnxruntime). Returns how many were removed."""
    outputs = {o.name for o in g.output}
    rename: dict[str, str] = {}
    keep = []
    for n in g.node:
        src = rename.get(n.input[0], n.input[0]) if n.input else ""
        if n.op_type == "Relu" and src in nonneg and n.output[0] not in outputs:
            rename[n.output[0]] = src
            continue
        for k, i in enumerate(n.input):
            if i in rename:
                n.input[k] = rename[i]
        keep.append(n)
    removed = len(g.node) - len(keep)
    del g.node[:]
    g.node.extend(keep)
    return removed


def to_qdq_model(qnet: Any, *inputs: Any, opset_version: int = 17, dynamic_axes: dict | None = None,
                 input_names: Any = None, output_names: Any = None) -> Any:
    """The checked QDQ `onnx.ModelProto` of a `QuantizedNet` compiled for `inputs`."""
    import onnx

    from ..onnx.exporter import to_model
    from .qmodules import float_view

    if not hasattr(qnet, "quant_cells"):
        raise SporeError(f"export_qdq: expected a QuantizedNet from spore.quant.quantize_static, got "
                         f"{type(qnet).__name__}")
    if opset_version < 13:
        raise SporeError(f"export_qdq: per-channel DequantizeLinear needs opset >= 13, got {opset_version}")
    with float_view():
        model = to_model(qnet.network, *inputs, opset_version=opset_version, dynamic_axes=dynamic_axes,
                         input_names=input_names, output_names=output_names)
    specs = {c.weight.name: _spec(p, c) for p, c in qnet.quant_cells().items()}
    write_qdq(model, specs)
    model.producer_name = "spore.quant"
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as err:
        raise SporeError(f"export_qdq: the QDQ model does not pass onnx.checker: {err}") from err
    return model


def save_model(model: Any, file_name: str) -> str:
    """Write an ONNX model atomically (temporary file in the same folder, then rename); adds .onnx."""
    path = os.fspath(file_name)
    if not path.endswith(".onnx"):
        path += ".onnx"
    with atomic_write(path, prefix=".spore-qdq-") as f:
        f.write(model.SerializeToString())
    return path


def export_qdq(qnet: Any, *inputs: Any, file_name: str, opset_version: int = 17,
               dynamic_axes: dict | None = None, input_names: Any = None, output_names: Any = None) -> str:
    """Write a `QuantizedNet` as QDQ ONNX to `file_name` (".onnx" added); returns the path."""
    model = to_qdq_model(qnet, *inputs, opset_version=opset_version, dynamic_axes=dynamic_axes,
                         input_names=input_names, output_names=output_names)
    return save_model(model, file_name)


# --- static PTQ of a float ONNX graph ------------------------------------------------------------------

def _attr(node: Any, name: str, default: Any) -> Any:
    from onnx import helper

    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def _rebatch(batches: list[tuple[np.ndarray, ...]], graph_inputs: list[Any]) -> list[tuple[np.ndarray, ...]]:
    """Split batches into the model's fixed batch size when every input declares the same one."""
    fixed = {d.dim_value for i in graph_inputs for d in i.type.tensor_type.shape.dim[:1]}
    if len(fixed) != 1 or 0 in fixed:
        return list(batches)
    b = fixed.pop()
    out: list[tuple[np.ndarray, ...]] = []
    for bt in batches:
        n = {np.shape(a)[0] if np.ndim(a) else -1 for a in bt}
        if len(n) == 1 and (m := n.pop()) > b and m % b == 0:
            out += [tuple(np.asarray(a)[i:i + b] for a in bt) for i in range(0, m, b)]
        else:
            out.append(bt)
    return out


def quantize_onnx(model: Any, calibration_batches: list[tuple[np.ndarray, ...]], method: str = "minmax",
                  per_channel: bool = True, skip_quant_node: Any = ()) -> Any:
    """Static PTQ of a float ONNX `model` (a ModelProto, or a path): returns the QDQ ModelProto.

    Each batch is a tuple of the graph's inputs in order. Conv (any group) and Gemm (transA 0,
    alpha = beta = 1) with initializer weights are quantized; other nodes stay float32."""
    import onnx
    from onnx import helper, numpy_helper

    from .ptq import weight_scale

    if isinstance(model, (str, os.PathLike)):
        model = onnx.load(os.fspath(model))
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    consumers: dict[str, list[Any]] = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    graph_inputs = [i for i in g.input if i.name not in inits]
    graph_outputs = {o.name for o in g.output}
    skip = set(skip_quant_node)
    layers: list[dict[str, Any]] = []
    for k, n in enumerate(g.node):
        if n.op_type not in ("Conv", "Gemm") or len(n.input) < 2 or n.input[1] not in inits:
            continue
        name = n.name or f"{n.op_type}_{k}"
        if name in skip:
            continue
        if len(n.input) > 2 and n.input[2] and n.input[2] not in inits:
            continue
        w = numpy_helper.to_array(inits[n.input[1]]).astype(np.float32)
        if n.op_type == "Gemm":
            if _attr(n, "transA", 0) or _attr(n, "alpha", 1.0) != 1.0 or _attr(n, "beta", 1.0) != 1.0 or w.ndim != 2:
                continue
            if not _attr(n, "transB", 0):
                w = np.ascontiguousarray(w.T)  # stored (N, K) with transB=1 in the QDQ file
        elif w.ndim != 4:
            continue
        b = numpy_helper.to_array(inits[n.input[2]]).astype(np.float32) if len(n.input) > 2 and n.input[2] else None
        readers = consumers.get(n.output[0], [])
        relu = len(readers) == 1 and readers[0].op_type == "Relu" and n.output[0] not in graph_outputs
        tail = readers[0].output[0] if relu else n.output[0]
        layers.append({"node": n, "path": name.replace("/", "."), "w": w, "b": b, "relu": relu,
                       "x": n.input[0], "y": tail, "float_out": tail in graph_outputs})
    if not layers:
        raise SporeError("quantize_onnx: the model has no Conv/Gemm with constant weights to quantize")
    calibration_batches = _rebatch(calibration_batches, graph_inputs)
    for bt in calibration_batches:
        if len(bt) != len(graph_inputs):
            raise SporeError(f"quantize_onnx: each calibration batch needs {len(graph_inputs)} input(s) "
                             f"({[i.name for i in graph_inputs]}), got {len(bt)}")
    obs_x = [make_observer(method) for _ in layers]
    obs_y = [make_observer(method) for _ in layers]
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    want = []
    for L in layers:
        want += [L["x"], L["y"]]
    have = {o.name for o in probe.graph.output}
    for name in dict.fromkeys(want):
        if name not in have:
            probe.graph.output.append(helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
    out_names = [o.name for o in probe.graph.output]
    from .. import lite

    runner = lite.Model()
    try:
        runner.build_from_bytes(probe.SerializeToString())
    except Exception as err:
        raise SporeError(f"quantize_onnx: spore.lite cannot run the float model ({err})") from err
    for bt in calibration_batches:
        try:
            outs = runner.predict([np.ascontiguousarray(a, np.float32) for a in bt])
        except Exception as err:
            shapes = [tuple(np.shape(a)) for a in bt]
            expect = [[d.dim_value or d.dim_param for d in i.type.tensor_type.shape.dim] for i in graph_inputs]
            raise SporeError(f"quantize_onnx: the calibration batch of shape(s) {shapes} does not fit the model's "
                             f"input(s) {expect}: {err}") from err
        vals = {nm: o.get_data_to_numpy() for nm, o in zip(out_names, outs)}
        for L, ox, oy in zip(layers, obs_x, obs_y):
            ox.update(vals[L["x"]])
            oy.update(vals[L["y"]])
    specs: dict[str, dict[str, Any]] = {}
    for L, ox, oy in zip(layers, obs_x, obs_y):
        ws = weight_scale(L["w"], per_channel)
        xs, xz = ox.qparams("uint8", symmetric=False)
        ys, yz = (None, 0) if L["float_out"] else oy.qparams("uint8", symmetric=False)
        n = L["node"]
        if n.op_type == "Gemm" and not _attr(n, "transB", 0):  # the initializer becomes (N, K)
            inits[n.input[1]].CopyFrom(numpy_helper.from_array(L["w"], n.input[1]))
        specs[n.input[1]] = {"path": L["path"], "w_q": quantize_weight(L["w"], ws), "w_scale": ws,
                             "b_q": quantize_bias(L["b"], float(xs), ws), "b_scale": bias_scale(float(xs), ws),
                             "x_scale": float(xs), "x_zp": int(xz), "y_scale": None if ys is None else float(ys),
                             "y_zp": int(yz), "relu": L["relu"]}
    write_qdq(model, specs)
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as err:
        raise SporeError(f"quantize_onnx: the QDQ model does not pass onnx.checker: {err}") from err
    return model
