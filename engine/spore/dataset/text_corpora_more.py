"""More text corpora read from their releases' local files (issue 14, data slice): CLUE
classification tasks (JSON lines), IWSLT 2016 and IWSLT 2017 (TED talk translations).

* `CLUEDataset`: one JSON object per line in each of `dataset_files`; the columns depend on the
  task and `usage` as in MindSpore's table (string columns; ``id``, ``idx`` and the WSC span
  indices uint32; CSL's ``keyword`` list a 1-D string array). A missing key is a DatasetError
  naming the file and line.
* `IWSLT2016Dataset` / `IWSLT2017Dataset`: ``text`` (source language) and ``translation``
  (target language) strings. The training split is ``train.tags.<src>-<tgt>.<lang>`` with its
  talk metadata lines (``<url>``, ``<talkid>``, ``<title>``...) dropped; dev/test splits are
  ``IWSLT1x.TED.<set>.<src>-<tgt>.<lang>.xml`` whose ``<seg>`` elements are the sentences (parsed
  with the standard library's ElementTree: local files, no network, no external entities).
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np

from .errors import DatasetError
from .file_sources import _Columns, _read_lines, _strings, _usages
from .more_sources import Shuffle, _files, _shuffle_flag
from .vision_folders import _check_dir

__all__ = ["CLUEDataset", "IWSLT2016Dataset", "IWSLT2017Dataset"]

# task -> usage kind -> [(column, json key path, kind)]; kind: "s" string, "u" uint32, "l" list of strings
_S, _U, _L = "s", "u", "l"
_CLUE: dict[str, dict[str, list[tuple[str, tuple[str, ...], str]]]] = {
    "AFQMC": {"train": [("sentence1", ("sentence1",), _S), ("sentence2", ("sentence2",), _S),
                        ("label", ("label",), _S)],
              "test": [("id", ("id",), _U), ("sentence1", ("sentence1",), _S), ("sentence2", ("sentence2",), _S)]},
    "TNEWS": {"train": [("label", ("label",), _S), ("label_des", ("label_desc",), _S), ("sentence", ("sentence",), _S),
                        ("keywords", ("keywords",), _S)],
              # MindSpore's table names TNEWS's test id column "label" (uint32), keywords before sentence
              "test": [("label", ("id",), _U), ("keywords", ("keywords",), _S), ("sentence", ("sentence",), _S)]},
    "IFLYTEK": {"train": [("label", ("label",), _S), ("label_des", ("label_des",), _S),
                          ("sentence", ("sentence",), _S)],
                "test": [("id", ("id",), _U), ("sentence", ("sentence",), _S)]},
    "CMNLI": {"train": [("sentence1", ("sentence1",), _S), ("sentence2", ("sentence2",), _S),
                        ("label", ("label",), _S)],
              "test": [("id", ("id",), _U), ("sentence1", ("sentence1",), _S), ("sentence2", ("sentence2",), _S)]},
    "WSC": {"train": [("span1_index", ("target", "span1_index"), _U), ("span2_index", ("target", "span2_index"), _U),
                      ("span1_text", ("target", "span1_text"), _S), ("span2_text", ("target", "span2_text"), _S),
                      ("idx", ("idx",), _U), ("text", ("text",), _S), ("label", ("label",), _S)]},
    "CSL": {"train": [("id", ("id",), _U), ("abst", ("abst",), _S), ("keyword", ("keyword",), _L),
                      ("label", ("label",), _S)]},
}
_CLUE["WSC"]["test"] = _CLUE["WSC"]["train"][:-1]
_CLUE["CSL"]["test"] = _CLUE["CSL"]["train"][:-1]


def _clue_value(obj: Any, path: tuple[str, ...], kind: str, where: str) -> Any:
    for key in path:
        if not isinstance(obj, dict) or key not in obj:
            raise DatasetError(f"CLUEDataset: {where}: no key {'/'.join(path)!r}")
        obj = obj[key]
    try:
        if kind == _U:
            value = int(obj)
            if value < 0:
                raise ValueError(f"{value} is negative")
            return np.uint32(value)
        if kind == _L:
            items = obj if isinstance(obj, list) else [obj]
            return _strings([str(v) for v in items])
    except (TypeError, ValueError) as e:
        raise DatasetError(f"CLUEDataset: {where}: {'/'.join(path)} = {obj!r} is not a non-negative int "
                           f"({e})") from None
    return str(obj)


class CLUEDataset(_Columns):
    """CLUE (Chinese Language Understanding Evaluation): AFQMC, TNEWS, IFLYTEK, CMNLI, WSC or CSL
    rows from JSON-lines files; ``usage`` 'train', 'eval' (same columns as train) or 'test'."""

    def __init__(self, dataset_files: Any, task: str = "AFQMC", usage: str = "train", num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        owner = "CLUEDataset"
        if task not in _CLUE:
            raise ValueError(f"{owner}: task must be one of {list(_CLUE)}, got {task!r}")
        if usage not in ("train", "test", "eval"):
            raise ValueError(f"{owner}: usage must be 'train', 'test' or 'eval', got {usage!r}")
        spec = _CLUE[task]["test" if usage == "test" else "train"]
        cols: list[list[Any]] = [[] for _ in spec]
        for path in sorted(_files(dataset_files, owner)):
            for line_no, line in enumerate(_read_lines(path, owner), 1):
                if not line.strip():
                    continue
                where = f"{path}, line {line_no}"
                try:
                    obj = json.loads(line)
                except ValueError as e:
                    raise DatasetError(f"{owner}: {where}: not a JSON object ({e})") from None
                for c, (_, keys, kind) in enumerate(spec):
                    cols[c].append(_clue_value(obj, keys, kind, where))
        arrays = [np.asarray(col, np.uint32) if kind == _U else (col if kind == _L else _strings(col))
                  for col, (_, _, kind) in zip(cols, spec, strict=True)]
        self._init_columns([name for name, _, _ in spec], arrays, num_samples, _shuffle_flag(shuffle, owner), None,
                           num_shards, shard_id, num_parallel_workers)


_TALK_TAGS = ("<url", "<keywords", "<talkid", "<description", "<reviewer", "<translator", "<title", "<speaker",
              "<doc", "</doc")


def _train_sentences(path: str, owner: str) -> list[str]:
    """The sentences of a ``train.tags.*`` file: every line that is not talk metadata."""
    if not os.path.isfile(path):
        raise DatasetError(f"{owner}: no file {path}")
    return [line.strip() for line in _read_lines(path, owner) if not any(t in line for t in _TALK_TAGS)]


def _xml_sentences(path: str, owner: str) -> list[str]:
    """The ``<seg>`` texts of an IWSLT ``*.xml`` dev/test file, in document order."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        raise DatasetError(f"{owner}: cannot read {path}: {type(e).__name__}: {e}") from e
    return [(seg.text or "").strip() for seg in root.iter("seg")]


