"""Graph mode against PyNative over every public Tensor method/property and every public nn Cell.

The cases live in cases_tensor_nn.py; `run_case` (harness.py) runs each in PyNative and twice in
a compiled construct. Stateful cells whose state moves on every call (training steps, BatchNorm's
moving statistics, loss-scale counters) are also checked here step by step: two identical
networks, one run in PyNative and one in Graph mode, compared after every step.
"""

from __future__ import annotations

import inspect
from collections import Counter

import numpy as np
import pytest

import spore as ms
from spore import nn

from .cases_declared import declared_tensor_cases
from .cases_tensor_nn import (
    DUNDERS,
    EXEMPT_CELLS,
    EXEMPT_METHODS,
    LR_SCHEDULES,
    STATEFUL_CELLS,
    covered_name,
    nn_cell_cases,
    tensor_method_cases,
)
from .harness import check_cases, run_case

TENSOR_CASES = tensor_method_cases() + declared_tensor_cases()
NN_CASES = nn_cell_cases()
ALL_CASES = TENSOR_CASES + NN_CASES
MIN_CASES = 3  # cases per covered name


def _public_tensor_names() -> list[str]:
    return [n for n in dir(ms.Tensor) if not n.startswith("_")]


def _public_cells() -> list[str]:
    return [n for n in dir(nn) if inspect.isclass(getattr(nn, n)) and issubclass(getattr(nn, n), nn.Cell)]


def _public_schedules() -> list[str]:
    return [n for n in dir(nn) if inspect.isclass(getattr(nn, n))
            and issubclass(getattr(nn, n), nn.LearningRateSchedule)]


# --- coverage --------------------------------------------------------------------------------------
def test_every_public_tensor_method_and_property_is_covered():
    counts = Counter(covered_name(c) for c in TENSOR_CASES)
    names = _public_tensor_names()
    assert len(names) > 150
    missing = [n for n in names if f"Tensor.{n}" not in counts and n not in EXEMPT_METHODS]
    assert not missing, f"Tensor methods/properties without a differential case: {missing}"
    thin = [n for n in names if 0 < counts[f"Tensor.{n}"] < MIN_CASES]
    assert not thin, f"Tensor methods with fewer than {MIN_CASES} cases: {thin}"
    stale = [n for n in EXEMPT_METHODS if n not in names]
    assert not stale, f"exempt names that are no longer public Tensor methods: {stale}"


def test_operator_dunders_are_covered():
    counts = Counter(covered_name(c) for c in TENSOR_CASES)
    missing = [d for d in DUNDERS if counts[f"Tensor.{d}"] == 0]
    assert not missing, f"operator dunders without a differential case: {missing}"
    assert counts["Tensor.__getitem__"] >= 30 and counts["Tensor.__setitem__"] >= 30


def test_every_public_nn_cell_and_schedule_is_covered():
    counts = Counter(covered_name(c) for c in NN_CASES)
    cells = _public_cells()
    schedules = _public_schedules()
    assert len(cells) > 50 and set(LR_SCHEDULES) <= set(schedules) | {"LearningRateSchedule"}
    missing = [n for n in cells + schedules if f"nn.{n}" not in counts and n not in EXEMPT_CELLS]
    assert not missing, f"nn Cells / schedules without a differential case: {missing}"
    thin = [n for n in cells + schedules if 0 < counts[f"nn.{n}"] < MIN_CASES]
    assert not thin, f"nn Cells with fewer than {MIN_CASES} cases: {thin}"
    stale = [n for n in EXEMPT_CELLS if n not in cells + schedules]
    assert not stale, f"exempt names that are no longer public nn Cells: {stale}"
    assert set(STATEFUL_CELLS) <= set(cells)


def test_case_names_are_unique_and_inputs_keep_their_shapes():
    check_cases(ALL_CASES, max_size=2 * 3 * 8 * 8)


# --- the differential cases -------------------------------------------------------------------------
@pytest.mark.parametrize("level", ["LAX", "STRICT"])
@pytest.mark.parametrize("case", ALL_CASES, ids=[c.name for c in ALL_CASES])
def test_graph_matches_pynative(case, level):
    """LAX (the default) runs what a graph cannot hold in Python (graph breaks); STRICT refuses it."""
    ms.set_context(jit_syntax_level=getattr(ms, level))
    outcome = run_case(case)
    tail = "\n".join(outcome.tb.strip().splitlines()[-12:]) if outcome.tb else ""
    assert outcome.kind in ("identical", "refused", "both_raise"), \
        f"{case.name}: {outcome.kind}: {outcome.detail}" + (f"\n{tail}" if tail else "")


# --- stateful cells, step by step -------------------------------------------------------------------
STEPS = 3


