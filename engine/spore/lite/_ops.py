"""The lite interpreter's kernels: one function per ONNX op over NumPy and `spore._kernels`.

Each kernel is `f(attrs, ins, outs) -> list[ndarray] | None`. With `outs=None` it returns fresh
arrays (the shape-finding run); with `outs` (views into the planned arena) it writes into them and
returns None, so a planned run allocates nothing for intermediates. Kernels without an in-place
path compute a fresh result that `_store` copies into the arena view (still one arena, the copy
is the price of a C++ kernel that returns its own buffer).

Why a separate interpreter (not `spore.onnx.load` -> Cell): the Cell path needs the training
stack (nn, autodiff); the lite process must not load it (see spore/lite/__init__.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _kernels as K

Kernel = Callable[[dict, list, list | None], list | None]
OPS: dict[str, Kernel] = {}
# ops whose output is a view of input 0 (no arena buffer of their own)
ALIAS_OPS = {"Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze"}


class ShapeChanged(Exception):
    """A planned buffer does not fit a result (data-dependent shape): the caller replans."""


def _store(outs: list | None, res: list) -> list | None:
    if outs is None:
        return res
    for o, r in zip(outs, res):
        r = np.asarray(r)
        if o.shape != r.shape:
            raise ShapeChanged
        np.copyto(o, r, casting="unsafe")
    return None


def op(*names: str) -> Callable[[Kernel], Kernel]:
    def deco(f: Kernel) -> Kernel:
        for n in names:
            OPS[n] = f
        return f
    return deco


def _ufunc2(uf: Any) -> Kernel:
    def f(a: dict, ins: list, outs: list | None) -> list | None:
        if outs is None:
            return [np.asarray(uf(ins[0], ins[1]))]
        if outs[0].shape != np.broadcast_shapes(ins[0].shape, ins[1].shape):
            raise ShapeChanged
        uf(ins[0], ins[1], out=outs[0], casting="unsafe")
        return None
    return f


def _ufunc1(uf: Any) -> Kernel:
    def f(a: dict, ins: list, outs: list | None) -> list | None:
        if outs is None:
            return [np.asarray(uf(ins[0]))]
        uf(ins[0], out=outs[0])
        return None
    return f


for _n, _u in {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Pow": np.power,
               "Greater": np.greater, "Less": np.less, "Equal": np.equal, "Max": np.maximum,
               "Min": np.minimum, "GreaterOrEqual": np.greater_equal, "LessOrEqual": np.less_equal,
               "And": np.logical_and, "Or": np.logical_or}.items():
    OPS[_n] = _ufunc2(_u)
for _n, _u in {"Abs": np.abs, "Neg": np.negative, "Exp": np.exp, "Log": np.log, "Sqrt": np.sqrt,
               "Tanh": np.tanh, "Not": np.logical_not, "Floor": np.floor, "Ceil": np.ceil,
               "Reciprocal": np.reciprocal, "Sin": np.sin, "Cos": np.cos}.items():
    OPS[_n] = _ufunc1(_u)


@op("Div")
def _div(a: dict, ins: list, outs: list | None) -> list | None:
    x, y = ins
    if x.dtype.kind in "iu":
        return _store(outs, [(np.trunc(x / y)).astype(x.dtype)])
    if outs is None:
        return [np.divide(x, y)]
    np.divide(x, y, out=outs[0])
    return None


@op("Relu")
def _relu(a: dict, ins: list, outs: list | None) -> list | None:
    if outs is None:
        return [np.maximum(ins[0], 0).astype(ins[0].dtype)]
    np.maximum(ins[0], 0, out=outs[0])
    return None


@op("Sigmoid")
def _sigmoid(a: dict, ins: list, outs: list | None) -> list | None:
    x = ins[0]
    o = np.empty_like(x) if outs is None else outs[0]
    np.negative(x, out=o)
    np.exp(o, out=o)
    o += 1
    np.reciprocal(o, out=o)
    return [o] if outs is None else None


@op("Erf")
def _erf(a: dict, ins: list, outs: list | None) -> list | None:
    import math

    return _store(outs, [np.vectorize(math.erf, otypes=[ins[0].dtype])(ins[0])])


def _matmul_into(x: np.ndarray, w: np.ndarray, o: np.ndarray | None) -> np.ndarray:
    if x.ndim == 2 and w.ndim == 2 and x.dtype == np.float32 and w.dtype == np.float32:
        r = K.sgemm(x, w)  # oneDNN, honours the thread count set by the Context
        if o is None:
            return r
        np.copyto(o, r)
        return o
    if o is None:
        return np.matmul(x, w)
    np.matmul(x, w, out=o)
    return o


@op("MatMul")
def _matmul(a: dict, ins: list, outs: list | None) -> list | None:
    r = _matmul_into(ins[0], ins[1], None if outs is None else outs[0])
    return [r] if outs is None else None


@op("Gemm")
def _gemm(a: dict, ins: list, outs: list | None) -> list | None:
    x, w = ins[0], ins[1]
    c = ins[2] if len(ins) > 2 else None
    alpha, beta = a.get("alpha", 1.0), a.get("beta", 1.0)
    ta, tb = bool(a.get("transA", 0)), bool(a.get("transB", 0))
    if (x.dtype == np.float32 and alpha == 1.0 and beta == 1.0 and c is not None and c.ndim == 1
            and c.shape[0] == (w.shape[0] if tb else w.shape[1])):
        r = K.dense_forward(x, w, c, ta, tb, bool(a.get("_relu", False)))  # bias (+ReLU) in the epilogue
        return _store(outs, [r])
    x = x.T if ta else x
    w = w.T if tb else w
    r = np.matmul(x, w)
    if alpha != 1.0:
        r = r * alpha
    if c is not None:
        r = r + beta * c
    if a.get("_relu"):
        r = np.maximum(r, 0)
    return _store(outs, [r.astype(ins[0].dtype)])


def _pads(a: dict, nd: int) -> list[int]:
    p = list(a.get("pads", [0] * (2 * nd)))
    if a.get("auto_pad", "NOTSET") not in ("NOTSET", "VALID"):
        raise ValueError(f"auto_pad={a['auto_pad']} is not supported by spore.lite: export the model with explicit "
                         "pads (Spore's exporter and torch.onnx write pads)")
    return p


@op("Conv")
def _conv(a: dict, ins: list, outs: list | None) -> list | None:
    x, w = ins[0], ins[1]
    b = ins[2] if len(ins) > 2 else None
    if x.ndim != 4:
        raise ValueError(f"spore.lite Conv: only 2-D convolution (NCHW), got input rank {x.ndim}")
    p = _pads(a, 2)
    r = K.conv2d_forward(np.ascontiguousarray(x, np.float32), np.ascontiguousarray(w, np.float32),
                         None if b is None else np.ascontiguousarray(b, np.float32),
                         list(a.get("strides", [1, 1])), [p[0], p[2], p[1], p[3]],
                         list(a.get("dilations", [1, 1])), int(a.get("group", 1)))
    return _store(outs, [r])


def _pool_out(n: int, k: int, s: int, p0: int, p1: int, d: int, ceil: bool) -> int:
    span = n + p0 + p1 - d * (k - 1) - 1
    o = (-(-span // s) if ceil else span // s) + 1
    if ceil and (o - 1) * s >= n + p0:
        o -= 1
    return o


@op("MaxPool")
def _maxpool(a: dict, ins: list, outs: list | None) -> list | None:
    x = ins[0]
    k = list(a["kernel_shape"])
    s = list(a.get("strides", [1, 1]))
    d = list(a.get("dilations", [1, 1]))
    p = _pads(a, 2)
    ceil = bool(a.get("ceil_mode", 0))
    hw = [_pool_out(x.shape[2 + i], k[i], s[i], p[i], p[i + 2], d[i], ceil) for i in range(2)]
    y, _ = K.max_pool2d_forward(np.ascontiguousarray(x, np.float32), k, s, [p[0], p[2], p[1], p[3]], d, hw, False)
    return _store(outs, [y])


@op("AveragePool")
def _avgpool(a: dict, ins: list, outs: list | None) -> list | None:
    x = ins[0]
    k = list(a["kernel_shape"])
    s = list(a.get("strides", [1, 1]))
    p = _pads(a, 2)
    ceil = bool(a.get("ceil_mode", 0))
    hw = [_pool_out(x.shape[2 + i], k[i], s[i], p[i], p[i + 2], 1, ceil) for i in range(2)]
    y = K.avg_pool2d_forward(np.ascontiguousarray(x, np.float32), k, s, [p[0], p[2], p[1], p[3]], hw,
                             bool(a.get("count_include_pad", 0)), 0)
    return _store(outs, [y])


@op("GlobalAveragePool")
def _gap(a: dict, ins: list, outs: list | None) -> list | None:
    x = ins[0]
    return _store(outs, [x.mean(axis=tuple(range(2, x.ndim)), keepdims=True)])


@op("BatchNormalization")
def _bn(a: dict, ins: list, outs: list | None) -> list | None:
    x, g, b, m, v = ins[:5]
    shp = (1, -1) + (1,) * (x.ndim - 2)
    scale = g / np.sqrt(v + a.get("epsilon", 1e-5))
    return _store(outs[:1] if outs else None, [(x - m.reshape(shp)) * scale.reshape(shp) + b.reshape(shp)])


@op("LayerNormalization")
def _ln(a: dict, ins: list, outs: list | None) -> list | None:
    x, g = ins[0], ins[1]
    b = ins[2] if len(ins) > 2 else np.zeros_like(g)
    axis = a.get("axis", -1) % x.ndim
    eps = a.get("epsilon", 1e-5)
    d = int(np.prod(x.shape[axis:]))
    if x.dtype == np.float32 and g.size == d:
        y, _, _ = K.layer_norm_forward(np.ascontiguousarray(x).reshape(-1, d), g.reshape(d).astype(np.float32),
                                       b.reshape(d).astype(np.float32), eps)
        return _store(outs[:1] if outs else None, [y.reshape(x.shape)])
    ax = tuple(range(axis, x.ndim))
    mu = x.mean(axis=ax, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=ax, keepdims=True)
    return _store(outs[:1] if outs else None, [((x - mu) / np.sqrt(var + eps) * g + b).astype(x.dtype)])


@op("Softmax")
def _softmax(a: dict, ins: list, outs: list | None) -> list | None:
    x = ins[0]
    ax = a.get("axis", -1)
    o = np.empty_like(x) if outs is None else outs[0]
    np.subtract(x, x.max(axis=ax, keepdims=True), out=o)
    np.exp(o, out=o)
    o /= o.sum(axis=ax, keepdims=True)
    return [o] if outs is None else None


def _axes(a: dict, ins: list, nd: int) -> tuple | None:
    axes = ins[1] if len(ins) > 1 and ins[1] is not None else a.get("axes")
    if axes is None or len(axes) == 0:
        return None
    return tuple(int(i) % nd for i in np.asarray(axes).reshape(-1))


def _reduce(fn: Any) -> Kernel:
    def f(a: dict, ins: list, outs: list | None) -> list | None:
        x = ins[0]
        axes = _axes(a, ins, x.ndim)
        if axes is None and a.get("noop_with_empty_axes", 0):
            return _store(outs, [x.copy()])
        keep = bool(a.get("keepdims", 1))
        return _store(outs, [np.asarray(fn(x, axis=axes, keepdims=keep)).astype(x.dtype)])
    return f


OPS["ReduceSum"] = _reduce(np.sum)
OPS["ReduceMean"] = _reduce(np.mean)
OPS["ReduceMax"] = _reduce(np.max)
OPS["ReduceMin"] = _reduce(np.min)
OPS["ReduceProd"] = _reduce(np.prod)


@op("Transpose")
def _transpose(a: dict, ins: list, outs: list | None) -> list | None:
    x = ins[0]
    perm = a.get("perm", list(range(x.ndim))[::-1])
    return _store(outs, [np.transpose(x, perm)])


@op("Reshape")
def _reshape(a: dict, ins: list, outs: list | None) -> list | None:
    x, shape = ins[0], [int(s) for s in ins[1]]
    if not a.get("allowzero", 0):
        shape = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]
    return [x.reshape(shape)]


@op("Flatten")
def _flatten(a: dict, ins: list, outs: list | None) -> list | None:
    x = ins[0]
    ax = a.get("axis", 1) % max(x.ndim, 1) if x.ndim else 0
    return [x.reshape(int(np.prod(x.shape[:ax])), -1)]


@op("Identity")
def _identity(a: dict, ins: list, outs: list | None) -> list | None:
    return [ins[0]]


@op("Squeeze")
def _squeeze(a: dict, ins: list, outs: list | None) -> list | None:
    x = ins[0]
    axes = _axes(a, ins, x.ndim)
    return [np.squeeze(x) if axes is None else np.squeeze(x, axis=axes)]


@op("Unsqueeze")
def _unsqueeze(a: dict, ins: list, outs: list | None) -> list | None:
    x = ins[0]
    axes = ins[1] if len(ins) > 1 else a["axes"]
    nd = x.ndim + len(axes)
    return [np.expand_dims(x, tuple(int(i) % nd for i in axes))]


@op("Concat")
def _concat(a: dict, ins: list, outs: list | None) -> list | None:
    ax = a["axis"]
    if outs is None:
        return [np.concatenate(ins, axis=ax)]
    np.concatenate(ins, axis=ax, out=outs[0])
    return None


@op("Split")
def _split(a: dict, ins: list, outs: list | None) -> list | None:
    x = ins[0]
    ax = a.get("axis", 0) % x.ndim
    split = ins[1] if len(ins) > 1 and ins[1] is not None else a.get("split")
    n = len(outs) if outs is not None else a["_n_outputs"]
    if split is None:
        size = -(-x.shape[ax] // n)
        split = [min(size, x.shape[ax] - i * size) for i in range(n)]
    idx = np.cumsum(split)[:-1]
    return _store(outs, list(np.split(x, idx, axis=ax)))


@op("Gather")
def _gather(a: dict, ins: list, outs: list | None) -> list | None:
    x, i = ins
    return _store(outs, [np.take(x, i.astype(np.int64), axis=a.get("axis", 0))])


@op("Slice")
def _slice(a: dict, ins: list, outs: list | None) -> list | None:
    x, starts, ends = ins[0], ins[1], ins[2]
    axes = ins[3] if len(ins) > 3 and ins[3] is not None else range(len(starts))
    steps = ins[4] if len(ins) > 4 and ins[4] is not None else [1] * len(starts)
    sl = [slice(None)] * x.ndim
    for s, e, ax, st in zip(starts, ends, axes, steps):
        sl[int(ax) % x.ndim] = slice(int(s), int(e), int(st))
    return _store(outs, [x[tuple(sl)]])


@op("Shape")
def _shape(a: dict, ins: list, outs: list | None) -> list | None:
    return _store(outs, [np.array(ins[0].shape, np.int64)])


@op("Cast")
def _cast(a: dict, ins: list, outs: list | None) -> list | None:
    from ._proto import np_dtype

    return _store(outs, [ins[0].astype(np_dtype(a["to"], "Cast"))])


@op("Where")
def _where(a: dict, ins: list, outs: list | None) -> list | None:
    return _store(outs, [np.where(*ins)])


@op("Clip")
def _clip(a: dict, ins: list, outs: list | None) -> list | None:
    lo = ins[1] if len(ins) > 1 and ins[1] is not None else a.get("min", -np.inf)
    hi = ins[2] if len(ins) > 2 and ins[2] is not None else a.get("max", np.inf)
    return _store(outs, [np.clip(ins[0], lo, hi).astype(ins[0].dtype)])


# --- quantization (QDQ) ---------------------------------------------------------------------------

def _qparams(x: np.ndarray, scale: np.ndarray, zp: np.ndarray | None, axis: int) -> tuple:
    if scale.ndim == 1 and scale.size > 1:
        shp = [1] * x.ndim
        shp[axis % x.ndim] = -1
        scale = scale.reshape(shp)
        zp = None if zp is None else zp.reshape(shp)
    return scale, zp


def qrange(dtype: np.dtype) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


@op("QuantizeLinear")
def _quantize(a: dict, ins: list, outs: list | None) -> list | None:
    x, scale = ins[0], ins[1]
    zp = ins[2] if len(ins) > 2 else None
    qdt = np.dtype(np.uint8) if zp is None else zp.dtype
    if scale.size == 1 and x.dtype == np.float32 and qdt in (np.uint8, np.int8) and float(scale.reshape(-1)[0]) > 0:
        zq = 0 if zp is None else int(zp.reshape(-1)[0])  # per tensor: the C++ kernel (same arithmetic)
        return _store(outs, [K.quantize_linear(np.ascontiguousarray(x), float(scale.reshape(-1)[0]), zq, qdt.name)])
    scale, zpb = _qparams(x, scale, zp, a.get("axis", 1))
    y = np.rint(x / scale)
    if zpb is not None:
        y += zpb
    lo, hi = qrange(qdt)
    return _store(outs, [np.clip(y, lo, hi).astype(qdt)])


@op("DequantizeLinear")
def _dequantize(a: dict, ins: list, outs: list | None) -> list | None:
    x, scale = ins[0], ins[1]
    zp = ins[2] if len(ins) > 2 else None
    if scale.size == 1 and x.dtype in (np.uint8, np.int8) and scale.dtype == np.float32:
        zq = 0 if zp is None else int(zp.reshape(-1)[0])
        return _store(outs, [K.dequantize_linear(np.ascontiguousarray(x), float(scale.reshape(-1)[0]), zq)])
    scale, zpb = _qparams(x, scale, zp, a.get("axis", 1))
    xi = x.astype(np.int32) if zpb is None else x.astype(np.int32) - zpb.astype(np.int32)
    return _store(outs, [(xi * scale).astype(np.float32)])


def int_matmul_exact(xi: np.ndarray, wi: np.ndarray, bound: float) -> np.ndarray:
    """(xi @ wi) of integer-valued float arrays, equal to an int32-accumulating GEMM.

    Why floats: NumPy has no BLAS for integers (its int matmul is a naive loop, ~100x slower), and
    float32 sums of integers are exact while every partial sum stays below 2**24 (`bound` is
    K * max|x| * max|w|); above that, float64 (exact below 2**53) is used instead.
    """
    if bound < 2 ** 24:
        if xi.ndim == 2 and wi.ndim == 2:
            return K.sgemm(xi, wi)
        return np.matmul(xi, wi)
    return np.matmul(xi.astype(np.float64), wi.astype(np.float64))


def _make_qlinear_float(kind: str, attrs: dict, xq_zp: int, x_scale: float, wq: np.ndarray, w_zp: np.ndarray,
                 w_scale: np.ndarray, bias: np.ndarray | None) -> Kernel | None:
    """An int8 Conv/Gemm/MatMul from a DQ(x) / DQ(W) [/ bias] pattern: the weights are kept as
    (W - zw) integers, the activation as (xq - zx) integers; the integer product is accumulated
    exactly (int32 semantics) and rescaled once by x_scale * w_scale, plus the float bias."""
    if kind == "Gemm" and (attrs.get("transA", 0) or attrs.get("alpha", 1.0) != 1.0
                           or attrs.get("beta", 1.0) != 1.0):
        return None
    zp = w_zp.astype(np.int32).reshape(-1)
    if kind == "Conv" or (kind == "Gemm" and attrs.get("transB", 0)):
        wmat = wq.astype(np.int32) - (zp.reshape(-1, *([1] * (wq.ndim - 1))) if zp.size > 1 else zp[0])
        if kind == "Gemm":
            wmat = wmat.T  # (K, N)
    else:  # (K, N): per-channel zero points run along the last axis
        wmat = wq.astype(np.int32) - (zp if zp.size > 1 else zp[0])
    wf = np.ascontiguousarray(wmat, np.float32)
    chan_scale = (np.float32(x_scale) * w_scale.astype(np.float32)).reshape(-1)
    wmax = float(np.abs(wf).max()) if wf.size else 0.0
    bias32 = None if bias is None else bias.astype(np.float32)
    kdim = int(np.prod(wf.shape[1:])) if kind == "Conv" else wf.shape[-2]
    xmax = 255.0
    bound = kdim * xmax * wmax
    if kind == "Conv" and bound >= 2 ** 24:
        return None  # oneDNN's float32 conv would no longer be exact: keep the float path

    def run(a: dict, ins: list, outs: list | None) -> list | None:
        xq = ins[0]
        xi = xq.astype(np.float32)
        if xq_zp:
            xi -= xq_zp
        if kind == "Conv":
            p = _pads(attrs, 2)
            acc = K.conv2d_forward(xi, wf, None, list(attrs.get("strides", [1, 1])), [p[0], p[2], p[1], p[3]],
                                   list(attrs.get("dilations", [1, 1])), int(attrs.get("group", 1)))
            shp = (1, -1, 1, 1)
            y = acc * chan_scale.reshape(shp)
            if bias32 is not None:
                y += bias32.reshape(shp)
        else:
            acc = int_matmul_exact(xi, wf, bound)
            y = (acc * chan_scale).astype(np.float32)
            if bias32 is not None:
                y += bias32
        return _store(outs, [y.astype(np.float32, copy=False)])

    def bind(ins: list, outs: list) -> Callable[[], None] | None:
        """The planned-run closure: the activation's scratch made once, results written in place."""
        xq, o = ins[0], outs[0]
        if kind == "Conv" or o.dtype != np.float32 or bound >= 2 ** 24 or xq.ndim != 2 or wf.ndim != 2:
            return None
        xi = np.empty(xq.shape, np.float32)
        zx = np.float32(xq_zp)
        b = bias32
        sgemm, copy, sub, mul, add = K.sgemm, np.copyto, np.subtract, np.multiply, np.add

        def step() -> None:
            copy(xi, xq, casting="unsafe")
            sub(xi, zx, out=xi)
            mul(sgemm(xi, wf), chan_scale, out=o)
            if b is not None:
                add(o, b, out=o)
        return step

    run.bind = bind  # type: ignore[attr-defined]
    return run


