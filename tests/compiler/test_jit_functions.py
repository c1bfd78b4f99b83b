"""`@jit` functions: what the frontend accepts compiles to PyNative's results and gradients; what
it rejects fails on the user's line with the fix (or falls back to PyNative with fullgraph=False)."""

import inspect
import traceback
import warnings

import numpy as np
import pytest

import spore as ms
from spore.compiler.jit import GraphFallbackWarning, jit
from spore.errors import GraphCompileError
from spore.ops import functional as F

rng = np.random.default_rng(0)


def t(*shape):
    return ms.Tensor(rng.standard_normal(shape).astype(np.float32))


def both(fn, *args):
    """fn's result eagerly and compiled (fullgraph), as numpy arrays."""
    eager = fn(*args)
    compiled = jit(fn, fullgraph=True)(*args)
    flat = lambda v: [v] if isinstance(v, ms.Tensor) else [x for e in v for x in flat(e)]  # noqa: E731
    return [a.asnumpy() for a in flat(eager)], [a.asnumpy() for a in flat(compiled)]


def assert_same(fn, *args):
    eager, compiled = both(fn, *args)
    assert len(eager) == len(compiled)
    for e, c in zip(eager, compiled):
        np.testing.assert_allclose(c, e, rtol=1e-6, atol=1e-6)


def test_static_if_on_shape_is_resolved_at_compile_time():
    def f(x):
        if x.shape[1] > 3:
            x = x[:, :3]
        return F.relu(x) * 2.0

    assert_same(f, t(2, 5))
    assert_same(f, t(2, 2))


def test_if_on_tensor_value_runs_the_taken_branch():
    def f(x):
        if F.reduce_sum(x) > 0:
            y = F.exp(x)
        else:
            y = x * -1.0
        return y + 1.0

    pos = ms.Tensor(np.abs(rng.standard_normal(4)).astype(np.float32))
    assert_same(f, pos)
    assert_same(f, -pos)
    g = jit(f, fullgraph=True)
    eqn_names = lambda: [e.prim.name for e in next(iter(g.cache.values())).graph.eqns]  # noqa: E731
    g(pos)
    assert "If" in eqn_names()


def test_return_inside_tensor_if_duplicates_the_rest():
    def f(x):
        if F.reduce_sum(x) > 0:
            return x * 2.0
        y = x - 1.0
        return y * y

    assert_same(f, ms.Tensor(np.ones(3, np.float32)))
    assert_same(f, ms.Tensor(-np.ones(3, np.float32)))


def test_gradients_through_tensor_if_match_pynative():
    w = ms.Parameter(t(3), name="w")

    def f(x):
        y = x * w
        if F.reduce_sum(y) > 0:
            z = F.exp(y)
        else:
            z = y * y
        return F.reduce_sum(z)

    for x in (ms.Tensor(np.full(3, 0.5, np.float32)), ms.Tensor(np.full(3, -0.5, np.float32))):
        ge = ms.grad(f, 0, [w])(x)
        gc = ms.grad(jit(f, fullgraph=True), 0, [w])(x)
        np.testing.assert_allclose(gc[0].asnumpy(), ge[0].asnumpy(), rtol=1e-6)
        np.testing.assert_allclose(gc[1][0].asnumpy(), ge[1][0].asnumpy(), rtol=1e-6)


def test_for_over_range_tuple_and_local_list_append():
    def f(x):
        outs = []
        for i in range(3):
            x = x * 2.0 + float(i)
            outs.append(x)
        for s in (1.0, 2.0):
            x = x - s
        return x, outs[0], outs[-1]

    assert_same(f, t(2, 2))


def test_while_on_tensor_condition_and_its_gradient():
    def f(x):
        i = ms.Tensor(np.array(0, np.int64))
        while i < 3:
            x = x * 1.5
            i = i + 1
        return F.reduce_sum(x * x)

    x = t(4)
    assert_same(f, x)
    ge = ms.grad(f)(x)
    gc = ms.grad(jit(f, fullgraph=True))(x)
    np.testing.assert_allclose(gc.asnumpy(), ge.asnumpy(), rtol=1e-5)
    np.testing.assert_allclose(ge.asnumpy(), 2 * 1.5 ** 6 * x.asnumpy(), rtol=1e-5)


