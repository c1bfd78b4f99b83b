"""Elementwise math, activations, comparisons and reductions against NumPy oracles: values, dtypes,
keepdims and MindSpore's signatures, through the functional API, Tensor methods/operators and the
class forms; plus the gradient behaviours the finite-difference sweep cannot pin (ties, zeros,
higher order) and the errors users see."""

import math

import numpy as np
import pytest

import spore as ms
from spore import ops
from spore.common.dtype import from_numpy
from spore.errors import DTypeError, ShapeError
from spore.ops.primitive import REGISTRY

rng = np.random.default_rng(1234)


def T(a, dtype=None):
    return ms.Tensor(a, dtype)  # lists of floats become float32, arrays keep their dtype


def x32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def close(t, ref, dtype=None, rtol=1e-5, atol=1e-6):
    got = t.asnumpy() if isinstance(t, ms.Tensor) else np.asarray(t)
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol)
    if dtype is not None:
        assert t.dtype is dtype, f"dtype {t.dtype}, want {dtype}"


# --- elementwise math -----------------------------------------------------------------------------

_erf = np.vectorize(math.erf)
UNARY = [
    ("abs", np.abs, x32(3, 4)), ("sqrt", np.sqrt, np.abs(x32(3, 4))), ("rsqrt", lambda a: 1 / np.sqrt(a),
                                                                        np.abs(x32(5)) + 0.1),
    ("square", np.square, x32(3, 4)), ("reciprocal", np.reciprocal, x32(4) + 3), ("sin", np.sin, x32(5)),
    ("cos", np.cos, x32(5)), ("tan", np.tan, x32(5)), ("atan", np.arctan, x32(5)), ("sinh", np.sinh, x32(5)),
    ("cosh", np.cosh, x32(5)), ("tanh", np.tanh, x32(5)), ("erf", _erf, x32(6)), ("log1p", np.log1p, np.abs(x32(5))),
    ("expm1", np.expm1, x32(5)), ("log2", np.log2, np.abs(x32(5)) + 0.1), ("log10", np.log10, np.abs(x32(5)) + 0.1),
    ("exp", np.exp, x32(5)), ("log", np.log, np.abs(x32(5)) + 0.1),
    ("sign", np.sign, np.array([-2.0, 0, 3], np.float32)),
    ("floor", np.floor, 3 * x32(6)), ("ceil", np.ceil, 3 * x32(6)), ("trunc", np.trunc, 3 * x32(6)),
    ("round", np.round, np.array([0.5, 1.5, 2.5, -0.5, -1.7], np.float32)),
]


@pytest.mark.parametrize("name,ref,a", UNARY, ids=[u[0] for u in UNARY])
def test_unary_math_matches_numpy_and_keeps_float32(name, ref, a):
    out = getattr(ops, name)(T(a))
    close(out, ref(a.astype(np.float64)), ms.float32, rtol=2e-6)
    close(getattr(T(a), name)(), ref(a.astype(np.float64)), ms.float32, rtol=2e-6)  # Tensor method


def test_transcendental_ops_compute_integers_in_float32():
    i = T([1, 4, 9])
    close(ops.sqrt(i), [1, 2, 3], ms.float32)
    close(ops.exp(T([0, 1])), [1, math.e], ms.float32)
    close(ops.sin(T([True, False])), [math.sin(1), 0], ms.float32)
    assert ops.abs(T([-3, 2])).dtype is ms.int64 and ops.square(T([-3, 2], ms.int32)).dtype is ms.int32
    assert ops.floor(T([3, -2])).dtype is ms.int64  # integers are already whole


def test_float64_and_float16_are_kept():
    a = np.abs(x32(4)) + 0.5
    for dt in (np.float64, np.float16):
        for fn in (ops.sqrt, ops.erf, ops.tanh, ops.sigmoid, ops.gelu, ops.softplus, ops.log1p):
            assert fn(T(a.astype(dt))).dtype is from_numpy(dt), fn.__name__


def test_scalar_promotion_follows_mindspore():
    i = T([1, 2, 3])
    assert (i + 2.5).dtype is ms.float32 and (i + 2).dtype is ms.int64
    close(i + 2.5, [3.5, 4.5, 5.5])
    assert (2.5 * i).dtype is ms.float32 and (T([1.0], ms.float16) * 3).dtype is ms.float16
    assert (T([1.0], ms.float32) + T([1.0], ms.float64)).dtype is ms.float64
    assert (T([True]) + T([2], ms.int32)).dtype is ms.int32
    assert (i / 2).dtype is ms.float32 and (i / i).dtype is ms.float32
    close(i / 2, [0.5, 1, 1.5])


