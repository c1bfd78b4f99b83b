"""Training callbacks with MindSpore's names (``mindspore.train.LossMonitor``, ``ModelCheckpoint``, ...).

`ProgressBar` (a tqdm bar) is Spore's own addition.
"""

from ._callback import Callback, CallbackList, RunContext, _CallbackManager, _InternalCallbackParam
from .checkpoint_cb import CheckpointConfig, ModelCheckpoint
from .early_stopping import EarlyStopping
from .history import History
from .lambda_cb import LambdaCallback
from .loss_monitor import LossMonitor
from .lr_scheduler import LearningRateScheduler
from .on_request_exit import BackupAndRestore, OnRequestExit
from .progress import ProgressBar
from .reduce_lr import ReduceLROnPlateau
from .summary import SummaryCollector
from .time_monitor import TimeMonitor

__all__ = ["Callback", "CallbackList", "RunContext", "LossMonitor", "TimeMonitor", "ModelCheckpoint",
           "CheckpointConfig", "EarlyStopping", "LearningRateScheduler", "History", "ProgressBar",
           "SummaryCollector", "LambdaCallback", "ReduceLROnPlateau", "_CallbackManager", "_InternalCallbackParam",
           "OnRequestExit", "BackupAndRestore"]
