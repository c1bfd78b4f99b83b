"""MindSpore's functions on sparse tensors (issue 14): the elementwise ``coo_*``/``csr_*`` ops (the op
applied to `values`, the structure kept: MindSpore offers exactly the zero-preserving ones),
`coo_add`/`coo_concat`, `csr_add`/`csr_mul`/`csr_div`, `csr_mv`/`csr_mm`, `csr_reduce_sum`,
`csr_softmax`, conversions (`csr_to_coo`, `csr_to_dense`, `dense_to_sparse_coo`/`csr`) and
`make_sparse_tensor`.

All are composites of Spore ops on `values`, so they differentiate w.r.t. the values. The sparsity
structure is host data (NumPy); a sparse tensor cannot be a Graph-mode construct input or output.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import sparse as _sp  # a module reference: spore.sparse may still be loading (it imports Tensor)
from ..tensor import Tensor
from . import activation, activation_shrink_margin, comparison, math_extra, math_ops
from . import elementwise as _E  # (load order: the registry's elementwise ops first)

__all__: list[str] = []


def _F() -> Any:
    from . import functional

    return functional


def _need(x: Any, cls: type, op: str, arg: str) -> None:
    if not isinstance(x, cls):
        raise TypeError(f"{op}: `{arg}` must be a {cls.__name__}, got {type(x).__name__}")


def _unary(fn_name: str) -> Any:
    """The public elementwise function `fn_name` (``ops.<fn_name>``), taken from the declaration
    module that defines it. Bound when the ``coo_*``/``csr_*`` functions are made, so their code
    names the function it applies (the IDE's op catalogue reads that) instead of looking it up."""
    for module in (_E, math_ops, math_extra, comparison, activation, activation_shrink_margin):
        fn = vars(module).get(fn_name)
        if getattr(fn, "__module__", None) == module.__name__:
            return fn
    raise ImportError(f"sparse_ops: no declaration module defines ops.{fn_name}")


def _coo_map(op: str, fn_name: str):
    fn = _unary(fn_name)

    def f(x: _sp.COOTensor) -> _sp.COOTensor:
        _need(x, _sp.COOTensor, op, "x")
        return _sp.COOTensor(x.indices, fn(x.values), x.shape)

    f.__name__ = f.__qualname__ = op
    f.__doc__ = f"``{op}(x)``: ``ops.{fn_name}`` of a COOTensor's values; the same indices and shape."
    return f


def _csr_map(op: str, fn_name: str):
    fn = _unary(fn_name)

    def f(x: _sp.CSRTensor) -> _sp.CSRTensor:
        _need(x, _sp.CSRTensor, op, "x")
        return _sp.CSRTensor(x.indptr, x.indices, fn(x.values), x.shape)

    f.__name__ = f.__qualname__ = op
    f.__doc__ = f"``{op}(x)``: ``ops.{fn_name}`` of a CSRTensor's values; the same structure."
    return f


_UNARY = {"abs": "abs", "acos": "acos", "acosh": "acosh", "asin": "asin", "asinh": "asinh", "atan": "atan",
          "atanh": "atanh", "ceil": "ceil", "cos": "cos", "cosh": "cosh", "exp": "exp", "expm1": "expm1",
          "floor": "floor", "inv": "reciprocal", "isfinite": "isfinite", "isinf": "isinf", "isnan": "isnan",
          "log": "log", "log1p": "log1p", "neg": "neg", "relu": "relu", "relu6": "relu6", "round": "round",
          "sigmoid": "sigmoid", "sin": "sin", "sinh": "sinh", "softsign": "softsign", "sqrt": "sqrt",
          "square": "square", "tan": "tan", "tanh": "tanh"}

# defined at module level so `ops` picks them up as this module's public functions
for _k, _v in _UNARY.items():
    globals()[f"coo_{_k}"] = _coo_map(f"coo_{_k}", _v)
    globals()[f"csr_{_k}"] = _csr_map(f"csr_{_k}", _v)
    globals()[f"coo_{_k}"].__module__ = globals()[f"csr_{_k}"].__module__ = __name__
del _k, _v


def _flat(idx: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return np.ravel_multi_index(idx.T.astype(np.int64), shape) if idx.size else np.zeros(0, np.int64)


def coo_add(x1: _sp.COOTensor, x2: _sp.COOTensor, thresh: Tensor) -> _sp.COOTensor:
    """``coo_add(x1, x2, thresh)``: the sum of two COOTensors of one shape; result entries whose
    magnitude is below `thresh` are dropped (MindSpore's SparseAdd). Coordinates come out sorted."""
    op = "coo_add"
    _need(x1, _sp.COOTensor, op, "x1")
    _need(x2, _sp.COOTensor, op, "x2")
    if x1.shape != x2.shape:
        raise ValueError(f"{op}: shapes differ: {x1.shape} and {x2.shape}")
    if x1.dtype != x2.dtype:
        raise TypeError(f"{op}: value dtypes differ: {x1.dtype} and {x2.dtype}")
    F = _F()
    flat = np.concatenate([_flat(x1.indices.asnumpy(), x1.shape), _flat(x2.indices.asnumpy(), x2.shape)])
    uniq, inverse = np.unique(flat, return_inverse=True)
    vals = F.unsorted_segment_sum(F.concat((x1.values, x2.values)), Tensor(inverse.astype(np.int32)), len(uniq))
    th = float(thresh.asnumpy()) if isinstance(thresh, Tensor) else float(thresh)
    keep = np.nonzero(np.abs(vals.asnumpy()) >= th)[0]
    vals = F.gather(vals, Tensor(keep.astype(np.int32)), 0)
    idx = np.stack(np.unravel_index(uniq[keep], x1.shape), 1) if len(keep) else np.zeros((0, x1.ndim))
    return _sp.COOTensor(Tensor(idx.astype(x1.indices.dtype.np)), vals, x1.shape)


def coo_concat(sp_input: Any, concat_dim: int = 0) -> _sp.COOTensor:
    """``coo_concat(sp_input, concat_dim=0)``: COOTensors joined along `concat_dim` (the others'
    sizes must match); indices of later inputs are offset along that axis."""
    op = "coo_concat"
    if not isinstance(sp_input, (list, tuple)) or len(sp_input) < 2:
        raise ValueError(f"{op}: `sp_input` must be a list/tuple of at least 2 COOTensors")
    for i, t in enumerate(sp_input):
        _need(t, _sp.COOTensor, op, f"sp_input[{i}]")
    nd = sp_input[0].ndim
    if not -nd <= concat_dim < nd:
        raise ValueError(f"{op}: `concat_dim` {concat_dim} out of range for rank {nd}")
    ax = concat_dim % nd
    base = sp_input[0].shape
    for t in sp_input[1:]:
        if t.ndim != nd or any(a != b for i, (a, b) in enumerate(zip(base, t.shape)) if i != ax):
            raise ValueError(f"{op}: shapes {base} and {t.shape} differ outside axis {ax}")
    off, idx = 0, []
    for t in sp_input:
        a = t.indices.asnumpy().astype(np.int64).copy()
        a[:, ax] += off
        off += t.shape[ax]
        idx.append(a)
    shape = tuple(off if i == ax else s for i, s in enumerate(base))
    vals = _F().concat(tuple(t.values for t in sp_input))
    return _sp.COOTensor(Tensor(np.concatenate(idx).astype(sp_input[0].indices.dtype.np)), vals, shape)


def _same_structure(a: _sp.CSRTensor, b: _sp.CSRTensor) -> bool:
    return (a.shape == b.shape and np.array_equal(a.indptr.asnumpy(), b.indptr.asnumpy())
            and np.array_equal(a.indices.asnumpy(), b.indices.asnumpy()))


def csr_add(a: _sp.CSRTensor, b: _sp.CSRTensor, alpha: Tensor, beta: Tensor) -> _sp.CSRTensor:
    """``csr_add(a, b, alpha, beta)``: alpha * a + beta * b as a CSRTensor (the union of the two
    structures, columns sorted within each row)."""
    op = "csr_add"
    _need(a, _sp.CSRTensor, op, "a")
    _need(b, _sp.CSRTensor, op, "b")
    if a.shape != b.shape:
        raise ValueError(f"{op}: shapes differ: {a.shape} and {b.shape}")
    F = _F()
    va, vb = F.mul(a.values, alpha), F.mul(b.values, beta)
    ia, ib = a.to_coo().indices.asnumpy(), b.to_coo().indices.asnumpy()
    flat = np.concatenate([_flat(ia, a.shape), _flat(ib, b.shape)])
    uniq, inverse = np.unique(flat, return_inverse=True)
    vals = F.unsorted_segment_sum(F.concat((va, vb)), Tensor(inverse.astype(np.int32)), len(uniq))
    rows, cols = np.unravel_index(uniq, a.shape)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=a.shape[0]))])
    dt = a.indices.dtype.np
    return _sp.CSRTensor(Tensor(indptr.astype(dt)), Tensor(cols.astype(dt)), vals, a.shape)


