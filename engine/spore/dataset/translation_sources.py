"""Parallel-text sources: `Multi30kDataset` (MindSpore's reader of the Multi30K English-German
corpus, from its local files).

Multi30K ships one file per split and language, ``{train,valid,test}.{en,de}``, line i of one
language translating line i of the other. Rows are ``text`` (the first language of
`language_pair`) and ``translation`` (the second), strings; `usage` "all" (or None) reads train,
valid and test in that order. Files of one split with different line counts are refused.
"""

from __future__ import annotations

import os
from typing import Any

from .errors import DatasetError
from .file_sources import _Columns, _read_lines, _strings, _usages
from .more_sources import _shuffle_flag
from .vision_folders import _check_dir

__all__ = ["Multi30kDataset"]


class Multi30kDataset(_Columns):
    """Multi30K translation pairs from ``<usage>.en`` / ``<usage>.de`` in `dataset_dir`."""

    def __init__(self, dataset_dir: str, usage: str | None = None, language_pair: Any = None,
                 num_samples: int | None = None, num_parallel_workers: int | None = None, shuffle: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        owner = "Multi30kDataset"
        root = _check_dir(dataset_dir, owner)
        pair = ["en", "de"] if language_pair is None else list(language_pair) if isinstance(
            language_pair, (list, tuple)) else None
        if pair not in (["en", "de"], ["de", "en"]):
            raise ValueError(f"{owner}: language_pair must be ['en', 'de'] or ['de', 'en'], got {language_pair!r}")
        src, dst = [], []
        for u in _usages(usage, ("train", "valid", "test"), owner):
            parts = []
            for lang in pair:
                path = os.path.join(root, f"{u}.{lang}")
                if not os.path.isfile(path):
                    raise DatasetError(f"{owner}: no {u}.{lang} in {root}")
                parts.append(_read_lines(path, owner))
            if len(parts[0]) != len(parts[1]):
                raise DatasetError(f"{owner}: {u}.{pair[0]} has {len(parts[0])} lines but {u}.{pair[1]} has "
                                   f"{len(parts[1])}")
            src += parts[0]
            dst += parts[1]
        flag = True if shuffle is None else _shuffle_flag(shuffle, owner)
        self._init_columns(["text", "translation"], [_strings(src), _strings(dst)], num_samples, flag, None,
                           num_shards, shard_id, num_parallel_workers)
