"""Differential cases for the ops added for MindSpore API breadth (issue 14): each new public
function or class-form op gets its cases here (registered into cases_ops' sections)."""

from __future__ import annotations

import numpy as np

from spore import ops

from .cases_ops import _functions
from .cases_tensor_nn import C, fl, it, nz, pos, special


@_functions
def _api_breadth_functions() -> list:
    return [
        C("ops.multiply[broadcast]", ops.multiply, fl(3, 4), fl(4)),
        C("ops.multiply[scalar]", ops.multiply, fl(2, 3), 2.5),
        C("ops.interpolate[nearest]", ops.interpolate, fl(1, 2, 3, 4), kw={"size": (5, 7)}),
        C("ops.interpolate[bilinear]", ops.interpolate, fl(2, 1, 3, 4), kw={"size": (5, 2), "mode": "bilinear"}),
        C("ops.interpolate[bilinear align]", ops.interpolate, fl(1, 2, 3, 4),
          kw={"scale_factor": 2.0, "mode": "bilinear", "align_corners": True}),
        C("ops.interpolate[linear]", ops.interpolate, fl(1, 2, 5), kw={"size": 9, "mode": "linear"}),
        C("ops.interpolate[bicubic]", ops.interpolate, fl(1, 1, 4, 4), kw={"size": (6, 3), "mode": "bicubic"}),
        C("ops.interpolate[area]", ops.interpolate, fl(1, 2, 6, 4), kw={"size": (3, 2), "mode": "area"}),
        C("ops.cummax[axis 1]", ops.cummax, fl(3, 5), 1),
        C("ops.cummax[int axis 0]", ops.cummax, it(-5, 6, 4, 3), 0),
        C("ops.cummin[axis -1]", ops.cummin, fl(2, 3, 4), -1),
        C("ops.cummin[axis 0]", ops.cummin, fl(4, 2), 0),
        C("ops.addmm[default]", ops.addmm, fl(2, 4), fl(2, 3), fl(3, 4)),
        C("ops.addmm[beta alpha broadcast]", ops.addmm, fl(4), fl(2, 3), fl(3, 4), kw={"beta": 0.5, "alpha": 2.0}),
        C("ops.addmm[beta 0]", ops.addmm, fl(2, 4), fl(2, 3), fl(3, 4), kw={"beta": 0}),
        C("ops.interpolate[trilinear]", ops.interpolate, fl(1, 1, 2, 3, 4), kw={"size": (3, 3, 3),
                                                                                "mode": "trilinear"}),
    ]