def _call(mode: int, fn, *args):
    ms.set_context(mode=mode)
    try:
        return fn(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def _np(x):
    if isinstance(x, ms.Tensor):
        return x.asnumpy().copy()
    if isinstance(x, (tuple, list)):
        return [_np(v) for v in x]
    if isinstance(x, dict):
        return {k: _np(v) for k, v in x.items()}
    return x


def _close(a, b, what: str) -> None:
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), what
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{what}[{i}]")
    elif isinstance(a, dict):
        assert isinstance(b, dict) and sorted(a) == sorted(b), what
        for k in a:
            _close(a[k], b[k], f"{what}[{k}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype, \
            f"{what}: {a.shape} {a.dtype} vs {getattr(b, 'shape', None)} {getattr(b, 'dtype', type(b))}"
        if a.dtype.kind == "f":
            np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6, err_msg=what)
        else:
            np.testing.assert_array_equal(b, a, err_msg=what)
    else:
        assert a == b, f"{what}: {a!r} vs {b!r}"


def _params(cell: nn.Cell) -> dict:
    return {name: p.asnumpy().copy() for name, p in cell.parameters_and_names()}


def _twins(build):
    """Two identical objects from `build()` (same seed); their parameters are checked equal."""
    ms.set_seed(5)
    a = build()
    ms.set_seed(5)
    b = build()
    _close(_params(a), _params(b), "initial parameters")
    return a, b


def _mlp():
    return nn.SequentialCell([nn.Dense(4, 6), nn.ReLU(), nn.Dense(6, 3)])


def _conv_bn():
    return nn.SequentialCell([nn.Conv2d(3, 4, 3, has_bias=True), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                              nn.Dense(4 * 8 * 8, 3)])


OPTIMIZERS = {
    "SGD": lambda p: nn.SGD(p, 0.1),
    "SGD momentum nesterov wd": lambda p: nn.SGD(p, 0.05, momentum=0.9, nesterov=True, weight_decay=0.01),
    "Momentum": lambda p: nn.Momentum(p, 0.1, 0.9),
    "Adam": lambda p: nn.Adam(p, 0.01),
    "AdamWeightDecay": lambda p: nn.AdamWeightDecay(p, 0.01, weight_decay=0.1),
    "RMSProp": lambda p: nn.RMSProp(p, 0.01),
    "Adagrad": lambda p: nn.Adagrad(p, learning_rate=0.1),
    "SGD schedule": lambda p: nn.SGD(p, nn.ExponentialDecayLR(0.1, 0.5, 1)),
}


@pytest.mark.parametrize("opt", sorted(OPTIMIZERS))
def test_train_one_step_cell_matches_pynative_step_by_step(opt):
    def build():
        net = nn.WithLossCell(_mlp(), nn.MSELoss())
        return nn.TrainOneStepCell(net, OPTIMIZERS[opt](net.trainable_params()))

    py, gr = _twins(build)
    rng = np.random.default_rng(0)
    for step in range(STEPS):
        x = rng.standard_normal((5, 4)).astype(np.float32)
        y = rng.standard_normal((5, 3)).astype(np.float32)
        lp = _np(_call(ms.PYNATIVE_MODE, py, ms.Tensor(x), ms.Tensor(y)))
        lg = _np(_call(ms.GRAPH_MODE, gr, ms.Tensor(x), ms.Tensor(y)))
        _close(lp, lg, f"{opt} step {step}: loss")
        _close(_params(py), _params(gr), f"{opt} step {step}: parameters")


def test_train_one_step_cell_return_grad_and_sens_step_by_step():
    def build():
        net = nn.WithLossCell(_mlp(), nn.CrossEntropyLoss(label_smoothing=0.1))
        return nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), 0.1, 0.9), sens=2.0, return_grad=True)

    py, gr = _twins(build)
    rng = np.random.default_rng(1)
    for step in range(STEPS):
        x = rng.standard_normal((6, 4)).astype(np.float32)
        y = rng.integers(0, 3, 6).astype(np.int32)
        op = _np(_call(ms.PYNATIVE_MODE, py, ms.Tensor(x), ms.Tensor(y)))
        og = _np(_call(ms.GRAPH_MODE, gr, ms.Tensor(x), ms.Tensor(y)))
        _close(op, og, f"step {step}: (loss, grads)")
        _close(_params(py), _params(gr), f"step {step}: parameters")


def test_train_one_step_cell_with_batchnorm_step_by_step():
    """Parameters and BatchNorm's moving statistics both move; eval afterwards reads the moved stats."""
    def build():
        net = nn.WithLossCell(_conv_bn(), nn.CrossEntropyLoss())
        return nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.05, momentum=0.9))

    py, gr = _twins(build)
    py.set_train(True)
    gr.set_train(True)
    rng = np.random.default_rng(2)
    for step in range(STEPS):
        x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
        y = rng.integers(0, 3, 2).astype(np.int32)
        lp = _np(_call(ms.PYNATIVE_MODE, py, ms.Tensor(x), ms.Tensor(y)))
        lg = _np(_call(ms.GRAPH_MODE, gr, ms.Tensor(x), ms.Tensor(y)))
        _close(lp, lg, f"step {step}: loss")
        _close(_params(py), _params(gr), f"step {step}: parameters and moving statistics")
    bp, bg = py.network.backbone_network, gr.network.backbone_network
    bp.set_train(False)
    bg.set_train(False)
    x = ms.Tensor(rng.standard_normal((2, 3, 8, 8)).astype(np.float32))
    _close(_np(_call(ms.PYNATIVE_MODE, bp, x)), _np(_call(ms.GRAPH_MODE, bg, x)), "eval after training")


