"""Tensor and training views with matplotlib: heatmap, histogram, channel grid, training curves.

Each returns a `matplotlib.figure.Figure` (built on the Agg canvas: no display, no pyplot global
state, safe in kernels, tests and worker threads) and saves a PNG when given `save=`. Work is bounded
whatever the tensor size: large matrices are strided down to `max_side` per axis, histograms
sample at most `max_samples` values, channel grids show at most `max_channels` maps.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

PathLike = str | os.PathLike


def to_numpy(t: Any) -> np.ndarray:
    """A numpy view of a spore Tensor / Parameter / array-like (bfloat16 and friends as float32)."""
    if hasattr(t, "asnumpy"):
        t = t.asnumpy()
    a = np.asarray(t)
    if a.dtype.kind not in "biuf":
        a = a.astype(np.float32)
    return a


def _figure(w: float, h: float) -> Figure:
    fig = Figure(figsize=(w, h), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _finish(fig: Figure, save: PathLike | None) -> Figure:
    if save is not None:
        fig.savefig(save, dpi=100)
    return fig


def _stride_down(a: np.ndarray, max_side: int) -> tuple[np.ndarray, tuple[int, ...]]:
    """Every k-th element per axis so no axis exceeds `max_side`; the strides, for the title."""
    steps = tuple(max(1, math.ceil(s / max_side)) for s in a.shape)
    return a[tuple(slice(None, None, k) for k in steps)], steps


def _stats(a: np.ndarray) -> str:
    finite = a[np.isfinite(a)] if a.dtype.kind == "f" else a
    if finite.size == 0:
        return "no finite values"
    text = f"min {finite.min():.4g} · max {finite.max():.4g} · mean {finite.mean():.4g} · std {finite.std():.4g}"
    bad = a.size - finite.size
    return text + (f" · {bad} non-finite" if bad else "")


def tensor_heatmap(t: Any, *, title: str | None = None, cmap: str = "viridis", max_side: int = 512,
                   save: PathLike | None = None) -> Figure:
    """Heatmap of a 2-D tensor (1-D shown as one row; more dims: leading ones flattened into rows).

    Axes: the image and its colorbar. Tensors larger than `max_side` per axis are strided, and the
    title says so, so a 100k x 100k weight costs the same as a 512 x 512 one.
    """
    a = to_numpy(t)
    shape = a.shape
    if a.ndim == 0:
        a = a.reshape(1, 1)
    elif a.ndim == 1:
        a = a.reshape(1, -1)
    elif a.ndim > 2:
        a = a.reshape(-1, a.shape[-1])
    a, steps = _stride_down(a, max_side)
    a = a.astype(np.float32)
    fig = _figure(7, 5.5 if a.shape[0] > 1 else 2.2)
    ax = fig.add_subplot()
    img = ax.imshow(np.where(np.isfinite(a), a, np.nan), cmap=cmap, aspect="auto", interpolation="nearest")
    fig.colorbar(img, ax=ax)
    sub = f"shape {list(shape)}" + (f", every {steps} shown" if any(k > 1 for k in steps) else "")
    ax.set_title((title + "\n" if title else "") + sub, fontsize=10)
    ax.set_xlabel(_stats(a), fontsize=8)
    return _finish(fig, save)


def histogram(t: Any, *, bins: int = 60, title: str | None = None, log: bool = False,
              max_samples: int = 1_000_000, save: PathLike | None = None) -> Figure:
    """Value distribution (one axes); over `max_samples` values a fixed-seed random sample is used."""
    a = to_numpy(t).reshape(-1)
    n = a.size
    if n > max_samples:
        a = a[np.random.default_rng(0).choice(n, max_samples, replace=False)]
    a = a.astype(np.float64)
    finite = a[np.isfinite(a)]
    fig = _figure(6.5, 4)
    ax = fig.add_subplot()
    ax.hist(finite, bins=bins, color="#6366f1", alpha=0.85, log=log)
    ax.set_title((title + "\n" if title else "") + f"{n:,} values" + (f" ({a.size:,} sampled)" if n > a.size else ""),
                 fontsize=10)
    ax.set_xlabel(_stats(a), fontsize=8)
    ax.set_ylabel("count")
    ax.grid(alpha=0.3)
    return _finish(fig, save)


def channel_grid(t: Any, *, sample: int = 0, max_channels: int = 64, max_side: int = 128, cmap: str = "magma",
                 shared_scale: bool = False, title: str | None = None, save: PathLike | None = None) -> Figure:
    """One small image per channel: (C, H, W), or (N, C, H, W) showing sample `sample` (NCHW).

    Returns a figure with ceil(sqrt(C))-wide grid; unused cells are hidden, so the number of images
    is min(C, max_channels). Each map has its own colour scale unless `shared_scale`.
    """
    a = to_numpy(t)
    if a.ndim == 4:
        a = a[sample]
    if a.ndim != 3:
        raise ValueError(f"channel_grid: expected a (C,H,W) or (N,C,H,W) tensor, got shape {list(to_numpy(t).shape)}")
    c_total = a.shape[0]
    a = a[:max_channels]
    a, _ = _stride_down(a, max_side)
    a = a.astype(np.float32)
    c = a.shape[0]
    cols = math.ceil(math.sqrt(c))
    rows = math.ceil(c / cols)
    fig = _figure(1.6 * cols + 0.4, 1.6 * rows + 0.6)
    axes = fig.subplots(rows, cols, squeeze=False)
    vmin, vmax = (float(np.nanmin(a)), float(np.nanmax(a))) if shared_scale else (None, None)
    for k, ax in enumerate(axes.flat):
        ax.set_xticks([])
        ax.set_yticks([])
        if k >= c:
            ax.set_visible(False)
            continue
        ax.imshow(a[k], cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest")
        ax.set_title(f"ch {k}", fontsize=7, pad=2)
    shown = f"{c} of {c_total} channels" if c < c_total else f"{c} channels"
    fig.suptitle((title + " — " if title else "") + shown, fontsize=10)
    return _finish(fig, save)


def tensor_view(t: Any, *, title: str | None = None, save: PathLike | None = None) -> Figure:
    """The natural view of a tensor: channels for 3-D/4-D, heatmap for 2-D, histogram otherwise."""
    a = to_numpy(t)
    if a.ndim in (3, 4):
        return channel_grid(a, title=title, save=save)
    if a.ndim == 2:
        return tensor_heatmap(a, title=title, save=save)
    return histogram(a, title=title, save=save)


def _history_dict(history: Any) -> dict[str, list[float]]:
    """Accepts a dict of lists, a Keras-style History (`.history`), or an object with `.to_dict()`."""
    if hasattr(history, "history") and isinstance(history.history, Mapping):
        history = history.history
    elif hasattr(history, "to_dict"):
        history = history.to_dict()
    if not isinstance(history, Mapping):
        raise TypeError(f"training_curves: expected a dict of lists or a History, got {type(history).__name__}")
    out = {}
    for k, v in history.items():
        if isinstance(v, (Sequence, np.ndarray)) and not isinstance(v, str) and len(v):
            out[str(k)] = [float(x) for x in np.asarray(v, dtype=np.float64).reshape(-1)]
    return out


def training_curves(history: Any, *, x: str | None = None, smooth: float = 0.0, max_points: int = 5000,
                    title: str | None = None, save: PathLike | None = None) -> Figure:
    """Loss and metric curves from a dict of lists (e.g. {"loss": [...], "val_loss": [...], "accuracy": [...]}).

    Losses go on the first axes, other metrics on a second one (so the figure has 1 or 2 axes);
    `val_*` series share the colour of their training twin, dashed. `x` names a key holding the
    x values ("step", "epoch"); otherwise the index is used. Long series are strided to `max_points`;
    `smooth` in [0, 1) applies an exponential moving average (the raw series stays faint behind it).
    """
    h = _history_dict(history)
    xs = None
    if x is not None:
        if x not in h:
            raise ValueError(f"training_curves: no series {x!r} for the x axis; have {sorted(h)}")
        xs = h.pop(x)
    else:
        x = next((k for k in ("step", "epoch") if k in h), None)
        xs = h.pop(x) if x is not None else None
    for key in ("step", "epoch"):  # index-like columns are never curves
        h.pop(key, None)
    if not h:
        raise ValueError("training_curves: the history has no series to plot")
    losses = [k for k in h if "loss" in k.lower()]
    metrics = [k for k in h if k not in losses]
    panels = [p for p in (losses, metrics) if p]
    fig = _figure(6.5 * len(panels), 4)
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    colors = {}
    for ax, keys in zip(axes, panels, strict=True):
        for k in keys:
            base = k[4:] if k.startswith("val_") else k
            color = colors.setdefault(base, f"C{len(colors) % 10}")
            y = np.asarray(h[k])
            xv = np.asarray(xs[:len(y)] if xs is not None and len(xs) >= len(y) else np.arange(len(y)))
            step = max(1, math.ceil(len(y) / max_points))
            xv, y = xv[::step], y[::step]
            style = "--" if k.startswith("val_") else "-"
            if smooth > 0 and len(y) > 1:
                ax.plot(xv, y, style, color=color, alpha=0.25, linewidth=1)
                y = _ema(y, smooth)
            ax.plot(xv, y, style, color=color, label=k, linewidth=1.6, marker="o" if len(y) <= 30 else None,
                    markersize=3)
        ax.set_xlabel(x or "index")
        ax.set_ylabel("loss" if keys is losses else "metric")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    if title:
        fig.suptitle(title, fontsize=11)
    return _finish(fig, save)


def _ema(y: np.ndarray, alpha: float) -> np.ndarray:
    out = np.empty_like(y, dtype=np.float64)
    acc = y[0]
    for i, v in enumerate(y):
        acc = alpha * acc + (1 - alpha) * v
        out[i] = acc
    return out
