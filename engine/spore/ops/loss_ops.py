"""Losses: softmax cross-entropy (class-index and probability targets), NLL, binary cross-entropy
(on probabilities and on logits), MSE, L1 and smooth L1, with MindSpore's functional names.

Each loss is one fused primitive with its reduction ('none' | 'mean' | 'sum') as an attribute, so a
training step pays one op forward and one backward for it. Softmax cross-entropy runs in C++ for
float32 (numerically stable, loss and gradient in one pass over the logits); the gradient kernel
recomputes the softmax rather than keeping an (N, C) buffer alive between forward and backward.
float64 (gradient checks) takes NumPy paths of the same formulas.

Class weights (`weight` of the cross-entropy/NLL losses) are treated as constants: no gradient
flows into them. Everything else is differentiable.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _kernels
from ..autodiff.tape import is_tracked
from ..errors import DTypeError, ShapeError, located
from ..tensor import Tensor
from ._rules import broadcast_shapes, require_same_dtype
from .normalization import _as, _f32, _kernel_ok, _require_float
from .primitive import Aval, primitive

_REDUCTIONS = ("none", "mean", "sum")


def _check_reduction(op: str, reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{op}: reduction must be one of 'none', 'mean', 'sum', got {reduction!r}")


def _reduced(loss: np.ndarray, reduction: str, denom: float, dtype: np.dtype) -> np.ndarray:
    """Apply the reduction; 'mean' divides the sum by `denom` (the element count or the weight sum)."""
    if reduction == "none":
        return _as(loss, dtype)
    total = float(loss.sum(dtype=np.float64))
    if reduction == "sum":
        return np.asarray(total, dtype=dtype)
    return np.asarray(total / denom if denom else np.nan, dtype=dtype)  # every row ignored: NaN, as PyTorch


def _row_cotangent(g: np.ndarray, reduction: str, shape: tuple[int, ...], denom: float) -> np.ndarray:
    """The per-element cotangent of the unreduced loss from the cotangent of the reduced one."""
    if reduction == "none":
        return g
    scale = g.astype(np.float64)
    if reduction == "mean":
        scale = scale / denom if denom else np.full_like(scale, np.nan)
    return np.broadcast_to(scale, shape)


def _loss_aval(op: str, shape: tuple[int, ...], dtype: Any, reduction: str) -> Aval:
    _check_reduction(op, reduction)
    return Aval(shape if reduction == "none" else (), dtype)


# --- softmax cross-entropy with class-index labels ---------------------------------------------

def _ce_layout(shape: tuple[int, ...]) -> tuple[int, int, int]:
    """(N, C, S): class axis 1, S the product of the trailing (spatial) axes."""
    return shape[0], shape[1], math.prod(shape[2:])


def _check_sparse(op: str, logits: Any, labels: Any, weight: Any) -> None:
    if len(logits.shape) < 2:
        raise ShapeError(op, "logits of rank >= 2 ((N, C) or (N, C, d1, ...))",
                         f"logits of shape {tuple(logits.shape)}")
    _require_float(op, logits=logits)
    if not labels.dtype.is_int:
        raise DTypeError(op, "integer class-index labels", f"labels of dtype {labels.dtype}",
                         hint="class probabilities go to SoftmaxCrossEntropyWithLogits / ops.cross_entropy")
    want = tuple(logits.shape[:1]) + tuple(logits.shape[2:])
    if tuple(labels.shape) != want:
        raise ShapeError(op, f"labels of shape {want} (logits {tuple(logits.shape)} without the class axis 1)",
                         f"labels of shape {tuple(labels.shape)}")
    if weight is not None and tuple(weight.shape) != (logits.shape[1],):
        raise ShapeError(op, f"weight of shape ({logits.shape[1]},) (one per class)",
                         f"weight of shape {tuple(weight.shape)}")


def _sparse_denominator(labels: np.ndarray, weight: np.ndarray | None, ignore_index: int) -> float:
    """'mean' divides by the summed weight of the non-ignored targets (their count without weights)."""
    valid = labels != ignore_index
    if weight is None:
        return float(np.count_nonzero(valid))
    return float(weight.astype(np.float64)[labels[valid]].sum())


def _bad_label(op: str, labels: np.ndarray, flat: int, c: int, ignore_index: int) -> ShapeError:
    idx = np.unravel_index(flat, labels.shape)
    return located(ShapeError(op, f"labels in [0, {c}) or ignore_index {ignore_index}",
                              f"label {int(labels[idx])} at position {tuple(int(i) for i in idx)}"))


def _sparse_ce_numpy(x3: np.ndarray, y2: np.ndarray, w: np.ndarray | None, ignore: int, ls: float,
                     g2: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None, int]:
    """Float64 reference path of the C++ kernel: (loss (N, S), grad * dloss/dx or None, bad index or -1)."""
    n, c, s = x3.shape
    valid = y2 != ignore
    bad = valid & ((y2 < 0) | (y2 >= c))
    if bad.any():
        return np.zeros((n, s)), None, int(np.flatnonzero(bad)[0])
    m = x3.max(axis=1, keepdims=True)
    e = np.exp(x3 - m)
    tot = e.sum(axis=1, keepdims=True)
    logp = x3 - m - np.log(tot)
    yy = np.where(valid, y2, 0)
    wv = np.ones(c) if w is None else w
    wy = wv[yy] * valid
    loss = -(1 - ls) * wy * np.take_along_axis(logp, yy[:, None, :], axis=1)[:, 0, :]
    if ls:
        loss = loss - ls / c * valid * np.einsum("c,ncs->ns", wv, logp)
    if g2 is None:
        return loss, None, -1
    gv = g2 * valid
    d = e / tot * (gv * ((1 - ls) * wy + ls / c * wv.sum()))[:, None, :] - (gv * ls / c)[:, None, :] * wv[None, :, None]
    nn, ss = np.meshgrid(np.arange(n), np.arange(s), indexing="ij")
    d[nn, yy, ss] -= gv * (1 - ls) * wy
    return loss, d, -1


def _sparse_ce(op: str, logits: np.ndarray, labels: np.ndarray, weight: np.ndarray | None, ignore_index: int,
               label_smoothing: float, g_rows: np.ndarray | None):
    n, c, s = _ce_layout(logits.shape)
    y2 = np.ascontiguousarray(labels, dtype=np.int64).reshape(n, s)
    if _kernel_ok(logits, *(() if weight is None else (weight,))):
        loss, d, bad = _kernels.softmax_ce_sparse(
            _f32(logits).reshape(n, c, s), y2, np.empty(0, np.float32) if weight is None else _f32(weight),
            int(ignore_index), float(label_smoothing),
            np.empty(0, np.float32) if g_rows is None else _f32(g_rows).reshape(n, s), g_rows is not None)
    else:
        loss, d, bad = _sparse_ce_numpy(_as(logits, np.float64).reshape(n, c, s), y2,
                                        None if weight is None else _as(weight, np.float64), int(ignore_index),
                                        float(label_smoothing),
                                        None if g_rows is None else np.asarray(g_rows, np.float64).reshape(n, s))
    if bad >= 0:
        raise _bad_label(op, labels, bad, c, ignore_index)
    return loss.reshape(labels.shape), d


@primitive
class SparseSoftmaxCrossEntropyWithLogits:
    """Softmax cross-entropy with class-index labels: loss = -log softmax(logits)[label] per row.

    logits are (N, C) or (N, C, d1, ...) with labels (N,) or (N, d1, ...). Optional class `weight`
    (C,) scales each row by weight[label]; `label_smoothing` mixes the one-hot target with the
    uniform one; rows whose label is `ignore_index` count for nothing. 'mean' divides by the summed
    weight of the counted rows. Numerically stable for any logits magnitude.
    """

    def infer(logits, labels, weight=None, ignore_index=-100, label_smoothing=0.0, reduction="none"):
        op = "SparseSoftmaxCrossEntropyWithLogits"
        _check_sparse(op, logits, labels, weight)
        return _loss_aval(op, tuple(labels.shape), logits.dtype, reduction)

    def impl(logits, labels, weight=None, ignore_index=-100, label_smoothing=0.0, reduction="none"):
        loss, _ = _sparse_ce("SparseSoftmaxCrossEntropyWithLogits", logits, labels, weight, ignore_index,
                             label_smoothing, None)
        denom = _sparse_denominator(labels, weight, ignore_index) if reduction == "mean" else 1.0
        return _reduced(loss, reduction, denom, logits.dtype)

    def vjp(g, out, logits, labels, weight=None, ignore_index=-100, label_smoothing=0.0, reduction="none"):
        rest = (None,) if weight is None else (None, None)
        if not is_tracked(logits):
            return (None,) + rest
        extra = () if weight is None else (weight,)
        return (SparseSoftmaxCrossEntropyWithLogitsGrad(g, logits, labels, *extra, ignore_index=ignore_index,
                                                        label_smoothing=label_smoothing, reduction=reduction),) + rest


@primitive
class SparseSoftmaxCrossEntropyWithLogitsGrad:
    """Gradient of SparseSoftmaxCrossEntropyWithLogits w.r.t. the logits, for the loss cotangent `g`
    (recomputes the softmax in the same fused pass that writes the gradient)."""

    def infer(g, logits, labels, weight=None, ignore_index=-100, label_smoothing=0.0, reduction="none"):
        _check_sparse("SparseSoftmaxCrossEntropyWithLogitsGrad", logits, labels, weight)
        return Aval(tuple(logits.shape), logits.dtype)

    def impl(g, logits, labels, weight=None, ignore_index=-100, label_smoothing=0.0, reduction="none"):
        denom = _sparse_denominator(labels, weight, ignore_index) if reduction == "mean" else 1.0
        g_rows = _row_cotangent(g, reduction, labels.shape, denom)
        _, d = _sparse_ce("SparseSoftmaxCrossEntropyWithLogitsGrad", logits, labels, weight, ignore_index,
                          label_smoothing, g_rows)
        return d.reshape(logits.shape).astype(logits.dtype, copy=False)


def sparse_softmax_ce_value_and_grad(g: np.ndarray, logits: np.ndarray, labels: np.ndarray,
                                     weight: np.ndarray | None = None, ignore_index: int = -100,
                                     label_smoothing: float = 0.0, reduction: str = "none"
                                     ) -> tuple[np.ndarray, np.ndarray]:
    """The loss and its logits gradient from one pass of the kernel (which computes both anyway).

    Graph mode's loss fusion runs this instead of the forward and gradient primitives when a training
    step needs both. The gradient is those two primitives' bit for bit; the reduced loss may differ in
    its last bit (summed in double in row order, where NumPy sums pairwise).
    """
    op = "SparseSoftmaxCrossEntropyWithLogits"
    if reduction != "none" and g.size == 1 and _kernel_ok(logits, *(() if weight is None else (weight,))):
        # everything in one C++ call: the few small NumPy steps around the kernel cost more than it does
        n, c, s = _ce_layout(logits.shape)
        total, d, bad = _kernels.softmax_ce_sparse_reduced(
            logits.reshape(n, c, s), labels.reshape(-1), np.empty(0, np.float32) if weight is None else weight,
            int(ignore_index), float(label_smoothing), float(g), reduction == "mean")
        if bad >= 0:
            raise _bad_label(op, labels, bad, c, ignore_index)
        return np.asarray(total, dtype=logits.dtype), d.reshape(logits.shape).astype(logits.dtype, copy=False)
    denom = _sparse_denominator(labels, weight, ignore_index) if reduction == "mean" else 1.0
    loss, d = _sparse_ce(op, logits, labels, weight, ignore_index, label_smoothing,
                         _row_cotangent(g, reduction, labels.shape, denom))
    return _reduced(loss, reduction, denom, logits.dtype), d.reshape(logits.shape).astype(logits.dtype, copy=False)


# --- softmax cross-entropy with probability labels ---------------------------------------------

def _check_dense(op: str, logits: Any, labels: Any) -> None:
    if len(logits.shape) < 2:
        raise ShapeError(op, "logits of rank >= 2 ((N, C) or (N, C, d1, ...))",
                         f"logits of shape {tuple(logits.shape)}")
    if tuple(labels.shape) != tuple(logits.shape):
        raise ShapeError(op, f"labels of the shape of logits {tuple(logits.shape)}",
                         f"labels of shape {tuple(labels.shape)}",
                         hint="class-index labels go to SparseSoftmaxCrossEntropyWithLogits / ops.cross_entropy")
    _require_float(op, logits=logits, labels=labels)
    require_same_dtype(op, logits, labels)


def _dense_ce(logits: np.ndarray, labels: np.ndarray, g_rows: np.ndarray | None):
    n, c, s = _ce_layout(logits.shape)
    if _kernel_ok(logits, labels):
        loss, d = _kernels.softmax_ce_dense(_f32(logits).reshape(n, c, s), _f32(labels).reshape(n, c, s),
                                            np.empty(0, np.float32) if g_rows is None else _f32(g_rows).reshape(n, s),
                                            g_rows is not None)
    else:
        x3, t3 = logits.astype(np.float64).reshape(n, c, s), labels.astype(np.float64).reshape(n, c, s)
        m = x3.max(axis=1, keepdims=True)
        e = np.exp(x3 - m)
        tot = e.sum(axis=1, keepdims=True)
        loss = -np.sum(t3 * (x3 - m - np.log(tot)), axis=1)
        d = None if g_rows is None else \
            np.asarray(g_rows, np.float64).reshape(n, 1, s) * (e / tot * t3.sum(axis=1, keepdims=True) - t3)
    return loss.reshape((n,) + logits.shape[2:]), d


def _rows(shape: tuple[int, ...]) -> tuple[int, ...]:
    return shape[:1] + shape[2:]


@primitive
class SoftmaxCrossEntropyWithLogits:
    """Softmax cross-entropy with probability (dense) labels: loss = -sum_c labels * log softmax(logits).

    logits and labels are (N, C) or (N, C, d1, ...); the loss has one value per row ('mean' divides
    by the number of rows). Numerically stable for any logits magnitude.
    """

    def infer(logits, labels, reduction="none"):
        _check_dense("SoftmaxCrossEntropyWithLogits", logits, labels)
        return _loss_aval("SoftmaxCrossEntropyWithLogits", _rows(tuple(logits.shape)), logits.dtype, reduction)

    def impl(logits, labels, reduction="none"):
        loss, _ = _dense_ce(logits, labels, None)
        return _reduced(loss, reduction, float(loss.size), logits.dtype)

    def vjp(g, out, logits, labels, reduction="none"):
        dl = SoftmaxCrossEntropyWithLogitsGrad(g, logits, labels, reduction=reduction) if is_tracked(logits) else None
        dt = SoftmaxCrossEntropyWithLogitsLabelsGrad(g, logits, reduction=reduction) if is_tracked(labels) else None
        return dl, dt


@primitive
class SoftmaxCrossEntropyWithLogitsGrad:
    """Gradient of SoftmaxCrossEntropyWithLogits w.r.t. the logits: g * (sum(labels) * softmax - labels)."""

    def infer(g, logits, labels, reduction="none"):
        _check_dense("SoftmaxCrossEntropyWithLogitsGrad", logits, labels)
        return Aval(tuple(logits.shape), logits.dtype)

    def impl(g, logits, labels, reduction="none"):
        rows = _rows(logits.shape)
        _, d = _dense_ce(logits, labels, _row_cotangent(g, reduction, rows, float(math.prod(rows))))
        return d.reshape(logits.shape).astype(logits.dtype, copy=False)


@primitive
class SoftmaxCrossEntropyWithLogitsLabelsGrad:
    """Gradient of SoftmaxCrossEntropyWithLogits w.r.t. the labels: -g * log_softmax(logits)."""

    def infer(g, logits, reduction="none"):
        return Aval(tuple(logits.shape), logits.dtype)

    def impl(g, logits, reduction="none"):
        rows = _rows(logits.shape)
        gr = _row_cotangent(g, reduction, rows, float(math.prod(rows)))
        x = logits.astype(np.float64)
        m = x.max(axis=1, keepdims=True)
        neg_logp = m + np.log(np.exp(x - m).sum(axis=1, keepdims=True)) - x
        return (np.expand_dims(gr, 1) * neg_logp).astype(logits.dtype)


# --- NLL ---------------------------------------------------------------------------------------

def _nll_parts(logp: np.ndarray, target: np.ndarray, weight: np.ndarray | None, ignore_index: int):
    n, c, s = _ce_layout(logp.shape)
    x3 = logp.reshape(n, c, s)
    y2 = target.reshape(n, s)
    valid = y2 != ignore_index
    bad = valid & ((y2 < 0) | (y2 >= c))
    if bad.any():
        raise _bad_label("NLLLoss", target, int(np.flatnonzero(bad)[0]), c, ignore_index)
    yy = np.where(valid, y2, 0)
    wv = np.ones(c, logp.dtype) if weight is None else weight.astype(logp.dtype, copy=False)
    return x3, yy, valid, wv, n, c, s


@primitive
class NLLLoss:
    """Negative log-likelihood of log-probabilities: loss = -weight[t] * input[t] per row.

    input is (N, C) or (N, C, d1, ...) log-probabilities, target (N,) or (N, d1, ...) class indices;
    rows whose target is `ignore_index` count for nothing; 'mean' divides by the summed weight of the
    counted rows. `label_smoothing` adds -ls/C * sum_c weight[c] * input[c] (with 1 - ls on the target).
    """

    def infer(input, target, weight=None, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
        _check_sparse("NLLLoss", input, target, weight)
        return _loss_aval("NLLLoss", tuple(target.shape), input.dtype, reduction)

    def impl(input, target, weight=None, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
        x3, yy, valid, wv, n, c, s = _nll_parts(input, target, weight, ignore_index)
        wy = wv[yy] * valid
        loss = -(1 - label_smoothing) * wy * np.take_along_axis(x3, yy[:, None, :], axis=1)[:, 0, :]
        if label_smoothing:
            loss = loss - label_smoothing / c * valid * np.einsum("c,ncs->ns", wv, x3)
        denom = float(wy.sum(dtype=np.float64)) if reduction == "mean" else 1.0
        return _reduced(loss.reshape(target.shape), reduction, denom, input.dtype)

    def vjp(g, out, input, target, weight=None, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
        rest = (None,) if weight is None else (None, None)
        if not is_tracked(input):
            return (None,) + rest
        extra = () if weight is None else (weight,)
        return (NLLLossGrad(g, input, target, *extra, ignore_index=ignore_index, label_smoothing=label_smoothing,
                            reduction=reduction),) + rest


@primitive
class NLLLossGrad:
    """Gradient of NLLLoss w.r.t. its log-probability input (a scatter of -g * weight[target])."""

    def infer(g, input, target, weight=None, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
        return Aval(tuple(input.shape), input.dtype)

    def impl(g, input, target, weight=None, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
        x3, yy, valid, wv, n, c, s = _nll_parts(input, target, weight, ignore_index)
        wy = wv[yy] * valid
        denom = float(wy.sum(dtype=np.float64)) if reduction == "mean" else 1.0
        gv = np.asarray(_row_cotangent(g, reduction, target.shape, denom), np.float64).reshape(n, s) * valid
        d = np.zeros((n, c, s), np.float64)
        if label_smoothing:
            d -= (gv * label_smoothing / c)[:, None, :] * wv[None, :, None]
        nn, ss = np.meshgrid(np.arange(n), np.arange(s), indexing="ij")
        d[nn, yy, ss] -= gv * (1 - label_smoothing) * wy
        return d.reshape(input.shape).astype(input.dtype)


# --- binary cross-entropy ----------------------------------------------------------------------

def _check_binary(op: str, x: Any, t: Any, *extra: tuple[str, Any]) -> tuple[int, ...]:
    _require_float(op, input=x, target=t, **{n: e for n, e in extra})
    if tuple(t.shape) != tuple(x.shape):
        raise ShapeError(op, f"target of the shape of the input {tuple(x.shape)}", f"target of shape {tuple(t.shape)}")
    for name, e in extra:
        require_same_dtype(op, x, e)
        if broadcast_shapes(op, e.shape, x.shape) != tuple(x.shape):
            raise ShapeError(op, f"{name} that broadcasts to the input shape {tuple(x.shape)}",
                             f"{name} of shape {tuple(e.shape)}")
    require_same_dtype(op, x, t)
    return tuple(x.shape)


def _bce_logits_terms(x, t, w, pw):
    """softplus(-x) and L = 1 + (pos_weight - 1) * t, the pieces of the stable BCE-with-logits form."""
    sp_neg = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)
    return sp_neg, 1 + (pw - 1) * t


@primitive
class BCEWithLogitsLoss:
    """Binary cross-entropy on logits: -w [pw t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))].

    Computed as w [(1 - t) x + (1 + (pw - 1) t) softplus(-x)], stable for any logit. `weight` and
    `pos_weight` broadcast to the input shape (pos_weight usually along the last, class axis).
    """

    def infer(logits, label, weight, pos_weight, reduction="mean"):
        shape = _check_binary("BCEWithLogitsLoss", logits, label, ("weight", weight), ("pos_weight", pos_weight))
        return _loss_aval("BCEWithLogitsLoss", shape, logits.dtype, reduction)

    def impl(logits, label, weight, pos_weight, reduction="mean"):
        sp_neg, lw = _bce_logits_terms(logits, label, weight, pos_weight)
        loss = weight * ((1 - label) * logits + lw * sp_neg)
        return _reduced(loss, reduction, float(loss.size), logits.dtype)

    def vjp(g, out, logits, label, weight, pos_weight, reduction="mean"):
        from .array import sum_to

        res = []
        for i, t in enumerate((logits, label, weight, pos_weight)):
            res.append(sum_to(BCEWithLogitsLossGrad(g, logits, label, weight, pos_weight, reduction=reduction, wrt=i),
                              t.shape) if is_tracked(t) else None)
        return tuple(res)


@primitive
class BCEWithLogitsLossGrad:
    """Gradient of BCEWithLogitsLoss w.r.t. input number `wrt` (0 logits, 1 label, 2 weight, 3 pos_weight),
    in the input's (broadcast) shape."""

    def infer(g, logits, label, weight, pos_weight, reduction="mean", wrt=0):
        return Aval(tuple(logits.shape), logits.dtype)

    def impl(g, logits, label, weight, pos_weight, reduction="mean", wrt=0):
        x, t, w, pw = logits, label, weight, pos_weight
        gr = _row_cotangent(g, reduction, x.shape, float(x.size))
        sp_neg, lw = _bce_logits_terms(x, t, w, pw)
        if wrt == 0:
            e = np.exp(-np.abs(x))
            d = w * ((1 - t) - lw * np.where(x >= 0, e, 1) / (1 + e))
        elif wrt == 1:
            d = w * ((pw - 1) * sp_neg - x)
        elif wrt == 2:
            d = (1 - t) * x + lw * sp_neg
        else:
            d = w * t * sp_neg
        return np.broadcast_to(gr * d, x.shape).astype(x.dtype)


