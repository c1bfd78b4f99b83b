"""CLUE, IWSLT2016/2017, SVHN, Food101, Flowers102, Places365, KITTI, Cityscapes, PhotoTour and
Caltech101 on tiny fake datasets written here in each release's own layout."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
import scipy.io
from PIL import Image

import spore.dataset as ds
from spore.dataset import DatasetError


def _rows(d):
    return [tuple(np.asarray(c) for c in r) for r in d.create_tuple_iterator(output_numpy=True)]


def _png(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="PNG")
    return buf.getvalue()


# --- CLUE ---------------------------------------------------------------------------------------

def test_clue_afqmc_columns_order_and_sharding(tmp_path):
    rows = [{"sentence1": f"s{i}", "sentence2": f"t{i}", "label": str(i % 2)} for i in range(6)]
    (tmp_path / "train.json").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    d = ds.CLUEDataset(str(tmp_path / "train.json"), task="AFQMC", usage="train", shuffle=False)
    assert d.get_col_names() == ["sentence1", "sentence2", "label"]
    got = _rows(d)
    assert [(str(a), str(b), str(c)) for a, b, c in got] == [(f"s{i}", f"t{i}", str(i % 2)) for i in range(6)]
    assert got[0][0].dtype.kind == "U"
    shard = _rows(ds.CLUEDataset(str(tmp_path / "*.json"), shuffle=False, num_shards=2, shard_id=1))
    assert [str(r[0]) for r in shard] == ["s1", "s3", "s5"]
    shuffled = _rows(ds.CLUEDataset(str(tmp_path / "train.json"), num_samples=6))
    assert sorted(str(r[0]) for r in shuffled) == [f"s{i}" for i in range(6)]


def test_clue_test_ids_wsc_and_csl(tmp_path):
    (tmp_path / "test.json").write_text(json.dumps({"id": 7, "sentence": "新闻", "keywords": "a,b"}) + "\n")
    tnews = ds.CLUEDataset(str(tmp_path / "test.json"), task="TNEWS", usage="test", shuffle=False)
    assert tnews.get_col_names() == ["label", "keywords", "sentence"]  # MindSpore's table for TNEWS test
    ((ident, keywords, sentence),) = _rows(tnews)
    assert ident.dtype == np.uint32 and int(ident) == 7 and str(sentence) == "新闻" and str(keywords) == "a,b"
    wsc = {"target": {"span1_index": 1, "span2_index": 4, "span1_text": "他", "span2_text": "她"}, "idx": 3,
           "text": "文本", "label": "true"}
    (tmp_path / "wsc.json").write_text(json.dumps(wsc) + "\n")
    d = ds.CLUEDataset(str(tmp_path / "wsc.json"), task="WSC", usage="eval", shuffle=False)
    assert d.get_col_names() == ["span1_index", "span2_index", "span1_text", "span2_text", "idx", "text", "label"]
    (row,) = _rows(d)
    assert [int(row[0]), int(row[1]), str(row[2]), int(row[4]), str(row[6])] == [1, 4, "他", 3, "true"]
    assert row[0].dtype == np.uint32
    (tmp_path / "csl.json").write_text(json.dumps({"id": 2, "abst": "摘要", "keyword": ["k1", "k2"], "label": "1"}))
    ((i, abst, kw, lab),) = _rows(ds.CLUEDataset(str(tmp_path / "csl.json"), task="CSL", shuffle=False))
    assert kw.tolist() == ["k1", "k2"] and str(abst) == "摘要" and str(lab) == "1" and int(i) == 2
    (tmp_path / "bad.json").write_text(json.dumps({"sentence1": "x"}) + "\n")
    with pytest.raises(DatasetError, match="bad.json, line 1: no key 'sentence2'"):
        ds.CLUEDataset(str(tmp_path / "bad.json"))
    with pytest.raises(ValueError, match="task must be one of"):
        ds.CLUEDataset(str(tmp_path / "bad.json"), task="C3")


# --- IWSLT --------------------------------------------------------------------------------------

def _iwslt_xml(sentences: list[str]) -> str:
    segs = "".join(f'<seg id="{i + 1}"> {s} </seg>\n' for i, s in enumerate(sentences))
    return f'<mteval>\n<srcset setid="x" srclang="de">\n<doc docid="1">\n<talkid>1</talkid>\n{segs}</doc>\n' \
           f"</srcset>\n</mteval>\n"


def test_iwslt2016_train_valid_test(tmp_path):
    folder = tmp_path / "texts" / "de" / "en" / "de-en"
    folder.mkdir(parents=True)
    (folder / "train.tags.de-en.de").write_text("<url>http://x</url>\n<talkid>1</talkid>\nHallo Welt\nDanke\n")
    (folder / "train.tags.de-en.en").write_text("<url>http://x</url>\n<title>T</title>\nHello world\nThanks\n")
    for s, (de, en) in {"tst2013": ("Gut", "Good"), "tst2014": ("Ja", "Yes"), "tst2012": ("Nein", "No")}.items():
        (folder / f"IWSLT16.TED.{s}.de-en.de.xml").write_text(_iwslt_xml([de]))
        (folder / f"IWSLT16.TED.{s}.de-en.en.xml").write_text(_iwslt_xml([en]))
    d = ds.IWSLT2016Dataset(str(tmp_path), usage="all", shuffle=False)
    assert d.get_col_names() == ["text", "translation"]
    assert [(str(a), str(b)) for a, b in _rows(d)] == [("Hallo Welt", "Hello world"), ("Danke", "Thanks"),
                                                       ("Gut", "Good"), ("Ja", "Yes")]
    other = ds.IWSLT2016Dataset(str(tmp_path), usage="valid", valid_set="tst2012", shuffle=False)
    assert [(str(a), str(b)) for a, b in _rows(other)] == [("Nein", "No")]
    with pytest.raises(ValueError, match="language_pair must be one of"):
        ds.IWSLT2016Dataset(str(tmp_path), language_pair=["de", "fr"])
    (folder / "train.tags.de-en.en").write_text("Hello world\n")
    with pytest.raises(DatasetError, match="has 2 sentences but .* has 1"):
        ds.IWSLT2016Dataset(str(tmp_path), usage="train")


def test_iwslt2017_reversed_pair(tmp_path):
    folder = tmp_path / "DeEnItNlRo" / "DeEnItNlRo" / "DeEnItNlRo-DeEnItNlRo"  # MindSpore's documented tree
    folder.mkdir(parents=True)
    (folder / "IWSLT17.TED.tst2010.it-en.it.xml").write_text(_iwslt_xml(["Ciao", "Grazie"]))
    (folder / "IWSLT17.TED.tst2010.it-en.en.xml").write_text(_iwslt_xml(["Hi", "Thanks"]))
    d = ds.IWSLT2017Dataset(str(tmp_path), usage="test", language_pair=("it", "en"), shuffle=False)
    assert [(str(a), str(b)) for a, b in _rows(d)] == [("Ciao", "Hi"), ("Grazie", "Thanks")]
    with pytest.raises(DatasetError, match="IWSLT17.TED.dev2010.it-en.it.xml"):
        ds.IWSLT2017Dataset(str(tmp_path), usage="valid", language_pair=["it", "en"])


# --- images -------------------------------------------------------------------------------------

def test_svhn_mat_layout_and_label_ten(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (32, 32, 3, 3), dtype=np.uint8)
    scipy.io.savemat(tmp_path / "train_32x32.mat", {"X": x, "y": np.array([[10], [3], [1]], np.uint8)})
    scipy.io.savemat(tmp_path / "test_32x32.mat", {"X": x[..., :1], "y": np.array([[5]], np.uint8)})
    rows = _rows(ds.SVHNDataset(str(tmp_path), usage="train", shuffle=False))
    assert [int(r[1]) for r in rows] == [0, 3, 1] and rows[0][1].dtype == np.uint32
    assert rows[0][0].shape == (32, 32, 3) and rows[0][0].dtype == np.uint8
    second = _rows(ds.SVHNDataset(str(tmp_path), usage="train", num_shards=3, shard_id=1, shuffle=False))
    assert [int(r[1]) for r in second] == [3]
    np.testing.assert_array_equal(rows[2][0], x[..., 2])
    assert ds.SVHNDataset(str(tmp_path), usage="test").get_dataset_size() == 1
    with pytest.raises(DatasetError, match="no extra_32x32.mat"):
        ds.SVHNDataset(str(tmp_path))


def test_food101_string_labels_and_decode(tmp_path):
    img = np.full((4, 5, 3), 9, np.uint8)
    for cls, ident in (("apple_pie", "1"), ("sushi", "2"), ("sushi", "3")):
        (tmp_path / "images" / cls).mkdir(parents=True, exist_ok=True)
        (tmp_path / "images" / cls / f"{ident}.jpg").write_bytes(_png(img))
    (tmp_path / "meta").mkdir()
    (tmp_path / "meta" / "train.txt").write_text("apple_pie/1\nsushi/2\n")
    (tmp_path / "meta" / "test.txt").write_text("sushi/3\n")
    rows = _rows(ds.Food101Dataset(str(tmp_path), shuffle=False, decode=True))
    assert [str(r[1]) for r in rows] == ["apple_pie", "sushi", "sushi"]
    np.testing.assert_array_equal(rows[0][0], img)
    raw = _rows(ds.Food101Dataset(str(tmp_path), usage="test"))
    assert raw[0][0].dtype == np.uint8 and raw[0][0].ndim == 1
    shards = [[str(r[1]) for r in _rows(ds.Food101Dataset(str(tmp_path), shuffle=False, num_shards=2, shard_id=k))]
              for k in (0, 1)]
    # equal shards, as MindSpore's: 3 rows in 2 shards are rows 0, 2 and rows 1, 0 (wrapped around)
    assert shards == [["apple_pie", "sushi"], ["sushi", "apple_pie"]]
    assert ds.Food101Dataset(str(tmp_path), num_samples=2).get_dataset_size() == 2


def test_flowers102_usage_order_and_segmentation(tmp_path):
    (tmp_path / "jpg").mkdir()
    (tmp_path / "segmim").mkdir()
    for i in range(1, 5):
        (tmp_path / "jpg" / f"image_{i:05d}.jpg").write_bytes(_png(np.full((2, 2, 3), i, np.uint8)))
        (tmp_path / "segmim" / f"segmim_{i:05d}.jpg").write_bytes(_png(np.full((2, 2, 3), 10 * i, np.uint8)))
    scipy.io.savemat(tmp_path / "imagelabels.mat", {"labels": np.array([[5, 1, 102, 7]])})
    scipy.io.savemat(tmp_path / "setid.mat", {"trnid": np.array([[3, 1]]), "valid": np.array([[4]]),
                                              "tstid": np.array([[2]])})
    rows = _rows(ds.Flowers102Dataset(str(tmp_path), decode=True, shuffle=False))
    assert [int(r[1]) for r in rows] == [101, 4, 0, 6]  # train (3, 1), test (2), valid (4)
    assert [int(r[0][0, 0, 0]) for r in rows] == [3, 1, 2, 4]
    seg = ds.Flowers102Dataset(str(tmp_path), task="Segmentation", usage="valid", decode=True)
    assert seg.get_col_names() == ["image", "segmentation", "label"]
    ((image, segment, label),) = _rows(seg)
    assert int(segment[0, 0, 0]) == 40 and int(label) == 6


def test_places365_listing_and_folders(tmp_path):
    (tmp_path / "categories_places365.txt").write_text("/a/airfield 0\n/b/bar 1\n")
    (tmp_path / "places365_train_standard.txt").write_text("/a/airfield/00000001.jpg 0\n/b/bar/00000001.jpg 1\n")
    (tmp_path / "places365_val.txt").write_text("Places365_val_00000001.jpg 1\n")
    for rel, v in (("data_256_standard/a/airfield/00000001.jpg", 1), ("data_256_standard/b/bar/00000001.jpg", 2),
                   ("val_256/Places365_val_00000001.jpg", 3)):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(_png(np.full((3, 3, 3), v, np.uint8)))
    d = ds.Places365Dataset(str(tmp_path), decode=True, shuffle=False)
    rows = _rows(d)
    assert [(int(r[0][0, 0, 0]), int(r[1])) for r in rows] == [(1, 0), (2, 1)]
    assert d.get_class_indexing() == {"/a/airfield": 0, "/b/bar": 1}
    ((img, lab),) = _rows(ds.Places365Dataset(str(tmp_path), usage="val", decode=True))
    assert int(img[0, 0, 0]) == 3 and int(lab) == 1
    with pytest.raises(DatasetError, match="data_large"):
        _rows(ds.Places365Dataset(str(tmp_path), small=False))


def test_kitti_objects(tmp_path):
    img_dir = tmp_path / "data_object_image_2" / "training" / "image_2"
    lab_dir = tmp_path / "data_object_label_2" / "training" / "label_2"
    img_dir.mkdir(parents=True)
    lab_dir.mkdir(parents=True)
    (img_dir / "000000.png").write_bytes(_png(np.zeros((2, 3, 3), np.uint8)))
    (lab_dir / "000000.txt").write_text(
        "Car 0.50 1 -1.5 10 20 30 40 1.5 1.6 3.9 1.0 2.0 30.0 0.25\n"
        "Pedestrian 0.00 0 0.2 5 6 7 8 1.7 0.6 0.8 -1.0 1.5 10.0 -0.5\n")
    d = ds.KITTIDataset(str(tmp_path), usage="train", decode=True, shuffle=False)
    assert d.get_col_names() == ["image", "label", "truncated", "occluded", "alpha", "bbox", "dimensions", "location",
                                 "rotation_y"]
    ((image, label, trunc, occ, alpha, bbox, dims, loc, rot),) = _rows(d)
    assert label.tolist() == [0, 3] and label.dtype == np.uint32 and occ.tolist() == [1, 0]
    np.testing.assert_allclose(bbox, [[10, 20, 30, 40], [5, 6, 7, 8]])
    np.testing.assert_allclose(rot, [0.25, -0.5])
    assert bbox.dtype == np.float32 and image.shape == (2, 3, 3) and dims.shape == (2, 3) and loc.shape == (2, 3)
    np.testing.assert_allclose(trunc, [0.5, 0.0])
    np.testing.assert_allclose(alpha, [-1.5, 0.2], rtol=1e-6)


def test_cityscapes_tasks(tmp_path):
    city = "aachen"
    (tmp_path / "leftImg8bit" / "val" / city).mkdir(parents=True)
    (tmp_path / "gtFine" / "val" / city).mkdir(parents=True)
    stem = f"{city}_000000_000019_"
    (tmp_path / "leftImg8bit" / "val" / city / f"{stem}leftImg8bit.png").write_bytes(
        _png(np.full((2, 2, 3), 7, np.uint8)))
    ids = np.array([[1, 2], [3, 4]], np.uint8)
    (tmp_path / "gtFine" / "val" / city / f"{stem}gtFine_labelIds.png").write_bytes(_png(ids))
    poly = {"imgHeight": 2, "objects": []}
    (tmp_path / "gtFine" / "val" / city / f"{stem}gtFine_polygons.json").write_text(json.dumps(poly))
    ((image, sem),) = _rows(ds.CityscapesDataset(str(tmp_path), usage="val", task="semantic", decode=True))
    np.testing.assert_array_equal(sem, ids)
    assert image.shape == (2, 2, 3)
    ((_, text),) = _rows(ds.CityscapesDataset(str(tmp_path), usage="val", task="polygon"))
    assert json.loads(str(text)) == poly
    with pytest.raises(DatasetError, match="has no annotation"):
        ds.CityscapesDataset(str(tmp_path), usage="val", task="instance")


def test_phototour_patches_and_matches(tmp_path):
    folder = tmp_path / "liberty"
    folder.mkdir()
    sheet = np.random.default_rng(2).integers(0, 256, (1024, 1024), dtype=np.uint8)
    Image.fromarray(sheet).save(folder / "patches0000.bmp")
    (folder / "info.txt").write_text("0 0\n1 0\n2 1\n")
    (folder / "m50_100000_100000_0.txt").write_text("0 0 0 1 0 0 0\n0 0 0 17 5 0 0\n")
    rows = _rows(ds.PhotoTourDataset(str(tmp_path), "liberty", shuffle=False))
    assert len(rows) == 3 and rows[0][0].shape == (64, 64, 1)
    np.testing.assert_array_equal(rows[1][0][..., 0], sheet[:64, 64:128])
    test = _rows(ds.PhotoTourDataset(str(tmp_path), "liberty", usage="test", shuffle=False))
    np.testing.assert_array_equal(test[1][1][..., 0], sheet[64:128, 64:128])  # patch 17: row 1, column 1
    assert [int(r[2]) for r in test] == [1, 0]
    with pytest.raises(ValueError, match="name must be one of"):
        ds.PhotoTourDataset(str(tmp_path), "paris")


def test_caltech101_categories_and_annotations(tmp_path):
    base = tmp_path / "101_ObjectCategories"
    for cls in ("Faces", "BACKGROUND_Google", "accordion"):
        (base / cls).mkdir(parents=True)
        (base / cls / "image_0001.jpg").write_bytes(_png(np.zeros((2, 2, 3), np.uint8)))
    contour = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    for folder in ("Faces_2", "accordion"):
        (tmp_path / "Annotations" / folder).mkdir(parents=True)
        scipy.io.savemat(tmp_path / "Annotations" / folder / "annotation_0001.mat",
                         {"obj_contour": contour, "box_coord": np.array([[1, 2, 3, 4]])})
    d = ds.Caltech101Dataset(str(tmp_path), target_type="all", shuffle=False)
    assert d.get_col_names() == ["image", "category", "annotation"]
    rows = _rows(d)
    assert [int(r[1]) for r in rows] == [0, 1]
    np.testing.assert_array_equal(rows[0][2], contour)
    assert d.get_class_indexing() == {"Faces": 0, "accordion": 1}
    assert ds.Caltech101Dataset(str(tmp_path)).get_col_names() == ["image", "category"]
