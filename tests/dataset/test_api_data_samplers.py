"""PKSampler, IterSampler and BuiltinSampler."""

from __future__ import annotations

import numpy as np
import pytest

import spore.dataset as ds
from spore.dataset import DatasetError


def _data(labels, sampler):
    return ds.NumpySlicesDataset({"x": np.arange(len(labels)) * 10, "label": np.asarray(labels)}, sampler=sampler)


def _xs(d):
    return [int(x) for x, _ in d.create_tuple_iterator(output_numpy=True)]


def test_pk_sampler_takes_k_per_class_in_label_order():
    labels = [2, 0, 1, 0, 2, 0, 1]
    d = _data(labels, ds.PKSampler(2))
    assert _xs(d) == [10, 30, 20, 60, 0, 40]
    assert d.get_dataset_size() == 6
    d = _data([5, 5, 7], ds.PKSampler(3))
    assert _xs(d) == [0, 10, 0, 20, 20, 20]  # a short class repeats its rows


def test_pk_sampler_shuffled_keeps_k_per_class():
    labels = np.repeat([0, 1, 2], 5)
    ds.config.set_seed(1)
    d = _data(labels, ds.PKSampler(3, shuffle=True))
    got = [(int(x), int(y)) for x, y in d.create_tuple_iterator(output_numpy=True)]
    assert sorted(np.bincount([y for _, y in got]).tolist()) == [3, 3, 3]
    assert all(labels[x // 10] == y for x, y in got)
    assert len({x for x, _ in got}) == 9


def test_pk_sampler_errors():
    with pytest.raises(DatasetError, match="no column 'cls'"):
        _data([0, 1], ds.PKSampler(1, class_column="cls"))
    with pytest.raises(ValueError, match="num_class is not supported"):
        ds.PKSampler(1, num_class=2)


def test_iter_sampler_and_builtin_base():
    d = _data([0] * 6, ds.IterSampler([5, 1, 3], num_samples=2))
    assert _xs(d) == [50, 10]
    assert issubclass(ds.PKSampler, ds.BuiltinSampler) and issubclass(ds.BuiltinSampler, ds.Sampler)
    with pytest.raises(TypeError, match="iterable"):
        ds.IterSampler(3)
