"""MindSpore's sparse tensors (issue 14): `COOTensor`, `CSRTensor`, `RowTensor` and the deprecated
`SparseTensor`.

A sparse tensor here is a small record of Spore Tensors (its index tensors and its `values`); every
operation on it is written with Spore ops on `values`, so gradients flow through the values exactly
as in MindSpore (``value_and_grad`` w.r.t. the values equals the dense computation's gradient at the
nonzeros). The index structure is read on the host (NumPy): it is integer data, never differentiated.
Validation (index ranges, a non-decreasing `indptr`, dtypes) happens at construction, with errors
naming the class and what is wrong.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import dtype as mstype
from .tensor import Tensor

__all__ = ["COOTensor", "CSRTensor", "RowTensor", "SparseTensor"]


def _ops() -> Any:
    from . import ops  # the ops package imports this module's users; load it on first use

    return ops


def _as_tensor(x: Any, who: str, what: str) -> Tensor:
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (np.ndarray, list, tuple)):
        return Tensor(np.asarray(x))
    raise TypeError(f"{who}: `{what}` must be a Tensor, got {type(x).__name__}")


def _int_array(t: Tensor, who: str, what: str) -> np.ndarray:
    a = t.asnumpy()
    if not np.issubdtype(a.dtype, np.integer):
        raise TypeError(f"{who}: `{what}` must be an int16/int32/int64 tensor, got {t.dtype}")
    return a


def _shape(shape: Any, who: str) -> tuple[int, ...]:
    if isinstance(shape, Tensor):
        shape = shape.asnumpy().tolist()
    if not isinstance(shape, (tuple, list)) or not all(isinstance(s, (int, np.integer)) for s in shape):
        raise TypeError(f"{who}: `shape` must be a tuple of ints, got {shape!r}")
    if any(int(s) < 0 for s in shape):
        raise ValueError(f"{who}: `shape` must be non-negative, got {tuple(shape)}")
    return tuple(int(s) for s in shape)


class _SparseBase:
    values: Tensor
    _shape: tuple[int, ...]

    @property
    def shape(self) -> tuple[int, ...]:
        """The dense shape."""
        return self._shape

    @property
    def dtype(self) -> Any:
        """The values' dtype."""
        return self.values.dtype

    @property
    def size(self) -> int:
        """The number of stored (nonzero) values."""
        return int(np.prod(self.values.shape))

    @property
    def itemsize(self) -> int:
        """Bytes per value."""
        return int(np.dtype(self.values.dtype.np).itemsize)

    @property
    def ndim(self) -> int:
        """Rank of the dense shape."""
        return len(self._shape)


