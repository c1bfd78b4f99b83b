"""Word vectors from local files, ToVectors, UnicodeScriptTokenizer and FilterWikipediaXML."""

from __future__ import annotations

import numpy as np
import pytest

import spore.dataset as ds
import spore.dataset.text as text
from spore.dataset import DatasetError


def _write_vectors(path, header=False):
    rng = np.random.default_rng(0)
    table = {w: rng.standard_normal(3).astype(np.float32) for w in ["the", "cat", "Sat", "."]}
    lines = ([f"{len(table)} 3"] if header else []) + [w + " " + " ".join(f"{v:.6f}" for v in vec)
                                                         for w, vec in table.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {w: np.float32(np.round(v, 6)) for w, v in table.items()}


def test_vectors_from_file_and_to_vectors(tmp_path):
    table = _write_vectors(tmp_path / "glove.txt")
    glove = text.GloVe.from_file(str(tmp_path / "glove.txt"))
    assert glove.dim == 3 and glove.tokens == list(table)
    op = text.ToVectors(glove, unk_init=[9, 9, 9], lower_case_backup=True)
    out = op(np.array(["cat", "dog", "THE", "Sat"]))
    assert out.shape == (4, 3) and out.dtype == np.float32
    np.testing.assert_allclose(out[0], table["cat"], atol=1e-6)
    np.testing.assert_array_equal(out[1], [9, 9, 9])
    np.testing.assert_allclose(out[2], table["the"], atol=1e-6)
    np.testing.assert_allclose(out[3], table["Sat"], atol=1e-6)
    np.testing.assert_array_equal(text.ToVectors(glove)(np.array(["sat"]))[0], [0, 0, 0])
    _write_vectors(tmp_path / "wiki.vec", header=True)
    ft = text.FastText.from_file(str(tmp_path / "wiki.vec"), max_vectors=2)
    assert ft.tokens == ["the", "cat"]
    d = ds.NumpySlicesDataset({"t": [np.array(["the", "cat"])]}, shuffle=False).map(text.ToVectors(glove))
    (v,), = list(d.create_tuple_iterator(output_numpy=True))
    assert v.shape == (2, 3)
    (tmp_path / "bad.txt").write_text("a 1 2\nb 1 x\n")
    with pytest.raises(DatasetError, match=r"bad.txt, line 2"):
        text.CharNGram.from_file(str(tmp_path / "bad.txt"))
    with pytest.raises(DatasetError, match="missing.txt"):
        text.Vectors.from_file(str(tmp_path / "missing.txt"))


def test_unicode_script_tokenizer():
    tok = text.UnicodeScriptTokenizer()
    assert tok(np.array("Welcome to Beijing!")).tolist() == ["Welcome", "to", "Beijing", "!"]
    assert tok(np.array("北京欢迎您！abc123")).tolist() == ["北京欢迎您", "！", "abc", "123"]
    assert tok(np.array("Привет, мир")).tolist() == ["Привет", ",", "мир"]
    kept = text.UnicodeScriptTokenizer(keep_whitespace=True)(np.array("a  b"))
    assert kept.tolist() == ["a", "  ", "b"]
    tokens, starts, limits = text.UnicodeScriptTokenizer(with_offsets=True)(np.array("北京 ok"))
    assert tokens.tolist() == ["北京", "ok"] and starts.tolist() == [0, 7] and limits.tolist() == [6, 9]


def test_filter_wikipedia_xml():
    f = text.FilterWikipediaXML()
    got = f(np.array(["The [[Eiffel Tower|tower]] was built in 1889 &amp; <b>stands</b>{{cite web}}.",
                      "[[Category:Towers in Paris]] see [http://x.org link]"]))
    assert got.tolist() == ["the tower was built in one eight eight nine stands", "towers in paris see link"]
