"""SentencePieceVocab trained on a tiny generated corpus; SentencePieceTokenizer in a pipeline."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import sentencepiece as spm

import spore.dataset as ds
import spore.dataset.text as text

_WORDS = ["low", "lower", "newest", "widest", "new", "wide", "old", "older", "oldest", "show"]


def _corpus(n: int = 200) -> list[str]:
    rng = np.random.default_rng(0)
    return [" ".join(rng.choice(_WORDS, size=6)) for _ in range(n)]


@pytest.fixture(scope="module")
def vocab():
    data = ds.NumpySlicesDataset({"text": np.array(_corpus())}, shuffle=False)
    return text.SentencePieceVocab.from_dataset(data, ["text"], 40, 1.0, text.SentencePieceModel.BPE, {})


def test_tokenizer_pieces_and_ids_agree_with_the_model(vocab, tmp_path):
    text.SentencePieceVocab.save_model(vocab, str(tmp_path), "m.model")
    sp = spm.SentencePieceProcessor(model_file=str(tmp_path / "m.model"))
    assert sp.get_piece_size() == 40
    sentence = "the newest wide show"
    pieces = text.SentencePieceTokenizer(vocab, text.SPieceTokenizerOutType.STRING)(sentence)
    ids = text.SentencePieceTokenizer(str(tmp_path / "m.model"), text.SPieceTokenizerOutType.INT)(np.array(sentence))
    assert pieces.dtype.kind == "U" and ids.dtype == np.int32
    assert [sp.piece_to_id(p) for p in pieces] == ids.tolist()
    assert "".join(pieces).replace("\u2581", " ").strip() == sentence  # pieces cover the text exactly
    assert sp.decode(ids.tolist()) == sentence
    assert len(pieces) < len(sentence.replace(" ", ""))  # BPE merged characters into subwords
    with pytest.raises(TypeError, match="expected one string"):
        text.SentencePieceTokenizer(vocab, text.SPieceTokenizerOutType.INT)(np.array(["a", "b"]))


def test_from_file_matches_from_dataset_and_model_types(vocab, tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(_corpus()) + "\n")
    other = text.SentencePieceVocab.from_file([str(path)], 40, 1.0, text.SentencePieceModel.BPE, {})
    a = text.SentencePieceTokenizer(vocab, text.SPieceTokenizerOutType.INT)("oldest lower")
    b = text.SentencePieceTokenizer(other, text.SPieceTokenizerOutType.INT)("oldest lower")
    assert a.tolist() == b.tolist()
    chars = text.SentencePieceVocab.from_file([str(path)], 30, 1.0, text.SentencePieceModel.CHAR, {})
    pieces = text.SentencePieceTokenizer(chars, text.SPieceTokenizerOutType.STRING)("low")
    assert pieces.tolist() == ["\u2581", "l", "o", "w"]  # one piece per character
    uni = text.SentencePieceVocab.from_file([str(path)], 20, 1.0, "unigram", {"input_sentence_size": 1000})
    assert text.SentencePieceTokenizer(uni, text.SPieceTokenizerOutType.INT)("low").size >= 1
    with pytest.raises(ValueError, match="model_type must be a SentencePieceModel"):
        text.SentencePieceVocab.from_file([str(path)], 30, 1.0, "bigram", {})
    with pytest.raises(ValueError, match="vocab_size must be a positive int"):
        text.SentencePieceVocab.from_file([str(path)], 0, 1.0, text.SentencePieceModel.BPE, {})
    with pytest.raises(ValueError, match="training failed"):
        text.SentencePieceVocab.from_file([str(path)], 100000, 1.0, text.SentencePieceModel.BPE, {})


def test_tokenizer_in_a_pipeline_and_pickled(vocab):
    tok = text.SentencePieceTokenizer(vocab, text.SPieceTokenizerOutType.INT)
    clone = pickle.loads(pickle.dumps(tok))
    data = ds.NumpySlicesDataset({"text": np.array(["old show", "newest"])}, shuffle=False)
    rows = [r[0] for r in data.map(clone, input_columns="text").create_tuple_iterator(output_numpy=True)]
    assert [r.tolist() for r in rows] == [tok("old show").tolist(), tok("newest").tolist()]
    assert ds.SentencePieceModel is text.SentencePieceModel
    assert text.SPieceTokenizerLoadType.FILE == 0 and text.SPieceTokenizerLoadType.MODEL == 1
    assert [int(m) for m in text.SentencePieceModel] == [0, 1, 2, 3]  # MindSpore's IntEnum values
    assert text.SPieceTokenizerOutType.STRING == 0 and text.SPieceTokenizerOutType.INT == 1
    assert tok.load_type == text.SPieceTokenizerLoadType.MODEL


def test_tokenizer_pipeline_serializes_with_its_model(vocab):
    import json

    data = ds.NumpySlicesDataset({"text": np.array(["old show", "newest wide"])}, shuffle=False)
    data = data.map(text.SentencePieceTokenizer(vocab, text.SPieceTokenizerOutType.INT), input_columns="text")
    again = ds.deserialize(input_dict=json.loads(json.dumps(ds.serialize(data))))
    rows = [[r[0].tolist() for r in d.create_tuple_iterator(output_numpy=True)] for d in (data, again)]
    assert rows[0] == rows[1] and len(rows[0]) == 2