class COOTensor(_SparseBase):
    """``COOTensor(indices=None, values=None, shape=None, coo_tensor=None)``: coordinates `indices`
    [N, ndim] (int), `values` [N] and the dense `shape`; or a copy of `coo_tensor`.

    Duplicate coordinates are allowed (they add up in `to_dense`, as MindSpore's scatter does).
    """

    def __init__(self, indices: Any = None, values: Any = None, shape: Any = None,
                 coo_tensor: COOTensor | None = None) -> None:
        who = "COOTensor"
        if coo_tensor is not None:
            if not isinstance(coo_tensor, COOTensor):
                raise TypeError(f"{who}: `coo_tensor` must be a COOTensor, got {type(coo_tensor).__name__}")
            indices, values, shape = coo_tensor.indices, coo_tensor.values, coo_tensor.shape
        if indices is None or values is None or shape is None:
            raise ValueError(f"{who}: give `indices`, `values` and `shape` (or `coo_tensor`)")
        self.indices = _as_tensor(indices, who, "indices")
        self.values = _as_tensor(values, who, "values")
        self._shape = _shape(shape, who)
        idx = _int_array(self.indices, who, "indices")
        if idx.ndim != 2 or idx.shape[1] != len(self._shape):
            raise ValueError(f"{who}: `indices` must be [N, {len(self._shape)}] for shape {self._shape}, "
                             f"got {list(idx.shape)}")
        if self.values.ndim != 1 or self.values.shape[0] != idx.shape[0]:
            raise ValueError(f"{who}: `values` must be 1-D with {idx.shape[0]} entries (one per index row), "
                             f"got shape {list(self.values.shape)}")
        if idx.size and ((idx < 0).any() or (idx >= np.asarray(self._shape)).any()):
            raise ValueError(f"{who}: `indices` out of range for shape {self._shape}")

    def __repr__(self) -> str:
        return f"COOTensor(shape={self._shape}, dtype={self.dtype}, indices={self.indices}, values={self.values})"

    def to_tuple(self) -> tuple[Tensor, Tensor, tuple[int, ...]]:
        """(indices, values, shape)."""
        return self.indices, self.values, self._shape

    def to_dense(self) -> Tensor:
        """The dense tensor (duplicates summed); differentiable w.r.t. `values`."""
        return _ops().scatter_nd(self.indices, self.values, self._shape)

    def to_csr(self) -> CSRTensor:
        """The 2-D CSR form (entries sorted by row, then column; duplicates kept)."""
        if self.ndim != 2:
            raise ValueError(f"COOTensor.to_csr: only a 2-D COOTensor converts to CSR, got shape {self._shape}")
        idx = self.indices.asnumpy().astype(np.int64)
        order = np.lexsort((idx[:, 1], idx[:, 0]))
        vals = _ops().gather(self.values, Tensor(order.astype(np.int32)), 0)
        indptr = np.zeros(self._shape[0] + 1, np.int64)
        np.add.at(indptr, idx[order, 0] + 1, 1)
        dt = self.indices.dtype.np
        return CSRTensor(Tensor(np.cumsum(indptr).astype(dt)), Tensor(idx[order, 1].astype(dt)), vals, self._shape)

    def coalesce(self) -> COOTensor:
        """Duplicates summed, coordinates sorted row-major."""
        idx = self.indices.asnumpy().astype(np.int64)
        flat = np.ravel_multi_index(idx.T, self._shape) if idx.size else np.zeros(0, np.int64)
        uniq, inverse = np.unique(flat, return_inverse=True)
        vals = _ops().unsorted_segment_sum(self.values, Tensor(inverse.astype(np.int32)), len(uniq))
        new_idx = np.stack(np.unravel_index(uniq, self._shape), 1) if len(uniq) else np.zeros((0, self.ndim))
        return COOTensor(Tensor(new_idx.astype(self.indices.dtype.np)), vals, self._shape)

    def astype(self, dtype: Any) -> COOTensor:
        """The values cast to `dtype`."""
        return COOTensor(self.indices, _ops().cast(self.values, dtype), self._shape)

    def abs(self) -> COOTensor:
        """|values|, same structure."""
        return COOTensor(self.indices, _ops().abs(self.values), self._shape)

    def add(self, other: COOTensor, thresh: Any) -> COOTensor:
        """``coo_add(self, other, thresh)``."""
        return _ops().coo_add(self, other, thresh)

    def _dense_at(self, other: Tensor, op: str) -> Tensor:
        if not isinstance(other, Tensor):
            other = Tensor(np.asarray(other, self.values.dtype.np))
        return _ops().gather_nd(_ops().broadcast_to(other, self._shape), self.indices)

    def __neg__(self) -> COOTensor:
        return COOTensor(self.indices, _ops().neg(self.values), self._shape)

    def __add__(self, other: Any) -> Any:
        """COOTensor + COOTensor is a COOTensor (``coo_add`` with thresh 0); + a dense Tensor is dense."""
        if isinstance(other, COOTensor):
            return _ops().coo_add(self, other, 0.0)
        if isinstance(other, Tensor):
            return _ops().tensor_scatter_add(_ops().broadcast_to(other, self._shape), self.indices, self.values)
        raise TypeError(f"COOTensor: cannot add {type(other).__name__} (a COOTensor or a Tensor)")

    def __sub__(self, other: Any) -> Any:
        if isinstance(other, (COOTensor, Tensor)):
            return self + (-other)
        raise TypeError(f"COOTensor: cannot subtract {type(other).__name__} (a COOTensor or a Tensor)")

    def __mul__(self, other: Any) -> COOTensor:
        """Times a dense Tensor (or number), read at the stored entries: a COOTensor."""
        return COOTensor(self.indices, _ops().mul(self.values, self._dense_at(other, "mul")), self._shape)

    def __truediv__(self, other: Any) -> COOTensor:
        """Divided by a dense Tensor (or number), read at the stored entries: a COOTensor."""
        return COOTensor(self.indices, _ops().div(self.values, self._dense_at(other, "div")), self._shape)


