"""Import: an ONNX model as a Spore Cell (`load`) that runs in PyNative and Graph mode and trains.

The file is read defensively (`safety`), then `OnnxCell` keeps the checked graph: its float
initializers become trainable Parameters named as in the file, everything else (integer shapes,
axes) stays a constant. `construct` interprets the nodes in order; each ONNX op type maps to a
Spore primitive (the `imports` of an op's `OnnxMap`) or to a short composition (`import_ops`), so
the Cell's gradients are Spore's own. Values known at load or trace time (shapes, constant
sub-expressions) are computed with NumPy, as PyTorch's exporter expects of a runtime.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import OnnxError
from ..nn import Cell
from ..tensor import Parameter, Tensor


def import_table() -> dict[str, Any]:
    """ONNX op type -> importer ``f(ic, inputs, attrs)``: the registry's declared `imports` first,
    then the compositions of `import_ops`. This is the one list of what import supports."""
    from ..ops.primitive import REGISTRY
    from . import import_ops
    from .mappings import resolve

    table: dict[str, Any] = {}
    for prim in REGISTRY.values():
        spec = prim.onnx
        if spec is None:
            continue
        for op_type in spec.imports:
            if spec.importer is not None:
                table[op_type] = resolve(spec.importer)
            else:
                table[op_type] = _direct(prim, resolve(spec.from_onnx) if spec.from_onnx else None)
    table.update(import_ops.TABLE)
    return table


def _direct(prim: Any, from_onnx: Any) -> Any:
    def imp(ic: ImportCtx, ins: list, attrs: dict) -> Any:
        kw = from_onnx(attrs, ic) if from_onnx else {}
        return prim(*[ic.t(x) for x in ins if x is not None], **kw)

    return imp


class ImportCtx:
    """What an importer sees: the model's opset, the node being run, and helpers."""

    def __init__(self, opset: int) -> None:
        self.opset = opset
        self.node: Any = None

    def t(self, x: Any) -> Tensor:
        """A value as a Tensor (static NumPy values become constants)."""
        if isinstance(x, Tensor):
            return x
        return Tensor(np.asarray(x))

    def static(self, x: Any, what: str) -> np.ndarray:
        """A value that must be known without running the graph (a shape, axes, pads)."""
        if isinstance(x, Tensor) and not isinstance(x, Parameter):
            try:
                return x.asnumpy()
            except Exception:  # a traced value inside Graph mode
                pass
        if isinstance(x, np.ndarray | np.generic):
            return np.asarray(x)
        raise OnnxError(f"{self.node.op_type}: {what} must be a constant, but here it is computed by the graph",
                        op=self.node.op_type, node=self.node.name)

    def prim(self, name: str) -> Any:
        from ..ops.primitive import REGISTRY

        return REGISTRY[name]


# inputs of these ops that must be known at load time even when float (so never Parameters)
_ARGUMENT_INPUTS = {"Resize": (1, 2), "Upsample": (1,)}


