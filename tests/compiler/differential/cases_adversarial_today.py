"""Adversarial differential cases (Graph vs PyNative) for the names added on the day of the autodiff
slice: gradient hooks in awkward places (the loss itself, a grad's aux output, a second derivative,
a tensor-condition branch, a hook closing over another tensor), HookBackward / InsertGradientOf /
DumpGradient beside them, ForiLoop / WhileLoop / Scan with tensor and Python bounds, tuple carries
and gradients through the loop, Assert, derivative / jet / linearize, user PrimitiveWithInfer ops
under grad, saved_tensors_hooks, and complex dtypes in Graph mode.

Each case either gives PyNative's exact result in Graph mode or is refused on the user's line
(the harness's "identical" / "refused" / "both_raise")."""

from __future__ import annotations

import os
import tempfile

import numpy as np

import spore as ms
from spore import ops

from .cases_ops import K, _classes, _functions
from .cases_tensor_nn import C, G, fl


def const(a) -> G:
    a = np.asarray(a)
    return G(lambda r: a.copy())


# --- Tensor hooks --------------------------------------------------------------------------------------
def hook_on_loss(x):
    """A hook on the differentiated output itself scales the seed of the backward pass."""
    def f(a):
        loss = (a * a).sum()
        loss.register_hook(lambda g: g * 5)
        return loss
    return ms.grad(f)(x)


def hook_with_aux(x):
    """The hooked tensor is also returned as an aux output."""
    def f(a):
        y = ops.sin(a)
        y.register_hook(lambda g: g * -2)
        return (y * a).sum(), y
    return ms.grad(f, has_aux=True)(x)


def hook_value_and_grad(x, y):
    """Both inputs differentiated, one of them hooked inside."""
    def f(a, b):
        b.register_hook(lambda g: g + 1)
        return (a * b * b).sum()
    return ms.value_and_grad(f, grad_position=(0, 1))(x, y)


def hook_second_order(x):
    """A hook on an intermediate of a function differentiated twice."""
    def f(a):
        z = a * a
        z.register_hook(lambda g: g * 3)
        return (z * a).sum()

    def df(a):
        return ms.grad(f)(a).sum()
    return ms.grad(df)(x)


def hook_closes_over_tensor(x, w):
    """The hook multiplies the gradient by another tensor of the graph."""
    def f(a):
        z = a * 2
        z.register_hook(lambda g: g * w)
        return ops.exp(z).sum()
    return ms.grad(f)(x)


def hook_in_tensor_branch(x):
    """A hook registered in the branch a tensor condition picks."""
    def f(a):
        z = a * 1.5
        if a.sum() > 0:
            z.register_hook(lambda g: g * 4)
            out = (z * z).sum()
        else:
            out = (z * a).sum()
        return out
    return ms.grad(f)(x)


def hook_in_branch_then_count(x):
    """hooks() after an if on a tensor that hooks on one path only: the count depends on the value."""
    z = x * 2
    if x.sum() > 0:
        z.register_hook(lambda g: g * 3)
    return z + len(z.hooks())


def hook_in_branch_with_return(x):
    """A hook on one path of an if on a tensor that returns from both paths."""
    def f(a):
        z = a * 2
        if a.sum() > 0:
            z.register_hook(lambda g: g * 3)
            return (z * z).sum()
        return (z * a).sum()
    return ms.grad(f)(x)


def write_in_branch(x):
    """An in-place write of an outer tensor on one path of an if on a tensor (was: the write leaked
    into the other path and past the if, reading a value of the branch: a crash or a wrong value)."""
    z = x * 1.0
    if x.sum() > 0:
        z.add_(1)
        out = z * 2
    else:
        out = z * x
    return out, z


def write_input_in_branch(x):
    """The write is to the function's input: the caller's tensor sees it when that path runs."""
    if x.sum() > 0:
        x.mul_(3)
    return x + 1


def write_in_branch_with_return(x):
    z = x * 1.0
    if x.sum() > 0:
        z.add_(1)
        return z * 2
    return z - 1


