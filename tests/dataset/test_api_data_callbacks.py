"""DSCallback and WaitedDSCallback in map."""

from __future__ import annotations

import numpy as np
import pytest

import spore.dataset as ds


class Recorder(ds.DSCallback):
    def __init__(self, step_size=1):
        super().__init__(step_size)
        self.calls = []

    def ds_begin(self, c):
        self.calls.append(("begin", c.cur_epoch_num, c.cur_step_num))

    def ds_epoch_begin(self, c):
        self.calls.append(("epoch_begin", c.cur_epoch_num))

    def ds_epoch_end(self, c):
        self.calls.append(("epoch_end", c.cur_epoch_num, c.cur_step_num_in_epoch))

    def ds_step_begin(self, c):
        self.calls.append(("step_begin", c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num))

    def ds_step_end(self, c):
        self.calls.append(("step_end", c.cur_step_num))


def test_ds_callback_order_and_counters():
    cb = Recorder(step_size=2)
    d = ds.NumpySlicesDataset({"x": np.arange(3)}, shuffle=False).map(lambda x: x + 1, callbacks=[cb])
    got = [int(x) for _ in range(2) for (x,) in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    assert got == [1, 2, 3, 1, 2, 3]
    assert cb.calls[:7] == [("begin", 1, 0), ("epoch_begin", 1), ("step_begin", 1, 1, 1), ("step_end", 1),
                            ("step_begin", 1, 3, 3), ("step_end", 3), ("epoch_end", 1, 3)]
    assert cb.calls[7:9] == [("epoch_begin", 2), ("step_begin", 2, 2, 5)]
    with pytest.raises(TypeError, match="DSCallback"):
        d.map(lambda x: x, callbacks=[object()])
    with pytest.raises(ValueError, match="step_size"):
        ds.DSCallback(0)


def test_waited_callback_sees_the_previous_training_step():
    seen = []

    class Hook(ds.WaitedDSCallback):
        def sync_step_begin(self, train_run_context, ds_run_context):
            seen.append((train_run_context, ds_run_context.cur_step_num))

    hook = Hook()
    d = ds.NumpySlicesDataset({"x": np.arange(3)}, shuffle=False).map(lambda x: x, callbacks=hook)
    for step, _ in enumerate(d.create_tuple_iterator(output_numpy=True, num_epochs=1), 1):
        hook.step_end(f"train step {step}")  # what Model.train's callback list does after each step
    assert seen == [(None, 1), ("train step 1", 2), ("train step 2", 3)]
    assert isinstance(hook, ds.DSCallback)


def test_waited_callback_times_out_with_a_warning():
    ds.config.set_callback_timeout(1)
    try:
        assert ds.get_callback_timeout() == 1
        hook = ds.WaitedDSCallback()
        d = ds.NumpySlicesDataset({"x": np.arange(2)}, shuffle=False).map(lambda x: x, callbacks=hook)
        with pytest.warns(RuntimeWarning, match="did not end within 1 s"):
            rows = list(d.create_tuple_iterator(output_numpy=True, num_epochs=1))  # no training step_end calls
        assert len(rows) == 2
    finally:
        ds.config.set_callback_timeout(60)
    with pytest.raises(ValueError, match="positive int"):
        ds.config.set_callback_timeout(0)