def test_inlined_helper_function_and_nested_jit():
    def helper(a, scale=3.0):
        return F.relu(a) * scale

    @jit
    def inner(a):
        return a + 1.0

    def f(x):
        return inner(helper(x, scale=2.0))

    assert_same(f, t(5))


def test_assert_on_tensor_checks_every_run():
    @jit(fullgraph=True)
    def f(x):
        assert F.reduce_sum(x) > 0, "needs a positive sum"
        return x * 2.0

    f(ms.Tensor(np.ones(2, np.float32)))
    with pytest.raises(AssertionError, match="needs a positive sum"):
        f(ms.Tensor(-np.ones(2, np.float32)))


def test_compile_cache_is_per_signature():
    calls = []

    def f(x):
        return x * 2.0

    g = jit(f, fullgraph=True)
    g(t(2, 3))
    g(t(2, 3))
    g(t(4, 3))
    g(ms.Tensor(np.ones((2, 3), np.float64)))
    assert len(g.cache) == 3
    del calls


COUNTER = 0


def _rejected_cases():
    def uses_try(x):
        try:
            x = x + 1.0
        except ValueError:
            pass
        return x

    def uses_global(x):
        global COUNTER
        COUNTER += 1
        return x

    def uses_time(x):
        import time
        return x * time.time()

    def uses_item(x):
        return x * x.item()

    def uses_print(x):
        print(x)
        return x

    return {"try": uses_try, "global": uses_global, "import": uses_time, "python_value_of_tensor": uses_item,
            "print": uses_print}


@pytest.mark.parametrize("rule", sorted(_rejected_cases()))
def test_rejected_construct_fails_on_the_users_line_with_hint(rule):
    fn = _rejected_cases()[rule]
    src, first = inspect.getsourcelines(fn)
    with pytest.raises(GraphCompileError) as info:
        jit(fn, fullgraph=True)(ms.Tensor(np.ones(2, np.float32)))
    err = info.value
    assert err.rule == rule
    assert err.loc.file == __file__
    line_text = src[err.loc.line - first]
    assert line_text.strip(), "the error points at a real line of the function"
    assert err.hint
    last = traceback.extract_tb(info.tb)[-1]
    assert (last.filename, last.lineno) == (__file__, err.loc.line), "traceback ends at the user's line"
    assert "Graph mode cannot compile" in str(err) and "hint:" in str(err)


def test_fullgraph_false_falls_back_to_pynative_with_one_warning():
    def f(x):
        try:
            x = x + 1.0
        except ValueError:
            pass
        return x * 2.0

    g = jit(f)
    x = ms.Tensor(np.ones(2, np.float32))
    with pytest.warns(GraphFallbackWarning, match="try/except"):
        out = g(x)
    np.testing.assert_allclose(out.asnumpy(), [4.0, 4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g(x)  # no second warning


def test_shape_error_during_compile_names_op_and_line():
    def f(x):
        return F.matmul(x, x)  # (2, 3) @ (2, 3)

    with pytest.raises(GraphCompileError) as info:
        jit(f, fullgraph=True)(t(2, 3))
    assert "MatMul" in str(info.value) and "(2, 3)" in str(info.value)
    assert "F.matmul(x, x)" in str(info.value)


def test_jit_on_a_cell_method_compiles_that_method_only():
    from spore import nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 3)

        @jit(fullgraph=True)
        def head(self, x):
            return F.relu(self.fc(x)) * 2.0

        def construct(self, x):
            return self.head(x) + 1.0  # PyNative around a compiled method

    net = Net()
    x = t(2, 4)
    out = net(x)
    expected = np.maximum(x.asnumpy() @ net.fc.weight.asnumpy().T + net.fc.bias.asnumpy(), 0) * 2.0 + 1.0
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5)
    bound = net.head
    assert len(bound.cache) == 1
    g = ms.grad(lambda x: F.reduce_sum(net(x)), None, net.trainable_params())(x)
    assert all(np.abs(gi.asnumpy()).sum() > 0 for gi in g)
