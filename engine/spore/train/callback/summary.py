"""`SummaryCollector`: training summaries as TensorBoard event files (MindSpore's ``SummaryCollector``).

MindSpore writes its own summary format for MindInsight; Spore writes TensorBoard's, through
tensorboardX, so ``tensorboard --logdir <summary_dir>`` shows the run. Collected:

- scalars ``loss`` and ``learning_rate`` at the first step and every `collect_freq` steps
  (``collect_metric``);
- scalars ``eval/<name>`` for the evaluation results of `Model.fit` epochs (and of `Model.eval`
  when the collector is passed to it), e.g. ``eval/accuracy``, ``eval/eval_loss``;
- histograms of parameters named by their parameter names, on the same steps: those matching the
  regular expression ``histogram_regular``, or by default the first five;
- ``network`` (text): the network's structure, once per training run (``collect_graph``);
- ``custom_lineage_data`` (text), if given.

MindInsight-only data (lineage, dataset graph, input images, loss landscape, TensorSummary
export) is accepted in `collect_specified_data` for compatibility and not written.
"""

from __future__ import annotations

import itertools
import os
import re
from typing import Any

import numpy as np

from ._callback import Callback, RunContext, loss_value

_DEFAULTS: dict[str, Any] = {
    "collect_metric": True,
    "collect_graph": True,
    "collect_train_lineage": True,
    "collect_eval_lineage": True,
    "collect_input_data": True,
    "collect_dataset_graph": True,
    "histogram_regular": None,
    "collect_landscape": None,
}
_DEFAULT_HISTOGRAMS = 5
_FILE_NUMBERS = itertools.count()


def _positive(name: str, value: Any, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f'For "SummaryCollector", the value of `{name}` should be an int greater than 0, '
                         f"but got `{value!r}`.")


def current_learning_rate(optimizer: Any) -> float | None:
    """The rate the optimizer used for its latest step (the first group's, with group rates)."""
    from ...tensor import Tensor

    lr = getattr(optimizer, "learning_rate", None)
    if isinstance(lr, tuple) and lr:
        lr = lr[0]
    if isinstance(lr, Tensor) and lr.size == 1 and not getattr(optimizer, "dynamic_lr", False):
        return float(lr.asnumpy().reshape(()))
    step_param = getattr(optimizer, "global_step", None)
    if lr is None or step_param is None:
        return None
    try:
        from ...nn.optim._rates import rate_value

        step = max(int(step_param.asnumpy().reshape(-1)[0]) - 1, 0)  # the step just taken
        return float(rate_value(getattr(lr, "learning_rate", lr), step))
    except (ImportError, TypeError, ValueError, IndexError, AttributeError):
        return None


