"""Small dataset helpers MindSpore exports at ``mindspore.dataset`` level (issue 14, data slice):
`DebugHook` (the base of the user hooks that inspect a ``map`` chain between two operations),
`flatten_single_lists` and `mstype_to_detype`.

Spore's pipeline element type is a NumPy dtype (MindData's is its C++ ``DataType``), so
`mstype_to_detype` maps a MindSpore/Spore dtype to the NumPy dtype the pipeline carries.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

__all__ = ["DebugHook", "flatten_single_lists", "mstype_to_detype"]

_log = logging.getLogger("spore.dataset")


class DebugHook(ABC):
    """Base of a debugging hook placed in a ``map`` chain (``ds.map([Decode(), MyHook(), ...])``):
    it receives what the previous operation produced, runs `compute` (print, assert, break into a
    debugger) and passes on what `compute` returns — the arguments themselves, for a hook that
    only looks."""

    def __init__(self, prev_op_name: str | None = None) -> None:
        if prev_op_name is not None and not isinstance(prev_op_name, str):
            raise TypeError(f"DebugHook: prev_op_name must be a str or None, got {type(prev_op_name).__name__}")
        self.prev_op_name = prev_op_name

    def __call__(self, *args: Any) -> Any:
        return self.compute(*args)

    @abstractmethod
    def compute(self, *args: Any) -> Any:
        """Inspect the data between two operations; return what the next operation gets (usually ``args``)."""

    def set_previous_op_name(self, prev_op_name: str) -> None:
        """Name the operation this hook follows (MindSpore sets it when it inserts hooks itself)."""
        self.prev_op_name = prev_op_name


class _LogMetaHook(DebugHook):
    """The hook debug mode uses when no list is given: logs the shape and dtype of each value
    passing between two operations (DEBUG level, logger ``spore.dataset``) and passes them on."""

    def compute(self, *args: Any) -> Any:
        if _log.isEnabledFor(logging.DEBUG):
            _log.debug("map data: %s", ", ".join(f"{np.asarray(a).dtype}{list(np.shape(a))}" for a in args))
        return args


def flatten_single_lists(nested_list: Any) -> Any:
    """Collapse one-element lists that hold a list, recursively: ``[[[3]]] -> [3]``,
    ``[[1, [2]]] -> [1, [2]]``; every other list keeps its length, a non-list is returned as is."""
    if not isinstance(nested_list, list):
        return nested_list
    if len(nested_list) == 1 and isinstance(nested_list[0], list):
        return flatten_single_lists(nested_list[0])
    return [flatten_single_lists(item) for item in nested_list]


def mstype_to_detype(type_: Any) -> np.dtype:
    """The pipeline element type of a MindSpore dtype (``mstype.int32 -> dtype('int32')``); a string
    type gives NumPy's unicode dtype. Anything but a dtype object is a TypeError."""
    from ..common import dtype as mstype

    if isinstance(type_, mstype.DType):
        return np.dtype(type_.np)
    string = getattr(mstype, "string", None)
    if string is not None and type_ is string:
        return np.dtype(np.str_)
    raise TypeError(f"mstype_to_detype: type_ must be a MindSpore dtype such as mstype.int32, got {type_!r}")
