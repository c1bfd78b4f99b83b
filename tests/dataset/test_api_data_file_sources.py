"""File-based sources on files written here in each release's own format (nothing downloads)."""

from __future__ import annotations

import bz2
import csv
import struct

import numpy as np
import pytest

import spore.dataset as ds
from spore.dataset import DatasetError


def _rows(d):
    return [tuple(np.asarray(c) for c in r) for r in d.create_tuple_iterator(output_numpy=True)]


def test_csv_corpora_read_quoted_fields(tmp_path):
    train = [["3", "Wall St. \"Bears\"", "Short-sellers, back."], ["1", "Title, with comma", "Line\nbreak"]]
    test = [["2", "t", "d"]]
    for name, rows in (("train.csv", train), ("test.csv", test)):
        with open(tmp_path / name, "w", newline="", encoding="utf-8") as f:
            csv.writer(f, quoting=csv.QUOTE_ALL).writerows(rows)
    d = ds.AGNewsDataset(str(tmp_path), usage="train", shuffle=False)
    assert d.get_col_names() == ["index", "title", "description"]
    assert [[str(x) for x in r] for r in _rows(d)] == train
    assert ds.AGNewsDataset(str(tmp_path), shuffle=False).get_dataset_size() == 3
    assert ds.DBpediaDataset(str(tmp_path), usage="test").get_col_names() == ["class", "title", "content"]
    with pytest.raises(DatasetError, match=r"train.csv, row 1: 3 field\(s\), expected 2"):
        ds.YelpReviewDataset(str(tmp_path))
    with pytest.raises(ValueError, match="usage"):
        ds.SogouNewsDataset(str(tmp_path), usage="valid")


def test_line_corpora_and_imdb(tmp_path):
    (tmp_path / "ptb.train.txt").write_text(" a b <unk>\n c d\n")
    (tmp_path / "ptb.valid.txt").write_text("v\n")
    (tmp_path / "ptb.test.txt").write_text("t1\nt2\n")
    d = ds.PennTreebankDataset(str(tmp_path), usage="all", shuffle=False)
    assert [str(r[0]) for r in _rows(d)] == [" a b <unk>", " c d", "v", "t1", "t2"]
    with pytest.raises(DatasetError, match="wiki.train.tokens"):
        ds.WikiTextDataset(str(tmp_path), usage="train")
    for u in ("train", "test"):
        for lab in ("pos", "neg"):
            (tmp_path / "imdb" / u / lab).mkdir(parents=True)
            (tmp_path / "imdb" / u / lab / f"0_{lab}.txt").write_text(f"{u} {lab} review")
    d = ds.IMDBDataset(str(tmp_path / "imdb"), usage="train", shuffle=False)
    assert [(str(t), int(label)) for t, label in _rows(d)] == [("train pos review", 1), ("train neg review", 0)]


def test_cifar100_binary(tmp_path):
    rng = np.random.default_rng(0)
    pix = rng.integers(0, 256, (3, 3, 32, 32), dtype=np.uint8)
    coarse, fine = [1, 19, 7], [99, 0, 42]
    blob = b"".join(bytes([c, f]) + p.tobytes() for c, f, p in zip(coarse, fine, pix, strict=True))
    (tmp_path / "train.bin").write_bytes(blob)
    d = ds.Cifar100Dataset(str(tmp_path), usage="train", shuffle=False)
    assert d.get_col_names() == ["image", "coarse_label", "fine_label"]
    for (img, c, f), p, cc, ff in zip(_rows(d), pix, coarse, fine, strict=True):
        np.testing.assert_array_equal(img, p.transpose(1, 2, 0))
        assert (int(c), int(f)) == (cc, ff)
    (tmp_path / "test.bin").write_bytes(blob[:-5])
    with pytest.raises(DatasetError, match=r"test.bin is \d+ bytes, not a whole number"):
        ds.Cifar100Dataset(str(tmp_path), usage="test")


def _idx(path, arr, magic):
    path.write_bytes(struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in arr.shape) + arr.tobytes())


def test_emnist_usps_semeion(tmp_path):
    imgs = np.random.default_rng(1).integers(0, 256, (4, 28, 28), dtype=np.uint8)
    _idx(tmp_path / "emnist-letters-train-images-idx3-ubyte", imgs, 2051)
    _idx(tmp_path / "emnist-letters-train-labels-idx1-ubyte", np.array([1, 5, 26, 3], np.uint8), 2049)
    rows = _rows(ds.EMnistDataset(str(tmp_path), "letters", usage="train", shuffle=False))
    np.testing.assert_array_equal(rows[2][0][..., 0], imgs[2])
    assert [int(r[1]) for r in rows] == [1, 5, 26, 3]
    with pytest.raises(ValueError, match="name must be one of"):
        ds.EMnistDataset(str(tmp_path), "nope")
    vals = np.linspace(-1, 1, 256)
    line = "10 " + " ".join(f"{i + 1}:{v:.6f}" for i, v in enumerate(vals))
    (tmp_path / "usps.bz2").write_bytes(bz2.compress((line + "\n" + "3 1:1\n").encode()))
    (img, lab), (img2, lab2) = _rows(ds.USPSDataset(str(tmp_path), usage="train", shuffle=False))
    np.testing.assert_array_equal(img.ravel(), np.rint((vals + 1) / 2 * 255).astype(np.uint8))
    assert int(lab) == 9 and int(lab2) == 2 and img2.ravel()[0] == 255 and img2.ravel()[1] == 128
    (tmp_path / "usps.t").write_text("12 1:0.5\n")
    with pytest.raises(DatasetError, match="usps.t, line 1"):
        ds.USPSDataset(str(tmp_path), usage="test")
    bits = np.random.default_rng(2).integers(0, 2, 256)
    (tmp_path / "semeion.data").write_text(" ".join(f"{b}.0000" for b in bits) + " 0 0 0 1 0 0 0 0 0 0\n")
    ((image, label),) = _rows(ds.SemeionDataset(str(tmp_path)))
    np.testing.assert_array_equal(image, bits.reshape(16, 16) * 255)
    assert int(label) == 3


def test_fake_and_random_datasets_are_reproducible():
    a = _rows(ds.FakeImageDataset(5, (4, 6, 3), 3, base_seed=7, shuffle=False))
    b = _rows(ds.FakeImageDataset(5, (4, 6, 3), 3, base_seed=7, shuffle=True))
    assert sorted(x[0].tobytes() for x in a) == sorted(x[0].tobytes() for x in b)
    assert a[0][0].shape == (4, 6, 3) and all(0 <= int(x[1]) < 3 for x in a)
    c = _rows(ds.FakeImageDataset(5, (4, 6, 3), 3, base_seed=8, shuffle=False))
    assert a[0][0].tobytes() != c[0][0].tobytes()
    schema = ds.Schema()
    schema.add_column("x", "float32", [2, 2])
    schema.add_column("y", "uint8", [3])
    d = ds.RandomDataset(total_rows=4, schema=schema, shuffle=False)
    rows = _rows(d)
    assert len(rows) == 4 and rows[0][0].shape == (2, 2) and rows[0][1].dtype == np.uint8
    assert [r[0].tobytes() for r in rows] == [r[0].tobytes() for r in _rows(d)]
    assert ds.RandomDataset(3).get_col_names() == ["col"]