_LOG_FLOOR = -100.0  # log clamp of binary_cross_entropy (as PyTorch), so p = 0 or 1 stays finite


@primitive
class BinaryCrossEntropy:
    """Binary cross-entropy on probabilities: -w [t log(x) + (1 - t) log(1 - x)], logs clamped at -100."""

    def infer(logits, labels, weight, reduction="mean"):
        shape = _check_binary("BinaryCrossEntropy", logits, labels, ("weight", weight))
        return _loss_aval("BinaryCrossEntropy", shape, logits.dtype, reduction)

    def impl(logits, labels, weight, reduction="mean"):
        with np.errstate(divide="ignore"):
            lx = np.maximum(np.log(logits), _LOG_FLOOR)
            l1x = np.maximum(np.log1p(-logits), _LOG_FLOOR)
        loss = -weight * (labels * lx + (1 - labels) * l1x)
        return _reduced(loss, reduction, float(loss.size), logits.dtype)

    def vjp(g, out, logits, labels, weight, reduction="mean"):
        from .array import sum_to

        return tuple(sum_to(BinaryCrossEntropyGrad(g, logits, labels, weight, reduction=reduction, wrt=i), t.shape)
                     if is_tracked(t) else None for i, t in enumerate((logits, labels, weight)))


@primitive
class BinaryCrossEntropyGrad:
    """Gradient of BinaryCrossEntropy w.r.t. input number `wrt` (0 probabilities, 1 labels, 2 weight)."""

    def infer(g, logits, labels, weight, reduction="mean", wrt=0):
        return Aval(tuple(logits.shape), logits.dtype)

    def impl(g, logits, labels, weight, reduction="mean", wrt=0):
        x, t, w = logits, labels, weight
        gr = _row_cotangent(g, reduction, x.shape, float(x.size))
        with np.errstate(divide="ignore"):
            lx = np.maximum(np.log(x), _LOG_FLOOR)
            l1x = np.maximum(np.log1p(-x), _LOG_FLOOR)
        if wrt == 0:
            d = w * (x - t) / np.maximum(x * (1 - x), 1e-12)
        elif wrt == 1:
            d = -w * (lx - l1x)
        else:
            d = -(t * lx + (1 - t) * l1x)
        return np.broadcast_to(gr * d, x.shape).astype(x.dtype)


