"""The `.ckpt` format: MindSpore's protobuf schema, its dtype names, and strict encode/decode.

The schema (documented in ``checkpoint.proto`` next to this file) is built here as a
FileDescriptorProto in a private descriptor pool, so no protoc or generated code is needed and a
real ``mindspore.train.checkpoint_pb2`` loaded in the same process cannot clash with it.

Writing follows MindSpore's writer byte for byte: one serialized ``Checkpoint`` holding one
``Value`` per tensor (per 512 MiB slice of a tensor), concatenated. Reading walks that framing by
hand (one length-prefixed record per Value, so errors can name the record and byte offset) and
lets protobuf parse each record; then every record is checked: required fields, no unknown
fields, UTF-8 names, a known dtype, sane dims (their byte size computed with Python integers, so
``[0, 2**40, 2**40]`` cannot wrap or reach NumPy), content length == prod(dims) * itemsize, bools
that are 0/1, and no repeated names except the consecutive slices of one tensor.

Spore adds two things MindSpore's reader tolerates, so that a damaged Spore file can always be told:
- a *header*: one unknown field of the top-level ``Checkpoint`` message (field 21328, bytes
  ``spore.ckpt/1``) before the first record. Protobuf keeps unknown fields and MindSpore only
  iterates ``Checkpoint.value``, so MindSpore loads the file as if it were not there;
- MindSpore's own CRC trailer (``b"crc_num"`` + CRC-32 as 10 big-endian bytes, over every byte
  before it, header included), which MindSpore strips whether or not it checks it.
A file that starts with the header but ends without a trailer was cut short: it is refused.
"""

from __future__ import annotations

import math
import sys
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, unknown_fields
from google.protobuf.message import DecodeError

from ..common import dtype as mstype
from ..common.dtype import DType

__all__ = ["Checkpoint", "Value", "TensorProto", "MapTensorProto", "TENSOR_TYPES", "FormatError",
           "type_name", "encode_entries", "decode", "crc_trailer", "split_crc", "SPORE_HEADER", "has_spore_header"]

# MindSpore splits a tensor's content into Values of at most this many bytes (SLICE_SIZE KiB).
SLICE_BYTES = 512 * 1024 * 1024
CRC_MAGIC = b"crc_num"
CRC_TRAILER_LEN = len(CRC_MAGIC) + 10
_MAX_DIMS = 32  # NumPy's limit is 64; no real network comes near either
_MAX_ARRAY_BYTES = np.iinfo(np.intp).max  # NumPy refuses arrays larger than this ("array is too big")

# Spore's header: field 21328 ("SP"), wire type 2 (length-delimited), of the top-level Checkpoint.
SPORE_FIELD = 0x5350
_SPORE_KEY = SPORE_FIELD << 3 | 2
_SPORE_PAYLOAD = b"spore.ckpt/1"
SPORE_HEADER = bytes([0x82, 0xB5, 0x0A, len(_SPORE_PAYLOAD)]) + _SPORE_PAYLOAD  # varint(_SPORE_KEY), length


def _build_schema() -> descriptor_pool.DescriptorPool:
    """checkpoint.proto as a FileDescriptorProto, added to a pool of our own."""
    F = descriptor_pb2.FieldDescriptorProto
    fdp = descriptor_pb2.FileDescriptorProto(name="checkpoint.proto", syntax="proto2")
    ckpt = fdp.message_type.add(name="Checkpoint")
    value = ckpt.nested_type.add(name="Value")
    value.field.add(name="tag", number=1, label=F.LABEL_REQUIRED, type=F.TYPE_STRING)
    value.oneof_decl.add(name="value")
    value.field.add(name="tensor", number=2, label=F.LABEL_OPTIONAL, type=F.TYPE_MESSAGE,
                    type_name=".TensorProto", oneof_index=0)
    value.field.add(name="maptensor", number=3, label=F.LABEL_OPTIONAL, type=F.TYPE_MESSAGE,
                    type_name=".MapTensorProto", oneof_index=0)
    ckpt.field.add(name="value", number=1, label=F.LABEL_REPEATED, type=F.TYPE_MESSAGE,
                   type_name=".Checkpoint.Value")
    tensor = fdp.message_type.add(name="TensorProto")
    tensor.field.add(name="dims", number=1, label=F.LABEL_REPEATED, type=F.TYPE_INT64)
    tensor.field.add(name="tensor_type", number=2, label=F.LABEL_REQUIRED, type=F.TYPE_STRING)
    tensor.field.add(name="tensor_content", number=3, label=F.LABEL_REQUIRED, type=F.TYPE_BYTES)
    maptensor = fdp.message_type.add(name="MapTensorProto")
    maptensor.field.add(name="tensor", number=1, label=F.LABEL_REPEATED, type=F.TYPE_MESSAGE,
                        type_name=".TensorProto")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return pool


