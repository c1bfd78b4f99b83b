"""ONNX op types that import as compositions of Spore primitives (one function each), the NumPy
versions of shape arithmetic (`STATIC`, used when every input is a known constant), and attribute
decoding. One-to-one ops are not here: they are the `imports` of the primitives' `OnnxMap`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import OnnxError
from ..tensor import Tensor


def attributes(node: Any) -> dict[str, Any]:
    """A node's attributes as Python values (ints, floats, strings, lists, arrays, graphs)."""
    from onnx import AttributeProto, numpy_helper

    out: dict[str, Any] = {}
    for a in node.attribute:
        if a.type == AttributeProto.FLOAT:
            out[a.name] = a.f
        elif a.type == AttributeProto.INT:
            out[a.name] = a.i
        elif a.type == AttributeProto.STRING:
            out[a.name] = a.s.decode("utf-8", "replace")
        elif a.type == AttributeProto.TENSOR:
            out[a.name] = numpy_helper.to_array(a.t)
        elif a.type == AttributeProto.GRAPH:
            out[a.name] = a.g
        elif a.type == AttributeProto.FLOATS:
            out[a.name] = list(a.floats)
        elif a.type == AttributeProto.INTS:
            out[a.name] = list(a.ints)
        elif a.type == AttributeProto.STRINGS:
            out[a.name] = [s.decode("utf-8", "replace") for s in a.strings]
        else:
            raise OnnxError(f"{node.op_type}: attribute {a.name!r} of type {a.type} is not supported",
                            op=node.op_type, node=node.name)
    return out


def _P(name: str) -> Any:
    from ..ops.primitive import REGISTRY

    return REGISTRY[name]


def _shape(x: Any) -> tuple[int, ...]:
    return tuple(int(d) for d in np.shape(x)) if not isinstance(x, Tensor) else tuple(x.shape)


def _reshape(ic: Any, x: Any, shape: Any) -> Any:
    return _P("Reshape")(ic.t(x), shape=tuple(int(d) for d in shape))


def _ints(ic: Any, x: Any, what: str) -> list[int]:
    return [int(v) for v in np.asarray(ic.static(x, what)).reshape(-1)]


def _onnx_reshape_dims(in_shape: tuple[int, ...], dims: list[int], allowzero: int) -> tuple[int, ...]:
    out = [in_shape[i] if d == 0 and not allowzero else d for i, d in enumerate(dims)]
    if -1 in out:
        known = math.prod(d for d in out if d != -1)
        out[out.index(-1)] = math.prod(in_shape) // known if known else 0
    return tuple(out)


# -- static (NumPy) versions: shapes and constant arithmetic -----------------------------------
def _s_shape(ic: Any, ins: list, attrs: dict) -> np.ndarray:
    shape = np.asarray(_shape(ins[0]), np.int64)
    start, end = attrs.get("start", 0), attrs.get("end")
    return shape[start:end] if end is not None else shape[start:]


STATIC: dict[str, Any] = {
    "Shape": _s_shape,
    "Size": lambda ic, ins, a: np.asarray(int(np.prod(_shape(ins[0]))), np.int64),
    "Identity": lambda ic, ins, a: ins[0],
    "Cast": lambda ic, ins, a: np.asarray(ins[0]).astype(_np_type(a["to"])),
    "Unsqueeze": lambda ic, ins, a: np.reshape(ins[0], _unsq_shape(_shape(ins[0]), _axes(ic, ins, a))),
    "Squeeze": lambda ic, ins, a: np.reshape(ins[0], _sq_shape(_shape(ins[0]), _axes(ic, ins, a))),
    "Concat": lambda ic, ins, a: np.concatenate([np.atleast_1d(x) for x in ins if x is not None], axis=a["axis"]),
    "Gather": lambda ic, ins, a: np.take(ins[0], np.asarray(ins[1]).astype(np.int64), axis=a.get("axis", 0)),
    "Reshape": lambda ic, ins, a: np.reshape(ins[0], _onnx_reshape_dims(_shape(ins[0]), _ints(ic, ins[1], "shape"),
                                                                        a.get("allowzero", 0))),
}
# shape inputs that are given as constants (PyTorch's exporter writes such arithmetic)
for _name, _f in {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Equal": np.equal,
                  "Less": np.less, "Greater": np.greater}.items():
    STATIC[_name] = (lambda f: lambda ic, ins, a: (lambda r: r if np.asarray(ins[0]).dtype.kind in "iub"
                                                   else None)(np.asarray(f(ins[0], ins[1]))))(_f)


