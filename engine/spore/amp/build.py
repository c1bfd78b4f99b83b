"""`build_train_network`: a mixed-precision training cell in one call (what `Model(amp_level=...)` uses).

The level picks three settings, each of which a keyword argument may override (MindSpore's table):

=====  ===================  ===============  =============================
level  keep_batchnorm_fp32  cast_model_type  loss_scale_manager
=====  ===================  ===============  =============================
O0     False                float32          None
O1     False                float32          None (white-list cells in fp16)
O2     True                 float16          DynamicLossScaleManager()
O3     False                float16          None
=====  ===================  ===============  =============================

A low-precision `cast_model_type` runs the network as O2 when BatchNorm is kept in float32 and as
O3 otherwise; ``cast_model_type=float32`` turns O2/O3 off. The loss is computed in float32 (the
network's output and float labels are cast first). A manager with an update cell gives a
`TrainOneStepWithLossScaleCell`; otherwise a `TrainOneStepCell` (with the manager's scale as
sensitivity when there is one, for ``FixedLossScaleManager(drop_overflow_update=False)``).
MindSpore refuses update cells on CPU; Spore allows them. With ``cast_model_type=bfloat16`` the
level's default manager is dropped (bfloat16 has float32's exponent range, so gradients do not
underflow); an explicit ``loss_scale_manager`` is still honoured.
"""

from __future__ import annotations

import warnings
from typing import Any

from ..common import dtype as mstype
from ..nn.cell import Cell
from ..nn.wrap import TrainOneStepCell, WithLossCell
from .loss_scale import DynamicLossScaleManager, LossScaleManager
from .precision import _cast_floats, auto_mixed_precision
from .train_cell import TrainOneStepWithLossScaleCell

__all__ = ["build_train_network"]

_KWARGS = ("keep_batchnorm_fp32", "cast_model_type", "loss_scale_manager")
_LOW = (mstype.float16, mstype.bfloat16)


def _level_config(level: str) -> dict[str, Any]:
    if level == "O2":
        return {"keep_batchnorm_fp32": True, "cast_model_type": mstype.float16,
                "loss_scale_manager": DynamicLossScaleManager()}
    if level == "O3":
        return {"keep_batchnorm_fp32": False, "cast_model_type": mstype.float16, "loss_scale_manager": None}
    return {"keep_batchnorm_fp32": False, "cast_model_type": mstype.float32, "loss_scale_manager": None}


def _check_kwargs(kwargs: dict) -> dict:
    for key in kwargs:
        if key not in _KWARGS:
            raise ValueError(f"build_train_network: unsupported argument {key!r}; the keyword arguments are "
                             f"{list(_KWARGS)}")
    if "keep_batchnorm_fp32" in kwargs and not isinstance(kwargs["keep_batchnorm_fp32"], bool):
        raise TypeError("build_train_network: keep_batchnorm_fp32 must be a bool")
    if "cast_model_type" in kwargs:
        kwargs = dict(kwargs, cast_model_type=mstype.to_dtype(kwargs["cast_model_type"]))
        if kwargs["cast_model_type"] not in (mstype.float32,) + _LOW:
            raise ValueError(f"build_train_network: cast_model_type must be float16, bfloat16 or float32, "
                             f"got {kwargs['cast_model_type']}")
    lsm = kwargs.get("loss_scale_manager")
    if lsm is not None and not isinstance(lsm, LossScaleManager):
        raise TypeError(f"build_train_network: loss_scale_manager must be a LossScaleManager or None, "
                        f"got {type(lsm).__name__}")
    return kwargs


class _Fp32WithLossCell(WithLossCell):
    """WithLossCell that hands the loss float32 outputs and labels (the loss stays in float32)."""

    def construct(self, data: Any, label: Any) -> Any:
        out = _cast_floats(self._backbone(data), mstype.float32)
        return self._loss_fn(out, _cast_floats(label, mstype.float32))


def _precision(network: Cell, level: str, config: dict) -> tuple[Cell, bool]:
    """Apply the level's precision; returns the network and whether any part runs in low precision."""
    cast = config["cast_model_type"]
    if cast in _LOW or level == "O2":
        amp = "O2" if config["keep_batchnorm_fp32"] else "O3"
        return auto_mixed_precision(network, amp, cast if cast in _LOW else mstype.float16), True
    if cast == mstype.float32 and level in ("O2", "O3"):
        return network, False
    return auto_mixed_precision(network, level), level != "O0"


def build_train_network(network: Cell, optimizer: Any, loss_fn: Cell | None = None, level: str = "O0",
                        boost_level: str = "O0", **kwargs: Any) -> Cell:
    """A training cell for `network`: mixed precision by `level`, the loss, and loss scaling.

    Keyword arguments: ``keep_batchnorm_fp32``, ``cast_model_type``, ``loss_scale_manager`` (see
    the module docstring). `boost_level` is accepted for compatibility; Spore has no boost mode.
    """
    if not isinstance(network, Cell):
        raise TypeError(f"build_train_network: network must be a Cell, got {type(network).__name__}")
    if getattr(optimizer, "parameters", None) is None:
        raise TypeError(f"build_train_network: optimizer must be an nn.Optimizer, got {type(optimizer).__name__}")
    if level == "auto":
        raise ValueError("build_train_network: level='auto' picks O2 on GPU and O3 on Ascend in MindSpore and is not "
                         "supported on CPU; choose 'O0', 'O1', 'O2' or 'O3'")
    if level not in ("O0", "O1", "O2", "O3"):
        raise ValueError(f"build_train_network: level must be 'O0', 'O1', 'O2' or 'O3', got {level!r}")
    if boost_level not in ("O0", "O1", "O2"):
        raise ValueError(f"build_train_network: boost_level must be 'O0', 'O1' or 'O2', got {boost_level!r}")
    if boost_level != "O0":
        warnings.warn("build_train_network: boost_level is ignored (Spore has no boost mode)", UserWarning,
                      stacklevel=2)
    kwargs = _check_kwargs(kwargs)
    config = dict(_level_config(level), **kwargs)
    if config["cast_model_type"] == mstype.bfloat16 and "loss_scale_manager" not in kwargs:
        config["loss_scale_manager"] = None  # bfloat16 has float32's exponent range: no loss scaling needed
    network, mixed = _precision(network, level, config)
    if loss_fn is not None:
        if not isinstance(loss_fn, Cell):
            raise TypeError(f"build_train_network: loss_fn must be a Cell, got {type(loss_fn).__name__}")
        network = _Fp32WithLossCell(network, loss_fn) if mixed else WithLossCell(network, loss_fn)
    manager = config["loss_scale_manager"]
    if manager is not None:
        update_cell = manager.get_update_cell()
        if update_cell is not None:
            return TrainOneStepWithLossScaleCell(network, optimizer, scale_sense=update_cell).set_train()
        return TrainOneStepCell(network, optimizer, sens=manager.get_loss_scale()).set_train()
    return TrainOneStepCell(network, optimizer).set_train()
