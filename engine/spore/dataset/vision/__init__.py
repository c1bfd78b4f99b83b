"""``spore.dataset.vision``: image transforms with MindSpore's names (``import spore.dataset.vision as vision``)."""

from .transforms import (
    HWC2CHW,
    CenterCrop,
    Decode,
    Normalize,
    Pad,
    RandomCrop,
    RandomHorizontalFlip,
    RandomVerticalFlip,
    Rescale,
    Resize,
    ToTensor,
)
from .utils import Border, Inter

__all__ = ["Border", "CenterCrop", "Decode", "HWC2CHW", "Inter", "Normalize", "Pad", "RandomCrop",
           "RandomHorizontalFlip", "RandomVerticalFlip", "Rescale", "Resize", "ToTensor"]


def __getattr__(name: str):
    """A MindSpore name this module lacks raises NotSupportedError saying so (see spore._missing)."""
    from ..._missing import missing_attribute

    raise missing_attribute("mindspore.dataset.vision", name)
