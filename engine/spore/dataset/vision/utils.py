"""The enums of ``spore.dataset.vision``, with MindSpore's names and values."""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Inter(IntEnum):
    """Interpolation modes for resizing."""

    NEAREST = 0
    ANTIALIAS = 1
    BILINEAR = 2
    LINEAR = 2
    BICUBIC = 3
    CUBIC = 3
    AREA = 4
    PILCUBIC = 5


class Border(StrEnum):
    """How to fill pixels added outside an image by padding."""

    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"
