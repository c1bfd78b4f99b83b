"""affine_grid (against the closed-form grid PyTorch/MindSpore document), Tensor.choose (against
NumPy), Tensor.index_copy_, Tensor.H and get_world_size (issue 14, slice A)."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import ops

r = np.random.default_rng(8)


def T(a):
    return ms.Tensor(np.asarray(a))


@pytest.mark.parametrize("align", [False, True])
def test_affine_grid_2d_and_3d(align):
    theta = r.standard_normal((2, 2, 3))
    n, h, w = 2, 3, 4

    def lin(k):
        return np.linspace(-1, 1, k) if align else (np.arange(k) * 2 + 1) / k - 1

    ys, xs = np.meshgrid(lin(h), lin(w), indexing="ij")
    base = np.stack([xs, ys, np.ones_like(xs)], -1)  # (H, W, 3)
    want = np.einsum("hwk,nik->nhwi", base, theta)
    np.testing.assert_allclose(ops.affine_grid(T(theta), (n, 1, h, w), align).asnumpy(), want, rtol=1e-12)
    np.testing.assert_allclose(ops.AffineGrid(align)(T(theta), (n, 1, h, w)).asnumpy(), want, rtol=1e-12)
    th3 = r.standard_normal((1, 3, 4))
    zs, ys, xs = np.meshgrid(lin(2), lin(3), lin(2), indexing="ij")
    base3 = np.stack([xs, ys, zs, np.ones_like(xs)], -1)
    np.testing.assert_allclose(ops.affine_grid(T(th3), (1, 1, 2, 3, 2), align).asnumpy(),
                               np.einsum("dhwk,nik->ndhwi", base3, th3), rtol=1e-12)
    g = ms.grad(lambda t: ops.affine_grid(t, (n, 1, h, w), align).sum())(T(theta)).asnumpy()
    np.testing.assert_allclose(g, np.broadcast_to(base.reshape(-1, 3).sum(0), (2, 2, 3)), rtol=1e-12)


def test_choose_matches_numpy():
    a = r.integers(0, 3, (3, 4))
    cs = [r.standard_normal((3, 4)) for _ in range(3)]
    np.testing.assert_allclose(T(a).choose([T(c) for c in cs]).asnumpy(), np.choose(a, cs))
    b = r.integers(-2, 6, (3, 4))
    np.testing.assert_allclose(T(b).choose([T(c) for c in cs], "wrap").asnumpy(), np.choose(b, cs, mode="wrap"))
    np.testing.assert_allclose(T(b).choose([T(c) for c in cs]).asnumpy(), np.choose(b, cs, mode="clip"))
    with pytest.raises(ValueError, match="choose"):
        T(b).choose([T(c) for c in cs], "raise")


def test_index_copy_H_world_size():
    x = r.standard_normal((3, 5))
    t = T(x.copy())
    src = r.standard_normal((3, 2))
    t.index_copy_(1, T(np.array([4, 0])), T(src))
    want = x.copy()
    want[:, [4, 0]] = src
    np.testing.assert_allclose(t.asnumpy(), want)
    np.testing.assert_allclose(T(x).H.asnumpy(), x.T)
    with pytest.raises(Exception, match="Tensor.H"):
        T(np.ones(3)).H  # noqa: B018
    assert ops.get_world_size() == 1


def test_eps_is_the_machine_epsilon():
    out = ops.eps(T(np.array([4.0, 1.0, 2.0, 3.0], np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), np.full(4, 1.1920929e-07, np.float32))  # MindSpore's example
    assert ops.Eps()(T(np.zeros(2))).asnumpy()[0] == np.finfo(np.float64).eps
    with pytest.raises(Exception, match="eps"):
        ops.eps(T(np.array([1, 2])))
