"""safetensors reader/writer and ckpt_to_safetensors / safetensors_to_ckpt (issue 14, rest slice).

The oracle is the format itself: files are built byte by byte here (8-byte little-endian header
length, JSON header, raw buffer) and Spore's output is parsed by hand, so reader and writer are
each checked against the specification, not against each other."""

import json
import os
import struct

import numpy as np
import pytest

import spore as ms
from spore.train.safetensors_io import SafetensorsError, load_safetensors, save_safetensors


def _hand_file(path, header, buf):
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + buf)


def test_reads_a_hand_built_file(tmp_path):
    a = np.arange(6, dtype="<f4").reshape(2, 3)
    b = np.array([-1, 7], dtype="<i8")
    header = {"__metadata__": {"format": "pt"},
              "a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
              "b": {"dtype": "I64", "shape": [2], "data_offsets": [24, 40]}}
    p = tmp_path / "x.safetensors"
    _hand_file(p, header, a.tobytes() + b.tobytes())
    tensors, meta = load_safetensors(str(p))
    np.testing.assert_array_equal(tensors["a"], a)
    np.testing.assert_array_equal(tensors["b"], b)
    assert meta == {"format": "pt"}


def test_writer_output_parses_by_the_specification(tmp_path):
    rng = np.random.default_rng(1)
    t = {"w": rng.standard_normal((3, 2)).astype(np.float64), "m": np.array([True, False]),
         "h": rng.standard_normal(4).astype(np.float16)}
    p = tmp_path / "y.safetensors"
    save_safetensors(t, str(p))
    raw = p.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    buf = raw[8 + n:]
    assert (8 + n) % 8 == 0
    codes = {"w": ("F64", "<f8"), "m": ("BOOL", "?"), "h": ("F16", "<f2")}
    for name, (code, npdt) in codes.items():
        info = header[name]
        assert info["dtype"] == code and info["shape"] == list(t[name].shape)
        lo, hi = info["data_offsets"]
        np.testing.assert_array_equal(np.frombuffer(buf[lo:hi], dtype=npdt).reshape(info["shape"]), t[name])


@pytest.mark.parametrize("header,buf,why", [
    ({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 12]}}, b"\0" * 12, "needs 8 bytes"),
    ({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 16]}}, b"\0" * 8, "outside"),
    ({"a": {"dtype": "X9", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4, "unknown dtype"),
    ({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, b"\0" * 8, "gap or overlap"),
    ({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}, b"\0" * 4, "invalid shape"),
    ({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 9, "buffer has 9"),
])
def test_refuses_malformed_files(tmp_path, header, buf, why):
    p = tmp_path / "bad.safetensors"
    _hand_file(p, header, buf)
    with pytest.raises(SafetensorsError, match=why):
        load_safetensors(str(p))


def test_refuses_truncated_and_non_json(tmp_path):
    p = tmp_path / "t.safetensors"
    p.write_bytes(b"\x01\x02")
    with pytest.raises(SafetensorsError, match="shorter"):
        load_safetensors(str(p))
    p.write_bytes(struct.pack("<Q", 1000) + b"{}")
    with pytest.raises(SafetensorsError, match="exceeds"):
        load_safetensors(str(p))
    p.write_bytes(struct.pack("<Q", 3) + b"{x}")
    with pytest.raises(SafetensorsError, match="not JSON"):
        load_safetensors(str(p))


def test_checkpoint_round_trip_with_name_map(tmp_path):
    w = np.random.default_rng(2).standard_normal((2, 3)).astype(np.float32)
    step = ms.Tensor(np.array([5], np.int32))
    ms.save_checkpoint([{"name": "w", "data": ms.Tensor(w)}, {"name": "step", "data": step}],
                       str(tmp_path / "net.ckpt"))
    ms.ckpt_to_safetensors(str(tmp_path / "net.ckpt"), name_map={"w": "fc.weight"})
    tensors, _ = load_safetensors(str(tmp_path / "net.safetensors"))
    assert set(tensors) == {"fc.weight", "step"}
    np.testing.assert_array_equal(tensors["fc.weight"], w)
    out = tmp_path / "back"
    ms.train.safetensors_to_ckpt(str(tmp_path), save_path=str(out), file_name_regex="^net")
    params = ms.load_checkpoint(str(out / "net.ckpt"))
    np.testing.assert_array_equal(params["fc.weight"].asnumpy(), w)
    assert params["step"].asnumpy().tolist() == [5] and params["step"].dtype == ms.int32
    assert sorted(os.listdir(out)) == ["net.ckpt"]


def test_converter_argument_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="ckpt_to_safetensors"):
        ms.ckpt_to_safetensors(str(tmp_path / "nope"))
    with pytest.raises(ValueError, match="processes_num"):
        ms.safetensors_to_ckpt(str(tmp_path), processes_num=0)
    with pytest.raises(TypeError, match="name_map"):
        ms.ckpt_to_safetensors(str(tmp_path), name_map={"a": 1})
