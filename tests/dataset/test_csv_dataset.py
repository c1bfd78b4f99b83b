"""CSVDataset: MindSpore's arguments (field_delim, column_defaults, column_names, shuffle, shards)
against rows written with Python's csv module."""

from __future__ import annotations

import csv

import numpy as np
import pytest

import spore.dataset as ds


def write(path, rows, delim=","):
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, delimiter=delim).writerows(rows)
    return str(path)


def rows_of(d):
    return [tuple(v.item() if v.ndim == 0 else v for v in row) for row in d.create_tuple_iterator(output_numpy=True)]


def test_header_names_and_typed_defaults(tmp_path):
    f = write(tmp_path / "a.csv", [["id", "score", "name"], [1, 0.5, "ann"], [2, "", "bob, jr"], [3, 2.25, ""]])
    d = ds.CSVDataset(f, column_defaults=[0, -1.0, "?"], shuffle=False)
    assert d.get_col_names() == ["id", "score", "name"] and d.get_dataset_size() == 3
    got = rows_of(d)
    assert got == [(1, 0.5, "ann"), (2, -1.0, "bob, jr"), (3, 2.25, "?")]
    row = next(d.create_tuple_iterator(output_numpy=True))
    assert row[0].dtype == np.int32 and row[1].dtype == np.float32 and row[2].dtype.kind == "U"


def test_without_defaults_every_column_is_a_string_and_names_can_be_given(tmp_path):
    f1 = write(tmp_path / "p1.txt", [[1, "x"], [2, "y"]], delim="|")
    f2 = write(tmp_path / "p2.txt", [[3, "z"]], delim="|")
    d = ds.CSVDataset([f1, f2], field_delim="|", column_names=["n", "s"], shuffle=False)
    assert rows_of(d) == [("1", "x"), ("2", "y"), ("3", "z")]
    glob = ds.CSVDataset(str(tmp_path / "p*.txt"), field_delim="|", column_names=["n", "s"],
                         column_defaults=[0, ""], shuffle=False)
    assert [r[0] for r in rows_of(glob)] == [1, 2, 3]


def test_shuffle_and_shards_cover_every_row_once(tmp_path):
    f = write(tmp_path / "n.csv", [["v"]] + [[i] for i in range(10)])
    ds.config.set_seed(3)
    shuffled = [r[0] for r in rows_of(ds.CSVDataset(f, column_defaults=[0]))]
    assert sorted(shuffled) == list(range(10)) and shuffled != list(range(10))
    parts = [[r[0] for r in rows_of(ds.CSVDataset(f, column_defaults=[0], shuffle=False, num_shards=2, shard_id=k))]
             for k in range(2)]
    assert sorted(parts[0] + parts[1]) == list(range(10)) and len(parts[0]) == len(parts[1]) == 5
    assert [r[0] for r in rows_of(ds.CSVDataset(f, column_defaults=[0], shuffle=False, num_samples=4))] == [0, 1, 2, 3]


def test_bad_files_and_arguments_are_named(tmp_path):
    f = write(tmp_path / "bad.csv", [["a", "b"], [1, 2], ["x", 3]])
    with pytest.raises(ds.DatasetError, match=r"bad.csv line 3, column 'a': 'x' is not an int"):
        ds.CSVDataset(f, column_defaults=[0, 0])
    short = write(tmp_path / "short.csv", [["a", "b"], [1]])
    with pytest.raises(ds.DatasetError, match="line 2 has 1 fields, expected 2"):
        ds.CSVDataset(short)
    with pytest.raises(ValueError, match="column_defaults"):
        ds.CSVDataset(f, column_defaults=[0])
    with pytest.raises(ValueError, match="field_delim"):
        ds.CSVDataset(f, field_delim=",,")
    with pytest.raises(ds.DatasetError, match="CSVDataset: no such file"):
        ds.CSVDataset(str(tmp_path / "missing.csv"))
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ds.DatasetError, match="no header"):
        ds.CSVDataset(str(empty))
