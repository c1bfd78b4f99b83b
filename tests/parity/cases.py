"""Layer, loss and optimizer cases run by real MindSpore 2.10 once (generate.py) and by Spore in
every test run (test_mindspore_parity.py).

The cases are data, read through `build(ms)`, which gets either `mindspore` or `spore`. The same
code runs unchanged under both, and that is the promise being checked. Nothing here imports
either framework at module level, so the generator never imports Spore and the test never imports
MindSpore.

An input spec is ("f", shape) for floats in [-1, 1), ("pos", shape) for floats in (0.1, 1.1),
("prob", shape) for probabilities in (0.05, 0.95), ("i", shape, high) for int32 in [0, high),
("sign", shape) for int32 in {-1, 1} (("fsign", shape) as float), ("bin", shape) for float 0/1
labels, or ("onehot", shape) for rows that sum to 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

F = "f"


@dataclass
class Case:
    name: str
    make: Callable[[Any], Any]            # ms -> Cell
    inputs: list[tuple]
    grad: tuple[int, ...] = (0,)          # input positions to differentiate (float inputs only)
    train: bool = False                   # set_train(True) (BatchNorm batch statistics)
    rtol: float = 1e-4
    atol: float = 1e-5
    wrong_in_mindspore: str = ""         # why MindSpore's input gradient is not the oracle (then: finite differences)


@dataclass
class OptimCase:
    name: str
    make: Callable[[Any, list], Any]      # (ms, params) -> Optimizer
    steps: int = 3
    rtol: float = 1e-4
    atol: float = 1e-6


@dataclass
class LRCase:
    name: str
    make: Callable[[Any], Any]            # ms -> LearningRateSchedule
    steps: tuple[int, ...] = (0, 1, 2, 5, 9, 10)


def make_input(spec: tuple, rng: np.random.Generator) -> np.ndarray:
    kind, shape = spec[0], spec[1]
    if kind == "f":
        return rng.uniform(-1, 1, shape).astype(np.float32)
    if kind == "pos":
        return rng.uniform(0.1, 1.1, shape).astype(np.float32)
    if kind == "prob":
        return rng.uniform(0.05, 0.95, shape).astype(np.float32)
    if kind == "i":
        return rng.integers(0, spec[2], shape).astype(np.int32)
    if kind == "sign":
        return np.where(rng.uniform(size=shape) < 0.5, -1, 1).astype(np.int32)
    if kind == "fsign":
        return np.where(rng.uniform(size=shape) < 0.5, -1, 1).astype(np.float32)
    if kind == "bin":
        return (rng.uniform(size=shape) < 0.5).astype(np.float32)
    if kind == "onehot":
        x = rng.uniform(0.1, 1, shape).astype(np.float32)
        return x / x.sum(-1, keepdims=True)
    raise ValueError(f"unknown input kind {kind!r}")


def layer_cases() -> list[Case]:
    """Activations, layers and recurrent/attention cells. Left out, because MindSpore 2.10 on CPU
    refuses them: nn.Softplus (not in mindspore.nn), Upsample(mode="nearest") with a scale_factor."""
    x234 = [(F, (2, 3, 4))]
    out: list[Case] = []
    acts = {
        "ReLU": lambda ms: ms.nn.ReLU(), "ReLU6": lambda ms: ms.nn.ReLU6(),
        "LeakyReLU": lambda ms: ms.nn.LeakyReLU(0.2), "ELU": lambda ms: ms.nn.ELU(),
        "CELU": lambda ms: ms.nn.CELU(0.7), "SeLU": lambda ms: ms.nn.SeLU(), "SiLU": lambda ms: ms.nn.SiLU(),
        "Sigmoid": lambda ms: ms.nn.Sigmoid(), "Tanh": lambda ms: ms.nn.Tanh(),
        "GELU": lambda ms: ms.nn.GELU(), "GELU[exact]": lambda ms: ms.nn.GELU(approximate=False),
        "FastGelu": lambda ms: ms.nn.FastGelu(), "HSigmoid": lambda ms: ms.nn.HSigmoid(),
        "HSwish": lambda ms: ms.nn.HSwish(), "Hardtanh": lambda ms: ms.nn.Hardtanh(-0.5, 0.5),
        "HShrink": lambda ms: ms.nn.HShrink(0.3), "SoftShrink": lambda ms: ms.nn.SoftShrink(0.3),
        "LogSigmoid": lambda ms: ms.nn.LogSigmoid(), "Mish": lambda ms: ms.nn.Mish(),
        "Softsign": lambda ms: ms.nn.Softsign(),
        "Tanhshrink": lambda ms: ms.nn.Tanhshrink(), "Softmax": lambda ms: ms.nn.Softmax(),
        "Softmax[axis=1]": lambda ms: ms.nn.Softmax(axis=1), "LogSoftmax": lambda ms: ms.nn.LogSoftmax(),
        "Softmin": lambda ms: ms.nn.Softmin(), "Threshold": lambda ms: ms.nn.Threshold(0.1, 20.0),
        "PReLU": lambda ms: ms.nn.PReLU(), "GLU": lambda ms: ms.nn.GLU(),
    }
    out += [Case(f"nn.{n}", m, x234) for n, m in acts.items() if n != "SeLU"]
    out.append(Case("nn.SeLU", acts["SeLU"], x234,
                    wrong_in_mindspore="MindSpore 2.10's CPU SeLU gradient is wrong for x < 0 (even negative at "
                                       "x = -0.93, where the derivative scale*alpha*exp(x) is positive)"))
    out += [
        Case("nn.PReLU[channels]", lambda ms: ms.nn.PReLU(3, 0.1), x234),
        Case("nn.Softmax2d", lambda ms: ms.nn.Softmax2d(), [(F, (2, 3, 4, 5))]),
        Case("nn.Dense", lambda ms: ms.nn.Dense(4, 3), x234),
        Case("nn.Dense[relu,no bias]", lambda ms: ms.nn.Dense(4, 3, has_bias=False, activation="relu"), [(F, (5, 4))]),
        Case("nn.Conv1d[same]", lambda ms: ms.nn.Conv1d(3, 4, 3, has_bias=True), [(F, (2, 3, 9))]),
        Case("nn.Conv1d[pad,stride2]", lambda ms: ms.nn.Conv1d(3, 4, 3, stride=2, pad_mode="pad", padding=1),
             [(F, (2, 3, 9))]),
        Case("nn.Conv2d[same]", lambda ms: ms.nn.Conv2d(3, 4, 3), [(F, (2, 3, 7, 7))]),
        Case("nn.Conv2d[valid,stride2,bias]", lambda ms: ms.nn.Conv2d(3, 4, 3, stride=2, pad_mode="valid",
                                                                      has_bias=True), [(F, (2, 3, 8, 8))]),
        Case("nn.Conv2d[pad,dilation2,group]", lambda ms: ms.nn.Conv2d(4, 6, 3, pad_mode="pad", padding=2,
                                                                       dilation=2, group=2), [(F, (1, 4, 7, 7))]),
        Case("nn.MaxPool1d", lambda ms: ms.nn.MaxPool1d(2, 2), [(F, (2, 3, 8))]),
        Case("nn.MaxPool2d", lambda ms: ms.nn.MaxPool2d(2, 2), [(F, (2, 3, 6, 6))]),
        Case("nn.MaxPool2d[same,k3s2]", lambda ms: ms.nn.MaxPool2d(3, 2, pad_mode="same"), [(F, (1, 2, 7, 7))]),
        Case("nn.AvgPool1d", lambda ms: ms.nn.AvgPool1d(2, 2), [(F, (2, 3, 8))]),
        Case("nn.AvgPool2d", lambda ms: ms.nn.AvgPool2d(2, 2), [(F, (2, 3, 6, 6))]),
        Case("nn.AvgPool2d[same,k3s2]", lambda ms: ms.nn.AvgPool2d(3, 2, pad_mode="same"), [(F, (1, 2, 7, 7))]),
        Case("nn.AdaptiveAvgPool1d", lambda ms: ms.nn.AdaptiveAvgPool1d(3), [(F, (2, 3, 9))]),
        Case("nn.AdaptiveAvgPool2d", lambda ms: ms.nn.AdaptiveAvgPool2d((2, 3)), [(F, (2, 3, 6, 6))]),
        Case("nn.BatchNorm1d[eval]", lambda ms: ms.nn.BatchNorm1d(4), [(F, (5, 4))]),
        Case("nn.BatchNorm1d[train]", lambda ms: ms.nn.BatchNorm1d(4), [(F, (5, 4))], train=True),
        Case("nn.BatchNorm2d[eval]", lambda ms: ms.nn.BatchNorm2d(3), [(F, (2, 3, 4, 4))]),
        Case("nn.BatchNorm2d[train]", lambda ms: ms.nn.BatchNorm2d(3, momentum=0.8), [(F, (2, 3, 4, 4))], train=True),
        Case("nn.BatchNorm3d[train]", lambda ms: ms.nn.BatchNorm3d(2), [(F, (2, 2, 3, 3, 3))], train=True),
        Case("nn.LayerNorm", lambda ms: ms.nn.LayerNorm((4,)), x234),
        Case("nn.LayerNorm[last two]", lambda ms: ms.nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1),
             x234),
        Case("nn.GroupNorm", lambda ms: ms.nn.GroupNorm(2, 4), [(F, (2, 4, 3, 3))]),
        Case("nn.Embedding", lambda ms: ms.nn.Embedding(10, 4), [("i", (2, 3), 10)], grad=()),
        Case("nn.Embedding[padding_idx]", lambda ms: ms.nn.Embedding(10, 4, padding_idx=1), [("i", (2, 5), 3)],
             grad=()),
        Case("nn.Flatten", lambda ms: ms.nn.Flatten(), x234),
        Case("nn.Unflatten", lambda ms: ms.nn.Unflatten(2, (2, 2)), x234),
        Case("nn.Dropout[eval]", lambda ms: ms.nn.Dropout(p=0.5), x234),
        Case("nn.ZeroPad2d", lambda ms: ms.nn.ZeroPad2d((1, 2, 0, 1)), [(F, (1, 2, 3, 3))]),
        Case("nn.ConstantPad1d", lambda ms: ms.nn.ConstantPad1d((1, 2), 0.5), x234),
        Case("nn.ConstantPad2d", lambda ms: ms.nn.ConstantPad2d(1, -1.0), [(F, (1, 2, 3, 3))]),
        Case("nn.ReflectionPad1d", lambda ms: ms.nn.ReflectionPad1d((2, 1)), x234),
        Case("nn.ReflectionPad2d", lambda ms: ms.nn.ReflectionPad2d(1), [(F, (1, 2, 3, 3))]),
        Case("nn.ReplicationPad1d", lambda ms: ms.nn.ReplicationPad1d((2, 1)), x234),
        Case("nn.ReplicationPad2d", lambda ms: ms.nn.ReplicationPad2d(1), [(F, (1, 2, 3, 3))]),
        Case("nn.PixelShuffle", lambda ms: ms.nn.PixelShuffle(2), [(F, (1, 8, 2, 3))]),
        Case("nn.PixelUnshuffle", lambda ms: ms.nn.PixelUnshuffle(2), [(F, (1, 2, 4, 6))]),
        Case("nn.Upsample[nearest]", lambda ms: ms.nn.Upsample(size=(6, 5), mode="nearest"), [(F, (1, 2, 3, 3))]),
        Case("nn.Upsample[bilinear,align]", lambda ms: ms.nn.Upsample(size=(5, 7), mode="bilinear", align_corners=True),
             [(F, (1, 2, 3, 3))]),
        Case("nn.Conv2dBnAct[bn,relu,train]", lambda ms: ms.nn.Conv2dBnAct(3, 4, 3, has_bn=True, activation="relu"),
             [(F, (2, 3, 5, 5))], train=True),
        Case("nn.DenseBnAct[bn,leakyrelu,train]",
             lambda ms: ms.nn.DenseBnAct(4, 3, has_bn=True, activation="leakyrelu", alpha=0.1), [(F, (5, 4))],
             train=True),
        Case("nn.DenseBnAct[plain]", lambda ms: ms.nn.DenseBnAct(4, 3), [(F, (5, 4))]),
        Case("nn.RNN", lambda ms: ms.nn.RNN(4, 5, batch_first=True), [(F, (2, 3, 4))]),
        Case("nn.GRU[2 layers]", lambda ms: ms.nn.GRU(4, 5, num_layers=2, batch_first=True), [(F, (2, 3, 4))]),
        Case("nn.LSTM", lambda ms: ms.nn.LSTM(4, 5, batch_first=True), [(F, (2, 3, 4))]),
        Case("nn.LSTM[bidirectional,seq-first]", lambda ms: ms.nn.LSTM(4, 3, bidirectional=True), [(F, (3, 2, 4))]),
        Case("nn.RNNCell", lambda ms: ms.nn.RNNCell(4, 5), [(F, (2, 4)), (F, (2, 5))], grad=(0, 1)),
        Case("nn.GRUCell", lambda ms: ms.nn.GRUCell(4, 5), [(F, (2, 4)), (F, (2, 5))], grad=(0, 1)),
        Case("nn.MultiheadAttention", lambda ms: ms.nn.MultiheadAttention(8, 2, batch_first=True),
             [(F, (2, 3, 8)), (F, (2, 4, 8)), (F, (2, 4, 8))], grad=(0, 1, 2)),
        Case("nn.TransformerEncoderLayer", lambda ms: ms.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0,
                                                                                     batch_first=True),
             [(F, (2, 3, 8))]),
        Case("nn.TransformerEncoderLayer[gelu,norm_first]",
             lambda ms: ms.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="gelu", norm_first=True,
                                                      batch_first=True), [(F, (2, 3, 8))]),
    ]
    return out


def loss_cases() -> list[Case]:
    """Left out, because MindSpore 2.10 on CPU has no kernel for them: SoftMarginLoss,
    TripletMarginLoss."""
    p, t = (F, (4, 5)), (F, (4, 5))
    return [
        Case("nn.L1Loss", lambda ms: ms.nn.L1Loss(), [p, t]),
        Case("nn.L1Loss[sum]", lambda ms: ms.nn.L1Loss(reduction="sum"), [p, t]),
        Case("nn.MSELoss", lambda ms: ms.nn.MSELoss(), [p, t]),
        Case("nn.MSELoss[none]", lambda ms: ms.nn.MSELoss(reduction="none"), [p, t]),
        Case("nn.RMSELoss", lambda ms: ms.nn.RMSELoss(), [p, t]),
        Case("nn.MAELoss", lambda ms: ms.nn.MAELoss(), [p, t]),
        Case("nn.SmoothL1Loss", lambda ms: ms.nn.SmoothL1Loss(beta=0.5), [p, t]),
        Case("nn.HuberLoss", lambda ms: ms.nn.HuberLoss(delta=0.5), [p, t]),
        Case("nn.BCELoss", lambda ms: ms.nn.BCELoss(reduction="mean"), [("prob", (4, 5)), ("bin", (4, 5))]),
        Case("nn.BCEWithLogitsLoss", lambda ms: ms.nn.BCEWithLogitsLoss(), [p, ("bin", (4, 5))]),
        Case("nn.CrossEntropyLoss", lambda ms: ms.nn.CrossEntropyLoss(), [p, ("i", (4,), 5)]),
        Case("nn.CrossEntropyLoss[smoothing]", lambda ms: ms.nn.CrossEntropyLoss(label_smoothing=0.1),
             [p, ("i", (4,), 5)]),
        Case("nn.CrossEntropyLoss[probabilities]", lambda ms: ms.nn.CrossEntropyLoss(), [p, ("onehot", (4, 5))]),
        Case("nn.NLLLoss", lambda ms: ms.nn.NLLLoss(), [p, ("i", (4,), 5)]),
        Case("nn.KLDivLoss", lambda ms: ms.nn.KLDivLoss(reduction="batchmean"), [p, ("prob", (4, 5))]),
        Case("nn.SoftmaxCrossEntropyWithLogits[sparse]",
             lambda ms: ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), [p, ("i", (4,), 5)]),
        Case("nn.SoftmaxCrossEntropyWithLogits[dense]",
             lambda ms: ms.nn.SoftmaxCrossEntropyWithLogits(), [p, ("onehot", (4, 5))]),
        Case("nn.CosineEmbeddingLoss", lambda ms: ms.nn.CosineEmbeddingLoss(margin=0.2),
             [p, t, ("sign", (4,))], grad=(0, 1)),
        Case("nn.MarginRankingLoss", lambda ms: ms.nn.MarginRankingLoss(margin=0.1),
             [(F, (6,)), (F, (6,)), ("fsign", (6,))], grad=(0, 1)),
        Case("nn.HingeEmbeddingLoss", lambda ms: ms.nn.HingeEmbeddingLoss(margin=0.5), [p, ("fsign", (4, 5))]),
        Case("nn.MultiLabelSoftMarginLoss", lambda ms: ms.nn.MultiLabelSoftMarginLoss(), [p, ("bin", (4, 5))]),
        Case("nn.FocalLoss[indices]", lambda ms: ms.nn.FocalLoss(), [p, ("i", (4, 1), 5)]),
        Case("nn.FocalLoss[one-hot,weight,sum]",
             lambda ms: ms.nn.FocalLoss(weight=ms.Tensor(np.linspace(0.5, 1.5, 5).astype(np.float32)), gamma=1.5,
                                        reduction="sum"), [p, ("onehot", (4, 5))]),
        Case("nn.FocalLoss[spatial,weight]",
             lambda ms: ms.nn.FocalLoss(weight=ms.Tensor(np.array([0.2, 1.0, 2.0], np.float32))),
             [(F, (2, 3, 4, 4)), ("i", (2, 1, 4, 4), 3)]),
        Case("nn.PoissonNLLLoss", lambda ms: ms.nn.PoissonNLLLoss(), [p, ("pos", (4, 5))]),
        Case("nn.GaussianNLLLoss", lambda ms: ms.nn.GaussianNLLLoss(), [p, t, ("pos", (4, 5))], grad=(0, 2)),
    ]


def optim_cases() -> list[OptimCase]:
    return [
        OptimCase("nn.SGD", lambda ms, ps: ms.nn.SGD(ps, learning_rate=0.1)),
        OptimCase("nn.SGD[momentum,nesterov,wd]", lambda ms, ps: ms.nn.SGD(ps, learning_rate=0.1, momentum=0.9,
                                                                           nesterov=True, weight_decay=0.01)),
        OptimCase("nn.Momentum", lambda ms, ps: ms.nn.Momentum(ps, learning_rate=0.1, momentum=0.9)),
        OptimCase("nn.Momentum[wd]", lambda ms, ps: ms.nn.Momentum(ps, learning_rate=0.1, momentum=0.9,
                                                                   weight_decay=0.01)),
        OptimCase("nn.Adam", lambda ms, ps: ms.nn.Adam(ps, learning_rate=0.01)),
        OptimCase("nn.Adam[wd]", lambda ms, ps: ms.nn.Adam(ps, learning_rate=0.01, weight_decay=0.01)),
        OptimCase("nn.AdamWeightDecay", lambda ms, ps: ms.nn.AdamWeightDecay(ps, learning_rate=0.01,
                                                                             weight_decay=0.01)),
        OptimCase("nn.Adagrad", lambda ms, ps: ms.nn.Adagrad(ps, learning_rate=0.1)),
        OptimCase("nn.Adadelta", lambda ms, ps: ms.nn.Adadelta(ps, learning_rate=1.0)),
        OptimCase("nn.RMSProp", lambda ms, ps: ms.nn.RMSProp(ps, learning_rate=0.01)),
        OptimCase("nn.RMSProp[centered,momentum]", lambda ms, ps: ms.nn.RMSProp(ps, learning_rate=0.01,
                                                                                momentum=0.5, centered=True)),
    ]


def lr_cases() -> list[LRCase]:
    return [
        LRCase("nn.ExponentialDecayLR", lambda ms: ms.nn.ExponentialDecayLR(0.1, 0.9, 4)),
        LRCase("nn.ExponentialDecayLR[staircase]", lambda ms: ms.nn.ExponentialDecayLR(0.1, 0.9, 4, is_stair=True)),
        LRCase("nn.NaturalExpDecayLR", lambda ms: ms.nn.NaturalExpDecayLR(0.1, 0.9, 4)),
        LRCase("nn.InverseDecayLR", lambda ms: ms.nn.InverseDecayLR(0.1, 0.9, 4)),
        LRCase("nn.CosineDecayLR", lambda ms: ms.nn.CosineDecayLR(0.01, 0.1, 10)),
        LRCase("nn.PolynomialDecayLR", lambda ms: ms.nn.PolynomialDecayLR(0.1, 0.01, 10, 0.5)),
        LRCase("nn.WarmUpLR", lambda ms: ms.nn.WarmUpLR(0.1, 5)),
    ]


def optim_net(ms: Any) -> Any:
    """Two Dense layers with a BatchNorm between (its gamma/beta exercise the weight-decay filter).
    A tanh comes before the BatchNorm: a bias right before a BatchNorm (or before a ReLU active on the
    whole batch) gets an exactly-zero gradient, whose float noise Adam's m/sqrt(v) would blow up into
    different updates in any two frameworks."""

    class Net(ms.nn.Cell):
        def __init__(self) -> None:
            super().__init__()
            self.fc1 = ms.nn.Dense(4, 6)
            self.bn = ms.nn.BatchNorm1d(6)
            self.fc2 = ms.nn.Dense(6, 2)

        def construct(self, x):
            return self.fc2(self.bn(ms.ops.tanh(self.fc1(x))))

    return Net()


def all_case_names() -> list[str]:
    return [c.name for c in layer_cases() + loss_cases()] + [c.name for c in optim_cases()] + \
        [c.name for c in lr_cases()]

