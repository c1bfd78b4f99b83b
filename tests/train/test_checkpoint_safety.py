"""Checkpoint loading on hostile paths and impossible headers, and the clean-up of crashed saves.

Only regular files are read (a FIFO would block forever, /dev/zero never ends), the size is checked
before a byte is read, dims that no array can hold are refused before NumPy sees them, and stale
``.<name>.*.tmp`` files are removed by the next save to that path, never a live writer's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from spore import Tensor
from spore.train import CheckpointError, load_checkpoint, save_checkpoint
from spore.train import checkpoint as ckpt_mod
from spore.train import checkpoint_schema as schema

from .helpers import PARAMS_CKPT, expected_params


def record(tag: str, dims: list[int], tname: str, content: bytes) -> bytes:
    msg = schema.Checkpoint()
    value = msg.value.add()
    value.tag = tag
    value.tensor.dims.extend(dims)
    value.tensor.tensor_type = tname
    value.tensor.tensor_content = content
    return msg.SerializeToString()


def refused(path: os.PathLike | str, pattern: str, **kwargs) -> CheckpointError:
    with pytest.raises(CheckpointError, match=pattern) as info:
        load_checkpoint(str(path), **kwargs)
    assert os.path.realpath(path) in str(info.value), str(info.value)
    assert info.value.file == os.path.realpath(path)
    return info.value


def in_thread(fn, *args, **kwargs) -> BaseException | None:
    """Run fn in a thread and return what it raised; the join timeout only guards against a hang."""
    out: list[BaseException | None] = [None]

    def run() -> None:
        try:
            fn(*args, **kwargs)
        except BaseException as err:  # handed to the test
            out[0] = err

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(60)
    assert not t.is_alive(), f"{fn.__name__} hung"
    return out[0]


# --- what is read at all -----------------------------------------------------------------------

def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "x.ckpt"
    os.mkfifo(fifo)
    err = in_thread(load_checkpoint, str(fifo))  # opening a FIFO for reading would wait for a writer
    assert isinstance(err, CheckpointError), err
    assert "is a FIFO (named pipe), not a checkpoint file; only regular files are read" in str(err)
    assert str(fifo) in str(err)


def test_a_symlink_to_dev_zero_is_refused_before_any_read(tmp_path):
    link = tmp_path / "zero.ckpt"
    link.symlink_to("/dev/zero")
    err = in_thread(load_checkpoint, str(link))
    assert isinstance(err, CheckpointError) and "/dev/zero is a character device" in str(err), err


def test_save_refuses_to_replace_a_fifo(tmp_path):
    fifo = tmp_path / "f.ckpt"
    os.mkfifo(fifo)
    with pytest.raises(CheckpointError, match=r"f.ckpt is a FIFO \(named pipe\), not a regular file"):
        save_checkpoint({"a": Tensor([1.0])}, str(fifo))
    (tmp_path / "link.ckpt").symlink_to(fifo)  # followed, as MindSpore does: the FIFO is the target
    with pytest.raises(CheckpointError, match=r"f.ckpt is a FIFO"):
        save_checkpoint({"a": Tensor([1.0])}, str(tmp_path / "link.ckpt"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.ckpt", "link.ckpt"]  # no temp file either


def test_a_directory_is_refused(tmp_path):
    (tmp_path / "d.ckpt").mkdir()
    refused(tmp_path / "d.ckpt", "is a directory")


def test_a_sparse_file_larger_than_memory_is_refused_by_its_size(tmp_path):
    path = tmp_path / "huge.ckpt"
    ram = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    size = max(32 * 1024**3, 2 * ram)
    with open(path, "wb") as f:
        f.truncate(size)  # sparse: takes no disk space
    err = refused(path, rf"is {size} bytes, more than the {ram}-byte limit \(this machine's physical memory\)")
    assert "SPORE_CKPT_MAX_BYTES" in err.hint


def test_the_size_limit_can_be_lowered_and_raised(tmp_path, monkeypatch):
    path = tmp_path / "p.ckpt"
    save_checkpoint([{"name": k, "data": Tensor(v)} for k, v in expected_params().items()], str(path))
    size = path.stat().st_size
    monkeypatch.setenv("SPORE_CKPT_MAX_BYTES", str(size - 1))
    refused(path, rf"is {size} bytes, more than the {size - 1}-byte limit \(SPORE_CKPT_MAX_BYTES={size - 1}\)")
    monkeypatch.setenv("SPORE_CKPT_MAX_BYTES", str(size))
    assert list(load_checkpoint(str(path))) == list(expected_params())
    monkeypatch.setenv("SPORE_CKPT_MAX_BYTES", "lots")
    with pytest.raises(CheckpointError, match="SPORE_CKPT_MAX_BYTES='lots' is not a whole number"):
        load_checkpoint(str(path))
    monkeypatch.setattr(ckpt_mod, "max_load_bytes", 100)  # the module setting wins over the environment
    refused(path, r"more than the 100-byte limit \(spore.train.checkpoint.max_load_bytes\)")


# --- impossible headers --------------------------------------------------------------------------

@pytest.mark.parametrize("dims, tname", [
    ([0, 2**40, 2**40], "Float32"),  # empty, yet NumPy would refuse the shape ("array is too big")
    ([2**62, 4], "Float64"),  # the byte count passes 2**63: would wrap in int64 arithmetic
    ([2**31, 2**31, 4], "UInt8"),
    ([2**63 - 1] * 3, "Int8"),
])
def test_dims_no_array_can_hold_are_a_checkpoint_error(tmp_path, dims, tname):
    path = tmp_path / "dims.ckpt"
    path.write_bytes(record("w", dims, tname, b""))
    refused(path, r"describe more elements than any array can hold")


def test_dims_that_fit_but_disagree_with_the_content_name_both_sizes(tmp_path):
    path = tmp_path / "dims.ckpt"
    path.write_bytes(record("w", [2**20, 2**20], "Float32", b"\0" * 16))
    refused(path, rf"dims \[1048576, 1048576\] needs {2**40 * 4} bytes of content but has 16")


def test_a_damaged_spore_header_is_named(tmp_path):
    src = tmp_path / "ok.ckpt"
    save_checkpoint({"a": Tensor([1.0])}, str(src))
    data = bytearray(src.read_bytes())
    data[5] ^= 0x20  # inside the header's text, so the trailer no longer matches either
    bad = tmp_path / "bad.ckpt"
    bad.write_bytes(bytes(data))
    refused(bad, "fails its CRC-32 check")
    # Without the trailer, the header itself is what is reported.
    bad.write_bytes(bytes(data[:-17]))
    refused(bad, "Spore's file header is damaged")


# --- stale temp files ----------------------------------------------------------------------------

def dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def make_temp(directory: Path, name: str, age: float = 0.0) -> Path:
    p = directory / name
    p.write_bytes(schema.SPORE_HEADER + b"partial")
    if age:
        t = time.time() - age
        os.utime(p, (t, t))
    return p


def test_the_next_save_removes_only_the_temp_files_of_crashed_writers(tmp_path):
    path = tmp_path / "m.ckpt"
    other = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        dead = dead_pid()
        gone = [make_temp(tmp_path, f".m.ckpt.{dead}.abc123.tmp"),  # its writer has exited
                make_temp(tmp_path, ".m.ckpt.k3x9_q2z.tmp", age=60),  # older Spore's name, untouched for a minute
                make_temp(tmp_path, f".m.ckpt.{other.pid}.old.tmp", age=2 * 3600),  # a live pid, but hours old
                make_temp(tmp_path, f".m.ckpt.{os.getpid()}.failed.tmp"),  # ours, and no thread of ours writes it
                make_temp(tmp_path, f".m.ckpt.{dead}@{ckpt_mod._HOST}.x1.tmp"),  # this host's, dead
                make_temp(tmp_path, f".m.ckpt.{dead}@elsewhere.old.tmp", age=2 * 3600)]  # another host's, hours old
        kept = [make_temp(tmp_path, f".m.ckpt.{other.pid}.live.tmp"),  # a live writer, another process
                make_temp(tmp_path, ".m.ckpt.fresh12.tmp"),  # no pid, written a moment ago
                make_temp(tmp_path, f".n.ckpt.{dead}.abc.tmp"),  # another checkpoint's
                make_temp(tmp_path, f"m.ckpt.{dead}.abc.tmp"),  # not hidden: not Spore's temp name
                make_temp(tmp_path, f".m.ckpt.{dead}.abc.tmpx")]
        (tmp_path / f".m.ckpt.{dead}.dir.tmp").mkdir()  # not a regular file: left alone
        (tmp_path / f".m.ckpt.{dead}.link.tmp").symlink_to(kept[0])
        save_checkpoint({"a": Tensor([1.0])}, str(path))
    finally:
        other.kill()
        other.wait()
        other.stdin.close()
    assert [p for p in gone if p.exists()] == []
    assert [p for p in kept if not p.exists()] == []
    assert (tmp_path / f".m.ckpt.{dead}.dir.tmp").is_dir() and (tmp_path / f".m.ckpt.{dead}.link.tmp").is_symlink()
    assert list(load_checkpoint(str(path))) == ["a"]


def test_a_concurrent_save_to_the_same_path_keeps_the_other_writers_temp_file(tmp_path, monkeypatch):
    path = tmp_path / "c.ckpt"
    encode = ckpt_mod.encode_entries
    inside, release = threading.Event(), threading.Event()

    def held(entries):
        for k, chunk in enumerate(encode(entries)):
            yield chunk
            if k == 0 and threading.current_thread().name == "first":
                inside.set()
                release.wait()

    monkeypatch.setattr(ckpt_mod, "encode_entries", held)
    errors: list[BaseException] = []

    def first() -> None:
        try:
            save_checkpoint({"a": Tensor([1.0]), "b": Tensor([1.0])}, str(path))
        except BaseException as err:
            errors.append(err)

    t = threading.Thread(target=first, name="first")
    t.start()
    try:
        assert inside.wait(60)
        temps = list(tmp_path.glob(".c.ckpt.*.tmp"))
        assert len(temps) == 1
        save_checkpoint({"a": Tensor([2.0]), "b": Tensor([2.0])}, str(path))  # runs its clean-up meanwhile
        assert temps[0].exists()  # the first writer's temp file survived the second save
    finally:
        release.set()
        t.join(60)
    assert errors == [] and not t.is_alive()
    loaded = load_checkpoint(str(path))  # the first save finished last: its values
    assert loaded["a"].asnumpy().tolist() == [1.0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.ckpt"]


def test_mindspore_files_without_spore_header_still_load():
    assert list(load_checkpoint(str(PARAMS_CKPT))) == list(expected_params())
    assert not schema.has_spore_header(PARAMS_CKPT.read_bytes())
    assert np.array_equal(load_checkpoint(str(PARAMS_CKPT))["conv1.weight"].asnumpy(),
                          expected_params()["conv1.weight"])
