"""Embedding: a lookup table of vectors indexed by integer ids (MindSpore's `nn.Embedding`)."""

from __future__ import annotations

from typing import Any

from ...common import dtype as mstype
from ...errors import DTypeError, located
from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from ._common import check_bool, check_int, init_repr, make_param

__all__ = ["Embedding"]


class Embedding(Cell):
    """Maps ids of any shape to ``ids.shape + (embedding_size,)`` rows of ``embedding_table``.

    ``use_one_hot=True`` computes the lookup as a one-hot matrix product (as MindSpore does for
    some accelerators); the result is the same. With ``padding_idx`` that row is zeroed once, at
    initialisation, and is then an ordinary row: its gradient flows and training may move it, as in
    MindSpore's ``nn.Embedding`` (``ops.embedding(padding_idx=...)`` is the form that holds its
    gradient at zero).
    """

    def __init__(self, vocab_size: int, embedding_size: int, use_one_hot: bool = False,
                 embedding_table: Any = "normal", dtype: Any = mstype.float32, padding_idx: int | None = None) -> None:
        super().__init__()
        self.vocab_size = check_int(vocab_size, "vocab_size", "Embedding")
        self.embedding_size = check_int(embedding_size, "embedding_size", "Embedding")
        self.use_one_hot = check_bool(use_one_hot, "use_one_hot", "Embedding")
        if padding_idx is not None:
            if not isinstance(padding_idx, int) or not -vocab_size <= padding_idx < vocab_size:
                raise ValueError(f"Embedding: padding_idx must be an int in [{-vocab_size}, {vocab_size}), "
                                 f"got {padding_idx!r}")
            padding_idx %= vocab_size
        self.padding_idx = padding_idx
        self.dtype = dtype
        self.init_tensor = embedding_table
        self.embedding_table = make_param(embedding_table, (vocab_size, embedding_size), mstype.float32,
                                          "embedding_table")
        if padding_idx is not None:
            self.embedding_table.asnumpy()[padding_idx] = 0

    def construct(self, ids: Tensor) -> Tensor:
        if not isinstance(ids, Tensor) or ids.dtype.is_float:
            got = f"{ids.dtype}" if isinstance(ids, Tensor) else type(ids).__name__
            raise located(DTypeError("Embedding", "a Tensor of integer ids", got,
                                     hint="cast the ids to ms.int32 or ms.int64"))
        if self.use_one_hot:
            flat = F.reshape(ids, (-1,))
            onehot = F.one_hot(flat, self.vocab_size, 1.0, 0.0)
            out = F.matmul(F.cast(onehot, self.embedding_table.dtype), self.embedding_table)
            return F.reshape(out, tuple(ids.shape) + (self.embedding_size,))
        return F.embedding(ids, self.embedding_table)  # padding_idx only zeroed the row at init

    def extend_repr(self) -> str:
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, embedding_table={init_repr(self.init_tensor)}, "
                f"dtype={self.dtype}, padding_idx={self.padding_idx}")
