"""Persistent cache of the conv kernels' autotuning decisions.

Why: the conv kernels time their candidate paths (plain / blocked / direct) the first time a
geometry is seen (engine/csrc/conv.cpp, `choose`). That costs LeNet-5's first step ~100 ms in every
new process, and two processes may pick different paths where two time within noise, so results
differ by float rounding across runs. With this cache a process reuses the last process's decisions:
the same kernels, the same bits, no timing pause.

When: `attach` runs as `spore.ops.conv_pool` loads the kernels (at ``import spore``).

Where: ``$SPORE_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/spore``, else ``~/.cache/spore``; one file
per machine fingerprint, ``conv-tuning-<hash>.json``. ``SPORE_TUNING``: ``cache`` (default: load,
and save new decisions at exit), ``retune`` (ignore the file, time again, overwrite it), ``off``
(neither read nor write).

The fingerprint is the CPU (model name and flags), oneDNN's version, Spore's version and the kernels'
build (size and mtime of the extension): a file whose fingerprint differs - another CPU after a
home directory moved, a rebuilt library - is ignored and replaced at exit, as is one that does not
parse or holds malformed rows (a warning says so; nothing crashes). Writes go to a temporary file in
the same directory and are renamed over the old one (`os.replace`, atomic on POSIX): a reader sees
the old file or the new one, never a torn write, even with several processes saving at once. A save
merges this process's decisions into the file's others under an flock on the directory, so two
processes that loaded the same file (a notebook kernel beside a script) keep each other's.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import json
import os
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Any, Callable

__all__ = ["cache_dir", "mode", "fingerprint", "cache_path", "load", "save", "attach", "status", "prewarm",
           "prefault_heap"]

FORMAT = 1
MODES = ("off", "cache", "retune")
_STATE: dict[str, Any] = {"attached": False, "loaded": 0, "file": None, "note": ""}


def cache_dir() -> Path:
    """The directory the cache lives in (not created until something is saved)."""
    own = os.environ.get("SPORE_CACHE_DIR")
    if own:
        return Path(own).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg and os.path.isabs(os.path.expanduser(xdg)) else Path.home() / ".cache"
    return base / "spore"


def mode() -> str:
    """SPORE_TUNING, checked: an unknown value warns and means ``cache``."""
    value = os.environ.get("SPORE_TUNING", "cache").strip().lower()
    if value not in MODES:
        warnings.warn(f"SPORE_TUNING={value!r}: expected one of {list(MODES)}; using 'cache'", RuntimeWarning,
                      stacklevel=2)
        return "cache"
    return value


def _cpu() -> tuple[str, str]:
    model, flags = "unknown", ""
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            if line.startswith("model name") and model == "unknown":
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags") and not flags:
                flags = " ".join(sorted(line.split(":", 1)[1].split()))
    except OSError:
        import platform

        model = platform.processor() or platform.machine()
    return model, hashlib.sha256(flags.encode()).hexdigest()[:16]


def fingerprint(kernels: Any) -> dict[str, Any]:
    """What a decision depends on besides the geometry (which is in each key): CPU and libraries."""
    from .. import __version__

    model, flags = _cpu()
    so = Path(kernels.__file__)
    st = so.stat()
    return {"cpu": model, "cpu_flags": flags, "onednn": kernels.dnnl_version(), "spore": __version__,
            "kernels_build": f"{st.st_size}-{int(st.st_mtime)}"}


def cache_path(fp: dict[str, Any]) -> Path:
    digest = hashlib.sha256(json.dumps(fp, sort_keys=True).encode()).hexdigest()[:16]
    return cache_dir() / f"conv-tuning-{digest}.json"


def _valid_rows(rows: Any) -> list[tuple[list[int], int, list[float]]] | None:
    if not isinstance(rows, list):
        return None
    out = []
    for r in rows:
        if not (isinstance(r, list) and len(r) == 3 and isinstance(r[0], list) and len(r[0]) == 19
                and all(type(v) is int for v in r[0]) and type(r[1]) is int and r[1] in (0, 1, 2)
                and isinstance(r[2], list) and len(r[2]) == 3
                and all(isinstance(v, (int, float)) and v >= 0 for v in r[2])):
            return None
        out.append((r[0], r[1], [float(v) for v in r[2]]))
    return out


def _read(path: Path, fp: dict[str, Any]) -> tuple[list[tuple[list[int], int, list[float]]] | None, str]:
    """The file's decisions if it is a valid cache for fingerprint `fp`, else (None, what is wrong:
    "missing", "unreadable: ...", "corrupt" or "foreign"). Read by `load`, and by `save` to merge."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, "missing"
    except OSError as e:
        return None, f"unreadable: {e}"
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    rows = _valid_rows(doc.get("conv")) if isinstance(doc, dict) else None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or rows is None:
        return None, "corrupt"
    if doc.get("fingerprint") != fp:
        return None, "foreign"
    return rows, ""


