"""More of ``mindspore.dataset.text`` (issue 14, dataset slice): pre-trained word vectors read from
local files (`Vectors`, `GloVe`, `FastText`, `CharNGram`) and `ToVectors`, which looks tokens up in
them; `UnicodeScriptTokenizer`; `FilterWikipediaXML`.

Vector files are text, one token per line followed by its floats (GloVe's ``glove.*.txt``,
fastText's ``.vec`` with its ``count dim`` header line, CharNGram's ``charNgram.txt``); a bad line
is a DatasetError naming the file and the line. Nothing downloads.

`UnicodeScriptTokenizer` splits where the Unicode script changes. MindSpore asks ICU for each
character's script; Python's standard library has no script property, so Spore takes the script
from the character's Unicode name (LATIN, CYRILLIC, GREEK, CJK/Han, HIRAGANA, ...), and treats
digits, punctuation and symbols as ICU's "Common" script, each category a run of its own.
"""

from __future__ import annotations

import os
import re
import unicodedata
from typing import Any

import numpy as np

from .errors import DatasetError
from .transforms.base import TensorOperation

__all__ = ["CharNGram", "FastText", "FilterWikipediaXML", "GloVe", "ToVectors", "UnicodeScriptTokenizer", "Vectors"]


class Vectors:
    """Token vectors: ``Vectors.from_file(path, max_vectors=None)`` reads ``token v1 v2 ...`` lines."""

    _owner = "Vectors"

    def __init__(self, tokens: list[str], vectors: np.ndarray) -> None:
        self.tokens = list(tokens)
        self.vectors = np.asarray(vectors, dtype=np.float32)
        self.index = {t: i for i, t in enumerate(self.tokens)}
        self.dim = int(self.vectors.shape[1]) if self.vectors.ndim == 2 else 0

    @classmethod
    def from_file(cls, file_path: str, max_vectors: int | None = None) -> Vectors:
        """Read the first ``max_vectors`` vectors (all with None) of a text vector file."""
        path = os.fspath(file_path)
        if max_vectors is not None and (isinstance(max_vectors, bool) or not isinstance(max_vectors, int)
                                        or max_vectors < 0):
            raise ValueError(f"{cls._owner}.from_file: max_vectors must be a non-negative int or None, "
                             f"got {max_vectors!r}")
        tokens: list[str] = []
        rows: list[list[float]] = []
        dim = None
        try:
            with open(path, encoding="utf-8") as f:
                for line_no, line in enumerate(f, 1):
                    parts = line.rstrip("\r\n").rstrip(" ").split(" ")
                    if line_no == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
                        continue  # fastText's "count dim" header
                    if not line.strip():
                        continue
                    if max_vectors is not None and len(tokens) >= max_vectors:
                        break
                    try:
                        values = [float(v) for v in parts[1:]]
                    except ValueError as e:
                        raise DatasetError(f"{cls._owner}: {path}, line {line_no}: not 'token float float ...' "
                                           f"({e})") from e
                    if dim is None:
                        dim = len(values)
                    if not values or len(values) != dim:
                        raise DatasetError(f"{cls._owner}: {path}, line {line_no}: {len(values)} values, the "
                                           f"first vector has {dim}")
                    tokens.append(parts[0])
                    rows.append(values)
        except (OSError, UnicodeDecodeError) as e:
            raise DatasetError(f"{cls._owner}: cannot read {path}: {e}") from e
        if not rows:
            raise DatasetError(f"{cls._owner}: {path} holds no vectors")
        return cls(tokens, np.asarray(rows, np.float32))


class GloVe(Vectors):
    """GloVe vectors (``glove.6B.300d.txt`` and the like)."""

    _owner = "GloVe"


class FastText(Vectors):
    """fastText vectors (a ``.vec`` file, whose first line is ``count dim``)."""

    _owner = "FastText"


class CharNGram(Vectors):
    """CharNGram vectors (``charNgram.txt``)."""

    _owner = "CharNGram"


class ToVectors(TensorOperation):
    """Look each token up in ``vectors``: (N,) strings -> (N, dim) float32. A missing token gets
    ``unk_init`` (dim floats; zeros by default), after trying its lower case when
    ``lower_case_backup``."""

    def __init__(self, vectors: Vectors, unk_init: Any = None, lower_case_backup: bool = False) -> None:
        if not isinstance(vectors, Vectors):
            raise TypeError(f"ToVectors: vectors must be a Vectors (GloVe, FastText, CharNGram), got "
                            f"{type(vectors).__name__}")
        self.vectors, self.lower_case_backup = vectors, bool(lower_case_backup)
        unk = np.zeros(vectors.dim, np.float32) if unk_init is None else np.asarray(unk_init, np.float32)
        if unk.shape != (vectors.dim,):
            raise ValueError(f"ToVectors: unk_init must hold {vectors.dim} values, got shape {unk.shape}")
        self.unk_init = unk

    def _row(self, token: str) -> np.ndarray:
        i = self.vectors.index.get(token)
        if i is None and self.lower_case_backup:
            i = self.vectors.index.get(token.lower())
        return self.unk_init if i is None else self.vectors.vectors[i]

    def _apply(self, x: Any) -> np.ndarray:
        arr = np.asarray(x)
        if arr.dtype.kind == "S":
            arr = np.char.decode(arr, "utf8")
        if arr.dtype.kind != "U":
            raise TypeError(f"ToVectors: expected strings, got {arr.dtype}")
        flat = [self._row(str(t)) for t in arr.reshape(-1)]
        out = np.stack(flat) if flat else np.zeros((0, self.vectors.dim), np.float32)
        return out.reshape(arr.shape + (self.vectors.dim,))


