"""The Spore backend of the bench, written exactly as MindSpore user code (`import spore as ms`).

Same protocol as `numpy_bench`. Op gradients go through the public autodiff API
(``ms.value_and_grad(..., sens_param=True)`` with the same upstream gradient as the other backends),
training through the Cells users run: ``nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), optimizer)``
called on the batch (forward, backward and Adam update).

Modes: ``pynative`` and ``graph``. The same program runs in both; `setup` only switches the context
(``ms.set_context(mode=ms.GRAPH_MODE)``), so in Graph mode the TrainOneStepCell call compiles the whole
step into one graph (cached per input signature in the Cell's ``compiled_construct``), and `_compile` wraps each
op case's differentiated function in ``ms.jit(fullgraph=True)`` (a failure to compile is an error in
the table, never a silent PyNative fallback). In PyNative the seeds' functional loop
(``value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)`` then ``optimizer(grads)``)
measures the same as TrainOneStepCell within noise, so the Graph/PyNative ratio compares one program.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .cases import OpCase, TrainCase

MODES = ("pynative", "graph")
ms: Any = None
nn: Any = None
ops: Any = None


def setup(threads: int, mode: str) -> dict[str, Any]:
    """Import Spore in the requested execution mode; report its version and native-kernel status."""
    global ms, nn, ops
    source_tree = False
    try:
        import spore  # noqa: F401
    except ModuleNotFoundError:  # not installed in this interpreter: measure the working tree's engine/
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "engine"))
        source_tree = True
    import spore as _ms
    from spore import nn as _nn
    from spore import ops as _ops

    ms, nn, ops = _ms, _nn, _ops
    if mode not in MODES:
        raise ValueError(f"spore bench mode {mode!r} is not supported yet (have {MODES})")
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    ms.set_seed(0)
    info: dict[str, Any] = {"spore": getattr(ms, "__version__", "?") + (" (source tree, not installed)" if source_tree
                                                                        else ""),
                            "spore_numpy": np.__version__}
    try:
        import spore._kernels as k

        info["spore_kernels"] = getattr(k, "__doc__", None) or "loaded"
        for attr in ("build_info", "info", "backend"):
            if hasattr(k, attr):
                v = getattr(k, attr)
                info["spore_kernels"] = str(v() if callable(v) else v)
                break
    except ImportError as e:
        info["spore_kernels"] = f"not loaded ({e})"
    return info


def _compile(fn: Callable) -> Callable:
    """Graph mode compiles `fn` with ``ms.jit(fullgraph=True)``; PyNative runs the function as written."""
    if ms.get_context("mode") == ms.GRAPH_MODE:
        return ms.jit(fn, fullgraph=True)
    return fn


def _op_fn(case: OpCase, d: dict[str, np.ndarray]) -> Callable:
    """The differentiated function of an op case; its positional inputs are `case.grads` in order.

    Named functions, not lambdas: Graph mode compiles them (it refuses lambdas, as MindSpore does).
    """
    name = case.name
    if name == "matmul":
        def matmul(a: Any, b: Any) -> Any:
            return ops.matmul(a, b)
        return matmul
    if name.startswith("conv"):
        def conv(x: Any, w: Any) -> Any:
            return ops.conv2d(x, w, None, stride=1, pad_mode="pad", padding=1)
        return conv
    if name == "maxpool":
        def maxpool(x: Any) -> Any:
            return ops.max_pool2d(x, kernel_size=2, stride=2)
        return maxpool
    if name == "softmax_xent":
        labels = ms.Tensor(d["labels"])
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

        def xent(logits: Any) -> Any:
            return loss_fn(logits, labels)
        return xent
    if name == "batchnorm":
        rm = ms.Parameter(ms.Tensor(d["running_mean"]), name="running_mean", requires_grad=False)
        rv = ms.Parameter(ms.Tensor(d["running_var"]), name="running_var", requires_grad=False)

        def batchnorm(x: Any, gamma: Any, beta: Any) -> Any:
            return ops.batch_norm(x, rm, rv, gamma, beta, training=True, momentum=0.1, eps=1e-5)
        batchnorm.state = lambda: {"running_mean": rm, "running_var": rv}  # type: ignore[attr-defined]
        return batchnorm
    raise KeyError(name)


def build_op(case: OpCase, d: dict[str, np.ndarray]) -> Callable[[], tuple[Any, list[Any]]]:
    """Forward + backward via ``ms.value_and_grad`` over all differentiated inputs, with a given sensitivity."""
    f = _op_fn(case, d)
    vg = _compile(ms.value_and_grad(f, grad_position=tuple(range(len(case.grads))), sens_param=True))
    args = [ms.Tensor(d[k]) for k in case.grads]
    dout = ms.Tensor(d["dout"])

    def run() -> tuple[Any, list[Any]]:
        out, grads = vg(*args, dout)
        return out, list(grads)

    if hasattr(f, "state"):
        run.state = f.state  # type: ignore[attr-defined]
    return run


def _models() -> dict[str, type]:
    """The Cells, defined after import (Spore loads lazily so the numpy/torch workers never need it)."""

    class MLP(nn.Cell):
        """784-256-128-10 with ReLU."""

        def __init__(self) -> None:
            super().__init__()
            self.fc1 = nn.Dense(784, 256)
            self.fc2 = nn.Dense(256, 128)
            self.fc3 = nn.Dense(128, 10)
            self.relu = nn.ReLU()

        def construct(self, x: Any) -> Any:
            return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))

    class SimpleCNN(nn.Cell):
        """The seeds' migration example network."""

        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(3, 16, 3, pad_mode="pad", padding=1)
            self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
            self.fc = nn.Dense(16 * 16 * 16, 10)
            self.relu = nn.ReLU()
            self.flatten = nn.Flatten()

        def construct(self, x: Any) -> Any:
            return self.fc(self.flatten(self.pool(self.relu(self.conv1(x)))))

    class LeNet5(nn.Cell):
        """LeNet-5 on 1x28x28 (conv1 padded by 2, so fc1 sees 16x5x5 as in the 32x32 original)."""

        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="pad", padding=2)
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
            self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
            self.relu = nn.ReLU()
            self.flatten = nn.Flatten()
            self.fc1 = nn.Dense(16 * 5 * 5, 120)
            self.fc2 = nn.Dense(120, 84)
            self.fc3 = nn.Dense(84, 10)

        def construct(self, x: Any) -> Any:
            x = self.pool(self.relu(self.conv1(x)))
            x = self.flatten(self.pool(self.relu(self.conv2(x))))
            return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))

    return {"mlp": MLP, "simplecnn": SimpleCNN, "lenet": LeNet5}


