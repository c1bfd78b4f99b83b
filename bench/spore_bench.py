"""The Spore backend of the bench, written exactly as MindSpore user code (`import spore as ms`).

Same protocol as `numpy_bench`. Op gradients go through the public autodiff API
(``ms.value_and_grad(..., sens_param=True)`` with the same upstream gradient as the other backends),
training through the seeds' loop: ``value_and_grad(forward_fn, None, optimizer.parameters,
has_aux=True)`` then ``optimizer(grads)``.

Modes: ``pynative`` now. Graph mode is a later issue: add ``"graph"`` to `MODES`, make `setup` switch
the context, and let `_compile` wrap the differentiated functions (e.g. with ``ms.jit``); `run.py`
then adds rows with mode ``graph`` without other changes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .cases import OpCase, TrainCase

MODES = ("pynative",)
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
    """Hook for Graph mode (wrap in ``ms.jit``); PyNative runs the function as written."""
    return fn


def _op_fn(case: OpCase, d: dict[str, np.ndarray]) -> Callable:
    """The differentiated function of an op case; its positional inputs are `case.grads` in order."""
    name = case.name
    if name == "matmul":
        return lambda a, b: ops.matmul(a, b)
    if name.startswith("conv"):
        return lambda x, w: ops.conv2d(x, w, None, stride=1, pad_mode="pad", padding=1)
    if name == "maxpool":
        return lambda x: ops.max_pool2d(x, kernel_size=2, stride=2)
    if name == "softmax_xent":
        labels = ms.Tensor(d["labels"])
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        return lambda logits: loss_fn(logits, labels)
    if name == "batchnorm":
        rm = ms.Parameter(ms.Tensor(d["running_mean"]), name="running_mean", requires_grad=False)
        rv = ms.Parameter(ms.Tensor(d["running_var"]), name="running_var", requires_grad=False)
        f = lambda x, gamma, beta: ops.batch_norm(x, rm, rv, gamma, beta, training=True, momentum=0.1, eps=1e-5)
        f.state = lambda: {"running_mean": rm, "running_var": rv}
        return f
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

    return {"mlp": MLP, "simplecnn": SimpleCNN}


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
    """The seeds' custom training loop, one step per call."""
    net = _models()[case.name]()
    _load(net, params)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Adam(params=net.trainable_params(), learning_rate=0.001)

    def forward_fn(data: Any, label: Any) -> tuple[Any, Any]:
        logits = net(data)
        loss = loss_fn(logits, label)
        return loss, logits

    grad_fn = _compile(ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True))
    data, label = ms.Tensor(x), ms.Tensor(y)

    def step() -> Any:
        (loss, _), grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    return step


def to_numpy(obj: Any) -> np.ndarray:
    """Tensor -> ndarray copy."""
    return obj.asnumpy() if hasattr(obj, "asnumpy") else np.asarray(obj)
