"""padded_batch and bucket_batch_by_length against a NumPy oracle built row by row."""

from __future__ import annotations

import numpy as np
import pytest

import spore.dataset as ds
from spore.dataset import DatasetError


def _ragged(lengths, start=1):
    rows = [np.arange(start, start + n, dtype=np.int32) for n in lengths]

    def gen():
        for i, r in enumerate(rows):
            yield r, np.int64(i)

    return rows, ds.GeneratorDataset(gen, ["seq", "idx"], shuffle=False)


def _oracle_pad(rows, width, value):
    out = np.full((len(rows), width), value, dtype=rows[0].dtype)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return out


def _batches(d):
    return [tuple(np.asarray(c) for c in row) for row in d.create_tuple_iterator(output_numpy=True)]


def test_padded_batch_pads_to_the_longest_row_of_each_batch():
    rows, d = _ragged([3, 1, 4, 2, 5])
    got = _batches(d.padded_batch(2, pad_info={}))
    assert len(got) == 3
    for b, (seq, idx) in enumerate(got):
        chunk = rows[2 * b:2 * b + 2]
        np.testing.assert_array_equal(seq, _oracle_pad(chunk, max(map(len, chunk)), 0))
        np.testing.assert_array_equal(idx, np.arange(2 * b, 2 * b + len(chunk)))


def test_padded_batch_fixed_shape_and_value_only_for_the_named_column():
    rows, d = _ragged([3, 1, 4, 2])
    got = _batches(d.padded_batch(4, pad_info={"seq": ([6], -1)}))
    np.testing.assert_array_equal(got[0][0], _oracle_pad(rows, 6, -1))
    got = _batches(d.padded_batch(2, drop_remainder=True, pad_info={"seq": (None, 9)}))
    np.testing.assert_array_equal(got[1][0], _oracle_pad(rows[2:], 4, 9))


def test_padded_batch_two_axes_with_none_entry():
    shapes = [(2, 3), (4, 1), (1, 2)]
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    d = ds.GeneratorDataset(lambda: ((a,) for a in arrays), ["x"], shuffle=False)
    (x,), = _batches(d.padded_batch(3, pad_info={"x": ([None, 5], 0.5)}))
    want = np.full((3, 4, 5), 0.5, np.float32)
    for i, a in enumerate(arrays):
        want[i, :a.shape[0], :a.shape[1]] = a
    np.testing.assert_array_equal(x, want)


def test_padded_batch_without_pad_info_is_batch_and_ragged_rows_fail():
    _, d = _ragged([2, 2, 2])
    np.testing.assert_array_equal(_batches(d.padded_batch(3))[0][0], [[1, 2]] * 3)
    _, d = _ragged([2, 3])
    with pytest.raises(DatasetError, match="different shapes"):
        _batches(d.padded_batch(2))


def test_padded_batch_errors_name_the_column():
    _, d = _ragged([3, 5])
    with pytest.raises(DatasetError, match="larger than the pad shape"):
        _batches(d.padded_batch(2, pad_info={"seq": ([4], 0)}))
    with pytest.raises(DatasetError, match="no column named 'nope'"):
        d.padded_batch(2, pad_info={"nope": (None, 0)})
    with pytest.raises(TypeError, match="pad_shape, pad_value"):
        d.padded_batch(2, pad_info={"seq": [4]})
    assert isinstance(d.padded_batch(2, pad_info={}), ds.PaddedBatchDataset)


def _bucket_oracle(rows, bounds, sizes, drop):
    buckets = [[] for _ in sizes]
    out = []
    for r in rows:
        b = sum(len(r) >= x for x in bounds)
        buckets[b].append(r)
        if len(buckets[b]) == sizes[b]:
            out.append(buckets[b])
            buckets[b] = []
    if not drop:
        out += [b for b in buckets if b]
    return out


@pytest.mark.parametrize("drop", [False, True])
def test_bucket_batch_by_length_matches_the_bucketing_oracle(drop):
    lengths = [1, 5, 2, 7, 3, 1, 6, 2, 9, 4, 3]
    rows, d = _ragged(lengths)
    bounds, sizes = [3, 6], [2, 3, 2]
    got = _batches(d.bucket_batch_by_length("seq", bounds, sizes, drop_remainder=drop))
    want = _bucket_oracle(rows, bounds, sizes, drop)
    assert len(got) == len(want)
    for (seq, _), chunk in zip(got, want, strict=True):
        np.testing.assert_array_equal(seq, _oracle_pad(chunk, max(map(len, chunk)), 0))


def test_bucket_batch_element_length_function_and_pad_to_boundary():
    rows, d = _ragged([1, 2, 4, 5, 3])
    got = _batches(d.bucket_batch_by_length(["seq", "idx"], [3, 8], [2, 2, 1],
                                            element_length_function=lambda s, i: len(s),
                                            pad_info={"seq": ([None], -7)}, pad_to_bucket_boundary=True))
    want = _bucket_oracle(rows, [3, 8], [2, 2, 1], False)
    edges = [2, 7]  # bucket boundary - 1
    for (seq, _), chunk in zip(got, want, strict=True):
        b = sum(len(chunk[0]) >= x for x in [3, 8])
        np.testing.assert_array_equal(seq, _oracle_pad(chunk, edges[b], -7))


def test_bucket_batch_errors():
    _, d = _ragged([1, 9])
    with pytest.raises(ValueError, match="strictly increasing"):
        d.bucket_batch_by_length("seq", [4, 2], [1, 1, 1])
    with pytest.raises(ValueError, match="len\\(bucket_boundaries\\) \\+ 1"):
        d.bucket_batch_by_length("seq", [4], [1])
    with pytest.raises(ValueError, match="exactly one"):
        d.bucket_batch_by_length(["seq", "idx"], [4], [1, 1])
    with pytest.raises(DatasetError, match="last bucket"):
        _batches(d.bucket_batch_by_length("seq", [4], [1, 1], pad_info={"seq": ([None], 0)},
                                          pad_to_bucket_boundary=True))
    with pytest.raises(DatasetError, match="must return an int"):
        _batches(d.bucket_batch_by_length("seq", [4], [1, 1], element_length_function=lambda s: "x"))
