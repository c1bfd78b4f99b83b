"""Transformer decoder layers and the full encoder-decoder `Transformer` (issue 14), with MindSpore
2.10's signatures and parameter names (``self_attn``, ``multihead_attn``, ``dense1``/``dense2``,
``norm1``..``norm3``), so checkpoints interchange. Activation 'gelu' is the exact (erf) GELU as
in the encoder layer; `Transformer` re-initialises every parameter of rank > 1 with XavierUniform,
as MindSpore's does.
"""

from __future__ import annotations

import copy
from typing import Any

from ...common import dtype as mstype
from ...common.initializer import XavierUniform, initializer
from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from ..container import CellList
from ._common import check_int, shape_error
from .basic import Dropout
from .normalization import LayerNorm
from .transformer import MultiheadAttention, TransformerEncoder, TransformerEncoderLayer, _ff_activation, _linear

__all__ = ["TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


class TransformerDecoderLayer(Cell):
    """Self-attention over `tgt`, attention to `memory`, and a feed-forward block, each with a
    residual connection and LayerNorm (post-norm, or pre-norm with norm_first)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Any = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, dtype: Any = mstype.float32) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 dtype=dtype)
        self.dense1 = _linear(d_model, dim_feedforward, True, dtype)
        self.dropout = Dropout(p=dropout)
        self.dense2 = _linear(dim_feedforward, d_model, True, dtype)
        self.norm_first = bool(norm_first)
        self.norm1 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm3 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)
        self.dropout3 = Dropout(p=dropout)
        self.activation = _ff_activation(activation)

    def _sa_block(self, x: Tensor, attn_mask: Any, key_padding_mask: Any) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x: Tensor, mem: Tensor, attn_mask: Any, key_padding_mask: Any) -> Tensor:
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout3(self.dense2(self.dropout(self.activation(self.dense1(x)))))

    def construct(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                  memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                  memory_key_padding_mask: Tensor | None = None) -> Tensor:
        x = tgt
        if self.norm_first:
            x = F.add(x, self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask))
            x = F.add(x, self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask))
            return F.add(x, self._ff_block(self.norm3(x)))
        x = self.norm1(F.add(x, self._sa_block(x, tgt_mask, tgt_key_padding_mask)))
        x = self.norm2(F.add(x, self._mha_block(x, memory, memory_mask, memory_key_padding_mask)))
        return self.norm3(F.add(x, self._ff_block(x)))


class TransformerDecoder(Cell):
    """`num_layers` copies of a decoder layer (each with its own weights), then an optional norm."""

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Cell | None = None) -> None:
        super().__init__()
        self.layers = CellList([copy.deepcopy(decoder_layer) for _ in range(check_int(num_layers, "num_layers",
                                                                                      "TransformerDecoder"))])
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                  memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                  memory_key_padding_mask: Tensor | None = None) -> Tensor:
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask)
        return self.norm(out) if self.norm is not None else out


class Transformer(Cell):
    """Encoder-decoder Transformer: ``Transformer(d_model=512, nhead=8, num_encoder_layers=6,
    num_decoder_layers=6, ...)(src, tgt, ...)``; both stacks end with a LayerNorm."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1, activation: Any = "relu",
                 custom_encoder: Cell | None = None, custom_decoder: Cell | None = None, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, dtype: Any = mstype.float32) -> None:
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, dtype=dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers,
                                              LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, dtype=dtype)
            self.decoder = TransformerDecoder(layer, num_decoder_layers,
                                              LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        for p in self.get_parameters():
            if p.ndim > 1:
                p.set_data(initializer(XavierUniform(), p.shape, p.dtype))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, bool(batch_first)

    def construct(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None,
                  memory_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                  tgt_key_padding_mask: Tensor | None = None,
                  memory_key_padding_mask: Tensor | None = None) -> Tensor:
        batch_axis = 0 if self.batch_first else 1
        if src.ndim == 3 and tgt.ndim == 3 and src.shape[batch_axis] != tgt.shape[batch_axis]:
            raise shape_error("Transformer", f"src and tgt with one batch size ({src.shape[batch_axis]})", tgt)
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise shape_error("Transformer", f"src and tgt features equal to d_model={self.d_model}", tgt)
        memory = self.encoder(src, src_mask, src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask)
