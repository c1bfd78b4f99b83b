"""Benchmark: how much of Graph mode's speed-up survives a graph break?

Two networks (an MLP 784-256-128-10 and LeNet-5, batch 64), each twice: as written for Graph mode,
and with one `print` of an activation in the middle of `construct` — under jit_syntax_level=LAX that
statement runs in Python between two compiled segments. Each is timed in PyNative and in Graph mode,
for inference and for a training step (TrainOneStepCell + SGD). Runs of all configurations are
interleaved and the best of each is reported (load from other processes biases none of them). The
print goes to a null sink, but formats the tensor as a real one would.

    .venv/bin/python bench/bench_graph_break.py [--steps 200] [--repeats 5]
"""

from __future__ import annotations

import os

for _k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_k, "1")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import io  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "engine"))
import spore as ms  # noqa: E402
from spore import nn  # noqa: E402


class MLP(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Dense(784, 256), nn.Dense(256, 128), nn.Dense(128, 10)
        self.relu = nn.ReLU()

    def construct(self, x):
        h = self.relu(self.fc2(self.relu(self.fc1(x))))
        return self.fc3(h)


class PrintingMLP(MLP):
    def construct(self, x):
        h = self.relu(self.fc2(self.relu(self.fc1(x))))
        print("hidden mean", h.mean())  # the graph break
        return self.fc3(h)


class LeNet(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(1, 6, 5, pad_mode="valid"), nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.pool, self.relu, self.flatten = nn.MaxPool2d(2, 2), nn.ReLU(), nn.Flatten()
        self.fc1, self.fc2, self.fc3 = nn.Dense(400, 120), nn.Dense(120, 84), nn.Dense(84, 10)

    def construct(self, x):
        h = self.pool(self.relu(self.conv2(self.pool(self.relu(self.conv1(x))))))
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(self.flatten(h))))))


class PrintingLeNet(LeNet):
    def construct(self, x):
        h = self.pool(self.relu(self.conv2(self.pool(self.relu(self.conv1(x))))))
        print("features mean", h.mean())  # the graph break
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(self.flatten(h))))))


NETS = {"MLP": (MLP, PrintingMLP, (64, 784)), "LeNet-5": (LeNet, PrintingLeNet, (64, 1, 32, 32))}


def make(kind: str, cls: type, mode: int):
    ms.set_context(mode=mode)
    ms.set_seed(0)
    net = cls()
    if kind == "infer":
        return net
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
                               nn.SGD(net.trainable_params(), 0.01))
    step.set_train()
    return step


def time_one(fn, args, mode: int, steps: int) -> float:
    ms.set_context(mode=mode)
    t0 = time.perf_counter()
    for _ in range(steps):
        fn(*args)
    return steps / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args(argv)
    r = np.random.default_rng(0)
    y = ms.Tensor(r.integers(0, 10, 64).astype(np.int32))
    inputs = {net: ms.Tensor(r.standard_normal(shape).astype(np.float32)) for net, (_, _, shape) in NETS.items()}
    configs = {}
    for net, (plain, printing, _) in NETS.items():
        for kind in ("infer", "train"):
            for name, cls in (("one graph", plain), ("with a print", printing)):
                for mode_name, mode in (("PyNative", ms.PYNATIVE_MODE), ("Graph", ms.GRAPH_MODE)):
                    configs[(net, kind, name, mode_name)] = (make(kind, cls, mode), mode)

    def args(key: tuple) -> tuple:
        return (inputs[key[0]],) if key[1] == "infer" else (inputs[key[0]], y)

    best: dict[tuple, float] = {}
    with contextlib.redirect_stdout(io.StringIO()) as sink, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key, (fn, mode) in configs.items():  # warm-up: compile, first-step tuning
            time_one(fn, args(key), mode, 3)
        for _ in range(a.repeats):
            for key, (fn, mode) in configs.items():
                sink.seek(0)
                sink.truncate()
                best[key] = max(best.get(key, 0.0), time_one(fn, args(key), mode, a.steps))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    print(f"{'network':<9}{'step':<7}{'construct':<15}{'PyNative st/s':>15}{'Graph st/s':>12}{'Graph/PyNative':>16}"
          f"{'speed-up kept':>15}")
    for net in NETS:
        for kind in ("infer", "train"):
            saved = {}
            for name in ("one graph", "with a print"):
                p, g = best[(net, kind, name, "PyNative")], best[(net, kind, name, "Graph")]
                saved[name] = 1 / p - 1 / g  # seconds per step Graph mode saves
                kept = "" if name == "one graph" else f"{saved[name] / saved['one graph']:.0%}" \
                    if saved["one graph"] > 0 else "n/a"
                print(f"{net:<9}{kind:<7}{name:<15}{p:>15.0f}{g:>12.0f}{g / p:>15.2f}x{kept:>15}")
    print("speed-up kept: the time per step Graph mode saves over PyNative with the break, as a share of what it "
          "saves without")
    return 0


if __name__ == "__main__":
    sys.exit(main())