def make_qlinear(kind: str, attrs: dict, xq_zp: int, x_scale: float, wq: np.ndarray, w_zp: np.ndarray,
                 w_scale: np.ndarray, bias: np.ndarray | None, x_dtype: np.dtype | None = None,
                 requant: tuple[float, int, np.dtype] | None = None, relu: bool = False) -> Kernel | None:
    """An int8 Conv/Gemm/MatMul from a DQ(x) / DQ(W) [/ bias] pattern, on oneDNN's integer kernels.

    (xq - zx) @ (W - zw) is accumulated in int32 by `_kernels.int8_matmul` / `_kernels.Int8Conv2d`
    (u8/s8 activations x s8 weights, VNNI), then one C++ epilogue applies x_scale * w_scale, the
    float bias, optionally ReLU and, with `requant` = (y_scale, y_zero_point, dtype), the following
    QuantizeLinear (round half to even, saturate): bit-identical to running DQ -> op -> Q unfused.
    Weights whose (W - zw) leaves int8's range (uint8 weights, non-zero weight zero points), or a
    missing x dtype, keep the exact float-GEMM path (`_make_qlinear_float`); returns None when the
    pattern is not an int8 op at all."""
    if kind == "Gemm" and (attrs.get("transA", 0) or attrs.get("alpha", 1.0) != 1.0
                           or attrs.get("beta", 1.0) != 1.0):
        return None
    zp = w_zp.astype(np.int32).reshape(-1)
    if kind == "Conv" or (kind == "Gemm" and attrs.get("transB", 0)):
        wmat = wq.astype(np.int32) - (zp.reshape(-1, *([1] * (wq.ndim - 1))) if zp.size > 1 else zp[0])
        if kind == "Gemm":
            wmat = wmat.T  # (K, N)
    else:
        wmat = wq.astype(np.int32) - (zp if zp.size > 1 else zp[0])
    conv_ok = kind != "Conv" or (wq.ndim == 4 and len(_pads(attrs, 2)) == 4)
    if (x_dtype is None or np.dtype(x_dtype) not in (np.dtype(np.uint8), np.dtype(np.int8)) or not conv_ok
            or (wmat.size and (wmat.min() < -128 or wmat.max() > 127)) or wmat.ndim != (4 if kind == "Conv" else 2)):
        if requant is not None or relu:
            return None
        return _make_qlinear_float(kind, attrs, xq_zp, x_scale, wq, w_zp, w_scale, bias)
    w8 = np.ascontiguousarray(wmat, np.int8)
    x_u8 = np.dtype(x_dtype) == np.uint8
    chan_scale = np.ascontiguousarray((np.float32(x_scale) * w_scale.astype(np.float32)).reshape(-1))
    bias32 = None if bias is None else np.ascontiguousarray(bias.astype(np.float32).reshape(-1))
    ys, yz, ydt = (None, 0, "uint8") if requant is None else (float(requant[0]), int(requant[1]),
                                                              np.dtype(requant[2]).name)
    if kind == "Conv":
        p = _pads(attrs, 2)
        conv = K.Int8Conv2d(w8, x_u8, int(xq_zp), list(attrs.get("strides", [1, 1])), [p[0], p[1], p[2], p[3]],
                            list(attrs.get("dilations", [1, 1])), int(attrs.get("group", 1)))

        conv.set_epilogue(chan_scale, bias32, relu, ys, yz, ydt)
        fast = conv.run

        def compute(xq: np.ndarray) -> np.ndarray:
            return conv(xq, chan_scale, bias32, relu, ys, yz, ydt)
    else:
        fast = K.Int8MatMul(w8, int(xq_zp), x_u8, chan_scale, bias32, relu, ys, yz, ydt).run
        mm, n_out, zx = K.int8_matmul, w8.shape[1], int(xq_zp)

        def compute(xq: np.ndarray) -> np.ndarray:
            x2 = xq.reshape(-1, xq.shape[-1])
            y = mm(x2 if x2.flags.c_contiguous else np.ascontiguousarray(x2), w8, zx, chan_scale, bias32,
                   relu, ys, yz, ydt)
            return y.reshape(*xq.shape[:-1], n_out)

    def run(a: dict, ins: list, outs: list | None) -> list | None:
        xq = ins[0]
        if xq.dtype != x_dtype:
            raise ValueError(f"QLinear{kind}: the activation is {xq.dtype}, the int8 kernel was built for {x_dtype}")
        return _store(outs, [compute(xq)])

    def bind(ins: list, outs: list) -> Callable[[], None] | None:
        """The planned-run closure: the C++ kernel writes straight into the arena view."""
        xq, o = ins[0], outs[0]
        if xq.dtype != x_dtype or not (xq.flags.c_contiguous and o.flags.c_contiguous):
            copy = np.copyto
            return lambda: copy(o, compute(xq))
        return lambda: fast(xq, o)

    run.bind = bind  # type: ignore[attr-defined]
    run.int8 = True  # type: ignore[attr-defined]
    return run
