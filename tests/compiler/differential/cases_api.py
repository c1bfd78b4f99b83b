"""Differential cases for the ops added for MindSpore API breadth (issue 14): each new public
function or class-form op gets its cases here (registered into cases_ops' sections)."""

from __future__ import annotations

from spore import ops

from .cases_ops import _functions
from .cases_tensor_nn import C, fl


@_functions
def _api_breadth_functions() -> list:
    return [
        C("ops.multiply[broadcast]", ops.multiply, fl(3, 4), fl(4)),
        C("ops.multiply[scalar]", ops.multiply, fl(2, 3), 2.5),
    ]
