"""Spore: a deep-learning framework with MindSpore's API, built for the IDE.

    import spore as ms      # code written for MindSpore runs after this one change
"""

from __future__ import annotations

__version__ = "0.1.0"

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
