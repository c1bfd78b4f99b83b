"""STL10, QMNIST, CelebA, Caltech256 and Omniglot on files written here in their release formats."""

from __future__ import annotations

import struct

import numpy as np
import pytest

import spore.dataset as ds
from spore.dataset import DatasetError


def _rows(d):
    return [tuple(np.asarray(c) for c in r) for r in d.create_tuple_iterator(output_numpy=True)]


def test_stl10_column_major_planes(tmp_path):
    rng = np.random.default_rng(0)
    hwc = rng.integers(0, 256, (2, 96, 96, 3), dtype=np.uint8)
    # the release stores each image as 3 planes, each plane column-major
    (tmp_path / "train_X.bin").write_bytes(np.ascontiguousarray(hwc.transpose(0, 3, 2, 1)).tobytes())
    (tmp_path / "train_y.bin").write_bytes(bytes([3, 10]))
    (img0, l0), (img1, l1) = _rows(ds.STL10Dataset(str(tmp_path), usage="train", shuffle=False))
    np.testing.assert_array_equal(img0, hwc[0])
    np.testing.assert_array_equal(img1, hwc[1])
    assert (int(l0), int(l1)) == (2, 9)
    (tmp_path / "unlabeled_X.bin").write_bytes(hwc[:1].tobytes())
    ((_, lu),) = _rows(ds.STL10Dataset(str(tmp_path), usage="unlabeled"))
    assert int(lu) == -1
    (tmp_path / "test_X.bin").write_bytes(b"\0" * 100)
    with pytest.raises(DatasetError, match="test_X.bin is 100 bytes"):
        ds.STL10Dataset(str(tmp_path), usage="test")


def test_qmnist_int32_labels(tmp_path):
    imgs = np.random.default_rng(1).integers(0, 256, (3, 28, 28), dtype=np.uint8)
    (tmp_path / "qmnist-train-images-idx3-ubyte").write_bytes(
        struct.pack(">IIII", 2051, 3, 28, 28) + imgs.tobytes())
    labels = np.arange(24, dtype=">i4").reshape(3, 8)
    (tmp_path / "qmnist-train-labels-idx2-int").write_bytes(struct.pack(">III", 3074, 3, 8) + labels.tobytes())
    rows = _rows(ds.QMnistDataset(str(tmp_path), usage="train", shuffle=False))
    assert [int(r[1]) for r in rows] == [0, 8, 16]
    np.testing.assert_array_equal(rows[1][0][..., 0], imgs[1])
    full = _rows(ds.QMnistDataset(str(tmp_path), usage="train", compat=False, shuffle=False))
    np.testing.assert_array_equal(full[2][1], labels[2])
    (tmp_path / "qmnist-test-images-idx3-ubyte").write_bytes(struct.pack(">IIII", 2051, 0, 28, 28))
    (tmp_path / "qmnist-test-labels-idx2-int").write_bytes(struct.pack(">III", 2049, 0, 8))
    with pytest.raises(DatasetError, match="magic 3074"):
        ds.QMnistDataset(str(tmp_path), usage="test")


def test_celeba_attributes_and_partitions(tmp_path):
    (tmp_path / "img_align_celeba").mkdir()
    for n in ("000001.jpg", "000002.jpg", "000003.jpg"):
        (tmp_path / "img_align_celeba" / n).write_bytes(n.encode())
    (tmp_path / "list_attr_celeba.txt").write_text(
        "3\nSmiling Young\n000001.jpg  1 -1\n000002.jpg -1 -1\n000003.jpg  1  1\n")
    (tmp_path / "list_eval_partition.txt").write_text("000001.jpg 0\n000002.jpg 1\n000003.jpg 0\n")
    rows = _rows(ds.CelebADataset(str(tmp_path), usage="train", shuffle=False))
    assert [bytes(r[0]) for r in rows] == [b"000001.jpg", b"000003.jpg"]
    assert [r[1].tolist() for r in rows] == [[1, 0], [1, 1]]
    assert ds.CelebADataset(str(tmp_path)).get_dataset_size() == 3
    (tmp_path / "list_attr_celeba.txt").write_text("1\nSmiling\n000001.jpg 2\n")
    with pytest.raises(DatasetError, match="list_attr_celeba.txt, line 3"):
        ds.CelebADataset(str(tmp_path))