def write_in_nested_branches(x):
    z = x * 1.0
    if x.sum() > 0:
        if x[0] > 0:
            z.add_(1)
        else:
            z.sub_(1)
    return z * 2


def setitem_in_branch(x):
    z = x * 1
    if x.sum() > 0:
        z[0] = 100.0
    return z


def writes_on_both_paths(x):
    z = x * 1
    if x.sum() > 0:
        z.add_(1)
    else:
        z.mul_(5)
    return z


def write_seen_by_alias(x):
    """Another name bound to the written tensor sees the write made on the path taken."""
    z = x * 1
    w = z
    if x.sum() > 0:
        z.add_(1)
        y = z
    else:
        y = z * 0
    return w, y


def writes_in_elif_chain(x):
    z = x * 1
    if x.sum() > 1:
        z.add_(1)
    elif x.sum() > -1:
        z.sub_(1)
    else:
        z.mul_(2)
    return z


def tensor_if_in_python_loop(x):
    z = x * 1
    for _ in range(3):
        if z.sum() > 0:
            z.sub_(1)
    return z


def dtype_set_in_branch(x):
    """set_dtype on one path: the two paths disagree on the dtype, refused (LAX: Python)."""
    z = x * 1
    if x.sum() > 0:
        z.set_dtype(ms.float64)
    return z


def write_in_tensor_while(x):
    """An outer tensor written in place in a while loop on a tensor: refused (the loop would not carry
    it), or run in Python under LAX."""
    z = x * 1.0
    i = x.sum() * 0
    while i < 3:
        z.add_(1)
        i = i + 1
    return z


def write_in_fori_tensor_bound(x, n):
    z = x * 1.0

    def body(i, v):
        z.add_(1)
        return v * 2
    return ops.ForiLoop()(0, n, body, x), z


def hook_handle_remove(x):
    """handle.remove() right after registering (in a graph, register_hook returns the tensor itself)."""
    def f(a):
        z = a * 3
        h = z.register_hook(lambda g: g * 100)
        h.remove()
        return (z * z).sum()
    return ms.grad(f)(x)


def hook_in_tensor_loop_body(x, n):
    """A hook on a tensor made inside a ForiLoop body with a tensor bound, under grad."""
    def f(a):
        def body(i, v):
            z = v * 1.1
            z.register_hook(lambda g: g * 2)
            return z
        return ops.ForiLoop()(0, n, body, a).sum()
    return ms.grad(f)(x)


def dump_in_tensor_loop(x, n):
    """DumpGradient inside a loop on a tensor bound: the gradient still flows."""
    def f(a):
        return ops.ForiLoop()(0, n, lambda i, v: ops.DumpGradient()(DUMP_PATH, v * 1.5, "in"), a).sum()
    return ms.grad(f)(x)


def saved_hooks_decorator(x):
    """register_saved_tensors_hooks on a function called from compiled code."""
    return ms.grad(_saved_decorated)(x)


def hook_changes_dtype(x):
    """The hook hands back a float64 gradient for a float32 tensor."""
    def f(a):
        z = a * 2
        z.register_hook(lambda g: g.astype(ms.float64) * 3)
        return (z * a).sum()
    return ms.grad(f)(x)


def hook_not_callable(x):
    z = x * 2
    z.register_hook(3)
    return z


def hook_returns_none(x):
    """A hook that only looks at the gradient (returns None) keeps it."""
    def f(a):
        z = ops.tanh(a)
        z.register_hook(lambda g: None)
        return (z * 3).sum()
    return ms.grad(f)(x)


def hook_then_hooks_count(x):
    """hooks() of a tensor hooked inside a grad, read after the grad."""
    z = x * 3
    g = ms.grad(lambda a: (a * z).sum())(x)
    z.register_hook(lambda t: t)
    return g + len(z.hooks()) + len(x.hooks())


