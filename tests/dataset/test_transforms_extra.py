"""The dataset.transforms added for issue 14 against NumPy, directly and inside a pipeline."""

from __future__ import annotations

import numpy as np
import pytest

import spore.dataset as ds
import spore.dataset.transforms as T


def test_fill_slice_padend_concatenate():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    got = T.Fill(7)(x)
    assert got.dtype == np.int32 and (got == 7).all() and got.shape == x.shape
    np.testing.assert_array_equal(T.Slice(slice(0, 2), [1, 3])(x), x[0:2][:, [1, 3]])
    np.testing.assert_array_equal(T.Slice(1)(x), x[[1]])
    np.testing.assert_array_equal(T.Slice(None, slice(None, None, 2))(x), x[:, ::2])
    np.testing.assert_array_equal(T.PadEnd([4, 6], -1)(x), np.pad(x, ((0, 1), (0, 2)), constant_values=-1))
    np.testing.assert_array_equal(T.PadEnd([None, 5])(x), np.pad(x, ((0, 0), (0, 1))))
    words = np.array(["a", "b"])
    assert T.PadEnd([3])(words).tolist() == ["a", "b", ""]
    with pytest.raises(ValueError, match="smaller"):
        T.PadEnd([2, 2])(x)
    v = np.array([3, 4])
    np.testing.assert_array_equal(T.Concatenate(0, np.array([1, 2]), np.array([5]))(v), [1, 2, 3, 4, 5])


def test_mask_unique_random_order_not_random():
    x = np.array([1, 5, 3, 5])
    np.testing.assert_array_equal(T.Mask(T.Relational.GE, 3)(x), x >= 3)
    assert T.Mask(T.Relational.EQ, 5, np.int32)(x).dtype == np.int32
    values, idx, counts = T.Unique()(np.array([5, 2, 5, 9, 2, 5]))
    assert values.tolist() == [5, 2, 9] and idx.tolist() == [0, 1, 0, 2, 1, 0] and counts.tolist() == [3, 2, 1]

    def add1(a):
        return a + 1

    def times2(a):
        return a * 2

    data = ds.NumpySlicesDataset({"v": np.arange(6)}, shuffle=False)

    def run():
        ds.config.set_seed(11)
        return [int(r[0]) for r in data.map(T.RandomOrder([add1, times2]), "v").create_tuple_iterator(
            output_numpy=True)]

    out = run()
    assert out == run()  # reproducible under set_seed
    assert all(o in ((i + 1) * 2, i * 2 + 1) for i, o in enumerate(out))
    assert len({o - 2 * i for i, o in enumerate(out)}) == 2  # both orders were drawn
    assert T.not_random(add1) is add1 and add1.random is False
    with pytest.raises(AttributeError, match="MindData C\\+\\+ plugin"):
        T.Plugin  # noqa: B018
