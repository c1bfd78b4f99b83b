"""``spore.dataset.text``: MindSpore's text transforms, a first set (issue 14).

Strings travel through the pipeline as NumPy ``str_`` arrays (read them with
``output_numpy=True``; a Tensor holds numbers only). Tokenizers give a 1-D array of tokens, or with
``with_offsets=True`` the tuple (tokens, offsets_start, offsets_limit) of UTF-8 byte offsets, as in
MindSpore. `Vocab` maps tokens to ids (built from a list, a dict, a file or a dataset column) and
`Lookup` applies it. `BasicTokenizer`, `WordpieceTokenizer` and `BertTokenizer` follow BERT's
reference tokenizer. SentencePiece goes through the ``sentencepiece`` package (see
``text_sentencepiece``); the names that need jieba raise NotSupportedError saying so (see
spore._missing).
"""

from __future__ import annotations

import collections
import enum
import re
import typing as _typing
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from .transforms.base import TensorOperation
from .transforms.transforms import np_dtype

__all__ = ["AddToken", "BasicTokenizer", "BertTokenizer", "CaseFold", "Lookup", "Ngram", "NormalizeForm",
           "NormalizeUTF8", "PythonTokenizer", "RegexReplace", "RegexTokenizer", "SlidingWindow", "ToNumber",
           "Truncate", "TruncateSequencePair", "UnicodeCharTokenizer", "Vocab", "WhitespaceTokenizer",
           "WordpieceTokenizer", "to_bytes", "to_str"]


def _strings(x: Any) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype.kind == "S":
        arr = np.char.decode(arr, "utf8")
    if arr.dtype.kind != "U":
        raise TypeError(f"expected strings, got an array of {arr.dtype}")
    return arr


def _one_string(x: Any, op: str) -> str:
    arr = _strings(x)
    if arr.ndim != 0:
        raise ValueError(f"{op}: expected one string (a 0-d array), got shape {arr.shape}")
    return str(arr)


def _tokens_out(text: str, spans: list[tuple[int, int]], with_offsets: bool) -> Any:
    tokens = np.array([text[a:b] for a, b in spans], dtype=str)
    if not with_offsets:
        return tokens
    byte_at = np.cumsum([0] + [len(ch.encode("utf8")) for ch in text])
    starts = np.array([byte_at[a] for a, _ in spans], np.uint32)
    limits = np.array([byte_at[b] for _, b in spans], np.uint32)
    return tokens, starts, limits


class _Tokenizer(TensorOperation):
    _pattern = r"\S+"

    def __init__(self, with_offsets: bool = False) -> None:
        self.with_offsets = bool(with_offsets)

    def _spans(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for m in re.finditer(self._pattern, text)]

    def _apply(self, x: Any) -> Any:
        text = _one_string(x, type(self).__name__)
        return _tokens_out(text, self._spans(text), self.with_offsets)


class WhitespaceTokenizer(_Tokenizer):
    """Split on ICU/Unicode whitespace."""


class UnicodeCharTokenizer(_Tokenizer):
    """One token per Unicode character."""

    _pattern = r"(?s)."


class RegexTokenizer(_Tokenizer):
    """Split on `delim_pattern`; delimiters matching `keep_delim_pattern` are kept as tokens."""

    def __init__(self, delim_pattern: str, keep_delim_pattern: str = "", with_offsets: bool = False) -> None:
        super().__init__(with_offsets)
        self.delim_pattern, self.keep_delim_pattern = re.compile(delim_pattern), keep_delim_pattern
        self._keep = re.compile(keep_delim_pattern) if keep_delim_pattern else None

    def _spans(self, text: str) -> list[tuple[int, int]]:
        spans, pos = [], 0
        for m in self.delim_pattern.finditer(text):
            if m.start() > pos:
                spans.append((pos, m.start()))
            if self._keep is not None and m.end() > m.start() and self._keep.fullmatch(m.group()):
                spans.append(m.span())
            pos = max(pos, m.end())
        if pos < len(text):
            spans.append((pos, len(text)))
        return spans


class PythonTokenizer(TensorOperation):
    """Tokenize with a Python function ``tokenizer(str) -> list of str``."""

    def __init__(self, tokenizer: Callable[[str], Sequence[str]]) -> None:
        if not callable(tokenizer):
            raise TypeError(f"PythonTokenizer: tokenizer must be callable, got {type(tokenizer).__name__}")
        self.tokenizer = tokenizer

    def _apply(self, x: Any) -> np.ndarray:
        return np.array(list(self.tokenizer(_one_string(x, "PythonTokenizer"))), dtype=str)


