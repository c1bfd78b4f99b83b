"""ErrorSamplesMode in map, debug mode, and the validator helpers MindSpore exports."""

from __future__ import annotations

import numpy as np
import pytest

import spore
import spore.dataset as ds
from spore.dataset import DatasetMapError


def _fails_on(bad):
    def op(x):
        if int(x) in bad:
            raise ValueError(f"bad sample {int(x)}")
        return x * 10
    return op


def _run(bad):
    d = ds.NumpySlicesDataset({"x": np.arange(6)}, shuffle=False).map(_fails_on(bad))
    return [int(x) for (x,) in d.create_tuple_iterator(output_numpy=True)]


@pytest.fixture
def restore_mode():
    yield
    ds.config.set_error_samples_mode(ds.ErrorSamplesMode.RETURN)


def test_error_samples_modes(restore_mode):
    assert ds.get_error_samples_mode() == ds.ErrorSamplesMode.RETURN
    with pytest.raises(DatasetMapError, match="bad sample 2"):
        _run({2})
    ds.config.set_error_samples_mode(ds.ErrorSamplesMode.SKIP)
    assert _run({2, 3}) == [0, 10, 40, 50]
    ds.config.set_error_samples_mode(ds.ErrorSamplesMode.REPLACE)
    assert _run({2, 3}) == [0, 10, 10, 10, 40, 50]
    assert _run({0, 1}) == [20, 20, 20, 30, 40, 50]  # failures before the first good sample take it
    with pytest.raises(DatasetMapError, match="bad sample 0"):
        _run(set(range(6)))
    with pytest.raises(ValueError, match="ErrorSamplesMode"):
        ds.config.set_error_samples_mode(7)


def test_debug_mode_sets_seed_one():
    old = spore.get_seed() if hasattr(spore, "get_seed") else None
    ds.config.set_debug_mode(True)
    try:
        assert ds.get_debug_mode() is True and ds.config.get_seed() == 1
    finally:
        ds.config.set_debug_mode(False)
        if old is not None:
            ds.config.set_seed(old)
    assert ds.get_debug_mode() is False
    with pytest.raises(TypeError, match="must hold DebugHook objects"):  # MindSpore: TypeError
        ds.config.set_debug_mode(True, [object()])


def test_helpers():
    assert ds.to_list(None) == [] and ds.to_list((1, 2)) == [1, 2] and ds.to_list("a") == ["a"]
    assert ds.replace_none(None, 3) == 3 and ds.replace_none(0, 3) == 0
    assert isinstance(ds.select_sampler(None, None, False, None, None), ds.SequentialSampler)
    assert isinstance(ds.select_sampler(None, None, None, 2, 1), ds.DistributedSampler)
    with pytest.raises(ValueError, match="select_sampler"):
        ds.select_sampler(None, ds.SequentialSampler(), True, None, None)
    assert ds.Tensor is spore.Tensor