def hook_on_input_twice_grads(x):
    """An input hooked in the grad function, differentiated again afterwards (PyNative keeps the hook
    on the caller's tensor; a graph must not lose or double it)."""
    def f(a):
        a.register_hook(lambda g: g * 0.5)
        return (a * a).sum()
    g1 = ms.grad(f)(x)
    return g1


def hook_on_input_nested_grads(x):
    """The inner function hooks its input, which is also the outer grad's input (PyNative: the hook
    sits on that one tensor, so the outer gradient is hooked too)."""
    def f(a):
        a.register_hook(lambda g: g * 0.5)
        return (a * a * a).sum()

    def df(t):
        return ms.grad(f)(t).sum()
    return ms.grad(df)(x)


def hooked_loop_body(x):
    """A hook inside a Python-bounded ForiLoop body: one hook per iteration's fresh tensor."""
    def f(a):
        def body(i, v):
            z = v * 1.1
            z.register_hook(lambda g: g * 2)
            return z
        return ops.ForiLoop()(0, 3, body, a).sum()
    return ms.grad(f)(x)


DUMP_PATH = os.path.join(tempfile.gettempdir(), "spore_adversarial_dump_gradient")


@ms.register_saved_tensors_hooks(lambda t: t * 1, lambda t: t)
def _saved_decorated(a):
    return (a * a * a).sum()


def _module_hook(g):
    return ops.clip_by_value(g * 3, -2.0, 2.0)


def hook_module_level_def(x):
    """A hook defined at module level (interpreted under Graph mode's rules, not run on tracers)."""
    def f(a):
        z = ops.sin(a)
        z.register_hook(_module_hook)
        return (z * a).sum()
    return ms.grad(f)(x)


def insert_gradient_printing(x):
    """f prints: PyNative prints each backward pass; a graph must not print a placeholder once."""
    def printing_half(g):
        print("gradient", g)
        return g * 0.5
    igo = ops.InsertGradientOf(printing_half)
    return ms.grad(lambda a: (igo(a * a) * 2).sum())(x)


# --- InsertGradientOf / HookBackward / DumpGradient ----------------------------------------------------
IGO_SCALE = ops.InsertGradientOf(lambda g: g * 0.25)


def insert_gradient_second_order(x):
    def f(a):
        return (IGO_SCALE(a * a) * a).sum()

    def df(a):
        return ms.grad(f)(a).sum()
    return ms.grad(df)(x)


def insert_gradient_no_grad(x):
    """Outside a grad, InsertGradientOf is an identity."""
    return IGO_SCALE(x) * 2


def insert_gradient_twice(x):
    """Two InsertGradientOf on one chain compose."""
    def f(a):
        return ops.InsertGradientOf(lambda g: g + 1)(IGO_SCALE(a * 3)).sum()
    return ms.grad(f)(x)


def _hook_two(grads):
    return grads[0] * 2, grads[1] * -1


HOOK_TWO = ops.HookBackward(_hook_two)


def hook_backward_two_inputs(x, y):
    def f(a, b):
        p, q = HOOK_TWO(a * 2, b * b)
        return (p * q).sum()
    return ms.grad(f, grad_position=(0, 1))(x, y)


def hook_backward_no_grad(x):
    """HookBackward outside a grad: an identity, still PyNative-only in a graph."""
    return ops.HookBackward(lambda g: None)(x) + 1


# --- loops -------------------------------------------------------------------------------------------
def fori_tuple_carry(x):
    return ops.ForiLoop()(0, 4, lambda i, s: (s[0] + s[1], s[1] * 0.5), (x, x * 2))


def fori_tensor_bounds_tuple(x, n):
    return ops.ForiLoop()(ops.zeros((), ms.int32), n, lambda i, s: (s[0] * 1.5, s[1] + s[0].sum()), (x, x[0]))


def fori_empty_range(x):
    return ops.ForiLoop()(3, 1, lambda i, v: v * 100, x)


def fori_empty_tensor_range(x, n):
    return ops.ForiLoop()(n, 2, lambda i, v: v * 100, x)


