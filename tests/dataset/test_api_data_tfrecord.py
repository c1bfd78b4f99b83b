"""TFRecordDataset on files written here by an independent encoder: a bit-by-bit CRC-32C and a
hand-rolled protobuf wire encoding of tf.train.Example (no TensorFlow, no spore code)."""

from __future__ import annotations

import gzip
import json
import struct

import numpy as np
import pytest

import spore.dataset as ds
from spore.dataset import DatasetError


def _crc32c_bitwise(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def _masked(data: bytes) -> int:
    c = _crc32c_bitwise(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _ld(field: int, payload: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def _feature(value) -> bytes:
    if isinstance(value, (bytes, list)) and (isinstance(value, bytes) or isinstance(value[0], bytes)):
        items = [value] if isinstance(value, bytes) else value
        return _ld(1, b"".join(_ld(1, v) for v in items))
    arr = np.asarray(value)
    if arr.dtype.kind == "f":
        return _ld(2, _ld(1, arr.astype("<f4").tobytes()))  # packed floats
    if arr.ndim == 0 or arr.size == 1:  # unpacked form for single ints, packed for the rest
        return _ld(3, b"".join(_varint(1 << 3 | 0) + _varint(int(v)) for v in arr.ravel()))
    return _ld(3, _ld(1, b"".join(_varint(int(v)) for v in arr.ravel())))


def _example(features: dict) -> bytes:
    entries = b"".join(_ld(1, _ld(1, k.encode()) + _ld(2, _feature(v))) for k, v in features.items())
    return _ld(1, entries)


def _frame(data: bytes) -> bytes:
    head = struct.pack("<Q", len(data))
    return head + struct.pack("<I", _masked(head)) + data + struct.pack("<I", _masked(data))


def _rows(n, seed=0):
    rng = np.random.default_rng(seed)
    return [{"label": [int(i * 7 - 3)], "vec": rng.standard_normal(4).astype(np.float32),
             "image": rng.integers(0, 256, 6, dtype=np.uint8).tobytes(), "ids": [i, -i, 2 ** 40]}
            for i in range(n)]


def _write(path, rows, compress=None):
    blob = b"".join(_frame(_example(r)) for r in rows)
    path.write_bytes(gzip.compress(blob) if compress == "GZIP" else blob)
    return path


def test_crc32c_known_vector():
    from spore.dataset.tfrecord import crc32c

    assert crc32c(b"123456789") == 0xE3069283 == _crc32c_bitwise(b"123456789")


def test_reads_every_feature_kind_without_a_schema(tmp_path):
    rows = _rows(5)
    d = ds.TFRecordDataset(str(_write(tmp_path / "a.tfrecord", rows)), shuffle=False)
    assert d.get_col_names() == ["ids", "image", "label", "vec"]
    assert d.get_dataset_size() == 5
    for r, got in zip(rows, d.create_dict_iterator(output_numpy=True), strict=True):
        np.testing.assert_array_equal(got["ids"], np.array(r["ids"], np.int64))
        np.testing.assert_array_equal(got["label"], np.array(r["label"], np.int64))
        np.testing.assert_array_equal(got["vec"], r["vec"])
        assert got["vec"].dtype == np.float32
        assert got["image"].tolist() == [r["image"]]


def test_schema_types_shapes_and_columns_list(tmp_path):
    rows = _rows(4)
    f1 = _write(tmp_path / "a.tfrecord", rows[:2])
    f2 = _write(tmp_path / "b.tfrecord", rows[2:])
    schema = ds.Schema()
    schema.add_column("image", de_type="uint8", shape=[2, 3])
    schema.add_column("label", de_type=np.int32, shape=[1])
    d = ds.TFRecordDataset([str(f1), str(f2)], schema=schema, shuffle=False)
    got = list(d.create_tuple_iterator(output_numpy=True))
    assert len(got) == 4
    for r, (image, label) in zip(rows, got, strict=True):
        np.testing.assert_array_equal(image, np.frombuffer(r["image"], np.uint8).reshape(2, 3))
        assert label.dtype == np.int32 and label.tolist() == r["label"]
    js = tmp_path / "schema.json"
    js.write_text(json.dumps({"datasetType": "TF", "numRows": 3,
                              "columns": {"vec": {"type": "float64", "rank": 1, "shape": [4]}}}))
    d = ds.TFRecordDataset(str(tmp_path / "*.tfrecord"), schema=str(js), shuffle=False)
    vecs = [v for (v,) in d.create_tuple_iterator(output_numpy=True)]
    assert len(vecs) == 3 and vecs[0].dtype == np.float64
    np.testing.assert_allclose(vecs[2], rows[2]["vec"])
    d = ds.TFRecordDataset(str(f1), columns_list=["label", "ids"], shuffle=False)
    assert d.get_col_names() == ["label", "ids"]


def test_gzip_shuffle_and_shards(tmp_path):
    rows = _rows(8)
    path = _write(tmp_path / "z.tfrecord.gz", rows, compress="GZIP")
    ds.config.set_seed(3)
    d = ds.TFRecordDataset(str(path), compression_type="GZIP", columns_list=["label"])
    labels = sorted(int(x[0]) for (x,) in d.create_tuple_iterator(output_numpy=True))
    assert labels == sorted(r["label"][0] for r in rows)
    parts = [sorted(int(x[0]) for (x,) in ds.TFRecordDataset(str(path), compression_type="GZIP", columns_list=[
        "label"], num_shards=2, shard_id=s, shuffle=False).create_tuple_iterator(output_numpy=True)) for s in (0, 1)]
    assert len(parts[0]) == len(parts[1]) == 4 and sorted(parts[0] + parts[1]) == labels


def test_damaged_files_name_the_file_and_record(tmp_path):
    rows = _rows(3)
    good = _write(tmp_path / "good.tfrecord", rows).read_bytes()
    bad = bytearray(good)
    second = len(_frame(_example(rows[0])))
    bad[second + 12 + 3] ^= 0xFF  # a byte of record 1's data
    p = tmp_path / "bad.tfrecord"
    p.write_bytes(bytes(bad))
    d = ds.TFRecordDataset(str(p), shuffle=False)
    with pytest.raises(DatasetError, match=r"bad\.tfrecord: record 1 \(row 1\): the data checksum"):
        list(d.create_tuple_iterator(output_numpy=True))
    p.write_bytes(good[:-3])
    with pytest.raises(DatasetError, match=r"bad\.tfrecord: record 2 .*truncated"):
        ds.TFRecordDataset(str(p))
    p.write_bytes(b"not a tfrecord file at all")
    with pytest.raises(DatasetError, match=r"bad\.tfrecord: record 0 at byte 0: the length checksum"):
        ds.TFRecordDataset(str(p))
    with pytest.raises(DatasetError, match="no such file"):
        ds.TFRecordDataset(str(tmp_path / "missing.tfrecord"))
    p.write_bytes(_frame(b"\xff\xff\xff"))
    with pytest.raises(DatasetError, match=r"bad\.tfrecord: record 0 .*not a tf.train.Example"):
        ds.TFRecordDataset(str(p))
    schema = ds.Schema()
    schema.add_column("nope", "int64")
    d = ds.TFRecordDataset(str(tmp_path / "good.tfrecord"), schema=schema, shuffle=False)
    with pytest.raises(DatasetError, match="good.tfrecord: record 0 .*no feature 'nope'"):
        list(d)


def test_schema_json_round_trip_and_bad_file(tmp_path):
    s = ds.Schema()
    s.add_column("a", "int64", [2])
    s.add_column("b", "string")
    p = tmp_path / "s.json"
    p.write_text(s.to_json())
    t = ds.Schema(str(p))
    assert t.columns == s.columns
    p.write_text("{not json")
    with pytest.raises(DatasetError, match="s.json"):
        ds.Schema(str(p))
    with pytest.raises(TypeError, match="unknown column type"):
        s.add_column("c", "complex7")