def _dense_at(x: _sp.CSRTensor, y: Tensor, op: str) -> Tensor:
    """`y` broadcast to x's dense shape, read at x's nonzeros."""
    _need(x, _sp.CSRTensor, op, "x")
    if not isinstance(y, Tensor):
        raise TypeError(f"{op}: `y` must be a Tensor, got {type(y).__name__}")
    F = _F()
    try:
        np.broadcast_shapes(tuple(y.shape), x.shape)
    except ValueError:
        raise ValueError(f"{op}: `y` of shape {tuple(y.shape)} does not broadcast to {x.shape}") from None
    full = F.broadcast_to(y, x.shape)
    return F.gather_nd(full, x.to_coo().indices)


def csr_mul(x: _sp.CSRTensor, y: Tensor) -> _sp.CSRTensor:
    """``csr_mul(x, y)``: x * y (y dense, broadcast to x's shape) at x's nonzeros; a CSRTensor."""
    return _sp.CSRTensor(x.indptr, x.indices, _F().mul(x.values, _dense_at(x, y, "csr_mul")), x.shape)


def csr_div(x: _sp.CSRTensor, y: Tensor) -> _sp.CSRTensor:
    """``csr_div(x, y)``: x / y (y dense, broadcast to x's shape) at x's nonzeros; a CSRTensor
    (MindSpore's annotation says Tensor, its implementation returns a CSRTensor)."""
    return _sp.CSRTensor(x.indptr, x.indices, _F().div(x.values, _dense_at(x, y, "csr_div")), x.shape)


