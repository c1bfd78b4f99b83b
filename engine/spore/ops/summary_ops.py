"""MindSpore's summary operators (issue 14): `ScalarSummary`, `ImageSummary`, `TensorSummary` and
`HistogramSummary`, called inside a network as ``ops.ScalarSummary()("loss", loss)``.

As in MindSpore, an operator only stages its value; the next `SummaryRecord.record(step)` — and
`SummaryCollector`, on the steps it collects — writes what was staged since the last record or since
the SummaryRecord was opened (values staged while no record is open are dropped; a value staged
twice under one name keeps the latest, as MindSpore's summary buffer does). In PyNative the value
is staged when the call runs; inside a compiled construct (Graph mode, `ms.jit`) the call becomes
a state-writing equation of the graph that stages the value each time the graph runs, so the
compiled network records the same values.

Checks, as MindSpore's: `name` a non-empty str; ScalarSummary a scalar (or one-element) tensor;
ImageSummary a 4-D NCHW tensor; the others any tensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import ShapeError
from ..tensor import Tensor
from .operation import Operation
from .primitive import TRACING, Aval, Primitive, register

__all__ = ["ScalarSummary", "ImageSummary", "TensorSummary", "HistogramSummary"]

_PENDING: dict[str, tuple[str, np.ndarray]] = {}  # tag -> (plugin, value), in the order first staged


def stage(plugin: str, name: str, value: np.ndarray) -> None:
    """Stage `value` for the next record (replacing an older value of the same tag)."""
    tag = f"{name}[:{plugin.capitalize()}]"
    _PENDING.pop(tag, None)
    _PENDING[tag] = (plugin, np.array(value, copy=True))


def take_pending() -> list[tuple[str, str, np.ndarray]]:
    """The staged (plugin, name, value) entries, cleared: what a record writes."""
    out = [(plugin, tag.rsplit("[:", 1)[0], v) for tag, (plugin, v) in _PENDING.items()]
    _PENDING.clear()
    return out


def _infer(x: Aval, plugin: str = "", name: str = "") -> Aval:
    return Aval((), mstype.bool_)


def _impl(x: np.ndarray, plugin: str = "", name: str = "") -> np.ndarray:
    stage(plugin, name, x)
    return np.asarray(True)


_SUMMARY = register(Primitive("SummaryStage", _infer, _impl, None,
                              "Stages a summary value for the next SummaryRecord.record (a compiled summary "
                              "operator).", nondiff=True, side_effect=True, internal=True))


class _Summary(Operation):
    _plugin = ""

    def _check(self, value: Tensor) -> None:
        pass

    def construct(self, name: str, value: Any) -> None:
        op = type(self).__name__
        if not isinstance(name, str) or not name:
            raise ValueError(f"{op}: name must be a non-empty str, got {name!r}")
        if not isinstance(value, Tensor):
            raise TypeError(f"{op}: value must be a Tensor, got {type(value).__name__}")
        self._check(value)
        if TRACING.builder is not None:
            TRACING.builder.bind(_SUMMARY, [value], {"plugin": self._plugin, "name": name})
            return None
        stage(self._plugin, name, value.asnumpy())
        return None


class ScalarSummary(_Summary):
    """``ScalarSummary()(name, value)``: stage the scalar `value` under `name`."""

    _plugin = "scalar"

    def _check(self, value: Tensor) -> None:
        if value.size != 1 or value.ndim > 1:
            raise ShapeError("ScalarSummary", "a scalar or one-element 1-D value", f"shape {tuple(value.shape)}")


class ImageSummary(_Summary):
    """``ImageSummary()(name, value)``: stage the NCHW image batch `value` under `name`."""

    _plugin = "image"

    def _check(self, value: Tensor) -> None:
        if value.ndim != 4:
            raise ShapeError("ImageSummary", "a 4-D NCHW value", f"shape {tuple(value.shape)}")


class TensorSummary(_Summary):
    """``TensorSummary()(name, value)``: stage the tensor `value` under `name`."""

    _plugin = "tensor"


class HistogramSummary(_Summary):
    """``HistogramSummary()(name, value)``: stage `value` under `name`, written as a histogram."""

    _plugin = "histogram"


def write_entries(writer: Any, entries: list[tuple[str, str, np.ndarray]], step: int) -> None:
    """Write (plugin, name, value) entries to a tensorboardX writer at `step`, as SummaryRecord does."""
    for plugin, name, v in entries:
        if plugin == "scalar":
            writer.add_scalar(name, float(np.asarray(v).reshape(())), step)
        elif plugin == "image":
            writer.add_images(name, v, step, dataformats="NCHW")
        else:
            writer.add_histogram(name, np.asarray(v, np.float64).ravel(), step)
            if plugin == "tensor":
                writer.add_text(name, np.array2string(v), step)
