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
    Qr_,
    Svd_,
)

Svd = Svd_
Qr = Qr_

__all__ = ["LuSolve", "LuUnpack", "Lstsq", "MatrixExp", "MatrixTriangularSolve", "NuclearNorm", "Pdist", "Qr", "Svd"]
