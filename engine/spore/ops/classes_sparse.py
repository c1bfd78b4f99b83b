"""MindSpore's sparse op classes (issue 14): `SparseToDense`, `SparseTensorDenseMatmul`,
`SparseTensorDenseAdd`, `SparseSlice`, and the row-sparse optimizer steps `SparseApplyAdagrad`,
`SparseApplyAdadelta`, `SparseApplyFtrl`, `SparseApplyProximalAdagrad`, `SparseApplyRMSProp`.

The COO inputs come as MindSpore passes them: (indices [N, ndim], values [N], shape). The
``SparseApply*`` ops update only the rows `indices` of `var` and its slots (Parameters are updated
in place, as MindSpore's), with the dense ``Apply*`` rule on those rows; a row listed twice is
updated twice, in order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor
from . import functional as F
from .operation import Operation

__all__ = ["SparseToDense", "SparseTensorDenseMatmul", "SparseTensorDenseAdd", "SparseSlice",
           "SparseApplyAdagrad", "SparseApplyAdadelta", "SparseApplyFtrl", "SparseApplyProximalAdagrad",
           "SparseApplyRMSProp"]


def _shape_of(shape: Any, op: str) -> tuple[int, ...]:
    if isinstance(shape, Tensor):
        shape = shape.asnumpy().tolist()
    if not isinstance(shape, (tuple, list)) or not all(isinstance(s, (int, np.integer)) for s in shape):
        raise TypeError(f"{op}: the dense shape must be a tuple of ints (or a 1-D int Tensor), got {shape!r}")
    return tuple(int(s) for s in shape)


def _check_coo(indices: Tensor, values: Tensor, shape: tuple[int, ...], op: str) -> np.ndarray:
    if not isinstance(indices, Tensor) or not isinstance(values, Tensor):
        raise TypeError(f"{op}: `indices` and `values` must be Tensors")
    idx = indices.asnumpy()
    if not np.issubdtype(idx.dtype, np.integer):
        raise TypeError(f"{op}: `indices` must be an int32/int64 tensor, got {indices.dtype}")
    if idx.ndim != 2 or idx.shape[1] != len(shape):
        raise ValueError(f"{op}: `indices` must be [N, {len(shape)}], got {list(idx.shape)}")
    if values.ndim != 1 or values.shape[0] != idx.shape[0]:
        raise ValueError(f"{op}: `values` must be 1-D with {idx.shape[0]} entries, got {list(values.shape)}")
    if idx.size and ((idx < 0).any() or (idx >= np.asarray(shape)).any()):
        raise ValueError(f"{op}: `indices` out of range for the dense shape {shape}")
    return idx


class SparseToDense(Operation):
    """``SparseToDense()(indices, values, sparse_shape)``: the dense tensor (duplicates summed)."""

    def construct(self, indices: Tensor, values: Tensor, sparse_shape: Any) -> Tensor:
        shape = _shape_of(sparse_shape, "SparseToDense")
        _check_coo(indices, values, shape, "SparseToDense")
        return F.scatter_nd(indices, values, shape)


class SparseTensorDenseMatmul(Operation):
    """``SparseTensorDenseMatmul(adjoint_st=False, adjoint_dt=False)(indices, values, sparse_shape,
    dense)``: (sparse [M, K], transposed if adjoint_st) @ (dense, transposed if adjoint_dt)."""

    def __init__(self, adjoint_st: bool = False, adjoint_dt: bool = False) -> None:
        self.adjoint_st = adjoint_st
        self.adjoint_dt = adjoint_dt

    def construct(self, indices: Tensor, values: Tensor, sparse_shape: Any, dense: Tensor) -> Tensor:
        op = "SparseTensorDenseMatmul"
        shape = _shape_of(sparse_shape, op)
        if len(shape) != 2:
            raise ValueError(f"{op}: the sparse matrix must be 2-D, got shape {shape}")
        idx = _check_coo(indices, values, shape, op)
        if not isinstance(dense, Tensor) or dense.ndim != 2:
            raise ValueError(f"{op}: `dense` must be a 2-D Tensor")
        rows, cols = idx[:, 0].astype(np.int32), idx[:, 1].astype(np.int32)
        m, k = shape
        if self.adjoint_st:
            rows, cols, m, k = cols, rows, k, m
        d = F.transpose(dense, (1, 0)) if self.adjoint_dt else dense
        if d.shape[0] != k:
            raise ValueError(f"{op}: inner sizes differ: sparse {(m, k)} @ dense {tuple(d.shape)}")
        contrib = F.mul(F.reshape(F.cast(values, d.dtype), (-1, 1)), F.gather(d, Tensor(cols), 0))
        return F.unsorted_segment_sum(contrib, Tensor(rows), m)


class SparseTensorDenseAdd(Operation):
    """``SparseTensorDenseAdd()(x1_indices, x1_values, x1_shape, x2)``: sparse + dense, a dense tensor."""

    def construct(self, x1_indices: Tensor, x1_values: Tensor, x1_shape: Any, x2: Tensor) -> Tensor:
        op = "SparseTensorDenseAdd"
        shape = _shape_of(x1_shape, op)
        _check_coo(x1_indices, x1_values, shape, op)
        if tuple(x2.shape) != shape:
            raise ValueError(f"{op}: `x2` must have the sparse shape {shape}, got {tuple(x2.shape)}")
        return F.tensor_scatter_add(x2, x1_indices, F.cast(x1_values, x2.dtype))


class SparseSlice(Operation):
    """``SparseSlice()(indices, values, shape, start, size)``: the entries inside the box
    [start, start + size) (clipped to the shape), shifted to it: (y_indices, y_values, y_shape)."""

    def construct(self, indices: Tensor, values: Tensor, shape: Any, start: Any, size: Any) -> tuple:
        op = "SparseSlice"
        dshape = _shape_of(shape, op)
        idx = _check_coo(indices, values, dshape, op)
        st = np.asarray(start.asnumpy() if isinstance(start, Tensor) else start, np.int64).reshape(-1)
        sz = np.asarray(size.asnumpy() if isinstance(size, Tensor) else size, np.int64).reshape(-1)
        if st.shape != (len(dshape),) or sz.shape != (len(dshape),):
            raise ValueError(f"{op}: `start` and `size` must each have {len(dshape)} entries")
        if (st < 0).any() or (sz < 0).any():
            raise ValueError(f"{op}: `start` and `size` must be non-negative")
        end = np.minimum(st + sz, np.asarray(dshape))
        out_shape = np.maximum(end - st, 0)
        keep = np.nonzero(np.all((idx >= st) & (idx < end), axis=1))[0]
        y_idx = (idx[keep] - st).astype(idx.dtype)
        y_vals = F.gather(values, Tensor(keep.astype(np.int32)), 0)
        return Tensor(y_idx), y_vals, Tensor(out_shape.astype(np.int64))


def _rounds(indices: Tensor, rows: int, op: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """(positions in `indices`, row ids) groups with no row twice, in order of occurrence."""
    idx = indices.asnumpy()
    if not np.issubdtype(idx.dtype, np.integer) or idx.ndim != 1:
        raise TypeError(f"{op}: `indices` must be a 1-D int tensor, got {indices.dtype} of shape {list(idx.shape)}")
    if idx.size and ((idx < 0).any() or (idx >= rows).any()):
        raise ValueError(f"{op}: `indices` out of range for {rows} rows")
    seen: dict[int, int] = {}
    occ = np.empty(len(idx), np.int64)
    for i, r in enumerate(idx.tolist()):
        occ[i] = seen.get(r, 0)
        seen[r] = occ[i] + 1
    return [(np.nonzero(occ == k)[0], idx[occ == k]) for k in range(int(occ.max()) + 1 if len(idx) else 0)]


def _sc(x: Any, like: Tensor) -> Tensor:
    return F.cast(x, like.dtype) if isinstance(x, Tensor) else Tensor(np.asarray(x, like.dtype.np))


def _sparse_step(op: str, slots: tuple[Tensor, ...], grad: Tensor, indices: Tensor, rule) -> tuple[Tensor, ...]:
    """Applies `rule(rows_of_each_slot..., grad_rows) -> new rows` to the rows in `indices`, writes
    them back into the slots (in place) and returns the slots."""
    var = slots[0]
    for i, s in enumerate(slots):
        if tuple(s.shape) != tuple(var.shape):
            raise ValueError(f"{op}: slot {i} has shape {tuple(s.shape)}, `var` has {tuple(var.shape)}")
    if tuple(grad.shape) != (indices.shape[0], *var.shape[1:]):
        raise ValueError(f"{op}: `grad` must have shape {[indices.shape[0], *var.shape[1:]]}, got {list(grad.shape)}")
    for pos, rows in _rounds(indices, var.shape[0], op):
        r = Tensor(rows.astype(np.int32).reshape(-1, 1))
        g = F.gather(grad, Tensor(pos.astype(np.int32)), 0)
        new = rule(*(F.gather_nd(s, r) for s in slots), F.cast(g, var.dtype))
        for s, n in zip(slots, new):
            F.assign(s, F.tensor_scatter_update(s, r, F.cast(n, s.dtype)))
    return slots


class SparseApplyAdagrad(Operation):
    """``SparseApplyAdagrad(lr, update_slots=True, use_locking=False)(var, accum, grad, indices)``:
    on the rows `indices`: accum += g^2 (when update_slots), var -= lr g / sqrt(accum);
    returns (var, accum)."""

    def __init__(self, lr: float, update_slots: bool = True, use_locking: bool = False) -> None:
        if not isinstance(lr, (int, float)):
            raise TypeError(f"SparseApplyAdagrad: `lr` must be a float, got {type(lr).__name__}")
        self.lr, self.update_slots, self.use_locking = float(lr), update_slots, use_locking

    def construct(self, var: Tensor, accum: Tensor, grad: Tensor, indices: Tensor) -> tuple[Tensor, Tensor]:
        def rule(v, a, g):
            a2 = F.add(a, F.square(g)) if self.update_slots else a
            return F.sub(v, F.div(F.mul(_sc(self.lr, var), g), F.sqrt(a2))), a2

        return _sparse_step("SparseApplyAdagrad", (var, accum), grad, indices, rule)


class SparseApplyAdadelta(Operation):
    """``SparseApplyAdadelta(epsilon, use_locking=False)(var, accum, accum_update, lr, rho, grad,
    indices)``: the Adadelta step on the rows `indices`; returns (var, accum, accum_update)."""

    def __init__(self, epsilon: float, use_locking: bool = False) -> None:
        self.epsilon, self.use_locking = float(epsilon), use_locking

    def construct(self, var: Tensor, accum: Tensor, accum_update: Tensor, lr: Any, rho: Any, grad: Tensor,
                  indices: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        rho_t, eps, lr_t = _sc(rho, var), _sc(self.epsilon, var), _sc(lr, var)

        def rule(v, a, u, g):
            a2 = F.add(F.mul(rho_t, a), F.mul(F.sub(1.0, rho_t), F.square(g)))
            upd = F.mul(F.div(F.sqrt(F.add(u, eps)), F.sqrt(F.add(a2, eps))), g)
            u2 = F.add(F.mul(rho_t, u), F.mul(F.sub(1.0, rho_t), F.square(upd)))
            return F.sub(v, F.mul(lr_t, upd)), a2, u2

        return _sparse_step("SparseApplyAdadelta", (var, accum, accum_update), grad, indices, rule)


class SparseApplyFtrl(Operation):
    """``SparseApplyFtrl(lr, l1, l2, lr_power, use_locking=False)(var, accum, linear, grad, indices)``:
    the FTRL-proximal step on the rows `indices`; returns (var, accum, linear)."""

    def __init__(self, lr: float, l1: float, l2: float, lr_power: float, use_locking: bool = False) -> None:
        if lr <= 0 or l1 < 0 or l2 < 0 or lr_power > 0:
            raise ValueError("SparseApplyFtrl: need lr > 0, l1 >= 0, l2 >= 0 and lr_power <= 0")
        self.lr, self.l1, self.l2, self.lr_power = float(lr), float(l1), float(l2), float(lr_power)
        self.use_locking = use_locking

    def construct(self, var: Tensor, accum: Tensor, linear: Tensor, grad: Tensor,
                  indices: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        lr, l1, l2, p = (_sc(x, var) for x in (self.lr, self.l1, self.l2, -self.lr_power))

        def rule(v, a, lin, g):
            a2 = F.add(a, F.square(g))
            sigma = F.div(F.sub(F.pow(a2, p), F.pow(a, p)), lr)
            lin2 = F.sub(F.add(lin, g), F.mul(sigma, v))
            quad = F.add(F.div(F.pow(a2, p), lr), F.mul(l2, 2.0))
            v2 = F.where(F.greater(F.abs(lin2), l1), F.div(F.sub(F.mul(F.sign(lin2), l1), lin2), quad),
                         F.zeros_like(v))
            return v2, a2, lin2

        return _sparse_step("SparseApplyFtrl", (var, accum, linear), grad, indices, rule)


class SparseApplyProximalAdagrad(Operation):
    """``SparseApplyProximalAdagrad(use_locking=False)(var, accum, lr, l1, l2, grad, indices)``:
    accum += g^2, an Adagrad step, then the proximal operator, on the rows `indices`;
    returns (var, accum)."""

    def __init__(self, use_locking: bool = False) -> None:
        self.use_locking = use_locking

    def construct(self, var: Tensor, accum: Tensor, lr: Any, l1: Any, l2: Any, grad: Tensor,
                  indices: Tensor) -> tuple[Tensor, Tensor]:
        lr, l1, l2 = _sc(lr, var), _sc(l1, var), _sc(l2, var)

        def rule(v, a, g):
            a2 = F.add(a, F.square(g))
            prox = F.sub(v, F.div(F.mul(lr, g), F.sqrt(a2)))
            shrink = F.maximum(F.sub(F.abs(prox), F.mul(lr, l1)), 0.0)
            return F.div(F.mul(F.sign(prox), shrink), F.add(F.mul(lr, l2), 1.0)), a2

        return _sparse_step("SparseApplyProximalAdagrad", (var, accum), grad, indices, rule)


class SparseApplyRMSProp(Operation):
    """``SparseApplyRMSProp(rho, momentum, epsilon, use_locking=False)(var, ms, mom, lr, grad, indices)``:
    ms = rho ms + (1 - rho) g^2, mom = momentum mom + lr g / sqrt(ms + eps), var -= mom on the rows
    `indices`; returns (var, ms, mom)."""

    def __init__(self, rho: float, momentum: float, epsilon: float, use_locking: bool = False) -> None:
        if not 0 <= rho <= 1 or momentum < 0 or epsilon <= 0:
            raise ValueError("SparseApplyRMSProp: need 0 <= rho <= 1, momentum >= 0 and epsilon > 0")
        self.rho, self.momentum, self.epsilon = float(rho), float(momentum), float(epsilon)
        self.use_locking = use_locking

    def construct(self, var: Tensor, ms: Tensor, mom: Tensor, lr: Any, grad: Tensor,
                  indices: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        rho, mo, eps, lr_t = (_sc(x, var) for x in (self.rho, self.momentum, self.epsilon, lr))

        def rule(v, s, m, g):
            s2 = F.add(F.mul(rho, s), F.mul(F.sub(1.0, rho), F.square(g)))
            m2 = F.add(F.mul(mo, m), F.div(F.mul(lr_t, g), F.sqrt(F.add(s2, eps))))
            return F.sub(v, m2), s2, m2

        return _sparse_step("SparseApplyRMSProp", (var, ms, mom), grad, indices, rule)
