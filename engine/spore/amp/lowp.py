"""Low-precision matmul kernels for mixed precision on CPU: bfloat16 through oneDNN, float16 in float32.

Why: NumPy has no BLAS for float16 or bfloat16 (ml_dtypes), so an O2 network's matmuls ran in
NumPy's generic loops, several times slower than O0 - and NumPy's matmul on ml_dtypes' bfloat16
returns *float32*, which broke MatMul's dtype rule (the O2-bf16 "expected inputs of one dtype"
error in the backward). `spore.ops.linalg.MatMul` / `BatchMatMul` route float16 and bfloat16 here:

- bfloat16 on a CPU with AVX512-BF16 or AMX: oneDNN's bf16 matmul (float32 accumulation), result
  rounded once to bfloat16 for storage;
- bfloat16 on a CPU without either (said once, in a warning): float32 compute, bf16 storage rounding;
- float16 (no CPU here has fp16 GEMM units Spore uses): float32 compute through sgemm, rounded once
  to float16 - so O2-fp16 is never slower than O0 by more than the casts.

Convolutions (spore.ops.conv_pool): bfloat16 on a bf16-capable CPU runs oneDNN's bf16 forward,
backward-data and backward-weights convolutions (`conv2d`, `conv2d_backward_data`,
`conv2d_backward_weights` below; float32 accumulation, each output rounded once to bfloat16);
float16, and bfloat16 without bf16 hardware, compute in float32 on the rounded operands and round
the result (`_via_f32` there, using `cast` below).

ReLU and its gradient on float16/bfloat16 run on the bit patterns in C++ (`relu`, `relu_grad`):
NumPy's loops for these dtypes are scalar (2.4 ms for one 32x16x32x32 activation, more than the
convolution before it); both are exact in any float format, so the bits are the float32 kernels'.

Either way the result is what a float32 GEMM of the (already rounded) low-precision operands gives,
rounded once to the storage dtype: only the summation order differs from a float32 oracle.
"""

from __future__ import annotations

import warnings
import weakref
from typing import Any

import numpy as np

__all__ = ["bf16_native", "matmul", "batch_matmul", "is_bf16", "describe", "cast", "conv2d", "conv2d_backward_data",
           "conv2d_backward_weights", "relu", "relu_grad", "use_bf16_conv", "is_lowp", "binary_via_f32",
           "sum_via_f32", "bias_grad", "reference_paths", "fast_paths", "twin", "widen", "narrow", "cast_op",
           "f32_product", "dense_backward16"]

_NATIVE: list[bool] = []

# Whether O2's fast paths run (fused kernels, reused conversions); `reference_paths()` turns them off.
_FAST = [True]


def fast_paths() -> bool:
    """Whether mixed precision's fast paths are on (the default): fused C++ kernels for 16-bit bias
    adds and bias gradients, float32 twins of float16 arrays, 16-bit gradients handed to the fused
    optimizers. Off (`reference_paths`), every step converts with plain casts as it did before them;
    both give the same bits, which tests/amp/test_fast_paths.py checks."""
    return _FAST[0]


class reference_paths:
    """Context manager: run mixed precision without its fast paths (see `fast_paths`), to check that
    they change no bit, or to time what they save. Build and run the network inside it: Graph mode
    decides some paths when it compiles."""

    def __enter__(self) -> reference_paths:
        self._saved = _FAST[0]
        _FAST[0] = False
        return self

    def __exit__(self, *exc: Any) -> None:
        _FAST[0] = self._saved

# Below this many multiply-adds a GEMM is cheaper in NumPy's float32 matmul than through a kernel call.
_SMALL = 4096


_BF16: list[np.dtype] = []