def fori_index_used(x, n):
    """The loop index takes part in the arithmetic (an int tensor in Graph mode, an int in PyNative)."""
    return ops.ForiLoop()(0, n, lambda i, v: v + i * 0.5, x)


def fori_index_divided(x, n):
    return ops.ForiLoop()(0, n, lambda i, v: v * (i + 1) / 2, x)


def fori_grad_static(x):
    def f(a):
        return ops.ForiLoop()(0, 3, lambda i, v: ops.sin(v) * a, a).sum()
    return ms.grad(f)(x)


def fori_grad_tensor_bound(x, n):
    def f(a):
        return ops.ForiLoop()(0, n, lambda i, v: v * a, a).sum()
    return ms.grad(f)(x)


def while_python_int_in_carry(x):
    """A Python int in a carry of a loop on a tensor condition counts the iterations in PyNative."""
    return ops.WhileLoop()(lambda s: s[1].sum() < 20.0, lambda s: (s[0] + 1, s[1] * 2.0), (0, x))


def fori_dtype_change(x, n):
    """The body turns an int carry into floats: PyNative's Python loop allows it."""
    return ops.ForiLoop()(0, n, lambda i, v: v * 1.5, x)


def fori_python_carry(x, n):
    """A Python float carry with a tensor bound."""
    return x + ops.ForiLoop()(0, n, lambda i, v: v + 1.0, 0.0)


def fori_float_bound(x, n):
    """A float tensor bound: truncated to an int in both modes."""
    return ops.ForiLoop()(0, n, lambda i, v: v + 1.0, x)


def scan_length_mismatch(x):
    return ops.Scan()(lambda c, e: (c + e, c), x[0], [x[0], x[1]], 3)


def while_tuple_carry(x):
    return ops.WhileLoop()(lambda s: s[1].sum() < 20.0, lambda s: (s[0] + 1, s[1] * 2.0), (x[0, 0] * 0, x))


def while_grad(x):
    def f(a):
        return ops.WhileLoop()(lambda v: v.sum() < 30.0, lambda v: v * 1.5 + a, a).sum()
    return ms.grad(f)(x)


def while_never_runs(x):
    return ops.WhileLoop()(lambda v: v.sum() > 1e9, lambda v: v * 0, x)


def scan_none_xs(x):
    carry, ys = ops.Scan()(lambda c, _: (c * 2, c.sum()), x, None, 3)
    return carry, ys[0], ys[1], ys[2]


def scan_tuple_carry(x):
    def step(c, row):
        return (c[0] + row, c[1] * row), c[0].sum()
    carry, ys = ops.Scan()(step, (x[0] * 0, x[0] * 0 + 1), x)
    return carry[0], carry[1], ys[1]


def scan_grad(x):
    def f(a):
        carry, ys = ops.Scan()(lambda c, row: (c * row + 1, (c * row).sum()), a[0] * 0 + 1, a)
        return carry.sum() + ys[-1]
    return ms.grad(f)(x)


def scan_ys_tuple(x):
    carry, ys = ops.Scan()(lambda c, row: (c + row, (row * 2, row.sum())), x[0] * 0, x)
    return carry, ys[0][0], ys[2][1]


# --- Assert --------------------------------------------------------------------------------------------
ASSERT2 = ops.Assert(2)


def assert_python_bool(x):
    ops.Assert()(True, (x, x * 2))
    return x * 3


def assert_data_dependent(x):
    ops.Assert(1)(ops.all(ops.abs(x) < 1e6), [x, x * 2])
    return x - 1


# --- higher order ----------------------------------------------------------------------------------------
def deriv3_tuple(x, y):
    return ops.derivative(lambda a, b: ops.sin(a) * ops.exp(b), (x, y), 3)[1]


def deriv1_poly(x):
    return ops.derivative(lambda a: a * a * a, x, 1)


def jet_tuple(x, y, sx, sy):
    return ops.jet(lambda a, b: a * ops.cos(b), (x, y), (sx, sy))


