"""MindSpore's older module path ``mindspore.dataset.transforms.py_transforms``: the same transforms."""

from .transforms import *  # noqa: F403
