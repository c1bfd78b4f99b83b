"""Real int8 cells: `QuantDense` and `QuantConv2d` (what PTQ and QAT convert Dense/Conv2d into), and
the `QuantStub` / `DeQuantStub` boundary cells.

Numerics (the same as spore.lite's and onnxruntime's QDQ kernels, so the three agree):
- weights: int8, symmetric per output channel, narrow range -127..127 (zero point 0), w_scale (O,);
- activations: **uint8, asymmetric** per tensor (x_scale, x_zero_point in 0..255) — onnxruntime's
  default activation type and oneDNN's native u8 x s8 VNNI form; a ReLU-fused output has zero point 0;
- bias: int32, scale x_scale * w_scale[c], b_q = round(b / (x_scale * w_scale[c]));
- one oneDNN kernel (`spore._kernels.Int8MatMul` / `Int8Conv2d`) accumulates (x_q - x_zp) @ w_q in
  int32, then its epilogue computes acc * x_scale * w_scale[c] + b_q * x_scale * w_scale[c], ReLU,
  and requantizes to (y_scale, y_zero_point) with round half to even and saturation. Without
  y_scale (the last layer) the epilogue writes float32 instead.

Each cell takes a float32 Tensor (quantized on entry with x_scale / x_zero_point) or an already
quantized uint8 Tensor, and returns float32 (the requantized output dequantized) — so quantized
cells drop into any network's construct unchanged. The cells run eagerly (PyNative; they call the
C++ kernels on NumPy buffers). `weight` / `bias` hold the dequantized float values: they are what
`float_view()` computes with, which is how the QDQ ONNX export traces the network's topology.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..errors import SporeError
from ..nn import Cell

W_QMAX = 127  # narrow-range symmetric int8 weights
_FLOAT_VIEW = [False]


@contextlib.contextmanager
def float_view() -> Iterator[None]:
    """While active, quantized cells compute in float32 with their dequantized weights (ops that
    trace: what the QDQ exporter compiles to find the graph's Conv/Gemm nodes)."""
    old = _FLOAT_VIEW[0]
    _FLOAT_VIEW[0] = True
    try:
        yield
    finally:
        _FLOAT_VIEW[0] = old


_KMOD: list[Any] = []


def _K() -> Any:
    """spore._kernels, imported once (the cells call it on every forward)."""
    if not _KMOD:
        from .. import _kernels

        _KMOD.append(_kernels)
    return _KMOD[0]


def _np(x: Any) -> np.ndarray:
    return x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)


def _tensor(a: np.ndarray) -> Any:
    from ..tensor import Tensor

    return Tensor(a)


def quantize_weight(w: np.ndarray, w_scale: np.ndarray) -> np.ndarray:
    """int8 values of `w` for per-output-channel scales (axis 0): clip(rint(w / s), -127, 127)."""
    w = np.asarray(w, np.float32)
    s = np.asarray(w_scale, np.float32).reshape(-1)
    if s.size != w.shape[0] or not np.all(s > 0):
        raise SporeError(f"quant: w_scale must hold {w.shape[0]} positive scales (one per output channel), "
                         f"got shape {s.shape}")
    return np.clip(np.rint(w / s.reshape(-1, *([1] * (w.ndim - 1)))), -W_QMAX, W_QMAX).astype(np.int8)


def bias_scale(x_scale: float, w_scale: np.ndarray) -> np.ndarray:
    """The int32 bias's per-channel scale x_scale * w_scale (float32, as the QDQ file stores it)."""
    return (np.float32(x_scale) * np.asarray(w_scale, np.float32).reshape(-1)).astype(np.float32)


def quantize_bias(b: np.ndarray | None, x_scale: float, w_scale: np.ndarray) -> np.ndarray:
    """int32 bias round(b / (x_scale * w_scale)), zeros when there is no bias."""
    bs = bias_scale(x_scale, w_scale)
    if b is None:
        return np.zeros(bs.shape, np.int32)
    q = np.rint(np.asarray(b, np.float64).reshape(-1) / bs.astype(np.float64))
    return np.clip(q, -(2 ** 31), 2 ** 31 - 1).astype(np.int32)


