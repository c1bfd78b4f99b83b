"""Differential cases for the nn Cells added for MindSpore API breadth (issue 14); `nn_cell_cases`
in cases_tensor_nn.py adds them."""

from __future__ import annotations

import numpy as np

import spore as ms
from spore import nn

from .cases_tensor_nn import C, fl


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
    return out
