"""Fake quantization for quantization-aware training: the `FakeQuant` primitive (per-layer and
per-channel, symmetric or asymmetric, narrow range, 2..16 bits) with a straight-through-estimator
gradient, and the `FakeQuantWithMinMaxObserver` Cell that tracks its min/max while training.

The forward is MindSpore's FakeQuantPerLayer / FakeQuantPerChannel kernel: the range [min, max]
is first *nudged* so that 0.0 is exactly representable (a zero-padded border or a ReLU's zeros stay
exact), then every element is clamped to the nudged range and rounded to the grid::

    quant_min, quant_max = (1 if narrow_range else 0), 2**num_bits - 1
    if symmetric: max = max(|min|, max); min = -max
    scale = (max - min) / (quant_max - quant_min)
    zp = clip(round(quant_min - min / scale), quant_min, quant_max)     # round half away from 0
    nudged_min, nudged_max = (quant_min - zp) * scale, (quant_max - zp) * scale
    out = floor((clip(x, nudged_min, nudged_max) - nudged_min) / scale + 0.5) * scale + nudged_min

The gradient is the straight-through estimator of MindSpore's FakeQuantPerLayerGrad: the incoming
gradient passes unchanged where nudged_min <= x <= nudged_max and is zero outside; min and max get
no gradient (the observer moves them, the optimizer does not). The gradient is its own primitive,
`FakeQuantGrad`, so a compiled graph differentiates through fake quantization like any other op.

`qparams` gives the same grid as (scale, zero point), unsigned or shifted to the signed grid, so
the converted int8 network (`spore.quant.convert_qat`) computes on exactly the values the QAT net saw.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..errors import DTypeError, ShapeError, SporeError
from ..nn import Cell
from ..onnx.spec import OnnxMap
from ..ops.primitive import Aval, primitive
from ..tensor import Parameter, Tensor


def _check_attrs(num_bits: Any, channel_axis: Any) -> None:
    if isinstance(num_bits, bool) or not isinstance(num_bits, int) or not 2 <= num_bits <= 16:
        raise SporeError(f"FakeQuant: num_bits must be an int in 2..16, got {num_bits!r}")
    if channel_axis is not None and (isinstance(channel_axis, bool) or not isinstance(channel_axis, int)):
        raise SporeError(f"FakeQuant: channel_axis must be None (per layer) or an int, got {channel_axis!r}")


def _range_shape(x: Any, channel_axis: int | None) -> tuple[int, ...] | None:
    """The (min, max) shape `x` takes: None for per layer (() or (1,)), (C,) per channel."""
    if channel_axis is None:
        return None
    if not -x.ndim <= channel_axis < x.ndim:
        raise ShapeError("FakeQuant", f"an input with axis channel_axis={channel_axis}", f"rank {x.ndim}")
    return (int(x.shape[channel_axis]),)


def _infer_common(name: str, x: Any, x_min: Any, x_max: Any, num_bits: int, channel_axis: int | None) -> None:
    _check_attrs(num_bits, channel_axis)
    if not x.dtype.is_float:
        raise DTypeError(name, "a float tensor x", str(x.dtype))
    want = _range_shape(x, channel_axis)
    for label, t in (("min", x_min), ("max", x_max)):
        shape = tuple(t.shape)
        ok = shape in ((), (1,)) if want is None else shape == want
        if not ok:
            what = ("shape () or (1,) (per layer)" if want is None
                    else f"shape {want} (per channel, axis {channel_axis})")
            raise ShapeError(name, f"{label} of {what}", f"{shape}")


def quant_range(num_bits: int = 8, narrow_range: bool = False) -> tuple[int, int]:
    """(quant_min, quant_max) of the unsigned grid MindSpore's kernels use: (0 or 1, 2**bits - 1)."""
    return (1 if narrow_range else 0), (1 << num_bits) - 1


