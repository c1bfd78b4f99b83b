"""`ProgressBar`: a tqdm progress bar for `Model.train`/`fit`/`eval` (a Spore addition, not in MindSpore).

One bar per epoch, ``Epoch 2/10``, with the step count, the latest loss and the throughput in
samples per second; at the end of a `Model.fit` epoch the evaluation metrics join the postfix
as ``eval_<name>`` (``eval_accuracy=0.9712``).
It uses ``tqdm.auto``, so the same callback draws a text bar in a terminal and a widget in Jupyter
(VS Code notebooks included).

    model.train(10, ds, callbacks=[ProgressBar()])
"""

from __future__ import annotations

import time
from typing import IO, Any

from ._callback import Callback, RunContext, loss_value


def _batch_size(element: Any) -> int:
    """Samples in a batch: the first dimension of its first tensor (1 if it has none)."""
    first = element[0] if isinstance(element, (tuple, list)) and element else element
    shape = getattr(first, "shape", ())
    return int(shape[0]) if shape else 1


class ProgressBar(Callback):
    """Draw training (and evaluation) progress with tqdm.

    Args:
        update_every: refresh the bar every this many steps (fewer redraws for very fast steps).
        leave: keep each finished epoch's bar on screen.
        file: where a text bar is written (default: stderr, as tqdm does).
        ncols: bar width; None adapts to the terminal.
        disable: turn the bar off (e.g. on all but one process).
    """

    def __init__(self, update_every: int = 1, leave: bool = True, file: IO[str] | None = None,
                 ncols: int | None = None, disable: bool = False) -> None:
        super().__init__()
        if isinstance(update_every, bool) or not isinstance(update_every, int) or update_every < 1:
            raise ValueError(f"ProgressBar: 'update_every' must be a positive int, got {update_every!r}")
        self.update_every = update_every
        self.leave = leave
        self.file = file
        self.ncols = ncols
        self.disable = disable
        self._bar: Any = None
        self._pending = 0
        self._samples = 0
        self._t0 = 0.0

    # --- bar handling -------------------------------------------------------------------------
    def _open(self, desc: str, total: int | None) -> None:
        from tqdm.auto import tqdm

        self._close()
        self._bar = tqdm(total=total, desc=desc, unit="step", leave=self.leave, file=self.file, ncols=self.ncols,
                         disable=self.disable, dynamic_ncols=self.ncols is None)
        self._pending, self._samples, self._t0 = 0, 0, time.perf_counter()

    def _advance(self, cb_params: dict, element_key: str, force: bool = False) -> None:
        if self._bar is None:
            return
        self._pending += 1
        self._samples += _batch_size(cb_params.get(element_key))
        if self._pending >= self.update_every or force:
            self._bar.update(self._pending)
            self._pending = 0
            self._bar.set_postfix(self._postfix(cb_params), refresh=False)

    def _postfix(self, cb_params: dict) -> dict[str, str]:
        post: dict[str, str] = {}
        loss = loss_value(cb_params.get("net_outputs")) if cb_params.get("mode") == "train" else None
        if loss is not None:
            post["loss"] = f"{loss:.4f}"
        elapsed = time.perf_counter() - self._t0
        if elapsed > 0 and self._samples:
            post["samples/s"] = f"{self._samples / elapsed:.1f}"
        return post

    def _finish(self, extra: dict[str, Any] | None = None) -> None:
        if self._bar is None:
            return
        if self._pending:
            self._bar.update(self._pending)
            self._pending = 0
        if extra:
            post = dict(self._bar.postfix and _parse_postfix(self._bar.postfix) or {})
            post.update({f"eval_{k}": (f"{v:.4f}" if isinstance(v, float) else str(v)) for k, v in extra.items()})
            self._bar.set_postfix(post, refresh=False)
        self._close()

    def _close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __exit__(self, *err: Any) -> None:
        self._close()

    # --- hooks --------------------------------------------------------------------------------
    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        last = (cb.get("epoch_num") or 0) + (cb.get("initial_epoch") or 0)
        self._open(f"Epoch {cb.get('cur_epoch_num')}/{last}", cb.get("batch_num") or None)

    def on_train_step_end(self, run_context: RunContext) -> None:
        self._advance(run_context.original_args(), "train_dataset_element")

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        metrics = run_context.original_args().get("metrics")
        self._finish({k: v for k, v in (metrics or {}).items() if isinstance(v, (int, float))})

    def on_train_end(self, run_context: RunContext) -> None:
        self._close()

    def on_eval_epoch_begin(self, run_context: RunContext) -> None:
        self._open("Eval", run_context.original_args().get("batch_num") or None)

    def on_eval_step_end(self, run_context: RunContext) -> None:
        self._advance(run_context.original_args(), "eval_dataset_element")

    def on_eval_end(self, run_context: RunContext) -> None:
        metrics = run_context.original_args().get("metrics")
        self._finish({k: v for k, v in (metrics or {}).items() if isinstance(v, (int, float))})


def _parse_postfix(text: str) -> dict[str, str]:
    """tqdm keeps the postfix as "k=v, k=v"; read it back so metrics can be appended to it."""
    out = {}
    for part in str(text).split(", "):
        key, sep, value = part.partition("=")
        if sep:
            out[key] = value
    return out
