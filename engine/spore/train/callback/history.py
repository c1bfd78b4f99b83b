"""`History`: records the loss and evaluation metrics of every epoch (MindSpore's ``History``)."""

from __future__ import annotations

from typing import Any

from ._callback import Callback, RunContext, loss_value


class History(Callback):
    """After training, ``history.epoch == {"epoch": [1, 2, ...]}`` and ``history.history`` maps
    ``"net_output"`` (the last step's loss of each epoch) and each metric name (with `Model.fit`)
    to a list with one value per epoch.
    """

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list[Any]] = {}
        self.epoch: dict[str, list[int]] = {"epoch": []}

    def begin(self, run_context: RunContext) -> None:
        self.epoch = {"epoch": []}

    def epoch_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        self.epoch["epoch"].append(cb_params.get("cur_epoch_num", 1))
        out = cb_params.get("net_outputs")
        loss = loss_value(out)
        record: dict[str, Any] = {"net_output": loss if loss is not None else out}
        metrics = cb_params.get("metrics")
        if metrics:
            record.update(metrics)
        for key, value in record.items():
            self.history.setdefault(key, []).append(value)
