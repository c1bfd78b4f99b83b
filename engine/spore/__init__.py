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

from ._runtime.threads import configure_environment as _configure_threads

_configure_threads()  # thread policy defaults, before anything loads libgomp (see spore/_runtime/threads.py)

def _lazy_table() -> dict[str, tuple[str, str | None]]:
    """public name -> (submodule, attribute; None: the submodule itself), read from the
    `TYPE_CHECKING` imports at the end of this file: one list serves static tools and the loader."""
    import ast

    with open(__file__, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    block = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING")
    table: dict[str, tuple[str, str | None]] = {}
    for node in block.body:
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                if node.module is None:  # from . import nn
                    table[a.asname or a.name] = (a.name, None)
                elif node.module == "common" and a.name == "dtype":  # a module imported from a package
                    table[a.asname or a.name] = ("common.dtype", None)
                else:
                    table[a.asname or a.name] = (node.module, a.name)
    return table


_LAZY = _lazy_table()


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        try:  # any other submodule (spore.context, spore.errors...) as an attribute
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError:
            from ._missing import missing_attribute  # a MindSpore name Spore lacks: NotSupportedError

            raise missing_attribute("mindspore", name) from None
    module = importlib.import_module(f"{__name__}.{target[0]}")
    value = module if target[1] is None else getattr(module, target[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


# `from spore import *` must not bind `numpy` over the user's NumPy: spore.numpy is reached as an attribute
__all__ = sorted(n for n in _LAZY if n != "numpy")

if TYPE_CHECKING:  # what static tools (Pylance, Pyright, jedi) see
    from . import (  # noqa: E402,F401
        amp,
        communication,
        dataset,  # noqa: E402,F401
        nn,
        numpy,
        ops,  # noqa: E402,F401
        train,
    )
    from ._tensor_api import from_numpy, is_tensor  # noqa: E402,F401
    from .activation_recompute import recompute  # noqa: E402,F401
    from .amp import (  # noqa: E402,F401
        DynamicLossScaleManager,
        FixedLossScaleManager,
        LossScaleManager,
        build_train_network,
    )
    from .autodiff.api import grad, jacfwd, jacrev, jvp, value_and_grad, vjp  # noqa: E402,F401
    from .autodiff.vmap import vmap  # noqa: E402,F401
    from .common import dtype  # noqa: E402
    from .common.dtype import (  # noqa: E402,F401
        bfloat16,
        bool_,
        complex64,
        complex128,
        double,
        dtype_to_nptype,
        dtype_to_pytype,
        float16,
        float32,
        float64,
        float_,
        get_py_obj_dtype,
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
    from .common.jit_hints import constexpr, jit_class, lazy_inline, mutable, no_inline  # noqa: E402,F401
    from .common.seed import (  # noqa: E402,F401
        Generator,
        get_rng_state,
        get_seed,
        initial_seed,
        manual_seed,
        seed,
        set_rng_state,
        set_seed,
    )
    from .compiler.jit import jit  # noqa: E402,F401
    from .context import (  # noqa: E402,F401
        COMPATIBLE,
        GRAPH_MODE,
        LAX,
        PYNATIVE_MODE,
        STRICT,
        get_context,
        set_context,
        set_deterministic,
        set_device,
        set_recursion_limit,
    )
    from .cpu_affinity import set_cpu_affinity  # noqa: E402,F401
    from .errors import DTypeError, GraphCompileError, ShapeError, SporeError  # noqa: E402,F401
    from .jit_config import JitConfig  # noqa: E402,F401
    from .log_config import get_level, get_log_config  # noqa: E402,F401
    from .onnx.ms_api import export, load  # noqa: E402,F401
    from .ops.functional_control import (  # noqa: E402,F401
        get_grad,
        register_saved_tensors_hooks,
        saved_tensors_hooks,
    )
    from .ops.primitive_helpers import _enable_dynamic as enable_dynamic  # noqa: E402,F401
    from .parallel import (  # noqa: E402,F401
        ParallelMode,
        get_auto_parallel_context,
        reset_auto_parallel_context,
        set_auto_parallel_context,
    )
    from .profiler import Profiler  # noqa: E402,F401
    from .rest_api import Int, Symbol, TensorType, Type, from_dlpack, get_current_device, to_dlpack  # noqa: E402,F401
    from .runcheck import run_check  # noqa: E402,F401
    from .sparse import COOTensor, CSRTensor, RowTensor, SparseTensor  # noqa: E402,F401
    from .tensor import Parameter, ParameterTuple, Tensor  # noqa: E402
    from .train import (  # noqa: E402,F401
        BackupAndRestore,
        Callback,
        CheckpointConfig,
        EarlyStopping,
        History,
        LambdaCallback,
        LearningRateScheduler,
        LossMonitor,
        Model,
        ModelCheckpoint,
        OnRequestExit,
        ReduceLROnPlateau,
        RunContext,
        SummaryCollector,
        TimeMonitor,
    )
    from .train.checkpoint import load_checkpoint, load_param_into_net, save_checkpoint  # noqa: E402,F401
    from .train.checkpoint_extra import (  # noqa: E402,F401
        async_ckpt_thread_status,
        load_checkpoint_async,
        merge_sliced_parameter,
    )
    from .train.dataset_helper import (  # noqa: E402,F401
        DatasetHelper,
        connect_network_with_dataset,
        data_sink,
        load_segmented_checkpoints,
    )
    from .train.metrics import (  # noqa: E402,F401
        F1,
        MAE,
        MSE,
        ROC,
        Accuracy,
        BleuScore,
        ConfusionMatrix,
        CosineSimilarity,
        Dice,
        Fbeta,
        HausdorffDistance,
        Loss,
        MeanSurfaceDistance,
        Metric,
        Perplexity,
        Precision,
        Recall,
        RootMeanSquareDistance,
        Top1CategoricalAccuracy,
        Top5CategoricalAccuracy,
        TopKCategoricalAccuracy,
        auc,
        get_metric_fn,
        names,
        rearrange_inputs,
    )
    from .train.metrics.confusion_metric import ConfusionMatrixMetric  # noqa: E402,F401
    from .train.metrics.occlusion import OcclusionSensitivity  # noqa: E402,F401
    from .train.safetensors_io import ckpt_to_safetensors, safetensors_to_ckpt  # noqa: E402,F401
    from .train.summary_landscape import SummaryLandscape  # noqa: E402,F401
    from .train.summary_record import SummaryRecord  # noqa: E402,F401