def linearize_two(x, y, vx, vy):
    out, f = ops.linearize(lambda a, b: ops.sin(a) * b, (x, y))
    return out, f((vx, vy)), f((vy, vx))


def _hooked_sin(a):
    z = a * 1.0
    z.register_hook(lambda g: g * 2)
    return ops.sin(z)


def derivative_of_hooked(x):
    """derivative of a function with a hook inside (each reverse pass of the series sees the hook)."""
    return ops.derivative(_hooked_sin, x, 2)[1]


def linearize_of_hooked(x, v):
    out, f = ops.linearize(_hooked_sin, (x,))
    return out, f(v)


def jet_of_hooked(x, s):
    return ops.jet(_hooked_sin, x, s)[1]


def derivative_int(x):
    """Integer primals are computed in float32 (as MindSpore does), in both modes."""
    return ops.derivative(lambda a: a * a * a, x, 2)


def jet_int(x, s):
    return ops.jet(lambda a: a * a, x, s)


def linearize_then_grad(x, v):
    """The linearized function's output differentiated again."""
    out, f = ops.linearize(lambda a: ops.sin(a) * a, (x,))
    return ms.grad(lambda t: (f(t) * t).sum())(v)


def grad_of_derivative(x):
    return ms.grad(lambda a: ops.derivative(ops.sin, a, 2)[1].sum())(x)


# --- user primitives ------------------------------------------------------------------------------------
class Cube(ops.PrimitiveWithInfer):
    """x ** 3 with MindSpore's infer_shape/infer_dtype and a vm impl; no bprop is given."""

    @ops.prim_attr_register
    def __init__(self):
        self.init_prim_io_names(inputs=["x"], outputs=["y"])

    def infer_shape(self, x_shape):
        return x_shape

    def infer_dtype(self, x_dtype):
        return x_dtype


class Halve(ops.PrimitiveWithInfer):
    """Halves x and returns float32 whatever the input dtype (infer_dtype says so)."""

    @ops.prim_attr_register
    def __init__(self):
        self.init_prim_io_names(inputs=["x"], outputs=["y"])

    def infer_shape(self, x_shape):
        return x_shape

    def infer_dtype(self, x_dtype):
        return ms.float32


def _register_impls():
    from spore.ops import primitive_helpers as ph

    @ph.vm_impl_registry.register("Cube")
    def _cube_impl(prim):
        return lambda x: x * x * x

    @ph.vm_impl_registry.register("Halve")
    def _halve_impl(prim):
        return lambda x: (x / 2).astype(np.float32)


_register_impls()
CUBE = Cube()
HALVE = Halve()


def user_prim_grad(x):
    """A user primitive without a bprop under grad: both modes must agree (or both refuse)."""
    return ms.grad(lambda a: CUBE(a).sum())(x)


def user_prim_int_to_float(x):
    return HALVE(x)


def user_prim_chain(x):
    return CUBE(HALVE(x)) + 1


# --- saved_tensors_hooks ---------------------------------------------------------------------------------
def saved_hooks_forward(x):
    with ms.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
        y = x * x
    return y + 1


def saved_hooks_grad(x):
    def f(a):
        with ms.saved_tensors_hooks(lambda t: t * 2, lambda t: t):
            y = a * a
        return y.sum()
    return ms.grad(f)(x)


# --- complex dtypes in Graph mode ------------------------------------------------------------------------
def cx(*shape: int, dt=np.complex64) -> G:
    """Complex values with standard-normal real and imaginary parts."""
    return G(lambda r: (r.standard_normal(shape) + 1j * r.standard_normal(shape)).astype(dt))


def complex_python_scalar(z):
    """A Python complex scalar keeps the tensor's precision in both modes."""
    return z * (0.1 + 0.7j) + 2j - 0.3


def complex_tensor_branch(z):
    if ops.abs(z).sum() > 3.0:
        z = z * 1j
    else:
        z = ops.conj(z)
    return z


def complex_fori_tensor_bound(z, n):
    return ops.ForiLoop()(0, n, lambda i, v: v * (0.5 + 0.5j) + 1, z)