def is_bf16(dt: np.dtype) -> bool:
    """Whether `dt` is ml_dtypes' bfloat16 (a NumPy 'V' kind dtype named bfloat16).

    Every low-precision op asks this several times, and NumPy's `dtype.name` is a Python property
    costing ~5 us; once the bfloat16 dtype has been seen the check is an identity compare."""
    if _BF16:
        return dt is _BF16[0] or (dt.kind == "V" and dt == _BF16[0])
    if dt.kind == "V" and dt.name == "bfloat16":
        _BF16.append(dt)
        return True
    return False


def bf16_native() -> bool:
    """Whether oneDNN runs bf16 GEMMs in hardware here (AVX512-BF16 or AMX); warns once if not."""
    if not _NATIVE:
        from .. import _kernels

        isa = _kernels.cpu_isa()
        _NATIVE.append(isa in ("avx512_core_bf16", "avx512_core_amx"))
        if not _NATIVE[0]:
            warnings.warn(f"this CPU has no bf16 arithmetic (oneDNN ISA {isa}): bfloat16 matmuls compute in "
                          "float32 and round the result to bfloat16", RuntimeWarning, stacklevel=3)
    return _NATIVE[0]


_KMOD: list[Any] = []
_F32 = np.dtype(np.float32)
_F16 = np.dtype(np.float16)


def _k() -> Any:
    """spore._kernels, imported once (an import statement costs ~0.5 us per call on these paths)."""
    if not _KMOD:
        from .. import _kernels

        _KMOD.append(_kernels)
    return _KMOD[0]


def cast(a: np.ndarray, dt: np.dtype) -> np.ndarray:
    """`a.astype(dt)`, with float32 <-> bfloat16 / float16 through Spore's kernels (2-3x faster than
    ml_dtypes' loops, ~10x NumPy's scalar float16 casts; the same bits: round to nearest even, NaN
    stays NaN). Other pairs use NumPy.

    A non-contiguous view cannot be reinterpreted as uint16 in place, so it is copied first (the
    float32 side is made contiguous by the kernel's argument conversion)."""
    if type(dt) is not np.dtype:
        dt = np.dtype(dt)
    if a.size >= 256:  # the cvt_* kernels (engine/csrc/lowp.cpp): a plain loop below 256K elements
        src = a.dtype
        if src is _F32 or src == _F32:
            if is_bf16(dt):
                return _k().cvt_f32_to_bf16(a).view(dt)
            if dt == _F16:
                return _k().cvt_f32_to_f16(a).view(_F16)
        elif dt is _F32 or dt == _F32:
            if is_bf16(src):
                return _k().cvt_bf16_to_f32(np.ascontiguousarray(a).view(np.uint16))
            if src == _F16:
                return _k().cvt_f16_to_f32(np.ascontiguousarray(a).view(np.uint16))
    return a.astype(dt)


# ---------------------------------------------------------------------------------------------
# Float32 twins. Float16 arrays feed float32 compute here (GEMMs, convolutions, pooling: this CPU
# has no float16 arithmetic), and most are read that way twice: a weight by the forward GEMM and
# the input-gradient GEMM, an activation by the next layer's forward and weight-gradient GEMMs, a
# masked gradient by both gradient GEMMs. The first conversion of a large float16 array that
# Spore's own kernels made is kept beside it (its twin), later readers take it, and a cast back to
# float32 takes it over as its result. A conversion written in the producing kernel's own pass was
# measured no cheaper than a separate one (both are bound by writing the 4 bytes per element), so
# twins are made lazily, by the first reader: an array nobody converts costs nothing.
#
# A twin is only valid while its 16-bit array keeps its values, so such arrays are made read-only
# when they are made (`_mark`): an in-place write raises instead of leaving a stale twin (the
# executor's in-place reuse already skips read-only buffers), and an array Spore did not make (a
# user's, a Parameter's) never gets a twin. Entries die with their array (a weak reference).