def _script(ch: str) -> str:
    if ch.isspace():
        return " "
    cat = unicodedata.category(ch)
    if cat[0] in "LM":
        name = unicodedata.name(ch, "")
        first = name.split(" ")[0] if name else "UNKNOWN"
        if first in ("CJK", "IDEOGRAPHIC", "KANGXI"):
            return "HAN"
        if first == "FULLWIDTH" or first == "HALFWIDTH":
            return name.split(" ")[1] if len(name.split(" ")) > 1 else first
        return first
    return "COMMON-" + cat[0]  # digits (N), punctuation (P), symbols (S): ICU's Common script


class UnicodeScriptTokenizer(TensorOperation):
    """Split a string where the Unicode script changes (see the module docstring); whitespace runs
    are dropped unless ``keep_whitespace``; ``with_offsets`` adds UTF-8 byte start/limit arrays."""

    def __init__(self, keep_whitespace: bool = False, with_offsets: bool = False) -> None:
        self.keep_whitespace, self.with_offsets = bool(keep_whitespace), bool(with_offsets)

    def _apply(self, x: Any) -> Any:
        arr = np.asarray(x)
        if arr.dtype.kind == "S":
            arr = np.char.decode(arr, "utf8")
        if arr.dtype.kind != "U" or arr.ndim != 0:
            raise ValueError(f"UnicodeScriptTokenizer: expected one string, got {arr.dtype} of shape {arr.shape}")
        text = str(arr)
        spans: list[tuple[int, int]] = []
        start = 0
        for i in range(1, len(text) + 1):
            if i == len(text) or _script(text[i]) != _script(text[start]):
                if _script(text[start]) != " " or self.keep_whitespace:
                    spans.append((start, i))
                start = i
        tokens = np.array([text[a:b] for a, b in spans], dtype=str)
        if not self.with_offsets:
            return tokens
        byte_at = np.cumsum([0] + [len(ch.encode("utf8")) for ch in text])
        return (tokens, np.array([byte_at[a] for a, _ in spans], np.uint32),
                np.array([byte_at[b] for _, b in spans], np.uint32))


_DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_WIKI_RULES = [
    (r"<ref[^<]*</ref>", ""), (r"<[^>]*>", ""), (r"\[http:[^] ]*", "["), (r"(?i)\|thumb", ""), (r"(?i)\|left", ""),
    (r"(?i)\|right", ""), (r"(?i)\|\d+px", ""), (r"(?i)\[\[image:[^\[\]]*\|", ""),
    (r"(?i)\[\[category:([^|\]]*)[^]]*\]\]", r"[[\1]]"), (r"\[\[[a-z\-]*:[^\]]*\]\]", ""),
    (r"\[\[[^\|\]]*\|", "[["), (r"\{\{[^}]*\}\}", ""), (r"\{[^}]*\}", ""), (r"\[", ""), (r"\]", ""),
    (r"&[^;]*;", " "),
]


class FilterWikipediaXML(TensorOperation):
    """Clean Wikipedia XML markup to lower-case words, as fastText's ``wikifil.pl`` does per line:
    drop tags, references, links' targets, templates and entities; spell digits out; keep only
    a-z, collapsing everything else to single spaces."""

    def _apply(self, x: Any) -> np.ndarray:
        arr = np.asarray(x)
        if arr.dtype.kind == "S":
            arr = np.char.decode(arr, "utf8")
        if arr.dtype.kind != "U":
            raise TypeError(f"FilterWikipediaXML: expected strings, got {arr.dtype}")
        out = [self._clean(str(s)) for s in arr.reshape(-1)]
        return np.array(out, dtype=str).reshape(arr.shape)

    @staticmethod
    def _clean(s: str) -> str:
        s = s.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
        for pattern, repl in _WIKI_RULES:
            s = re.sub(pattern, repl, s)
        s = f" {s} ".lower()
        for d, word in enumerate(_DIGITS):
            s = s.replace(str(d), f" {word} ")
        s = re.sub(r"[^a-z]+", " ", s)
        return s.strip()