def _pair_rows(read: Any, src_path: str, tgt_path: str, owner: str) -> tuple[list[str], list[str]]:
    src, tgt = read(src_path, owner), read(tgt_path, owner)
    if len(src) != len(tgt):
        raise DatasetError(f"{owner}: {src_path} has {len(src)} sentences but {tgt_path} has {len(tgt)}")
    return src, tgt


def _iwslt(root: str, folder: str, year: str, usages: list[str], sets: dict[str, str], pair: list[str],
           owner: str) -> tuple[list[str], list[str]]:
    s, t = pair
    texts, translations = [], []
    for u in usages:
        if u == "train":
            paths = [os.path.join(folder, f"train.tags.{s}-{t}.{lang}") for lang in (s, t)]
            a, b = _pair_rows(_train_sentences, paths[0], paths[1], owner)
        else:
            paths = [os.path.join(folder, f"IWSLT{year}.TED.{sets[u]}.{s}-{t}.{lang}.xml") for lang in (s, t)]
            a, b = _pair_rows(_xml_sentences, paths[0], paths[1], owner)
        texts += a
        translations += b
    return texts, translations


def _language_pair(language_pair: Any, allowed: dict[str, tuple[str, ...]], owner: str) -> list[str]:
    pair = ["de", "en"] if language_pair is None else language_pair
    if not isinstance(pair, (list, tuple)) or len(pair) != 2 or pair[0] not in allowed or \
            pair[1] not in allowed[pair[0]]:
        options = [[a, b] for a, bs in allowed.items() for b in bs]
        raise ValueError(f"{owner}: language_pair must be one of {options}, got {language_pair!r}")
    return [str(pair[0]), str(pair[1])]


