"""spore.lite: inference-only runtime echoing MindSpore Lite's Python API (`mindspore_lite`).

    from spore import lite as mslite
    context = mslite.Context()
    context.cpu.thread_num = 1
    model = mslite.Model()
    model.build_from_file("net.onnx", mslite.ModelType.ONNX, context)
    outputs = model.predict(model.get_inputs())          # or predict([numpy arrays])

Why a separate runtime: a serving process wants a small import and no training state. Importing
`spore.lite` loads NumPy and the C++ kernels module (`spore._kernels`) only; the ONNX protobuf
schema is loaded (without `import onnx`, see _proto.py) when a model is built; the training stack
(spore.nn, autodiff, optimizers, dataset, compiler) is never imported (tests/lite check
`sys.modules` in a fresh process). The graph is interpreted by a small ONNX interpreter
(spore/lite/_graph.py) with no tape: for each input shape the first predict runs once to learn the
shapes, then a liveness analysis places every intermediate in ONE arena
(buffers whose lifetimes do not overlap share bytes), allocated once; later predicts with that
shape write into the arena and allocate nothing but the returned outputs.

QDQ int8 models (e.g. from onnxruntime.quantization.quantize_static) run Conv/Gemm/MatMul through
int8 kernels: DQ(x)/DQ(W) are folded away and the integer product is accumulated exactly (int32
semantics, see `_ops.int_matmul_exact`), then rescaled once.

Differences from MindSpore Lite (documented): `ModelType.ONNX` is added (MindSpore Lite builds
only MindIR; it converts ONNX offline with converter_lite) and `ModelType.MINDIR`/`MINDIR_LITE`
are refused with a message pointing to ONNX; `Model.build_from_checkpoint(ckpt, network, *inputs)`
is a Spore addition (it imports the engine to trace the network once, then serves in lite).
"""

from __future__ import annotations

import enum
import os
from typing import Any

import numpy as np

from .. import _kernels
from ._graph import Graph, LiteError, Plan, from_onnx, fuse_gemm_relu, fuse_qdq, make_plan

__all__ = ["Context", "CPUDeviceInfo", "DataType", "LiteError", "Model", "ModelType", "Tensor"]

_MAX_FILE_BYTES = 2 ** 31


class ModelType(enum.Enum):
    """Model file formats. MINDIR/MINDIR_LITE keep MindSpore Lite's values (and are refused)."""

    MINDIR = 0
    MINDIR_LITE = 4
    ONNX = 100


class DataType(enum.Enum):
    """Tensor element types (MindSpore Lite's names)."""

    BOOL = "bool"
    INT8 = "int8"
    UINT8 = "uint8"
    INT32 = "int32"
    INT64 = "int64"
    FLOAT16 = "float16"
    FLOAT32 = "float32"
    FLOAT64 = "float64"


class CPUDeviceInfo:
    """CPU options: `thread_num` (0: keep the process's current OpenMP team size)."""

    def __init__(self, thread_num: int = 0) -> None:
        self.thread_num = thread_num

    @property
    def thread_num(self) -> int:
        return self._thread_num

    @thread_num.setter
    def thread_num(self, n: int) -> None:
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise LiteError(f"Context.cpu.thread_num must be an int >= 0, got {n!r}")
        self._thread_num = n


class Context:
    """Run options, as `mindspore_lite.Context`: `target` (only "cpu") and `cpu.thread_num`."""

    def __init__(self) -> None:
        self.target = ["cpu"]
        self.cpu = CPUDeviceInfo()

    def __repr__(self) -> str:
        return f"Context(target={self.target}, cpu.thread_num={self.cpu.thread_num})"


class Tensor:
    """A named model input/output (`mindspore_lite.Tensor`): shape, dtype, NumPy data."""

    def __init__(self, data: np.ndarray | None = None, name: str = "", shape: list | None = None,
                 dtype: np.dtype | None = None) -> None:
        self.name = name
        self._data = None if data is None else np.asarray(data)
        self._shape = list(self._data.shape) if self._data is not None else list(shape or [])
        self._dtype = np.dtype(dtype) if dtype is not None else (self._data.dtype if self._data is not None
                                                                  else np.dtype(np.float32))

    @property
    def shape(self) -> list:
        return list(self._data.shape) if self._data is not None else list(self._shape)

    @shape.setter
    def shape(self, dims: list) -> None:
        self._shape = list(dims)

    @property
    def dtype(self) -> DataType:
        return DataType(self._dtype.name)

    @property
    def element_num(self) -> int:
        return int(np.prod([d if isinstance(d, int) else 1 for d in self.shape]))

    @property
    def data_size(self) -> int:
        return self.element_num * self._dtype.itemsize

    def set_data_from_numpy(self, numpy_obj: np.ndarray) -> None:
        self._data = np.asarray(numpy_obj)

    def get_data_to_numpy(self) -> np.ndarray:
        if self._data is None:
            raise LiteError(f"tensor {self.name!r} has no data: call set_data_from_numpy first")
        return self._data

    def __repr__(self) -> str:
        return f"Tensor(name={self.name!r}, shape={self.shape}, dtype={self._dtype.name})"


