"""The dataset-level config getters MindSpore also exports from ``mindspore.dataset`` (watchdog,
multiprocessing start method and timeout, video backend) and `shuffle_to_shuffle_mode`.

Spore's pipeline runs its workers in threads or forked processes of its own (dataset/_parallel.py),
so these report the fixed values that pipeline uses; `set_video_backend` accepts only "CPU", the one
backend a CPU engine has.
"""

from __future__ import annotations

from typing import Any

from .more_sources import Shuffle

_video_backend = "CPU"


def get_enable_watchdog() -> bool:
    """Whether the worker watchdog is on (MindSpore's default, True: a hung worker is reported)."""
    return True


def get_multiprocessing_start_method() -> str:
    """How multiprocessing workers start: "fork" (MindSpore's default on Linux, and Spore's)."""
    return "fork"


def get_multiprocessing_timeout_interval() -> int:
    """Seconds between the warnings a stalled multiprocessing pipeline prints (MindSpore's default, 300)."""
    return 300


def set_video_backend(backend: str) -> None:
    """Choose the video decoding backend; Spore has only "CPU" (MindSpore also accepts "Ascend")."""
    global _video_backend
    if not isinstance(backend, str):
        raise TypeError(f"set_video_backend: backend must be a str, got {type(backend).__name__}")
    if backend != "CPU":
        raise ValueError(f"set_video_backend: backend must be 'CPU' (Spore runs on the CPU), got {backend!r}")
    _video_backend = backend


def get_video_backend() -> str:
    """The video decoding backend set by `set_video_backend` ("CPU")."""
    return _video_backend


def shuffle_to_shuffle_mode(shuffle: Any) -> Shuffle | bool:
    """MindSpore's mapping of a source's ``shuffle`` argument to its mode: None or True is global
    shuffling (`Shuffle.GLOBAL`), False is no shuffling (returned as False), a `Shuffle` is itself."""
    if isinstance(shuffle, Shuffle):
        return shuffle
    if shuffle is None:
        return Shuffle.GLOBAL
    if isinstance(shuffle, bool):
        return Shuffle.GLOBAL if shuffle else False
    raise TypeError(f"shuffle_to_shuffle_mode: shuffle must be a bool, None or Shuffle, got {type(shuffle).__name__}")
