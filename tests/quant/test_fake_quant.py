"""QAT fake quantization (spore/quant/fake_quant.py): the forward against a float64 NumPy oracle of
quantize -> dequantize with MindSpore's nudged range, the straight-through gradient against the
derivative of the clamp (finite differences), the observer's EMA range, Graph mode == PyNative on
the differential cases (tests/compiler/differential/cases_quant.py), and clear errors."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore.errors import SporeError
from spore.quant.fake_quant import FakeQuantWithMinMaxObserver, fake_quant, qparams

from ..compiler.differential.cases_quant import quant_cases
from ..compiler.differential.harness import run_case


def oracle(x, lo, hi, bits=8, symmetric=False, narrow=False, axis=None):
    """quantize -> dequantize in float64, written from the definition: nudge [lo, hi] so that 0 is
    on the grid, q = round half up((x - nudged_lo) / scale) clipped to the grid, back to floats."""
    x = np.asarray(x, np.float64)
    lo = np.asarray(lo, np.float64).reshape(-1)
    hi = np.asarray(hi, np.float64).reshape(-1)
    qmin, qmax = (1 if narrow else 0), 2 ** bits - 1
    out = np.empty_like(x)
    chans = range(x.shape[axis]) if axis is not None else [None]
    for c in chans:
        a, b = (lo[0], hi[0]) if c is None else (lo[c], hi[c])
        if symmetric:
            m = max(abs(a), b)
            a, b = -m, m
        s = (b - a) / (qmax - qmin)
        zf = qmin - a / s
        z = qmin if zf <= qmin else qmax if zf >= qmax else np.floor(zf + 0.5)
        sel = (slice(None),) * (axis % x.ndim) + (c,) if c is not None else ()
        v = x[sel]
        q = np.clip(np.floor(v / s + z + 0.5), qmin, qmax)
        out[sel] = (q - z) * s
    return out


def t(a) -> ms.Tensor:
    return ms.Tensor(np.asarray(a, np.float32))


@pytest.mark.parametrize("bits,symmetric,narrow", [(8, False, False), (8, True, False), (8, True, True),
                                                     (4, False, True), (3, False, False)])
def test_per_layer_forward_equals_the_numpy_oracle(bits, symmetric, narrow):
    r = np.random.default_rng(bits + 2 * symmetric + narrow)
    x = r.uniform(-3, 3, (5, 7)).astype(np.float32)
    got = fake_quant(t(x), t([-1.3]), t([2.1]), bits, symmetric, narrow).asnumpy()
    want = oracle(x, -1.3, 2.1, bits, symmetric, narrow)
    np.testing.assert_allclose(got, want, atol=1e-5)
    # outputs are on the grid and saturate at the nudged range
    scale, zp = qparams(np.float32(-1.3), np.float32(2.1), bits, symmetric, narrow)
    steps = got / scale[0]
    np.testing.assert_allclose(steps, np.round(steps), atol=1e-3)
    assert len(np.unique(got)) <= 2 ** bits
    assert 0.0 in oracle(np.zeros(1), -1.3, 2.1, bits, symmetric, narrow)  # 0 is exact after nudging


def test_per_channel_forward_equals_the_numpy_oracle():
    r = np.random.default_rng(5)
    x = r.uniform(-2, 2, (3, 4, 5)).astype(np.float32)
    lo = -r.uniform(0.2, 1.5, 4).astype(np.float32)
    hi = r.uniform(0.2, 1.5, 4).astype(np.float32)
    for sym, narrow in ((False, False), (True, True)):
        got = fake_quant(t(x), t(lo), t(hi), 8, sym, narrow, channel_axis=1).asnumpy()
        np.testing.assert_allclose(got, oracle(x, lo, hi, 8, sym, narrow, axis=1), atol=1e-5)
    # the per-channel ranges really differ: channel 0 alone with channel 0's range is the same
    alone = fake_quant(t(x[:, :1]), t(lo[:1]), t(hi[:1])).asnumpy()
    np.testing.assert_allclose(fake_quant(t(x), t(lo), t(hi), channel_axis=1).asnumpy()[:, :1], alone, atol=1e-6)


def test_qparams_dequantize_to_the_fake_quant_values():
    """The (scale, zero point) handed to the int8 kernels reproduce FakeQuant's values exactly."""
    r = np.random.default_rng(9)
    x = r.uniform(-4, 4, 200).astype(np.float32)
    for sym in (False, True):
        scale, zp = qparams(np.float32(-0.7), np.float32(3.2), 8, sym)
        q = np.clip(np.floor(x / scale[0] + 0.5) + zp[0], -128, 127)
        np.testing.assert_allclose((q - zp[0]) * scale[0], fake_quant(t(x), t(-0.7), t(3.2), 8, sym).asnumpy(),
                                   atol=1e-5)
    su, zu = qparams(np.float32(-0.7), np.float32(3.2), 8, False, False, "uint8")
    q = np.clip(np.floor(x / su[0] + 0.5) + zu[0], 0, 255)  # the unsigned grid: the same values
    np.testing.assert_allclose((q - zu[0]) * su[0], fake_quant(t(x), t(-0.7), t(3.2)).asnumpy(), atol=1e-5)
    with pytest.raises(SporeError, match="dtype must be 'int8' or 'uint8'"):
        qparams(0.0, 1.0, dtype="int4")
    s, z = qparams(np.float32(0.0), np.float32(0.0))  # a zero range: scale 1, zero point 0 (never divides by 0)
    assert s[0] == 1.0 and z[0] == 0
    np.testing.assert_array_equal(fake_quant(t(x[:5]), t(0.0), t(0.0)).asnumpy(), np.zeros(5, np.float32))