@pytest.mark.parametrize("cls", ["BatchNorm1d", "BatchNorm2d"])
@pytest.mark.parametrize("momentum", [0.9, 0.3])
def test_batchnorm_moving_statistics_step_by_step(cls, momentum):
    shape = (4, 3) if cls == "BatchNorm1d" else (2, 3, 4, 4)
    py, gr = _twins(lambda: getattr(nn, cls)(3, momentum=momentum))
    py.set_train(True)
    gr.set_train(True)
    rng = np.random.default_rng(3)
    for step in range(STEPS):
        x = (rng.standard_normal(shape) * (step + 1) + step).astype(np.float32)
        op = _np(_call(ms.PYNATIVE_MODE, py, ms.Tensor(x)))
        og = _np(_call(ms.GRAPH_MODE, gr, ms.Tensor(x)))
        _close(op, og, f"step {step}: output")
        _close(_params(py), _params(gr), f"step {step}: moving statistics")
    py.set_train(False)
    gr.set_train(False)
    x = ms.Tensor(rng.standard_normal(shape).astype(np.float32))
    _close(_np(_call(ms.PYNATIVE_MODE, py, x)), _np(_call(ms.GRAPH_MODE, gr, x)), "eval output")


def test_loss_scale_train_cell_step_by_step():
    """Dynamic loss scaling: clean steps grow the scale after the window, an overflow halves it and skips."""
    def build():
        net = nn.WithLossCell(_mlp(), nn.MSELoss())
        return nn.TrainOneStepWithLossScaleCell(net, nn.Momentum(net.trainable_params(), 0.05, 0.9),
                                                nn.DynamicLossScaleUpdateCell(2.0 ** 10, 2.0, 2))

    py, gr = _twins(build)
    rng = np.random.default_rng(4)
    for step in range(5):
        x = rng.standard_normal((5, 4)).astype(np.float32)
        if step == 2:
            x[0, 0] = np.inf  # this step overflows: skipped, the scale drops
        y = rng.standard_normal((5, 3)).astype(np.float32)
        op = _np(_call(ms.PYNATIVE_MODE, py, ms.Tensor(x), ms.Tensor(y)))
        og = _np(_call(ms.GRAPH_MODE, gr, ms.Tensor(x), ms.Tensor(y)))
        _close(op, og, f"step {step}: (loss, overflow, scale)")
        _close(_params(py), _params(gr), f"step {step}: parameters, scale and counters")


def test_dynamic_loss_scale_update_cell_step_by_step():
    py, gr = _twins(lambda: nn.DynamicLossScaleUpdateCell(64.0, 2.0, 2))
    sp = ms.Parameter(ms.Tensor(np.array(64.0, np.float32)), name="scale")
    sg = ms.Parameter(ms.Tensor(np.array(64.0, np.float32)), name="scale")
    for step, overflow in enumerate((False, False, True, False, False, False, True, True)):
        flag = np.array(overflow)
        op = _np(_call(ms.PYNATIVE_MODE, py, sp, ms.Tensor(flag)))
        og = _np(_call(ms.GRAPH_MODE, gr, sg, ms.Tensor(flag)))
        _close(op, og, f"step {step}: overflow")
        _close(_np(sp), _np(sg), f"step {step}: scale")
        _close(_params(py), _params(gr), f"step {step}: counters")


class _StatefulUserCell(nn.Cell):
    """A user Cell that writes its own Parameters inside construct (a counter, a row, an EMA)."""

    def __init__(self) -> None:
        super().__init__()
        self.count = ms.Parameter(ms.Tensor(np.array(0, np.int32)), name="count", requires_grad=False)
        self.ema = ms.Parameter(ms.Tensor(np.zeros((3,), np.float32)), name="ema", requires_grad=False)
        self.table = ms.Parameter(ms.Tensor(np.zeros((4, 3), np.float32)), name="table", requires_grad=False)

    def construct(self, x):
        self.count.assign_add(1)
        ms.ops.assign(self.ema, self.ema * 0.5 + x.mean(0) * 0.5)
        self.table[1] = x[0] + self.table[1]
        return x * self.ema + self.table.sum(0) + self.count


def test_user_cell_writing_its_parameters_step_by_step():
    py, gr = _twins(_StatefulUserCell)
    rng = np.random.default_rng(5)
    for step in range(STEPS):
        x = rng.standard_normal((2, 3)).astype(np.float32)
        op = _np(_call(ms.PYNATIVE_MODE, py, ms.Tensor(x)))
        og = _np(_call(ms.GRAPH_MODE, gr, ms.Tensor(x)))
        _close(op, og, f"step {step}: output")
        _close(_params(py), _params(gr), f"step {step}: parameters")
