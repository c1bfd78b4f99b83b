"""Dropout and embedding lookup: primitives, their gradients, and MindSpore's `ops.dropout` /
`ops.embedding`.

Dropout's keep mask is drawn from the global generator (`spore.common.seed.rng()`), so
`ms.set_seed` makes a run reproducible; the mask is the primitive's second output, which the
gradient reuses (no second draw, no state kept on the side).

The embedding gradient is a scatter-add of the output cotangent rows into a table-shaped gradient;
float32 runs through a C++ kernel (10-60x faster than `np.add.at` for typical sizes).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _kernels
from ..autodiff.tape import is_tracked
from ..common.seed import rng
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor
from .normalization import _f32, _require_float
from .primitive import Aval, primitive

# --- dropout -----------------------------------------------------------------------------------


def _keep_mask(shape: tuple[int, ...], keep_prob: float, seed: int | None, dtype: np.dtype) -> np.ndarray:
    """0/1 mask with P(1) = keep_prob; from `rng()` (or a generator of its own for an explicit seed)."""
    if keep_prob >= 1.0:
        return np.ones(shape, dtype)
    if keep_prob <= 0.0:
        return np.zeros(shape, dtype)
    gen = np.random.default_rng(seed) if seed is not None else rng()
    return (gen.random(shape, dtype=np.float32) < np.float32(keep_prob)).astype(dtype)


def _check_keep_prob(op: str, keep_prob: float) -> None:
    if not 0.0 <= keep_prob <= 1.0:
        raise ValueError(f"{op}: keep_prob must be in [0, 1], got {keep_prob}")


@primitive
class Dropout:
    """Randomly zeroes elements with probability 1 - keep_prob and scales the kept ones by 1/keep_prob,
    so the expected output equals the input. Outputs ``(output, mask)``: the 0/1 keep mask in the
    input's dtype (as MindSpore's CPU Dropout). With `seed` given the mask depends on it alone;
    otherwise it is drawn from the global generator that `set_seed` seeds.
    """

    multi_output = True
    random = True

    def infer(x, keep_prob=0.5, seed=None):
        _check_keep_prob("Dropout", keep_prob)
        _require_float("Dropout", x=x)
        return Aval(tuple(x.shape), x.dtype), Aval(tuple(x.shape), x.dtype)

    def impl(x, keep_prob=0.5, seed=None):
        mask = _keep_mask(x.shape, keep_prob, seed, x.dtype)
        y = np.multiply(x, mask)
        if 0.0 < keep_prob < 1.0:
            y *= x.dtype.type(1.0 / keep_prob)
        return y, mask

    def vjp(cots, outs, x, keep_prob=0.5, seed=None):
        # the mask output does not depend on x, so its cotangent contributes nothing
        return (DropoutGrad(cots[0], outs[1], keep_prob=keep_prob),) if is_tracked(x) else (None,)


@primitive
class DropoutGrad:
    """Gradient of Dropout: dy * mask / keep_prob (zero when keep_prob is 0)."""

    def infer(dy, mask, keep_prob=0.5):
        if tuple(dy.shape) != tuple(mask.shape):
            raise ShapeError("DropoutGrad", f"mask of the shape of dy {tuple(dy.shape)}", f"{tuple(mask.shape)}")
        return Aval(tuple(dy.shape), dy.dtype)

    def impl(dy, mask, keep_prob=0.5):
        out = np.multiply(dy, mask.astype(dy.dtype, copy=False))
        out *= dy.dtype.type(1.0 / keep_prob if keep_prob > 0 else 0.0)
        return out

    def vjp(g, out, dy, mask, keep_prob=0.5):
        return (DropoutGrad(g, mask, keep_prob=keep_prob) if is_tracked(dy) else None), None


def dropout(input: Tensor, p: float = 0.5, training: bool = True, seed: int | None = None) -> Tensor:
    """During training, randomly zeroes elements of the input with probability `p` and scales the
    rest by 1/(1 - p); returns the input unchanged when not training (or p = 0).

    The mask comes from the global generator (reproducible after `ms.set_seed`); an explicit `seed`
    gives a mask that depends on that seed alone.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p must be in [0, 1], got {p}")
    if not training or p == 0.0:
        return input
    return Dropout(input, keep_prob=1.0 - float(p), seed=seed)[0]


# --- embedding ---------------------------------------------------------------------------------

def _check_ids(op: str, ids: Any) -> None:
    if not ids.dtype.is_int:
        raise DTypeError(op, "integer indices", f"indices of dtype {ids.dtype}",
                         hint="cast them first, e.g. ids.astype(ms.int32)")


def _check_range(op: str, ids: np.ndarray, v: int) -> None:
    if ids.size == 0:
        return
    lo, hi = int(ids.min()), int(ids.max())
    if lo < 0 or hi >= v:
        bad = lo if lo < 0 else hi
        pos = tuple(int(i) for i in np.argwhere(ids == bad)[0])
        raise ShapeError(op, f"indices in [0, {v}) (rows of the table)", f"index {bad} at position {pos}")


