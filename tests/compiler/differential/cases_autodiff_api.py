"""Differential cases (Graph vs PyNative) for the autodiff slice of issue 14: gradient hooks,
functional control flow (ForiLoop/WhileLoop/Scan/Assert), higher-order derivatives
(derivative/jet/linearize), and the primitive-definition helpers (PrimitiveWithInfer, HyperMap,
PyFunc, Morph, ...).

Each helper below is user code Graph mode compiles. The hooks that MindSpore documents as
PyNative-only (HookBackward) and removing a hook inside a graph must be refused on the helper's
line in Graph mode; the rest (Tensor.register_hook and DumpGradient included) must give identical
results."""

from __future__ import annotations

import os
import tempfile

import numpy as np

import spore as ms
from spore import ops
from spore.ops import primitive_helpers as ph

from .cases_ops import K, _classes, _functions
from .cases_tensor_nn import C, G, fl


def const(a) -> G:
    a = np.asarray(a)
    return G(lambda r: a.copy())


# --- functions -------------------------------------------------------------------------------------------
def deriv2(x):
    return ops.derivative(ops.sin, x, 2)[1]


def jet2(x, s):
    return ops.jet(ops.exp, x, s)[1]


def linearized(x, v):
    out, f = ops.linearize(lambda a: a * a * a, (x,))
    return out, f(v)


def stopped(x):
    y = x * 2
    ops.stop_gradient_(y)
    return y + 1


def grad_by_id(x):
    res = ms.grad(lambda a: (a * a).sum(), 0, return_ids=True)(x)
    return ops.get_grad(res, 0)


class Scale(ops.PrimitiveWithInfer):
    """A user primitive: ``x * factor``, shape and dtype of x, implemented through vm_impl_registry."""

    @ops.prim_attr_register
    def __init__(self, factor=2.0):
        self.init_prim_io_names(inputs=["x"], outputs=["y"])

    def infer_shape(self, x_shape):
        return x_shape

    def infer_dtype(self, x_dtype):
        return x_dtype


@ph.vm_impl_registry.register("Scale")
def _scale_impl(prim):
    return lambda x: x * prim.factor


class Shift(ops.PrimitiveWithCheck):
    """A user primitive with an init argument recorded by prim_arg_register."""

    @ops.prim_arg_register
    def __init__(self, by=1.0):
        pass

    def check_shape(self, x_shape):
        if len(x_shape) > 3:
            raise ValueError("Shift: at most 3-D")


@ph.vm_impl_registry.register("Shift")
def _shift_impl(prim):
    return lambda x: x + prim.by


SCALE = Scale(3.0)
SHIFT = Shift(0.5)


def user_prim(x):
    return SCALE(x)


def user_prim_check(x):
    return SHIFT(x)


@ops.custom_info_register({"op_name": "TwiceOp", "imply_type": "CPU"})
def twice(x):
    return x * 2


def registered(x):
    return twice(x) + len(twice.reg_info)


def vm_impl_of(x):
    return ops.get_vm_impl_fn("Scale")(SCALE)(x)


# --- classes ---------------------------------------------------------------------------------------------
def fori(x):
    return ops.ForiLoop()(0, 3, lambda i, v: v * 2 + i, x)


def fori_tensor(x, n):
    return ops.ForiLoop()(0, n, lambda i, v: v + 1.0, x)


def while_tensor(x):
    return ops.WhileLoop()(lambda v: v.sum() < 50.0, lambda v: v * 2.0, x)


def while_static(x):
    return ops.WhileLoop()(lambda s: s[0] < 4, lambda s: (s[0] + 1, s[1] * 1.5), (0, x))[1]


def scan_list(a, b, c):
    def step(carry, el):
        carry = carry + el
        return carry, carry * 2
    carry, ys = ops.Scan()(step, a * 0, [a, b, c])
    return carry, ys[0], ys[2]


