"""The vision transforms of vision/augment.py against NumPy, colorsys and PIL oracles."""

from __future__ import annotations

import colorsys

import numpy as np
import pytest
from PIL import Image, ImageOps

import spore.dataset as ds
import spore.dataset.vision as vision
from spore.dataset import DatasetError


def _img(h=9, w=11, c=3, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w, c), dtype=np.uint8)


def test_rotate_quarter_turns_match_rot90_and_pil_in_gives_pil():
    a = _img(7, 7)
    np.testing.assert_array_equal(vision.Rotate(90)(a), np.rot90(a, 1))
    np.testing.assert_array_equal(vision.Rotate(-90)(a), np.rot90(a, -1))
    np.testing.assert_array_equal(vision.RandomRotation((180, 180))(a), np.rot90(a, 2))
    out = vision.Rotate(90)(Image.fromarray(a))
    assert isinstance(out, Image.Image)
    np.testing.assert_array_equal(np.asarray(out), np.rot90(a, 1))


def test_rotate_general_angle_agrees_with_pil_nearest():
    a = _img(20, 24, seed=1)
    ours = vision.Rotate(30, fill_value=0)(a)
    pil = np.asarray(Image.fromarray(a).rotate(30, resample=Image.Resampling.NEAREST))
    assert (ours != pil).any(axis=2).mean() < 0.03
    big = vision.Rotate(30, expand=True)(a)
    want = Image.fromarray(a).rotate(30, expand=True).size
    assert abs(big.shape[1] - want[0]) <= 1 and abs(big.shape[0] - want[1]) <= 1


def test_affine_translation_and_scale():
    a = _img(6, 8, 1, seed=2)
    out = vision.Affine(0, (2, 1), 1.0, 0, fill_value=7)(a)
    want = np.full_like(a, 7)
    want[1:, 2:] = a[:-1, :-2]
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(vision.Affine(90, (0, 0), 1.0, 0)(_img(5, 5)), np.rot90(_img(5, 5), -1))
    f = np.arange(16, dtype=np.float32).reshape(4, 4)
    up = vision.Affine(0, (0, 0), 2.0, 0, resample=vision.Inter.BILINEAR)(f)
    # scale 2 about centre (1.5, 1.5): output (1, 1) reads input (1.25, 1.25)
    assert up[1, 1] == pytest.approx(0.75 * 0.75 * f[1, 1] + 0.75 * 0.25 * (f[1, 2] + f[2, 1]) + 0.0625 * f[2, 2])


def test_random_affine_is_seeded_and_identity_at_zero_ranges():
    a = _img()
    np.testing.assert_array_equal(vision.RandomAffine(0)(a), a)

    def run():
        ds.config.set_seed(5)
        d = ds.NumpySlicesDataset({"image": np.stack([a] * 4)}, shuffle=False).map(
            vision.RandomAffine(20, translate=(-0.2, 0.2), scale=(0.8, 1.2), shear=10))
        return [x for (x,) in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]

    first, again = run(), run()
    for x, y in zip(first, again, strict=True):
        np.testing.assert_array_equal(x, y)
    assert any((x != a).any() for x in first)


def test_hsv_conversions_and_hue_match_colorsys():
    rgb = np.random.default_rng(3).random((4, 5, 3))
    hsv = vision.RgbToHsv(is_hwc=True)(rgb)
    want = np.array([[colorsys.rgb_to_hsv(*p) for p in row] for row in rgb])
    np.testing.assert_allclose(hsv, want, atol=1e-12)
    np.testing.assert_allclose(vision.HsvToRgb(is_hwc=True)(hsv), rgb, atol=1e-12)
    chw = np.moveaxis(rgb, -1, 0)
    np.testing.assert_allclose(vision.RgbToHsv()(chw), np.moveaxis(want, -1, 0), atol=1e-12)
    img = _img(3, 4)
    out = vision.AdjustHue(0.2)(img)
    for y in range(3):
        for x in range(4):
            h, s, v = colorsys.rgb_to_hsv(*(img[y, x] / 255.0))
            exp = np.rint(np.array(colorsys.hsv_to_rgb((h + 0.2) % 1.0, s, v)) * 255)
            np.testing.assert_allclose(out[y, x], exp, atol=1)


def test_posterize_solarize_against_numpy():
    a = _img()
    np.testing.assert_array_equal(vision.Posterize(3)(a), a & 0b11100000)
    np.testing.assert_array_equal(vision.RandomPosterize((2, 2))(a), a & 0b11000000)
    np.testing.assert_array_equal(vision.Solarize(128)(a), np.where(a >= 128, 255 - a, a))
    np.testing.assert_array_equal(vision.Solarize((50, 100))(a), np.where((a >= 50) & (a <= 100), 255 - a, a))
    with pytest.raises(ValueError, match="Posterize: bits"):
        vision.Posterize(9)


