"""TextFileDataset, PaddedDataset, FashionMnistDataset/KMnistDataset, Shuffle and the stage classes
under MindSpore's names (issue 14)."""

from __future__ import annotations

import numpy as np
import pytest

import spore.dataset as ds

from .helpers import write_mnist


def test_text_file_dataset_reads_lines_in_order_and_shuffles(tmp_path):
    (tmp_path / "a.txt").write_text("first line\nsecond\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("thïrd\r\n", encoding="utf-8")
    d = ds.TextFileDataset([str(tmp_path / "a.txt"), str(tmp_path / "b.txt")], shuffle=False)
    assert d.get_col_names() == ["text"] and d.get_dataset_size() == 3
    assert [str(r[0]) for r in d.create_tuple_iterator(output_numpy=True)] == ["first line", "second", "thïrd"]
    ds.config.set_seed(2)
    rows = [str(r[0]) for r in ds.TextFileDataset(str(tmp_path / "*.txt"), shuffle=ds.Shuffle.FILES)
            .create_tuple_iterator(output_numpy=True)]
    assert sorted(rows) == ["first line", "second", "thïrd"]
    with pytest.raises(ds.DatasetError, match="TextFileDataset: no such file"):
        ds.TextFileDataset(str(tmp_path / "nope.txt"))
    with pytest.raises(ValueError, match="Shuffle mode"):
        ds.TextFileDataset(str(tmp_path / "a.txt"), shuffle="sometimes")


def test_padded_dataset_pads_a_dataset_by_concatenation():
    base = ds.NumpySlicesDataset({"image": np.zeros((3, 2), np.float32), "label": np.arange(3)}, shuffle=False)
    pad = ds.PaddedDataset([{"image": np.ones(2, np.float32), "label": -1}])
    both = base + pad
    labels = [int(r[1]) for r in both.create_tuple_iterator(output_numpy=True)]
    assert labels == [0, 1, 2, -1]
    with pytest.raises(ValueError, match="columns"):
        ds.PaddedDataset([{"a": 1}, {"b": 2}])


@pytest.mark.parametrize("cls", [ds.FashionMnistDataset, ds.KMnistDataset])
def test_mnist_format_variants(tmp_path, cls):
    _, tr_lab, _, te_lab = write_mnist(str(tmp_path), 3, 2)
    got = [int(r[1]) for r in cls(str(tmp_path), usage="test", shuffle=False).create_tuple_iterator(output_numpy=True)]
    assert got == [int(v) for v in te_lab]


def test_stage_classes_and_config_names():
    d = ds.NumpySlicesDataset({"x": np.arange(10)}, shuffle=False)
    assert isinstance(d.batch(2), ds.BatchDataset) and isinstance(d.map(lambda v: v, "x"), ds.MapDataset)
    assert isinstance(d.shuffle(4), ds.ShuffleDataset) and isinstance(d.repeat(2), ds.RepeatDataset)
    assert isinstance(d.take(2), ds.TakeDataset) and isinstance(d.skip(2), ds.SkipDataset)
    assert isinstance(d.rename("x", "y"), ds.RenameDataset) and isinstance(d.project("x"), ds.ProjectDataset)
    assert isinstance(d.filter(lambda v: v > 1, ["x"]), ds.FilterDataset)
    assert isinstance(d.create_tuple_iterator(), ds.TupleIterator) and isinstance(d.create_dict_iterator(),
                                                                                  ds.DictIterator)
    assert isinstance(d, ds.MappableDataset)
    ds.set_seed(9)
    assert ds.get_seed() == ds.config.get_seed() == 9
    assert ds.get_num_parallel_workers() == ds.config.get_num_parallel_workers()
