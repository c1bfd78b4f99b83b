"""Tensor.select's two MindSpore forms (ops/tensor_select.py) against NumPy indexing and np.where."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import Tensor

R = np.random.default_rng(5)


@pytest.mark.parametrize("dim,index", [(0, 1), (1, -1), (-1, 2), (2, 0)])
def test_select_dim_index_matches_numpy_take(dim, index):
    x = R.standard_normal((3, 4, 5)).astype(np.float32)
    got = Tensor(x).select(dim, index)
    np.testing.assert_array_equal(got.asnumpy(), np.take(x, index, axis=dim))
    np.testing.assert_array_equal(Tensor(x).select(dim=dim, index=index).asnumpy(), np.take(x, index, axis=dim))


def test_select_condition_y_matches_where_and_has_gradient():
    x, y = R.standard_normal((3, 4)), R.standard_normal((3, 4))
    c = x > y
    np.testing.assert_array_equal(Tensor(x).select(Tensor(c), Tensor(y)).asnumpy(), np.where(c, x, y))
    g = ms.grad(lambda t: t.select(1, 2).sum() * 3)(Tensor(x)).asnumpy()
    want = np.zeros_like(x)
    want[:, 2] = 3
    np.testing.assert_array_equal(g, want)


def test_select_errors_name_the_method():
    x = Tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(IndexError, match="Tensor.select: index 3"):
        x.select(1, 3)
    with pytest.raises(ValueError, match="Tensor.select: dim 2"):
        x.select(2, 0)
    with pytest.raises(TypeError, match="Tensor.select"):
        x.select(1)