class OnnxCell(Cell):
    """An ONNX graph as a Cell: call it with the graph's inputs (Tensors), get its outputs."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        from onnx import numpy_helper

        graph = model.graph
        opsets = {o.domain: o.version for o in model.opset_import}
        self.opset = int(opsets.get("", opsets.get("ai.onnx", 0)))
        table = import_table()
        missing = sorted({n.op_type for n in _all_nodes(graph)} - set(table))
        if missing:
            raise OnnxError(f"Spore cannot import ONNX op(s) {', '.join(missing)}", op=missing[0],
                            hint="spore.onnx.import_table() lists the ONNX ops Spore imports")
        self._graph = graph
        self._table = table
        self._consts: dict[str, Any] = {}
        self._param_of: dict[str, Parameter] = {}
        # BatchNormalization's running mean/var are statistics (buffers in PyTorch), not weights:
        # Parameters, but not trainable, so fine-tuning's optimizer leaves them alone.
        stats = {n.input[i] for n in _all_nodes(graph) if n.op_type == "BatchNormalization"
                 for i in (3, 4) if len(n.input) > i}
        used_elsewhere = {x for n in _all_nodes(graph) for i, x in enumerate(n.input)
                          if not (n.op_type == "BatchNormalization" and i in (3, 4))
                          and i not in _ARGUMENT_INPUTS.get(n.op_type, ())}
        # float inputs that are really arguments (Resize's roi and scales): constants, not weights
        args = {n.input[i] for n in _all_nodes(graph) for i in _ARGUMENT_INPUTS.get(n.op_type, ())
                if len(n.input) > i}
        for t in graph.initializer:
            arr = numpy_helper.to_array(t)
            if arr.dtype.kind == "f" and arr.ndim > 0 and not (t.name in args and t.name not in used_elsewhere):
                p = Parameter(Tensor(np.array(arr)), name=t.name,
                              requires_grad=not (t.name in stats and t.name not in used_elsewhere))
                self.insert_param_to_cell(t.name, p, check_name_contain_dot=False)
                self._param_of[t.name] = p
            else:
                self._consts[t.name] = arr
        inits = {t.name for t in graph.initializer}
        self.input_names = [i.name for i in graph.input if i.name not in inits]
        self.output_names = [o.name for o in graph.output]

    def construct(self, *inputs: Any) -> Any:
        if len(inputs) != len(self.input_names):
            raise OnnxError(f"the ONNX graph takes {len(self.input_names)} inputs {self.input_names}, "
                            f"got {len(inputs)}")
        env: dict[str, Any] = dict(self._consts)
        env.update({n: self.__dict__["_params"][n] for n in self._param_of})
        env.update(zip(self.input_names, inputs))
        outs = run_graph(self._graph, env, ImportCtx(self.opset), self._table)
        return outs[0] if len(outs) == 1 else tuple(outs)


def run_graph(graph: Any, env: dict[str, Any], ic: ImportCtx, table: dict[str, Any]) -> list[Any]:
    """Run `graph`'s nodes over `env` (name -> Tensor or NumPy constant); returns its outputs."""
    from . import import_ops

    for node in graph.node:
        ic.node = node
        ins = [env[n] if n else None for n in node.input]
        attrs = import_ops.attributes(node)
        static = import_ops.STATIC.get(node.op_type)
        out = None
        if static is not None and all(x is None or isinstance(x, np.ndarray | np.generic) for x in ins):
            out = static(ic, ins, attrs)
        if out is None:
            try:
                out = table[node.op_type](ic, ins, attrs, *(() if node.op_type not in import_ops.NEEDS_RUN
                                                             else (env, table)))
            except OnnxError:
                raise
            except Exception as err:
                raise OnnxError(f"{node.op_type} node {node.name or '?'}: {type(err).__name__}: {err}",
                                op=node.op_type, node=node.name) from err
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        for name, v in zip(node.output, outs):
            if name:
                env[name] = v
    return [env[o.name] for o in graph.output]


def _all_nodes(graph: Any) -> list[Any]:
    from onnx import AttributeProto

    out = []
    for n in graph.node:
        out.append(n)
        for a in n.attribute:
            if a.type == AttributeProto.GRAPH:
                out += _all_nodes(a.g)
            elif a.type == AttributeProto.GRAPHS:
                for g in a.graphs:
                    out += _all_nodes(g)
    return out


def load(path_or_bytes: Any) -> OnnxCell:
    """Read an ONNX model (a path or its bytes) and return it as a Cell.

    Broken or hostile files raise `OnnxError` before anything is allocated (see `safety`); an op
    Spore cannot import is named. The Cell's float initializers are trainable Parameters (except
    BatchNormalization's running mean and variance, which are Parameters with requires_grad=False).
    """
    from .safety import parse_model, read_bytes

    data, folder = read_bytes(path_or_bytes)
    model = parse_model(data, folder)
    try:
        return OnnxCell(model)
    except OnnxError:
        raise
    except Exception as err:  # a field no check above foresaw: still the file's fault, said as such
        raise OnnxError(f"malformed ONNX model: {type(err).__name__}: {err}") from err
