"""Small helpers MindSpore exports from ``mindspore.dataset`` (its ``validator_helpers``), used by
scripts that build their own sources: `to_list`, `replace_none` and `select_sampler`."""

from __future__ import annotations

from typing import Any

from .samplers import Sampler, resolve_sampler

__all__ = ["replace_none", "select_sampler", "to_list"]


def to_list(items: Any) -> list:
    """``items`` as a list: None -> [], a tuple or list -> its items, anything else -> [items]."""
    if items is None:
        return []
    if isinstance(items, (list, tuple)):
        return list(items)
    return [items]


def replace_none(value: Any, default: Any) -> Any:
    """``default`` when ``value`` is None, else ``value``."""
    return default if value is None else value


def select_sampler(num_samples: int | None, input_sampler: Any, shuffle: bool | None, num_shards: int | None,
                   shard_id: int | None) -> Sampler:
    """The sampler a source uses for these arguments (MindSpore's rules: a sampler excludes shuffle
    and sharding; shards give a DistributedSampler; shuffle=False a SequentialSampler; else random)."""
    return resolve_sampler(input_sampler, shuffle, num_samples, num_shards, shard_id, "select_sampler")