class SummaryCollector(Callback):
    """Write loss, learning rate, evaluation metrics and parameter histograms for TensorBoard.

    Arguments follow MindSpore's signature. Only `summary_dir`, `collect_freq`,
    `collect_specified_data` (``collect_metric``, ``collect_graph``, ``histogram_regular``),
    `keep_default_action` and `custom_lineage_data` change what is written; `num_process`,
    `collect_tensor_freq`, `max_file_size` and `export_options` are validated and ignored.
    """

    def __init__(self, summary_dir: str | os.PathLike, collect_freq: int = 10, num_process: int = 32,
                 collect_specified_data: dict | None = None, keep_default_action: bool = True,
                 custom_lineage_data: dict | None = None, collect_tensor_freq: int | None = None,
                 max_file_size: int | None = None, export_options: dict | None = None) -> None:
        super().__init__()
        if not isinstance(summary_dir, (str, os.PathLike)):
            raise TypeError(f"For 'SummaryCollector', 'summary_dir' must be a str path, got {type(summary_dir)}")
        _positive("collect_freq", collect_freq)
        _positive("num_process", num_process)
        _positive("collect_tensor_freq", collect_tensor_freq, allow_none=True)
        _positive("max_file_size", max_file_size, allow_none=True)
        if not isinstance(keep_default_action, bool):
            raise TypeError(f"For 'SummaryCollector', 'keep_default_action' must be a bool, "
                            f"got {keep_default_action!r}")
        if export_options is not None and (not isinstance(export_options, dict) or
                                           set(export_options) - {"tensor_format"}):
            raise ValueError(f"For 'SummaryCollector', 'export_options' supports only {{'tensor_format'}}, "
                             f"got {export_options!r}")
        self._summary_dir = os.path.realpath(os.fspath(summary_dir))
        os.makedirs(self._summary_dir, exist_ok=True)
        self._collect_freq = collect_freq
        self._specified = self._process_specified(collect_specified_data, keep_default_action)
        regular = self._specified["histogram_regular"]
        self._histogram_re = re.compile(regular) if regular else None
        # keep_default_action=False turns off what was not asked for, histograms included
        self._collect_histograms = keep_default_action or "histogram_regular" in (collect_specified_data or {})
        self._custom_lineage = self._check_lineage(custom_lineage_data)
        self._writer: Any = None
        self._first_step = True
        self._last_step = 0

    @property
    def summary_dir(self) -> str:
        return self._summary_dir

    @staticmethod
    def _process_specified(specified: dict | None, keep_default: bool) -> dict[str, Any]:
        if specified is None:
            return dict(_DEFAULTS)
        if not isinstance(specified, dict):
            raise TypeError(f"For 'SummaryCollector', 'collect_specified_data' must be a dict or None, "
                            f"got {type(specified).__name__}")
        unknown = sorted(set(specified) - set(_DEFAULTS))
        if unknown:
            raise ValueError(f"For 'SummaryCollector', unknown keys {unknown} in 'collect_specified_data'; "
                             f"supported keys: {sorted(_DEFAULTS)}")
        for key, value in specified.items():
            if key == "histogram_regular":
                if value is not None and not isinstance(value, str):
                    raise TypeError(f"'histogram_regular' must be a str or None, got {type(value).__name__}")
            elif key == "collect_landscape":
                if value is not None and not isinstance(value, dict):
                    raise TypeError(f"'collect_landscape' must be a dict or None, got {type(value).__name__}")
            elif not isinstance(value, bool):
                raise TypeError(f"'{key}' in 'collect_specified_data' must be a bool, got {type(value).__name__}")
        base = dict(_DEFAULTS) if keep_default else {k: (None if not isinstance(v, bool) else False)
                                                     for k, v in _DEFAULTS.items()}
        base.update(specified)
        return base

    @staticmethod
    def _check_lineage(data: dict | None) -> dict:
        if data is None:
            return {}
        if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, (int, str, float))
                                                 for k, v in data.items()):
            raise TypeError("For 'SummaryCollector', 'custom_lineage_data' must map str keys to int, str or float")
        return dict(data)

    # --- writer ---------------------------------------------------------------------------------
    def _get_writer(self) -> Any:
        if self._writer is None:
            from tensorboardX import SummaryWriter

            # tensorboardX names files by the second; a train and an eval within one second would
            # share (and truncate) one file without a suffix of our own
            suffix = f".{os.getpid()}.{next(_FILE_NUMBERS):05d}"
            self._writer = SummaryWriter(logdir=self._summary_dir, flush_secs=30, filename_suffix=suffix)
        return self._writer

    def __enter__(self) -> SummaryCollector:
        self._first_step = True
        return self

    def __exit__(self, *err: Any) -> None:
        self.close()

    def close(self) -> None:
        """Flush and close the event file (Model does this when train/eval ends)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    # --- hooks ----------------------------------------------------------------------------------
    def on_train_begin(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        self._first_step = True
        from ...ops.summary_ops import take_pending

        # summary-operator values staged before this run (an earlier experiment, another test in the
        # process) belong to no record: without this, the first collected step wrote them too
        take_pending()
        writer = self._get_writer()
        step = cb.get("cur_step_num", 0)
        if self._specified["collect_graph"] and cb.get("network") is not None:
            writer.add_text("network", "```\n" + repr(cb["network"]) + "\n```", step)
        if self._custom_lineage:
            rows = "\n".join(f"| {k} | {v} |" for k, v in self._custom_lineage.items())
            writer.add_text("custom_lineage_data", "| key | value |\n|---|---|\n" + rows, step)

    def on_train_step_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        step = cb.get("cur_step_num", 0)
        self._last_step = step
        from ...ops.summary_ops import take_pending, write_entries

        pending = take_pending()  # the summary operators' values of this step (not kept for a later one)
        if not (self._first_step or step % self._collect_freq == 0):
            return
        self._first_step = False
        writer = self._get_writer()
        if self._specified["collect_metric"]:
            loss = loss_value(cb.get("net_outputs"))
            if loss is not None:
                writer.add_scalar("loss", loss, step)
            lr = current_learning_rate(cb.get("optimizer"))
            if lr is not None:
                writer.add_scalar("learning_rate", lr, step)
        network = cb.get("train_network")
        if network is not None and self._collect_histograms:
            for name, values in self._histogram_params(network):
                writer.add_histogram(name, values, step)
        write_entries(writer, pending, step)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        results = cb.get("eval_results") or cb.get("metrics")
        if results:
            self._write_eval(results, cb.get("cur_step_num", self._last_step))
        if self._writer is not None:
            self._writer.flush()

    def on_eval_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        if cb.get("metrics"):
            self._write_eval(cb["metrics"], self._last_step)
            self._writer.flush()

    # --- helpers --------------------------------------------------------------------------------
    def _histogram_params(self, network: Any) -> list[tuple[str, np.ndarray]]:
        out = []
        for _, p in network.parameters_and_names():
            if not p.dtype.is_float:
                continue
            if self._histogram_re is not None:
                if self._histogram_re.match(p.name):
                    out.append((p.name, p.asnumpy().astype(np.float64)))
            elif len(out) < _DEFAULT_HISTOGRAMS:
                out.append((p.name, p.asnumpy().astype(np.float64)))
        return out

    def _write_eval(self, results: dict, step: int) -> None:
        if not self._specified["collect_metric"]:
            return
        writer = self._get_writer()
        for name, value in results.items():
            arr = np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)
            if arr.dtype.kind not in "biuf":
                continue
            if arr.size == 1:
                writer.add_scalar(f"eval/{name}", float(arr.reshape(())), step)
            else:
                for i, v in enumerate(arr.reshape(-1)):
                    writer.add_scalar(f"eval/{name}/{i}", float(v), step)
