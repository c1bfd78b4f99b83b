"""Decompositions and solvers of linalg_decompositions against NumPy/SciPy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import linalg as sla

import spore as ms
from spore import ops
from spore.errors import ShapeError

R = np.random.default_rng(4414)


def T(a, dt=None):
    return ms.Tensor(np.asarray(a, dt))


def close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(got.asnumpy(), want, rtol=rtol, atol=atol)


def test_svd_qr_reconstruct():
    a = R.standard_normal((2, 4, 3))
    s, u, v = ops.svd(T(a))
    close(s, np.linalg.svd(a, compute_uv=False))
    close(ms.Tensor(u.asnumpy() * s.asnumpy()[..., None, :] @ np.swapaxes(v.asnumpy(), -1, -2)), a)
    assert ops.svd(T(a), full_matrices=True)[1].shape == (2, 4, 4)
    close(ops.Svd(compute_uv=False)(T(a)), np.linalg.svd(a, compute_uv=False))
    q, r = ops.qr(T(a))
    close(ms.Tensor(q.asnumpy() @ r.asnumpy()), a)
    np.testing.assert_allclose(np.swapaxes(q.asnumpy(), -1, -2) @ q.asnumpy(), np.broadcast_to(np.eye(3), (2, 3, 3)),
                               atol=1e-10)
    assert np.allclose(np.tril(r.asnumpy()[0], -1), 0)
    assert ops.Qr(full_matrices=True)(T(a))[0].shape == (2, 4, 4)
    assert T(a[0]).qr(False)[0].shape == (4, 4)
    with pytest.raises(ShapeError, match="Svd"):
        ops.svd(T(np.ones(3)))


def test_pinv_lstsq():
    a = R.standard_normal((5, 3))
    close(ops.pinv(T(a)), np.linalg.pinv(a))
    low_rank = a @ np.diag([1.0, 1.0, 0.0]) @ R.standard_normal((3, 3))
    close(ops.pinv(T(low_rank)), np.linalg.pinv(low_rank), atol=1e-8)
    b = R.standard_normal((5, 2))
    close(ops.lstsq(T(a), T(b)), np.linalg.lstsq(a, b, rcond=None)[0])
    close(T(a).lstsq(T(b)), np.linalg.lstsq(a, b, rcond=None)[0])
    lam = 0.3
    want = np.linalg.solve(a.T @ a + lam * np.eye(3), a.T @ b)
    close(ops.Lstsq(l2_regularizer=lam)(T(a), T(b)), want)


def test_matrix_exp_and_triangular():
    a = R.standard_normal((2, 3, 3)) * 2
    close(ops.matrix_exp(T(a)), np.stack([sla.expm(m) for m in a]), rtol=1e-9)
    close(ops.MatrixExp()(T(a[0])), sla.expm(a[0]), rtol=1e-9)
    g = ms.grad(lambda m: ops.reduce_sum(ops.matrix_exp(m)))(T(a[0] * 0.3))
    h, fd = 1e-6, np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            e = np.zeros((3, 3))
            e[i, j] = h
            fd[i, j] = (sla.expm(a[0] * 0.3 + e).sum() - sla.expm(a[0] * 0.3 - e).sum()) / (2 * h)
    close(g, fd, rtol=1e-5)
    m = R.standard_normal((3, 3)) + 3 * np.eye(3)
    b = R.standard_normal((3, 2))
    x, same = T(b).triangular_solve(T(m))
    close(x, sla.solve_triangular(m, b, lower=False))
    close(same, m)
    close(T(b).triangular_solve(T(m), upper=False, transpose=True, unitriangular=True)[0],
          sla.solve_triangular(m, b, lower=True, trans=1, unit_diagonal=True))
    close(ops.MatrixTriangularSolve()(T(m), T(b)), sla.solve_triangular(m, b, lower=True))


def test_lu_unpack_and_solve():
    a = R.standard_normal((4, 4))
    lu, piv = sla.lu_factor(a)
    p, low, up = ops.lu_unpack(T(lu), T((piv + 1).astype(np.int32)))
    close(ms.Tensor(p.asnumpy() @ low.asnumpy() @ up.asnumpy()), a)
    b = R.standard_normal((4, 2))
    close(ops.lu_solve(T(b), T(lu), T((piv + 1).astype(np.int32))), np.linalg.solve(a, b))
    close(ops.LuSolve()(T(b), T(lu), T((piv + 1).astype(np.int32))), np.linalg.solve(a, b))
    wp, wl, wu = sla.lu(a)
    close(ops.LuUnpack()(T(lu), T((piv + 1).astype(np.int32)))[0], wp)


def test_diagonals_and_pdist():
    d = R.standard_normal((2, 3))
    close(ops.matrix_diag(T(d)), np.stack([np.diag(r) for r in d]))
    close(ops.matrix_diag(T(d), 1), np.stack([np.diag(r, 1) for r in d]))
    want = np.full((2, 5, 4), 9.0)
    for b in range(2):
        for i in range(3):
            want[b, i + 1, i] = d[b, i]
    want[:, np.arange(5)[:, None] - np.arange(4)[None] != 1] = 9.0
    close(ops.matrix_diag(T(d), -1, 5, 4, 9.0), want)
    x = R.standard_normal((2, 4, 5))
    close(ops.matrix_diag_part(T(x), 1, 0), np.diagonal(x, 1, -2, -1))
    close(ops.matrix_diag_part(T(x), -2, 0), np.diagonal(x, -2, -2, -1))
    newd = R.standard_normal((2, 4))
    want = x.copy()
    for b in range(2):
        want[b, np.arange(4), np.arange(4) + 1] = newd[b]
    close(ops.matrix_set_diag(T(x), T(newd), 1), want)
    pts = R.standard_normal((5, 3))
    from scipy.spatial.distance import pdist as sp_pdist

    close(ops.pdist(T(pts)), sp_pdist(pts))
    close(ops.Pdist(p=1.0)(T(pts)), sp_pdist(pts, "minkowski", p=1))
    close(ops.pdist(T(pts), 3.0), sp_pdist(pts, "minkowski", p=3))
    m = R.standard_normal((2, 3, 4))
    close(ops.NuclearNorm()(T(m)), np.linalg.norm(m, "nuc", axis=(-2, -1)), rtol=1e-5)
