"""Multi30kDataset over small local files (issue 14, rest slice)."""

import numpy as np
import pytest

import spore.dataset as ds


def _write(root, split, en, de):
    (root / f"{split}.en").write_text("\n".join(en) + "\n", encoding="utf-8")
    (root / f"{split}.de").write_text("\n".join(de) + "\n", encoding="utf-8")


def _rows(d):
    return [(str(t), str(r)) for t, r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]


def test_pairs_per_split_and_language_order(tmp_path):
    _write(tmp_path, "train", ["a dog", "two cats"], ["ein Hund", "zwei Katzen"])
    _write(tmp_path, "valid", ["a bird"], ["ein Vogel"])
    _write(tmp_path, "test", ["the sun"], ["die Sonne"])
    d = ds.Multi30kDataset(str(tmp_path), usage="train", shuffle=False)
    assert d.get_col_names() == ["text", "translation"]
    assert _rows(d) == [("a dog", "ein Hund"), ("two cats", "zwei Katzen")]
    rev = ds.Multi30kDataset(str(tmp_path), usage="valid", language_pair=["de", "en"], shuffle=False)
    assert _rows(rev) == [("ein Vogel", "a bird")]
    every = ds.Multi30kDataset(str(tmp_path), shuffle=False)
    assert [t for t, _ in _rows(every)] == ["a dog", "two cats", "a bird", "the sun"]
    assert every.get_dataset_size() == 4
    shuffled = sorted(_rows(ds.Multi30kDataset(str(tmp_path))))
    assert shuffled == sorted(_rows(every))
    assert np.array_equal(sorted(_rows(ds.Multi30kDataset(str(tmp_path), num_samples=2, shuffle=False))),
                          sorted(_rows(every)[:2]))


def test_errors_name_the_dataset(tmp_path):
    _write(tmp_path, "train", ["a", "b"], ["x"])
    with pytest.raises(ds.DatasetError, match="Multi30kDataset: train.en has 2 lines"):
        ds.Multi30kDataset(str(tmp_path), usage="train")
    with pytest.raises(ValueError, match="Multi30kDataset: language_pair"):
        ds.Multi30kDataset(str(tmp_path), usage="train", language_pair=["en", "fr"])
    with pytest.raises(ValueError, match="Multi30kDataset: usage"):
        ds.Multi30kDataset(str(tmp_path), usage="dev")
    with pytest.raises(ds.DatasetError, match="no valid.en"):
        ds.Multi30kDataset(str(tmp_path), usage="valid")
