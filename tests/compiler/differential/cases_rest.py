"""Differential cases for the rest slice's nn Cells (issue 14): SSIM and MSSSIM."""

from __future__ import annotations

from spore import nn

from .cases_tensor_nn import C, fl


def api_rest_cell_cases() -> list:
    return [
        C("nn.SSIM[default]", nn.SSIM(), fl(1, 2, 12, 12, lo=0.0, hi=1.0), fl(1, 2, 12, 12, lo=0.0, hi=1.0)),
        C("nn.SSIM[small window]", nn.SSIM(max_val=2.0, filter_size=3, filter_sigma=0.8),
          fl(1, 2, 5, 6, lo=0.0, hi=2.0), fl(1, 2, 5, 6, lo=0.0, hi=2.0)),
        C("nn.SSIM[too small]", nn.SSIM(), fl(1, 1, 5, 5), fl(1, 1, 5, 5), note="an error in both modes"),
        C("nn.MSSSIM[two scales]", nn.MSSSIM(power_factors=(0.4, 0.6), filter_size=3),
          fl(2, 1, 8, 8, lo=0.0, hi=1.0), fl(2, 1, 8, 8, lo=0.0, hi=1.0)),
        C("nn.MSSSIM[three scales]", nn.MSSSIM(power_factors=(0.2, 0.3, 0.5), filter_size=3, filter_sigma=1.0),
          fl(1, 2, 12, 12, lo=0.0, hi=1.0), fl(1, 2, 12, 12, lo=0.0, hi=1.0)),
        C("nn.MSSSIM[too small]", nn.MSSSIM(filter_size=3), fl(1, 1, 8, 8), fl(1, 1, 8, 8),
          note="an error in both modes"),
    ]