class CSRTensor(_SparseBase):
    """``CSRTensor(indptr=None, indices=None, values=None, shape=None, csr_tensor=None)``: a 2-D
    compressed-sparse-row matrix: row pointers `indptr` [M + 1] (non-decreasing, from 0 to N), column
    `indices` [N], `values` [N] and the dense `shape` (M, K); or a copy of `csr_tensor`."""

    def __init__(self, indptr: Any = None, indices: Any = None, values: Any = None, shape: Any = None,
                 csr_tensor: CSRTensor | None = None) -> None:
        who = "CSRTensor"
        if csr_tensor is not None:
            if not isinstance(csr_tensor, CSRTensor):
                raise TypeError(f"{who}: `csr_tensor` must be a CSRTensor, got {type(csr_tensor).__name__}")
            indptr, indices, values, shape = csr_tensor.indptr, csr_tensor.indices, csr_tensor.values, csr_tensor.shape
        if indptr is None or indices is None or values is None or shape is None:
            raise ValueError(f"{who}: give `indptr`, `indices`, `values` and `shape` (or `csr_tensor`)")
        self.indptr = _as_tensor(indptr, who, "indptr")
        self.indices = _as_tensor(indices, who, "indices")
        self.values = _as_tensor(values, who, "values")
        self._shape = _shape(shape, who)
        if len(self._shape) != 2:
            raise ValueError(f"{who}: `shape` must be 2-D (rows, columns), got {self._shape}")
        ptr = _int_array(self.indptr, who, "indptr")
        col = _int_array(self.indices, who, "indices")
        if self.indptr.dtype != self.indices.dtype:
            raise TypeError(f"{who}: `indptr` and `indices` must have one dtype, got {self.indptr.dtype} "
                            f"and {self.indices.dtype}")
        if ptr.ndim != 1 or ptr.shape[0] != self._shape[0] + 1:
            raise ValueError(f"{who}: `indptr` must be 1-D with rows + 1 = {self._shape[0] + 1} entries, "
                             f"got shape {list(ptr.shape)}")
        if col.ndim != 1:
            raise ValueError(f"{who}: `indices` must be 1-D, got shape {list(col.shape)}")
        if ptr[0] != 0 or (np.diff(ptr) < 0).any() or ptr[-1] != col.shape[0]:
            raise ValueError(f"{who}: `indptr` must be non-decreasing from 0 to the number of values "
                             f"({col.shape[0]}), got {ptr.tolist()}")
        if col.size and ((col < 0).any() or (col >= self._shape[1]).any()):
            raise ValueError(f"{who}: column `indices` out of range for {self._shape[1]} columns")
        if self.values.ndim != 1 or self.values.shape[0] != col.shape[0]:
            raise ValueError(f"{who}: `values` must be 1-D with {col.shape[0]} entries (one per index), "
                             f"got shape {list(self.values.shape)}")

    def __repr__(self) -> str:
        return (f"CSRTensor(shape={self._shape}, dtype={self.dtype}, indptr={self.indptr}, "
                f"indices={self.indices}, values={self.values})")

    def _rows(self) -> np.ndarray:
        ptr = self.indptr.asnumpy().astype(np.int64)
        return np.repeat(np.arange(self._shape[0], dtype=np.int64), np.diff(ptr))

    def _coo_indices(self) -> Tensor:
        col = self.indices.asnumpy().astype(np.int64)
        return Tensor(np.stack([self._rows(), col], 1).astype(self.indices.dtype.np))

    def to_tuple(self) -> tuple[Tensor, Tensor, Tensor, tuple[int, ...]]:
        """(indptr, indices, values, shape)."""
        return self.indptr, self.indices, self.values, self._shape

    def to_coo(self) -> COOTensor:
        """The same entries as a COOTensor."""
        return COOTensor(self._coo_indices(), self.values, self._shape)

    def to_dense(self) -> Tensor:
        """The dense matrix; differentiable w.r.t. `values`."""
        return _ops().scatter_nd(self._coo_indices(), self.values, self._shape)

    def astype(self, dtype: Any) -> CSRTensor:
        """The values cast to `dtype`."""
        return CSRTensor(self.indptr, self.indices, _ops().cast(self.values, dtype), self._shape)

    def abs(self) -> CSRTensor:
        """|values|, same structure."""
        return CSRTensor(self.indptr, self.indices, _ops().abs(self.values), self._shape)

    def add(self, b: CSRTensor, alpha: Any, beta: Any) -> CSRTensor:
        """``csr_add(self, b, alpha, beta)``: alpha * self + beta * b."""
        return _ops().csr_add(self, b, alpha, beta)

    def __neg__(self) -> CSRTensor:
        return CSRTensor(self.indptr, self.indices, _ops().neg(self.values), self._shape)

    def __add__(self, other: Any) -> CSRTensor:
        """CSRTensor + CSRTensor (``csr_add`` with alpha = beta = 1)."""
        if not isinstance(other, CSRTensor):
            raise TypeError(f"CSRTensor: cannot add {type(other).__name__} (a CSRTensor)")
        return _ops().csr_add(self, other, 1.0, 1.0)

    def __sub__(self, other: Any) -> CSRTensor:
        if not isinstance(other, CSRTensor):
            raise TypeError(f"CSRTensor: cannot subtract {type(other).__name__} (a CSRTensor)")
        return _ops().csr_add(self, other, 1.0, -1.0)

    def __mul__(self, other: Any) -> CSRTensor:
        """``csr_mul(self, other)`` (other dense, broadcast)."""
        return _ops().csr_mul(self, other if isinstance(other, Tensor) else Tensor(np.asarray(other, self.dtype.np)))

    def __truediv__(self, other: Any) -> CSRTensor:
        """``csr_div(self, other)`` (other dense, broadcast)."""
        return _ops().csr_div(self, other if isinstance(other, Tensor) else Tensor(np.asarray(other, self.dtype.np)))

    def mv(self, dense_vector: Tensor) -> Tensor:
        """``csr_mv(self, dense_vector)``: the [M, 1] product with a [K, 1] dense vector."""
        return _ops().csr_mv(self, dense_vector)

    def mm(self, matrix: Any) -> Any:
        """The product with a dense [K, P] matrix (a dense [M, P] Tensor), or with a CSRTensor
        (``csr_mm``, a CSRTensor)."""
        if isinstance(matrix, CSRTensor):
            return _ops().csr_mm(self, matrix)
        return _ops().SparseTensorDenseMatmul()(self._coo_indices(), self.values, self._shape, matrix)

    def sum(self, axis: int) -> Tensor:
        """``csr_reduce_sum(self, axis)`` (the reduced axis kept, size 1)."""
        return _ops().csr_reduce_sum(self, axis)


