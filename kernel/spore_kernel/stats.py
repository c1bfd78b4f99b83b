"""Summary statistics of a tensor computed from bounded work.

A notebook displays every value a cell returns, so summarising a 400 MB activation must not cost
a pass over 100 million elements (or a copy of them). Up to `MAX_EXACT` elements are read in full;
beyond that a fixed number of elements spread evenly over the array is gathered by index (no
reshape, which would copy a non-contiguous array) and the statistics say they are sampled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MAX_EXACT = 1 << 20       # elements read in full; above this, statistics come from a sample
SAMPLE = 1 << 16          # elements gathered from a larger tensor
HIST_BINS = 24


@dataclass
class TensorStats:
    """What the displays show about a tensor's values (all plain Python data)."""

    shape: tuple[int, ...]
    dtype: str
    size: int
    nbytes: int
    kind: str                       # "float", "int", "bool"
    sampled: bool = False           # statistics come from `n_read` of `size` elements
    n_read: int = 0
    min: float | None = None
    max: float | None = None
    mean: float | None = None
    std: float | None = None
    n_nan: int = 0
    n_posinf: int = 0
    n_neginf: int = 0
    n_true: int = 0
    all_zero: bool = False
    hist_counts: list[int] = field(default_factory=list)
    hist_edges: list[float] = field(default_factory=list)

    def flags(self) -> list[str]:
        """Warnings worth a glance: NaN/Inf present, every value zero."""
        out = []
        if self.n_nan:
            out.append(f"NaN!{'≈' if self.sampled else ''}{self.n_nan}")
        if self.n_posinf:
            out.append(f"+Inf!{'≈' if self.sampled else ''}{self.n_posinf}")
        if self.n_neginf:
            out.append(f"-Inf!{'≈' if self.sampled else ''}{self.n_neginf}")
        if self.all_zero and self.size:
            out.append("all False" if self.kind == "bool" else "all zeros")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "shape": list(self.shape), "dtype": self.dtype, "size": self.size, "nbytes": self.nbytes,
            "kind": self.kind, "sampled": self.sampled, "n_read": self.n_read,
            "min": self.min, "max": self.max, "mean": self.mean, "std": self.std,
            "n_nan": self.n_nan, "n_posinf": self.n_posinf, "n_neginf": self.n_neginf,
            "n_true": self.n_true, "all_zero": self.all_zero, "flags": self.flags(),
            "histogram": {"counts": self.hist_counts, "edges": self.hist_edges},
        }


def as_float(arr: np.ndarray) -> np.ndarray:
    """bfloat16 (an ml_dtypes 'V' dtype) and float16 computed in float32; others as they are."""
    if arr.dtype.kind == "V" or arr.dtype == np.float16:
        return arr.astype(np.float32)
    return arr


def sample_indices(shape: tuple[int, ...], count: int) -> tuple[np.ndarray, ...]:
    """Index arrays picking `count` elements spread evenly over an array of `shape`."""
    size = int(np.prod(shape, dtype=np.int64))
    flat = np.linspace(0, size - 1, num=min(count, size), dtype=np.int64)
    return np.unravel_index(flat, shape)


def bounded_values(arr: np.ndarray, limit: int = MAX_EXACT, sample: int = SAMPLE) -> tuple[np.ndarray, bool]:
    """A 1-D view (or small gathered copy) of the values to summarise, and whether it is a sample."""
    if arr.size <= limit:
        return arr.reshape(-1), False
    return arr[sample_indices(arr.shape, sample)], True


def _kind(arr: np.ndarray) -> str:
    if arr.dtype.kind == "b":
        return "bool"
    if arr.dtype.kind in "iu":
        return "int"
    return "float"


def compute(arr: np.ndarray, dtype_name: str | None = None) -> TensorStats:
    """Statistics of `arr` read from at most MAX_EXACT elements."""
    values, sampled = bounded_values(arr)
    st = TensorStats(shape=tuple(int(d) for d in arr.shape), dtype=dtype_name or str(arr.dtype),
                     size=int(arr.size), nbytes=int(arr.nbytes), kind=_kind(arr), sampled=sampled,
                     n_read=int(values.size))
    if values.size == 0:
        return st
    scale = arr.size / values.size
    if st.kind == "bool":
        st.n_true = int(round(np.count_nonzero(values) * scale))
        st.all_zero = st.n_true == 0
        st.min, st.max = float(values.min()), float(values.max())
        st.mean = float(np.count_nonzero(values) / values.size)
        return st
    v = as_float(values)
    if st.kind == "float":
        nan = np.isnan(v)
        inf = np.isinf(v)
        st.n_nan = _scaled(np.count_nonzero(nan), scale)
        st.n_posinf = _scaled(np.count_nonzero(inf & (v > 0)), scale)
        st.n_neginf = _scaled(np.count_nonzero(inf & (v < 0)), scale)
        finite = v[~(nan | inf)] if (st.n_nan or st.n_posinf or st.n_neginf) else v
    else:
        finite = v
    if finite.size:
        wide = finite.astype(np.float64)
        st.min, st.max = float(wide.min()), float(wide.max())
        st.mean, st.std = float(wide.mean()), float(wide.std())
        st.all_zero = st.min == 0.0 and st.max == 0.0 and not (st.n_nan or st.n_posinf or st.n_neginf)
        counts, edges = np.histogram(wide, bins=HIST_BINS if st.max > st.min else 1)
        st.hist_counts = [int(c) for c in counts]
        st.hist_edges = [float(e) for e in edges]
    return st


def _scaled(count: int, scale: float) -> int:
    """A count found in a sample, scaled to the whole tensor (never 0 when the sample saw some)."""
    return max(int(round(count * scale)), 1) if count else 0


def human_bytes(n: int) -> str:
    """1536 -> '1.5 KiB'."""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"  # pragma: no cover - loop always returns


def num(x: float | None) -> str:
    """Short, readable number: 4 significant digits."""
    if x is None:
        return "?"
    if not math.isfinite(x):
        return str(x)
    if x == int(x) and abs(x) < 1e6:
        return str(int(x)) if abs(x) >= 1 or x == 0 else f"{x:.4g}"
    return f"{x:.4g}"