_TWINS: dict[int, list] = {}  # id(memory owner) -> [weakref to it, 16-bit dtype, twin or None]
# Elements from which keeping a conversion pays: measured, the bookkeeping (~10 us per array in a
# step: marks, table lookups) ate what SimpleCNN's 524K-element activations saved (each is read
# once in float32); the GEMM net's 1M-16M-element weights and activations gain.
_TWIN_MIN = 1 << 20


def _twin_wanted(dt: np.dtype) -> bool:
    """Whether arrays of dtype `dt` get twins: float16 (and bfloat16 where GEMMs run in float32)."""
    if not _FAST[0]:
        return False
    if dt is _F16 or dt == _F16:
        return True
    return is_bf16(dt) and not bf16_native()


def _owner(a: np.ndarray) -> np.ndarray:
    base = a.base
    return a if base is None else base


def _mark(h: np.ndarray) -> np.ndarray:
    """A fresh 16-bit kernel result (or its dtype view) that may get a twin: large, of a format
    computed in float32, made read-only (and its memory's owner, so every view is). Returns `h`."""
    if h.size >= _TWIN_MIN and _twin_wanted(h.dtype):
        owner = _owner(h)
        h.flags.writeable = False
        owner.flags.writeable = False
        key = id(owner)
        _TWINS[key] = [weakref.ref(owner, lambda _r, key=key: _TWINS.pop(key, None)), h.dtype, None]
    return h


def _entry(a: np.ndarray) -> list | None:
    """The table entry of a 16-bit array that reads its marked memory whole, in order and as the
    marked dtype (the array itself, a reshape, a transposed view's `.T`; not a slice or a transpose)."""
    owner = _owner(a)
    e = _TWINS.get(id(owner))
    if e is None or e[0]() is not owner or e[1] != a.dtype or a.size != owner.size or not a.flags.c_contiguous:
        return None
    return e


def twin(a: np.ndarray) -> np.ndarray | None:
    """The float32 twin of the 16-bit array `a` (read-only, in a's shape), or None."""
    e = _entry(a) if _TWINS else None
    if e is None or e[2] is None:
        return None
    t = e[2]
    return t if t.shape == a.shape else t.reshape(a.shape)


def widen(a: np.ndarray) -> np.ndarray:
    """float32 values of a 16-bit array for a kernel that only reads them (read-only): its twin,
    made now by this first reader if it is a marked array, else a plain conversion."""
    if _FAST[0] and _TWINS:
        e = _entry(a)
        if e is not None:
            if e[2] is None:
                t = cast(a, _F32)
                t.flags.writeable = False
                e[2] = t
            t = e[2]
            return t if t.shape == a.shape else t.reshape(a.shape)
    return cast(a, _F32)


def narrow(c: np.ndarray, dt: np.dtype) -> np.ndarray:
    """A float32 kernel result rounded to the 16-bit `dt` (marked for a twin when large)."""
    return _mark(cast(c, dt))


def cast_op(a: np.ndarray, dt: np.dtype) -> np.ndarray:
    """The Cast primitive's kernel between float32 and float16/bfloat16: `cast`, except that with
    the fast paths a large 16-bit result is marked for a twin, and a cast back to float32 of an
    array whose twin exists takes the twin over as its result (no pass at all: the twin leaves the
    table and becomes an ordinary writeable array)."""
    if _FAST[0] and a.size >= _TWIN_MIN:
        if dt == _F32:
            e = _entry(a) if _TWINS else None
            if e is not None and e[2] is not None:
                t, e[2] = e[2], None
                t.flags.writeable = True
                return t if t.shape == a.shape else t.reshape(a.shape)
        elif a.dtype == _F32:
            return _mark(cast(a, dt))
    return cast(a, dt)


def _c(a: np.ndarray, trans: bool) -> tuple[np.ndarray, bool]:
    """`a` C-contiguous without copying when it is a transposed view (the flag flips instead)."""
    if a.flags.c_contiguous:
        return a, trans
    if a.T.flags.c_contiguous:
        return a.T, not trans
    return np.ascontiguousarray(a), trans


