"""MindSpore's older module path ``mindspore.dataset.vision.c_transforms``: the same transforms."""

from .transforms import *  # noqa: F403
from .utils import Border, Inter  # noqa: F401
