"""The fused optimizer kernels (`spore._kernels.*_update`) against float64 NumPy oracles.

Each oracle is the documented MindSpore formula written out directly; the kernels must match it
over several steps (state carried between steps), for several tensors in one call, including one
large enough to be split into chunks, and must leave every buffer untouched when they reject a call.
"""

from __future__ import annotations

import numpy as np
import pytest

from spore import _kernels as K

SHAPES = [(3, 5), (7,), (40_000,), ()]  # 40k elements spans several 16k-element chunks
STEPS = 4


def _rand(rng: np.random.Generator, shape: tuple, scale: float = 1.0) -> np.ndarray:
    return np.asarray(rng.standard_normal(shape) * scale, dtype=np.float32)  # 0-d stays an array


def _setup(seed: int, n_states: int) -> tuple[list, list, list]:
    rng = np.random.default_rng(seed)
    params = [_rand(rng, s) for s in SHAPES]
    grads = [[_rand(rng, s) for s in SHAPES] for _ in range(STEPS)]
    states = [[np.zeros(s, np.float32) for s in SHAPES] for _ in range(n_states)]
    return params, grads, states


def _close(got: np.ndarray, want: np.ndarray) -> None:
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)


# --- Adam ----------------------------------------------------------------------------------------
def _adam_oracle(p, gs, lrs, wds, b1, b2, eps, scale, decoupled, nesterov, amsgrad):
    p = p.astype(np.float64)
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    vh = np.zeros_like(p)
    for lr, g in zip(lrs, gs):
        g = g.astype(np.float64) * scale
        if not decoupled:
            g = g + wds * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vh = np.maximum(vh, v)
        num = b1 * m + (1 - b1) * g if nesterov else m
        upd = num / (np.sqrt(vh if amsgrad else v) + eps)
        if decoupled:
            upd = upd + wds * p
        p = p - lr * upd
    return p, m, v, vh


@pytest.mark.parametrize("decoupled,nesterov,amsgrad", [
    (False, False, False), (False, True, False), (False, False, True), (True, False, False), (True, True, True)])
def test_adam_multi_matches_formula_over_steps(decoupled, nesterov, amsgrad):
    params, grads, (m, v, vh) = _setup(0, 3)
    p0 = [p.copy() for p in params]
    lrs = [0.01, 0.02, 0.005, 0.03]  # one per tensor
    wds = [0.1, 0.0, 0.05, 0.2]
    step_lr_scale = [1.0, 0.9, 0.8, 0.7]  # the caller passes a new (bias-corrected) lr every step
    for t in range(STEPS):
        K.adam_update_multi(params, grads[t], m, v, vh if amsgrad else None, [lr * step_lr_scale[t] for lr in lrs],
                            0.9, 0.99, 1e-6, wds, 0.5, decoupled, nesterov)
    for i in range(len(SHAPES)):
        want = _adam_oracle(p0[i], [g[i] for g in grads], [lrs[i] * s for s in step_lr_scale], wds[i], 0.9, 0.99,
                            1e-6, 0.5, decoupled, nesterov, amsgrad)
        _close(params[i], want[0])
        _close(m[i], want[1])
        _close(v[i], want[2])
        if amsgrad:
            _close(vh[i], want[3])


def test_adam_single_tensor_form_equals_multi():
    rng = np.random.default_rng(1)
    p, g = _rand(rng, (6, 4)), _rand(rng, (6, 4))
    p2, m1, v1, m2, v2 = p.copy(), *(np.zeros_like(p) for _ in range(4))
    K.adam_update(p, g, m1, v1, None, 0.1, 0.9, 0.999, 1e-8, 0.01, 1.0, False, False)
    K.adam_update_multi([p2], [g], [m2], [v2], None, [0.1], 0.9, 0.999, 1e-8, [0.01], 1.0, False, False)
    np.testing.assert_array_equal(p, p2)
    np.testing.assert_array_equal(m1, m2)
    assert not np.array_equal(p, g)  # the step did move the parameter


