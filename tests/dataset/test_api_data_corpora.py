"""Text and audio corpora on files written here (WAV files by the standard library's wave module)."""

from __future__ import annotations

import json
import wave

import numpy as np
import pytest

import spore.dataset as ds
from spore.dataset import DatasetError


def _rows(d):
    return [tuple(np.asarray(c) for c in r) for r in d.create_tuple_iterator(output_numpy=True)]


def _wav(path, samples, rate=8000, width=2, channels=1):
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(samples.tobytes())


def test_yesno_and_wav_scaling(tmp_path):
    pcm = np.array([0, 16384, -32768, 32767], "<i2")
    _wav(tmp_path / "0_1_1_0_0_0_1_0.wav", pcm)
    _wav(tmp_path / "1_1_1_1_0_0_0_0.wav", np.array([128, 255, 0], np.uint8), rate=4000, width=1)
    (w1, r1, l1), (w2, r2, l2) = _rows(ds.YesNoDataset(str(tmp_path), shuffle=False))
    np.testing.assert_array_equal(w1, pcm[None].astype(np.float32) / 32768)
    assert int(r1) == 8000 and l1.tolist() == [0, 1, 1, 0, 0, 0, 1, 0]
    np.testing.assert_array_equal(w2, [[0.0, 127 / 128, -1.0]])
    assert int(r2) == 4000 and w1.dtype == np.float32
    (tmp_path / "1_0_0_0_0_0_0_0.wav").write_bytes(b"RIFFjunk")
    with pytest.raises(DatasetError, match=r"1_0_0_0_0_0_0_0.wav: .*not a WAVE file \(row 1\)"):
        _rows(ds.YesNoDataset(str(tmp_path), shuffle=False))


def test_stereo_ljspeech_and_cmu_arctic(tmp_path):
    stereo = np.array([[1, -1], [2, -2], [3, -3]], "<i2")
    _wav(tmp_path / "lj" / "wavs" / "LJ001-0001.wav", stereo, channels=2)
    (tmp_path / "lj" / "metadata.csv").write_text("LJ001-0001|Printing, in 1 sense|Printing, in one sense\n")
    ((wave_, rate, t, n),) = _rows(ds.LJSpeechDataset(str(tmp_path / "lj")))
    np.testing.assert_array_equal(wave_, stereo.T.astype(np.float32) / 32768)
    assert (str(t), str(n)) == ("Printing, in 1 sense", "Printing, in one sense")
    spk = tmp_path / "cmu" / "cmu_us_aew_arctic"
    _wav(spk / "wav" / "arctic_a0001.wav", np.zeros(5, "<i2"), rate=16000)
    (spk / "etc").mkdir()
    (spk / "etc" / "txt.done.data").write_text('( arctic_a0001 "Author of the danger trail." )\n')
    ((w, r, text, uid),) = _rows(ds.CMUArcticDataset(str(tmp_path / "cmu")))
    assert w.shape == (1, 5) and int(r) == 16000 and str(text) == "Author of the danger trail."
    assert str(uid) == "arctic_a0001"


def test_squad(tmp_path):
    data = {"data": [{"title": "T", "paragraphs": [{"context": "Spore runs on CPUs.", "qas": [
        {"question": "What does it run on?", "id": "1", "answers": [{"text": "CPUs", "answer_start": 14}]},
        {"question": "Unanswerable?", "id": "2", "answers": [], "is_impossible": True}]}]}]}
    (tmp_path / "dev-v2.0.json").write_text(json.dumps(data))
    (c, q, t, s), (_, _, t2, s2) = _rows(ds.SQuADDataset(str(tmp_path), usage="dev", shuffle=False))
    assert str(c) == "Spore runs on CPUs." and t.tolist() == ["CPUs"] and s.tolist() == [14]
    assert str(c)[int(s[0]):int(s[0]) + 4] == "CPUs"
    assert t2.tolist() == [""] and s2.dtype == np.uint32
    with pytest.raises(DatasetError, match="train-v1.1.json"):
        ds.SQuADDataset(str(tmp_path), usage="train")


def test_conll_udpos_sst2(tmp_path):
    (tmp_path / "train.txt").write_text("Confidence NN B-NP\nin IN B-PP\n\nThe DT B-NP\n")
    rows = _rows(ds.CoNLL2000Dataset(str(tmp_path), usage="train", shuffle=False))
    assert [r[0].tolist() for r in rows] == [["Confidence", "in"], ["The"]]
    assert rows[0][2].tolist() == ["B-NP", "B-PP"]
    (tmp_path / "en-ud-tag.v2.dev.txt").write_text("Hello\tINTJ\tUH\n!\tPUNCT\t.\n\n")
    ((w, u, s),) = _rows(ds.UDPOSDataset(str(tmp_path), usage="valid"))
    assert w.tolist() == ["Hello", "!"] and u.tolist() == ["INTJ", "PUNCT"] and s.tolist() == ["UH", "."]
    (tmp_path / "test.txt").write_text("bad line\n")
    with pytest.raises(DatasetError, match=r"test.txt, line 1: 2 field\(s\), expected 3"):
        ds.CoNLL2000Dataset(str(tmp_path), usage="test")
    (tmp_path / "train.tsv").write_text("sentence\tlabel\nhide new secretions \t0\ngreat fun\t1\n")
    rows = _rows(ds.SST2Dataset(str(tmp_path), usage="train", shuffle=False))
    assert [(str(a), int(b)) for a, b in rows] == [("hide new secretions ", 0), ("great fun", 1)]
    (tmp_path / "test.tsv").write_text("index\tsentence\n0\tuneasy mishmash\n")
    d = ds.SST2Dataset(str(tmp_path), usage="test")
    assert d.get_col_names() == ["sentence"] and str(_rows(d)[0][0]) == "uneasy mishmash"


def test_libritts(tmp_path):
    c = tmp_path / "LibriTTS" / "dev-clean" / "84" / "121123"
    _wav(c / "84_121123_000007_000001.wav", np.array([100, -100], "<i2"), rate=24000)
    (c / "84_121123_000007_000001.original.txt").write_text("Go, do you hear?")
    (c / "84_121123_000007_000001.normalized.txt").write_text("Go, do you hear?")
    ((w, r, orig, norm, spk, chap, uid),) = _rows(ds.LibriTTSDataset(str(tmp_path), usage="dev-clean"))
    assert int(r) == 24000 and w.shape == (1, 2) and str(orig) == "Go, do you hear?"
    assert (int(spk), int(chap), str(uid)) == (84, 121123, "84_121123_000007_000001")
    assert ds.LibriTTSDataset(str(tmp_path)).get_dataset_size() == 1
    (c / "84_121123_000007_000001.normalized.txt").unlink()
    with pytest.raises(DatasetError, match="normalized.txt"):
        ds.LibriTTSDataset(str(tmp_path), usage="dev-clean")
