"""``spore.dataset.vision``: image transforms with MindSpore's names (``import spore.dataset.vision as vision``)."""

import typing as _typing

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

# isort: split
from . import extra  # noqa: E402
from .extra import *  # noqa: E402,F403  (RandomResizedCrop, Crop, colour adjustments, ...: issue 14)

# isort: split
from . import augment  # noqa: E402
from .augment import *  # noqa: E402,F403  (Rotate, Affine, colour ops, blur, mixing, image I/O: issue 14)

# isort: split
from . import bbox  # noqa: E402
from .bbox import *  # noqa: E402,F403  (the ...WithBBox transforms, BoundingBoxAugment: issue 14)

# isort: split
from . import auto_augment  # noqa: E402
from .auto_augment import AutoAugment, AutoAugmentPolicy  # noqa: E402,F401  (issue 14, rest slice)

# isort: split
from . import video  # noqa: E402
from .video import DecodeVideo, VideoDecoder, read_video, read_video_timestamps  # noqa: E402,F401  (issue 14, data)

__all__ = ["Border", "CenterCrop", "Decode", "HWC2CHW", "Inter", "Normalize", "Pad", "RandomCrop",
           "RandomHorizontalFlip", "RandomVerticalFlip", "Rescale", "Resize", "ToTensor"]
__all__ += extra.__all__
__all__ += augment.__all__
__all__ += bbox.__all__
__all__ += auto_augment.__all__
__all__ += video.__all__


if not _typing.TYPE_CHECKING:  # hidden from Pyright/Pylance, which would otherwise accept any attribute of the module
    def __getattr__(name: str):
        """A MindSpore name this module lacks raises NotSupportedError saying so (see spore._missing)."""
        from ..._missing import missing_attribute

        raise missing_attribute("mindspore.dataset.vision", name)