def _check_act(x_scale: Any, x_zp: Any, what: str) -> tuple[float, int]:
    s = float(np.asarray(x_scale).reshape(-1)[0])
    z = int(np.asarray(x_zp).reshape(-1)[0])
    if np.asarray(x_scale).size != 1 or not s > 0 or not np.isfinite(s):
        raise SporeError(f"quant: {what}_scale must be one positive float (per tensor), got {x_scale!r}")
    if not 0 <= z <= 255:
        raise SporeError(f"quant: {what}_zp must be a uint8 zero point in 0..255, got {x_zp!r}")
    return s, z


class QuantStub(Cell):
    """float32 -> uint8: ONNX QuantizeLinear per tensor (round half to even, saturate)."""

    def __init__(self, scale: float, zero_point: int = 0) -> None:
        super().__init__()
        self.scale, self.zero_point = _check_act(scale, zero_point, "x")

    def construct(self, x: Any) -> Any:
        a = np.ascontiguousarray(_np(x), np.float32)
        return _tensor(_K().quantize_linear(a, self.scale, self.zero_point, "uint8"))


class DeQuantStub(Cell):
    """uint8 -> float32: ONNX DequantizeLinear per tensor, (q - zero_point) * scale."""

    def __init__(self, scale: float, zero_point: int = 0) -> None:
        super().__init__()
        self.scale, self.zero_point = _check_act(scale, zero_point, "y")

    def construct(self, x: Any) -> Any:
        return _tensor(_K().dequantize_linear(np.ascontiguousarray(_np(x), np.uint8), self.scale, self.zero_point))


class _QuantLinear(Cell):
    """Shared state of QuantDense / QuantConv2d (see the module docstring for the arithmetic)."""

    def __init__(self, w_q: np.ndarray, w_scale: np.ndarray, b_q: np.ndarray, x_scale: float, x_zp: int,
                 y_scale: float | None, y_zp: int, relu: bool) -> None:
        super().__init__()
        from ..tensor import Parameter

        self.w_q = np.ascontiguousarray(w_q, np.int8)
        self.w_scale = np.ascontiguousarray(np.asarray(w_scale, np.float32).reshape(-1))
        self.b_q = np.ascontiguousarray(b_q, np.int32).reshape(-1)
        self.x_scale, self.x_zp = _check_act(x_scale, x_zp, "x")
        if y_scale is None:
            self.y_scale, self.y_zp = None, 0
        else:
            self.y_scale, self.y_zp = _check_act(y_scale, y_zp, "y")
        self.relu = bool(relu)
        self.chan_scale = np.ascontiguousarray(np.float32(self.x_scale) * self.w_scale)
        self.b_scale = bias_scale(self.x_scale, self.w_scale)
        # lite's arithmetic for a DequantizeLinear'd int32 bias: int64 * float32 scale, then float32
        self.bias_f = np.ascontiguousarray((self.b_q.astype(np.int64) * self.b_scale).astype(np.float32))
        wf = self.w_q.astype(np.float32) * self.w_scale.reshape(-1, *([1] * (self.w_q.ndim - 1)))
        self.weight = Parameter(_tensor(wf), name="weight", requires_grad=False)
        self.bias = Parameter(_tensor(self.bias_f.copy()), name="bias", requires_grad=False)

    def _epilogue(self) -> tuple:
        ys = self.y_scale
        return (self.chan_scale, self.bias_f, self.relu, ys, self.y_zp, "uint8")

    def _quantize_input(self, x: Any) -> np.ndarray:
        a = _np(x)
        if a.dtype == np.uint8:
            return np.ascontiguousarray(a)
        return _K().quantize_linear(np.ascontiguousarray(a, np.float32), self.x_scale, self.x_zp, "uint8")

    def _finish(self, y: np.ndarray) -> Any:
        if self.y_scale is None:
            return _tensor(y)
        return _tensor(_K().dequantize_linear(y, self.y_scale, self.y_zp))

    def qparams(self) -> dict[str, Any]:
        """Everything that defines the layer (what save/load and the QDQ export write)."""
        return {"w_q": self.w_q, "w_scale": self.w_scale, "b_q": self.b_q, "x_scale": self.x_scale,
                "x_zp": self.x_zp, "y_scale": self.y_scale, "y_zp": self.y_zp, "relu": self.relu}


