"""What the bench measures: op cases and training workloads, with their inputs and initial weights.

Inputs and initial weights are generated here, from fixed seeds, in numpy only: every backend
(Spore, the numpy reference, PyTorch in a possibly different interpreter) gets bit-identical data,
so their outputs and gradients can be compared, not just timed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

F32 = np.float32


@dataclass(frozen=True)
class OpCase:
    """One forward+backward op measurement.

    `grads` names the inputs the backward pass differentiates (in order); the rest (labels, running
    statistics) are passed along but not differentiated.
    """

    name: str
    label: str
    grads: tuple[str, ...]


@dataclass(frozen=True)
class TrainCase:
    """One training-step throughput measurement (Adam, lr 1e-3, mean sparse softmax cross-entropy).

    LeNet-5 is the classic MNIST variant: conv 5x5 (pad 2) 1->6, ReLU, maxpool 2, conv 5x5 6->16,
    ReLU, maxpool 2, Dense 400-120-84-10 with ReLUs; convolutions without bias (MindSpore's default).
    """

    name: str
    label: str
    batch: int


OP_CASES: tuple[OpCase, ...] = (
    OpCase("matmul", "matmul 64x784 @ 784x256", ("a", "b")),
    OpCase("conv_3to16", "conv2d (32,3,32,32)*(16,3,3,3) p1", ("x", "w")),
    OpCase("conv_16to32", "conv2d (32,16,16,16)*(32,16,3,3) p1", ("x", "w")),
    OpCase("maxpool", "maxpool 2x2 (32,16,32,32)", ("x",)),
    OpCase("softmax_xent", "softmax xent (64,10) sparse", ("logits",)),
    OpCase("batchnorm", "batchnorm train (32,16,16,16)", ("x", "gamma", "beta")),
)

TRAIN_CASES: tuple[TrainCase, ...] = (
    TrainCase("mlp", "MLP 784-256-128-10 b64", 64),
    TrainCase("simplecnn", "SimpleCNN b32", 32),
    TrainCase("lenet", "LeNet-5 b64 1x28x28", 64),
)


def op_inputs(name: str) -> dict[str, np.ndarray]:
    """Inputs of an op case plus ``dout``, the upstream gradient (random, so no gradient is trivially 0)."""
    rng = np.random.default_rng(1234)
    n = lambda *s: rng.standard_normal(s).astype(F32)
    if name == "matmul":
        d = {"a": n(64, 784), "b": n(784, 256) * F32(0.05)}
        d["dout"] = n(64, 256)
    elif name == "conv_3to16":
        d = {"x": n(32, 3, 32, 32), "w": n(16, 3, 3, 3) * F32(0.2), "dout": n(32, 16, 32, 32)}
    elif name == "conv_16to32":
        d = {"x": n(32, 16, 16, 16), "w": n(32, 16, 3, 3) * F32(0.1), "dout": n(32, 32, 16, 16)}
    elif name == "maxpool":
        d = {"x": n(32, 16, 32, 32), "dout": n(32, 16, 16, 16)}
    elif name == "softmax_xent":
        d = {"logits": n(64, 10), "labels": rng.integers(0, 10, size=64).astype(np.int32),
             "dout": np.asarray(1.0, dtype=F32)}
    elif name == "batchnorm":
        d = {"x": n(32, 16, 16, 16) * F32(2.0) + F32(0.5), "gamma": (1.0 + 0.1 * rng.standard_normal(16)).astype(F32),
             "beta": (0.1 * rng.standard_normal(16)).astype(F32), "running_mean": np.zeros(16, F32),
             "running_var": np.ones(16, F32), "dout": n(32, 16, 16, 16)}
    else:
        raise KeyError(f"unknown op case {name!r}")
    return d


def _uniform(rng: np.random.Generator, shape: tuple[int, ...], fan_in: int) -> np.ndarray:
    """PyTorch's / MindSpore's default layer init (HeUniform with a=sqrt(5)): U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    bound = 1.0 / np.sqrt(fan_in)
    return rng.uniform(-bound, bound, size=shape).astype(F32)


def train_params(name: str) -> dict[str, np.ndarray]:
    """Initial weights, named as the Spore Cell's parameters, laid out as MindSpore/PyTorch store them."""
    rng = np.random.default_rng(42)
    if name == "mlp":
        p = {}
        for i, (fi, fo) in enumerate(((784, 256), (256, 128), (128, 10)), start=1):
            p[f"fc{i}.weight"] = _uniform(rng, (fo, fi), fi)
            p[f"fc{i}.bias"] = _uniform(rng, (fo,), fi)
        return p
    if name == "simplecnn":
        return {"conv1.weight": _uniform(rng, (16, 3, 3, 3), 27),
                "fc.weight": _uniform(rng, (10, 4096), 4096), "fc.bias": _uniform(rng, (10,), 4096)}
    if name == "lenet":
        p = {"conv1.weight": _uniform(rng, (6, 1, 5, 5), 25), "conv2.weight": _uniform(rng, (16, 6, 5, 5), 150)}
        for i, (fi, fo) in enumerate(((400, 120), (120, 84), (84, 10)), start=1):
            p[f"fc{i}.weight"] = _uniform(rng, (fo, fi), fi)
            p[f"fc{i}.bias"] = _uniform(rng, (fo,), fi)
        return p
    raise KeyError(f"unknown training case {name!r}")


def train_batch(name: str) -> tuple[np.ndarray, np.ndarray]:
    """One fixed batch (data, int32 labels); the step is timed without data loading."""
    rng = np.random.default_rng(7)
    if name == "mlp":
        return rng.standard_normal((64, 784)).astype(F32), rng.integers(0, 10, 64).astype(np.int32)
    if name == "simplecnn":
        return rng.standard_normal((32, 3, 32, 32)).astype(F32), rng.integers(0, 10, 32).astype(np.int32)
    if name == "lenet":
        return rng.standard_normal((64, 1, 28, 28)).astype(F32), rng.integers(0, 10, 64).astype(np.int32)
    raise KeyError(f"unknown training case {name!r}")


CHECK_STEPS = 3  # training steps whose losses are compared across backends before timing starts
