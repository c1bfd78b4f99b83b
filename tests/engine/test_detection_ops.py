"""rotated_iou and CombinedNonMaxSuppression (issue 14, vision slice): rotated overlaps against exact
axis-aligned IoU, a fine-grid rasterisation of the rotated rectangles and rotation invariance; NMS
against a straightforward per-class greedy reference of TensorFlow's rule."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import ops

T = ms.Tensor


def raster_iou(a: np.ndarray, b: np.ndarray, mode: int = 0, step: float = 0.01) -> float:
    """IoU / IoF of two (x, y, w, h, degrees) boxes by counting grid points inside each."""
    def inside(box, px, py):
        x, y, w, h, t = box
        c, s = np.cos(np.deg2rad(t)), np.sin(np.deg2rad(t))
        dx, dy = px - x, py - y
        u, v = dx * c + dy * s, -dx * s + dy * c
        return (np.abs(u) <= w / 2) & (np.abs(v) <= h / 2)
    r = max(np.hypot(a[2], a[3]), np.hypot(b[2], b[3]))
    lo = min(a[0], b[0], a[1], b[1]) - r
    hi = max(a[0], b[0], a[1], b[1]) + r
    g = np.arange(lo, hi, step) + step / 2
    px, py = np.meshgrid(g, g)
    ia, ib = inside(a, px, py), inside(b, px, py)
    inter = (ia & ib).sum()
    return inter / ia.sum() if mode == 1 else inter / (ia | ib).sum()


def test_rotated_iou_axis_aligned_is_exact():
    boxes = np.array([[[2.0, 2.0, 2.0, 2.0, 0.0], [0.0, 0.0, 4.0, 2.0, 0.0]]], np.float32)
    query = np.array([[[3.0, 2.0, 2.0, 2.0, 0.0], [10.0, 10.0, 1.0, 1.0, 0.0], [2.0, 2.0, 2.0, 2.0, 90.0]]], np.float32)
    got = ops.rotated_iou(T(boxes), T(query)).asnumpy()
    # [1,3]x[1,3] vs [2,4]x[1,3]: 2 / 6; vs itself rotated by 90 degrees (a square): 1
    # [-2,2]x[-1,1] vs [2,4]x[1,3]: touching at a corner: 0; vs [1,3]x[1,3]: 0 (only the corner (1, 1))
    want = np.array([[[2 / 6, 0.0, 1.0], [0.0, 0.0, 0.0]]])
    np.testing.assert_allclose(got, want, atol=1e-6)
    iof = ops.rotated_iou(T(boxes), T(query), mode=1).asnumpy()
    np.testing.assert_allclose(iof[0, 0], [2 / 4, 0.0, 1.0], atol=1e-6)


@pytest.mark.parametrize("mode", [0, 1])
def test_rotated_iou_matches_rasterisation(mode):
    r = np.random.default_rng(0)
    n, k = 4, 3
    boxes = np.concatenate([r.uniform(0, 3, (1, n, 2)), r.uniform(1, 3, (1, n, 2)), r.uniform(-90, 90, (1, n, 1))], -1)
    query = np.concatenate([r.uniform(0, 3, (1, k, 2)), r.uniform(1, 3, (1, k, 2)), r.uniform(-90, 90, (1, k, 1))], -1)
    got = ops.rotated_iou(T(boxes), T(query), mode=mode).asnumpy()
    want = np.array([[[raster_iou(boxes[0, i], query[0, j], mode) for j in range(k)] for i in range(n)]])
    np.testing.assert_allclose(got, want, atol=0.02)
    assert (want > 0.05).sum() >= 3  # the random boxes do overlap


def test_rotated_iou_invariances_layouts_and_pairwise():
    r = np.random.default_rng(1)
    boxes = np.concatenate([r.uniform(0, 2, (2, 3, 2)), r.uniform(1, 2, (2, 3, 2)), r.uniform(-45, 45, (2, 3, 1))], -1)
    query = np.concatenate([r.uniform(0, 2, (2, 3, 2)), r.uniform(1, 2, (2, 3, 2)), r.uniform(-45, 45, (2, 3, 1))], -1)
    base = ops.rotated_iou(T(boxes), T(query)).asnumpy()
    # rotating the whole scene about the origin changes no overlap
    phi = 37.0
    c, s = np.cos(np.deg2rad(phi)), np.sin(np.deg2rad(phi))

    def turn(b):
        out = b.copy()
        out[..., 0], out[..., 1] = c * b[..., 0] - s * b[..., 1], s * b[..., 0] + c * b[..., 1]
        out[..., 4] += phi
        return out

    np.testing.assert_allclose(ops.rotated_iou(T(turn(boxes)), T(turn(query))).asnumpy(), base, atol=1e-9)
    # the 'xyxyt' layout describes the same boxes by two corners
    def corners(b):
        return np.concatenate([b[..., :2] - b[..., 2:4] / 2, b[..., :2] + b[..., 2:4] / 2, b[..., 4:]], -1)

    np.testing.assert_allclose(ops.rotated_iou(T(corners(boxes)), T(corners(query)), trans=True).asnumpy(), base,
                               atol=1e-9)
    pair = ops.rotated_iou(T(boxes), T(query), is_cross=False).asnumpy()
    np.testing.assert_allclose(pair, np.diagonal(base, axis1=1, axis2=2), atol=1e-12)
    np.testing.assert_allclose(np.diagonal(ops.rotated_iou(T(boxes), T(boxes)).asnumpy(), axis1=1, axis2=2), 1.0,
                               atol=1e-9)
    with pytest.raises(ValueError, match="rotated_iou"):
        ops.rotated_iou(T(boxes), T(query[:1]))
    with pytest.raises(ValueError, match="rotated_iou"):
        ops.rotated_iou(T(boxes[..., :4]), T(query))


# --- CombinedNonMaxSuppression -------------------------------------------------------------------------
def _iou(a, b):
    ay1, ay2, ax1, ax2 = min(a[0], a[2]), max(a[0], a[2]), min(a[1], a[3]), max(a[1], a[3])
    by1, by2, bx1, bx2 = min(b[0], b[2]), max(b[0], b[2]), min(b[1], b[3]), max(b[1], b[3])
    ih, iw = max(0.0, min(ay2, by2) - max(ay1, by1)), max(0.0, min(ax2, bx2) - max(ax1, bx1))
    inter = ih * iw
    union = (ay2 - ay1) * (ax2 - ax1) + (by2 - by1) * (bx2 - bx1) - inter
    return inter / union if union > 0 else 0.0


def nms_ref(boxes, scores, per_class, total, iou_t, score_t, pad_per_class, clip):
    batch, nb, q, _ = boxes.shape
    classes = scores.shape[2]
    max_det = min(total, per_class * classes) if pad_per_class else total
    res = []
    for i in range(batch):
        picks = []
        for c in range(classes):
            order = sorted(range(nb), key=lambda j: (-scores[i, j, c], j))
            kept = []
            for j in order:
                if scores[i, j, c] <= score_t or len(kept) == per_class:
                    continue
                box = boxes[i, j, 0 if q == 1 else c]
                if all(_iou(box, boxes[i, k, 0 if q == 1 else c]) <= iou_t for k in kept):
                    kept.append(j)
            picks += [(scores[i, j, c], c, r, j) for r, j in enumerate(kept)]
        picks = sorted(picks, key=lambda p: (-p[0], p[1], p[2]))[:max_det]
        res.append(picks)
    return res, max_det


@pytest.mark.parametrize("q_shared", [True, False])
@pytest.mark.parametrize("pad_per_class,clip", [(False, True), (True, False)])
def test_combined_nms_matches_reference(q_shared, pad_per_class, clip):
    r = np.random.default_rng(2)
    batch, nb, classes = 2, 8, 3
    lo = r.uniform(-0.1, 0.8, (batch, nb, 1 if q_shared else classes, 2))
    boxes = np.concatenate([lo, lo + r.uniform(0.1, 0.4, lo.shape)], -1).astype(np.float32)
    scores = r.random((batch, nb, classes)).astype(np.float32)
    op = ops.CombinedNonMaxSuppression(pad_per_class, clip)
    ob, os_, oc, valid = op(T(boxes), T(scores), T(np.array(2, np.int32)), T(np.array(5, np.int32)),
                            T(np.array(0.3, np.float32)), T(np.array(0.2, np.float32)))
    picks, max_det = nms_ref(boxes, scores, 2, 5, 0.3, 0.2, pad_per_class, clip)
    assert ob.shape == (batch, max_det, 4) and valid.dtype == ms.int32
    for i in range(batch):
        assert valid.asnumpy()[i] == len(picks[i])
        for rnk, (sc, c, _, j) in enumerate(picks[i]):
            box = boxes[i, j, 0 if q_shared else c]
            np.testing.assert_allclose(ob.asnumpy()[i, rnk], np.clip(box, 0, 1) if clip else box)
            assert os_.asnumpy()[i, rnk] == sc and oc.asnumpy()[i, rnk] == c
        assert (os_.asnumpy()[i, len(picks[i]):] == 0).all() and (ob.asnumpy()[i, len(picks[i]):] == 0).all()


def test_combined_nms_suppresses_overlaps_and_errors():
    boxes = T(np.array([[[[0, 0, 1, 1]], [[0, 0.05, 1, 1.05]], [[0, 2, 1, 3]]]], np.float32))
    scores = T(np.array([[[0.9], [0.8], [0.7]]], np.float32))
    ob, os_, _, valid = ops.CombinedNonMaxSuppression(clip_boxes=False)(boxes, scores, 3, 3, 0.5, 0.0)
    assert valid.asnumpy().tolist() == [2]
    np.testing.assert_allclose(os_.asnumpy(), [[0.9, 0.7, 0.0]])
    with pytest.raises(ValueError, match="CombinedNonMaxSuppression"):
        ops.CombinedNonMaxSuppression()(boxes, scores, 0, 3, 0.5, 0.0)
    with pytest.raises(ValueError, match="CombinedNonMaxSuppression"):
        ops.CombinedNonMaxSuppression()(boxes, T(np.zeros((1, 2, 1), np.float32)), 1, 3, 0.5, 0.0)
