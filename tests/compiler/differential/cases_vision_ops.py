"""Differential cases (Graph vs PyNative) for the vision/sequence slice of issue 14: grid_sample and
GridSampler2D/3D, ROIAlign, crop_and_resize / CropAndResize, deformable_conv2d / DeformableOffsets
(ops/sampling_ops.py)."""

from __future__ import annotations

import numpy as np

import spore as ms
from spore import nn, ops

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
        K("ROIAlign[adaptive grid]", ops.ROIAlign(2, 2, 1.0, 0), fl(1, 2, 6, 6), rois(2, 1, 6.0)),
        K("CropAndResize[0]", ops.CropAndResize(), fl(2, 5, 5, 2), crop_boxes(3), it(0, 2, 3), (4, 3)),
        K("DeformableOffsets[0]", ops.DeformableOffsets((1, 1, 1, 1), (0, 0, 0, 0), (2, 2)), fl(1, 2, 3, 3),
          masked_offsets(1, 1, 4, 2, 2)),
    ]


# --- sequence losses (ops/sequence_losses.py) --------------------------------------------------------------
def log_probs(t: int, n: int, c: int) -> G:
    def make(r: np.random.Generator) -> np.ndarray:
        x = r.standard_normal((t, n, c))
        return (x - np.log(np.exp(x).sum(-1, keepdims=True))).astype(np.float32)
    return G(make)


def sparse_labels(batch: int, longest: int, classes: int) -> tuple[G, G]:
    """(indices, values) of a batch of label sequences of lengths 1..longest (one fixed nnz)."""
    lens = [1 + b % longest for b in range(batch)]
    idx = np.array([(b, i) for b in range(batch) for i in range(lens[b])], np.int64)
    return G(lambda r: idx.copy()), G(lambda r: r.integers(0, classes, len(idx)).astype(np.int32))


@_functions
def _sequence_functions() -> list:
    return [
        C("ops.ctc_loss[0]", ops.ctc_loss, log_probs(5, 3, 4), it(1, 4, 3, 3, dt=np.int64), (5, 4, 5), (3, 2, 1)),
        C("ops.ctc_loss[none tensors]", ops.ctc_loss, log_probs(4, 2, 3), it(1, 3, 2, 2), it(3, 5, 2), it(0, 3, 2),
          0, "none", True),
        C("ops.ctc_loss[sum blank]", ops.ctc_loss, log_probs(6, 2, 5), it(0, 4, 2, 3, dt=np.int64), (6, 5), (3, 2),
          kw={"blank": 4, "reduction": "sum"}),
    ]


@_classes
def _sequence_classes() -> list:
    ind, vals = sparse_labels(3, 2, 3)
    hi, hv = sparse_labels(2, 3, 4)
    ti, tv = sparse_labels(2, 2, 4)
    return [
        K("CTCLoss[0]", ops.CTCLoss(), fl(4, 3, 4), ind, vals, G(lambda r: np.array([4, 3, 4], np.int32))),
        K("CTCLoss[collapse no merge]", ops.CTCLoss(True, False, True), fl(3, 3, 4), ind, vals,
          G(lambda r: np.array([3, 1, 3], np.int32))),
        K("RNNTLoss[0]", ops.RNNTLoss(), fl(2, 3, 3, 4), it(1, 4, 2, 2), G(lambda r: np.array([3, 2], np.int32)),
          G(lambda r: np.array([2, 1], np.int32))),
        K("EditDistance[0]", ops.EditDistance(), hi, G(lambda r: r.integers(0, 3, 3).astype(np.int64)),
          G(lambda r: np.array([2, 3], np.int64)), ti, G(lambda r: r.integers(0, 3, 3).astype(np.int64)),
          G(lambda r: np.array([2, 2], np.int64))),
        K("EditDistance[raw]", ops.EditDistance(False), hi, G(lambda r: r.integers(0, 3, 3).astype(np.int64)),
          G(lambda r: np.array([2, 3], np.int64)), ti, G(lambda r: r.integers(0, 3, 3).astype(np.int64)),
          G(lambda r: np.array([2, 2], np.int64))),
    ]


