"""`Callback`, `RunContext` and the machinery `Model` uses to call them (MindSpore's semantics).

Hook names follow MindSpore 2.x: `Model` calls ``on_train_begin``, ``on_train_epoch_begin``,
``on_train_step_begin``, ``on_train_step_end``, ``on_train_epoch_end``, ``on_train_end`` (and the
``on_eval_*`` family during evaluation). The ``on_train_*`` defaults forward to the 1.x names
(``begin``, ``epoch_begin``, ``step_begin``, ``step_end``, ``epoch_end``, ``end``), so a callback
written either way works. ``on_eval_*`` do nothing by default, as in MindSpore.

Callbacks are context managers: `Model` enters them all before the first hook and exits them after
the last (even on error), so a callback can open a file in ``__enter__`` and close it in ``__exit__``.
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

_HOOKS = ("on_train_begin", "on_train_epoch_begin", "on_train_step_begin", "on_train_step_end",
          "on_train_epoch_end", "on_train_end", "on_eval_begin", "on_eval_epoch_begin", "on_eval_step_begin",
          "on_eval_step_end", "on_eval_epoch_end", "on_eval_end",
          "begin", "epoch_begin", "step_begin", "step_end", "epoch_end", "end")
LEGACY_HOOKS = frozenset({"begin", "end", "epoch_begin", "epoch_end", "step_begin", "step_end"})


class Callback:
    """Base class of callbacks: override the hooks of the stages you care about.

    Every hook receives a `RunContext`; ``run_context.original_args()`` is the shared cb_params
    (``cur_epoch_num``, ``cur_step_num``, ``batch_num``, ``epoch_num``, ``net_outputs``,
    ``train_network``, ``optimizer``, ``mode``, ...). ``run_context.request_stop()`` ends training
    after the current step.
    """

    def __enter__(self) -> Callback:
        return self

    def __exit__(self, *err: Any) -> None:
        """Release resources here."""

    # --- MindSpore 1.x names (called by the on_train_* defaults) ------------------------------
    def begin(self, run_context: RunContext) -> None:
        """Called once before training starts."""

    def epoch_begin(self, run_context: RunContext) -> None:
        """Called before each epoch."""

    def epoch_end(self, run_context: RunContext) -> None:
        """Called after each epoch."""

    def step_begin(self, run_context: RunContext) -> None:
        """Called before each step."""

    def step_end(self, run_context: RunContext) -> None:
        """Called after each step."""

    def end(self, run_context: RunContext) -> None:
        """Called once after training."""

    # --- training -----------------------------------------------------------------------------
    def on_train_begin(self, run_context: RunContext) -> None:
        """Called once before training starts (defaults to `begin`)."""
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        """Called before each training epoch (defaults to `epoch_begin`)."""
        self.epoch_begin(run_context)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """Called after each training epoch (defaults to `epoch_end`)."""
        self.epoch_end(run_context)

    def on_train_step_begin(self, run_context: RunContext) -> None:
        """Called before each training step (defaults to `step_begin`)."""
        self.step_begin(run_context)

    def on_train_step_end(self, run_context: RunContext) -> None:
        """Called after each training step (defaults to `step_end`)."""
        self.step_end(run_context)

    def on_train_end(self, run_context: RunContext) -> None:
        """Called once after training (defaults to `end`)."""
        self.end(run_context)

    # --- evaluation ---------------------------------------------------------------------------
    def on_eval_begin(self, run_context: RunContext) -> None:
        """Called once before evaluation starts."""

    def on_eval_epoch_begin(self, run_context: RunContext) -> None:
        """Called before the evaluation pass over the dataset."""

    def on_eval_epoch_end(self, run_context: RunContext) -> None:
        """Called after the evaluation pass over the dataset."""

    def on_eval_step_begin(self, run_context: RunContext) -> None:
        """Called before each evaluation step."""

    def on_eval_step_end(self, run_context: RunContext) -> None:
        """Called after each evaluation step."""

    def on_eval_end(self, run_context: RunContext) -> None:
        """Called once after evaluation (cb_params.metrics holds the results)."""


class CallbackList(Callback):
    """Runs a list of callbacks in order for every hook (MindSpore's ``_CallbackManager``).

    As a context manager it enters every callback (in order) and exits them in reverse order.
    """

    def __init__(self, callbacks: Callback | list[Callback] | tuple | None) -> None:
        self._callbacks: list[Callback] = []
        self._stack: ExitStack | None = None
        if isinstance(callbacks, Callback):
            self._callbacks.append(callbacks)
        elif isinstance(callbacks, (list, tuple)):
            for cb in callbacks:
                if not isinstance(cb, Callback):
                    raise TypeError("When the 'callbacks' is a list, the elements in 'callbacks' must be Callback "
                                    f"functions, but got {type(cb).__name__}.")
                self._callbacks.append(cb)
        elif callbacks is not None:
            raise TypeError(f"The 'callbacks' is not a Callback or a list of Callback, got {type(callbacks).__name__}.")

    @property
    def callbacks(self) -> list[Callback]:
        return list(self._callbacks)

    def __enter__(self) -> CallbackList:
        if self._stack is None:
            stack = ExitStack()
            entered = []
            try:
                for cb in self._callbacks:
                    target = stack.enter_context(cb)
                    entered.append(target if isinstance(target, Callback) else cb)
            except BaseException:
                stack.close()
                raise
            self._stack, self._callbacks = stack, entered
        return self

    def __exit__(self, *err: Any) -> Any:
        stack, self._stack = self._stack, None
        return stack.__exit__(*err) if stack is not None else None


def _dispatch(name: str) -> Any:
    def hook(self: CallbackList, run_context: RunContext) -> None:
        for cb in self._callbacks:
            getattr(cb, name)(run_context)

    hook.__name__ = name
    hook.__doc__ = f"Call ``{name}`` of every callback, in order."
    return hook


for _name in _HOOKS:
    setattr(CallbackList, _name, _dispatch(_name))

_CallbackManager = CallbackList  # MindSpore's private name, for code that imports it


class _InternalCallbackParam(dict):
    """cb_params: a dict whose keys read and write as attributes (``cb_params.cur_step_num``)."""

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"cb_params has no field {key!r} (fields: {', '.join(sorted(self))})") from None

    def __setattr__(self, key: str, value: Any) -> None:
        self[key] = value

    def __delattr__(self, key: str) -> None:
        try:
            del self[key]
        except KeyError:
            raise AttributeError(key) from None


InternalCallbackParam = _InternalCallbackParam


class RunContext:
    """What callbacks receive: the model's cb_params (`original_args`) and the stop flag."""

    def __init__(self, original_args: dict) -> None:
        if not isinstance(original_args, dict):
            raise TypeError("The argument 'original_args' of RunContext should be dict type, "
                            f"but got {type(original_args).__name__}.")
        self._original_args = original_args
        self._stop_requested = False

    def original_args(self) -> Any:
        """The cb_params dict (attribute access works too)."""
        return self._original_args

    def request_stop(self) -> None:
        """Ask `Model.train` to stop after the current step (or `Model.eval` after the current batch)."""
        self._stop_requested = True

    def get_stop_requested(self) -> bool:
        """Whether a callback asked to stop."""
        return self._stop_requested


def loss_value(net_outputs: Any) -> float | None:
    """The loss as a float from a network's outputs: the first element of a tuple, averaged.

    What LossMonitor, History, EarlyStopping and the summary all report as "the loss".
    """
    import numpy as np

    from ...tensor import Tensor

    out = net_outputs
    if isinstance(out, (tuple, list)) and out:
        out = out[0]
    if isinstance(out, Tensor):
        return float(np.mean(out.asnumpy()))
    if isinstance(out, np.ndarray):
        return float(np.mean(out))
    if isinstance(out, (int, float, np.number)) and not isinstance(out, bool):
        return float(out)
    return None
