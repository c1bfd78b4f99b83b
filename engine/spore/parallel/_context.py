"""MindSpore's auto-parallel context: ``ms.set_auto_parallel_context(parallel_mode=..., ...)``.

Only data parallelism is carried out (each rank runs the whole model on its shard of the batch, and
gradients are averaged or summed across ranks). The context is plain data; `Model`,
`TrainOneStepCell`, datasets and callbacks read it to decide what to reduce, shard and write.
"""

from __future__ import annotations

from typing import Any


class ParallelMode:
    """MindSpore's parallel modes (strings, as in MindSpore)."""

    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]


_SUPPORTED_MODES = (ParallelMode.STAND_ALONE, ParallelMode.DATA_PARALLEL)
_DEFAULT_BUCKET_MB = 25.0
_COMPRESSIONS = (None, "fp16", "topk")

_DEFAULTS: dict[str, Any] = {
    "parallel_mode": ParallelMode.STAND_ALONE,
    "gradients_mean": False,
    "device_num": 1,
    "global_rank": 0,
    "parameter_broadcast": True,       # ranks start from rank 0's parameters
    "gradient_fp32_sync": True,
    "loss_repeated_mean": True,
    "full_batch": False,
    "comm_fusion": {"allreduce": {"mode": "size", "config": _DEFAULT_BUCKET_MB}},   # bucket size, MB
    "grad_compression": None,          # Spore: None, "fp16" or "topk" (with error feedback)
    "topk_ratio": 0.01,                # Spore: fraction of each bucket's entries sent by "topk"
    "comm_overlap": True,              # Spore: reduce buckets while the backward pass goes on
}
_CONTEXT: dict[str, Any] = dict(_DEFAULTS)
_DEVICE_NUM_SET = [False]


def _check(key: str, value: Any) -> Any:
    if key == "parallel_mode":
        if value not in ParallelMode.MODE_LIST:
            raise ValueError(f"set_auto_parallel_context: parallel_mode must be one of {ParallelMode.MODE_LIST}, "
                             f"got {value!r}")
        if value not in _SUPPORTED_MODES:
            raise ValueError(f"set_auto_parallel_context: parallel_mode={value!r} (model parallelism) is not "
                             "supported by Spore; use ParallelMode.DATA_PARALLEL")
    elif key in ("gradients_mean", "parameter_broadcast", "gradient_fp32_sync", "loss_repeated_mean",
                 "full_batch", "comm_overlap"):
        if not isinstance(value, bool):
            raise TypeError(f"set_auto_parallel_context: {key} must be a bool, got {type(value).__name__}")
    elif key in ("device_num", "global_rank"):
        if not isinstance(value, int) or isinstance(value, bool) or value < (1 if key == "device_num" else 0):
            raise ValueError(f"set_auto_parallel_context: {key} must be an int >= "
                             f"{1 if key == 'device_num' else 0}, got {value!r}")
    elif key == "comm_fusion":
        mb = (value or {}).get("allreduce", {}).get("config") if isinstance(value, dict) else None
        if not isinstance(mb, (int, float)) or mb <= 0:
            raise ValueError("set_auto_parallel_context: comm_fusion must look like "
                             "{'allreduce': {'mode': 'size', 'config': 25}} (bucket size in MB), got " + repr(value))
    elif key == "grad_compression":
        if value not in _COMPRESSIONS:
            raise ValueError(f"set_auto_parallel_context: grad_compression must be one of {_COMPRESSIONS}, "
                             f"got {value!r}")
    elif key == "topk_ratio":
        if not isinstance(value, (int, float)) or not 0 < value <= 1:
            raise ValueError(f"set_auto_parallel_context: topk_ratio must be in (0, 1], got {value!r}")
    return value


def set_auto_parallel_context(**kwargs: Any) -> None:
    """Set the parallel configuration (MindSpore's names; unknown keys are refused by name)."""
    unknown = [k for k in kwargs if k not in _DEFAULTS]
    if unknown:
        raise ValueError(f"set_auto_parallel_context: unknown key {unknown[0]!r}; Spore accepts {sorted(_DEFAULTS)}")
    from ..communication import _backend

    for key, value in kwargs.items():
        _CONTEXT[key] = _check(key, value)
    if "device_num" in kwargs:
        _DEVICE_NUM_SET[0] = True
        if _backend.STATE.initialized and kwargs["device_num"] != _backend.size():
            raise ValueError(f"set_auto_parallel_context: device_num={kwargs['device_num']} but the job has "
                             f"{_backend.size()} ranks")


def get_auto_parallel_context(attr_key: str) -> Any:
    """One value of the parallel configuration."""
    if attr_key not in _DEFAULTS:
        raise ValueError(f"get_auto_parallel_context: unknown key {attr_key!r}; Spore knows {sorted(_DEFAULTS)}")
    return _CONTEXT[attr_key]


def reset_auto_parallel_context() -> None:
    """Back to stand-alone defaults."""
    _CONTEXT.clear()
    _CONTEXT.update(_DEFAULTS)
    _DEVICE_NUM_SET[0] = False
    from ..communication import _backend

    if _backend.STATE.initialized:
        on_init(_backend.size())


def on_init(size: int) -> None:
    """`communication.init` tells the context how many ranks there are (device_num, global_rank)."""
    from ..communication import _backend

    if not _DEVICE_NUM_SET[0]:
        _CONTEXT["device_num"] = size
    _CONTEXT["global_rank"] = _backend.rank()


def data_parallel() -> bool:
    """True when gradients must be reduced across ranks: DATA_PARALLEL on more than one rank."""
    from ..communication import _backend

    return _CONTEXT["parallel_mode"] == ParallelMode.DATA_PARALLEL and _backend.size() > 1


def bucket_bytes() -> int:
    return int(float(_CONTEXT["comm_fusion"]["allreduce"]["config"]) * 1024 * 1024)


def is_writer() -> bool:
    """The rank that writes checkpoints, summaries and progress output: rank 0 (every rank when alone)."""
    from ..communication import _backend

    return _backend.rank() == 0