def _check(op: str, a: np.ndarray, b: np.ndarray) -> np.dtype:
    dt = a.dtype
    if dt != b.dtype or dt.itemsize != 2 or not (dt == np.float16 or is_bf16(dt)):
        raise TypeError(f"{op}: float16 or bfloat16 inputs of one dtype expected, got {a.dtype} and {b.dtype}")
    return dt


def matmul(a: np.ndarray, b: np.ndarray, transpose_a: bool = False, transpose_b: bool = False) -> np.ndarray:
    """op(a) @ op(b) for 2-D float16/bfloat16 arrays of one dtype, returned in that dtype."""
    dt = _check("MatMul", a, b)
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(f"MatMul: 2-D inputs expected, got shapes {a.shape} and {b.shape}")
    m, k = (a.shape[1], a.shape[0]) if transpose_a else a.shape
    n = b.shape[0] if transpose_b else b.shape[1]
    if m * n * k < _SMALL:
        a32 = a.astype(np.float32)
        b32 = b.astype(np.float32)
        return np.matmul(a32.T if transpose_a else a32, b32.T if transpose_b else b32).astype(dt)
    if _FAST[0] and not (is_bf16(dt) and bf16_native()) and not (_TWINS and (_entry(a) or _entry(b))):
        a, transpose_a = _c(a, transpose_a)  # no twins to read: one C++ call widens, multiplies, rounds
        b, transpose_b = _c(b, transpose_b)
        return _mark(_k().sgemm16(a.view(np.uint16), b.view(np.uint16), transpose_a, transpose_b, is_bf16(dt),
                                  True).view(dt))
    c = f32_product(a, b, transpose_a, transpose_b)
    if c is not None:
        return narrow(c, dt) if _FAST[0] else cast(c, dt)
    a, transpose_a = _c(a, transpose_a)
    b, transpose_b = _c(b, transpose_b)
    return _k().bf16_matmul_bf16(a.view(np.uint16), b.view(np.uint16), transpose_a, transpose_b).view(dt)


def f32_product(a: np.ndarray, b: np.ndarray, transpose_a: bool = False,
                transpose_b: bool = False) -> np.ndarray | None:
    """The unrounded float32 product that `matmul` rounds to 16 bits (sgemm on the operands' float32
    values: float16, and bfloat16 without bf16 GEMMs), or None where `matmul` computes otherwise
    (oneDNN's bf16 kernel, NumPy for tiny products). Checked operands assumed (2-D, one dtype).
    AmpDense fuses the rounding with what follows it (the bias add, the cast of a weight
    gradient back to float32), with `matmul`'s bits."""
    m, k = (a.shape[1], a.shape[0]) if transpose_a else a.shape
    n = b.shape[0] if transpose_b else b.shape[1]
    dt = a.dtype
    if m * n * k < _SMALL or (is_bf16(dt) and bf16_native()):
        return None
    a, transpose_a = _c(a, transpose_a)
    b, transpose_b = _c(b, transpose_b)
    if _FAST[0]:
        if _TWINS and (_entry(a) or _entry(b)):  # the operands' float32 twins (made here by the first reader)
            return _k().sgemm(widen(a), widen(b), transpose_a, transpose_b)
        return _k().sgemm16(a.view(np.uint16), b.view(np.uint16), transpose_a, transpose_b, is_bf16(dt), False)
    return _k().sgemm(cast(a, np.float32), cast(b, np.float32), transpose_a, transpose_b)