class NormalizeForm(enum.IntEnum):
    """Unicode normalization forms for `NormalizeUTF8` and the BERT tokenizers."""

    NONE = 0
    NFC = 1
    NFKC = 2
    NFD = 3
    NFKD = 4


def _normalize(arr: np.ndarray, form: NormalizeForm) -> np.ndarray:
    if form is NormalizeForm.NONE:
        return arr
    return np.vectorize(lambda s: unicodedata.normalize(form.name, s), otypes=[str])(arr) if arr.size else arr


class NormalizeUTF8(TensorOperation):
    """Unicode-normalize every string (NFKC by default)."""

    def __init__(self, normalize_form: NormalizeForm = NormalizeForm.NFKC) -> None:
        self.normalize_form = NormalizeForm(normalize_form)

    def _apply(self, x: Any) -> np.ndarray:
        return _normalize(_strings(x), self.normalize_form)


class CaseFold(TensorOperation):
    """Case-fold every string (Unicode full case folding: ``str.casefold``)."""

    def _apply(self, x: Any) -> np.ndarray:
        arr = _strings(x)
        return np.vectorize(str.casefold, otypes=[str])(arr) if arr.size else arr


class RegexReplace(TensorOperation):
    """Replace `pattern` by `replace` in every string (only the first match unless `replace_all`)."""

    def __init__(self, pattern: str, replace: str, replace_all: bool = True) -> None:
        self.pattern, self.replace, self.replace_all = re.compile(pattern), replace, bool(replace_all)

    def _apply(self, x: Any) -> np.ndarray:
        arr = _strings(x)
        count = 0 if self.replace_all else 1
        return np.vectorize(lambda s: self.pattern.sub(self.replace, s, count=count), otypes=[str])(arr) \
            if arr.size else arr


class AddToken(TensorOperation):
    """`token` added at the beginning (or the end) of a 1-D token array."""

    def __init__(self, token: str, begin: bool = True) -> None:
        self.token, self.begin = str(token), bool(begin)

    def _apply(self, x: Any) -> np.ndarray:
        arr = _strings(x).reshape(-1)
        extra = np.array([self.token])
        return np.concatenate([extra, arr] if self.begin else [arr, extra])


class Truncate(TensorOperation):
    """The first `max_seq_len` elements of a 1-D (or the last axis of a 2-D) array."""

    def __init__(self, max_seq_len: int) -> None:
        if isinstance(max_seq_len, bool) or not isinstance(max_seq_len, int) or max_seq_len < 1:
            raise ValueError(f"Truncate: max_seq_len must be a positive int, got {max_seq_len!r}")
        self.max_seq_len = max_seq_len

    def _apply(self, x: Any) -> np.ndarray:
        arr = np.asarray(x)
        return arr[..., :self.max_seq_len]


class TruncateSequencePair(TensorOperation):
    """Two sequences cut (the longer one first, one element at a time) to a total of `max_length`."""

    _num_inputs = 2

    def __init__(self, max_length: int) -> None:
        self.max_length = int(max_length)

    def _apply(self, a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
        x, y = np.asarray(a), np.asarray(b)
        la, lb = len(x), len(y)
        while la + lb > self.max_length:
            if la > lb:
                la -= 1
            else:
                lb -= 1
        return x[:la], y[:lb]


class SlidingWindow(TensorOperation):
    """The windows of `width` consecutive elements along `axis`: shape (n - width + 1, width) for 1-D."""

    def __init__(self, width: int, axis: int = 0) -> None:
        if isinstance(width, bool) or not isinstance(width, int) or width < 1:
            raise ValueError(f"SlidingWindow: width must be a positive int, got {width!r}")
        self.width, self.axis = width, axis

    def _apply(self, x: Any) -> np.ndarray:
        arr = np.asarray(x)
        if arr.shape[self.axis] < self.width:
            return np.zeros((0, self.width) + arr.shape[1:] if arr.ndim > 1 else (0, self.width), arr.dtype)
        windows = np.lib.stride_tricks.sliding_window_view(arr, self.width, axis=self.axis)
        return np.ascontiguousarray(np.moveaxis(windows, -1, self.axis + 1) if arr.ndim > 1 else windows)


class Ngram(TensorOperation):
    """The n-grams of a 1-D token array for each n in `n`, joined by `separator`, after padding with
    ``left_pad = (token, count)`` and ``right_pad``."""

    def __init__(self, n: int | Sequence[int], left_pad: tuple[str, int] = ("", 0),
                 right_pad: tuple[str, int] = ("", 0), separator: str = " ") -> None:
        self.n = [n] if isinstance(n, int) else list(n)
        if not self.n or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in self.n):
            raise ValueError(f"Ngram: n must be a positive int or a list of them, got {n!r}")
        self.left_pad, self.right_pad, self.separator = tuple(left_pad), tuple(right_pad), str(separator)

    def _apply(self, x: Any) -> np.ndarray:
        tokens = list(_strings(x).reshape(-1))
        padded = [self.left_pad[0]] * int(self.left_pad[1]) + tokens + [self.right_pad[0]] * int(self.right_pad[1])
        out = [self.separator.join(padded[i:i + k]) for k in self.n for i in range(len(padded) - k + 1)]
        return np.array(out, dtype=str)