def complex_while(z):
    return ops.WhileLoop()(lambda v: ops.abs(v).sum() < 40.0, lambda v: v * (1.5 - 0.5j), z)


def complex_scan(z):
    carry, ys = ops.Scan()(lambda c, row: (c * row, ops.real(c).sum()), z[0] * 0 + 1, z)
    return carry, ys[-1]


def complex_grad_through_fft(x):
    """A real loss of a complex intermediate, differentiated w.r.t. the real input."""
    def f(a):
        z = ops.Complex()(a, a * 2)
        return ops.abs(ops.fft(z)).sum()
    return ms.grad(f)(x)


def complex_hooked_grad(x):
    """A hook on a complex intermediate (gradient scaled by a complex number)."""
    def f(a):
        z = ops.Complex()(a, a * a)
        z.register_hook(lambda g: g * (0.5 - 1j))
        return ops.real(z * ops.conj(z)).sum() + ops.imag(z * 3j).sum()
    return ms.grad(f)(x)


def complex_setitem(z):
    w = z * 1
    w[0] = 1 + 2j
    return w


def complex_reductions(z):
    return z.sum(), z.mean(), ops.prod(z, 0), (z == ops.conj(z)).any()


def complex_mixed_precision(z, x):
    """complex128 with float32: the result is complex128 in both modes."""
    return z * x, z + x.astype(ms.float64)


def complex_roundtrip(x):
    return ops.real(ops.ifft(ops.fft(x))), ops.irfft(ops.rfft(x), n=x.shape[-1])


def complex_view_as_real_grad(x):
    def f(a):
        z = ops.Complex()(ops.sin(a), a)
        return (ops.view_as_real(z * z) ** 2).sum()
    return ms.grad(f)(x)


def complex_grad_through_fori(z, n):
    """The gradient w.r.t. a complex input through a loop on a tensor bound."""
    def f(t):
        return ops.real(ops.ForiLoop()(0, n, lambda i, v: v * t * 0.5, t) * ops.conj(t)).sum()
    return ms.grad(f)(z)


def complex_grad_through_branch(z):
    def f(t):
        if ops.abs(t).sum() > 3.0:
            w = t * t
        else:
            w = t * 1j
        return ops.abs(w).sum()
    return ms.grad(f)(z)


def complex_hook_on_complex_input(z):
    """A hook on a complex input of the differentiated function."""
    def f(t):
        t.register_hook(lambda g: g * (1 + 1j))
        return ops.real(t * t).sum()
    return ms.grad(f)(z)


@_functions
def _adversarial_functions() -> list:
    return [
        C("ops.derivative[3rd, tuple]", deriv3_tuple, fl(3), fl(3)),
        C("ops.derivative[1st, value too]", deriv1_poly, fl(2, 3)),
        C("ops.jet[tuple primals]", jet_tuple, fl(3), fl(3), fl(2, 3), fl(2, 3)),
        C("ops.linearize[two inputs, two tangents]", linearize_two, fl(3), fl(3), fl(3), fl(3)),
        C("ops.derivative[under grad]", grad_of_derivative, fl(4)),
        C("ops.derivative[hooked function]", derivative_of_hooked, fl(3)),
        C("ops.derivative[int primal]", derivative_int, const(np.array([1, -2, 3], np.int32))),
        C("ops.jet[int primal]", jet_int, const(np.array([2, 3], np.int32)), fl(2, 2)),
        C("ops.linearize[then grad]", linearize_then_grad, fl(3), fl(3)),
        C("ops.linearize[hooked function]", linearize_of_hooked, fl(3), fl(3)),
        C("ops.jet[hooked function]", jet_of_hooked, fl(3), fl(2, 3)),
        C("ops.conj[complex, tensor branch]", complex_tensor_branch, cx(3)),
        C("ops.abs[complex grad through a tensor branch]", complex_grad_through_branch, cx(3)),
        C("ops.fft[grad of a complex intermediate]", complex_grad_through_fft, fl(6)),
        C("ops.prod[complex, with other reductions]", complex_reductions, cx(3, 2)),
        C("ops.ifft[roundtrip with rfft/irfft]", complex_roundtrip, fl(2, 6)),
        C("ops.view_as_real[grad]", complex_view_as_real_grad, fl(4)),
    ]


