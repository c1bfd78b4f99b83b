"""Sparse tensors (issue 14): COOTensor/CSRTensor/RowTensor/SparseTensor, the coo_*/csr_* ops, the
sparse op classes and nn cells, against dense NumPy and scipy.sparse oracles; gradients through
`values` against the dense computation's gradient at the nonzeros."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import spore as ms
from spore import nn, ops
from spore.errors import GraphCompileError

RNG = np.random.default_rng(7)


def _dense(m: int = 4, k: int = 5, density: float = 0.4) -> np.ndarray:
    a = RNG.standard_normal((m, k)).astype(np.float32)
    a[RNG.random((m, k)) > density] = 0
    a[0, 0] = 0.5  # at least one nonzero
    return a


def _csr(a: np.ndarray) -> ms.CSRTensor:
    s = sp.csr_matrix(a)
    return ms.CSRTensor(ms.Tensor(s.indptr.astype(np.int32)), ms.Tensor(s.indices.astype(np.int32)),
                        ms.Tensor(s.data.astype(np.float32)), a.shape)


def _coo(a: np.ndarray) -> ms.COOTensor:
    idx = np.argwhere(a != 0)
    return ms.COOTensor(ms.Tensor(idx.astype(np.int32)), ms.Tensor(a[a != 0]), a.shape)


# --- construction, attributes, conversion ------------------------------------------------------------
def test_coo_attributes_and_to_dense_sum_duplicates():
    idx = ms.Tensor(np.array([[0, 1], [1, 2], [0, 1]], np.int32))
    vals = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    c = ms.COOTensor(idx, vals, (2, 4))
    assert c.shape == (2, 4) and c.dtype == ms.float32 and c.size == 3 and c.ndim == 2 and c.itemsize == 4
    want = sp.coo_matrix(([1.0, 2.0, 3.0], ([0, 1, 0], [1, 2, 1])), shape=(2, 4)).toarray()
    np.testing.assert_allclose(c.to_dense().asnumpy(), want)
    np.testing.assert_allclose(ms.COOTensor(coo_tensor=c).to_dense().asnumpy(), want)
    np.testing.assert_allclose(c.coalesce().values.asnumpy(), [4.0, 2.0])
    np.testing.assert_allclose(c.to_csr().to_dense().asnumpy(), want)
    assert c.astype(ms.float64).dtype == ms.float64


def test_csr_matches_scipy_and_converts():
    a = _dense()
    c = _csr(a)
    np.testing.assert_allclose(c.to_dense().asnumpy(), a)
    np.testing.assert_allclose(ops.csr_to_dense(c).asnumpy(), a)
    coo = ops.csr_to_coo(c)
    s = sp.coo_matrix(a)
    np.testing.assert_array_equal(coo.indices.asnumpy(), np.stack([s.row, s.col], 1))
    np.testing.assert_allclose(coo.to_dense().asnumpy(), a)
    t = ms.Tensor(a)
    tc = t.to_csr()
    np.testing.assert_array_equal(tc.indptr.asnumpy(), sp.csr_matrix(a).indptr)
    np.testing.assert_array_equal(tc.indices.asnumpy(), sp.csr_matrix(a).indices)
    np.testing.assert_allclose(t.to_coo().to_dense().asnumpy(), a)
    np.testing.assert_allclose(ops.dense_to_sparse_coo(t).values.asnumpy(), a[a != 0])
    np.testing.assert_allclose(ops.dense_to_sparse_csr(t).to_dense().asnumpy(), a)
    np.testing.assert_allclose(ms.CSRTensor(csr_tensor=c).abs().to_dense().asnumpy(), np.abs(a))


def test_row_and_sparse_tensor():
    r = ms.RowTensor(ms.Tensor(np.array([2, 0], np.int32)), ms.Tensor(np.ones((2, 3), np.float32)), (4, 3))
    want = np.zeros((4, 3), np.float32)
    want[[2, 0]] = 1
    np.testing.assert_allclose(r.to_dense().asnumpy(), want)
    assert r.dense_shape == (4, 3)
    s = ops.make_sparse_tensor(ms.Tensor(np.array([[1, 1]], np.int64)), ms.Tensor(np.array([5.0], np.float32)), (2, 2))
    np.testing.assert_allclose(s.to_dense().asnumpy(), [[0, 0], [0, 5]])
    st = ms.SparseTensor(ms.Tensor(np.array([[0, 1]], np.int64)), ms.Tensor(np.array([2.0], np.float32)), (2, 2))
    assert st.shape == (2, 2)
    np.testing.assert_allclose(st.to_dense().asnumpy(), [[0, 2], [0, 0]])


@pytest.mark.parametrize("build, msg", [
    (lambda: ms.COOTensor(ms.Tensor(np.array([[0, 5]], np.int32)), ms.Tensor(np.ones(1, np.float32)), (2, 3)),
     "out of range"),
    (lambda: ms.COOTensor(ms.Tensor(np.array([[0.0, 1.0]], np.float32)), ms.Tensor(np.ones(1, np.float32)), (2, 3)),
     "int"),
    (lambda: ms.COOTensor(ms.Tensor(np.array([[0, 1]], np.int32)), ms.Tensor(np.ones(2, np.float32)), (2, 3)),
     "values"),
    (lambda: ms.CSRTensor(ms.Tensor(np.array([0, 2, 1], np.int32)), ms.Tensor(np.array([0], np.int32)),
                          ms.Tensor(np.ones(1, np.float32)), (2, 3)), "non-decreasing"),
    (lambda: ms.CSRTensor(ms.Tensor(np.array([0, 1], np.int32)), ms.Tensor(np.array([0], np.int32)),
                          ms.Tensor(np.ones(1, np.float32)), (2, 3)), "rows \\+ 1"),
    (lambda: ms.CSRTensor(ms.Tensor(np.array([0, 0, 1], np.int32)), ms.Tensor(np.array([3], np.int32)),
                          ms.Tensor(np.ones(1, np.float32)), (2, 3)), "out of range"),
    (lambda: ms.RowTensor(ms.Tensor(np.array([4], np.int32)), ms.Tensor(np.ones((1, 2), np.float32)), (4, 2)),
     "out of range"),
])
def test_bad_input_names_the_class(build, msg):
    with pytest.raises((ValueError, TypeError), match=msg) as e:
        build()
    assert "Tensor" in str(e.value)


def test_operators():
    a, b = _dense(), _dense()
    y = RNG.uniform(0.5, 2.0, (4, 5)).astype(np.float32)
    ca, cb = _coo(a), _coo(b)
    np.testing.assert_allclose((ca + cb).to_dense().asnumpy(), a + b, rtol=1e-6)
    np.testing.assert_allclose((ca - cb).to_dense().asnumpy(), a - b, rtol=1e-6)
    np.testing.assert_allclose((ca + ms.Tensor(y)).asnumpy(), a + y, rtol=1e-6)
    np.testing.assert_allclose((ca * ms.Tensor(y)).to_dense().asnumpy(), a * y, rtol=1e-6)
    np.testing.assert_allclose((ca / 2.0).to_dense().asnumpy(), a / 2, rtol=1e-6)
    np.testing.assert_allclose((-ca).to_dense().asnumpy(), -a)
    ra, rb = _csr(a), _csr(b)
    np.testing.assert_allclose((ra + rb).to_dense().asnumpy(), a + b, rtol=1e-6)
    np.testing.assert_allclose((ra - rb).to_dense().asnumpy(), a - b, rtol=1e-6)
    np.testing.assert_allclose((ra * ms.Tensor(y)).to_dense().asnumpy(), a * y, rtol=1e-6)
    np.testing.assert_allclose((ra / ms.Tensor(y)).to_dense().asnumpy(), a / y, rtol=1e-6)
    np.testing.assert_allclose((-ra).to_dense().asnumpy(), -a)
    with pytest.raises(TypeError, match="CSRTensor"):
        ra + ms.Tensor(y)


# --- elementwise ------------------------------------------------------------------------------------
UNARY = {"abs": np.abs, "acos": np.arccos, "asin": np.arcsin, "asinh": np.arcsinh, "atan": np.arctan,
         "atanh": np.arctanh, "ceil": np.ceil, "cos": np.cos, "cosh": np.cosh, "exp": np.exp, "expm1": np.expm1,
         "floor": np.floor, "inv": lambda v: 1 / v, "isfinite": np.isfinite, "isinf": np.isinf, "isnan": np.isnan,
         "neg": np.negative, "relu": lambda v: np.maximum(v, 0), "relu6": lambda v: np.clip(v, 0, 6),
         "round": np.round, "sigmoid": lambda v: 1 / (1 + np.exp(-v)), "sin": np.sin, "sinh": np.sinh,
         "softsign": lambda v: v / (1 + np.abs(v)), "square": np.square, "tan": np.tan, "tanh": np.tanh}
POSITIVE = {"acosh": np.arccosh, "log": np.log, "log1p": np.log1p, "sqrt": np.sqrt}


@pytest.mark.parametrize("name", sorted(UNARY) + sorted(POSITIVE))
def test_unary_coo_and_csr_apply_to_values(name):
    ref = UNARY.get(name) or POSITIVE[name]
    b = _dense()
    n = int((b != 0).sum())
    lo, hi = (1.1, 3.0) if name in POSITIVE else (-0.9, 0.9) if name in ("acos", "asin", "atanh") else (-3.0, 3.0)
    b[b != 0] = RNG.uniform(lo, hi, n).astype(np.float32)
    coo, csr = _coo(b), _csr(b)
    want = ref(coo.values.asnumpy())
    got_coo = getattr(ops, f"coo_{name}")(coo)
    got_csr = getattr(ops, f"csr_{name}")(csr)
    np.testing.assert_allclose(got_coo.values.asnumpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got_coo.indices.asnumpy(), coo.indices.asnumpy())
    np.testing.assert_allclose(got_csr.values.asnumpy(), ref(csr.values.asnumpy()), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got_csr.indptr.asnumpy(), csr.indptr.asnumpy())
    with pytest.raises(TypeError, match=f"coo_{name}"):
        getattr(ops, f"coo_{name}")(csr)


# --- binary, products, reductions -------------------------------------------------------------------
def test_coo_add_drops_below_thresh():
    a, b = _dense(), _dense()
    b[0, 0] = -0.5  # cancels a[0, 0]
    out = ops.coo_add(_coo(a), _coo(b), ms.Tensor(np.float32(1e-6)))
    want = a + b
    np.testing.assert_allclose(out.to_dense().asnumpy(), want, rtol=1e-6)
    assert out.values.shape[0] == int((np.abs(want) >= 1e-6).sum())
    big = ops.coo_add(_coo(a), _coo(b), ms.Tensor(np.float32(1.0)))
    np.testing.assert_allclose(big.to_dense().asnumpy(), np.where(np.abs(want) >= 1.0, want, 0), rtol=1e-6)


def test_coo_concat():
    a, b = _dense(2, 3), _dense(3, 3)
    out = ops.coo_concat([_coo(a), _coo(b)], 0)
    np.testing.assert_allclose(out.to_dense().asnumpy(), np.concatenate([a, b]))
    c = _dense(2, 4)
    np.testing.assert_allclose(ops.coo_concat((_coo(a), _coo(c)), 1).to_dense().asnumpy(), np.concatenate([a, c], 1))
    with pytest.raises(ValueError, match="coo_concat"):
        ops.coo_concat([_coo(a), _coo(c)], 0)


def test_csr_add_mul_div():
    a, b = _dense(), _dense()
    out = ops.csr_add(_csr(a), _csr(b), ms.Tensor(np.float32(2.0)), ms.Tensor(np.float32(-0.5)))
    want = sp.csr_matrix(2.0 * sp.csr_matrix(a) - 0.5 * sp.csr_matrix(b))
    np.testing.assert_allclose(out.to_dense().asnumpy(), want.toarray(), rtol=1e-6)
    y = RNG.uniform(0.5, 2.0, (1, 5)).astype(np.float32)
    m = ops.csr_mul(_csr(a), ms.Tensor(y))
    np.testing.assert_allclose(m.to_dense().asnumpy(), a * y, rtol=1e-6)
    d = ops.csr_div(_csr(a), ms.Tensor(y))
    np.testing.assert_allclose(d.to_dense().asnumpy(), a / y, rtol=1e-6)
    with pytest.raises(ValueError, match="csr_mul"):
        ops.csr_mul(_csr(a), ms.Tensor(np.ones((3, 2), np.float32)))


def test_csr_mv_mm_sum_softmax():
    a = _dense(4, 5)
    v = RNG.standard_normal((5, 1)).astype(np.float32)
    np.testing.assert_allclose(ops.csr_mv(_csr(a), ms.Tensor(v)).asnumpy(), sp.csr_matrix(a) @ v, rtol=1e-5)
    np.testing.assert_allclose(_csr(a).mv(ms.Tensor(v)).asnumpy(), a @ v, rtol=1e-5)
    d = RNG.standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(_csr(a).mm(ms.Tensor(d)).asnumpy(), a @ d, rtol=1e-5, atol=1e-6)
    b = _dense(5, 3)
    prod = ops.csr_mm(_csr(a), _csr(b))
    np.testing.assert_allclose(prod.to_dense().asnumpy(), (sp.csr_matrix(a) @ sp.csr_matrix(b)).toarray(),
                               rtol=1e-5, atol=1e-6)
    bt = _dense(3, 5)
    np.testing.assert_allclose(ops.csr_mm(_csr(a), _csr(bt), trans_b=True).to_dense().asnumpy(), a @ bt.T,
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ops.csr_reduce_sum(_csr(a), 1).asnumpy(), a.sum(1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(_csr(a).sum(0).asnumpy(), a.sum(0, keepdims=True), rtol=1e-5, atol=1e-6)
    sm = ops.csr_softmax(_csr(a), ms.float32).to_dense().asnumpy()
    for i in range(a.shape[0]):
        nz = a[i] != 0
        if nz.any():
            e = np.exp(a[i, nz] - a[i, nz].max())
            np.testing.assert_allclose(sm[i, nz], e / e.sum(), rtol=1e-5)
        assert (sm[i, ~nz] == 0).all()
    with pytest.raises(ValueError, match="csr_mv"):
        ops.csr_mv(_csr(a), ms.Tensor(np.ones((4, 1), np.float32)))


def test_gradients_flow_through_values():
    a = _dense(4, 5)
    c = _csr(a)
    w = RNG.standard_normal((5, 1)).astype(np.float32)

    def sparse_loss(vals):
        t = ms.CSRTensor(c.indptr, c.indices, vals, c.shape)
        return ops.reduce_sum(ops.square(ops.csr_mv(ops.csr_sin(t), ms.Tensor(w))))

    def dense_loss(x):
        return ops.reduce_sum(ops.square(ops.matmul(ops.sin(x) * ms.Tensor((a != 0).astype(np.float32)),
                                                    ms.Tensor(w))))

    _, g_sp = ops.value_and_grad(sparse_loss)(c.values)
    _, g_dn = ops.value_and_grad(dense_loss)(ms.Tensor(a))
    s = sp.csr_matrix(a)
    rows = np.repeat(np.arange(4), np.diff(s.indptr))
    np.testing.assert_allclose(g_sp.asnumpy(), g_dn.asnumpy()[rows, s.indices], rtol=1e-4, atol=1e-6)

    coo = _coo(a)

    def coo_loss(vals):
        return ops.reduce_sum(ops.square(ms.COOTensor(coo.indices, vals, coo.shape).to_dense()))

    _, g = ops.value_and_grad(coo_loss)(coo.values)
    np.testing.assert_allclose(g.asnumpy(), 2 * coo.values.asnumpy(), rtol=1e-6)


# --- op classes and cells ---------------------------------------------------------------------------
def test_sparse_to_dense_add_matmul_slice():
    a = _dense(4, 5)
    coo = _coo(a)
    idx, vals = coo.indices, coo.values
    np.testing.assert_allclose(ops.SparseToDense()(idx, vals, (4, 5)).asnumpy(), a)
    np.testing.assert_allclose(nn.SparseToDense()(coo).asnumpy(), a)
    x2 = RNG.standard_normal((4, 5)).astype(np.float32)
    np.testing.assert_allclose(ops.SparseTensorDenseAdd()(idx, vals, (4, 5), ms.Tensor(x2)).asnumpy(), a + x2,
                               rtol=1e-6)
    d = RNG.standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(ops.SparseTensorDenseMatmul()(idx, vals, (4, 5), ms.Tensor(d)).asnumpy(), a @ d,
                               rtol=1e-5, atol=1e-6)
    d2 = RNG.standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(nn.SparseTensorDenseMatmul(True, True)(idx, vals, (4, 5), ms.Tensor(d2)).asnumpy(),
                               a.T @ d2.T, rtol=1e-5, atol=1e-6)
    yi, yv, ys = ops.SparseSlice()(idx, vals, ms.Tensor(np.array([4, 5], np.int64)),
                                   ms.Tensor(np.array([1, 1], np.int64)), ms.Tensor(np.array([2, 9], np.int64)))
    np.testing.assert_array_equal(ys.asnumpy(), [2, 4])
    got = ops.SparseToDense()(yi, yv, tuple(ys.asnumpy().tolist())).asnumpy()
    np.testing.assert_allclose(got, a[1:3, 1:5])
    with pytest.raises(ValueError, match="SparseTensorDenseMatmul"):
        ops.SparseTensorDenseMatmul()(idx, vals, (4, 5), ms.Tensor(d2))


def _rows_np(var, slots, grad, indices, rule):
    var, slots = var.copy(), [s.copy() for s in slots]
    for g, i in zip(grad, indices):
        out = rule(var[i], *[s[i] for s in slots], g)
        var[i] = out[0]
        for s, o in zip(slots, out[1:]):
            s[i] = o
    return var, slots


def _params(*arrs):
    return [ms.Parameter(ms.Tensor(a.copy()), name=f"p{i}") for i, a in enumerate(arrs)]


def test_sparse_apply_optimizers_against_numpy():
    var = RNG.standard_normal((5, 3)).astype(np.float32)
    acc = RNG.uniform(0.1, 1.0, (5, 3)).astype(np.float32)
    acc2 = RNG.uniform(0.1, 1.0, (5, 3)).astype(np.float32)
    grad = RNG.standard_normal((3, 3)).astype(np.float32)
    ind = np.array([3, 0, 3], np.int32)  # a repeated row is updated twice, in order
    lr = 0.1

    def check(op, args, rule, n_slots):
        ps = _params(var, acc, acc2)[: 1 + n_slots]
        out = op(*args(ps))
        wv, ws = _rows_np(var, [acc, acc2][:n_slots], grad, ind, rule)
        np.testing.assert_allclose(ps[0].asnumpy(), wv, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(out[0].asnumpy(), wv, rtol=1e-5, atol=1e-6)
        for p, w in zip(ps[1:], ws):
            np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-5, atol=1e-6)

    def adagrad(v, a, g):
        a = a + g * g
        return v - lr * g / np.sqrt(a), a
    check(ops.SparseApplyAdagrad(lr), lambda ps: (*ps, ms.Tensor(grad), ms.Tensor(ind)), adagrad, 1)

    def prox(v, a, g, l1=0.01, l2=0.02):
        a = a + g * g
        p = v - lr * g / np.sqrt(a)
        return np.sign(p) / (1 + lr * l2) * np.maximum(np.abs(p) - lr * l1, 0), a
    check(ops.SparseApplyProximalAdagrad(), lambda ps: (ps[0], ps[1], lr, 0.01, 0.02, ms.Tensor(grad), ms.Tensor(ind)),
          prox, 1)

    rho, eps = 0.9, 1e-6

    def adadelta(v, a, u, g):
        a = rho * a + (1 - rho) * g * g
        up = np.sqrt(u + eps) / np.sqrt(a + eps) * g
        return v - lr * up, a, rho * u + (1 - rho) * up * up
    check(ops.SparseApplyAdadelta(eps), lambda ps: (*ps, lr, rho, ms.Tensor(grad), ms.Tensor(ind)), adadelta, 2)

    mom = 0.5

    def rmsprop(v, s, m, g):
        s = rho * s + (1 - rho) * g * g
        m = mom * m + lr * g / np.sqrt(s + eps)
        return v - m, s, m
    check(ops.SparseApplyRMSProp(rho, mom, eps), lambda ps: (*ps, lr, ms.Tensor(grad), ms.Tensor(ind)), rmsprop, 2)

    l1, l2, pw = 0.01, 0.02, -0.5

    def ftrl(v, a, lin, g):
        a2 = a + g * g
        lin = lin + g - (a2 ** -pw - a ** -pw) / lr * v
        quad = a2 ** -pw / lr + 2 * l2
        v = np.where(np.abs(lin) > l1, (np.sign(lin) * l1 - lin) / quad, 0)
        return v, a2, lin
    check(ops.SparseApplyFtrl(lr, l1, l2, pw), lambda ps: (*ps, ms.Tensor(grad), ms.Tensor(ind)), ftrl, 2)

    with pytest.raises(ValueError, match="SparseApplyAdagrad"):
        ops.SparseApplyAdagrad(lr)(*_params(var, acc), ms.Tensor(grad), ms.Tensor(np.array([0, 9, 1], np.int32)))


def _fd_grad(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    g = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        g.flat[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


@pytest.mark.parametrize("name", ["csr_softmax", "csr_add", "csr_mm", "csr_reduce_sum", "coo_add", "coo_concat",
                                  "SparseTensorDenseMatmul", "SparseSlice"])
def test_value_gradients_match_finite_differences(name):
    a = _dense(3, 4).astype(np.float64)
    s = sp.csr_matrix(a)
    indptr, cols = ms.Tensor(s.indptr.astype(np.int32)), ms.Tensor(s.indices.astype(np.int32))
    idx = ms.Tensor(np.argwhere(a != 0).astype(np.int32))
    w = RNG.standard_normal((3, 4))

    def build(v):
        return ms.CSRTensor(indptr, cols, v, (3, 4))

    def coo(v):
        return ms.COOTensor(idx, v, (3, 4))

    fns = {
        "csr_softmax": lambda v: ops.csr_softmax(build(v), ms.float64).to_dense(),
        "csr_add": lambda v: ops.csr_add(build(v), build(ops.sin(v)), 2.0, 0.5).to_dense(),
        "csr_mm": lambda v: ops.csr_mm(build(v), build(v), trans_b=True).to_dense(),
        "csr_reduce_sum": lambda v: ops.tile(ops.csr_reduce_sum(build(v), 1), (1, 4)),
        "coo_add": lambda v: ops.coo_add(coo(v), coo(ops.square(v)), 0.0).to_dense(),
        "coo_concat": lambda v: ops.coo_concat([coo(v), coo(ops.exp(v))], 1).to_dense()[:, ::2],
        "SparseTensorDenseMatmul": lambda v: ops.SparseTensorDenseMatmul()(idx, v, (3, 4), ms.Tensor(w.T))
        @ ms.Tensor(np.ones((3, 4))),
        "SparseSlice": lambda v: ops.tile(ops.reshape(ops.reduce_sum(ops.SparseSlice()(
            idx, v, (3, 4), (1, 0), (2, 4))[1] ** 2), (1, 1)), (3, 4)),
    }
    fn = fns[name]

    def loss(v):
        out = fn(v)
        return ops.reduce_sum(ops.mul(out, ms.Tensor(w[: out.shape[0], : out.shape[1]])))

    v0 = s.data.copy()
    _, g = ops.value_and_grad(loss)(ms.Tensor(v0))
    want = _fd_grad(lambda x: float(loss(ms.Tensor(x)).asnumpy()), v0)
    np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("level", ["LAX", "STRICT"])
def test_graph_mode_sparse_inputs_and_outputs(level):
    """A COOTensor passed into a Graph-mode construct is read as it is (a new one each call is seen);
    one returned from a construct is refused by the compiler: under LAX the construct then runs as
    Python (the caller gets real values, never the graph's tracers), under STRICT the refusal is a
    GraphCompileError on the caller's line."""
    idx = ms.Tensor(np.array([[0, 1], [1, 0]], np.int32))

    class In(nn.Cell):
        def construct(self, x):
            return ops.coo_abs(x).values

    class Out(nn.Cell):
        def construct(self, v):
            return ms.COOTensor(idx, ops.exp(v), (2, 2))

    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=getattr(ms, level))
    try:
        net_in, net_out = In(), Out()
        for vals in ([1.0, -2.0], [5.0, -7.0]):
            v = ms.Tensor(np.array(vals, np.float32))
            np.testing.assert_allclose(net_in(ms.COOTensor(idx, v, (2, 2))).asnumpy(), np.abs(vals))
            if level == "STRICT":
                with pytest.raises(GraphCompileError, match="returns a COOTensor") as e:
                    net_out(v)
                assert e.value.loc is not None and e.value.loc.file == __file__
                continue
            out = net_out(v)
            assert isinstance(out, ms.COOTensor)
            np.testing.assert_allclose(out.to_dense().asnumpy(), [[0, np.exp(vals[0])], [np.exp(vals[1]), 0]],
                                       rtol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, jit_syntax_level=ms.LAX)


def test_sparse_names_load_first_without_an_import_cycle():
    """`ms.COOTensor` (or `Tensor.to_csr`) as the first thing a fresh process touches."""
    import subprocess
    import sys

    code = ("import numpy as np, spore as ms\n"
            "c = ms.COOTensor(ms.Tensor(np.array([[0, 1]], np.int32)), ms.Tensor(np.array([2.0], np.float32)),"
            " (1, 2))\n"
            "print(c.to_dense().asnumpy().tolist(), ms.Tensor(np.eye(2, dtype=np.float32)).to_csr().indptr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "[[0.0, 2.0]]" in out.stdout and "[0 1 2]" in out.stdout