class RowTensor:
    """``RowTensor(indices=None, values=None, shape=None, row_tensor=None)``: a slice-wise sparse
    tensor (the gradient of an embedding lookup): rows `indices` [N] of a dense tensor of `shape`,
    holding `values` [N, *shape[1:]]."""

    def __init__(self, indices: Any = None, values: Any = None, shape: Any = None,
                 row_tensor: RowTensor | None = None) -> None:
        who = "RowTensor"
        if row_tensor is not None:
            if not isinstance(row_tensor, RowTensor):
                raise TypeError(f"{who}: `row_tensor` must be a RowTensor, got {type(row_tensor).__name__}")
            indices, values, shape = row_tensor.indices, row_tensor.values, row_tensor.dense_shape
        if indices is None or values is None or shape is None:
            raise ValueError(f"{who}: give `indices`, `values` and `shape` (or `row_tensor`)")
        self.indices = _as_tensor(indices, who, "indices")
        self.values = _as_tensor(values, who, "values")
        self.dense_shape = _shape(shape, who)
        idx = _int_array(self.indices, who, "indices")
        if idx.ndim != 1:
            raise ValueError(f"{who}: `indices` must be 1-D, got shape {list(idx.shape)}")
        if tuple(self.values.shape) != (idx.shape[0], *self.dense_shape[1:]):
            raise ValueError(f"{who}: `values` must have shape {[idx.shape[0], *self.dense_shape[1:]]}, "
                             f"got {list(self.values.shape)}")
        if idx.size and ((idx < 0).any() or (idx >= self.dense_shape[0]).any()):
            raise ValueError(f"{who}: `indices` out of range for {self.dense_shape[0]} rows")

    @property
    def dtype(self) -> Any:
        """The values' dtype."""
        return self.values.dtype

    def __repr__(self) -> str:
        return f"RowTensor(dense_shape={self.dense_shape}, indices={self.indices}, values={self.values})"

    def to_dense(self) -> Tensor:
        """The dense tensor (rows listed twice add up)."""
        ops = _ops()
        idx = ops.reshape(ops.cast(self.indices, mstype.int64), (-1, 1))
        return ops.scatter_nd(idx, self.values, self.dense_shape)


class SparseTensor:
    """``SparseTensor(indices, values, shape)``: MindSpore's deprecated COO record (use COOTensor);
    `indices` [N, ndim], `values` [N], `shape` a tuple."""

    def __init__(self, indices: Any, values: Any, shape: Any) -> None:
        coo = COOTensor(indices, values, shape)  # the same checks
        self.indices, self.values, self.shape = coo.indices, coo.values, coo.shape

    def __repr__(self) -> str:
        return f"SparseTensor(shape={self.shape}, indices={self.indices}, values={self.values})"

    def to_dense(self) -> Tensor:
        """The dense tensor (duplicates summed)."""
        return _ops().scatter_nd(self.indices, self.values, self.shape)


def _tensor_to_coo(self: Tensor) -> COOTensor:
    """``Tensor.to_coo()``: the nonzero entries as a COOTensor (int64 indices, row-major order)."""
    return _ops().dense_to_sparse_coo(self)


def _tensor_to_csr(self: Tensor) -> CSRTensor:
    """``Tensor.to_csr()``: a 2-D tensor's nonzero entries as a CSRTensor (int64 indices)."""
    return _ops().dense_to_sparse_csr(self)


Tensor.to_coo = _tensor_to_coo
Tensor.to_csr = _tensor_to_csr