@_classes
def _adversarial_classes() -> list:
    return [
        K("InsertGradientOf[second order]", insert_gradient_second_order, fl(3)),
        K("InsertGradientOf[no grad]", insert_gradient_no_grad, fl(2, 3)),
        K("InsertGradientOf[twice]", insert_gradient_twice, fl(2, 3)),
        K("InsertGradientOf[print in f]", insert_gradient_printing, fl(3)),
        K("HookBackward[two inputs]", hook_backward_two_inputs, fl(3), fl(3)),
        K("HookBackward[no grad]", hook_backward_no_grad, fl(3)),
        K("ForiLoop[tuple carry]", fori_tuple_carry, fl(2, 3)),
        K("ForiLoop[tensor bounds, tuple carry]", fori_tensor_bounds_tuple, fl(2, 3), const(np.int32(3))),
        K("ForiLoop[empty range]", fori_empty_range, fl(3)),
        K("ForiLoop[empty tensor range]", fori_empty_tensor_range, fl(3), const(np.int64(5))),
        K("ForiLoop[index in body]", fori_index_used, fl(3), const(np.int64(4))),
        K("ForiLoop[index divided]", fori_index_divided, fl(3), const(np.int64(4))),
        K("ForiLoop[grad, static]", fori_grad_static, fl(3)),
        K("ForiLoop[grad, tensor bound]", fori_grad_tensor_bound, fl(3), const(np.int64(3))),
        K("ForiLoop[outer write in body]", write_in_fori_tensor_bound, fl(3), const(np.int64(3))),
        K("ForiLoop[complex carry, tensor bound]", complex_fori_tensor_bound, cx(3), const(np.int64(3))),
        K("WhileLoop[complex carry]", complex_while, cx(3)),
        K("Scan[complex]", complex_scan, cx(3, 2)),
        K("Complex[hooked, grad]", complex_hooked_grad, fl(3)),
        K("ForiLoop[complex grad, tensor bound]", complex_grad_through_fori, cx(3), const(np.int64(2))),
        K("DumpGradient[in a tensor-bounded loop]", dump_in_tensor_loop, fl(3), const(np.int64(2))),
        K("WhileLoop[Python int in the carry]", while_python_int_in_carry, fl(3, lo=0.5, hi=1.0)),
        K("ForiLoop[body changes the dtype]", fori_dtype_change, const(np.array([1, 2, 3], np.int32)),
          const(np.int64(3))),
        K("ForiLoop[Python carry, tensor bound]", fori_python_carry, fl(3), const(np.int64(3))),
        K("ForiLoop[float tensor bound]", fori_float_bound, fl(3), const(np.float32(2.7))),
        K("Scan[length mismatch]", scan_length_mismatch, fl(3)),
        K("WhileLoop[tuple carry]", while_tuple_carry, fl(2, 2, lo=0.5, hi=1.0)),
        K("WhileLoop[grad]", while_grad, fl(3, lo=0.5, hi=1.0)),
        K("WhileLoop[never runs]", while_never_runs, fl(3)),
        K("Scan[xs None]", scan_none_xs, fl(3)),
        K("Scan[tuple carry]", scan_tuple_carry, fl(3, 2)),
        K("Scan[grad]", scan_grad, fl(3, 2)),
        K("Scan[ys tuples]", scan_ys_tuple, fl(3, 2)),
        K("Assert[fails]", ASSERT2, const(np.bool_(False)), fl(3)),  # raises when the graph runs, in both modes
        K("Assert[python bool]", assert_python_bool, fl(3)),
        K("Assert[data dependent]", assert_data_dependent, fl(2, 2)),
        K("PrimitiveWithInfer[grad, no bprop]", user_prim_grad, fl(3)),
        K("PrimitiveWithInfer[int in, float out]", user_prim_int_to_float, const(np.arange(4, dtype=np.int32))),
        K("PrimitiveWithInfer[chain]", user_prim_chain, fl(2, 2)),
    ]


