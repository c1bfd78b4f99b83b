"""``spore.dataset.transforms``: TypeCast, Compose, OneHot, Duplicate, RandomApply, RandomChoice."""

from .base import TensorOperation
from .transforms import Compose, Duplicate, OneHot, RandomApply, RandomChoice, TypeCast

__all__ = ["Compose", "Duplicate", "OneHot", "RandomApply", "RandomChoice", "TensorOperation", "TypeCast"]