# --- the composite ops of spore/ops/composite_extra.py: three calls each, as ops.<name> and (where
# MindSpore has it) Tensor.<name> -------------------------------------------------------------------
def _composite_table() -> dict[str, list[tuple[tuple, dict]]]:
    p = fl  # shorthand
    unit = (lambda *s: fl(*s, lo=0.05, hi=0.95))
    return {
        "mm": [((p(2, 3), p(3, 4)), {}), ((p(1, 5), p(5, 1)), {}), ((p(3, 3), p(3, 2)), {})],
        "t": [((p(2, 3),), {}), ((p(4),), {}), ((p(1, 5),), {})],
        "tril": [((p(3, 4),), {}), ((p(2, 3, 3), 1), {}), ((p(4, 3), -1), {})],
        "triu": [((p(3, 4),), {}), ((p(2, 3, 3), -1), {}), ((p(4, 3), 2), {})],
        "trace": [((p(3, 3),), {}), ((p(2, 4),), {}), ((p(5, 2),), {})],
        "diag": [((p(3),), {}), ((p(2, 2),), {}), ((p(1),), {})],
        "outer": [((p(3), p(4)), {}), ((p(1), p(2)), {}), ((p(5), p(5)), {})],
        "ger": [((p(3), p(4)), {}), ((p(2), p(1)), {}), ((p(4), p(4)), {})],
        "inner": [((p(2, 3), p(4, 3)), {}), ((p(3), p(3)), {}), ((p(2, 2, 3), p(3)), {})],
        "dot": [((p(3), p(3)), {}), ((p(1), p(1)), {}), ((p(6), p(6)), {})],
        "kron": [((p(2, 2), p(2, 3)), {}), ((p(3), p(2)), {}), ((p(2, 1, 2), p(2, 2)), {})],
        "addmv": [((p(2), p(2, 3), p(3)), {}), ((p(2), p(2, 3), p(3)), {"beta": 0.5, "alpha": 2.0}),
                  ((p(4), p(4, 2), p(2)), {"beta": 0})],
        "addr": [((p(2, 3), p(2), p(3)), {}), ((p(2, 3), p(2), p(3)), {"beta": 2.0, "alpha": -1.0}),
                 ((p(3), p(2), p(3)), {})],
        "baddbmm": [((p(2, 2, 4), p(2, 2, 3), p(2, 3, 4)), {}), ((p(2, 2, 4), p(2, 2, 3), p(2, 3, 4)), {"beta": 0.5}),
                    ((p(4), p(2, 2, 3), p(2, 3, 4)), {"alpha": 2.0})],
        "addbmm": [((p(2, 4), p(3, 2, 3), p(3, 3, 4)), {}), ((p(2, 4), p(3, 2, 3), p(3, 3, 4)), {"beta": 0}),
                   ((p(4), p(2, 2, 3), p(2, 3, 4)), {"alpha": 0.5})],
        "deg2rad": [((p(3, 4),), {}), ((p(5),), {}), ((it(-180, 180, 4),), {})],
        "rad2deg": [((p(3, 4),), {}), ((p(5),), {}), ((it(-3, 4, 4),), {})],
        "hypot": [((p(3, 4), p(3, 4)), {}), ((p(3, 4), p(4)), {}), ((p(5), 2.0), {})],
        "logaddexp": [((p(3, 4), p(3, 4)), {}), ((p(3, 4), p(4)), {}), ((p(5), 1.5), {})],
        "logaddexp2": [((p(3, 4), p(3, 4)), {}), ((p(3, 4), p(4)), {}), ((p(5), -1.0), {})],
        "float_power": [((pos(3, 4), p(3, 4)), {}), ((pos(4), 2), {}), ((pos(2, 3), 0.5), {})],
        "fmod": [((p(3, 4), nz(3, 4)), {}), ((p(4), nz(4)), {}), ((p(2, 3), 0.7), {})],
        "frac": [((p(3, 4),), {}), ((fl(5, lo=-9.0, hi=9.0),), {}), ((p(2),), {})],
        "positive": [((p(3, 4),), {}), ((it(-3, 3, 4),), {}), ((p(2),), {})],
        "sgn": [((p(3, 4),), {}), ((it(-3, 3, 4),), {}), ((p(2),), {})],
        "signbit": [((p(3, 4),), {}), ((it(-3, 3, 4),), {}), ((p(5),), {})],
        "copysign": [((p(3, 4), p(3, 4)), {}), ((p(4), p(4)), {}), ((p(2, 3), -1.0), {})],
        "heaviside": [((it(-1, 2, 3, 4), p(3, 4)), {}), ((p(4), p(4)), {}), ((it(-1, 2, 5, dt=np.float32), p(1)), {})],
        "xdivy": [((p(3, 4), nz(3, 4)), {}), ((it(0, 2, 4, dt=np.float32), nz(4)), {}), ((p(2, 3), 2.0), {})],
        "ldexp": [((p(3, 4), it(-2, 3, 3, 4)), {}), ((p(4), it(0, 3, 4)), {}), ((p(2, 3), 2), {})],
        "logit": [((unit(3, 4),), {}), ((unit(5), 0.1), {}), ((fl(4, lo=0.0, hi=1.0), 1e-3), {})],
        "nansum": [((p(3, 4),), {}), ((p(3, 4), 1), {}), ((p(2, 3, 2), (0, 2), True), {})],
        "nanmean": [((p(3, 4),), {}), ((p(3, 4), 0), {}), ((p(2, 3, 2), 1, True), {})],
        "cumprod": [((p(3, 4), 1), {}), ((p(4), 0), {}), ((it(-2, 3, 2, 3), 0), {})],
        "logcumsumexp": [((p(3, 4), 1), {}), ((p(5), 0), {}), ((p(2, 3, 2), -1), {})],
        "diff": [((p(3, 5),), {}), ((p(6), 2), {}), ((p(3, 4), 1, 0, p(1, 4), p(2, 4)), {})],
        "aminmax": [((p(3, 4),), {}), ((p(3, 4),), {"axis": 1}), ((p(2, 3),), {"axis": -1, "keepdims": True})],
        "rot90": [((p(3, 4), 1, (0, 1)), {}), ((p(2, 3, 4), 2, (1, 2)), {}), ((p(3, 4), 3, (1, 0)), {})],
        "hsplit": [((p(2, 6), 3), {}), ((p(6), 2), {}), ((p(2, 5, 3), (1, 3)), {})],
        "vsplit": [((p(6, 2), 3), {}), ((p(4, 3), (1,)), {}), ((p(4, 2, 2), 2), {})],
        "dsplit": [((p(2, 2, 6), 3), {}), ((p(1, 2, 4), (1, 2)), {}), ((p(2, 1, 4), 2), {})],
        "cosine_similarity": [((p(3, 4), p(3, 4)), {}), ((p(2, 3, 4), p(2, 3, 4)), {"dim": -1}),
                              ((p(4, 3), p(1, 3)), {"dim": 1, "eps": 1e-3})],
        "cdist": [((p(2, 3, 4), p(2, 5, 4)), {}), ((p(3, 2), p(4, 2)), {"p": 1.0}),
                  ((p(1, 3, 2), p(1, 2, 2)), {"p": 3.0})],
        "type_as": [((p(3, 4), it(0, 3, 2)), {}), ((it(0, 5, 4), p(1)), {}), ((p(2), p(2, dt=np.float64)), {})],
        "is_floating_point": [((p(3),), {}), ((it(0, 3, 2),), {}), ((p(2, dt=np.float64),), {})],
        "is_complex": [((p(3),), {}), ((it(0, 3, 2),), {}), ((p(2, 2),), {})],
        "isreal": [((p(3),), {}), ((it(0, 3, 2),), {}), ((special(2, 3),), {})],
        "isposinf": [((special(3, 4),), {}), ((p(3),), {}), ((it(0, 3, 2),), {})],
        "isneginf": [((special(3, 4),), {}), ((p(3),), {}), ((it(0, 3, 2),), {})],
        "nan_to_num": [((special(3, 4),), {}), ((special(2, 3), 1.0, 9.0, -9.0), {}),
                       ((special(5),), {"posinf": 100.0})],
        "count_nonzero": [((it(0, 2, 3, 4),), {}), ((it(0, 2, 3, 4), 1), {}), ((p(2, 3), (0, 1), True), {})],
        "msort": [((p(4, 3),), {}), ((p(5),), {}), ((it(0, 9, 3, 2),), {})],
        "top_k": [((p(3, 5), 2), {}), ((p(6), 3), {}), ((p(2, 4), 1, False), {})],
    }


