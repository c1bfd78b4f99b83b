"""Spore's data types, named and printed as MindSpore's (`ms.float32` prints as ``Float32``).

A DType wraps the NumPy dtype that stores it, so kernels never translate names. ``bfloat16`` comes
from ml_dtypes, the package JAX and TensorFlow use for it, so NumPy arrays can hold it. Importing
ml_dtypes takes about a second, most of `import spore`; so `bfloat16` is a DType from the start but
loads ml_dtypes only when its NumPy dtype is first needed (a bfloat16 tensor, a cast to it).
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np


class DType:
    """A tensor element type; compares equal to itself only and hashes by name."""

    __slots__ = ("name", "np", "is_float", "is_int", "is_complex", "itemsize")

    def __init__(self, name: str, np_dtype: np.dtype) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_float = self.np.kind == "f"
        self.is_int = self.np.kind in "iu"
        self.is_complex = self.np.kind == "c"  # complex64/128: neither float nor int (MindSpore's split)
        self.itemsize = self.np.itemsize

    def __repr__(self) -> str:
        return self.name[0].upper() + self.name[1:]

    __str__ = __repr__

    def __reduce__(self):  # pickles (e.g. into dataset workers) as the module-level singleton
        return (get_dtype, (self.name,))


class _BFloat16(DType):
    """bfloat16, whose NumPy dtype (from ml_dtypes) is loaded on first use of `.np`."""

    __slots__ = ("_np",)

    def __init__(self) -> None:  # noqa: D107  (no DType.__init__: `np` is the lazy property below)
        self.name, self._np = "bfloat16", None
        self.is_float, self.is_int, self.is_complex, self.itemsize = True, False, False, 2

    @property  # type: ignore[override]
    def np(self) -> np.dtype:
        if self._np is None:
            import ml_dtypes

            self._np = np.dtype(ml_dtypes.bfloat16)
            _BY_NP[self._np] = self
        return self._np


float16 = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
bool_ = DType("bool", np.bool_)
# complex numbers (issue 14): MindSpore's complex64/complex128, stored as NumPy's; `is_float` is False
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)
# bfloat16 is optional: ml_dtypes is a well-kept package but not a hard requirement
bfloat16 = _BFloat16() if importlib.util.find_spec("ml_dtypes") is not None else None

# MindSpore's aliases
half, single, double = float16, float32, float64
float_, int_ = float32, int64

_ALL = [t for t in (float16, float32, float64, int8, int16, int32, int64, uint8, bool_, bfloat16,
                    complex64, complex128) if t]
class _NpTable(dict):
    """NumPy dtype -> DType. bfloat16 joins when Spore first loads ml_dtypes, or on the first lookup
    of a bfloat16 NumPy dtype that ml_dtypes, imported by someone else, made (a user's array)."""

    def __missing__(self, dt: Any) -> DType:
        if bfloat16 is not None and getattr(dt, "name", None) == "bfloat16" and bfloat16.np == dt:
            return bfloat16
        raise KeyError(dt)

    def __contains__(self, dt: object) -> bool:
        try:
            self[dt]
        except (KeyError, TypeError):
            return False
        return True


_BY_NP = _NpTable({t.np: t for t in _ALL if t is not bfloat16})
_BY_NAME = {t.name: t for t in _ALL} | {"bool_": bool_, "float": float32, "int": int64}
number_type = tuple(t for t in _ALL if t is not bool_)
float_type = tuple(t for t in _ALL if t.is_float)
int_type = tuple(t for t in _ALL if t.is_int)
complex_type = (complex64, complex128)


def get_dtype(name: str) -> DType:
    """The DType called ``name`` (``"float32"``, ``"Float32"`` and ``"bool_"`` all work)."""
    key = name.lower()
    if key not in _BY_NAME:
        raise TypeError(f"unknown dtype {name!r}; known: {', '.join(sorted(_BY_NAME))}")
    return _BY_NAME[key]


def from_numpy(np_dtype: Any) -> DType:
    """The DType that stores ``np_dtype``; NumPy types Spore has no DType for are refused by name."""
    dt = np.dtype(np_dtype)
    try:
        return _BY_NP[dt]
    except KeyError:
        raise TypeError(
            f"NumPy dtype {dt} has no Spore dtype; supported: {', '.join(t.name for t in _ALL)}"
        ) from None


def to_dtype(obj: Any) -> DType:
    """Accept a DType, a NumPy dtype/type, a Python type or a name and return the DType."""
    if isinstance(obj, DType):
        return obj
    if obj is bool:
        return bool_
    if obj is float:
        return float32
    if obj is int:
        return int64
    if obj is complex:
        return complex64
    if isinstance(obj, str):
        return get_dtype(obj)
    try:
        return from_numpy(obj)
    except TypeError:
        raise TypeError(
            f"expected a Spore dtype such as ms.float32, got {obj!r} ({type(obj).__name__})"
        ) from None


def dtype_to_nptype(type_: DType) -> type:
    """MindSpore's name for "the NumPy scalar type of this dtype"."""
    return to_dtype(type_).np.type


def pytype_to_dtype(obj: type) -> DType:
    """MindSpore's name for mapping a Python or NumPy type to a DType."""
    return to_dtype(obj)


def dtype_to_pytype(type_: DType) -> type:
    """MindSpore's ``dtype_to_pytype``: the Python type of a dtype's values (bool, int, float or complex)."""
    dt = to_dtype(type_)
    return bool if dt is bool_ else (float if dt.is_float else complex if dt.is_complex else int)


def get_py_obj_dtype(obj: Any) -> DType:
    """MindSpore's ``get_py_obj_dtype``: the dtype of a Tensor, or of a Python/NumPy value or type."""
    dt = getattr(obj, "dtype", None)
    if isinstance(dt, DType):
        return dt
    if isinstance(obj, (bool, np.bool_)):
        return bool_
    if isinstance(obj, (int, np.integer)) and not isinstance(obj, bool):
        return int64
    if isinstance(obj, (float, np.floating)):
        return float32
    if isinstance(obj, (complex, np.complexfloating)):
        return complex64
    return to_dtype(obj)
