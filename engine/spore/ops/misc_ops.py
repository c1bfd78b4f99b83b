"""MindSpore's small framework-level ops (issue 14): dtype objects (`DType`, `DataType`,
`DtypeToEnum`, and `ops.Tensor`, which is `spore.Tensor`), `TensorToTuple`, `FloatStatus`,
`CompareAndBitpack`, the view ops (`CopyWithSlice`, `SelectView`, `TransposeView`,
`TransposeExtView`), bit-packed dropout (`DropoutGenMask` / `DropoutDoMask`), random draws
(`NonDeterministicInts`, `ParameterizedTruncatedNormal`, `choice_with_mask`), sparse helpers
(`Coalesce` / `coalesce`, `make_row_tensor`). Importing the module also installs the Tensor
internals of `spore.tensor_internals`.

Decisions where MindSpore leaves something to its kernels:
- `DropoutGenMask` packs one keep bit per element, little-endian within each byte (element k is
  bit ``k % 8`` of byte ``k // 8``), into ``ceil(n / 128) * 16`` bytes, the size MindSpore's
  kernels give (a whole number of 128-bit blocks); `DropoutDoMask` reads the same layout.
- `DtypeToEnum` numbers the dtypes with Spore's own ids (`DTYPE_ENUM`); MindSpore's C++ type ids
  are internal and nothing in the public API reads them.
- The random ops draw from Spore's global generator (`set_seed`) when both seeds are 0, else from
  a generator of their own seeded by (seed, seed2), as MindSpore's do; their host-side draws and
  the value-dependent output sizes of `Coalesce` have no Graph-mode form, so a compiled construct
  refuses them at the user's line.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import tensor_internals  # noqa: F401  (installs Tensor.data_ptr, storage, ... on Tensor)
from ..common import dtype as mstype
from ..common import seed as _seed
from ..errors import DTypeError, ShapeError
from ..tensor import Tensor
from . import functional as F
from .operation import Operation

__all__ = ["DType", "DtypeToEnum", "TensorToTuple", "FloatStatus", "CompareAndBitpack", "CopyWithSlice",
           "SelectView", "TransposeView", "TransposeExtView", "DropoutGenMask", "DropoutDoMask",
           "NonDeterministicInts", "ParameterizedTruncatedNormal", "Coalesce"]


def _tensor(op: str, name: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: {name} must be a Tensor, got {type(x).__name__}")
    return x


def _gen(seed: int, seed2: int) -> np.random.Generator | None:
    return None if seed == 0 and seed2 == 0 else np.random.default_rng([int(seed), int(seed2)])


def _seeds(op: str, seed: Any, seed2: Any) -> tuple[int, int]:
    for n, v in (("seed", seed), ("seed2", seed2)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"{op}: {n} must be a non-negative int, got {v!r}")
    return int(seed), int(seed2)


def _shape_arg(op: str, shape: Any) -> tuple[int, ...]:
    if isinstance(shape, Tensor):
        a = shape.asnumpy()
        if a.ndim != 1 or not np.issubdtype(a.dtype, np.integer):
            raise ShapeError(op, "a 1-D integer shape", f"shape {a.shape}, dtype {a.dtype}")
        shape = tuple(int(v) for v in a)
    elif isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                       for v in shape):
        raise TypeError(f"{op}: shape must be a tuple of ints or a 1-D integer Tensor, got {shape!r}")
    if any(v < 0 for v in shape):
        raise ValueError(f"{op}: shape must not have negative dimensions, got {tuple(shape)}")
    return tuple(int(v) for v in shape)


# --- dtype objects ---------------------------------------------------------------------------------
class DType(Operation):
    """``DType()(input_x)``: the dtype of `input_x` (a Tensor, or a Python number: its natural
    dtype, float32 for floats, int64 for ints, bool for bools)."""

    def construct(self, input_x: Any) -> Any:
        if isinstance(input_x, Tensor):
            return input_x.dtype
        if isinstance(input_x, bool):
            return mstype.bool_
        if isinstance(input_x, int):
            return mstype.int64
        if isinstance(input_x, float):
            return mstype.float32
        raise TypeError(f"DType: input_x must be a Tensor or a number, got {type(input_x).__name__}")


DTYPE_ENUM: dict[str, int] = {n: i for i, n in enumerate(
    ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
     "float64", "bfloat16", "complex64", "complex128"))}


class DtypeToEnum(Operation):
    """``DtypeToEnum()(op_name, arg_name, dtype)``: the integer id of `dtype` (`DTYPE_ENUM`), as
    MindSpore's argument handlers turn a dtype argument into an enum; a non-dtype raises a
    TypeError naming `op_name` and `arg_name`."""

    def __call__(self, op_name: str, arg_name: str, dtype: Any) -> int:
        return self.construct(op_name, arg_name, dtype)

    def construct(self, op_name: str, arg_name: str, dtype: Any) -> int:
        if not isinstance(dtype, mstype.DType):
            raise TypeError(f"For '{op_name}', the input '{arg_name}' should be a mindspore dtype, "
                            f"but got {dtype!r}")
        return DTYPE_ENUM[dtype.name if dtype.name != "bool_" else "bool"]


class DataType:
    """MindSpore's ``ops.DataType``: named (dtype, format) pairs for registering kernel
    information of custom ops (``DataType.F32_Default`` is ``("float32", "DefaultFormat")``).
    Spore's CPU kernels are written in the default (row-major) format; the other formats are kept
    for code that names them."""


_DT_NAMES = {"BOOL": "bool", "I8": "int8", "U8": "uint8", "I16": "int16", "U16": "uint16", "I32": "int32",
             "U32": "uint32", "I64": "int64", "U64": "uint64", "F16": "float16", "F32": "float32", "F64": "float64",
             "BF16": "bfloat16", "C64": "complex64", "C128": "complex128"}
_FORMATS = {"None": "", "Default": "DefaultFormat", "NCHW": "NCHW", "NHWC": "NHWC", "ND": "ND",
            "5HD": "NC1HWC0", "FracZ": "FRACTAL_Z", "FracNZ": "FRACTAL_NZ", "C1HWNCoC0": "C1HWNCoC0",
            "NDHWC": "NDHWC", "NCDHW": "NCDHW"}
DataType.None_None = ("", "")  # type: ignore[attr-defined]
for _p, _d in _DT_NAMES.items():
    for _f, _fmt in _FORMATS.items():
        setattr(DataType, f"{_p}_{_f}", (_d, _fmt))


class TensorToTuple(Operation):
    """``TensorToTuple()(input_x)``: a 1-D tensor as a tuple of Python scalars."""

    def construct(self, input_x: Tensor) -> tuple:
        x = _tensor("TensorToTuple", "input_x", input_x).asnumpy()
        if x.ndim != 1:
            raise ShapeError("TensorToTuple", "a 1-D input_x", f"shape {x.shape}")
        return tuple(x.tolist())


# --- overflow status / bit packing ----------------------------------------------------------------
class FloatStatus(Operation):
    """``FloatStatus()(x)``: a float32 tensor of shape (1,) holding 1.0 when `x` has a NaN or an
    infinity, else 0.0 (a float16/float32/float64 `x`)."""

    def construct(self, x: Tensor) -> Tensor:
        _tensor("FloatStatus", "x", x)
        if not x.dtype.is_float:
            raise DTypeError("FloatStatus", "a float16, float32 or float64 x", str(x.dtype))
        bad = F.logical_not(F.all(F.isfinite(x)))
        return F.reshape(F.cast(bad, mstype.float32), (1,))


class CompareAndBitpack(Operation):
    """``CompareAndBitpack()(x, threshold)``: ``x > threshold`` packed 8 to a byte along the last
    axis (the first of each 8 in the most significant bit, as TensorFlow's op): (..., 8n) -> uint8
    (..., n). `threshold` is a scalar of x's dtype."""

    def construct(self, x: Tensor, threshold: Any) -> Tensor:
        op = "CompareAndBitpack"
        _tensor(op, "x", x)
        if x.ndim < 1 or x.shape[-1] % 8:
            raise ShapeError(op, "an x whose last dimension is a multiple of 8", f"shape {tuple(x.shape)}")
        if isinstance(threshold, Tensor):
            if threshold.ndim != 0:
                raise ShapeError(op, "a scalar threshold", f"shape {tuple(threshold.shape)}")
            if threshold.dtype != x.dtype:
                raise DTypeError(op, f"a threshold of x's dtype {x.dtype}", str(threshold.dtype))
        bits = F.cast(F.greater(x, threshold), mstype.int32)
        bits = F.reshape(bits, tuple(x.shape[:-1]) + (x.shape[-1] // 8, 8))
        weights = Tensor(np.array([128, 64, 32, 16, 8, 4, 2, 1], np.int32))
        return F.cast(F.reduce_sum(F.mul(bits, weights), -1), mstype.uint8)


# --- view ops --------------------------------------------------------------------------------------
class CopyWithSlice(Operation):
    """``CopyWithSlice()(x, src)``: write `src` (broadcast) into `x` in place — the second half of
    ``x[slice] = v`` on a view; returns `x`."""

    def construct(self, x: Tensor, src: Any) -> Tensor:
        _tensor("CopyWithSlice", "x", x)
        F.setitem_(x, Ellipsis, src)
        return x


class SelectView(Operation):
    """``SelectView()(input, dim, index)``: the slice at `index` along `dim` (that dimension
    removed), as ``Tensor.select(dim, index)``."""

    def construct(self, input: Tensor, dim: int, index: int) -> Tensor:
        _tensor("SelectView", "input", input)
        if not -input.ndim <= dim < input.ndim:
            raise ValueError(f"SelectView: dim {dim} out of range for rank {input.ndim}")
        d = dim % input.ndim
        if not -input.shape[d] <= index < input.shape[d]:
            raise ValueError(f"SelectView: index {index} out of range for size {input.shape[d]} of dim {dim}")
        return F.getitem(input, (slice(None),) * d + (index,))


class TransposeView(Operation):
    """``TransposeView()(input, input_perm)``: `input` with its axes permuted (``ops.transpose``)."""

    def construct(self, input: Tensor, input_perm: Any) -> Tensor:
        return F.transpose(_tensor("TransposeView", "input", input), tuple(input_perm))


class TransposeExtView(Operation):
    """``TransposeExtView()(input, dim0, dim1)``: `input` with two axes swapped (``ops.swapaxes``)."""

    def construct(self, input: Tensor, dim0: int, dim1: int) -> Tensor:
        return F.swapaxes(_tensor("TransposeExtView", "input", input), dim0, dim1)


# --- bit-packed dropout ----------------------------------------------------------------------------
def _mask_bytes(n: int) -> int:
    return (n + 127) // 128 * 16


class DropoutGenMask(Operation):
    """``DropoutGenMask(Seed0=0, Seed1=0)(shape, keep_prob)``: a random keep mask for a tensor of
    `shape`, each element kept with probability `keep_prob`, packed one bit per element into a
    1-D uint8 tensor of ``ceil(n / 128) * 16`` bytes (see the module docstring for the layout)."""

    def __init__(self, Seed0: int = 0, Seed1: int = 0) -> None:  # noqa: N803  (MindSpore's names)
        self.Seed0, self.Seed1 = _seeds("DropoutGenMask", Seed0, Seed1)
        self._gen = _gen(self.Seed0, self.Seed1)

    def construct(self, shape: Any, keep_prob: Any) -> Tensor:
        op = "DropoutGenMask"
        dims = _shape_arg(op, shape)
        p = float(keep_prob.asnumpy()) if isinstance(keep_prob, Tensor) else float(keep_prob)
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{op}: keep_prob must be in [0, 1], got {p}")
        n = math.prod(dims)
        gen = self._gen if self._gen is not None else _seed.rng()
        keep = np.zeros(_mask_bytes(n) * 8, bool)
        keep[:n] = gen.random(n) < p
        return Tensor(np.packbits(keep, bitorder="little"))


class DropoutDoMask(Operation):
    """``DropoutDoMask()(input_x, mask, keep_prob)``: `input_x` where its bit in `mask` (from
    `DropoutGenMask`) is set, scaled by 1 / keep_prob, and 0 elsewhere; differentiable in input_x."""

    def construct(self, input_x: Tensor, mask: Tensor, keep_prob: Any) -> Tensor:
        op = "DropoutDoMask"
        _tensor(op, "input_x", input_x)
        _tensor(op, "mask", mask)
        if mask.dtype != mstype.uint8 or mask.ndim != 1:
            raise DTypeError(op, "a 1-D uint8 mask (from DropoutGenMask)", f"{mask.dtype} of rank {mask.ndim}")
        n = input_x.size
        if mask.shape[0] * 8 < n:
            raise ShapeError(op, f"a mask of at least {_mask_bytes(n)} bytes for {n} elements",
                             f"{mask.shape[0]} bytes")
        shifts = Tensor(np.arange(8, dtype=np.int32))
        bits = F.bitwise_and(F.bitwise_right_shift(F.reshape(F.cast(mask, mstype.int32), (-1, 1)), shifts), 1)
        bits = F.reshape(bits, (-1,))[:n]
        keep = F.cast(F.reshape(bits, tuple(input_x.shape)), input_x.dtype)
        return F.div(F.mul(input_x, keep), keep_prob)


# --- random draws ----------------------------------------------------------------------------------
class NonDeterministicInts(Operation):
    """``NonDeterministicInts(dtype=mindspore.int64)(shape)``: integers drawn uniformly over the
    whole range of `dtype` (int32 or int64), from the operating system's entropy (a fresh,
    unseeded generator per call, as the name says)."""

    def __init__(self, dtype: Any = mstype.int64) -> None:
        if dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"NonDeterministicInts: dtype must be mindspore.int32 or mindspore.int64, got {dtype!r}")
        self.dtype = dtype

    def construct(self, shape: Any) -> Tensor:
        dims = _shape_arg("NonDeterministicInts", shape)
        info = np.iinfo(self.dtype.np)
        return Tensor(np.random.default_rng().integers(info.min, info.max, dims, dtype=self.dtype.np,
                                                       endpoint=True))


class ParameterizedTruncatedNormal(Operation):
    """``ParameterizedTruncatedNormal(seed=0, seed2=0)(shape, mean, stdevs, min, max)``: for a
    shape (batch, ...), row i is drawn from the normal of mean[i], stdevs[i] truncated to
    [min[i], max[i]] (each parameter a scalar or of length batch), by inverting the truncated
    normal's CDF; output has mean's dtype (float16/32/64)."""

    def __init__(self, seed: int = 0, seed2: int = 0) -> None:
        self.seed, self.seed2 = _seeds("ParameterizedTruncatedNormal", seed, seed2)
        self._gen = _gen(self.seed, self.seed2)

    def construct(self, shape: Any, mean: Tensor, stdevs: Tensor, min: Tensor, max: Tensor) -> Tensor:
        from scipy.special import ndtr, ndtri

        op = "ParameterizedTruncatedNormal"
        dims = _shape_arg(op, shape)
        if len(dims) < 2:
            raise ShapeError(op, "a shape of at least 2 dimensions (batch, ...)", f"{dims}")
        ps = []
        for name, t in (("mean", mean), ("stdevs", stdevs), ("min", min), ("max", max)):
            a = _tensor(op, name, t).asnumpy()
            if not t.dtype.is_float or t.dtype != mean.dtype:
                raise DTypeError(op, f"a float {name} of mean's dtype", str(t.dtype))
            if a.ndim > 1 or (a.size not in (1, dims[0])):
                raise ShapeError(op, f"a scalar or length-{dims[0]} {name}", f"shape {a.shape}")
            ps.append(np.broadcast_to(a.reshape(-1).astype(np.float64), (dims[0],)))
        mu, sd, lo, hi = ps
        if np.any(sd <= 0) or np.any(lo >= hi):
            raise ValueError(f"{op}: stdevs must be positive and min < max for every batch row")
        gen = self._gen if self._gen is not None else _seed.rng()
        extra = (1,) * (len(dims) - 1)
        a = ndtr((lo - mu) / sd).reshape(-1, *extra)
        b = ndtr((hi - mu) / sd).reshape(-1, *extra)
        u = gen.random(dims)
        z = ndtri(a + u * (b - a))
        out = mu.reshape(-1, *extra) + sd.reshape(-1, *extra) * z
        out = np.clip(out, lo.reshape(-1, *extra), hi.reshape(-1, *extra))
        return Tensor(out.astype(mean.dtype.np))


def choice_with_mask(input_x: Tensor, count: int = 256, seed: int | None = None) -> tuple[Tensor, Tensor]:
    """`count` random coordinates of the True elements of the bool `input_x` with a validity mask
    (``ops.RandomChoiceWithMask(count, seed)``): (count, rank) int32 indices and a (count,) bool mask."""
    from .vision_nms_ops import RandomChoiceWithMask

    return RandomChoiceWithMask(count, 0 if seed is None else seed, 0)(input_x)


# --- sparse helpers --------------------------------------------------------------------------------
def coalesce(x_indices: Tensor, x_values: Tensor, x_shape: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """A COO tensor (`x_indices` [rank, N] int64, `x_values` [N], `x_shape` [rank] int64) with its
    duplicate coordinates summed and coordinates sorted row-major: (y_indices [rank, M], y_values
    [M], y_shape). The values' gradient flows through the sum."""
    op = "coalesce"
    idx = _tensor(op, "x_indices", x_indices).asnumpy()
    shp = _tensor(op, "x_shape", x_shape).asnumpy()
    _tensor(op, "x_values", x_values)
    if x_indices.dtype != mstype.int64 or x_shape.dtype != mstype.int64:
        raise DTypeError(op, "int64 x_indices and x_shape", f"{x_indices.dtype}, {x_shape.dtype}")
    if idx.ndim != 2 or shp.ndim != 1 or idx.shape[0] != shp.shape[0] or x_values.ndim != 1 \
            or x_values.shape[0] != idx.shape[1]:
        raise ShapeError(op, "x_indices [rank, N], x_values [N], x_shape [rank]",
                         f"{idx.shape}, {tuple(x_values.shape)}, {shp.shape}")
    if idx.size and (np.any(idx < 0) or np.any(idx >= shp[:, None])):
        raise ValueError(f"{op}: x_indices out of range for shape {shp.tolist()}")
    flat = np.ravel_multi_index(tuple(idx), tuple(int(s) for s in shp)) if idx.size else np.zeros(0, np.int64)
    uniq, inverse = np.unique(flat, return_inverse=True)
    vals = F.unsorted_segment_sum(x_values, Tensor(inverse.reshape(-1).astype(np.int32)), len(uniq))
    new_idx = np.stack(np.unravel_index(uniq, tuple(int(s) for s in shp)), 0) if len(uniq) \
        else np.zeros((len(shp), 0), np.int64)
    return Tensor(new_idx.astype(np.int64)), vals, Tensor(shp.copy())


class Coalesce(Operation):
    """``Coalesce()(x_indices, x_values, x_shape)``: see `coalesce`."""

    def construct(self, x_indices: Tensor, x_values: Tensor, x_shape: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        return coalesce(x_indices, x_values, x_shape)


def make_row_tensor(indices: Tensor, values: Tensor, dense_shape: Any) -> Any:
    """A `RowTensor`: rows `indices` of a dense tensor of `dense_shape`, holding `values`."""
    from ..sparse import RowTensor  # spore.sparse imports the tensor, which loads the ops: import on use

    return RowTensor(indices, values, dense_shape)