# --- regression losses -------------------------------------------------------------------------

def _check_pair(op: str, x: Any, t: Any) -> tuple[int, ...]:
    _require_float(op, input=x, target=t)
    require_same_dtype(op, x, t)
    return broadcast_shapes(op, tuple(x.shape), tuple(t.shape))


@primitive
class MSELoss:
    """Mean squared error: (input - target)^2, reduced ('mean' over all elements, 'sum' or 'none')."""

    def infer(input, target, reduction="mean"):
        return _loss_aval("MSELoss", _check_pair("MSELoss", input, target), input.dtype, reduction)

    def impl(input, target, reduction="mean"):
        d = input - target
        sq = np.multiply(d, d, out=d)
        return _reduced(sq, reduction, float(sq.size), input.dtype)

    def vjp(g, out, input, target, reduction="mean"):
        from .array import sum_to
        from .elementwise import mul, neg, sub

        if not (is_tracked(input) or is_tracked(target)):
            return None, None
        d = sub(input, target)
        if reduction == "none":
            gd = mul(mul(g, d), 2.0)
        else:
            n = math.prod(d.shape)
            gd = mul(d, mul(g, 2.0 / n if reduction == "mean" else 2.0))
        return (sum_to(gd, input.shape) if is_tracked(input) else None,
                sum_to(neg(gd), target.shape) if is_tracked(target) else None)


