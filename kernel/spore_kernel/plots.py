"""Pictures of tensors, rendered only when asked for (`t.plt` or `%spore_plot`).

1-D: a histogram of the values. 2-D: a heatmap. 3-D (C, H, W): one panel per channel. 4-D
(N, C, H, W): a grid of samples by channels; panels share one colour scale so they compare.
Large tensors are strided down to `MAX_SIDE` pixels per side and at most `MAX_PANELS` panels
before anything is drawn, so a picture costs bounded work.
matplotlib is imported here, on first use, through its object API (no pyplot): the kernel starts
without it and the user's own pyplot state and backend are left alone.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from .stats import as_float, bounded_values

MAX_SIDE = 256
MAX_ROWS, MAX_COLS = 4, 8
MAX_PANELS = MAX_ROWS * MAX_COLS


def _down(img: np.ndarray) -> np.ndarray:
    """Stride a 2-D array down to at most MAX_SIDE per side (a view: no copy of the big array)."""
    sy = max(1, -(-img.shape[0] // MAX_SIDE))
    sx = max(1, -(-img.shape[1] // MAX_SIDE))
    return img[::sy, ::sx]


def _float(a: np.ndarray) -> np.ndarray:
    """A small piece of the tensor as floats matplotlib can draw (bool and int included)."""
    return as_float(a) if a.dtype.kind in "fV" else a.astype(np.float32)


def _joint_range(panels: list[np.ndarray]) -> tuple[float, float]:
    """One colour scale for all panels (of the finite values), so channels can be compared."""
    vals = [v[np.isfinite(v)] for v in map(_float, panels)]
    vals = [v for v in vals if v.size]
    if not vals:
        return 0.0, 1.0
    return min(float(v.min()) for v in vals), max(float(v.max()) for v in vals)


def _panels(arr: np.ndarray) -> tuple[list[list[np.ndarray]], list[str], list[str]]:
    """Rows of 2-D panels with row and column labels, for 3-D and 4-D tensors."""
    if arr.ndim == 3:
        chans = [_down(arr[c]) for c in range(min(arr.shape[0], MAX_PANELS))]
        rows = [chans[i:i + MAX_COLS] for i in range(0, len(chans), MAX_COLS)]
        return rows, [f"c{i * MAX_COLS}" for i in range(len(rows))], []
    n, c = min(arr.shape[0], MAX_ROWS), min(arr.shape[1], MAX_COLS)
    rows = [[_down(arr[i, j]) for j in range(c)] for i in range(n)]
    return rows, [f"n={i}" for i in range(n)], [f"c={j}" for j in range(c)]


def render_png(arr: np.ndarray, title: str = "") -> bytes:
    """PNG bytes of the picture that suits `arr`'s rank."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if arr.ndim <= 1:
        fig = Figure(figsize=(5, 2.6), dpi=90)
        ax = fig.add_subplot()
        values, sampled = bounded_values(arr.reshape(-1) if arr.ndim == 0 else arr)
        values = _float(values)
        ax.hist(values[np.isfinite(values)], bins=40, color="#4c72b0")
        ax.set_xlabel("value" + (" (sampled)" if sampled else ""))
        ax.set_ylabel("count")
    elif arr.ndim == 2:
        fig = Figure(figsize=(5, 4), dpi=90)
        ax = fig.add_subplot()
        im = ax.imshow(_float(_down(arr)), cmap="viridis", aspect="auto", interpolation="nearest")
        fig.colorbar(im, ax=ax)
    else:
        lead = arr[(0,) * (arr.ndim - 4)] if arr.ndim > 4 else arr
        rows, row_labels, col_labels = _panels(lead)
        shown = sum(len(r) for r in rows)
        total = lead.shape[0] if lead.ndim == 3 else lead.shape[0] * lead.shape[1]
        if shown < total:
            title = f"{title}\n(showing {shown} of {total} panels)"
        ncols = max(len(r) for r in rows)
        lo, hi = _joint_range([p for r in rows for p in r])
        fig = Figure(figsize=(1.6 * ncols + 0.6, 1.6 * len(rows) + 0.4), dpi=80)
        axes = fig.subplots(len(rows), ncols, squeeze=False)
        for i, row in enumerate(rows):
            for j in range(ncols):
                ax = axes[i][j]
                ax.set_xticks([])
                ax.set_yticks([])
                if j < len(row):
                    ax.imshow(_float(row[j]), cmap="viridis", interpolation="nearest", vmin=lo, vmax=hi)
                else:
                    ax.set_axis_off()
                if j == 0 and row_labels:
                    ax.set_ylabel(row_labels[i], fontsize=8)
                if i == 0 and j < len(col_labels):
                    ax.set_title(col_labels[j], fontsize=8)
    if title:
        fig.suptitle(title, fontsize=9)
    buf = io.BytesIO()
    FigureCanvasAgg(fig).print_png(buf)
    return buf.getvalue()


class TensorPlot:
    """What `t.plt` returns: displays as a PNG picture of the tensor."""

    def __init__(self, tensor: Any, title: str = "") -> None:
        self.tensor = tensor
        self.title = title

    def _repr_png_(self) -> bytes:
        from .tensor_view import summary

        return render_png(self.tensor.asnumpy(), self.title or summary(self.tensor))

    def __repr__(self) -> str:
        from .tensor_view import summary

        return f"<plot of {summary(self.tensor)}>"
