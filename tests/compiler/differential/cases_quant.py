"""Differential cases for QAT's fake quantization (spore/quant/fake_quant.py, qat.py, bn_fold.py): the
`fake_quant` function (per layer, per channel, symmetric, narrow range, 4 bits), its straight-through
gradient, the observer Cell in training (EMA writes to its range) and in eval, and the QAT cells.
Each runs in PyNative and twice in a compiled construct and must agree (tests/quant/test_fake_quant.py
runs them; they name `spore.quant` callables, not `spore.ops` ones, so the ops suite does not gather
them)."""

from __future__ import annotations

import numpy as np

import spore as ms
from spore import nn, ops
from spore.quant.bn_fold import Conv2dBnFoldQuant
from spore.quant.fake_quant import FakeQuantWithMinMaxObserver, fake_quant
from spore.quant.qat import Conv2dQuant, DenseQuant, create_quant_config

from .cases_tensor_nn import C, G, fl


def _const(v) -> G:
    a = np.asarray(v, np.float32)
    return G(lambda r: a.copy())


def _lo(n: int) -> G:
    return G(lambda r: -r.uniform(0.5, 1.5, n).astype(np.float32))


def _hi(n: int) -> G:
    return G(lambda r: r.uniform(0.5, 1.5, n).astype(np.float32))


def fq_layer(x, mn, mx):
    return fake_quant(x, mn, mx)


def fq_channel_sym_narrow(x, mn, mx):
    return fake_quant(x, mn, mx, 8, True, True, 1)


def fq_4bit(x, mn, mx):
    return fake_quant(x, mn, mx, num_bits=4)


def fq_grad(x, mn, mx):
    """The STE gradient of sum(fq(x) * x) (the product makes it depend on the values)."""
    return ms.grad(lambda v: (fake_quant(v, mn, mx, 8, False, False, 1) * v).sum())(x)


def _from_start(cell, train: bool = True):
    """`cell(x)` from the same state every call: its non-trainable Parameters (observer ranges and
    steps, moving statistics) are reset first (the harness runs a case three times on one Cell, and a
    training call's output depends on the range the previous call left). Returns the output and
    that state after the call, so Graph mode's writes are compared too."""
    cell.set_train(train)
    state = [p for p in cell.get_parameters() if not p.requires_grad]
    start = [ms.Tensor(p.asnumpy().copy()) for p in state]

    def run(x):
        for p, v in zip(state, start):
            ops.assign(p, v)
        return (cell(x), *[ops.add(p, 0.0) for p in state])

    run.__name__ = f"{type(cell).__name__}_from_start"
    return run


def _seeded_cells() -> list:
    ms.set_seed(3)
    cfg = create_quant_config()
    conv = Conv2dQuant.from_float(nn.Conv2d(2, 3, 3, pad_mode="pad", padding=1, has_bias=True), cfg, relu=True)
    dense = DenseQuant.from_float(nn.Dense(5, 4), cfg)
    fold = Conv2dBnFoldQuant.from_float(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), cfg, relu=True, freeze_bn=100)
    return [conv, dense, fold]


def quant_cases() -> list:
    conv, dense, fold = _seeded_cells()
    return [
        C("quant.fake_quant[per layer]", fq_layer, fl(3, 4, lo=-2.0, hi=2.0), _const([-1.0]), _const([1.5])),
        C("quant.fake_quant[per channel symmetric narrow]", fq_channel_sym_narrow, fl(2, 3, 4, lo=-2.0, hi=2.0),
          _lo(3), _hi(3)),
        C("quant.fake_quant[4 bits, scalar range]", fq_4bit, fl(4, 5), _const(-1.2), _const(0.8)),
        C("quant.fake_quant[STE gradient]", fq_grad, fl(2, 3, 4, lo=-2.0, hi=2.0), _lo(3), _hi(3)),
        C("quant.FakeQuantWithMinMaxObserver[train ema]", _from_start(FakeQuantWithMinMaxObserver(ema=True)),
          fl(4, 6)),
        C("quant.FakeQuantWithMinMaxObserver[train quant_delay]",
          _from_start(FakeQuantWithMinMaxObserver(ema=True, quant_delay=1)), fl(4, 6)),
        C("quant.FakeQuantWithMinMaxObserver[eval]", FakeQuantWithMinMaxObserver(min_init=-1, max_init=2),
          fl(4, 6), train=False),
        C("quant.FakeQuantWithMinMaxObserver[per channel train]",
          FakeQuantWithMinMaxObserver(per_channel=True, channel_axis=1, num_channels=3, symmetric=True),
          fl(2, 3, 4), train=True),
        C("quant.Conv2dQuant[relu eval]", conv, fl(2, 2, 5, 5), train=False),
        C("quant.DenseQuant[train]", _from_start(dense), fl(3, 5)),
        C("quant.Conv2dBnFoldQuant[train]", _from_start(fold), fl(2, 2, 6, 6)),
        C("quant.Conv2dBnFoldQuant[eval]", fold, fl(2, 2, 6, 6), train=False),
    ]
