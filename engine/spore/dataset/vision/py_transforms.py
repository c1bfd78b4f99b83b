"""MindSpore's older module path ``mindspore.dataset.vision.py_transforms``: the same transforms."""

from .transforms import *  # noqa: F403
from .utils import Border, Inter  # noqa: F401

__all__ = ["Border", "CenterCrop", "Decode", "HWC2CHW", "Inter", "Normalize", "Pad",  # noqa: F405
           "RandomCrop", "RandomHorizontalFlip", "RandomVerticalFlip", "Rescale", "Resize", "ToTensor"]  # noqa: F405
