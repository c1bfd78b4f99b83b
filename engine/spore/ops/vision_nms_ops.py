"""Selection ops of MindSpore whose output size depends on the values (issue 14, slice B2):
`NMSWithMask`, `NonMaxSuppressionWithOverlaps`, `RandomChoiceWithMask`, `RaggedRange`,
`NoRepeatNGram`, and `is_available` / `is_initialized` of the communication layer.

They read their inputs eagerly (a graph break in Graph mode, like the sorted-segment ops) and carry
no gradient: their outputs are indices, masks and selections, which MindSpore does not
differentiate either. Decisions where MindSpore's docs leave room:

- box areas are (x2 - x1) * (y2 - y1) (continuous coordinates), and a box is suppressed when its
  IoU with a kept box is strictly greater than the threshold;
- `NonMaxSuppressionWithOverlaps` follows TensorFlow's op of the same name (which MindSpore's
  copies): candidates need a score strictly above `score_threshold`, and are suppressed by an
  overlap strictly above `overlap_threshold`;
- `NoRepeatNGram` writes the dtype's lowest finite value (MindSpore's -FLT_MAX for float32) into
  banned tokens.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..common import seed as _seed
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor
from .operation import Operation

__all__ = ["NMSWithMask", "NonMaxSuppressionWithOverlaps", "RandomChoiceWithMask", "RaggedRange", "NoRepeatNGram"]


def _arr(op: str, name: str, x: Any) -> np.ndarray:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: {name} must be a Tensor, got {type(x).__name__}")
    return x.asnumpy()


def _scalar(op: str, name: str, x: Any) -> float:
    a = np.asarray(x.asnumpy() if isinstance(x, Tensor) else x)
    if a.size != 1:
        raise ShapeError(op, f"a scalar {name}", f"shape {a.shape}")
    return a.reshape(()).item()


def _pair_iou(boxes: np.ndarray) -> np.ndarray:
    x1, y1, x2, y2 = (boxes[:, i].astype(np.float64) for i in range(4))
    area = (x2 - x1) * (y2 - y1)
    w = np.clip(np.minimum(x2[:, None], x2[None]) - np.maximum(x1[:, None], x1[None]), 0, None)
    h = np.clip(np.minimum(y2[:, None], y2[None]) - np.maximum(y1[:, None], y1[None]), 0, None)
    inter = w * h
    union = area[:, None] + area[None] - inter
    return np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)


class NMSWithMask(Operation):
    """``NMSWithMask(iou_threshold=0.5)(bboxes)``: greedy non-maximum suppression of (N, 5) boxes
    (x1, y1, x2, y2, score). Returns the boxes sorted by descending score, their original indices
    (int32) and the mask (bool) of those kept."""

    def __init__(self, iou_threshold: float = 0.5) -> None:
        if isinstance(iou_threshold, bool) or not isinstance(iou_threshold, (int, float)):
            raise TypeError(f"NMSWithMask: iou_threshold must be a float, got {type(iou_threshold).__name__}")
        self.iou_threshold = float(iou_threshold)

    def construct(self, bboxes: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        b = _arr("NMSWithMask", "bboxes", bboxes)
        if b.ndim != 2 or b.shape[1] != 5:
            raise ShapeError("NMSWithMask", "bboxes of shape (N, 5)", f"shape {b.shape}")
        if not bboxes.dtype.is_float:
            raise DTypeError("NMSWithMask", "float bboxes", str(bboxes.dtype))
        order = np.argsort(-b[:, 4], kind="stable")
        sb = b[order]
        ov = _pair_iou(sb)
        keep = np.ones(len(sb), bool)
        for i in range(len(sb)):
            if keep[i]:
                keep[i + 1:] &= ~(ov[i, i + 1:] > self.iou_threshold)
        return Tensor(sb), Tensor(order.astype(np.int32)), Tensor(keep)


class NonMaxSuppressionWithOverlaps(Operation):
    """``NonMaxSuppressionWithOverlaps()(overlaps, scores, max_output_size, overlap_threshold,
    score_threshold)``: int32 indices of at most `max_output_size` boxes picked greedily by score,
    skipping any whose overlap with a picked box exceeds `overlap_threshold`."""

    def construct(self, overlaps: Tensor, scores: Tensor, max_output_size: Any, overlap_threshold: Any,
                  score_threshold: Any) -> Tensor:
        op = "NonMaxSuppressionWithOverlaps"
        ov, sc = _arr(op, "overlaps", overlaps), _arr(op, "scores", scores)
        if ov.ndim != 2 or ov.shape[0] != ov.shape[1]:
            raise ShapeError(op, "square 2-D overlaps", f"shape {ov.shape}")
        if sc.shape != (ov.shape[0],):
            raise ShapeError(op, f"scores of shape ({ov.shape[0]},)", f"shape {sc.shape}")
        k = _scalar(op, "max_output_size", max_output_size)
        if not float(k).is_integer() or k < 0:
            raise ValueError(f"{op}: max_output_size must be a non-negative int, got {k}")
        thr, sthr = _scalar(op, "overlap_threshold", overlap_threshold), _scalar(op, "score_threshold",
                                                                                  score_threshold)
        picked: list[int] = []
        for i in np.argsort(-sc, kind="stable"):
            if len(picked) >= int(k) or sc[i] <= sthr:
                break
            if all(ov[i, j] <= thr for j in picked):
                picked.append(int(i))
        return Tensor(np.array(picked, np.int32))


class RandomChoiceWithMask(Operation):
    """``RandomChoiceWithMask(count=256, seed=0, seed2=0)(input_x)``: `count` coordinates of True
    elements of the bool `input_x`, in random order, as (count, rank) int32 with a (count,) bool
    mask; rows past the number of True elements are zeros with mask False."""

    def __init__(self, count: int = 256, seed: int = 0, seed2: int = 0) -> None:
        if isinstance(count, bool) or not isinstance(count, int) or count <= 0:
            raise ValueError(f"RandomChoiceWithMask: count must be a positive int, got {count!r}")
        if seed < 0 or seed2 < 0:
            raise ValueError(f"RandomChoiceWithMask: seed and seed2 must be >= 0, got {seed} and {seed2}")
        self.count, self.seed, self.seed2 = count, seed, seed2
        self._gen = None if seed == 0 and seed2 == 0 else np.random.default_rng(seed * 1_000_003 + seed2)

    def construct(self, input_x: Tensor) -> tuple[Tensor, Tensor]:
        x = _arr("RandomChoiceWithMask", "input_x", input_x)
        if input_x.dtype != mstype.bool_:
            raise DTypeError("RandomChoiceWithMask", "a bool input_x", str(input_x.dtype))
        if not 1 <= x.ndim <= 5:
            raise ShapeError("RandomChoiceWithMask", "input_x of rank 1 to 5", f"rank {x.ndim}")
        coords = np.argwhere(x)
        gen = self._gen if self._gen is not None else _seed.rng()
        coords = coords[gen.permutation(len(coords))][:self.count]
        index = np.zeros((self.count, x.ndim), np.int32)
        index[:len(coords)] = coords
        mask = np.arange(self.count) < len(coords)
        return Tensor(index), Tensor(mask)


class RaggedRange(Operation):
    """``RaggedRange(Tsplits)(starts, limits, deltas)``: the ragged tensor whose row i is
    ``range(starts[i], limits[i], deltas[i])``, as (row splits of dtype `Tsplits`, dense values)."""

    def __init__(self, Tsplits: Any) -> None:  # noqa: N803  (MindSpore's name)
        if Tsplits not in (mstype.int32, mstype.int64):
            raise TypeError(f"RaggedRange: Tsplits must be mindspore.int32 or mindspore.int64, got {Tsplits!r}")
        self.Tsplits = Tsplits

    def construct(self, starts: Tensor, limits: Tensor, deltas: Tensor) -> tuple[Tensor, Tensor]:
        op = "RaggedRange"
        s, lim, d = (_arr(op, n, t) for n, t in (("starts", starts), ("limits", limits), ("deltas", deltas)))
        if not (starts.dtype == limits.dtype == deltas.dtype):
            raise DTypeError(op, "starts, limits and deltas of one dtype",
                             f"{starts.dtype}, {limits.dtype}, {deltas.dtype}")
        if max(s.ndim, lim.ndim, d.ndim) > 1:
            raise ShapeError(op, "scalar or 1-D starts, limits and deltas", f"{s.shape}, {lim.shape}, {d.shape}")
        try:
            s, lim, d = np.broadcast_arrays(np.atleast_1d(s), np.atleast_1d(lim), np.atleast_1d(d))
        except ValueError:
            raise ShapeError(op, "starts, limits and deltas of one length", f"{s.shape}, {lim.shape}, {d.shape}") \
                from None
        if np.any(d == 0):
            raise ValueError(f"{op}: deltas must be nonzero, got {d.tolist()}")
        rows = [np.arange(a, b, c, dtype=starts.dtype.np) for a, b, c in zip(s, lim, d)]
        splits = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(self.Tsplits.np)
        values = np.concatenate(rows) if rows else np.zeros(0, starts.dtype.np)
        return Tensor(splits), Tensor(values.astype(starts.dtype.np))


class NoRepeatNGram(Operation):
    """``NoRepeatNGram(ngram_size=1)(state_seq, log_probs)``: `log_probs` (batch, beam, vocab) with the
    tokens that would repeat an n-gram already in `state_seq` (batch, beam, length) set to the
    lowest finite value, so beam search never picks them."""

    def __init__(self, ngram_size: int = 1) -> None:
        if isinstance(ngram_size, bool) or not isinstance(ngram_size, int) or ngram_size <= 0:
            raise ValueError(f"NoRepeatNGram: ngram_size must be a positive int, got {ngram_size!r}")
        self.ngram_size = ngram_size

    def construct(self, state_seq: Tensor, log_probs: Tensor) -> Tensor:
        op = "NoRepeatNGram"
        seq, lp = _arr(op, "state_seq", state_seq), _arr(op, "log_probs", log_probs).copy()
        if seq.ndim != 3 or lp.ndim != 3 or seq.shape[:2] != lp.shape[:2]:
            raise ShapeError(op, "state_seq (batch, beam, length) and log_probs (batch, beam, vocab)",
                             f"{seq.shape} and {lp.shape}")
        n, length, low = self.ngram_size, seq.shape[2], np.finfo(lp.dtype).min
        if n > length + 1:
            return Tensor(lp)
        for b, k in np.ndindex(seq.shape[:2]):
            s = seq[b, k]
            prefix = s[length - n + 1:] if n > 1 else s[:0]
            for i in range(length - n + 1):
                if np.array_equal(s[i:i + n - 1], prefix):
                    tok = int(s[i + n - 1])
                    if 0 <= tok < lp.shape[2]:
                        lp[b, k, tok] = low
        return Tensor(lp)


def is_available() -> bool:
    """Whether distributed communication can run here: True when mpi4py (Spore's MPI backend, see
    `spore.communication`) imports."""
    import importlib.util

    return importlib.util.find_spec("mpi4py") is not None


def is_initialized() -> bool:
    """Whether `spore.communication.init()` has been called (and not `release()`d) in this process."""
    from ..communication import _backend

    return bool(_backend.STATE.initialized)
