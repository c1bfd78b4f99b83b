"""The persistent conv tuning cache (spore._runtime.tuning_cache): SPORE_TUNING modes, corrupt and
foreign files, atomic writes, and a warm cache reproducing the last process's kernels bit for bit.

Each scenario runs child processes (the cache is read when the kernels load and written at exit),
with SPORE_CACHE_DIR pointing into tmp_path so no test touches the user's cache.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from spore import _kernels
from spore._runtime import tuning_cache

# LeNet-5's convs forward and backward; prints what the kernels decided and a digest of the results.
_CHILD = r"""
import hashlib, json, os, sys
import numpy as np
import spore as ms
from spore import _kernels, nn
from spore._runtime import tuning_cache
ms.set_seed(0)
net = nn.SequentialCell([nn.Conv2d(1, 6, 5, pad_mode="valid"), nn.ReLU(), nn.MaxPool2d(2, 2),
                         nn.Conv2d(6, 16, 5, pad_mode="valid"), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
                         nn.Dense(16 * 5 * 5, 10)])
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
fn = ms.value_and_grad(nn.WithLossCell(net, loss), None, net.trainable_params())
rng = np.random.default_rng(0)
x = ms.Tensor(rng.standard_normal((32, 1, 32, 32)).astype(np.float32))
y = ms.Tensor(rng.integers(0, 10, 32).astype(np.int32))
v, g = fn(x, y)
h = hashlib.sha256(v.asnumpy().tobytes())
for t in g:
    h.update(t.asnumpy().tobytes())
st = tuning_cache.status()
print(json.dumps({"digest": h.hexdigest(), "mode": st.get("mode"), "loaded": st.get("loaded"),
                  "note": st.get("note", ""), "timed": _kernels.conv_tuning_timed(),
                  "choices": sorted([list(k), p] for k, p, _ in _kernels.conv_tuning_export())}))
