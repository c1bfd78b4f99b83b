"""MindSpore's sequence losses and metrics (issue 14, vision/sequence slice): `ops.ctc_loss` (the
differentiable `CTCLossV2` primitive under it), the TensorFlow-style `ops.CTCLoss` class,
`ops.RNNTLoss` and `ops.EditDistance`.

The CTC forward (alpha) and backward (beta) recursions run in log space in NumPy (float64),
vectorised over the batch and the extended label sequence, looping over time only. Decisions
where MindSpore's docs leave room:

- `ctc_loss` follows PyTorch's (which MindSpore's CTCLossV2 kernel ports): `log_alpha`
  (N, T, 2S + 1) is -inf past each entry's input length and extended-label length; 'mean' divides
  each loss by its target length (at least 1) and averages. The gradient is the exact derivative
  with respect to `log_probs` (PyTorch's and MindSpore's kernels return that plus exp(log_probs),
  a term that cancels through the log_softmax that produces log-probabilities, so the gradient
  reaching the logits is the same). `log_alpha` (`CTCLogAlpha`) carries no gradient. An entry whose loss is
  infinite (no alignment fits) gets a zero gradient; `zero_infinity` also zeroes its loss.
- `ops.CTCLoss` is TensorFlow's CTCLoss op (MindSpore's copy): logits (softmax applied inside),
  sparse labels, blank = num_classes - 1, `ctc_merge_repeated=False` lets a label be emitted once
  only (no repeats) and skip between equal labels, as TensorFlow's calculator does; the second
  output is the gradient with respect to the logits (TF's: softmax where no alignment exists).
  A label sequence longer than its input is a ValueError unless
  `ignore_longer_outputs_than_inputs` (then that entry's loss and gradient are 0).
- `RNNTLoss` is warp-transducer's: log_softmax over the vocabulary inside, costs are the negative
  log-likelihoods and grads the gradient with respect to `acts` (0 outside each entry's lengths).
- `EditDistance` is TensorFlow's: sequences are the values grouped by all index columns but the
  last (in index order); with `normalize`, a distance is divided by the truth length, a truth-only
  position is 1.0 and a hypothesis-only position is inf.

The two class-form ops that return explicit gradients run as primitives (`CTCLossWithGradient`,
`RNNTLossWithGradient`) whose losses differentiate through that gradient, as MindSpore's bprops do;
EditDistance reads its inputs eagerly (its output shape depends on them: Graph mode breaks the
graph there, as for the other value-dependent ops).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor
from .operation import Operation
from .primitive import Aval, primitive

__all__ = ["CTCLoss", "RNNTLoss", "EditDistance"]

_NEG = -np.inf


def _F():  # the functional namespace (this module is one of its declaration modules)
    from . import functional as F

    return F


def _lse(*xs: np.ndarray) -> np.ndarray:
    """Elementwise log(sum(exp(x))) of same-shape arrays, -inf where all are -inf."""
    m = np.maximum.reduce(xs)
    safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return np.where(np.isfinite(m), safe + np.log(sum(np.exp(x - safe) for x in xs)), m)


def _shift(a: np.ndarray, k: int, fill: float = _NEG) -> np.ndarray:
    """a shifted right by k along the last axis (a[..., s - k]), `fill` where s < k."""
    out = np.full_like(a, fill)
    out[..., k:] = a[..., :-k]
    return out


def _unshift(a: np.ndarray, k: int, fill: float = _NEG) -> np.ndarray:
    """a shifted left by k along the last axis (a[..., s + k]), `fill` past the end."""
    out = np.full_like(a, fill)
    out[..., :-k] = a[..., k:]
    return out


def _ctc_core(lp: np.ndarray, ext: np.ndarray, ext_len: np.ndarray, il: np.ndarray, blank: int,
             merge_repeated: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(nll (N,), log_alpha (N, T, L), d nll / d lp (T, N, C)) of log-probabilities `lp` (T, N, C)
    for extended label sequences `ext` (N, L) (blank, l1, blank, l2, ..., blank) of lengths
    `ext_len`, input lengths `il`. Without `merge_repeated` a label cannot repeat in consecutive
    frames and equal neighbouring labels need no blank between them (TensorFlow's variant)."""
    t_max, n, _ = lp.shape
    length = ext.shape[1]
    s = np.arange(length)[None]
    in_seq = s < ext_len[:, None]
    is_blank = ext == blank
    stay_ok = np.ones_like(is_blank) if merge_repeated else is_blank
    skip_ok = np.zeros_like(is_blank)
    if length > 2:
        same = ext[:, 2:] == ext[:, :-2]
        skip_ok[:, 2:] = ~is_blank[:, 2:] & ~(same if merge_repeated else np.zeros_like(same))
    emit = np.take_along_axis(lp.transpose(1, 0, 2), np.broadcast_to(ext[:, None], (n, t_max, length)), 2)
    alpha = np.full((n, t_max, length), _NEG)
    if t_max:
        a0 = np.where(s < np.minimum(ext_len, 2)[:, None], emit[:, 0], _NEG)
        alpha[:, 0] = np.where((il > 0)[:, None], a0, _NEG)
    for t in range(1, t_max):
        prev = alpha[:, t - 1]
        rec = _lse(np.where(stay_ok, prev, _NEG), _shift(prev, 1), np.where(skip_ok, _shift(prev, 2), _NEG))
        alpha[:, t] = np.where(in_seq & (t < il)[:, None], rec + emit[:, t], _NEG)
    last = np.maximum(il - 1, 0)
    fin = alpha[np.arange(n), last]  # (N, L)
    ends = (s == ext_len[:, None] - 1) | (s == ext_len[:, None] - 2)
    ll = _lse(*np.where(ends, fin, _NEG).T) if length else np.zeros(n)
    ll = np.where(il > 0, ll, np.where(ext_len <= 1, 0.0, _NEG))
    beta = np.full((n, t_max, length), _NEG)
    nxt = np.full((n, length), _NEG)
    for t in range(t_max - 1, -1, -1):
        rec = _lse(np.where(stay_ok, nxt, _NEG), _unshift(nxt, 1), _unshift(np.where(skip_ok, nxt, _NEG), 2))
        init = np.where(ends, 0.0, _NEG)
        cur = np.where((t == il - 1)[:, None], init, np.where((t < il - 1)[:, None], rec, _NEG))
        cur = np.where(in_seq, cur + emit[:, t], _NEG)
        beta[:, t] = cur
        nxt = cur
    nll = -ll
    finite = np.isfinite(ll)
    with np.errstate(invalid="ignore", over="ignore"):
        occ = np.exp(alpha + beta - emit - np.where(finite, ll, 0.0)[:, None, None])  # (N, T, L)
    occ = np.where(finite[:, None, None] & np.isfinite(occ), occ, 0.0)
    grad = np.zeros((n, t_max, lp.shape[2]))
    bi = np.broadcast_to(np.arange(n)[:, None, None], occ.shape)
    ti = np.broadcast_to(np.arange(t_max)[None, :, None], occ.shape)
    np.add.at(grad, (bi, ti, np.broadcast_to(ext[:, None], occ.shape)), occ)
    return nll, alpha, -grad.transpose(1, 0, 2)


