"""MindSpore-compatible `.ckpt` checkpoints: format compatibility, exact round trips, refusal of
damaged files, atomic saves (including a writer killed mid-save), and load_param_into_net."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import zlib
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from google.protobuf import descriptor_pb2, unknown_fields

from spore import Parameter, Tensor, nn, ops
from spore.train import CheckpointError, load_checkpoint, save_checkpoint
from spore.train import checkpoint as ckpt_mod
from spore.train import checkpoint_schema as schema

from .helpers import FIXTURES, PARAMS_CKPT, assert_exact, expected_params

HERE = Path(__file__).parent


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def record(tag: str, dims: list[int], tname: str, content: bytes) -> bytes:
    """One serialized record, built with the schema (for crafting damaged files)."""
    msg = schema.Checkpoint()
    value = msg.value.add()
    value.tag = tag
    value.tensor.dims.extend(dims)
    value.tensor.tensor_type = tname
    value.tensor.tensor_content = content
    return msg.SerializeToString()


def mindspore_parse(data: bytes, crc_check: bool = True) -> schema.Checkpoint:
    """What MindSpore 2.10's `_parse_ckpt_proto` does with a file's bytes: strip the CRC trailer
    when ``data[-17:-10] == b"crc_num"`` (verifying it under ``crc_check``), then one protobuf
    ``Checkpoint.ParseFromString``; its loader then walks only ``Checkpoint.value``."""
    if data[-17:-10] == b"crc_num":
        stored, data = int.from_bytes(data[-10:], "big"), data[:-17]
        if crc_check:
            assert zlib.crc32(data, 0) == stored, "MindSpore would refuse: the crc check is failed"
    msg = schema.Checkpoint()
    msg.ParseFromString(data)
    return msg


def spore_file(records: bytes) -> bytes:
    """The bytes Spore writes for these records: its header, the records, MindSpore's CRC trailer."""
    body = schema.SPORE_HEADER + records
    return body + b"crc_num" + zlib.crc32(body).to_bytes(10, "big")


def refused(path: Path, *patterns: str, **kwargs) -> CheckpointError:
    """load_checkpoint(path) raises a CheckpointError naming the file and matching every pattern."""
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(str(path), **kwargs)
    message = str(info.value)
    assert os.path.realpath(path) in message, message
    for pattern in patterns:
        assert re.search(pattern, message), (pattern, message)
    return info.value


