"""DebugHook in a map chain, flatten_single_lists and mstype_to_detype."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
import spore.dataset as ds


class _Recorder(ds.DebugHook):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[int] = []

    def compute(self, *args):
        self.seen.append(int(args[0]))
        return args


class _Doubler(ds.DebugHook):
    def compute(self, *args):
        return tuple(a * 2 for a in args)


def test_debug_hook_sees_data_between_operations():
    hook = _Recorder()
    d = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False)
    d = d.map([lambda x: x + 10, hook, lambda x: x * 3], input_columns="x")
    out = [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)]
    assert hook.seen == [10, 11, 12, 13]  # what the first operation produced
    assert out == [30, 33, 36, 39]  # the hook passed its inputs on unchanged
    d2 = ds.NumpySlicesDataset({"x": np.arange(3)}, shuffle=False).map([_Doubler()], input_columns="x")
    assert [int(r[0]) for r in d2.create_tuple_iterator(output_numpy=True)] == [0, 2, 4]
    assert _Recorder().prev_op_name is None
    with pytest.raises(TypeError, match="abstract"):
        ds.DebugHook()
    with pytest.raises(TypeError, match="prev_op_name must be a str"):
        _Doubler(prev_op_name=3)


def test_flatten_single_lists():
    assert ds.flatten_single_lists([[[3]]]) == [3]
    assert ds.flatten_single_lists([[1, [2]]]) == [1, [2]]
    assert ds.flatten_single_lists([[1], [[2, 3]]]) == [[1], [2, 3]]
    assert ds.flatten_single_lists(5) == 5
    assert ds.flatten_single_lists([]) == []


def test_mstype_to_detype():
    assert ds.mstype_to_detype(ms.int32) == np.dtype(np.int32)
    assert ds.mstype_to_detype(ms.float16) == np.dtype(np.float16)
    assert ds.mstype_to_detype(ms.bool_) == np.dtype(np.bool_)
    with pytest.raises(TypeError, match="mstype_to_detype: type_ must be a MindSpore dtype"):
        ds.mstype_to_detype("int32")


class _Log(ds.DebugHook):
    def __init__(self, log: list) -> None:
        super().__init__()
        self.log = log

    def compute(self, *args):
        self.log.append(int(args[0]))
        return args


def test_debug_mode_runs_the_hooks_around_every_operation():
    log: list[int] = []
    old_seed = ds.config.get_seed()
    d = ds.NumpySlicesDataset({"x": np.array([1, 2])}, shuffle=False)
    d = d.map([lambda x: x + 10, lambda x: x * 2], input_columns="x", num_parallel_workers=2)
    ds.config.set_debug_mode(True, debug_hook_list=[_Log(log)])
    try:
        out = [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)]
    finally:
        ds.config.set_debug_mode(False)
        ds.config.set_seed(old_seed)
    assert out == [22, 24]
    assert log == [1, 11, 22, 2, 12, 24]  # before the first operation, then after each one
    log.clear()
    assert [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)] == [22, 24] and log == []
    with pytest.raises(TypeError, match="debug_hook_list must be a list"):
        ds.config.set_debug_mode(True, _Log(log))


def test_debug_mode_default_hook_logs_shapes(caplog):
    old_seed = ds.config.get_seed()
    d = ds.NumpySlicesDataset({"x": np.zeros((1, 2, 3), np.float32)}, shuffle=False).map(lambda x: x[0],
                                                                                         input_columns="x")
    ds.config.set_debug_mode(True)
    try:
        with caplog.at_level("DEBUG", logger="spore.dataset"):
            out = [r[0].shape for r in d.create_tuple_iterator(output_numpy=True)]
    finally:
        ds.config.set_debug_mode(False)
        ds.config.set_seed(old_seed)
    assert out == [(3,)]
    assert [r.getMessage() for r in caplog.records] == ["map data: float32[2, 3]", "map data: float32[3]"]