def dense16(x: np.ndarray, w: np.ndarray, b: np.ndarray, transpose_a: bool = False, transpose_b: bool = True,
            relu: bool = False) -> np.ndarray | None:
    """op(x) @ op(w) + b, then ReLU if `relu`, for 2-D 16-bit x and w and a bias row b of one dtype:
    the float32 product, then its rounding, the bias add and the ReLU in one pass (`round_add16`),
    with the bits of `matmul`, Add's and ReLU's kernels run one after another. None where those
    would compute otherwise (a product NumPy or oneDNN's bf16 kernel makes, a bias add below Add's
    C++ size): the caller runs the ops one by one. Shared by PyNative's AmpDense and Graph mode's
    FusedDense, so both modes take the same path."""
    dt = x.dtype
    if (not _FAST[0] or x.ndim != 2 or w.ndim != 2 or w.dtype != dt or b.dtype != dt or b.ndim != 1
            or not is_lowp(dt)):
        return None
    m = x.shape[1] if transpose_a else x.shape[0]
    n = w.shape[0] if transpose_b else w.shape[1]
    if b.shape[0] != n or m * n + n < 2048:  # (Add takes add16 from 2048 elements)
        return None
    c = f32_product(x, w, transpose_a, transpose_b)
    if c is None:
        return None
    return _mark(_k().round_add16(c, _bits(b), is_bf16(dt), relu).view(dt))


def _f32_or_bits(a: np.ndarray) -> np.ndarray:
    """A 16-bit operand for a C++ kernel that computes on float32 values: its twin when it has one (no
    widening pass), else its bits."""
    t = twin(a) if _TWINS else None
    return t if t is not None else _bits(a)


def dense_backward16(g: np.ndarray, x: np.ndarray, w: np.ndarray | None, y: np.ndarray | None,
                     want: tuple[bool, bool] = (True, True),
                     wide: tuple[bool, bool] = (False, False)) -> tuple | None:
    """A 16-bit Dense layer's backward in one C++ call (`_kernels.dense_backward16`): the ReLU mask
    (`y`: the layer's ReLU output, or None), then (dx if `w` is given, dw if want[0], db if want[1])
    with dw / db as float32 master gradients where `wide` says so. Bit for bit what ReluGrad's,
    `matmul`'s, `f32_product`'s and `bias_grad`'s kernels give one by one, so it runs only where all
    of those would take their C++ paths (the products at least `_SMALL` multiply-adds, the bias
    gradient over at least 1024 elements, a weight gradient rounded in place from 256 elements);
    None elsewhere, and for bfloat16 on bf16 hardware (oneDNN's bf16 GEMM): the caller runs the
    ops one by one. Shared by PyNative's AmpDense backward and Graph mode's DenseBackward."""
    dt = g.dtype
    if (not _FAST[0] or not is_lowp(dt) or g.ndim != 2 or x.ndim != 2 or x.dtype != dt
            or (is_bf16(dt) and bf16_native())):
        return None
    n, o = g.shape
    i = x.shape[1]
    if (x.shape[0] != n or n * o * i < _SMALL or (want[1] and g.size < 1024) or (want[0] and wide[0] and o * i < 256)
            or (y is not None and g.size < 256)  # (ReluGrad's C++ kernel from 256 elements)
            or (w is not None and (w.dtype != dt or w.shape != (o, i)))
            or (y is not None and (y.dtype != dt or y.shape != g.shape))):
        return None
    bf = is_bf16(dt)
    dx, dw, db = _k().dense_backward16(_bits(g), _f32_or_bits(x), None if w is None else _f32_or_bits(w),
                                       None if y is None else _bits(y), bf, want[0], want[1], wide[0], wide[1])
    out = [] if w is None else [_mark(dx.view(dt))]
    if want[0]:
        out.append(dw if wide[0] else _mark(dw.view(dt)))
    if want[1]:
        out.append(db if wide[1] else db.view(dt))
    return tuple(out)