def csr_mv(csr_tensor: _sp.CSRTensor, dense: Tensor) -> Tensor:
    """``csr_mv(csr_tensor, dense)``: the [M, 1] product of an [M, K] CSRTensor and a [K, 1] (or [K])
    dense vector."""
    op = "csr_mv"
    _need(csr_tensor, _sp.CSRTensor, op, "csr_tensor")
    if not isinstance(dense, Tensor):
        raise TypeError(f"{op}: `dense` must be a Tensor, got {type(dense).__name__}")
    m, k = csr_tensor.shape
    if tuple(dense.shape) not in ((k, 1), (k,)):
        raise ValueError(f"{op}: `dense` must be [{k}, 1] for a {csr_tensor.shape} matrix, got {tuple(dense.shape)}")
    F = _F()
    vec = F.reshape(dense, (k,))
    prod = F.mul(csr_tensor.values, F.gather(vec, csr_tensor.indices, 0))
    rows = Tensor(csr_tensor._rows().astype(np.int32))
    return F.reshape(F.unsorted_segment_sum(prod, rows, m), (m, 1))


def csr_mm(a: _sp.CSRTensor, b: _sp.CSRTensor, trans_a: bool = False, trans_b: bool = False, adjoint_a: bool = False,
           adjoint_b: bool = False) -> _sp.CSRTensor:
    """``csr_mm(a, b, trans_a=False, trans_b=False, adjoint_a=False, adjoint_b=False)``: the CSR
    product of two CSRTensors (transposes on request; real dtypes, so adjoint = transpose), with the
    structure of the product's nonzeros (explicit zeros from cancellation are dropped)."""
    op = "csr_mm"
    _need(a, _sp.CSRTensor, op, "a")
    _need(b, _sp.CSRTensor, op, "b")
    F = _F()
    da, db = a.to_dense(), b.to_dense()
    if trans_a or adjoint_a:
        da = F.transpose(da, (1, 0))
    if trans_b or adjoint_b:
        db = F.transpose(db, (1, 0))
    if da.shape[1] != db.shape[0]:
        raise ValueError(f"{op}: inner sizes differ: {tuple(da.shape)} @ {tuple(db.shape)}")
    return dense_to_sparse_csr(F.matmul(da, db))