def test_autocontrast_and_equalize_against_numpy_oracles():
    a = (_img(32, 32, 1, seed=4) // 3 + 40).astype(np.uint8)
    lo, hi = int(a.min()), int(a.max())
    want = np.floor((a.astype(np.float64) - lo) * 255.0 / (hi - lo) + 1e-9)
    np.testing.assert_allclose(vision.AutoContrast()(a), want, atol=1)
    h = np.bincount(a.ravel(), minlength=256)
    last = h[np.nonzero(h)[0][-1]]
    step = (h.sum() - last) // 255
    lut, n = [], step // 2
    for i in range(256):
        lut.append(min(255, n // step))
        n += h[i]
    np.testing.assert_array_equal(vision.Equalize()(a), np.array(lut, np.uint8)[a])
    np.testing.assert_array_equal(vision.RandomEqualize(1.0)(a), vision.Equalize()(a))
    np.testing.assert_array_equal(np.asarray(vision.Equalize()(Image.fromarray(a[..., 0]))),
                                  np.asarray(ImageOps.equalize(Image.fromarray(a[..., 0]))))


def test_sharpness_blends_with_pils_smooth_kernel():
    a = _img(10, 10, 1, seed=6)[..., 0]
    k = np.array([[1, 1, 1], [1, 5, 1], [1, 1, 1]]) / 13.0
    x = a.astype(np.float64)
    blur = sum(k[i, j] * x[i:i + 8, j:j + 8] for i in range(3) for j in range(3))
    for f in (0.0, 2.0):
        want = np.clip(blur + f * (x[1:-1, 1:-1] - blur), 0, 255)
        got = vision.AdjustSharpness(f)(a)[1:-1, 1:-1]
        assert np.abs(got - want).max() <= 1


def test_gaussian_blur_matches_a_direct_2d_convolution():
    a = np.random.default_rng(7).random((9, 10)).astype(np.float32)
    out = vision.GaussianBlur(5, 1.3)(a)
    x = np.arange(5) - 2
    g = np.exp(-x ** 2 / (2 * 1.3 ** 2))
    k = np.outer(g, g) / np.outer(g, g).sum()
    p = np.pad(a.astype(np.float64), 2, mode="reflect")
    want = sum(k[i, j] * p[i:i + 9, j:j + 10] for i in range(5) for j in range(5))
    np.testing.assert_allclose(out, want, atol=1e-6)
    assert vision.GaussianBlur(3).sigma[0] == pytest.approx(0.8)


def test_cutout_erase_padtosize_slicepatches():
    a = _img(10, 12) | 1  # no zero pixels
    out = vision.CutOut(4, num_patches=1)(a)
    zero = (out == 0).all(axis=2)
    ys, xs = np.nonzero(zero)
    assert zero.sum() == 16 and np.ptp(ys) == 3 and np.ptp(xs) == 3
    e = vision.Erase(1, 2, 3, 4, value=(9, 8, 7))(a)
    want = a.copy()
    want[1:4, 2:6] = (9, 8, 7)
    np.testing.assert_array_equal(e, want)
    p = vision.PadToSize((13, 15), fill_value=5)(a)
    assert p.shape == (13, 15, 3)
    np.testing.assert_array_equal(p[1:11, 1:13], a)
    assert (p[0] == 5).all() and (p[12] == 5).all()
    p = vision.PadToSize(12, offset=(2, 0))(a)
    np.testing.assert_array_equal(p[2:, :], a)
    patches = vision.SlicePatches(3, 5)(a)
    assert len(patches) == 15 and patches[0].shape == (4, 3, 3)
    grid = np.concatenate([np.concatenate(patches[i * 5:(i + 1) * 5], axis=1) for i in range(3)], axis=0)
    np.testing.assert_array_equal(grid[:10, :12], a)
    assert (grid[10:] == 0).all()
    dropped = vision.SlicePatches(3, 5, vision.SliceMode.DROP)(a)
    assert dropped[0].shape == (3, 2, 3)


def test_convert_color_linear_transformation_normalize_pad():
    a = _img(4, 5)
    np.testing.assert_array_equal(vision.ConvertColor(vision.ConvertMode.COLOR_RGB2BGR)(a), a[..., ::-1])
    gray = vision.ConvertColor(vision.ConvertMode.COLOR_RGB2GRAY)(a)
    np.testing.assert_array_equal(gray[..., 0] if gray.ndim == 3 else gray,
                                  np.clip(np.rint(a @ np.array([0.299, 0.587, 0.114])), 0, 255).astype(np.uint8))
    rgba = vision.ConvertColor(vision.ConvertMode.COLOR_RGB2RGBA)(a)
    assert rgba.shape == (4, 5, 4) and (rgba[..., 3] == 255).all()
    x = np.random.default_rng(8).random((2, 2, 2)).astype(np.float32)
    m = np.random.default_rng(9).random((8, 8))
    mean = np.random.default_rng(10).random(8)
    np.testing.assert_allclose(vision.LinearTransformation(m, mean)(x),
                               ((x.reshape(-1) - mean) @ m).reshape(2, 2, 2), rtol=1e-6)
    n = vision.NormalizePad([1.0, 2.0, 3.0], [2.0, 4.0, 8.0])(a)
    assert n.shape == (4, 5, 4) and n.dtype == np.float32
    np.testing.assert_allclose(n[..., :3], (a - [1.0, 2.0, 3.0]) / [2.0, 4.0, 8.0], rtol=1e-6)
    assert (n[..., 3] == 0).all()


def test_color_adjust_and_lighting_identities():
    a = _img()
    np.testing.assert_array_equal(vision.RandomColorAdjust()(a), a)
    np.testing.assert_array_equal(vision.RandomColorAdjust(brightness=(0.5, 0.5))(a),
                                  vision.AdjustBrightness(0.5)(a))
    np.testing.assert_array_equal(vision.RandomLighting(0.0)(a), a)
    assert (vision.RandomLighting(0.5)(a) != a).any()


def test_mixup_and_cutmix_batches():
    rng = np.random.default_rng(11)
    imgs = rng.integers(0, 256, (6, 8, 8, 3), dtype=np.uint8)
    labels = np.eye(3, dtype=np.float32)[[0, 1, 2, 0, 1, 2]]
    same = np.stack([imgs[0]] * 6)
    out, lab = vision.MixUpBatch(0.4)(same, labels)
    np.testing.assert_array_equal(out, same)
    np.testing.assert_allclose(lab.sum(axis=1), 1.0, rtol=1e-6)
    out, lab = vision.CutMixBatch(vision.ImageBatchFormat.NHWC, 1.0, 1.0)(imgs, labels)
    for i in range(6):
        own = (out[i] == imgs[i]).all(axis=2)
        taken = 1 - own.mean()
        other = lab[i] - (1 - taken) * labels[i]
        np.testing.assert_allclose(other.sum(), taken, atol=1e-6)
    with pytest.raises(ValueError, match="one-hot"):
        vision.MixUpBatch()(imgs, np.zeros(6))


def test_image_files_round_trip_and_errors(tmp_path):
    a = _img(5, 6)
    png = vision.encode_png(a)
    assert png.dtype == np.uint8 and bytes(png[:4]) == b"\x89PNG"
    path = tmp_path / "x.png"
    vision.write_file(str(path), png)
    np.testing.assert_array_equal(vision.read_file(str(path)), png)
    np.testing.assert_array_equal(vision.read_image(str(path)), a)
    g = vision.read_image(str(path), vision.ImageReadMode.GRAYSCALE)
    assert g.shape == (5, 6, 1)
    vision.write_png(str(tmp_path / "y.png"), a)
    np.testing.assert_array_equal(vision.read_image(str(tmp_path / "y.png")), a)
    smooth = np.broadcast_to((np.arange(16)[:, None] * 8 + np.arange(16)[None, :] * 4)[..., None], (16, 16, 3))
    vision.write_jpeg(str(tmp_path / "y.jpg"), smooth.astype(np.uint8), quality=95)
    assert np.abs(vision.read_image(str(tmp_path / "y.jpg")).astype(int) - smooth).mean() < 3
    (tmp_path / "bad.png").write_bytes(b"nope")
    with pytest.raises(DatasetError, match="bad.png"):
        vision.read_image(str(tmp_path / "bad.png"))
    with pytest.raises(DatasetError, match="missing.bin"):
        vision.read_file(str(tmp_path / "missing.bin"))
    assert vision.get_image_size(a) == [5, 6] and vision.get_image_num_channels(a) == 3
    assert vision.get_image_size(Image.fromarray(a)) == [5, 6]
    d = vision.RandomCropDecodeResize(4, scale=(1.0, 1.0), ratio=(1.2, 1.2))(png)
    assert d.shape == (4, 4, 3)
    np.testing.assert_array_equal(vision.ToNumpy()(Image.fromarray(a)), a)


def test_uniform_augment_and_subpolicy():
    a = _img()
    flip = vision.HorizontalFlip()
    vflip = vision.VerticalFlip()
    out = vision.UniformAugment([flip, vflip], num_ops=2)(a)
    np.testing.assert_array_equal(out, a[::-1, ::-1])
    np.testing.assert_array_equal(vision.RandomSelectSubpolicy([[(flip, 1.0), (vflip, 0.0)]])(a), a[:, ::-1])
    with pytest.raises(ValueError, match="num_ops"):
        vision.UniformAugment([flip], num_ops=2)


def test_perspective_identity_translation_and_homography():
    from spore.dataset.vision.augment import homography

    a = _img(6, 7, seed=12)
    corners = [[0, 0], [6, 0], [6, 5], [0, 5]]
    for inter in (vision.Inter.NEAREST, vision.Inter.BILINEAR, vision.Inter.BICUBIC):
        np.testing.assert_array_equal(vision.Perspective(corners, corners, inter)(a), a)
    shifted = [[x + 1, y] for x, y in corners]
    out = vision.Perspective(corners, shifted, vision.Inter.NEAREST)(a)
    np.testing.assert_array_equal(out[:, 1:], a[:, :-1])
    assert (out[:, 0] == 0).all()
    src = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)
    dst = np.array([[1, 2], [9, 1], [11, 12], [-1, 9]], float)
    m = homography(src, dst)
    p = m @ np.c_[src, np.ones(4)].T
    np.testing.assert_allclose((p[:2] / p[2]).T, dst, atol=1e-9)
    const = np.full((9, 9), 100.0)
    np.testing.assert_allclose(vision.Rotate(17, resample=vision.Inter.BICUBIC)(const)[3:6, 3:6], 100.0)
    r = vision.RandomPerspective(0.5, prob=1.0)(a)
    assert r.shape == a.shape and (r != a).any()
    np.testing.assert_array_equal(vision.RandomPerspective(0.5, prob=0.0)(a), a)


def test_rand_and_trivial_augment():
    from spore.dataset.vision.augment import _apply_op

    a = _img(12, 12, seed=13)
    np.testing.assert_array_equal(vision.RandAugment(num_ops=0)(a), a)
    np.testing.assert_array_equal(_apply_op(a, "Posterize", 4, vision.Inter.NEAREST, 0), a & 0xF0)
    np.testing.assert_array_equal(_apply_op(a, "Solarize", 100.0, vision.Inter.NEAREST, 0),
                                  np.where(a >= 100, 255 - a, a))
    np.testing.assert_array_equal(_apply_op(a, "TranslateX", 3.0, vision.Inter.NEAREST, 0)[:, 3:], a[:, :-3])

    def run(op):
        def one():
            ds.config.set_seed(21)
            d = ds.NumpySlicesDataset({"image": np.stack([a] * 3)}, shuffle=False).map(op)
            return [x for (x,) in d.create_tuple_iterator(output_numpy=True)]
        first, again = one(), one()
        for x, y in zip(first, again, strict=True):
            np.testing.assert_array_equal(x, y)
            assert x.shape == a.shape and x.dtype == np.uint8
        return first

    run(vision.RandAugment())
    run(vision.TrivialAugmentWide())
    with pytest.raises(TypeError, match="uint8"):
        vision.RandAugment()(a.astype(np.float32))


def test_mixup_batches_blend_images_and_labels_with_one_weight():
    rng = np.random.default_rng(14)
    x = rng.random((4, 3, 3, 1)).astype(np.float32)
    y = np.eye(4, dtype=np.float32)
    out, lab = vision.MixUp(4, 0.5)(x, y)
    # each label row is lam * e_i + (1 - lam) * e_perm(i): recover lam and perm, then check the images
    np.testing.assert_allclose(lab.sum(axis=1), 1.0, atol=1e-6)
    lams = set()
    for i in range(4):
        lam = float(lab[i, i]) if lab[i, i] < 1 - 1e-6 else 1.0
        others = [k for k in range(4) if k != i and lab[i, k] > 1e-6]
        j = others[0] if others else i
        if others:
            lams.add(round(lam, 5))
        np.testing.assert_allclose(out[i], lam * x[i] + (1 - lam) * x[j], atol=1e-5)
    assert len(lams) <= 1  # one weight for the whole batch
    seq = vision.MixUp(4, 0.5, is_single=False)
    first, _ = seq(x, y)
    np.testing.assert_array_equal(first, x)
    second, lab2 = seq(x[::-1].copy(), y)
    lam2 = lab2.max()
    np.testing.assert_allclose(second, lam2 * x[::-1] + (1 - lam2) * x, atol=1e-5)
    with pytest.raises(ValueError, match="batch_size is 4"):
        vision.MixUp(4, 0.5)(x[:2], y[:2])