def batch_matmul(a: np.ndarray, b: np.ndarray, transpose_a: bool = False, transpose_b: bool = False) -> np.ndarray:
    """Batched op(a) @ op(b) (NumPy broadcasting over the leading axes) in float16/bfloat16.

    A stack times one matrix is one 2-D GEMM; otherwise each matrix pair of the broadcast batch is
    one `matmul` call (oneDNN's bf16 kernel each).
    """
    dt = _check("BatchMatMul", a, b)
    if b.ndim == 2 and not transpose_a:
        out = matmul(a.reshape(-1, a.shape[-1]), b, False, transpose_b)
        return out.reshape(a.shape[:-1] + out.shape[-1:])
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    ab = np.broadcast_to(a, batch + a.shape[-2:]).reshape((-1,) + a.shape[-2:])
    bb = np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    m = a.shape[-1] if transpose_a else a.shape[-2]
    n = b.shape[-2] if transpose_b else b.shape[-1]
    out = np.empty((ab.shape[0], m, n), dtype=dt)
    for i in range(ab.shape[0]):
        out[i] = matmul(ab[i], bb[i], transpose_a, transpose_b)
    return out.reshape(batch + (m, n))


# Fewest input channels per group (the channels a pass reduces over, or for the input gradient the
# channels it produces) at which oneDNN's bf16 convolution beats float32 compute on the rounded
# operands. Its bf16 kernels pad channels to blocks of 16/32: measured (1 thread, us), LeNet's first
# conv (1 -> 6 channels, 5x5, batch 64) took 1548 for the weight gradient in bf16 and 244 through
# float32; SimpleCNN's (3 -> 16, 3x3, batch 32) forward 315 vs 405 and weight gradient 262 vs 344,
# but its input gradient 592 vs 355; from 6 channels up bf16 won every pass (up to 1.9x at 64).
_BF16_CONV_MIN_CHANNELS = {"forward": 3, "backward_weights": 3, "backward_data": 6}


def use_bf16_conv(dt: np.dtype, channels: int | None = None, kind: str = "forward") -> bool:
    """Whether a convolution pass (`kind`: forward, backward_data, backward_weights) in `dt` runs in
    oneDNN's bf16 kernels: bfloat16 on bf16 hardware, with at least the channels per group where
    they are faster (`channels`: input channels per group; None skips that check). Otherwise the
    pass computes in float32 on the rounded operands; both accumulate in float32 and round once,
    so only the summation order differs. The rule depends on the geometry alone, so PyNative and
    Graph mode take the same path."""
    if not (is_bf16(dt) and bf16_native()):
        return False
    return channels is None or channels >= _BF16_CONV_MIN_CHANNELS[kind]


def _bits(a: np.ndarray) -> np.ndarray:
    return (a if a.flags.c_contiguous else np.ascontiguousarray(a)).view(np.uint16)


def conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: Any, pad: Any, dilation: Any,
           group: int) -> np.ndarray:
    """bfloat16 conv2d (NCHW input, OIHW weight, optional bias) through oneDNN, bfloat16 result."""
    from .. import _kernels

    y = _kernels.conv2d_bf16_forward(_bits(x), _bits(w), None if b is None else _bits(b), stride, pad, dilation,
                                     group)
    return y.view(x.dtype)


def conv2d_backward_data(dy: np.ndarray, w: np.ndarray, input_size: Any, stride: Any, pad: Any, dilation: Any,
                         group: int) -> np.ndarray:
    """bfloat16 gradient of conv2d with respect to its input (oneDNN), bfloat16 result."""
    from .. import _kernels

    return _kernels.conv2d_bf16_backward_data(_bits(dy), _bits(w), tuple(input_size), stride, pad, dilation,
                                              group).view(dy.dtype)


