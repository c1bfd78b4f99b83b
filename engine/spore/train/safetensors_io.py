"""The safetensors checkpoint format, read and written by Spore itself (no new dependency), and
MindSpore's converters `ckpt_to_safetensors` / `safetensors_to_ckpt`.

A safetensors file is: an 8-byte little-endian header length N, N bytes of JSON mapping each tensor
name to ``{"dtype", "shape", "data_offsets": [begin, end]}`` (offsets into the byte buffer after the
header; an optional ``"__metadata__"`` maps str to str), then the raw little-endian, C-order tensor
bytes. The reader checks every field (known dtype, offsets inside the buffer, sizes matching the
shape, no overlapping or out-of-order ranges) and refuses a bad file naming it, so a truncated or
corrupted file never yields garbage parameters.
"""

from __future__ import annotations

import json
import os
import re
import struct
from collections.abc import Callable
from typing import Any

import numpy as np

_MAX_HEADER = 100 * 1024 * 1024  # the safetensors specification's bound on the JSON header

_NP_OF = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1",
          "U64": "<u8", "U32": "<u4", "U16": "<u2", "U8": "u1", "BOOL": "?"}
_CODE_OF = {(np.dtype(v).kind, np.dtype(v).itemsize): k for k, v in _NP_OF.items()}


class SafetensorsError(ValueError):
    """A safetensors file that is malformed, or data that cannot be written as one."""


def _code(arr: np.ndarray, name: str) -> str:
    if arr.dtype.name == "bfloat16":
        return "BF16"
    code = _CODE_OF.get((arr.dtype.kind, arr.dtype.itemsize)) if arr.dtype.kind in "fiub" else None
    if code is None:
        raise SafetensorsError(f"safetensors: tensor {name!r} has dtype {arr.dtype}, which safetensors cannot hold")
    return code


