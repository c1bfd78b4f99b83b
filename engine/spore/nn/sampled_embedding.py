"""MindSpore's `nn.SampledSoftmaxLoss` and `nn.MultiFieldEmbeddingLookup` (issue 14), following
MindSpore's own construct step by step.

`SampledSoftmaxLoss` draws `num_sampled` negative classes with `ops.UniformCandidateSampler`
(unique, range num_classes; with remove_accidental_hits the draws avoid the true classes), builds
the logits of the true and sampled classes from `weights` [num_classes, dim] and `biases`
[num_classes] minus the log of their expected counts, and returns the softmax cross-entropy with
targets 1/num_true on the true columns — ``-sum(t * log(softmax + 1e-20))`` per row, as MindSpore
computes it — then the `reduction`. Gradients reach weights, biases and inputs.

`MultiFieldEmbeddingLookup` looks up `input_indices` (batch, seq), scales each row by
`input_values`, and pools the rows of each (batch, field) by `operator`: SUM, MEAN (divided by the
sum of |values|, 0 where that is 0) or MAX (entries whose value is 0 excluded; a field with no
nonzero value gives zeros), as MindSpore's segment reductions do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..ops import functional as F
from ..ops.candidate_sampling import UniformCandidateSampler
from ..tensor import Tensor
from .layer.misc_cells import EmbeddingLookup
from .loss import LossBase

__all__ = ["SampledSoftmaxLoss", "MultiFieldEmbeddingLookup"]


class SampledSoftmaxLoss(LossBase):
    """``SampledSoftmaxLoss(num_sampled, num_classes, num_true=1, sampled_values=None,
    remove_accidental_hits=True, seed=0, reduction='none')(weights, biases, labels, inputs)``:
    the sampled softmax training loss, (batch,) with reduction 'none' (see the module docstring).
    `sampled_values` replaces the sampler by a fixed (sampled_candidates, true_expected_count,
    sampled_expected_count)."""

    def __init__(self, num_sampled: int, num_classes: int, num_true: int = 1, sampled_values: Any = None,
                 remove_accidental_hits: bool = True, seed: int = 0, reduction: str = "none") -> None:
        super().__init__(reduction)
        who = "SampledSoftmaxLoss"
        if num_true < 1:
            raise ValueError(f"{who}: num_true {num_true} is less than 1")
        if seed < 0:
            raise ValueError(f"{who}: seed {seed} is less than 0")
        if num_sampled > num_classes:
            raise ValueError(f"{who}: num_sampled {num_sampled} is greater than num_classes {num_classes}")
        if num_true > num_classes:
            raise ValueError(f"{who}: num_true {num_true} is greater than num_classes {num_classes}")
        if sampled_values is not None:
            if not isinstance(sampled_values, (list, tuple)):
                raise TypeError(f"{who}: sampled_values must be a list or tuple, got {type(sampled_values).__name__}")
            if len(sampled_values) != 3:
                raise ValueError(f"{who}: sampled_values must hold 3 tensors, got {len(sampled_values)}")
        self.num_sampled, self.num_classes, self.num_true = num_sampled, num_classes, num_true
        self.sampled_values = sampled_values
        self.remove_accidental_hits, self.seed = remove_accidental_hits, seed
        self.sampler = UniformCandidateSampler(num_true, num_sampled, True, num_classes, seed, remove_accidental_hits)

    def construct(self, weights: Tensor, biases: Tensor, labels: Tensor, inputs: Tensor) -> Tensor:
        who = "SampledSoftmaxLoss"
        for name, t in (("weights", weights), ("biases", biases), ("labels", labels), ("inputs", inputs)):
            if not isinstance(t, Tensor):
                raise TypeError(f"{who}: {name} must be a Tensor, got {type(t).__name__}")
        if labels.dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"{who}: labels must be int32 or int64, got {labels.dtype}")
        nt = self.num_true
        labels = F.reshape(F.cast(labels, mstype.int32), (-1, nt))
        labels_flat = F.reshape(labels, (-1,))
        values = self.sampled_values if self.sampled_values is not None else self.sampler(
            F.cast(labels, mstype.int64))
        sampled, true_count, sampled_count = (F.stop_gradient(v) for v in values)
        sampled = F.cast(sampled, mstype.int32)
        n_true = labels_flat.shape[0]
        all_ids = F.concat((labels_flat, sampled), 0)
        all_w = F.gather(weights, all_ids, 0)
        all_b = F.gather(biases, all_ids, 0)
        true_w, sampled_w = all_w[:n_true], all_w[n_true:]
        true_b, sampled_b = all_b[:n_true], all_b[n_true:]
        sampled_logits = F.matmul(inputs, F.transpose(sampled_w, (1, 0))) + sampled_b
        dim = all_w.shape[1]
        dots = F.mul(F.expand_dims(inputs, 1), F.reshape(true_w, (-1, nt, dim)))
        true_logits = F.reduce_sum(dots, -1) + F.reshape(true_b, (-1, nt))
        true_logits = true_logits - F.log(true_count)
        sampled_logits = sampled_logits - F.log(sampled_count)
        logits = F.concat((true_logits, sampled_logits), 1)
        targets = F.concat((F.ones_like(true_logits) / nt, F.zeros_like(sampled_logits)), 1)
        stable = F.exp(logits - F.reduce_max(logits, 1, True))
        pred = stable / F.reduce_sum(stable, 1, True)
        loss = -F.reduce_sum(targets * F.log(pred + 1.0e-20), 1)
        return self.get_loss(loss)


_NEG_INF_F32 = -3.402823466e38


class MultiFieldEmbeddingLookup(EmbeddingLookup):
    """``MultiFieldEmbeddingLookup(vocab_size, embedding_size, field_size, param_init='normal',
    target='CPU', slice_mode='batch_slice', feature_num_list=None, max_norm=None, sparse=True,
    operator='SUM', dtype=mindspore.float32)(input_indices, input_values, field_ids)``: (batch,
    field_size, embedding_size) pooled embeddings (see the module docstring)."""

    def __init__(self, vocab_size: int, embedding_size: int, field_size: int, param_init: Any = "normal",
                 target: str = "CPU", slice_mode: str = "batch_slice", feature_num_list: Any = None,
                 max_norm: float | None = None, sparse: bool = True, operator: str = "SUM",
                 dtype: Any = mstype.float32) -> None:
        who = "MultiFieldEmbeddingLookup"
        if target == "CPU" and not sparse:
            raise ValueError(f"{who}: sparse must be True when target is 'CPU'")
        if slice_mode == "field_slice" and feature_num_list is None:
            raise ValueError(f"{who}: slice_mode 'field_slice' needs feature_num_list")
        if feature_num_list is not None and not isinstance(feature_num_list, tuple):
            raise TypeError(f"{who}: feature_num_list must be a tuple, got {type(feature_num_list).__name__}")
        super().__init__(vocab_size, embedding_size, param_init, target, slice_mode, None, max_norm, sparse, dtype)
        if isinstance(field_size, bool) or not isinstance(field_size, int) or field_size < 1:
            raise ValueError(f"{who}: field_size must be a positive int, got {field_size!r}")
        if operator not in ("SUM", "MAX", "MEAN"):
            raise ValueError(f"{who}: operator must be 'SUM', 'MAX' or 'MEAN', got {operator!r}")
        self.field_size, self.operator, self.feature_num_list = field_size, operator, feature_num_list

    def construct(self, input_indices: Tensor, input_values: Tensor, field_ids: Tensor) -> Tensor:
        who = "MultiFieldEmbeddingLookup"
        for name, t, dts in (("input_indices", input_indices, (mstype.int32, mstype.int64)),
                             ("input_values", input_values, (mstype.float32,)),
                             ("field_ids", field_ids, (mstype.int32,))):
            if not isinstance(t, Tensor) or t.ndim != 2:
                raise ValueError(f"{who}: {name} must be a 2-D Tensor, got {getattr(t, 'shape', type(t).__name__)}")
            if t.dtype not in dts:
                raise TypeError(f"{who}: {name} must be {' or '.join(map(str, dts))}, got {t.dtype}")
        batch, seq = input_indices.shape
        num_segments = batch * self.field_size
        bias = Tensor(np.arange(0, num_segments, self.field_size, dtype=np.int32).reshape(batch, 1))
        seg = F.reshape(field_ids + bias, (-1,))
        out = super().construct(input_indices)  # (batch, seq, emb), max_norm applied
        weights = F.reshape(input_values, (batch, seq, 1))
        emb = F.mul(weights, out)
        if self.operator == "MAX":
            emb = emb + F.cast(F.equal(weights, 0), mstype.float32) * _NEG_INF_F32
        emb = F.reshape(emb, (-1, self.embedding_size))
        abs_vals = F.abs(F.reshape(input_values, (-1,)))
        if self.operator == "MAX":
            merged = F.unsorted_segment_max(emb, seg, num_segments)
            count = F.unsorted_segment_sum(abs_vals, seg, num_segments)
            merged = merged * F.expand_dims(F.cast(F.not_equal(count, 0.0), mstype.float32), -1)
        else:
            merged = F.unsorted_segment_sum(emb, seg, num_segments)
            if self.operator == "MEAN":
                count = F.expand_dims(F.unsorted_segment_sum(abs_vals, seg, num_segments), -1)
                safe = F.select(F.equal(count, 0.0), F.ones_like(count), count)
                merged = F.select(F.equal(count, 0.0), F.zeros_like(merged), merged / safe)
        return F.reshape(merged, (batch, self.field_size, -1))

