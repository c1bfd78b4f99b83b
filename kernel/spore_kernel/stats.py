"""Summary statistics of a tensor computed from bounded work and bounded memory.

A notebook displays every value a cell returns, so summarising a 400 MB activation must not cost
a pass over 100 million elements (or a copy of them). Up to `MAX_EXACT` elements the statistics
are exact, streamed over the array in chunks of `CHUNK` elements (NumPy's buffered iterator: a
non-contiguous or bfloat16 array is never copied or cast whole, so the temporaries stay under a
megabyte); beyond that, `SAMPLE` elements spread evenly over the array are gathered by index (no
reshape, which would copy a non-contiguous array) and the statistics say they are sampled — every
text that shows them marks them (≈, "sampled", "from N sampled values").
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MAX_EXACT = 1 << 20       # elements read in full; above this, statistics come from a sample
SAMPLE = 1 << 16          # elements gathered from a larger tensor
CHUNK = 1 << 15           # elements converted at a time (float64 temporaries: 256 KiB each)
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
    """A 1-D view (or small gathered copy) of the values to summarise, and whether it is a sample.

    (A non-contiguous array up to `limit` elements is flattened into a copy here; `compute` itself
    streams with `chunks` instead.)"""
    if arr.size <= limit:
        return arr.reshape(-1), False
    return arr[sample_indices(arr.shape, sample)], True


def chunks(arr: np.ndarray, size: int | None = None) -> Iterator[np.ndarray]:
    """The values of `arr` as 1-D arrays of at most `size` elements, in memory order, never a copy
    of the whole (NumPy's buffered iterator reuses one small buffer for non-contiguous layouts)."""
    if arr.size == 0:
        return
    it = np.nditer(arr, flags=["external_loop", "buffered", "zerosize_ok", "refs_ok"], buffersize=size or CHUNK,
                   order="K")
    yield from it


def _kind(arr: np.ndarray) -> str:
    if arr.dtype.kind == "b":
        return "bool"
    if arr.dtype.kind in "iu":
        return "int"
    return "float"


@dataclass
class _Acc:
    """Running figures merged chunk by chunk (Chan et al.'s update for mean and variance)."""

    n: int = 0
    mean: float = 0.0
    m2: float = 0.0
    lo: float = math.inf
    hi: float = -math.inf
    n_nan: int = 0
    n_posinf: int = 0
    n_neginf: int = 0
    n_true: int = 0

    def add_finite(self, wide: np.ndarray) -> None:
        if not wide.size:
            return
        n, mean = int(wide.size), float(wide.mean())
        m2 = float(np.square(wide - mean).sum())
        total = self.n + n
        delta = mean - self.mean
        self.mean += delta * n / total
        self.m2 += m2 + delta * delta * self.n * n / total
        self.n = total
        self.lo, self.hi = min(self.lo, float(wide.min())), max(self.hi, float(wide.max()))


def _finite_part(block: np.ndarray, kind: str, acc: _Acc) -> np.ndarray:
    """`block` as float64 without NaN/Inf (counted into `acc`); bool as 0/1."""
    if kind == "bool":
        acc.n_true += int(np.count_nonzero(block))
        return block.astype(np.float64)
    v = as_float(block)
    if kind == "float":
        nan, inf = np.isnan(v), np.isinf(v)
        n_nan, n_inf = int(np.count_nonzero(nan)), int(np.count_nonzero(inf))
        if n_nan or n_inf:
            acc.n_nan += n_nan
            pos = int(np.count_nonzero(inf & (v > 0)))
            acc.n_posinf += pos
            acc.n_neginf += n_inf - pos
            v = v[~(nan | inf)]
    return v.astype(np.float64)


def compute(arr: np.ndarray, dtype_name: str | None = None) -> TensorStats:
    """Statistics of `arr`: exact (streamed in chunks) up to MAX_EXACT elements, from a sample above.
    Of a complex array, those of the magnitudes |z| (complex numbers have no order; the view says |x|)."""
    nbytes, dtype_name = int(arr.nbytes), dtype_name or str(arr.dtype)
    if arr.dtype.kind == "c":
        arr = np.abs(arr)
    sampled = arr.size > MAX_EXACT
    source = arr[sample_indices(arr.shape, SAMPLE)] if sampled else arr
    st = TensorStats(shape=tuple(int(d) for d in arr.shape), dtype=dtype_name,
                     size=int(arr.size), nbytes=nbytes, kind=_kind(arr), sampled=sampled,
                     n_read=int(source.size))
    if source.size == 0:
        return st
    scale = arr.size / source.size
    acc = _Acc()
    for block in chunks(source):
        acc.add_finite(_finite_part(block, st.kind, acc))
    st.n_nan = _scaled(acc.n_nan, scale)
    st.n_posinf = _scaled(acc.n_posinf, scale)
    st.n_neginf = _scaled(acc.n_neginf, scale)
    if st.kind == "bool":
        st.n_true = int(round(acc.n_true * scale))
        st.all_zero = acc.n_true == 0
        st.min, st.max = float(acc.lo), float(acc.hi)
        st.mean = acc.n_true / source.size
        st.hist_counts, st.hist_edges = [int(source.size - acc.n_true), acc.n_true], [-0.5, 0.5, 1.5]
        return st
    if acc.n:
        st.min, st.max = acc.lo, acc.hi
        st.mean, st.std = acc.mean, math.sqrt(max(acc.m2 / acc.n, 0.0))
        st.all_zero = st.min == 0.0 and st.max == 0.0 and not (acc.n_nan or acc.n_posinf or acc.n_neginf)
        st.hist_counts, st.hist_edges = _histogram(source, st.kind, st.min, st.max)
    return st


def _histogram(source: np.ndarray, kind: str, lo: float, hi: float) -> tuple[list[int], list[float]]:
    """HIST_BINS equal bins over [lo, hi] of the finite values, counted chunk by chunk (second pass)."""
    bins = HIST_BINS if hi > lo else 1
    edges = np.linspace(lo, hi, bins + 1) if hi > lo else np.array([lo - 0.5, lo + 0.5])
    counts = np.zeros(bins, np.int64)
    scratch = _Acc()
    for block in chunks(source):
        counts += np.histogram(_finite_part(block, kind, scratch), bins=edges)[0]
    return [int(c) for c in counts], [float(e) for e in edges]


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