def test_caltech256_and_omniglot(tmp_path):
    for folder, names in (("001.ak47", ["a.jpg", "b.jpg"]), ("257.clutter", ["c.jpg"])):
        (tmp_path / "c" / folder).mkdir(parents=True)
        for n in names:
            (tmp_path / "c" / folder / n).write_bytes(n.encode())
    rows = _rows(ds.Caltech256Dataset(str(tmp_path / "c"), shuffle=False))
    assert [(bytes(i), int(lab)) for i, lab in rows] == [(b"a.jpg", 0), (b"b.jpg", 0), (b"c.jpg", 256)]
    for s, alpha, char in (("images_background", "Latin", "character01"), ("images_background", "Latin",
                                                                          "character02"),
                           ("images_evaluation", "Greek", "character01")):
        d = tmp_path / "o" / s / alpha / char
        d.mkdir(parents=True)
        (d / "x.png").write_bytes(f"{s}{char}".encode())
    assert [int(r[1]) for r in _rows(ds.OmniglotDataset(str(tmp_path / "o"), background=True, shuffle=False))] \
        == [0, 1]
    assert ds.OmniglotDataset(str(tmp_path / "o")).get_dataset_size() == 3


def test_rendered_sst2_sun397_widerface(tmp_path):
    for u in ("train",):
        for cls in ("negative", "positive"):
            (tmp_path / "r" / u / cls).mkdir(parents=True)
            (tmp_path / "r" / u / cls / "0.png").write_bytes(cls.encode())
    rows = _rows(ds.RenderedSST2Dataset(str(tmp_path / "r"), usage="train", shuffle=False))
    assert [(bytes(i), int(lab)) for i, lab in rows] == [(b"negative", 0), (b"positive", 1)]
    sun = tmp_path / "sun"
    for cls in ("a/abbey", "b/bakery"):
        (sun / cls).mkdir(parents=True)
        (sun / cls / "sun_1.jpg").write_bytes(cls.encode())
    (sun / "ClassName.txt").write_text("/a/abbey\n/b/bakery\n")
    assert [int(r[1]) for r in _rows(ds.SUN397Dataset(str(sun), shuffle=False))] == [0, 1]
    w = tmp_path / "w"
    (w / "wider_face_split").mkdir(parents=True)
    (w / "WIDER_train" / "images" / "0--Parade").mkdir(parents=True)
    for n in ("a.jpg", "b.jpg"):
        (w / "WIDER_train" / "images" / "0--Parade" / n).write_bytes(n.encode())
    (w / "wider_face_split" / "wider_face_train_bbx_gt.txt").write_text(
        "0--Parade/a.jpg\n2\n449 330 122 149 0 0 0 0 0 0\n361 98 263 339 2 1 0 1 2 3\n"
        "0--Parade/b.jpg\n0\n0 0 0 0 0 0 0 0 0 0\n")
    (img, bbox, blur, expr, illum, occl, pose, invalid), second = _rows(
        ds.WIDERFaceDataset(str(w), usage="train", shuffle=False))
    np.testing.assert_array_equal(bbox, [[449, 330, 122, 149], [361, 98, 263, 339]])
    assert blur.ravel().tolist() == [0, 2] and expr.ravel().tolist() == [0, 1] and invalid.ravel().tolist() == [0, 1]
    assert occl.ravel().tolist() == [0, 2] and pose.ravel().tolist() == [0, 3] and illum.ravel().tolist() == [0, 0]
    assert second[1].shape == (0, 4)
    (w / "wider_face_split" / "wider_face_train_bbx_gt.txt").write_text("0--Parade/a.jpg\nx\n")
    with pytest.raises(DatasetError, match="wider_face_train_bbx_gt.txt, line 1"):
        ds.WIDERFaceDataset(str(w), usage="train")
