"""CTC greedy (best-path) decoding of MindSpore (issue 14, slice A2): `ops.ctc_greedy_decoder` and
`ops.CTCGreedyDecoder(merge_repeated=True)`.

Per batch entry b, over its first ``sequence_length[b]`` frames: take the arg-max class of each
frame (the first one on ties), merge runs of the same class when `merge_repeated`, and drop the
blank class ``num_classes - 1``. The result is MindSpore's (TensorFlow's) sparse form —
`decoded_indices` (nnz, 2) int64 of (b, position), `decoded_values` (nnz,) int64,
`decoded_shape` (2,) int64 = (batch, longest decoding) — plus `log_probability` (batch, 1): minus
the sum of each frame's greatest logit, in the inputs' dtype. The output size depends on the
values, so this runs eagerly (Graph mode breaks the graph here, as it does for `unique`) and has
no gradient.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import DTypeError, ShapeError
from ..tensor import Tensor
from .operation import Operation

__all__ = ["CTCGreedyDecoder"]


def ctc_greedy_decoder(inputs: Tensor, sequence_length: Tensor,
                       merge_repeated: bool = True) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Greedy CTC decoding of `inputs` (max_time, batch, num_classes) logits with per-entry
    `sequence_length` (batch,): (decoded_indices, decoded_values, decoded_shape, log_probability)."""
    op = "ctc_greedy_decoder"
    if not isinstance(inputs, Tensor) or not inputs.dtype.is_float:
        raise DTypeError(op, "a float Tensor inputs", str(getattr(inputs, "dtype", type(inputs).__name__)))
    if inputs.ndim != 3:
        raise ShapeError(op, "inputs of shape (max_time, batch_size, num_classes)", f"shape {tuple(inputs.shape)}")
    if not isinstance(sequence_length, Tensor) or sequence_length.dtype.is_float:
        raise DTypeError(op, "an int Tensor sequence_length",
                         str(getattr(sequence_length, "dtype", type(sequence_length).__name__)))
    x = inputs.asnumpy()
    t_max, batch, classes = x.shape
    lens = sequence_length.asnumpy().reshape(-1)
    if lens.shape != (batch,):
        raise ShapeError(op, f"sequence_length of shape ({batch},)", f"shape {tuple(sequence_length.shape)}")
    if (lens < 0).any() or (lens > t_max).any():
        raise ValueError(f"{op}: sequence_length must be in [0, max_time={t_max}], got {lens.tolist()}")
    blank = classes - 1
    idx: list[tuple[int, int]] = []
    vals: list[int] = []
    logp = np.zeros((batch, 1), x.dtype)
    longest = 0
    for b in range(batch):
        frames = x[:int(lens[b]), b]
        best = frames.argmax(-1) if len(frames) else np.zeros(0, np.int64)
        logp[b, 0] = -frames.max(-1).sum() if len(frames) else 0
        out: list[int] = []
        prev = -1
        for c in best.tolist():
            if c != blank and not (merge_repeated and c == prev):
                out.append(c)
            prev = c
        idx.extend((b, i) for i in range(len(out)))
        vals.extend(out)
        longest = max(longest, len(out))
    return (Tensor(np.array(idx, np.int64).reshape(-1, 2)), Tensor(np.array(vals, np.int64)),
            Tensor(np.array([batch, longest], np.int64)), Tensor(logp))


class CTCGreedyDecoder(Operation):
    """``CTCGreedyDecoder(merge_repeated=True)(inputs, sequence_length)``: see `ctc_greedy_decoder`."""

    def __init__(self, merge_repeated: bool = True) -> None:
        if not isinstance(merge_repeated, bool):
            raise TypeError(f"CTCGreedyDecoder: merge_repeated must be a bool, got {type(merge_repeated).__name__}")
        self.merge_repeated = merge_repeated

    def construct(self, inputs: Tensor, sequence_length: Any) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        return ctc_greedy_decoder(inputs, sequence_length, self.merge_repeated)
