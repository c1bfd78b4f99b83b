"""`Loss`: the mean of the loss values of the batches seen (MindSpore's ``mindspore.train.Loss``)."""

from __future__ import annotations

from typing import Any

from .metric import Metric, rearrange_inputs, require_samples


class Loss(Metric):
    """Average loss over `update` calls; each call takes one loss (a scalar, or a 1-D vector averaged first)."""

    def __init__(self) -> None:
        super().__init__()
        self.clear()

    def clear(self) -> None:
        self._sum_loss = 0.0
        self._total_num = 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        if len(inputs) != 1:
            raise ValueError(f"For 'Loss.update', it needs 1 input (loss), but got {len(inputs)}")
        loss = self._convert_data(inputs[0])
        if loss.ndim == 0:
            loss = loss.reshape(1)
        if loss.ndim != 1:
            raise ValueError(f"For 'Loss.update', the dimension of the loss must be 0 or 1, but got {loss.ndim}.")
        self._sum_loss += float(loss.mean(-1))
        self._total_num += 1

    def eval(self) -> float:
        require_samples(self._total_num, "Loss")
        return self._sum_loss / self._total_num
