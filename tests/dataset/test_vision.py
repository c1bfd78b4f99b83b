"""Transforms against independent oracles: explicit loops, NumPy and PIL."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

import spore
import spore.dataset as ds
import spore.dataset.transforms as T
import spore.dataset.vision as vision
from spore.dataset.vision import Border, Inter


def rgb(h=6, w=8, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8)


def bilinear_oracle(img, out_h, out_w):
    """Per-pixel OpenCV bilinear: half-pixel centres, source coordinates clamped to the image."""
    h, w = img.shape[:2]
    out = np.zeros((out_h, out_w) + img.shape[2:], np.float64)
    for y in range(out_h):
        sy = min(max((y + 0.5) * h / out_h - 0.5, 0), h - 1)
        y0 = int(np.floor(sy))
        y1, fy = min(y0 + 1, h - 1), sy - y0
        for x in range(out_w):
            sx = min(max((x + 0.5) * w / out_w - 0.5, 0), w - 1)
            x0 = int(np.floor(sx))
            x1, fx = min(x0 + 1, w - 1), sx - x0
            top = img[y0, x0] * (1 - fx) + img[y0, x1] * fx
            bot = img[y1, x0] * (1 - fx) + img[y1, x1] * fx
            out[y, x] = top * (1 - fy) + bot * fy
    return out


# --- Resize ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [(9, 13), (3, 5), (6, 3)])
def test_resize_bilinear_matches_the_per_pixel_formula(size):
    img = rgb().astype(np.float32)
    out = vision.Resize(size)(img)
    assert out.dtype == np.float32 and out.shape == size + (3,)
    np.testing.assert_allclose(out, bilinear_oracle(img.astype(np.float64), *size), rtol=1e-5, atol=1e-4)


def test_resize_bilinear_upsampling_matches_pil_within_rounding():
    img = rgb(5, 7)
    ours = vision.Resize((15, 21))(img)
    pil = np.asarray(Image.fromarray(img).resize((21, 15), Image.Resampling.BILINEAR))
    assert np.abs(ours.astype(int) - pil.astype(int)).max() <= 1


def test_resize_nearest_by_an_integer_factor_repeats_pixels():
    img = rgb(3, 4)
    out = vision.Resize((6, 12), Inter.NEAREST)(img)
    np.testing.assert_array_equal(out, img.repeat(2, axis=0).repeat(3, axis=1))


def test_resize_area_halving_averages_two_by_two_blocks():
    img = np.random.default_rng(1).random((8, 6)).astype(np.float64)
    out = vision.Resize((4, 3), Inter.AREA)(img)
    np.testing.assert_allclose(out, img.reshape(4, 2, 3, 2).mean(axis=(1, 3)))


def test_resize_bicubic_keeps_constant_images_constant():
    img = np.full((5, 5, 2), 77, np.uint8)
    assert (vision.Resize((11, 3), Inter.BICUBIC)(img) == 77).all()


def test_resize_int_size_sets_the_shorter_side_and_keeps_the_aspect():
    assert vision.Resize(5)(np.zeros((10, 20), np.uint8)).shape == (5, 10)
    assert vision.Resize(4)(np.zeros((12, 6, 3), np.uint8)).shape == (8, 4, 3)


def test_resize_of_a_pil_image_is_pils_resize():
    im = Image.fromarray(rgb(6, 9))
    out = vision.Resize((4, 5), Inter.BICUBIC)(im)
    assert isinstance(out, Image.Image)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(im.resize((5, 4), Image.Resampling.BICUBIC)))


# --- crops, pads, flips --------------------------------------------------------------------------------
def test_random_crop_returns_a_window_of_the_image():
    img = np.arange(10 * 12, dtype=np.int32).reshape(10, 12)
    out = vision.RandomCrop((4, 5))(img)
    top, left = divmod(int(out[0, 0]), 12)
    np.testing.assert_array_equal(out, img[top: top + 4, left: left + 5])


@pytest.mark.parametrize("padding, widths", [(2, ((2, 2), (2, 2))), ((1, 3), ((3, 3), (1, 1))),
                                             ((1, 2, 3, 4), ((2, 4), (1, 3)))])
def test_random_crop_padding_order_is_left_top_right_bottom(padding, widths):
    img = rgb(4, 5)
    h, w = 4 + sum(widths[0]), 5 + sum(widths[1])
    out = vision.RandomCrop((h, w), padding=padding, fill_value=9)(img)  # one window: the padded image
    np.testing.assert_array_equal(out, np.pad(img, widths + ((0, 0),), constant_values=9))


@pytest.mark.parametrize("mode", [Border.EDGE, Border.REFLECT, Border.SYMMETRIC])
def test_random_crop_padding_modes_match_numpy_pad(mode):
    img = rgb(4, 4)
    out = vision.RandomCrop(8, padding=2, padding_mode=mode)(img)
    np.testing.assert_array_equal(out, np.pad(img, ((2, 2), (2, 2), (0, 0)), mode=mode.value))


def test_random_crop_fill_per_channel_and_pad_if_needed():
    img = np.zeros((2, 3, 3), np.uint8)
    out = vision.RandomCrop((4, 5), pad_if_needed=True, fill_value=(10, 20, 30))(img)
    assert out.shape == (4, 5, 3)
    border = out[0, 0] if out[0, 0].any() else out[-1, -1]
    np.testing.assert_array_equal(border, [10, 20, 30])
    with pytest.raises(ValueError, match="larger than"):
        vision.RandomCrop(5)(img)


def test_center_crop_takes_the_middle():
    img = np.arange(36).reshape(6, 6)
    np.testing.assert_array_equal(vision.CenterCrop(2)(img), img[2:4, 2:4])


def test_flips_with_probability_one_and_zero():
    img = rgb()
    np.testing.assert_array_equal(vision.RandomHorizontalFlip(1.0)(img), img[:, ::-1])
    np.testing.assert_array_equal(vision.RandomVerticalFlip(1.0)(img), img[::-1])
    np.testing.assert_array_equal(vision.RandomHorizontalFlip(0.0)(img), img)
    im = Image.fromarray(img)
    np.testing.assert_array_equal(np.asarray(vision.RandomHorizontalFlip(1.0)(im)),
                                  np.asarray(im.transpose(Image.Transpose.FLIP_LEFT_RIGHT)))


def test_half_probability_flip_flips_some_samples_in_a_pipeline():
    img = rgb()
    d = ds.NumpySlicesDataset({"image": np.stack([img] * 40)}, shuffle=False).map(vision.RandomHorizontalFlip())
    flipped = [np.array_equal(r[0], img[:, ::-1]) for r in d.create_tuple_iterator(output_numpy=True)]
    assert 5 < sum(flipped) < 35


# --- value transforms ----------------------------------------------------------------------------------
def test_normalize_hwc_and_chw_match_the_formula():
    img = rgb()
    mean, std = [10.0, 20.0, 30.0], [2.0, 4.0, 8.0]
    expect = (img.astype(np.float64) - mean) / std
    out = vision.Normalize(mean, std)(img)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, expect, rtol=1e-6)
    chw = vision.Normalize(mean, std, is_hwc=False)(img.transpose(2, 0, 1))
    np.testing.assert_allclose(chw, expect.transpose(2, 0, 1), rtol=1e-6)
    with pytest.raises(ValueError, match="2 mean/std values for an image with 3 channel"):
        vision.Normalize([1, 2], [1, 1])(img)


def test_hwc2chw_transposes_and_leaves_2d_images_alone():
    img = rgb()
    np.testing.assert_array_equal(vision.HWC2CHW()(img), img.transpose(2, 0, 1))
    gray = img[..., 0]
    np.testing.assert_array_equal(vision.HWC2CHW()(gray), gray)


def test_to_tensor_scales_to_unit_range_in_chw_for_arrays_and_pil():
    img = rgb()
    expect = img.transpose(2, 0, 1).astype(np.float32) / 255
    np.testing.assert_allclose(vision.ToTensor()(img), expect)
    np.testing.assert_allclose(vision.ToTensor()(Image.fromarray(img)), expect)
    assert vision.ToTensor(np.float64)(img[..., 0]).shape == (1, 6, 8)
    assert vision.ToTensor(spore.float16)(img).dtype == np.float16


def test_rescale_is_affine():
    img = rgb()
    np.testing.assert_allclose(vision.Rescale(1 / 255, -0.5)(img), img / 255 - 0.5, rtol=1e-6, atol=1e-6)


def test_decode_reads_png_bytes_to_rgb_and_rejects_garbage():
    img = rgb()
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="PNG")
    raw = np.frombuffer(buf.getvalue(), np.uint8)
    np.testing.assert_array_equal(vision.Decode()(raw), img)
    assert isinstance(vision.Decode(to_pil=True)(raw), Image.Image)
    with pytest.raises(ValueError, match="not an image"):
        vision.Decode()(np.zeros(10, np.uint8))


# --- transforms ------------------------------------------------------------------------------------
def test_typecast_accepts_spore_and_numpy_types():
    x = np.array([1.7, -2.2])
    assert T.TypeCast(spore.int32)(x).dtype == np.int32
    assert T.TypeCast(np.uint32)(x.clip(0)).dtype == np.uint32
    np.testing.assert_array_equal(T.TypeCast(spore.int32)(x), [1, -2])


def test_compose_chains_and_one_hot_matches_eye():
    c = T.Compose([vision.HWC2CHW(), vision.Rescale(2.0, 1.0)])
    img = rgb()
    np.testing.assert_allclose(c(img), img.transpose(2, 0, 1) * 2.0 + 1.0)
    np.testing.assert_array_equal(T.OneHot(4)(np.array([2, 0])), np.eye(4, dtype=np.int64)[[2, 0]])
    np.testing.assert_allclose(T.OneHot(4, 0.2)(np.array(1)), [0.05, 0.85, 0.05, 0.05])


def test_transforms_in_a_pipeline_typical_mnist_preprocessing():
    imgs = np.random.default_rng(2).integers(0, 256, (4, 28, 28, 1), dtype=np.uint8)
    d = ds.NumpySlicesDataset({"image": imgs, "label": np.array([1, 2, 3, 4], np.uint32)}, shuffle=False)
    d = d.map([vision.Resize((32, 32)), vision.Rescale(1 / 255, 0), vision.HWC2CHW()], input_columns="image")
    d = d.map(T.TypeCast(spore.int32), input_columns="label").batch(2)
    image, label = next(iter(d))
    assert image.shape == (2, 1, 32, 32) and image.dtype == spore.float32 and label.dtype == spore.int32


def test_pad_matches_numpy_pad_and_keeps_pil_in_pil_out():
    img = rgb(3, 4)
    np.testing.assert_array_equal(vision.Pad((1, 2, 3, 4), fill_value=5)(img),
                                  np.pad(img, ((2, 4), (1, 3), (0, 0)), constant_values=5))
    out = vision.Pad(1, padding_mode=Border.EDGE)(Image.fromarray(img))
    assert isinstance(out, Image.Image)
    np.testing.assert_array_equal(np.asarray(out), np.pad(img, ((1, 1), (1, 1), (0, 0)), mode="edge"))


def test_random_apply_and_random_choice_pick_from_their_transforms():
    img = rgb()
    flip = vision.RandomHorizontalFlip(1.0)
    np.testing.assert_array_equal(T.RandomApply([flip], prob=1.0)(img), img[:, ::-1])
    np.testing.assert_array_equal(T.RandomApply([flip], prob=0.0)(img), img)
    outs = {T.RandomChoice([flip, vision.RandomVerticalFlip(1.0)])(img).tobytes() for _ in range(20)}
    assert outs == {img[:, ::-1].tobytes(), img[::-1].tobytes()}


def test_mindspore_legacy_module_paths_export_the_same_classes():
    import spore.dataset.transforms.c_transforms as legacy_t
    import spore.dataset.vision.c_transforms as legacy_v

    assert legacy_v.Resize is vision.Resize and legacy_v.Inter is Inter and legacy_t.TypeCast is T.TypeCast