def _smooth_l1_grad(d: np.ndarray, beta: float) -> np.ndarray:
    if beta <= 0:
        return np.sign(d)
    return np.where(np.abs(d) < beta, d / beta, np.sign(d))


@primitive
class SmoothL1Loss:
    """Smooth L1 (Huber-like) loss: 0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta elsewhere
    (d = input - target). beta = 0 is the L1 loss |d|."""

    def infer(input, target, beta=1.0, reduction="none"):
        if beta < 0:
            raise ValueError(f"SmoothL1Loss: beta must be >= 0, got {beta}")
        return _loss_aval("SmoothL1Loss", _check_pair("SmoothL1Loss", input, target), input.dtype, reduction)

    def impl(input, target, beta=1.0, reduction="none"):
        d = input - target
        a = np.abs(d)
        loss = a if beta <= 0 else np.where(a < beta, 0.5 * d * d / max(beta, 1e-300), a - 0.5 * beta)
        return _reduced(loss, reduction, float(loss.size), input.dtype)

    def vjp(g, out, input, target, beta=1.0, reduction="none"):
        from .array import sum_to
        from .elementwise import neg

        if not (is_tracked(input) or is_tracked(target)):
            return None, None
        gd = SmoothL1LossGrad(g, input, target, beta=beta, reduction=reduction)
        return (sum_to(gd, input.shape) if is_tracked(input) else None,
                sum_to(neg(gd), target.shape) if is_tracked(target) else None)