def scan_tensor(x):
    carry, ys = ops.Scan()(lambda c, row: (c + row, c.sum()), x[0] * 0, x)
    return carry, ys[-1]


def assert_true(x):
    ops.Assert(2)(x.sum() > -1000.0, [x])
    return x + 1


def _hook(grads):
    return (grads[0] * 3,)


HOOK = ops.HookBackward(_hook)


def hook_backward(x):
    return ms.grad(lambda a: (HOOK(a * a) * 2).sum())(x)


IGO = ops.InsertGradientOf(lambda g: ops.clip_by_value(g, -1.0, 1.0))


def insert_gradient(x):
    return ms.grad(lambda a: (IGO(a * 3) * a).sum())(x)


DUMP_PATH = os.path.join(tempfile.gettempdir(), "spore_differential_dump_gradient")


def dump_gradient(x):
    return ms.grad(lambda a: (ops.DumpGradient()(DUMP_PATH, a * a, "out") * 3).sum())(x)


ADD = ops.MultitypeFuncGraph("add")


@ADD.register("Tensor", "Tensor")
def _add_tt(a, b):
    return a + b


@ADD.register("Tensor", "Number")
def _add_tn(a, b):
    return a * b


def multitype(x, y):
    return ADD(x, y), ADD(x, 3.0)


def hypermap(x, y):
    out = ops.HyperMap(lambda a, b: a * b)((x, (y, x)), (y, (x, x)))
    return out[0], out[1][0], out[1][1]


def mapped(x, y):
    out = ops.Map()(lambda a, b: a - b, [x, y], [y, x])
    return out[0], out[1]


def partial_fn(x, y):
    f = ops.Partial()(ops.mul, x)
    return f(y)


PYF = ops.PyFunc(lambda a, b: (np.tanh(a) + b,), [ms.float32, ms.float32], [(3, 4), (3, 4)], [ms.float32],
                 [(3, 4)])


def pyfunc(x, y):
    return PYF(x, y)[0]


def _morph_bprop(x, out, dout):
    return (dout * 10.0,)


MORPH = ops.Morph(lambda x: x * x, lambda s: s, lambda d: d, _morph_bprop)


def morph_grad(x):
    return MORPH(x), ms.grad(lambda a: MORPH(a).sum())(x)


def map_uniform(x):
    return ops.MapUniform()(x, 4, 2)


def sub_and_filter(x):
    return ops.SubAndFilter()(x, 10, 5)


# --- Tensor methods --------------------------------------------------------------------------------------
def hooked_grad(x):
    def f(a):
        z = a * a
        z.register_hook(lambda g: g * 2)
        return (z * a).sum()
    return ms.grad(f)(x)


def hook_removed(x):
    def f(a):
        z = a * 3
        h = z.register_hook(lambda g: g * 100)
        z.remove_hook(h)
        return (z * z).sum()
    return ms.grad(f)(x)


def hooks_listed(x):
    z = x * 2
    return z + len(z.hooks())


def hook_on_input(x):
    """A hook on the function's own input rescales the gradient it receives."""
    def f(a):
        a.register_hook(lambda g: g * 0.5)
        return (ops.sin(a) * a).sum()
    return ms.grad(f)(x)


def hooks_chained(x):
    """Two tensors hooked along one chain: both hooks apply, in order."""
    def f(a):
        y = a * 2
        y.register_hook(lambda g: g + 1)
        z = ops.exp(y)
        z.register_hook(lambda g: g * 3)
        return z.sum()
    return ms.grad(f)(x)


def hook_removed_keeps_other(x):
    """Removing one hook leaves the other tensor's hook in place."""
    def f(a):
        y = a * a
        h = y.register_hook(lambda g: g * 10)
        w = y + a
        w.register_hook(lambda g: g * 2)
        y.remove_hook(h)
        return (w * w).sum()
    return ms.grad(f)(x)


def hooks_after_register(x):
    z = x + 1
    z.register_hook(lambda g: g)
    return z * len(z.hooks())


