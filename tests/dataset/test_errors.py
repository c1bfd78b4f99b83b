"""Errors from user code in a pipeline name the column, the sample and the user's own line."""

from __future__ import annotations

import numpy as np
import pytest

import spore
import spore.dataset as ds
import spore.dataset.vision as vision

from . import helpers


def line_of(marker: str, path: str = __file__) -> int:
    with open(path) as f:
        for n, text in enumerate(f, 1):
            if marker in text and "line_of(" not in text:
                return n
    raise AssertionError(marker)


def numbers(n=8):
    return ds.NumpySlicesDataset({"x": np.arange(n), "y": np.arange(n) * 2}, shuffle=False)


def reject_five(x):
    if x == 5:
        raise ValueError("five is right out")  # <- reject_five raises here
    return x


def test_map_error_names_operation_column_sample_and_user_line():
    d = numbers().map(reject_five, input_columns=["x"])
    with pytest.raises(ds.DatasetMapError) as info:
        list(d.create_tuple_iterator())
    err = info.value
    assert isinstance(err, spore.SporeError)
    assert err.columns == ("x",) and err.index == 5 and err.operation == "reject_five"
    assert err.loc.file == __file__ and err.loc.line == line_of("<- reject_five raises here")
    text = str(err)
    assert "sample 5" in text and "['x']" in text and "five is right out" in text
    assert f"{__file__}:{line_of('<- reject_five raises here')}" in text
    assert isinstance(err.__cause__, ValueError)
    assert err.to_dict()["line"] == err.loc.line


def test_map_error_in_a_worker_thread_is_the_same_error():
    d = numbers().map(reject_five, input_columns=["x"], num_parallel_workers=2)
    with pytest.raises(ds.DatasetMapError) as info:
        list(d.create_tuple_iterator())
    assert info.value.index == 5 and info.value.loc.line == line_of("<- reject_five raises here")


def test_map_error_in_a_worker_process_points_into_the_users_module():
    d = numbers().map(helpers.fails_on_five, input_columns="x", num_parallel_workers=2, python_multiprocessing=True)
    with pytest.raises(ds.DatasetMapError) as info:
        list(d.create_tuple_iterator())
    err = info.value
    assert err.index == 5 and err.columns == ("x",)
    assert err.loc.file == helpers.__file__
    assert err.loc.line == line_of('raise ValueError("value five is not allowed")', helpers.__file__)
    assert isinstance(err.__cause__, ValueError)
    assert any("traceback in the worker process" in n for n in err.__cause__.__notes__)


def test_error_raised_inside_numpy_points_at_the_users_call_not_numpy():
    def reshape_badly(x):
        return np.reshape(x, (7,))  # <- numpy raises below this line

    with pytest.raises(ds.DatasetMapError) as info:
        list(numbers().map(reshape_badly, input_columns="x"))
    assert info.value.loc.file == __file__ and info.value.loc.line == line_of("<- numpy raises below")
    assert info.value.index == 0


def test_error_inside_a_spore_transform_points_at_the_map_call_with_the_input_described():
    imgs = ds.NumpySlicesDataset({"image": np.zeros((2, 4, 4, 3), np.uint8)}, shuffle=False)
    d = imgs.map(vision.Normalize([0.5, 0.5], [1, 1]), input_columns="image")  # <- the map call
    with pytest.raises(ds.DatasetMapError) as info:
        list(d)
    err = info.value
    assert err.loc.line == line_of("<- the map call") and err.operation == "Normalize"
    assert "uint8 (4, 4, 3)" in str(err) and "not in code of yours" in err.hint


def test_source_error_points_at_the_users_getitem():
    class Flaky:
        def __getitem__(self, i):
            if i == 2:
                raise IndexError("row two is missing")  # <- Flaky raises
            return (i,)

        def __len__(self):
            return 4

    with pytest.raises(ds.DatasetError, match="reading row 2 raised IndexError: row two is missing") as info:
        list(ds.GeneratorDataset(Flaky(), ["i"], shuffle=False))
    assert info.value.loc.line == line_of("<- Flaky raises")


def test_generator_function_error_points_at_the_generator_line():
    def gen():
        yield (1,)
        raise RuntimeError("generator broke")  # <- gen raises

    with pytest.raises(ds.DatasetError, match="generator broke.*row 1") as info:
        list(ds.GeneratorDataset(gen, ["a"]))
    assert info.value.loc.line == line_of("<- gen raises")


def test_filter_and_per_batch_map_errors_are_located_too():
    def pred(x):
        return {}[int(x)]  # <- pred raises

    with pytest.raises(ds.DatasetMapError) as info:
        list(numbers().filter(pred, input_columns=["x"]))
    assert info.value.loc.line == line_of("<- pred raises") and info.value.index == 0

    def per_batch(xs, info_):
        raise KeyError("no padding")  # <- per_batch raises

    with pytest.raises(ds.DatasetMapError, match="batch 0") as info:
        list(numbers().batch(3, per_batch_map=per_batch, input_columns=["x"]))
    assert info.value.loc.line == line_of("<- per_batch raises")


def test_bad_column_values_name_the_column():
    d = ds.GeneratorDataset([({"a": 1},)], ["meta"], shuffle=False)
    with pytest.raises(ds.DatasetError, match="column 'meta' of sample 0"):
        list(d)


def test_a_non_array_return_value_is_reported_at_the_map_call():
    d = numbers().map(lambda x: {"not": "an array"}, input_columns="x")  # <- returns a dict
    with pytest.raises(ds.DatasetMapError, match="not array-like") as info:
        list(d)
    assert info.value.loc.line == line_of("<- returns a dict") and "NumPy arrays" in info.value.hint