def _tensor_only_table() -> dict[str, list[tuple[tuple, dict]]]:
    p = fl
    return {
        "reshape_as": [((p(2, 6), p(3, 4)), {}), ((p(4), p(2, 2)), {}), ((p(2, 3), p(6)), {})],
        "ndimension": [((p(2, 3),), {}), ((p(4),), {}), ((p(1, 2, 3),), {})],
        "is_signed": [((p(2, 3),), {}), ((it(0, 3, 2),), {}), ((it(0, 3, 2, dt=np.uint8),), {})],
        "is_contiguous": [((p(2, 3),), {}), ((p(4),), {}), ((it(0, 3, 2),), {})],
        "contiguous": [((p(2, 3),), {}), ((p(4),), {}), ((it(0, 3, 2),), {})],
        "byte": [((it(0, 200, 2, 3),), {}), ((p(4, lo=0.0, hi=9.0),), {}), ((it(0, 2, 3),), {})],
        "short": [((it(-50, 50, 2, 3),), {}), ((p(4, lo=-9.0, hi=9.0),), {}), ((it(0, 2, 3),), {})],
        "bfloat16": [((p(2, 3),), {}), ((p(4),), {}), ((it(0, 5, 3),), {})],
        "ptp": [((p(3, 4),), {}), ((p(3, 4), 1), {}), ((p(2, 3, 2), 0, True), {})],
        "sum_to_size": [((p(2, 3, 4), 3, 1), {}), ((p(3, 4), (1, 4)), {}), ((p(2, 3), 3), {})],
        "bmm": [((p(2, 3, 4), p(2, 4, 2)), {}), ((p(1, 2, 2), p(1, 2, 3)), {}), ((p(3, 1, 2), p(3, 2, 1)), {})],
        "addmm": [((p(2, 4), p(2, 3), p(3, 4)), {}), ((p(4), p(2, 3), p(3, 4)), {"beta": 2.0}),
                  ((p(2, 4), p(2, 3), p(3, 4)), {"alpha": 0.5})],
        "cummax": [((p(3, 4), 1), {}), ((p(5), 0), {}), ((it(-3, 3, 2, 3), 0), {})],
        "cummin": [((p(3, 4), 1), {}), ((p(5), 0), {}), ((it(-3, 3, 2, 3), -1), {})],
    }


def atleast_all(x, y):
    return ops.atleast_1d([x, y]), ops.atleast_2d(x), ops.atleast_3d([x, y])


def stack_columns(x, y):
    return ops.column_stack([x, y])


def stack_depth(x, y):
    return ops.dstack([x, y])


@_functions
def _composite_functions() -> list:
    out = []
    for name, calls in _composite_table().items():
        fn = getattr(ops, name)
        for i, (args, kw) in enumerate(calls):
            out.append(C(f"ops.{name}[{i}]", fn, *args, kw=kw))
    out += [C("ops.atleast_1d[0d]", ops.atleast_1d, fl()), C("ops.atleast_2d[1d]", ops.atleast_2d, fl(3)),
            C("ops.atleast_3d[2d]", ops.atleast_3d, fl(2, 3)),
            C("ops.atleast_1d[list]", atleast_all, fl(), fl(3)),
            C("ops.column_stack[1d]", stack_columns, fl(3), fl(3)), C("ops.column_stack[2d]", stack_columns, fl(3, 2),
                                                                        fl(3, 1)),
            C("ops.dstack[2d]", stack_depth, fl(2, 3), fl(2, 3)), C("ops.dstack[1d]", stack_depth, fl(3), fl(3))]
    return out


def api_tensor_cases() -> list:
    """`Tensor.<name>` for the composite ops MindSpore has as Tensor methods (cases_tensor_nn adds them)."""
    import spore as ms

    out = []
    for name, calls in {**_composite_table(), **_tensor_only_table()}.items():
        method = getattr(ms.Tensor, name, None)
        if method is None or getattr(method, "__module__", "") != "spore.ops.composite_extra":
            continue
        for i, (args, kw) in enumerate(calls):
            out.append(C(f"Tensor.{name}[{i}]", method, *args, kw=kw))
    return out
