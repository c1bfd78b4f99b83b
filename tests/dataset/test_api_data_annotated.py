"""ManifestDataset, VOCDataset and CocoDataset on annotation files written here."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

import spore.dataset as ds
from spore.dataset import DatasetError


def _png(path, seed):
    arr = np.random.default_rng(seed).integers(0, 256, (4, 5, 3), dtype=np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(arr).save(path, format="PNG")
    return arr


def _rows(d):
    return [tuple(np.asarray(c) for c in r) for r in d.create_tuple_iterator(output_numpy=True)]


def test_manifest(tmp_path):
    a = _png(tmp_path / "a.png", 0)
    b = _png(tmp_path / "b.png", 1)
    lines = [{"source": str(tmp_path / "a.png"), "usage": "train", "annotation": [{"type": "label", "name": "dog"}]},
             {"source": "b.png", "usage": "TRAIN", "annotation": [{"type": "label", "name": "cat"},
                                                                   {"type": "label", "name": "dog"}]},
             {"source": "a.png", "usage": "eval", "annotation": [{"type": "label", "name": "cat"}]}]
    m = tmp_path / "m.manifest"
    m.write_text("\n".join(json.dumps(x) for x in lines))
    d = ds.ManifestDataset(str(m), decode=True, shuffle=False)
    assert d.get_class_indexing() == {"cat": 0, "dog": 1}
    (ia, la), (ib, lb) = _rows(d)
    np.testing.assert_array_equal(ia, a)
    np.testing.assert_array_equal(ib, b)
    assert la.tolist() == [1] and lb.tolist() == [0, 1] and la.dtype == np.uint64
    assert ds.ManifestDataset(str(m), usage="eval").get_dataset_size() == 1
    m.write_text("{broken")
    with pytest.raises(DatasetError, match="m.manifest, line 1"):
        ds.ManifestDataset(str(m))


def _voc(root):
    (root / "ImageSets" / "Main").mkdir(parents=True)
    (root / "ImageSets" / "Main" / "train.txt").write_text("0001\n0002\n")
    (root / "Annotations").mkdir()
    objs = {"0001": [("dog", 1, 2, 4, 6, 0, 1)], "0002": [("person", 0, 0, 3, 3, 1, 0), ("dog", 2, 1, 5, 4, 0, 0)]}
    for i, rows in objs.items():
        xml = "<annotation>" + "".join(
            f"<object><name>{n}</name><difficult>{d}</difficult><truncated>{t}</truncated><bndbox><xmin>{x0}</xmin>"
            f"<ymin>{y0}</ymin><xmax>{x1}</xmax><ymax>{y1}</ymax></bndbox></object>"
            for n, x0, y0, x1, y1, d, t in rows) + "</annotation>"
        (root / "Annotations" / f"{i}.xml").write_text(xml)
        _png(root / "JPEGImages" / f"{i}.jpg", int(i))
    return objs


def test_voc_detection_and_segmentation(tmp_path):
    objs = _voc(tmp_path)
    d = ds.VOCDataset(str(tmp_path), task="Detection", usage="train", shuffle=False, decode=True)
    assert d.get_col_names() == ["image", "bbox", "label", "difficult", "truncate"]
    assert d.get_class_indexing() == {"dog": 0, "person": 1}
    rows = _rows(d)
    for (img, bbox, label, diff, trunc), rows_want in zip(rows, objs.values(), strict=True):
        assert img.shape == (4, 5, 3)
        np.testing.assert_allclose(bbox, [[x0, y0, x1 - x0, y1 - y0] for _, x0, y0, x1, y1, _, _ in rows_want])
        assert label.ravel().tolist() == [{"dog": 0, "person": 1}[r[0]] for r in rows_want]
        assert diff.ravel().tolist() == [r[5] for r in rows_want]
        assert trunc.ravel().tolist() == [r[6] for r in rows_want]
    (tmp_path / "Annotations" / "0002.xml").write_text("<annotation><object>")
    with pytest.raises(DatasetError, match="0002.xml"):
        ds.VOCDataset(str(tmp_path), task="Detection")
    (tmp_path / "ImageSets" / "Segmentation").mkdir()
    (tmp_path / "ImageSets" / "Segmentation" / "val.txt").write_text("0001\n")
    seg = _png(tmp_path / "SegmentationClass" / "0001.png", 9)
    ((img, target),) = _rows(ds.VOCDataset(str(tmp_path), usage="val", decode=True))
    np.testing.assert_array_equal(target, seg)


def test_coco_detection(tmp_path):
    _png(tmp_path / "img" / "x.png", 3)
    _png(tmp_path / "img" / "y.png", 4)
    ann = {"images": [{"id": 7, "file_name": "x.png"}, {"id": 9, "file_name": "y.png"}],
           "annotations": [{"image_id": 9, "bbox": [1, 2, 3, 4], "category_id": 18, "iscrowd": 0},
                           {"image_id": 9, "bbox": [0, 0, 1, 1], "category_id": 1, "iscrowd": 1}],
           "categories": [{"id": 1, "name": "person"}, {"id": 18, "name": "dog"}]}
    (tmp_path / "ann.json").write_text(json.dumps(ann))
    d = ds.CocoDataset(str(tmp_path / "img"), str(tmp_path / "ann.json"), shuffle=False)
    (_, b0, c0, i0), (_, b1, c1, i1) = _rows(d)
    assert b0.shape == (0, 4) and c0.shape == (0, 1)
    np.testing.assert_array_equal(b1, [[1, 2, 3, 4], [0, 0, 1, 1]])
    assert c1.ravel().tolist() == [18, 1] and i1.ravel().tolist() == [0, 1]
    assert d.get_class_indexing() == {"person": 1, "dog": 18}
    with pytest.raises(ValueError, match="Detection"):
        ds.CocoDataset(str(tmp_path / "img"), str(tmp_path / "ann.json"), task="Keypoint")
    (tmp_path / "img" / "y.png").write_bytes(b"junk")
    d = ds.CocoDataset(str(tmp_path / "img"), str(tmp_path / "ann.json"), shuffle=False, decode=True)
    with pytest.raises(DatasetError, match=r"y.png \(row 1\)"):
        _rows(d)


def test_flickr_sbu_div2k(tmp_path):
    (tmp_path / "f").mkdir()
    for n in ("1.jpg", "2.jpg"):
        (tmp_path / "f" / n).write_bytes(n.encode())
    (tmp_path / "tokens.txt").write_text("1.jpg#0\tA dog runs .\n1.jpg#1\tA brown dog .\n2.jpg#0\tA cat .\n")
    rows = _rows(ds.FlickrDataset(str(tmp_path / "f"), str(tmp_path / "tokens.txt"), shuffle=False))
    assert [(bytes(i), a.tolist()) for i, a in rows] == [(b"1.jpg", ["A dog runs .", "A brown dog ."]),
                                                       (b"2.jpg", ["A cat ."])]
    (tmp_path / "tokens.txt").write_text("no tab here\n")
    with pytest.raises(DatasetError, match="tokens.txt, line 1"):
        ds.FlickrDataset(str(tmp_path / "f"), str(tmp_path / "tokens.txt"))
    s = tmp_path / "sbu"
    (s / "sbu_images").mkdir(parents=True)
    (s / "sbu_images" / "b.jpg").write_bytes(b"B")
    (s / "SBU_captioned_photo_dataset_urls.txt").write_text("http://x/a.jpg\nhttp://x/b.jpg\n")
    (s / "SBU_captioned_photo_dataset_captions.txt").write_text("cap a\ncap b\n")
    assert [(bytes(i), str(c)) for i, c in _rows(ds.SBUDataset(str(s)))] == [(b"B", "cap b")]
    d = tmp_path / "div2k"
    hr = _png(d / "DIV2K_train_HR" / "0001.png", 5)
    lr = _png(d / "DIV2K_train_LR_bicubic" / "X2" / "0001x2.png", 6)
    ((h, low),) = _rows(ds.DIV2KDataset(str(d), usage="train", scale=2, decode=True))
    np.testing.assert_array_equal(h, hr)
    np.testing.assert_array_equal(low, lr)
    with pytest.raises(ValueError, match="scales"):
        ds.DIV2KDataset(str(d), downgrade="mild", scale=2)
    with pytest.raises(DatasetError, match="X3"):
        ds.DIV2KDataset(str(d), scale=3)
