"""Accepted constructs have the same observable effects in Graph mode as in PyNative: printed
output, Parameter writes, local containers — run both ways and compared."""

import numpy as np
import pytest

import spore as ms
from spore.compiler.jit import jit
from spore.ops import functional as F


def run_both(fn, make_args, capsys):
    """(eager result, eager stdout, compiled result, compiled stdout) with fresh arguments each."""
    eager = fn(*make_args())
    out_e = capsys.readouterr().out
    compiled = jit(fn, fullgraph=True)(*make_args())
    out_c = capsys.readouterr().out
    return eager, out_e, compiled, out_c


def test_print_runs_every_call_in_both_modes(capsys):
    def f(x):
        ms.ops.print_("x is", x)
        return x + 1.0

    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    _, out_e, _, out_c = run_both(f, lambda: (x,), capsys)
    assert out_e == out_c and "x is" in out_e and "[1. 2.]" in out_e
    g = jit(f, fullgraph=True)
    g(x)
    g(x)
    assert capsys.readouterr().out.count("x is") == 2, "the compiled print runs on every call, not once"


def test_parameter_writes_happen_each_call_in_both_modes():
    def make():
        return ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="counter")

    def f(p, x):
        ms.ops.assign(p, p + x)
        return p * 2.0

    x = ms.Tensor(np.ones(3, np.float32))
    pe, pc = make(), make()
    g = jit(f, fullgraph=True)
    for _ in range(3):
        ye = f(pe, x)
        yc = g(pc, x)
    np.testing.assert_array_equal(pe.asnumpy(), [3.0, 3.0, 3.0])
    np.testing.assert_array_equal(pc.asnumpy(), pe.asnumpy())
    np.testing.assert_array_equal(yc.asnumpy(), ye.asnumpy())


def test_local_list_building_matches(capsys):
    def f(x):
        acc = []
        for i in range(3):
            acc.append(F.mul(x, float(i)))
        acc.extend([x, x])
        return F.stack(acc)

    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    e, _, c, _ = run_both(f, lambda: (x,), capsys)
    np.testing.assert_array_equal(c.asnumpy(), e.asnumpy())


def test_random_draws_are_fresh_on_every_compiled_run():
    def f(x):
        return x + ms.ops.randn(3)

    g = jit(f, fullgraph=True)
    x = ms.Tensor(np.zeros(3, np.float32))
    a, b = g(x).asnumpy(), g(x).asnumpy()
    assert not np.array_equal(a, b), "a compiled graph must not freeze random numbers at compile time"
    ms.set_seed(5)
    c = g(x).asnumpy()
    ms.set_seed(5)
    np.testing.assert_array_equal(g(x).asnumpy(), c)


def test_tensor_if_whose_branch_only_writes_state_is_kept():
    p = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="p")

    @jit(fullgraph=True)
    def f(x):
        if F.reduce_sum(x) > 0:
            ms.ops.assign(p, p + x)
        return x

    f(ms.Tensor(np.ones(2, np.float32)))
    f(ms.Tensor(-np.ones(2, np.float32)))
    np.testing.assert_array_equal(p.asnumpy(), [1.0, 1.0])


def test_reads_after_a_write_see_the_new_value():
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="p")

    def f(x):
        before = p * 2.0
        ms.ops.assign(p, p + x)
        after = p * 2.0
        return before, after

    e = f(ms.Tensor(np.ones(2, np.float32)))
    p.set_data(ms.Tensor(np.ones(2, np.float32)))
    c = jit(f, fullgraph=True)(ms.Tensor(np.ones(2, np.float32)))
    for a, b in zip(c, e):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    np.testing.assert_array_equal(c[1].asnumpy(), [4.0, 4.0])


def test_lambda_given_to_grad_inside_compiled_code_is_a_clear_error():
    square_sum = lambda y: F.reduce_sum(y * y)  # noqa: E731  (defined outside the compiled code)

    @jit(fullgraph=True)
    def f(x):
        return ms.grad(square_sum)(x)

    with pytest.raises(ms.GraphCompileError, match="lambda"):
        f(ms.Tensor(np.ones(2, np.float32)))