_THREADS_SET: list[int] = [0]


def _apply_threads(n: int) -> None:
    """Set the OpenMP team (oneDNN kernels) and NumPy's BLAS pool to `n` threads, once per change."""
    if n <= 0 or _THREADS_SET[0] == n:
        return
    _kernels.set_num_threads(n)
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=n)
    except ImportError:  # without threadpoolctl only the C++ kernels follow thread_num
        pass
    _THREADS_SET[0] = n


class Model:
    """An inference model: `build_from_file` then `predict` (mindspore_lite.Model)."""

    def __init__(self) -> None:
        self.model_path = ""
        self._graph: Graph | None = None
        self._context = Context()
        self._plans: dict[tuple, Plan] = {}
        self._dims: list[list] = []
        self.int8_ops = 0
        self.fused_ops = 0

    def __repr__(self) -> str:
        return f"model_path: {self.model_path}."

    # --- building ---------------------------------------------------------------------------------
    def build_from_file(self, model_path: str, model_type: ModelType = ModelType.ONNX,
                        context: Context | None = None, config_path: str = "",
                        config_dict: dict | None = None) -> None:
        """Load and build a model from a file (ONNX, float or QDQ int8)."""
        if not isinstance(model_type, ModelType):
            raise LiteError(f"build_from_file: model_type must be a ModelType, got {model_type!r}")
        if model_type is not ModelType.ONNX:
            raise LiteError(f"build_from_file: {model_type.name} is not supported by spore.lite; export the "
                            "network with spore.export(..., file_format='ONNX') and use ModelType.ONNX")
        if not isinstance(model_path, (str, os.PathLike)):
            raise LiteError(f"build_from_file: model_path must be a path, got {type(model_path).__name__}")
        path = os.fspath(model_path)
        if path.endswith(".ckpt"):
            raise LiteError(f"build_from_file: {path!r} is a checkpoint; use "
                            "Model.build_from_checkpoint(ckpt_file, network, *inputs)")
        if not os.path.isfile(path):
            raise LiteError(f"build_from_file: model file {path!r} does not exist")
        if os.path.getsize(path) > _MAX_FILE_BYTES:
            raise LiteError(f"build_from_file: {path!r} is larger than 2 GiB")
        with open(path, "rb") as f:
            data = f.read()
        self._build(data, path, context)

    def build_from_bytes(self, data: bytes, context: Context | None = None) -> None:
        """Build from serialized ONNX bytes (a Spore addition, for in-memory models)."""
        self._build(bytes(data), "<bytes>", context)

    def build_from_checkpoint(self, ckpt_file: str, network: Any, *inputs: Any,
                              context: Context | None = None) -> None:
        """Load `ckpt_file` into `network` (a Cell, or a callable returning one), trace it for
        `inputs` and serve it in lite. This imports the engine (the one path that does)."""
        import spore as ms
        from spore.onnx import to_model

        net = network() if not isinstance(network, ms.nn.Cell) and callable(network) else network
        if not isinstance(net, ms.nn.Cell):
            raise LiteError(f"build_from_checkpoint: network must be a Cell or a builder of one, got {net!r}")
        if not os.path.isfile(ckpt_file):
            raise LiteError(f"build_from_checkpoint: checkpoint {ckpt_file!r} does not exist")
        ms.load_param_into_net(net, ms.load_checkpoint(ckpt_file))
        net.set_train(False)
        ts = [x if isinstance(x, ms.Tensor) else ms.Tensor(np.asarray(x)) for x in inputs]
        self._build(to_model(net, *ts).SerializeToString(), ckpt_file, context)

    def _build(self, data: bytes, path: str, context: Context | None) -> None:
        from google.protobuf.message import DecodeError

        from ._proto import pb2

        if context is not None and not isinstance(context, Context):
            raise LiteError(f"context must be a spore.lite.Context, got {type(context).__name__}")
        if not data:
            raise LiteError(f"model {path!r} is empty")
        try:
            proto = pb2().ModelProto()
            proto.ParseFromString(data)
        except (DecodeError, ValueError, RuntimeError) as e:
            raise LiteError(f"model {path!r} is not a valid ONNX file ({type(e).__name__}: {e})") from None
        if not proto.graph.node and not proto.graph.output:
            raise LiteError(f"model {path!r} is not a valid ONNX file (no graph)")
        try:
            graph = from_onnx(proto.graph)
        except (LiteError, ValueError) as e:
            raise LiteError(f"model {path!r}: {e}") from None
        self.int8_ops = fuse_qdq(graph)
        self.fused_ops = fuse_gemm_relu(graph)
        self._graph = graph
        self.model_path = path
        self._context = context or Context()
        self._plans = {}
        self._dims = [list(d) for _, _, d in graph.inputs]
        _apply_threads(self._context.cpu.thread_num)

    # --- introspection ----------------------------------------------------------------------------
    def _require(self) -> Graph:
        if self._graph is None:
            raise LiteError("the model is not built: call build_from_file first")
        return self._graph

    def get_inputs(self) -> list[Tensor]:
        """The model's inputs as Tensors (zero-filled where the shape is fully known)."""
        g = self._require()
        out = []
        for (name, dt, _), dims in zip(g.inputs, self._dims):
            t = Tensor(name=name, shape=dims, dtype=dt)
            if all(isinstance(d, int) and d > 0 for d in dims):
                t.set_data_from_numpy(np.zeros(dims, dt))
            out.append(t)
        return out

    def get_outputs(self) -> list[Tensor]:
        return [Tensor(name=o) for o in self._require().outputs]

    def resize(self, inputs: list[Tensor], dims: list[list[int]]) -> None:
        """Fix the input shapes and plan the arena for them now (MindSpore Lite's `resize`)."""
        g = self._require()
        if len(dims) != len(g.inputs) or len(inputs) != len(g.inputs):
            raise LiteError(f"resize: the model has {len(g.inputs)} input(s), got {len(inputs)} tensors "
                            f"and {len(dims)} shapes")
        feeds = []
        for (name, dt, decl), d in zip(g.inputs, dims):
            self._check_shape(name, decl, list(d))
            feeds.append(np.zeros(d, dt))
        self._dims = [list(d) for d in dims]
        for t, d in zip(inputs, dims):
            t.shape = list(d)
        self._plan_for(feeds)

    @property
    def arena_stats(self) -> dict[str, int]:
        """Planned arena bytes vs the sum of all intermediate bytes, per planned input shape."""
        return {"plans": len(self._plans),
                "arena_bytes": max((p.arena_bytes for p in self._plans.values()), default=0),
                "intermediate_bytes": max((p.total_bytes for p in self._plans.values()), default=0),
                "buffers": max((p.n_buffers for p in self._plans.values()), default=0)}

    # --- running ----------------------------------------------------------------------------------
    @staticmethod
    def _check_shape(name: str, decl: list, got: list) -> None:
        if len(decl) != len(got) or any(isinstance(d, int) and d > 0 and d != g for d, g in zip(decl, got)):
            raise LiteError(f"input {name!r}: expected shape {decl}, got {got}")

    def _feeds(self, inputs: Any) -> list[np.ndarray]:
        g = self._require()
        if isinstance(inputs, (Tensor, np.ndarray)):
            inputs = [inputs]
        if not isinstance(inputs, (list, tuple)):
            raise LiteError(f"predict: inputs must be a list of Tensors or arrays, got {type(inputs).__name__}")
        if len(inputs) != len(g.inputs):
            raise LiteError(f"predict: the model has {len(g.inputs)} input(s) "
                            f"({', '.join(n for n, _, _ in g.inputs)}), got {len(inputs)}")
        feeds = []
        for (name, dt, decl), x in zip(g.inputs, inputs):
            a = x.get_data_to_numpy() if isinstance(x, Tensor) else np.asarray(x)
            if a.dtype != dt:
                raise LiteError(f"input {name!r}: expected dtype {dt.name}, got {a.dtype.name}")
            self._check_shape(name, decl, list(a.shape))
            feeds.append(a)
        return feeds

    def _plan_for(self, feeds: list[np.ndarray]) -> list[np.ndarray]:
        g = self._require()
        plan, result = make_plan(g, {n: a for (n, _, _), a in zip(g.inputs, feeds)})
        self._plans[tuple(a.shape for a in feeds)] = plan
        return result

    def predict(self, inputs: Any, outputs: Any = None) -> list[Tensor]:
        """Run the model on `inputs` (Tensors or NumPy arrays, in input order) -> output Tensors."""
        from ._ops import ShapeChanged

        feeds = self._feeds(inputs)
        _apply_threads(self._context.cpu.thread_num)
        g = self._graph
        assert g is not None
        plan = self._plans.get(tuple(a.shape for a in feeds))
        res = None
        if plan is not None:
            for v, a in zip(plan.input_views, feeds):
                np.copyto(v, a)
            try:
                for step in plan.steps:
                    step()
                res = [v.copy() for v in plan.output_views]
            except ShapeChanged:  # a data-dependent shape left the plan: plan again
                res = None
        if res is None:
            res = [np.array(r) for r in self._plan_for(feeds)]
        return [Tensor(r, name=n) for r, n in zip(res, g.outputs)]
