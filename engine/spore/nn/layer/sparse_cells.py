"""MindSpore's sparse Cells (issue 14): `nn.SparseToDense` (a COOTensor to its dense tensor) and
`nn.SparseTensorDenseMatmul` (a COO matrix, given as indices/values/shape, times a dense one)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import sparse as _sp
from ...ops.classes_sparse import SparseTensorDenseMatmul as _SpMM
from ...tensor import Tensor
from ..cell import Cell

if TYPE_CHECKING:
    from ...sparse import COOTensor

__all__ = ["SparseToDense", "SparseTensorDenseMatmul"]


class SparseToDense(Cell):
    """``nn.SparseToDense()(sparse_tensor)``: the dense tensor of a COOTensor (duplicates summed)."""

    def construct(self, sparse_tensor: COOTensor) -> Tensor:
        if not isinstance(sparse_tensor, _sp.COOTensor):
            raise TypeError("nn.SparseToDense: the input must be a COOTensor (build one with "
                            "ms.COOTensor(indices, values, shape) or Tensor.to_coo())")
        return sparse_tensor.to_dense()


class SparseTensorDenseMatmul(Cell):
    """``nn.SparseTensorDenseMatmul(adjoint_st=False, adjoint_dt=False)(indices, values, sparse_shape,
    dense)``: the sparse [M, K] matrix (transposed if adjoint_st) times `dense` (transposed if adjoint_dt)."""

    def __init__(self, adjoint_st: bool = False, adjoint_dt: bool = False) -> None:
        super().__init__()
        self.adjoint_st = adjoint_st
        self.adjoint_dt = adjoint_dt
        self._op = _SpMM(adjoint_st, adjoint_dt)

    def construct(self, indices: Tensor, values: Tensor, sparse_shape: Any, dense: Tensor) -> Tensor:
        return self._op(indices, values, sparse_shape, dense)
