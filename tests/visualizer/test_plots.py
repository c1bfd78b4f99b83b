"""Tensor and training views: figure structure, bounded work on large inputs, PNG output."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.image import AxesImage

import spore as ms
from spore_viz import plots


def _images(fig) -> list[AxesImage]:
    return [im for ax in fig.axes for im in ax.get_images()]


def test_heatmap_of_a_2d_tensor_has_the_image_and_a_colorbar(tmp_path):
    t = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    fig = plots.tensor_heatmap(t, title="w", save=tmp_path / "h.png")
    assert len(fig.axes) == 2 and len(_images(fig)) == 1
    assert _images(fig)[0].get_array().shape == (3, 4)
    assert (tmp_path / "h.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_heatmap_strides_large_matrices_down_and_says_so():
    fig = plots.tensor_heatmap(np.random.default_rng(0).standard_normal((3000, 1200)), max_side=256)
    shape = _images(fig)[0].get_array().shape
    assert shape[0] <= 256 and shape[1] <= 256
    assert "every" in fig.axes[0].get_title()


def test_histogram_samples_huge_tensors_and_reports_non_finite_values():
    a = np.random.default_rng(0).standard_normal(3_000_000).astype(np.float32)
    a[:10] = np.nan
    fig = plots.histogram(a, bins=40, max_samples=100_000)
    (ax,) = fig.axes
    assert len(ax.patches) == 40
    assert sum(p.get_height() for p in ax.patches) <= 100_000
    assert "sampled" in ax.get_title()


def test_channel_grid_shows_the_first_samples_channels():
    x = np.random.default_rng(0).standard_normal((2, 10, 8, 8)).astype(np.float32)
    fig = plots.channel_grid(x)
    imgs = _images(fig)
    assert len(imgs) == 10 and len(fig.axes) == 12  # 4 wide x 3 high, 2 cells hidden
    assert sum(ax.get_visible() for ax in fig.axes) == 10
    np.testing.assert_allclose(imgs[3].get_array(), x[0, 3])


def test_channel_grid_caps_channels_and_spatial_size():
    fig = plots.channel_grid(np.zeros((100, 400, 300), np.float32), max_channels=9, max_side=64)
    imgs = _images(fig)
    assert len(imgs) == 9 and all(max(im.get_array().shape) <= 64 for im in imgs)
    assert "9 of 100 channels" in fig._suptitle.get_text()


def test_channel_grid_rejects_2d_input_naming_the_shape():
    with pytest.raises(ValueError, match=r"\[3, 4\]"):
        plots.channel_grid(np.zeros((3, 4)))


def test_training_curves_put_losses_and_metrics_on_two_axes_with_val_twins(tmp_path):
    hist = {"epoch": [1, 2, 3], "loss": [1.0, 0.6, 0.4], "val_loss": [1.1, 0.8, 0.7], "accuracy": [0.3, 0.6, 0.8]}
    fig = plots.training_curves(hist, save=tmp_path / "c.png")
    loss_ax, metric_ax = fig.axes
    assert [ln.get_label() for ln in loss_ax.get_lines()] == ["loss", "val_loss"]
    assert [ln.get_label() for ln in metric_ax.get_lines()] == ["accuracy"]
    assert list(loss_ax.get_lines()[0].get_xdata()) == [1, 2, 3] and loss_ax.get_xlabel() == "epoch"
    assert loss_ax.get_lines()[1].get_linestyle() == "--"
    assert (tmp_path / "c.png").stat().st_size > 0


def test_training_curves_accept_a_history_object_and_stride_long_runs():
    class History:
        history = {"loss": list(np.linspace(2, 0, 50_000))}

    fig = plots.training_curves(History(), max_points=1000, smooth=0.9)
    (ax,) = fig.axes
    assert all(len(ln.get_xdata()) <= 1000 for ln in ax.get_lines())
    assert len(ax.get_lines()) == 2  # the raw series, faint, and its moving average


def test_tensor_view_picks_the_view_by_rank():
    assert len(_images(plots.tensor_view(np.zeros((2, 3, 4, 4))))) == 3
    assert len(_images(plots.tensor_view(np.zeros((5, 6))))) == 1
    assert len(plots.tensor_view(np.zeros(100)).axes[0].patches) > 0
