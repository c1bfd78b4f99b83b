"""Differential cases for the nn Cells added for MindSpore API breadth (issue 14); `nn_cell_cases`
in cases_tensor_nn.py adds them."""

from __future__ import annotations

import numpy as np

import spore as ms
from spore import nn

from .cases_tensor_nn import C, G, fl, it


class LSTMCellWithState(nn.Cell):
    """An LSTMCell given its (h, c) tuple."""

    def __init__(self, cell: nn.Cell) -> None:
        super().__init__()
        self.cell = cell

    def construct(self, x, h, c):
        return self.cell(x, (h, c))


def api_nn_cases() -> list:
    ms.set_seed(15)
    out = []
    for cls in (nn.RNNCell, nn.GRUCell):
        n = cls.__name__
        out += [C(f"nn.{n}[no state]", cls(3, 4), fl(2, 3)),
                C(f"nn.{n}[state]", cls(3, 4), fl(2, 3), fl(2, 4)),
                C(f"nn.{n}[unbatched no bias]", cls(3, 2, has_bias=False), fl(3)),
                C(f"nn.{n}[wrong input]", cls(3, 4), fl(2, 5), note="an error in both modes")]
    out += [C("nn.RNNCell[relu]", nn.RNNCell(3, 4, nonlinearity="relu"), fl(2, 3), fl(2, 4)),
            C("nn.LSTMCell[no state]", nn.LSTMCell(3, 4), fl(2, 3)),
            C("nn.LSTMCell[state]", LSTMCellWithState(nn.LSTMCell(3, 4)), fl(2, 3), fl(2, 4), fl(2, 4)),
            C("nn.LSTMCell[unbatched]", nn.LSTMCell(3, 2), fl(3)),
            C("nn.BatchNorm3d[train]", nn.BatchNorm3d(2), fl(2, 2, 2, 3, 3), train=True),
            C("nn.BatchNorm3d[eval]", nn.BatchNorm3d(2, moving_mean_init=ms.Tensor(np.array([0.5, -0.5], np.float32)),
                                                     moving_var_init=ms.Tensor(np.array([2.0, 0.5], np.float32))),
              fl(1, 2, 2, 2, 3)),
            C("nn.BatchNorm3d[use_batch_statistics]", nn.BatchNorm3d(3, use_batch_statistics=True), fl(2, 3, 2, 2, 2)),
            C("nn.BatchNorm3d[wrong rank]", nn.BatchNorm3d(2), fl(2, 2, 3, 3), note="an error in both modes"),
            C("nn.Upsample[nearest]", nn.Upsample(scale_factor=2.0), fl(1, 2, 3, 3)),
            C("nn.Upsample[bilinear]", nn.Upsample(size=(5, 4), mode="bilinear"), fl(1, 1, 3, 3)),
            C("nn.Upsample[linear align]", nn.Upsample(size=7, mode="linear", align_corners=True), fl(2, 2, 4))]
    simple = [
        ("Hardtanh", nn.Hardtanh(), nn.Hardtanh(-0.5, 2.0)), ("Tanhshrink", nn.Tanhshrink(), nn.Tanhshrink()),
        ("Softmin", nn.Softmin(), nn.Softmin(0)), ("HShrink", nn.HShrink(), nn.HShrink(1.0)),
        ("SoftShrink", nn.SoftShrink(), nn.SoftShrink(0.2)), ("SeLU", nn.SeLU(), nn.SeLU()),
        ("CELU", nn.CELU(), nn.CELU(0.5)), ("GLU", nn.GLU(), nn.GLU(0)),
        ("Threshold", nn.Threshold(0.1, 20.0), nn.Threshold(-0.3, -1.0)),
        ("Softmax2d", nn.Softmax2d(), nn.Softmax2d()),
    ]
    for name, a, b in simple:
        shape = (2, 3, 2, 2) if name == "Softmax2d" else (4, 6)
        out += [C(f"nn.{name}[default]", a, fl(*shape)), C(f"nn.{name}[args]", b, fl(*shape)),
                C(f"nn.{name}[float64]", a, fl(*shape, dt=np.float64))]
    return out + _loss_cases() + _shape_layer_cases() + _combined_cases()


def _sign(*shape):
    return G(lambda r: np.where(r.random(shape) > 0.5, 1.0, -1.0).astype(np.float32))


