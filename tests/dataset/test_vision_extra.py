"""The vision transforms added for issue 14 against NumPy slicing and PIL's own operations."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageEnhance, ImageOps

import spore.dataset as ds
import spore.dataset.vision as vision

rng = np.random.default_rng(14)
IMG = rng.integers(0, 256, (12, 16, 3), dtype=np.uint8)


def test_crops():
    np.testing.assert_array_equal(vision.Crop((2, 3), (4, 5))(IMG), IMG[2:6, 3:8])
    with pytest.raises(ValueError, match="outside the image"):
        vision.Crop((10, 0), (4, 4))(IMG)
    got = vision.ResizedCrop(1, 2, 6, 8, (3, 4))(IMG)
    np.testing.assert_array_equal(got, vision.Resize((3, 4))(IMG[1:7, 2:10]))
    five = vision.FiveCrop(4)(IMG)
    assert len(five) == 5
    np.testing.assert_array_equal(five[0], IMG[:4, :4])
    np.testing.assert_array_equal(five[3], IMG[-4:, -4:])
    np.testing.assert_array_equal(five[4], IMG[4:8, 6:10])
    ten = vision.TenCrop((4, 6), use_vertical_flip=True)(IMG)
    assert len(ten) == 10
    np.testing.assert_array_equal(ten[5], IMG[::-1][:4, :6])
    pil = vision.Crop((0, 0), 3)(Image.fromarray(IMG))
    assert isinstance(pil, Image.Image) and pil.size == (3, 3)


def test_random_resized_crop_window_and_reproducibility():
    whole = vision.RandomResizedCrop((6, 8), scale=(1.0, 1.0), ratio=(16 / 12, 16 / 12))(IMG)
    np.testing.assert_array_equal(whole, vision.Resize((6, 8))(IMG))  # the window is the whole image
    data = ds.NumpySlicesDataset({"image": np.stack([IMG] * 4)}, shuffle=False)
    op = vision.RandomResizedCrop(5, scale=(0.2, 0.6))

    def run():
        ds.config.set_seed(5)
        return [r[0] for r in data.map(op, "image").create_tuple_iterator(output_numpy=True)]

    first, again = run(), run()
    assert all(a.shape == (5, 5, 3) for a in first)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not all(np.array_equal(first[0], a) for a in first[1:])  # different windows per row
    with pytest.raises(ValueError, match="scale"):
        vision.RandomResizedCrop(4, scale=(0.9, 0.1))


def test_flips_invert_and_grayscale_match_pil():
    np.testing.assert_array_equal(vision.HorizontalFlip()(IMG), IMG[:, ::-1])
    np.testing.assert_array_equal(vision.VerticalFlip()(IMG), IMG[::-1])
    np.testing.assert_array_equal(vision.Invert()(IMG), np.asarray(ImageOps.invert(Image.fromarray(IMG))))
    gray = vision.Grayscale()(IMG)
    assert gray.shape == (12, 16, 1)
    pil_gray = np.asarray(Image.fromarray(IMG).convert("L")).astype(int)
    assert np.abs(gray[..., 0].astype(int) - pil_gray).max() <= 1  # PIL rounds its fixed-point luma
    assert vision.Grayscale(3)(IMG).shape == (12, 16, 3)
    assert vision.RandomGrayscale(1.0)(IMG).shape == (12, 16, 3)
    np.testing.assert_array_equal(vision.RandomGrayscale(0.0)(IMG), IMG)
    np.testing.assert_array_equal(vision.RandomInvert(1.0)(IMG), 255 - IMG)


@pytest.mark.parametrize("op,enhance,factor", [
    (vision.AdjustBrightness, ImageEnhance.Brightness, 1.4),
    (vision.AdjustContrast, ImageEnhance.Contrast, 0.6),
    (vision.AdjustSaturation, ImageEnhance.Color, 1.7),
])
def test_colour_adjustments_match_pil(op, enhance, factor):
    got = op(factor)(IMG).astype(int)
    want = np.asarray(enhance(Image.fromarray(IMG)).enhance(factor)).astype(int)
    assert np.abs(got - want).max() <= 2  # PIL computes in 8-bit fixed point


def test_gamma_erasing_topil_totype():
    np.testing.assert_array_equal(vision.AdjustGamma(2.0)(IMG),
                                  np.clip(np.rint(255 * (IMG / 255.0) ** 2), 0, 255).astype(np.uint8))
    chw = rng.standard_normal((3, 10, 10)).astype(np.float32)
    before = chw.copy()
    ds.config.set_seed(1)
    erased = vision.RandomErasing(prob=1.0, value=(1.0, 2.0, 3.0))(chw)
    changed = np.any(erased != chw, axis=0)
    assert 0 < changed.sum() <= 0.33 * 100 + 10
    for c, v in enumerate((1.0, 2.0, 3.0)):
        assert np.all(erased[c][changed] == v)
    np.testing.assert_array_equal(vision.RandomErasing(prob=0.0)(chw), chw)
    np.testing.assert_array_equal(chw, before)  # not in place by default
    assert isinstance(vision.ToPIL()(IMG), Image.Image)
    assert vision.ToType(np.float32)(IMG).dtype == np.float32
    import spore as ms

    assert vision.ToType(ms.float16)(IMG).dtype == np.float16
