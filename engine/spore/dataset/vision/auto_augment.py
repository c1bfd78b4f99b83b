"""`AutoAugment` and `AutoAugmentPolicy`: the learned augmentation policies of Cubuk et al.,
"AutoAugment: Learning Augmentation Policies from Data" (2019), as MindSpore's vision.AutoAugment.

Each policy is 25 sub-policies of two (op, probability, magnitude bin) steps; one sub-policy is drawn
uniformly per image, each step runs with its probability, magnitudes come from 10 bins of the same
op space RandAugment uses (augment._space), and signed ops flip sign with probability 1/2. The tables
are those published with the paper (the same as torchvision's and MindSpore's). Randomness comes
from the pipeline's seeded generator (``ds.config.set_seed``).
"""

from __future__ import annotations

import enum
from typing import Any

import numpy as np

from .._seeding import current_rng
from ..transforms.base import TensorOperation
from .augment import _apply_op, _check_rgb_uint8, _space
from .transforms import _like_input
from .utils import Inter


class AutoAugmentPolicy(enum.Enum):
    """Which AutoAugment policy: learned on ImageNet, CIFAR-10 or SVHN."""

    IMAGENET = "imagenet"
    CIFAR = "cifar"
    SVHN = "svhn"


_Step = tuple[str, float, int | None]

_POLICIES: dict[AutoAugmentPolicy, tuple[tuple[_Step, _Step], ...]] = {
    AutoAugmentPolicy.IMAGENET: (
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)), (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, None)), (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)), (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)), (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
        (("Equalize", 0.0, None), ("Equalize", 0.8, None)), (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)), (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)), (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, None)), (("Color", 0.4, 0), ("Equalize", 0.6, None)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)), (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None))),
    AutoAugmentPolicy.CIFAR: (
        (("Invert", 0.1, None), ("Contrast", 0.2, 6)), (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)), (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)), (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)), (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, None), ("Equalize", 0.5, None)), (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)), (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)), (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, None)), (("Equalize", 0.2, None), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.2, None), ("Equalize", 0.6, None)), (("Color", 0.9, 9), ("Equalize", 0.6, None)),
        (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)), (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)), (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)), (("Equalize", 0.8, None), ("Invert", 0.1, None)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None))),
    AutoAugmentPolicy.SVHN: (
        (("ShearX", 0.9, 4), ("Invert", 0.2, None)), (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.6, None), ("Solarize", 0.6, 6)), (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)), (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, None)), (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, None), ("AutoContrast", 0.8, None)), (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)), (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)), (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)), (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)), (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)), (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)), (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)), (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, None))),
}

_NUM_BINS = 10


def apply_step(img: np.ndarray, name: str, bin_index: int | None, negative: bool, interpolation: Inter,
               fill: Any) -> np.ndarray:
    """One policy step at a magnitude bin (sign flipped when `negative` and the op is signed)."""
    if name == "Invert":
        return (255 - img).astype(np.uint8)
    mags, signed = _space(_NUM_BINS, img.shape[0], img.shape[1], wide=False)[name]
    mag = float(mags[bin_index]) if bin_index is not None and mags.size else 0.0
    if signed and negative:
        mag = -mag
    return np.asarray(_apply_op(img, name, mag, interpolation, fill))


class AutoAugment(TensorOperation):
    """Apply one sub-policy of the chosen AutoAugment policy to a uint8 RGB (H, W, 3) image."""

    def __init__(self, policy: AutoAugmentPolicy = AutoAugmentPolicy.IMAGENET, interpolation: Inter = Inter.NEAREST,
                 fill_value: Any = 0) -> None:
        try:
            self.policy = AutoAugmentPolicy(policy)
        except ValueError:
            raise ValueError(f"AutoAugment: policy must be an AutoAugmentPolicy, got {policy!r}") from None
        self.interpolation = Inter(interpolation)
        if isinstance(fill_value, (tuple, list)):
            if len(fill_value) != 3 or not all(isinstance(v, int) and 0 <= v <= 255 for v in fill_value):
                raise ValueError(f"AutoAugment: fill_value must be an int or 3 ints in [0, 255], got {fill_value!r}")
            fill_value = tuple(fill_value)
        elif isinstance(fill_value, bool) or not isinstance(fill_value, int) or not 0 <= fill_value <= 255:
            raise ValueError(f"AutoAugment: fill_value must be an int in [0, 255], got {fill_value!r}")
        self.fill_value = fill_value

    def _apply(self, img: Any) -> Any:
        arr = _check_rgb_uint8(img, "AutoAugment")
        rng = current_rng()
        subs = _POLICIES[self.policy]
        sub = subs[int(rng.integers(0, len(subs)))]
        probs = rng.random(2)
        signs = rng.integers(0, 2, 2)
        for i, (name, p, bin_index) in enumerate(sub):
            if probs[i] <= p:
                arr = apply_step(arr, name, bin_index, signs[i] == 0, self.interpolation, self.fill_value)
        return _like_input(arr, img)


__all__ = ["AutoAugment", "AutoAugmentPolicy"]