def test_pow_with_tensors_and_numbers_on_either_side():
    a, b = np.abs(x32(3, 4)) + 0.5, x32(4)
    close(T(a) ** T(b), a ** b, ms.float32, rtol=1e-5)
    close(ops.pow(T(a), 3), a ** 3, ms.float32, rtol=1e-5)
    close(2 ** T(b), 2.0 ** b, ms.float32)
    close(T([1, 2, 3]) ** 2, [1, 4, 9], ms.int64)
    close(T([4, 9]) ** 0.5, [2, 3], ms.float32)


def test_pow_gradients_for_base_and_exponent():
    a, b = np.abs(x32(3)) + 0.5, x32(3)
    ga, gb = ms.grad(lambda x, y: (x ** y).sum(), grad_position=(0, 1))(T(a), T(b))
    close(ga, b * a ** (b - 1), rtol=1e-5)
    close(gb, a ** b * np.log(a), rtol=1e-5)
    close(ms.grad(lambda x: (x ** 2).sum())(T(a)), 2 * a)
    # at a zero base the exponent's gradient is 0 (xlogy), not NaN
    gb0 = ms.grad(lambda y: (T([0.0, 2.0]) ** y).sum())(T([2.0, 3.0]))
    close(gb0, [0.0, 8 * math.log(2)], rtol=1e-6)


def test_floor_divide_and_remainder_follow_python_signs():
    a, b = np.array([7, -7, 7, -7]), np.array([2, 2, -2, -2])
    close(T(a) // T(b), a // b, ms.int64)
    close(T(a) % T(b), a % b, ms.int64)
    af = np.array([7.5, -7.5, 3.0], np.float32)
    close(T(af) // 2, af // 2, ms.float32)
    close(T(af) % 2, af % 2, ms.float32)
    close(5 % T([3, -3]), [2, -1])
    close(ops.floor_mod(T(a), 3), a % 3)


def test_div_rounding_modes():
    a, b = T([7, -7, 7]), T([2, 2, -2])
    close(ops.div(a, b), [3.5, -3.5, -3.5], ms.float32)
    close(ops.div(a, b, rounding_mode="floor"), [3, -4, -4], ms.int64)
    close(ops.div(a, b, rounding_mode="trunc"), [3, -3, -3], ms.int64)
    close(ops.div(T([7.0, -7.0]), 2, rounding_mode="trunc"), [3, -3], ms.float32)
    with pytest.raises(ValueError, match="rounding_mode"):
        ops.div(a, b, rounding_mode="up")


def test_clamp_with_numbers_tensors_and_one_side():
    a = x32(3, 4)
    close(ops.clamp(T(a), -0.5, 0.5), np.clip(a, -0.5, 0.5), ms.float32)
    close(ops.clip(T(a), min=0.1), np.maximum(a, 0.1), ms.float32)
    close(T(a).clip(None, 0.2), np.minimum(a, 0.2))
    lo, hi = x32(4) - 1, x32(3, 1) + 1
    close(ops.clamp(T(a), T(lo), T(hi)), np.minimum(np.maximum(a, lo), hi))
    assert ops.clamp(T([1, 5]), 0, 3).dtype is ms.int64
    close(ops.clamp(T([1, 5]), 0.5, 2.5), [1, 2.5], ms.float32)
    with pytest.raises(ValueError, match="clamp"):
        ops.clamp(T(a))


def test_clamp_gradient_passes_inside_the_bounds_only():
    a = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], np.float32)
    g = ms.grad(lambda x: (ops.clamp(x, -0.5, 0.5) * T([1.0, 2, 3, 4, 5])).sum())(T(a))
    close(g, [0, 2, 3, 4, 0])


def test_maximum_minimum_values_and_tie_sharing():
    a, b = x32(3, 4), x32(4)
    close(ops.maximum(T(a), T(b)), np.maximum(a, b))
    close(ops.minimum(T(a), 0.0), np.minimum(a, 0))
    ga, gb = ms.grad(lambda x, y: ops.maximum(x, y).sum(), grad_position=(0, 1))(T([1.0, 2.0, 3.0]), T([3.0, 2.0, 1.0]))
    close(ga, [0, 0.5, 1])
    close(gb, [1, 0.5, 0])
    ga, gb = ms.grad(lambda x, y: ops.minimum(x, y).sum(), grad_position=(0, 1))(T([[1.0, 5.0]]), T([2.0]))
    close(ga, [[1, 0]])
    close(gb, [1])  # summed back to the broadcast input's shape