class QuantDense(_QuantLinear):
    """An int8 Dense: y = [relu](x @ W.T + b) on `_kernels.Int8MatMul` (u8 x s8 -> int32)."""

    def __init__(self, w_q: np.ndarray, w_scale: np.ndarray, b_q: np.ndarray, x_scale: float, x_zp: int,
                 y_scale: float | None = None, y_zp: int = 0, relu: bool = False) -> None:
        if np.asarray(w_q).ndim != 2:
            raise SporeError(f"QuantDense: weight must be (out, in), got shape {np.asarray(w_q).shape}")
        super().__init__(w_q, w_scale, b_q, x_scale, x_zp, y_scale, y_zp, relu)
        self.in_channels, self.out_channels = int(self.w_q.shape[1]), int(self.w_q.shape[0])
        self._mm = _K().Int8MatMul(np.ascontiguousarray(self.w_q.T), self.x_zp, True, *self._epilogue())

    @classmethod
    def from_float(cls, dense: Any, w_scale: np.ndarray, x_scale: Any, x_zp: Any, y_scale: Any = None,
                   y_zp: Any = 0, relu: bool = False) -> QuantDense:
        """Quantize an `nn.Dense` with the given scales (weights per output channel; activations
        per tensor, uint8). `y_scale=None` keeps the output float32 (no requantization)."""
        from ..nn import Dense

        if not isinstance(dense, Dense):
            raise SporeError(f"QuantDense.from_float: expected an nn.Dense, got {type(dense).__name__}")
        if getattr(dense, "activation_flag", False):
            raise SporeError("QuantDense.from_float: Dense(activation=...) is not supported; "
                             "use a separate nn.ReLU (fused with relu=True)")
        w = dense.weight.asnumpy()
        xs, _ = _check_act(x_scale, x_zp, "x")
        b = None if dense.bias is None else dense.bias.asnumpy()
        return cls(quantize_weight(w, w_scale), w_scale, quantize_bias(b, xs, w_scale), x_scale, x_zp,
                   y_scale, y_zp, relu)

    def int32_accumulate(self, xq: np.ndarray) -> np.ndarray:
        """(xq - x_zp) @ w_q.T in int32 on the oneDNN kernel (no epilogue): what tests check exactly."""
        return _K().int8_matmul(np.ascontiguousarray(xq, np.uint8), np.ascontiguousarray(self.w_q.T), self.x_zp)

    def construct(self, x: Any) -> Any:
        if _FLOAT_VIEW[0]:
            from ..ops import functional as F

            out = F.dense(x, self.weight, self.bias)
            return F.relu(out) if self.relu else out
        xq = self._quantize_input(x)
        if xq.shape[-1] != self.in_channels:
            raise SporeError(f"QuantDense: input of shape (..., {self.in_channels}) expected, got {xq.shape}")
        x2 = xq if xq.ndim == 2 else np.ascontiguousarray(xq.reshape(-1, self.in_channels))
        out = np.empty((x2.shape[0], self.out_channels), np.float32 if self.y_scale is None else np.uint8)
        self._mm.run(x2, out)
        return self._finish(out if xq.ndim == 2 else out.reshape(*xq.shape[:-1], self.out_channels))

    def extend_repr(self) -> str:
        return (f"in_channels={self.in_channels}, out_channels={self.out_channels}, x_scale={self.x_scale:.4g}, "
                f"x_zp={self.x_zp}, y_scale={self.y_scale}, relu={self.relu}")