def conv2d_backward_weights(dy: np.ndarray, x: np.ndarray, filter_size: Any, stride: Any, pad: Any, dilation: Any,
                            group: int, with_bias: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """bfloat16 gradients of conv2d with respect to its weight and (with_bias) bias, through oneDNN."""
    from .. import _kernels

    dw, db = _kernels.conv2d_bf16_backward_weights(_bits(dy), _bits(x), tuple(filter_size), stride, pad, dilation,
                                                   group, with_bias)
    return dw.view(dy.dtype), (None if db is None else db.view(dy.dtype))


def relu(a: np.ndarray) -> np.ndarray | None:
    """max(a, 0) for a float16/bfloat16 array in C++, or None for other dtypes (the caller's NumPy path)."""
    if a.dtype.itemsize != 2 or a.size < 256:
        return None
    bf = is_bf16(a.dtype)
    if not (bf or a.dtype == np.float16):
        return None
    return _mark(_k().relu16(_bits(a), bf).view(a.dtype))


def relu_grad(g: np.ndarray, out: np.ndarray) -> np.ndarray | None:
    """g * (out > 0) for float16/bfloat16 arrays of one shape and dtype in C++, or None otherwise."""
    if g.dtype.itemsize != 2 or g.dtype != out.dtype or g.shape != out.shape or g.size < 256:
        return None
    bf = is_bf16(g.dtype)
    if not (bf or g.dtype == np.float16):
        return None
    return _mark(_k().relu_grad16(_bits(g), _bits(out), bf).view(g.dtype))


def is_lowp(dt: np.dtype) -> bool:
    """Whether `dt` is float16 or bfloat16 (the mixed-precision storage dtypes)."""
    return dt.itemsize == 2 and (dt == np.float16 or is_bf16(dt))


def binary_via_f32(ufunc: Any, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`ufunc(a, b)` for float16/bfloat16 arrays of one dtype, computed in float32 and rounded once.

    NumPy's float16 loops and ml_dtypes' bfloat16 ones do exactly this per element (convert, compute
    in float32, round), so the bits are theirs; the conversions here run in C++ (a 64x256 float16
    bias add: 78 us in NumPy, 13 us this way). An add of two arrays of one shape, or of a row to
    every row (a bias), is one C++ pass (`add16`: widen, add, round; NaN + NaN keeps the first
    operand's NaN, as NumPy's loop does) instead of three conversions and NumPy's add."""
    dt = a.dtype
    if ufunc is np.add and _FAST[0] and (a.shape == b.shape or (b.ndim == 1 and a.ndim >= 1
                                                                and b.shape[0] == a.shape[-1])):
        return _mark(_k().add16(_bits(a), _bits(b), is_bf16(dt)).view(dt))
    return cast(ufunc(cast(a, np.float32), cast(b, np.float32)), dt)


def bias_grad(g: np.ndarray) -> np.ndarray:
    """Column sums of a 2-D float16/bfloat16 gradient (a Dense layer's bias gradient), accumulated
    in float32 with the rows added in order and rounded once: one C++ pass over the 16-bit matrix
    (`bias_grad16`) where the reference path widened it, summed it (`_kernels.bias_grad`) and
    rounded the sums, with the same bits."""
    if _FAST[0]:
        return _k().bias_grad16(_bits(g), is_bf16(g.dtype)).view(g.dtype)
    return cast(_k().bias_grad(cast(g, np.float32)), g.dtype)


def sum_via_f32(a: np.ndarray, axis: Any, keepdims: bool = False) -> np.ndarray:
    """`a.sum(axis)` for a float16/bfloat16 array, accumulated in float32 and rounded once (NumPy's
    float16 sum accumulates in float16: slower, and it loses the low bits of long sums)."""
    return cast(np.asarray(cast(a, np.float32).sum(axis=axis, keepdims=keepdims)), a.dtype)


def describe() -> dict[str, Any]:
    """What the low-precision paths run on this machine (for bench headers and reports)."""
    from .. import _kernels

    return {"onednn_isa": _kernels.cpu_isa(), "bf16_native": bf16_native(),
            "bf16_matmul_impl": _kernels.bf16_matmul_impl(256, 1024, 4096, False, True),
            "bf16_conv_impl": _kernels.conv2d_bf16_impl((32, 16, 32, 32), (16, 16, 3, 3), (1, 1), (1, 1, 1, 1),
                                                        (1, 1), 1)}