def test_rounding_ops_give_zero_gradients_like_mindspore():
    x = T([0.3, 1.7, -2.2])
    for fn in (ops.floor, ops.ceil, ops.round, ops.sign, ops.trunc):
        close(ms.grad(lambda v, fn=fn: (fn(v) * v).sum())(x), fn(x).asnumpy())  # d(fn(x) x) = fn(x)
    close(ms.grad(lambda v: (v // 2.0).sum())(x), [0, 0, 0])


def test_atan2_lerp_addcmul_xlogy():
    y, x = x32(5), x32(5)
    close(ops.atan2(T(y), T(x)), np.arctan2(y, x))
    s, e, w = x32(4), x32(4), x32(4)
    close(ops.lerp(T(s), T(e), T(w)), s + w * (e - s))
    close(ops.lerp(T(s), T(e), 0.25), s + 0.25 * (e - s))
    close(ops.addcmul(T(s), T(e), T(w), value=2), s + 2 * e * w)
    close(ops.addcdiv(T(s), T(e), T(w + 5)), s + e / (w + 5), rtol=1e-5)
    close(ops.xlogy(T([0.0, 2.0]), T([0.0, 3.0])), [0, 2 * math.log(3)])


# --- activations ----------------------------------------------------------------------------------

def np_softmax(a, axis=-1):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_softmax_and_log_softmax_values_axes_and_dtype():
    a = x32(3, 4, 5)
    close(ops.softmax(T(a)), np_softmax(a), ms.float32)
    close(ops.softmax(T(a), 1), np_softmax(a, 1))
    close(ops.softmax(T(a), axis=(0, 2)), np_softmax(a, (0, 2)))
    close(ops.log_softmax(T(a), 0), np.log(np_softmax(a, 0)), ms.float32, rtol=1e-5, atol=1e-5)
    assert ops.softmax(T(a), dtype=ms.float64).dtype is ms.float64
    close(T(a).softmax(-1), np_softmax(a))
    close(ops.Softmax(axis=0)(T(a)), np_softmax(a, 0))
    close(ops.LogSoftmax()(T(a)), np.log(np_softmax(a)), rtol=1e-5, atol=1e-5)


def test_softmax_is_stable_for_huge_logits():
    a = np.array([[1e4, 1e4 - 1, -1e4], [-3e4, -3e4, -3e4]], np.float32)
    s, ls = ops.softmax(T(a)), ops.log_softmax(T(a))
    assert np.isfinite(s.asnumpy()).all() and np.isfinite(ls.asnumpy()).all()
    close(s, [[1 / (1 + math.exp(-1)), 1 / (1 + math.e), 0], [1 / 3] * 3])
    close(ls, [[-math.log1p(math.exp(-1)), -1 - math.log1p(math.exp(-1)), -2e4 - math.log1p(math.exp(-1))],
               [-math.log(3)] * 3], rtol=1e-6)
    for fn in (ops.softmax, ops.log_softmax):
        g = ms.grad(lambda v, fn=fn: (fn(v) * T([[1.0, 2.0, 3.0], [1.0, 0.0, 0.0]])).sum())(T(a))
        assert np.isfinite(g.asnumpy()).all()


def test_softmax_gradients_match_the_jacobian():
    a, w = x32(2, 5).astype(np.float64), x32(2, 5).astype(np.float64)
    s = np_softmax(a)
    g = ms.grad(lambda v: (ops.softmax(v) * T(w)).sum())(T(a))
    close(g, s * (w - (w * s).sum(-1, keepdims=True)), rtol=1e-10)
    g = ms.grad(lambda v: (ops.log_softmax(v) * T(w)).sum())(T(a))
    close(g, w - s * w.sum(-1, keepdims=True), rtol=1e-10)


def test_activation_values_match_numpy():
    a = np.concatenate([x32(20) * 3, np.array([0.0, 25.0, -25.0], np.float32)])
    a64 = a.astype(np.float64)
    sig = 1 / (1 + np.exp(-a64))
    cases = [
        (ops.sigmoid(T(a)), sig), (ops.silu(T(a)), a64 * sig),
        (ops.gelu(T(a)), 0.5 * a64 * (1 + _erf(a64 / math.sqrt(2)))),
        (ops.gelu(T(a), approximate="tanh"),
         0.5 * a64 * (1 + np.tanh(math.sqrt(2 / math.pi) * (a64 + 0.044715 * a64 ** 3)))),
        (ops.leaky_relu(T(a)), np.where(a64 > 0, a64, 0.2 * a64)),
        (ops.leaky_relu(T(a), 0.01), np.where(a64 > 0, a64, 0.01 * a64)),
        (ops.elu(T(a)), np.where(a64 > 0, a64, np.expm1(a64))),
        (ops.relu6(T(a)), np.clip(a64, 0, 6)), (ops.relu(T(a)), np.maximum(a64, 0)),
        (ops.softplus(T(a)), np.where(a64 > 20, a64, np.log1p(np.exp(a64)))),
        (ops.softplus(T(a), beta=2, threshold=5), np.where(2 * a64 > 5, a64, np.log1p(np.exp(2 * a64)) / 2)),
        (ops.hardsigmoid(T(a)), np.clip(a64 + 3, 0, 6) / 6), (ops.hardswish(T(a)), a64 * np.clip(a64 + 3, 0, 6) / 6),
        (ops.mish(T(a)), a64 * np.tanh(np.log1p(np.exp(a64)))),
    ]
    for i, (got, ref) in enumerate(cases):
        assert got.dtype is ms.float32, i
        np.testing.assert_allclose(got.asnumpy(), ref, rtol=2e-6, atol=2e-6, err_msg=f"case {i}")


def test_activation_class_forms():
    a = x32(3, 4)
    close(ops.GeLU()(T(a)), ops.gelu(T(a), approximate="tanh").asnumpy())  # MindSpore's GeLU primitive is tanh
    close(ops.Sigmoid()(T(a)), 1 / (1 + np.exp(-a)))
    close(ops.Elu(alpha=1.0)(T(a)), np.where(a > 0, a, np.expm1(a)))
    close(ops.ReLU6()(T(a * 10)), np.clip(a * 10, 0, 6))
    close(ops.HSwish()(T(a)), a * np.clip(a + 3, 0, 6) / 6)
    close(ops.Tanh()(T(a)), np.tanh(a))


# --- higher-order gradients -----------------------------------------------------------------------

@pytest.mark.parametrize("fn,d1,d2", [
    (ops.tanh, lambda x: 1 - np.tanh(x) ** 2, lambda x: -2 * np.tanh(x) * (1 - np.tanh(x) ** 2)),
    (ops.sigmoid, lambda x: (s := 1 / (1 + np.exp(-x))) * (1 - s),
     lambda x: (s := 1 / (1 + np.exp(-x))) * (1 - s) * (1 - 2 * s)),
    (ops.exp, np.exp, np.exp),
    (ops.sin, np.cos, lambda x: -np.sin(x)),
    (ops.silu, lambda x: (s := 1 / (1 + np.exp(-x))) * (1 + x * (1 - s)),
     lambda x: (s := 1 / (1 + np.exp(-x))) * (1 - s) * (2 + x * (1 - 2 * s))),
], ids=["tanh", "sigmoid", "exp", "sin", "silu"])
def test_second_derivatives_match_analytic(fn, d1, d2):
    a = rng.standard_normal(6)
    first = ms.grad(lambda v: fn(v).sum())
    close(first(T(a)), d1(a), rtol=1e-10)
    close(ms.grad(lambda v: first(v).sum())(T(a)), d2(a), rtol=1e-9, atol=1e-12)


def test_third_derivative_of_tanh():
    a = rng.standard_normal(5)
    t = np.tanh(a)
    g1 = ms.grad(lambda v: ops.tanh(v).sum())
    g2 = ms.grad(lambda v: g1(v).sum())
    g3 = ms.grad(lambda v: g2(v).sum())
    close(g3(T(a)), (1 - t ** 2) * (6 * t ** 2 - 2), rtol=1e-9, atol=1e-12)


# --- comparisons and logic ------------------------------------------------------------------------

def test_comparison_operators_give_bool_tensors():
    a, b = rng.integers(-3, 3, (3, 4)), rng.integers(-3, 3, (4,))
    ta, tb = T(a), T(b)
    for got, ref in [(ta == tb, a == b), (ta != tb, a != b), (ta < tb, a < b), (ta <= tb, a <= b),
                     (ta > tb, a > b), (ta >= tb, a >= b), (ops.ne(ta, tb), a != b), (ops.ge(ta, 0), a >= 0)]:
        assert got.dtype is ms.bool_
        np.testing.assert_array_equal(got.asnumpy(), ref)
    np.testing.assert_array_equal((T([1, 2, 3]) < 2.5).asnumpy(), [True, True, False])  # compares in float
    np.testing.assert_array_equal((T([1, 2, 3]) == T([1.0, 2.5, 3.0])).asnumpy(), [True, False, True])
    np.testing.assert_array_equal(ops.Greater()(T([1, 5]), 3).asnumpy(), [False, True])


def test_logical_ops_and_operators():
    p, q = np.array([True, True, False, False]), np.array([True, False, True, False])
    for got, ref in [(T(p) & T(q), p & q), (T(p) | T(q), p | q), (T(p) ^ T(q), p ^ q), (~T(p), ~p),
                     (ops.logical_and(T([2, 0]), T([1, 1])), [True, False]), (ops.logical_not(T([0.0, 3.0])),
                                                                                [True, False])]:
        assert got.dtype is ms.bool_
        np.testing.assert_array_equal(got.asnumpy(), ref)


def test_value_tests_and_isclose():
    a = np.array([1.0, np.nan, np.inf, -np.inf], np.float32)
    np.testing.assert_array_equal(ops.isnan(T(a)).asnumpy(), np.isnan(a))
    np.testing.assert_array_equal(ops.isinf(T(a)).asnumpy(), np.isinf(a))
    np.testing.assert_array_equal(ops.isfinite(T(a)).asnumpy(), np.isfinite(a))
    np.testing.assert_array_equal(ops.isfinite(T([1, 2])).asnumpy(), [True, True])
    b = np.array([1.0 + 1e-7, np.nan, 1.0, np.inf], np.float32)
    np.testing.assert_array_equal(ops.isclose(T(a), T(b)).asnumpy(), np.isclose(a, b))
    np.testing.assert_array_equal(ops.isclose(T(a), T(b), equal_nan=True).asnumpy(), np.isclose(a, b, equal_nan=True))
    assert ops.allclose(T([1.0, 2.0]), T([1.0, 2.0 + 1e-9])) is True
    assert ops.allclose(T([1.0, 2.0]), T([1.0, 2.1])) is False


# --- reductions -----------------------------------------------------------------------------------

def test_sum_function_and_method_signatures_differ_like_mindspore():
    a = x32(2, 3, 4)
    close(ops.sum(T(a)), a.sum(), ms.float32, rtol=1e-5)
    close(ops.sum(T(a), 1, True), a.sum(1, keepdims=True), rtol=1e-5)              # sum(input, dim, keepdim)
    close(ops.sum(T(a), dim=(0, 2), dtype=ms.float64), a.astype(np.float64).sum((0, 2)), ms.float64, rtol=1e-5)
    close(T(a).sum(1, ms.float64, True), a.sum(1, keepdims=True), ms.float64, rtol=1e-5)  # (axis, dtype, keepdims)
    close(T(a).sum(axis=(0, 1), initial=10), a.sum((0, 1)) + 10, rtol=1e-5)
    assert T([True, True, False]).sum().item() == 2 and T([True]).sum().dtype is ms.int64
    close(ops.reduce_sum(T(a), (1, 2), keep_dims=True), a.sum((1, 2), keepdims=True), rtol=1e-5)
    close(ops.ReduceSum(keep_dims=True)(T(a), 2), a.sum(2, keepdims=True), rtol=1e-5)


def test_mean_and_reduce_mean():
    a = x32(3, 4)
    close(ops.mean(T(a)), a.mean(), ms.float32)
    close(ops.mean(T(a), 1, keep_dims=True), a.mean(1, keepdims=True))
    close(T(a).mean(axis=0), a.mean(0))
    close(ops.reduce_mean(T(a), (0, 1)), a.mean())
    close(ops.ReduceMean(keep_dims=True)(T(a), 0), a.mean(0, keepdims=True))
    close(ops.mean(T([1, 2])), 1.5, ms.float32)
    close(ms.grad(lambda v: ops.mean(v, 1).sum())(T(a)), np.full_like(a, 0.25))


def test_max_min_return_values_and_indices():
    a = np.array([[1.0, 5.0, 5.0], [7.0, 2.0, 7.0]], np.float32)
    v, i = ops.max(T(a), 1)
    close(v, [5, 7], ms.float32)
    close(i, [1, 0], ms.int64)  # first maximum on ties; int64 as MindSpore
    v, i = ops.min(T(a), axis=0, keepdims=True)
    close(v, [[1, 2, 5]])
    close(i, [[0, 1, 0]], ms.int64)
    v, i = ops.max(T(a))
    close(v, 7)
    close(i, 3)
    v, _ = ops.max(T(a), 1, initial=6.0)
    close(v, [6, 7])
    v, _ = ops.max(T(a), 1, initial=0.0, where=T([[True, False, False], [False, True, False]]))
    close(v, [1, 2])
    v, _ = ops.min(T([[np.inf, 1.0], [-np.inf, 3.0]]), 1, initial=2.0, where=T([[False, True], [False, True]]))
    close(v, [1, 2])  # masked-out infinities do not leak in


def test_tensor_max_min_methods_return_values_only():
    a = x32(3, 4)
    close(T(a).max(), a.max())
    close(T(a).max(axis=(0, 1), keepdims=True), a.max((0, 1), keepdims=True))
    close(T(a).min(1), a.min(1))
    v, i = T(a).max(axis=0, return_indices=True)
    close(v, a.max(0))
    close(i, a.argmax(0))
    close(ops.amax(T(a), 1), a.max(1))
    close(ops.amin(T(a), (0, 1)), a.min())
    close(ops.reduce_max(T(a), 1, keep_dims=True), a.max(1, keepdims=True))
    close(ops.ReduceMin()(T(a), 0), a.min(0))


def test_max_gradients_split_ties_for_reductions_and_pick_the_index_for_max():
    a = T([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]])
    close(ms.grad(lambda v: ops.reduce_max(v, 1).sum())(a), [[0, 0.5, 0.5], [1, 0, 0]])
    close(ms.grad(lambda v: v.max())(a), [[0, 0.5, 0.5], [0, 0, 0]])
    close(ms.grad(lambda v: ops.max(v, 1)[0].sum())(a), [[0, 1, 0], [1, 0, 0]])
    close(ms.grad(lambda v: ops.max(v)[0])(a), [[0, 1, 0], [0, 0, 0]])
    close(ms.grad(lambda v: (ops.min(v, 0)[0] * T([1.0, 2.0, 3.0])).sum())(a), [[1, 0, 0], [0, 2, 3]])


def test_argmax_argmin_dtypes_and_signatures():
    a = x32(3, 4)
    i = ops.argmax(T(a), 1)
    close(i, a.argmax(1), ms.int64)
    close(ops.argmax(T(a)), a.argmax(), ms.int64)
    close(ops.argmax(T(a), dim=0, keepdim=True), a.argmax(0)[None])
    i = ops.argmin(T(a), 1)
    close(i, a.argmin(1), ms.int32)
    close(T(a).argmax(axis=1, keepdims=True), a.argmax(1)[:, None], ms.int64)
    close(T(a).argmin(), a.argmin())
    close(ops.Argmax()(T(a)), a.argmax(-1), ms.int32)
    close(ops.Argmax(axis=0, output_type=ms.int64)(T(a)), a.argmax(0), ms.int64)
    close(ops.Argmin(axis=0)(T(a)), a.argmin(0), ms.int32)
    idx, val = ops.ArgMaxWithValue(axis=1, keep_dims=True)(T(a))
    close(idx, a.argmax(1)[:, None], ms.int32)
    close(val, a.max(1, keepdims=True))
    idx, val = ops.ArgMinWithValue()(T(a))
    close(idx, a.argmin(0))
    close(val, a.min(0))


def test_prod_values_and_gradient_with_zeros():
    a = np.array([[2.0, 3.0, 4.0], [0.0, 5.0, 2.0], [0.0, 0.0, 3.0]])
    close(ops.prod(T(a), 1), a.prod(1))
    close(T(a).prod(axis=0, keep_dims=True), a.prod(0, keepdims=True))
    close(ops.reduce_prod(T(a)), 0.0)
    close(ops.prod(T([1, 2, 3], ms.int32)), 6, ms.int32)
    g = ms.grad(lambda v: ops.prod(v, 1).sum())(T(a))
    close(g, [[12, 8, 6], [10, 0, 0], [0, 0, 0]])


def test_var_std_with_ddof_and_keepdims():
    a = x32(4, 5)
    close(ops.var(T(a)), a.var(), ms.float32, rtol=1e-5)
    close(ops.std(T(a), 1, 1, True), a.std(1, ddof=1, keepdims=True), rtol=1e-5)
    close(T(a).var(axis=0, ddof=True), a.var(0, ddof=1), rtol=1e-5)
    close(T(a).std(axis=(0, 1)), a.std(), rtol=1e-5)
    s, m = ops.std_mean(T(a), 0)
    close(s, a.std(0), rtol=1e-5)
    close(m, a.mean(0), rtol=1e-5)
    close(ops.std(T([[1, 2, 3, 4], [-1, 1, 4, -10]], ms.float32), 1, 2, True), [[1.5811388], [7.3824115]])
    g = ms.grad(lambda v: ops.var(v, 1).sum())(T(a.astype(np.float64)))
    close(g, 2 * (a - a.mean(1, keepdims=True)) / 5, rtol=1e-5)


def test_logsumexp_is_stable_and_differentiable():
    a = np.array([[1000.0, 1000.0, 0.0], [-1000.0, -999.0, -1001.0]], np.float32)
    out = ops.logsumexp(T(a), 1)
    m = a.max(1, keepdims=True)
    ref = (np.log(np.exp(a - m).sum(1, keepdims=True)) + m)[:, 0]
    close(out, ref, ms.float32, rtol=1e-6)
    close(T(a).logsumexp(1, keepdims=True), ref[:, None], rtol=1e-6)
    close(ms.grad(lambda v: ops.logsumexp(v, 1).sum())(T(a.astype(np.float64))), np_softmax(a.astype(np.float64)),
          rtol=1e-9)


def test_all_any():
    b = rng.random((3, 4)) > 0.5
    close(ops.all(T(b)), b.all(), ms.bool_)
    close(ops.any(T(b), 1), b.any(1), ms.bool_)
    close(T(b).all(axis=0, keep_dims=True), b.all(0, keepdims=True))
    close(ops.any(T([0.0, 0.0])), False)
    close(ops.ReduceAll(keep_dims=False)(T(b), 1), b.all(1))
    close(ops.ReduceAny()(T(b)), b.any())


def test_norm_vector_and_matrix_orders():
    a = x32(3, 4)
    close(ops.norm(T(a)), np.linalg.norm(a), ms.float32, rtol=1e-5)
    for o in (1, 2, 3, math.inf, -math.inf, 0):
        close(ops.norm(T(a), o, dim=1), np.linalg.norm(a, o, axis=1), rtol=1e-5)
    for o in ("fro", 1, -1, math.inf, -math.inf):
        close(ops.norm(T(a), o), np.linalg.norm(a, o), rtol=1e-5)
    close(ops.norm(T(a), "fro", (0, 1), True), np.linalg.norm(a, keepdims=True), rtol=1e-5)
    close(T(a[0]).norm(1), np.abs(a[0]).sum(), rtol=1e-5)
    close(ms.grad(lambda v: ops.norm(v))(T(a.astype(np.float64))), a / np.linalg.norm(a), rtol=1e-6)
    with pytest.raises(ValueError, match="nuc"):
        ops.norm(T(a), "nuc", dim=1)  # a matrix norm along one axis


def test_cumsum_variants():
    a = x32(3, 4)
    close(ops.cumsum(T(a), 1), np.cumsum(a, 1), ms.float32, rtol=1e-5)
    close(T(a).cumsum(), np.cumsum(a), rtol=1e-5)
    close(ops.cumsum(T([1, 2, 3], ms.int32), 0), [1, 3, 6], ms.int32)
    close(ops.CumSum(exclusive=True)(T(a), 1), np.cumsum(a, 1) - a, rtol=1e-5, atol=1e-6)
    close(ops.CumSum(reverse=True)(T(a), 0), np.cumsum(a[::-1], 0)[::-1], rtol=1e-5)
    close(ms.grad(lambda v: (ops.cumsum(v, 0) * T([1.0, 2.0, 3.0])).sum())(T([1.0, 1.0, 1.0])), [6, 5, 3])


# --- class forms ----------------------------------------------------------------------------------

def test_binary_and_unary_class_forms():
    a, b = x32(3, 4), x32(4)
    for cls, ref in [(ops.Add, a + b), (ops.Sub, a - b), (ops.Mul, a * b), (ops.Div, a / b), (ops.RealDiv, a / b),
                     (ops.Maximum, np.maximum(a, b)), (ops.Minimum, np.minimum(a, b))]:
        close(cls()(T(a), T(b)), ref, rtol=1e-5)
    close(ops.Pow()(T(np.abs(a)), 2.0), np.abs(a) ** 2, rtol=1e-5)
    for cls, ref in [(ops.Neg, -a), (ops.Exp, np.exp(a)), (ops.Abs, np.abs(a)), (ops.Square, a * a),
                     (ops.Sqrt, np.sqrt(np.abs(a))), (ops.Rsqrt, 1 / np.sqrt(np.abs(a))), (ops.ReLU, np.maximum(a, 0)),
                     (ops.Erf, _erf(a)), (ops.Floor, np.floor(a)), (ops.Sign, np.sign(a))]:
        arg = np.abs(a) if cls in (ops.Sqrt, ops.Rsqrt) else a
        close(cls()(T(arg)), ref, rtol=1e-5)
    close(ops.Log()(T(np.abs(a))), np.log(np.abs(a)), rtol=1e-5)
    close(ops.AddN()([T(a), T(a), T(b)]), 2 * a + b, rtol=1e-5)
    close(ops.ClipByValue()(T(a), -0.1, 0.1), np.clip(a, -0.1, 0.1))
    np.testing.assert_array_equal(ops.LessEqual()(T(a), T(b)).asnumpy(), a <= b)
    np.testing.assert_array_equal(ops.LogicalNot()(T(a > 0)).asnumpy(), a <= 0)


def test_matmul_class_forms():
    a, b = x32(3, 4), x32(5, 4)
    close(ops.MatMul(transpose_b=True)(T(a), T(b)), a @ b.T, rtol=1e-5)
    close(ops.MatMul(transpose_a=True)(T(a), T(a)), a.T @ a, rtol=1e-5)
    c, d = x32(2, 3, 4), x32(2, 5, 4)
    close(ops.BatchMatMul(transpose_b=True)(T(c), T(d)), c @ d.transpose(0, 2, 1), rtol=1e-5)
    assert repr(ops.MatMul(transpose_b=True)) == "MatMul<transpose_a=False, transpose_b=True>"


def test_reducesum_skip_mode_returns_the_input():
    a = T(x32(2, 3))
    assert ops.ReduceSum(skip_mode=True)(a) is a
    close(ops.ReduceSum(skip_mode=True)(a, 1), a.asnumpy().sum(1), rtol=1e-5)


# --- errors ---------------------------------------------------------------------------------------

def test_broadcast_errors_name_the_op_and_shapes_at_the_user_line():
    with pytest.raises(ShapeError) as e:
        ops.maximum(T(x32(3, 4)), T(x32(5)))
    assert "Maximum" in str(e.value) and "(3, 4)" in str(e.value) and "(5,)" in str(e.value)
    assert e.value.loc is not None and e.value.loc.file == __file__
    with pytest.raises(ShapeError, match="Less"):
        T(x32(2, 3)) < T(x32(3, 2))
    with pytest.raises(ShapeError, match="Pow"):
        T(x32(2)) ** T(x32(3))


def test_axis_and_dtype_errors():
    with pytest.raises(ShapeError, match="Softmax.*axis"):
        ops.softmax(T(x32(2, 3)), axis=2)
    with pytest.raises(ShapeError, match="ReduceMean"):
        ops.mean(T(x32(2, 3)), 5)
    with pytest.raises(ShapeError, match="ArgMaxWithValue"):
        ops.max(T(x32(2, 3)), -3)
    with pytest.raises(DTypeError, match="Abs"):
        ops.abs(T([True, False]))
    with pytest.raises(DTypeError, match="Sqrt"):
        REGISTRY["Sqrt"](T([1, 2]))
    with pytest.raises(ValueError, match="approximate"):
        ops.gelu(T(x32(3)), approximate="fast")


# --- dtypes ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", [np.float32, np.float16, "bfloat16"])
def test_every_sample_keeps_infer_and_impl_dtypes_in_narrow_floats(dt):
    """Python-float constants and helper libraries must not widen float32/float16/bfloat16 results."""
    from .samples.math import SAMPLES

    np_dt = ms.bfloat16.np if dt == "bfloat16" else np.dtype(dt)
    with np.errstate(all="ignore"):
        for name, samples in SAMPLES.items():
            for s in samples:
                ts = [T(np.asarray(a).astype(np_dt) if np.asarray(a).dtype.kind == "f" else np.asarray(a))
                      for a in s.inputs]
                avals, out = REGISTRY[name].infer(*ts, **s.attrs), REGISTRY[name](*ts, **s.attrs)
                for o, a in zip(out if isinstance(out, tuple) else (out,), avals if isinstance(avals, tuple)
                                else (avals,)):
                    assert (o.dtype, o.shape) == (a.dtype, a.shape), f"{name} {s.attrs} in {dt}"
