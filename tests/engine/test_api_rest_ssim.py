"""nn.SSIM / nn.MSSSIM against a NumPy oracle that slides the Gaussian window explicitly (loops
over every valid position), and a finite-difference check of SSIM's gradient (issue 14, rest slice)."""

import numpy as np
import pytest

import spore as ms
from spore import nn


def _window(size, sigma):
    x = np.arange(size) - (size - 1) / 2.0
    g = np.exp(-x ** 2 / (2 * sigma ** 2))
    w = np.outer(g, g)
    return w / w.sum()


def _ref_ssim_cs(a, b, size, sigma, c1, c2):
    """(N, C) mean SSIM and cs, by explicit windows."""
    w = _window(size, sigma)
    n, c, h, wd = a.shape
    ssim = np.zeros((n, c))
    cs = np.zeros((n, c))
    for i in range(n):
        for j in range(c):
            vals, csv = [], []
            for y in range(h - size + 1):
                for x in range(wd - size + 1):
                    pa = a[i, j, y:y + size, x:x + size].astype(np.float64)
                    pb = b[i, j, y:y + size, x:x + size].astype(np.float64)
                    m1, m2 = (w * pa).sum(), (w * pb).sum()
                    s1 = (w * pa * pa).sum() - m1 * m1
                    s2 = (w * pb * pb).sum() - m2 * m2
                    s12 = (w * pa * pb).sum() - m1 * m2
                    csv.append((2 * s12 + c2) / (s1 + s2 + c2))
                    vals.append((2 * m1 * m2 + c1) / (m1 * m1 + m2 * m2 + c1) * csv[-1])
            ssim[i, j], cs[i, j] = np.mean(vals), np.mean(csv)
    return ssim, cs


def _pair(shape, seed):
    r = np.random.default_rng(seed)
    a = r.random(shape).astype(np.float32)
    b = np.clip(a + 0.2 * r.standard_normal(shape), 0, 1).astype(np.float32)
    return a, b


@pytest.mark.parametrize("size,sigma,max_val", [(11, 1.5, 1.0), (5, 0.9, 2.0)])
def test_ssim_matches_sliding_window_oracle(size, sigma, max_val):
    a, b = _pair((2, 3, 13, 14), 0)
    a, b = a * max_val, b * max_val
    out = nn.SSIM(max_val=max_val, filter_size=size, filter_sigma=sigma)(ms.Tensor(a), ms.Tensor(b))
    ref, _ = _ref_ssim_cs(a, b, size, sigma, (0.01 * max_val) ** 2, (0.03 * max_val) ** 2)
    np.testing.assert_allclose(out.asnumpy(), ref.mean(axis=1), rtol=1e-4, atol=1e-5)
    same = nn.SSIM(max_val=max_val, filter_size=size, filter_sigma=sigma)(ms.Tensor(a), ms.Tensor(a))
    np.testing.assert_allclose(same.asnumpy(), 1.0, atol=1e-5)


def test_msssim_matches_oracle():
    a, b = _pair((2, 2, 20, 20), 1)
    pf = (0.3, 0.3, 0.4)
    out = nn.MSSSIM(power_factors=pf, filter_size=5, filter_sigma=1.0)(ms.Tensor(a), ms.Tensor(b))
    c1, c2 = 0.01 ** 2, 0.03 ** 2
    prod = np.ones((2, 2))
    x, y = a.astype(np.float64), b.astype(np.float64)
    for i, p in enumerate(pf):
        ssim, cs = _ref_ssim_cs(x, y, 5, 1.0, c1, c2)
        prod *= np.maximum(ssim if i == len(pf) - 1 else cs, 0) ** p
        h, w = x.shape[-2] // 2 * 2, x.shape[-1] // 2 * 2
        x = x[..., :h, :w].reshape(2, 2, h // 2, 2, w // 2, 2).mean(axis=(3, 5))
        y = y[..., :h, :w].reshape(2, 2, h // 2, 2, w // 2, 2).mean(axis=(3, 5))
    np.testing.assert_allclose(out.asnumpy(), prod.mean(axis=1), rtol=1e-4, atol=1e-5)


def test_ssim_gradient_matches_finite_differences():
    a, b = _pair((1, 1, 6, 6), 2)
    net = nn.SSIM(filter_size=3, filter_sigma=1.0)
    g = ms.grad(lambda x: net(x, ms.Tensor(b)).sum())(ms.Tensor(a)).asnumpy()
    eps = 1e-3
    for idx in [(0, 0, 0, 0), (0, 0, 2, 3), (0, 0, 5, 5)]:
        ap, am = a.astype(np.float64).copy(), a.astype(np.float64).copy()
        ap[idx] += eps
        am[idx] -= eps
        f = lambda v: _ref_ssim_cs(v, b, 3, 1.0, 1e-4, 9e-4)[0].mean()  # noqa: E731
        np.testing.assert_allclose(g[idx], (f(ap) - f(am)) / (2 * eps), rtol=2e-2, atol=2e-3)


def test_errors_name_the_cell():
    with pytest.raises(ValueError, match="SSIM: H and W"):
        nn.SSIM()(ms.Tensor(np.zeros((1, 1, 8, 8), np.float32)), ms.Tensor(np.zeros((1, 1, 8, 8), np.float32)))
    with pytest.raises(ValueError, match="SSIM: max_val"):
        nn.SSIM(max_val=0)
    with pytest.raises(TypeError, match="SSIM: k1"):
        nn.SSIM(k1=1)
    with pytest.raises(TypeError, match="MSSSIM: img1 and img2"):
        x = ms.Tensor(np.zeros((1, 1, 200, 200), np.int32))
        nn.MSSSIM()(x, x)
    with pytest.raises(TypeError, match="MSSSIM: power_factors"):
        nn.MSSSIM(power_factors=())