# --- Momentum ------------------------------------------------------------------------------------
@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_multi_matches_formula(nesterov):
    params, grads, (mom,) = _setup(2, 1)
    p0 = [p.astype(np.float64) for p in params]
    wds = [0.0, 0.1, 0.01, 0.3]
    for t in range(STEPS):
        K.momentum_update_multi(params, grads[t], mom, [0.05], 0.9, wds, 0.25, nesterov)
    for i in range(len(SHAPES)):
        p, v = p0[i], np.zeros_like(p0[i])
        for t in range(STEPS):
            g = grads[t][i].astype(np.float64) * 0.25 + wds[i] * p
            v = 0.9 * v + g
            p = p - 0.05 * ((g + 0.9 * v) if nesterov else v)
        _close(params[i], p)
        _close(mom[i], v)


# --- SGD -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("momentum,dampening,nesterov", [(0.0, 0.0, False), (0.9, 0.0, False), (0.9, 0.3, False),
                                                         (0.8, 0.0, True)])
def test_sgd_multi_matches_formula(momentum, dampening, nesterov):
    params, grads, (accum,) = _setup(3, 1)
    stats = [np.ones(s, np.float32) for s in SHAPES]
    p0 = [p.astype(np.float64) for p in params]
    wds = [0.01, 0.0, 0.2, 0.0]
    lrs = [0.1, 0.2, 0.05, 0.3]
    for t in range(STEPS):
        K.sgd_update_multi(params, grads[t], accum, stats, lrs, momentum, dampening, wds, 2.0, nesterov)
    for i in range(len(SHAPES)):
        p, a = p0[i], np.zeros_like(p0[i])
        for t in range(STEPS):
            g = grads[t][i].astype(np.float64) * 2.0 + wds[i] * p
            if momentum > 0:
                a = g if t == 0 else momentum * a + (1 - dampening) * g  # first step: accum = gradient
                g = g + momentum * a if nesterov else a
            p = p - lrs[i] * g
        _close(params[i], p)
        if momentum > 0:
            _close(accum[i], a)
            assert not stats[i].any()  # the first step cleared every element's flag
        else:
            assert stats[i].all()


def test_sgd_first_step_flag_is_per_element():
    """An element whose stat is still set takes accum = g even when its neighbours are past step one."""
    p = np.zeros(4, np.float32)
    accum = np.full(4, 10.0, np.float32)
    stat = np.array([0, 1, 0, 1], np.float32)
    K.sgd_update(p, np.ones(4, np.float32), accum, stat, 1.0, 0.5, 0.0, 0.0, 1.0, False)
    np.testing.assert_allclose(accum, [6.0, 1.0, 6.0, 1.0])  # 0.5*10 + 1 vs reset to g
    np.testing.assert_allclose(p, [-6.0, -1.0, -6.0, -1.0])
    assert not stat.any()


# --- threads, conversion, validation -------------------------------------------------------------
def test_results_do_not_depend_on_thread_count():
    outs = []
    before = K.num_threads()
    try:
        for threads in (1, 2):
            K.set_num_threads(threads)
            params, grads, (m, v) = _setup(4, 2)
            for t in range(STEPS):
                K.adam_update_multi(params, grads[t], m, v, None, [0.01], 0.9, 0.999, 1e-8, [0.0], 1.0, False, False)
            outs.append(params)
    finally:
        K.set_num_threads(before)
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)


def test_gradients_of_other_dtypes_and_layouts_are_converted():
    rng = np.random.default_rng(5)
    g64 = rng.standard_normal((5, 3))
    g_t = np.asfortranarray(g64)  # non-C-contiguous float64
    p1 = np.ones((5, 3), np.float32)
    p2 = p1.copy()
    K.momentum_update(p1, g_t, np.zeros_like(p1), 0.1, 0.0, 0.0, 1.0, False)
    K.momentum_update(p2, g64.astype(np.float32), np.zeros_like(p2), 0.1, 0.0, 0.0, 1.0, False)
    np.testing.assert_array_equal(p1, p2)
    np.testing.assert_allclose(p1, 1 - 0.1 * g64, rtol=1e-6)


