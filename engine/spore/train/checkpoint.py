"""MindSpore-compatible checkpoints: `save_checkpoint`, `load_checkpoint`, `load_param_into_net`.

Files are MindSpore's `.ckpt` protobuf (see checkpoint_schema.py): MindSpore 2.10 loads what
Spore writes and the other way round, and for the same tensors the bytes are identical.

What Spore adds is safety:
- Saving is atomic: the bytes go to a temp file ``.<name>.<pid>@<host>.<random>.tmp`` in the target's
  directory, are fsynced, and replace the target with ``os.replace``; a crash at any point leaves
  the previous file intact, and the next save to that path removes the temp files crashed writers
  left (those whose writer process is gone, or that nobody has touched for a while).
- Every file Spore writes carries Spore's header and MindSpore's CRC-32 trailer (what MindSpore
  writes for ``crc_check=True``), whatever ``crc_check`` says; MindSpore reads such files as usual.
- Loading reads only regular files, no larger than a limit (this machine's RAM, or
  ``SPORE_CKPT_MAX_BYTES`` / `max_load_bytes`), and refuses any file it cannot read completely and
  exactly, naming the file and what is wrong (truncation, corruption, unknown dtype, wrong size,
  impossible dims, repeated names, a failed CRC, a Spore file whose trailer is gone) — it never
  half-loads. A CRC trailer is verified whenever present, whatever ``crc_check`` says.
- What cannot be detected: a file MindSpore wrote without ``crc_check=True`` has no checksum, so a
  cut exactly between two records (fewer tensors), changed tensor bytes, or a changed name or
  dims that stays well-formed load without complaint; likewise a MindSpore ``crc_check=True`` file
  cut between records (the cut takes the trailer with it). A CRC is no signature: whoever edits a
  file on purpose can recompute it.
- `load_param_into_net` checks every parameter first and reports all shape/dtype mismatches
  together (name, expected, got); only when all fit does it assign, so a net is never half-loaded.
Nothing is unpickled or evaluated: the format is plain protobuf and raw little-endian arrays.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import stat
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import SporeError, user_location
from ..nn.cell import Cell
from ..tensor import Parameter, Tensor
from .checkpoint_schema import (
    SPORE_HEADER,
    FormatError,
    crc32,
    crc_trailer,
    decode,
    encode_entries,
    has_spore_header,
    split_crc,
    type_name,
)

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "CheckpointError",
           "CheckpointMismatchError", "ParamMismatch", "max_load_bytes"]

logger = logging.getLogger("spore.train")

#: The largest checkpoint `load_checkpoint` reads, in bytes. None: ``SPORE_CKPT_MAX_BYTES`` from the
#: environment if set, else this machine's physical memory (the whole file is read into memory).
max_load_bytes: int | None = None
_MAX_BYTES_ENV = "SPORE_CKPT_MAX_BYTES"
# A temp file of a save to the same path is stale when its writer process is gone, or, when that
# cannot be told (no pid in its name, or the pid now names some other process), when nobody has
# written it for this long: a live writer touches its temp file continuously until the rename.
STALE_TEMP_SECONDS = 10.0
STALE_TEMP_SECONDS_LIVE_PID = 3600.0

Entry = tuple[str, "np.ndarray | str"]


class CheckpointError(SporeError, ValueError):
    """A checkpoint cannot be saved or loaded; `file` names it. A ValueError, as in MindSpore."""

    def __init__(self, message: str, *, file: str | None = None, hint: str | None = None, loc: Any = None):
        self.file = file
        super().__init__(message, loc=loc, hint=hint)


@dataclass(frozen=True)
class ParamMismatch:
    """One parameter that cannot take its checkpoint value: what differs, the net's and the file's."""

    name: str
    what: str  # "shape", "dtype" or "type"
    expected: str  # the net's parameter
    got: str  # the checkpoint's value

    def __str__(self) -> str:
        return f"{self.name}: {self.what} expected {self.expected} (net), got {self.got} (checkpoint)"


class CheckpointMismatchError(CheckpointError, RuntimeError):
    """Parameters of a net do not fit the checkpoint. Lists every one; nothing was assigned.

    Also a RuntimeError, which is what MindSpore raises for a shape or dtype mismatch.
    """

    def __init__(self, mismatches: list[ParamMismatch], *, hint: str | None = None, loc: Any = None):
        self.mismatches = list(mismatches)
        n = len(self.mismatches)
        lines = "\n".join(f"  {m}" for m in self.mismatches)
        super().__init__(f"load_param_into_net: {n} parameter{'s' if n != 1 else ''} of the net cannot take "
                         f"the checkpoint's values, so nothing was loaded:\n{lines}", hint=hint, loc=loc)


def _error(message: str, file: str | None = None, hint: str | None = None) -> CheckpointError:
    return CheckpointError(message, file=file, hint=hint, loc=user_location())


def _check_bool(value: Any, name: str, fn: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{fn}: '{name}' must be a bool, got {type(value).__name__}")
    return value


def _check_format(fmt: Any, fn: str) -> None:
    if fmt == "safetensors":
        raise _error(f"{fn}: format='safetensors' is not supported by Spore yet; use format='ckpt'")
    if fmt != "ckpt":
        raise ValueError(f"{fn}: format must be 'ckpt' or 'safetensors', got {fmt!r}")


def _refuse_encryption(key: Any, key_arg: str, mode: Any, mode_arg: str, fn: str) -> None:
    """Encrypted checkpoints are not supported: say so instead of writing or reading plain bytes."""
    if not isinstance(mode, str):
        raise TypeError(f"{fn}: '{mode_arg}' must be a str, got {type(mode).__name__}")
    if key is None:
        return
    if not isinstance(key, bytes):
        raise TypeError(f"{fn}: '{key_arg}' must be bytes or None, got {type(key).__name__}")
    raise _error(f"{fn}: checkpoint encryption ({key_arg}, {mode_arg}={mode!r}) is not supported by Spore",
                 hint=f"pass {key_arg}=None; encrypt the file with a separate tool if it must be protected at rest")


def _check_callable(fn_arg: Any, name: str, fn: str) -> None:
    if fn_arg is not None and not callable(fn_arg):
        raise TypeError(f"{fn}: '{name}' must be a function or None, got {type(fn_arg).__name__}")


# --- saving ----------------------------------------------------------------------------------

def _save_path(name: Any, fmt: str) -> str:
    if not isinstance(name, (str, os.PathLike)) or not isinstance(os.fspath(name), str):
        raise TypeError(f"save_checkpoint: 'ckpt_file_name' must be a str, got {type(name).__name__}")
    path = os.path.realpath(os.fspath(name))
    if os.path.isdir(path):
        raise IsADirectoryError(f"save_checkpoint: 'ckpt_file_name' {path} is a directory; give a file name")
    path = path if path.endswith(fmt) else os.path.realpath(f"{path}.{fmt}")
    try:
        st = os.stat(path)
    except OSError:
        return path  # nothing there yet (or unreachable: the write will say so)
    if not stat.S_ISREG(st.st_mode):  # e.g. a FIFO or a device: the rename would replace it
        raise _error(f"save_checkpoint: {path} is {_kind(st.st_mode)}, not a regular file; Spore only replaces "
                     "regular files with checkpoints", file=path)
    return path


def _named_values(save_obj: Any) -> list[tuple[str, Any]]:
    """(name, Tensor/array/str) pairs of a Cell, a list of Parameters or dicts, or a dict."""
    if isinstance(save_obj, Cell):
        return [(p.name, p) for _, p in save_obj.parameters_and_names()]
    if isinstance(save_obj, list):
        if save_obj and isinstance(save_obj[0], dict):
            out = []
            for item in save_obj:
                if not (isinstance(item, dict) and "name" in item and "data" in item):
                    raise TypeError("save_checkpoint: a list save_obj of dicts needs {'name': str, 'data': Tensor} "
                                    f"items, got {item!r:.80}")
                if not isinstance(item["name"], str) or not isinstance(item["data"], Tensor):
                    raise TypeError("save_checkpoint: each {'name', 'data'} item needs a str name and Tensor data, "
                                    f"got {type(item['name']).__name__} and {type(item['data']).__name__}")
                out.append((item["name"], item["data"]))
            return out
        for p in save_obj:
            if not isinstance(p, Parameter):
                raise TypeError("save_checkpoint: a list save_obj holds Parameters (e.g. net.trainable_params()) "
                                f"or {{'name', 'data'}} dicts, got {type(p).__name__}")
        return [(p.name, p) for p in save_obj]
    out = []
    for key, value in save_obj.items():
        if not isinstance(key, str) or not isinstance(value, (Tensor, np.ndarray, str)):
            raise TypeError("save_checkpoint: a dict save_obj maps str names to Parameters/Tensors (or str), "
                            f"got {type(key).__name__} -> {type(value).__name__}")
        out.append((key, value))
    return out


def _entries(save_obj: Any, append_dict: Any, choice_func: Callable | None) -> list[Entry]:
    """The (name, ndarray or str) list to write, in MindSpore's order: save_obj, then append_dict."""
    items = _named_values(save_obj)
    if choice_func is not None:
        items = [(n, v) for n, v in items if choice_func(n)]
    if append_dict is not None:
        if not isinstance(append_dict, dict):
            raise TypeError(f"save_checkpoint: 'append_dict' must be a dict, got {type(append_dict).__name__}")
        for key, value in append_dict.items():
            if not isinstance(key, str) or not isinstance(value, (int, float, bool, str, Tensor)):
                raise TypeError("save_checkpoint: 'append_dict' maps str keys to int, float, bool, str, Parameter "
                                f"or Tensor values, got {type(key).__name__} -> {type(value).__name__}")
            items.append((key, value if isinstance(value, (str, Tensor)) else Tensor(value)))
    out: list[Entry] = []
    seen: set[str] = set()
    for name, value in items:
        if not name:
            raise _error("save_checkpoint: a tensor has an empty name; every checkpoint entry needs a name")
        if name in seen:
            raise _error(f"save_checkpoint: two entries are named {name!r}; a checkpoint names each tensor once",
                         hint="give the Parameters unique names (unnamed ones are all called 'Parameter'), "
                              "or rename the append_dict key")
        seen.add(name)
        if isinstance(value, str):
            out.append((name, value))
            continue
        arr = value._data if isinstance(value, Tensor) else np.asarray(value)
        type_name(arr.dtype)  # refuse unsupported dtypes before any file is touched
        out.append((name, arr))
    return out


