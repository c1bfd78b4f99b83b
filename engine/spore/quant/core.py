"""Numeric core: symmetric per-channel quantization, int4 packing, int8 GEMM with int32 accumulation.

Symmetric quantization (zero point 0) is what weight-only int8 uses (MindSpore Lite's WEIGHT_QUANT):
q = clip(round(w / s), -qmax, qmax) with s = max|w| / qmax per output channel (axis 0), qmax = 127
for 8 bits and 7 for 4 bits (narrow range, so -q is always representable). The round-trip error of
every element is therefore at most s / 2 of its channel.
"""

from __future__ import annotations

import numpy as np

from ..errors import SporeError

_BITS = (4, 8)


def _check_bits(bit_num: int) -> int:
    if bit_num not in _BITS:
        raise SporeError(f"quant: bit_num must be 8 or 4, got {bit_num!r}")
    return (1 << (bit_num - 1)) - 1


def quantize_per_channel(w: np.ndarray, bit_num: int = 8, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Quantize `w` symmetrically per slice along `axis`; returns (int8 values, float32 scales).

    A channel that is all zeros gets scale 1 (not 0), so dequantization never divides by zero.
    """
    qmax = _check_bits(bit_num)
    w = np.asarray(w, dtype=np.float32)
    if w.ndim == 0:
        raise SporeError("quant: cannot quantize a scalar per channel")
    axis = axis % w.ndim
    red = tuple(i for i in range(w.ndim) if i != axis)
    amax = np.max(np.abs(w), axis=red, keepdims=True) if red else np.abs(w)
    scale = np.where(amax > 0, amax / qmax, 1.0).astype(np.float32)
    q = np.clip(np.rint(w / scale), -qmax, qmax).astype(np.int8)
    return q, scale.reshape(-1)


def dequantize_per_channel(q: np.ndarray, scale: np.ndarray, axis: int = 0) -> np.ndarray:
    """float32 values q * scale, with `scale` broadcast along `axis`."""
    q = np.asarray(q)
    shape = [1] * q.ndim
    shape[axis % q.ndim] = -1
    return q.astype(np.float32) * np.asarray(scale, np.float32).reshape(shape)


def pack_int4(q: np.ndarray) -> np.ndarray:
    """Pack int4 values (-8..7, any shape) two per byte, low nibble first; flattened, padded to even."""
    flat = np.asarray(q, dtype=np.int8).reshape(-1)
    if flat.size and (flat.min() < -8 or flat.max() > 7):
        raise SporeError("quant: pack_int4 needs values in -8..7")
    if flat.size % 2:
        flat = np.concatenate([flat, np.zeros(1, np.int8)])
    u = (flat.astype(np.uint8) & 0x0F)
    return (u[0::2] | (u[1::2] << 4)).astype(np.uint8)


def unpack_int4(packed: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Inverse of `pack_int4`: int8 values of `shape` (sign-extended nibbles)."""
    p = np.asarray(packed, dtype=np.uint8)
    nib = np.empty(p.size * 2, np.uint8)
    nib[0::2], nib[1::2] = p & 0x0F, p >> 4
    vals = nib.astype(np.int8)
    vals[vals > 7] -= 16
    n = int(np.prod(shape, dtype=np.int64))
    if n > vals.size:
        raise SporeError(f"quant: {p.size} packed bytes hold {vals.size} values, shape {shape} needs {n}")
    return vals[:n].reshape(shape)


def int8_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """int8 x int8 -> int32 product with int32 accumulation (NumPy int32 matmul; no oneDNN int8 yet).

    Overflow is impossible below K = 2**31 / 127**2 (~133k) inner elements; larger K is refused.
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != np.int8 or b.dtype != np.int8:
        raise SporeError(f"quant.int8_matmul: needs int8 inputs, got {a.dtype} and {b.dtype}")
    if a.shape[-1] > 133_000:
        raise SporeError(f"quant.int8_matmul: inner dimension {a.shape[-1]} could overflow int32")
    return np.matmul(a.astype(np.int32), b.astype(np.int32))
