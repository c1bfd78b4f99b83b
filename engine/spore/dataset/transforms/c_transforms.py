"""MindSpore's older module path ``mindspore.dataset.transforms.c_transforms``: the same transforms."""

from .transforms import *  # noqa: F403

__all__ = ["Compose", "Duplicate", "OneHot", "RandomApply", "RandomChoice", "TypeCast"]  # noqa: F405
