"""Differential cases (Graph vs PyNative) for the sparse-tensor slice of issue 14: the coo_*/csr_*
functions, the sparse op classes, `Tensor.to_coo`/`to_csr` and the sparse nn Cells.

A sparse tensor is not a Graph-mode construct input, so each case passes the values (and, where
it matters, a dense tensor) as tensor inputs and builds the sparse tensor inside a helper that
Graph mode compiles as user code; the index structure is a module constant. The outcome must be
"identical" or a clear refusal on the helper's line (a COOTensor/CSRTensor built in a construct)."""

from __future__ import annotations

import numpy as np

import spore as ms
from spore import nn, ops

from .cases_ops import K, _classes, _functions
from .cases_tensor_nn import C, G, fl

SHAPE = (3, 4)
COO_IDX = ms.Tensor(np.array([[0, 1], [1, 0], [1, 3], [2, 2]], np.int32))
INDPTR = ms.Tensor(np.array([0, 1, 3, 4], np.int32))
COLS = ms.Tensor(np.array([1, 0, 3, 2], np.int32))
IDX_NP = np.array([[0, 1], [1, 0], [1, 3], [2, 2]], np.int32)


def const(a) -> G:
    a = np.asarray(a)
    return G(lambda r: a.copy())


def vals(lo: float = -2.0, hi: float = 2.0) -> G:
    return fl(4, lo=lo, hi=hi)


def coo_apply(op, v):
    x = ms.COOTensor(COO_IDX, v, SHAPE)
    return op(x).values


def csr_apply(op, v):
    x = ms.CSRTensor(INDPTR, COLS, v, SHAPE)
    return op(x).values


def coo_pair(v1, v2, thresh):
    out = ops.coo_add(ms.COOTensor(COO_IDX, v1, SHAPE), ms.COOTensor(COO_IDX, v2, SHAPE), thresh)
    return out.to_dense()


def coo_cat(v1, v2):
    a = ms.COOTensor(COO_IDX, v1, SHAPE)
    b = ms.COOTensor(COO_IDX, v2, SHAPE)
    return ops.coo_concat([a, b], 1).to_dense()


def csr_pair(v1, v2, alpha, beta):
    a = ms.CSRTensor(INDPTR, COLS, v1, SHAPE)
    b = ms.CSRTensor(INDPTR, COLS, v2, SHAPE)
    return ops.csr_add(a, b, alpha, beta).to_dense()


def csr_dense_op(op, v, y):
    return op(ms.CSRTensor(INDPTR, COLS, v, SHAPE), y).to_dense()


def csr_vec(v, d):
    return ops.csr_mv(ms.CSRTensor(INDPTR, COLS, v, SHAPE), d)


def csr_prod(v1, v2):
    a = ms.CSRTensor(INDPTR, COLS, v1, SHAPE)
    b = ms.CSRTensor(INDPTR, COLS, v2, SHAPE)
    return ops.csr_mm(a, b, trans_b=True).to_dense()


def csr_sum(v, axis):
    return ops.csr_reduce_sum(ms.CSRTensor(INDPTR, COLS, v, SHAPE), axis)


def csr_smax(v):
    return ops.csr_softmax(ms.CSRTensor(INDPTR, COLS, v, SHAPE), ms.float32).values


def csr_conv(v):
    c = ms.CSRTensor(INDPTR, COLS, v, SHAPE)
    return ops.csr_to_coo(c).values, ops.csr_to_dense(c)


def csr_coo(v):
    c = ops.csr_to_coo(ms.CSRTensor(INDPTR, COLS, v, SHAPE))
    return c.indices, c.values


def to_coo_dense(x):
    return ops.dense_to_sparse_coo(x).values


def to_csr_dense(x):
    return ops.dense_to_sparse_csr(x).to_dense()


def make_st(v):
    return ops.make_sparse_tensor(COO_IDX, v, SHAPE).values


def tensor_to_coo(x):
    return x.to_coo().values


def tensor_to_csr(x):
    return x.to_csr().values


def sparse_dense(v):
    return nn.SparseToDense()(ms.COOTensor(COO_IDX, v, SHAPE))


DUP_IDX = ms.Tensor(np.array([[0, 0], [1, 2], [0, 0]], np.int64))


def sparse_dense_dup(v):
    return nn.SparseToDense()(ms.COOTensor(DUP_IDX, v, (2, 3)))


_UNARY = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp", "expm1", "floor",
          "inv", "isfinite", "isinf", "isnan", "log", "log1p", "neg", "relu", "relu6", "round", "sigmoid", "sin",
          "sinh", "softsign", "sqrt", "square", "tan", "tanh")
_DOMAIN = {"acos": (-0.9, 0.9), "asin": (-0.9, 0.9), "atanh": (-0.9, 0.9), "acosh": (1.1, 3.0), "log": (0.5, 3.0),
           "log1p": (0.5, 3.0), "sqrt": (0.5, 3.0), "inv": (0.5, 3.0)}