def _s_intdiv(ic: Any, ins: list, a: dict) -> np.ndarray | None:
    """Integer Div on constants (a head size from a shape), truncating toward zero as ONNX says."""
    x, y = np.asarray(ins[0]), np.asarray(ins[1])
    if x.dtype.kind not in "iu" or y.dtype.kind not in "iu" or not np.all(y != 0):
        return None
    return (np.sign(x) * np.sign(y) * (np.abs(x) // np.abs(y))).astype(x.dtype)


def _s_intmod(ic: Any, ins: list, a: dict) -> np.ndarray | None:
    x, y = np.asarray(ins[0]), np.asarray(ins[1])
    if x.dtype.kind not in "iu" or y.dtype.kind not in "iu" or not np.all(y != 0):
        return None
    return (np.fmod if a.get("fmod", 0) else np.mod)(x, y).astype(x.dtype)


STATIC["Div"] = _s_intdiv
STATIC["Mod"] = _s_intmod


def _np_type(to: int) -> Any:
    from onnx import helper

    return helper.tensor_dtype_to_np_dtype(int(to))


def _axes(ic: Any, ins: list, attrs: dict) -> list[int] | None:
    if len(ins) > 1 and ins[1] is not None:
        return _ints(ic, ins[1], "axes")
    return attrs.get("axes")


def _unsq_shape(shape: tuple[int, ...], axes: list[int] | None) -> tuple[int, ...]:
    rank = len(shape) + len(axes or [])
    ax = sorted(a % rank for a in axes or [])
    out, it = [], iter(shape)
    for i in range(rank):
        out.append(1 if i in ax else next(it))
    return tuple(out)


def _sq_shape(shape: tuple[int, ...], axes: list[int] | None) -> tuple[int, ...]:
    if axes is None:
        return tuple(d for d in shape if d != 1)
    ax = {a % len(shape) for a in axes}
    return tuple(d for i, d in enumerate(shape) if i not in ax)


# -- compositions -------------------------------------------------------------------------------
def _constant(ic: Any, ins: list, a: dict) -> Any:
    for key in ("value", "value_float", "value_int", "value_floats", "value_ints"):
        if key in a:
            v = a[key]
            if key == "value":
                return np.asarray(v)
            dt = np.float32 if "float" in key else np.int64
            return np.asarray(v, dt)
    raise OnnxError("Constant without a supported value attribute", op="Constant")


def _conv_pads(ic: Any, a: dict, in_hw: tuple[int, ...], k: tuple[int, ...], strides: list[int],
               dil: list[int]) -> list[int]:
    auto = a.get("auto_pad", "NOTSET")
    n = len(k)
    if auto in ("NOTSET", ""):
        return list(a.get("pads", [0] * (2 * n)))
    if auto == "VALID":
        return [0] * (2 * n)
    begins, ends = [], []
    for i in range(n):
        out = -(-in_hw[i] // strides[i])
        total = max(0, (out - 1) * strides[i] + (k[i] - 1) * dil[i] + 1 - in_hw[i])
        small, big = total // 2, total - total // 2
        begins.append(small if auto == "SAME_UPPER" else big)
        ends.append(big if auto == "SAME_UPPER" else small)
    return begins + ends


def _to2d(x: Any) -> tuple[Any, bool]:
    """A 1-D spatial (N, C, L) value as (N, C, 1, L) for the 2-D kernels."""
    if len(x.shape) == 3:
        return _P("Reshape")(x, shape=(x.shape[0], x.shape[1], 1, x.shape[2])), True
    if len(x.shape) != 4:
        raise OnnxError(f"only 1-D and 2-D spatial inputs are supported, got rank {len(x.shape)}")
    return x, False


def _spatial(a: dict, key: str, n: int, default: int) -> list[int]:
    return list(a.get(key, [default] * n))


def _conv(ic: Any, ins: list, a: dict) -> Any:
    x, w = ic.t(ins[0]), ic.t(ins[1])
    k = tuple(w.shape[2:])
    n = len(k)
    strides, dil = _spatial(a, "strides", n, 1), _spatial(a, "dilations", n, 1)
    pads = _conv_pads(ic, a, tuple(x.shape[2:]), k, strides, dil)
    x2, one_d = _to2d(x)
    if one_d:
        w = _P("Reshape")(w, shape=(w.shape[0], w.shape[1], 1, w.shape[2]))
        strides, dil, pads = [1] + strides, [1] + dil, [0, pads[0], 0, pads[1]]
    b = ic.t(ins[2]) if len(ins) > 2 and ins[2] is not None else None
    args = (x2, w) if b is None else (x2, w, b)
    y = _P("Conv2D")(*args, stride=tuple(strides), pad=(pads[0], pads[2], pads[1], pads[3]),
                     dilation=tuple(dil), group=int(a.get("group", 1)))
    return _P("Reshape")(y, shape=(y.shape[0], y.shape[1], y.shape[3])) if one_d else y


def _pool(kind: str):
    def imp(ic: Any, ins: list, a: dict) -> Any:
        if len(ic.node.output) > 1 and ic.node.output[1]:
            raise OnnxError("MaxPool's Indices output is not supported", op="MaxPool", node=ic.node.name)
        x = ic.t(ins[0])
        k = list(a["kernel_shape"])
        n = len(k)
        strides, dil = _spatial(a, "strides", n, 1), _spatial(a, "dilations", n, 1)
        pads = _conv_pads(ic, a, tuple(x.shape[2:]), tuple(k), strides, dil)
        x2, one_d = _to2d(x)
        if one_d:
            k, strides, dil, pads = [1] + k, [1] + strides, [1] + dil, [0, pads[0], 0, pads[1]]
        attrs = dict(kernel_size=tuple(k), strides=tuple(strides), pad=(pads[0], pads[2], pads[1], pads[3]),
                     ceil_mode=bool(a.get("ceil_mode", 0)))
        if kind == "MaxPool":
            y = _P("MaxPool")(x2, dilation=tuple(dil), **attrs)[0]
        else:
            if any(d != 1 for d in dil):
                raise OnnxError("AveragePool with dilations is not supported", op="AveragePool")
            y = _P("AvgPool")(x2, count_include_pad=bool(a.get("count_include_pad", 0)), **attrs)
        return _P("Reshape")(y, shape=(y.shape[0], y.shape[1], y.shape[3])) if one_d else y

    return imp


def _global(prim: str):
    def imp(ic: Any, ins: list, a: dict) -> Any:
        x = ic.t(ins[0])
        return _P(prim)(x, axis=tuple(range(2, len(x.shape))), keep_dims=True)

    return imp


def _gemm(ic: Any, ins: list, a: dict) -> Any:
    A, B = ic.t(ins[0]), ic.t(ins[1])
    y = _P("MatMul")(A, B, transpose_a=bool(a.get("transA", 0)), transpose_b=bool(a.get("transB", 0)))
    alpha, beta = a.get("alpha", 1.0), a.get("beta", 1.0)
    if alpha != 1.0:
        y = _P("Mul")(y, ic.t(np.asarray(alpha, y.dtype.np)))
    if len(ins) > 2 and ins[2] is not None:
        c = ic.t(ins[2])
        if beta != 1.0:
            c = _P("Mul")(c, ic.t(np.asarray(beta, c.dtype.np)))
        y = _P("Add")(y, c)
    return y


def _matmul(ic: Any, ins: list, a: dict) -> Any:
    A, B = ic.t(ins[0]), ic.t(ins[1])
    ra, rb = len(A.shape), len(B.shape)
    if ra == 1:
        A = _P("Reshape")(A, shape=(1, A.shape[0]))
    if rb == 1:
        B = _P("Reshape")(B, shape=(B.shape[0], 1))
    if len(A.shape) == 2 and len(B.shape) == 2:
        y = _P("MatMul")(A, B)
    else:
        batch = np.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2]))
        A = _P("BroadcastTo")(A, shape=tuple(batch) + tuple(A.shape[-2:]))
        B = _P("BroadcastTo")(B, shape=tuple(batch) + tuple(B.shape[-2:]))
        y = _P("BatchMatMul")(A, B)
    shape = list(y.shape)
    if ra == 1:
        shape.pop(-2)
    if rb == 1:
        shape.pop(-1)
    return _P("Reshape")(y, shape=tuple(shape)) if tuple(shape) != tuple(y.shape) else y


def _flatten(ic: Any, ins: list, a: dict) -> Any:
    x = ic.t(ins[0])
    axis = a.get("axis", 1) % max(len(x.shape), 1) if a.get("axis", 1) < 0 else a.get("axis", 1)
    return _reshape(ic, x, (math.prod(x.shape[:axis]), math.prod(x.shape[axis:])))


def _reshape_op(ic: Any, ins: list, a: dict) -> Any:
    x = ic.t(ins[0])
    dims = _ints(ic, ins[1], "shape")
    return _reshape(ic, x, _onnx_reshape_dims(tuple(x.shape), dims, a.get("allowzero", 0)))


def _transpose(ic: Any, ins: list, a: dict) -> Any:
    x = ic.t(ins[0])
    perm = a.get("perm") or list(reversed(range(len(x.shape))))
    return _P("Transpose")(x, perm=tuple(perm))


def _unsqueeze(ic: Any, ins: list, a: dict) -> Any:
    x = ic.t(ins[0])
    return _reshape(ic, x, _unsq_shape(tuple(x.shape), _axes(ic, ins, a)))


def _squeeze(ic: Any, ins: list, a: dict) -> Any:
    x = ic.t(ins[0])
    return _reshape(ic, x, _sq_shape(tuple(x.shape), _axes(ic, ins, a)))


def _concat(ic: Any, ins: list, a: dict) -> Any:
    xs = [ic.t(x) for x in ins if x is not None]
    return _P("Concat")(*xs, axis=int(a["axis"]) % len(xs[0].shape))


