"""The primitive-definition helpers (issue 14): a user PrimitiveWithInfer/PrimitiveWithCheck with
prim_attr_register/prim_arg_register runs its rules, its registered implementation and its bprop;
MultitypeFuncGraph, HyperMap, Map, Partial, PyFunc, Morph, custom_info_register, get_vm_impl_fn,
MapUniform, SubAndFilter, ms.enable_dynamic and nn.no_init_parameters, against NumPy and
finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import nn, ops
from spore.errors import SporeError
from spore.ops import primitive_helpers as ph


def T(a, dt=np.float32):
    return ms.Tensor(np.asarray(a, dt))


class Axpy(ops.PrimitiveWithInfer):
    """alpha * x + y, as a MindSpore user primitive."""

    @ops.prim_attr_register
    def __init__(self, alpha=1.0):
        self.init_prim_io_names(inputs=["x", "y"], outputs=["out"])

    def infer_shape(self, x_shape, y_shape):
        if x_shape != y_shape:
            raise ValueError(f"Axpy: shapes differ {x_shape} {y_shape}")
        return x_shape

    def infer_dtype(self, x_dtype, y_dtype):
        return x_dtype


@ph.vm_impl_registry.register(Axpy)
def _axpy_impl(prim):
    return lambda x, y: x * prim.alpha + y


class Cube(ops.PrimitiveWithCheck):
    @ops.prim_arg_register
    def __init__(self, scale=1.0):
        pass

    def check_dtype(self, x_dtype):
        if not x_dtype.is_float:
            raise TypeError("Cube: float input needed")


@ph.vm_impl_registry.register("Cube")
def _cube_impl(prim):
    return lambda x: x * x * x * prim.scale


@ph.bprop_getters.register("Cube")
def _cube_bprop(prim):
    return lambda x, out, dout: (dout * 7.0,)  # deliberately not 3x^2: shows the bprop is used


def test_user_primitive_attrs_rules_and_impl():
    op = Axpy(2.5)
    assert op.name == "Axpy" and op.alpha == 2.5 and op.attrs["alpha"] == 2.5
    assert op.attrs["input_names"] == ["x", "y"] and op.init_attrs == {"alpha": 2.5}
    xv, yv = np.array([1.0, 2.0], np.float32), np.array([0.5, -1.0], np.float32)
    np.testing.assert_allclose(op(T(xv), T(yv)).asnumpy(), 2.5 * xv + yv)
    with pytest.raises(ValueError, match="shapes differ"):
        op(T(xv), T([1.0]))
    g = ms.grad(lambda a: op(a, a).sum())(T(xv))  # no bprop registered: the impl's ops are differentiated
    np.testing.assert_allclose(g.asnumpy(), [3.5, 3.5])
    assert "alpha=2.5" in repr(op)


def test_prim_arg_register_and_registered_bprop():
    op = Cube(2.0)
    assert op.scale == 2.0 and op.init_attrs == {"scale": 2.0} and "scale" not in op.attrs
    xv = np.array([1.0, -2.0], np.float32)
    np.testing.assert_allclose(op(T(xv)).asnumpy(), 2 * xv ** 3)
    np.testing.assert_allclose(ms.grad(lambda a: op(a).sum())(T(xv)).asnumpy(), [7.0, 7.0])
    with pytest.raises(TypeError, match="float input"):
        op(T([1], np.int32))


def test_primitive_without_implementation_says_how_to_add_one():
    class Nothing(ops.PrimitiveWithInfer):
        @ops.prim_attr_register
        def __init__(self):
            pass

    with pytest.raises(SporeError, match="vm_impl_registry"):
        Nothing()(T([1.0]))


def test_infer_value_short_cuts_the_call():
    class Const(ops.PrimitiveWithInfer):
        @ops.prim_attr_register
        def __init__(self):
            pass

        def infer_value(self, x):
            return np.asarray(x) * 0 + 42

    assert Const()(T([1.0, 2.0])).asnumpy().tolist() == [42.0, 42.0]


def test_get_vm_impl_fn_and_custom_info_register():
    np.testing.assert_allclose(ops.get_vm_impl_fn(Axpy(3.0))(T([1.0]), T([1.0])).asnumpy(), [4.0])
    np.testing.assert_allclose(ops.get_vm_impl_fn("Neg")(T([1.0, -2.0])).asnumpy(), [-1.0, 2.0])
    assert ops.get_vm_impl_fn("NoSuchPrimitive") is None

    @ops.custom_info_register({"op_name": "A"}, '{"op_name": "B"}')
    def f(x):
        return x

    assert f.reg_info == [{"op_name": "A"}, '{"op_name": "B"}'] and f(3) == 3


def test_multitype_func_graph_dispatches_on_types():
    add = ops.MultitypeFuncGraph("add")

    @add.register("Number", "Number")
    def _nn(a, b):
        return ("numbers", a + b)

    @add.register("Tensor", "Tensor")
    def _tt(a, b):
        return ops.add(a, b)

    assert add(1, 2) == ("numbers", 3)
    np.testing.assert_allclose(add(T([1.0]), T([2.0])).asnumpy(), [3.0])
    with pytest.raises(TypeError, match="no implementation for argument types"):
        add("a", 1)


def test_hypermap_map_and_partial():
    mul = ops.HyperMap(ops.mul)
    out = mul((T([1.0]), [T([2.0]), T([3.0])]), (T([4.0]), [T([5.0]), T([6.0])]))
    assert isinstance(out, tuple) and isinstance(out[1], list)
    assert [float(t.asnumpy()[0]) for t in (out[0], *out[1])] == [4.0, 10.0, 18.0]
    order = []
    ops.Map(reverse=True)(lambda a: order.append(a), [1, 2, 3])
    assert order == [3, 2, 1]
    assert ops.Map(lambda a, b: a - b)((5, 6), (1, 2)) == (4, 4)
    assert ops.HyperMap()(lambda a: a * 2, {"a": 1, "b": (2, 3)}) == {"a": 2, "b": (4, 6)}
    assert ops.Partial()(lambda a, b, c: a * 100 + b * 10 + c, 1, 2)(3) == 123


CUMSUM = ops.PyFunc(lambda a: (np.cumsum(a, 0), a.max()), [ms.float32], [(3,)], [ms.float32, ms.float32],
                    [(3,), ()])


def _cumsum_first(x):
    return CUMSUM(x)[0]


def test_pyfunc_runs_numpy_and_checks_outputs():
    f = CUMSUM
    c, m = f(T([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(c.asnumpy(), [1.0, 3.0, 6.0])
    assert float(m.asnumpy()) == 3.0
    np.testing.assert_allclose(ms.jit(_cumsum_first, fullgraph=True)(T([1.0, 1.0, 1.0])).asnumpy(), [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="in_types/in_shapes"):
        f(T([1.0, 2.0]))
    bad = ops.PyFunc(lambda a: (a[:1],), [ms.float32], [(3,)], [ms.float32], [(3,)])
    with pytest.raises(SporeError, match="out_shapes"):
        bad(T([1.0, 2.0, 3.0]))


def test_morph_with_and_without_bprop():
    plain = ops.Morph(lambda x: x * x, lambda s: s, lambda d: d)
    custom = ops.Morph(lambda x: x * x, lambda s: s, lambda d: d, lambda x, out, dout: (dout * x * 10,))
    xv = np.array([1.0, -3.0], np.float32)
    np.testing.assert_allclose(plain(T(xv)).asnumpy(), xv * xv)
    np.testing.assert_allclose(ms.grad(lambda a: plain(a).sum())(T(xv)).asnumpy(), 2 * xv)
    np.testing.assert_allclose(ms.grad(lambda a: custom(a).sum())(T(xv)).asnumpy(), 10 * xv)
    wrong = ops.Morph(lambda x: x * x, lambda s: [9], lambda d: d)
    with pytest.raises(SporeError, match="infer_shape said"):
        wrong(T(xv))


def test_map_uniform_and_sub_and_filter_match_mindspores_examples():
    out = ops.MapUniform()(T(np.arange(8), np.int64), 4, 2)
    assert out.asnumpy().tolist() == [0, 4, 1, 5, 2, 6, 3, 7]
    k = np.arange(20)
    np.testing.assert_array_equal(ops.MapUniform()(T(k, np.int32), 5, 4).asnumpy(), k % 4 * 5 + k // 4)
    res, idx = ops.SubAndFilter()(T([1, 3, 5, 8, 9, 16], np.int32), 10, 5)
    assert res.asnumpy().tolist() == [0, 3, 4] and idx.asnumpy().tolist() == [2, 3, 4]
    assert res.dtype is ms.int32
    with pytest.raises(TypeError, match="integer tensor"):
        ops.MapUniform()(T([1.0]), 2, 2)


def test_enable_dynamic_and_no_init_parameters():
    @ms.enable_dynamic(x=ms.Tensor(np.zeros((1, 3), np.float32)))
    def f(x):
        return x * 2

    assert "x" in f.__spore_dynamic__ and f(T([1.0])).asnumpy().tolist() == [2.0]
    with pytest.raises(ValueError, match="not a parameter"):
        ms.enable_dynamic(y=ms.Tensor([1.0]))(f)
    ms.set_seed(5)
    with nn.no_init_parameters():
        a = nn.Dense(3, 2)
    ms.set_seed(5)
    b = nn.Dense(3, 2)
    np.testing.assert_array_equal(a.weight.asnumpy(), b.weight.asnumpy())
    assert set(a.init_parameters_data()) == set(a.get_parameters())


def test_mindspores_documented_user_primitives_run_on_spores_kernels():
    class Add(ops.PrimitiveWithInfer):  # MindSpore's PrimitiveWithInfer example
        @ops.prim_attr_register
        def __init__(self):
            pass

        def infer_shape(self, x, y):
            return x

        def infer_dtype(self, x, y):
            return x

    class Flatten(ops.PrimitiveWithCheck):  # MindSpore's PrimitiveWithCheck example
        @ops.prim_attr_register
        def __init__(self):
            pass

        def check_shape(self, input_x):
            if len(input_x) < 1:
                raise ValueError("Flatten: rank >= 1 needed")

    class ReduceSum(ops.PrimitiveWithInfer):  # an attribute that reaches Spore's class form
        @ops.prim_attr_register
        def __init__(self, keep_dims=False):
            pass

        def infer_shape(self, x, axis):
            return [1, x[1]] if self.keep_dims else [x[1]]

    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(Add()(T(xv), T(xv)).asnumpy(), 2 * xv)
    assert Flatten()(T(np.ones((2, 3, 4)))).shape == (2, 12)
    np.testing.assert_allclose(ReduceSum(True)(T(xv), 0).asnumpy(), xv.sum(0, keepdims=True))
    with pytest.raises(ValueError, match="rank >= 1"):
        Flatten()(T(np.float32(1.0)))
