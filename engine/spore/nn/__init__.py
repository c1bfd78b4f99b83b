"""`spore.nn`: Cells, layers, losses, optimizers and learning-rate schedules (MindSpore's names)."""

from .cell import Cell
from .container import CellDict, CellList, SequentialCell
from .dynamic_lr import *
from .layer import *
from .learning_rate_schedule import *
from .loss import *
from .optim import *
from .wrap import TrainOneStepCell, WithEvalCell, WithLossCell

# isort: split
# amp builds on the nn names above, so it is imported after them
from ..amp.loss_scale import DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell  # noqa: E402
from ..amp.train_cell import TrainOneStepWithLossScaleCell  # noqa: E402