class CNN(nn.Cell):
    """The network of the fixture README."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, pad_mode="pad", padding=1, has_bias=True)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flat = nn.Flatten()
        self.fc = nn.Dense(16 * 16 * 16, 10)

    def construct(self, x):
        return self.fc(self.flat(self.pool(self.relu(self.conv(x)))))


# --- compatibility with files written by MindSpore 2.10 --------------------------------------

def test_mindspore_checkpoint_loads_every_tensor_exactly():
    loaded = load_checkpoint(str(PARAMS_CKPT))
    want = expected_params()
    assert list(loaded) == list(want)  # names and file order
    for name, arr in want.items():
        assert isinstance(loaded[name], Parameter) and loaded[name].name == name
        assert_exact(loaded[name].asnumpy(), arr, name)


def test_spore_writes_mindspores_records_byte_for_byte_between_its_header_and_crc_trailer(tmp_path):
    out = tmp_path / "params.ckpt"
    save_checkpoint([{"name": k, "data": Tensor(v)} for k, v in expected_params().items()], str(out))
    data = out.read_bytes()
    theirs = PARAMS_CKPT.read_bytes()
    assert data == spore_file(theirs)  # MindSpore's very records, framed by the header and the trailer
    # MindSpore's reader, with and without crc_check, sees exactly MindSpore's own file ...
    for crc_check in (True, False):
        ours = mindspore_parse(data, crc_check)
        assert list(ours.value) == list(mindspore_parse(theirs).value)
    # ... because the header is one field the schema does not define, which protobuf keeps aside.
    unknown = [(f.field_number, f.wire_type, f.data) for f in unknown_fields.UnknownFieldSet(mindspore_parse(data))]
    assert unknown == [(schema.SPORE_FIELD, 2, b"spore.ckpt/1")]
    # crc_check=True on save (MindSpore's way to ask for the trailer) writes the same bytes.
    save_checkpoint([{"name": k, "data": Tensor(v)} for k, v in expected_params().items()], str(out), crc_check=True)
    assert out.read_bytes() == data


def test_mindspore_cnn_checkpoint_reproduces_mindspore_output():
    net = CNN()
    loaded = load_checkpoint(str(FIXTURES / "cnn.ckpt"), net=net)
    assert list(loaded) == ["conv.weight", "conv.bias", "fc.weight", "fc.bias"]
    for name, p in net.parameters_and_names():
        assert_exact(p.asnumpy(), loaded[name].asnumpy(), name)
    with np.load(FIXTURES / "ref.npz", allow_pickle=False) as ref:
        x, y = ref["x"], ref["y"]
    out = net(Tensor(x)).asnumpy()
    assert out.shape == y.shape == (1, 10)
    assert np.abs(out - y).max() <= 1e-5


def test_proto_text_documents_the_schema_spore_builds():
    text = (Path(ckpt_mod.__file__).parent / "checkpoint.proto").read_text()
    text = re.sub(r"//[^\n]*", "", text)
    in_text = set(re.findall(r"(?:(required|optional|repeated)\s+)?(\w+)\s+(\w+)\s*=\s*(\d+);", text))
    fdp = descriptor_pb2.FileDescriptorProto()
    schema.POOL.FindFileByName("checkpoint.proto").CopyToProto(fdp)
    labels = {1: "optional", 2: "required", 3: "repeated"}
    kinds = {9: "string", 12: "bytes", 3: "int64"}
    messages = [m for top in fdp.message_type for m in (top, *top.nested_type)]
    built = {("" if f.HasField("oneof_index") else labels[f.label],
              f.type_name.rsplit(".", 1)[-1] if f.type_name else kinds[f.type], f.name, str(f.number))
             for m in messages for f in m.field}
    assert len(built) == 8
    assert in_text == built


# --- exact round trips -------------------------------------------------------------------------

def test_round_trip_is_exact_for_every_dtype_shape_and_special_value(tmp_path):
    rng = np.random.default_rng(0)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -3.5], dtype=np.float32)
    nan_payload = np.array([0x7FC00001, 0xFFFFFFFF], dtype=np.uint32).view(np.float32)
    arrays = {
        "f32": rng.standard_normal((3, 4)).astype(np.float32),
        "f32.special": np.concatenate([specials, nan_payload]),
        "f16": rng.standard_normal((2, 3, 2)).astype(np.float16),
        "f64": rng.standard_normal(5),
        "bf16": rng.standard_normal((4, 2)).astype(ml_dtypes.bfloat16),
        "bool": np.array([[True, False], [False, True]]),
        "i8": np.array([-128, 0, 127], dtype=np.int8),
        "u8": np.array([0, 1, 255], dtype=np.uint8),
        "i16": np.array([-32768, 32767], dtype=np.int16),
        "i32": np.arange(-6, 6, dtype=np.int32).reshape(3, 2, 2),
        "i64": np.array([np.iinfo(np.int64).min, -1, np.iinfo(np.int64).max]),
        "scalar.f32": np.array(2.5, dtype=np.float32),
        "scalar.bf16": np.array(-1.25, dtype=ml_dtypes.bfloat16),
        "scalar.bool": np.array(True),
        "scalar.i64": np.array(7),
        "one": np.array([3.0], dtype=np.float32),
        "empty": np.zeros((0,), dtype=np.float32),
        "empty.3d": np.zeros((2, 0, 3), dtype=np.int32),
        "unit.axes": np.ones((3, 1, 2, 1), dtype=np.float16),
    }
    path = tmp_path / "all.ckpt"
    save_checkpoint({k: Parameter(v, name=k) for k, v in arrays.items()}, str(path))
    loaded = load_checkpoint(str(path))
    assert list(loaded) == list(arrays)
    for name, arr in arrays.items():
        assert_exact(loaded[name].asnumpy(), arr, name)
    save_checkpoint(loaded, str(tmp_path / "again.ckpt"))  # load_checkpoint's dict saves back unchanged
    assert (tmp_path / "again.ckpt").read_bytes() == path.read_bytes()


def test_append_dict_adds_scalars_strings_and_tensors_with_mindspore_dtypes(tmp_path):
    net = nn.Dense(3, 2)
    path = tmp_path / "net.ckpt"
    save_checkpoint(net, str(path), append_dict={"epoch_num": 3, "lr": 0.5, "done": True,
                                                 "note": "ünïcode €", "empty": "", "extra": Tensor([1, 2])})
    loaded = load_checkpoint(str(path))
    assert list(loaded) == ["weight", "bias", "epoch_num", "lr", "done", "note", "empty", "extra"]
    assert_exact(loaded["epoch_num"].asnumpy(), np.array(3, dtype=np.int64))
    assert_exact(loaded["lr"].asnumpy(), np.array(0.5, dtype=np.float32))
    assert_exact(loaded["done"].asnumpy(), np.array(True))
    assert loaded["note"] == "ünïcode €" and loaded["empty"] == ""
    assert_exact(loaded["extra"].asnumpy(), np.array([1, 2], dtype=np.int64))
    # On disk: a scalar has no dims (MindSpore 2.x), a string is dims [0] of type "str".
    msg = mindspore_parse(path.read_bytes())
    by_tag = {v.tag: v.tensor for v in msg.value}
    assert list(by_tag["epoch_num"].dims) == [] and by_tag["epoch_num"].tensor_type == "Int64"
    assert list(by_tag["note"].dims) == [0] and by_tag["note"].tensor_type == "str"


def test_scalar_written_with_legacy_dims_zero_loads_as_a_scalar(tmp_path):
    path = write(tmp_path / "old.ckpt", record("step", [0], "Int32", np.int32(9).tobytes())
                 + record("none", [0], "Float32", b""))
    loaded = load_checkpoint(str(path))
    assert_exact(loaded["step"].asnumpy(), np.array(9, dtype=np.int32))
    assert_exact(loaded["none"].asnumpy(), np.zeros((0,), dtype=np.float32))


def test_large_tensors_are_written_in_slices_and_reassembled(tmp_path, monkeypatch):
    monkeypatch.setattr(schema, "SLICE_BYTES", 64)  # MindSpore's 512 MiB, scaled down
    arr = np.arange(100, dtype=np.float32).reshape(10, 10)  # 400 bytes -> 7 slices
    path = tmp_path / "sliced.ckpt"
    save_checkpoint({"big": Tensor(arr), "small": Tensor(np.ones(2, np.float32))}, str(path))
    msg = mindspore_parse(path.read_bytes())
    assert [v.tag for v in msg.value] == ["big"] * 7 + ["small"]
    assert all(list(v.tensor.dims) == [10, 10] for v in msg.value[:7])
    loaded = load_checkpoint(str(path))
    assert_exact(loaded["big"].asnumpy(), arr)


def test_every_save_obj_form_and_choice_func(tmp_path):
    net = CNN()
    want = {p.name: p.asnumpy() for p in net.get_parameters()}
    forms = {
        "cell": net,
        "params": net.trainable_params(),
        "dicts": [{"name": p.name, "data": p} for p in net.get_parameters()],
        "dict": dict(net.parameters_and_names()),
    }
    for label, obj in forms.items():
        save_checkpoint(obj, str(tmp_path / label))  # ".ckpt" is appended, as MindSpore does
        loaded = load_checkpoint(str(tmp_path / f"{label}.ckpt"))
        assert list(loaded) == list(want), label
        for name, arr in want.items():
            assert_exact(loaded[name].asnumpy(), arr, f"{label}:{name}")
    save_checkpoint(net, str(tmp_path / "conv.ckpt"), choice_func=lambda n: n.startswith("conv"))
    assert list(load_checkpoint(str(tmp_path / "conv.ckpt"))) == ["conv.weight", "conv.bias"]


def test_save_refuses_bad_arguments_before_touching_the_file(tmp_path):
    path = tmp_path / "keep.ckpt"
    save_checkpoint({"a": Tensor([1.0])}, str(path))
    before = path.read_bytes()
    twins = [Parameter(np.ones(2, np.float32)), Parameter(np.zeros(2, np.float32))]  # both named "Parameter"
    with pytest.raises(CheckpointError, match="two entries are named 'Parameter'"):
        save_checkpoint(twins, str(path))
    with pytest.raises(CheckpointError, match="two entries are named 'a'"):
        save_checkpoint({"a": Tensor([1.0])}, str(path), append_dict={"a": 1})
    with pytest.raises(CheckpointError, match="encryption .* not supported"):
        save_checkpoint({"a": Tensor([2.0])}, str(path), enc_key=b"0123456789abcdef")
    with pytest.raises(CheckpointError, match="safetensors"):
        save_checkpoint({"a": Tensor([2.0])}, str(path), format="safetensors")
    with pytest.raises(TypeError, match="save_obj"):
        save_checkpoint(Tensor([2.0]), str(path))
    with pytest.raises(TypeError, match="append_dict"):
        save_checkpoint({"a": Tensor([2.0])}, str(path), append_dict={"x": [1, 2]})
    with pytest.raises(TypeError, match="unexpected keyword"):
        save_checkpoint({"a": Tensor([2.0])}, str(path), crc=True)
    with pytest.raises(TypeError, match="integrated_save"):
        save_checkpoint({"a": Tensor([2.0])}, str(path), integrated_save="yes")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.ckpt"]  # no temp files left behind


# --- refusing damaged and foreign files --------------------------------------------------------

def record_spans(data: bytes) -> list[tuple[int, int, int]]:
    """(start, end, start of its tensor_content) for each record of a checkpoint without trailer."""
    records = list(schema.iter_records(memoryview(data)))
    ends = [start for _, start, _ in records[1:]] + [len(data)]
    spans = []
    for (_, start, payload), end in zip(records, ends):
        content = schema.Value.FromString(payload).tensor.tensor_content
        spans.append((start, end, end - len(content)))
    return spans


def test_empty_file_is_refused(tmp_path):
    refused(write(tmp_path / "empty.ckpt", b""), "is empty")


def test_every_truncation_is_refused_except_whole_records_without_crc(tmp_path):
    data = PARAMS_CKPT.read_bytes()
    spans = record_spans(data)
    boundaries = {end: k + 1 for k, (_, end, _) in enumerate(spans)}
    want = list(expected_params().items())
    path = tmp_path / "cut.ckpt"
    for n in range(1, len(data)):
        write(path, data[:n])
        if n in boundaries:
            # A cut exactly between records leaves a valid, shorter checkpoint: the format has no
            # count or length header, so only a CRC trailer can reveal it (next test).
            loaded = load_checkpoint(str(path))
            assert list(loaded) == [k for k, _ in want[:boundaries[n]]]
        else:
            refused(path, "truncated")
    assert len(boundaries) == len(want)


def test_every_truncation_of_a_spore_checkpoint_is_refused_whatever_crc_check_says(tmp_path):
    src = tmp_path / "spore.ckpt"
    save_checkpoint([{"name": k, "data": Tensor(v)} for k, v in expected_params().items()], str(src))
    data = src.read_bytes()
    assert list(load_checkpoint(str(src), crc_check=True)) == list(expected_params())
    boundaries = {len(schema.SPORE_HEADER) + end for _, end, _ in record_spans(PARAMS_CKPT.read_bytes())}
    path = tmp_path / "cut.ckpt"
    for n in range(1, len(data)):
        write(path, data[:n])
        # A cut between records used to load fewer tensors; the header says a trailer must follow.
        err = refused(path, "written by Spore.* has none: the file is truncated" if n in boundaries else
                      "truncated|corrupted")
        assert err.file == os.path.realpath(path)
        refused(path, "truncated|corrupted", crc_check=True)


def test_a_mindspore_crc_checkpoint_is_verified_without_crc_check(tmp_path):
    body = PARAMS_CKPT.read_bytes()  # MindSpore's records with MindSpore's crc_check=True trailer
    path = write(tmp_path / "ms_crc.ckpt", body + b"crc_num" + zlib.crc32(body).to_bytes(10, "big"))
    assert list(load_checkpoint(str(path))) == list(expected_params())
    damaged = bytearray(path.read_bytes())
    damaged[len(body) // 2] ^= 0x01  # one bit of a tensor's bytes
    refused(write(tmp_path / "flip.ckpt", bytes(damaged)), "fails its CRC-32 check")


def test_every_flipped_byte_of_a_spore_checkpoint_is_refused(tmp_path):
    src = tmp_path / "spore.ckpt"
    save_checkpoint([{"name": k, "data": Tensor(v)} for k, v in expected_params().items()], str(src))
    data = src.read_bytes()
    path = tmp_path / "flipped.ckpt"
    for i in range(len(data)):
        damaged = bytearray(data)
        damaged[i] ^= 0xFF
        write(path, bytes(damaged))
        refused(path, "CRC|corrupted|truncated")  # crc_check=False: a present trailer is still verified


def test_every_flipped_structure_byte_is_refused_without_crc(tmp_path):
    data = PARAMS_CKPT.read_bytes()
    content = set()
    for _, end, content_start in record_spans(data):
        content.update(range(content_start, end))
    path = tmp_path / "flipped.ckpt"
    checked = 0
    for i in range(len(data)):
        if i in content:
            continue  # raw tensor bytes: any value is valid without a CRC
        damaged = bytearray(data)
        damaged[i] ^= 0xFF
        write(path, bytes(damaged))
        refused(path, "corrupted|truncated|not a MindSpore|unknown tensor_type|UTF-8|needs \\d+ bytes")
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("kind", ["onnx", "npz", "text", "random", "pickle"])
def test_files_that_are_not_checkpoints_are_refused(tmp_path, kind):
    payloads = {
        "onnx": (FIXTURES / "cnn.onnx").read_bytes(),
        "npz": (FIXTURES / "ref.npz").read_bytes(),
        "text": b"conv.weight = [1, 2, 3]\n",
        "random": np.random.default_rng(1).integers(0, 256, 4096, dtype=np.uint8).tobytes(),
        "pickle": b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94\x8c\x01a\x94K\x01s.",
    }
    refused(write(tmp_path / f"{kind}.ckpt", payloads[kind]), "cannot be loaded")


def partial_record(build) -> bytes:
    """A record whose Value `build` fills in, serialized even if required fields are missing."""
    msg = schema.Checkpoint()
    build(msg.value.add())
    return msg.SerializePartialToString()


def _no_type(v):
    v.tag = "w"
    v.tensor.dims.append(1)
    v.tensor.tensor_content = b"\1"


def _map_tensor(v):
    v.tag = "w"
    v.maptensor.tensor.add()


UNKNOWN_FIELD = record("w", [1], "Int8", b"\1")[2:] + b"\x28\x07"  # field 5 of Value: not in the schema

MALFORMED = {
    "unknown dtype": (record("w", [2], "Float8", b"\0\0"), r"unknown tensor_type 'Float8'"),
    "mindspore-only dtype": (record("w", [2], "UInt16", b"\0" * 4), r"UInt16, which MindSpore has but Spore"),
    "short content": (record("w", [2, 2], "Float32", b"\0" * 12), r"dims \[2, 2\] needs 16 bytes .* has 12"),
    "long content": (record("w", [3], "Int64", b"\0" * 32), r"needs 24 bytes .* has 32"),
    "duplicate name": (record("a", [1], "Int8", b"\1") + record("b", [1], "Int8", b"\1")
                       + record("a", [1], "Int8", b"\2"), r"'a' appears twice \(records #1 and #3\)"),
    "slices disagree": (record("a", [2], "Int8", b"\1") + record("a", [3], "Int8", b"\1\2"),
                        r"continues tensor 'a' .* different dims"),
    "bool not 0/1": (record("m", [2], "Bool", b"\1\2"), r"Bool content holds bytes other than 0 and 1"),
    "negative dims": (record("w", [-1], "Int8", b""), r"invalid dims \[-1\]"),
    "empty tag": (record("", [1], "Int8", b"\1"), r"tag \(the parameter name\) is empty"),
    "bad utf-8 tag": (record("ab", [1], "Int8", b"\1").replace(b"ab", b"\xc3\x28"), r"tag .* not valid UTF-8"),
    "no tensor_type": (partial_record(_no_type), r"missing required field\(s\) tensor_type"),
    "no tensor": (partial_record(lambda v: setattr(v, "tag", "w")), r"'w'\) holds no tensor"),
    "map tensor": (partial_record(_map_tensor), r"MapParameter"),
    "unknown field": (bytes([0x0A, len(UNKNOWN_FIELD)]) + UNKNOWN_FIELD, r"fields the checkpoint schema does not"),
    "trailing garbage": (record("w", [1], "Int8", b"\1") + b"\x10\x01",
                         r"byte 18: expected checkpoint record #2 .* found key 0x10"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_records_are_refused_with_the_reason(tmp_path, case):
    data, pattern = MALFORMED[case]
    refused(write(tmp_path / "bad.ckpt", data), pattern)


def test_file_name_and_encryption_checks(tmp_path):
    with pytest.raises(CheckpointError, match="must end with '.ckpt'"):
        load_checkpoint(str(tmp_path / "weights.bin"))
    with pytest.raises(CheckpointError, match="does not exist"):
        load_checkpoint(str(tmp_path / "missing.ckpt"))
    (tmp_path / "dir.ckpt").mkdir()
    with pytest.raises(CheckpointError, match="is a directory"):
        load_checkpoint(str(tmp_path / "dir.ckpt"))
    with pytest.raises(CheckpointError, match="encryption .* not supported"):
        load_checkpoint(str(PARAMS_CKPT), dec_key=b"0123456789abcdef")
    with pytest.raises(TypeError, match="dec_key"):
        load_checkpoint(str(PARAMS_CKPT), dec_key="0123456789abcdef")


# --- atomic and background saves -----------------------------------------------------------------

def test_a_save_that_fails_midway_keeps_the_old_file_and_leaves_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "model.ckpt"
    save_checkpoint({"a": Tensor([1.0]), "b": Tensor([2.0])}, str(path))
    before = path.read_bytes()
    encode = ckpt_mod.encode_entries

    def failing(entries):
        for k, chunk in enumerate(encode(entries)):
            if k == 1:
                raise OSError(28, "No space left on device")
            yield chunk

    monkeypatch.setattr(ckpt_mod, "encode_entries", failing)
    with pytest.raises(OSError, match="No space left"):
        save_checkpoint({"a": Tensor([3.0]), "b": Tensor([4.0])}, str(path))
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["model.ckpt"]


def test_async_save_snapshots_the_data_and_a_load_waits_for_it(tmp_path, monkeypatch):
    path = tmp_path / "async.ckpt"
    save_checkpoint({"a": Tensor([0.0]), "b": Tensor([0.0])}, str(path))
    first_written, gate = threading.Event(), threading.Event()
    encode, wait = ckpt_mod.encode_entries, ckpt_mod._wait_async_saves

    def held(entries):  # the background writer stops after its first record until the gate opens
        for k, chunk in enumerate(encode(entries)):
            yield chunk
            if k == 0:
                first_written.set()
                gate.wait()

    armed = threading.Event()

    def opening_wait(target=None):  # once armed, whoever waits for the writer lets it through
        if armed.is_set():
            gate.set()
        wait(target)

    monkeypatch.setattr(ckpt_mod, "encode_entries", held)
    monkeypatch.setattr(ckpt_mod, "_wait_async_saves", opening_wait)
    a, b = Parameter(np.array([1.0], np.float32), name="a"), Parameter(np.array([2.0], np.float32), name="b")
    try:
        save_checkpoint([a, b], str(path), async_save=True)
        assert first_written.wait(30)
        assert not gate.is_set()  # the writer is held inside the write
        ops.assign(b, Tensor(np.array([99.0], np.float32)))  # training updates in place during the write
        armed.set()
        loaded = load_checkpoint(str(path))  # reads the old file (a=0) unless it waits for the writer
    finally:
        gate.set()
        wait()
    assert_exact(loaded["a"].asnumpy(), np.array([1.0], np.float32))
    assert_exact(loaded["b"].asnumpy(), np.array([2.0], np.float32))


def test_a_load_right_after_an_async_save_to_a_new_path_waits_for_the_file(tmp_path, monkeypatch):
    """The wait comes before the existence check: the file may not exist until the writer is done."""
    path = tmp_path / "new.ckpt"
    gate = threading.Event()
    encode, wait = ckpt_mod.encode_entries, ckpt_mod._wait_async_saves

    def held(entries):  # the writer writes nothing until someone waits for it
        gate.wait()
        yield from encode(entries)

    def opening_wait(target=None):
        gate.set()
        wait(target)

    monkeypatch.setattr(ckpt_mod, "encode_entries", held)
    monkeypatch.setattr(ckpt_mod, "_wait_async_saves", opening_wait)
    try:
        save_checkpoint({"w": Tensor(np.array([3.0], np.float32))}, str(path), async_save=True)
        assert not path.exists()
        loaded = load_checkpoint(str(path))
    finally:
        gate.set()
        wait()
    assert_exact(loaded["w"].asnumpy(), np.array([3.0], np.float32))


def test_a_failed_async_save_is_reported_by_the_next_call(tmp_path):
    missing = tmp_path / "no-such-dir" / "x.ckpt"
    save_checkpoint({"a": Tensor([1.0])}, str(missing), async_save=True)  # fails in the background
    with pytest.raises(CheckpointError, match="earlier save_checkpoint.*async_save=True.* failed"):
        save_checkpoint({"a": Tensor([1.0])}, str(tmp_path / "ok.ckpt"))
    save_checkpoint({"a": Tensor([1.0])}, str(tmp_path / "ok.ckpt"))  # reported once, then cleared
    assert list(load_checkpoint(str(tmp_path / "ok.ckpt"))) == ["a"]


def kill_inside_a_save(path: Path, stop: int) -> tuple[int, list[Path]]:
    """Run ckpt_writer.py saving to `path`, SIGKILL it inside save number `stop`; (its pid, temp files)."""
    proc = subprocess.Popen([sys.executable, str(HERE / "ckpt_writer.py"), str(path), str(stop)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, OMP_NUM_THREADS="1"))
    watchdog = threading.Timer(120, proc.kill)  # a safety net against a hung child, not a synchroniser
    watchdog.start()
    try:
        want = [f"saved {i}" for i in range(stop)] + ["inside-write"]
        lines = [proc.stdout.readline().decode().strip() for _ in want]  # blocks until the child says
        if lines != want:
            proc.kill()
            pytest.fail(f"the writer said {lines}; its stderr: {proc.communicate()[1].decode()}")
        temps = sorted(path.parent.glob(f".{path.name}.*.tmp"))
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait() == -signal.SIGKILL  # reaped: its pid is gone
    finally:
        watchdog.cancel()
        proc.kill()
        proc.wait()
        proc.stdin.close()
        proc.stdout.close()
        proc.stderr.close()
    return proc.pid, temps


def test_writers_killed_mid_save_leave_the_previous_checkpoint_intact_and_no_temp_for_long(tmp_path):
    spec = importlib.util.spec_from_file_location("ckpt_writer", HERE / "ckpt_writer.py")
    writer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(writer)
    path = tmp_path / "big.ckpt"
    for kill in range(3):
        pid, temps = kill_inside_a_save(path, 2)
        # Only the killed write's temp file exists: the child's own first save removed the one the
        # previous killed child left, as any next save to the path does.
        assert [t.name.split(".")[3] for t in temps] == [f"{pid}@{ckpt_mod._HOST}"], (kill, temps)
        assert 0 < temps[0].stat().st_size < path.stat().st_size
        loaded = load_checkpoint(str(path))
        want = writer.payload(1)  # the last save that completed
        assert list(loaded) == [d["name"] for d in want]
        for d in want:
            assert_exact(loaded[d["name"]].asnumpy(), d["data"].asnumpy(), d["name"])
    # The killed write got exactly its first records into the temp file: the target never saw them,
    # and as a checkpoint the temp file is refused (Spore's header, no trailer) rather than half-loaded.
    partial = Path(shutil.copy(temps[0], tmp_path / "partial.ckpt"))
    refused(partial, "written by Spore.* has none: the file is truncated")
    doomed = writer.payload(2)[:writer.STOP_AFTER_RECORDS]
    records = schema.decode(memoryview(partial.read_bytes()))
    assert [name for name, _ in records] == [d["name"] for d in doomed]
    for (name, arr), d in zip(records, doomed, strict=True):
        assert_exact(arr, d["data"].asnumpy(), name)
    # The next save to that path removes the last dead writer's temp file, and leaves nothing of its own.
    save_checkpoint(writer.payload(3), str(path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.ckpt", "partial.ckpt"]
    assert_exact(load_checkpoint(str(path))["layer5.weight"].asnumpy(), writer.payload(3)[5]["data"].asnumpy())