def _load(net: Any, params: dict[str, np.ndarray]) -> None:
    """Copy the shared initial weights in by parameter name (so losses are comparable across backends)."""
    named = dict(net.parameters_and_names()) if hasattr(net, "parameters_and_names") else {
        p.name: p for p in net.trainable_params()}
    missing = set(params) - set(named)
    if missing:
        raise KeyError(f"Spore parameter names {sorted(named)} lack {sorted(missing)}")
    for k, arr in params.items():
        named[k].set_data(ms.Tensor(arr))


def build_train(case: TrainCase, params: dict[str, np.ndarray], x: np.ndarray,
                y: np.ndarray) -> Callable[[], Any]:
    """A fresh network and ``TrainOneStepCell``, one step per call (in Graph mode the first call compiles)."""
    net = _models()[case.name]()
    _load(net, params)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Adam(params=net.trainable_params(), learning_rate=0.001)
    train_step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), optimizer)
    train_step.set_train()
    data, label = ms.Tensor(x), ms.Tensor(y)

    def step() -> Any:
        return train_step(data, label)

    step.cell = train_step  # type: ignore[attr-defined]  # for checks: Graph mode's compile cache lives here
    return step


def describe_train(step: Callable[[], Any]) -> dict[str, Any]:
    """Graph mode: how many graphs the training step's Cell compiled (1 = one graph for the whole step).

    Read after the checked steps, from the compile cache in ``cell.compiled_construct.cache``; a
    step that never compiled raises, so a Graph row cannot silently measure PyNative.
    """
    if ms.get_context("mode") != ms.GRAPH_MODE:
        return {}
    jf = step.cell.compiled_construct  # type: ignore[attr-defined]
    if jf is None or not jf.cache:
        raise RuntimeError("GRAPH_MODE training step did not compile (TrainOneStepCell.compiled_construct is empty)")
    return {"graphs": len(jf.cache)}


def to_numpy(obj: Any) -> np.ndarray:
    """Tensor -> ndarray copy."""
    return obj.asnumpy() if hasattr(obj, "asnumpy") else np.asarray(obj)
