"""``spore.dataset.config``: MindSpore's pipeline-wide settings.

The seed is Spore's one global seed (``spore.set_seed``): a dataset shuffle and a weight
initializer under the same seed are both reproducible, and one call fixes both. The default
worker count is 1, not MindSpore's 8: on a shared machine a serial pipeline is the predictable
default, and ``map(num_parallel_workers=n)`` or ``set_num_parallel_workers(n)`` opts in.
"""

from __future__ import annotations

import enum

from ..common import seed as _seed

_num_parallel_workers = 1
_prefetch_size = 16


def set_seed(seed: int) -> None:
    """Seed every shuffle, sampler and random transform (same as ``spore.set_seed``)."""
    _seed.set_seed(seed)


def get_seed() -> int | None:
    """The global seed, or None when shuffles draw fresh entropy each run."""
    return _seed.get_seed()


def set_num_parallel_workers(num: int) -> None:
    """Default worker count for ``map``/``batch``/sources given ``num_parallel_workers=None``."""
    global _num_parallel_workers
    if not isinstance(num, int) or isinstance(num, bool) or num < 1:
        raise ValueError(f"set_num_parallel_workers: expected a positive int, got {num!r}")
    _num_parallel_workers = num


def get_num_parallel_workers() -> int:
    """The default worker count (1 unless changed)."""
    return _num_parallel_workers


def set_prefetch_size(size: int) -> None:
    """Default buffer size of ``Dataset.prefetch()`` when it is called without one."""
    global _prefetch_size
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise ValueError(f"set_prefetch_size: expected a positive int, got {size!r}")
    _prefetch_size = size


def get_prefetch_size() -> int:
    """The default prefetch buffer size."""
    return _prefetch_size


_shared_mem = True


def set_enable_shared_mem(enable: bool) -> None:
    """Accepted for MindSpore scripts; Spore's worker processes always exchange rows by pickling."""
    global _shared_mem
    _shared_mem = bool(enable)


def get_enable_shared_mem() -> bool:
    """The value last given to ``set_enable_shared_mem`` (it changes nothing in Spore)."""
    return _shared_mem


class ErrorSamplesMode(enum.IntEnum):
    """What ``map`` does when an operation raises on a sample: RETURN raises (the default), REPLACE
    yields the last good sample in its place (the first good one, for failures before it), SKIP drops
    it. With REPLACE or SKIP, ``get_dataset_size`` still counts every input sample, as MindSpore's does."""

    RETURN = 0
    REPLACE = 1
    SKIP = 2


_error_samples_mode = ErrorSamplesMode.RETURN


def set_error_samples_mode(error_samples_mode: ErrorSamplesMode) -> None:
    """Choose how ``map`` handles a sample whose operations raise (see `ErrorSamplesMode`)."""
    global _error_samples_mode
    try:
        _error_samples_mode = ErrorSamplesMode(error_samples_mode)
    except ValueError:
        raise ValueError(f"set_error_samples_mode: expected an ErrorSamplesMode, got {error_samples_mode!r}") from None


def get_error_samples_mode() -> ErrorSamplesMode:
    """The mode set by ``set_error_samples_mode`` (RETURN unless changed)."""
    return _error_samples_mode


_debug_mode = False
_debug_hooks: list | None = None


def set_debug_mode(debug_mode_flag: bool, debug_hook_list: list | None = None) -> None:
    """MindSpore's debug mode runs the pipeline serially with seed 1 so samples can be inspected;
    Spore sets the global seed to 1 when it is turned on, and its pipeline is always Python code a
    debugger can step into. ``debug_hook_list`` (`DebugHook` objects) is run before and after every
    operation of every ``map`` while debug mode is on; None: a hook that logs each operation's
    input/output shapes and types at DEBUG level on the ``spore.dataset`` logger."""
    global _debug_mode, _debug_hooks
    if not isinstance(debug_mode_flag, bool):
        raise TypeError(f"set_debug_mode: debug_mode_flag must be a bool, got {debug_mode_flag!r}")
    if debug_hook_list is not None:
        from .debug_utils import DebugHook

        if not isinstance(debug_hook_list, list):
            raise TypeError(f"set_debug_mode: debug_hook_list must be a list, got {type(debug_hook_list).__name__}")
        bad = [h for h in debug_hook_list if not isinstance(h, DebugHook)]
        if bad:
            raise TypeError(f"set_debug_mode: debug_hook_list must hold DebugHook objects, got {bad[0]!r}")
    _debug_mode = debug_mode_flag
    _debug_hooks = list(debug_hook_list) if debug_hook_list is not None else None
    if debug_mode_flag:
        set_seed(1)


def get_debug_mode() -> bool:
    """Whether ``set_debug_mode(True)`` was called."""
    return _debug_mode


def debug_hooks() -> list | None:
    """The hooks ``map`` runs around its operations: None outside debug mode."""
    if not _debug_mode:
        return None
    if _debug_hooks is None:
        from .debug_utils import _LogMetaHook

        return [_LogMetaHook()]
    return list(_debug_hooks)


_callback_timeout = 60


def set_callback_timeout(timeout: int) -> None:
    """Seconds a `WaitedDSCallback` waits for the training step (or epoch) before it goes on
    without it, with a warning (MindSpore's default: 60)."""
    global _callback_timeout
    if isinstance(timeout, bool) or not isinstance(timeout, int) or timeout <= 0:
        raise ValueError(f"set_callback_timeout: timeout must be a positive int, got {timeout!r}")
    _callback_timeout = timeout


def get_callback_timeout() -> int:
    """The timeout set by ``set_callback_timeout`` (60 unless changed)."""
    return _callback_timeout
