"""Calibration observers: they watch activations (or weights) and turn the range seen into int8/uint8
quantization parameters (scale, zero point).

The API is shared by post-training quantization (`spore.quant.quantize_static`) and quantization-
aware training (the fake-quant cells), so both derive their scales with the same arithmetic:

    obs = MinMaxObserver()              # per tensor; MinMaxObserver(axis=0) per channel
    for batch in data: obs.update(x)
    scale, zero_point = obs.qparams("uint8", symmetric=False)

Range -> parameters (PyTorch's and ONNX Runtime's convention, which the QDQ export must match):
the range is first widened to include 0 (so 0.0 is exactly representable, as padding needs), then
- asymmetric: scale = (max - min) / (qmax - qmin), zero_point = qmin - round(min / scale), clamped;
- symmetric:  scale = max(|min|, |max|) / ((qmax - qmin) / 2), zero_point 0 (int8) or 128 (uint8).
`narrow_range=True` drops the lowest code (int8 -127..127, uint8 1..255). A range of zero width
gets the smallest float32 step (`eps`) instead of scale 0, so quantization never divides by zero.

Histogram observers (`PercentileObserver`, `KLObserver`) clip outliers: they histogram |x|, pick a
threshold t and report the seen range clipped to [-t, t]. `KLObserver` is TensorRT's entropy
calibration: the threshold minimising KL(P || Q) between the clipped reference histogram P and its
`quant_bins`-level quantization Q. The names follow MindSpore Lite's calibration `activation_quant_
method` values (MAX_MIN, KL, REMOVAL_OUTLIER) and PyTorch's observer classes.
"""

from __future__ import annotations

import numpy as np

from ..errors import SporeError

_DTYPES = {"int8": (-128, 127), "uint8": (0, 255), "int4": (-8, 7), "uint4": (0, 15)}
_EPS = float(np.finfo(np.float32).eps)


def qrange(dtype: str, narrow_range: bool = False) -> tuple[int, int]:
    """(qmin, qmax) of a quantized dtype name; narrow range drops the lowest code."""
    if dtype not in _DTYPES:
        raise SporeError(f"quant observer: dtype must be one of {sorted(_DTYPES)}, got {dtype!r}")
    lo, hi = _DTYPES[dtype]
    return (lo + 1 if narrow_range else lo), hi


