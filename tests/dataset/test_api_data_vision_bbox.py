"""The ...WithBBox transforms: the boxes must still frame the pixels they framed (a painted mask)."""

from __future__ import annotations

import numpy as np
import pytest

import spore.dataset as ds
import spore.dataset.vision as vision


def _scene(h=20, w=24):
    boxes = np.array([[2, 3, 5, 4], [10, 8, 9, 7]], np.float32)
    img = np.zeros((h, w, 1), np.uint8)
    for k, (x, y, bw, bh) in enumerate(boxes.astype(int), 1):
        img[y:y + bh, x:x + bw] = 100 * k
    return img, boxes


def _check_frames(img, boxes, values=(100, 200)):
    for (x, y, bw, bh), v in zip(np.rint(boxes).astype(int), values, strict=False):
        region = img[y:y + bh, x:x + bw, 0]
        assert region.size and (region == v).all()
        assert (img[..., 0] == v).sum() == region.size


def test_flips_move_boxes_with_pixels():
    img, boxes = _scene()
    out, b = vision.RandomHorizontalFlipWithBBox(1.0)(img, boxes)
    np.testing.assert_array_equal(out, img[:, ::-1])
    _check_frames(out, b)
    out, b = vision.RandomVerticalFlipWithBBox(1.0)(img, boxes)
    _check_frames(out, b)
    out, b = vision.RandomVerticalFlipWithBBox(0.0)(img, boxes)
    np.testing.assert_array_equal(b, boxes)


def test_resize_scales_boxes():
    img, boxes = _scene()
    out, b = vision.ResizeWithBBox((40, 48), vision.Inter.NEAREST)(img, boxes)
    np.testing.assert_allclose(b, boxes * 2)
    _check_frames(out, b)
    out, b = vision.RandomResizeWithBBox((10, 12))(img, boxes)
    np.testing.assert_allclose(b, boxes / 2)


def test_crops_clip_and_drop_boxes():
    img, boxes = _scene()
    ds.config.set_seed(4)
    for _ in range(10):
        out, b = vision.RandomCropWithBBox((12, 14), padding=2)(img, boxes)
        assert out.shape == (12, 14, 1)
        for (x, y, bw, bh) in b.astype(int):
            region = out[y:y + bh, x:x + bw, 0]
            assert region.size and (region > 0).all()
        assert len(b) == len({v for v in np.unique(out) if v})
    out, b = vision.RandomResizedCropWithBBox((20, 24), scale=(1.0, 1.0), ratio=(1.2, 1.2),
                                              interpolation=vision.Inter.NEAREST)(img, boxes)
    _check_frames(out, b)


def test_bounding_box_augment_touches_only_box_pixels():
    img, boxes = _scene()
    img = img + 1
    out, b = vision.BoundingBoxAugment(vision.Invert(), ratio=1.0)(np.repeat(img, 3, 2), boxes)
    np.testing.assert_array_equal(b, boxes)
    inside = np.zeros(img.shape[:2], bool)
    for x, y, bw, bh in boxes.astype(int):
        inside[y:y + bh, x:x + bw] = True
    np.testing.assert_array_equal(out[inside], 255 - np.repeat(img, 3, 2)[inside])
    np.testing.assert_array_equal(out[~inside], np.repeat(img, 3, 2)[~inside])
    with pytest.raises(ValueError, match="keep the size"):
        vision.BoundingBoxAugment(vision.Resize((2, 2)), 1.0)(img, boxes)
    with pytest.raises(ValueError, match=r"\(N, 4\+\)"):
        vision.ResizeWithBBox(5)(img, np.zeros(4))