def _fsync_dir(directory: str) -> None:
    """Make the rename itself durable (POSIX); a no-op where directories cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# The writer's host goes into temp names beside its pid: on a shared file system, a pid is only
# meaningful on the machine that wrote it.
_HOST = "".join(c if c.isalnum() or c == "-" else "-" for c in socket.gethostname())[:40] or "host"

# Temp files this process is writing right now (async saves run beside the caller's thread).
_writing: set[str] = set()
_writing_lock = threading.Lock()


def _pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (on this machine; a zombie still counts)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, owned by someone else
        return True
    except OSError:
        return True  # cannot tell: treat it as alive, the age rule still applies
    return True


def _temp_is_stale(tmp: str, name: str, prefix: str, now: float) -> bool:
    """Whether the temp file `tmp` (base name `name`) was left by a writer that will never finish."""
    try:
        st = os.lstat(tmp)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode):
        return False  # not something Spore's writer creates: leave it alone
    age = now - st.st_mtime
    middle = name[len(prefix):-len(".tmp")]
    writer, dot, _ = middle.partition(".")
    pid_text, at, host = writer.partition("@")
    if not (dot and pid_text.isdigit()):  # no pid in the name (written by an older Spore)
        return age > STALE_TEMP_SECONDS
    if at and host != _HOST:  # another machine's writer (a shared file system): its pid says nothing here
        return age > STALE_TEMP_SECONDS_LIVE_PID
    pid = int(pid_text)
    if pid == os.getpid():
        with _writing_lock:
            return tmp not in _writing  # ours, and no thread of ours is writing it: a failed write
    return not _pid_alive(pid) or age > STALE_TEMP_SECONDS_LIVE_PID


def _remove_stale_temps(path: str) -> list[str]:
    """Remove the ``.<name>.*.tmp`` files crashed saves to `path` left; returns what was removed.

    A concurrent writer's temp file is never touched: its pid is alive and it is being written.
    """
    directory, base = os.path.split(path)
    prefix = f".{base}."
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    removed, now = [], time.time()
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".tmp") and len(name) > len(prefix) + 4):
            continue
        tmp = os.path.join(directory, name)
        if _temp_is_stale(tmp, name, prefix, now):
            with contextlib.suppress(OSError):
                os.unlink(tmp)
                removed.append(tmp)
    if removed:
        logger.info("save_checkpoint: removed %d temp file(s) left by interrupted saves of %s: %s",
                    len(removed), path, [os.path.basename(r) for r in removed])
    return removed


def _write_atomic(path: str, entries: Iterable[Entry], crc_check: bool) -> None:
    """Write to a unique temp file beside `path`, fsync, then os.replace: all or nothing.

    The file is Spore's header, the records, then MindSpore's CRC-32 trailer over all of it — always:
    ``crc_check`` only says the caller asked for it. Stale temp files of crashed saves go first.
    """
    del crc_check  # the trailer is written in every case; the argument is kept for MindSpore's signature
    directory, base = os.path.split(path)
    _remove_stale_temps(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{base}.{os.getpid()}@{_HOST}.", suffix=".tmp", dir=directory)
    except OSError as err:  # name the checkpoint, not the temp file the user never asked for
        raise type(err)(err.errno, f"save_checkpoint: cannot write {path}: {err.strerror}") from err
    with _writing_lock:
        _writing.add(tmp)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(SPORE_HEADER)
            crc = zlib.crc32(SPORE_HEADER)
            for chunk in encode_entries(entries):
                f.write(chunk)
                crc = zlib.crc32(chunk, crc)
            f.write(crc_trailer(crc & 0xFFFFFFFF))
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, stat.S_IRUSR)  # read-only, as MindSpore leaves its checkpoints
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    finally:
        with _writing_lock:
            _writing.discard(tmp)
    _fsync_dir(directory)


# Background saves: one at a time (as MindSpore), tracked by target so loads can wait for them.
_async_lock = threading.Lock()
_async_threads: dict[str, threading.Thread] = {}
_async_failures: list[tuple[str, BaseException]] = []


def _wait_async_saves(path: str | None = None) -> None:
    """Block until the background saves (to `path`, or all) have finished."""
    with _async_lock:
        threads = [t for p, t in _async_threads.items() if path is None or p == path]
    for t in threads:
        t.join()
    with _async_lock:
        for p, t in list(_async_threads.items()):
            if not t.is_alive():
                del _async_threads[p]


def _raise_async_failure(path: str | None = None) -> None:
    """Re-raise (once) the error of an earlier background save, so it is never lost silently."""
    with _async_lock:
        for i, (p, err) in enumerate(_async_failures):
            if path is None or p == path:
                del _async_failures[i]
                break
        else:
            return
    raise CheckpointError(f"an earlier save_checkpoint(..., async_save=True) of {p} failed, so that file was not "
                          f"updated: {type(err).__name__}: {err}", file=p) from err


def _save_in_background(path: str, entries: list[Entry], crc_check: bool) -> None:
    snapshot = [(n, v if isinstance(v, str) else v.copy()) for n, v in entries]  # training may go on

    def run() -> None:
        try:
            _write_atomic(path, snapshot, crc_check)
        except BaseException as err:  # reported at the next save/load, and logged now
            logger.error("save_checkpoint(async_save=True) of %s failed: %s", path, err)
            with _async_lock:
                _async_failures.append((path, err))

    thread = threading.Thread(target=run, name="asyn_save_ckpt")
    with _async_lock:
        _async_threads[path] = thread
    thread.start()


def save_checkpoint(save_obj: Any, ckpt_file_name: Any, integrated_save: bool = True, async_save: Any = False,
                    append_dict: dict | None = None, enc_key: bytes | None = None, enc_mode: str = "AES-GCM",
                    choice_func: Callable[[str], bool] | None = None, crc_check: bool = False,
                    format: str = "ckpt", **kwargs: Any) -> None:
    """Save a Cell's parameters (or a list/dict of named tensors) to a MindSpore `.ckpt` file.

    ``save_obj`` is a Cell (its parameters, by name), a list of Parameters, a list of
    ``{"name": str, "data": Tensor}`` dicts, or a dict name -> Parameter/Tensor/str (such as
    `load_checkpoint`'s result). ``append_dict`` adds extra entries (int -> Int64, float ->
    Float32, bool, str, Tensor), e.g. ``{"epoch_num": 3}``. ``choice_func(name) -> bool`` picks
    the parameters to save. ``.ckpt`` is appended to a name that does not end in it.

    The write is atomic (temp file + fsync + rename), so a crash leaves the previous file intact;
    temp files that crashed saves to the same path left are removed first. ``async_save=True``
    (or "thread"/"process", both a thread here) copies the data now and writes in the background;
    a later load of the same file waits for it. Every file gets Spore's header and MindSpore's
    CRC-32 trailer (``crc_check=True``'s layout, written even with the default ``crc_check=False``),
    which every later load verifies; MindSpore loads the file as usual. Encryption (``enc_key``)
    and ``format='safetensors'`` are refused; ``integrated_save`` only matters for parallel training.
    """
    fn = "save_checkpoint"
    _check_format(format, fn)
    if not isinstance(save_obj, (Cell, list, dict)):
        raise TypeError(f"{fn}: 'save_obj' must be a Cell, a list or a dict, got {type(save_obj).__name__}")
    path = _save_path(ckpt_file_name, format)
    _check_bool(integrated_save, "integrated_save", fn)
    if not isinstance(async_save, (bool, str)) or isinstance(async_save, str) and async_save not in (
            "thread", "process"):
        raise TypeError(f"{fn}: 'async_save' must be a bool, 'thread' or 'process', got {async_save!r}")
    _check_bool(crc_check, "crc_check", fn)
    _check_callable(choice_func, "choice_func", fn)
    unknown = sorted(set(kwargs) - {"incremental", "global_step_num", "remove_redundancy"})
    if unknown:
        raise TypeError(f"{fn}: unexpected keyword argument(s) {', '.join(unknown)}")
    if kwargs.get("remove_redundancy") not in (None, True, False):
        raise TypeError(f"{fn}: 'remove_redundancy' must be a bool or None")
    _refuse_encryption(enc_key, "enc_key", enc_mode, "enc_mode", fn)
    _wait_async_saves()  # saves land in call order, and an earlier background failure is reported
    _raise_async_failure()
    entries = _entries(save_obj, append_dict, choice_func)
    if async_save:
        _save_in_background(path, entries, crc_check)
    else:
        _write_atomic(path, entries, crc_check)


# --- loading ---------------------------------------------------------------------------------

def _check_prefix(prefix: Any, name: str) -> tuple[str, ...] | None:
    if prefix is None:
        return None
    if isinstance(prefix, str):
        prefix = (prefix,)
    if not isinstance(prefix, (list, tuple)):
        raise TypeError(f"load_checkpoint: '{name}' must be a str, list[str] or tuple[str], got "
                        f"{type(prefix).__name__}")
    if not prefix:
        raise ValueError(f"load_checkpoint: '{name}' cannot be an empty list or tuple")
    for i, p in enumerate(prefix):
        if not isinstance(p, str):
            raise TypeError(f"load_checkpoint: '{name}' holds strings, got {type(p).__name__} at index {i}")
        if not p:
            raise ValueError(f"load_checkpoint: '{name}' cannot contain ''")
    return tuple(prefix)


def _load_path(name: Any, fmt: str) -> str:
    if not isinstance(name, (str, os.PathLike)) or not isinstance(os.fspath(name), str):
        raise TypeError(f"load_checkpoint: 'ckpt_file_name' must be a str, got {type(name).__name__}")
    given = os.fspath(name)
    if not given.endswith(fmt):
        raise _error(f"load_checkpoint: the checkpoint file name must end with '.{fmt}', got {given!r}")
    path = os.path.realpath(given)
    _wait_async_saves(path)   # an async_save to this path may not have written the file yet
    if not os.path.exists(path):
        raise _error(f"load_checkpoint: the checkpoint file {path} does not exist", file=path)
    if os.path.isdir(path):
        raise _error(f"load_checkpoint: {path} is a directory, not a checkpoint file", file=path)
    return path


def _load_limit() -> tuple[int, str]:
    """The size limit for one checkpoint, and where it comes from (for the error message)."""
    if max_load_bytes is not None:
        return int(max_load_bytes), "spore.train.checkpoint.max_load_bytes"
    env = os.environ.get(_MAX_BYTES_ENV, "").strip()
    if env:
        try:
            value = int(env)
        except ValueError:
            raise _error(f"load_checkpoint: {_MAX_BYTES_ENV}={env!r} is not a whole number of bytes") from None
        if value < 0:
            raise _error(f"load_checkpoint: {_MAX_BYTES_ENV}={env!r} must not be negative")
        return value, f"{_MAX_BYTES_ENV}={env}"
    try:
        ram = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        ram = 0
    if ram <= 0:
        ram = 64 * 1024**3
    return ram, "this machine's physical memory"


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _read_whole(path: str) -> bytearray:
    """The bytes of `path`, a regular file within the size limit; refused before any read otherwise.

    The type is checked before opening (opening a FIFO would block, a device may never end) and
    again on the open descriptor (the path may have been swapped in between); the size is checked
    before reading, and a file that changes size while it is read is refused.
    """
    def refuse(message: str, hint: str | None = None) -> CheckpointError:
        return _error(f"load_checkpoint: {path} {message}", file=path, hint=hint)

    try:
        st = os.stat(path)
    except OSError as err:
        raise refuse(f"cannot be read: {err.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise refuse(f"is {_kind(st.st_mode)}, not a checkpoint file; only regular files are read")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        raise refuse(f"cannot be read: {err.strerror}") from None
    with os.fdopen(fd, "rb", buffering=0) as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise refuse(f"is {_kind(st.st_mode)}, not a checkpoint file; only regular files are read")
        limit, origin = _load_limit()
        if st.st_size > limit:
            raise refuse(f"is {st.st_size} bytes, more than the {limit}-byte limit ({origin})",
                         hint=f"if the file is genuine, raise the limit: set {_MAX_BYTES_ENV} (bytes) or "
                              "spore.train.checkpoint.max_load_bytes")
        buf = bytearray(st.st_size + 1)  # one spare byte tells a file that grew while being read
        view, got = memoryview(buf), 0
        try:
            while got < len(buf):
                n = f.readinto(view[got:])
                if not n:
                    break
                got += n
        except OSError as err:
            raise refuse(f"cannot be read: {err.strerror}") from None
        finally:
            view.release()
    if got != st.st_size:
        raise refuse(f"changed size while it was read ({st.st_size} bytes before, {'more' if got > st.st_size else got}"
                     f"{'' if got > st.st_size else ' bytes'} after): it is being written, or it is not a file on disk",
                     hint="load it once the writer has finished")
    del buf[got:]
    return buf


def read_checkpoint(path: str, crc_check: bool = False) -> list[Entry]:
    """Every (name, array-or-string) of a checkpoint file, validated; refuses anything incomplete."""
    data = _read_whole(path)
    if not data:
        raise _error(f"checkpoint {path} is empty (0 bytes)", file=path,
                     hint="it was cut off (e.g. an interrupted copy), or saved from a net with no parameters")
    body, stored = split_crc(memoryview(data))
    if stored is not None:
        actual = crc32(body)
        if actual != stored:
            raise _error(f"checkpoint {path} fails its CRC-32 check (stored {stored:#010x}, computed {actual:#010x}): "
                         "the file is corrupted", file=path)
    elif has_spore_header(body):
        raise _error(f"checkpoint {path} ({len(data)} bytes) was written by Spore, which always ends its files with "
                     "a CRC trailer, but this one has none: the file is truncated (or its end is damaged)", file=path,
                     hint="re-copy or re-save the file")
    elif crc_check:
        raise _error(f"checkpoint {path} has no CRC trailer, but crc_check=True: it was saved without "
                     "crc_check=True, or it is truncated", file=path)
    try:
        entries = decode(body)
    except FormatError as err:
        raise _error(f"checkpoint {path} ({len(data)} bytes) cannot be loaded: {err}", file=path,
                     hint="re-copy or re-save the file; Spore reads complete MindSpore/Spore .ckpt files "
                          "(not encrypted ones, not ONNX/MindIR/NumPy files)") from None
    if not entries:
        raise _error(f"checkpoint {path} holds no tensors", file=path)
    return entries


def _wanted(name: str, specify: tuple[str, ...] | None, filt: tuple[str, ...] | None,
            choice_func: Callable | None) -> bool:
    """MindSpore's selection: prefixes when given (choice_func is then ignored), else choice_func."""
    if specify is not None and not name.startswith(specify):
        return False
    if filt is not None and name.startswith(filt):
        return False
    if specify is None and filt is None and choice_func is not None:
        return bool(choice_func(name))
    return True


def load_checkpoint(ckpt_file_name: Any, net: Cell | None = None, strict_load: bool = False,
                    filter_prefix: Any = None, dec_key: bytes | None = None, dec_mode: str = "AES-GCM",
                    specify_prefix: Any = None, choice_func: Callable[[str], bool] | None = None,
                    crc_check: bool = False, remove_redundancy: bool = False,
                    format: str = "ckpt") -> dict[str, Parameter | str]:
    """Read a MindSpore `.ckpt` file into a dict name -> Parameter (str for saved strings).

    With ``net``, the parameters are also loaded into it (`load_param_into_net` with
    ``strict_load``). ``specify_prefix`` keeps names starting with a prefix, ``filter_prefix``
    drops them, and ``choice_func(name)`` decides when neither is given. The whole file is
    validated before anything is returned: a truncated, corrupted or foreign file raises
    `CheckpointError` naming the file and the problem. Only regular files are read, and only up
    to a size limit (this machine's RAM; ``SPORE_CKPT_MAX_BYTES`` or `max_load_bytes` change it).
    A CRC trailer is verified whenever present; a file Spore wrote must have one (so a cut
    between records is caught); ``crc_check=True`` requires one of any file. Encrypted files
    (``dec_key``) are refused.
    """
    fn = "load_checkpoint"
    _check_format(format, fn)
    specify = _check_prefix(specify_prefix, "specify_prefix")
    filt = _check_prefix(filter_prefix, "filter_prefix")
    _check_bool(strict_load, "strict_load", fn)
    _check_bool(crc_check, "crc_check", fn)
    _check_bool(remove_redundancy, "remove_redundancy", fn)
    _check_callable(choice_func, "choice_func", fn)
    if net is not None and not isinstance(net, Cell):
        raise TypeError(f"{fn}: 'net' must be a Cell or None, got {type(net).__name__}")
    _refuse_encryption(dec_key, "dec_key", dec_mode, "dec_mode", fn)
    path = _load_path(ckpt_file_name, format)
    _raise_async_failure(path)
    params: dict[str, Parameter | str] = {}
    for name, value in read_checkpoint(path, crc_check):
        if _wanted(name, specify, filt, choice_func):
            params[name] = value if isinstance(value, str) else Parameter(value, name=name)
    if not params:
        raise _error(f"{fn}: nothing of {path} is left after filter_prefix/specify_prefix/choice_func",
                     file=path, hint="check the prefixes or the choice_func")
    if net is not None:
        load_param_into_net(net, params, strict_load, remove_redundancy)
    return params


# --- loading into a net ----------------------------------------------------------------------

_FLOATS = {t for t in (mstype.float16, mstype.float32, mstype.float64, mstype.bfloat16) if t is not None}
_INTS = {mstype.int8, mstype.int16, mstype.int32, mstype.int64}


def _fit(param: Parameter, value: Parameter | str, strict_load: bool) -> tuple[np.ndarray | None, list]:
    """The array `param` would take from `value` (cast/reshaped as MindSpore allows), or the mismatches."""
    expected = f"{type_name(param._data.dtype)} {tuple(param.shape)}"
    if isinstance(value, str):
        return None, [ParamMismatch(param.name, "type", f"a tensor {expected}", f"the string {value[:40]!r}")]
    arr, problems = value._data, []
    shape = tuple(param.shape)
    if arr.shape != shape:
        # MindSpore's one exception: extra trailing 1-sized axes, e.g. (12, 2048, 1, 1) into (12, 2048).
        n = len(shape)
        if arr.ndim > n and arr.shape[:n] == shape and all(d == 1 for d in arr.shape[n:]):
            arr = arr.reshape(shape)
        else:
            problems.append(ParamMismatch(param.name, "shape", str(shape), str(arr.shape)))
    if arr.dtype != param._data.dtype:
        pair = {param.dtype, value.dtype}
        if not strict_load and (pair <= _FLOATS or pair <= _INTS):
            arr = arr.astype(param._data.dtype)
        else:
            problems.append(ParamMismatch(param.name, "dtype", type_name(param._data.dtype), type_name(arr.dtype)))
    return (None if problems else arr), problems


def load_param_into_net(net: Cell, parameter_dict: dict, strict_load: bool = False,
                        remove_redundancy: bool = False) -> tuple[list[str], list[str]]:
    """Copy `parameter_dict`'s values into the net's parameters of the same name.

    Returns ``(param_not_load, ckpt_not_load)``: the net's parameter names that got no value,
    and the dict's names that went into no parameter. With ``strict_load=False`` (MindSpore's
    default) a float value is cast to a float parameter's dtype (int to int likewise), and
    parameters still missing are matched to names that carry an extra common prefix (e.g.
    ``backbone.conv.weight`` -> ``conv.weight``); ``strict_load=True`` does neither. Any
    shape or dtype mismatch raises `CheckpointMismatchError` listing every one, before a single
    parameter is changed.
    """
    fn = "load_param_into_net"
    if not isinstance(net, Cell):
        raise TypeError(f"{fn}: 'net' must be a Cell, got {type(net).__name__}")
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"{fn}: 'parameter_dict' must be a dict, got {type(parameter_dict).__name__}")
    for key, value in parameter_dict.items():
        if not isinstance(key, str) or not isinstance(value, (Parameter, str)):
            raise TypeError(f"{fn}: 'parameter_dict' maps str names to Parameters (as load_checkpoint returns), "
                            f"got {type(key).__name__} -> {type(value).__name__}")
    _check_bool(strict_load, "strict_load", fn)
    _check_bool(remove_redundancy, "remove_redundancy", fn)
    if remove_redundancy:
        raise TypeError(f"{fn}: remove_redundancy=True only applies to parallel training; Spore runs stand-alone")
    params = [p for _, p in net.parameters_and_names()]
    plan: list[tuple[Parameter, np.ndarray]] = []
    mismatches: list[ParamMismatch] = []
    used: set[str] = set()

    def take(param: Parameter, key: str) -> None:
        arr, problems = _fit(param, parameter_dict[key], strict_load)
        used.add(key)
        mismatches.extend(problems)
        if arr is not None:
            plan.append((param, arr))

    param_not_load = []
    for p in params:
        if p.name in parameter_dict:
            take(p, p.name)
        else:
            param_not_load.append(p.name)
    if param_not_load and not strict_load:
        _take_prefixed(params, parameter_dict, param_not_load, used, take)
    if mismatches:
        convertible = strict_load and any(m.what == "dtype" for m in mismatches)
        raise CheckpointMismatchError(mismatches, loc=user_location(), hint=(
            "strict_load=False casts between float dtypes and between int dtypes" if convertible else
            "check that the checkpoint was saved from the same network definition"))
    for p, arr in plan:
        p.set_data(Tensor._wrap(arr))
    if param_not_load:
        logger.warning("%s: %d parameters of the net are not in the checkpoint and keep their values: %s",
                       fn, len(param_not_load), param_not_load)
    return param_not_load, [k for k in parameter_dict if k not in used]


def _take_prefixed(params: list[Parameter], parameter_dict: dict, param_not_load: list[str], used: set[str],
                   take: Callable[[Parameter, str], None]) -> None:
    """MindSpore's fallback for a renamed wrapper: find a prefix P with P + name in the dict for a
    missing parameter, then load every missing parameter whose P + name is there; repeat."""
    tried: set[str] = set()
    while param_not_load:
        prefix = next((key[:-len(name)] for name in param_not_load for key in parameter_dict
                       if key not in used and key != name and key.endswith(name)
                       and key[:-len(name)] not in tried), None)
        if prefix is None:
            return
        tried.add(prefix)
        for p in params:
            key = prefix + p.name
            if p.name in param_not_load and key in parameter_dict and key not in used:
                logger.warning("load_param_into_net: loading %s from %s (prefix %r)", p.name, key, prefix)
                take(p, key)
                param_not_load.remove(p.name)
