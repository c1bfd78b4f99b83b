"""Spore: a deep-learning framework with MindSpore's API, built for the IDE.

    import spore as ms      # code written for MindSpore runs after this one change

The names below are loaded on first use (PEP 562), so `import spore` itself is cheap and a tool
that needs one light module (the language server's `spore.compiler.support`) does not load the
engine, the training stack or the C++ kernels. `ms.Tensor`, `ms.nn`, `ms.Model`... work as always;
the `TYPE_CHECKING` block at the end shows static tools every name.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> (submodule, attribute; None: the submodule itself)
_LAZY: dict[str, tuple[str, str | None]] = {
    "COMPATIBLE": ("context", "COMPATIBLE"),
    "Callback": ("train", "Callback"),
    "CheckpointConfig": ("train", "CheckpointConfig"),
    "DTypeError": ("errors", "DTypeError"),
    "EarlyStopping": ("train", "EarlyStopping"),
    "GRAPH_MODE": ("context", "GRAPH_MODE"),
    "GraphCompileError": ("errors", "GraphCompileError"),
    "History": ("train", "History"),
    "LAX": ("context", "LAX"),
    "LearningRateScheduler": ("train", "LearningRateScheduler"),
    "LossMonitor": ("train", "LossMonitor"),
    "Model": ("train", "Model"),
    "ModelCheckpoint": ("train", "ModelCheckpoint"),
    "PYNATIVE_MODE": ("context", "PYNATIVE_MODE"),
    "Parameter": ("tensor", "Parameter"),
    "ParameterTuple": ("tensor", "ParameterTuple"),
    "Profiler": ("profiler", "Profiler"),
    "RunContext": ("train", "RunContext"),
    "STRICT": ("context", "STRICT"),
    "ShapeError": ("errors", "ShapeError"),
    "SporeError": ("errors", "SporeError"),
    "SummaryCollector": ("train", "SummaryCollector"),
    "Tensor": ("tensor", "Tensor"),
    "TimeMonitor": ("train", "TimeMonitor"),
    "amp": ("amp", None),
    "bfloat16": ("common.dtype", "bfloat16"),
    "bool_": ("common.dtype", "bool_"),
    "dataset": ("dataset", None),
    "double": ("common.dtype", "double"),
    "dtype": ("common.dtype", None),
    "dtype_to_nptype": ("common.dtype", "dtype_to_nptype"),
    "float16": ("common.dtype", "float16"),
    "float32": ("common.dtype", "float32"),
    "float64": ("common.dtype", "float64"),
    "float_": ("common.dtype", "float_"),
    "get_context": ("context", "get_context"),
    "get_seed": ("common.seed", "get_seed"),
    "grad": ("autodiff.api", "grad"),
    "half": ("common.dtype", "half"),
    "initializer": ("common.initializer", "initializer"),
    "int16": ("common.dtype", "int16"),
    "int32": ("common.dtype", "int32"),
    "int64": ("common.dtype", "int64"),
    "int8": ("common.dtype", "int8"),
    "int_": ("common.dtype", "int_"),
    "jit": ("compiler.jit", "jit"),
    "load_checkpoint": ("train.checkpoint", "load_checkpoint"),
    "load_param_into_net": ("train.checkpoint", "load_param_into_net"),
    "nn": ("nn", None),
    "ops": ("ops", None),
    "pytype_to_dtype": ("common.dtype", "pytype_to_dtype"),
    "run_check": ("runcheck", "run_check"),
    "save_checkpoint": ("train.checkpoint", "save_checkpoint"),
    "set_context": ("context", "set_context"),
    "set_device": ("context", "set_device"),
    "set_seed": ("common.seed", "set_seed"),
    "single": ("common.dtype", "single"),
    "train": ("train", None),
    "uint8": ("common.dtype", "uint8"),
    "value_and_grad": ("autodiff.api", "value_and_grad"),
    "vjp": ("autodiff.api", "vjp"),
}


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        try:  # any other submodule (spore.context, spore.errors...) as an attribute
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError:
            raise AttributeError(f"module 'spore' has no attribute {name!r}") from None
    module = importlib.import_module(f"{__name__}.{target[0]}")
    value = module if target[1] is None else getattr(module, target[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = sorted(_LAZY)

if TYPE_CHECKING:  # what static tools (Pylance, Pyright, jedi) see
    from . import (  # noqa: E402,F401
        amp,
        dataset,  # noqa: E402,F401
        nn,
        ops,  # noqa: E402,F401
        train,
    )
    from .autodiff.api import grad, value_and_grad, vjp  # noqa: E402,F401
    from .common import dtype  # noqa: E402
    from .common.dtype import (  # noqa: E402,F401
        bfloat16,
        bool_,
        double,
        dtype_to_nptype,
        float16,
        float32,
        float64,
        float_,
        half,
        int8,
        int16,
        int32,
        int64,
        int_,
        pytype_to_dtype,
        single,
        uint8,
    )
    from .common.initializer import initializer  # noqa: E402,F401
    from .common.seed import get_seed, set_seed  # noqa: E402,F401
    from .compiler.jit import jit  # noqa: E402,F401
    from .context import COMPATIBLE, GRAPH_MODE, LAX, PYNATIVE_MODE, STRICT, get_context, set_context, set_device  # noqa: E402,F401,E501
    from .errors import DTypeError, GraphCompileError, ShapeError, SporeError  # noqa: E402,F401
    from .profiler import Profiler  # noqa: E402,F401
    from .runcheck import run_check  # noqa: E402,F401
    from .tensor import Parameter, ParameterTuple, Tensor  # noqa: E402
    from .train import (  # noqa: E402,F401
        Callback,
        CheckpointConfig,
        EarlyStopping,
        History,
        LearningRateScheduler,
        LossMonitor,
        Model,
        ModelCheckpoint,
        RunContext,
        SummaryCollector,
        TimeMonitor,
    )
    from .train.checkpoint import load_checkpoint, load_param_into_net, save_checkpoint  # noqa: E402,F401