class ToNumber(TensorOperation):
    """Strings parsed as numbers of `data_type`; a string that is not one is an error naming it."""

    def __init__(self, data_type: Any) -> None:
        self.data_type = np_dtype(data_type)

    def _apply(self, x: Any) -> np.ndarray:
        arr = _strings(x)
        kind = float if self.data_type.kind == "f" else int
        try:
            return np.vectorize(kind, otypes=[self.data_type])(arr) if arr.size else arr.astype(self.data_type)
        except ValueError as e:
            raise ValueError(f"ToNumber: {e}") from None


# --- vocabularies ----------------------------------------------------------------------------------------
class Vocab:
    """A token -> id table (MindSpore's ``text.Vocab``): build it with `from_list`, `from_dict`,
    `from_file` or `from_dataset`."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}

    @staticmethod
    def _build(tokens: Iterable[str], special_tokens: Sequence[str] | None, special_first: bool) -> Vocab:
        v = Vocab()
        specials = list(special_tokens or [])
        ordered = (specials if special_first else []) + [t for t in tokens if t not in specials]
        ordered += [] if special_first else specials
        for t in ordered:
            if t in v._ids:
                raise ValueError(f"Vocab: the token {t!r} appears twice")
            v._ids[t] = len(v._ids)
        return v

    @classmethod
    def from_list(cls, word_list: Sequence[str], special_tokens: Sequence[str] | None = None,
                  special_first: bool = True) -> Vocab:
        """Ids in list order (special tokens first, or last)."""
        return cls._build([str(w) for w in word_list], special_tokens, special_first)

    @classmethod
    def from_dict(cls, word_dict: dict[str, int]) -> Vocab:
        """The given token -> id mapping."""
        v = cls()
        for t, i in word_dict.items():
            if isinstance(i, bool) or not isinstance(i, int) or i < 0:
                raise ValueError(f"Vocab.from_dict: ids must be non-negative ints, got {t!r}: {i!r}")
            v._ids[str(t)] = i
        return v

    @classmethod
    def from_file(cls, file_path: str, delimiter: str = "", vocab_size: int | None = None,
                  special_tokens: Sequence[str] | None = None, special_first: bool = True) -> Vocab:
        """One token per line (the text before `delimiter` when it is given), the first `vocab_size`."""
        with open(file_path, encoding="utf-8") as f:
            words = [line.rstrip("\n\r") for line in f]
        words = [w.split(delimiter)[0] if delimiter else w for w in words if w]
        return cls._build(words[:vocab_size] if vocab_size else words, special_tokens, special_first)

    @classmethod
    def from_dataset(cls, dataset: Any, columns: Any = None, freq_range: tuple[int | None, int | None] | None = None,
                     top_k: int | None = None, special_tokens: Sequence[str] | None = None,
                     special_first: bool = True) -> Vocab:
        """Every token of `columns` (all columns when None) of `dataset`, most frequent first (ties
        alphabetical), kept when its count is in `freq_range`, the `top_k` most frequent."""
        names = dataset.get_col_names()
        wanted = names if columns is None else ([columns] if isinstance(columns, str) else list(columns))
        idx = [names.index(c) for c in wanted]
        counts: collections.Counter[str] = collections.Counter()
        for row in dataset.create_tuple_iterator(output_numpy=True):
            for i in idx:
                counts.update(str(t) for t in _strings(row[i]).reshape(-1))
        lo, hi = freq_range or (None, None)
        kept = [(t, c) for t, c in counts.items() if (lo is None or c >= lo) and (hi is None or c <= hi)]
        kept.sort(key=lambda tc: (-tc[1], tc[0]))
        if top_k is not None:
            kept = kept[:top_k]
        return cls._build([t for t, _ in kept], special_tokens, special_first)

    def vocab(self) -> dict[str, int]:
        """The token -> id dict."""
        return dict(self._ids)

    def tokens_to_ids(self, tokens: str | Sequence[str]) -> int | list[int]:
        """Ids of `tokens` (-1 for a token not in the vocabulary)."""
        if isinstance(tokens, str):
            return self._ids.get(tokens, -1)
        return [self._ids.get(str(t), -1) for t in tokens]

    def ids_to_tokens(self, ids: int | Sequence[int]) -> str | list[str]:
        """Tokens of `ids` ("" for an id not in the vocabulary)."""
        back = {i: t for t, i in self._ids.items()}
        if isinstance(ids, (int, np.integer)):
            return back.get(int(ids), "")
        return [back.get(int(i), "") for i in ids]

    def __len__(self) -> int:
        return len(self._ids)


class Lookup(TensorOperation):
    """Tokens to ids through `vocab`; a token not in it gets `unknown_token`'s id (or is an error)."""

    def __init__(self, vocab: Vocab, unknown_token: str | None = None, data_type: Any = np.int32) -> None:
        if not isinstance(vocab, Vocab):
            raise TypeError(f"Lookup: vocab must be a text.Vocab, got {type(vocab).__name__}")
        self.vocab, self.unknown_token, self.data_type = vocab, unknown_token, np_dtype(data_type)
        self._ids = vocab.vocab()
        if unknown_token is not None and unknown_token not in self._ids:
            raise ValueError(f"Lookup: unknown_token {unknown_token!r} is not in the vocabulary")

    def _apply(self, x: Any) -> np.ndarray:
        arr = _strings(x)
        unk = self._ids.get(self.unknown_token) if self.unknown_token is not None else None
        out = np.empty(arr.shape, self.data_type)
        for pos, token in np.ndenumerate(arr):
            i = self._ids.get(str(token), unk)
            if i is None:
                raise ValueError(f"Lookup: {str(token)!r} is not in the vocabulary and no unknown_token is set")
            out[pos] = i
        return out