@primitive
class Embedding:
    """Looks up rows of a 2-D `weight` table: output[...] = weight[ids[...]], shape ids.shape + (D,).

    The gradient w.r.t. the table is a scatter-add of the output cotangent; the `padding_idx` row
    gets none, and `scale_grad_by_freq` divides each row's gradient by its count in `ids`.
    """

    def infer(ids, weight, padding_idx=None, scale_grad_by_freq=False):
        _check_ids("Embedding", ids)
        if len(weight.shape) != 2:
            raise ShapeError("Embedding", "a 2-D weight table (num_embeddings, embedding_dim)",
                             f"weight of shape {tuple(weight.shape)}")
        return Aval(tuple(ids.shape) + (weight.shape[1],), weight.dtype)

    def impl(ids, weight, padding_idx=None, scale_grad_by_freq=False):
        _check_range("Embedding", ids, weight.shape[0])
        return np.take(weight, ids, axis=0)

    def vjp(g, out, ids, weight, padding_idx=None, scale_grad_by_freq=False):
        if not is_tracked(weight):
            return None, None
        return None, EmbeddingGrad(g, ids, num_weights=weight.shape[0], padding_idx=padding_idx,
                                   scale_grad_by_freq=scale_grad_by_freq)


def _row_factor(ids: np.ndarray, v: int, padding_idx: int | None, scale_grad_by_freq: bool) -> np.ndarray | None:
    """Per-row gradient factor (0 for padding, 1/count with scale_grad_by_freq), or None when all 1."""
    if padding_idx is None and not scale_grad_by_freq:
        return None
    f = np.ones(v)
    if scale_grad_by_freq:
        cnt = np.bincount(ids.reshape(-1), minlength=v)
        f = np.divide(1.0, cnt, out=np.zeros(v), where=cnt > 0)
    if padding_idx is not None:
        f[padding_idx] = 0.0
    return f


@primitive
class EmbeddingGrad:
    """Gradient of Embedding w.r.t. the table: out[v] = sum of g rows whose id is v (see Embedding)."""

    def infer(g, ids, num_weights, padding_idx=None, scale_grad_by_freq=False):
        _check_ids("EmbeddingGrad", ids)
        if tuple(g.shape[:-1]) != tuple(ids.shape):
            raise ShapeError("EmbeddingGrad", f"g of shape {tuple(ids.shape)} + (D,)", f"{tuple(g.shape)}")
        return Aval((num_weights, g.shape[-1]), g.dtype)

    def impl(g, ids, num_weights, padding_idx=None, scale_grad_by_freq=False):
        d = g.shape[-1]
        flat = np.ascontiguousarray(ids, dtype=np.int64).reshape(-1)
        _check_range("EmbeddingGrad", flat, num_weights)
        if g.dtype != np.float64:
            out = _kernels.embedding_backward(_f32(g).reshape(-1, d), flat, num_weights,
                                              -1 if padding_idx is None else int(padding_idx), bool(scale_grad_by_freq))
            return out.astype(g.dtype, copy=False)
        out = np.zeros((num_weights, d), g.dtype)
        np.add.at(out, flat, g.reshape(-1, d))
        f = _row_factor(flat, num_weights, padding_idx, scale_grad_by_freq)
        return out if f is None else out * f[:, None]

    def vjp(gg, out, g, ids, num_weights, padding_idx=None, scale_grad_by_freq=False):
        from .elementwise import mul

        if not is_tracked(g):
            return None, None
        f = _row_factor(ids._data, num_weights, padding_idx, scale_grad_by_freq)
        table = gg if f is None else mul(gg, Tensor._wrap(f[:, None].astype(gg.dtype.np)))
        return Embedding(ids, table), None


@primitive
class EmbeddingRenorm:
    """Rescales, in place, the rows of `weight` looked up by `ids` whose `norm_type`-norm exceeds
    `max_norm` to max_norm / (norm + 1e-7) (embedding's `max_norm`; not differentiated, as in
    MindSpore). An op, so a compiled embedding renormalises the rows of each call's ids."""

    nondiff = True
    side_effect = True

    def infer(weight, ids, max_norm, norm_type=2.0):
        _check_ids("embedding", ids)
        return Aval(tuple(weight.shape), weight.dtype)

    def impl(weight, ids, max_norm, norm_type=2.0):
        _check_range("embedding", ids, weight.shape[0])
        rows = np.unique(ids)
        norms = np.linalg.norm(weight[rows].astype(np.float64), ord=norm_type, axis=1)
        big = norms > max_norm
        if big.any():
            weight[rows[big]] = (weight[rows[big]] * (max_norm / (norms[big] + 1e-7))[:, None]).astype(weight.dtype)
        return weight


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False) -> Tensor:
    """Retrieve the word embeddings in `weight` using indices specified in `input`.

    `padding_idx` (in [-V, V)) marks a row that receives no gradient. With `max_norm`, rows looked
    up whose `norm_type`-norm exceeds it are rescaled in place to max_norm / (norm + 1e-7) first (not
    recorded for autodiff, as in MindSpore). `scale_grad_by_freq` divides each row's gradient by how
    often its index occurs in `input`.
    """
    if not isinstance(input, Tensor):
        input = Tensor(input)
    if weight.ndim != 2:
        raise ShapeError("embedding", "a 2-D weight table (num_embeddings, embedding_dim)",
                         f"weight of shape {tuple(weight.shape)}")
    v = weight.shape[0]
    if padding_idx is not None:
        if not -v <= padding_idx < v:
            raise ValueError(f"embedding: padding_idx must be in [{-v}, {v}), got {padding_idx}")
        padding_idx = int(padding_idx) % v
    if max_norm is not None:
        _check_ids("embedding", input)
        EmbeddingRenorm(weight, input, max_norm=float(max_norm), norm_type=float(norm_type))
    return Embedding(input, weight, padding_idx=padding_idx, scale_grad_by_freq=bool(scale_grad_by_freq))