def qparams_from_range(mn: np.ndarray | float, mx: np.ndarray | float, dtype: str = "int8",
                       symmetric: bool = True, narrow_range: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Scale (float32) and zero point (int32) covering [mn, mx] (widened to include 0); shapes follow mn."""
    qmin, qmax = qrange(dtype, narrow_range)
    mn = np.minimum(np.asarray(mn, np.float64), 0.0)
    mx = np.maximum(np.asarray(mx, np.float64), 0.0)
    if symmetric:
        amax = np.maximum(-mn, mx)
        scale = np.maximum(amax / ((qmax - qmin) / 2.0), _EPS).astype(np.float32)
        zp = np.full(scale.shape, 0 if qmin < 0 else (qmin + qmax + 1) // 2, np.int32)
        return scale, zp
    scale = np.maximum((mx - mn) / float(qmax - qmin), _EPS).astype(np.float32)
    zp = np.clip(qmin - np.rint(mn / scale.astype(np.float64)), qmin, qmax).astype(np.int32)
    return scale, zp


class Observer:
    """Base class: `update(x)` with each batch, then `qparams(...)`; subclasses define the range."""

    def __init__(self, axis: int | None = None) -> None:
        self.axis = axis
        self.min_val: np.ndarray | None = None
        self.max_val: np.ndarray | None = None

    def _batch_range(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = np.asarray(x, np.float32)
        if x.size == 0:
            raise SporeError(f"{type(self).__name__}.update: empty array")
        if not np.all(np.isfinite(x)):
            raise SporeError(f"{type(self).__name__}.update: the data holds NaN or Inf; cannot calibrate on it")
        if self.axis is None:
            return np.asarray(x.min()), np.asarray(x.max())
        if x.ndim == 0:
            raise SporeError(f"{type(self).__name__}: a per-channel observer (axis={self.axis}) needs arrays, "
                             "got a scalar")
        axis = self.axis % x.ndim
        red = tuple(i for i in range(x.ndim) if i != axis)
        return x.min(axis=red), x.max(axis=red)

    def update(self, x: np.ndarray) -> None:
        """Fold one batch into the observed range."""
        mn, mx = self._batch_range(x)
        if self.min_val is None:
            self.min_val, self.max_val = mn, mx
        else:
            if mn.shape != self.min_val.shape:
                raise SporeError(f"{type(self).__name__}.update: {mn.size} channels after {self.min_val.size}")
            self.min_val, self.max_val = np.minimum(self.min_val, mn), np.maximum(self.max_val, mx)

    def range(self) -> tuple[np.ndarray, np.ndarray]:
        """The (min, max) the parameters are computed from."""
        if self.min_val is None or self.max_val is None:
            raise SporeError(f"{type(self).__name__}: no data observed; call update() with calibration batches")
        return self.min_val, self.max_val

    def qparams(self, dtype: str = "int8", symmetric: bool = True,
                narrow_range: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(scale float32, zero_point int32): shape () per tensor, (C,) per channel."""
        mn, mx = self.range()
        return qparams_from_range(mn, mx, dtype, symmetric, narrow_range)


class MinMaxObserver(Observer):
    """The running minimum and maximum (MindSpore Lite's MAX_MIN); `axis` set: per channel."""


class MovingAverageMinMaxObserver(Observer):
    """An exponential moving average of the batch min/max (QAT's usual activation observer):
    range <- range + c * (batch_range - range), starting at the first batch's range."""

    def __init__(self, averaging_constant: float = 0.01, axis: int | None = None) -> None:
        super().__init__(axis)
        if not 0.0 < float(averaging_constant) <= 1.0:
            raise SporeError(f"MovingAverageMinMaxObserver: averaging_constant must be in (0, 1], "
                             f"got {averaging_constant!r}")
        self.averaging_constant = float(averaging_constant)

    def update(self, x: np.ndarray) -> None:
        mn, mx = self._batch_range(x)
        if self.min_val is None:
            self.min_val, self.max_val = mn, mx
            return
        c = self.averaging_constant
        self.min_val = self.min_val + c * (mn - self.min_val)
        self.max_val = self.max_val + c * (mx - self.max_val)


class _HistogramObserver(Observer):
    """A histogram of |x| over [0, amax] (per tensor); when a batch widens amax, the old counts are
    re-binned into the wider range (each old bin's count lands at its centre)."""

    def __init__(self, bins: int = 2048) -> None:
        super().__init__(None)
        if int(bins) < 16:
            raise SporeError(f"{type(self).__name__}: bins must be >= 16, got {bins!r}")
        self.bins = int(bins)
        self.hist = np.zeros(self.bins, np.float64)
        self.amax = 0.0

    def update(self, x: np.ndarray) -> None:
        super().update(x)
        a = np.abs(np.asarray(x, np.float32)).reshape(-1)
        amax = float(a.max())
        if amax > self.amax:
            if self.amax > 0 and self.hist.sum() > 0:
                width = self.amax / self.bins
                centres = (np.arange(self.bins) + 0.5) * width
                self.hist, _ = np.histogram(centres, bins=self.bins, range=(0.0, amax), weights=self.hist)
            self.amax = amax
        if self.amax > 0:
            h, _ = np.histogram(a, bins=self.bins, range=(0.0, self.amax))
            self.hist += h

    def threshold(self) -> float:
        """The clipping threshold on |x|; the base keeps the whole range (subclasses clip)."""
        return self.amax

    def range(self) -> tuple[np.ndarray, np.ndarray]:
        mn, mx = super().range()
        if self.amax <= 0:
            return mn, mx
        t = self.threshold()
        return np.maximum(mn, -t), np.minimum(mx, t)


class PercentileObserver(_HistogramObserver):
    """Clips at the `percentile` of |x| (MindSpore Lite's REMOVAL_OUTLIER, ONNX Runtime's Percentile)."""

    def __init__(self, percentile: float = 99.99, bins: int = 2048) -> None:
        super().__init__(bins)
        if not 0.0 < float(percentile) <= 100.0:
            raise SporeError(f"PercentileObserver: percentile must be in (0, 100], got {percentile!r}")
        self.percentile = float(percentile)

    def threshold(self) -> float:
        cdf = np.cumsum(self.hist)
        k = int(np.searchsorted(cdf, cdf[-1] * self.percentile / 100.0))
        return (min(k, self.bins - 1) + 1) * self.amax / self.bins


class KLObserver(_HistogramObserver):
    """TensorRT's entropy calibration: the clipping threshold minimising KL(P || Q).

    For each candidate i in [quant_bins, bins]: P = the first i bins with everything beyond folded
    into bin i-1; Q = P merged into `quant_bins` groups, each group's mass spread evenly over its
    non-empty bins; threshold = the upper edge of bin i of the best candidate. `quant_bins` = 128
    is int8's positive half; data that is never negative (after a ReLU, quantized to uint8) has
    twice as many levels on its one side, so 2 * quant_bins groups are used for it."""

    def __init__(self, bins: int = 2048, quant_bins: int = 128) -> None:
        super().__init__(bins)
        if not 2 <= int(quant_bins) <= int(bins):
            raise SporeError(f"KLObserver: quant_bins must be in 2..bins ({bins}), got {quant_bins!r}")
        self.quant_bins = int(quant_bins)

    def threshold(self) -> float:
        # one-sided data (after a ReLU) gets all of an unsigned type's levels on its one side
        # the spike of exact zeros (ReLU outputs, padding) would dominate the divergence and pull the
        # threshold down: bin 0 is given bin 1's count, as NVIDIA's pytorch-quantization does
        hist = self.hist.copy()
        hist[0] = hist[1]
        nq = min(self.bins, 2 * self.quant_bins) if float(np.min(self.min_val)) >= 0 else self.quant_bins
        best_i, best_kl = self.bins, np.inf
        for i in range(nq, self.bins + 1):
            p = hist[:i].copy()
            p[i - 1] += hist[i:].sum()
            if p.sum() == 0:
                continue
            ref = hist[:i]
            edges = np.linspace(0, i, nq + 1).astype(np.int64)
            nz = (p > 0).astype(np.float64)
            grp_mass = np.add.reduceat(ref, edges[:-1])
            grp_nz = np.add.reduceat(nz, edges[:-1])
            per = np.divide(grp_mass, grp_nz, out=np.zeros_like(grp_mass), where=grp_nz > 0)
            q = np.repeat(per, np.diff(edges)) * nz
            ps, qs = p / p.sum(), q.sum()
            if qs == 0:
                continue
            q = q / qs
            m = ps > 0
            kl = float(np.sum(ps[m] * np.log(ps[m] / np.where(q[m] > 0, q[m], 1e-12))))
            if kl < best_kl:
                best_kl, best_i = kl, i
        return best_i * self.amax / self.bins


def make_observer(method: str, axis: int | None = None) -> Observer:
    """An observer by calibration-method name: "minmax" (MAX_MIN), "percentile" (REMOVAL_OUTLIER), "kl"."""
    key = str(method).lower()
    if key in ("minmax", "max_min"):
        return MinMaxObserver(axis=axis)
    if key in ("moving_average", "moving_average_minmax"):
        return MovingAverageMinMaxObserver(axis=axis)
    if axis is not None:
        raise SporeError(f"quant: the {method!r} observer is per tensor only")
    if key in ("percentile", "removal_outlier"):
        return PercentileObserver()
    if key == "kl":
        return KLObserver()
    raise SporeError(f"quant: method must be 'minmax', 'percentile' or 'kl', got {method!r}")
