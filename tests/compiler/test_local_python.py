"""Python that touches only values local to the call compiles, with PyNative's exact behaviour:
local lists/dicts as compile-time containers, comprehensions of all four kinds, local lambdas and
nested functions (recursion unrolled on static values), starred unpacking, `:=`, `del`, and
`bool(t)` / `t.item()` / `float(t)` / `not t` / `and` in a condition lowered to a tensor condition.
Each construct runs in both modes on three calls with different values."""

import functools
import operator

import numpy as np
import pytest

import spore as ms
from spore import nn, ops


class ListBuilt(nn.Cell):
    def construct(self, x):
        parts = []
        for i in range(3):
            parts.append(x * (i + 1))
        parts.extend([x - 1, x + 1])
        parts[1] = parts[1] + 100
        del parts[0]
        last = parts.pop(-1)
        parts.insert(0, last)
        return ops.stack(parts[1:3] + parts[:1]), len(parts)


class DictComp(nn.Cell):
    def construct(self, x):
        d = {k: x * k for k in range(1, 4) if k != 2}
        s = {n * 2 for n in (1, 2, 2, 3)}
        keys = sorted(d.keys(), reverse=True)
        return d[keys[0]] + d[1], len(s), sum(s)


class GenExpr(nn.Cell):
    def construct(self, x):
        total = sum(x[i] * w for i, w in enumerate((0.5, 2.0, -1.0)))
        biggest = max(v for v in (3, 7, 5))
        flags = any(k > 6 for k in (3, 7)) and all(k > 2 for k in (3, 7))
        return total, biggest, flags


class Lambdas(nn.Cell):
    def construct(self, x):
        scale = 3.0
        f = lambda t, s=2.0: t * s + scale  # noqa: E731
        g = lambda *ts, **kw: sum(ts) * kw.get("k", 1)  # noqa: E731
        order = sorted([2, 0, 1], key=lambda i: -i)
        acc = functools.reduce(lambda a, b: a + b, [x, x, x])
        return f(x), f(x, s=-1.0), g(x, x, k=4), tuple(order), acc, operator.add(x, 1.0), operator.getitem(x, 0)


class NestedDefs(nn.Cell):
    def construct(self, x):
        def poly(t, n):
            if n == 0:
                return t * 0 + 1
            return t * poly(t, n - 1) + n

        def apply_twice(fn, v):
            return fn(fn(v))

        def inc(v):
            return v + 1
        return poly(x, 3), apply_twice(inc, x)


class Unpacking(nn.Cell):
    def construct(self, x):
        first, *middle, last = (x, x * 2, x * 3, x * 4)
        if (n := len(middle)) > 1:
            first = first + n
        return first, middle[0] + middle[1], last


class ConditionsOnValues(nn.Cell):
    def construct(self, x):
        s = x.sum()
        y = x
        if s.item() > 0:
            y = y * 2
        if bool(s > 1) and float(s) < 100.0:
            y = y + 1
        if not (s > 3):
            y = y - 10
        k = 0
        while int(s) - k > 0 and k < 5:
            k = k + 1
        return y + k


class Containers(nn.Cell):
    def construct(self, x):
        cfg = {"a": 1, "b": 2}
        cfg["c"] = cfg["a"] + cfg["b"]
        del cfg["a"]
        name = f"{len(cfg)}-{cfg['c']:02d}"
        msg = "{}:{}".format(*sorted(cfg))
        pairs = list(zip(reversed([1, 2, 3]), "abc"))
        ok = isinstance(cfg, dict) and hasattr(x, "shape") and getattr(x, "ndim") == 1
        return x * cfg["c"], name, msg, tuple(pairs), ok


CELLS = [ListBuilt, DictComp, GenExpr, Lambdas, NestedDefs, Unpacking, ConditionsOnValues, Containers]


def _inputs(call: int) -> ms.Tensor:
    r = np.random.default_rng(call)
    values = r.standard_normal(3).astype(np.float32) * [1, 3, 10][call]
    return ms.Tensor(values)


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [y for v in out for y in _flat(v)]
    return [out.asnumpy() if isinstance(out, ms.Tensor) else out]


@pytest.mark.parametrize("cls", CELLS, ids=[c.__name__ for c in CELLS])
def test_local_python_compiles_with_pynatives_results(cls):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = [_flat(cls()(_inputs(i))) for i in range(3)]
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    net = cls()
    graph = [_flat(net(_inputs(i))) for i in range(3)]
    assert net.compiled_construct is None or net.compiled_construct.fallback_reason is None
    for e, g in zip(eager, graph):
        assert len(e) == len(g)
        for a, b in zip(e, g):
            if isinstance(a, np.ndarray):
                assert isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape
                np.testing.assert_allclose(b, a, rtol=1e-6)
            else:
                assert type(a) is type(b) and a == b


def test_recursion_on_a_tensor_stops_at_the_depth_limit_on_the_users_line():
    class Runaway(nn.Cell):
        def construct(self, x):
            def down(t):
                if t.sum() > 0:
                    return down(t - 1)
                return t
            return down(x)

    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    with pytest.raises(ms.GraphCompileError, match="recursed more than 32 calls") as info:
        Runaway()(ms.Tensor(np.ones(2, np.float32)))
    assert info.value.loc.file == __file__


def test_not_of_a_tensor_outside_a_condition_is_refused_not_turned_into_a_tensor():
    class NotValue(nn.Cell):
        def construct(self, x):
            return not x.sum()

    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert NotValue()(ms.Tensor(np.zeros(2, np.float32))) is True
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    with pytest.raises(ms.GraphCompileError, match="Python bool"):
        NotValue()(ms.Tensor(np.zeros(2, np.float32)))