POOL = _build_schema()
Checkpoint = message_factory.GetMessageClass(POOL.FindMessageTypeByName("Checkpoint"))
Value = message_factory.GetMessageClass(POOL.FindMessageTypeByName("Checkpoint.Value"))
TensorProto = message_factory.GetMessageClass(POOL.FindMessageTypeByName("TensorProto"))
MapTensorProto = message_factory.GetMessageClass(POOL.FindMessageTypeByName("MapTensorProto"))

# tensor_type strings are MindSpore's str(dtype).
TENSOR_TYPES: dict[str, DType] = {name: t for name, t in (
    ("Float16", mstype.float16), ("Float32", mstype.float32), ("Float64", mstype.float64),
    ("BFloat16", mstype.bfloat16), ("Int8", mstype.int8), ("Int16", mstype.int16),
    ("Int32", mstype.int32), ("Int64", mstype.int64), ("UInt8", mstype.uint8), ("Bool", mstype.bool_),
    ("Complex64", mstype.complex64), ("Complex128", mstype.complex128),  # interleaved (re, im), as NumPy's
) if t is not None}
_NAME_BY_DTYPE = {t: name for name, t in TENSOR_TYPES.items()}  # by DType: bfloat16 stays unloaded
# MindSpore writes these too; Spore has no dtype for them, so they are refused by name.
MINDSPORE_ONLY_TYPES = ("UInt16", "UInt32", "UInt64", "Int4", "random_op")
STR_TYPE = "str"
_BIG_ENDIAN = sys.byteorder == "big"


class FormatError(ValueError):
    """What is wrong with the bytes of a checkpoint; the caller adds the file name."""


