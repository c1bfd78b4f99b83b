"""Functional control flow and higher-order derivatives (issue 14): ops.ForiLoop / WhileLoop / Scan
/ Assert in both modes against Python loops, and ops.derivative / jet / linearize against closed
forms, finite differences and repeated grad."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import ops
from spore.errors import SporeError


def T(a, dt=np.float32):
    return ms.Tensor(np.asarray(a, dt))


def test_mindspores_loop_examples():
    assert ops.ForiLoop()(0, 4, lambda i, r: i + r, 0) == 6
    assert ops.WhileLoop()(lambda x: x < 100, lambda v: v + 1, 10) == 100
    assert ops.Scan()(lambda r, e: (r + e, r + e), 0, [1, 2, 3, 4]) == (10, [1, 3, 6, 10])


def test_loops_compile_to_the_same_values():
    xv = np.random.default_rng(1).uniform(0.5, 1.0, (3, 4)).astype(np.float32)

    def body(x, n):
        a = ops.ForiLoop()(0, n, lambda i, v: v * 1.5 + 1.0, x)
        b = ops.WhileLoop()(lambda v: v.sum() < 200.0, lambda v: v * 2.0, x)
        c = ops.ForiLoop()(0, 3, lambda i, v: v + i, x)
        return a, b, c

    n = ms.Tensor(np.int64(3))
    eager = [t.asnumpy() for t in body(T(xv), n)]
    compiled = [t.asnumpy() for t in ms.jit(body)(T(xv), n)]
    want_a = xv.copy()
    for _ in range(3):
        want_a = want_a * 1.5 + 1.0
    want_b = xv.copy()
    while want_b.sum() < 200.0:
        want_b = want_b * 2.0
    for got in (eager, compiled):
        np.testing.assert_allclose(got[0], want_a, rtol=1e-6)
        np.testing.assert_allclose(got[1], want_b, rtol=1e-6)
        np.testing.assert_allclose(got[2], xv + 3, rtol=1e-6)


def test_scan_over_tensor_rows_and_length():
    xv = np.arange(12, dtype=np.float32).reshape(3, 4)
    carry, ys = ops.Scan()(lambda c, row: (c + row, c.sum()), T(np.zeros(4)), T(xv))
    np.testing.assert_allclose(carry.asnumpy(), xv.sum(0))
    np.testing.assert_allclose([float(y.asnumpy()) for y in ys], [0.0, xv[0].sum(), xv[:2].sum()])
    carry, ys = ops.Scan()(lambda c, _: (c * 2, c), 1, None, length=3)
    assert carry == 8 and ys == [1, 2, 4]


def test_loop_argument_errors():
    with pytest.raises(TypeError, match="ForiLoop: lower"):
        ops.ForiLoop()(0.5, 3, lambda i, v: v, 0)
    with pytest.raises(TypeError, match="WhileLoop: loop_func"):
        ops.WhileLoop()(lambda v: True, 3, 0)
    with pytest.raises(ValueError, match="Scan: loop_func must return"):
        ops.Scan()(lambda c, x: c, 0, [1])
    with pytest.raises(TypeError, match="Scan: xs"):
        ops.Scan()(lambda c, x: (c, x), 0, 5)


def test_assert_raises_with_the_data_summarised():
    ops.Assert()(T(True, np.bool_), [T([1.0])])
    with pytest.raises(SporeError, match=r"\[1.0, 2.0, \.\.\.\], \[7\]"):
        ops.Assert(2)(T(False, np.bool_), [T([1.0, 2.0, 3.0]), T([7], np.int32)])


def test_derivative_matches_mindspores_example_and_closed_form():
    x = np.array([[1, 2], [3, 4]], np.float32)
    out, d3 = ops.derivative(lambda a: ops.exp(ops.sin(a)), T(x), 3)
    s, c = np.sin(x.astype(np.float64)), np.cos(x.astype(np.float64))
    want = ((-2 * c * s - c) + (c * c - s) * c) * np.exp(s)  # third derivative of exp(sin x)
    np.testing.assert_allclose(out.asnumpy(), np.exp(s), rtol=1e-6)
    np.testing.assert_allclose(d3.asnumpy(), want, rtol=1e-5)
    np.testing.assert_allclose(d3.asnumpy(), [[-4.0515366, 3.6724353], [0.5053504, -0.52061415]], rtol=1e-5)


def test_derivative_agrees_with_repeated_grad():
    xv = np.array([0.3, 1.1, -0.7], np.float64)
    f = lambda a: a * a * ops.sin(a)  # noqa: E731
    g1 = ms.grad(lambda a: f(a).sum())
    g2 = ms.grad(lambda a: g1(a).sum())
    _, d2 = ops.derivative(f, T(xv, np.float64), 2)
    np.testing.assert_allclose(d2.asnumpy(), g2(T(xv, np.float64)).asnumpy(), rtol=1e-10)


def test_jet_follows_the_input_path_taylor_series():
    # x(t) = x0 + s1 t + s2 t^2/2: (f o x)'' = f''(x) s1^2 + f'(x) s2 (derivative convention)
    x0 = np.array([0.2, -0.5], np.float64)
    s = np.array([[1.5, -2.0], [0.3, 0.7]], np.float64)
    out, series = ops.jet(ops.sin, T(x0, np.float64), T(s, np.float64))
    np.testing.assert_allclose(out.asnumpy(), np.sin(x0))
    np.testing.assert_allclose(series.asnumpy()[0], np.cos(x0) * s[0], rtol=1e-12)
    np.testing.assert_allclose(series.asnumpy()[1], -np.sin(x0) * s[0] ** 2 + np.cos(x0) * s[1], rtol=1e-12)
    # finite differences along the path, for the first two terms
    h = 1e-4
    path = lambda t: np.sin(x0 + s[0] * t + s[1] * t * t / 2)  # noqa: E731
    np.testing.assert_allclose(series.asnumpy()[1], (path(h) - 2 * path(0) + path(-h)) / h ** 2, rtol=1e-5)


def test_jet_of_two_inputs_and_errors():
    x, y = T([1.0, 2.0]), T([0.5, 0.25])
    sx, sy = T([[1.0, 1.0]]), T([[0.0, 0.0]])
    out, series = ops.jet(lambda a, b: a * b, (x, y), (sx, sy))
    np.testing.assert_allclose(series.asnumpy()[0], [0.5, 0.25])  # d(a b) along a only: b
    with pytest.raises(ValueError, match="jet: a series"):
        ops.jet(ops.sin, x, T([1.0, 2.0]))
    with pytest.raises(ValueError, match="order must be positive"):
        ops.derivative(ops.sin, x, 0)


def test_linearize_is_the_jacobian_vector_product():
    rng = np.random.default_rng(3)
    xv, vv = rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
    w = rng.normal(size=(2, 4))
    f = lambda a: ops.tanh(ops.matmul(a, T(w, np.float64)))  # noqa: E731
    out, jvp_fn = ops.linearize(f, (T(xv, np.float64),))
    np.testing.assert_allclose(out.asnumpy(), np.tanh(xv @ w))
    eps = 1e-6
    fd = (np.tanh((xv + eps * vv) @ w) - np.tanh((xv - eps * vv) @ w)) / (2 * eps)
    np.testing.assert_allclose(jvp_fn(T(vv, np.float64)).asnumpy(), fd, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(jvp_fn((T(vv, np.float64),)).asnumpy(), fd, rtol=1e-6, atol=1e-9)


def test_stop_gradient_in_place_and_get_grad_is_ms_get_grad():
    assert ops.get_grad is ms.get_grad

    def f(a):
        y = a * 2
        ops.stop_gradient_(y)
        return (y * a).sum()

    xv = np.array([1.0, 3.0], np.float32)
    np.testing.assert_allclose(ms.grad(f)(T(xv)).asnumpy(), 2 * xv)  # y is a constant 2a
    res = ms.grad(lambda a: (a * a).sum(), 0, return_ids=True)(T(xv))
    np.testing.assert_allclose(ops.get_grad(res, 0).asnumpy(), 2 * xv)


def _transforms(x, s, v):
    d2 = ops.derivative(ops.sin, x, 2)[1]
    series = ops.jet(ops.exp, x, s)[1]
    _, f = ops.linearize(ops.tanh, (x,))
    return d2, series, f(v)


def test_higher_order_transforms_compile_to_the_same_values():
    rng = np.random.default_rng(5)
    x, s, v = rng.normal(size=(2, 3)), rng.normal(size=(2, 2, 3)), rng.normal(size=(2, 3))
    args = (T(x, np.float64), T(s, np.float64), T(v, np.float64))
    eager = [t.asnumpy() for t in _transforms(*args)]
    compiled = [t.asnumpy() for t in ms.jit(_transforms, fullgraph=True)(*args)]
    for e, c in zip(eager, compiled):
        np.testing.assert_allclose(c, e, rtol=1e-12)
    np.testing.assert_allclose(eager[0], -np.sin(x), rtol=1e-12)
    np.testing.assert_allclose(eager[1][1], np.exp(x) * (s[0] ** 2 + s[1]), rtol=1e-12)
    np.testing.assert_allclose(eager[2], (1 - np.tanh(x) ** 2) * v, rtol=1e-12)


def _checked(x):
    ops.Assert(3)(x.sum() > 100.0, [x])
    return x + 1


def test_assert_checks_at_run_time_inside_a_compiled_graph():
    f = ms.jit(_checked, fullgraph=True)
    np.testing.assert_allclose(f(T([100.0, 2.0])).asnumpy(), [101.0, 3.0])
    with pytest.raises(SporeError, match=r"condition is false; input data: \[1.0, 2.0\]") as info:
        f(T([1.0, 2.0]))
    assert info.value.loc is not None and info.value.loc.line == _checked.__code__.co_firstlineno + 1


def _mixed(u, a):
    return ms.grad(lambda t, w: (ops.sin(t) * w).sum(), grad_position=0)(a, u).sum()


def _grad_at_zeros(a):
    return ms.grad(_mixed)(ops.zeros_like(a), a)  # w.r.t. a tensor the graph makes from a constant


def test_compiled_grad_of_a_graph_constant_input_matches_pynative():
    xv = np.array([0.3, 1.0, -2.0], np.float64)
    eager = _grad_at_zeros(T(xv, np.float64)).asnumpy()
    np.testing.assert_allclose(eager, np.cos(xv), rtol=1e-12)  # d/du of sum(cos(a) * u)
    np.testing.assert_allclose(ms.jit(_grad_at_zeros, fullgraph=True)(T(xv, np.float64)).asnumpy(), eager,
                               rtol=1e-12)
