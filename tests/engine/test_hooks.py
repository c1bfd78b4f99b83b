"""Gradient hooks (issue 14): Tensor.register_hook / remove_hook / hooks, ops.HookBackward,
ops.InsertGradientOf, ops.DumpGradient and ms.saved_tensors_hooks, checked against gradients
worked out by hand (and MindSpore's documented examples), in PyNative; in Graph mode the
PyNative-only ones refuse with the user's line."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import ops
from spore.autodiff import tape
from spore.errors import SporeError


def T(a, dt=np.float32):
    return ms.Tensor(np.asarray(a, dt))


def test_register_hook_matches_mindspores_example():
    def hook_test(x, y):
        z = x * y
        z.register_hook(lambda g: g * 2)
        return z * y

    gx, gy = ms.grad(hook_test, grad_position=(0, 1))(T(1.0), T(2.0))
    assert float(gx.asnumpy()) == 8.0 and float(gy.asnumpy()) == 6.0


def test_hooks_run_in_order_and_none_keeps_the_gradient():
    seen = []
    rng = np.random.default_rng(0)
    xv = rng.normal(size=(3, 4)).astype(np.float32)

    def f(x):
        z = x * 3
        z.register_hook(lambda g: seen.append(g.asnumpy().copy()))  # returns None: unchanged
        z.register_hook(lambda g: g + 1)
        return (z * z).sum()

    g = ms.grad(f)(T(xv)).asnumpy()
    np.testing.assert_allclose(seen[0], 2 * 3 * xv, rtol=1e-6)       # d(z^2)/dz
    np.testing.assert_allclose(g, (2 * 3 * xv + 1) * 3, rtol=1e-6)  # second hook added one


def test_handle_remove_and_remove_hook_and_hooks_listing():
    x = T([1.0, 2.0])
    h1 = x.register_hook(lambda g: g * 10)
    h2 = x.register_hook(lambda g: g * 100)
    assert list(x.hooks()) == [h1.id, h2.id]
    h1.remove()
    assert list(x.hooks()) == [h2.id]
    assert x.remove_hook(h2) is True and x.remove_hook(h2) is False
    assert x.hooks() == {} and id(x) not in tape.TENSOR_HOOKS
    np.testing.assert_allclose(ms.grad(lambda a: (a * a).sum())(x).asnumpy(), [2.0, 4.0])


def test_hook_on_a_leaf_changes_its_gradient():
    x = T([1.0, -2.0, 3.0])
    h = x.register_hook(lambda g: g * 0.5)
    g = ms.grad(lambda a: (a ** 3).sum())(x).asnumpy()
    np.testing.assert_allclose(g, 0.5 * 3 * np.array([1.0, 4.0, 9.0]), rtol=1e-6)
    h.remove()


def test_hook_errors():
    with pytest.raises(TypeError, match="register_hook"):
        T([1.0]).register_hook(3)

    def bad(x):
        z = x * 2
        z.register_hook(lambda g: 5)
        return z.sum()

    with pytest.raises(SporeError, match="must return a Tensor"):
        ms.grad(bad)(T([1.0, 2.0]))


def test_hook_backward_matches_mindspores_example():
    seen = []
    hook = ops.HookBackward(lambda grads: seen.append(grads))

    def hook_test(x, y):
        z = x * y
        z = hook(z)
        return z * y

    gx, gy = ms.grad(hook_test, grad_position=(0, 1))(T(1.0), T(2.0))
    assert float(gx.asnumpy()) == 4.0 and float(gy.asnumpy()) == 4.0
    assert isinstance(seen[0], tuple) and float(seen[0][0].asnumpy()) == 2.0


def test_hook_backward_replaces_gradients_of_several_inputs():
    hook = ops.HookBackward(lambda grads: (grads[0] * 0, grads[1] * 2))

    def f(x, y):
        a, b = hook(x, y)
        return (a * b).sum()

    xv, yv = np.array([1.0, 2.0], np.float32), np.array([3.0, 5.0], np.float32)
    gx, gy = ms.grad(f, grad_position=(0, 1))(T(xv), T(yv))
    np.testing.assert_allclose(gx.asnumpy(), [0.0, 0.0])
    np.testing.assert_allclose(gy.asnumpy(), 2 * xv)


def test_insert_gradient_of_clips_in_both_modes():
    igo = ops.InsertGradientOf(lambda g: ops.clip_by_value(g, -1.0, 1.0))

    def f(a):
        return (igo(a * 3) * a).sum()

    xv = np.array([0.1, 2.0, -3.0], np.float32)
    want = np.clip(xv, -1, 1) * 3 + 3 * xv  # through igo: clip(d/d(3a)) * 3; plus the direct path
    np.testing.assert_allclose(ms.grad(f)(T(xv)).asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(ms.jit(ms.grad(f))(T(xv)).asnumpy(), want, rtol=1e-6)


def test_dump_gradient_saves_the_gradient(tmp_path):
    path = str(tmp_path / "sub" / "g")

    def f(a):
        return (ops.DumpGradient()(path, a * a, "in") * 3).sum()

    xv = np.array([1.0, 2.0], np.float32)
    ms.grad(f)(T(xv))
    np.testing.assert_allclose(np.load(path + ".npy"), [3.0, 3.0])
    with pytest.raises(ValueError, match="input_output"):
        ops.DumpGradient()(path, T(xv), "sideways")


DUMP = {}


def _dumped_loss(a):
    return (ops.DumpGradient()(DUMP["path"], a * a, "out") * a).sum()


def test_dump_gradient_saves_when_the_compiled_backward_runs(tmp_path):
    DUMP["path"] = str(tmp_path / "g.npy")
    step = ms.jit(ms.grad(_dumped_loss), fullgraph=True)
    for xv in (np.array([1.0, 2.0], np.float32), np.array([-3.0, 0.5], np.float32)):
        g = step(T(xv)).asnumpy()
        np.testing.assert_allclose(np.load(DUMP["path"]), xv)  # d(loss)/d(a*a) = a, written at run time
        np.testing.assert_allclose(g, 2 * xv * xv + xv * xv)


def test_saved_tensors_hooks_matches_mindspores_example():
    log = []

    def pack(x):
        log.append(("pack", x.asnumpy().tolist()))
        return x + 1

    def unpack(x):
        log.append(("unpack", x.asnumpy().tolist()))
        return x

    def forward_fn(x, y):
        with ms.saved_tensors_hooks(pack, unpack):
            out = x * y
        return out

    ones = ops.ones(2, ms.float32)
    out, (gx, gy) = ms.value_and_grad(forward_fn, grad_position=(0, 1))(ones, ops.ones(2, ms.float32))
    assert log == [("pack", [1.0, 1.0]), ("pack", [1.0, 1.0]), ("unpack", [2.0, 2.0]), ("unpack", [2.0, 2.0])]
    np.testing.assert_allclose(out.asnumpy(), [1.0, 1.0])
    np.testing.assert_allclose(gx.asnumpy(), [2.0, 2.0])  # the rule read the unpacked y = 2
    np.testing.assert_allclose(gy.asnumpy(), [2.0, 2.0])
    assert tape.SAVED_HOOKS == []


def test_register_saved_tensors_hooks_decorator_offloads_to_numpy():
    @ms.register_saved_tensors_hooks(lambda t: t.asnumpy().copy(), lambda a: ms.Tensor(a))
    def f(x):
        return (ops.sin(x) * x).sum()

    xv = np.array([0.3, -1.2, 2.0], np.float32)
    np.testing.assert_allclose(ms.grad(f)(T(xv)).asnumpy(), np.cos(xv) * xv + np.sin(xv), rtol=1e-6)


def _hooked_loss(a):
    z = a * a
    z.register_hook(_double)
    return (z * a).sum()


def _double(g):
    return g * 2


def _used_then_hooked(a):
    z = a * a
    w = z + 1
    z.register_hook(_double)
    return (w * z).sum()


def _hooked_param(a):
    P.register_hook(_double)
    return (a * P).sum()


P = ms.Parameter(T([1.0, 2.0]), name="p")


def test_register_hook_compiles_into_the_backward_graph():
    xv = np.array([0.5, -1.5, 2.0], np.float32)
    want = 2 * (2 * xv) * xv + xv * xv  # d/da of (z a) with z = a^2: hook doubles dL/dz = a
    np.testing.assert_allclose(ms.grad(_hooked_loss)(T(xv)).asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(ms.jit(ms.grad(_hooked_loss), fullgraph=True)(T(xv)).asnumpy(), want, rtol=1e-6)


def test_register_hook_in_a_graph_follows_mindspores_constraints():
    with pytest.raises(SporeError, match="already used") as info:
        ms.jit(ms.grad(_used_then_hooked), fullgraph=True)(T([1.0, 2.0]))
    assert info.value.loc is not None and info.value.loc.line == _used_then_hooked.__code__.co_firstlineno + 3
    with pytest.raises(SporeError, match="Parameter"):
        ms.jit(_hooked_param, fullgraph=True)(T([1.0, 2.0]))


def _hook_backward_loss(a):
    return (ops.HookBackward(_double)(a * a)).sum()


def test_pynative_only_hooks_refuse_when_compiled():
    with pytest.raises(SporeError, match="PyNative") as info:
        ms.jit(ms.grad(_hook_backward_loss), fullgraph=True)(T([1.0]))
    assert info.value.loc is not None and info.value.loc.line == _hook_backward_loss.__code__.co_firstlineno + 1


def test_no_hook_costs_nothing_on_the_tape():
    assert not tape.TENSOR_HOOKS and not tape.SAVED_HOOKS
    x = T([1.0, 2.0])
    with tape.watching([x]):
        y = x * 2
    assert y._node.packed is None


def test_a_leaf_hook_runs_once_and_the_data_parallel_callback_sees_its_result():
    seen, calls = [], []
    x = T([1.0, 2.0])
    h = x.register_hook(lambda g: calls.append(1) or g * 3)
    tape.GRAD_READY.hook = lambda t, g: seen.append(g.asnumpy().copy())
    try:
        g = ms.grad(lambda a: (a * a).sum())(x)
    finally:
        tape.GRAD_READY.hook = None
        h.remove()
    np.testing.assert_allclose(g.asnumpy(), [6.0, 12.0])
    np.testing.assert_allclose(seen[0], [6.0, 12.0])
    assert calls == [1]


class _Lin(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(T([[1.0, -2.0], [0.5, 3.0]]), name="w")

    def construct(self, x):
        return ops.matmul(x, self.w).sum()


def test_a_parameter_hook_set_in_pynative_runs_in_the_compiled_backward_too():
    net = _Lin()
    xv = np.array([[1.0, 2.0]], np.float32)
    step = ms.jit(ms.grad(net, grad_position=None, weights=net.w), fullgraph=True)
    plain = xv.T @ np.ones((1, 2), np.float32)  # d sum(x w) / d w
    np.testing.assert_allclose(step(T(xv)).asnumpy(), plain)
    h = net.w.register_hook(lambda g: g * 3)
    eager = ms.grad(net, grad_position=None, weights=net.w)(T(xv)).asnumpy()
    np.testing.assert_allclose(eager, 3 * plain)
    np.testing.assert_allclose(step(T(xv)).asnumpy(), 3 * plain)  # recompiled with the hook
    h.remove()
    np.testing.assert_allclose(step(T(xv)).asnumpy(), plain)  # and again without it


@pytest.mark.parametrize("first", ["spore.common.tree", "spore.autodiff.api", "spore.autodiff.hooks"])
def test_the_hook_modules_import_in_any_order(first):
    import subprocess
    import sys

    code = f"import {first}; import spore as ms; from spore import ops; assert ms.get_grad is ops.get_grad"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]


def test_hooking_an_intermediate_does_not_recompile_compiled_functions():
    from spore import context

    before = context.STRUCTURE_VERSION[0]
    z = T([1.0]) * 2
    z.register_hook(_double).remove()
    assert context.STRUCTURE_VERSION[0] == before
    p = ms.Parameter(T([1.0]), name="q")
    p.register_hook(_double).remove()
    assert context.STRUCTURE_VERSION[0] == before + 2


def _sin_loss(a):
    return (ops.sin(a) * a).sum()


def _d_sin_loss(xv):
    return np.cos(xv) * xv + np.sin(xv)  # d/da sum(sin(a) a)


def test_a_hook_on_a_grad_functions_own_input_reaches_its_gradient_when_compiled():
    # was: zeros in Graph mode (the leaf's variable was read after the hook rebound it)
    def f(a):
        a.register_hook(lambda g: g * 0.5)
        return _sin_loss(a)

    def g(x):
        return ms.grad(f)(x)

    xv = np.linspace(0.1, 1.0, 4).astype(np.float32)
    got = ms.jit(g, fullgraph=True)(T(xv)).asnumpy()
    np.testing.assert_allclose(got, 0.5 * _d_sin_loss(xv), rtol=1e-6)


def test_hooks_lists_a_hook_registered_inside_the_graph():
    def h(x):
        z = x + 1
        z.register_hook(lambda g: g)
        return z * len(z.hooks())

    xv = np.array([0.5, 2.0], np.float32)
    np.testing.assert_allclose(ms.jit(h, fullgraph=True)(T(xv)).asnumpy(), xv + 1)


def test_an_input_hooked_in_pynative_keeps_its_hooks_in_a_compiled_grad():
    # was: the compiled graph's input tracer had none of the caller's hooks (unhooked gradient, 0 hooks)
    xv = np.linspace(0.1, 1.0, 4).astype(np.float32)
    x = T(xv)

    def both(a):
        return ms.grad(_sin_loss)(a), a * 0 + len(a.hooks())

    def hooked_again(a):
        def f(b):
            b.register_hook(_double)
            return _sin_loss(b)
        return ms.grad(f)(a)

    step = ms.jit(both, fullgraph=True)
    g0, n0 = step(x)
    np.testing.assert_allclose(g0.asnumpy(), _d_sin_loss(xv), rtol=1e-6)
    assert np.all(n0.asnumpy() == 0)
    h = x.register_hook(lambda g: g * 3)
    try:
        g1, n1 = step(x)  # compiled again: the hooks are part of the graph
        np.testing.assert_allclose(g1.asnumpy(), 3 * _d_sin_loss(xv), rtol=1e-6)
        np.testing.assert_allclose(ms.grad(_sin_loss)(x).asnumpy(), g1.asnumpy(), rtol=1e-6)  # PyNative agrees
        assert np.all(n1.asnumpy() == 1)
        g2, _ = step(T(xv))  # another tensor without hooks: the unhooked graph
        np.testing.assert_allclose(g2.asnumpy(), _d_sin_loss(xv), rtol=1e-6)
        with pytest.raises(SporeError, match="already has a hook registered in PyNative"):
            ms.jit(hooked_again, fullgraph=True)(x)
    finally:
        h.remove()
    assert not tape.TENSOR_HOOKS  # the graph's tracers did not stay in the hook map


def test_a_hooked_closure_tensor_keeps_its_hook_in_a_compiled_grad():
    xv = np.linspace(0.1, 1.0, 4).astype(np.float32)
    c = T(xv)
    h = c.register_hook(lambda g: g * 3)

    def g(x):
        return ms.grad(_sin_loss)(c) + x

    try:
        got = ms.jit(g, fullgraph=True)(T(np.zeros(4, np.float32)))
        np.testing.assert_allclose(got.asnumpy(), 3 * _d_sin_loss(xv), rtol=1e-6)
    finally:
        h.remove()


def test_a_hook_on_a_compiled_functions_input_is_not_an_in_place_write():
    def k(x):
        x.register_hook(lambda g: g * 2)
        return (x * x).sum()

    fn = ms.jit(k, fullgraph=True)
    x = T([1.0, -2.0])
    np.testing.assert_allclose(ms.grad(fn)(x).asnumpy(), [4.0, -8.0])
    fn(x)
    entry = next(iter(fn.cache.values()))
    assert entry.written == []  # the hook's identity does not hand a value back to the caller's tensor



def _printing_hook(g):
    print("hook sees", g)  # PyNative prints the gradient in every backward pass
    return g * 2


def _printing_loss(a):
    z = a * 3
    z.register_hook(_printing_hook)
    return (z * z).sum()


def _grad_of_printing(x):
    return ms.grad(_printing_loss)(x)


def test_a_module_level_hook_is_held_to_graph_rules_not_run_once_on_tracers(capsys):
    # was: the hook ran once while compiling, printing a tracer placeholder, and never when the graph ran
    from spore.errors import GraphCompileError

    x = T([1.0, 2.0])
    with pytest.raises(GraphCompileError, match="print") as info:
        ms.jit(_grad_of_printing, fullgraph=True)(x)
    assert info.value.loc.line == _printing_hook.__code__.co_firstlineno + 1  # the print's line
    assert "Tracer" not in capsys.readouterr().out
    with pytest.warns(Warning, match="graph break"):
        got = ms.jit(_grad_of_printing)(x)  # LAX: the statement runs in Python, hook and all
    np.testing.assert_allclose(got.asnumpy(), 2 * 18 * np.array([1.0, 2.0]))  # d/da (3a)^2 = 18a, hooked 2x
    out = capsys.readouterr().out
    assert out.count("hook sees") == 1 and "Tracer" not in out and "12" in out  # the real gradient 2z = [6, 12]


def _bad_hook_loss(a):
    z = a * 2
    z.register_hook(lambda g: 3.0 if g.ndim else g)
    return (z * a).sum()


def _bad_shape_loss(a):
    z = a * 2
    z.register_hook(lambda g: g.sum())
    return (z * a).sum()


def _grad_bad(x):
    return ms.grad(_bad_hook_loss)(x)


def _grad_bad_shape(x):
    return ms.grad(_bad_shape_loss)(x)


@pytest.mark.parametrize("fn, what", [(_grad_bad, "returned a float"), (_grad_bad_shape, "of shape ()")])
def test_a_bad_hook_result_is_the_same_error_in_every_mode(fn, what):
    x = T([1.0, -2.0, 0.5])
    with pytest.raises(SporeError, match=what) as eager:
        fn(x)
    with pytest.raises(SporeError, match=what) as strict:
        ms.jit(fn, fullgraph=True)(x)
    with pytest.raises(SporeError, match=what) as lax, pytest.warns(Warning, match="graph break"):
        ms.jit(fn)(x)  # the statement runs in Python: PyNative's error, on the same line
    assert "Tensor.register_hook" in str(strict.value) and "Tensor.register_hook" in str(lax.value)
    grad_line = fn.__code__.co_firstlineno + 1  # the backward pass runs at the ms.grad call
    assert eager.value.loc.line == lax.value.loc.line == grad_line


SEEN: list = []


def _recording_hook(g):
    SEEN.append(g)  # a Python side effect on a module-level list: in PyNative, once per backward pass
    return g * 2


def _recording_loss(a):
    z = a * 3
    z.register_hook(_recording_hook)
    return (z * z).sum()


def _grad_of_recording(x):
    return ms.grad(_recording_loss)(x)


def test_a_hook_appending_to_a_module_level_list_is_refused_not_fed_tracers():
    # was: the compiled hook appended one Tracer to SEEN at compile time and nothing when the graph ran
    from spore.errors import GraphCompileError

    SEEN.clear()
    x = T([1.0, 2.0])
    with pytest.raises(GraphCompileError, match="mutating a list/dict") as info:
        ms.jit(_grad_of_recording, fullgraph=True)(x)
    assert info.value.loc.line == _recording_hook.__code__.co_firstlineno + 1
    assert SEEN == []
    with pytest.warns(Warning, match="graph break"):
        for _ in range(2):
            np.testing.assert_allclose(ms.jit(_grad_of_recording)(x).asnumpy(), [36.0, 72.0])
    assert len(SEEN) == 2 and all(not g._traced for g in SEEN)  # one real gradient per call, as in PyNative
    np.testing.assert_allclose(SEEN[1].asnumpy(), [6.0, 12.0])


HOOK_SCALE = 2.0


def _scaling_hook(g):
    return g * HOOK_SCALE


def _scaled_loss(a):
    z = a * 3
    z.register_hook(_scaling_hook)
    return (z * z).sum()


def _grad_scaled(x):
    return ms.grad(_scaled_loss)(x)


def test_a_global_a_compiled_hook_reads_is_guarded_like_any_compiled_code():
    # the hook is interpreted by the compiler, so the global it reads is a guard: changing it recompiles
    # (a hook called directly on tracers would have frozen the first value into the graph)
    global HOOK_SCALE
    x = T([1.0, 2.0])
    fn = ms.jit(_grad_scaled, fullgraph=True)
    try:
        np.testing.assert_allclose(fn(x).asnumpy(), [36.0, 72.0])  # 18a, hooked 2x
        HOOK_SCALE = 5.0
        np.testing.assert_allclose(fn(x).asnumpy(), [90.0, 180.0])
        np.testing.assert_allclose(_grad_scaled(x).asnumpy(), [90.0, 180.0])
    finally:
        HOOK_SCALE = 2.0
