"""`SummaryRecord`: MindSpore's summary writer, writing TensorBoard event files (through
tensorboardX, as `SummaryCollector` does) so ``tensorboard --logdir <log_dir>`` shows them.

As in MindSpore, `add_value(plugin, name, value)` stages a value and `record(step)` writes every
staged value at that step. Plugins: "scalar" (a number or one-element Tensor), "histogram" (any
Tensor/array), "image" (an NCHW/CHW/HW Tensor or array, floats in [0, 1] or uint8), "tensor"
(written as a histogram plus its text form, as TensorBoard has no raw-tensor view) and "graph"
(a Cell: its structure as text). Differences, documented: files are TensorBoard's
``events.out.tfevents.*`` with `file_suffix` appended (`file_prefix` is checked and kept as the
`file_prefix` attribute; tensorboardX fixes the name's start), and MindSpore's `export_options`
(tensor export to .npy) and `max_file_size` rollover are not supported: given, they are refused.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

_PLUGINS = ("scalar", "image", "histogram", "tensor", "graph")


def _array(value: Any, owner: str) -> np.ndarray:
    from ..tensor import Tensor

    if isinstance(value, Tensor):
        return value.asnumpy()
    if isinstance(value, (np.ndarray, int, float, np.number)) and not isinstance(value, bool):
        return np.asarray(value)
    raise TypeError(f"{owner}: value must be a Tensor, ndarray or number, got {type(value).__name__}")


class SummaryRecord:
    """Write scalars, images, histograms, tensors and the network graph to summary files."""

    def __init__(self, log_dir: str, file_prefix: str = "events", file_suffix: str = "_MS", num_process: int = 32,
                 network: Any = None, max_file_size: int | None = None, raise_exception: bool = False,
                 export_options: dict | None = None) -> None:
        for name, v in (("log_dir", log_dir), ("file_prefix", file_prefix), ("file_suffix", file_suffix)):
            if not isinstance(v, str):
                raise TypeError(f"SummaryRecord: {name} must be a str, got {type(v).__name__}")
        if not isinstance(raise_exception, bool):
            raise TypeError(f"SummaryRecord: raise_exception must be a bool, got {type(raise_exception).__name__}")
        if max_file_size is not None:
            raise ValueError("SummaryRecord: max_file_size (file rollover) is not supported by Spore; pass None")
        if export_options:
            raise ValueError("SummaryRecord: export_options (tensor export) is not supported by Spore; pass None")
        from tensorboardX import SummaryWriter

        os.makedirs(log_dir, exist_ok=True)
        self._log_dir, self.file_prefix, self.raise_exception = log_dir, file_prefix, raise_exception
        self._writer: Any = SummaryWriter(logdir=log_dir, flush_secs=120, filename_suffix=file_suffix)
        self._staged: list[tuple[str, str, Any]] = []
        from ..ops.summary_ops import take_pending

        take_pending()  # summary-operator values staged before this record existed belong to no record
        self._mode = "train"
        self._network = network
        self._graph_written = False

    @property
    def log_dir(self) -> str:
        """The directory the summary files are written to."""
        return self._log_dir

    def __enter__(self) -> SummaryRecord:
        return self

    def __exit__(self, *err: Any) -> None:
        self.close()

    def set_mode(self, mode: str) -> None:
        """"train" or "eval": in "eval" mode, `record` writes nothing (MindSpore's behaviour)."""
        if mode not in ("train", "eval"):
            raise ValueError(f"SummaryRecord.set_mode: mode must be 'train' or 'eval', got {mode!r}")
        self._mode = mode

    def add_value(self, plugin: str, name: str, value: Any) -> None:
        """Stage `value` under `name` for the next `record`."""
        if plugin not in _PLUGINS:
            raise ValueError(f"SummaryRecord.add_value: plugin must be one of {list(_PLUGINS)}, got {plugin!r}")
        if not isinstance(name, str) or not name:
            raise ValueError(f"SummaryRecord.add_value: name must be a non-empty str, got {name!r}")
        owner = f"SummaryRecord.add_value({plugin!r})"
        if plugin == "graph":
            from ..nn.cell import Cell

            if not isinstance(value, Cell):
                raise TypeError(f"{owner}: value must be a Cell, got {type(value).__name__}")
            self._staged.append((plugin, name, repr(value)))
            return
        arr = _array(value, owner)
        if plugin == "scalar" and arr.size != 1:
            raise ValueError(f"{owner}: a scalar must have one element, got shape {arr.shape}")
        if plugin == "image" and arr.ndim not in (2, 3, 4):
            raise ValueError(f"{owner}: an image must be HW, CHW or NCHW, got shape {arr.shape}")
        self._staged.append((plugin, name, arr))

    def record(self, step: int, train_network: Any = None, plugin_filter: Any = None) -> bool:
        """Write the staged values at `step` and clear them (the network's structure too, the first
        time one is known); returns True (False in "eval" mode, which writes nothing)."""
        if self._writer is None:
            raise RuntimeError("SummaryRecord.record: the SummaryRecord is closed")
        if isinstance(step, bool) or not isinstance(step, int) or step < 0:
            raise ValueError(f"SummaryRecord.record: step must be a non-negative int, got {step!r}")
        from ..ops.summary_ops import take_pending  # the summary operators' values since the last record

        staged, self._staged = self._staged + take_pending(), []
        if self._mode == "eval":
            return False
        net = train_network if train_network is not None else self._network
        if net is not None and not self._graph_written:
            self._writer.add_text("network", "```\n" + repr(net) + "\n```", step)
            self._graph_written = True
        for plugin, name, v in staged:
            if plugin_filter is not None and not plugin_filter(plugin):
                continue
            if plugin == "scalar":
                self._writer.add_scalar(name, float(v.reshape(())), step)
            elif plugin == "histogram":
                self._writer.add_histogram(name, v.astype(np.float64).ravel(), step)
            elif plugin == "tensor":
                self._writer.add_histogram(name, v.astype(np.float64).ravel(), step)
                self._writer.add_text(name, np.array2string(v), step)
            elif plugin == "image":
                batch = v.reshape((1,) * (4 - v.ndim) + v.shape)  # HW / CHW -> NCHW
                self._writer.add_images(name, batch, step, dataformats="NCHW")
            else:  # graph
                self._writer.add_text(name, "```\n" + v + "\n```", step)
        return True

    def flush(self) -> None:
        """Write everything buffered to disk."""
        self._writer.flush()

    def close(self) -> None:
        """Flush and close the files; further writes raise."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None


__all__ = ["SummaryRecord"]
