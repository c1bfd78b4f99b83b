"""Segmentation surface-distance metrics (issue 14): `HausdorffDistance`, `MeanSurfaceDistance` and
`RootMeanSquareDistance`, as MindSpore computes them.

``update(y_pred, y, label_idx)`` takes two label maps (or boolean masks) of one shape; the surface
of a mask is its pixels that binary erosion removes; each surface pixel of one mask gets its
distance to the nearest surface pixel of the other (SciPy's exact Euclidean distance transform,
or the chessboard/taxicab chamfer transform). Hausdorff is the maximum (or `percentile`) of those
distances, symmetric unless `directed`; mean surface distance their mean, root-mean-square
distance the root of their mean square (both averaged over the two directions when `symmetric`).
An empty prediction surface gives inf. MindSpore's `crop` (to the masks' bounding box) only saves
work — edges and distances are the same without it — and is accepted.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .metric import Metric

_METRICS = ("euclidean", "chessboard", "taxicab")


def _edges(mask: np.ndarray) -> np.ndarray:
    from scipy import ndimage

    return np.logical_xor(ndimage.binary_erosion(mask), mask)


def _surface_distance(from_edges: np.ndarray, to_edges: np.ndarray, metric: str) -> np.ndarray:
    from scipy import ndimage

    if not from_edges.any():
        return np.array([])
    if not to_edges.any():
        dist = np.full(to_edges.shape, np.inf)
    elif metric == "euclidean":
        dist = ndimage.distance_transform_edt(~to_edges)
    else:
        dist = ndimage.distance_transform_cdt(~to_edges, metric=metric).astype(np.float64)
    return dist[from_edges]


class _SurfaceMetric(Metric):
    def __init__(self, distance_metric: str) -> None:
        super().__init__()
        if distance_metric not in _METRICS:
            raise ValueError(f"For '{type(self).__name__}', 'distance_metric' must be one of {_METRICS}, "
                             f"got {distance_metric!r}")
        self.distance_metric = distance_metric
        self.clear()

    def clear(self) -> None:
        self._y_pred_edges: np.ndarray | None = None
        self._y_edges: np.ndarray | None = None
        self._is_update = False

    def update(self, *inputs: Any) -> None:
        name = type(self).__name__
        if len(inputs) != 3:
            raise ValueError(f"For '{name}.update', it needs 3 inputs (y_pred, y, label_idx), but got {len(inputs)}.")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        label = inputs[2]
        if y_pred.shape != y.shape:
            raise ValueError(f"For '{name}.update', y_pred {y_pred.shape} and y {y.shape} must have one shape.")
        if isinstance(label, bool) or not isinstance(label, (int, float, np.number)):
            raise TypeError(f"For '{name}.update', 'label_idx' must be an int or float, got {label!r}")
        pred = y_pred if y_pred.dtype == bool else y_pred == label
        true = y if y.dtype == bool else y == label
        self._y_pred_edges, self._y_edges = _edges(pred), _edges(true)
        self._is_update = True

    def _check(self) -> tuple[np.ndarray, np.ndarray]:
        if not self._is_update:
            raise RuntimeError(f"Please call the 'update' method before calling 'eval' in '{type(self).__name__}'.")
        return self._y_pred_edges, self._y_edges  # type: ignore[return-value]


class HausdorffDistance(_SurfaceMetric):
    """Hausdorff distance between the surfaces of the predicted and true masks of `label_idx`."""

    def __init__(self, distance_metric: str = "euclidean", percentile: float | None = None, directed: bool = False,
                 crop: bool = True) -> None:
        if percentile is not None and not 0 <= percentile <= 100:
            raise ValueError(f"For 'HausdorffDistance', 'percentile' must be in [0, 100], got {percentile!r}")
        self.percentile, self.directed, self.crop = percentile, bool(directed), bool(crop)
        super().__init__(distance_metric)

    def _one_way(self, a: np.ndarray, b: np.ndarray) -> float:
        d = _surface_distance(a, b, self.distance_metric)
        if d.size == 0:
            return float("inf")
        return float(d.max() if self.percentile is None else np.percentile(d, self.percentile))

    def eval(self) -> float:
        p, t = self._check()
        hd = self._one_way(p, t)
        return hd if self.directed else max(hd, self._one_way(t, p))


class MeanSurfaceDistance(_SurfaceMetric):
    """Mean distance from the predicted surface to the true one (symmetric: the two directions' average)."""

    _root = False

    def __init__(self, symmetric: bool = False, distance_metric: str = "euclidean") -> None:
        self.symmetric = bool(symmetric)
        super().__init__(distance_metric)

    def _one_way(self, a: np.ndarray, b: np.ndarray) -> float:
        d = _surface_distance(a, b, self.distance_metric)
        if d.size == 0:
            return float("inf")
        return float(np.sqrt(np.mean(d ** 2)) if self._root else d.mean())

    def eval(self) -> float:
        p, t = self._check()
        one = self._one_way(p, t)
        if not self.symmetric:
            return one
        return float(np.mean((one, self._one_way(t, p))))


class RootMeanSquareDistance(MeanSurfaceDistance):
    """Root of the mean squared distance from the predicted surface to the true one (symmetric:
    the two directions' average)."""

    _root = True
