"""Class-form normalization, loss and dropout ops with MindSpore's signatures
(`ops.BatchNorm(is_training=True)(x, scale, bias, mean, variance)`, ...).

Each class only maps MindSpore's constructor and call conventions onto the primitives declared in
`norm`, `loss_ops` and `nn_misc`; kernels, shape rules and gradients live there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor
from . import loss_ops as _L
from . import nn_misc as _M
from .normalization import BatchNorm as _BatchNormPrim
from .normalization import LayerNorm as _LayerNormPrim
from .normalization import _per_channel, _update_running_stats
from .operation import Operation

__all__ = [
    "BCEWithLogitsLoss", "BatchNorm", "BinaryCrossEntropy", "Dropout", "LayerNorm", "NLLLoss", "SmoothL1Loss",
    "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
]


class BatchNorm(Operation):
    """Batch normalization of (N, C) / (N, C, H, W) data; in training the batch statistics are used
    and `mean`/`variance` (Parameters) are updated in place:
    running = (1 - momentum) * running + momentum * batch.

    Returns ``(y, batch_mean, batch_variance, reserve_space_1, reserve_space_2)``; as on MindSpore's
    CPU backend the reserve spaces repeat the batch mean and (biased) variance, and in inference all
    four are the given mean and variance.
    """

    def __init__(self, is_training: bool = False, epsilon: float = 1e-5, momentum: float = 0.1,
                 data_format: str = "NCHW") -> None:
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"BatchNorm: momentum must be in [0, 1], got {momentum}")
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"BatchNorm: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
        self.is_training = bool(is_training)
        self.epsilon = float(epsilon)
        self.momentum = float(momentum)
        self.data_format = data_format

    def construct(self, input_x: Tensor, scale: Tensor, bias: Tensor, mean: Tensor, variance: Tensor) -> tuple:
        from .elementwise import div, mul, sub

        y, saved_mean, saved_rstd = _BatchNormPrim(input_x, scale, bias, mean, variance, is_training=self.is_training,
                                                 epsilon=self.epsilon, data_format=self.data_format)
        if not self.is_training:
            return y, mean, variance, mean, variance
        batch_var = sub(div(1.0, mul(saved_rstd, saved_rstd)), self.epsilon)
        _update_running_stats(mean, variance, saved_mean, saved_rstd, self.momentum, self.epsilon,
                              _per_channel(input_x.shape, scale.shape[0]))
        return y, saved_mean, batch_var, saved_mean, batch_var


class LayerNorm(Operation):
    """Layer normalization over the axes from `begin_norm_axis` on, with gamma/beta of shape
    x.shape[begin_params_axis:]. Returns ``(y, mean, rstd)`` (MindSpore 2.x; statistics keep the
    normalised axes as size 1)."""

    def __init__(self, begin_norm_axis: int = 1, begin_params_axis: int = 1, epsilon: float = 1e-7) -> None:
        self.begin_norm_axis = int(begin_norm_axis)
        self.begin_params_axis = int(begin_params_axis)
        self.epsilon = float(epsilon)

    def construct(self, input_x: Tensor, gamma: Tensor, beta: Tensor) -> tuple:
        return _LayerNormPrim(input_x, gamma, beta, begin_norm_axis=self.begin_norm_axis,
                            begin_params_axis=self.begin_params_axis, epsilon=self.epsilon)


class SoftmaxCrossEntropyWithLogits(Operation):
    """Softmax cross-entropy with probability labels (N, C): returns ``(loss, backprop)``, the
    per-row loss (N,) and its gradient w.r.t. the logits, softmax(logits) - labels."""

    def construct(self, logits: Tensor, labels: Tensor) -> tuple:
        loss = _L.SoftmaxCrossEntropyWithLogits(logits, labels, reduction="none")
        ones = Tensor._wrap(np.ones(loss.shape, logits.dtype.np))
        return loss, _L.SoftmaxCrossEntropyWithLogitsGrad(ones, logits, labels, reduction="none")


class SparseSoftmaxCrossEntropyWithLogits(Operation):
    """Softmax cross-entropy with class-index labels (N,): the mean loss, or with ``is_grad=True``
    its gradient w.r.t. the logits ((softmax - one_hot) / N)."""

    def __init__(self, is_grad: bool = False) -> None:
        self.is_grad = bool(is_grad)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        if not self.is_grad:
            return _L.SparseSoftmaxCrossEntropyWithLogits(logits, labels, reduction="mean")
        one = Tensor._wrap(np.ones((), logits.dtype.np))
        return _L.SparseSoftmaxCrossEntropyWithLogitsGrad(one, logits, labels, reduction="mean")


class NLLLoss(Operation):
    """Negative log-likelihood: ``(logits, labels, weight) -> (loss, total_weight)``, where
    total_weight is the summed weight of the targets not equal to `ignore_index`."""

    def __init__(self, reduction: str = "mean", ignore_index: int = -100) -> None:
        _L._check_reduction("NLLLoss", reduction)
        self.reduction = reduction
        self.ignore_index = int(ignore_index)

    def construct(self, logits: Tensor, labels: Tensor, weight: Tensor) -> tuple:
        from .. import ops
        from ..common import dtype as mstype

        loss = _L.NLLLoss(logits, labels, weight, ignore_index=self.ignore_index, reduction=self.reduction)
        # total weight as ops (not NumPy on the labels' values), so a compiled call computes it too
        valid = ops.not_equal(labels, self.ignore_index)
        picked = ops.gather(ops.cast(weight, mstype.float64),
                            ops.where(valid, labels, ops.zeros_like(labels)), 0)
        total = ops.sum(ops.where(valid, picked, ops.zeros_like(picked)))
        return loss, ops.stop_gradient(ops.cast(total, weight.dtype))


class BCEWithLogitsLoss(Operation):
    """Binary cross-entropy on logits: ``(logits, label, weight, pos_weight) -> loss`` (weight and
    pos_weight broadcast to the logits; None acts as ones)."""

    def __init__(self, reduction: str = "mean") -> None:
        _L._check_reduction("BCEWithLogitsLoss", reduction)
        self.reduction = reduction

    def construct(self, logits: Tensor, label: Tensor, weight: Tensor | None = None,
                  pos_weight: Tensor | None = None) -> Tensor:
        return _L.binary_cross_entropy_with_logits(logits, label, weight, pos_weight, reduction=self.reduction)


class BinaryCrossEntropy(Operation):
    """Binary cross-entropy on probabilities: ``(logits, labels, weight=None) -> loss``."""

    def __init__(self, reduction: str = "mean") -> None:
        _L._check_reduction("BinaryCrossEntropy", reduction)
        self.reduction = reduction

    def construct(self, logits: Tensor, labels: Tensor, weight: Tensor | None = None) -> Tensor:
        return _L.binary_cross_entropy(logits, labels, weight, reduction=self.reduction)


class SmoothL1Loss(Operation):
    """Smooth L1 loss: ``(prediction, target) -> loss`` (see ops.smooth_l1_loss)."""

    def __init__(self, beta: float = 1.0, reduction: str = "none") -> None:
        _L._check_reduction("SmoothL1Loss", reduction)
        self.beta = float(beta)
        self.reduction = reduction

    def construct(self, prediction: Tensor, target: Tensor) -> Tensor:
        return _L.smooth_l1_loss(prediction, target, beta=self.beta, reduction=self.reduction)


class Dropout(Operation):
    """Dropout: ``x -> (output, mask)`` with the 0/1 keep mask in x's dtype.

    With Seed0 = Seed1 = 0 masks come from the global generator (reproducible after `ms.set_seed`);
    otherwise this op instance draws from its own generator seeded by (Seed0, Seed1), giving the
    same sequence of masks on every run.
    """

    def __init__(self, keep_prob: float = 0.5, Seed0: int = 0, Seed1: int = 0) -> None:
        _M._check_keep_prob("Dropout", float(keep_prob))
        self.keep_prob = float(keep_prob)
        self.Seed0 = int(Seed0)
        self.Seed1 = int(Seed1)
        self._gen = np.random.default_rng([self.Seed0, self.Seed1]) if (self.Seed0 or self.Seed1) else None

    def construct(self, x: Tensor) -> Any:
        seed = int(self._gen.integers(2 ** 63)) if self._gen is not None else None
        return _M.Dropout(x, keep_prob=self.keep_prob, seed=seed)
