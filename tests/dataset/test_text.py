"""dataset.text (issue 14): tokenizers against `re`/hand-computed tokens and byte offsets, Vocab
and Lookup, BERT's tokenizers on BERT's documented examples, and a text-classification pipeline
(tokenize -> lookup -> pad -> batch) feeding nn.Embedding + nn.LSTM, in MindSpore's tutorial style."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
import spore.dataset as ds
import spore.dataset.text as text
import spore.dataset.transforms as T
from spore import nn


def test_tokenizers_and_offsets():
    s = np.array("héllo  wörld x")
    tokens, start, limit = text.WhitespaceTokenizer(with_offsets=True)(s)
    assert tokens.tolist() == ["héllo", "wörld", "x"]
    raw = str(s).encode("utf8")
    assert [raw[a:b].decode("utf8") for a, b in zip(start, limit)] == tokens.tolist()  # UTF-8 byte offsets
    assert text.UnicodeCharTokenizer()(np.array("añb")).tolist() == ["a", "ñ", "b"]
    # a delimiter is kept when it matches keep_delim_pattern as a whole: ", " does not, "," does
    assert text.RegexTokenizer(r"[\s,]+", r",")(np.array("a, b,c")).tolist() == ["a", "b", ",", "c"]
    assert text.RegexTokenizer(r"\s+")(np.array("a  b")).tolist() == ["a", "b"]
    assert text.PythonTokenizer(lambda t: t.split("-"))(np.array("x-y")).tolist() == ["x", "y"]
    with pytest.raises(ValueError, match="with_offsets"):
        text.BasicTokenizer(with_offsets=True)


def test_string_transforms():
    arr = np.array(["Straße", "ＡＢＣ"])
    assert text.CaseFold()(arr).tolist() == ["strasse", "ａｂｃ"]
    assert text.NormalizeUTF8()(arr).tolist() == ["Straße", "ABC"]
    assert text.RegexReplace("a+", "-")(np.array(["baaad aa"])).tolist() == ["b-d -"]
    assert text.RegexReplace("a", "-", replace_all=False)(np.array(["aaa"])).tolist() == ["-aa"]
    assert text.AddToken("[CLS]")(np.array(["x", "y"])).tolist() == ["[CLS]", "x", "y"]
    assert text.AddToken("[SEP]", begin=False)(np.array(["x"])).tolist() == ["x", "[SEP]"]
    assert text.Truncate(2)(np.array(["a", "b", "c"])).tolist() == ["a", "b"]
    a, b = text.TruncateSequencePair(4)(np.arange(5), np.arange(2))
    assert a.tolist() == [0, 1] and b.tolist() == [0, 1]
    assert text.Ngram(2, ("<s>", 1), ("</s>", 1), "_")(np.array(["a", "b"])).tolist() == ["<s>_a", "a_b", "b_</s>"]
    np.testing.assert_array_equal(text.SlidingWindow(3)(np.arange(5)), [[0, 1, 2], [1, 2, 3], [2, 3, 4]])
    np.testing.assert_array_equal(text.ToNumber(ms.float32)(np.array(["1.5", "-2"])), np.array([1.5, -2.0], np.float32))
    with pytest.raises(ValueError, match="ToNumber"):
        text.ToNumber(np.int32)(np.array(["x"]))
    assert text.to_str(text.to_bytes(np.array(["é"]))).tolist() == ["é"]


def test_vocab_and_lookup(tmp_path):
    v = text.Vocab.from_list(["a", "b", "c"], special_tokens=["<pad>", "<unk>"])
    assert v.vocab() == {"<pad>": 0, "<unk>": 1, "a": 2, "b": 3, "c": 4}
    assert v.tokens_to_ids(["c", "zz"]) == [4, -1] and v.ids_to_tokens([2, 9]) == ["a", ""]
    last = text.Vocab.from_list(["a"], special_tokens=["<unk>"], special_first=False)
    assert last.vocab() == {"a": 0, "<unk>": 1}
    f = tmp_path / "vocab.txt"
    f.write_text("x 10\ny 3\nz 1\n", encoding="utf-8")
    assert text.Vocab.from_file(str(f), delimiter=" ", vocab_size=2).vocab() == {"x": 0, "y": 1}
    lookup = text.Lookup(v, "<unk>")
    np.testing.assert_array_equal(lookup(np.array(["b", "q", "a"])), np.array([3, 1, 2], np.int32))
    with pytest.raises(ValueError, match="not in the vocabulary"):
        text.Lookup(v)(np.array(["q"]))
    data = ds.NumpySlicesDataset({"t": np.array(["b a b", "c b"])}, shuffle=False).map(text.WhitespaceTokenizer(), "t")
    counted = text.Vocab.from_dataset(data, "t", special_tokens=["<unk>"])
    assert counted.vocab() == {"<unk>": 0, "b": 1, "a": 2, "c": 3}  # by count, ties alphabetical
    assert text.Vocab.from_dataset(data, "t", top_k=1).vocab() == {"b": 0}


def test_bert_tokenizers_follow_the_reference_examples():
    basic = text.BasicTokenizer(lower_case=True)
    assert basic(np.array(" \tHeLLo!how  \n Are yoU?  ")).tolist() == ["hello", "!", "how", "are", "you", "?"]
    assert basic(np.array("Héllo 你好")).tolist() == ["hello", "你", "好"]
    assert text.BasicTokenizer()(np.array("HeLLo [UNK]")).tolist() == ["HeLLo", "[UNK]"]
    vocab = text.Vocab.from_list(["[UNK]", "[CLS]", "[SEP]", "want", "##want", "##ed", "wa", "un", "runn", "##ing"])
    wp = text.WordpieceTokenizer(vocab)
    assert wp(np.array(["unwanted", "running", "xyz"])).tolist() == ["un", "##want", "##ed", "runn", "##ing", "[UNK]"]
    bert = text.BertTokenizer(vocab, lower_case=True)
    assert bert(np.array("UNwanted running")).tolist() == ["un", "##want", "##ed", "runn", "##ing"]


class TextClassifier(nn.Cell):
    def __init__(self, vocab_size: int) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, 8, padding_idx=0)
        self.lstm = nn.LSTM(8, 16, batch_first=True)
        self.fc = nn.Dense(16, 2)

    def construct(self, ids):
        out, _ = self.lstm(self.embedding(ids))
        return self.fc(out[:, -1])


def test_a_text_classification_pipeline_trains():
    sentences = np.array(["good fine great", "bad awful", "great good", "awful bad bad", "fine", "bad"] * 4)
    labels = np.array([1, 0, 1, 0, 1, 0] * 4, np.int32)
    data = ds.NumpySlicesDataset({"text": sentences, "label": labels}, shuffle=False)
    data = data.map(text.WhitespaceTokenizer(), "text")
    vocab = text.Vocab.from_dataset(data, "text", special_tokens=["<pad>", "<unk>"])
    data = data.map([text.Lookup(vocab, "<unk>"), T.PadEnd([4], 0)], "text").batch(6)
    ms.set_seed(0)
    net = TextClassifier(len(vocab))
    loss_fn = nn.CrossEntropyLoss()
    opt = nn.Adam(net.trainable_params(), 0.05)

    def forward(ids, y):
        return loss_fn(net(ids), y)

    grad_fn = ms.value_and_grad(forward, None, opt.parameters)
    losses = []
    for _ in range(15):
        for ids, y in data.create_tuple_iterator():
            loss, grads = grad_fn(ids, y)
            opt(grads)
            losses.append(float(loss.asnumpy()))
    assert ids.shape == (6, 4) and ids.dtype == ms.int32
    assert losses[-1] < 0.2 * losses[0]
    pred = net(ms.Tensor(np.stack([text.Lookup(vocab, "<unk>")(np.array(["good", "great", "<pad>", "<pad>"]))])))
    assert int(pred.argmax(1).asnumpy()[0]) == 1