def _extend(targets: np.ndarray, tl: np.ndarray, blank: int) -> tuple[np.ndarray, np.ndarray]:
    n, s = targets.shape
    ext = np.full((n, 2 * s + 1), blank, np.int64)
    ext[:, 1::2] = targets
    return ext, 2 * tl + 1


def _ctc_check(lp: np.ndarray, tg: np.ndarray, il: np.ndarray, tl: np.ndarray, blank: int) -> None:
    t_max, n, c = lp.shape
    op = "ctc_loss"
    if not 0 <= blank < c:
        raise ValueError(f"{op}: blank must be in [0, {c}), got {blank}")
    if (il < 0).any() or (il > t_max).any():
        raise ValueError(f"{op}: input_lengths must be in [0, {t_max}], got {il.tolist()}")
    if (tl < 0).any() or (tl > tg.shape[1]).any():
        raise ValueError(f"{op}: target_lengths must be in [0, {tg.shape[1]}], got {tl.tolist()}")
    used = np.arange(tg.shape[1])[None] < tl[:, None]
    if ((tg < 0) | (tg >= c))[used].any():
        raise ValueError(f"{op}: targets must be class indices in [0, {c})")


def _ctc_v2(lp, tg, il, tl, blank, zero_infinity):
    lp64 = lp.astype(np.float64)
    il, tl = il.astype(np.int64).reshape(-1), tl.astype(np.int64).reshape(-1)
    _ctc_check(lp64, tg, il, tl, blank)
    ext, ext_len = _extend(np.where(np.arange(tg.shape[1])[None] < tl[:, None], tg, blank).astype(np.int64), tl,
                           blank)
    nll, alpha, grad = _ctc_core(lp64, ext, ext_len, il, blank)
    if zero_infinity:
        nll = np.where(np.isfinite(nll), nll, 0.0)
    return nll, alpha, grad


