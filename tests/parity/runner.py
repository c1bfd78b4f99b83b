"""Runs one parity case under a framework module (`mindspore` when generating, `spore` in the test)
and returns plain NumPy results. The code below is written once and runs unchanged under both.

A layer case records the parameters it was initialised with, then the outputs, and the gradient of
sum(output * cotangent) with respect to the chosen inputs and every trainable parameter. If it is
given parameters and cotangents (the test passes MindSpore's), it uses those instead. The names
must match MindSpore's, or checkpoints would not interchange.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .cases import Case, LRCase, OptimCase, make_input, optim_net


def _seed(name: str) -> int:
    return sum((i + 1) * ord(c) for i, c in enumerate(name)) % (2**31)


def _flat(out: Any) -> list:
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


def _load(net: Any, ms: Any, params: dict[str, np.ndarray]) -> None:
    mine = {p.name: p for p in net.get_parameters()}
    if set(mine) != set(params):
        raise AssertionError(f"parameter names differ from MindSpore's: only here {sorted(set(mine) - set(params))}, "
                             f"only in MindSpore {sorted(set(params) - set(mine))}")
    for name, p in mine.items():
        if tuple(p.shape) != params[name].shape:
            raise AssertionError(f"parameter {name}: shape {tuple(p.shape)} here, {params[name].shape} in MindSpore")
        p.set_data(ms.Tensor(params[name]))


def run_layer(ms: Any, case: Case, params: dict | None = None, cots: list | None = None) -> dict:
    seed = _seed(case.name)
    ms.set_seed(seed)
    net = case.make(ms)
    net.set_train(case.train)
    if params is not None:
        _load(net, ms, params)
    initial = {p.name: p.asnumpy().copy() for p in net.get_parameters()}
    rng = np.random.default_rng(seed)
    arrays = [make_input(s, rng) for s in case.inputs]
    xs = [ms.Tensor(a) for a in arrays]
    outs = [o.asnumpy() for o in _flat(net(*xs))]
    after = {p.name: p.asnumpy().copy() for p in net.get_parameters()}
    if cots is None:
        cots = [rng.uniform(-1, 1, o.shape).astype(np.float32) for o in outs]
    cot_t = [ms.Tensor(c) for c in cots]

    def scalar(*inputs):
        total = None
        for o, c in zip(_flat(net(*inputs)), cot_t):
            term = (o.astype(ms.float32) * c).sum()
            total = term if total is None else total + term
        return total

    weights = net.trainable_params()
    grads_in: list[np.ndarray] = []
    grads_w: dict[str, np.ndarray] = {}
    if case.grad or weights:
        fn = ms.value_and_grad(scalar, grad_position=case.grad or None, weights=weights or None)
        _, g = fn(*xs)
        if case.grad and weights:
            g_in, g_w = g
        elif case.grad:
            g_in, g_w = g, ()
        else:
            g_in, g_w = (), g
        grads_in = [t.asnumpy() for t in _flat(g_in)]
        grads_w = {p.name: t.asnumpy() for p, t in zip(weights, _flat(g_w))}
    return {"inputs": arrays, "params": initial, "params_after": after, "outputs": outs, "cots": cots,
            "grads_in": grads_in, "grads_w": grads_w}


def run_optim(ms: Any, case: OptimCase, params: dict | None = None) -> dict:
    seed = _seed(case.name)
    ms.set_seed(seed)
    net = optim_net(ms)
    if params is not None:
        _load(net, ms, params)
    initial = {p.name: p.asnumpy().copy() for p in net.get_parameters()}
    rng = np.random.default_rng(seed)
    x = ms.Tensor(rng.uniform(-1, 1, (8, 4)).astype(np.float32))
    y = ms.Tensor(rng.uniform(-1, 1, (8, 2)).astype(np.float32))
    opt = case.make(ms, net.trainable_params())
    step = ms.nn.TrainOneStepCell(ms.nn.WithLossCell(net, ms.nn.MSELoss()), opt)
    step.set_train()
    losses = [float(step(x, y).asnumpy()) for _ in range(case.steps)]
    return {"params": initial, "losses": np.array(losses, np.float32),
            "final": {p.name: p.asnumpy().copy() for p in net.get_parameters()}}


def run_lr(ms: Any, case: LRCase) -> np.ndarray:
    sched = case.make(ms)
    return np.array([float(sched(ms.Tensor(s, ms.int32)).asnumpy()) for s in case.steps], np.float32)
