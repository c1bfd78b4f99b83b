"""Attention layers: MultiheadAttention, TransformerEncoderLayer and TransformerEncoder.

Parameter names and layout follow MindSpore (and PyTorch): ``in_proj_weight`` (3E, E) and
``in_proj_bias`` (3E,) for q/k/v (or ``q_proj_weight``/``k_proj_weight``/``v_proj_weight`` when
kdim/vdim differ from embed_dim), ``out_proj`` a Dense layer, optional ``bias_k``/``bias_v``.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from ...common import dtype as mstype
from ...common.initializer import HeUniform, Uniform, XavierNormal, XavierUniform
from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from ..container import CellList
from ._common import check_bool, check_int, make_param, shape_error
from .activation import GELU, get_activation
from .basic import Dense, Dropout
from .normalization import LayerNorm

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder"]


def _linear(in_ch: int, out_ch: int, has_bias: bool, dtype: Any) -> Dense:
    return Dense(in_ch, out_ch, weight_init=HeUniform(math.sqrt(5)), bias_init=Uniform(1 / math.sqrt(in_ch)),
                 has_bias=has_bias, dtype=dtype)


def _additive_mask(mask: Tensor, dtype: Any) -> Tensor:
    """A boolean mask (True = do not attend) becomes 0/-inf; a float mask is added as it is."""
    if mask.dtype is mstype.bool_:
        return F.masked_fill(F.zeros(mask.shape, dtype), mask, float("-inf"))
    return F.cast(mask, dtype) if mask.dtype is not dtype else mask


class MultiheadAttention(Cell):
    """Multi-head attention (Attention Is All You Need): ``(attn_output, attn_weights)``.

    Inputs are (L, N, E) (or (N, L, E) with ``batch_first``; (L, E) unbatched).
    ``key_padding_mask`` (N, S) and ``attn_mask`` (L, S) or (N*num_heads, L, S) are boolean
    (True = ignore) or float (added to the scores). Weights are averaged over heads unless
    ``average_attn_weights=False``; with ``need_weights=False`` they are None.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, has_bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, dtype: Any = mstype.float32) -> None:
        super().__init__()
        self.embed_dim = check_int(embed_dim, "embed_dim", "MultiheadAttention")
        self.num_heads = check_int(num_heads, "num_heads", "MultiheadAttention")
        if embed_dim % num_heads:
            raise ValueError(f"MultiheadAttention: embed_dim ({embed_dim}) must be divisible by "
                             f"num_heads ({num_heads})")
        if not 0 <= dropout < 1:
            raise ValueError(f"MultiheadAttention: dropout must be in [0, 1), got {dropout}")
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.head_dim = embed_dim // num_heads
        self.dropout = float(dropout)
        self.batch_first = check_bool(batch_first, "batch_first", "MultiheadAttention")
        self.has_bias = has_bias
        self.add_zero_attn = add_zero_attn
        if self._qkv_same_embed_dim:
            self.in_proj_weight = make_param(XavierUniform(), (3 * embed_dim, embed_dim), dtype, "in_proj_weight")
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        else:
            self.q_proj_weight = make_param(XavierUniform(), (embed_dim, embed_dim), dtype, "q_proj_weight")
            self.k_proj_weight = make_param(XavierUniform(), (embed_dim, self.kdim), dtype, "k_proj_weight")
            self.v_proj_weight = make_param(XavierUniform(), (embed_dim, self.vdim), dtype, "v_proj_weight")
            self.in_proj_weight = None
        self.in_proj_bias = make_param("zeros", (3 * embed_dim,), dtype, "in_proj_bias") if has_bias else None
        self.out_proj = _linear(embed_dim, embed_dim, has_bias, dtype)
        if add_bias_kv:
            self.bias_k = make_param(XavierNormal(), (1, 1, embed_dim), dtype, "bias_k")
            self.bias_v = make_param(XavierNormal(), (1, 1, embed_dim), dtype, "bias_v")
        else:
            self.bias_k = self.bias_v = None

    def _project(self, query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        e = self.embed_dim
        b = self.in_proj_bias
        bq, bk, bv = F.split(b, e) if b is not None else (None, None, None)
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            if query is key and key is value:  # self-attention: one product for q, k and v
                return F.split(F.dense(query, w, b), e, axis=-1)
            wq, wk, wv = F.split(w, e)
        else:
            wq, wk, wv = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        return F.dense(query, wq, bq), F.dense(key, wk, bk), F.dense(value, wv, bv)

    def construct(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                  need_weights: bool = True, attn_mask: Tensor | None = None,
                  average_attn_weights: bool = True) -> tuple[Tensor, Tensor | None]:
        batched = query.ndim == 3
        if query.ndim not in (2, 3) or query.shape[-1] != self.embed_dim:
            raise shape_error("MultiheadAttention", f"query of shape (L, N, {self.embed_dim}) or "
                              f"(L, {self.embed_dim}) (embed_dim={self.embed_dim})", query)
        if key.ndim != query.ndim or value.ndim != query.ndim or key.shape[:-1] != value.shape[:-1]:
            raise shape_error("MultiheadAttention", "key and value of the query's rank with the same (S, N) axes",
                              key, hint=f"value has shape {tuple(value.shape)}")
        same_kv, same_qk = key is value, query is key
        if not batched:
            query, key, value = (F.expand_dims(a, 1) for a in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = F.expand_dims(key_padding_mask, 0)
        elif self.batch_first:
            query, key, value = (F.swapaxes(a, 0, 1) for a in (query, key, value))
        if same_kv:
            value = key
            if same_qk:
                query = key
        tgt_len, bsz, e = query.shape
        heads, hd = self.num_heads, self.head_dim
        q, k, v = self._project(query, key, value)
        if self.bias_k is not None:
            k = F.concat([k, F.broadcast_to(self.bias_k, (1, bsz, e))], 0)
            v = F.concat([v, F.broadcast_to(self.bias_v, (1, bsz, e))], 0)
            attn_mask = F.pad(attn_mask, (0, 1)) if attn_mask is not None else None
            key_padding_mask = F.pad(key_padding_mask, (0, 1)) if key_padding_mask is not None else None
        # (L, N, E) -> (N*H, L, hd)
        q = F.swapaxes(F.reshape(q, (tgt_len, bsz * heads, hd)), 0, 1)
        k = F.swapaxes(F.reshape(k, (k.shape[0], bsz * heads, hd)), 0, 1)
        v = F.swapaxes(F.reshape(v, (v.shape[0], bsz * heads, hd)), 0, 1)
        if self.add_zero_attn:
            k = F.concat([k, F.zeros((bsz * heads, 1, hd), k.dtype)], 1)
            v = F.concat([v, F.zeros((bsz * heads, 1, hd), v.dtype)], 1)
            attn_mask = F.pad(attn_mask, (0, 1)) if attn_mask is not None else None
            key_padding_mask = F.pad(key_padding_mask, (0, 1)) if key_padding_mask is not None else None
        src_len = k.shape[1]
        scores = F.bmm(F.mul(q, 1.0 / math.sqrt(hd)), F.swapaxes(k, 1, 2))  # (N*H, L, S)
        if attn_mask is not None:
            if attn_mask.shape not in ((tgt_len, src_len), (bsz * heads, tgt_len, src_len)):
                raise shape_error("MultiheadAttention", f"attn_mask of shape {(tgt_len, src_len)} or "
                                  f"{(bsz * heads, tgt_len, src_len)}", attn_mask)
            scores = F.add(scores, _additive_mask(attn_mask, scores.dtype))
        if key_padding_mask is not None:
            if tuple(key_padding_mask.shape) != (bsz, src_len):
                raise shape_error("MultiheadAttention", f"key_padding_mask of shape {(bsz, src_len)} (N, S)",
                                  key_padding_mask)
            kpm = F.reshape(_additive_mask(key_padding_mask, scores.dtype), (bsz, 1, 1, src_len))
            scores = F.reshape(F.add(F.reshape(scores, (bsz, heads, tgt_len, src_len)), kpm),
                               (bsz * heads, tgt_len, src_len))
        weights = F.softmax(scores, -1)
        if self.dropout and self.training:
            weights = F.dropout(weights, p=self.dropout, training=True)
        out = F.bmm(weights, v)  # (N*H, L, hd)
        out = F.reshape(F.swapaxes(out, 0, 1), (tgt_len * bsz, e))
        out = F.reshape(self.out_proj(out), (tgt_len, bsz, e))
        if not batched:
            out = F.squeeze(out, 1)
        elif self.batch_first:
            out = F.swapaxes(out, 0, 1)
        if not need_weights:
            return out, None
        weights = F.reshape(weights, (bsz, heads, tgt_len, src_len))
        if average_attn_weights:
            weights = F.mean(weights, 1)
        if not batched:
            weights = F.squeeze(weights, 0)
        return out, weights

    def extend_repr(self) -> str:
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout={self.dropout}, " \
               f"batch_first={self.batch_first}"


def _ff_activation(activation: Any) -> Any:
    """The feed-forward activation of a Transformer layer: 'gelu' is the exact erf GELU (MindSpore's
    layers call ``ops.gelu``, whose default is approximate='none'), other names as `get_activation`."""
    if isinstance(activation, str):
        if activation.lower() == "gelu":
            return GELU(approximate=False)
        return get_activation(activation)
    if activation is None or not callable(activation):
        raise TypeError(f"activation must be 'relu', 'gelu', a Cell or a function, got {activation!r}")
    return activation


class TransformerEncoderLayer(Cell):
    """Self-attention and a feed-forward block, each with residual and LayerNorm (post- or pre-norm).

    The feed-forward layers are ``dense1`` and ``dense2`` as in MindSpore, so checkpoints
    interchange; ``activation="gelu"`` is the exact (erf) GELU, as MindSpore's ``ops.gelu`` default,
    and ``"relu"`` ReLU. A Cell or a function given as `activation` is used as it is.
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Any = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, dtype: Any = mstype.float32) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype)
        self.dense1 = _linear(d_model, dim_feedforward, True, dtype)
        self.dropout = Dropout(p=dropout)
        self.dense2 = _linear(dim_feedforward, d_model, True, dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)
        self.activation = _ff_activation(activation)

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.dense2(self.dropout(self.activation(self.dense1(x)))))

    def construct(self, src: Tensor, src_mask: Tensor | None = None,
                  src_key_padding_mask: Tensor | None = None) -> Tensor:
        x = src
        if self.norm_first:
            x = F.add(x, self._sa_block(self.norm1(x), src_mask, src_key_padding_mask))
            return F.add(x, self._ff_block(self.norm2(x)))
        x = self.norm1(F.add(x, self._sa_block(x, src_mask, src_key_padding_mask)))
        return self.norm2(F.add(x, self._ff_block(x)))


class TransformerEncoder(Cell):
    """`num_layers` copies of an encoder layer (each with its own weights), then an optional norm."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Cell | None = None) -> None:
        super().__init__()
        self.layers = CellList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, src: Tensor, src_mask: Tensor | None = None,
                  src_key_padding_mask: Tensor | None = None) -> Tensor:
        out = src
        for layer in self.layers:
            out = layer(out, src_mask, src_key_padding_mask)
        return self.norm(out) if self.norm is not None else out