def save_safetensors(tensors: dict[str, np.ndarray], path: str, metadata: dict[str, str] | None = None) -> None:
    """Write `tensors` (name -> array) to `path` in the safetensors layout (tensors sorted by name)."""
    header: dict[str, Any] = {}
    if metadata:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise SafetensorsError("safetensors: metadata must map str to str")
        header["__metadata__"] = dict(metadata)
    blobs: list[bytes] = []
    offset = 0
    for name in sorted(tensors):
        if not isinstance(name, str) or name == "__metadata__":
            raise SafetensorsError(f"safetensors: invalid tensor name {name!r}")
        arr = np.asarray(tensors[name])
        code = _code(arr, name)
        raw = np.ascontiguousarray(arr if code == "BF16" else arr.astype(_NP_OF[code])).tobytes()
        header[name] = {"dtype": code, "shape": list(arr.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # pad so the buffer starts 8-byte aligned, as the reference writer does
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for raw in blobs:
            f.write(raw)


def load_safetensors(path: str) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Read a safetensors file: (name -> array in file order, metadata). Refuses malformed files."""
    with open(path, "rb") as f:
        data = f.read()

    def bad(why: str) -> SafetensorsError:
        return SafetensorsError(f"safetensors: {path!r} is not a valid safetensors file: {why}")

    if len(data) < 8:
        raise bad("shorter than the 8-byte header length")
    (n,) = struct.unpack("<Q", data[:8])
    if n > _MAX_HEADER or 8 + n > len(data):
        raise bad(f"header length {n} exceeds the file ({len(data)} bytes)")
    try:
        header = json.loads(data[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise bad(f"the header is not JSON ({e})") from None
    if not isinstance(header, dict):
        raise bad("the header is not a JSON object")
    meta = header.pop("__metadata__", None) or {}
    if not isinstance(meta, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in meta.items()):
        raise bad("__metadata__ must map str to str")
    buf = memoryview(data)[8 + n:]
    entries = []
    for name, info in header.items():
        if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
            raise bad(f"entry {name!r} must have exactly dtype, shape and data_offsets")
        code, shape, offs = info["dtype"], info["shape"], info["data_offsets"]
        if code != "BF16" and code not in _NP_OF:
            raise bad(f"entry {name!r} has unknown dtype {code!r}")
        if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                                                  for d in shape):
            raise bad(f"entry {name!r} has an invalid shape {shape!r}")
        if (not isinstance(offs, list) or len(offs) != 2
                or not all(isinstance(o, int) and not isinstance(o, bool) for o in offs)
                or not 0 <= offs[0] <= offs[1] <= len(buf)):
            raise bad(f"entry {name!r} has data_offsets {offs!r} outside the {len(buf)}-byte buffer")
        entries.append((offs[0], offs[1], name, code, shape))
    entries.sort()
    end = 0
    for begin, stop, name, _, _ in entries:
        if begin != end:
            raise bad(f"entry {name!r} starts at {begin}, expected {end} (gap or overlap)")
        end = stop
    if end != len(buf):
        raise bad(f"the tensors cover {end} bytes but the buffer has {len(buf)}")
    out: dict[str, np.ndarray] = {}
    for begin, stop, name, code, shape in entries:
        if code == "BF16":
            from ..common.dtype import bfloat16

            dt = bfloat16.np
        else:
            dt = np.dtype(_NP_OF[code])
        count = int(np.prod(shape, dtype=np.int64))
        if count * dt.itemsize != stop - begin:
            raise bad(f"entry {name!r}: shape {shape} of {code} needs {count * dt.itemsize} bytes, "
                      f"data_offsets give {stop - begin}")
        out[name] = np.frombuffer(buf[begin:stop], dtype=dt).reshape(shape).astype(dt.newbyteorder("="))
    return out, meta


def _sources(file_path: Any, suffix: str, file_name_regex: Any, fn: str) -> list[str]:
    if not isinstance(file_path, str):
        raise TypeError(f"{fn}: file_path must be a str, got {type(file_path).__name__}")
    if file_name_regex is not None and not isinstance(file_name_regex, str):
        raise TypeError(f"{fn}: file_name_regex must be a str or None, got {type(file_name_regex).__name__}")
    if os.path.isfile(file_path):
        if not file_path.endswith(suffix):
            raise ValueError(f"{fn}: file_path must be a '{suffix}' file or a directory, got {file_path!r}")
        return [file_path]
    if not os.path.isdir(file_path):
        raise FileNotFoundError(f"{fn}: file_path {file_path!r} does not exist")
    names = sorted(n for n in os.listdir(file_path) if n.endswith(suffix)
                   and (file_name_regex is None or re.search(file_name_regex, n)))
    return [os.path.join(file_path, n) for n in names]


def _convert(file_path: Any, save_path: Any, name_map: Any, file_name_regex: Any, processes_num: Any, fn: str,
             src_suffix: str, dst_suffix: str, read: Callable[[str], dict[str, np.ndarray]],
             write: Callable[[dict[str, np.ndarray], str], None]) -> None:
    if name_map is not None and not (isinstance(name_map, dict)
                                     and all(isinstance(k, str) and isinstance(v, str) for k, v in name_map.items())):
        raise TypeError(f"{fn}: name_map must be a dict of str to str or None")
    if not isinstance(processes_num, int) or isinstance(processes_num, bool) or processes_num < 1:
        raise ValueError(f"{fn}: processes_num must be a positive int, got {processes_num!r}")
    if save_path is not None and not isinstance(save_path, str):
        raise TypeError(f"{fn}: save_path must be a str or None, got {type(save_path).__name__}")
    sources = _sources(file_path, src_suffix, file_name_regex, fn)
    for src in sources:
        out_dir = save_path if save_path is not None else os.path.dirname(src)
        os.makedirs(out_dir or ".", exist_ok=True)
        tensors = read(src)
        if name_map:
            tensors = {name_map.get(k, k): v for k, v in tensors.items()}
        stem = os.path.basename(src)[: -len(src_suffix)]
        write(tensors, os.path.join(out_dir, stem + dst_suffix))


def _read_ckpt(path: str) -> dict[str, np.ndarray]:
    from .checkpoint import load_checkpoint

    return {k: np.asarray(v.asnumpy()) for k, v in load_checkpoint(path).items()}


def _write_ckpt(tensors: dict[str, np.ndarray], path: str) -> None:
    from ..tensor import Tensor
    from .checkpoint import save_checkpoint

    save_checkpoint([{"name": k, "data": Tensor(v)} for k, v in tensors.items()], path)


def ckpt_to_safetensors(file_path: str, save_path: str | None = None, name_map: dict[str, str] | None = None,
                        file_name_regex: str | None = None, processes_num: int = 1) -> None:
    """Convert a ``.ckpt`` file, or every ``.ckpt`` in a directory (filtered by `file_name_regex`),
    to ``.safetensors`` files of the same stem in `save_path` (default: beside each source);
    `name_map` renames parameters. `processes_num` is accepted; Spore converts in one process."""
    _convert(file_path, save_path, name_map, file_name_regex, processes_num, "ckpt_to_safetensors",
             ".ckpt", ".safetensors", _read_ckpt, save_safetensors)


def safetensors_to_ckpt(file_path: str, save_path: str | None = None, name_map: dict[str, str] | None = None,
                        file_name_regex: str | None = None, processes_num: int = 1) -> None:
    """Convert a ``.safetensors`` file, or every one in a directory, to MindSpore ``.ckpt`` files of
    the same stem (the reverse of `ckpt_to_safetensors`, same arguments)."""
    _convert(file_path, save_path, name_map, file_name_regex, processes_num, "safetensors_to_ckpt",
             ".safetensors", ".ckpt", lambda p: load_safetensors(p)[0], _write_ckpt)