def _clamp_derivative_fd(x: np.ndarray, lo: float, hi: float, eps: float = 1e-4) -> np.ndarray:
    """Central finite differences of clip(x, lo, hi): the function the STE differentiates."""
    return (np.clip(x + eps, lo, hi) - np.clip(x - eps, lo, hi)) / (2 * eps)


def test_ste_gradient_is_the_clamps_derivative():
    lo, hi = -1.0, 1.5
    scale, zp = qparams(np.float32(lo), np.float32(hi))
    nlo, nhi = (-128 - zp[0]) * scale[0], (127 - zp[0]) * scale[0]  # the nudged range
    r = np.random.default_rng(11)
    x = r.uniform(-2.5, 2.5, 400).astype(np.float32)
    x = x[(np.abs(x - nlo) > 1e-3) & (np.abs(x - nhi) > 1e-3)]  # finite differences need x off the edges
    w = r.standard_normal(x.shape).astype(np.float32)
    (g,) = ms.grad(lambda v: (fake_quant(v, t(lo), t(hi)) * t(w)).sum(), grad_position=(0,))(t(x))
    want = w * _clamp_derivative_fd(x.astype(np.float64), nlo, nhi)
    np.testing.assert_allclose(g.asnumpy(), want, atol=1e-5)
    assert (g.asnumpy()[x > nhi] == 0).all() and (g.asnumpy()[x < nlo] == 0).all()
    assert np.count_nonzero(g.asnumpy()) > 0.4 * x.size  # [-1, 1.5] of [-2.5, 2.5] passes


def test_ste_gradient_per_channel_and_no_gradient_to_the_range():
    r = np.random.default_rng(12)
    x = r.uniform(-2, 2, (4, 3)).astype(np.float32)
    lo, hi = np.array([-0.5, -1.0, -2.0], np.float32), np.array([0.5, 1.0, 2.0], np.float32)
    mn, mx = ms.Parameter(t(lo), "mn"), ms.Parameter(t(hi), "mx")
    gx, gmn, gmx = ms.grad(lambda v, a, b: fake_quant(v, a, b, 8, True, True, 1).sum(), grad_position=(0, 1, 2))(
        t(x), mn, mx)
    inside = np.abs(x) <= hi[None, :] + 1e-7
    np.testing.assert_array_equal(gx.asnumpy(), inside.astype(np.float32))
    np.testing.assert_array_equal(gmn.asnumpy(), np.zeros(3, np.float32))  # the observer moves the range
    np.testing.assert_array_equal(gmx.asnumpy(), np.zeros(3, np.float32))


def test_observer_ema_range_in_training_and_frozen_in_eval():
    obs = FakeQuantWithMinMaxObserver(ema=True, ema_decay=0.9)
    obs.set_train(True)
    r = np.random.default_rng(13)
    lo, hi = -6.0, 6.0
    for _ in range(3):
        x = r.uniform(-1, 3, (8, 5)).astype(np.float32)
        out = obs(t(x)).asnumpy()
        # MindSpore's MinMaxUpdatePerLayer: decay * batch + (1 - decay) * previous, 0 kept inside
        lo = min(0.9 * x.min() + 0.1 * lo, 0.0)
        hi = max(0.9 * x.max() + 0.1 * hi, 0.0)
        np.testing.assert_allclose(obs.minq.asnumpy(), [lo], rtol=1e-5)
        np.testing.assert_allclose(obs.maxq.asnumpy(), [hi], rtol=1e-5)
        np.testing.assert_allclose(out, oracle(x, obs.minq.asnumpy(), obs.maxq.asnumpy()), atol=1e-5)
    obs.set_train(False)
    big = np.full((2, 2), 100.0, np.float32)
    out = obs(t(big)).asnumpy()
    np.testing.assert_allclose(obs.maxq.asnumpy(), [hi], rtol=1e-6)  # eval does not move the range
    scale, _ = obs.qparams()
    assert out.max() <= hi + scale[0] / 2  # saturates at the (nudged) frozen range


