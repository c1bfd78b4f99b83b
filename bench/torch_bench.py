"""The PyTorch backend of the bench (runs in whichever interpreter has torch; never imports spore).

Same protocol as `numpy_bench`. Models mirror Spore's: Linear == Dense (weight (out, in)), Conv2d
without bias as the seeds' SimpleCNN and LeNet-5, Adam with the same lr; weights are loaded from the
shared initial arrays so the first losses can be compared across backends.

Modes: ``eager`` (every table) and ``compile``: the same training step wrapped whole in
``torch.compile(mode="default")`` (forward, backward and ``opt.step()``; Inductor's C++ backend on
CPU), used only by the compile-time table (``python -m bench.worker --task compile``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .cases import OpCase, TrainCase

MODES = ("eager", "compile")
torch: Any = None
_mode = "eager"


def setup(threads: int, mode: str) -> dict[str, Any]:
    """Import torch and pin its intra-op threads (the env vars alone do not bind torch's pool)."""
    global torch, _mode
    import torch as _torch

    torch = _torch
    _mode = mode
    torch.set_num_threads(threads)
    torch.set_grad_enabled(True)
    info = {"torch": torch.__version__, "torch_numpy": np.__version__, "torch_threads": torch.get_num_threads()}
    if mode == "compile":  # the cold compile's cost depends on what Inductor's on-disk cache already holds
        try:
            from torch._inductor.runtime.cache_dir_utils import cache_dir

            d = Path(cache_dir())
            n = sum(1 for _ in d.rglob("*")) if d.is_dir() else 0
            info["inductor_cache"] = f"{d} ({f'{n} files before this run' if n else 'empty: a truly cold compile'})"
        except Exception as e:  # noqa: BLE001 - informational only
            info["inductor_cache"] = f"unknown ({type(e).__name__})"
    return info


def _t(a: np.ndarray, grad: bool = False) -> Any:
    t = torch.from_numpy(a if a.flags.c_contiguous else a.copy())  # keeps 0-d arrays 0-d
    if a.dtype == np.int32:
        t = t.long()  # cross_entropy wants int64 class indices
    return t.requires_grad_(grad)


def build_op(case: OpCase, d: dict[str, np.ndarray]) -> Callable[[], tuple[Any, list[Any]]]:
    """Forward + backward of one op through autograd (`torch.autograd.grad`, no .grad accumulation)."""
    F = torch.nn.functional
    name = case.name
    ts = {k: _t(v, k in case.grads) for k, v in d.items()}
    wrt = [ts[k] for k in case.grads]
    dout = ts["dout"]
    if name == "matmul":
        f = lambda: ts["a"] @ ts["b"]
    elif name.startswith("conv"):
        f = lambda: F.conv2d(ts["x"], ts["w"], None, stride=1, padding=1)
    elif name == "maxpool":
        f = lambda: F.max_pool2d(ts["x"], 2, 2)
    elif name == "softmax_xent":
        f = lambda: F.cross_entropy(ts["logits"], ts["labels"], reduction="mean")
    elif name == "batchnorm":
        f = lambda: F.batch_norm(ts["x"], ts["running_mean"], ts["running_var"], ts["gamma"], ts["beta"],
                                 training=True, momentum=0.1, eps=1e-5)
    else:
        raise KeyError(name)

    def run() -> tuple[Any, list[Any]]:
        out = f()
        return out, list(torch.autograd.grad(out, wrt, dout))

    if name == "batchnorm":
        run.state = lambda: {k: ts[k] for k in ("running_mean", "running_var")}  # type: ignore[attr-defined]
    return run


def _net(name: str) -> Any:
    """The model as an ``nn.Sequential`` whose parameter names match Spore's Cells (``fc1.weight``...)."""
    nn = torch.nn
    if name == "mlp":
        layers = [("fc1", nn.Linear(784, 256)), ("relu1", nn.ReLU()), ("fc2", nn.Linear(256, 128)),
                  ("relu2", nn.ReLU()), ("fc3", nn.Linear(128, 10))]
    elif name == "lenet":
        layers = [("conv1", nn.Conv2d(1, 6, 5, padding=2, bias=False)), ("relu1", nn.ReLU()),
                  ("pool1", nn.MaxPool2d(2, 2)), ("conv2", nn.Conv2d(6, 16, 5, bias=False)), ("relu2", nn.ReLU()),
                  ("pool2", nn.MaxPool2d(2, 2)), ("flatten", nn.Flatten()), ("fc1", nn.Linear(400, 120)),
                  ("relu3", nn.ReLU()), ("fc2", nn.Linear(120, 84)), ("relu4", nn.ReLU()), ("fc3", nn.Linear(84, 10))]
    else:
        layers = [("conv1", nn.Conv2d(3, 16, 3, padding=1, bias=False)), ("relu", nn.ReLU()),
                  ("pool", nn.MaxPool2d(2, 2)), ("flatten", nn.Flatten()), ("fc", nn.Linear(4096, 10))]
    return nn.Sequential(OrderedDict(layers))


def build_train(case: TrainCase, params: dict[str, np.ndarray], x: np.ndarray,
                y: np.ndarray) -> Callable[[], Any]:
    """The canonical eager loop: zero_grad, forward, cross_entropy, backward, Adam step.

    In ``compile`` mode the whole step goes through ``torch.compile`` after ``torch._dynamo.reset()``,
    so every call of this function compiles afresh on its first step (Inductor's on-disk caches stay
    warm, as they are for a user re-running a script: that is torch.compile's "warm" compile).
    """
    net = _net(case.name)
    with torch.no_grad():
        for k, p in net.named_parameters():
            p.copy_(torch.from_numpy(params[k]))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    xt, yt = _t(x), _t(y)

    def step() -> Any:
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(net(xt), yt)
        loss.backward()
        opt.step()
        return loss.detach()

    if _mode == "compile":
        torch._dynamo.reset()
        return torch.compile(step, mode="default")
    return step


def to_numpy(obj: Any) -> np.ndarray:
    """Detach and copy out."""
    return obj.detach().numpy() if hasattr(obj, "detach") else np.asarray(obj)
