"""ONNX protobuf messages without `import onnx`.

Why: `import onnx` pulls in onnx.helper -> ml_dtypes, measured here at 0.56-0.8 s — ten times the
rest of spore.lite's start-up. The generated `onnx_ml_pb2` module only needs `google.protobuf`, so
it is loaded straight from the installed onnx package's folder (found with `find_spec`, which does
not run onnx's __init__). The descriptors are the same file onnx registers, so importing onnx later
in the same process still works (tests do both).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any

import numpy as np

_MOD = "spore.lite._onnx_ml_pb2"


def pb2() -> Any:
    """The `onnx_ml_pb2` module (ModelProto, TensorProto, AttributeProto...)."""
    if "onnx.onnx_ml_pb2" in sys.modules:
        return sys.modules["onnx.onnx_ml_pb2"]
    if _MOD in sys.modules:
        return sys.modules[_MOD]
    spec = importlib.util.find_spec("onnx")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("spore.lite needs the `onnx` package installed (for its protobuf schema)")
    path = os.path.join(list(spec.submodule_search_locations)[0], "onnx_ml_pb2.py")
    mspec = importlib.util.spec_from_file_location(_MOD, path)
    assert mspec is not None and mspec.loader is not None
    mod = importlib.util.module_from_spec(mspec)
    sys.modules[_MOD] = mod
    mspec.loader.exec_module(mod)
    return mod


# TensorProto.DataType -> NumPy
DTYPES: dict[int, np.dtype] = {1: np.dtype(np.float32), 2: np.dtype(np.uint8), 3: np.dtype(np.int8),
                               4: np.dtype(np.uint16), 5: np.dtype(np.int16), 6: np.dtype(np.int32),
                               7: np.dtype(np.int64), 9: np.dtype(np.bool_), 10: np.dtype(np.float16),
                               11: np.dtype(np.float64), 12: np.dtype(np.uint32), 13: np.dtype(np.uint64)}


def np_dtype(elem_type: int, what: str) -> np.dtype:
    try:
        return DTYPES[elem_type]
    except KeyError:
        raise ValueError(f"{what}: ONNX element type {elem_type} is not supported by spore.lite") from None


def to_array(t: Any) -> np.ndarray:
    """A TensorProto's values as a NumPy array (raw_data or the typed repeated fields)."""
    dt = np_dtype(t.data_type, f"tensor {t.name!r}")
    shape = tuple(int(d) for d in t.dims)
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if n > 2 ** 31:
        raise ValueError(f"tensor {t.name!r}: {n} elements is too large")
    if t.raw_data:
        a = np.frombuffer(t.raw_data, dtype=dt.newbyteorder("<"))
    elif dt == np.float32:
        a = np.asarray(t.float_data, np.float32)
    elif dt == np.float64:
        a = np.asarray(t.double_data, np.float64)
    elif dt == np.int64:
        a = np.asarray(t.int64_data, np.int64)
    elif dt in (np.uint32, np.uint64):
        a = np.asarray(t.uint64_data, np.uint64).astype(dt)
    elif dt == np.float16:
        a = np.asarray(t.int32_data, np.uint16).view(np.float16)
    else:  # int8/uint8/int16/uint16/int32/bool travel in int32_data
        a = np.asarray(t.int32_data, np.int32).astype(dt)
    if a.size != n:
        raise ValueError(f"tensor {t.name!r}: {a.size} values for shape {list(shape)}")
    return a.astype(dt, copy=True).reshape(shape)


def attr_value(a: Any) -> Any:
    """An AttributeProto's value (graphs are returned as the GraphProto)."""
    k = a.type
    if k == 1:
        return float(a.f)
    if k == 2:
        return int(a.i)
    if k == 3:
        return a.s.decode()
    if k == 4:
        return to_array(a.t)
    if k == 5:
        return a.g
    if k == 6:
        return [float(v) for v in a.floats]
    if k == 7:
        return [int(v) for v in a.ints]
    if k == 8:
        return [s.decode() for s in a.strings]
    raise ValueError(f"attribute {a.name!r}: type {k} is not supported by spore.lite")