def _loss_cases() -> list:
    two = [("HuberLoss", (nn.HuberLoss(), nn.HuberLoss("sum", 0.5), nn.HuberLoss("none", 2.0))),
           ("SoftMarginLoss", (nn.SoftMarginLoss(), nn.SoftMarginLoss("sum"), nn.SoftMarginLoss("none"))),
           ("HingeEmbeddingLoss", (nn.HingeEmbeddingLoss(), nn.HingeEmbeddingLoss(0.5, "sum"),
                                   nn.HingeEmbeddingLoss(2.0, "none"))),
           ("MAELoss", (nn.MAELoss(), nn.MAELoss("sum"), nn.MAELoss("none"))),
           ("RMSELoss", (nn.RMSELoss(), nn.RMSELoss(), nn.RMSELoss())),
           ("MultiLabelSoftMarginLoss", (nn.MultiLabelSoftMarginLoss(), nn.MultiLabelSoftMarginLoss(reduction="sum"),
                                         nn.MultiLabelSoftMarginLoss(reduction="none")))]
    out = []
    for name, cells in two:
        labels = it(0, 2, 4, 5, dt=np.float32) if name == "MultiLabelSoftMarginLoss" else (
            _sign(4, 5) if name in ("SoftMarginLoss", "HingeEmbeddingLoss") else fl(4, 5))
        out += [C(f"nn.{name}[{i}]", cell, fl(4, 5), labels) for i, cell in enumerate(cells)]
    out += [C(f"nn.KLDivLoss[{r}]", nn.KLDivLoss(r), fl(3, 4), fl(3, 4, lo=0.05, hi=1.0))
            for r in ("mean", "sum", "batchmean")]
    out += [C(f"nn.MarginRankingLoss[{i}]", cell, fl(6), fl(6), _sign(6))
            for i, cell in enumerate((nn.MarginRankingLoss(), nn.MarginRankingLoss(0.5, "sum"),
                                      nn.MarginRankingLoss(0.1, "none")))]
    out += [C(f"nn.CosineEmbeddingLoss[{i}]", cell, fl(4, 3), fl(4, 3), _sign(4))
            for i, cell in enumerate((nn.CosineEmbeddingLoss(), nn.CosineEmbeddingLoss(0.3, "sum"),
                                      nn.CosineEmbeddingLoss(-0.2, "none")))]
    out += [C("nn.PoissonNLLLoss[log]", nn.PoissonNLLLoss(), fl(3, 4), fl(3, 4, lo=0.0, hi=4.0)),
            C("nn.PoissonNLLLoss[no log full]", nn.PoissonNLLLoss(False, True), fl(3, 4, lo=0.1, hi=3.0),
              fl(3, 4, lo=0.0, hi=4.0)),
            C("nn.PoissonNLLLoss[sum]", nn.PoissonNLLLoss(reduction="sum"), fl(5), fl(5, lo=0.0, hi=3.0))]
    out += [C("nn.GaussianNLLLoss[default]", nn.GaussianNLLLoss(), fl(3, 4), fl(3, 4), fl(3, 4, lo=0.1, hi=2.0)),
            C("nn.GaussianNLLLoss[full sum]", nn.GaussianNLLLoss(full=True, reduction="sum"), fl(3, 4), fl(3, 4),
              fl(3, 4, lo=0.1, hi=2.0)),
            C("nn.GaussianNLLLoss[none]", nn.GaussianNLLLoss(reduction="none"), fl(5), fl(5), fl(5, lo=0.1, hi=2.0))]
    out += [C(f"nn.TripletMarginLoss[{i}]", cell, fl(4, 3), fl(4, 3), fl(4, 3))
            for i, cell in enumerate((nn.TripletMarginLoss(), nn.TripletMarginLoss(1, True),
                                      nn.TripletMarginLoss(3, margin=0.5, reduction="sum")))]
    return out


