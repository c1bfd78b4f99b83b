"""The top-level names MindSpore's tutorials use that Spore gained for issue 14: Tensor.from_numpy,
vmap, mutable, jit_class, get_grad, jacrev/jacfwd/jvp, the seed and dtype helpers and spore.numpy,
each checked against NumPy or the analytic answer."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
import spore.numpy as mnp
from spore import nn, ops


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


# --- Tensor.from_numpy -----------------------------------------------------------------------------
def test_from_numpy_shares_memory_both_ways_and_keeps_the_dtype():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = ms.Tensor.from_numpy(a)
    assert t.dtype == ms.float64 and t.shape == (2, 3)
    a[0, 0] = 42.0
    assert t.asnumpy()[0, 0] == 42.0
    t.asnumpy()[1, 2] = -1.0
    assert a[1, 2] == -1.0
    assert np.shares_memory(ms.from_numpy(a).asnumpy(), a)
    strided = np.arange(10, dtype=np.int32)[::2]
    np.testing.assert_array_equal(ms.Tensor.from_numpy(strided).asnumpy(), [0, 2, 4, 6, 8])  # made contiguous
    with pytest.raises(TypeError, match="numpy.ndarray"):
        ms.Tensor.from_numpy([1, 2])
    assert ms.is_tensor(t) and ms.is_tensor(ms.Parameter(t, name="p")) and not ms.is_tensor(a)


# --- vmap ------------------------------------------------------------------------------------------
def test_vmap_maps_axes_like_a_loop():
    x = rng(1).standard_normal((4, 3))
    w = rng(2).standard_normal((3, 5))

    def f(row, mat):
        return ops.matmul(ops.expand_dims(row, 0), mat)[0] * 2

    got = ms.vmap(f, in_axes=(0, None))(ms.Tensor(x), ms.Tensor(w)).asnumpy()
    np.testing.assert_allclose(got, np.stack([2 * r @ w for r in x]), rtol=1e-12)
    cols = ms.vmap(lambda c: (c.sum(), c * 3), in_axes=1, out_axes=(0, 1))(ms.Tensor(x))
    np.testing.assert_allclose(cols[0].asnumpy(), x.sum(0), rtol=1e-12)
    np.testing.assert_allclose(cols[1].asnumpy(), x * 3, rtol=1e-12)


def test_vmap_gradient_and_errors():
    x = rng(3).standard_normal((3, 4))
    g = ms.grad(lambda v: ms.vmap(lambda r: (r * r).sum())(v).sum())(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(g, 2 * x, rtol=1e-12)
    with pytest.raises(ValueError, match="different sizes"):
        ms.vmap(lambda a, b: a + b)(ms.Tensor(np.ones(3)), ms.Tensor(np.ones(4)))
    with pytest.raises(ValueError, match="out of range"):
        ms.vmap(lambda a: a, in_axes=2)(ms.Tensor(np.ones((2, 2))))
    with pytest.raises(TypeError, match="callable"):
        ms.vmap(3)


# --- mutable, jit_class and the other compiler hints ----------------------------------------------
def test_mutable_marks_containers_and_checks_its_input():
    t = ms.Tensor(np.ones(2, np.float32))
    assert ms.mutable(t) is t
    tup = ms.mutable((t, t))
    assert tup == (t, t) and isinstance(tup, tuple) and tup.__ms_mutable__ and not tup.__ms_dynamic_len__
    lst = ms.mutable([t], dynamic_len=True)
    assert isinstance(lst, list) and lst.__ms_dynamic_len__
    assert not ms.mutable([t]).__ms_dynamic_len__  # the flag is per object
    assert ms.mutable({"a": t})["a"] is t and ms.mutable(3) == 3
    with pytest.raises(TypeError, match="input_data"):
        ms.mutable("text")
    with pytest.raises(ValueError, match="dynamic_len"):
        ms.mutable(t, dynamic_len=True)

    @ms.jit
    def add(xs):
        return xs[0] + xs[1]

    np.testing.assert_array_equal(add(ms.mutable((t, t))).asnumpy(), [2, 2])


def test_jit_class_marks_plain_classes_only():
    @ms.jit_class
    class Scale:
        def __init__(self):
            self.k = 3.0

    assert Scale.__ms_class__ and Scale().k == 3.0
    with pytest.raises(TypeError, match="Cell"):
        ms.jit_class(nn.Dense)
    with pytest.raises(TypeError, match="class"):
        ms.jit_class(lambda: 0)

    def f(x):
        return x + 1

    assert ms.constexpr(f) is f and ms.lazy_inline(f) is f and ms.no_inline(f) is f
    assert ms.lazy_inline(policy="front")(f) is f


# --- get_grad, jacrev, jacfwd, jvp ----------------------------------------------------------------
def test_get_grad_finds_inputs_by_position_and_weights_by_parameter():
    ms.set_seed(0)
    net = nn.Dense(3, 2)
    x = ms.Tensor(rng(4).standard_normal((5, 3)).astype(np.float32))
    y = ms.Tensor(rng(5).standard_normal((5, 3)).astype(np.float32))

    def loss(a, b):
        return (net(a) * net(b)).sum()

    grads = ms.grad(loss, grad_position=(0, 1), weights=net.trainable_params(), return_ids=True)(x, y)
    plain = ms.grad(loss, grad_position=(0, 1), weights=net.trainable_params())(x, y)
    np.testing.assert_array_equal(ms.get_grad(grads, 1).asnumpy(), plain[0][1].asnumpy())
    np.testing.assert_array_equal(ms.get_grad(grads, net.weight).asnumpy(), plain[1][0].asnumpy())
    np.testing.assert_array_equal(ms.get_grad(grads, net.bias).asnumpy(), plain[1][1].asnumpy())
    with pytest.raises(ValueError, match="input position 2"):
        ms.get_grad(grads, 2)
    with pytest.raises(TypeError, match="identifier"):
        ms.get_grad(grads, 1.5)


def test_jacobians_and_jvp_match_the_analytic_answer():
    a = rng(6).standard_normal(3)
    m = rng(7).standard_normal((2, 3))

    def f(x):
        return ops.matmul(ms.Tensor(m), x * x)  # J = m @ diag(2x)

    want = m * (2 * a)
    np.testing.assert_allclose(ms.jacrev(f)(ms.Tensor(a)).asnumpy(), want, rtol=1e-12)
    np.testing.assert_allclose(ms.jacfwd(f)(ms.Tensor(a)).asnumpy(), want, rtol=1e-12)
    v = rng(8).standard_normal(3)
    out, tangent = ms.jvp(f, ms.Tensor(a), ms.Tensor(v))
    np.testing.assert_allclose(out.asnumpy(), m @ (a * a), rtol=1e-12)
    np.testing.assert_allclose(tangent.asnumpy(), want @ v, rtol=1e-12)


# --- seeds and dtype helpers ------------------------------------------------------------------------
def test_seed_helpers_replay_a_run():
    s = ms.seed()
    assert ms.initial_seed() == s == ms.get_seed()
    first = ops.randn(3).asnumpy()
    ms.manual_seed(s)
    np.testing.assert_array_equal(ops.randn(3).asnumpy(), first)
    assert s != ms.seed()  # a fresh draw from OS entropy


def test_dtype_helpers():
    assert ms.dtype_to_pytype(ms.float16) is float and ms.dtype_to_pytype(ms.int32) is int
    assert ms.dtype_to_pytype(ms.bool_) is bool
    assert ms.get_py_obj_dtype(ms.Tensor(np.ones(2, np.int8))) is ms.int8
    assert ms.get_py_obj_dtype(1) is ms.int64 and ms.get_py_obj_dtype(1.5) is ms.float32
    assert ms.get_py_obj_dtype(True) is ms.bool_ and ms.get_py_obj_dtype(np.float64) is ms.float64


# --- spore.numpy -----------------------------------------------------------------------------------
def test_spore_numpy_matches_numpy():
    x = rng(9).standard_normal((3, 4))
    y = rng(10).standard_normal((4, 2))
    a3, b3 = rng(11).standard_normal((2, 3, 4)), rng(12).standard_normal((5, 4, 2))
    pairs = [
        (mnp.sum(x, axis=1), x.sum(1)), (mnp.mean(x, axis=0, keepdims=True), x.mean(0, keepdims=True)),
        (mnp.amax(x), x.max()), (mnp.argmin(x), x.argmin()), (mnp.std(x, axis=1, ddof=1), x.std(1, ddof=1)),
        (mnp.var(x), x.var()), (mnp.cumsum(x, axis=1), x.cumsum(1)), (mnp.cumsum(x), x.cumsum()),
        (mnp.matmul(x, y), x @ y), (mnp.dot(x, y), x.dot(y)), (mnp.dot(x[0], x[1]), x[0].dot(x[1])),
        (mnp.dot(a3, b3), np.dot(a3, b3)),
        (mnp.inner(x, x), np.inner(x, x)), (mnp.outer(x[0], y[:, 0]), np.outer(x[0], y[:, 0])),
        (mnp.trace(x), np.trace(x)), (mnp.trace(x, 1), np.trace(x, 1)),
        (mnp.transpose(x), x.T), (mnp.reshape(x, (2, 6)), x.reshape(2, 6)), (mnp.ravel(x), x.ravel()),
        (mnp.concatenate([x, x], axis=1), np.concatenate([x, x], 1)), (mnp.stack([x, x]), np.stack([x, x])),
        (mnp.flip(x, 1), np.flip(x, 1)), (mnp.tile(x[0], 2), np.tile(x[0], 2)),
        (mnp.clip(x, -0.5, 0.5), np.clip(x, -0.5, 0.5)), (mnp.where(x > 0, x, 0.0), np.where(x > 0, x, 0.0)),
        (mnp.maximum(x, 0.1), np.maximum(x, 0.1)), (mnp.power(np.abs(x), 1.5), np.abs(x) ** 1.5),
        (mnp.exp(x), np.exp(x)), (mnp.arctan2(x, x[::-1]), np.arctan2(x, x[::-1])), (mnp.sort(x), np.sort(x)),
        (mnp.around(x, 2), np.around(x, 2)), (mnp.linspace(0, 1, 5), np.linspace(0, 1, 5)),
        (mnp.arange(5), np.arange(5)), (mnp.eye(3, k=1), np.eye(3, k=1)), (mnp.full((2, 2), 7.0), np.full((2, 2), 7.0)),
        (mnp.add(2, mnp.asarray(x)), 2 + x), (mnp.subtract(x, 1), x - 1),
    ]
    for got, want in pairs:
        assert isinstance(got, ms.Tensor)
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert mnp.allclose(x, x + 1e-9) and not mnp.allclose(x, x + 1)
    parts = mnp.split(ms.Tensor(x), 2, axis=1)
    assert [p.shape for p in parts] == [(3, 2), (3, 2)]


def test_spore_numpy_gradients_flow_and_missing_names_are_clear():
    x = ms.Tensor(rng(13).standard_normal((2, 3)))
    g = ms.grad(lambda v: mnp.sum(mnp.square(v)))(x).asnumpy()
    np.testing.assert_allclose(g, 2 * x.asnumpy(), rtol=1e-12)
    with pytest.raises(AttributeError, match="first set"):
        mnp.polyfit  # noqa: B018
    assert "numpy" not in ms.__all__  # `from spore import *` must not shadow NumPy
    assert ms.numpy is mnp


def test_rng_state_generator_and_settings():
    state = ms.get_rng_state()
    first = ops.randn(4).asnumpy()
    ms.set_rng_state(state)
    np.testing.assert_array_equal(ops.randn(4).asnumpy(), first)
    with pytest.raises(TypeError, match="get_rng_state"):
        ms.set_rng_state(42)
    g = ms.Generator().manual_seed(7)
    assert g.initial_seed() == 7
    saved = g.get_state()
    a = g.numpy_generator.standard_normal(3)
    g.set_state(saved)
    np.testing.assert_array_equal(g.numpy_generator.standard_normal(3), a)
    np.testing.assert_array_equal(ms.Generator().manual_seed(7).numpy_generator.standard_normal(3), a)
    before = ms.get_context("deterministic"), ms.get_context("max_call_depth")
    try:
        ms.set_deterministic(True)
        ms.set_recursion_limit(321)
        assert ms.get_context("deterministic") == "ON" and ms.get_context("max_call_depth") == 321
        with pytest.raises(ValueError, match="recursion_limit"):
            ms.set_recursion_limit(0)
    finally:
        ms.set_context(deterministic=before[0], max_call_depth=before[1])


def test_amp_and_train_reexport_mindspores_names():
    import subprocess
    import sys

    assert ms.amp.jit is ms.jit and ms.amp.mutable is ms.mutable and ms.amp.Tensor is ms.Tensor
    assert ms.train.FixedLossScaleManager is ms.amp.FixedLossScaleManager is ms.FixedLossScaleManager
    # each package imports on its own, whichever comes first (spore.amp -> nn -> train.metrics -> amp was a cycle)
    for first in ("spore.amp", "spore.train", "spore.nn", "spore.dataset"):
        code = f"import {first}; import spore; print(spore.train.build_train_network.__name__)"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0 and out.stdout.strip() == "build_train_network", out.stderr
