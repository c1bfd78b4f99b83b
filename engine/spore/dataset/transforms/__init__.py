"""``spore.dataset.transforms``: TypeCast, Compose, OneHot, Duplicate, RandomApply, RandomChoice."""

import typing as _typing

from .base import TensorOperation
from .transforms import Compose, Duplicate, OneHot, RandomApply, RandomChoice, TypeCast

# isort: split
from . import extra  # noqa: E402
from .extra import *  # noqa: E402,F403  (Fill, Slice, PadEnd, Concatenate, Mask, Unique, RandomOrder: issue 14)

__all__ = ["Compose", "Duplicate", "OneHot", "RandomApply", "RandomChoice", "TensorOperation", "TypeCast"]
__all__ += extra.__all__


if not _typing.TYPE_CHECKING:  # hidden from Pyright/Pylance, which would otherwise accept any attribute of the module
    def __getattr__(name: str):
        """A MindSpore name this module lacks raises NotSupportedError saying so (see spore._missing)."""
        from ..._missing import missing_attribute

        raise missing_attribute("mindspore.dataset.transforms", name)
