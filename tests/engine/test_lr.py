"""Learning-rate lists (`nn.*_lr`) and schedules (`nn.*LR`) against MindSpore's documented numbers.

The doc examples are checked for exact equality (the list functions print the same doubles as
MindSpore; the schedules the same float32 digits); the formulas are also checked on other
arguments against independent float64 implementations.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import spore as ms
from spore import nn


# --- list functions: MindSpore's doc examples, exactly --------------------------------------------
@pytest.mark.parametrize("fn,args,expected", [
    (nn.piecewise_constant_lr, ([2, 5, 10], [0.1, 0.05, 0.01]),
     [0.1, 0.1, 0.05, 0.05, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01]),
    (nn.exponential_decay_lr, (0.1, 0.9, 6, 2, 1),
     [0.1, 0.1, 0.09000000000000001, 0.09000000000000001, 0.08100000000000002, 0.08100000000000002]),
    (nn.natural_exp_decay_lr, (0.1, 0.9, 6, 2, 2, True),
     [0.1, 0.1, 0.1, 0.1, 0.016529888822158657, 0.016529888822158657]),
    (nn.inverse_decay_lr, (0.1, 0.5, 6, 1, 1, True),
     [0.1, 0.06666666666666667, 0.05, 0.04, 0.03333333333333333, 0.028571428571428574]),
    (nn.cosine_decay_lr, (0.01, 0.1, 6, 2, 2),
     [0.1, 0.1, 0.05500000000000001, 0.05500000000000001, 0.01, 0.01]),
    (nn.polynomial_decay_lr, (0.1, 0.01, 6, 2, 2, 0.5),
     [0.1, 0.1, 0.07363961030678928, 0.07363961030678928, 0.01, 0.01]),
    (nn.warmup_lr, (0.1, 6, 2, 2), [0.0, 0.0, 0.05, 0.05, 0.1, 0.1]),
])
def test_list_functions_reproduce_the_doc_examples_exactly(fn, args, expected):
    got = fn(*args)
    assert isinstance(got, list) and all(isinstance(x, float) for x in got)
    assert got == expected


# --- list functions: formulas on other arguments ---------------------------------------------------
def _epochs(total: int, per_epoch: int) -> np.ndarray:
    return np.floor(np.arange(total) / per_epoch)


def test_exponential_decay_non_stair_and_stair():
    e = _epochs(12, 3)
    np.testing.assert_allclose(nn.exponential_decay_lr(0.5, 0.7, 12, 3, 2), 0.5 * 0.7 ** (e / 2), rtol=1e-14)
    np.testing.assert_allclose(nn.exponential_decay_lr(0.5, 0.7, 12, 3, 2, is_stair=True),
                               0.5 * 0.7 ** np.floor(e / 2), rtol=1e-14)


def test_natural_exp_decay_uses_the_undivided_epoch():
    e = _epochs(9, 2)
    np.testing.assert_allclose(nn.natural_exp_decay_lr(0.2, 0.3, 9, 2, 3), 0.2 * np.exp(-0.3 * e), rtol=1e-14)
    np.testing.assert_allclose(nn.natural_exp_decay_lr(0.2, 0.3, 9, 2, 3, True),
                               0.2 * np.exp(-0.3 * np.floor(e / 3) * 3), rtol=1e-14)


def test_inverse_decay_non_stair():
    e = _epochs(10, 2)
    np.testing.assert_allclose(nn.inverse_decay_lr(0.3, 0.4, 10, 2, 3), 0.3 / (1 + 0.4 * e / 3), rtol=1e-14)


def test_cosine_decay_holds_min_lr_after_decay_epoch():
    e = np.minimum(_epochs(10, 1), 4)
    want = 0.001 + 0.5 * (0.2 - 0.001) * (1 + np.cos(np.pi * e / 4))
    got = nn.cosine_decay_lr(0.001, 0.2, 10, 1, 4)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    assert got[-1] == pytest.approx(0.001)


def test_polynomial_decay_with_and_without_update_decay_epoch():
    e = _epochs(8, 1)
    clamped = np.minimum(e, 3)
    np.testing.assert_allclose(nn.polynomial_decay_lr(0.1, 0.01, 8, 1, 3, 2.0),
                               0.09 * (1 - clamped / 3) ** 2 + 0.01, rtol=1e-14)
    span = 3 * np.maximum(np.ceil(e / 3), 1)  # the decay span grows to the next multiple of decay_epoch
    got = nn.polynomial_decay_lr(0.1, 0.01, 8, 1, 3, 2.0, update_decay_epoch=True)
    np.testing.assert_allclose(got, 0.09 * (1 - e / span) ** 2 + 0.01, rtol=1e-14, atol=1e-17)
    assert got[4] > got[3]  # after epoch 3 the decay restarts over a 6-epoch span


def test_warmup_lr_ramps_then_holds():
    np.testing.assert_allclose(nn.warmup_lr(0.3, 8, 2, 3), 0.3 * np.minimum(_epochs(8, 2), 3) / 3, rtol=1e-14)


@pytest.mark.parametrize("call,err", [
    (lambda: nn.exponential_decay_lr(0.1, 0.9, 0, 1, 1), ValueError),       # total_step must be positive
    (lambda: nn.exponential_decay_lr(0.1, 0.9, 5, 1.5, 1), TypeError),      # step_per_epoch must be int
    (lambda: nn.exponential_decay_lr(-0.1, 0.9, 5, 1, 1), ValueError),
    (lambda: nn.exponential_decay_lr(0.1, 0.9, 5, 1, 1, is_stair=1), TypeError),
    (lambda: nn.cosine_decay_lr(0.2, 0.1, 5, 1, 1), ValueError),            # min_lr >= max_lr
    (lambda: nn.polynomial_decay_lr(0.1, 0.01, 5, 1, 1, 0.0), ValueError),  # power must be > 0
    (lambda: nn.warmup_lr(True, 5, 1, 1), TypeError),
    (lambda: nn.piecewise_constant_lr([2, 5], [0.1]), ValueError),
    (lambda: nn.piecewise_constant_lr([5, 2], [0.1, 0.2]), ValueError),
])
def test_list_functions_validate_arguments(call, err):
    with pytest.raises(err):
        call()


# --- schedules --------------------------------------------------------------------------------------
STEP2 = ms.Tensor(2, ms.int32)


@pytest.mark.parametrize("sched,printed", [
    (nn.ExponentialDecayLR(0.1, 0.9, 4), "0.09486833"),
    (nn.NaturalExpDecayLR(0.1, 0.9, 4, True), "0.1"),
    (nn.InverseDecayLR(0.1, 0.9, 4, True), "0.1"),
    (nn.CosineDecayLR(0.01, 0.1, 4), "0.055"),
    (nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5), "0.07363961"),
    (nn.WarmUpLR(0.1, 2), "0.1"),
])
def test_schedules_print_the_doc_examples(sched, printed):
    out = sched(STEP2)
    assert out.dtype == ms.float32 and out.shape == ()
    assert str(out) == printed
    assert out.asnumpy() == np.float32(printed)
    assert sched._value(2) == float(np.float32(printed))  # the optimizers' fast path agrees


def _f32(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64).astype(np.float32)


@pytest.mark.parametrize("sched,formula", [
    (nn.ExponentialDecayLR(0.2, 0.5, 3), lambda s: 0.2 * 0.5 ** (s / 3)),
    (nn.ExponentialDecayLR(0.2, 0.5, 3, is_stair=True), lambda s: 0.2 * 0.5 ** np.floor(s / 3)),
    (nn.NaturalExpDecayLR(0.2, 0.5, 3), lambda s: 0.2 * np.exp(-0.5 * s)),
    (nn.NaturalExpDecayLR(0.2, 0.5, 3, True), lambda s: 0.2 * np.exp(-0.5 * np.floor(s / 3) * 3)),
    (nn.InverseDecayLR(0.2, 0.5, 3), lambda s: 0.2 / (1 + 0.5 * s / 3)),
    (nn.CosineDecayLR(0.0, 0.2, 5), lambda s: 0.1 * (1 + np.cos(np.pi * np.minimum(s, 5) / 5))),
    (nn.PolynomialDecayLR(0.2, 0.02, 4, 1.5), lambda s: 0.18 * (1 - np.minimum(s, 4) / 4) ** 1.5 + 0.02),
    (nn.PolynomialDecayLR(0.2, 0.02, 4, 1.5, update_decay_steps=True),
     lambda s: 0.18 * (1 - s / (4 * np.maximum(np.ceil(s / 4), 1))) ** 1.5 + 0.02),
    (nn.WarmUpLR(0.2, 4), lambda s: 0.2 * np.minimum(s, 4) / 4),
])
def test_schedules_follow_their_formula_over_steps(sched, formula):
    steps = np.arange(12)
    want = _f32(formula(steps.astype(np.float64)))
    got = sched(ms.Tensor(steps.astype(np.int32)))  # vectorised over a step array
    np.testing.assert_allclose(got.asnumpy(), want, rtol=2e-7, atol=1e-9)
    np.testing.assert_allclose([sched._value(int(s)) for s in steps], want, rtol=2e-7, atol=1e-9)


def test_schedule_matches_the_list_function_step_by_step():
    """ExponentialDecayLR(decay_steps=k) at step i == exponential_decay_lr(step_per_epoch=1, decay_epoch=k)[i]."""
    lst = nn.exponential_decay_lr(0.1, 0.8, 10, 1, 3)
    sched = nn.ExponentialDecayLR(0.1, 0.8, 3)
    np.testing.assert_allclose([sched._value(i) for i in range(10)], lst, rtol=1e-7)


def test_schedule_keeps_the_shape_of_the_optimizer_global_step():
    step = ms.Parameter(ms.Tensor(np.array([3], np.int32)), name="global_step")
    out = nn.WarmUpLR(0.1, 6)(step)
    assert out.shape == (1,)
    np.testing.assert_allclose(out.asnumpy(), [0.05], rtol=1e-7)


@pytest.mark.parametrize("make,err", [
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 0), ValueError),
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 2.0), TypeError),
    (lambda: nn.ExponentialDecayLR(0.0, 0.9, 2), ValueError),
    (lambda: nn.InverseDecayLR(0.1, 0.9, 2, is_stair="yes"), TypeError),
    (lambda: nn.CosineDecayLR(0.1, 0.1, 2), ValueError),
    (lambda: nn.PolynomialDecayLR(0.1, -0.01, 2, 1.0), ValueError),
    (lambda: nn.WarmUpLR(0.1, 0), ValueError),
])
def test_schedules_validate_arguments(make, err):
    with pytest.raises(err):
        make()


def test_base_schedule_requires_construct():
    with pytest.raises(NotImplementedError):
        nn.LearningRateSchedule()(STEP2)


def test_optimizer_uses_schedule_value_of_each_step():
    p = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="w")
    opt = nn.SGD([p], learning_rate=nn.CosineDecayLR(0.0, 1.0, 4))
    for _ in range(5):
        opt((ms.Tensor(np.ones(1, np.float32)),))
    want = -sum(0.5 * (1 + math.cos(math.pi * min(s, 4) / 4)) for s in range(5))
    np.testing.assert_allclose(p.asnumpy(), [want], rtol=1e-6)
    assert int(opt.global_step.asnumpy()[0]) == 5
