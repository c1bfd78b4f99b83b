"""Differential cases for slice B2 of the issue-14 ops (ops/vision_box_ops.py: iou, IOU,
rotary_position_embedding, Mod, RGBToHSV, TridiagonalMatMul, ResizeNearestNeighbor): each runs in
PyNative and in Graph mode and must agree (registered into cases_ops' sections)."""

from __future__ import annotations

import numpy as np

from spore import ops

from .cases_ops import K, _classes, _functions
from .cases_tensor_nn import C, G, fl, nz


def boxes(n: int) -> G:
    def make(r: np.random.Generator) -> np.ndarray:
        lo = r.uniform(0, 5, (n, 2))
        return np.concatenate([lo, lo + r.uniform(0.5, 4, (n, 2))], 1).astype(np.float32)
    return G(make)


@_functions
def _api_b2_functions() -> list:
    return [C("ops.iou[0]", ops.iou, boxes(4), boxes(3)),
            C("ops.iou[iof]", ops.iou, boxes(2), boxes(3), "iof"),
            C("ops.rotary_position_embedding[0]", ops.rotary_position_embedding, fl(2, 3, 2, 4),
              fl(1, 3, 1, 4, lo=-1.0, hi=1.0), fl(1, 3, 1, 4, lo=-1.0, hi=1.0)),
            C("ops.rotary_position_embedding[1]", ops.rotary_position_embedding, fl(1, 2, 2, 6),
              fl(1, 2, 1, 6, lo=-1.0, hi=1.0), fl(1, 2, 1, 6, lo=-1.0, hi=1.0), 1)]


@_classes
def _api_b2_classes() -> list:
    return [K("IOU[0]", ops.IOU(), boxes(3), boxes(2)), K("IOU[iof]", ops.IOU("iof"), boxes(3), boxes(2)),
            K("Mod[0]", ops.Mod(), fl(3, 4), nz(3, 4)), K("Mod[scalar]", ops.Mod(), fl(2, 3), 1.5),
            K("RGBToHSV[0]", ops.RGBToHSV(), fl(2, 4, 3, lo=0.0, hi=1.0)),
            K("TridiagonalMatMul[0]", ops.TridiagonalMatMul(), fl(2, 1, 4), fl(2, 1, 4), fl(2, 1, 4), fl(2, 4, 3)),
            K("ResizeNearestNeighbor[0]", ops.ResizeNearestNeighbor((5, 7)), fl(1, 2, 3, 4)),
            K("ResizeNearestNeighbor[align]", ops.ResizeNearestNeighbor((4, 6), True), fl(1, 2, 3, 4)),
            K("ResizeNearestNeighbor[half]", ops.ResizeNearestNeighbor((2, 3), half_pixel_centers=True),
              fl(1, 1, 4, 5))]