def type_name(np_dtype: np.dtype) -> str:
    """The tensor_type MindSpore writes for arrays of this NumPy dtype (its ``str(dtype)``)."""
    try:
        return _NAME_BY_DTYPE[mstype.from_numpy(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(f"arrays of NumPy dtype {np_dtype} cannot be saved to a checkpoint; "
                        f"supported: {', '.join(TENSOR_TYPES)}") from None


# --- writing ---------------------------------------------------------------------------------

def _record(name: str, dims: Iterable[int], tname: str, content: bytes) -> bytes:
    msg = Checkpoint()
    value = msg.value.add()
    value.tag = name
    tensor = value.tensor
    tensor.dims.extend(dims)
    tensor.tensor_type = tname
    tensor.tensor_content = content  # set even when empty: required fields must be present
    return msg.SerializeToString()


def encode_entries(entries: Iterable[tuple[str, np.ndarray | str]]) -> Iterator[bytes]:
    """Serialized records for (name, array-or-string) entries, in order, as MindSpore writes them.

    A tensor's dims are its shape (a scalar has none, like MindSpore 2.x); a string is
    ``dims [0]``, ``tensor_type "str"`` and UTF-32LE content (NumPy's ``<U`` layout).
    """
    for name, value in entries:
        if isinstance(value, str):
            yield _record(name, [0], STR_TYPE, np.array(value).astype(f"<U{max(1, len(value))}").tobytes())
            continue
        tname = type_name(value.dtype)
        arr = value.byteswap() if _BIG_ENDIAN and value.dtype.itemsize > 1 else value
        content = np.ascontiguousarray(arr).tobytes()
        if len(content) <= SLICE_BYTES:
            yield _record(name, value.shape, tname, content)
        else:
            for start in range(0, len(content), SLICE_BYTES):
                yield _record(name, value.shape, tname, content[start:start + SLICE_BYTES])


def has_spore_header(data: memoryview | bytes) -> bool:
    """Whether the bytes start with Spore's header, i.e. Spore wrote them (with a CRC trailer)."""
    return bytes(data[:len(SPORE_HEADER)]) == SPORE_HEADER


def crc_trailer(crc: int) -> bytes:
    """MindSpore's CRC trailer: b"crc_num" + the CRC-32 as a 10-byte big-endian integer."""
    return CRC_MAGIC + crc.to_bytes(10, byteorder="big")


# --- reading ---------------------------------------------------------------------------------

def split_crc(data: memoryview) -> tuple[memoryview, int | None]:
    """(protobuf bytes, stored CRC or None) — the trailer is recognised as MindSpore does."""
    if len(data) >= CRC_TRAILER_LEN and data[-CRC_TRAILER_LEN:-10] == CRC_MAGIC:
        return data[:-CRC_TRAILER_LEN], int.from_bytes(data[-10:], byteorder="big")
    return data, None


def crc32(data: memoryview) -> int:
    return zlib.crc32(data) & 0xFFFFFFFF


def _varint(buf: memoryview, pos: int, what: str, record: int) -> tuple[int, int]:
    result = shift = 0
    start = pos
    while True:
        if pos >= len(buf):
            raise FormatError(f"the file ends inside the {what} of record #{record} (byte {start}): "
                              "it is truncated")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift >= 64:
            raise FormatError(f"byte {start}: the {what} of record #{record} is not a valid varint: "
                              "the file is corrupted")


def iter_records(buf: memoryview) -> Iterator[tuple[int, int, memoryview]]:
    """(record number from 1, byte offset, payload) for each top-level ``Checkpoint.value``.

    Spore's header is skipped when the bytes start with it; anywhere else, or altered, it is an error.
    """
    pos, n, k = 0, len(buf), 0
    if has_spore_header(buf):
        pos = len(SPORE_HEADER)
    while pos < n:
        k += 1
        start = pos
        key, pos = _varint(buf, pos, "header", k)
        if key == _SPORE_KEY:
            raise FormatError(f"byte {start}: Spore's file header is damaged, misplaced or of a newer Spore version "
                              f"(expected {SPORE_HEADER!r} at byte 0): the file is corrupted")
        if key != 0x0A:
            raise FormatError(
                f"byte {start}: expected checkpoint record #{k} (protobuf key 0x0a: field 1, length-delimited), "
                f"found key {key:#x} (field {key >> 3}, wire type {key & 7}): the file is corrupted or "
                "truncated, or it is not a MindSpore/Spore checkpoint")
        length, pos = _varint(buf, pos, "length", k)
        if length > n - pos:
            raise FormatError(f"record #{k} at byte {start} declares {length} bytes but only {n - pos} remain: "
                              "the file is truncated")
        yield k, start, buf[pos:pos + length]
        pos += length


@dataclass
class _Pending:
    """A tensor being assembled from one or more consecutive records with the same tag."""

    tag: str
    record: int
    tname: str
    dims: list[int]
    chunks: list[bytes]


def _parse_record(k: int, offset: int, payload: memoryview) -> tuple[str, str, list[int], bytes]:
    """Parse one record with protobuf and check its fields: (tag, tensor_type, dims, content)."""
    where = f"record #{k} at byte {offset}"
    value = Value()
    try:
        value.ParseFromString(payload)
    except DecodeError:
        raise FormatError(f"{where} ({len(payload)} bytes) is not a valid Checkpoint.Value message: "
                          "the file is corrupted") from None
    tag = value.tag
    if not isinstance(tag, str) or not tag:
        problem = ("is missing" if not value.HasField("tag") else "is empty" if isinstance(tag, str)
                   else "is not valid UTF-8")
        raise FormatError(f"{where}: its tag (the parameter name) {problem}: the file is corrupted")
    where = f"{where} ({tag!r})"
    if unknown_fields.UnknownFieldSet(value):
        raise FormatError(f"{where} has fields the checkpoint schema does not define: the file is corrupted "
                          "or was written by an incompatible program")
    kind = value.WhichOneof("value")
    if kind == "maptensor":
        raise FormatError(f"{where} is a MindSpore MapParameter (maptensor), which Spore does not support")
    if kind is None:
        raise FormatError(f"{where} holds no tensor: the file is corrupted")
    tensor = value.tensor
    missing = tensor.FindInitializationErrors()
    if missing:
        raise FormatError(f"{where} is missing required field(s) {', '.join(missing)}: the file is corrupted")
    if unknown_fields.UnknownFieldSet(tensor):
        raise FormatError(f"{where}: its tensor has fields the checkpoint schema does not define: "
                          "the file is corrupted or was written by an incompatible program")
    tname = tensor.tensor_type
    if not isinstance(tname, str):
        raise FormatError(f"{where}: its tensor_type is not valid UTF-8: the file is corrupted")
    dims = list(tensor.dims)
    if len(dims) > _MAX_DIMS or any(d < 0 for d in dims):
        raise FormatError(f"{where}: invalid dims {dims[:8]}{'...' if len(dims) > 8 else ''} "
                          f"(need at most {_MAX_DIMS} non-negative sizes): the file is corrupted")
    return tag, tname, dims, tensor.tensor_content


def _finish(p: _Pending) -> np.ndarray | str:
    """Turn assembled content into an array (or a string), checking dtype and size."""
    where = f"tensor {p.tag!r} (record #{p.record})"
    content = p.chunks[0] if len(p.chunks) == 1 else b"".join(p.chunks)
    if p.tname == STR_TYPE:
        if len(content) % 4:
            raise FormatError(f"{where}: a string's content must be UTF-32 (a multiple of 4 bytes), "
                              f"got {len(content)} bytes: the file is corrupted")
        try:
            return content.decode("utf-32-le").rstrip("\x00")  # NumPy's <U pads with NULs
        except UnicodeDecodeError:
            raise FormatError(f"{where}: the string content is not valid UTF-32: the file is corrupted") from None
    dtype = TENSOR_TYPES.get(p.tname)
    if dtype is None:
        if p.tname in MINDSPORE_ONLY_TYPES:
            raise FormatError(f"{where} has dtype {p.tname}, which MindSpore has but Spore does not support "
                              f"(Spore reads {', '.join(TENSOR_TYPES)})")
        raise FormatError(f"{where} has unknown tensor_type {p.tname[:40]!r} (known: "
                          f"{', '.join(TENSOR_TYPES)}, str): the file is corrupted or not a checkpoint")
    itemsize = dtype.itemsize
    # Older MindSpore wrote scalars as dims [0]; its reader (and ours) takes one element as a scalar.
    shape = () if p.dims == [0] and len(content) == itemsize else tuple(p.dims)
    # Python integers: no product wraps. A zero dim makes the array empty, but NumPy still refuses
    # shapes whose other dims multiply past its index range, so those are refused here first.
    if math.prod(d for d in shape if d) * itemsize > _MAX_ARRAY_BYTES:
        raise FormatError(f"{where}: dims {list(p.dims)} describe more elements than any array can hold: "
                          "the file is corrupted")
    need = math.prod(shape) * itemsize
    if len(content) != need:
        sliced = f" over {len(p.chunks)} slices" if len(p.chunks) > 1 else ""
        raise FormatError(f"{where}: {p.tname} with dims {list(p.dims)} needs {need} bytes of content but has "
                          f"{len(content)}{sliced}: the file is truncated or corrupted")
    if dtype is mstype.bool_ and content and np.frombuffer(content, np.uint8).max() > 1:
        raise FormatError(f"{where}: Bool content holds bytes other than 0 and 1: the file is corrupted")
    try:
        arr = np.frombuffer(content, dtype=dtype.np).reshape(shape)
    except ValueError as err:  # a safety net: the checks above are meant to leave nothing for NumPy to refuse
        raise FormatError(f"{where}: dims {list(p.dims)} cannot shape its content ({err}): the file is corrupted") \
            from None
    return arr.byteswap() if _BIG_ENDIAN and itemsize > 1 else arr


def decode(data: memoryview) -> list[tuple[str, np.ndarray | str]]:
    """Every (name, array-or-string) of the protobuf bytes, in file order, fully validated.

    Arrays are read-only views of the file's bytes; callers copy what they keep.
    """
    out: list[tuple[str, np.ndarray | str]] = []
    seen: dict[str, int] = {}
    pending: _Pending | None = None
    for k, offset, payload in iter_records(data):
        tag, tname, dims, content = _parse_record(k, offset, payload)
        if pending is not None and tag == pending.tag:  # the next slice of the same tensor
            if tname != pending.tname or dims != pending.dims:
                raise FormatError(f"record #{k} continues tensor {tag!r} of record #{pending.record} with "
                                  f"different dims/dtype ({dims} {tname} vs {pending.dims} {pending.tname}): "
                                  "the file is corrupted")
            pending.chunks.append(content)
            continue
        if pending is not None:
            out.append((pending.tag, _finish(pending)))
        if tag in seen:
            raise FormatError(f"record #{k}: the name {tag!r} appears twice (records #{seen[tag]} and #{k}); "
                              "a checkpoint names each tensor once")
        seen[tag] = k
        pending = _Pending(tag, k, tname, dims, [content])
    if pending is not None:
        out.append((pending.tag, _finish(pending)))
    return out
