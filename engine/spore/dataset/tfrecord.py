"""``TFRecordDataset`` and ``Schema``: TensorFlow's record files of ``tf.train.Example`` protobufs.

A TFRecord file is a sequence of records framed as::

    uint64 length (little-endian) | uint32 masked_crc32c(length bytes) | data | uint32 masked_crc32c(data)

with ``masked(c) = ((c >> 15) | (c << 17)) + 0xa282ead8`` (mod 2**32) and CRC-32C the Castagnoli
polynomial. Both checksums are verified: a record that fails names its file and record number,
never hands out damaged data. The data is a serialized ``tf.train.Example``; Spore declares that
message (Example -> Features -> map<string, Feature> -> BytesList/FloatList/Int64List) in a private
protobuf descriptor pool, so neither TensorFlow nor a generated module is needed, and nothing is
ever unpickled.

The files are scanned once when the dataset is built (the lengths only, so a large file costs a
seek per record) and rows are then read by index, so samplers, shuffling and sharding work as for
every other source. ``compression_type='GZIP'``/``'ZLIB'`` files are decompressed into memory.

Column types: an ``int64_list`` is an int64 vector, a ``float_list`` float32, a ``bytes_list`` an
array of bytes strings (NumPy ``S`` dtype). A `Schema` (or a MindSpore schema JSON file) may give
each column a type and a shape: ints and floats are cast to it, a ``bytes_list`` under a numeric
type is the bytes reinterpreted (``uint8`` for encoded images), and ``shape`` reshapes the vector.
Without a schema the columns are the first record's features, sorted by name (a protobuf map has
no order; MindSpore's order there is unspecified).
"""

from __future__ import annotations

import gzip
import json
import os
import struct
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from .errors import DatasetError
from .more_sources import Shuffle, _files, _shuffle_flag
from .source_base import MappableSource

__all__ = ["Schema", "TFRecordDataset", "crc32c", "masked_crc32c"]


def _crc_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc_table()


def crc32c(data: bytes, crc: int = 0) -> int:
    """CRC-32C (Castagnoli) of ``data``: ``crc32c(b"123456789") == 0xE3069283``."""
    table = _TABLE
    c = crc ^ 0xFFFFFFFF
    for b in data:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """The checksum TFRecord stores: CRC-32C rotated right by 15 bits plus 0xa282ead8."""
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


_EXAMPLE_CLASS: Any = None


def example_class() -> Any:
    """The ``tensorflow.Example`` message class, declared in a private descriptor pool."""
    global _EXAMPLE_CLASS
    if _EXAMPLE_CLASS is not None:
        return _EXAMPLE_CLASS
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    F = descriptor_pb2.FieldDescriptorProto
    fdp = descriptor_pb2.FileDescriptorProto(name="spore_tf_example.proto", package="tensorflow", syntax="proto3")

    def message(name: str, fields: list[tuple[str, int, int, int, str]], oneof: str | None = None) -> Any:
        m = fdp.message_type.add(name=name)
        if oneof:
            m.oneof_decl.add(name=oneof)
        for fname, number, label, ftype, type_name in fields:
            f = m.field.add(name=fname, number=number, label=label, type=ftype)
            if type_name:
                f.type_name = type_name
            if oneof:
                f.oneof_index = 0
        return m

    message("BytesList", [("value", 1, F.LABEL_REPEATED, F.TYPE_BYTES, "")])
    message("FloatList", [("value", 1, F.LABEL_REPEATED, F.TYPE_FLOAT, "")])
    message("Int64List", [("value", 1, F.LABEL_REPEATED, F.TYPE_INT64, "")])
    message("Feature", [("bytes_list", 1, F.LABEL_OPTIONAL, F.TYPE_MESSAGE, ".tensorflow.BytesList"),
                        ("float_list", 2, F.LABEL_OPTIONAL, F.TYPE_MESSAGE, ".tensorflow.FloatList"),
                        ("int64_list", 3, F.LABEL_OPTIONAL, F.TYPE_MESSAGE, ".tensorflow.Int64List")], oneof="kind")
    feats = message("Features", [("feature", 1, F.LABEL_REPEATED, F.TYPE_MESSAGE, ".tensorflow.Features.FeatureEntry")])
    entry = feats.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, label=F.LABEL_OPTIONAL, type=F.TYPE_STRING)
    entry.field.add(name="value", number=2, label=F.LABEL_OPTIONAL, type=F.TYPE_MESSAGE,
                    type_name=".tensorflow.Feature")
    message("Example", [("features", 1, F.LABEL_OPTIONAL, F.TYPE_MESSAGE, ".tensorflow.Features")])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    _EXAMPLE_CLASS = message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow.Example"))
    return _EXAMPLE_CLASS


