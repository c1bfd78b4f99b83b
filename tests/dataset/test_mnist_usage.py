"""MnistDataset's default `usage` reads whatever of the train/test files a folder holds, as
MindSpore does (its quick-start tutorial's first line is ``MnistDataset("MNIST_Data/train")``)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import spore.dataset as ds

from .helpers import write_mnist


def _labels(d) -> list[int]:
    return [int(row[1]) for row in d.create_tuple_iterator(output_numpy=True)]


@pytest.mark.parametrize("keep", ["train", "t10k"])
def test_default_usage_reads_a_folder_that_holds_one_set(tmp_path, keep):
    tr_img, tr_lab, te_img, te_lab = write_mnist(str(tmp_path), 4, 3)
    drop = "t10k" if keep == "train" else "train"
    for kind in ("images-idx3", "labels-idx1"):
        os.remove(tmp_path / f"{drop}-{kind}-ubyte")
    d = ds.MnistDataset(str(tmp_path), shuffle=False)
    want_img, want_lab = (tr_img, tr_lab) if keep == "train" else (te_img, te_lab)
    assert d.get_dataset_size() == len(want_lab)
    assert _labels(d) == [int(v) for v in want_lab]
    first = next(d.create_tuple_iterator(output_numpy=True))[0]
    np.testing.assert_array_equal(first[..., 0], want_img[0])


def test_default_usage_reads_both_sets_train_first(tmp_path):
    _, tr_lab, _, te_lab = write_mnist(str(tmp_path), 2, 3, gz=True)
    assert _labels(ds.MnistDataset(str(tmp_path), shuffle=False)) == [int(v) for v in [*tr_lab, *te_lab]]


def test_an_explicit_usage_still_needs_its_files(tmp_path):
    write_mnist(str(tmp_path), 2, 2)
    for kind in ("images-idx3", "labels-idx1"):
        os.remove(tmp_path / f"t10k-{kind}-ubyte")
    with pytest.raises(ds.DatasetError, match="t10k-images"):
        ds.MnistDataset(str(tmp_path), usage="test")


def test_an_empty_folder_names_the_files_it_looked_for(tmp_path):
    with pytest.raises(ds.DatasetError, match="train-images"):
        ds.MnistDataset(str(tmp_path))
