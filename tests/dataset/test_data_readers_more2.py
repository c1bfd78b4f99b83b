"""GTZAN, TED-LIUM (NIST SPHERE + stm), LFW and SBD on tiny fake datasets in their release layouts."""

from __future__ import annotations

import io
import wave

import numpy as np
import pytest
import scipy.io
import scipy.sparse
from PIL import Image

import spore.dataset as ds
from spore.dataset import DatasetError


def _rows(d):
    return [tuple(np.asarray(c) for c in r) for r in d.create_tuple_iterator(output_numpy=True)]


def _write_wav(path, samples: np.ndarray, rate: int) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.astype("<i2").tobytes())


def _write_sph(path, samples: np.ndarray, rate: int, big_endian: bool = False) -> None:
    fields = (f"NIST_1A\n   1024\nsample_count -i {len(samples)}\nsample_rate -i {rate}\nchannel_count -i 1\n"
              f"sample_n_bytes -i 2\nsample_byte_format -s2 {'10' if big_endian else '01'}\n"
              "sample_coding -s3 pcm\nend_head\n").encode()
    path.write_bytes(fields.ljust(1024, b" ") + samples.astype(">i2" if big_endian else "<i2").tobytes())


def _jpg(value: int) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(np.full((4, 4, 3), value, np.uint8)).save(buf, format="PNG")
    return buf.getvalue()


def test_gtzan_genres(tmp_path):
    rng = np.random.default_rng(0)
    expected = {}
    for genre, n in (("blues", 2), ("rock", 1)):
        (tmp_path / genre).mkdir()
        for i in range(n):
            s = rng.integers(-3000, 3000, 50)
            _write_wav(tmp_path / genre / f"{genre}.{i:05d}.wav", s, 22050)
            expected[(genre, i)] = s / 32768.0
    rows = _rows(ds.GTZANDataset(str(tmp_path), shuffle=False))
    assert [str(r[2]) for r in rows] == ["blues", "blues", "rock"]
    np.testing.assert_allclose(rows[1][0][0], expected[("blues", 1)], rtol=1e-6)
    assert rows[0][0].dtype == np.float32 and int(rows[0][1]) == 22050 and rows[0][1].dtype == np.uint32
    with pytest.raises(ValueError, match="fault-filtered split"):
        ds.GTZANDataset(str(tmp_path), usage="train")


def test_tedlium_segments_from_stm(tmp_path):
    rate = 1000
    talk = np.arange(3000, dtype=np.int64) - 1500
    for part in ("train", "test"):
        (tmp_path / "TEDLIUM_release1" / part / "sph").mkdir(parents=True)
        (tmp_path / "TEDLIUM_release1" / part / "stm").mkdir(parents=True)
    _write_sph(tmp_path / "TEDLIUM_release1" / "train" / "sph" / "Talk1.sph", talk, rate)
    (tmp_path / "TEDLIUM_release1" / "train" / "stm" / "Talk1.stm").write_text(
        "Talk1 1 Speaker_A 0.5 1.25 <o,f0,male> hello there\nTalk1 1 Speaker_A 2.0 2.5 <o,f0,male> bye\n")
    _write_sph(tmp_path / "TEDLIUM_release1" / "test" / "sph" / "Talk2.sph", talk[:1000], rate, big_endian=True)
    (tmp_path / "TEDLIUM_release1" / "test" / "stm" / "Talk2.stm").write_text("Talk2 1 B 0.0 0.1 <o> x\n")
    d = ds.TedliumDataset(str(tmp_path), "release1", usage="train", shuffle=False)
    assert d.get_col_names() == ["waveform", "sample_rate", "transcript", "talk_id", "speaker_id", "identifier"]
    (w1, r1, t1, talk_id, spk, ident), (w2, _, t2, *_) = _rows(d)
    np.testing.assert_allclose(w1[0], talk[500:1250] / 32768.0, rtol=1e-6)
    np.testing.assert_allclose(w2[0], talk[2000:2500] / 32768.0, rtol=1e-6)
    assert r1.dtype == np.int32  # MindSpore documents int32 for TED-LIUM's sample_rate
    assert ds.TedliumDataset(str(tmp_path / "TEDLIUM_release1"), "release1", usage="train").get_dataset_size() == 2
    assert (int(r1), str(t1), str(t2), str(talk_id), str(spk), str(ident)) == (
        1000, "hello there", "bye", "Talk1", "Speaker_A", "<o,f0,male>")
    ((wt, *_),) = _rows(ds.TedliumDataset(str(tmp_path), "release1", usage="test"))
    np.testing.assert_allclose(wt[0], talk[:100] / 32768.0, rtol=1e-6)  # big-endian samples
    assert ds.TedliumDataset(str(tmp_path), "release1").get_dataset_size() == 3
    with pytest.raises(DatasetError, match="no folder .*dev"):
        ds.TedliumDataset(str(tmp_path), "release1", usage="dev")
    with pytest.raises(ValueError, match="release3 has one part"):
        ds.TedliumDataset(str(tmp_path), "release3", usage="train")


