"""Differential cases for slice B2 of the issue-14 ops (ops/vision_box_ops.py: iou, IOU,
rotary_position_embedding, Mod, RGBToHSV, TridiagonalMatMul, ResizeNearestNeighbor): each runs in
PyNative and in Graph mode and must agree (registered into cases_ops' sections)."""

from __future__ import annotations

import numpy as np

import spore as ms
from spore import ops

from .cases_ops import EXEMPT_CLASSES, EXEMPT_FUNCTIONS, K, _classes, _functions
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


def _nms_boxes(r: np.random.Generator) -> np.ndarray:
    lo = r.uniform(0, 4, (6, 2))
    return np.concatenate([lo, lo + r.uniform(0.5, 3, (6, 2)), r.permutation(6)[:, None] / 6.0], 1).astype(np.float32)


def _overlaps(r: np.random.Generator) -> np.ndarray:
    a = r.random((5, 5))
    return ((a + a.T) / 2).astype(np.float32)


ONE_TRUE = G(lambda r: np.eye(1, 6, 3, dtype=bool).reshape(2, 3))


@_functions
def _api_b2_selection_functions() -> list:
    return [C("ops.is_available[0]", ops.is_available), C("ops.is_initialized[0]", ops.is_initialized)]


@_classes
def _api_b2_selection_classes() -> list:
    return [K("NMSWithMask[0]", ops.NMSWithMask(0.3), G(_nms_boxes)),
            K("NonMaxSuppressionWithOverlaps[0]", ops.NonMaxSuppressionWithOverlaps(), G(_overlaps),
              fl(5, lo=0.0, hi=1.0), 3, 0.5, 0.1),
            K("RandomChoiceWithMask[0]", ops.RandomChoiceWithMask(3, seed=1), ONE_TRUE),
            K("RaggedRange[0]", ops.RaggedRange(ms.int64), G(lambda r: np.array([0, 3, 1], np.int32)),
              G(lambda r: np.array([4, 3, 9], np.int32)), G(lambda r: np.array([1, 2, 3], np.int32))),
            K("NoRepeatNGram[0]", ops.NoRepeatNGram(2), G(lambda r: r.integers(0, 4, (2, 2, 7)).astype(np.int32)),
              fl(2, 2, 5))]


_P2P = ("point-to-point/rooted communication: checked against NumPy on 3 real MPI ranks by "
        "tests/parallel/test_api_p2p.py (PyNative only, as MindSpore documents; a one-process case has no peer)")
EXEMPT_FUNCTIONS.update({n: _P2P for n in ("send", "recv", "isend", "irecv", "reduce", "scatter_tensor",
                                           "reduce_scatter", "reduce_scatter_tensor", "reduce_scatter_tensor_uneven",
                                           "send_object_list", "recv_object_list", "scatter_object_list")})
EXEMPT_CLASSES["P2POp"] = _P2P
EXEMPT_CLASSES["Reduce"] = _P2P


@_classes
def _api_b2_resize_classes() -> list:
    size = G(lambda r: np.array([7], np.int32))
    return [K("ResizeLinear1D[0]", ops.ResizeLinear1D(), fl(2, 3, 4), size),
            K("ResizeLinear1D[half]", ops.ResizeLinear1D("half_pixel"), fl(1, 2, 5), size)]


def api_b2_tensor_cases() -> list:
    """`Tensor.select` in both of MindSpore's forms (cases_tensor_nn adds them)."""
    sel = ms.Tensor.select
    return [C("Tensor.select[dim index]", sel, fl(3, 4, 2), 1, -1),
            C("Tensor.select[kw]", sel, fl(3, 4), kw={"dim": 0, "index": 2}),
            C("Tensor.select[condition y]", sel, fl(3, 4), G(lambda r: r.random((3, 4)) > 0.5), fl(3, 4))]


@_classes
def _api_b2_bicubic_classes() -> list:
    return [K("ResizeBicubic[0]", ops.ResizeBicubic(), fl(1, 2, 3, 4), G(lambda r: np.array([5, 6], np.int32))),
            K("ResizeBicubic[half]", ops.ResizeBicubic(half_pixel_centers=True), fl(1, 1, 4, 4),
              G(lambda r: np.array([3, 6], np.int32)))]


@_classes
def _api_b2_area_classes() -> list:
    return [K("ResizeArea[0]", ops.ResizeArea(), fl(1, 4, 6, 2), G(lambda r: np.array([3, 4], np.int32))),
            K("ResizeArea[align]", ops.ResizeArea(True), fl(1, 3, 5, 1), G(lambda r: np.array([2, 3], np.int32)))]
