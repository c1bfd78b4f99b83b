"""Differential cases (Graph vs PyNative) for the nn slice of the API-breadth names (issue 14):
3-D and transposed convolutions, 1-d/3-d/adaptive/LP pooling, unpooling, fold/unfold and pixel
shuffle — the ops functions, their class forms, Tensor methods and the nn Cells."""

from __future__ import annotations

import numpy as np

import spore as ms
from spore import nn, ops

from .cases_ops import _classes, _functions
from .cases_tensor_nn import C, G, fl, pos


def _pool_indices(shape: tuple, k: int) -> G:
    """Flat argmax indices of a k-window max pool over (N, C, *spatial) (one per window, distinct)."""
    def make(r: np.random.Generator) -> np.ndarray:
        n, c, *sp = shape
        out = [s // k for s in sp]
        idx = np.zeros((n, c, *out), np.int64)
        for cell in np.ndindex(*out):
            tap = [p * k + int(r.integers(0, k)) for p in cell]
            idx[(slice(None), slice(None)) + cell] = np.ravel_multi_index(tap, sp)
        return idx
    return G(make)


@_functions
def _nn_slice_functions() -> list:
    return [
        C("ops.conv3d[valid]", ops.conv3d, fl(1, 2, 4, 4, 3), fl(3, 2, 2, 2, 2)),
        C("ops.conv3d[same stride groups bias]", ops.conv3d, fl(1, 4, 3, 5, 2), fl(2, 2, 3, 2, 2), fl(2),
          kw={"stride": 2, "pad_mode": "same", "groups": 2}),
        C("ops.conv3d[pad dilation]", ops.conv3d, fl(1, 1, 5, 4, 4), fl(2, 1, 2, 2, 2),
          kw={"pad_mode": "pad", "padding": (1, 0, 0, 1, 1, 1), "dilation": 2}),
        C("ops.conv3d[wrong rank]", ops.conv3d, fl(1, 2, 4, 4), fl(3, 2, 2, 2, 2), note="an error in both modes"),
        C("ops.conv_transpose2d[stride padding]", ops.conv_transpose2d, fl(2, 3, 4, 4), fl(3, 2, 3, 3), fl(2),
          kw={"stride": 2, "padding": 1, "output_padding": 1}),
        C("ops.conv_transpose2d[groups dilation]", ops.conv_transpose2d, fl(1, 4, 3, 3), fl(4, 1, 2, 2),
          kw={"groups": 2, "dilation": 2}),
        C("ops.conv3d_transpose[valid stride]", ops.conv3d_transpose, fl(1, 2, 2, 3, 2), fl(2, 3, 2, 2, 2),
          kw={"stride": 2}),
        C("ops.conv3d_transpose[pad output_padding]", ops.conv3d_transpose, fl(1, 2, 3, 2, 2), fl(2, 1, 3, 2, 2),
          kw={"pad_mode": "pad", "padding": 1, "stride": 2, "output_padding": 1}),
        C("ops.max_pool3d[default]", ops.max_pool3d, fl(1, 1, 4, 4, 4), 2),
        C("ops.max_pool3d[indices ceil pad]", ops.max_pool3d, fl(1, 1, 5, 4, 5), 3,
          kw={"stride": 2, "padding": 1, "ceil_mode": True, "return_indices": True}),
        C("ops.avg_pool3d[default]", ops.avg_pool3d, fl(1, 1, 4, 4, 4), 2, 2),
        C("ops.avg_pool3d[pad no count]", ops.avg_pool3d, fl(1, 1, 5, 4, 3), 3,
          kw={"stride": 2, "padding": 1, "count_include_pad": False, "ceil_mode": True}),
        C("ops.avg_pool3d[divisor]", ops.avg_pool3d, fl(1, 1, 4, 4, 4), 2, kw={"stride": 2, "divisor_override": 3}),
        C("ops.avg_pool1d[default]", ops.avg_pool1d, fl(2, 3, 8), 3, 2),
        C("ops.avg_pool1d[pad ceil]", ops.avg_pool1d, fl(2, 3, 7), 3, 2, 1, True, False),
        C("ops.adaptive_max_pool1d[default]", ops.adaptive_max_pool1d, fl(2, 3, 7), 3),
        C("ops.adaptive_max_pool2d[indices]", ops.adaptive_max_pool2d, fl(1, 3, 7, 5), (3, 2), True),
        C("ops.adaptive_max_pool2d[None unbatched]", ops.adaptive_max_pool2d, fl(3, 6, 5), (2, None)),
        C("ops.adaptive_max_pool3d[indices]", ops.adaptive_max_pool3d, fl(1, 1, 5, 4, 6), (2, 3, 4), True),
        C("ops.adaptive_avg_pool3d[default]", ops.adaptive_avg_pool3d, fl(1, 1, 5, 4, 6), (2, 3, None)),
        C("ops.adaptive_avg_pool2d_ext[default]", ops.adaptive_avg_pool2d_ext, fl(1, 3, 7, 5), (3, 2)),
        C("ops.lp_pool1d[p2]", ops.lp_pool1d, fl(2, 3, 8, lo=0.5, hi=2.0), 2, 3, 2),
        C("ops.lp_pool2d[p3 ceil]", ops.lp_pool2d, fl(1, 2, 5, 5, lo=0.5, hi=2.0), 3, 2, kw={"ceil_mode": True}),
        C("ops.max_unpool1d[default]", ops.max_unpool1d, fl(1, 2, 3), _pool_indices((1, 2, 6), 2), 2),
        C("ops.max_unpool2d[default]", ops.max_unpool2d, fl(1, 2, 2, 3), _pool_indices((1, 2, 4, 6), 2), 2),
        C("ops.max_unpool3d[output_size]", ops.max_unpool3d, fl(1, 1, 2, 2, 2), _pool_indices((1, 1, 4, 4, 5), 2), 2,
          kw={"output_size": (4, 4, 5)}),
        C("ops.unfold[default]", ops.unfold, fl(1, 3, 5, 6), 2),
        C("ops.unfold[all args]", ops.unfold, fl(1, 2, 6, 6), (2, 3), 2, 1, (1, 2)),
        C("ops.fold[default]", ops.fold, fl(1, 4, 20), (5, 6), 2),
        C("ops.fold[stride padding]", ops.fold, fl(1, 4, 16), (6, 6), 2, 1, 1, 2),
        C("ops.pixel_shuffle[default]", ops.pixel_shuffle, fl(2, 8, 3, 2), 2),
        C("ops.pixel_unshuffle[default]", ops.pixel_unshuffle, fl(2, 2, 6, 4), 2),
        C("ops.upsample[nearest]", ops.upsample, fl(1, 2, 3, 4), kw={"size": (5, 7)}),
        C("ops.upsample[bilinear scale]", ops.upsample, fl(1, 1, 3, 3), kw={"scale_factor": 2.0, "mode": "bilinear"}),
        C("ops.pixel_shuffle[bad channels]", ops.pixel_shuffle, fl(1, 6, 2, 2), 2, note="an error in both modes"),
    ]


@_classes
def _nn_slice_classes() -> list:
    return [
        C("ops.Conv3D[default]", ops.Conv3D(3, 2), fl(1, 2, 4, 4, 3), fl(3, 2, 2, 2, 2)),
        C("ops.Conv3D[pad stride]", ops.Conv3D(2, (2, 3, 2), pad_mode="pad", pad=1, stride=2),
          fl(1, 1, 4, 5, 4), fl(2, 1, 2, 3, 2)),
        C("ops.Conv3DTranspose[default]", ops.Conv3DTranspose(2, 3, 2, stride=2), fl(1, 2, 2, 2, 3), fl(2, 3, 2, 2, 2)),
        C("ops.Conv2DTranspose[default]", ops.Conv2DTranspose(2, 3), fl(1, 2, 4, 4), fl(2, 3, 3, 3), (1, 3, 6, 6)),
        C("ops.Conv2DTranspose[same stride]", ops.Conv2DTranspose(2, 3, pad_mode="same", stride=2),
          fl(1, 2, 3, 3), fl(2, 3, 3, 3), (1, 3, 6, 6)),
        C("ops.MaxPool3D[default]", ops.MaxPool3D(2, 2), fl(1, 1, 4, 4, 4)),
        C("ops.MaxPool3D[same]", ops.MaxPool3D(3, 2, "SAME"), fl(1, 1, 5, 4, 5)),
        C("ops.AvgPool3D[default]", ops.AvgPool3D(2, 2), fl(1, 1, 4, 4, 4)),
        C("ops.AvgPool3D[pad]", ops.AvgPool3D(3, 2, "pad", 1, count_include_pad=False), fl(1, 1, 5, 4, 5)),
        C("ops.AdaptiveMaxPool2D[default]", ops.AdaptiveMaxPool2D((3, 2)), fl(1, 3, 7, 5)),
        C("ops.AdaptiveMaxPool3D[default]", ops.AdaptiveMaxPool3D(), fl(1, 1, 5, 4, 6), (2, 3, 4)),
        C("ops.AdaptiveAvgPool3D[default]", ops.AdaptiveAvgPool3D((2, 3, 4)), fl(1, 1, 5, 4, 6)),
        C("ops.MaxUnpool2D[default]", ops.MaxUnpool2D(2), fl(1, 2, 2, 3), _pool_indices((1, 2, 4, 6), 2)),
        C("ops.MaxPoolWithArgmax[default]", ops.MaxPoolWithArgmax(2, 2), fl(1, 2, 4, 6)),
        C("ops.MaxPoolWithArgmax[same]", ops.MaxPoolWithArgmax(3, 2, "same"), fl(2, 1, 5, 5)),
        C("ops.MaxPool3DWithArgmax[default]", ops.MaxPool3DWithArgmax(2, 2, 0), fl(1, 1, 4, 4, 4)),
        C("ops.MaxPool3DWithArgmax[pad int32]", ops.MaxPool3DWithArgmax(3, 2, 1, ceil_mode=True,
                                                                         argmax_type=ms.int32), fl(1, 1, 5, 4, 5)),
        C("ops.UpsampleNearest3D[size]", ops.UpsampleNearest3D(), fl(1, 2, 2, 3, 2), (4, 5, 3)),
        C("ops.UpsampleNearest3D[scales]", ops.UpsampleNearest3D(), fl(1, 1, 2, 2, 3), None, (2.0, 1.5, 1.0)),
        C("ops.UpsampleTrilinear3D[default]", ops.UpsampleTrilinear3D(), fl(1, 2, 2, 3, 2), (3, 5, 4)),
        C("ops.UpsampleTrilinear3D[align]", ops.UpsampleTrilinear3D(True), fl(1, 1, 2, 2, 2), None, (2.0, 2.0, 1.5)),
        C("ops.MaxUnpool3D[default]", ops.MaxUnpool3D(2, 2), fl(1, 1, 2, 2, 2), _pool_indices((1, 1, 4, 4, 4), 2)),
    ]


def unfold_method(x):
    return x.unfold(2)


def unfold_method_stride(x):
    return x.unfold((2, 3), 1, 1, 2)


def unfold_method_dilation(x):
    return x.unfold(2, 2, 1)


def fold_method(x):
    return x.fold((5, 6), 2)


def fold_method_stride(x):
    return x.fold((6, 6), 2, 1, 1, 2)


def fold_method_dilation(x):
    return x.fold((5, 5), 2, 2)


def api_nn_tensor_cases() -> list:
    return [
        C("Tensor.unfold[default]", unfold_method, fl(2, 3, 5, 6)),
        C("Tensor.unfold[stride]", unfold_method_stride, fl(1, 2, 6, 6)),
        C("Tensor.unfold[dilation padding]", unfold_method_dilation, fl(1, 2, 5, 5)),
        C("Tensor.fold[default]", fold_method, fl(1, 12, 20)),
        C("Tensor.fold[stride padding]", fold_method_stride, fl(1, 8, 16)),
        C("Tensor.fold[dilation]", fold_method_dilation, fl(1, 4, 9)),
    ]


def api_nn_slice_cell_cases() -> list:
    ms.set_seed(21)
    return [
        C("nn.Conv3d[default]", nn.Conv3d(2, 3, 2), fl(1, 2, 3, 4, 4)),
        C("nn.Conv3d[pad stride bias]", nn.Conv3d(2, 4, (2, 3, 2), stride=2, pad_mode="pad", padding=1, group=2,
                                                  has_bias=True), fl(2, 2, 4, 5, 4)),
        C("nn.Conv3d[wrong channels]", nn.Conv3d(2, 3, 2), fl(1, 3, 3, 4, 4), note="an error in both modes"),
        C("nn.Conv2dTranspose[default]", nn.Conv2dTranspose(3, 2, 3, stride=2), fl(2, 3, 4, 4)),
        C("nn.Conv2dTranspose[pad output_padding bias]",
          nn.Conv2dTranspose(4, 2, 3, stride=2, pad_mode="pad", padding=1, output_padding=1, group=2, has_bias=True),
          fl(1, 4, 3, 3)),
        C("nn.Conv2dTranspose[valid]", nn.Conv2dTranspose(2, 2, 2, stride=3, pad_mode="valid"), fl(1, 2, 3, 3)),
        C("nn.Conv1dTranspose[default]", nn.Conv1dTranspose(3, 2, 3, stride=2), fl(2, 3, 5)),
        C("nn.Conv1dTranspose[pad bias]", nn.Conv1dTranspose(2, 4, 3, pad_mode="pad", padding=1, has_bias=True),
          fl(1, 2, 6)),
        C("nn.Conv3dTranspose[default]", nn.Conv3dTranspose(2, 3, 2, stride=2), fl(1, 2, 2, 3, 2)),
        C("nn.Conv3dTranspose[valid bias]", nn.Conv3dTranspose(2, 2, 3, pad_mode="valid", has_bias=True),
          fl(1, 2, 2, 2, 3)),
        C("nn.MaxPool3d[default]", nn.MaxPool3d(2, 2), fl(1, 2, 4, 4, 4)),
        C("nn.MaxPool3d[pad indices]", nn.MaxPool3d(3, 2, "pad", 1, return_indices=True, ceil_mode=True),
          fl(1, 1, 5, 4, 5)),
        C("nn.MaxPool3d[same unbatched]", nn.MaxPool3d(3, 2, "same"), fl(2, 5, 4, 5)),
        C("nn.AvgPool3d[default]", nn.AvgPool3d(2, 2), fl(1, 2, 4, 4, 4)),
        C("nn.AvgPool3d[same]", nn.AvgPool3d(3, 2, "same"), fl(1, 2, 5, 4, 5)),
        C("nn.AvgPool3d[pad divisor]", nn.AvgPool3d(3, 1, "pad", 1, divisor_override=4), fl(1, 1, 3, 3, 3)),
        C("nn.AdaptiveMaxPool1d[default]", nn.AdaptiveMaxPool1d(3), fl(2, 3, 7)),
        C("nn.AdaptiveMaxPool2d[default]", nn.AdaptiveMaxPool2d((3, 2)), fl(2, 3, 7, 5)),
        C("nn.AdaptiveMaxPool2d[indices]", nn.AdaptiveMaxPool2d(3, return_indices=True), fl(1, 2, 7, 5)),
        C("nn.AdaptiveMaxPool3d[default]", nn.AdaptiveMaxPool3d((2, 3, 2)), fl(1, 2, 5, 4, 6)),
        C("nn.AdaptiveAvgPool3d[default]", nn.AdaptiveAvgPool3d((2, 3, 2)), fl(1, 2, 5, 4, 6)),
        C("nn.LPPool1d[default]", nn.LPPool1d(2, 3, 2), fl(2, 3, 8, lo=0.5, hi=2.0)),
        C("nn.LPPool2d[default]", nn.LPPool2d(2, 2), fl(1, 2, 4, 6, lo=0.5, hi=2.0)),
        C("nn.MaxUnpool1d[default]", nn.MaxUnpool1d(2), fl(1, 2, 3), _pool_indices((1, 2, 6), 2)),
        C("nn.MaxUnpool2d[default]", nn.MaxUnpool2d(2), fl(1, 2, 2, 3), _pool_indices((1, 2, 4, 6), 2)),
        C("nn.MaxUnpool3d[default]", nn.MaxUnpool3d(2), fl(1, 1, 2, 2, 2), _pool_indices((1, 1, 4, 4, 4), 2)),
        C("nn.ChannelShuffle[default]", nn.ChannelShuffle(2), fl(2, 4, 3, 3)),
        C("nn.Conv1dTranspose[valid group]", nn.Conv1dTranspose(4, 2, 2, stride=3, pad_mode="valid", group=2),
          fl(2, 4, 3)),
        C("nn.Conv3dTranspose[pad output_padding]", nn.Conv3dTranspose(2, 2, 3, stride=2, pad_mode="pad", padding=1,
                                                                       output_padding=1), fl(1, 2, 2, 2, 2)),
        C("nn.AdaptiveMaxPool1d[unbatched]", nn.AdaptiveMaxPool1d(2), fl(3, 5)),
        C("nn.AdaptiveMaxPool1d[float64]", nn.AdaptiveMaxPool1d(4), fl(2, 2, 9, dt=np.float64)),
        C("nn.AdaptiveMaxPool2d[None]", nn.AdaptiveMaxPool2d((None, 2)), fl(2, 6, 5)),
        C("nn.AdaptiveMaxPool3d[indices]", nn.AdaptiveMaxPool3d(2, return_indices=True), fl(1, 1, 3, 5, 4)),
        C("nn.AdaptiveMaxPool3d[unbatched]", nn.AdaptiveMaxPool3d((1, 2, 3)), fl(2, 3, 4, 5)),
        C("nn.AdaptiveAvgPool3d[int]", nn.AdaptiveAvgPool3d(2), fl(1, 2, 4, 4, 5)),
        C("nn.AdaptiveAvgPool3d[unbatched None]", nn.AdaptiveAvgPool3d((None, 1, 2)), fl(2, 3, 4, 5)),
        C("nn.LPPool1d[ceil unbatched]", nn.LPPool1d(3, 2, ceil_mode=True), fl(2, 7, lo=0.5, hi=2.0)),
        C("nn.LPPool1d[p1 stride]", nn.LPPool1d(1, 3, 1), fl(1, 2, 6, lo=0.5, hi=2.0)),
        C("nn.LPPool2d[stride]", nn.LPPool2d(3, (2, 3), (1, 2)), fl(1, 2, 4, 7, lo=0.5, hi=2.0)),
        C("nn.LPPool2d[unbatched]", nn.LPPool2d(2, 2), fl(2, 4, 4, lo=0.5, hi=2.0)),
        C("nn.MaxUnpool1d[stride output_size]", nn.MaxUnpool1d(2, 2), fl(1, 1, 3), _pool_indices((1, 1, 7), 2),
          (1, 1, 7)),
        C("nn.MaxUnpool1d[unbatched]", nn.MaxUnpool1d(2), fl(2, 3), G(lambda r: np.array([[1, 2, 5], [0, 3, 4]]))),
        C("nn.MaxUnpool2d[output_size]", nn.MaxUnpool2d(2, 2), fl(1, 1, 2, 2), _pool_indices((1, 1, 5, 5), 2),
          (5, 5)),
        C("nn.MaxUnpool2d[float64]", nn.MaxUnpool2d(2), fl(1, 2, 2, 2, dt=np.float64), _pool_indices((1, 2, 4, 4), 2)),
        C("nn.MaxUnpool3d[stride]", nn.MaxUnpool3d(2, 2), fl(1, 2, 1, 2, 2), _pool_indices((1, 2, 2, 4, 4), 2)),
        C("nn.MaxUnpool3d[float64]", nn.MaxUnpool3d(2), fl(1, 1, 2, 1, 2, dt=np.float64),
          _pool_indices((1, 1, 4, 2, 4), 2)),
        C("nn.ChannelShuffle[3-D]", nn.ChannelShuffle(3), fl(2, 6, 5)),
        C("nn.LRN[default]", nn.LRN(), fl(2, 7, 3, 3)),
        C("nn.LRN[args]", nn.LRN(1, 2.0, 0.5, 0.75), fl(1, 4, 2, 5)),
        C("nn.LRN[wrong rank]", nn.LRN(), fl(2, 7, 3), note="an error in both modes"),
        C("nn.Unfold[valid]", nn.Unfold([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1]), fl(2, 3, 4, 5)),
        C("nn.Unfold[same strides rates]", nn.Unfold([1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 2, 1], "same"),
          fl(1, 2, 5, 6)),
        C("nn.Unfold[wrong rank]", nn.Unfold([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1]), fl(3, 4, 5),
          note="an error in both modes"),
        C("nn.ChannelShuffle[bad groups]", nn.ChannelShuffle(3), fl(2, 4, 3, 3), note="an error in both modes"),
    ]


def api_nn_misc_cell_cases() -> list:
    """Three cases per small Cell of nn/layer/misc_cells.py."""
    ms.set_seed(22)
    pos_ = {"lo": 0.5, "hi": 3.0}
    diag = G(lambda r: np.asarray(r.standard_normal((2, 3)), np.float32))
    labels = G(lambda r: np.asarray(r.integers(0, 4, (3,)), np.int32))
    ml_target = G(lambda r: np.array([[3, 0, -1, 1], [1, 2, 3, -1]], np.int32))
    return [
        C("nn.Dropout1d[eval]", nn.Dropout1d(0.3), fl(2, 3, 4)),
        C("nn.Dropout1d[p0 train]", nn.Dropout1d(0.0), fl(2, 3, 4), train=True),
        C("nn.Dropout1d[p1 train]", nn.Dropout1d(1.0), fl(2, 3, 4), train=True),
        C("nn.Dropout2d[eval]", nn.Dropout2d(), fl(2, 3, 4, 4)),
        C("nn.Dropout2d[p0 train]", nn.Dropout2d(0.0), fl(2, 3, 4, 4), train=True),
        C("nn.Dropout2d[p1 train]", nn.Dropout2d(1.0), fl(1, 3, 2, 2), train=True),
        C("nn.Dropout3d[eval]", nn.Dropout3d(), fl(1, 2, 2, 3, 3)),
        C("nn.Dropout3d[p0 train]", nn.Dropout3d(0.0), fl(1, 2, 2, 3, 3), train=True),
        C("nn.Dropout3d[p1 train]", nn.Dropout3d(1.0), fl(1, 2, 2, 3, 3), train=True),
        C("nn.InstanceNorm1d[default]", nn.InstanceNorm1d(3), fl(2, 3, 5)),
        C("nn.InstanceNorm1d[no affine]", nn.InstanceNorm1d(2, affine=False), fl(2, 2, 6)),
        C("nn.InstanceNorm1d[wrong channels]", nn.InstanceNorm1d(3), fl(2, 2, 5), note="an error in both modes"),
        C("nn.InstanceNorm2d[default]", nn.InstanceNorm2d(3), fl(2, 3, 4, 4)),
        C("nn.InstanceNorm2d[eps]", nn.InstanceNorm2d(2, eps=0.1), fl(1, 2, 3, 5)),
        C("nn.InstanceNorm2d[float64]", nn.InstanceNorm2d(2, dtype=ms.float64), fl(1, 2, 3, 3, dt=np.float64)),
        C("nn.InstanceNorm3d[default]", nn.InstanceNorm3d(2), fl(2, 2, 2, 3, 3)),
        C("nn.InstanceNorm3d[init]", nn.InstanceNorm3d(2, gamma_init="normal", beta_init="normal"),
          fl(1, 2, 3, 2, 2)),
        C("nn.InstanceNorm3d[wrong rank]", nn.InstanceNorm3d(2), fl(2, 2, 3, 3), note="an error in both modes"),
        C("nn.Tril[default]", nn.Tril(), fl(4, 5)),
        C("nn.Tril[k]", nn.Tril(), fl(2, 4, 4), 1),
        C("nn.Tril[negative k]", nn.Tril(), fl(3, 5), -1),
        C("nn.Triu[default]", nn.Triu(), fl(4, 5)),
        C("nn.Triu[k]", nn.Triu(), fl(2, 4, 4), 1),
        C("nn.Triu[negative k]", nn.Triu(), fl(3, 5), -2),
        C("nn.Roll[int]", nn.Roll(2, 0), fl(5, 3)),
        C("nn.Roll[tuple]", nn.Roll((1, -2), (0, 1)), fl(3, 4)),
        C("nn.Roll[negative axis]", nn.Roll(-1, -1), fl(2, 3, 4)),
        C("nn.Range[limit only]", nn.Range(5)),
        C("nn.Range[float]", nn.Range(1.0, 3.0, 0.5)),
        C("nn.Range[negative delta]", nn.Range(10, 2, -3)),
        C("nn.OneHot[default depth]", nn.OneHot(depth=4), labels),
        C("nn.OneHot[axis 0 values]", nn.OneHot(axis=0, depth=4, on_value=2.0, off_value=-1.0), labels),
        C("nn.OneHot[float64]", nn.OneHot(depth=5, dtype=ms.float64), labels),
        C("nn.Pad[constant]", nn.Pad(((1, 0), (2, 1))), fl(2, 3)),
        C("nn.Pad[reflect]", nn.Pad(((0, 0), (1, 2)), "REFLECT"), fl(2, 4)),
        C("nn.Pad[symmetric]", nn.Pad(((1, 1), (0, 3)), "SYMMETRIC"), fl(2, 3)),
        C("nn.Moments[all]", nn.Moments(), fl(3, 4)),
        C("nn.Moments[axis keep]", nn.Moments(1, True), fl(3, 4, 2)),
        C("nn.Moments[tuple axis]", nn.Moments((0, 2)), fl(3, 4, 2)),
        C("nn.MatMul[default]", nn.MatMul(), fl(2, 3), fl(3, 4)),
        C("nn.MatMul[transpose broadcast]", nn.MatMul(True, True), fl(2, 1, 3, 2), fl(4, 4, 3)),
        C("nn.MatMul[vector]", nn.MatMul(), fl(3), fl(2, 3, 4)),
        C("nn.Norm[all]", nn.Norm(), fl(3, 4)),
        C("nn.Norm[axis]", nn.Norm(1), fl(3, 4)),
        C("nn.Norm[keep]", nn.Norm((0, 1), True), fl(2, 3, 4)),
        C("nn.ClipByNorm[all]", nn.ClipByNorm(), fl(3, 4), 1.0),
        C("nn.ClipByNorm[axis]", nn.ClipByNorm(1), fl(3, 4), 0.5),
        C("nn.ClipByNorm[large]", nn.ClipByNorm(), fl(3, 4), 100.0),
        C("nn.ReduceLogSumExp[axis]", nn.ReduceLogSumExp(1), fl(3, 4)),
        C("nn.ReduceLogSumExp[keep]", nn.ReduceLogSumExp(0, True), fl(3, 4)),
        C("nn.ReduceLogSumExp[tuple]", nn.ReduceLogSumExp((0, 2)), fl(2, 3, 4)),
        C("nn.MatrixDiag[vector]", nn.MatrixDiag(), fl(4)),
        C("nn.MatrixDiag[batch]", nn.MatrixDiag(), fl(2, 3)),
        C("nn.MatrixDiag[float64]", nn.MatrixDiag(), fl(2, 2, 3, dt=np.float64)),
        C("nn.MatrixDiagPart[square]", nn.MatrixDiagPart(), fl(3, 3)),
        C("nn.MatrixDiagPart[wide batch]", nn.MatrixDiagPart(), fl(2, 3, 5)),
        C("nn.MatrixDiagPart[tall]", nn.MatrixDiagPart(), fl(5, 2)),
        C("nn.MatrixSetDiag[wide]", nn.MatrixSetDiag(), fl(2, 3, 4), diag),
        C("nn.MatrixSetDiag[tall]", nn.MatrixSetDiag(), fl(2, 5, 3), diag),
        C("nn.MatrixSetDiag[wrong diagonal]", nn.MatrixSetDiag(), fl(2, 3, 4), fl(2, 4), note="an error in both modes"),
        C("nn.MatDet[default]", nn.MatDet(), fl(3, 3)),
        C("nn.MatDet[batch]", nn.MatDet(), fl(2, 4, 4)),
        C("nn.MatDet[float64]", nn.MatDet(), fl(2, 2, dt=np.float64)),
        C("nn.MatInverse[default]", nn.MatInverse(), G(lambda r: (r.standard_normal((3, 3)) + 4 * np.eye(3))
                                                       .astype(np.float32))),
        C("nn.MatInverse[batch]", nn.MatInverse(), G(lambda r: (r.standard_normal((2, 2, 2)) + 3 * np.eye(2))
                                                     .astype(np.float32))),
        C("nn.MatInverse[float64]", nn.MatInverse(), G(lambda r: r.standard_normal((2, 2)) + 3 * np.eye(2))),
        C("nn.ReflectionPad3d[int]", nn.ReflectionPad3d(1), fl(1, 2, 3, 3, 3)),
        C("nn.ReflectionPad3d[tuple]", nn.ReflectionPad3d((1, 0, 2, 1, 0, 1)), fl(2, 3, 3, 4)),
        C("nn.ReflectionPad3d[wrong rank]", nn.ReflectionPad3d(1), fl(3, 3, 3), note="an error in both modes"),
        C("nn.ReplicationPad3d[int]", nn.ReplicationPad3d(1), fl(1, 2, 2, 3, 3)),
        C("nn.ReplicationPad3d[tuple]", nn.ReplicationPad3d((2, 0, 0, 1, 1, 1)), fl(2, 2, 3, 2)),
        C("nn.ReplicationPad3d[wrong rank]", nn.ReplicationPad3d(1), fl(3, 3, 3), note="an error in both modes"),
        C("nn.CentralCrop[half]", nn.CentralCrop(0.5), fl(2, 3, 8, 8)),
        C("nn.CentralCrop[3-D]", nn.CentralCrop(0.7), fl(3, 7, 9)),
        C("nn.CentralCrop[one]", nn.CentralCrop(1.0), fl(1, 2, 4, 4)),
        C("nn.ImageGradients[default]", nn.ImageGradients(), fl(2, 3, 4, 5)),
        C("nn.ImageGradients[single]", nn.ImageGradients(), fl(1, 1, 3, 3)),
        C("nn.ImageGradients[wrong rank]", nn.ImageGradients(), fl(3, 4, 5), note="an error in both modes"),
        C("nn.PSNR[default]", nn.PSNR(), fl(2, 3, 4, 4, lo=0.0, hi=1.0), fl(2, 3, 4, 4, lo=0.0, hi=1.0)),
        C("nn.PSNR[max_val]", nn.PSNR(255.0), fl(1, 1, 5, 5, lo=0.0, hi=255.0), fl(1, 1, 5, 5, lo=0.0, hi=255.0)),
        C("nn.PSNR[wrong shape]", nn.PSNR(), fl(1, 1, 5, 5), fl(1, 1, 4, 5), note="an error in both modes"),
        C("nn.L1Regularizer[default]", nn.L1Regularizer(0.5), fl(3, 4)),
        C("nn.L1Regularizer[scalar]", nn.L1Regularizer(2), fl(5)),
        C("nn.L1Regularizer[float64]", nn.L1Regularizer(0.1), fl(2, 3, dt=np.float64)),
        C("nn.Linear[default]", nn.Linear(3, 4), fl(2, 3)),
        C("nn.Linear[no bias batch]", nn.Linear(3, 2, bias=False), fl(2, 5, 3)),
        C("nn.Linear[wrong features]", nn.Linear(3, 4), fl(2, 4), note="an error in both modes"),
        C("nn.BiDense[default]", nn.BiDense(3, 4, 2), fl(5, 3), fl(5, 4)),
        C("nn.BiDense[no bias batch]", nn.BiDense(2, 3, 4, has_bias=False), fl(2, 3, 2), fl(2, 3, 3)),
        C("nn.BiDense[mismatch]", nn.BiDense(3, 4, 2), fl(5, 3), fl(4, 4), note="an error in both modes"),
        C("nn.DiceLoss[default]", nn.DiceLoss(), fl(3, 4, lo=0.0, hi=1.0), fl(3, 4, lo=0.0, hi=1.0)),
        C("nn.DiceLoss[smooth]", nn.DiceLoss(1.0), fl(2, 2, 3, lo=0.0, hi=1.0), fl(2, 2, 3, lo=0.0, hi=1.0)),
        C("nn.DiceLoss[mismatch]", nn.DiceLoss(), fl(3, 4), fl(4, 3), note="an error in both modes"),
        C("nn.MultiClassDiceLoss[default]", nn.MultiClassDiceLoss(), fl(3, 4), fl(3, 4, lo=0.0, hi=1.0)),
        C("nn.MultiClassDiceLoss[ignore no activation]", nn.MultiClassDiceLoss(ignore_indiex=1, activation=None),
          fl(2, 3, 5, lo=0.0, hi=1.0), fl(2, 3, 5, lo=0.0, hi=1.0)),
        C("nn.MultiClassDiceLoss[sigmoid]", nn.MultiClassDiceLoss(activation="sigmoid"), fl(4, 2),
          fl(4, 2, lo=0.0, hi=1.0)),
        C("nn.MultiMarginLoss[default]", nn.MultiMarginLoss(), fl(3, 4), labels),
        C("nn.MultiMarginLoss[p2 sum]", nn.MultiMarginLoss(2, 0.5, "sum"), fl(3, 4), labels),
        C("nn.MultiMarginLoss[none weight]", nn.MultiMarginLoss(reduction="none"), fl(3, 4), labels, pos(4)),
        C("nn.MultilabelMarginLoss[default]", nn.MultilabelMarginLoss(), fl(2, 4), ml_target),
        C("nn.MultilabelMarginLoss[sum]", nn.MultilabelMarginLoss("sum"), fl(2, 4), ml_target),
        C("nn.MultilabelMarginLoss[none]", nn.MultilabelMarginLoss("none"), fl(2, 4), ml_target),
        C("nn.TripletMarginWithDistanceLoss[default]", nn.TripletMarginWithDistanceLoss(), fl(4, 3), fl(4, 3),
          fl(4, 3)),
        C("nn.TripletMarginWithDistanceLoss[swap sum]", nn.TripletMarginWithDistanceLoss(swap=True, reduction="sum",
                                                                                         margin=0.5),
          fl(4, 3), fl(4, 3), fl(4, 3)),
        C("nn.TripletMarginWithDistanceLoss[none]", nn.TripletMarginWithDistanceLoss(reduction="none"), fl(2, 5),
          fl(2, 5), fl(2, 5)),
        C("nn.EmbeddingLookup[default]", nn.EmbeddingLookup(6, 3), labels),
        C("nn.EmbeddingLookup[max_norm 2-D]", nn.EmbeddingLookup(6, 4, max_norm=0.5),
          G(lambda r: np.asarray(r.integers(0, 6, (2, 3)), np.int32))),
        C("nn.EmbeddingLookup[float64]", nn.EmbeddingLookup(5, 2, dtype=ms.float64), labels),
        C("nn.ParameterUpdate[default]", nn.ParameterUpdate(ms.Parameter(np.zeros((2, 3), np.float32), name="pu")),
          fl(2, 3)),
        C("nn.ParameterUpdate[vector]", nn.ParameterUpdate(ms.Parameter(np.zeros(4, np.float32), name="pv")), fl(4)),
        C("nn.ParameterUpdate[wrong shape]", nn.ParameterUpdate(ms.Parameter(np.zeros(4, np.float32), name="pw")),
          fl(3), note="an error in both modes"),
        C("nn.LGamma[default]", nn.LGamma(), fl(3, 4, **pos_)),
        C("nn.LGamma[negative]", nn.LGamma(), fl(5, lo=-2.9, hi=-2.1)),
        C("nn.LGamma[float64]", nn.LGamma(), fl(3, dt=np.float64, **pos_)),
        C("nn.DiGamma[default]", nn.DiGamma(), fl(3, 4, **pos_)),
        C("nn.DiGamma[large]", nn.DiGamma(), fl(4, lo=10.0, hi=50.0)),
        C("nn.DiGamma[float64]", nn.DiGamma(), fl(3, dt=np.float64, **pos_)),
        C("nn.IGamma[default]", nn.IGamma(), fl(3, 4, **pos_), fl(3, 4, **pos_)),
        C("nn.IGamma[broadcast]", nn.IGamma(), fl(4, **pos_), fl(2, 4, **pos_)),
        C("nn.IGamma[float64]", nn.IGamma(), fl(3, dt=np.float64, **pos_), fl(3, dt=np.float64, **pos_)),
        C("nn.LBeta[default]", nn.LBeta(), fl(3, 4, **pos_), fl(3, 4, **pos_)),
        C("nn.LBeta[broadcast]", nn.LBeta(), fl(4, **pos_), fl(2, 4, **pos_)),
        C("nn.LBeta[float64]", nn.LBeta(), fl(3, dt=np.float64, **pos_), fl(3, dt=np.float64, **pos_)),
    ]


def api_nn_transformer_cases() -> list:
    """Transformer decoder layer, decoder stack and the full Transformer (eval mode)."""
    ms.set_seed(23)
    causal = G(lambda r: np.triu(np.full((3, 3), -1e9, np.float32), 1))
    pad_mask = G(lambda r: np.array([[False, False, False, True, True], [False] * 5]))
    return [
        C("nn.TransformerDecoderLayer[default]", nn.TransformerDecoderLayer(8, 2, 16), fl(3, 2, 8), fl(5, 2, 8)),
        C("nn.TransformerDecoderLayer[norm_first gelu mask]",
          nn.TransformerDecoderLayer(8, 4, 16, activation="gelu", norm_first=True), fl(3, 2, 8), fl(5, 2, 8), causal),
        C("nn.TransformerDecoderLayer[batch_first padding]", nn.TransformerDecoderLayer(8, 2, 8, batch_first=True),
          fl(2, 3, 8), fl(2, 5, 8), kw={"memory_key_padding_mask": pad_mask}),
        C("nn.TransformerDecoder[two layers]", nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2),
          fl(3, 2, 8), fl(4, 2, 8)),
        C("nn.TransformerDecoder[norm]", nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 1,
                                                              nn.LayerNorm((8,))), fl(3, 1, 8), fl(4, 1, 8)),
        C("nn.TransformerDecoder[mask]", nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 8), 1),
          fl(3, 2, 8), fl(4, 2, 8), causal),
        C("nn.Transformer[small]", nn.Transformer(8, 2, 1, 1, 16), fl(5, 2, 8), fl(3, 2, 8)),
        C("nn.Transformer[batch_first norm_first]", nn.Transformer(8, 2, 1, 2, 8, batch_first=True, norm_first=True),
          fl(2, 4, 8), fl(2, 3, 8)),
        C("nn.Transformer[tgt mask]", nn.Transformer(8, 4, 2, 1, 8), fl(4, 1, 8), fl(3, 1, 8),
          kw={"tgt_mask": causal}),
    ]


