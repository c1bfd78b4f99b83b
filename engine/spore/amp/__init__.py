"""`spore.amp`: mixed precision and loss scaling, with MindSpore's `mindspore.amp` API.

- `auto_mixed_precision` / `custom_mixed_precision`: which cells run in float16/bfloat16
  (master weights stay float32) — see `precision`.
- Loss-scale managers, their update cells and `all_finite` — see `loss_scale`; the scalers for
  hand-written steps — see `scalers`.
- `TrainOneStepWithLossScaleCell` (also meant to be re-exported from `spore.nn`) and
  `build_train_network`, which puts the pieces together (as `Model(amp_level=...)` does).
"""

import typing as _typing

from ..common.jit_hints import constexpr, jit_class, mutable  # noqa: F401  (mindspore.amp re-exports them)
from ..compiler.jit import jit  # noqa: F401
from ..tensor import Parameter, Tensor  # noqa: F401
from .all_finite_op import AllFinite
from .build import build_train_network
from .loss_scale import (
    DynamicLossScaleManager,
    DynamicLossScaleUpdateCell,
    FixedLossScaleManager,
    FixedLossScaleUpdateCell,
    LossScaleManager,
    all_finite,
)
from .precision import auto_mixed_precision, custom_mixed_precision, get_black_list, get_white_list
from .scalers import DynamicLossScaler, LossScaler, StaticLossScaler
from .train_cell import TrainOneStepWithLossScaleCell

__all__ = [
    "auto_mixed_precision", "custom_mixed_precision", "get_white_list", "get_black_list", "build_train_network",
    "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager", "FixedLossScaleUpdateCell",
    "DynamicLossScaleUpdateCell", "all_finite", "LossScaler", "StaticLossScaler", "DynamicLossScaler",
    "TrainOneStepWithLossScaleCell", "AllFinite",
]


if not _typing.TYPE_CHECKING:  # hidden from Pyright/Pylance, which would otherwise accept any attribute of the module
    def __getattr__(name: str):
        """A MindSpore name this module lacks raises NotSupportedError saying so (see spore._missing)."""
        from .._missing import missing_attribute

        raise missing_attribute("mindspore.amp", name)