def _same_pads(h: int, w: int, k: tuple, s: tuple, d: tuple) -> list[int]:
    out = []
    for n, kk, ss, dd in ((h, k[0], s[0], d[0]), (w, k[1], s[1], d[1])):
        total = max((-(-n // ss) - 1) * ss + (kk - 1) * dd + 1 - n, 0)
        out.append((total // 2, total - total // 2))
    (t, b), (left, r) = out
    return [t, left, b, r]


class QuantConv2d(_QuantLinear):
    """An int8 Conv2d (NCHW) on `_kernels.Int8Conv2d`; pad_mode 'same' / 'valid' / 'pad' as nn.Conv2d."""

    def __init__(self, w_q: np.ndarray, w_scale: np.ndarray, b_q: np.ndarray, x_scale: float, x_zp: int,
                 y_scale: float | None = None, y_zp: int = 0, relu: bool = False, stride: Any = (1, 1),
                 pad_mode: str = "same", padding: Any = 0, dilation: Any = (1, 1), group: int = 1) -> None:
        if np.asarray(w_q).ndim != 4:
            raise SporeError(f"QuantConv2d: weight must be (out, in/group, kh, kw), got {np.asarray(w_q).shape}")
        super().__init__(w_q, w_scale, b_q, x_scale, x_zp, y_scale, y_zp, relu)
        self.stride = tuple(int(v) for v in (stride if isinstance(stride, (tuple, list)) else (stride, stride)))
        self.dilation = tuple(int(v) for v in (dilation if isinstance(dilation, (tuple, list)) else (dilation,) * 2))
        if pad_mode not in ("same", "valid", "pad"):
            raise SporeError(f"QuantConv2d: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
        self.pad_mode, self.group = pad_mode, int(group)
        self.padding = padding if isinstance(padding, int) else tuple(int(v) for v in padding)
        self.kernel_size = tuple(int(v) for v in self.w_q.shape[2:])
        self.in_channels, self.out_channels = int(self.w_q.shape[1]) * self.group, int(self.w_q.shape[0])
        self._convs: dict[tuple, Any] = {}

    @classmethod
    def from_float(cls, conv: Any, w_scale: np.ndarray, x_scale: Any, x_zp: Any, y_scale: Any = None,
                   y_zp: Any = 0, relu: bool = False) -> QuantConv2d:
        """Quantize an `nn.Conv2d` (NCHW) with the given scales, as `QuantDense.from_float`."""
        from ..nn import Conv2d

        if not isinstance(conv, Conv2d):
            raise SporeError(f"QuantConv2d.from_float: expected an nn.Conv2d, got {type(conv).__name__}")
        if conv.format != "NCHW":
            raise SporeError("QuantConv2d.from_float: only data_format='NCHW' convolutions are quantized")
        w = conv.weight.asnumpy()
        xs, _ = _check_act(x_scale, x_zp, "x")
        b = None if conv.bias is None else conv.bias.asnumpy()
        return cls(quantize_weight(w, w_scale), w_scale, quantize_bias(b, xs, w_scale), x_scale, x_zp, y_scale,
                   y_zp, relu, conv.stride, conv.pad_mode, conv.padding, conv.dilation, conv.group)

    def pads(self, h: int, w: int) -> list[int]:
        """(top, left, bottom, right) for an h x w input (Int8Conv2d's order)."""
        if self.pad_mode == "valid":
            return [0, 0, 0, 0]
        if self.pad_mode == "same":
            return _same_pads(h, w, self.kernel_size, self.stride, self.dilation)
        p = self.padding
        if isinstance(p, int):
            return [p, p, p, p]
        return [p[0], p[2], p[1], p[3]]  # MindSpore's (top, bottom, left, right)

    def _kernel(self, h: int, w: int) -> Any:
        pads = self.pads(h, w)
        key = tuple(pads)
        conv = self._convs.get(key)
        if conv is None:
            conv = _K().Int8Conv2d(self.w_q, True, self.x_zp, list(self.stride), pads, list(self.dilation),
                                   self.group)
            conv.set_epilogue(*self._epilogue())
            self._convs[key] = conv
        return conv

    def int32_accumulate(self, xq: np.ndarray) -> np.ndarray:
        """The int32 accumulators conv(xq - x_zp, w_q), NCHW, from the oneDNN kernel (no epilogue)."""
        xq = np.ascontiguousarray(xq, np.uint8)
        conv = _K().Int8Conv2d(self.w_q, True, self.x_zp, list(self.stride), self.pads(*xq.shape[2:]),
                               list(self.dilation), self.group)
        return conv(xq)

    def construct(self, x: Any) -> Any:
        if _FLOAT_VIEW[0]:
            from ..ops import functional as F

            out = F.conv2d(x, self.weight, self.bias, self.stride, self.pad_mode, self.padding, self.dilation,
                           self.group)
            return F.relu(out) if self.relu else out
        xq = self._quantize_input(x)
        if xq.ndim != 4 or xq.shape[1] != self.in_channels:
            raise SporeError(f"QuantConv2d: input of shape (N, {self.in_channels}, H, W) expected, got {xq.shape}")
        conv = self._kernel(xq.shape[2], xq.shape[3])
        return self._finish(conv(xq, *self._epilogue()))

    def extend_repr(self) -> str:
        return (f"in_channels={self.in_channels}, out_channels={self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, pad_mode={self.pad_mode}, padding={self.padding}, x_scale={self.x_scale:.4g}, "
                f"x_zp={self.x_zp}, y_scale={self.y_scale}, relu={self.relu}")