@_functions
def _sparse_functions() -> list:
    out = []
    for n in _UNARY:
        lo, hi = _DOMAIN.get(n, (-2.0, 2.0))
        out.append(C(f"ops.coo_{n}[0]", coo_apply, getattr(ops, f"coo_{n}"), vals(lo, hi)))
        out.append(C(f"ops.csr_{n}[0]", csr_apply, getattr(ops, f"csr_{n}"), vals(lo, hi)))
    out += [
        C("ops.coo_add[0]", coo_pair, vals(), vals(), const(np.float32(0.1))),
        C("ops.coo_concat[0]", coo_cat, vals(), vals()),
        C("ops.csr_add[0]", csr_pair, vals(), vals(), const(np.float32(2.0)), const(np.float32(0.5))),
        C("ops.csr_mul[0]", csr_dense_op, ops.csr_mul, vals(), fl(1, 4)),
        C("ops.csr_div[0]", csr_dense_op, ops.csr_div, vals(), fl(3, 4, lo=0.5, hi=2.0)),
        C("ops.csr_mv[0]", csr_vec, vals(), fl(4, 1)),
        C("ops.csr_mm[0]", csr_prod, vals(), vals()),
        C("ops.csr_reduce_sum[0]", csr_sum, vals(), 1),
        C("ops.csr_softmax[0]", csr_smax, vals()),
        C("ops.csr_to_coo[0]", csr_coo, vals()),
        C("ops.csr_to_coo[dense]", csr_conv, vals()),
        C("ops.csr_to_dense[0]", csr_conv, vals()),
        C("ops.dense_to_sparse_coo[0]", to_coo_dense, const(np.array([[0, 1.5, 0], [2.0, 0, -1.0]], np.float32))),
        C("ops.dense_to_sparse_csr[0]", to_csr_dense, const(np.array([[0, 1.5, 0], [2.0, 0, -1.0]], np.float32))),
        C("ops.make_sparse_tensor[0]", make_st, vals()),
    ]
    return out


def _rows() -> G:
    return const(np.array([2, 0], np.int32))


@_classes
def _sparse_classes() -> list:
    idx = const(IDX_NP)
    grad = fl(2, 3)
    pos = (lambda *s: fl(*s, lo=0.2, hi=1.0))
    return [
        K("SparseToDense[0]", ops.SparseToDense(), idx, vals(), SHAPE),
        K("SparseTensorDenseMatmul[0]", ops.SparseTensorDenseMatmul(), idx, vals(), SHAPE, fl(4, 2)),
        K("SparseTensorDenseMatmul[adjoint]", ops.SparseTensorDenseMatmul(True, False), idx, vals(), SHAPE, fl(3, 2)),
        K("SparseTensorDenseAdd[0]", ops.SparseTensorDenseAdd(), idx, vals(), SHAPE, fl(3, 4)),
        K("SparseSlice[0]", ops.SparseSlice(), idx, vals(), const(np.array([3, 4], np.int64)),
          const(np.array([1, 0], np.int64)), const(np.array([2, 3], np.int64))),
        K("SparseApplyAdagrad[0]", ops.SparseApplyAdagrad(0.1), fl(3, 3), pos(3, 3), grad, _rows()),
        K("SparseApplyAdadelta[0]", ops.SparseApplyAdadelta(1e-6), fl(3, 3), pos(3, 3), pos(3, 3), 0.1, 0.9, grad,
          _rows()),
        K("SparseApplyFtrl[0]", ops.SparseApplyFtrl(0.1, 0.01, 0.02, -0.5), fl(3, 3), pos(3, 3), fl(3, 3), grad,
          _rows()),
        K("SparseApplyProximalAdagrad[0]", ops.SparseApplyProximalAdagrad(), fl(3, 3), pos(3, 3), 0.1, 0.01, 0.02,
          grad, _rows()),
        K("SparseApplyRMSProp[0]", ops.SparseApplyRMSProp(0.9, 0.5, 1e-6), fl(3, 3), pos(3, 3), fl(3, 3), 0.1, grad,
          _rows()),
    ]


def api_sparse_tensor_cases() -> list:
    """Tensor.to_coo / Tensor.to_csr."""
    x = const(np.array([[0, 1.5, 0], [2.0, 0, -1.0]], np.float32))
    x3 = const(np.array([[[0, 1], [2, 0]], [[0, 0], [-3, 4]]], np.float32))
    empty = const(np.zeros((2, 3), np.float32))
    return [C("Tensor.to_coo[0]", tensor_to_coo, x), C("Tensor.to_coo[3-D]", tensor_to_coo, x3),
            C("Tensor.to_coo[all zero]", tensor_to_coo, empty),
            C("Tensor.to_csr[0]", tensor_to_csr, x), C("Tensor.to_csr[dense]", tensor_to_csr, fl(3, 4)),
            C("Tensor.to_csr[3-D]", tensor_to_csr, x3, note="an error in both modes: CSR is 2-D")]


def api_sparse_cell_cases() -> list:
    """nn.SparseToDense / nn.SparseTensorDenseMatmul."""
    idx = const(IDX_NP)
    return [C("nn.SparseToDense[0]", sparse_dense, vals()), C("nn.SparseToDense[dup]", sparse_dense_dup, fl(3)),
            C("nn.SparseToDense[not coo]", nn.SparseToDense(), fl(3, 4), note="an error in both modes"),
            C("nn.SparseTensorDenseMatmul[0]", nn.SparseTensorDenseMatmul(), idx, vals(), SHAPE, fl(4, 2)),
            C("nn.SparseTensorDenseMatmul[adjoint]", nn.SparseTensorDenseMatmul(True, True), idx, vals(), SHAPE,
              fl(2, 3)),
            C("nn.SparseTensorDenseMatmul[mismatch]", nn.SparseTensorDenseMatmul(), idx, vals(), SHAPE, fl(3, 2),
              note="an error in both modes")]