def test_observer_without_ema_per_channel_and_quant_delay():
    obs = FakeQuantWithMinMaxObserver(per_channel=True, channel_axis=1, num_channels=3)
    obs.set_train(True)
    x = np.array([[-1.0, 2.0, 0.5], [0.5, -3.0, 0.25]], np.float32)
    obs(t(x))
    np.testing.assert_array_equal(obs.minq.asnumpy(), [-1.0, -3.0, 0.0])  # batch min, capped at 0
    np.testing.assert_array_equal(obs.maxq.asnumpy(), [0.5, 2.0, 0.5])
    delayed = FakeQuantWithMinMaxObserver(quant_delay=2)
    delayed.set_train(True)
    y = np.linspace(-0.4, 0.9, 7).astype(np.float32)
    outs = [delayed(t(y)).asnumpy() for _ in range(3)]
    np.testing.assert_array_equal(outs[0], y)  # the first quant_delay steps pass the input through
    np.testing.assert_array_equal(outs[1], y)
    assert not np.array_equal(outs[2], y)
    np.testing.assert_allclose(outs[2], oracle(y, delayed.minq.asnumpy(), delayed.maxq.asnumpy()), atol=1e-6)


@pytest.mark.parametrize("level", ["LAX", "STRICT"])
def test_graph_mode_matches_pynative(level):
    ms.set_context(jit_syntax_level=getattr(ms, level))
    try:
        bad = [(c.name, o.kind, o.detail) for c in quant_cases() for o in [run_case(c)] if o.kind != "identical"]
    finally:
        ms.set_context(jit_syntax_level=ms.LAX)
    assert not bad, bad


def test_fake_quant_in_a_compiled_training_step_matches_pynative():
    """value_and_grad through fake quant inside ms.jit gives PyNative's loss and STE gradient."""
    r = np.random.default_rng(14)
    x = t(r.uniform(-2, 2, (6, 4)))
    w = ms.Parameter(t(r.standard_normal((4, 4)) * 0.5), "w")

    def loss(v):
        return (fake_quant(ms.ops.matmul(v, w), t(-1.0), t(1.0)) ** 2).sum()

    eager = ms.value_and_grad(loss, None, [w])(x)
    compiled = ms.jit(ms.value_and_grad(loss, None, [w]))(x)
    np.testing.assert_allclose(compiled[0].asnumpy(), eager[0].asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(compiled[1][0].asnumpy(), eager[1][0].asnumpy(), rtol=1e-6)
    assert np.count_nonzero(eager[1][0].asnumpy()) > 0


def test_bad_inputs_are_refused_by_name():
    x = t(np.zeros((2, 3)))
    with pytest.raises(SporeError, match="FakeQuant: expected min of shape \\(3,\\)"):
        fake_quant(x, t([0.0, 1.0]), t([1.0, 2.0]), channel_axis=1)
    with pytest.raises(SporeError, match="FakeQuant: expected max of shape"):
        fake_quant(x, t(0.0), t([1.0, 2.0]))
    with pytest.raises(SporeError, match="num_bits must be an int in 2..16"):
        fake_quant(x, t(0.0), t(1.0), num_bits=1)
    with pytest.raises(SporeError, match="FakeQuant: expected a float tensor x"):
        fake_quant(ms.Tensor(np.zeros(3, np.int32)), t(0.0), t(1.0))
    with pytest.raises(SporeError, match="channel_axis=5"):
        fake_quant(x, t([0.0]), t([1.0]), channel_axis=5)
    with pytest.raises(SporeError, match="LEARNED_SCALE"):
        FakeQuantWithMinMaxObserver(mode="LEARNED_SCALE")
    with pytest.raises(SporeError, match="quant_delay must be an int"):
        FakeQuantWithMinMaxObserver(quant_delay=-1)