@primitive
class SmoothL1LossGrad:
    """Gradient of SmoothL1Loss w.r.t. its input, in the broadcast shape of input and target."""

    def infer(g, input, target, beta=1.0, reduction="none"):
        return Aval(_check_pair("SmoothL1LossGrad", input, target), input.dtype)

    def impl(g, input, target, beta=1.0, reduction="none"):
        d = input - target
        gr = _row_cotangent(g, reduction, d.shape, float(d.size))
        return (gr * _smooth_l1_grad(d, beta)).astype(input.dtype)


# --- functional wrappers -----------------------------------------------------------------------

def _same_float(x: Tensor, t: Tensor) -> Tensor:
    """`t` in the dtype of `x` (MindSpore's implicit conversion for loss targets)."""
    from .array import cast

    if not isinstance(t, Tensor):
        t = Tensor(t, dtype=x.dtype)
    return t if t.dtype is x.dtype else cast(t, x.dtype)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """The cross entropy loss between input logits and target.

    `target` holds class indices (integer, shape (N,) or (N, d1, ...)) or class probabilities
    (float, the shape of `input`). `input` is (C,), (N, C) or (N, C, d1, ...). With indices,
    `ignore_index` rows are skipped and 'mean' divides by the summed `weight` of the counted rows;
    with probabilities 'mean' divides by the number of rows. `label_smoothing` in [0, 1] mixes the
    target with the uniform distribution.
    """
    from .array import reshape
    from .elementwise import add, mul

    _check_reduction("cross_entropy", reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"cross_entropy: label_smoothing must be in [0, 1], got {label_smoothing}")
    if not isinstance(target, Tensor):
        target = Tensor(target)
    squeeze = input.ndim == 1
    if squeeze:
        input = reshape(input, (1,) + tuple(input.shape))
        target = reshape(target, (1,) + tuple(target.shape))
    if target.dtype.is_int:
        extra = () if weight is None else (_same_float(input, weight),)
        out = SparseSoftmaxCrossEntropyWithLogits(input, target, *extra, ignore_index=int(ignore_index),
                                                  label_smoothing=float(label_smoothing), reduction=reduction)
    else:
        t = _same_float(input, target)
        if tuple(t.shape) != tuple(input.shape):
            raise ShapeError("cross_entropy", f"probability target of the shape of input {tuple(input.shape)}",
                             f"target of shape {tuple(t.shape)}")
        c = input.shape[1]
        if label_smoothing:
            t = add(mul(t, 1.0 - label_smoothing), label_smoothing / c)
        if weight is not None:
            t = mul(t, reshape(_same_float(input, weight), (c,) + (1,) * (input.ndim - 2)))
        out = SoftmaxCrossEntropyWithLogits(input, t, reduction=reduction)
    return reshape(out, ()) if squeeze and reduction == "none" else out