# --- Schema -------------------------------------------------------------------------------------

_TYPES = {"bool": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
          "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
          "float16": np.float16, "float32": np.float32, "float64": np.float64, "string": None, "bytes": None}


def _type_name(de_type: Any) -> str:
    """A column type as MindSpore's schema string ('int64', 'float32', 'string', ...)."""
    if isinstance(de_type, str):
        name = {"float": "float32", "int": "int64", "double": "float64", "str": "string"}.get(de_type, de_type)
    elif de_type is str or de_type is bytes:
        name = "string"
    else:
        try:
            name = np.dtype(de_type).name
        except TypeError:
            from ..common import dtype as mstype

            try:
                name = np.dtype(mstype.to_dtype(de_type).np).name
            except Exception:
                raise TypeError(f"Schema: unknown column type {de_type!r}") from None
    if name not in _TYPES:
        raise TypeError(f"Schema: unknown column type {de_type!r}; use one of {sorted(_TYPES)}")
    return name


class Schema:
    """Column names, types and shapes of a dataset (MindSpore's JSON schema format).

    ``Schema("schema.json")`` reads a file like
    ``{"datasetType": "TF", "numRows": 3, "columns": {"label": {"type": "int64", "rank": 1, "shape": [1]}}}``.
    """

    def __init__(self, schema_file: str | None = None) -> None:
        self.columns: list[dict[str, Any]] = []
        self.dataset_type = ""
        self.num_rows = 0
        if schema_file is not None:
            path = os.fspath(schema_file)
            try:
                with open(path, encoding="utf-8") as f:
                    obj = json.load(f)
            except (OSError, ValueError) as e:
                raise DatasetError(f"Schema: cannot read schema file {path}: {e}") from e
            try:
                self.from_json(obj)
            except (TypeError, ValueError, KeyError) as e:
                raise DatasetError(f"Schema: schema file {path} is not a valid schema: {e}") from e

    def add_column(self, name: str, de_type: Any, shape: Sequence[int] | None = None) -> None:
        """Add a column of type ``de_type`` (a MindSpore/NumPy dtype or a name like 'int64')."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"Schema.add_column: name must be a non-empty str, got {name!r}")
        col: dict[str, Any] = {"name": name, "type": _type_name(de_type)}
        if shape is not None:
            shape = [int(d) for d in shape]
            if any(d <= 0 and d != -1 for d in shape):
                raise ValueError(f"Schema.add_column: shape must hold positive ints (or -1), got {shape}")
            col["shape"], col["rank"] = shape, len(shape)
        self.columns.append(col)

    def parse_columns(self, columns: dict | list) -> None:
        """Replace the columns by ``{"name": {"type": ..., "shape": [...]}}`` or a list of
        ``{"name": ..., "type": ..., "shape": ...}``."""
        self.columns = []
        items = columns.items() if isinstance(columns, dict) else [(c["name"], c) for c in columns]
        for name, spec in items:
            if "type" not in spec:
                raise KeyError(f"column {name!r} has no 'type'")
            self.add_column(name, spec["type"], spec.get("shape"))

    def from_json(self, json_obj: dict) -> None:
        """Load a schema from its JSON object (the parsed content of a schema file)."""
        if not isinstance(json_obj, dict) or "columns" not in json_obj:
            raise KeyError("a schema needs a 'columns' entry")
        self.dataset_type = json_obj.get("datasetType", "")
        self.num_rows = int(json_obj.get("numRows", 0))
        self.parse_columns(json_obj["columns"])

    def to_json(self) -> str:
        """The schema as MindSpore's JSON text."""
        cols = {c["name"]: {k: v for k, v in c.items() if k != "name"} for c in self.columns}
        return json.dumps({"datasetType": self.dataset_type, "numRows": self.num_rows, "columns": cols}, indent=2)

    def __str__(self) -> str:
        return self.to_json()


