"""`spore.train`: training utilities with MindSpore's names (``mindspore.train``).

Each feature lives in its own module and is re-exported here; add new ones as another import
line and extend ``__all__``.
"""

from .checkpoint import (
    CheckpointError,
    CheckpointMismatchError,
    ParamMismatch,
    load_checkpoint,
    load_param_into_net,
    save_checkpoint,
)

__all__ = [
    "save_checkpoint",
    "load_checkpoint",
    "load_param_into_net",
    "CheckpointError",
    "CheckpointMismatchError",
    "ParamMismatch",
]