_IWSLT16_PAIRS = {"en": ("ar", "de", "fr", "cs"), "ar": ("en",), "fr": ("en",), "de": ("en",), "cs": ("en",)}
_IWSLT16_SETS = ("dev2010", "tst2010", "tst2011", "tst2012", "tst2013", "tst2014")
_IWSLT17_LANGS = ("en", "nl", "de", "it", "ro")


class IWSLT2016Dataset(_Columns):
    """IWSLT 2016 TED translations from ``texts/<src>/<tgt>/<src>-<tgt>/`` under ``dataset_dir``;
    ``usage`` 'train', 'valid' (``valid_set``, default 'tst2013'), 'test' (``test_set``, default
    'tst2014') or 'all'."""

    def __init__(self, dataset_dir: str, usage: str | None = None, language_pair: Any = None,
                 valid_set: str | None = None, test_set: str | None = None, num_samples: int | None = None,
                 shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, num_parallel_workers: int | None = None,
                 cache: Any = None) -> None:
        owner = "IWSLT2016Dataset"
        root = _check_dir(dataset_dir, owner)
        pair = _language_pair(language_pair, _IWSLT16_PAIRS, owner)
        sets = {"valid": "tst2013" if valid_set is None else valid_set,
                "test": "tst2014" if test_set is None else test_set}
        for k, v in sets.items():
            if v not in _IWSLT16_SETS:
                raise ValueError(f"{owner}: {k}_set must be one of {list(_IWSLT16_SETS)}, got {v!r}")
        folder = os.path.join(root, "texts", pair[0], pair[1], f"{pair[0]}-{pair[1]}")
        texts, translations = _iwslt(root, folder, "16", _usages(usage, ("train", "valid", "test"), owner), sets, pair,
                                     owner)
        self._init_columns(["text", "translation"], [_strings(texts), _strings(translations)], num_samples,
                           _shuffle_flag(shuffle, owner), None, num_shards, shard_id, num_parallel_workers)


class IWSLT2017Dataset(_Columns):
    """IWSLT 2017 multilingual TED translations (en, nl, de, it, ro) from
    ``DeEnItNlRo/DeEnItNlRo/DeEnItNlRo-DeEnItNlRo/`` (or ``texts/DeEnItNlRo/...``) under ``dataset_dir``; ``usage``
    'train', 'valid' (dev2010), 'test' (tst2010) or 'all'."""

    def __init__(self, dataset_dir: str, usage: str | None = None, language_pair: Any = None,
                 num_samples: int | None = None, shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None,
                 shard_id: int | None = None, num_parallel_workers: int | None = None, cache: Any = None) -> None:
        owner = "IWSLT2017Dataset"
        root = _check_dir(dataset_dir, owner)
        allowed = {a: tuple(b for b in _IWSLT17_LANGS if b != a) for a in _IWSLT17_LANGS}
        pair = _language_pair(language_pair, allowed, owner)
        # MindSpore's tree has DeEnItNlRo/ at the top; the release archive unpacks it under texts/
        inner = os.path.join("DeEnItNlRo", "DeEnItNlRo", "DeEnItNlRo-DeEnItNlRo")
        folder = os.path.join(root, inner)
        if not os.path.isdir(folder) and os.path.isdir(os.path.join(root, "texts", inner)):
            folder = os.path.join(root, "texts", inner)
        texts, translations = _iwslt(root, folder, "17", _usages(usage, ("train", "valid", "test"), owner),
                                     {"valid": "dev2010", "test": "tst2010"}, pair, owner)
        self._init_columns(["text", "translation"], [_strings(texts), _strings(translations)], num_samples,
                           _shuffle_flag(shuffle, owner), None, num_shards, shard_id, num_parallel_workers)
