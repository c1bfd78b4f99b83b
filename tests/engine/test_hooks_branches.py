"""Hooks and in-place writes inside control flow on tensors, compiled vs PyNative on both paths.

A write into an outer tensor (``z.add_(1)``) or a hook registered on it (``z.register_hook(h)``,
which rebinds it to an InsertGradientOf of itself) on one path of an ``if`` on a tensor used to
leak into the other path and past the ``if``: the other path then read a value that only exists in
the first branch (a raw TypeError when the graph ran) or the wrong value. Now each path sees its
own writes, the If merges them, and a loop on a tensor that writes an outer tensor is refused on
the loop's line (the loop would not carry it)."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import ops
from spore.errors import GraphCompileError, SporeError

POS = np.array([1.0, 2.0, -0.5], np.float32)  # sum > 0: the if path
NEG = -POS                                     # sum < 0: the else path


def T(a):
    return ms.Tensor(np.array(a, np.float32))


def _write(a):
    z = a * 1.0
    if a.sum() > 0:
        z.add_(1)
        out = z * 2
    else:
        out = z * a
    return out, z


def _write_return(a):
    z = a * 1.0
    if a.sum() > 0:
        z.add_(1)
        return z * 2
    return z - 1


def _write_input(a):
    if a.sum() > 0:
        a.mul_(3)
    return a + 1


def _hooked_loss(a):
    z = a * 1.5
    if a.sum() > 0:
        z.register_hook(lambda g: g * 4)
        out = (z * z).sum()
    else:
        out = (z * a).sum()
    return out


def _hooked_grad(a):
    return ms.grad(_hooked_loss)(a)


def _hook_count(a):
    z = a * 2
    if a.sum() > 0:
        z.register_hook(lambda g: g * 3)
    return z + len(z.hooks())


def _while_write(a):
    z = a * 1.0
    i = a.sum() * 0
    while i < 3:
        z.add_(1)
        i = i + 1
    return z


def _fori_write(a, n):
    z = a * 1.0

    def body(i, v):
        z.add_(1)
        return v * 2
    return ops.ForiLoop()(0, n, body, a), z


def _flat(out):
    return [o.asnumpy() for o in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("xv", [POS, NEG], ids=["if path", "else path"])
@pytest.mark.parametrize("fn", [_write, _write_return, _hooked_grad], ids=lambda f: f.__name__)
def test_each_path_of_an_if_sees_only_its_own_writes(fn, xv):
    want = _flat(fn(T(xv)))
    got = _flat(ms.jit(fn, fullgraph=True)(T(xv)))
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_the_hooked_path_gets_the_hooked_gradient():
    # d/da sum((1.5a)^2) = 4.5 a, hooked 4x on the if path; d/da sum(1.5 a^2) = 3a on the else path
    np.testing.assert_allclose(ms.jit(_hooked_grad, fullgraph=True)(T(POS)).asnumpy(), 4 * 4.5 * POS, rtol=1e-6)
    np.testing.assert_allclose(ms.jit(_hooked_grad, fullgraph=True)(T(NEG)).asnumpy(), 3 * NEG, rtol=1e-6)


@pytest.mark.parametrize("xv", [POS, NEG], ids=["if path", "else path"])
def test_a_write_into_the_input_on_one_path_reaches_the_caller(xv):
    a, b = T(xv), T(xv)
    want = _write_input(a).asnumpy()
    got = ms.jit(_write_input, fullgraph=True)(b).asnumpy()
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(b.asnumpy(), a.asnumpy())  # the caller's tensor took the same write
    assert np.allclose(b.asnumpy(), xv * (3 if xv.sum() > 0 else 1))


def test_hooks_after_a_one_path_hook_refuses_in_strict_and_breaks_in_lax():
    with pytest.raises(SporeError, match="depend on the condition"):
        ms.jit(_hook_count, fullgraph=True)(T(POS))
    for xv in (POS, NEG):  # LAX: the statement runs in Python with PyNative's answer
        with pytest.warns(ms.GraphBreakWarning if hasattr(ms, "GraphBreakWarning") else Warning):
            got = ms.jit(_hook_count)(T(xv)).asnumpy()
        np.testing.assert_allclose(got, _hook_count(T(xv)).asnumpy())


def test_loops_on_tensors_refuse_an_outer_in_place_write():
    with pytest.raises(GraphCompileError, match="written in place") as info:
        ms.jit(_while_write, fullgraph=True)(T(POS))
    assert info.value.loc.line == _while_write.__code__.co_firstlineno + 3  # the while line
    with pytest.raises(GraphCompileError, match="ForiLoop: a tensor from outside"):
        ms.jit(_fori_write, fullgraph=True)(T(POS), ms.Tensor(np.int64(3)))
    # PyNative: the loop runs 3 times (z + 3); LAX runs the loop in Python and agrees
    np.testing.assert_allclose(ms.jit(_while_write)(T(POS)).asnumpy(), _while_write(T(POS)).asnumpy())


def _hook_per_iteration(a):
    v = a * 1
    i = a.sum() * 0
    while i < 3:
        v = v * 1.5
        v.register_hook(lambda g: g * 2)  # each iteration's value is hooked
        i = i + 1
    return v.sum()


def _grad_per_iteration(a):
    return ms.grad(_hook_per_iteration)(a)


def test_a_hook_inside_a_tensor_while_body_applies_per_iteration():
    want = np.full(2, (1.5 * 2) ** 3, np.float32)  # three factors of 1.5, three hooks of 2
    np.testing.assert_allclose(_grad_per_iteration(T([1.0, 2.0])).asnumpy(), want)
    np.testing.assert_allclose(ms.jit(_grad_per_iteration, fullgraph=True)(T([1.0, 2.0])).asnumpy(), want)


_ASSERT = ops.Assert(2)


def _assert_on_one_path(a):
    if a.sum() > 0:
        _ASSERT(a.sum() < -100.0, [a])  # fails whenever this path runs
        y = a + 1
    else:
        y = a - 1
    return y


@pytest.mark.parametrize("xv", [POS, NEG], ids=["if path", "else path"])
def test_an_assert_on_one_path_of_a_tensor_if_fires_only_there(xv):
    fn = ms.jit(_assert_on_one_path, fullgraph=True)
    if xv.sum() > 0:
        for run in (_assert_on_one_path, fn):
            with pytest.raises(SporeError, match="Assert: the condition is false"):
                run(T(xv))
    else:
        np.testing.assert_allclose(fn(T(xv)).asnumpy(), xv - 1)
        np.testing.assert_allclose(_assert_on_one_path(T(xv)).asnumpy(), xv - 1)