def _split(ic: Any, ins: list, a: dict) -> Any:
    x = ic.t(ins[0])
    axis = int(a.get("axis", 0)) % len(x.shape)
    if len(ins) > 1 and ins[1] is not None:
        sizes = _ints(ic, ins[1], "split")
    elif "split" in a:
        sizes = list(a["split"])
    else:
        n = int(a.get("num_outputs", len(ic.node.output)))
        step = -(-x.shape[axis] // n)
        sizes = [min(step, x.shape[axis] - i * step) for i in range(n)]
    return tuple(_P("Split")(x, axis=axis, sizes=tuple(sizes)))


def _slice(ic: Any, ins: list, a: dict, static: bool = False) -> Any:
    x = np.asarray(ins[0]) if static else ic.t(ins[0])
    if ic.opset < 10:
        starts, ends, axes, steps = a["starts"], a["ends"], a.get("axes"), None
    else:
        starts, ends = _ints(ic, ins[1], "starts"), _ints(ic, ins[2], "ends")
        axes = _ints(ic, ins[3], "axes") if len(ins) > 3 and ins[3] is not None else None
        steps = _ints(ic, ins[4], "steps") if len(ins) > 4 and ins[4] is not None else None
    axes = axes if axes is not None else list(range(len(starts)))
    steps = steps or [1] * len(starts)
    index = [slice(None)] * len(x.shape)
    for s, e, ax, st in zip(starts, ends, axes, steps):
        n = x.shape[ax]
        s = max(min(s, n), -n - 1) if st > 0 else s
        e = max(min(e, n), -n - 1)
        if st < 0 and e < -n:
            e = None
        index[ax % len(x.shape)] = slice(s, e, st)
    return x[tuple(index)]


# PyTorch's exporter slices shape vectors (MultiheadAttention's head split): kept static, Graph
# mode can then use the result as a Reshape/Slice argument.
STATIC["Slice"] = lambda ic, ins, a: _slice(ic, ins, a, static=True)


def _gather(ic: Any, ins: list, a: dict) -> Any:
    x = ic.t(ins[0])
    axis = int(a.get("axis", 0)) % len(x.shape)
    idx = ins[1]
    if not isinstance(idx, Tensor):
        idx = np.asarray(idx).astype(np.int64)
        idx = np.where(idx < 0, idx + x.shape[axis], idx)
    else:
        idx = _P("Cast")(idx, dtype=_int64())
    return _P("Gather")(x, ic.t(idx), axis=axis)


def _int64() -> Any:
    from ..common import dtype as mstype

    return mstype.int64


def _cast(ic: Any, ins: list, a: dict) -> Any:
    from ..common.dtype import from_numpy

    return _P("Cast")(ic.t(ins[0]), dtype=from_numpy(np.dtype(_np_type(a["to"]))))


def _batchnorm(ic: Any, ins: list, a: dict) -> Any:
    if a.get("training_mode", 0):
        raise OnnxError("BatchNormalization in training mode is not supported", op="BatchNormalization")
    x = ic.t(ins[0])
    shape = tuple(x.shape)
    x4 = _reshape(ic, x, shape[:2] + (math.prod(shape[2:]), 1)) if len(shape) != 4 else x
    y = _P("BatchNorm")(x4, *[ic.t(v) for v in ins[1:5]], is_training=False, epsilon=float(a.get("epsilon", 1e-5)))[0]
    return _reshape(ic, y, shape) if len(shape) != 4 else y


def _layernorm(ic: Any, ins: list, a: dict) -> Any:
    x = ic.t(ins[0])
    axis = int(a.get("axis", -1)) % len(x.shape)
    pshape = tuple(x.shape[axis:])
    g = _P("BroadcastTo")(ic.t(ins[1]), shape=pshape)
    b = _P("BroadcastTo")(ic.t(ins[2]), shape=pshape) if len(ins) > 2 and ins[2] is not None \
        else ic.t(np.zeros(pshape, x.dtype.np))
    outs = _P("LayerNorm")(x, g, b, begin_norm_axis=axis, begin_params_axis=axis,
                           epsilon=float(a.get("epsilon", 1e-5)))
    return tuple(outs) if len(ic.node.output) > 1 else outs[0]


def _unary(fn):
    return lambda ic, ins, a: fn(ic, ic.t(ins[0]), a)


def _c(x: Any, v: float) -> Tensor:
    return Tensor(np.asarray(v, x.dtype.np))


def _clip(ic: Any, ins: list, a: dict) -> Any:
    x = ic.t(ins[0])
    lo = ins[1] if len(ins) > 1 else a.get("min")
    hi = ins[2] if len(ins) > 2 else a.get("max")
    if lo is not None:
        x = _P("Maximum")(x, ic.t(np.asarray(lo, x.dtype.np)) if not isinstance(lo, Tensor) else lo)
    if hi is not None:
        x = _P("Minimum")(x, ic.t(np.asarray(hi, x.dtype.np)) if not isinstance(hi, Tensor) else hi)
    return x


def _variadic(prim: str, mean: bool = False):
    def imp(ic: Any, ins: list, a: dict) -> Any:
        xs = [ic.t(x) for x in ins]
        y = xs[0]
        for z in xs[1:]:
            y = _P(prim)(y, z)
        if len(xs) == 1:
            y = _P("Identity")(y)
        return _P("RealDiv")(y, _c(y, len(xs))) if mean else y

    return imp


def _expand(ic: Any, ins: list, a: dict) -> Any:
    x = ic.t(ins[0])
    shape = np.broadcast_shapes(tuple(x.shape), tuple(_ints(ic, ins[1], "shape")))
    _check_size("Expand", shape)
    return _P("BroadcastTo")(x, shape=tuple(shape))


def _tile(ic: Any, ins: list, a: dict) -> Any:
    x, reps = ic.t(ins[0]), _ints(ic, ins[1], "repeats")
    _check_size("Tile", [d * r for d, r in zip(x.shape, reps)])
    return _P("Tile")(x, multiples=tuple(reps))


def _where(ic: Any, ins: list, a: dict) -> Any:
    c, x, y = (ic.t(v) for v in ins)
    shape = np.broadcast_shapes(tuple(c.shape), tuple(x.shape), tuple(y.shape))
    b = lambda t: t if tuple(t.shape) == shape else _P("BroadcastTo")(t, shape=shape)  # noqa: E731
    return _P("Select")(b(c), b(x), b(y))


def _div(ic: Any, ins: list, a: dict) -> Any:
    """Div: integer inputs divide with truncation toward zero, as ONNX says."""
    x, y = ic.t(ins[0]), ic.t(ins[1])
    q = _P("RealDiv")(x, y)
    if x.dtype.np.kind in "iu":
        q = _P("Cast")(_P("Trunc")(q), dtype=x.dtype)
    return q


def _pow(ic: Any, ins: list, a: dict) -> Any:
    x, y = ic.t(ins[0]), ic.t(ins[1])
    if y.dtype != x.dtype:
        y = _P("Cast")(y, dtype=x.dtype)
    return _P("Pow")(x, y)


def _softmax_legacy(prim: str):
    """Softmax/LogSoftmax: opset >= 13 normalises one axis; before, the input is coerced to 2-D at `axis`."""

    def imp(ic: Any, ins: list, a: dict) -> Any:
        x = ic.t(ins[0])
        if ic.opset >= 13:
            return _P(prim)(x, axis=int(a.get("axis", -1)))
        axis = int(a.get("axis", 1)) % len(x.shape)
        shape = tuple(x.shape)
        y = _P(prim)(_reshape(ic, x, (math.prod(shape[:axis]), math.prod(shape[axis:]))), axis=-1)
        return _reshape(ic, y, shape)

    return imp


def _argext(prim: str):
    def imp(ic: Any, ins: list, a: dict) -> Any:
        x = ic.t(ins[0])
        axis = int(a.get("axis", 0))
        keep = bool(a.get("keepdims", 1))
        if not a.get("select_last_index", 0):
            return _P(prim)(x, axis=axis, keep_dims=keep, output_type=_int64())
        ax = axis % len(x.shape)  # the last extreme: the first one along the reversed axis
        flipped = x[tuple(slice(None, None, -1) if i == ax else slice(None) for i in range(len(x.shape)))]
        idx = _P(prim)(flipped, axis=ax, keep_dims=keep, output_type=_int64())
        return _P("Sub")(Tensor(np.asarray(x.shape[ax] - 1, np.int64)), idx)

    return imp


def _pad(ic: Any, ins: list, a: dict) -> Any:
    x = ic.t(ins[0])
    mode = a.get("mode", "constant")
    if mode != "constant":
        raise OnnxError(f"Pad mode {mode!r} is not supported", op="Pad")
    pads = _ints(ic, ins[1], "pads") if len(ins) > 1 and ins[1] is not None else list(a.get("pads", []))
    value = 0.0
    if len(ins) > 2 and ins[2] is not None:
        value = float(np.asarray(ic.static(ins[2], "constant_value")).reshape(-1)[0])
    elif "value" in a:
        value = float(a["value"])
    rank = len(x.shape)
    axes = _ints(ic, ins[3], "axes") if len(ins) > 3 and ins[3] is not None else list(range(rank))
    pairs = [[0, 0] for _ in range(rank)]
    n = len(axes)
    for i, ax in enumerate(axes):
        pairs[ax % rank] = [pads[i], pads[i + n]]
    if any(p < 0 for pr in pairs for p in pr):
        raise OnnxError("Pad with negative pads is not supported", op="Pad")
    _check_size("Pad", [d + lo + hi for d, (lo, hi) in zip(x.shape, pairs)])
    return _P("Pad")(x, paddings=tuple(tuple(p) for p in pairs), value=value)


def _check_size(op: str, shape: Any) -> None:
    """Refuse a shape computed at run time whose element count is absurd, before allocating it."""
    from .safety import MAX_ELEMENTS

    n = 1
    for d in shape:
        if d < 0:
            raise OnnxError(f"{op}: negative dim in shape {list(shape)}", op=op)
        n *= int(d)
        if n > MAX_ELEMENTS:
            raise OnnxError(f"{op}: shape {list(shape)} has more than {MAX_ELEMENTS} elements", op=op)


def _constant_of_shape(ic: Any, ins: list, a: dict) -> Any:
    shape = _ints(ic, ins[0], "shape")
    _check_size("ConstantOfShape", shape)
    v = a.get("value", np.zeros(1, np.float32))
    return np.full(shape, np.asarray(v).reshape(-1)[0], dtype=np.asarray(v).dtype)


def _dropout(ic: Any, ins: list, a: dict) -> Any:
    x = ic.t(ins[0])
    y = _P("Identity")(x)
    if len(ic.node.output) > 1 and ic.node.output[1]:
        return y, np.ones(tuple(x.shape), bool)
    return y


def _shape_dyn(ic: Any, ins: list, a: dict) -> Any:
    return _s_shape(ic, ins, a)


def _if(ic: Any, ins: list, a: dict, env: dict, table: dict) -> Any:
    """If: the branch is chosen on the condition's value (PyNative), so it must be computable."""
    from .importer import run_graph

    node = ic.node
    try:
        cond = bool(np.asarray(ic.static(ins[0], "the If condition")).reshape(-1)[0])
    except OnnxError:  # a traced condition (Graph mode): both branches, then a select
        then = run_graph(a["then_branch"], dict(env), ic, table)
        other = run_graph(a["else_branch"], dict(env), ic, table)
        ic.node = node
        c = _P("Reshape")(ic.t(ins[0]), shape=())
        out = []
        for t, e in zip(then, other):
            t, e = ic.t(t), ic.t(e)
            if tuple(t.shape) != tuple(e.shape) or t.dtype != e.dtype:
                raise OnnxError("If whose branches give different shapes or dtypes runs only in PyNative mode",
                                op="If", node=node.name) from None
            out.append(_P("Select")(_P("BroadcastTo")(c, shape=tuple(t.shape)), t, e))
        return tuple(out)
    out = run_graph(a["then_branch"] if cond else a["else_branch"], dict(env), ic, table)
    ic.node = node
    return tuple(out)


def _loop(ic: Any, ins: list, a: dict, env: dict, table: dict) -> Any:
    """Loop with its trip count and condition evaluated eagerly; scan outputs are stacked."""
    from .importer import run_graph

    node = ic.node
    body = a["body"]
    try:
        m = int(np.asarray(ic.static(ins[0], "the Loop trip count")).reshape(-1)[0]) if ins[0] is not None else None
        cond = bool(np.asarray(ic.static(ins[1], "the Loop condition")).reshape(-1)[0]) if len(ins) > 1 and \
            ins[1] is not None else True
    except OnnxError as err:
        raise OnnxError(f"{err.reason}; an imported Loop whose condition or trip count the graph computes runs "
                        "only in PyNative mode", op="Loop", node=node.name,
                        hint="call the imported Cell with ms.set_context(mode=ms.PYNATIVE_MODE)") from None
    carried = list(ins[2:])
    n_scan = len(body.output) - 1 - len(carried)
    scans: list[list[Any]] = [[] for _ in range(n_scan)]
    names = [i.name for i in body.input]
    i = 0
    limit = 10 ** 5  # a hostile trip count must not hang the caller
    while (m is None or i < m) and cond:
        if i >= limit:
            raise OnnxError(f"Loop ran {limit} iterations without stopping", op="Loop")
        local = dict(env)
        local.update(zip(names, [np.asarray(i, np.int64), np.asarray(cond)] + carried))
        outs = run_graph(body, local, ic, table)
        ic.node = node
        cond = bool(np.asarray(ic.static(outs[0], "the Loop condition")).reshape(-1)[0])
        carried = outs[1:1 + len(carried)]
        for k, s in enumerate(outs[1 + len(carried):]):
            scans[k].append(ic.t(s))
        i += 1
    stacked = []
    for s in scans:
        if not s:
            raise OnnxError("Loop with scan outputs ran zero iterations", op="Loop")
        stacked.append(_P("Stack")(*s, axis=0))
    return tuple(carried + stacked)


def _cast_like(ic: Any, ins: list, a: dict) -> Any:
    target = ins[1].dtype if isinstance(ins[1], Tensor) else None
    if target is None:
        from ..common.dtype import from_numpy

        target = from_numpy(np.asarray(ins[1]).dtype)
    return _P("Cast")(ic.t(ins[0]), dtype=target)


def _mod(ic: Any, ins: list, a: dict) -> Any:
    """Mod: the sign of the divisor (Python's %) by default, of the dividend with fmod=1."""
    x, y = ic.t(ins[0]), ic.t(ins[1])
    if not a.get("fmod", 0):
        return _P("FloorMod")(x, y)
    if x.dtype.np.kind in "iu":
        q = _P("Cast")(_P("Trunc")(_P("RealDiv")(x, y)), dtype=x.dtype)
    else:
        q = _P("Trunc")(_P("RealDiv")(x, y))
    return _P("Sub")(x, _P("Mul")(q, y))


def _range(ic: Any, ins: list, a: dict) -> Any:
    start, limit, delta = (np.asarray(ic.static(v, "Range bounds")) for v in ins)
    n = max(int(np.ceil((limit - start) / delta)), 0)
    if n > 2 ** 31:
        raise OnnxError(f"Range would make {n} elements", op="Range")
    return (start + np.arange(n) * delta).astype(start.dtype)


def _reduce_with(pre: Any, prim: str, post: Any = None):
    """ReduceL1/L2/SumSquare/LogSum/LogSumExp as a ReduceSum over a pre-mapped input."""
    from .mappings import reduce_import

    inner = reduce_import(prim)

    def imp(ic: Any, ins: list, a: dict) -> Any:
        x = ic.t(ins[0])
        y = inner(ic, [pre(x)] + list(ins[1:]), a)
        return post(y) if post else y

    return imp


def _cumsum(ic: Any, ins: list, a: dict) -> Any:
    axis = _ints(ic, ins[1], "axis")[0]
    return _P("CumSum")(ic.t(ins[0]), axis=axis, exclusive=bool(a.get("exclusive", 0)),
                        reverse=bool(a.get("reverse", 0)))


def _gather_elements(ic: Any, ins: list, a: dict) -> Any:
    x = ic.t(ins[0])
    axis = int(a.get("axis", 0)) % len(x.shape)
    idx = ins[1]
    if isinstance(idx, Tensor):
        idx = _P("Cast")(idx, dtype=_int64())
        n = _c(idx, x.shape[axis])
        idx = _P("Select")(_P("Less")(idx, _c(idx, 0)), _P("Add")(idx, n), idx)
    else:
        idx = np.asarray(idx).astype(np.int64)
        idx = np.where(idx < 0, idx + x.shape[axis], idx)
    return _P("GatherD")(x, ic.t(idx), dim=axis)


def _trilu(ic: Any, ins: list, a: dict) -> Any:
    x = ic.t(ins[0])
    k = _ints(ic, ins[1], "k")[0] if len(ins) > 1 and ins[1] is not None else 0
    rows, cols = x.shape[-2], x.shape[-1]
    mask = np.triu(np.ones((rows, cols), bool), k) if a.get("upper", 1) else np.tril(np.ones((rows, cols), bool), k)
    mask = np.broadcast_to(mask, tuple(x.shape))
    return _P("Select")(ic.t(np.ascontiguousarray(mask)), x, ic.t(np.zeros(tuple(x.shape), x.dtype.np)))


def _isinf(ic: Any, ins: list, a: dict) -> Any:
    x = ic.t(ins[0])
    y = _P("IsInf")(x)
    pos, neg = a.get("detect_positive", 1), a.get("detect_negative", 1)
    if pos and neg:
        return y
    side = _P("Greater")(x, _c(x, 0)) if pos else _P("Less")(x, _c(x, 0))
    return _P("LogicalAnd")(y, side) if (pos or neg) else _P("LogicalAnd")(y, _P("LogicalNot")(y))


def _topk(ic: Any, ins: list, a: dict) -> Any:
    x = ic.t(ins[0])
    k = _ints(ic, ins[1], "K")[0]
    axis = int(a.get("axis", -1)) % len(x.shape)
    vals, idx = _P("TopK")(x, k=k, axis=axis, largest=bool(a.get("largest", 1)))
    return vals, _P("Cast")(idx, dtype=_int64())


def _lrn(ic: Any, ins: list, a: dict) -> Any:
    """LRN: x / (bias + alpha/size * sum of x^2 over `size` neighbouring channels)^beta."""
    x = ic.t(ins[0])
    size = int(a["size"])
    alpha, beta, bias = a.get("alpha", 1e-4), a.get("beta", 0.75), a.get("bias", 1.0)
    sq = _P("Mul")(x, x)
    lo, hi = (size - 1) // 2, size - 1 - (size - 1) // 2
    pads = tuple((lo, hi) if i == 1 else (0, 0) for i in range(len(x.shape)))
    padded = _P("Pad")(sq, paddings=pads, value=0.0)
    c = x.shape[1]
    total = None
    for i in range(size):
        part = padded[:, i:i + c]
        total = part if total is None else _P("Add")(total, part)
    denom = _P("Pow")(_P("Add")(_P("Mul")(total, _c(x, alpha / size)), _c(x, bias)), _c(x, beta))
    return _P("RealDiv")(x, denom)


def _nll(ic: Any, logp: Any, target: Any, weight: Any, a: dict) -> Any:
    """NegativeLogLikelihoodLoss on log-probabilities (N, C, d...) and class targets (N, d...)."""
    target = _P("Cast")(ic.t(target), dtype=_int64())
    ignore = a.get("ignore_index")
    keep = None
    if ignore is not None:
        keep = _P("NotEqual")(target, Tensor(np.asarray(ignore, np.int64)))
        target = _P("Select")(keep, target, _P("Mul")(target, Tensor(np.asarray(0, np.int64))))
    idx = _reshape(ic, target, (target.shape[0], 1) + tuple(target.shape[1:]))
    picked = _reshape(ic, _P("GatherD")(logp, idx, dim=1), tuple(target.shape))
    loss = _P("Neg")(picked)
    w = None
    if weight is not None:
        w = _P("Gather")(ic.t(weight), target, axis=0)
    if keep is not None:
        mask = _P("Cast")(keep, dtype=logp.dtype)
        w = mask if w is None else _P("Mul")(w, mask)
    if w is not None:
        loss = _P("Mul")(loss, w)
    red = a.get("reduction", "mean")
    if red == "none":
        return loss
    total = _P("ReduceSum")(loss, axis=(), keep_dims=False)
    if red == "sum":
        return total
    denom = _P("ReduceSum")(w, axis=(), keep_dims=False) if w is not None else _c(loss, float(np.prod(loss.shape)))
    return _P("RealDiv")(total, denom)


def _nll_op(ic: Any, ins: list, a: dict) -> Any:
    return _nll(ic, ic.t(ins[0]), ins[1], ins[2] if len(ins) > 2 else None, a)


def _sce(ic: Any, ins: list, a: dict) -> Any:
    logp = _P("LogSoftmax")(ic.t(ins[0]), axis=1)
    loss = _nll(ic, logp, ins[1], ins[2] if len(ins) > 2 else None, a)
    return (loss, logp) if len(ic.node.output) > 1 and ic.node.output[1] else loss


NEEDS_RUN = {"If", "Loop"}

def _conv_transpose(ic: Any, ins: list, a: dict) -> Any:
    """ConvTranspose (1-D and 2-D; PyTorch's nn.ConvTranspose1d/2d): Spore's transposed convolution
    with ONNX's pads, or the pads that `output_shape` / SAME_* auto_pad imply."""
    from ..ops.conv_pool_nd import _conv_transpose_2d

    x0 = ic.t(ins[0])
    x, one_d = _to2d(x0)
    w = ic.t(ins[1])
    if len(w.shape) != len(x0.shape):
        raise OnnxError(f"ConvTranspose: weight rank {len(w.shape)} does not match input rank {len(x0.shape)}",
                        op="ConvTranspose", node=ic.node.name)
    n = len(x0.shape) - 2
    k = list(w.shape[2:])
    strides, dil = _spatial(a, "strides", n, 1), _spatial(a, "dilations", n, 1)
    opad = list(a.get("output_padding", [0] * n))
    in_sp = list(x0.shape[2:])
    auto = a.get("auto_pad", "NOTSET") or "NOTSET"
    if "output_shape" in a or auto in ("SAME_UPPER", "SAME_LOWER"):
        out = list(a["output_shape"])[-n:] if "output_shape" in a else [in_sp[i] * strides[i] for i in range(n)]
        begins, ends = [], []
        for i in range(n):
            total = strides[i] * (in_sp[i] - 1) + opad[i] + (k[i] - 1) * dil[i] + 1 - int(out[i])
            b_, e_ = (total // 2, total - total // 2) if auto == "SAME_UPPER" else (total - total // 2, total // 2)
            if e_ < 0:  # an output larger than the kernel reaches: zeros at the end, as output padding
                opad[i], e_ = opad[i] - e_, 0
            if b_ < 0:
                raise OnnxError(f"ConvTranspose: output_shape {list(out)} needs padding before axis {i}",
                                op="ConvTranspose", node=ic.node.name)
            begins.append(b_)
            ends.append(e_)
    elif auto == "VALID":
        begins, ends = [0] * n, [0] * n
    else:
        pads = list(a.get("pads", [0] * (2 * n)))
        begins, ends = pads[:n], pads[n:]
    if one_d:
        w = _P("Reshape")(w, shape=(w.shape[0], w.shape[1], 1, w.shape[2]))
        strides, dil, begins, ends, opad = [1] + strides, [1] + dil, [0] + begins, [0] + ends, [0] + opad
    y = _conv_transpose_2d("ConvTranspose", x, w, strides, begins, ends, dil, int(a.get("group", 1)), opad)
    if len(ins) > 2 and ins[2] is not None:
        y = _P("Add")(y, _reshape(ic, ins[2], (1, -1, 1, 1)))
    if one_d:
        y = _P("Reshape")(y, shape=(y.shape[0], y.shape[1], y.shape[3]))
    return y


def _instance_norm(ic: Any, ins: list, a: dict) -> Any:
    """InstanceNormalization (PyTorch's InstanceNorm, and its GroupNorm export): a group norm with
    one channel per group."""
    from ..ops.activation_loss_extra import group_norm

    x = ic.t(ins[0])
    return group_norm(x, int(x.shape[1]), ic.t(ins[1]), ic.t(ins[2]), eps=float(a.get("epsilon", 1e-5)))


def _depth_to_space(ic: Any, ins: list, a: dict) -> Any:
    """DepthToSpace (PyTorch's PixelShuffle exports mode CRD): reshape, transpose, reshape."""
    x = ic.t(ins[0])
    b = int(a["blocksize"])
    n, c, h, w = (int(d) for d in x.shape)
    if c % (b * b):
        raise OnnxError(f"DepthToSpace: channels {c} are not a multiple of blocksize^2 = {b * b}",
                        op="DepthToSpace", node=ic.node.name)
    if a.get("mode", "DCR") == "CRD":
        t = _P("Transpose")(_reshape(ic, x, (n, c // (b * b), b, b, h, w)), perm=(0, 1, 4, 2, 5, 3))
    else:
        t = _P("Transpose")(_reshape(ic, x, (n, b, b, c // (b * b), h, w)), perm=(0, 3, 4, 1, 5, 2))
    return _reshape(ic, t, (n, c // (b * b), h * b, w * b))


def _space_to_depth(ic: Any, ins: list, a: dict) -> Any:
    x = ic.t(ins[0])
    b = int(a["blocksize"])
    n, c, h, w = (int(d) for d in x.shape)
    if h % b or w % b:
        raise OnnxError(f"SpaceToDepth: spatial {h}x{w} is not a multiple of blocksize {b}",
                        op="SpaceToDepth", node=ic.node.name)
    t = _P("Transpose")(_reshape(ic, x, (n, c, h // b, b, w // b, b)), perm=(0, 3, 5, 1, 2, 4))
    return _reshape(ic, t, (n, c * b * b, h // b, w // b))


_LINEAR_BY_RANK = {3: "linear", 4: "bilinear", 5: "trilinear"}
# ONNX Resize's output -> input coordinate (x, scale, in, out), as onnx's reference evaluator
# computes it: the float output length scale * in enters align_corners and the pytorch/symmetric modes
_RESIZE_COORDS = {
    "half_pixel": lambda x, s, i, o: (x + 0.5) / s - 0.5,
    "pytorch_half_pixel": lambda x, s, i, o: (x + 0.5) / s - 0.5 if s * i != 1 else np.full_like(x, -0.5),
    "align_corners": lambda x, s, i, o: x * (i - 1) / (s * i - 1) if s * i != 1 else np.zeros_like(x),
    "asymmetric": lambda x, s, i, o: x / s,
    "half_pixel_symmetric": lambda x, s, i, o: i / 2 * (1 - o / (s * i)) + (x + 0.5) / s - 0.5,
}
_NEAREST_ROUND = {"round_prefer_floor": lambda v: np.ceil(v - 0.5), "round_prefer_ceil": lambda v: np.floor(v + 0.5),
                  "floor": np.floor, "ceil": np.ceil}


def _cubic_taps(r: np.ndarray, A: float) -> np.ndarray:
    """Keys' cubic convolution weights of the taps at offsets -1, 0, 1, 2 for fractions r."""
    def near(t):  # |t| <= 1
        return ((A + 2) * t - (A + 3)) * t * t + 1

    def far(t):  # 1 < |t| < 2
        return ((A * t - 5 * A) * t + 8 * A) * t - 4 * A

    return np.stack([far(r + 1), near(r), near(1 - r), far(2 - r)], axis=1)


def _resize_weights(src: np.ndarray, n_in: int, mode: str, coeff_a: float, exclude: bool) -> np.ndarray:
    """The (out, in) matrix of linear or cubic interpolation at input coordinates `src`, with
    edge padding (indices clamped) and, with `exclude`, outside taps dropped and renormalised."""
    x0 = np.floor(src)
    r = src - x0
    if mode == "linear":
        offsets, coeffs = np.array([0, 1]), np.stack([1 - r, r], axis=1)
    else:
        offsets, coeffs = np.array([-1, 0, 1, 2]), _cubic_taps(r, coeff_a)
    idx = x0[:, None].astype(np.int64) + offsets[None, :]
    if exclude:
        coeffs = np.where((idx >= 0) & (idx < n_in), coeffs, 0.0)
        coeffs = coeffs / coeffs.sum(axis=1, keepdims=True)
    w = np.zeros((len(src), n_in))
    np.add.at(w, (np.repeat(np.arange(len(src)), len(offsets)), np.clip(idx, 0, n_in - 1).reshape(-1)),
              coeffs.reshape(-1))
    return w


def _resize(ic: Any, ins: list, a: dict) -> Any:
    """Resize / Upsample (PyTorch's nn.Upsample and F.interpolate exports), axis by axis with
    constant index/weight tables built in NumPy by onnx's reference rules: nearest (a Gather, every
    rounding mode), linear and cubic (a MatMul by an (in, out) matrix; cubic_coeff_a,
    exclude_outside), every coordinate mode but tf_crop_and_resize, opset 18's axes and
    keep_aspect_ratio_policy. Differentiable in the input. antialias and tf_crop_and_resize are
    refused by name."""
    x = ic.t(ins[0])
    op = ic.node.op_type
    rank = len(x.shape)
    mode = a.get("mode", "nearest")
    ctm = a.get("coordinate_transformation_mode", "asymmetric" if op == "Upsample" or ic.opset < 11
                else "half_pixel")
    nearest = a.get("nearest_mode", "round_prefer_floor" if ic.opset >= 11 and op == "Resize" else "floor")

    def refuse(what: str) -> OnnxError:
        return OnnxError(f"{op}: {what} is not supported (Spore imports PyTorch's interpolate modes)",
                         op=op, node=ic.node.name)

    if a.get("antialias", 0):
        raise refuse("antialias")
    if a.get("keep_aspect_ratio_policy", "stretch") not in ("stretch", "not_larger", "not_smaller"):
        raise refuse(f"keep_aspect_ratio_policy={a['keep_aspect_ratio_policy']!r}")
    if op == "Upsample" or ic.opset < 11:
        scales_in, sizes_in = (ins[1] if len(ins) > 1 else a.get("scales")), None
    else:
        scales_in = ins[2] if len(ins) > 2 else None
        sizes_in = ins[3] if len(ins) > 3 else None
    scales = None if scales_in is None else np.asarray(ic.static(scales_in, "scales"), np.float64).reshape(-1)
    sizes = None if sizes_in is None else _ints(ic, sizes_in, "sizes")
    if scales is not None and scales.size == 0:
        scales = None
    if sizes is not None and not sizes:
        sizes = None
    if "axes" in a:  # opset 18: scales/sizes name only these axes; the others keep their size
        axes = [int(v) % rank for v in a["axes"]]
        if scales is not None:
            full = np.ones(rank)
            full[axes] = scales
            scales = full
        if sizes is not None:
            full_sizes = [int(d) for d in x.shape]
            for ax, v in zip(axes, sizes):
                full_sizes[ax] = int(v)
            sizes = full_sizes
    if scales is not None:
        if len(scales) != rank or np.any(scales[:2] != 1):
            raise refuse(f"scales {scales.tolist()} (batch and channel must stay 1)")
    elif sizes is not None:
        if len(sizes) != rank or list(sizes[:2]) != list(x.shape[:2]):
            raise refuse(f"sizes {sizes} (batch and channel must stay)")
    else:
        raise OnnxError(f"{op}: neither scales nor sizes is given", op=op, node=ic.node.name)
    policy = a.get("keep_aspect_ratio_policy", "stretch")
    keep: dict[int, tuple[float, int]] = {}
    if policy in ("not_larger", "not_smaller") and sizes is not None:
        # one scale for the named axes (the smallest or largest size ratio), sizes rounded half up
        named = [int(v) % rank for v in a.get("axes", range(rank))]
        ratios = [sizes[i] / int(x.shape[i]) for i in named]
        scale = min(ratios) if policy == "not_larger" else max(ratios)
        keep = {i: (scale, int(scale * int(x.shape[i]) + 0.5)) for i in named}
        if any(keep[i][1] != int(x.shape[i]) for i in (0, 1) if i in keep):
            raise refuse(f"keep_aspect_ratio_policy={policy!r} resizing the batch or channel axis")

    def axis_scale(axis: int, n_in: int) -> tuple[float, int]:
        if axis in keep:
            scale, n_out = keep[axis]
        elif scales is not None:
            scale, n_out = float(scales[axis]), int(math.floor(n_in * float(scales[axis])))
        else:
            n_out = int(sizes[axis])
            scale = n_out / n_in
        if n_out <= 0:
            raise refuse(f"an empty output on axis {axis}")
        return scale, n_out

    if mode == "nearest":
        if ctm not in _RESIZE_COORDS or nearest not in _NEAREST_ROUND:
            raise refuse(f"nearest with coordinate_transformation_mode={ctm!r}, nearest_mode={nearest!r}")
        for axis in range(2, rank):
            n_in = int(x.shape[axis])
            scale, n_out = axis_scale(axis, n_in)
            src = _RESIZE_COORDS[ctm](np.arange(n_out, dtype=np.float64), scale, n_in, n_out)
            idx = np.clip(_NEAREST_ROUND[nearest](src), 0, n_in - 1).astype(np.int64)
            if n_out != n_in or np.any(idx != np.arange(n_in)):
                x = _P("Gather")(x, Tensor(idx), axis=axis)
        return x
    if mode in ("linear", "cubic"):
        from ..ops.linalg import matmul

        if ctm not in _RESIZE_COORDS:
            raise refuse(f"{mode} with coordinate_transformation_mode={ctm!r}")
        coeff_a, exclude = float(a.get("cubic_coeff_a", -0.75)), bool(a.get("exclude_outside", 0))
        for axis in range(2, rank):
            n_in = int(x.shape[axis])
            scale, n_out = axis_scale(axis, n_in)
            src = _RESIZE_COORDS[ctm](np.arange(n_out, dtype=np.float64), scale, n_in, n_out)
            wmat = _resize_weights(src, n_in, mode, coeff_a, exclude).astype(x.dtype.np)
            if n_out == n_in and np.array_equal(wmat, np.eye(n_in)):
                continue
            perm = list(range(rank))
            perm[axis], perm[-1] = perm[-1], perm[axis]
            moved = _P("Transpose")(x, perm=tuple(perm)) if axis != rank - 1 else x
            y = matmul(moved, Tensor(np.ascontiguousarray(wmat.T)))
            x = _P("Transpose")(y, perm=tuple(perm)) if axis != rank - 1 else y
        return x
    raise refuse(f"mode {mode!r}")


_RNN_ACT = {"sigmoid": "sigmoid", "tanh": "tanh", "relu": "relu"}
# per ONNX recurrent op: gate count, default activations per direction, and its input count
_RNN_SPEC = {"LSTM": (4, ["Sigmoid", "Tanh", "Tanh"], 8), "GRU": (3, ["Sigmoid", "Tanh"], 6),
             "RNN": (1, ["Tanh"], 6)}


def _recurrent(kind: str):
    """LSTM / GRU / RNN (PyTorch's exporter writes one per nn.LSTM/GRU/RNN layer), unrolled over the
    (static) sequence with Spore ops, so gradients reach W, R, B and the initial states. Gate
    blocks in W/R/B follow ONNX: i, o, f, c (LSTM) and z, r, h (GRU)."""
    gates, default_acts, n_in = _RNN_SPEC[kind]

    def imp(ic: Any, ins: list, a: dict) -> Any:
        from ..ops import functional as F

        ins = list(ins) + [None] * (n_in - len(ins))
        x, w, r, b, seq_lens, h0 = ins[:6]
        c0, p = (ins[6], ins[7]) if kind == "LSTM" else (None, None)
        hid = int(a["hidden_size"])
        direction = a.get("direction", b"forward")
        direction = direction.decode() if isinstance(direction, bytes) else str(direction)
        if direction not in ("forward", "reverse", "bidirectional"):
            raise OnnxError(f"{kind}: direction {direction!r} is not forward, reverse or bidirectional", op=kind)
        ndir = 2 if direction == "bidirectional" else 1
        acts = [v.decode() if isinstance(v, bytes) else str(v) for v in a.get("activations", [])] or \
            default_acts * ndir
        if len(acts) != len(default_acts) * ndir or any(v.lower() not in _RNN_ACT for v in acts) or \
                a.get("activation_alpha") or a.get("activation_beta"):
            raise OnnxError(f"{kind}: activations {acts} are not supported (Spore imports Sigmoid, Tanh and "
                            "Relu without alpha/beta)", op=kind, node=ic.node.name)
        clip = a.get("clip")
        x = ic.t(x)
        if a.get("layout", 0):
            x = _P("Transpose")(x, perm=(1, 0, 2))
        seq, batch = int(x.shape[0]), int(x.shape[1])
        mask = None
        if seq_lens is not None:
            lens = np.asarray(ic.static(seq_lens, "sequence_lens")).reshape(-1).astype(np.int64)
            if lens.shape != (batch,) or np.any(lens < 0) or np.any(lens > seq):
                raise OnnxError(f"{kind}: sequence_lens {lens.tolist()} do not fit batch {batch} and length {seq}",
                                op=kind, node=ic.node.name)
            if np.any(lens != seq):
                mask = [Tensor((t < lens).reshape(batch, 1)) for t in range(seq)]
        w, r = ic.t(w), ic.t(r)
        one = Tensor(np.ones((), np.float32))

        def act(pre: Any, fn: str, clipped: bool = True) -> Any:
            if clip is not None and clipped:
                pre = F.clip_by_value(pre, -float(clip), float(clip))
            return getattr(F, _RNN_ACT[fn.lower()])(pre)

        ys, hs, cs = [], [], []
        for d in range(ndir):
            fa = acts[len(default_acts) * d: len(default_acts) * (d + 1)]
            wb = rb = None
            if b is not None:
                bd = ic.t(b)[d]
                wb, rb = bd[:gates * hid], bd[gates * hid:]
            # GRU's hidden gate keeps its recurrent bias apart (linear_before_reset); the others add both
            in_bias = wb if kind == "GRU" or wb is None else F.add(wb, rb)
            xw = F.reshape(F.dense(F.reshape(x, (seq * batch, int(x.shape[2]))), w[d], in_bias),
                           (seq, batch, gates * hid))
            h = ic.t(h0)[d] if h0 is not None else Tensor(np.zeros((batch, hid), np.float32))
            c = ic.t(c0)[d] if c0 is not None else Tensor(np.zeros((batch, hid), np.float32))
            pi = po = pf = None
            if p is not None:
                pd = ic.t(p)[d]
                pi, po, pf = pd[:hid], pd[hid:2 * hid], pd[2 * hid:]
            reverse = direction == "reverse" or d == 1
            outs: list[Any] = [None] * seq
            for t in (range(seq - 1, -1, -1) if reverse else range(seq)):
                c_new = c
                if kind == "LSTM":
                    gi, go, gf, gc = F.split(F.add(xw[t], F.dense(h, r[d])), hid, axis=1)
                    i = act(gi if pi is None else F.add(gi, F.mul(pi, c)), fa[0])
                    f = F.sub(one, i) if a.get("input_forget", 0) else \
                        act(gf if pf is None else F.add(gf, F.mul(pf, c)), fa[0])
                    c_new = F.add(F.mul(f, c), F.mul(i, act(gc, fa[1])))
                    o = act(go if po is None else F.add(go, F.mul(po, c_new)), fa[0])
                    h_new = F.mul(o, act(c_new, fa[2], clipped=False))
                elif kind == "GRU":
                    xz, xr, xh = F.split(xw[t], hid, axis=1)
                    rz, rr, rh = F.split(r[d], hid, axis=0)
                    bz, br, bh = F.split(rb, hid, axis=0) if rb is not None else (None, None, None)
                    z = act(F.add(xz, F.dense(h, rz, bz)), fa[0])
                    rt = act(F.add(xr, F.dense(h, rr, br)), fa[0])
                    if a.get("linear_before_reset", 0):
                        hh = act(F.add(xh, F.mul(rt, F.dense(h, rh, bh))), fa[1])
                    else:
                        hh = act(F.add(xh, F.dense(F.mul(rt, h), rh, bh)), fa[1])
                    h_new = F.add(hh, F.mul(z, F.sub(h, hh)))  # (1 - z) * hh + z * h
                else:
                    h_new = act(F.add(xw[t], F.dense(h, r[d])), fa[0])
                if mask is not None:
                    h, c = F.where(mask[t], h_new, h), F.where(mask[t], c_new, c)
                    outs[t] = F.where(mask[t], h_new, F.zeros_like(h_new))
                else:
                    h, c, outs[t] = h_new, c_new, h_new
            ys.append(F.stack(outs, 0))
            hs.append(h)
            cs.append(c)
        y = F.stack(ys, 1)  # (seq, num_directions, batch, hidden)
        states = [F.stack(hs, 0)] + ([F.stack(cs, 0)] if kind == "LSTM" else [])
        if a.get("layout", 0):
            y = _P("Transpose")(y, perm=(2, 0, 1, 3))
            states = [_P("Transpose")(v, perm=(1, 0, 2)) for v in states]
        return (y, *states)

    return imp


TABLE: dict[str, Any] = {
    "LSTM": _recurrent("LSTM"),
    "ConvTranspose": _conv_transpose,
    "InstanceNormalization": _instance_norm,
    "DepthToSpace": _depth_to_space,
    "SpaceToDepth": _space_to_depth,
    "Resize": _resize,
    "Upsample": _resize,
    "GRU": _recurrent("GRU"),
    "RNN": _recurrent("RNN"),
    "Constant": _constant,
    "Conv": _conv,
    "MaxPool": _pool("MaxPool"),
    "AveragePool": _pool("AvgPool"),
    "GlobalAveragePool": _global("ReduceMean"),
    "GlobalMaxPool": _global("ReduceMax"),
    "Gemm": _gemm,
    "MatMul": _matmul,
    "Flatten": _flatten,
    "Reshape": _reshape_op,
    "Transpose": _transpose,
    "Unsqueeze": _unsqueeze,
    "Squeeze": _squeeze,
    "Concat": _concat,
    "Split": _split,
    "Slice": _slice,
    "Gather": _gather,
    "Cast": _cast,
    "BatchNormalization": _batchnorm,
    "LayerNormalization": _layernorm,
    "Clip": _clip,
    "Sum": _variadic("Add"),
    "Mean": _variadic("Add", mean=True),
    "Max": _variadic("Maximum"),
    "Min": _variadic("Minimum"),
    "Expand": _expand,
    "Tile": _tile,
    "Where": _where,
    "Pow": _pow,
    "Div": _div,
    "Softmax": _softmax_legacy("Softmax"),
    "LogSoftmax": _softmax_legacy("LogSoftmax"),
    "ArgMax": _argext("Argmax"),
    "ArgMin": _argext("Argmin"),
    "Pad": _pad,
    "ConstantOfShape": _constant_of_shape,
    "Dropout": _dropout,
    "Shape": _shape_dyn,
    "Size": lambda ic, ins, a: np.asarray(int(np.prod(_shape(ins[0]))), np.int64),
    "If": _if,
    "Loop": _loop,
    "Softplus": _unary(lambda ic, x, a: _P("Softplus")(x)),
    "Softsign": _unary(lambda ic, x, a: _P("RealDiv")(x, _P("Add")(_P("Abs")(x), _c(x, 1.0)))),
    "HardSigmoid": _unary(lambda ic, x, a: _P("Maximum")(_P("Minimum")(
        _P("Add")(_P("Mul")(x, _c(x, a.get("alpha", 0.2))), _c(x, a.get("beta", 0.5))), _c(x, 1.0)), _c(x, 0.0))),
    "HardSwish": _unary(lambda ic, x, a: _P("Mul")(x, _P("Maximum")(_P("Minimum")(
        _P("Add")(_P("Mul")(x, _c(x, 1 / 6)), _c(x, 0.5)), _c(x, 1.0)), _c(x, 0.0)))),
    "Selu": _unary(lambda ic, x, a: _P("Mul")(_P("Elu")(x, alpha=float(a.get("alpha", 1.67326319217681884765625))),
                                             _c(x, a.get("gamma", 1.05070102214813232421875)))),
    "PRelu": lambda ic, ins, a: (lambda x, s: _P("Select")(
        _P("BroadcastTo")(_P("Greater")(x, _c(x, 0.0)), shape=np.broadcast_shapes(tuple(x.shape), tuple(s.shape))),
        _P("BroadcastTo")(x, shape=np.broadcast_shapes(tuple(x.shape), tuple(s.shape))),
        _P("Mul")(x, s)))(ic.t(ins[0]), ic.t(ins[1])),
    "ThresholdedRelu": _unary(lambda ic, x, a: _P("Select")(_P("Greater")(x, _c(x, a.get("alpha", 1.0))), x,
                                                            _P("Mul")(x, _c(x, 0.0)))),
    "Mish": _unary(lambda ic, x, a: _P("Mul")(x, _P("Tanh")(_P("Softplus")(x)))),
    "Celu": _unary(lambda ic, x, a: _P("Mul")(_P("Elu")(_P("RealDiv")(x, _c(x, a.get("alpha", 1.0)))),
                                             _c(x, a.get("alpha", 1.0)))),
    "Relu": _unary(lambda ic, x, a: _P("ReLU")(x)),
    "CastLike": _cast_like,
    "Mod": _mod,
    "Range": _range,
    "ReduceL1": _reduce_with(lambda x: _P("Abs")(x), "ReduceSum"),
    "ReduceL2": _reduce_with(lambda x: _P("Mul")(x, x), "ReduceSum", lambda y: _P("Sqrt")(y)),
    "ReduceSumSquare": _reduce_with(lambda x: _P("Mul")(x, x), "ReduceSum"),
    "ReduceLogSum": _reduce_with(lambda x: x, "ReduceSum", lambda y: _P("Log")(y)),
    "ReduceLogSumExp": _reduce_with(lambda x: _P("Exp")(x), "ReduceSum", lambda y: _P("Log")(y)),
    "CumSum": _cumsum,
    "GatherElements": _gather_elements,
    "Trilu": _trilu,
    "Round": _unary(lambda ic, x, a: _P("Round")(x)),
    "IsInf": _isinf,
    "Swish": _unary(lambda ic, x, a: _P("Mul")(x, _P("Sigmoid")(_P("Mul")(x, _c(x, a.get("alpha", 1.0)))))),
    "TopK": _topk,
    "LRN": _lrn,
    "NegativeLogLikelihoodLoss": _nll_op,
    "SoftmaxCrossEntropyLoss": _sce,
}
