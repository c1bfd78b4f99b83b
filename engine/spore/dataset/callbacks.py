"""``DSCallback`` and ``WaitedDSCallback``: user hooks a ``map`` calls as its rows flow
(``ds.map(ops, callbacks=[cb])``), with MindSpore's method names and run-context fields.

A map calls ``ds_begin`` once (the first epoch), then per epoch ``ds_epoch_begin``, and for every
``step_size``-th row (steps 1, 1 + step_size, ...) ``ds_step_begin`` before the row leaves the map
and ``ds_step_end`` once the consumer asks for the next one; ``ds_epoch_end`` when the epoch's rows
run out. The context has ``cur_epoch_num``, ``cur_step_num_in_epoch`` and ``cur_step_num``
(all from 1).

`WaitedDSCallback` is also a training `Callback`: pass the same object to ``map(callbacks=...)`` and
``Model.train(callbacks=...)``. Before it hands over a step's row, the dataset waits until the
training step before it has ended (or the epoch, for ``sync_epoch_begin``), so the hook sees the
network's state of that moment, as MindSpore's does; after ``config.get_callback_timeout()``
seconds it warns and goes on.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator, Sequence
from types import SimpleNamespace
from typing import Any

from ..train.callback._callback import Callback

__all__ = ["DSCallback", "WaitedDSCallback"]


def _step_size(step_size: Any, owner: str) -> int:
    if isinstance(step_size, bool) or not isinstance(step_size, int) or step_size < 1:
        raise ValueError(f"{owner}: step_size must be a positive int, got {step_size!r}")
    return step_size


class DSCallback:
    """Base of dataset callbacks: override the ``ds_*`` methods you need (each gets the run context)."""

    def __init__(self, step_size: int = 1) -> None:
        self.step_size = _step_size(step_size, type(self).__name__)

    def ds_begin(self, ds_run_context: Any) -> None:
        """Called once, before the first row of the first epoch."""

    def ds_epoch_begin(self, ds_run_context: Any) -> None:
        """Called before each epoch's first row."""

    def ds_epoch_end(self, ds_run_context: Any) -> None:
        """Called after each epoch's last row."""

    def ds_step_begin(self, ds_run_context: Any) -> None:
        """Called before every ``step_size``-th row leaves the map."""

    def ds_step_end(self, ds_run_context: Any) -> None:
        """Called after every ``step_size``-th row was consumed."""


class WaitedDSCallback(Callback, DSCallback):
    """A dataset callback synchronised with training: override ``sync_epoch_begin`` and
    ``sync_step_begin(train_run_context, ds_run_context)``; each runs when the dataset is about to
    hand over the first row of an epoch (a step) and the previous training epoch (step) has ended."""

    def __init__(self, step_size: int = 1) -> None:
        DSCallback.__init__(self, step_size)
        self.epoch_event, self.step_event = threading.Event(), threading.Event()
        self.train_run_context: Any = None
        self._first_epoch, self._first_step = True, True

    def sync_epoch_begin(self, train_run_context: Any, ds_run_context: Any) -> None:
        """Called before an epoch's rows, once the previous training epoch ended."""

    def sync_step_begin(self, train_run_context: Any, ds_run_context: Any) -> None:
        """Called before a step's row, once the previous training step ended."""

    # --- training side ---------------------------------------------------------------------
    def step_end(self, run_context: Any) -> None:
        self.train_run_context = run_context
        self.step_event.set()

    def epoch_end(self, run_context: Any) -> None:
        self.train_run_context = run_context
        self.epoch_event.set()

    def end(self, run_context: Any) -> None:  # training stopped: never leave the dataset waiting
        self.train_run_context = run_context
        self.step_event.set()
        self.epoch_event.set()

    # --- dataset side ----------------------------------------------------------------------
    @staticmethod
    def _wait(event: threading.Event, what: str) -> None:
        from .config import get_callback_timeout

        timeout = get_callback_timeout()
        if not event.wait(timeout):
            warnings.warn(f"WaitedDSCallback: the training {what} did not end within {timeout} s "
                          "(set_callback_timeout); the dataset goes on without it", RuntimeWarning, stacklevel=3)
        event.clear()

    def ds_epoch_begin(self, ds_run_context: Any) -> None:
        if not self._first_epoch:
            self._wait(self.epoch_event, "epoch")
        self._first_epoch = False
        self.sync_epoch_begin(self.train_run_context, ds_run_context)

    def ds_step_begin(self, ds_run_context: Any) -> None:
        if not self._first_step:
            self._wait(self.step_event, "step")
        self._first_step = False
        self.sync_step_begin(self.train_run_context, ds_run_context)


def check_callbacks(callbacks: Any) -> list[DSCallback]:
    """``map``'s ``callbacks`` argument as a list of DSCallbacks."""
    if callbacks is None:
        return []
    cbs = [callbacks] if isinstance(callbacks, DSCallback) else list(callbacks)
    for cb in cbs:
        if not isinstance(cb, DSCallback):
            raise TypeError(f"map: callbacks must be DSCallback objects, got {type(cb).__name__}")
    return cbs


class CallbackRunner:
    """Drives a map's callbacks around its rows (one runner per map node, counting global steps)."""

    def __init__(self, callbacks: Sequence[DSCallback]) -> None:
        self.callbacks = list(callbacks)
        self.begun = False
        self.total = 0

    def wrap(self, rows: Iterator[Any], epoch: int) -> Iterator[Any]:
        ctx = SimpleNamespace(cur_epoch_num=epoch + 1, cur_step_num_in_epoch=0, cur_step_num=self.total)
        if not self.begun:
            self.begun = True
            for cb in self.callbacks:
                cb.ds_begin(ctx)
        for cb in self.callbacks:
            cb.ds_epoch_begin(ctx)
        try:
            for row in rows:
                self.total += 1
                ctx.cur_step_num_in_epoch += 1
                ctx.cur_step_num = self.total
                due = [cb for cb in self.callbacks if (ctx.cur_step_num - 1) % cb.step_size == 0]
                for cb in due:
                    cb.ds_step_begin(ctx)
                yield row
                for cb in due:
                    cb.ds_step_end(ctx)
            for cb in self.callbacks:
                cb.ds_epoch_end(ctx)
        finally:
            close = getattr(rows, "close", None)
            if close is not None:
                close()
