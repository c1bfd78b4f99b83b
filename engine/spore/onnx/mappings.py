"""The export and import functions that op declarations name in their `OnnxMap` (by string, so
`spore/ops` does not import this module while the registry is built).

Export functions: ``f(ctx, inputs: list[str], attrs: dict) -> list[str]`` (ONNX value names).
Import functions: ``f(ic, inputs: list, attrs: dict) -> Tensor | tuple`` where `ic` is the
importer's `ImportCtx` (its `prim(name)` applies a primitive; `static(x)` reads a constant input).
Attribute translators for one-to-one ops are small lambdas in the declarations themselves.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import OnnxError

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


# ---------------------------------------------------------------------------------------------
# export
def _axes_list(axis: Any) -> list[int] | None:
    if axis is None or axis == () or axis == []:
        return None
    return [int(a) for a in (axis if isinstance(axis, (tuple, list)) else (axis,))]


def export_reduce(op_type: str):
    """ReduceX(axis, keep_dims): `axes` is an input for ReduceSum from opset 13 and for the other
    reductions from opset 18, an attribute before."""

    def emit(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
        axes = _axes_list(attrs.get("axis", ()))
        keep = int(bool(attrs.get("keep_dims", False)))
        if op_type == "ReduceSum" or ctx.opset >= 18:
            inputs = ins + ([ctx.ints(axes)] if axes is not None else [])
            return ctx.node(op_type, inputs, keepdims=keep)
        return ctx.node(op_type, ins, keepdims=keep, axes=axes)

    return emit


def reshape(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
    """Reshape with dims equal to the input's dim at the same position written as 0 (ONNX: copy
    that input dim), so a model exported with a dynamic batch reshapes any batch."""
    in_shape = ctx.eqn.inputs[0].aval.shape
    target = [int(d) for d in ctx.eqn.outputs[0].aval.shape]
    spec = list(attrs["shape"])
    if -1 in spec and sum(1 for d in spec if d == -1) == 1:
        target = [int(d) for d in spec]
    dims = [0 if i < len(in_shape) and d == in_shape[i] and d > 0 else d for i, d in enumerate(target)]
    return ctx.node("Reshape", [ins[0], ctx.ints(dims)])


def _transposed(ctx: Any, name: str, rank: int) -> str:
    perm = list(range(rank))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return ctx.node("Transpose", [name], perm=perm)[0]


def matmul(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
    a, b = ins
    ra, rb = (len(x.aval.shape) for x in ctx.eqn.inputs)
    if attrs.get("transpose_a"):
        a = _transposed(ctx, a, ra)
    if attrs.get("transpose_b"):
        b = _transposed(ctx, b, rb)
    return ctx.node("MatMul", [a, b])


def conv_attrs(attrs: dict, ctx: Any) -> dict:
    t, b, l, r = attrs.get("pad", (0, 0, 0, 0))
    return {"strides": list(attrs.get("stride", (1, 1))), "pads": [t, l, b, r],
            "dilations": list(attrs.get("dilation", (1, 1))), "group": int(attrs.get("group", 1))}


def conv_transpose_attrs(attrs: dict, ctx: Any) -> dict:
    """Conv2DBackpropInput (conv_transpose2d, nn.Conv2dTranspose) as ONNX ConvTranspose: the same
    weight layout (C_in, C_out/group, kH, kW); the output size `input_size` becomes output_padding."""
    t, b, l, r = attrs.get("pad", (0, 0, 0, 0))
    s = list(attrs.get("stride", (1, 1)))[-2:]
    d = list(attrs.get("dilation", (1, 1)))[-2:]
    x_shape, w_shape = ctx.eqn.inputs[0].aval.shape, ctx.eqn.inputs[1].aval.shape
    out = list(attrs["input_size"])[2:]
    begin, end = (t, l), (b, r)
    opad = [int(out[i]) - ((x_shape[2 + i] - 1) * s[i] - begin[i] - end[i] + d[i] * (w_shape[2 + i] - 1) + 1)
            for i in range(2)]
    if any(o < 0 for o in opad):
        raise OnnxError(f"Conv2DBackpropInput: output size {out} is smaller than ConvTranspose gives",
                        op="Conv2DBackpropInput")
    return {"strides": s, "pads": [t, l, b, r], "dilations": d, "group": int(attrs.get("group", 1)),
            "kernel_shape": [int(k) for k in w_shape[2:]], "output_padding": opad}


def pool_attrs(attrs: dict, ctx: Any) -> dict:
    t, b, l, r = attrs.get("pad", (0, 0, 0, 0))
    out = {"kernel_shape": list(attrs["kernel_size"]), "strides": list(attrs.get("strides", (1, 1))),
           "pads": [t, l, b, r], "ceil_mode": int(bool(attrs.get("ceil_mode", False)))}
    if "dilation" in attrs and tuple(attrs["dilation"]) != (1, 1):
        out["dilations"] = list(attrs["dilation"])
    if "count_include_pad" in attrs:
        out["count_include_pad"] = int(bool(attrs["count_include_pad"]))
        if attrs.get("divisor_override"):
            raise OnnxError("AvgPool with divisor_override has no ONNX equivalent", op="AvgPool")
    return out


def batchnorm(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
    if attrs.get("is_training"):
        raise OnnxError("BatchNorm in training mode has no ONNX inference equivalent: call net.set_train(False) "
                        "before export", op="BatchNorm")
    return ctx.node("BatchNormalization", ins, epsilon=float(attrs.get("epsilon", 1e-5)))


def layernorm(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
    axis = int(attrs.get("begin_norm_axis", 1))
    if int(attrs.get("begin_params_axis", axis)) != axis:
        raise OnnxError("LayerNorm with begin_params_axis != begin_norm_axis has no ONNX equivalent", op="LayerNorm")
    return ctx.node("LayerNormalization", ins, axis=axis, epsilon=float(attrs.get("epsilon", 1e-7)))


def split(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
    sizes = list(attrs["sizes"])
    return ctx.node("Split", [ins[0], ctx.ints(sizes)], n_out=len(sizes), axis=int(attrs["axis"]))


def stack(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
    axis = int(attrs.get("axis", 0))
    rank = len(ctx.eqn.outputs[0].aval.shape)
    axis = axis % rank
    ax = ctx.ints([axis])
    parts = [ctx.node("Unsqueeze", [x, ax])[0] for x in ins]
    return ctx.node("Concat", parts, axis=axis)


def getitem(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
    """Basic indexing: slices as one Slice, integers as Gathers (last axis first), new axes as
    one Unsqueeze. Array and tensor indices are refused."""
    x = ins[0]
    shape = ctx.eqn.inputs[0].aval.shape
    slices, ints, news = [], [], []
    d = out = 0
    for entry in attrs["index"]:
        kind = entry[0]
        if kind == "slice":
            start, stop, step = entry[1], entry[2], entry[3] if entry[3] is not None else 1
            if start is None:
                start = 0 if step > 0 else INT64_MAX
            if stop is None:
                stop = INT64_MAX if step > 0 else INT64_MIN
            if (start, stop, step) != (0, INT64_MAX, 1) and not (start == 0 and step == 1 and stop == shape[d]):
                slices.append((d, start, stop, step))
            d, out = d + 1, out + 1
        elif kind == "int":
            ints.append((d, entry[1]))
            d += 1
        elif kind == "none":
            news.append(out)
            out += 1
        else:
            raise OnnxError(f"indexing with {kind} indices has no ONNX mapping in Spore's exporter", op="GetItem")
    if slices:
        cols = list(zip(*slices))
        x = ctx.node("Slice", [x, ctx.ints(cols[1]), ctx.ints(cols[2]), ctx.ints(cols[0]), ctx.ints(cols[3])])[0]
    for axis, i in sorted(ints, reverse=True):
        x = ctx.node("Gather", [x, ctx.const(np.int64(i))], axis=axis)[0]
    if news:
        x = ctx.node("Unsqueeze", [x, ctx.ints(news)])[0]
    if not (slices or ints or news):
        x = ctx.node("Identity", [x])[0]
    return [x]


def gelu(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
    approx = attrs.get("approximate", "none")
    if ctx.opset >= 20:
        return ctx.node("Gelu", ins, approximate="tanh" if approx == "tanh" else "none")
    x = ins[0]
    dt = ctx.eqn.inputs[0].aval.dtype.np
    if approx == "tanh":  # 0.5 x (1 + tanh(c (x + k x^3)))
        x3 = ctx.node("Mul", [ctx.node("Mul", [x, x])[0], x])[0]
        inner = ctx.node("Add", [x, ctx.node("Mul", [x3, ctx.const(0.044715, dt)])[0]])[0]
        t = ctx.node("Tanh", [ctx.node("Mul", [inner, ctx.const(math.sqrt(2 / math.pi), dt)])[0]])[0]
    else:
        t = ctx.node("Erf", [ctx.node("Div", [x, ctx.const(math.sqrt(2.0), dt)])[0]])[0]
    one = ctx.node("Add", [t, ctx.const(1.0, dt)])[0]
    return ctx.node("Mul", [ctx.node("Mul", [x, one])[0], ctx.const(0.5, dt)])


def silu(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
    return ctx.node("Mul", [ins[0], ctx.node("Sigmoid", ins)[0]])


def square(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
    return ctx.node("Mul", [ins[0], ins[0]])


def rsqrt(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
    return ctx.node("Reciprocal", ctx.node("Sqrt", ins))


def not_equal(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
    return ctx.node("Not", ctx.node("Equal", ins))


def cast(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
    from onnx import helper

    dt = ctx.eqn.outputs[0].aval.dtype.np
    return ctx.node("Cast", ins, to=helper.np_dtype_to_tensor_dtype(np.dtype(dt)))


def broadcast_to(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
    return ctx.node("Expand", [ins[0], ctx.ints(ctx.eqn.outputs[0].aval.shape)])


def tile(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
    reps = list(attrs["multiples"])
    x = ins[0]
    rank = len(ctx.eqn.inputs[0].aval.shape)
    if len(reps) > rank:
        x = ctx.node("Reshape", [x, ctx.ints([1] * (len(reps) - rank) + list(ctx.eqn.inputs[0].aval.shape))])[0]
    return ctx.node("Tile", [x, ctx.ints(reps)])


def pad(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
    p = [int(lo) for lo, _ in attrs["paddings"]] + [int(hi) for _, hi in attrs["paddings"]]
    dt = ctx.eqn.inputs[0].aval.dtype.np
    return ctx.node("Pad", [ins[0], ctx.ints(p), ctx.const(np.asarray(attrs.get("value", 0), dt))], mode="constant")


def gather(ctx: Any, ins: list[str], attrs: dict) -> list[str]:
    if attrs.get("batch_dims", 0):
        raise OnnxError("Gather with batch_dims has no ONNX mapping in Spore's exporter", op="Gather")
    axis = attrs["axis"]
    return ctx.node("Gather", ins, axis=int(axis))


reduce_sum, reduce_mean = export_reduce("ReduceSum"), export_reduce("ReduceMean")
reduce_max, reduce_min = export_reduce("ReduceMax"), export_reduce("ReduceMin")
reduce_prod = export_reduce("ReduceProd")


# ---------------------------------------------------------------------------------------------
# import (attribute translators and custom importers)
def softmax_from(attrs: dict, ic: Any) -> dict:
    return {"axis": int(attrs.get("axis", -1 if ic.opset >= 13 else 1))}


def reduce_import(prim: str):
    """ReduceX: `axes` from the attribute or (ReduceSum >= 13, all >= 18) the second input."""

    def imp(ic: Any, ins: list, attrs: dict) -> Any:
        axes = attrs.get("axes")
        if len(ins) > 1 and ins[1] is not None:
            axes = [int(a) for a in np.asarray(ic.static(ins[1], "axes")).reshape(-1)]
        x = ic.t(ins[0])
        if not axes:
            if attrs.get("noop_with_empty_axes", 0):
                return ic.prim("Identity")(x)
            axes = ()
        return ic.prim(prim)(x, axis=tuple(int(a) for a in axes), keep_dims=bool(attrs.get("keepdims", 1)))

    return imp


import_reduce_sum, import_reduce_mean = reduce_import("ReduceSum"), reduce_import("ReduceMean")
import_reduce_max, import_reduce_min = reduce_import("ReduceMax"), reduce_import("ReduceMin")
import_reduce_prod = reduce_import("ReduceProd")


def resolve(fn: Any) -> Any:
    """An `OnnxMap` function given by name (a function of this module) or directly."""
    if isinstance(fn, str):
        try:
            return globals()[fn]
        except KeyError:
            raise OnnxError(f"internal: no ONNX mapping function {fn!r} in spore.onnx.mappings") from None
    return fn