def hooks_on_fresh_tensor(x):
    return ops.cos(x) + len(ops.cos(x).hooks())


@_functions
def _autodiff_functions() -> list:
    return [
        C("ops.derivative[2nd of sin]", deriv2, fl(3, 4)),
        C("ops.jet[exp]", jet2, fl(2, 3), fl(2, 2, 3)),
        C("ops.linearize[cube]", linearized, fl(3, 4), fl(3, 4)),
        C("ops.stop_gradient_[0]", stopped, fl(3, 4)),
        C("ops.get_grad[position]", grad_by_id, fl(3, 4)),
        C("ops.prim_attr_register[user primitive]", user_prim, fl(3, 4)),
        C("ops.prim_arg_register[user primitive]", user_prim_check, fl(3, 4)),
        C("ops.custom_info_register[0]", registered, fl(3, 4)),
        C("ops.get_vm_impl_fn[registered]", vm_impl_of, fl(3, 4)),
    ]


@_classes
def _autodiff_classes() -> list:
    return [
        K("ForiLoop[static bounds]", fori, fl(3, 4)),
        K("ForiLoop[tensor bound]", fori_tensor, fl(3, 4), const(np.int64(4))),
        K("WhileLoop[tensor condition]", while_tensor, fl(3, 4, lo=0.5, hi=1.0)),
        K("WhileLoop[static condition]", while_static, fl(3, 4)),
        K("Scan[list]", scan_list, fl(3), fl(3), fl(3)),
        K("Scan[tensor rows]", scan_tensor, fl(3, 4)),
        K("Assert[holds]", assert_true, fl(3, 4)),
        K("HookBackward[grad]", hook_backward, fl(3, 4)),
        K("InsertGradientOf[clip]", insert_gradient, fl(3, 4)),
        K("DumpGradient[grad]", dump_gradient, fl(3, 4)),
        K("PrimitiveWithInfer[vm impl]", user_prim, fl(2, 3)),
        K("PrimitiveWithCheck[vm impl]", user_prim_check, fl(2, 3)),
        K("MultitypeFuncGraph[dispatch]", multitype, fl(3, 4), fl(3, 4)),
        K("HyperMap[nested]", hypermap, fl(3, 4), fl(3, 4)),
        K("Map[lists]", mapped, fl(3, 4), fl(3, 4)),
        K("Partial[mul]", partial_fn, fl(3, 4), fl(3, 4)),
        K("PyFunc[numpy]", pyfunc, fl(3, 4), fl(3, 4)),
        K("Morph[bprop]", morph_grad, fl(3, 4)),
        K("MapUniform[0]", map_uniform, const(np.arange(8, dtype=np.int32))),
        K("SubAndFilter[0]", sub_and_filter, const(np.array([1, 3, 5, 8, 9, 16], np.int32))),
    ]


def autodiff_tensor_cases() -> list:
    """Tensor.register_hook / remove_hook / hooks (with the adversarial ones of cases_adversarial_today)."""
    from .cases_adversarial_today import adversarial_tensor_cases

    return adversarial_tensor_cases() + [
        C("Tensor.register_hook[grad]", hooked_grad, fl(3, 4)),
        C("Tensor.remove_hook[grad]", hook_removed, fl(3, 4)),
        C("Tensor.hooks[count]", hooks_listed, fl(3, 4)),
        C("Tensor.register_hook[input]", hook_on_input, fl(3, 4)),
        C("Tensor.register_hook[chain]", hooks_chained, fl(2, 5)),
        C("Tensor.remove_hook[keeps other]", hook_removed_keeps_other, fl(3, 4)),
        C("Tensor.remove_hook[before use]", hook_removed, fl(2, 2)),
        C("Tensor.hooks[after register]", hooks_after_register, fl(3, 4)),
        C("Tensor.hooks[fresh]", hooks_on_fresh_tensor, fl(2, 3)),
    ]


