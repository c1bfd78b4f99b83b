"""Image-similarity Cells: `SSIM` and `MSSSIM` (structural similarity, single- and multi-scale),
as MindSpore's nn.SSIM / nn.MSSSIM (issue 14, rest slice).

Both take two (N, C, H, W) float batches and return one score per image (shape (N,)). Each channel
is filtered on its own by a normalised `filter_size` x `filter_sigma` Gaussian window, 'valid'
padding (so H and W must be at least `filter_size` at every scale), and
SSIM = (2 mu1 mu2 + c1)(2 sigma12 + c2) / ((mu1^2 + mu2^2 + c1)(sigma1^2 + sigma2^2 + c2)) with
c1 = (k1 max_val)^2, c2 = (k2 max_val)^2, averaged over positions and then channels. MSSSIM takes
the contrast-structure term cs at every scale but the last (halving the images with a 2x2 average
pool between scales) and SSIM at the last, clips them at 0 (relu, as MindSpore), raises each to its
power factor and multiplies. Built from registered ops: differentiable and Graph-mode compilable.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...common import dtype as mstype
from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from ._common import shape_error

__all__ = ["SSIM", "MSSSIM"]


def gaussian_window(size: int, sigma: float) -> np.ndarray:
    """The normalised 2-D Gaussian window (1, 1, size, size) the SSIM filters use."""
    x = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    g = np.exp(-(x ** 2) / (2.0 * sigma ** 2))
    g /= g.sum()
    return np.outer(g, g).astype(np.float32)[None, None]


def _check_args(owner: str, max_val: Any, filter_size: Any, filter_sigma: Any, k1: Any, k2: Any) -> None:
    if isinstance(max_val, bool) or not isinstance(max_val, (int, float)) or not max_val > 0:
        raise ValueError(f"{owner}: max_val must be a positive number, got {max_val!r}")
    if isinstance(filter_size, bool) or not isinstance(filter_size, int) or filter_size < 1:
        raise ValueError(f"{owner}: filter_size must be an int >= 1, got {filter_size!r}")
    if isinstance(filter_sigma, bool) or not isinstance(filter_sigma, (int, float)) or not filter_sigma > 0:
        raise ValueError(f"{owner}: filter_sigma must be a positive float, got {filter_sigma!r}")
    for name, k in (("k1", k1), ("k2", k2)):
        if not isinstance(k, float):
            raise TypeError(f"{owner}: {name} must be a float, got {type(k).__name__}")


def _check_images(owner: str, img1: Tensor, img2: Tensor, min_size: int) -> None:
    if img1.ndim != 4 or tuple(img1.shape) != tuple(img2.shape):
        raise shape_error(owner, f"two 4-D (N, C, H, W) images of one shape, img1 {tuple(img1.shape)}", img2)
    if img1.dtype not in (mstype.float32, mstype.float16) or img2.dtype != img1.dtype:
        raise TypeError(f"{owner}: img1 and img2 must both be float32 or float16, got {img1.dtype} and {img2.dtype}")
    if min(img1.shape[-2:]) < min_size:
        raise ValueError(f"{owner}: H and W must be at least {min_size} (the filter at every scale), "
                         f"got {tuple(img1.shape[-2:])}")


def _ssim_cs(img1: Tensor, img2: Tensor, window: Tensor, c1: float, c2: float) -> tuple[Tensor, Tensor]:
    """Per image and channel (N, C): the mean SSIM and the mean contrast-structure term."""
    n, c, h, w = img1.shape
    x = F.reshape(img1, (n * c, 1, h, w))
    y = F.reshape(img2, (n * c, 1, h, w))
    mu1 = F.conv2d(x, window)
    mu2 = F.conv2d(y, window)
    mu1_sq, mu2_sq, mu12 = mu1 * mu1, mu2 * mu2, mu1 * mu2
    s1 = F.conv2d(x * x, window) - mu1_sq
    s2 = F.conv2d(y * y, window) - mu2_sq
    s12 = F.conv2d(x * y, window) - mu12
    v1 = 2.0 * s12 + c2
    v2 = s1 + s2 + c2
    ssim = ((2.0 * mu12 + c1) * v1) / ((mu1_sq + mu2_sq + c1) * v2)
    cs = v1 / v2
    return (F.reshape(F.mean(ssim, (1, 2, 3)), (n, c)), F.reshape(F.mean(cs, (1, 2, 3)), (n, c)))


class SSIM(Cell):
    """Structural similarity of two (N, C, H, W) float images, one value per image (N,)."""

    def __init__(self, max_val: float = 1.0, filter_size: int = 11, filter_sigma: float = 1.5, k1: float = 0.01,
                 k2: float = 0.03) -> None:
        super().__init__()
        _check_args("SSIM", max_val, filter_size, filter_sigma, k1, k2)
        self.max_val, self.filter_size, self.filter_sigma = float(max_val), filter_size, float(filter_sigma)
        self.k1, self.k2 = k1, k2
        self._window = gaussian_window(filter_size, float(filter_sigma))

    def construct(self, img1: Tensor, img2: Tensor) -> Tensor:
        _check_images("SSIM", img1, img2, self.filter_size)
        window = F.cast(Tensor(self._window), img1.dtype)
        ssim, _ = _ssim_cs(img1, img2, window, (self.k1 * self.max_val) ** 2, (self.k2 * self.max_val) ** 2)
        return F.mean(ssim, -1)


class MSSSIM(Cell):
    """Multi-scale structural similarity (one scale per power factor), one value per image (N,)."""

    def __init__(self, max_val: float = 1.0, power_factors: Any = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333),
                 filter_size: int = 11, filter_sigma: float = 1.5, k1: float = 0.01, k2: float = 0.03) -> None:
        super().__init__()
        _check_args("MSSSIM", max_val, filter_size, filter_sigma, k1, k2)
        if not isinstance(power_factors, (tuple, list)) or not power_factors or not all(
                isinstance(p, (int, float)) and not isinstance(p, bool) for p in power_factors):
            raise TypeError(f"MSSSIM: power_factors must be a non-empty tuple/list of numbers, got {power_factors!r}")
        self.max_val, self.filter_size, self.filter_sigma = float(max_val), filter_size, float(filter_sigma)
        self.k1, self.k2 = k1, k2
        self.power_factors = tuple(float(p) for p in power_factors)
        self._window = gaussian_window(filter_size, float(filter_sigma))

    def construct(self, img1: Tensor, img2: Tensor) -> Tensor:
        levels = len(self.power_factors)
        _check_images("MSSSIM", img1, img2, self.filter_size * 2 ** (levels - 1))
        window = F.cast(Tensor(self._window), img1.dtype)
        c1, c2 = (self.k1 * self.max_val) ** 2, (self.k2 * self.max_val) ** 2
        terms = []
        for i in range(levels):
            ssim, cs = _ssim_cs(img1, img2, window, c1, c2)
            terms.append(F.pow(F.relu(ssim if i == levels - 1 else cs), self.power_factors[i]))
            if i < levels - 1:
                img1 = F.avg_pool2d(img1, 2, 2)
                img2 = F.avg_pool2d(img2, 2, 2)
        out = terms[0]
        for t in terms[1:]:
            out = out * t
        return F.mean(out, -1)