# --- TFRecord files -----------------------------------------------------------------------------

def _scan(path: str, data: bytes | None) -> list[tuple[int, int]]:
    """(offset of data, length) of every record, checking each header's length checksum."""
    out = []
    if data is not None:
        size = len(data)
    else:
        size = os.path.getsize(path)
    try:
        f = None if data is not None else open(path, "rb")
        pos = 0
        while pos < size:
            if f is None:
                head = data[pos:pos + 12]  # type: ignore[index]
            else:
                f.seek(pos)
                head = f.read(12)
            if len(head) < 12:
                raise DatasetError(f"TFRecordDataset: {path}: record {len(out)} at byte {pos}: the file ends inside "
                                   "the record header; it is truncated or not a TFRecord file")
            length, len_crc = struct.unpack("<QI", head)
            if masked_crc32c(head[:8]) != len_crc:
                raise DatasetError(f"TFRecordDataset: {path}: record {len(out)} at byte {pos}: the length checksum "
                                   "does not match; the file is corrupted or not a TFRecord file",
                                   hint="compressed files need compression_type='GZIP' or 'ZLIB'")
            if pos + 12 + length + 4 > size:
                raise DatasetError(f"TFRecordDataset: {path}: record {len(out)} at byte {pos} declares {length} bytes "
                                   f"but the file ends after {size - pos - 12}: it is truncated")
            out.append((pos + 12, length))
            pos += 12 + length + 4
        if f is not None:
            f.close()
    except OSError as e:
        raise DatasetError(f"TFRecordDataset: cannot read {path}: {e.strerror or e}") from e
    return out


def _load(path: str, compression_type: str | None) -> bytes | None:
    if not compression_type:
        return None
    try:
        with open(path, "rb") as f:
            raw = f.read()
        return gzip.decompress(raw) if compression_type == "GZIP" else zlib.decompress(raw)
    except (OSError, EOFError, zlib.error) as e:
        raise DatasetError(f"TFRecordDataset: cannot decompress {path} as {compression_type}: "
                           f"{type(e).__name__}: {e}") from e


def _feature_value(feature: Any) -> np.ndarray:
    kind = feature.WhichOneof("kind")
    if kind == "int64_list":
        return np.asarray(feature.int64_list.value, dtype=np.int64)
    if kind == "float_list":
        return np.asarray(feature.float_list.value, dtype=np.float32)
    if kind == "bytes_list":
        values = list(feature.bytes_list.value)
        return np.array(values, dtype=np.bytes_) if values else np.zeros(0, dtype="S1")
    return np.zeros(0, dtype=np.float32)


