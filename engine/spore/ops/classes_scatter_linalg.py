"""Class forms (``ops.ScatterMax()(x, indices, updates)``, ``ops.MatrixInverse()(x)``, ...) of the
scatter/segment, activation/loss and matrix/special-function ops added for issue 14, with
MindSpore's constructor and call signatures; each forwards to the functional wrapper."""

from __future__ import annotations

from typing import Any

from ..common import dtype as mstype
from ..tensor import Tensor
from . import activation_shrink_margin as A
from . import linalg_det_inverse as L
from . import scatter_segment_ops as S
from .operation import Op, Operation, op_classes

_SCATTER = "input_x: Tensor, indices: Tensor, updates: Tensor"
_LOCK = "use_locking: bool = False"
_SEG = "x: Tensor, segment_ids: Tensor, num_segments: Any"


def _nd(fn: Any) -> Any:
    return lambda input_x, indices, updates, use_locking=False: fn(input_x, indices, updates)


def _first(fn: Any) -> Any:
    return lambda input_x, indices, updates, use_locking=False: fn(input_x, indices, updates)


_TABLE = {
    "ScatterAdd": Op(_first(S.scatter_add), _SCATTER, "input_x[indices] += updates (first axis).", _LOCK),
    "ScatterSub": Op(_first(S.scatter_sub), _SCATTER, "input_x[indices] -= updates (first axis).", _LOCK),
    "ScatterMul": Op(_first(S.scatter_mul), _SCATTER, "input_x[indices] *= updates (first axis).", _LOCK),
    "ScatterDiv": Op(_first(S.scatter_div), _SCATTER, "input_x[indices] /= updates (first axis).", _LOCK),
    "ScatterMax": Op(_first(S.scatter_max), _SCATTER, "input_x[indices] = max(., updates) (first axis).", _LOCK),
    "ScatterMin": Op(_first(S.scatter_min), _SCATTER, "input_x[indices] = min(., updates) (first axis).", _LOCK),
    "ScatterUpdate": Op(_first(S.scatter_update), _SCATTER, "input_x[indices] = updates (first axis).",
                        "use_locking: bool = True"),
    "ScatterNdAdd": Op(_nd(S.scatter_nd_add), _SCATTER, "updates added at the N-d indices.", _LOCK),
    "ScatterNdSub": Op(_nd(S.scatter_nd_sub), _SCATTER, "updates subtracted at the N-d indices.", _LOCK),
    "ScatterNdMul": Op(_nd(S.scatter_nd_mul), _SCATTER, "multiplied by updates at the N-d indices.", _LOCK),
    "ScatterNdDiv": Op(_nd(S.scatter_nd_div), _SCATTER, "divided by updates at the N-d indices.", _LOCK),
    "ScatterNdMax": Op(_nd(S.scatter_nd_max), _SCATTER, "max with updates at the N-d indices.", _LOCK),
    "ScatterNdMin": Op(_nd(S.scatter_nd_min), _SCATTER, "min with updates at the N-d indices.", _LOCK),
    "ScatterNdUpdate": Op(_nd(S._scatter_nd_inplace("update")), _SCATTER, "updates written at the N-d indices.",
                          "use_locking: bool = True"),
    "TensorScatterSub": Op(S.tensor_scatter_sub, _SCATTER, "a copy with updates subtracted at the N-d indices."),
    "TensorScatterMul": Op(S.tensor_scatter_mul, _SCATTER, "a copy multiplied by updates at the N-d indices."),
    "TensorScatterDiv": Op(S.tensor_scatter_div, _SCATTER, "a copy divided by updates at the N-d indices."),
    "TensorScatterMax": Op(S.tensor_scatter_max, _SCATTER, "a copy with max(., updates) at the N-d indices."),
    "TensorScatterMin": Op(S.tensor_scatter_min, _SCATTER, "a copy with min(., updates) at the N-d indices."),
    "UnsortedSegmentSum": Op(S.unsorted_segment_sum, _SEG, "the sum of each segment."),
    "UnsortedSegmentMax": Op(S.unsorted_segment_max, _SEG, "the maximum of each segment."),
    "UnsortedSegmentMin": Op(S.unsorted_segment_min, _SEG, "the minimum of each segment."),
    "UnsortedSegmentProd": Op(S.unsorted_segment_prod, _SEG, "the product of each segment."),
    # activations and elementwise
    "Softsign": Op(A.softsign, "x: Tensor", "x / (1 + |x|)."),
    "SoftShrink": Op(A.soft_shrink, "input_x: Tensor", "shrink toward 0 by lambd.", "lambd: float = 0.5"),
    "SeLU": Op(A.selu, "input_x: Tensor", "scaled exponential linear unit."),
    "PReLU": Op(A.prelu, "x: Tensor, weight: Tensor", "x where x >= 0, weight * x elsewhere."),
    "Sinc": Op(A.sinc, "x: Tensor", "sin(pi x) / (pi x)."),
    "TruncateDiv": Op(A.truncate_div, "x: Any, y: Any", "x / y rounded toward zero."),
    "TruncateMod": Op(A.truncate_mod, "x: Any, y: Any", "the remainder of truncate_div (sign of x)."),
    "TensorAdd": Op(lambda x, y: A.F.add(x, y), "x: Any, y: Any", "x + y (MindSpore's old name of Add)."),
    "SoftMarginLoss": Op(A.soft_margin_loss, "input: Tensor, label: Tensor", "log(1 + exp(-label * input)).",
                         "reduction: str = 'mean'"),
    "KLDivLoss": Op(A.kl_div, "logits: Tensor, labels: Tensor", "labels * (log(labels) - logits), reduced.",
                    "reduction: str = 'mean'"),
    # matrices and special functions
    "MatrixInverse": Op(lambda x, adjoint: L.inverse(L._mT(x) if adjoint else x), "x: Tensor",
                        "the inverse of each matrix.", "adjoint: bool = False"),
    "MatrixDeterminant": Op(L.matrix_determinant, "x: Tensor", "the determinant of each matrix."),
    "LogMatrixDeterminant": Op(L.log_matrix_determinant, "x: Tensor -> tuple[Tensor, Tensor]",
                               "(sign, log|det|) of each matrix."),
    "MatrixPower": Op(L.matrix_power, "x: Tensor", "x ** n by repeated products.", "n: int"),
    "MatrixSolve": Op(L.matrix_solve, "matrix: Tensor, rhs: Tensor", "X with matrix @ X = rhs.",
                      "adjoint: bool = False"),
    "MatrixBandPart": Op(L.matrix_band_part, "x: Tensor, lower: Any, upper: Any", "the band of each matrix."),
    "Lgamma": Op(L.lgamma, "x: Tensor", "log|Gamma(x)|."),
    "Polygamma": Op(L.polygamma, "a: Any, x: Tensor", "the a-th derivative of digamma."),
    "Mvlgamma": Op(L.mvlgamma, "x: Tensor", "the multivariate log-gamma of dimension p.", "p: int"),
    "Zeta": Op(L.zeta, "x: Tensor, q: Tensor", "Hurwitz's zeta(x, q)."),
}
globals().update(op_classes(_TABLE, __name__))


class TrilIndices(Operation):
    """``TrilIndices(row, col, offset=0, dtype=mstype.int32)()``: (2, k) lower-triangle indices."""

    def __init__(self, row: int, col: int, offset: int = 0, dtype: Any = mstype.int32) -> None:
        self.row, self.col, self.offset, self.dtype = row, col, offset, dtype

    def construct(self) -> Tensor:
        return L.tril_indices(self.row, self.col, self.offset, dtype=self.dtype)


class TriuIndices(Operation):
    """``TriuIndices(row, col, offset=0, dtype=mstype.int32)()``: (2, k) upper-triangle indices."""

    def __init__(self, row: int, col: int, offset: int = 0, dtype: Any = mstype.int32) -> None:
        self.row, self.col, self.offset, self.dtype = row, col, offset, dtype

    def construct(self) -> Tensor:
        return L.triu_indices(self.row, self.col, self.offset, dtype=self.dtype)


__all__ = sorted([*_TABLE, "TrilIndices", "TriuIndices"])
