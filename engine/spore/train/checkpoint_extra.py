"""More of MindSpore's checkpoint helpers (issue 14): `merge_sliced_parameter`,
`load_checkpoint_async` and `async_ckpt_thread_status`, built on `spore.train.checkpoint`."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from ..tensor import Parameter, Tensor
from . import checkpoint as _ckpt

__all__ = ["merge_sliced_parameter", "load_checkpoint_async", "async_ckpt_thread_status"]

_EXECUTOR: ThreadPoolExecutor | None = None


def merge_sliced_parameter(sliced_parameters: list, strategy: dict | None = None) -> Parameter:
    """One Parameter from the slices of a model-parallel parameter, concatenated along axis 0 in
    the given order (MindSpore's rule without a strategy). All slices must share name, dtype and
    the shape of their other axes; the result keeps the name and `requires_grad` of the first.
    A `strategy` (a parallel layout) needs the distributed checkpoint metadata Spore does not write,
    and is refused."""
    fn = "merge_sliced_parameter"
    if not isinstance(sliced_parameters, (list, tuple)) or not sliced_parameters:
        raise TypeError(f"For '{fn}', 'sliced_parameters' must be a non-empty list of Parameters")
    if not all(isinstance(p, Parameter) for p in sliced_parameters):
        raise TypeError(f"For '{fn}', every element of 'sliced_parameters' must be a Parameter")
    if strategy is not None:
        raise ValueError(f"For '{fn}', 'strategy' (a model-parallel layout) is not supported on Spore's "
                         "single-device CPU engine; pass the slices in order with strategy=None")
    first = sliced_parameters[0]
    for p in sliced_parameters[1:]:
        if p.name != first.name:
            raise ValueError(f"For '{fn}', every slice must have the name {first.name!r}, got {p.name!r}")
        if p.dtype != first.dtype:
            raise ValueError(f"For '{fn}', every slice must have the dtype {first.dtype}, got {p.dtype}")
        if tuple(p.shape[1:]) != tuple(first.shape[1:]):
            raise ValueError(f"For '{fn}', slices must agree after axis 0: {tuple(first.shape)} and {tuple(p.shape)}")
    merged = np.concatenate([p.asnumpy() for p in sliced_parameters], axis=0)
    return Parameter(Tensor(merged), name=first.name, requires_grad=first.requires_grad)


def load_checkpoint_async(ckpt_file_name: Any, net: Any = None, strict_load: bool = False, filter_prefix: Any = None,
                          dec_key: Any = None, dec_mode: str = "AES-GCM", specify_prefix: Any = None,
                          choice_func: Callable[[str], bool] | None = None) -> Future:
    """`load_checkpoint` in a background thread: returns a Future whose ``result()`` is the
    name -> Parameter dict (loaded into `net` too when given), or raises the load's error."""
    global _EXECUTOR
    if _EXECUTOR is None:
        _EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="spore-ckpt-load")

    def load() -> dict:
        _ckpt._wait_async_saves()  # a file an async save is still writing must be complete before it is read
        return _ckpt.load_checkpoint(ckpt_file_name, net, strict_load, filter_prefix, dec_key, dec_mode,
                                     specify_prefix, choice_func)

    return _EXECUTOR.submit(load)


def async_ckpt_thread_status() -> bool:
    """True while a `save_checkpoint(..., async_save=True)` is still writing in the background."""
    return any(t.is_alive() for t in list(_ckpt._async_threads.values()))