def nll_loss(inputs: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100,
             reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """The negative log-likelihood loss between log-probabilities `inputs` (N, C, ...) and class
    indices `target` (N, ...); see NLLLoss for `weight`, `ignore_index` and the 'mean' divisor."""
    _check_reduction("nll_loss", reduction)
    extra = () if weight is None else (_same_float(inputs, weight),)
    return NLLLoss(inputs, target, *extra, ignore_index=int(ignore_index), label_smoothing=float(label_smoothing),
                   reduction=reduction)


def _ones_like_scalar(x: Tensor) -> Tensor:
    return Tensor._wrap(np.ones((), x.dtype.np))


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: str = "mean") -> Tensor:
    """Binary cross-entropy between the sigmoid of `input` logits and `target`, computed stably.

    `weight` rescales each element (broadcast to the input shape); `pos_weight` weights the positive
    term, usually one value per class along the last axis.
    """
    _check_reduction("binary_cross_entropy_with_logits", reduction)
    target = _same_float(input, target)
    w = _same_float(input, weight) if weight is not None else _ones_like_scalar(input)
    pw = _same_float(input, pos_weight) if pos_weight is not None else _ones_like_scalar(input)
    return BCEWithLogitsLoss(input, target, w, pw, reduction=reduction)


def binary_cross_entropy(logits: Tensor, labels: Tensor, weight: Tensor | None = None,
                         reduction: str = "mean") -> Tensor:
    """Binary cross-entropy between probabilities `logits` (in [0, 1]) and `labels`."""
    _check_reduction("binary_cross_entropy", reduction)
    labels = _same_float(logits, labels)
    w = _same_float(logits, weight) if weight is not None else _ones_like_scalar(logits)
    return BinaryCrossEntropy(logits, labels, w, reduction=reduction)


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Mean squared error between `input` and `target` (broadcast together)."""
    _check_reduction("mse_loss", reduction)
    return MSELoss(input, _same_float(input, target), reduction=reduction)


def l1_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Mean absolute error between `input` and `target` (broadcast together)."""
    _check_reduction("l1_loss", reduction)
    return SmoothL1Loss(input, _same_float(input, target), beta=0.0, reduction=reduction)


def smooth_l1_loss(input: Tensor, target: Tensor, beta: float = 1.0, reduction: str = "none") -> Tensor:
    """Smooth L1 loss: quadratic for |input - target| < beta, linear beyond (MindSpore's default
    reduction here is 'none')."""
    _check_reduction("smooth_l1_loss", reduction)
    if beta <= 0:
        raise ValueError(f"smooth_l1_loss: beta must be > 0, got {beta}")
    return SmoothL1Loss(input, _same_float(input, target), beta=float(beta), reduction=reduction)