def vision_cell_cases() -> list:
    """nn Cells of the slice (nn/vision_sequence_cells.py)."""
    return fractional_cell_cases() + [
        C("nn.CTCLoss[0]", nn.CTCLoss(), log_probs(5, 2, 4), it(1, 4, 2, 3), (5, 4), (3, 2)),
        C("nn.CTCLoss[sum zero_infinity]", nn.CTCLoss(blank=3, reduction="sum", zero_infinity=True),
          log_probs(3, 2, 4), it(0, 3, 2, 2), it(2, 4, 2), it(1, 3, 2)),
        C("nn.CTCLoss[unbatched]", nn.CTCLoss(reduction="none"), G(lambda r: log_probs(4, 1, 3).fn(r)[:, 0]),
          it(1, 3, 2), (4,), (2,)),
    ]


# --- fractional pooling (ops/fractional_pool.py) -----------------------------------------------------------
def unit(*shape: int) -> G:
    return G(lambda r: r.random(shape).astype(np.float32))


@_functions
def _fractional_functions() -> list:
    return [
        C("ops.fractional_max_pool2d[samples]", ops.fractional_max_pool2d, fl(2, 2, 6, 5), (2, 2), (3, 3),
          kw={"_random_samples": unit(2, 2, 2)}),
        C("ops.fractional_max_pool2d[ratio indices]", ops.fractional_max_pool2d, fl(1, 2, 8, 6), 2, None, 0.5, True,
          unit(1, 2, 2)),
        C("ops.fractional_max_pool2d[random]", ops.fractional_max_pool2d, fl(1, 2, 6, 6), 2, (3, 3), seeded=True),
        C("ops.fractional_max_pool3d[samples]", ops.fractional_max_pool3d, fl(1, 2, 4, 4, 3), 2, (2, 3, 2),
          kw={"return_indices": True, "_random_samples": unit(1, 2, 3)}),
    ]


@_classes
def _fractional_classes() -> list:
    return [
        K("FractionalMaxPoolWithFixedKsize[0]", ops.FractionalMaxPoolWithFixedKsize((2, 3), (3, 2)), fl(2, 2, 5, 6),
          unit(2, 2, 2)),
        K("FractionalMaxPool3DWithFixedKsize[0]", ops.FractionalMaxPool3DWithFixedKsize(2, (2, 2, 2)),
          fl(1, 2, 4, 3, 4), unit(1, 2, 3)),
        K("FractionalMaxPool[0]", ops.FractionalMaxPool([1.0, 1.5, 1.5, 1.0], seed=3), fl(1, 6, 6, 2)),
        K("FractionalMaxPool[pseudo overlapping]", ops.FractionalMaxPool([1.0, 1.4, 2.0, 1.0], True, True,
                                                                         deterministic=True), fl(2, 7, 8, 1)),
        K("FractionalMaxPool[global seed]", ops.FractionalMaxPool([1.0, 2.0, 1.5, 1.0]), fl(1, 6, 6, 2), seeded=True),
        K("FractionalAvgPool[0]", ops.FractionalAvgPool([1.0, 1.5, 1.5, 1.0], seed=3), fl(1, 6, 6, 2)),
        K("FractionalAvgPool[overlapping]", ops.FractionalAvgPool([1.0, 1.3, 1.7, 1.0], False, True,
                                                                  deterministic=True, seed=1), fl(1, 7, 7, 2)),
    ]


def fractional_cell_cases() -> list:
    return [
        C("nn.FractionalMaxPool2d[samples]", nn.FractionalMaxPool2d(2, output_size=(3, 3), _random_samples=ms.Tensor(
            np.random.default_rng(1).random((1, 2, 2)).astype(np.float32))), fl(1, 2, 6, 6)),
        C("nn.FractionalMaxPool2d[ratio indices]", nn.FractionalMaxPool2d(
            (2, 3), output_ratio=(0.5, 0.5), return_indices=True, _random_samples=ms.Tensor(
                np.random.default_rng(2).random((2, 2, 2)).astype(np.float32))), fl(2, 2, 6, 8)),
        C("nn.FractionalMaxPool2d[random]", nn.FractionalMaxPool2d(2, output_size=3), fl(1, 1, 6, 6), seeded=True),
        C("nn.FractionalMaxPool3d[samples]", nn.FractionalMaxPool3d(2, output_size=(2, 2, 2), _random_samples=ms.Tensor(
            np.random.default_rng(3).random((1, 2, 3)).astype(np.float32))), fl(1, 2, 4, 4, 4)),
        C("nn.FractionalMaxPool3d[ratio]", nn.FractionalMaxPool3d(2, output_ratio=0.5, _random_samples=ms.Tensor(
            np.random.default_rng(4).random((1, 1, 3)).astype(np.float32))), fl(1, 1, 4, 6, 4)),
        C("nn.FractionalMaxPool3d[random indices]", nn.FractionalMaxPool3d(2, output_size=2, return_indices=True),
          fl(1, 1, 4, 4, 4), seeded=True),
    ]


