"""``Dataset.sync_wait`` / ``Dataset.sync_update``: a pipeline that waits for its consumer.

``ds.sync_wait(condition_name, num_batch=1, callback=None)`` lets ``num_batch`` rows through, then
blocks until the training loop calls ``ds.sync_update(condition_name, data=...)``, which runs
``callback(data)`` (say, to change an augmentation policy from the loss) and lets the next
``num_batch`` rows through. A loop that pulls a row, trains, then calls ``sync_update`` never
waits; with a prefetching pipeline the producer thread waits for the update, as in MindSpore.
A wait longer than ``timeout`` seconds (default 600) is a DatasetError naming the condition: in a
single thread it can only mean that ``sync_update`` was never called.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

from ._seeding import EpochCtx
from .core import Dataset, Row
from .errors import DatasetError

__all__ = ["SyncWaitDataset", "sync_update"]


class SyncWaitDataset(Dataset):
    """The node ``sync_wait`` builds."""

    timeout = 600.0

    def __init__(self, input_dataset: Dataset, condition_name: str, num_batch: int, callback: Callable | None = None
                 ) -> None:
        super().__init__([input_dataset])
        if not isinstance(condition_name, str) or not condition_name:
            raise ValueError(f"sync_wait: condition_name must be a non-empty str, got {condition_name!r}")
        if isinstance(num_batch, bool) or not isinstance(num_batch, int) or num_batch < 1:
            raise ValueError(f"sync_wait: num_batch must be a positive int, got {num_batch!r}")
        if callback is not None and not callable(callback):
            raise TypeError(f"sync_wait: callback must be callable, got {callback!r}")
        self.condition_name, self.num_batch, self.callback = condition_name, num_batch, callback
        self._cond = threading.Condition()
        self._permits = num_batch

    def _columns(self) -> list[str]:
        return self.children[0].get_col_names()

    def _size(self) -> int | None:
        return self.children[0].get_dataset_size()

    def _rows(self, ctx: EpochCtx) -> Iterator[Row]:
        rows = self.children[0]._rows(ctx.child(0))
        try:
            for row in rows:
                with self._cond:
                    if not self._cond.wait_for(lambda: self._permits > 0, timeout=self.timeout):
                        raise DatasetError(f"sync_wait: waited {self.timeout:g} s for sync_update("
                                           f"condition_name={self.condition_name!r})",
                                           hint="call dataset.sync_update(...) after each step of the loop")
                    self._permits -= 1
                yield row
        finally:
            rows.close()  # type: ignore[attr-defined]

    def update(self, num_batch: int | None, data: Any) -> None:
        if self.callback is not None:
            self.callback(data)
        with self._cond:
            self._permits += self.num_batch if num_batch is None else int(num_batch)
            self._cond.notify_all()


def _find(node: Dataset, name: str) -> SyncWaitDataset | None:
    if isinstance(node, SyncWaitDataset) and node.condition_name == name:
        return node
    for child in node.children:
        found = _find(child, name)
        if found is not None:
            return found
    return None


def sync_update(dataset: Dataset, condition_name: str, num_batch: int | None = None, data: Any = None) -> None:
    """Release the ``sync_wait`` named ``condition_name`` in ``dataset``'s pipeline."""
    node = _find(dataset, condition_name)
    if node is None:
        raise DatasetError(f"sync_update: no sync_wait(condition_name={condition_name!r}) in this pipeline")
    if num_batch is not None and (isinstance(num_batch, bool) or not isinstance(num_batch, int) or num_batch < 1):
        raise ValueError(f"sync_update: num_batch must be a positive int or None, got {num_batch!r}")
    node.update(num_batch, data)