def _shape_layer_cases() -> list:
    out = []
    pads = [("ConstantPad1d", nn.ConstantPad1d(2, 1.5), nn.ConstantPad1d((1, 0), -1.0), fl(2, 3, 4)),
            ("ConstantPad2d", nn.ConstantPad2d(1, 0.5), nn.ConstantPad2d((1, 0, 2, 1), 2.0), fl(1, 2, 3, 3)),
            ("ConstantPad3d", nn.ConstantPad3d(1, 0.5), nn.ConstantPad3d((1, 0, 0, 1, 1, 0), 2.0), fl(1, 2, 2, 2, 2)),
            ("ZeroPad2d", nn.ZeroPad2d(1), nn.ZeroPad2d((0, 1, 2, 0)), fl(1, 2, 3, 3)),
            ("ReflectionPad1d", nn.ReflectionPad1d(2), nn.ReflectionPad1d((1, 3)), fl(2, 3, 5)),
            ("ReflectionPad2d", nn.ReflectionPad2d(1), nn.ReflectionPad2d((2, 0, 1, 2)), fl(1, 2, 4, 4)),
            ("ReplicationPad1d", nn.ReplicationPad1d(2), nn.ReplicationPad1d((0, 3)), fl(2, 3, 4)),
            ("ReplicationPad2d", nn.ReplicationPad2d(1), nn.ReplicationPad2d((1, 2, 0, 1)), fl(1, 2, 3, 3))]
    for name, a, b, x in pads:
        as64 = G(lambda r, g=x: g.fn(r).astype(np.float64))
        out += [C(f"nn.{name}[int]", a, x), C(f"nn.{name}[tuple]", b, x), C(f"nn.{name}[float64]", a, as64)]
    out += [C("nn.PixelShuffle[2]", nn.PixelShuffle(2), fl(1, 8, 2, 3)),
            C("nn.PixelShuffle[3 no batch]", nn.PixelShuffle(3), fl(9, 2, 2)),
            C("nn.PixelShuffle[1]", nn.PixelShuffle(1), fl(2, 3, 2, 2)),
            C("nn.PixelUnshuffle[2]", nn.PixelUnshuffle(2), fl(1, 2, 4, 6)),
            C("nn.PixelUnshuffle[3 no batch]", nn.PixelUnshuffle(3), fl(1, 3, 6)),
            C("nn.PixelUnshuffle[1]", nn.PixelUnshuffle(1), fl(2, 3, 2, 2)),
            C("nn.Unflatten[middle]", nn.Unflatten(1, (2, 3)), fl(4, 6, 2)),
            C("nn.Unflatten[last -1]", nn.Unflatten(-1, (2, -1)), fl(3, 8)),
            C("nn.Unflatten[first]", nn.Unflatten(0, (2, 2)), fl(4, 3))]
    return out


def _combined_cases() -> list:
    """Conv2dBnAct/DenseBnAct, FocalLoss and RReLU (random: seeded, so both modes draw the same)."""
    w = ms.Tensor(np.array([0.5, 1.0, 2.0], np.float32))
    return [C("nn.Conv2dBnAct[plain]", nn.Conv2dBnAct(3, 2, 3), fl(2, 3, 5, 5)),
            C("nn.Conv2dBnAct[bn relu train]", nn.Conv2dBnAct(3, 2, 3, has_bn=True, activation="relu"),
              fl(2, 3, 5, 5), train=True),
            C("nn.Conv2dBnAct[bn leakyrelu eval]", nn.Conv2dBnAct(2, 2, 1, has_bn=True, activation="leakyrelu"),
              fl(1, 2, 3, 3), train=False),
            C("nn.DenseBnAct[plain]", nn.DenseBnAct(4, 3), fl(5, 4)),
            C("nn.DenseBnAct[bn sigmoid train]", nn.DenseBnAct(4, 3, has_bn=True, activation="sigmoid"), fl(5, 4),
              train=True),
            C("nn.DenseBnAct[bn eval]", nn.DenseBnAct(4, 3, has_bn=True), fl(5, 4), train=False),
            C("nn.FocalLoss[indices]", nn.FocalLoss(), fl(4, 3), it(0, 3, 4, 1)),
            C("nn.FocalLoss[one-hot weight sum]", nn.FocalLoss(w, 1.5, "sum"), fl(4, 3), fl(4, 3, lo=0.0, hi=1.0)),
            C("nn.FocalLoss[spatial none]", nn.FocalLoss(reduction="none"), fl(2, 3, 2, 2), it(0, 3, 2, 1, 2, 2)),
            C("nn.RReLU[default]", nn.RReLU(), fl(3, 4), seeded=True),
            C("nn.RReLU[range]", nn.RReLU(0.2, 0.4), fl(2, 3, 4), seeded=True),
            C("nn.RReLU[float64]", nn.RReLU(), fl(4, 5, dt=np.float64), seeded=True)]