def load(kernels: Any) -> int:
    """Import the decisions of the cache file matching this machine; returns how many were loaded.

    A missing file loads nothing; a corrupt or foreign one warns, loads nothing and is replaced at
    the next save.
    """
    fp = fingerprint(kernels)
    path = cache_path(fp)
    _STATE["file"] = str(path)
    rows, problem = _read(path, fp)
    if rows is None:
        if problem == "corrupt":
            _STATE["note"] = "corrupt file ignored (rebuilt at exit)"
            warnings.warn(f"spore tuning cache {path} is corrupt; ignoring it (it is rebuilt)", RuntimeWarning,
                          stacklevel=2)
            _STATE["stale"] = True
        elif problem == "foreign":
            _STATE["note"] = "written for another CPU or library build; ignored (rebuilt at exit)"
            _STATE["stale"] = True
        elif problem != "missing":
            _STATE["note"] = problem
        return 0
    n = int(kernels.conv_tuning_import(rows))
    _STATE["loaded"] += n
    _STATE["rows"] = rows  # what the prewarm thread builds
    return n


@contextlib.contextmanager
def _locked(directory: Path) -> Any:
    """An exclusive flock on the cache directory itself (no lock file left beside the cache)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _merged(path: Path, fp: dict[str, Any], own: list[list[Any]]) -> list[list[Any]]:
    """This process's decisions added to the valid ones on disk (its own win on the same key).

    Why: two processes that loaded the same file (a notebook kernel and a script, or parallel test
    workers) each used to write only their own decisions, so the later writer dropped the earlier
    one's, and the next process timed those geometries again and could pick other kernels.
    """
    rows, _ = _read(path, fp)
    if rows is None:
        return own  # missing, corrupt or foreign: replaced
    by_key = {tuple(k): [k, p, s] for k, p, s in rows}
    by_key.update((tuple(r[0]), r) for r in own)
    return list(by_key.values())


def save(kernels: Any, force: bool = False) -> Path | None:
    """Write every decision of this process atomically, merged with the file's others (except in
    retune mode, which overwrites it); skipped when nothing was timed here (unless `force` or the
    file on disk was stale). Returns the file written, or None."""
    if not (force or _STATE.get("stale") or kernels.conv_tuning_timed() > 0):
        return None
    fp = fingerprint(kernels)
    path = cache_path(fp)
    own = [[list(k), int(p), list(s)] for k, p, s in kernels.conv_tuning_export()]
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path.parent):  # read, merge and replace as one step among Spore processes
        rows = own if _STATE.get("mode") == "retune" else _merged(path, fp, own)
        doc = {"format": FORMAT, "fingerprint": fp, "conv": rows}
        fd, tmp = tempfile.mkstemp(prefix=".conv-tuning-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(doc, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    _STATE["stale"] = False
    return path


def _save_at_exit(kernels: Any) -> None:
    try:
        save(kernels)
    except OSError as e:  # a read-only home must not turn the exit into a traceback
        warnings.warn(f"spore tuning cache not saved: {e}", RuntimeWarning, stacklevel=1)


def _prewarm_gemm(kernels: Any) -> None:
    import numpy as np

    a = np.ones((8, 8), np.float32)
    for ta, tb in ((False, False), (False, True), (True, False)):
        kernels.sgemm(a, a, ta, tb)


def _conv_geometry(key: list[int]) -> dict[str, Any] | None:
    """The conv call a tuning key describes: key = (kind, flag, threads, n, c, h, w, o, kh, kw, sh, sw,
    pt, pb, pl, pr, dh, dw, groups) (engine/csrc/conv.cpp); None for one with no valid output."""
    kind, flag, threads, n, c, h, w, o, kh, kw, sh, sw, pt, pb, pl, pr, dh, dw, g = key
    oh = (h + pt + pb - ((kh - 1) * dh + 1)) // sh + 1 if sh > 0 else 0
    ow = (w + pl + pr - ((kw - 1) * dw + 1)) // sw + 1 if sw > 0 else 0
    if min(n, c, o, g, oh, ow, threads) < 1 or c % g or o % g or kind not in (0, 1, 2):
        return None
    return {"kind": kind, "bias": bool(flag), "threads": threads, "x": (n, c, h, w), "w": (o, c // g, kh, kw),
            "y": (n, o, oh, ow), "args": ((sh, sw), (pt, pb, pl, pr), (dh, dw), g)}


# Above this many elements in one operand a geometry is not prewarmed: its zeros would cost more
# memory than the pause it saves (LeNet's largest operand is 64 x 6 x 28 x 28 = 301K elements).
_PREWARM_MAX_ELEMENTS = 1 << 23


def _prewarm_convs(kernels: Any, rows: list[tuple[list[int], int, list[float]]]) -> int:
    """Build the conv primitives of the loaded decisions once, on zeros, in this (background) thread.

    Why: with the decisions cached, LeNet's first step still created each conv's oneDNN primitive
    (generating its JIT code): ~15 ms of a warm first step here. The kernels' own entry caches are
    per thread, but oneDNN keeps a process-wide primitive cache keyed by the primitive descriptor and
    team size, so building the same primitives here makes the main thread's creation a lookup. The
    decisions are already known, so nothing is timed and no choice can differ from the main thread's.
    Returns how many geometries were built.
    """
    import numpy as np

    done = 0
    for key, _path, _secs in rows:
        gm = _conv_geometry(list(key))
        if gm is None or max(np.prod(gm["x"]), np.prod(gm["y"])) > _PREWARM_MAX_ELEMENTS:
            continue
        kernels.set_num_threads(gm["threads"])  # this thread's team, as the key was decided with
        x = np.zeros(gm["x"], np.float32)
        w = np.zeros(gm["w"], np.float32)
        dy = np.zeros(gm["y"], np.float32)
        if gm["kind"] == 0:
            kernels.conv2d_forward(x, w, np.zeros(gm["w"][0], np.float32) if gm["bias"] else None, *gm["args"])
        elif gm["kind"] == 1:
            kernels.conv2d_backward_data(dy, w, gm["x"], *gm["args"])
        elif gm["bias"]:
            kernels.conv2d_backward(dy, x, w, *gm["args"], True)
        else:
            kernels.conv2d_backward_weights(dy, x, gm["w"], *gm["args"])
        done += 1
    return done


def _prewarm(kernels: Any, rows: list[tuple[list[int], int, list[float]]], jobs: list[Callable[[], None]]) -> None:
    try:
        _prewarm_gemm(kernels)
        _STATE["prewarmed_convs"] = _prewarm_convs(kernels, rows)
    except Exception as e:  # noqa: BLE001  (a failed warm-up only means the first step pays it)
        _STATE["note"] = f"prewarm failed: {e}"
    for job in jobs:  # then the importing thread's heap block (a conv built late costs more per ms)
        try:
            job()
        except Exception as e:  # noqa: BLE001  (likewise)
            _STATE["note"] = f"prefault failed: {e}"


def prewarm(kernels: Any, rows: list[tuple[list[int], int, list[float]]] | None = None,
            jobs: list[Callable[[], None]] | None = None) -> threading.Thread | None:
    """Generate oneDNN's sgemm code, and the conv primitives of the cached decisions `rows`, in a
    background thread while the user builds the network.

    Why: with the conv decisions cached, most of LeNet's remaining first step was oneDNN's one-time
    JIT setup on the first sgemm call (~37 ms here, whatever the shape; ~2 ms more per transpose
    variant) and the creation of each conv primitive (`_prewarm_convs`); `jobs` run after them (the
    importing thread's heap block, `prefault_heap`). The kernels run without the
    GIL, so this overlaps with Python work. A fork waits for it (`os.register_at_fork`), so a child
    never inherits oneDNN mid-initialisation, and so does the interpreter's exit: a script that ends
    while the thread is inside oneDNN used to abort ("terminate called without an active exception",
    exit status 134). ``SPORE_PREWARM=0`` turns it off.
    """
    if os.environ.get("SPORE_PREWARM", "1").strip() == "0":
        return None
    t = threading.Thread(target=_prewarm, args=(kernels, list(rows or []), list(jobs or [])), name="spore-prewarm",
                         daemon=True)
    t.start()
    _STATE["prewarm"] = t
    atexit.register(t.join)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(before=t.join)
    return t


# Heap pre-faulted at import (MiB), when the kernels keep freed memory for reuse (module.cpp).
_PREFAULT_MB = 32


def prefault_heap(kernels: Any, environ: Any = None, jobs: list[Callable[[], None]] | None = None) -> int:
    """Reserve `SPORE_PREFAULT_MB` (default 32) MiB of heap in the calling (importing) thread's arena
    and fault its pages in, then free it to that arena: on the prewarm thread when `jobs` (the list
    of its jobs) is given, else here. Returns the MiB reserved.

    Why: with the conv decisions cached and the primitives prewarmed, LeNet's warm first step still
    paid page faults: the first step's activations are the first arrays of their size, so the heap
    grows and every new page faults (expensive in a VM). The kernels make glibc keep freed memory
    (no trim below 512 MiB), so pages touched once here are reused by the step. glibc gives each
    thread its own arena, so the block must be allocated by the thread that imports Spore (normally
    the one that trains); but malloc alone touches no page of it (`_kernels.HeapBlock`), so the
    faulting itself runs on the prewarm thread, beside the user's own set-up. In the import it cost
    80-130 ms for 16 MiB on a VM whose first touch of a page costs ~25 us (and ~4 ms on another).
    Measured on LeNet, PyNative, warm cache, 8 interleaved runs each: first step / steady step 1.72x
    with 16 MiB faulted in the import, 1.58x with 16 MiB here, 1.23x with 32 MiB, 1.21x with 64.
    Skipped when the allocator is left at glibc's defaults (``SPORE_MALLOC_DEFAULTS=1``: freed pages
    would go straight back); ``SPORE_PREFAULT_MB=0`` turns it off.
    """
    env = os.environ if environ is None else environ
    if not getattr(kernels, "malloc_tuned", False):
        return 0
    try:
        mb = int(env.get("SPORE_PREFAULT_MB", _PREFAULT_MB))
    except ValueError:
        mb = _PREFAULT_MB
    mb = max(0, min(mb, 256))  # below the 512 MiB trim threshold, and below the 128 MiB mmap threshold
    if mb == 0:               # per block: so the blocks come from the heap, not from mmap
        return 0
    blocks = [kernels.HeapBlock(min(8, mb - i) << 20) for i in range(0, mb, 8)]  # 8 MiB blocks

    def fault_in() -> None:
        for b in blocks:
            b.fault_in_and_free()

    if jobs is None:
        fault_in()
    else:
        jobs.append(fault_in)
    _STATE["prefault_mb"] = mb
    return mb


def attach(kernels: Any) -> None:
    """Called once by `spore._kernels` when it loads: apply SPORE_TUNING (load the file, register
    the save at exit), then start the prewarm thread. Never raises: a broken cache must not stop the
    kernels from loading."""
    if _STATE["attached"]:
        return
    _STATE["attached"] = True
    m = mode()
    _STATE["mode"] = m
    rows: list[tuple[list[int], int, list[float]]] = []
    if m != "off":
        try:
            if m == "cache":
                load(kernels)
                rows = list(_STATE.get("rows", []))
            else:
                _STATE["stale"] = True
        except Exception as e:  # noqa: BLE001  (any failure to read leaves autotuning as it was)
            _STATE["note"] = f"not loaded: {e}"
        atexit.register(_save_at_exit, kernels)
    jobs: list[Callable[[], None]] = []
    try:
        prefault_heap(kernels, jobs=jobs)
    except Exception as e:  # noqa: BLE001  (only the first step's speed depends on it)
        _STATE["note"] = f"prefault failed: {e}"
    if prewarm(kernels, rows, jobs) is None:
        for job in jobs:  # no prewarm thread (SPORE_PREWARM=0): fault the heap in here
            job()


def status() -> dict[str, Any]:
    """Mode, file, how many decisions were loaded, and why a file was ignored (for reports)."""
    return {k: v for k, v in _STATE.items() if k not in ("attached", "prewarm", "rows")}