# --- BERT's tokenizers -----------------------------------------------------------------------------------
def _no_offsets(op: str, with_offsets: bool) -> bool:
    """Refused at construction, not ignored: a pipeline expecting (tokens, start, limit) must not get tokens alone."""
    if with_offsets:
        raise ValueError(f"{op}: spore does not support with_offsets=True for BERT's tokenizers (documented "
                         "difference from MindSpore); WhitespaceTokenizer, UnicodeCharTokenizer and RegexTokenizer "
                         "give offsets")
    return False


def _is_punct(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF),
                                             (0x2A700, 0x2B73F), (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF),
                                             (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)))


class BasicTokenizer(TensorOperation):
    """BERT's basic tokenizer: whitespace split, punctuation and CJK characters as their own tokens,
    optional lower-casing (which also strips accents) and Unicode normalization."""

    _UNUSED = re.compile(r"\[(unused\d+|UNK|CLS|SEP|MASK|PAD)\]")

    def __init__(self, lower_case: bool = False, keep_whitespace: bool = False,
                 normalization_form: NormalizeForm = NormalizeForm.NONE, preserve_unused_token: bool = True,
                 with_offsets: bool = False) -> None:
        self.lower_case, self.keep_whitespace = bool(lower_case), bool(keep_whitespace)
        self.normalization_form, self.preserve_unused_token = NormalizeForm(normalization_form), \
            bool(preserve_unused_token)
        self.with_offsets = _no_offsets(type(self).__name__, with_offsets)

    def _words(self, text: str) -> list[str]:
        if self.normalization_form is not NormalizeForm.NONE:
            text = unicodedata.normalize(self.normalization_form.name, text)
        out: list[str] = []
        for piece in (text.split() if not self.keep_whitespace else re.findall(r"\S+|\s", text)):
            if self.preserve_unused_token and self._UNUSED.fullmatch(piece):
                out.append(piece)
                continue
            if self.lower_case:
                piece = "".join(c for c in unicodedata.normalize("NFD", piece.lower())
                                if unicodedata.category(c) != "Mn")
            cur = ""
            for ch in piece:
                if _is_punct(ch) or _is_cjk(ch) or ch.isspace():
                    if cur:
                        out.append(cur)
                    out.append(ch)
                    cur = ""
                else:
                    cur += ch
            if cur:
                out.append(cur)
        return out

    def _apply(self, x: Any) -> Any:
        words = self._words(_one_string(x, type(self).__name__))
        return np.array(words, dtype=str)