def _untouched_after(call, *arrays):
    before = [a.copy() for a in arrays]
    call()
    for a, b in zip(arrays, before):
        np.testing.assert_array_equal(a, b)


def test_shape_mismatch_is_rejected_before_any_update():
    p = [np.ones((2, 3), np.float32), np.ones(4, np.float32)]
    m = [np.zeros((2, 3), np.float32), np.zeros(4, np.float32)]
    v = [np.zeros((2, 3), np.float32), np.zeros(4, np.float32)]
    g = [np.ones((2, 3), np.float32), np.ones(5, np.float32)]  # the SECOND tensor is wrong

    def call():
        with pytest.raises(ValueError, match=r"grads\[1\] has shape \(5,\), the parameter has \(4,\)"):
            K.adam_update_multi(p, g, m, v, None, [0.1], 0.9, 0.999, 1e-8, [0.0], 1.0, False, False)

    _untouched_after(call, *p, *m, *v)  # the first tensor, which was valid, was not stepped either


def test_state_shape_mismatch_names_the_buffer():
    p, g = np.ones(3, np.float32), np.ones(3, np.float32)
    with pytest.raises(ValueError, match=r"moments\[0\] has shape \(4,\)"):
        K.momentum_update(p, g, np.zeros(4, np.float32), 0.1, 0.9, 0.0, 1.0, False)


@pytest.mark.parametrize("bad", [
    np.ones(3, np.float64),                       # wrong dtype: a converted copy would swallow the update
    np.ones(6, np.float32)[::2],                  # not contiguous
    np.frombuffer(np.ones(3, np.float32).tobytes(), np.float32),  # read-only
])
def test_parameters_must_be_writeable_contiguous_float32(bad):
    g = np.ones(3, np.float32)

    def call():
        with pytest.raises(TypeError, match=r"params\[0\]"):
            K.sgd_update(bad, g, np.zeros(3, np.float32), np.ones(3, np.float32), 0.1, 0.0, 0.0, 0.0, 1.0, False)

    _untouched_after(call, bad)


def test_list_lengths_are_checked():
    p = [np.ones(2, np.float32)] * 2
    with pytest.raises(ValueError, match="got 1 gradients for 2 parameters"):
        K.momentum_update_multi(p, [np.ones(2, np.float32)], p, [0.1], 0.9, [0.0], 1.0, False)
    p = [np.ones(2, np.float32), np.ones(2, np.float32)]
    g = [np.ones(2, np.float32), np.ones(2, np.float32)]
    v = [np.zeros(2, np.float32), np.zeros(2, np.float32)]
    with pytest.raises(ValueError, match="lrs must hold 1 or 2 values, got 3"):
        K.momentum_update_multi(p, g, v, [0.1, 0.2, 0.3], 0.9, [0.0], 1.0, False)


def test_empty_call_is_a_no_op():
    K.adam_update_multi([], [], [], [], None, [0.1], 0.9, 0.999, 1e-8, [0.0], 1.0, False, False)


def test_zero_weight_decay_never_touches_the_parameter_value():
    """With wd == 0 the decay term is skipped, not multiplied by zero (0 * inf would make NaN)."""
    p = np.array([np.inf, 1.0], np.float32)
    K.momentum_update(p, np.ones(2, np.float32), np.zeros(2, np.float32), 0.1, 0.9, 0.0, 1.0, False)
    K.sgd_update(p, np.ones(2, np.float32), np.zeros(2, np.float32), np.ones(2, np.float32), 0.1, 0.0, 0.0, 0.0,
                 1.0, False)
    m, v = np.zeros(2, np.float32), np.zeros(2, np.float32)
    K.adam_update(p, np.ones(2, np.float32), m, v, None, 0.1, 0.9, 0.999, 1e-8, 0.0, 1.0, False, False)
    assert np.isposinf(p[0]) and np.isfinite(p[1])
