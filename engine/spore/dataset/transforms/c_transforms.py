"""MindSpore's older module path ``mindspore.dataset.transforms.c_transforms``: the same transforms."""

from .transforms import *  # noqa: F403