def test_lfw_people_and_pairs(tmp_path):
    images = tmp_path / "lfw_funneled"
    for name, n in (("Ann_Lee", 2), ("Bo_Chen", 1)):
        (images / name).mkdir(parents=True)
        for k in range(1, n + 1):
            (images / name / f"{name}_{k:04d}.jpg").write_bytes(_jpg(10 * k + len(name)))
    (tmp_path / "lfw-names.txt").write_text("Ann_Lee\t2\nBo_Chen\t1\n")
    (tmp_path / "peopleDevTrain.txt").write_text("1\nAnn_Lee\t2\n")
    (tmp_path / "peopleDevTest.txt").write_text("1\nBo_Chen\t1\n")
    d = ds.LFWDataset(str(tmp_path), decode=True, shuffle=False)
    rows = _rows(d)
    assert [int(r[1]) for r in rows] == [0, 0, 1]
    assert [int(r[0][0, 0, 0]) for r in rows] == [17, 27, 17]
    assert d.get_class_indexing() == {"Ann_Lee": 0, "Bo_Chen": 1}
    odd = _rows(ds.LFWDataset(str(tmp_path), num_shards=2, shard_id=1, shuffle=False))
    assert [int(r[1]) for r in odd] == [0, 0] and odd[0][0].ndim == 1  # rows 1 and 0 (wrapped); undecoded bytes
    (tmp_path / "pairsDevTrain.txt").write_text("1\nAnn_Lee\t1\t2\nAnn_Lee\t1\tBo_Chen\t1\n")
    pairs = _rows(ds.LFWDataset(str(tmp_path), task="pairs", usage="train", decode=True, shuffle=False))
    assert [(int(a[0, 0, 0]), int(b[0, 0, 0]), int(lab)) for a, b, lab in pairs] == [(17, 27, 1), (17, 17, 0)]
    (tmp_path / "pairsDevTest.txt").write_text("2\nAnn_Lee\t1\t2\n")
    with pytest.raises(DatasetError, match="counts in it do not match"):
        ds.LFWDataset(str(tmp_path), task="pairs", usage="test")


def test_sbd_boundaries_and_segmentation(tmp_path):
    (tmp_path / "img").mkdir()
    (tmp_path / "cls").mkdir()
    seg = np.array([[0, 1, 1], [2, 2, 0]], np.uint8)
    cells = np.empty((20, 1), dtype=object)
    for k in range(20):
        m = np.zeros((2, 3), np.uint8)
        m[k % 2, k % 3] = 1
        cells[k, 0] = scipy.sparse.csc_matrix(m)
    for ident in ("2008_000002", "2008_000003"):
        (tmp_path / "img" / f"{ident}.jpg").write_bytes(_jpg(50))
        scipy.io.savemat(tmp_path / "cls" / f"{ident}.mat",
                         {"GTcls": {"Boundaries": cells, "Segmentation": seg, "CategoriesPresent": np.array([1, 2])}})
    (tmp_path / "train.txt").write_text("2008_000002\n")
    (tmp_path / "val.txt").write_text("2008_000003\n")
    rows = _rows(ds.SBDataset(str(tmp_path), shuffle=False))
    assert len(rows) == 2
    bounds = rows[0][1]
    assert bounds.shape == (20, 2, 3) and bounds.dtype == np.uint8
    assert all(bounds[k, k % 2, k % 3] == 1 and bounds[k].sum() == 1 for k in range(20))
    ((image, target),) = _rows(ds.SBDataset(str(tmp_path), task="Segmentation", usage="val", decode=True))
    np.testing.assert_array_equal(target, seg)
    assert image.shape == (4, 4, 3)
    with pytest.raises(ValueError, match="task must be 'Boundaries' or 'Segmentation'"):
        ds.SBDataset(str(tmp_path), task="Edges")


def test_lsun_folders_labels_and_classes(tmp_path):
    for folder, values in (("bedroom_train", [1, 2]), ("bedroom_val", [3]), ("classroom_train", [4]),
                           ("tower_val", [5]), ("test", [6, 7])):
        (tmp_path / folder).mkdir()
        for k, v in enumerate(values):
            (tmp_path / folder / f"{k}.jpg").write_bytes(_jpg(v))
    rows = _rows(ds.LSUNDataset(str(tmp_path), decode=True, shuffle=False))
    # 'all': the folders sorted (bedroom_train, bedroom_val, classroom_train, tower_val), label = position
    assert [(int(img[0, 0, 0]), int(lab)) for img, lab in rows] == [(1, 0), (2, 0), (3, 1), (4, 2), (5, 3)]
    train = _rows(ds.LSUNDataset(str(tmp_path), usage="train", classes=["classroom", "bedroom"], decode=True,
                                 shuffle=False))
    assert [(int(img[0, 0, 0]), int(lab)) for img, lab in train] == [(1, 0), (2, 0), (4, 1)]
    valid = _rows(ds.LSUNDataset(str(tmp_path), usage="valid", classes="tower", decode=True))
    assert [(int(img[0, 0, 0]), int(lab)) for img, lab in valid] == [(5, 0)]
    test = _rows(ds.LSUNDataset(str(tmp_path), usage="test", shuffle=False))
    assert len(test) == 2 and all(int(lab) == 0 for _, lab in test) and test[0][0].ndim == 1
    with pytest.raises(DatasetError, match="no images"):
        ds.LSUNDataset(str(tmp_path), usage="train", classes=["kitchen"])
