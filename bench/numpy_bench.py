"""The numpy-reference backend of the bench: adapts `numpy_ref` to the worker's build_op/build_train protocol.

Protocol shared by every backend module (`numpy_bench`, `spore_bench`, `torch_bench`):

- ``setup(threads, mode) -> dict`` — configure the framework; returns version facts for the header.
- ``build_op(case, inputs) -> run`` — ``run()`` does forward + backward once and returns
  ``(out, [grads...])`` in the framework's own types (so conversion is not timed).
- ``build_train(case, params, x, y) -> step`` — ``step()`` runs one optimizer step on the fixed
  batch and returns the loss (framework type).
- ``to_numpy(obj) -> np.ndarray`` — for the cross-backend correctness check.

A ``run`` may carry ``run.state() -> {name: array}``: state it updates besides its outputs (batch
norm's running statistics), checked like the outputs after the first call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import numpy_ref as R
from .cases import OpCase, TrainCase

MODES = ("ref",)


def setup(threads: int, mode: str) -> dict[str, Any]:
    """Nothing to configure beyond the BLAS thread env vars the parent set; report numpy's BLAS."""
    info: dict[str, Any] = {"numpy": np.__version__}
    try:
        from threadpoolctl import threadpool_info, threadpool_limits

        threadpool_limits(threads)
        info["blas"] = ", ".join(f"{d.get('internal_api')} {d.get('version')} ({d.get('num_threads')} thr)"
                                 for d in threadpool_info())
    except ImportError:
        pass
    return info


def build_op(case: OpCase, d: dict[str, np.ndarray]) -> Callable[[], tuple[Any, list[Any]]]:
    """Forward + backward of one op with the hand-written numpy kernels."""
    name, dout = case.name, d["dout"]
    if name == "matmul":
        def run() -> tuple[Any, list[Any]]:
            out, c = R.matmul_forward(d["a"], d["b"])
            return out, list(R.matmul_backward(dout, c))
    elif name.startswith("conv"):
        def run() -> tuple[Any, list[Any]]:
            out, c = R.conv2d_forward(d["x"], d["w"], None, stride=1, pad=1)
            dx, dw, _ = R.conv2d_backward(dout, c)
            return out, [dx, dw]
    elif name == "maxpool":
        def run() -> tuple[Any, list[Any]]:
            out, c = R.maxpool2x2_forward(d["x"])
            return out, [R.maxpool2x2_backward(dout, c)]
    elif name == "softmax_xent":
        def run() -> tuple[Any, list[Any]]:
            out, c = R.softmax_xent_forward(d["logits"], d["labels"])
            return out, [R.softmax_xent_backward(dout, c)]
    elif name == "batchnorm":
        rm, rv = d["running_mean"].copy(), d["running_var"].copy()

        def run() -> tuple[Any, list[Any]]:
            out, c = R.batchnorm_train_forward(d["x"], d["gamma"], d["beta"], rm, rv, momentum=0.1, eps=1e-5)
            return out, list(R.batchnorm_train_backward(dout, c))

        run.state = lambda: {"running_mean": rm, "running_var": rv}  # type: ignore[attr-defined]
    else:
        raise KeyError(name)
    return run


def build_train(case: TrainCase, params: dict[str, np.ndarray], x: np.ndarray,
                y: np.ndarray) -> Callable[[], Any]:
    """An Adam training step of the hand-written model over the fixed batch."""
    p = {k: v.copy() for k, v in params.items()}
    model = {"mlp": R.MLP, "simplecnn": R.SimpleCNN, "lenet": R.LeNet5}[case.name](p)
    step = R.TrainStep(model, lr=1e-3)
    return lambda: step(x, y)


def to_numpy(obj: Any) -> np.ndarray:
    """Already numpy."""
    return np.asarray(obj)
