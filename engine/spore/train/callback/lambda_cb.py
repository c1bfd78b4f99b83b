"""`LambdaCallback`: a callback made of plain functions, one per hook (MindSpore's ``LambdaCallback``)."""

from __future__ import annotations

from collections.abc import Callable

from ._callback import Callback, RunContext

_NAMES = ("on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin", "on_train_step_end",
          "on_train_begin", "on_train_end", "on_eval_epoch_begin", "on_eval_epoch_end", "on_eval_step_begin",
          "on_eval_step_end", "on_eval_begin", "on_eval_end")


class LambdaCallback(Callback):
    """Each given function ``f(run_context)`` is called at its hook; hooks left None do nothing."""

    def __init__(self, on_train_epoch_begin: Callable | None = None, on_train_epoch_end: Callable | None = None,
                 on_train_step_begin: Callable | None = None, on_train_step_end: Callable | None = None,
                 on_train_begin: Callable | None = None, on_train_end: Callable | None = None,
                 on_eval_epoch_begin: Callable | None = None, on_eval_epoch_end: Callable | None = None,
                 on_eval_step_begin: Callable | None = None, on_eval_step_end: Callable | None = None,
                 on_eval_begin: Callable | None = None, on_eval_end: Callable | None = None) -> None:
        super().__init__()
        given = dict(zip(_NAMES, (on_train_epoch_begin, on_train_epoch_end, on_train_step_begin, on_train_step_end,
                                  on_train_begin, on_train_end, on_eval_epoch_begin, on_eval_epoch_end,
                                  on_eval_step_begin, on_eval_step_end, on_eval_begin, on_eval_end)))
        for name, fn in given.items():
            if fn is not None and not callable(fn):
                raise TypeError(f"For 'LambdaCallback', '{name}' must be callable or None, got {type(fn).__name__}")
            # the instance attribute replaces the hook: a None hook does nothing (not the 1.x forward)
            setattr(self, name, fn if fn is not None else _nothing)


def _nothing(run_context: RunContext) -> None:
    """A hook that does nothing."""