"""


def _run(tmp_path: Path, tuning: str | None = "cache", extra: str = "") -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("SPORE_TUNING", "XDG_CACHE_HOME")}
    env["SPORE_CACHE_DIR"] = str(tmp_path / "cache")
    env["OMP_NUM_THREADS"] = "1"
    if tuning is not None:
        env["SPORE_TUNING"] = tuning
    res = subprocess.run([sys.executable, "-c", extra + _CHILD], env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def _files(tmp_path: Path) -> list[Path]:
    d = tmp_path / "cache"
    return sorted(d.glob("conv-tuning-*.json")) if d.exists() else []


def test_cold_then_warm_reuses_decisions_bit_for_bit(tmp_path: Path) -> None:
    cold = _run(tmp_path)
    assert cold["loaded"] == 0 and cold["timed"] > 0
    [f] = _files(tmp_path)
    doc = json.loads(f.read_text())
    assert doc["format"] == tuning_cache.FORMAT and len(doc["conv"]) == len(cold["choices"])
    warm = _run(tmp_path)
    assert warm["loaded"] == len(cold["choices"]) and warm["timed"] == 0  # nothing timed again
    assert warm["choices"] == cold["choices"]
    assert warm["digest"] == cold["digest"]  # same kernels, same bits


def test_off_neither_reads_nor_writes(tmp_path: Path) -> None:
    out = _run(tmp_path, "off")
    assert out["mode"] == "off" and out["timed"] > 0 and _files(tmp_path) == []
    _run(tmp_path)  # now a file exists
    again = _run(tmp_path, "off")
    assert again["loaded"] == 0 and again["timed"] > 0


def test_retune_ignores_the_file_and_overwrites_it(tmp_path: Path) -> None:
    _run(tmp_path)
    [f] = _files(tmp_path)
    doc = json.loads(f.read_text())
    for row in doc["conv"]:
        row[2] = [9.0, 9.0, 9.0]  # a marker no real timing produces
    f.write_text(json.dumps(doc))
    out = _run(tmp_path, "retune")
    assert out["loaded"] == 0 and out["timed"] > 0
    assert all(r[2] != [9.0, 9.0, 9.0] for r in json.loads(f.read_text())["conv"])


def test_unknown_mode_warns_and_means_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPORE_TUNING", "sometimes")
    with pytest.warns(RuntimeWarning, match="SPORE_TUNING"):
        assert tuning_cache.mode() == "cache"


@pytest.mark.parametrize("content", ["{not json", json.dumps({"format": 1, "conv": [[[1, 2], 0, [0, 0, 0]]]}),
                                     json.dumps({"format": 99, "conv": []}), "\x00\x01"])
def test_corrupt_file_is_ignored_and_rebuilt(tmp_path: Path, content: str) -> None:
    _run(tmp_path)
    [f] = _files(tmp_path)
    f.write_text(content)
    out = _run(tmp_path)
    assert out["loaded"] == 0 and "corrupt" in out["note"] and out["timed"] > 0  # timed afresh, no crash
    doc = json.loads(f.read_text())  # rebuilt at exit
    assert doc["format"] == tuning_cache.FORMAT and len(doc["conv"]) == len(out["choices"])


@pytest.mark.parametrize("field", ["cpu", "onednn", "spore", "kernels_build"])
def test_foreign_fingerprint_is_ignored(tmp_path: Path, field: str) -> None:
    _run(tmp_path)
    [f] = _files(tmp_path)
    doc = json.loads(f.read_text())
    doc["fingerprint"][field] = "another-" + str(doc["fingerprint"][field])
    for row in doc["conv"]:
        row[2] = [9.0, 9.0, 9.0]
    f.write_text(json.dumps(doc))
    out = _run(tmp_path)
    assert out["loaded"] == 0 and "another CPU" in out["note"]
    assert json.loads(f.read_text())["fingerprint"][field] != doc["fingerprint"][field]  # replaced


def test_cache_dir_resolution(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("SPORE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert tuning_cache.cache_dir() == tmp_path / "xdg" / "spore"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")  # the XDG spec: relative paths are invalid
    assert tuning_cache.cache_dir() == Path.home() / ".cache" / "spore"
    monkeypatch.setenv("SPORE_CACHE_DIR", str(tmp_path / "own"))
    assert tuning_cache.cache_dir() == tmp_path / "own"


def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPORE_CACHE_DIR", str(tmp_path))
    path = tuning_cache.cache_path(tuning_cache.fingerprint(_kernels))
    path.write_text("OLD")

    def boom(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(tuning_cache.os, "fsync", boom)
    with pytest.raises(OSError, match="disk full"):
        tuning_cache.save(_kernels, force=True)
    assert path.read_text() == "OLD"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # the temporary file was removed


def test_writer_killed_mid_write_leaves_the_old_file(tmp_path: Path) -> None:
    _run(tmp_path)
    [f] = _files(tmp_path)
    before = f.read_bytes()
    # the child dies (SIGKILL) after writing and syncing its temporary file, before the rename
    kill = ("import os, signal\nfrom spore._runtime import tuning_cache as _tc\n"
            "_tc.os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)\n")
    env = {k: v for k, v in os.environ.items() if k != "SPORE_TUNING"}
    env.update(SPORE_CACHE_DIR=str(tmp_path / "cache"), OMP_NUM_THREADS="1", SPORE_TUNING="retune")
    res = subprocess.run([sys.executable, "-c", kill + _CHILD], env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == -9
    assert f.read_bytes() == before  # a reader never sees a torn file
    assert len(list((tmp_path / "cache").glob(".conv-tuning-*.tmp"))) == 1  # the dead writer's leftover
    assert _run(tmp_path)["loaded"] > 0  # and the next process still reads the old file


def _child(tmp_path: Path, code: str, **env_extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("SPORE_TUNING", "XDG_CACHE_HOME", "SPORE_PREWARM")}
    env.update(SPORE_CACHE_DIR=str(tmp_path / "cache"), OMP_NUM_THREADS="1", **env_extra)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def test_warm_cache_prewarms_the_cached_convs_and_results_do_not_change(tmp_path: Path) -> None:
    cold = _run(tmp_path)
    status = ("import json, spore\nfrom spore import _kernels\nfrom spore._runtime import tuning_cache as t\n"
              "t._STATE['prewarm'].join()\nprint(json.dumps(t.status()))")
    res = _child(tmp_path, status)
    assert res.returncode == 0, res.stderr
    st = json.loads(res.stdout.strip().splitlines()[-1])
    # every cached geometry was built in the background thread (a conv per decision), nothing failed
    assert st["prewarmed_convs"] == st["loaded"] == len(cold["choices"]) and st["note"] == ""
    # the warm-up changes where primitives are first built, never which kernels run or their results
    on = _child(tmp_path, _CHILD)
    off = _child(tmp_path, _CHILD, SPORE_PREWARM="0")
    assert on.returncode == 0 and off.returncode == 0, on.stderr + off.stderr
    a, b = (json.loads(r.stdout.strip().splitlines()[-1]) for r in (on, off))
    assert a["digest"] == b["digest"] == cold["digest"] and a["choices"] == b["choices"]
    assert a["timed"] == b["timed"] == 0


def test_conv_geometry_of_a_tuning_key() -> None:
    # LeNet's second conv, forward: 64 x 6 x 14 x 14 input, 16 5x5 filters, no padding
    gm = tuning_cache._conv_geometry([0, 0, 1, 64, 6, 14, 14, 16, 5, 5, 1, 1, 0, 0, 0, 0, 1, 1, 1])
    assert gm is not None and gm["y"] == (64, 16, 10, 10) and gm["w"] == (16, 6, 5, 5) and not gm["bias"]
    gm = tuning_cache._conv_geometry([2, 1, 2, 8, 4, 9, 9, 6, 3, 3, 2, 2, 1, 1, 1, 1, 2, 2, 2])
    assert gm is not None and gm["y"] == (8, 6, 4, 4) and gm["w"] == (6, 2, 3, 3) and gm["bias"]
    assert tuning_cache._conv_geometry([0, 0, 1, 1, 3, 2, 2, 4, 5, 5, 1, 1, 0, 0, 0, 0, 1, 1, 1]) is None  # no output
    assert tuning_cache._conv_geometry([0, 0, 1, 1, 3, 8, 8, 4, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 2]) is None  # 3 % 2


def test_a_script_that_exits_while_the_prewarm_runs_exits_cleanly(tmp_path: Path) -> None:
    # before the exit join, the interpreter's finalisation met the prewarm thread inside oneDNN and
    # libstdc++ aborted ("terminate called without an active exception", status 134) in most runs
    for _ in range(3):
        res = _child(tmp_path, "import spore\nfrom spore import _kernels\nprint(_kernels.cpu_isa())")
        assert res.returncode == 0, res.stderr
        assert "terminate called" not in res.stderr


def test_prefault_heap_follows_the_allocator_policy_and_its_variable() -> None:
    class Untuned:
        malloc_tuned = False

    assert tuning_cache.prefault_heap(Untuned(), {}) == 0  # glibc's defaults: freed pages go back, pointless
    if _kernels.malloc_tuned:
        assert tuning_cache.prefault_heap(_kernels, {}) == tuning_cache._PREFAULT_MB
        assert tuning_cache.prefault_heap(_kernels, {"SPORE_PREFAULT_MB": "0"}) == 0
        assert tuning_cache.prefault_heap(_kernels, {"SPORE_PREFAULT_MB": "3"}) == 3
        assert tuning_cache.prefault_heap(_kernels, {"SPORE_PREFAULT_MB": "lots"}) == tuning_cache._PREFAULT_MB
        assert tuning_cache.prefault_heap(_kernels, {"SPORE_PREFAULT_MB": "100000"}) == 256  # capped


# The children count resident pages, so they turn transparent huge pages off for themselves: with
# THP "always", touching one byte (a chunk header) would make 2 MiB resident.
_RSS = r"""
import ctypes
ctypes.CDLL(None).prctl(41, 1, 0, 0, 0)  # PR_SET_THP_DISABLE
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
"""

_HEAP_CHILD = _RSS + r"""
import json, threading
import numpy as np
from spore import _kernels
out = {"tuned": bool(_kernels.malloc_tuned)}
blocks = [_kernels.HeapBlock(8 << 20) for _ in range(3)]  # this (main) thread's arena; no page touched
out["reserved"] = sum(b.nbytes for b in blocks)
r0 = rss()
t = threading.Thread(target=lambda: [b.fault_in_and_free() for b in blocks])
t.start()
t.join()
r1 = rss()
out["faulted_in"] = r1 - r0
out["left"] = sum(b.nbytes for b in blocks)
blocks[0].fault_in_and_free()  # a second call does nothing
a = np.ones((20 << 20) // 4, np.float32)  # 20 MiB in this thread: the faulted-in pages, no new ones
out["main_thread_growth"] = rss() - r1
out["sum"] = float(a.sum())
print(json.dumps(out))
"""


def test_a_heap_block_faulted_in_on_another_thread_is_reused_by_the_creating_thread(tmp_path: Path) -> None:
    # the prewarm thread faults the importing thread's heap in (prefault_heap): that only helps if
    # the pages go back to the *creating* thread's arena and stay there, so its next arrays take them
    res = _child(tmp_path, _HEAP_CHILD, SPORE_PREWARM="0", SPORE_PREFAULT_MB="0")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["reserved"] == 24 << 20 and out["left"] == 0 and out["sum"] == float(5 << 20)
    assert out["faulted_in"] >= 23 << 20  # the other thread touched every page
    if out["tuned"]:  # freed memory is kept (module.cpp): the main thread's 20 MiB array faults nothing new
        assert out["main_thread_growth"] < 2 << 20, out


_HANDOVER_CHILD = _RSS + r"""
import json
from spore import _kernels
from spore._runtime import tuning_cache
jobs = []
r0 = rss()
mb = tuning_cache.prefault_heap(_kernels, {"SPORE_PREFAULT_MB": "32"}, jobs)
r1 = rss()
for job in jobs:
    job()
print(json.dumps({"tuned": bool(_kernels.malloc_tuned), "mb": mb, "jobs": len(jobs), "reserving": r1 - r0,
                  "job": rss() - r1}))
"""


def test_the_prefault_is_handed_to_the_prewarm_thread_not_done_in_the_import(tmp_path: Path) -> None:
    res = _child(tmp_path, _HANDOVER_CHILD, SPORE_PREWARM="0", SPORE_PREFAULT_MB="0")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    if not out["tuned"]:
        assert out["mb"] == 0 and out["jobs"] == 0
        return
    assert out["mb"] == 32 and out["jobs"] == 1
    assert out["reserving"] < 2 << 20, out  # reserving touches no page: the import does not pay the faults
    assert out["job"] >= 30 << 20, out      # the job (on the prewarm thread) does
    # and in a normal import the prewarm thread ran it without a failure
    code = ("import json\nfrom spore import _kernels\nfrom spore._runtime import tuning_cache as t\n"
            "t._STATE['prewarm'].join()\nprint(json.dumps(t.status()))")
    res = _child(tmp_path, code)
    assert res.returncode == 0, res.stderr
    status = json.loads(res.stdout.strip().splitlines()[-1])
    assert status.get("prefault_mb") == tuning_cache._PREFAULT_MB and not status.get("note"), status


_SHARED_CHILD = r"""
import json
import numpy as np
from spore import _kernels
rng = np.random.default_rng(0)
out = []
for fused_first, (n, c, hw, o) in ((True, (4, 5, 13, 7)), (False, (3, 6, 11, 9))):
    x = rng.standard_normal((n, c, hw, hw)).astype(np.float32)
    w = rng.standard_normal((o, c, 3, 3)).astype(np.float32)
    dy = rng.standard_normal((n, o, hw - 2, hw - 2)).astype(np.float32)
    args = ((1, 1), (0, 0, 0, 0), (1, 1), 1)
    fused = lambda: _kernels.conv2d_backward(dy, x, w, *args, True)[1]
    alone = lambda: _kernels.conv2d_backward_weights(dy, x, w.shape, *args)
    a, b = (fused(), alone()) if fused_first else (alone()[...], fused())
    rows = [(k, p, s) for k, p, s in _kernels.conv_tuning_export() if k[0] == 2 and list(k[3:8]) == [n, c, hw, hw, o]]
    out.append({"same_bits": bool(np.array_equal(a, b)), "rows": rows})
print(json.dumps(out))
"""


def test_weight_gradient_with_and_without_bias_follows_one_decision(tmp_path: Path) -> None:
    # conv2d_backward's fused weight gradient (with the bias gradient) and conv2d_backward_weights
    # take the path of whichever was decided first, so they give the same bits: tuned apart, a
    # loaded CI machine once saw them differ (test_threads' fused vs separate comparison)
    env = {k: v for k, v in os.environ.items() if k not in ("SPORE_TUNING", "XDG_CACHE_HOME")}
    env.update(SPORE_CACHE_DIR=str(tmp_path / "cache"), OMP_NUM_THREADS="1", SPORE_TUNING="off")
    res = subprocess.run([sys.executable, "-c", _SHARED_CHILD], env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    for geometry in json.loads(res.stdout.strip().splitlines()[-1]):
        assert geometry["same_bits"]
        rows = geometry["rows"]
        assert sorted(k[1] for k, _, _ in rows) == [0, 1]  # both variants recorded (the prewarm builds each)
        (_, p0, s0), (_, p1, s1) = rows
        assert p0 == p1 and s0 == s1  # one timing, copied: not two tunings that happened to agree


def test_a_save_keeps_the_decisions_another_process_wrote_meanwhile(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # two processes that loaded the same file (a notebook kernel and a script) each wrote only their
    # own decisions, so the later one dropped the earlier one's: now a save merges under a lock
    monkeypatch.setenv("SPORE_CACHE_DIR", str(tmp_path))
    fp = tuning_cache.fingerprint(_kernels)
    path = tuning_cache.cache_path(fp)
    theirs = [[2, 0, 1, 7, 3, 29, 31, 5, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1], 1, [1e-3, 5e-4, 0.0]]  # another geometry
    path.write_text(json.dumps({"format": tuning_cache.FORMAT, "fingerprint": fp, "conv": [theirs]}))
    x = np.ones((2, 3, 9, 9), np.float32)
    _kernels.conv2d_forward(x, np.ones((4, 3, 3, 3), np.float32), None, (1, 1), (0, 0, 0, 0), (1, 1), 1)
    mine = {tuple(k) for k, _, _ in _kernels.conv_tuning_export()}
    assert mine and tuple(theirs[0]) not in mine
    tuning_cache.save(_kernels, force=True)
    rows = json.loads(path.read_text())["conv"]
    assert {tuple(r[0]) for r in rows} == mine | {tuple(theirs[0])}
    assert theirs in rows  # kept as written
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no lock or temporary file left