def _ctc_infer(log_probs: Aval, targets: Aval, input_lengths: Aval, target_lengths: Aval) -> tuple[Aval, Aval]:
    op = "ctc_loss"
    if not log_probs.dtype.is_float:
        raise DTypeError(op, "float log_probs", str(log_probs.dtype))
    if log_probs.ndim != 3:
        raise ShapeError(op, "log_probs of shape (T, N, C)", f"shape {tuple(log_probs.shape)}")
    t_max, n, _ = log_probs.shape
    if targets.ndim != 2 or targets.shape[0] != n:
        raise ShapeError(op, f"targets of shape ({n}, S)", f"shape {tuple(targets.shape)}")
    for name, v in (("targets", targets), ("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        if v.dtype.is_float or v.dtype is mstype.bool_:
            raise DTypeError(op, f"int32/int64 {name}", str(v.dtype))
    for name, v in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        if tuple(v.shape) != (n,):
            raise ShapeError(op, f"{name} of shape ({n},)", f"shape {tuple(v.shape)}")
    return (Aval((n,), log_probs.dtype), Aval((n, t_max, 2 * targets.shape[1] + 1), log_probs.dtype))


@primitive(internal=True)
class CTCLossV2Grad:
    """d nll / d log_probs of CTCLossV2 (T, N, C) (not differentiated again)."""

    def infer(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
        return Aval(tuple(log_probs.shape), log_probs.dtype)

    def impl(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
        return _ctc_v2(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity)[2].astype(
            log_probs.dtype)


@primitive
class CTCLossV2:
    """The CTC negative log-likelihood (N,) of log-probabilities (T, N, C) against padded targets
    (N, S) and their lengths; differentiable in log_probs."""

    def infer(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
        return _ctc_infer(log_probs, targets, input_lengths, target_lengths)[0]

    def impl(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
        return _ctc_v2(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity)[0].astype(
            log_probs.dtype)

    def vjp(g, out, log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
        F = _F()
        grad = CTCLossV2Grad(log_probs, targets, input_lengths, target_lengths, blank=blank,
                             zero_infinity=zero_infinity)
        return (F.mul(grad, F.reshape(F.cast(g, grad.dtype), (1, -1, 1))), None, None, None)


@primitive
class CTCLogAlpha:
    """The CTC forward variables log_alpha (N, T, 2S + 1) of CTCLossV2's inputs (-inf where no
    alignment reaches); not differentiated, as MindSpore's."""

    nondiff = True

    def infer(log_probs, targets, input_lengths, target_lengths, blank=0):
        return _ctc_infer(log_probs, targets, input_lengths, target_lengths)[1]

    def impl(log_probs, targets, input_lengths, target_lengths, blank=0):
        return _ctc_v2(log_probs, targets, input_lengths, target_lengths, blank, False)[1].astype(log_probs.dtype)


def _lengths(op: str, name: str, v: Any) -> Tensor:
    if isinstance(v, Tensor):
        return v
    if isinstance(v, (tuple, list)) and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in v):
        return Tensor(np.asarray(v, np.int64))
    raise TypeError(f"{op}: {name} must be a Tensor or a tuple of ints, got {type(v).__name__}")


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> tuple[Tensor, Tensor]:
    """CTC loss of log-probabilities `log_probs` (T, N, C) against padded `targets` (N, S):
    (neg_log_likelihood — (N,) for 'none', a scalar for 'mean' / 'sum' —, log_alpha (N, T, 2S + 1))."""
    op = "ctc_loss"
    if not isinstance(zero_infinity, bool):
        raise TypeError(f"{op}: zero_infinity must be a bool, got {type(zero_infinity).__name__}")
    if not isinstance(reduction, str):
        raise TypeError(f"{op}: reduction must be a str, got {type(reduction).__name__}")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{op}: reduction must be 'none', 'mean' or 'sum', got {reduction!r}")
    if isinstance(blank, bool) or not isinstance(blank, (int, np.integer)):
        raise TypeError(f"{op}: blank must be an int, got {type(blank).__name__}")
    if not isinstance(log_probs, Tensor) or not isinstance(targets, Tensor):
        raise TypeError(f"{op}: log_probs and targets must be Tensors")
    il = _lengths(op, "input_lengths", input_lengths)
    tl = _lengths(op, "target_lengths", target_lengths)
    nll = CTCLossV2(log_probs, targets, il, tl, blank=int(blank), zero_infinity=zero_infinity)
    log_alpha = CTCLogAlpha(log_probs, targets, il, tl, blank=int(blank))
    F = _F()
    if reduction == "mean":
        nll = F.mean(nll / F.clamp(F.cast(tl, nll.dtype), 1.0, None))
    elif reduction == "sum":
        nll = F.sum(nll)
    return nll, log_alpha


# --- TensorFlow's CTCLoss ------------------------------------------------------------------------------
def _arr(op: str, name: str, x: Any, *, floats: bool | None = None) -> np.ndarray:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: {name} must be a Tensor, got {type(x).__name__}")
    if floats is True and not x.dtype.is_float:
        raise DTypeError(op, f"a float {name}", str(x.dtype))
    if floats is False and x.dtype.is_float:
        raise DTypeError(op, f"an int {name}", str(x.dtype))
    return x.asnumpy()


def _log_softmax(x: np.ndarray) -> np.ndarray:
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def _tf_ctc(xs: np.ndarray, idx: np.ndarray, vals: np.ndarray, seq: np.ndarray, collapse: bool, merge: bool,
            ignore_longer: bool) -> tuple[np.ndarray, np.ndarray]:
    """(loss (batch,), d loss / d x) of TensorFlow's CTCLoss for logits xs (max_time, batch, num_classes)."""
    op = "CTCLoss"
    t_max, batch, classes = xs.shape
    idx, vals, seq = idx.astype(np.int64), vals.astype(np.int64).reshape(-1), seq.astype(np.int64).reshape(-1)
    if (seq < 0).any() or (seq > t_max).any():
        raise ValueError(f"{op}: sequence_length must be in [0, {t_max}], got {seq.tolist()}")
    if ((idx[:, 0] < 0) | (idx[:, 0] >= batch)).any():
        raise ValueError(f"{op}: labels_indices' batch column must be in [0, {batch})")
    blank = classes - 1
    if ((vals < 0) | (vals >= blank)).any():
        raise ValueError(f"{op}: labels_values must be in [0, num_classes - 1 = {blank})")
    labels = []
    for b in range(batch):
        rows = np.flatnonzero(idx[:, 0] == b)
        lab = vals[rows[np.argsort(idx[rows, 1], kind="stable")]].tolist()
        if collapse:
            lab = [v for i, v in enumerate(lab) if i == 0 or v != lab[i - 1]]
        labels.append(lab)
    skip = np.array([len(lab) > seq[b] for b, lab in enumerate(labels)], bool)
    if skip.any() and not ignore_longer:
        b = int(np.flatnonzero(skip)[0])
        raise ValueError(f"{op}: labels of batch entry {b} ({len(labels[b])}) are longer than its sequence_length "
                         f"({seq[b]}); set ignore_longer_outputs_than_inputs=True to give it a loss of 0")
    s = max([len(lab) for lab in labels] + [0])
    tl = np.array([len(lab) for lab in labels], np.int64)
    dense = np.full((batch, s), blank, np.int64)
    for b, lab in enumerate(labels):
        dense[b, :len(lab)] = lab
    lp = _log_softmax(xs.astype(np.float64))
    ext, ext_len = _extend(dense, tl, blank)
    nll, _, g_lp = _ctc_core(lp, ext, ext_len, seq, blank, merge)
    y = np.exp(lp)
    valid_t = (np.arange(t_max)[:, None] < seq[None])[:, :, None]
    grad = np.where(valid_t, g_lp - y * g_lp.sum(-1, keepdims=True), 0.0)
    grad = np.where(np.isfinite(nll)[None, :, None], grad, np.where(valid_t, y, 0.0))  # TF: no path -> y
    nll = np.where(skip, 0.0, nll)
    grad = np.where(skip[None, :, None], 0.0, grad)
    return nll.astype(xs.dtype), grad.astype(xs.dtype)


def _int_aval(op: str, name: str, v: Aval, ndim: int) -> None:
    if v.dtype.is_float or v.dtype is mstype.bool_:
        raise DTypeError(op, f"an int {name}", str(v.dtype))
    if v.ndim != ndim:
        raise ShapeError(op, f"a {ndim}-D {name}", f"shape {tuple(v.shape)}")


@primitive
class CTCLossWithGradient:
    """(loss (batch,), its gradient with respect to x) of TensorFlow's CTCLoss (ops.CTCLoss); the
    loss differentiates through that gradient (MindSpore's bprop), the gradient output is not
    differentiated again."""

    multi_output = True

    def infer(x, labels_indices, labels_values, sequence_length, preprocess_collapse_repeated=False,
              ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=False):
        op = "CTCLoss"
        if not x.dtype.is_float:
            raise DTypeError(op, "a float x", str(x.dtype))
        if x.ndim != 3:
            raise ShapeError(op, "x of shape (max_time, batch_size, num_classes)", f"shape {tuple(x.shape)}")
        _int_aval(op, "labels_indices", labels_indices, 2)
        _int_aval(op, "labels_values", labels_values, 1)
        _int_aval(op, "sequence_length", sequence_length, 1)
        if labels_indices.shape[1] != 2 or labels_indices.shape[0] != labels_values.shape[0]:
            raise ShapeError(op, f"labels_indices of shape ({labels_values.shape[0]}, 2)",
                             f"shape {tuple(labels_indices.shape)}")
        if tuple(sequence_length.shape) != (x.shape[1],):
            raise ShapeError(op, f"sequence_length of shape ({x.shape[1]},)", f"shape {tuple(sequence_length.shape)}")
        return Aval((x.shape[1],), x.dtype), Aval(tuple(x.shape), x.dtype)

    def impl(x, labels_indices, labels_values, sequence_length, preprocess_collapse_repeated=False,
             ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=False):
        return _tf_ctc(x, labels_indices, labels_values, sequence_length, preprocess_collapse_repeated,
                       ctc_merge_repeated, ignore_longer_outputs_than_inputs)

    def vjp(g, out, x, labels_indices, labels_values, sequence_length, **attrs):
        F = _F()
        return (F.mul(out[1], F.reshape(F.cast(g[0], out[1].dtype), (1, -1, 1))), None, None, None)


class CTCLoss(Operation):
    """``CTCLoss(preprocess_collapse_repeated=False, ctc_merge_repeated=True,
    ignore_longer_outputs_than_inputs=False)(x, labels_indices, labels_values, sequence_length)``:
    TensorFlow's CTC of logits x (max_time, batch, num_classes) against sparse labels ->
    (loss (batch,), gradient with respect to x); the loss is differentiable in x."""

    def __init__(self, preprocess_collapse_repeated: bool = False, ctc_merge_repeated: bool = True,
                 ignore_longer_outputs_than_inputs: bool = False) -> None:
        for name, v in (("preprocess_collapse_repeated", preprocess_collapse_repeated),
                        ("ctc_merge_repeated", ctc_merge_repeated),
                        ("ignore_longer_outputs_than_inputs", ignore_longer_outputs_than_inputs)):
            if not isinstance(v, bool):
                raise TypeError(f"CTCLoss: {name} must be a bool, got {type(v).__name__}")
        self.preprocess_collapse_repeated = preprocess_collapse_repeated
        self.ctc_merge_repeated = ctc_merge_repeated
        self.ignore_longer_outputs_than_inputs = ignore_longer_outputs_than_inputs

    def construct(self, x: Tensor, labels_indices: Tensor, labels_values: Tensor,
                  sequence_length: Tensor) -> tuple[Tensor, Tensor]:
        for name, v in (("x", x), ("labels_indices", labels_indices), ("labels_values", labels_values),
                        ("sequence_length", sequence_length)):
            if not isinstance(v, Tensor):
                raise TypeError(f"CTCLoss: {name} must be a Tensor, got {type(v).__name__}")
        return CTCLossWithGradient(x, labels_indices, labels_values, sequence_length,
                                   preprocess_collapse_repeated=self.preprocess_collapse_repeated,
                                   ctc_merge_repeated=self.ctc_merge_repeated,
                                   ignore_longer_outputs_than_inputs=self.ignore_longer_outputs_than_inputs)


# --- RNN-T ---------------------------------------------------------------------------------------------
def _rnnt_core(lp: np.ndarray, labels: np.ndarray, il: np.ndarray, ll: np.ndarray,
              blank: int) -> tuple[np.ndarray, np.ndarray]:
    """(nll (B,), d nll / d lp (B, T, U, V)) of the transducer lattice of log-probabilities `lp`."""
    b, t_max, u_max, _ = lp.shape
    lab = np.zeros((b, u_max), np.int64)
    lab[:, :u_max - 1] = labels[:, :u_max - 1]
    emit_blank = lp[..., blank]  # (B, T, U)
    emit_lab = np.take_along_axis(lp, lab[:, None, :, None].repeat(t_max, 1), 3)[..., 0]  # (B, T, U)
    alpha = np.full((b, t_max, u_max), _NEG)
    for t in range(t_max):
        for u in range(u_max):
            if t == 0 and u == 0:
                alpha[:, 0, 0] = 0.0
                continue
            a = alpha[:, t - 1, u] + emit_blank[:, t - 1, u] if t else np.full(b, _NEG)
            c = alpha[:, t, u - 1] + emit_lab[:, t, u - 1] if u else np.full(b, _NEG)
            alpha[:, t, u] = _lse(a, c)
    bi = np.arange(b)
    tn, un = il - 1, ll  # the last frame and label position of each entry
    loglike = alpha[bi, tn, un] + emit_blank[bi, tn, un]
    beta = np.full((b, t_max, u_max), _NEG)
    for t in range(t_max - 1, -1, -1):
        for u in range(u_max - 1, -1, -1):
            a = np.where(t + 1 <= tn, beta[:, t + 1, u] if t + 1 < t_max else _NEG, _NEG) + emit_blank[:, t, u]
            c = np.where(u + 1 <= un, beta[:, t, u + 1] if u + 1 < u_max else _NEG, _NEG) + emit_lab[:, t, u]
            end = (t == tn) & (u == un)
            val = np.where(end, emit_blank[:, t, u], _lse(np.where(end, _NEG, a), c))
            beta[:, t, u] = np.where((t <= tn) & (u <= un), val, _NEG)
    grad = np.zeros_like(lp)
    nxt_t = np.concatenate([beta[:, 1:], np.full((b, 1, u_max), _NEG)], 1)
    nxt_u = np.concatenate([beta[:, :, 1:], np.full((b, t_max, 1), _NEG)], 2)
    tt = np.arange(t_max)[None, :, None]
    end = (tt == tn[:, None, None]) & (np.arange(u_max)[None, None] == un[:, None, None])
    g_blank = np.exp(alpha + emit_blank + np.where(end, 0.0, nxt_t) - loglike[:, None, None])
    g_lab = np.exp(alpha + emit_lab + nxt_u - loglike[:, None, None])
    inside = (tt <= tn[:, None, None]) & (np.arange(u_max)[None, None] <= un[:, None, None])
    g_blank = np.where(inside, g_blank, 0.0)
    g_lab = np.where(inside & (np.arange(u_max)[None, None] < un[:, None, None]), g_lab, 0.0)
    grad[..., blank] -= g_blank
    np.add.at(grad, (bi[:, None, None], np.arange(t_max)[None, :, None], np.arange(u_max)[None, None],
                     lab[:, None, :].repeat(t_max, 1)), -g_lab)
    return -loglike, grad


def _rnnt(a: np.ndarray, lab: np.ndarray, il: np.ndarray, ll: np.ndarray, blank: int) -> tuple[np.ndarray, np.ndarray]:
    op = "RNNTLoss"
    _, t_max, u_max, v = a.shape
    lab, il, ll = lab.astype(np.int64), il.astype(np.int64).reshape(-1), ll.astype(np.int64).reshape(-1)
    if (il < 1).any() or (il > t_max).any():
        raise ValueError(f"{op}: input_lengths must be in [1, {t_max}], got {il.tolist()}")
    if (ll < 0).any() or (ll > u_max - 1).any():
        raise ValueError(f"{op}: label_lengths must be in [0, {u_max - 1}], got {ll.tolist()}")
    if not 0 <= blank < v:
        raise ValueError(f"{op}: blank_label must be in [0, {v}), got {blank}")
    if ((lab < 0) | (lab >= v))[np.arange(u_max - 1)[None] < ll[:, None]].any():
        raise ValueError(f"{op}: labels must be in [0, {v})")
    lp = _log_softmax(a.astype(np.float64))
    nll, g_lp = _rnnt_core(lp, lab, il, ll, blank)
    grad = g_lp - np.exp(lp) * g_lp.sum(-1, keepdims=True)
    inside = ((np.arange(t_max)[None, :, None] < il[:, None, None])
              & (np.arange(u_max)[None, None] <= ll[:, None, None]))[..., None]
    return nll.astype(a.dtype), np.where(inside, grad, 0.0).astype(a.dtype)


@primitive
class RNNTLossWithGradient:
    """(costs (B,), their gradient with respect to acts) of RNNTLoss; the costs differentiate
    through that gradient (MindSpore's bprop), the gradient output is not differentiated again."""

    multi_output = True

    def infer(acts, labels, input_lengths, label_lengths, blank_label=0):
        op = "RNNTLoss"
        if not acts.dtype.is_float:
            raise DTypeError(op, "a float acts", str(acts.dtype))
        if acts.ndim != 4:
            raise ShapeError(op, "acts of shape (B, T, U + 1, V)", f"shape {tuple(acts.shape)}")
        b, _, u1, _ = acts.shape
        _int_aval(op, "labels", labels, 2)
        if tuple(labels.shape) != (b, u1 - 1):
            raise ShapeError(op, f"labels of shape ({b}, {u1 - 1})", f"shape {tuple(labels.shape)}")
        for name, v in (("input_lengths", input_lengths), ("label_lengths", label_lengths)):
            _int_aval(op, name, v, 1)
            if tuple(v.shape) != (b,):
                raise ShapeError(op, f"{name} of shape ({b},)", f"shape {tuple(v.shape)}")
        return Aval((b,), acts.dtype), Aval(tuple(acts.shape), acts.dtype)

    def impl(acts, labels, input_lengths, label_lengths, blank_label=0):
        return _rnnt(acts, labels, input_lengths, label_lengths, blank_label)

    def vjp(g, out, acts, labels, input_lengths, label_lengths, blank_label=0):
        F = _F()
        return (F.mul(out[1], F.reshape(F.cast(g[0], out[1].dtype), (-1, 1, 1, 1))), None, None, None)


class RNNTLoss(Operation):
    """``RNNTLoss(blank_label=0)(acts, labels, input_lengths, label_lengths)``: the RNN-transducer loss
    of logits acts (B, T, U + 1, V) -> (costs (B,), grads with respect to acts); the costs are
    differentiable in acts."""

    def __init__(self, blank_label: int = 0) -> None:
        if isinstance(blank_label, bool) or not isinstance(blank_label, int):
            raise TypeError(f"RNNTLoss: blank_label must be an int, got {type(blank_label).__name__}")
        self.blank_label = blank_label

    def construct(self, acts: Tensor, labels: Tensor, input_lengths: Tensor,
                  label_lengths: Tensor) -> tuple[Tensor, Tensor]:
        for name, v in (("acts", acts), ("labels", labels), ("input_lengths", input_lengths),
                        ("label_lengths", label_lengths)):
            if not isinstance(v, Tensor):
                raise TypeError(f"RNNTLoss: {name} must be a Tensor, got {type(v).__name__}")
        return RNNTLossWithGradient(acts, labels, input_lengths, label_lengths, blank_label=self.blank_label)


# --- EditDistance --------------------------------------------------------------------------------------
def _levenshtein(a: list, b: list) -> int:
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def _groups(idx: np.ndarray, vals: np.ndarray) -> dict[tuple, list]:
    order = np.lexsort(idx.T[::-1]) if len(idx) else np.zeros(0, np.int64)
    out: dict[tuple, list] = {}
    for i in order.tolist():
        out.setdefault(tuple(idx[i, :-1].tolist()), []).append(vals[i].item())
    return out


class EditDistance(Operation):
    """``EditDistance(normalize=True)(hypothesis_indices, hypothesis_values, hypothesis_shape,
    truth_indices, truth_values, truth_shape)``: the Levenshtein distance between the sparse
    sequences of hypothesis and truth (float32, of the dense shapes without their last axis)."""

    def __init__(self, normalize: bool = True) -> None:
        if not isinstance(normalize, bool):
            raise TypeError(f"EditDistance: normalize must be a bool, got {type(normalize).__name__}")
        self.normalize = normalize

    def construct(self, hypothesis_indices: Tensor, hypothesis_values: Tensor, hypothesis_shape: Tensor,
                  truth_indices: Tensor, truth_values: Tensor, truth_shape: Tensor) -> Tensor:
        op = "EditDistance"
        hi = _arr(op, "hypothesis_indices", hypothesis_indices, floats=False).astype(np.int64)
        hv = _arr(op, "hypothesis_values", hypothesis_values).reshape(-1)
        hs = _arr(op, "hypothesis_shape", hypothesis_shape, floats=False).astype(np.int64).reshape(-1)
        ti = _arr(op, "truth_indices", truth_indices, floats=False).astype(np.int64)
        tv = _arr(op, "truth_values", truth_values).reshape(-1)
        ts = _arr(op, "truth_shape", truth_shape, floats=False).astype(np.int64).reshape(-1)
        if hypothesis_values.dtype is not truth_values.dtype:
            raise DTypeError(op, f"truth_values of the hypothesis_values' dtype ({hypothesis_values.dtype})",
                             str(truth_values.dtype))
        rank = hs.shape[0]
        if rank < 1 or ts.shape != (rank,):
            raise ShapeError(op, "hypothesis_shape and truth_shape of one length R >= 1", f"{hs.shape}, {ts.shape}")
        for name, ind, v in (("hypothesis", hi, hv), ("truth", ti, tv)):
            if ind.ndim != 2 or ind.shape != (v.shape[0], rank):
                raise ShapeError(op, f"{name}_indices of shape ({v.shape[0]}, {rank})", f"shape {ind.shape}")
        out_shape = tuple(np.maximum(hs[:-1], ts[:-1]).tolist())
        out = np.zeros(out_shape, np.float32)
        hg, tg = _groups(hi, hv), _groups(ti, tv)
        for key in set(hg) | set(tg):
            if any(k < 0 or k >= s for k, s in zip(key, out_shape)):
                raise ValueError(f"{op}: index {key} is outside the output shape {out_shape}")
            h, t = hg.get(key, []), tg.get(key, [])
            d = float(_levenshtein(h, t))
            if self.normalize:
                d = d / len(t) if t else (np.inf if h else 0.0)
            out[key] = d
        return Tensor(out)
