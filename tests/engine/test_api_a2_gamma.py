"""ops.gamma / ops.Gamma (ops/gamma_sampling_ops.py): broadcast shape, float32, reproducible with a
seed, and samples distributed as Gamma(alpha, rate=beta) (Kolmogorov-Smirnov against SciPy)."""

import numpy as np
import pytest
from scipy import stats

import spore as ms
from spore import ops


def T(a):
    return ms.Tensor(np.asarray(a, np.float32))


def test_shape_dtype_and_seed():
    out = ops.gamma((4, 1, 3), T([[1.0], [2.0]]), T([0.5, 1.0, 2.0]), seed=5)
    assert out.shape == (4, 2, 3) and out.dtype == ms.float32
    again = ops.gamma((4, 1, 3), T([[1.0], [2.0]]), T([0.5, 1.0, 2.0]), seed=5)
    np.testing.assert_array_equal(out.asnumpy(), again.asnumpy())
    assert (out.asnumpy() > 0).all()
    assert ops.Gamma(seed=3, seed2=1)((2, 2), T([1.0]), T([1.0])).shape == (2, 2)


@pytest.mark.parametrize("alpha,beta", [(0.7, 1.0), (3.0, 2.5), (5.0, 0.4)])
def test_distribution_matches_scipy(alpha, beta):
    x = ops.gamma((20000,), T([alpha]), T([beta]), seed=11).asnumpy().astype(np.float64)
    ks = stats.kstest(x, stats.gamma(a=alpha, scale=1 / beta).cdf)
    assert ks.pvalue > 1e-3, ks
    assert abs(x.mean() - alpha / beta) < 4 * np.sqrt(alpha) / beta / np.sqrt(x.size)


def test_errors_name_the_op():
    with pytest.raises(TypeError, match="gamma: shape"):
        ops.gamma([2], T([1.0]), T([1.0]))
    with pytest.raises(TypeError, match="gamma: alpha"):
        ops.gamma((2,), 1.0, T([1.0]))
    with pytest.raises(Exception, match="gamma"):
        ops.gamma((2,), T([1.0]), ms.Tensor(np.array([1], np.int32)))
    with pytest.raises(ValueError, match="Gamma: seed"):
        ops.Gamma(seed=-1)