class WordpieceTokenizer(TensorOperation):
    """Greedy longest-match-first sub-words from `vocab` (continuations prefixed `suffix_indicator`);
    a word with no split, or longer than `max_bytes_per_token`, becomes `unknown_token`."""

    def __init__(self, vocab: Vocab, suffix_indicator: str = "##", max_bytes_per_token: int = 100,
                 unknown_token: str = "[UNK]", with_offsets: bool = False) -> None:
        if not isinstance(vocab, Vocab):
            raise TypeError(f"WordpieceTokenizer: vocab must be a text.Vocab, got {type(vocab).__name__}")
        self.vocab, self.suffix_indicator, self.max_bytes_per_token = vocab, suffix_indicator, max_bytes_per_token
        self.unknown_token, self.with_offsets = unknown_token, _no_offsets("WordpieceTokenizer", with_offsets)
        self._ids = vocab.vocab()

    def _pieces(self, word: str) -> list[str]:
        if len(word.encode("utf8")) > self.max_bytes_per_token:
            return [self.unknown_token]
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                sub = word[start:end] if start == 0 else self.suffix_indicator + word[start:end]
                if sub in self._ids:
                    found = sub
                    break
                end -= 1
            if found is None:
                return [self.unknown_token]
            pieces.append(found)
            start = end
        return pieces

    def _apply(self, x: Any) -> np.ndarray:
        words = _strings(x).reshape(-1)
        return np.array([p for w in words for p in self._pieces(str(w))], dtype=str)


class BertTokenizer(TensorOperation):
    """`BasicTokenizer` then `WordpieceTokenizer` (BERT's full tokenizer)."""

    def __init__(self, vocab: Vocab, suffix_indicator: str = "##", max_bytes_per_token: int = 100,
                 unknown_token: str = "[UNK]", lower_case: bool = False, keep_whitespace: bool = False,
                 normalization_form: NormalizeForm = NormalizeForm.NONE, preserve_unused_token: bool = True,
                 with_offsets: bool = False) -> None:
        self.basic = BasicTokenizer(lower_case, keep_whitespace, normalization_form, preserve_unused_token)
        self.wordpiece = WordpieceTokenizer(vocab, suffix_indicator, max_bytes_per_token, unknown_token)
        self.with_offsets = _no_offsets("BertTokenizer", with_offsets)

    def _apply(self, x: Any) -> np.ndarray:
        return self.wordpiece._apply(self.basic._apply(x))


def to_str(array: Any, encoding: str = "utf8") -> np.ndarray:
    """A bytes array decoded to a str array."""
    arr = np.asarray(array)
    return np.char.decode(arr, encoding) if arr.dtype.kind == "S" else arr.astype(str)


def to_bytes(array: Any, encoding: str = "utf8") -> np.ndarray:
    """A str array encoded to a bytes array."""
    arr = np.asarray(array)
    return np.char.encode(arr, encoding) if arr.dtype.kind == "U" else arr.astype(bytes)


# word vectors, UnicodeScriptTokenizer, FilterWikipediaXML (issue 14, dataset slice)
from .text_more import (  # noqa: E402
    CharNGram,
    FastText,
    FilterWikipediaXML,
    GloVe,
    ToVectors,
    UnicodeScriptTokenizer,
    Vectors,
)

__all__ += ["CharNGram", "FastText", "FilterWikipediaXML", "GloVe", "ToVectors", "UnicodeScriptTokenizer", "Vectors"]

# SentencePiece through the sentencepiece package (issue 14, data slice)
from .text_sentencepiece import (  # noqa: E402
    SentencePieceModel,
    SentencePieceTokenizer,
    SentencePieceVocab,
    SPieceTokenizerLoadType,
    SPieceTokenizerOutType,
)

__all__ += ["SPieceTokenizerLoadType", "SPieceTokenizerOutType", "SentencePieceModel", "SentencePieceTokenizer",
            "SentencePieceVocab"]


if not _typing.TYPE_CHECKING:  # hidden from Pyright/Pylance, which would otherwise accept any attribute of the module
    def __getattr__(name: str):
        """A MindSpore name this module lacks raises NotSupportedError saying so."""
        from .._missing import missing_attribute

        raise missing_attribute("mindspore.dataset.text", name)