class _RecordReader:
    """Row ``index`` -> the Example's columns; picklable (paths, offsets, the schema as plain data)."""

    def __init__(self, paths: list[str], blobs: list[bytes | None], index: list[tuple[int, int, int, int]],
                 columns: list[str], specs: dict[str, dict[str, Any]]) -> None:
        self.paths, self.blobs, self.index, self.columns, self.specs = paths, blobs, index, columns, specs

    def _record(self, index: int) -> tuple[bytes, str, int]:
        file_no, offset, length, record = self.index[index]
        path = self.paths[file_no]
        blob = self.blobs[file_no]
        if blob is not None:
            body = blob[offset:offset + length + 4]
        else:
            try:
                with open(path, "rb") as f:
                    f.seek(offset)
                    body = f.read(length + 4)
            except OSError as e:
                raise DatasetError(f"cannot read {path} (row {index}): {e.strerror or e}") from e
        if len(body) != length + 4:
            raise DatasetError(f"{path}: record {record} (row {index}) is cut short: the file changed after it was "
                               "scanned")
        data, (crc,) = body[:length], struct.unpack("<I", body[length:])
        if masked_crc32c(data) != crc:
            raise DatasetError(f"{path}: record {record} (row {index}): the data checksum does not match; "
                               "the file is corrupted")
        return data, path, record

    def __call__(self, index: int) -> tuple[np.ndarray, ...]:
        data, path, record = self._record(index)
        example = example_class()()
        try:
            example.ParseFromString(data)
        except Exception as e:  # google.protobuf.message.DecodeError
            raise DatasetError(f"{path}: record {record} (row {index}) is not a tf.train.Example: "
                               f"{type(e).__name__}: {e}") from e
        feats = example.features.feature
        out = []
        for name in self.columns:
            if name not in feats:
                raise DatasetError(f"{path}: record {record} (row {index}) has no feature {name!r}; "
                                   f"it has {sorted(feats)}")
            out.append(self._convert(_feature_value(feats[name]), name, path, record))
        return tuple(out)

    def _convert(self, value: np.ndarray, name: str, path: str, record: int) -> np.ndarray:
        spec = self.specs.get(name)
        if spec is None:
            return value
        tname = spec["type"]
        dtype = _TYPES[tname]
        if dtype is not None:
            if value.dtype.kind == "S":
                try:
                    value = np.concatenate([np.frombuffer(v, dtype=dtype) for v in value.tolist()]) if value.size \
                        else np.zeros(0, dtype)
                except ValueError as e:
                    raise DatasetError(f"{path}: record {record}: feature {name!r}: its bytes cannot be read as "
                                       f"{tname}: {e}") from e
            else:
                value = value.astype(dtype)
        elif value.dtype.kind != "S":
            raise DatasetError(f"{path}: record {record}: feature {name!r} holds numbers but the schema says "
                               f"{tname}")
        shape = spec.get("shape")
        if shape is not None:
            try:
                value = value.reshape(shape)
            except ValueError:
                raise DatasetError(f"{path}: record {record}: feature {name!r} has {value.size} value(s), which do "
                                   f"not fit the schema shape {shape}") from None
        return value


class TFRecordDataset(MappableSource):
    """Rows from TFRecord files of ``tf.train.Example`` records (see the module docstring).

    ``schema`` is a `Schema`, a path to a schema JSON file, or None; ``columns_list`` picks and
    orders the columns. ``shard_equal_rows`` is accepted: Spore's shards always have equal rows.
    """

    def __init__(self, dataset_files: Any, schema: Any = None, columns_list: Sequence[str] | None = None,
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None, shard_id: int | None = None,
                 shard_equal_rows: bool = False, cache: Any = None, compression_type: str | None = None) -> None:
        owner = "TFRecordDataset"
        ctype = (compression_type or "").upper()
        if ctype not in ("", "GZIP", "ZLIB"):
            raise ValueError(f"{owner}: compression_type must be None, '', 'GZIP' or 'ZLIB', got {compression_type!r}")
        if schema is not None and not isinstance(schema, Schema):
            schema = Schema(schema)
        paths = _files(dataset_files, owner)
        blobs = [_load(p, ctype) for p in paths]
        index = [(i, off, n, r) for i, (p, b) in enumerate(zip(paths, blobs, strict=True))
                 for r, (off, n) in enumerate(_scan(p, b))]
        specs = {c["name"]: c for c in schema.columns} if schema is not None else {}
        if columns_list is not None:
            columns = [columns_list] if isinstance(columns_list, str) else list(columns_list)
        elif schema is not None and schema.columns:
            columns = [c["name"] for c in schema.columns]
        elif index:
            reader = _RecordReader(paths, blobs, index, [], {})
            data, path, record = reader._record(0)
            example = example_class()()
            try:
                example.ParseFromString(data)
            except Exception as e:
                raise DatasetError(f"{owner}: {path}: record {record} is not a tf.train.Example: {e}") from e
            columns = sorted(example.features.feature)
        else:
            raise DatasetError(f"{owner}: {paths} hold no records, so there are no columns to read",
                               hint="give a schema or columns_list")
        if not columns:
            raise DatasetError(f"{owner}: the first record of {paths[0]} has no features")
        if schema is not None and schema.num_rows and num_samples is None:
            index = index[:schema.num_rows]
        self._paths, self._blobs, self._index, self._specs = paths, blobs, index, specs
        self.shard_equal_rows = bool(shard_equal_rows)
        super().__init__(column_names=columns, num_samples=num_samples, shuffle=_shuffle_flag(shuffle, owner),
                         sampler=None, num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers)

    def _num_rows(self) -> int:
        return len(self._index)

    def _reader(self) -> _RecordReader:
        return _RecordReader(self._paths, self._blobs, self._index, self._names, self._specs)
