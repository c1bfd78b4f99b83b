"""Randomness: reproducible under set_seed, fresh each epoch, different without a seed; sharding
and samplers pick exactly the rows they promise."""

from __future__ import annotations

import numpy as np
import pytest

import spore
import spore.dataset as ds
import spore.dataset.vision as vision
from spore.common import seed as seed_module


def pipeline():
    """Every random part at once: sampler shuffle, buffer shuffle, random transforms."""
    images = np.arange(30 * 6 * 6, dtype=np.uint8).reshape(30, 6, 6, 1)
    d = ds.NumpySlicesDataset({"image": images, "label": np.arange(30)}, shuffle=True)
    d = d.map([vision.RandomCrop(4), vision.RandomHorizontalFlip()], input_columns="image")
    return d.shuffle(8).batch(5)


def epochs(d, n):
    it = d.create_tuple_iterator(num_epochs=n, output_numpy=True)
    return [[(img.copy(), lab.copy()) for img, lab in it] for _ in range(n)]


def same(a, b):
    return all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) for x, y in zip(a, b, strict=True))


def labels(epoch):
    return [int(v) for _, lab in epoch for v in lab]


def test_set_seed_reproduces_every_epoch_of_a_random_pipeline():
    spore.set_seed(7)
    first = epochs(pipeline(), 2)
    spore.set_seed(7)
    again = epochs(pipeline(), 2)
    assert same(first[0], again[0]) and same(first[1], again[1])
    spore.set_seed(8)
    other = epochs(pipeline(), 1)
    assert not same(first[0], other[0])


def test_each_epoch_reshuffles_and_still_reads_every_row_once():
    spore.set_seed(3)
    e0, e1 = epochs(pipeline(), 2)
    assert labels(e0) != labels(e1)
    assert sorted(labels(e0)) == sorted(labels(e1)) == list(range(30))


def test_reiterating_the_dataset_starts_a_new_epoch():
    d = ds.NumpySlicesDataset(np.arange(40), shuffle=True)
    first = [int(x.asnumpy()) for (x,) in d]
    second = [int(x.asnumpy()) for (x,) in d]
    assert first != second and sorted(first) == sorted(second)


def test_without_set_seed_two_runs_shuffle_differently(monkeypatch):
    monkeypatch.setattr(seed_module, "_seed", None)
    a = labels(epochs(pipeline(), 1)[0])
    b = labels(epochs(pipeline(), 1)[0])
    assert a != b


def test_random_transform_called_directly_follows_the_global_seed():
    img = np.arange(100, dtype=np.uint8).reshape(10, 10)
    spore.set_seed(11)
    a = [vision.RandomCrop(3)(img) for _ in range(5)]
    spore.set_seed(11)
    b = [vision.RandomCrop(3)(img) for _ in range(5)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(a[0], x) for x in a[1:])


# --- sharding --------------------------------------------------------------------------------------
def shard_rows(n, num_shards, shard_id, **kw):
    d = ds.NumpySlicesDataset(np.arange(n), num_shards=num_shards, shard_id=shard_id, **kw)
    return [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)], d.get_dataset_size()


@pytest.mark.parametrize("shuffle", [False, True])
def test_shards_partition_the_rows_when_the_count_divides(monkeypatch, shuffle):
    monkeypatch.setattr(seed_module, "_seed", None)  # ranks agree without a global seed
    shards = [shard_rows(12, 3, k, shuffle=shuffle) for k in range(3)]
    assert [size for _, size in shards] == [4, 4, 4]
    got = sorted(v for rows, _ in shards for v in rows)
    assert got == list(range(12))


def test_shards_are_equal_sized_by_wrapping_when_the_count_does_not_divide():
    shards = [shard_rows(10, 3, k, shuffle=True)[0] for k in range(3)]
    assert [len(s) for s in shards] == [4, 4, 4]
    flat = [v for s in shards for v in s]
    assert set(flat) == set(range(10)) and len(flat) - len(set(flat)) == 2


def test_sharded_shuffle_changes_each_epoch_but_stays_a_partition():
    per_epoch = []
    datasets = [ds.NumpySlicesDataset(np.arange(8), num_shards=2, shard_id=k) for k in range(2)]
    for _ in range(2):
        parts = [[int(x.asnumpy()) for (x,) in d] for d in datasets]
        assert sorted(parts[0] + parts[1]) == list(range(8))
        per_epoch.append(parts[0])
    assert per_epoch[0] != per_epoch[1]


def test_num_samples_limits_each_shard():
    rows, size = shard_rows(20, 2, 1, shuffle=False, num_samples=3)
    assert size == 3 and len(rows) == 3


def test_sharding_needs_both_arguments_and_excludes_a_sampler():
    with pytest.raises(ValueError, match="both num_shards and shard_id"):
        ds.NumpySlicesDataset(np.arange(4), num_shards=2)
    with pytest.raises(ValueError, match="DistributedSampler"):
        ds.NumpySlicesDataset(np.arange(4), num_shards=2, shard_id=0, sampler=ds.SequentialSampler())


# --- samplers --------------------------------------------------------------------------------------
def sampled(sampler, n=10):
    d = ds.NumpySlicesDataset(np.arange(n), sampler=sampler)
    return [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)], d.get_dataset_size()


def test_sequential_subset_and_list_samplers_read_exactly_their_indices():
    assert sampled(ds.SequentialSampler(start_index=2, num_samples=3)) == ([2, 3, 4], 3)
    assert sampled(ds.SubsetSampler([4, 1, 3])) == ([4, 1, 3], 3)
    assert sampled([9, 0, 9]) == ([9, 0, 9], 3)


def test_random_samplers_permute_or_draw_with_replacement():
    perm, _ = sampled(ds.RandomSampler())
    assert sorted(perm) == list(range(10)) and perm != list(range(10))
    drawn, size = sampled(ds.RandomSampler(replacement=True, num_samples=40), n=5)
    assert size == 40 and len(drawn) == 40 and set(drawn) <= set(range(5)) and len(set(drawn)) < 40
    sub, _ = sampled(ds.SubsetRandomSampler([7, 2, 5, 8]))
    assert sorted(sub) == [2, 5, 7, 8]


def test_weighted_sampler_draws_only_weighted_indices():
    drawn, _ = sampled(ds.WeightedRandomSampler([0, 0, 1, 0, 3], num_samples=30), n=5)
    assert set(drawn) <= {2, 4} and drawn.count(4) > drawn.count(2)


def test_distributed_sampler_object_matches_the_num_shards_arguments():
    via_sampler, _ = sampled(ds.DistributedSampler(3, 1, shuffle=False), n=9)
    via_args, _ = shard_rows(9, 3, 1, shuffle=False)
    assert via_sampler == via_args and len(via_sampler) == 3


def test_custom_sampler_subclass_yields_indices():
    class EveryOther(ds.Sampler):
        def __iter__(self):
            return iter(range(0, self.dataset_size, 2))

    assert sampled(EveryOther())[0] == [0, 2, 4, 6, 8]


def test_sampler_and_shuffle_are_exclusive():
    with pytest.raises(ValueError, match="sampler and shuffle"):
        ds.NumpySlicesDataset(np.arange(3), sampler=ds.RandomSampler(), shuffle=True)