# --- patches, resampling, glimpses, deformable attention (ops/sampling_ops.py) ------------------------------
def _vals(a: np.ndarray) -> G:
    return G(lambda r: a.copy())


@_functions
def _resample_functions() -> list:
    shapes, starts = np.array([[3, 4], [2, 2]]), np.array([0, 12])
    return [
        C("ops.multi_scale_deformable_attn_function[0]", ops.multi_scale_deformable_attn_function, fl(1, 16, 2, 3),
          _vals(shapes), _vals(starts), fl(1, 2, 2, 2, 2, 2, lo=0.0, hi=1.0), fl(1, 2, 2, 2, 2, lo=0.0, hi=1.0)),
        C("ops.multi_scale_deformable_attn_function[tuples]", ops.multi_scale_deformable_attn_function,
          fl(2, 10, 1, 2), ((2, 3), (2, 2)), (0, 6), fl(2, 3, 1, 2, 1, 2, lo=-0.2, hi=1.2),
          fl(2, 3, 1, 2, 1, lo=0.0, hi=1.0)),
    ]


@_classes
def _resample_classes() -> list:
    def i32(*v: int) -> G:
        return _vals(np.array(v, np.int32))

    def f32(*v: float) -> G:
        return _vals(np.array(v, np.float32))

    return [
        K("ExtractVolumePatches[valid]", ops.ExtractVolumePatches(2, 1, "VALID"), fl(1, 2, 3, 4, 3)),
        K("ExtractVolumePatches[same strides]", ops.ExtractVolumePatches((1, 1, 2, 3, 2), (1, 1, 2, 2, 1), "SAME"),
          fl(1, 1, 3, 5, 4)),
        K("ScaleAndTranslate[0]", ops.ScaleAndTranslate(), fl(1, 5, 6, 2), i32(3, 8), f32(0.6, 1.4), f32(0.2, -0.3)),
        K("ScaleAndTranslate[triangle no antialias]", ops.ScaleAndTranslate("triangle", False), fl(2, 4, 4, 1),
          i32(2, 6), f32(0.5, 1.5), f32(0.0, 0.5)),
        K("ExtractGlimpse[0]", ops.ExtractGlimpse(), fl(2, 5, 6, 2), i32(3, 4), fl(2, 2, lo=-1.0, hi=1.0),
          seeded=True),
        K("ExtractGlimpse[zero pixels]", ops.ExtractGlimpse(False, False, False, "zero"), fl(1, 4, 5, 1), i32(2, 3),
          _vals(np.array([[2.5, -1.0]], np.float32))),
    ]


# --- detection (ops/detection_ops.py) ---------------------------------------------------------------------
def rboxes(b: int, n: int) -> G:
    def make(r: np.random.Generator) -> np.ndarray:
        return np.concatenate([r.uniform(0, 3, (b, n, 2)), r.uniform(1, 3, (b, n, 2)), r.uniform(-90, 90, (b, n, 1))],
                              -1).astype(np.float32)
    return G(make)


def nms_boxes(b: int, n: int, q: int) -> G:
    def make(r: np.random.Generator) -> np.ndarray:
        lo = r.uniform(0, 0.7, (b, n, q, 2))
        return np.concatenate([lo, lo + r.uniform(0.1, 0.4, lo.shape)], -1).astype(np.float32)
    return G(make)


@_functions
def _detection_functions() -> list:
    return [
        C("ops.rotated_iou[0]", ops.rotated_iou, rboxes(1, 3), rboxes(1, 4)),
        C("ops.rotated_iou[iof pairwise]", ops.rotated_iou, rboxes(2, 3), rboxes(2, 3), False, 1, False),
        C("ops.rotated_iou[xyxyt]", ops.rotated_iou, rboxes(1, 2), rboxes(1, 2), kw={"trans": True}),
    ]


@_classes
def _detection_classes() -> list:
    return [
        K("CombinedNonMaxSuppression[0]", ops.CombinedNonMaxSuppression(), nms_boxes(2, 6, 1), fl(2, 6, 3, lo=0, hi=1),
          2, 4, 0.4, 0.1),
        K("CombinedNonMaxSuppression[per class pad]", ops.CombinedNonMaxSuppression(True, False), nms_boxes(1, 5, 2),
          fl(1, 5, 2, lo=0, hi=1), 3, 10, 0.5, 0.3),
    ]
