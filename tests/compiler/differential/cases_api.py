"""Differential cases for the ops added for MindSpore API breadth (issue 14): each new public
function or class-form op gets its cases here (registered into cases_ops' sections)."""

from __future__ import annotations

from spore import ops

from .cases_ops import _functions
from .cases_tensor_nn import C, fl, it


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
