"""`spore.train`: training utilities with MindSpore's names (``mindspore.train``).

Each feature lives in its own module and is re-exported here; add new ones as another import
line and extend ``__all__``.
"""

import typing as _typing

from . import callback, metrics
from .callback import (
    BackupAndRestore,
    Callback,
    CheckpointConfig,
    EarlyStopping,
    History,
    LambdaCallback,
    LearningRateScheduler,
    LossMonitor,
    ModelCheckpoint,
    OnRequestExit,
    ProgressBar,
    ReduceLROnPlateau,
    RunContext,
    SummaryCollector,
    TimeMonitor,
)
from .checkpoint import (
    CheckpointError,
    CheckpointMismatchError,
    ParamMismatch,
    load_checkpoint,
    load_param_into_net,
    save_checkpoint,
)
from .checkpoint_extra import async_ckpt_thread_status, load_checkpoint_async, merge_sliced_parameter
from .dataset_helper import DatasetHelper, connect_network_with_dataset, data_sink, load_segmented_checkpoints
from .metrics import (
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
    get_metrics,
    names,
    rearrange_inputs,
)
from .metrics.confusion_metric import ConfusionMatrixMetric
from .metrics.occlusion import OcclusionSensitivity
from .model import Model
from .safetensors_io import ckpt_to_safetensors, safetensors_to_ckpt
from .summary_landscape import SummaryLandscape
from .summary_record import SummaryRecord

# mindspore.train also exports the loss-scale managers and build_train_network; they live in spore.amp,
# which imports spore.nn, which imports the metrics from here: so they are looked up on first use
_FROM_AMP = ("DynamicLossScaleManager", "FixedLossScaleManager", "LossScaleManager", "build_train_network")

__all__ = [
    "save_checkpoint", "load_checkpoint", "load_param_into_net", "CheckpointError", "CheckpointMismatchError",
    "ParamMismatch", "Model", "Callback", "CheckpointConfig", "EarlyStopping", "History", "LearningRateScheduler",
    "LossMonitor", "ModelCheckpoint", "ProgressBar", "RunContext", "SummaryCollector", "TimeMonitor", "F1", "MAE",
    "MSE", "Accuracy", "Fbeta", "Loss", "Metric", "Precision", "Recall", "Top1CategoricalAccuracy",
    "Top5CategoricalAccuracy", "TopKCategoricalAccuracy", "get_metric_fn", "get_metrics", "names", "rearrange_inputs",
    "LambdaCallback", "ReduceLROnPlateau", "DynamicLossScaleManager", "FixedLossScaleManager", "LossScaleManager",
    "build_train_network", "ConfusionMatrix", "CosineSimilarity", "Dice", "Perplexity", "auc", "export", "load",
    "ROC", "BleuScore", "HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance",
    "merge_sliced_parameter", "load_checkpoint_async", "async_ckpt_thread_status", "OnRequestExit",
    "BackupAndRestore",
]
__all__ += ["ckpt_to_safetensors", "safetensors_to_ckpt", "ConfusionMatrixMetric"]
__all__ += ["DatasetHelper", "connect_network_with_dataset", "data_sink", "SummaryRecord"]
__all__ += ["SummaryLandscape"]
__all__ += ["OcclusionSensitivity"]


if not _typing.TYPE_CHECKING:  # hidden from Pyright/Pylance, which would otherwise accept any attribute of the module
    def __getattr__(name: str):
        """A MindSpore name this module lacks raises NotSupportedError saying so (see spore._missing)."""
        if name in _FROM_AMP:
            from .. import amp

            return getattr(amp, name)
        if name in ("export", "load"):  # mindspore.train.export / load are the top-level ones (MindIR via ONNX)
            from ..onnx import ms_api

            return getattr(ms_api, name)
        from .._missing import missing_attribute

        raise missing_attribute("mindspore.train", name)
