"""`spore.nn`: Cells, layers, losses, optimizers and learning-rate schedules (MindSpore's names)."""

import typing as _typing

from ..ops.primitive_helpers import _no_init_parameters as no_init_parameters  # MindSpore's nn name
from . import dynamic_lr, layer, learning_rate_schedule, loss, loss_extra, optim, vision_sequence_cells
from .cell import Cell
from .container import CellDict, CellList, SequentialCell
from .dynamic_lr import *
from .layer import *

# the layer families' modules have been reachable as `nn.conv`, `nn.rnn`...: kept (not exported by `*`)
from .layer import activation, basic, conv, embedding, normalization, pooling, rnn, transformer
from .learning_rate_schedule import *
from .loss import *
from .loss_extra import *
from .optim import *
from .vision_sequence_cells import *
from .wrap import TrainOneStepCell, WithEvalCell, WithLossCell

# isort: split
# the data-parallel reducer is a Cell: imported once nn.cell exists
from ..parallel.grad_reducer import DistributedGradReducer  # noqa: E402  (data parallelism)
from ..parallel.sync_batchnorm import SyncBatchNorm  # noqa: E402

# isort: split
# amp builds on the nn names above, so it is imported after them
from ..amp.loss_scale import DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell  # noqa: E402
from ..amp.train_cell import TrainOneStepWithLossScaleCell  # noqa: E402

# mindspore.nn still exports the metrics (they live in spore.train.metrics)
from ..train.metrics import (  # noqa: E402
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

# what `from spore.nn import *` exports: MindSpore's nn names, nothing imported along the way
__all__ = ["Cell", "CellDict", "CellList", "DistributedGradReducer", "SequentialCell", "SyncBatchNorm",
           "TrainOneStepCell", "WithEvalCell", "WithLossCell",
           "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell", "TrainOneStepWithLossScaleCell"]
from ..train.metrics.confusion_metric import ConfusionMatrixMetric  # noqa: E402
from ..train.metrics.occlusion import OcclusionSensitivity  # noqa: E402
from .sampled_embedding import MultiFieldEmbeddingLookup, SampledSoftmaxLoss  # noqa: E402

__all__ += ["MultiFieldEmbeddingLookup", "SampledSoftmaxLoss"]

__all__ += ["ConfusionMatrixMetric", "no_init_parameters"]
__all__ += dynamic_lr.__all__
__all__ += layer.__all__
__all__ += learning_rate_schedule.__all__
__all__ += loss.__all__
__all__ += loss_extra.__all__
__all__ += optim.__all__
__all__ += vision_sequence_cells.__all__
__all__ += ["OcclusionSensitivity"]
__all__ += ["F1", "MAE", "MSE", "Accuracy", "Fbeta", "Loss", "Metric", "Precision", "Recall", "Top1CategoricalAccuracy",
            "Top5CategoricalAccuracy", "TopKCategoricalAccuracy", "get_metric_fn", "get_metrics", "names",
            "rearrange_inputs", "ConfusionMatrix", "CosineSimilarity", "Dice", "Perplexity", "auc",
            "ROC", "BleuScore", "HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance"]


if not _typing.TYPE_CHECKING:  # hidden from Pyright/Pylance, which would otherwise accept any attribute of the module
    def __getattr__(name: str):
        """A MindSpore name this module lacks raises NotSupportedError saying so (see spore._missing)."""
        from .._missing import missing_attribute

        raise missing_attribute("mindspore.nn", name)