def adversarial_tensor_cases() -> list:
    """Tensor.register_hook / hooks and saved_tensors_hooks (gathered by cases_autodiff_api)."""
    return [
        C("Tensor.register_hook[on the loss]", hook_on_loss, fl(3)),
        C("Tensor.register_hook[aux output]", hook_with_aux, fl(3)),
        C("Tensor.register_hook[value_and_grad, 2 inputs]", hook_value_and_grad, fl(3), fl(3)),
        C("Tensor.register_hook[second order]", hook_second_order, fl(3)),
        C("Tensor.register_hook[closure tensor]", hook_closes_over_tensor, fl(3), fl(3)),
        C("Tensor.register_hook[tensor branch]", hook_in_tensor_branch, fl(3)),
        C("Tensor.register_hook[returns None]", hook_returns_none, fl(3)),
        C("Tensor.register_hook[changes the dtype]", hook_changes_dtype, fl(3)),
        C("Tensor.register_hook[not callable]", hook_not_callable, fl(3)),
        C("Tensor.register_hook[module-level def]", hook_module_level_def, fl(3)),
        C("Tensor.register_hook[handle.remove()]", hook_handle_remove, fl(3)),
        C("Tensor.register_hook[in a tensor-bounded loop body]", hook_in_tensor_loop_body, fl(3),
          const(np.int64(3))),
        C("Tensor.register_hook[register_saved_tensors_hooks]", saved_hooks_decorator, fl(3)),
        C("Tensor.hooks[hooked on one path]", hook_in_branch_then_count, fl(3)),
        C("Tensor.register_hook[branch with return]", hook_in_branch_with_return, fl(3)),
        C("Tensor.add_[in a tensor branch]", write_in_branch, fl(3)),
        C("Tensor.mul_[input, in a tensor branch]", write_input_in_branch, fl(3)),
        C("Tensor.add_[tensor branch with return]", write_in_branch_with_return, fl(3)),
        C("Tensor.sub_[nested tensor branches]", write_in_nested_branches, fl(3)),
        C("Tensor.add_[in a tensor while]", write_in_tensor_while, fl(3)),
        C("Tensor.__setitem__[in a tensor branch]", setitem_in_branch, fl(3)),
        C("Tensor.mul_[add_ on the other path]", writes_on_both_paths, fl(3)),
        C("Tensor.add_[alias sees the write]", write_seen_by_alias, fl(3)),
        C("Tensor.sub_[elif chain]", writes_in_elif_chain, fl(3)),
        C("Tensor.sub_[tensor if in a Python loop]", tensor_if_in_python_loop, fl(3)),
        C("Tensor.set_dtype[in a tensor branch]", dtype_set_in_branch, fl(3)),
        C("Tensor.register_hook[in loop body]", hooked_loop_body, fl(3)),
        C("Tensor.register_hook[input, 2x2]", hook_on_input_twice_grads, fl(2, 2)),
        C("Tensor.hooks[after a grad]", hook_then_hooks_count, fl(3)),
        C("Tensor.register_hook[input of nested grads]", hook_on_input_nested_grads, fl(3)),
        C("Tensor.__mul__[complex python scalar]", complex_python_scalar, cx(3)),
        C("Tensor.__mul__[complex128 x float32]", complex_mixed_precision, cx(3, dt=np.complex128), fl(3)),
        C("Tensor.__setitem__[complex value]", complex_setitem, cx(3)),
        C("Tensor.register_hook[complex input]", complex_hook_on_complex_input, cx(3)),
        C("Tensor.register_hook[saved_tensors_hooks forward]", saved_hooks_forward, fl(3)),
        C("Tensor.register_hook[saved_tensors_hooks grad]", saved_hooks_grad, fl(3)),
    ]
