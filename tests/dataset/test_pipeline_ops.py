"""Pipeline operations and iterators: each op's rows, columns and sizes against plain Python."""

from __future__ import annotations

import numpy as np
import pytest

import spore
import spore.dataset as ds


def numbers(n=10, **kw):
    kw.setdefault("shuffle", False)
    return ds.NumpySlicesDataset({"x": np.arange(n), "y": np.arange(n) * 10}, **kw)


def col(dataset, i=0):
    return [r[i].tolist() for r in dataset.create_tuple_iterator(output_numpy=True)]


# --- map -----------------------------------------------------------------------------------------
def test_map_applies_operations_in_order_to_the_named_column():
    d = numbers(4).map([lambda v: v + 1, lambda v: v * 3], input_columns="x")
    assert col(d, 0) == [3, 6, 9, 12] and col(d, 1) == [0, 10, 20, 30]


def test_map_without_input_columns_passes_every_column_to_a_python_callable():
    d = numbers(3).map(lambda x, y: (x + y, x - y))
    assert col(d, 0) == [0, 11, 22] and col(d, 1) == [0, -9, -18]


def test_map_output_columns_replace_the_inputs_in_place():
    d = ds.NumpySlicesDataset({"a": [1, 2], "b": [3, 4], "c": [5, 6]}, shuffle=False)
    m = d.map(lambda b: (b, b * 2), input_columns="b", output_columns=["b1", "b2"])
    assert m.get_col_names() == ["a", "b1", "b2", "c"]
    assert [r.tolist() for r in next(iter(m.create_tuple_iterator(output_numpy=True)))] == [1, 3, 6, 5]


def test_map_checks_column_names_and_output_count():
    with pytest.raises(ds.DatasetError, match="no column named 'z'"):
        numbers().map(lambda v: v, input_columns="z")
    d = numbers(2).map(lambda v: (v, v), input_columns="x")
    with pytest.raises(ds.DatasetMapError, match="returned 2 value"):
        col(d)


# --- batch ---------------------------------------------------------------------------------------
def test_batch_stacks_rows_and_drop_remainder_drops_the_short_batch():
    kept = list(numbers(10).batch(4).create_tuple_iterator(output_numpy=True))
    assert [b[0].tolist() for b in kept] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert numbers(10).batch(4).get_dataset_size() == 3
    dropped = numbers(10).batch(4, drop_remainder=True)
    assert len(col(dropped)) == 2 and dropped.get_dataset_size() == 2 and dropped.get_batch_size() == 4


def test_batch_ragged_column_names_the_column_and_shapes():
    d = ds.GeneratorDataset([(np.zeros(3),), (np.zeros(4),)], column_names=["seq"], shuffle=False).batch(2)
    with pytest.raises(ds.DatasetError, match=r"column 'seq' has rows of different shapes: \(3,\) \(row 0\) and "
                                              r"\(4,\) \(row 1\)"):
        col(d)


def test_batch_per_batch_map_gets_lists_and_batch_info():
    seen = []

    def pad_and_count(xs, info):
        seen.append((info.get_batch_num(), info.get_epoch_num()))
        return ([x * 2 for x in xs],)

    d = numbers(5).batch(2, per_batch_map=pad_and_count, input_columns=["x"])
    assert col(d) == [[0, 2], [4, 6], [8]]
    assert seen == [(0, 0), (1, 0), (2, 0)]


def test_batch_size_may_be_a_function_of_batch_info():
    d = numbers(6).batch(lambda info: info.get_batch_num() + 1)
    assert col(d) == [[0], [1, 2], [3, 4, 5]] and d.get_dataset_size() == 3


# --- shuffle / repeat / take / skip ------------------------------------------------------------------
def test_shuffle_buffer_permutes_and_a_small_buffer_only_moves_rows_locally():
    full = col(numbers(50).shuffle(50))
    assert sorted(full) == list(range(50)) and full != list(range(50))
    local = col(numbers(50).shuffle(2))
    # with a buffer of 2, the row emitted at position p is one of the first p + 2 rows
    assert sorted(local) == list(range(50)) and all(v <= p + 1 for p, v in enumerate(local))
    with pytest.raises(ValueError, match=">= 2"):
        numbers().shuffle(1)


