"""sync_wait / sync_update: a pipeline gated by its training loop."""

from __future__ import annotations

import numpy as np
import pytest

import spore.dataset as ds
from spore.dataset import DatasetError


def test_sync_update_runs_the_callback_between_steps():
    state = {"scale": 1}
    seen = []

    def update(data):
        state["scale"] = data["scale"]

    d = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False).sync_wait("policy", callback=update)
    d = d.map(lambda x: x * state["scale"])
    for step, (x,) in enumerate(d.create_tuple_iterator(output_numpy=True, num_epochs=1)):
        seen.append(int(x))
        d.sync_update("policy", data={"scale": 10 ** (step + 1)})
    assert seen == [0, 10, 200, 3000]
    assert isinstance(d.children[0], ds.SyncWaitDataset)


def test_missing_update_times_out_and_bad_names():
    d = ds.NumpySlicesDataset({"x": np.arange(3)}, shuffle=False).sync_wait("c", num_batch=2)
    d.timeout = 0.01  # the node's wait limit (seconds)
    it = d.create_tuple_iterator(output_numpy=True, num_epochs=1)
    next(it)
    next(it)
    with pytest.raises(DatasetError, match="condition_name='c'"):
        next(it)
    with pytest.raises(DatasetError, match="no sync_wait"):
        d.sync_update("other")
    with pytest.raises(ValueError, match="num_batch"):
        d.sync_wait("x", num_batch=0)
