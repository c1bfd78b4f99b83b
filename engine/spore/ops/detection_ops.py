"""Detection ops of MindSpore (issue 14, vision slice): `ops.rotated_iou` and
`ops.CombinedNonMaxSuppression`. Both read their inputs eagerly (Graph mode breaks the graph there,
as for the other value-dependent selection ops) and carry no gradient, as in MindSpore.

`rotated_iou` (an Ascend kernel in MindSpore, computed here in NumPy): boxes are (x, y, w, h, t)
(`trans=False`: centre, size) or (x1, y1, x2, y2, t) (`trans=True`: two opposite corners of the
unrotated box), rotated counter-clockwise by t degrees about their centre. The overlap of two
rotated rectangles is the area of the convex polygon formed by the corners of each inside the
other and the crossings of their edges (sorted by angle about their mean, then the shoelace
formula), vectorised over all pairs. A corner counts as inside when its edge cross products are
>= -v_threshold, and two edges cross when they are further from parallel than e_threshold.
``mode=0`` divides by the union (IoU), ``mode=1`` by the area of the `boxes` box (IoF).

`CombinedNonMaxSuppression` is TensorFlow's combined_non_max_suppression: per image and class,
greedy NMS of the boxes scoring above `score_threshold` (in descending score order; a box is
dropped when its IoU with a kept one is above `iou_threshold`), at most
`max_output_size_per_class` per class; then all classes' picks merged by descending score (ties
in class then pick order) and cut to `max_total_size` (to min(max_total_size,
max_output_size_per_class * num_classes) with `pad_per_class`); boxes clipped to [0, 1] with
`clip_boxes`; zero padding. Boxes are [y1, x1, y2, x2] in any corner order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import DTypeError, ShapeError
from ..tensor import Tensor
from .operation import Operation

__all__ = ["CombinedNonMaxSuppression"]


def _corners(b: np.ndarray, trans: bool) -> np.ndarray:
    """(..., 4, 2) counter-clockwise corners of rotated boxes (..., 5)."""
    if trans:
        cx, cy = (b[..., 0] + b[..., 2]) / 2, (b[..., 1] + b[..., 3]) / 2
        w, h = np.abs(b[..., 2] - b[..., 0]), np.abs(b[..., 3] - b[..., 1])
    else:
        cx, cy, w, h = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    t = np.deg2rad(b[..., 4])
    c, s = np.cos(t), np.sin(t)
    dx = np.stack([-w, w, w, -w], -1) / 2
    dy = np.stack([-h, -h, h, h], -1) / 2
    return np.stack([cx[..., None] + dx * c[..., None] - dy * s[..., None],
                     cy[..., None] + dx * s[..., None] + dy * c[..., None]], -1)


def _cross(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a[..., 0] - o[..., 0]) * (b[..., 1] - o[..., 1]) - (a[..., 1] - o[..., 1]) * (b[..., 0] - o[..., 0])


def _inside(pts: np.ndarray, poly: np.ndarray, tol: float) -> np.ndarray:
    """(P, M) whether each of pts (P, M, 2) is inside the convex counter-clockwise poly (P, 4, 2)."""
    ok = np.ones(pts.shape[:2], bool)
    for i in range(4):
        a, b = poly[:, i][:, None], poly[:, (i + 1) % 4][:, None]
        ok &= _cross(a, b, pts) >= -tol
    return ok


def _overlap(p: np.ndarray, q: np.ndarray, v_tol: float, e_tol: float) -> np.ndarray:
    """(P,) intersection areas of the convex quadrilaterals p, q (P, 4, 2)."""
    pts = [p, q]
    masks = [_inside(p, q, v_tol), _inside(q, p, v_tol)]
    a1, a2 = p[:, :, None], np.roll(p, -1, 1)[:, :, None]  # (P, 4, 1, 2)
    b1, b2 = q[:, None], np.roll(q, -1, 1)[:, None]  # (P, 1, 4, 2)
    r, s = a2 - a1, b2 - b1
    den = r[..., 0] * s[..., 1] - r[..., 1] * s[..., 0]  # (P, 4, 4)
    diff = b1 - a1
    ok = np.abs(den) > max(e_tol, 1e-12)
    safe = np.where(ok, den, 1.0)
    t = (diff[..., 0] * s[..., 1] - diff[..., 1] * s[..., 0]) / safe
    u = (diff[..., 0] * r[..., 1] - diff[..., 1] * r[..., 0]) / safe
    ok &= (t >= 0) & (t <= 1) & (u >= 0) & (u <= 1)
    pts.append((a1 + t[..., None] * r).reshape(len(p), 16, 2))
    masks.append(ok.reshape(len(p), 16))
    allp, mask = np.concatenate(pts, 1), np.concatenate(masks, 1)  # (P, 24, 2), (P, 24)
    cnt = mask.sum(1)
    centre = (allp * mask[..., None]).sum(1) / np.maximum(cnt, 1)[:, None]
    ang = np.where(mask, np.arctan2(allp[..., 1] - centre[:, None, 1], allp[..., 0] - centre[:, None, 0]), np.inf)
    order = np.argsort(ang, 1, kind="stable")
    srt = np.take_along_axis(allp, order[..., None], 1)
    valid = np.take_along_axis(mask, order, 1)
    srt = np.where(valid[..., None], srt, srt[:, :1])  # pad with the first point: zero-area edges
    nxt = np.roll(srt, -1, 1)
    area = 0.5 * np.abs((srt[..., 0] * nxt[..., 1] - srt[..., 1] * nxt[..., 0]).sum(1))
    return np.where(cnt >= 3, area, 0.0)


def rotated_iou(boxes: Tensor, query_boxes: Tensor, trans: bool = False, mode: int = 0, is_cross: bool = True,
                v_threshold: float = 0.0, e_threshold: float = 0.0) -> Tensor:
    """IoU (`mode=0`) or IoF (`mode=1`) of rotated boxes (B, N, 5) and query_boxes (B, K, 5):
    (B, N, K) with `is_cross`, else the aligned pairs (B, N) (N == K)."""
    op = "rotated_iou"
    for name, t in (("boxes", boxes), ("query_boxes", query_boxes)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}: {name} must be a Tensor, got {type(t).__name__}")
        if not t.dtype.is_float:
            raise DTypeError(op, f"a float {name}", str(t.dtype))
        if t.ndim != 3 or t.shape[2] != 5:
            raise ShapeError(op, f"{name} of shape (B, *, 5)", f"shape {tuple(t.shape)}")
    if boxes.shape[0] != query_boxes.shape[0]:
        raise ValueError(f"{op}: boxes and query_boxes must have one batch size, got {boxes.shape[0]} and "
                         f"{query_boxes.shape[0]}")
    if mode not in (0, 1) or isinstance(mode, bool):
        raise ValueError(f"{op}: mode must be 0 (IoU) or 1 (IoF), got {mode!r}")
    a = boxes.asnumpy().astype(np.float64)
    b = query_boxes.asnumpy().astype(np.float64)
    bsz, n, k = a.shape[0], a.shape[1], b.shape[1]
    if not is_cross and n != k:
        raise ValueError(f"{op}: with is_cross=False boxes and query_boxes need as many boxes, got {n} and {k}")
    ca, cb = _corners(a, trans), _corners(b, trans)  # (B, N, 4, 2), (B, K, 4, 2)
    if is_cross:
        pa = np.broadcast_to(ca[:, :, None], (bsz, n, k, 4, 2)).reshape(-1, 4, 2)
        pb = np.broadcast_to(cb[:, None], (bsz, n, k, 4, 2)).reshape(-1, 4, 2)
        shape: tuple = (bsz, n, k)
    else:
        pa, pb, shape = ca.reshape(-1, 4, 2), cb.reshape(-1, 4, 2), (bsz, n)
    inter = _overlap(pa, pb, float(v_threshold), float(e_threshold))

    def area(c: np.ndarray) -> np.ndarray:
        return 0.5 * np.abs((c[..., 0] * np.roll(c[..., 1], -1, -1) - c[..., 1] * np.roll(c[..., 0], -1, -1)).sum(-1))

    area_a, area_b = area(pa), area(pb)
    denom = area_a if mode == 1 else area_a + area_b - inter
    out = np.divide(inter, denom, out=np.zeros_like(inter), where=denom > 0)
    return Tensor(out.reshape(shape).astype(boxes.dtype.np))


# --- CombinedNonMaxSuppression -------------------------------------------------------------------------
def _iou_matrix(boxes: np.ndarray) -> np.ndarray:
    y1, y2 = np.minimum(boxes[:, 0], boxes[:, 2]), np.maximum(boxes[:, 0], boxes[:, 2])
    x1, x2 = np.minimum(boxes[:, 1], boxes[:, 3]), np.maximum(boxes[:, 1], boxes[:, 3])
    area = (y2 - y1) * (x2 - x1)
    ih = np.clip(np.minimum(y2[:, None], y2[None]) - np.maximum(y1[:, None], y1[None]), 0, None)
    iw = np.clip(np.minimum(x2[:, None], x2[None]) - np.maximum(x1[:, None], x1[None]), 0, None)
    inter = ih * iw
    union = area[:, None] + area[None] - inter
    return np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)


def _scalar(op: str, name: str, v: Any, kind: type) -> Any:
    a = np.asarray(v.asnumpy() if isinstance(v, Tensor) else v)
    if a.size != 1:
        raise ShapeError(op, f"a scalar {name}", f"shape {a.shape}")
    return kind(a.reshape(()).item())


class CombinedNonMaxSuppression(Operation):
    """``CombinedNonMaxSuppression(pad_per_class=False, clip_boxes=True)(boxes, scores,
    max_output_size_per_class, max_total_size, iou_threshold, score_threshold)``: boxes
    (batch, num_boxes, q, 4) with q 1 (shared) or num_classes, scores (batch, num_boxes, num_classes)
    -> (nmsed_boxes (batch, max_detections, 4), nmsed_scores, nmsed_classes (batch, max_detections),
    valid_detections (batch,) int32)."""

    def __init__(self, pad_per_class: bool = False, clip_boxes: bool = True) -> None:
        for name, v in (("pad_per_class", pad_per_class), ("clip_boxes", clip_boxes)):
            if not isinstance(v, bool):
                raise TypeError(f"CombinedNonMaxSuppression: {name} must be a bool, got {type(v).__name__}")
        self.pad_per_class, self.clip_boxes = pad_per_class, clip_boxes

    def construct(self, boxes: Tensor, scores: Tensor, max_output_size_per_class: Any, max_total_size: Any,
                  iou_threshold: Any, score_threshold: Any) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        op = "CombinedNonMaxSuppression"
        if not isinstance(boxes, Tensor) or not isinstance(scores, Tensor):
            raise TypeError(f"{op}: boxes and scores must be Tensors")
        b, s = boxes.asnumpy(), scores.asnumpy()
        if b.ndim != 4 or b.shape[3] != 4:
            raise ShapeError(op, "boxes of shape (batch, num_boxes, q, 4)", f"shape {b.shape}")
        if s.ndim != 3 or s.shape[:2] != b.shape[:2]:
            raise ShapeError(op, f"scores of shape ({b.shape[0]}, {b.shape[1]}, num_classes)", f"shape {s.shape}")
        batch, _, q, _ = b.shape
        classes = s.shape[2]
        if q not in (1, classes):
            raise ShapeError(op, f"boxes' third axis 1 or num_classes ({classes})", f"{q}")
        per_class = _scalar(op, "max_output_size_per_class", max_output_size_per_class, int)
        total = _scalar(op, "max_total_size", max_total_size, int)
        iou_t = _scalar(op, "iou_threshold", iou_threshold, float)
        score_t = _scalar(op, "score_threshold", score_threshold, float)
        if per_class <= 0 or total <= 0:
            raise ValueError(f"{op}: max_output_size_per_class and max_total_size must be positive, got "
                             f"{per_class} and {total}")
        if not 0.0 <= iou_t <= 1.0:
            raise ValueError(f"{op}: iou_threshold must be in [0, 1], got {iou_t}")
        max_det = min(total, per_class * classes) if self.pad_per_class else total
        out_b = np.zeros((batch, max_det, 4), b.dtype)
        out_s = np.zeros((batch, max_det), s.dtype)
        out_c = np.zeros((batch, max_det), s.dtype)
        valid = np.zeros(batch, np.int32)
        for i in range(batch):
            picks: list[tuple[float, int, int, int]] = []  # (score, class, order, box index)
            for c in range(classes):
                cb = b[i, :, 0 if q == 1 else c]
                sc = s[i, :, c]
                cand = [j for j in np.argsort(-sc, kind="stable") if sc[j] > score_t]
                ov = _iou_matrix(cb.astype(np.float64))
                kept: list[int] = []
                for j in cand:
                    if len(kept) >= per_class:
                        break
                    if all(ov[j, k] <= iou_t for k in kept):
                        kept.append(int(j))
                picks.extend((float(sc[j]), c, r, j) for r, j in enumerate(kept))
            picks.sort(key=lambda p: (-p[0], p[1], p[2]))
            picks = picks[:max_det]
            valid[i] = len(picks)
            for r, (score, c, _, j) in enumerate(picks):
                box = b[i, j, 0 if q == 1 else c]
                out_b[i, r] = np.clip(box, 0.0, 1.0) if self.clip_boxes else box
                out_s[i, r], out_c[i, r] = score, c
        return Tensor(out_b), Tensor(out_s), Tensor(out_c), Tensor(valid)