def test_repeat_take_skip_compose_like_list_slicing():
    assert col(numbers(3).repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert numbers(3).repeat(2).get_dataset_size() == 6 and numbers(3).repeat(2).get_repeat_count() == 2
    assert col(numbers(10).skip(3).take(4)) == [3, 4, 5, 6]
    assert col(numbers(10).take(-1)) == list(range(10))
    assert numbers(10).skip(12).get_dataset_size() == 0
    forever = numbers(3).repeat()
    assert forever.get_dataset_size() == -1 and col(forever.take(7)) == [0, 1, 2, 0, 1, 2, 0]


def test_repeat_reshuffles_every_repetition():
    d = numbers(20, shuffle=True).repeat(2)
    got = col(d)
    assert sorted(got[:20]) == sorted(got[20:]) == list(range(20)) and got[:20] != got[20:]


# --- zip / concat / rename / project / filter ------------------------------------------------------
def test_zip_puts_rows_side_by_side_and_stops_at_the_shortest():
    a = numbers(5)
    b = ds.NumpySlicesDataset({"z": np.arange(3) + 100}, shuffle=False)
    z = ds.zip((a, b))
    assert z.get_col_names() == ["x", "y", "z"] and col(z, 2) == [100, 101, 102] and z.get_dataset_size() == 3
    with pytest.raises(ds.DatasetError, match="more than one dataset"):
        a.zip(numbers(2))


def test_concat_and_plus_chain_rows_and_need_equal_columns():
    both = numbers(2) + numbers(3).skip(1)
    assert col(both) == [0, 1, 1, 2] and both.get_dataset_size() == 4
    assert col(numbers(1).concat([numbers(2), numbers(1)])) == [0, 0, 1, 0]
    with pytest.raises(ds.DatasetError, match="column names differ"):
        numbers(2) + ds.NumpySlicesDataset({"q": [1]})


def test_rename_and_project():
    d = numbers(2).rename(["x"], ["idx"]).project(["y", "idx"])
    assert d.get_col_names() == ["y", "idx"] and col(d, 0) == [0, 10] and col(d, 1) == [0, 1]
    with pytest.raises(ds.DatasetError, match="no column named 'nope'"):
        numbers().project("nope")


def test_filter_keeps_rows_where_the_predicate_holds():
    d = numbers(10).filter(lambda x: x % 3 == 0, input_columns=["x"])
    assert col(d) == [0, 3, 6, 9] and d.get_dataset_size() == 4


# --- split ---------------------------------------------------------------------------------------
def test_split_integer_sizes_partition_the_rows():
    a, b = numbers(10).split([7, 3])
    xa, xb = col(a), col(b)
    assert len(xa) == 7 and len(xb) == 3 and sorted(xa + xb) == list(range(10))
    c, d = numbers(10).split([4, 6], randomize=False)
    assert col(c) == [0, 1, 2, 3] and col(d) == [4, 5, 6, 7, 8, 9]


def test_split_fractions_round_and_give_the_remainder_to_the_first_split():
    parts = numbers(10).split([0.33, 0.33, 0.34])  # rounds to 3 + 3 + 3: the missing row goes first
    sizes = [p.get_dataset_size() for p in parts]
    assert sizes == [4, 3, 3] and sorted(sum((col(p) for p in parts), [])) == list(range(10))
    parts = numbers(11).split([0.5, 0.5], randomize=False)  # round(5.5) = 6 twice -> first loses one
    assert [p.get_dataset_size() for p in parts] == [5, 6]
    with pytest.raises(ValueError, match="sum to 1"):
        numbers(10).split([0.5, 0.4])


def test_split_of_a_non_mappable_pipeline_partitions_positions():
    a, b = numbers(10).map(lambda v: v * 2, input_columns="x").split([5, 5])
    assert sorted(col(a) + col(b)) == list(range(0, 20, 2))


# --- prefetch ------------------------------------------------------------------------------------
def test_prefetch_yields_the_same_rows_and_forwards_errors():
    base = numbers(30).map(lambda v: v * v, input_columns="x")
    assert col(base.prefetch(4)) == col(base)

    def fail_late(v):
        if v == 20:
            raise KeyError("late")
        return v

    with pytest.raises(ds.DatasetMapError, match="late"):
        col(numbers(30).map(fail_late, input_columns="x").prefetch(2))


def test_prefetch_consumer_may_stop_early():
    it = numbers(100).prefetch(3).create_tuple_iterator(output_numpy=True)
    first = next(it)
    it.stop()
    assert first[0] == 0
    with pytest.raises(StopIteration):
        next(it)


# --- iterators and information ---------------------------------------------------------------------
def test_tuple_iterator_yields_tensors_and_dict_iterator_names_them():
    row = next(iter(numbers(3).create_tuple_iterator()))
    assert all(isinstance(t, spore.Tensor) for t in row) and row[0].dtype == spore.int64
    d = next(iter(numbers(3).create_dict_iterator(output_numpy=True)))
    assert set(d) == {"x", "y"} and isinstance(d["y"], np.ndarray)
    only = next(iter(numbers(3).create_tuple_iterator(columns=["y"], output_numpy=True)))
    assert len(only) == 1 and only[0] == 0


def test_uint32_labels_become_int64_tensors_since_spore_has_no_uint32():
    d = ds.NumpySlicesDataset({"label": np.array([7], np.uint32)}, shuffle=False)
    (t,), = list(d.create_tuple_iterator())
    assert t.dtype == spore.int64 and int(t.asnumpy()) == 7


def test_iterator_runs_num_epochs_one_for_loop_each():
    it = numbers(3).create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [int(r[0]) for r in it] == [0, 1, 2]
    assert [int(r[0]) for r in it] == [0, 1, 2]
    assert list(it) == []


def test_for_loop_over_dataset_unpacks_columns():
    pairs = [(int(x.asnumpy()), int(y.asnumpy())) for x, y in numbers(3)]
    assert pairs == [(0, 0), (1, 10), (2, 20)]


def test_do_copy_protects_the_source_arrays():
    data = np.arange(6).reshape(3, 2)
    d = ds.NumpySlicesDataset(data, shuffle=False)
    first = next(iter(d.create_tuple_iterator(output_numpy=True)))[0]
    first[0] = 99
    assert data[0, 0] == 0


def test_output_shapes_types_and_sizes_after_batch():
    d = ds.NumpySlicesDataset({"img": np.zeros((5, 4, 4, 3), np.uint8), "lab": np.arange(5)}, shuffle=False)
    b = d.batch(2)
    assert b.output_shapes() == [[2, 4, 4, 3], [2]]
    assert b.output_types() == [np.dtype(np.uint8), np.dtype(np.int64)]
    assert b.get_dataset_size() == 3 and d.get_batch_size() == 1 and b.get_batch_size() == 2


def test_map_gives_a_spore_transform_only_the_first_column_by_default():
    d = ds.NumpySlicesDataset({"image": np.zeros((2, 4, 5, 3), np.uint8), "label": [1, 2]}, shuffle=False)
    import spore.dataset.vision as vision

    out = next(iter(d.map(vision.HWC2CHW()).create_tuple_iterator(output_numpy=True)))
    assert out[0].shape == (3, 4, 5) and int(out[1]) == 1


def test_config_worker_default_and_seed_alias(monkeypatch):
    from spore.dataset import config

    monkeypatch.setattr(config, "_num_parallel_workers", 1)
    config.set_num_parallel_workers(2)
    m = numbers(4).map(lambda v: v + 1, input_columns="x")
    assert m._workers == 2 and col(m) == [1, 2, 3, 4]
    config.set_seed(123)
    assert spore.get_seed() == 123 == config.get_seed()
    with pytest.raises(ValueError, match="positive int"):
        config.set_num_parallel_workers(0)


def test_duplicate_fills_two_output_columns():
    import spore.dataset.transforms as T

    d = numbers(2).map(T.Duplicate(), input_columns="x", output_columns=["x", "x2"])
    assert d.get_col_names() == ["x", "x2", "y"] and col(d, 1) == [0, 1]
