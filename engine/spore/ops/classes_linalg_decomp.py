"""Class forms of linalg_decompositions (`ops.Svd`, `ops.Qr`, `ops.Lstsq`, `ops.MatrixExp`,
`ops.MatrixTriangularSolve`, `ops.LuSolve`, `ops.LuUnpack`, `ops.NuclearNorm`, `ops.Pdist`), defined
there next to their functions."""

from __future__ import annotations

from .linalg_decompositions import (
    Lstsq,
    LuSolve,
    LuUnpack,
    MatrixExp,
    MatrixTriangularSolve,
    NuclearNorm,
    Pdist,
)
from .linalg_decompositions import Qr_ as Qr  # named with a "_" there: the primitives Svd/Qr hold the name
from .linalg_decompositions import Svd_ as Svd

__all__ = ["LuSolve", "LuUnpack", "Lstsq", "MatrixExp", "MatrixTriangularSolve", "NuclearNorm", "Pdist", "Qr", "Svd"]