def _jvp_fn(x, y):
    return ops.sin(x) * y


def _vjp_fn(x):
    return ops.exp(x) * x


def api_nn_grad_cell_cases() -> list:
    """Jvp, Vjp and WithGradCell."""
    ms.set_seed(24)
    return [
        C("nn.Jvp[two inputs]", nn.Jvp(_jvp_fn), fl(3), fl(3), (fl(3), fl(3))),
        C("nn.Jvp[one input]", nn.Jvp(_vjp_fn), fl(2, 3), fl(2, 3)),
        C("nn.Jvp[float64]", nn.Jvp(_vjp_fn), fl(4, dt=np.float64), fl(4, dt=np.float64)),
        C("nn.Vjp[two inputs]", nn.Vjp(_jvp_fn), fl(3), fl(3), fl(3)),
        C("nn.Vjp[one input]", nn.Vjp(_vjp_fn), fl(2, 3), fl(2, 3)),
        C("nn.Vjp[float64]", nn.Vjp(_vjp_fn), fl(4, dt=np.float64), fl(4, dt=np.float64)),
        C("nn.WithGradCell[loss]", nn.WithGradCell(nn.Dense(3, 2), nn.MSELoss()), fl(4, 3), fl(4, 2)),
        C("nn.WithGradCell[no loss]", nn.WithGradCell(nn.SequentialCell([nn.Dense(3, 1)])), fl(4, 3)),
        C("nn.WithGradCell[sens]", nn.WithGradCell(nn.Dense(2, 2), nn.L1Loss(), sens=2.0), fl(3, 2), fl(3, 2)),
    ]
