"""`spore.nn`: Cells, layers, losses, optimizers and learning-rate schedules (MindSpore's names)."""

from .dynamic_lr import *
from .learning_rate_schedule import *
from .optim import *