def csr_reduce_sum(csr_tensor: _sp.CSRTensor, axis: int) -> Tensor:
    """``csr_reduce_sum(csr_tensor, axis)``: the sum along `axis` as a dense tensor with that axis
    kept (size 1), as MindSpore's CSRReduceSum."""
    op = "csr_reduce_sum"
    _need(csr_tensor, _sp.CSRTensor, op, "csr_tensor")
    if not isinstance(axis, (int, np.integer)) or not -2 <= axis < 2:
        raise ValueError(f"{op}: `axis` must be an int in [-2, 2), got {axis!r}")
    F = _F()
    m, k = csr_tensor.shape
    if axis % 2 == 1:
        rows = Tensor(csr_tensor._rows().astype(np.int32))
        return F.reshape(F.unsorted_segment_sum(csr_tensor.values, rows, m), (m, 1))
    return F.reshape(F.unsorted_segment_sum(csr_tensor.values, F.cast(csr_tensor.indices, _i32()), k), (1, k))


def _i32() -> Any:
    from ..common import dtype as mstype

    return mstype.int32


def csr_softmax(logits: _sp.CSRTensor, dtype: Any) -> _sp.CSRTensor:
    """``csr_softmax(logits, dtype)``: the softmax of each row over its stored entries (absent
    entries are -inf, not 0), as a CSRTensor of `dtype` values with the same structure."""
    op = "csr_softmax"
    _need(logits, _sp.CSRTensor, op, "logits")
    F = _F()
    m = logits.shape[0]
    v = F.cast(logits.values, dtype)
    rows = Tensor(logits._rows().astype(np.int32))
    mx = F.gather(F.unsorted_segment_max(F.stop_gradient(v), rows, m), rows, 0)
    e = F.exp(F.sub(v, mx))
    s = F.gather(F.unsorted_segment_sum(e, rows, m), rows, 0)
    return _sp.CSRTensor(logits.indptr, logits.indices, F.div(e, s), logits.shape)


def csr_to_coo(tensor: _sp.CSRTensor) -> _sp.COOTensor:
    """``csr_to_coo(tensor)``: the same entries as a COOTensor."""
    _need(tensor, _sp.CSRTensor, "csr_to_coo", "tensor")
    return _sp.CSRTensor.to_coo(tensor)  # called through the class: the op catalogue follows it


def csr_to_dense(csr_tensor: _sp.CSRTensor) -> Tensor:
    """``csr_to_dense(csr_tensor)``: the dense matrix."""
    _need(csr_tensor, _sp.CSRTensor, "csr_to_dense", "csr_tensor")
    return _sp.CSRTensor.to_dense(csr_tensor)  # called through the class: the op catalogue follows it


def dense_to_sparse_coo(tensor: Tensor) -> _sp.COOTensor:
    """``dense_to_sparse_coo(tensor)``: the nonzero entries (row-major order, int64 indices) as a
    COOTensor; differentiable w.r.t. `tensor` at those entries."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"dense_to_sparse_coo: `tensor` must be a Tensor, got {type(tensor).__name__}")
    idx = np.argwhere(tensor.asnumpy() != 0).astype(np.int64)
    if tensor.ndim == 0:
        raise ValueError("dense_to_sparse_coo: `tensor` must have rank >= 1")
    vals = _F().gather_nd(tensor, Tensor(idx)) if len(idx) else Tensor(np.zeros(0, tensor.dtype.np))
    return _sp.COOTensor(Tensor(idx), vals, tuple(tensor.shape))


def dense_to_sparse_csr(tensor: Tensor) -> _sp.CSRTensor:
    """``dense_to_sparse_csr(tensor)``: a 2-D tensor's nonzero entries as a CSRTensor (int64)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"dense_to_sparse_csr: `tensor` must be a Tensor, got {type(tensor).__name__}")
    if tensor.ndim != 2:
        raise ValueError(f"dense_to_sparse_csr: `tensor` must be 2-D, got shape {tuple(tensor.shape)}")
    coo = dense_to_sparse_coo(tensor)
    rows = coo.indices.asnumpy()[:, 0]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=tensor.shape[0]))]).astype(np.int64)
    return _sp.CSRTensor(Tensor(indptr), Tensor(coo.indices.asnumpy()[:, 1].copy()), coo.values, tuple(tensor.shape))


def make_sparse_tensor(indices: Tensor, values: Tensor, dense_shape: Any) -> _sp.COOTensor:
    """``make_sparse_tensor(indices, values, dense_shape)``: a COOTensor (MindSpore's older name)."""
    return _sp.COOTensor(indices, values, dense_shape)
