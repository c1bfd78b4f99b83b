"""`DatasetHelper`, `data_sink`, `connect_network_with_dataset` and `load_segmented_checkpoints`:
the MindSpore helpers that feed a dataset to a network step by step.

MindSpore's "sink mode" pushes batches into an Ascend/GPU device queue that the compiled graph
reads. Spore runs on the CPU with no device queue, so sink mode takes the same path as non-sink
mode (as MindSpore's own CPU backend does): `DatasetHelper` yields each batch as a tuple of
Tensors, `connect_network_with_dataset` returns the network unchanged, and `data_sink`'s function
runs `sink_size` steps on the next batches per call. Results are the same; only the transfer
mechanism differs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any


def _check_dataset(dataset: Any, owner: str) -> None:
    from ..dataset.core import Dataset

    if not isinstance(dataset, Dataset):
        raise TypeError(f"{owner}: dataset must be a spore.dataset Dataset, got {type(dataset).__name__}")


class DatasetHelper:
    """Iterate a dataset for training: ``for batch in helper: net(*batch)``; one pass of the for
    loop is one epoch (`epoch_num` passes in all)."""

    def __init__(self, dataset: Any, dataset_sink_mode: bool = True, sink_size: int = -1, epoch_num: int = 1) -> None:
        _check_dataset(dataset, "DatasetHelper")
        if not isinstance(dataset_sink_mode, bool):
            raise TypeError(f"DatasetHelper: dataset_sink_mode must be a bool, got {type(dataset_sink_mode).__name__}")
        if isinstance(sink_size, bool) or not isinstance(sink_size, int) or (sink_size < 1 and sink_size != -1):
            raise ValueError(f"DatasetHelper: sink_size must be -1 or a positive int, got {sink_size!r}")
        if isinstance(epoch_num, bool) or not isinstance(epoch_num, int) or epoch_num < 1:
            raise ValueError(f"DatasetHelper: epoch_num must be a positive int, got {epoch_num!r}")
        self.dataset, self.dataset_sink_mode = dataset, dataset_sink_mode
        self._sink_size, self.epoch_num = sink_size, epoch_num
        self._iter = dataset.create_tuple_iterator(num_epochs=epoch_num)
        self._epochs_done = 0
        self._stopped = False

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        if self._epochs_done >= self.epoch_num:
            raise RuntimeError(f"DatasetHelper: all {self.epoch_num} epoch(s) were already iterated")
        self._epochs_done += 1
        steps = self.sink_size() if self.dataset_sink_mode else None
        for i, row in enumerate(self._iter):
            if self._stopped:
                return
            yield tuple(row)
            if steps is not None and i + 1 >= steps:
                return

    def sink_size(self) -> int:
        """Steps per epoch: `sink_size`, or the dataset's size when it is -1."""
        return self.dataset.get_dataset_size() if self._sink_size == -1 else self._sink_size

    def types_shapes(self) -> tuple[list[Any], list[Any]]:
        """The dataset's column types and shapes."""
        return self.dataset.output_types(), self.dataset.output_shapes()

    def get_data_info(self) -> tuple[list[Any], list[Any]]:
        """The types and shapes of the next batch (the dataset's output types and shapes)."""
        return self.types_shapes()

    def stop_send(self) -> None:
        """Stop feeding: the current epoch's loop ends at its next step."""
        self._stopped = True

    def continue_send(self) -> None:
        """Resume feeding after `stop_send`."""
        self._stopped = False

    def release(self) -> None:
        """Release the iterator's resources."""
        self._stopped = True


def connect_network_with_dataset(network: Any, dataset_helper: DatasetHelper) -> Any:
    """The network that reads the helper's data: on Spore the network itself, called with each
    batch from iterating the helper (there is no device queue to bind to)."""
    from ..nn.cell import Cell

    if not isinstance(network, Cell):
        raise TypeError(f"connect_network_with_dataset: network must be a Cell, got {type(network).__name__}")
    if not isinstance(dataset_helper, DatasetHelper):
        raise TypeError("connect_network_with_dataset: dataset_helper must be a DatasetHelper, got "
                        f"{type(dataset_helper).__name__}")
    return network


def data_sink(fn: Callable[..., Any], dataset: Any, sink_size: int = 1, jit_config: Any = None,
              input_signature: Any = None) -> Callable[[], Any]:
    """A function of no arguments that runs ``fn(*batch)`` on the next `sink_size` batches of
    `dataset` (starting a new epoch when one ends) and returns the last step's result.
    `jit_config` compiles `fn` with `spore.jit`; `input_signature` is accepted for compatibility
    (Spore's jit reads shapes from the batches)."""
    if not callable(fn):
        raise TypeError(f"data_sink: fn must be callable, got {type(fn).__name__}")
    _check_dataset(dataset, "data_sink")
    if isinstance(sink_size, bool) or not isinstance(sink_size, int) or sink_size < 1:
        raise ValueError(f"data_sink: sink_size must be a positive int, got {sink_size!r}")
    step = fn
    if jit_config is not None:
        from ..compiler.jit import jit

        step = jit(fn)
    state: dict[str, Any] = {"it": None}

    def next_batch() -> tuple[Any, ...]:
        for _ in range(2):
            if state["it"] is None:
                state["it"] = iter(dataset.create_tuple_iterator(num_epochs=1))
            try:
                return tuple(next(state["it"]))
            except StopIteration:
                state["it"] = None
        raise ValueError("data_sink: the dataset is empty")

    def sink_fun() -> Any:
        out = None
        for _ in range(sink_size):
            out = step(*next_batch())
        return out

    return sink_fun


def load_segmented_checkpoints(ckpt_file_dir: str, net: Any = None, strict_load: bool = False,
                               filter_prefix: Any = None, dec_key: Any = None, dec_mode: str = "AES-GCM",
                               specify_prefix: Any = None, choice_func: Any = None) -> dict[str, Any]:
    """Load every ``.ckpt`` file of a directory (a checkpoint saved in segments) into one
    parameter dict, loading it into `net` when given. A name found in two files is an error."""
    from .checkpoint import load_checkpoint, load_param_into_net

    if not isinstance(ckpt_file_dir, str) or not os.path.isdir(ckpt_file_dir):
        raise ValueError(f"load_segmented_checkpoints: ckpt_file_dir must be an existing directory, got "
                         f"{ckpt_file_dir!r}")
    files = sorted(f for f in os.listdir(ckpt_file_dir) if f.endswith(".ckpt"))
    if not files:
        raise ValueError(f"load_segmented_checkpoints: no .ckpt file in {ckpt_file_dir!r}")
    merged: dict[str, Any] = {}
    for f in files:
        part = load_checkpoint(os.path.join(ckpt_file_dir, f), filter_prefix=filter_prefix, dec_key=dec_key,
                               dec_mode=dec_mode, specify_prefix=specify_prefix, choice_func=choice_func)
        dup = sorted(set(part) & set(merged))
        if dup:
            raise ValueError(f"load_segmented_checkpoints: parameters {dup} appear in more than one file "
                             f"(second: {f})")
        merged.update(part)
    if net is not None:
        load_param_into_net(net, merged, strict_load=strict_load)
    return merged


__all__ = ["DatasetHelper", "connect_network_with_dataset", "data_sink", "load_segmented_checkpoints"]
