"""Weight-only post-training quantization of a Cell (the converter's WEIGHT_QUANT, bitNum 8 or 4).

`quantize_weights(net, bit_num)` quantizes every Dense/Conv weight per output channel and writes the
dequantized values back into the float Parameters (dequantized once, "on the fly" at load), so the
network runs unchanged and its outputs show the real quantization error. The int values and scales
are returned and `save_quantized` writes them compactly (int8, or int4 packed two per byte) in an
`.npz`: that file is what is ~4x (int8) / ~7x (int4) smaller than the float32 checkpoint.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from ..errors import SporeError
from .core import dequantize_per_channel, pack_int4, quantize_per_channel, unpack_int4

_FORMAT = "spore.quant/1"


def _quantizable(net: Any) -> list[tuple[str, Any]]:
    from ..nn import Cell

    if not isinstance(net, Cell):
        raise SporeError(f"quant: expected an nn.Cell, got {type(net).__name__}")
    out = []
    for name, p in net.parameters_and_names():
        if name.endswith("weight") and p.ndim >= 2:  # Dense (out, in), Conv (out, in, kh, kw)
            out.append((name, p))
    return out


def quantize_weights(net: Any, bit_num: int = 8) -> dict[str, dict[str, Any]]:
    """Quantize `net`'s Dense/Conv weights in place; returns {name: {"q", "scale", "bit_num"}}."""
    from ..tensor import Tensor

    table: dict[str, dict[str, Any]] = {}
    for name, p in _quantizable(net):
        q, scale = quantize_per_channel(p.asnumpy(), bit_num)
        p.set_data(Tensor(dequantize_per_channel(q, scale)))
        table[name] = {"q": q, "scale": scale, "bit_num": bit_num}
    if not table:
        raise SporeError("quant: the network has no Dense/Conv weight to quantize")
    return table


def save_quantized(net: Any, table: dict[str, dict[str, Any]], path: str) -> str:
    """Write the quantized weights (packed) and the remaining float parameters to `path` (.npz).

    Everything goes in one byte blob with a JSON index (per-array npz headers would cost more than
    the weights of a small net).
    """
    index: list[dict[str, Any]] = []
    chunks: list[bytes] = []
    off = 0

    def put(arr: np.ndarray) -> tuple[int, int]:
        nonlocal off
        raw = np.ascontiguousarray(arr).tobytes()
        chunks.append(raw)
        off += len(raw)
        return off - len(raw), len(raw)

    for name, p in net.parameters_and_names():
        if name in table:
            ent = table[name]
            q = ent["q"]
            qo, qn = put(pack_int4(q) if ent["bit_num"] == 4 else q)
            so, sn = put(ent["scale"].astype(np.float32))
            index.append({"name": name, "bits": ent["bit_num"], "shape": list(q.shape), "q": [qo, qn], "s": [so, sn]})
        else:
            v = p.asnumpy()
            fo, fn = put(v)
            index.append({"name": name, "dtype": str(v.dtype), "shape": list(v.shape), "f": [fo, fn]})
    path = os.fspath(path)
    if not path.endswith(".npz"):
        path += ".npz"
    np.savez(path, format=np.array(_FORMAT), index=np.array(json.dumps(index)),
             blob=np.frombuffer(b"".join(chunks), np.uint8))
    return path


def load_quantized(net: Any, path: str) -> Any:
    """Load a `save_quantized` file into `net` (dequantizing weights); returns `net`."""
    from ..tensor import Tensor

    try:
        data = np.load(os.fspath(path), allow_pickle=False)
        fmt = str(data["format"]) if "format" in data.files else None
        index = json.loads(str(data["index"])) if fmt == _FORMAT else []
        blob = data["blob"].tobytes() if fmt == _FORMAT else b""
    except Exception as err:
        raise SporeError(f"quant: {path} is not a Spore quantized model file ({err})") from err
    if fmt != _FORMAT:
        raise SporeError(f"quant: {path} is not a Spore quantized model file (format {fmt!r})")
    entries = {e["name"]: e for e in index}
    for name, p in net.parameters_and_names():
        e = entries.get(name)
        if e is None:
            raise SporeError(f"quant: {path} has no entry for parameter {name!r}")
        shape = tuple(int(d) for d in e["shape"])
        if "q" in e:
            qo, qn = e["q"]
            so, sn = e["s"]
            raw = np.frombuffer(blob[qo:qo + qn], np.uint8 if e["bits"] == 4 else np.int8)
            q = unpack_int4(raw, shape) if e["bits"] == 4 else raw.reshape(shape)
            p.set_data(Tensor(dequantize_per_channel(q, np.frombuffer(blob[so:so + sn], np.float32))))
        else:
            fo, fn = e["f"]
            p.set_data(Tensor(np.frombuffer(blob[fo:fo + fn], np.dtype(e["dtype"])).reshape(shape).copy()))
    return net