def nudge(x_min: np.ndarray, x_max: np.ndarray, num_bits: int = 8, symmetric: bool = False,
          narrow_range: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(nudged_min, nudged_max, scale, zero_point) of a range, in the dtype of `x_min` (float32 as
    MindSpore computes it); zero_point is on the unsigned grid [quant_min, quant_max].

    A zero-width range gives scale 0 and the range [0, 0] (MindSpore's kernel does the same; the
    fake-quant output is then 0)."""
    qmin, qmax = quant_range(num_bits, narrow_range)
    mn = np.asarray(x_min)
    mx = np.asarray(x_max)
    dt = np.result_type(mn.dtype, np.float32)
    mn, mx = mn.astype(dt), mx.astype(dt)
    if symmetric:
        amax = np.where(np.abs(mn) < mx, mx, -mn)
        mn, mx = -amax, amax
    width = mx - mn
    safe = width != 0
    scale = np.where(safe, width / np.where(safe, dt.type(qmax - qmin), 1), 0).astype(dt)
    zp_from_min = np.where(safe, qmin - mn / np.where(safe, scale, 1), 0).astype(dt)
    # CUDA's round() (half away from zero) is floor(z + 0.5) where it is used: qmin < z, qmin >= 0
    rounded = np.floor(zp_from_min + 0.5)
    zp = np.where(zp_from_min <= qmin, qmin, np.where(zp_from_min >= qmax, qmax, rounded)).astype(dt)
    return ((qmin - zp) * scale).astype(dt), ((qmax - zp) * scale).astype(dt), scale, zp


def _broadcast(v: np.ndarray, ndim: int, channel_axis: int | None) -> np.ndarray:
    v = np.asarray(v).reshape(-1)
    if channel_axis is None:
        return v.reshape(())
    shape = [1] * ndim
    shape[channel_axis % ndim] = -1
    return v.reshape(shape)


def fake_quant_numpy(x: np.ndarray, x_min: np.ndarray, x_max: np.ndarray, num_bits: int = 8,
                     symmetric: bool = False, narrow_range: bool = False,
                     channel_axis: int | None = None) -> np.ndarray:
    """The fake-quant forward on arrays (the primitive's kernel; the ONNX mapping emits the same steps)."""
    x = np.asarray(x)
    nmin, nmax, scale, _ = nudge(x_min, x_max, num_bits, symmetric, narrow_range)
    nmin, nmax, scale = (_broadcast(v, x.ndim, channel_axis) for v in (nmin, nmax, scale))
    clamped = np.clip(x, nmin, nmax)
    safe = scale != 0
    steps = np.floor((clamped - nmin) / np.where(safe, scale, 1) + 0.5)
    out = np.where(safe, steps * scale + nmin, nmin)
    return out.astype(x.dtype, copy=False)


def _onnx_fake_quant(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
    """FakeQuant as ONNX float arithmetic: the nudge and the rounding of `fake_quant_numpy`, node for
    node (so onnxruntime gives the same values), from whatever min/max tensors the graph has (the
    frozen ranges of an eval-mode observer are initializers; a weight's range is computed)."""
    x, mn, mx = ins
    bits, sym = int(attrs.get("num_bits", 8)), bool(attrs.get("symmetric", False))
    axis = attrs.get("channel_axis")
    qmin, qmax = quant_range(bits, bool(attrs.get("narrow_range", False)))
    ndim = len(ctx.eqn.inputs[0].aval.shape)

    def f(v: float) -> str:
        return ctx.const(np.asarray(v, np.float32))

    def n(op: str, *inputs: str) -> str:
        return ctx.node(op, list(inputs))[0]

    shape = [1]
    if axis is not None:
        shape = [1] * ndim
        shape[axis % ndim] = -1
    mn, mx = n("Reshape", mn, ctx.ints(shape)), n("Reshape", mx, ctx.ints(shape))
    if sym:
        amax = n("Where", n("Less", n("Abs", mn), mx), mx, n("Neg", mn))
        mn, mx = n("Neg", amax), amax
    width = n("Sub", mx, mn)
    safe = n("Not", n("Equal", width, f(0.0)))
    scale = n("Where", safe, n("Div", width, f(qmax - qmin)), f(0.0))
    denom = n("Where", safe, scale, f(1.0))
    zf = n("Where", safe, n("Sub", f(qmin), n("Div", mn, denom)), f(0.0))
    rounded = n("Floor", n("Add", zf, f(0.5)))
    zp = n("Where", n("LessOrEqual", zf, f(qmin)), f(qmin),
           n("Where", n("GreaterOrEqual", zf, f(qmax)), f(qmax), rounded))
    nmin, nmax = n("Mul", n("Sub", f(qmin), zp), scale), n("Mul", n("Sub", f(qmax), zp), scale)
    clamped = n("Min", n("Max", x, nmin), nmax)
    steps = n("Floor", n("Add", n("Div", n("Sub", clamped, nmin), denom), f(0.5)))
    return [n("Where", safe, n("Add", n("Mul", steps, scale), nmin), nmin)]


@primitive
class FakeQuant:
    """Quantize-dequantize `x` to the `num_bits` grid of [x_min, x_max] (nudged so 0 is exact),
    per layer (`channel_axis=None`) or per channel; the gradient is the straight-through estimator
    (passes inside the nudged range, zero outside). MindSpore's FakeQuantPerLayer/PerChannel."""

    onnx = OnnxMap(export=_onnx_fake_quant)

    def infer(x, x_min, x_max, num_bits=8, symmetric=False, narrow_range=False, channel_axis=None):
        _infer_common("FakeQuant", x, x_min, x_max, num_bits, channel_axis)
        return Aval(tuple(x.shape), x.dtype)

    def impl(x, x_min, x_max, num_bits=8, symmetric=False, narrow_range=False, channel_axis=None):
        return fake_quant_numpy(x, x_min, x_max, num_bits, symmetric, narrow_range, channel_axis)

    def vjp(g, out, x, x_min, x_max, num_bits=8, symmetric=False, narrow_range=False, channel_axis=None):
        dx = FakeQuantGrad(g, x, x_min, x_max, num_bits=num_bits, symmetric=symmetric,
                           narrow_range=narrow_range, channel_axis=channel_axis)
        return (dx, None, None)


@primitive
class FakeQuantGrad:
    """The straight-through gradient of `FakeQuant`: `dout` where the nudged min <= x <= the nudged
    max, 0 elsewhere (MindSpore's FakeQuantPerLayerGrad / FakeQuantPerChannelGrad)."""

    nondiff = True

    def infer(dout, x, x_min, x_max, num_bits=8, symmetric=False, narrow_range=False, channel_axis=None):
        _infer_common("FakeQuantGrad", x, x_min, x_max, num_bits, channel_axis)
        if tuple(dout.shape) != tuple(x.shape):
            raise ShapeError("FakeQuantGrad", f"dout of the input's shape {tuple(x.shape)}", f"{tuple(dout.shape)}")
        return Aval(tuple(x.shape), dout.dtype)

    def impl(dout, x, x_min, x_max, num_bits=8, symmetric=False, narrow_range=False, channel_axis=None):
        nmin, nmax, _, _ = nudge(x_min, x_max, num_bits, symmetric, narrow_range)
        nmin, nmax = (_broadcast(v, x.ndim, channel_axis) for v in (nmin, nmax))
        inside = (x >= nmin) & (x <= nmax)
        return np.where(inside, dout, 0).astype(dout.dtype, copy=False)


def fake_quant(x: Tensor, x_min: Tensor, x_max: Tensor, num_bits: int = 8, symmetric: bool = False,
               narrow_range: bool = False, channel_axis: int | None = None) -> Tensor:
    """Quantize-dequantize `x` on the grid of [x_min, x_max] (see the module docstring); gradients
    pass straight through inside the range. `channel_axis=None` is per layer (min/max of shape ()
    or (1,)), an int per channel (min/max of shape (x.shape[channel_axis],))."""
    return FakeQuant(x, x_min, x_max, num_bits=int(num_bits), symmetric=bool(symmetric),
                     narrow_range=bool(narrow_range), channel_axis=channel_axis)


def qparams(x_min: Any, x_max: Any, num_bits: int = 8, symmetric: bool = False,
            narrow_range: bool = False, dtype: str = "int8") -> tuple[np.ndarray, np.ndarray]:
    """(scale, zero point) of the fake-quant grid, so dequantized (q - zp) * scale are exactly the
    values `FakeQuant` gives: ``dtype="uint8"`` is MindSpore's unsigned grid [0, 2**bits - 1] (the
    activation form of onnxruntime's QDQ and of `QuantDense`), ``"int8"`` the same values on the
    signed grid (q_signed = q_unsigned - 2**(num_bits-1)).

    Scales of a zero-width range (all-zero channel) are returned as 1 with zero point 0, so an
    int kernel never divides by zero; such a channel is all zeros either way."""
    if dtype not in ("int8", "uint8"):
        raise SporeError(f"qparams: dtype must be 'int8' or 'uint8', got {dtype!r}")
    to_np = (lambda v: v.asnumpy() if isinstance(v, Tensor) else np.asarray(v, np.float32))
    _, _, scale, zp = nudge(to_np(x_min), to_np(x_max), num_bits, symmetric, narrow_range)
    shift = (1 << (num_bits - 1)) if dtype == "int8" else 0
    zero = scale == 0
    scale = np.where(zero, 1.0, scale).astype(np.float32).reshape(-1)
    zp = np.where(zero, 0, zp - shift).astype(np.int32).reshape(-1)
    return scale, zp


# --- the observer Cell ---------------------------------------------------------------------------------
class QuantDtype:
    """MindSpore's `compression.common.QuantDtype` members Spore's QAT takes: the integer width."""

    INT4 = "INT4"
    INT8 = "INT8"
    UINT8 = "UINT8"

    @staticmethod
    def num_bits(dtype: Any) -> int:
        """Bits of a QuantDtype (INT8/UINT8: 8, INT4: 4); anything else is refused by name."""
        name = getattr(dtype, "name", dtype)
        bits = {"INT4": 4, "INT8": 8, "UINT8": 8}.get(str(name).upper().rsplit(".", 1)[-1])
        if bits is None:
            raise SporeError(f"quant: quant_dtype must be QuantDtype.INT8, UINT8 or INT4, got {dtype!r}")
        return bits


class FakeQuantWithMinMaxObserver(Cell):
    """Fake quantization of a tensor whose range [minq, maxq] follows what it sees in training.

    As MindSpore 1.x's ``nn.FakeQuantWithMinMaxObserver``: in training each call first updates
    the range from the batch (``ema=False``: the batch min/max; ``ema=True``: MindSpore's
    MinMaxUpdatePerLayer rule ``ema_decay * batch + (1 - ema_decay) * previous``), keeping 0
    inside it, then fake-quantizes with the new range; in eval (``set_train(False)``) the range is
    frozen. Before `quant_delay` training steps the input passes unchanged. Per channel, the
    range has `num_channels` entries along `channel_axis`.
    """

    def __init__(self, min_init: float = -6, max_init: float = 6, ema: bool = False, ema_decay: float = 0.999,
                 per_channel: bool = False, channel_axis: int = 1, num_channels: int = 1,
                 quant_dtype: Any = QuantDtype.INT8, symmetric: bool = False, narrow_range: bool = False,
                 quant_delay: int = 0, neg_trunc: bool = False, mode: str = "DEFAULT") -> None:
        super().__init__()
        name = "FakeQuantWithMinMaxObserver"
        if mode != "DEFAULT":
            raise SporeError(f"{name}: mode must be 'DEFAULT' (LEARNED_SCALE is not built in Spore), got {mode!r}")
        if neg_trunc:
            raise SporeError(f"{name}: neg_trunc=True belongs to LEARNED_SCALE mode, which Spore does not build")
        if not 0 <= float(ema_decay) <= 1:
            raise SporeError(f"{name}: ema_decay must be in [0, 1], got {ema_decay!r}")
        if isinstance(quant_delay, bool) or not isinstance(quant_delay, int) or quant_delay < 0:
            raise SporeError(f"{name}: quant_delay must be an int >= 0, got {quant_delay!r}")
        if isinstance(num_channels, bool) or not isinstance(num_channels, int) or num_channels < 1:
            raise SporeError(f"{name}: num_channels must be a positive int, got {num_channels!r}")
        self.num_bits = QuantDtype.num_bits(quant_dtype)
        self.quant_dtype = quant_dtype
        self.ema = bool(ema)
        self.ema_decay = float(ema_decay)
        self.per_channel = bool(per_channel)
        self.channel_axis = int(channel_axis) if per_channel else None
        self.num_channels = num_channels if per_channel else 1
        self.symmetric = bool(symmetric)
        self.narrow_range = bool(narrow_range)
        self.quant_delay = quant_delay
        n = self.num_channels
        self.minq = Parameter(np.full(n, min_init, np.float32), name="quant_min", requires_grad=False)
        self.maxq = Parameter(np.full(n, max_init, np.float32), name="quant_max", requires_grad=False)
        self.step = Parameter(np.zeros(1, np.float32), name="quant_step", requires_grad=False)

    def _batch_range(self, x: Tensor) -> tuple[Tensor, Tensor]:
        if self.channel_axis is None:
            return ops.reshape(ops.amin(x), (1,)), ops.reshape(ops.amax(x), (1,))
        ax = self.channel_axis % x.ndim
        axes = tuple(i for i in range(x.ndim) if i != ax)
        return ops.amin(x, axes), ops.amax(x, axes)

    def construct(self, x: Tensor) -> Tensor:
        mn, mx = self.minq, self.maxq
        if self.training:
            bmin, bmax = self._batch_range(x)
            if self.ema:
                d = self.ema_decay
                bmin = ops.add(ops.mul(bmin, d), ops.mul(mn, 1.0 - d))
                bmax = ops.add(ops.mul(bmax, d), ops.mul(mx, 1.0 - d))
            mn = ops.assign(self.minq, ops.minimum(bmin, 0.0))
            mx = ops.assign(self.maxq, ops.maximum(bmax, 0.0))
        out = fake_quant(x, mn, mx, self.num_bits, self.symmetric, self.narrow_range, self.channel_axis)
        if self.quant_delay:
            step = self.step
            if self.training:
                step = ops.assign(self.step, ops.add(self.step, 1.0))
            out = ops.where(ops.greater(step, float(self.quant_delay)), out, x)
        return out

    def qparams(self, dtype: str = "int8") -> tuple[np.ndarray, np.ndarray]:
        """(scale, zero point) of the current range on the signed ("int8") or unsigned ("uint8")
        grid (see `spore.quant.fake_quant.qparams`)."""
        return qparams(self.minq, self.maxq, self.num_bits, self.symmetric, self.narrow_range, dtype)

    def extend_repr(self) -> str:
        return (f"quant_dtype={self.quant_dtype}, symmetric={self.symmetric}, narrow_range={self.narrow_range}, "
                f"ema={self.ema}({self.ema_decay}), per_channel={self.per_channel}"
                f"({self.channel_axis}, {self.num_channels}), quant_delay={self.quant_delay}")
