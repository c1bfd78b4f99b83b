"""`amp.AllFinite`: the class form of `amp.all_finite` (MindSpore's fused finiteness check of a
tuple of gradients, the primitive its loss scaling calls)."""

from __future__ import annotations

from typing import Any

from ..ops.operation import Operation
from ..tensor import Tensor


class AllFinite(Operation):
    """``AllFinite()(inputs)``: a scalar bool Tensor, True when every element of every tensor in
    `inputs` (a Tensor, or a tuple/list of them) is finite — as `all_finite`, compiled or not."""

    def construct(self, inputs: Any) -> Tensor:
        from .loss_scale import all_finite  # loss_scale imports nn, which imports amp: load on use

        return all_finite(inputs)
