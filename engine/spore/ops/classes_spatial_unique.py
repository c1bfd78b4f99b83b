"""Class forms of spatial_unique_ops (`ops.MirrorPad`, `ops.SpaceToDepth`, `ops.SpaceToBatchND`,
`ops.LRN`, `ops.UniqueConsecutive`, `ops.NextAfter`, the loss classes, ...), defined there next to
their functions."""

from __future__ import annotations

from . import spatial_unique_ops as _S

NextAfter = _S.NextAfter_
PopulationCount = _S.PopulationCount_
_NAMES = ("MirrorPad", "SpaceToDepth", "SpaceToBatchND", "SpaceToBatch", "LRN", "Padding", "UniqueConsecutive",
          "UniqueWithPad", "UnravelIndex", "LeftShift", "RightShift", "Lcm", "LerpScalar", "Logit",
          "TripletMarginLoss", "MultiMarginLoss", "MultilabelMarginLoss", "SigmoidCrossEntropyWithLogits", "RmsNorm")
globals().update({n: getattr(_S, n) for n in _NAMES})

__all__ = sorted([*_NAMES, "NextAfter", "PopulationCount"])
