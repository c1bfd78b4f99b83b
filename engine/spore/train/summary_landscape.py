"""MindSpore's `SummaryLandscape` (issue 14): the loss landscape around a trained network
(Li et al., "Visualizing the Loss Landscape of Neural Nets", 2018), written next to the summaries.

``SummaryLandscape(summary_dir).gen_landscapes_with_multi_process(callback_fn, collect_landscape,
device_ids=None, output=None)``: `callback_fn()` returns ``{"model": Model, "network": Cell,
"dataset": Dataset, "metrics": {name: metric}}`` (the model evaluates the network's loss; the
first metric is the value plotted). Two random directions, each normalised filter by filter to the
norm of the parameter it perturbs (biases and other 1-D parameters are left fixed, as in the
paper), span a ``landscape_size`` x ``landscape_size`` grid over [-1, 1]^2 around the current
parameters; the metric is evaluated at every grid point on at most ``num_samples`` samples, and
the parameters are restored afterwards.

Written to `output` (default `summary_dir`): ``landscape_result.npz`` (``x``, ``y`` and the grid
of values ``z``) and, in a TensorBoard event file, the surface as an image (``landscape/result``,
lighter is lower) and its values as text. MindInsight's own landscape format and the "train"
landscape (along the PCA directions of checkpoints that MindSpore's SummaryCollector saves with
``collect_landscape``, which Spore's collector does not save) are not produced: asking for the
train landscape raises a ValueError saying so. `device_ids` and multiple processes do not apply
to one CPU process: the grid is evaluated in this process.
"""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Callable
from typing import Any

import numpy as np

_DEFAULTS = {"landscape_size": 40, "unit": "step", "create_landscape": {"train": False, "result": True},
             "num_samples": 2048, "intervals": None}


class SummaryLandscape:
    """Compute and write the loss landscape of a trained network (see the module docstring)."""

    def __init__(self, summary_dir: str) -> None:
        if not isinstance(summary_dir, (str, os.PathLike)):
            raise TypeError(f"SummaryLandscape: summary_dir must be a str, got {type(summary_dir).__name__}")
        self.summary_dir = os.path.realpath(os.fspath(summary_dir))
        self._ckpt_dir = os.path.join(self.summary_dir, "ckpt_dir")

    def clean_ckpt(self) -> None:
        """Remove the landscape checkpoints directory (``summary_dir/ckpt_dir``) if there is one."""
        if os.path.isdir(self._ckpt_dir):
            shutil.rmtree(self._ckpt_dir)

    def _config(self, collect_landscape: Any) -> dict:
        cfg = dict(_DEFAULTS)
        if collect_landscape is not None:
            if not isinstance(collect_landscape, dict):
                raise TypeError("SummaryLandscape: collect_landscape must be a dict")
            unknown = set(collect_landscape) - set(_DEFAULTS)
            if unknown:
                raise ValueError(f"SummaryLandscape: unknown collect_landscape keys {sorted(unknown)}")
            cfg.update(collect_landscape)
        size = cfg["landscape_size"]
        if isinstance(size, bool) or not isinstance(size, int) or size < 2:
            raise ValueError(f"SummaryLandscape: landscape_size must be an int >= 2, got {size!r}")
        n = cfg["num_samples"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"SummaryLandscape: num_samples must be a positive int, got {n!r}")
        create = cfg["create_landscape"]
        if not isinstance(create, dict):
            raise TypeError("SummaryLandscape: create_landscape must be a dict like {'train': False, 'result': True}")
        if create.get("train"):
            raise ValueError("SummaryLandscape: the 'train' landscape needs the checkpoints MindSpore's "
                             "SummaryCollector saves with collect_landscape, which Spore's does not save; "
                             "use create_landscape={'train': False, 'result': True}")
        if not create.get("result", True):
            raise ValueError("SummaryLandscape: create_landscape asks for no landscape")
        return cfg

    def gen_landscapes_with_multi_process(self, callback_fn: Callable[[], dict], collect_landscape: Any = None,
                                          device_ids: Any = None, output: str | None = None) -> dict:
        """Evaluate and write the result landscape; returns {"x", "y", "z"} (NumPy arrays)."""
        if not callable(callback_fn):
            raise TypeError("SummaryLandscape: callback_fn must be callable")
        cfg = self._config(collect_landscape)
        info = callback_fn()
        for key in ("model", "network", "dataset", "metrics"):
            if not isinstance(info, dict) or key not in info:
                raise ValueError(f"SummaryLandscape: callback_fn must return a dict with {key!r}")
        model, network, dataset, metrics = info["model"], info["network"], info["dataset"], info["metrics"]
        if not metrics:
            raise ValueError("SummaryLandscape: metrics must name at least one metric (e.g. {'Loss': nn.Loss()})")
        metric_name = next(iter(metrics))
        batch = max(int(dataset.get_batch_size()), 1) if hasattr(dataset, "get_batch_size") else 1
        data = dataset.take(max(math.ceil(cfg["num_samples"] / batch), 1)) if hasattr(dataset, "take") else dataset
        params = [p for p in network.trainable_params()]
        base = [p.asnumpy().copy() for p in params]
        rng = np.random.default_rng(0)
        dirs = []
        for _ in range(2):
            d = []
            for w in base:
                r = rng.standard_normal(w.shape).astype(w.dtype)
                if w.ndim <= 1:
                    r[...] = 0  # biases/BN parameters stay fixed (the paper's filter normalisation)
                else:
                    for i in range(w.shape[0]):
                        r[i] *= np.linalg.norm(w[i]) / (np.linalg.norm(r[i]) + 1e-10)
                d.append(r)
            dirs.append(d)
        size = cfg["landscape_size"]
        xs = np.linspace(-1.0, 1.0, size)
        z = np.zeros((size, size), np.float64)
        try:
            for i, a in enumerate(xs):
                for j, b in enumerate(xs):
                    for p, w, d0, d1 in zip(params, base, dirs[0], dirs[1]):
                        p.set_data(w + np.asarray(a, w.dtype) * d0 + np.asarray(b, w.dtype) * d1)
                    z[j, i] = float(np.asarray(model.eval(data)[metric_name]).reshape(-1)[0])
        finally:
            for p, w in zip(params, base):
                p.set_data(w)
        out_dir = os.path.realpath(output) if output else self.summary_dir
        os.makedirs(out_dir, exist_ok=True)
        np.savez(os.path.join(out_dir, "landscape_result.npz"), x=xs, y=xs, z=z)
        self._write_events(out_dir, z, metric_name)
        return {"x": xs, "y": xs, "z": z}

    @staticmethod
    def _write_events(out_dir: str, z: np.ndarray, metric_name: str) -> None:
        from tensorboardX import SummaryWriter

        writer = SummaryWriter(logdir=out_dir, filename_suffix="_landscape")
        try:
            finite = np.where(np.isfinite(z), z, np.nanmax(z[np.isfinite(z)]) if np.isfinite(z).any() else 0.0)
            span = float(finite.max() - finite.min()) or 1.0
            img = 1.0 - (finite - finite.min()) / span  # lighter is lower
            writer.add_image("landscape/result", img[None].astype(np.float32), 0, dataformats="CHW")
            writer.add_text("landscape/result", f"{metric_name} over the [-1, 1]^2 grid:\n\n"
                            + np.array2string(z, precision=5, max_line_width=200), 0)
        finally:
            writer.close()


__all__ = ["SummaryLandscape"]
