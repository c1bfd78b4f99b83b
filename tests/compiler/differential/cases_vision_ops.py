"""Differential cases (Graph vs PyNative) for the vision/sequence slice of issue 14: grid_sample and
GridSampler2D/3D, ROIAlign, crop_and_resize / CropAndResize, deformable_conv2d / DeformableOffsets
(ops/sampling_ops.py)."""

from __future__ import annotations

import numpy as np

from spore import ops

from .cases_ops import K, _classes, _functions
from .cases_tensor_nn import C, G, fl, it


def rois(n: int, batch: int, size: float) -> G:
    def make(r: np.random.Generator) -> np.ndarray:
        lo = r.uniform(0, size / 2, (n, 2))
        return np.concatenate([r.integers(0, batch, (n, 1)), lo, lo + r.uniform(0.5, size / 2, (n, 2))],
                              1).astype(np.float32)
    return G(make)


def crop_boxes(n: int) -> G:
    def make(r: np.random.Generator) -> np.ndarray:
        lo = r.uniform(-0.1, 0.5, (n, 2))
        return np.concatenate([lo, lo + r.uniform(0.2, 0.6, (n, 2))], 1).astype(np.float32)
    return G(make)


def masked_offsets(n: int, dg: int, k: int, oh: int, ow: int) -> G:
    def make(r: np.random.Generator) -> np.ndarray:
        off = r.uniform(-1.5, 1.5, (n, 3 * dg * k, oh, ow))
        off[:, 2 * dg * k:] = r.uniform(0, 1, (n, dg * k, oh, ow))
        return off.astype(np.float32)
    return G(make)


@_functions
def _vision_functions() -> list:
    return [
        C("ops.grid_sample[0]", ops.grid_sample, fl(2, 3, 4, 5), fl(2, 3, 2, 2, lo=-1.2, hi=1.2)),
        C("ops.grid_sample[border corners]", ops.grid_sample, fl(1, 2, 4, 4), fl(1, 3, 3, 2, lo=-1.5, hi=1.5),
          "bilinear", "border", True),
        C("ops.grid_sample[reflection nearest]", ops.grid_sample, fl(1, 2, 3, 5), fl(1, 2, 4, 2, lo=-2.0, hi=2.0),
          "nearest", "reflection"),
        C("ops.grid_sample[3d]", ops.grid_sample, fl(1, 2, 3, 3, 4), fl(1, 2, 2, 2, 3, lo=-1.0, hi=1.0)),
        C("ops.crop_and_resize[0]", ops.crop_and_resize, fl(2, 5, 4, 3), crop_boxes(3), it(0, 2, 3), (3, 4)),
        C("ops.crop_and_resize[nearest extrapolate]", ops.crop_and_resize, fl(1, 4, 4, 2), crop_boxes(2),
          it(0, 1, 2), (2, 3), "nearest", 0.5),
        C("ops.deformable_conv2d[0]", ops.deformable_conv2d, fl(1, 2, 4, 4), fl(3, 2, 2, 2),
          masked_offsets(1, 1, 4, 3, 3), (2, 2), (1, 1, 1, 1), (0, 0, 0, 0)),
        C("ops.deformable_conv2d[stride pad groups bias]", ops.deformable_conv2d, fl(1, 4, 4, 3), fl(4, 2, 2, 2),
          masked_offsets(1, 2, 4, 2, 2), (2, 2), (1, 1, 2, 2), (1, 0, 1, 0), fl(4),
          kw={"groups": 2, "deformable_groups": 2}),
    ]


@_classes
def _vision_classes() -> list:
    return [
        K("GridSampler2D[0]", ops.GridSampler2D(), fl(2, 2, 4, 4), fl(2, 3, 3, 2, lo=-1.1, hi=1.1)),
        K("GridSampler2D[nearest border]", ops.GridSampler2D("nearest", "border", True), fl(1, 3, 3, 4),
          fl(1, 2, 2, 2, lo=-1.5, hi=1.5)),
        K("GridSampler3D[0]", ops.GridSampler3D(), fl(1, 2, 3, 4, 3), fl(1, 2, 2, 2, 3, lo=-1.1, hi=1.1)),
        K("GridSampler3D[reflection]", ops.GridSampler3D("bilinear", "reflection", True), fl(1, 1, 3, 3, 3),
          fl(1, 2, 1, 2, 3, lo=-2.0, hi=2.0)),
        K("ROIAlign[0]", ops.ROIAlign(2, 2, 0.5, 2), fl(2, 2, 5, 5), rois(3, 2, 10.0)),
        K("ROIAlign[legacy end]", ops.ROIAlign(3, 2, 1.0, 1, 0), fl(1, 2, 5, 6), rois(2, 1, 6.0)),
        K("CropAndResize[0]", ops.CropAndResize(), fl(2, 5, 5, 2), crop_boxes(3), it(0, 2, 3), (4, 3)),
        K("DeformableOffsets[0]", ops.DeformableOffsets((1, 1, 1, 1), (0, 0, 0, 0), (2, 2)), fl(1, 2, 3, 3),
          masked_offsets(1, 1, 4, 2, 2)),
    ]
