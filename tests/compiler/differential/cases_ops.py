"""Differential cases for every public function and every public class-form op in `spore.ops`.

Each `Case` is one public call run by `harness.run_case` in PyNative and inside a compiled
construct. Names read ``ops.<function>[variant]`` or ``ops.<Class>[variant]``; the part before the
``[`` is what the coverage test counts.

Inputs are written as in cases_tensor_nn.py: `C(name, fn, *args, kw={...}, **case_options)`, where
an argument that is a `G` (a random-input recipe such as ``fl(3, 4)``) is drawn from the rng on every
`make` (a NumPy array: a traced Tensor input of the compiled construct) and every other argument is
the static Python value it is. Class-form ops are called as instances (``ops.ReduceSum(True)``).

Calls that take a *sequence* of tensors (``ops.concat((x, y))``, ``ops.AddN()([a, b, c])``) go
through the small module-level helpers below, so the sequence holds traced tensors: their source
is readable and Graph mode compiles them as user code.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

import spore as ms
from spore import ops

from .cases_declared import declared_class_cases, declared_function_cases
from .cases_tensor_nn import C, G, bl, fl, it, nz, nzi, perm, pos, special
from .harness import Case, run_case

f32, f64, i32, i64 = ms.float32, ms.float64, ms.int32, ms.int64

# Only names that are not user ops are exempt.
EXEMPT_FUNCTIONS: dict[str, str] = {
    "primitive": "class decorator that registers a Primitive declaration (engine plumbing, not an op)",
    "normalize_index": "indexing helper re-export: normalizes a Python index against a static shape",
    "np_index": "indexing helper re-export: builds a NumPy index tuple from a normalized index",
    "index_shape": "indexing helper re-export: the static result shape of a normalized index",
    "sparse_softmax_ce_value_and_grad": "NumPy kernel helper of Graph mode's loss fusion (takes np.ndarray, "
                                        "not Tensors)",
}
_COLLECTIVE = ("collective: checked in PyNative and Graph mode against NumPy on real MPI ranks by "
               "tests/parallel/test_collectives.py (a one-process case would only see a world of 1)")
EXEMPT_CLASSES: dict[str, str] = {
    "Primitive": "the engine's registry record of a primitive (name, infer, impl, vjp); not a class-form op",
    **{n: _COLLECTIVE for n in ("AllGather", "AllReduce", "Broadcast", "ReduceScatter")},
    "ReduceOp": "an enum of reduction kinds (SUM/MAX/MIN/PROD), not an op",
}


_FUNCTION_SECTIONS: list = []
_CLASS_SECTIONS: list = []


def _functions(section):
    """Registers a section of function cases."""
    _FUNCTION_SECTIONS.append(section)
    return section


def _classes(section):
    """Registers a section of class-form op cases."""
    _CLASS_SECTIONS.append(section)
    return section


def ops_function_cases() -> list[Case]:
    """Cases for every public function in `spore.ops` (but the exempt helpers), with those that
    follow from declarations (cases_declared.py)."""
    return [c for section in _FUNCTION_SECTIONS for c in section()] + declared_function_cases()


def ops_class_cases() -> list[Case]:
    """Cases for every public class-form op in `spore.ops`, declared ones included."""
    return [c for section in _CLASS_SECTIONS for c in section()] + declared_class_cases()


def covered_name(case: Case) -> str:
    """'ops.take' / 'ops.ReduceSum': what a case covers."""
    return case.name.split("[", 1)[0]


def summarize(cases: list[Case]) -> Counter:
    """Outcome kinds over `cases` (runs every case)."""
    return Counter(run_case(c).kind for c in cases)


# --- more input recipes -----------------------------------------------------------------------------
def const(value: Any, dt: Any = None) -> G:
    """A fixed array (the same on every `make`): a traced Tensor input with known values."""
    arr = np.asarray(value, dtype=dt)
    return G(lambda r: arr.copy())


def ints(*shape: int, lo: int = -5, hi: int = 6, dt: Any = np.int32) -> G:
    return it(lo, hi, *shape, dt=dt)


def rounding(*shape: int, dt: Any = np.float32) -> G:
    """Floats with exact .5 ties and negative values (round / trunc / floor / ceil)."""
    def make(r: np.random.Generator) -> np.ndarray:
        a = np.asarray(r.uniform(-4, 4, shape), dtype=dt)
        flat = a.reshape(-1)
        flat[:4] = [0.5, -0.5, 1.5, -2.5][: flat.size]
        return a
    return G(make)


def probs(*shape: int) -> G:
    """Values in (0.05, 0.95): probabilities for binary_cross_entropy."""
    return fl(*shape, lo=0.05, hi=0.95)


def logprobs(n: int, c: int) -> G:
    """(n, c) rows of log-probabilities (log_softmax of normal values)."""
    def make(r: np.random.Generator) -> np.ndarray:
        z = r.standard_normal((n, c))
        z = z - z.max(1, keepdims=True)
        return (z - np.log(np.exp(z).sum(1, keepdims=True))).astype(np.float32)
    return G(make)


# --- helpers Graph mode compiles as user code -------------------------------------------------------
def concat2(x, y, axis=0):
    return ops.concat((x, y), axis)


def concat3_list(x, y, z, axis=0):
    return ops.concat([x, y, z], axis=axis)


def cat2(x, y, axis=0):
    return ops.cat((x, y), axis)


def stack2(x, y, axis=0):
    return ops.stack((x, y), axis)


def stack3(x, y, z, axis=0):
    return ops.stack([x, y, z], axis=axis)


def hstack2(x, y):
    return ops.hstack((x, y))


def vstack2(x, y):
    return ops.vstack((x, y))


def meshgrid2(x, y, indexing="xy"):
    return ops.meshgrid(x, y, indexing=indexing)


def meshgrid3(x, y, z, indexing="ij"):
    return ops.meshgrid(x, y, z, indexing=indexing)


def concat_op(x, y, axis=0):
    return ops.Concat(axis)((x, y))


def stack_op(x, y, axis=0):
    return ops.Stack(axis)([x, y])


def addn2(x, y):
    return ops.AddN()((x, y))


def addn3(x, y, z):
    return ops.AddN()([x, y, z])


def meshgrid_op(x, y, indexing="xy"):
    return ops.Meshgrid(indexing)((x, y))


def meshgrid_op3(x, y, z):
    return ops.Meshgrid("ij")([x, y, z])


def assign_then_read(x, v):
    ops.assign(x, v)
    return x * 2


def assign_add_then_read(x, v):
    ops.assign_add(x, v)
    return x + 0


def assign_sub_twice(x, v):
    ops.assign_sub(x, v)
    ops.assign_sub(x, v)
    return x * 1


def print_then(x, y):
    ops.print_("x:", x, "y:", y)
    return x + y


def setitem_then(x, v):
    y = x * 1
    ops.setitem_(y, (0, slice(1, 3)), v)
    return y


def primitive_then_add(x):
    return ops.abs(x) + ops.neg(x)


def dropout_seeded(x):
    return ops.Dropout(0.5, 3, 4)(x)


def dropout_seeded_twice(x):
    op = ops.Dropout(0.6, 5, 0)
    return op(x), op(x)


def sparse_ce_grad(logits, labels):
    return ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(logits, labels)


# chains: one op's (possibly value-dependent) result feeding another inside the construct
def gather_elements_argmax(x):
    return ops.gather_elements(x, 1, ops.argmax(x, 1, keepdim=True))


def gather_elements_argsort(x):
    return ops.gather_elements(x, 1, ops.argsort(x, 1))


def gather_nd_argwhere(x):
    return ops.gather_nd(x, ops.argwhere(x > 0))


def masked_select_sum(x):
    return ops.masked_select(x, x > 0).sum()


def unique_rebuild(x):
    u, idx = ops.unique(x)
    return ops.gather(u, idx, 0), u.shape[0]


def scatter_histogram(labels):
    return ops.tensor_scatter_add(ops.zeros((5,), ms.float32), ops.expand_dims(labels, 1),
                                  ops.ones(labels.shape, ms.float32))


def index_select_randperm(x):
    return ops.index_select(x, 0, ops.randperm(4))


def one_hot_argmax(x):
    return ops.one_hot(ops.argmax(x, -1), 4)


def getitem_nonzero(x):
    return ops.getitem(x, ops.nonzero(x > 0, as_tuple=True))


def scatter_topk(x):
    v, i = ops.topk(x, 2)
    return ops.scatter(ops.zeros_like(x), 1, i, v)


def reshape_by_shape(x, y):
    return ops.reshape(y, ops.shape(x))


def zeros_by_shape(x):
    return ops.zeros(ops.shape(x)) + x


def arange_by_size(x):
    return ops.arange(ops.size(x)) * 2


def split_sum(x):
    acc = 0
    for part in ops.split(x, 2, 1):
        acc = acc + part.sum()
    return acc


def cast_mask(x):
    return ops.cast(x > 0, ms.float32) * x


def take_argmin_wrap(x):
    return ops.take(x, ops.argmin(x) + 20, mode="wrap")


def nonzero_count(x):
    return ops.nonzero(x).shape[0] * 1.0 + x.sum()


class UserOp(ops.Operation):
    """A user-defined class-form op: the base class's call protocol runs `construct`."""

    def __init__(self, scale: float) -> None:
        self.scale = scale

    def construct(self, x, y):
        return ops.mul(x, self.scale) + ops.sigmoid(y)


# --- functions ------------------------------------------------------------------------------------
def unary(name: str, gen: Any = None, *, ints_ok: bool = False, f64_ok: bool = True, **opts: Any) -> list[Case]:
    """Float cases for an elementwise unary function: 2-D, 3-D, 0-d (and float64 / int32)."""
    gen = gen or fl
    fn = getattr(ops, name)
    out = [C(f"ops.{name}[f32]", fn, gen(3, 4), **opts),
           C(f"ops.{name}[3d]", fn, gen(2, 3, 4), **opts),
           C(f"ops.{name}[0d]", fn, gen(), **opts)]
    if f64_ok:
        out.append(C(f"ops.{name}[f64]", fn, gen(4, 5, dt=np.float64), **opts))
    if ints_ok:
        out.append(C(f"ops.{name}[i32]", fn, ints(3, 4)))
    return out


@_functions
def _unary_functions() -> list[Case]:
    out: list[Case] = []
    for name in ("abs", "absolute", "neg", "sign", "square"):
        out += unary(name, ints_ok=True)
    for name in ("atan", "cos", "cosh", "erf", "exp", "expm1", "sin", "sinh", "tanh", "sigmoid", "silu",
                 "hardsigmoid", "hardswish", "mish", "relu6", "gelu", "elu", "softplus", "identity",
                 "stop_gradient"):
        out += unary(name)
    out += unary("tan", lambda *s, dt=np.float32: fl(*s, lo=-1.2, hi=1.2, dt=dt))
    out += unary("reciprocal", nz)
    for name in ("sqrt", "rsqrt", "log", "log10", "log1p", "log2"):
        out += unary(name, pos)
    for name in ("ceil", "floor", "round", "trunc"):
        out += unary(name, rounding)
    out += unary("relu", ints_ok=True)
    out += [
        C("ops.sqrt[neg->nan]", ops.sqrt, fl(3, 4)),
        C("ops.log[neg->nan]", ops.log, fl(3, 4)),
        C("ops.reciprocal[i32]", ops.reciprocal, nzi(3, 4)),
        C("ops.exp[i32]", ops.exp, ints(3, 4)),
        C("ops.sin[i32]", ops.sin, ints(2, 3)),
        C("ops.round[decimals=1]", ops.round, fl(3, 4), kw={"decimals": 1}),
        C("ops.round[decimals=-1]", ops.round, fl(3, 4, lo=-40, hi=40), kw={"decimals": -1}),
        C("ops.gelu[tanh]", ops.gelu, fl(3, 4), kw={"approximate": "tanh"}),
        C("ops.elu[alpha=0.5]", ops.elu, fl(3, 4), 0.5),
        C("ops.leaky_relu[default]", ops.leaky_relu, fl(3, 4)),
        C("ops.leaky_relu[alpha=0.01]", ops.leaky_relu, fl(2, 3, 4), 0.01),
        C("ops.leaky_relu[kw alpha]", ops.leaky_relu, fl(3, 4, dt=np.float64), kw={"alpha": 0.3}),
        C("ops.softplus[beta,threshold]", ops.softplus, fl(3, 4), 2.0, 1.0),
        C("ops.softplus[large]", ops.softplus, fl(3, 4, lo=10, hi=30)),
        C("ops.relu[inplace]", ops.relu, fl(3, 4), kw={"inplace": True}),
        C("ops.relu_grad[f32]", ops.relu_grad, fl(3, 4), fl(3, 4, lo=-1, hi=1)),
        C("ops.relu_grad[zeros]", ops.relu_grad, fl(2, 5), const(np.maximum(np.linspace(-1, 1, 10), 0)
                                                                   .reshape(2, 5), np.float32)),
        C("ops.relu_grad[3d]", ops.relu_grad, fl(2, 3, 4), pos(2, 3, 4)),
        C("ops.isfinite[special]", ops.isfinite, special(3, 4)),
        C("ops.isfinite[i32]", ops.isfinite, ints(3, 4)),
        C("ops.isfinite[f64]", ops.isfinite, special(4, 5)),
        C("ops.isinf[special]", ops.isinf, special(3, 4)),
        C("ops.isinf[3d]", ops.isinf, special(2, 3, 4)),
        C("ops.isinf[i32]", ops.isinf, ints(3, 4)),
        C("ops.isnan[special]", ops.isnan, special(3, 4)),
        C("ops.isnan[3d]", ops.isnan, special(2, 3, 4)),
        C("ops.isnan[0d]", ops.isnan, fl()),
        C("ops.logical_not[bool]", ops.logical_not, bl(3, 4)),
        C("ops.logical_not[i32]", ops.logical_not, it(0, 2, 3, 4)),
        C("ops.logical_not[f32]", ops.logical_not, const([[0.0, 1.5], [-2.0, 0.0]], np.float32)),
        C("ops.identity[i64]", ops.identity, ints(3, 4, dt=np.int64)),
        C("ops.identity[bool]", ops.identity, bl(3, 4)),
        C("ops.stop_gradient[i32]", ops.stop_gradient, ints(3, 4)),
    ]
    return out


def binary(name: str, a: Any = None, b: Any = None, *, ints_ok: bool = True, scalar: Any = 2.0,
           **opts: Any) -> list[Case]:
    """Cases for an elementwise binary function: same shape, broadcast, tensor-scalar, int32."""
    a = a or fl
    b = b or fl
    fn = getattr(ops, name)
    out = [C(f"ops.{name}[f32]", fn, a(3, 4), b(3, 4), **opts),
           C(f"ops.{name}[bcast]", fn, a(3, 1), b(1, 4), **opts),
           C(f"ops.{name}[bcast 3d]", fn, a(2, 3, 4), b(4), **opts),
           C(f"ops.{name}[scalar]", fn, a(3, 4), scalar, **opts),
           C(f"ops.{name}[f64]", fn, a(3, 4, dt=np.float64), b(3, 4, dt=np.float64), **opts)]
    if ints_ok:
        out.append(C(f"ops.{name}[i32]", fn, ints(3, 4), nzi(3, 4)))
        out.append(C(f"ops.{name}[i32,f32]", fn, ints(3, 4), b(3, 4), **opts))
    return out


@_functions
def _binary_functions() -> list[Case]:
    out: list[Case] = []
    for name in ("add", "sub", "mul", "maximum", "minimum"):
        out += binary(name)
        out.append(C(f"ops.{name}[scalar first]", getattr(ops, name), 1.5, fl(3, 4)))
        out.append(C(f"ops.{name}[bool]", getattr(ops, name), bl(3, 4), bl(3, 4)))
    for name in ("div", "true_divide"):
        out += binary(name, b=nz)
        out.append(C(f"ops.{name}[scalar first]", getattr(ops, name), 3.0, nz(3, 4)))
    out += [
        C("ops.div[trunc]", ops.div, fl(3, 4), nz(3, 4), kw={"rounding_mode": "trunc"}),
        C("ops.div[floor]", ops.div, fl(3, 4), nz(3, 4), kw={"rounding_mode": "floor"}),
        C("ops.div[floor,i32]", ops.div, ints(3, 4), nzi(3, 4), kw={"rounding_mode": "floor"}),
        C("ops.div[trunc,i32]", ops.div, ints(3, 4), nzi(3, 4), kw={"rounding_mode": "trunc"}),
        C("ops.div[bad mode]", ops.div, fl(3, 4), nz(3, 4), kw={"rounding_mode": "ceil"}),
        C("ops.div[i32 by zero]", ops.div, ints(3, 4), const(np.zeros((3, 4)), np.int32)),
        C("ops.div[f32 by zero]", ops.div, fl(3, 4), const(np.zeros((3, 4)), np.float32)),
    ]
    for name in ("floor_divide", "floor_mod", "remainder"):
        out += binary(name, b=nz)
        out.append(C(f"ops.{name}[i32 neg]", getattr(ops, name), ints(3, 4), const([-3, 2, -1, 4], np.int32)))
        out.append(C(f"ops.{name}[scalar first]", getattr(ops, name), 7, nzi(3, 4)))
    out += binary("pow", pos, ints_ok=False)
    out += [
        C("ops.pow[i32]", ops.pow, ints(3, 4), it(0, 4, 3, 4)),
        C("ops.pow[scalar base]", ops.pow, 2.0, fl(3, 4)),
        C("ops.pow[int exponent]", ops.pow, fl(3, 4), 3),
        C("ops.pow[f32,i32]", ops.pow, pos(3, 4), it(0, 4, 3, 4)),
    ]
    for name in ("atan2", "arctan2"):
        out += binary(name, ints_ok=False)
    out += [C("ops.atan2[zeros]", ops.atan2, const([0.0, -0.0, 1.0, -1.0], np.float32),
              const([0.0, 0.0, 0.0, -1.0], np.float32))]
    out += binary("xlogy", b=pos, ints_ok=False)
    out += [C("ops.xlogy[zero x]", ops.xlogy, const([0.0, 0.0, 1.0, 2.0], np.float32), pos(4))]
    for name in ("equal", "ne", "not_equal", "ge", "gt", "greater", "greater_equal", "le", "lt", "less",
                 "less_equal"):
        out += binary(name, a=lambda *s, dt=np.float32: it(-2, 3, *s, dt=dt),
                      b=lambda *s, dt=np.float32: it(-2, 3, *s, dt=dt), scalar=1)
        out.append(C(f"ops.{name}[bool]", getattr(ops, name), bl(3, 4), bl(3, 4)))
        out.append(C(f"ops.{name}[scalar first]", getattr(ops, name), 0.5, fl(3, 4)))
    for name in ("logical_and", "logical_or", "logical_xor"):
        fn = getattr(ops, name)
        out += [C(f"ops.{name}[bool]", fn, bl(3, 4), bl(3, 4)),
                C(f"ops.{name}[bcast]", fn, bl(3, 1), bl(1, 4)),
                C(f"ops.{name}[i32]", fn, it(0, 3, 3, 4), it(0, 3, 3, 4)),
                C(f"ops.{name}[scalar]", fn, bl(3, 4), True),
                C(f"ops.{name}[f32]", fn, const([0.0, 1.0, 2.0, 0.0], np.float32), const([0.0, 0.0, 1.0, 3.0],
                                                                                          np.float32))]
    out += [
        C("ops.isclose[f32]", ops.isclose, fl(3, 4), fl(3, 4)),
        C("ops.isclose[near]", ops.isclose, const([1.0, 1.0 + 1e-6, 2.0, np.nan], np.float32),
          const([1.0, 1.0, 2.1, np.nan], np.float32)),
        C("ops.isclose[equal_nan]", ops.isclose, const([1.0, np.nan, np.inf], np.float32),
          const([1.0, np.nan, np.inf], np.float32), kw={"equal_nan": True}),
        C("ops.isclose[tols,bcast]", ops.isclose, fl(3, 4), fl(4), 0.5, 0.5),
        C("ops.allclose[f32]", ops.allclose, fl(3, 4), fl(3, 4)),
        C("ops.allclose[same]", ops.allclose, const(np.ones((3, 4)), np.float32),
          const(np.ones((3, 4)) + 1e-7, np.float32)),
        C("ops.allclose[tols]", ops.allclose, fl(3, 4), fl(3, 4), 10.0, 10.0),
        C("ops.addcdiv[f32]", ops.addcdiv, fl(3, 4), fl(3, 4), nz(3, 4)),
        C("ops.addcdiv[value,bcast]", ops.addcdiv, fl(3, 4), fl(3, 1), nz(4), 0.5),
        C("ops.addcdiv[tensor value]", ops.addcdiv, fl(3, 4), fl(3, 4), nz(3, 4), fl(1)),
        C("ops.addcmul[f32]", ops.addcmul, fl(3, 4), fl(3, 4), fl(3, 4)),
        C("ops.addcmul[value,bcast]", ops.addcmul, fl(2, 3, 4), fl(3, 1), fl(4), -2.0),
        C("ops.addcmul[tensor value]", ops.addcmul, fl(3, 4), fl(3, 4), fl(3, 4), fl(3, 1)),
        C("ops.lerp[scalar weight]", ops.lerp, fl(3, 4), fl(3, 4), 0.3),
        C("ops.lerp[tensor weight]", ops.lerp, fl(3, 4), fl(3, 4), fl(3, 4, lo=0, hi=1)),
        C("ops.lerp[bcast]", ops.lerp, fl(3, 4), fl(4), fl(3, 1, lo=0, hi=1)),
        C("ops.clamp[min,max]", ops.clamp, fl(3, 4), -0.5, 0.5),
        C("ops.clamp[min only]", ops.clamp, fl(3, 4), kw={"min": 0.0}),
        C("ops.clamp[max only]", ops.clamp, fl(3, 4), kw={"max": 0.2}),
        C("ops.clamp[tensor bounds]", ops.clamp, fl(3, 4), fl(3, 1, lo=-1, hi=0), fl(4, lo=0, hi=1)),
        C("ops.clamp[i32]", ops.clamp, ints(3, 4), -2, 2),
        C("ops.clamp[none]", ops.clamp, fl(3, 4)),
        C("ops.clip[min,max]", ops.clip, fl(3, 4), -0.5, 0.5),
        C("ops.clip[tensor bounds]", ops.clip, fl(3, 4), fl(3, 4, lo=-1, hi=0), fl(3, 4, lo=0, hi=1)),
        C("ops.clip[i32 min]", ops.clip, ints(3, 4), 0),
    ]
    return out


@_functions
def _reduction_functions() -> list[Case]:
    out: list[Case] = []
    for name in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"):
        fn = getattr(ops, name)
        out += [C(f"ops.{name}[all]", fn, fl(3, 4)),
                C(f"ops.{name}[axis=1]", fn, fl(3, 4), 1),
                C(f"ops.{name}[axis=-1,keep]", fn, fl(2, 3, 4), -1, True),
                C(f"ops.{name}[axes tuple]", fn, fl(2, 3, 4), (0, 2), kw={"keep_dims": True}),
                C(f"ops.{name}[i32]", fn, ints(3, 4), 0)]
    for name in ("mean", "prod"):
        fn = getattr(ops, name)
        out += [C(f"ops.{name}[all]", fn, fl(3, 4)),
                C(f"ops.{name}[axis=0]", fn, fl(3, 4), 0),
                C(f"ops.{name}[axis=-1,keep]", fn, fl(2, 3, 4), -1, True),
                C(f"ops.{name}[axes tuple]", fn, fl(2, 3, 4), (0, -1)),
                C(f"ops.{name}[f64]", fn, fl(2, 3, dt=np.float64), 1)]
    out += [C("ops.prod[i32]", ops.prod, ints(3, 4), 1),
            C("ops.prod[dtype]", ops.prod, ints(3, 4), 1, False, f32),
            C("ops.mean[i32]", ops.mean, ints(3, 4), 0)]
    out += [
        C("ops.sum[all]", ops.sum, fl(3, 4)),
        C("ops.sum[dim=1]", ops.sum, fl(3, 4), 1),
        C("ops.sum[dim=-2,keepdim]", ops.sum, fl(2, 3, 4), -2, True),
        C("ops.sum[dims tuple]", ops.sum, fl(2, 3, 4), (0, 2)),
        C("ops.sum[i32]", ops.sum, ints(3, 4), 0),
        C("ops.sum[bool]", ops.sum, bl(3, 4), 1),
        C("ops.sum[dtype]", ops.sum, ints(3, 4), kw={"dtype": f32}),
        C("ops.sum[bad axis]", ops.sum, fl(3, 4), 2),
    ]
    for name in ("all", "any"):
        fn = getattr(ops, name)
        out += [C(f"ops.{name}[all]", fn, bl(3, 4)),
                C(f"ops.{name}[axis=1]", fn, bl(3, 4), 1),
                C(f"ops.{name}[axis=-1,keep]", fn, bl(2, 3, 4), -1, True),
                C(f"ops.{name}[axes tuple]", fn, bl(2, 3, 4), (0, 1)),
                C(f"ops.{name}[f32]", fn, const([[0.0, 1.0], [0.0, 0.0]], np.float32), 1),
                C(f"ops.{name}[i32]", fn, it(0, 2, 3, 4), 0)]
    for name in ("amax", "amin"):
        fn = getattr(ops, name)
        out += [C(f"ops.{name}[all]", fn, fl(3, 4)),
                C(f"ops.{name}[axis=0]", fn, fl(3, 4), 0),
                C(f"ops.{name}[axis=-1,keep]", fn, fl(2, 3, 4), -1, True),
                C(f"ops.{name}[axes tuple]", fn, fl(2, 3, 4), (0, 2)),
                C(f"ops.{name}[i32]", fn, ints(3, 4), 1),
                C(f"ops.{name}[initial]", fn, fl(3, 4), 1, kw={"initial": 0.5}),
                C(f"ops.{name}[where]", fn, fl(3, 4), 1, kw={"initial": 0.0, "where": bl(3, 4)})]
    for name in ("max", "min"):
        fn = getattr(ops, name)
        out += [C(f"ops.{name}[all]", fn, fl(3, 4)),
                C(f"ops.{name}[axis=0]", fn, fl(3, 4), 0),
                C(f"ops.{name}[axis=-1,keep]", fn, fl(2, 3, 4), -1, True),
                C(f"ops.{name}[i32]", fn, ints(3, 4), 1),
                C(f"ops.{name}[ties]", fn, const([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], np.float32), 1),
                C(f"ops.{name}[initial]", fn, fl(3, 4), 1, kw={"initial": 0.5})]
    for name, kw_axis, kw_keep in (("argmax", "dim", "keepdim"), ("argmin", "axis", "keepdims")):
        fn = getattr(ops, name)
        out += [C(f"ops.{name}[all]", fn, fl(3, 4)),
                C(f"ops.{name}[axis=1]", fn, fl(3, 4), 1),
                C(f"ops.{name}[axis=-1,keep]", fn, fl(2, 3, 4), kw={kw_axis: -1, kw_keep: True}),
                C(f"ops.{name}[i32]", fn, ints(3, 4), 0),
                C(f"ops.{name}[ties]", fn, const([[1.0, 3.0, 3.0], [0.0, 0.0, 0.0]], np.float32), 1)]
    out += [
        C("ops.cumsum[axis=0]", ops.cumsum, fl(3, 4), 0),
        C("ops.cumsum[axis=-1]", ops.cumsum, fl(2, 3, 4), -1),
        C("ops.cumsum[i32]", ops.cumsum, ints(3, 4), 1),
        C("ops.cumsum[dtype]", ops.cumsum, ints(3, 4), 1, f32),
        C("ops.cumsum[bool]", ops.cumsum, bl(3, 4), 1),
        C("ops.logsumexp[axis=1]", ops.logsumexp, fl(3, 4), 1),
        C("ops.logsumexp[axis=-1,keep]", ops.logsumexp, fl(2, 3, 4), -1, True),
        C("ops.logsumexp[axes tuple]", ops.logsumexp, fl(2, 3, 4), (0, 2)),
        C("ops.logsumexp[large]", ops.logsumexp, fl(3, 4, lo=80, hi=100), 1),
        C("ops.norm[all]", ops.norm, fl(3, 4)),
        C("ops.norm[dim=1]", ops.norm, fl(3, 4), None, 1),
        C("ops.norm[ord=1,dim=-1,keep]", ops.norm, fl(2, 3, 4), 1, -1, True),
        C("ops.norm[ord=inf]", ops.norm, fl(3, 4), float("inf"), 1),
        C("ops.norm[fro]", ops.norm, fl(3, 4), "fro"),
        C("ops.norm[nuc]", ops.norm, fl(3, 4), "nuc"),
        C("ops.norm[matrix ord=2]", ops.norm, fl(3, 4), 2, (0, 1), rtol=1e-4),
        C("ops.norm[ord=0]", ops.norm, const([0.0, 1.0, -2.0, 0.0], np.float32), 0),
    ]
    for name in ("std", "var", "std_mean", "var_mean"):
        fn = getattr(ops, name)
        out += [C(f"ops.{name}[all]", fn, fl(3, 4)),
                C(f"ops.{name}[axis=1]", fn, fl(3, 4), 1),
                C(f"ops.{name}[axis=-1,ddof=1,keep]", fn, fl(2, 3, 4), -1, 1, True),
                C(f"ops.{name}[axes tuple,ddof=True]", fn, fl(2, 3, 4), (0, 2), True),
                C(f"ops.{name}[f64]", fn, fl(4, 5, dt=np.float64), 0)]
    out += [
        C("ops.argsort[default]", ops.argsort, fl(3, 4)),
        C("ops.argsort[axis=0,desc]", ops.argsort, fl(3, 4), 0, True),
        C("ops.argsort[i32 ties]", ops.argsort, it(0, 3, 2, 6), -1),
        C("ops.argsort[3d]", ops.argsort, fl(2, 3, 4), 1),
        C("ops.sort[default]", ops.sort, fl(3, 4)),
        C("ops.sort[axis=0,desc]", ops.sort, fl(3, 4), 0, True),
        C("ops.sort[i32 ties]", ops.sort, it(0, 3, 2, 6), -1),
        C("ops.sort[nan]", ops.sort, special(2, 5)),
        C("ops.topk[k=2]", ops.topk, fl(3, 5), 2),
        C("ops.topk[dim=0,smallest]", ops.topk, fl(4, 3), 2, 0, False),
        C("ops.topk[unsorted]", ops.topk, fl(3, 5), 3, kw={"sorted": False}),
        C("ops.topk[i32 ties]", ops.topk, it(0, 3, 3, 6), 3),
        C("ops.topk[k too big]", ops.topk, fl(3, 4), 5),
    ]
    return out


@_functions
def _shape_functions() -> list[Case]:
    return [
        C("ops.reshape[tuple]", ops.reshape, fl(3, 4), (4, 3)),
        C("ops.reshape[-1]", ops.reshape, fl(2, 3, 4), (-1, 4)),
        C("ops.reshape[varargs]", ops.reshape, fl(2, 3, 4), 6, 4),
        C("ops.reshape[i32 to 0d]", ops.reshape, ints(1), ()),
        C("ops.reshape[bad]", ops.reshape, fl(3, 4), (5, 3)),
        C("ops.reshape[tensor shape]", ops.reshape, fl(3, 4), const([2, 6], np.int64)),
        C("ops.ravel[2d]", ops.ravel, fl(3, 4)),
        C("ops.ravel[3d i32]", ops.ravel, ints(2, 3, 4)),
        C("ops.ravel[0d]", ops.ravel, fl()),
        C("ops.flatten[default]", ops.flatten, fl(2, 3, 4)),
        C("ops.flatten[start,end]", ops.flatten, fl(2, 3, 4, 5), kw={"start_dim": 0, "end_dim": 2}),
        C("ops.flatten[order F]", ops.flatten, fl(2, 3, 4), "F"),
        C("ops.flatten[1d]", ops.flatten, fl(5), kw={"start_dim": 0}),
        C("ops.squeeze[all]", ops.squeeze, fl(1, 3, 1, 4)),
        C("ops.squeeze[axis]", ops.squeeze, fl(1, 3, 1, 4), 2),
        C("ops.squeeze[axis -4 tuple]", ops.squeeze, fl(1, 3, 1, 4), (-4, 2)),
        C("ops.squeeze[bad axis]", ops.squeeze, fl(1, 3, 4), 1),
        C("ops.expand_dims[0]", ops.expand_dims, fl(3, 4), 0),
        C("ops.expand_dims[-1]", ops.expand_dims, ints(3, 4), -1),
        C("ops.expand_dims[1 of 0d]", ops.expand_dims, fl(), 0),
        C("ops.unsqueeze[1]", ops.unsqueeze, fl(3, 4), 1),
        C("ops.unsqueeze[-1]", ops.unsqueeze, fl(3, 4), -1),
        C("ops.unsqueeze[bool]", ops.unsqueeze, bl(3), 0),
        C("ops.transpose[2d]", ops.transpose, fl(3, 4), (1, 0)),
        C("ops.transpose[3d]", ops.transpose, fl(2, 3, 4), (2, 0, 1)),
        C("ops.transpose[neg]", ops.transpose, ints(2, 3, 4), (-1, -3, -2)),
        C("ops.permute[varargs]", ops.permute, fl(2, 3, 4), 2, 0, 1),
        C("ops.permute[tuple]", ops.permute, fl(2, 3, 4), (1, 2, 0)),
        C("ops.permute[neg]", ops.permute, fl(2, 3, 4), (-1, 0, 1)),
        C("ops.swapaxes[0,1]", ops.swapaxes, fl(3, 4), 0, 1),
        C("ops.swapaxes[neg]", ops.swapaxes, fl(2, 3, 4), -1, 0),
        C("ops.swapaxes[same]", ops.swapaxes, fl(2, 3, 4), 1, 1),
        C("ops.swapdims[0,1]", ops.swapdims, fl(3, 4), 0, 1),
        C("ops.swapdims[neg]", ops.swapdims, fl(2, 3, 4), -1, -3),
        C("ops.swapdims[i32]", ops.swapdims, ints(2, 3, 4), 2, 1),
        C("ops.moveaxis[int]", ops.moveaxis, fl(2, 3, 4), 0, -1),
        C("ops.moveaxis[tuple]", ops.moveaxis, fl(2, 3, 4), (0, 1), (2, 0)),
        C("ops.moveaxis[same]", ops.moveaxis, ints(2, 3), 1, -1),
        C("ops.movedim[int]", ops.movedim, fl(2, 3, 4), -1, 0),
        C("ops.movedim[tuple]", ops.movedim, fl(2, 3, 4), (0, 2), (1, 0)),
        C("ops.movedim[bad]", ops.movedim, fl(2, 3), 2, 0),
        C("ops.flip[0]", ops.flip, fl(3, 4), (0,)),
        C("ops.flip[both]", ops.flip, fl(3, 4), (0, 1)),
        C("ops.flip[neg int]", ops.flip, ints(2, 3, 4), -1),
        C("ops.fliplr[2d]", ops.fliplr, fl(3, 4)),
        C("ops.fliplr[3d]", ops.fliplr, ints(2, 3, 4)),
        C("ops.fliplr[bool]", ops.fliplr, bl(3, 2)),
        C("ops.flipud[2d]", ops.flipud, fl(3, 4)),
        C("ops.flipud[1d]", ops.flipud, ints(5)),
        C("ops.flipud[3d]", ops.flipud, fl(2, 3, 4)),
        C("ops.roll[int]", ops.roll, fl(3, 4), 1),
        C("ops.roll[dims]", ops.roll, fl(3, 4), 2, 1),
        C("ops.roll[tuple neg]", ops.roll, fl(2, 3, 4), (1, -2), (0, -1)),
        C("ops.roll[big shift]", ops.roll, ints(5), 7, 0),
        C("ops.tile[2d]", ops.tile, fl(2, 3), (2, 2)),
        C("ops.tile[more dims]", ops.tile, fl(2, 3), (2, 1, 2)),
        C("ops.tile[fewer dims]", ops.tile, ints(2, 3), (3,)),
        C("ops.broadcast_to[rows]", ops.broadcast_to, fl(1, 4), (3, 4)),
        C("ops.broadcast_to[-1]", ops.broadcast_to, fl(3, 1), (2, -1, 4)),
        C("ops.broadcast_to[scalar]", ops.broadcast_to, fl(), (2, 3)),
        C("ops.broadcast_to[bad]", ops.broadcast_to, fl(3, 2), (3, 4)),
        C("ops.sum_to[rows]", ops.sum_to, fl(3, 4), (1, 4)),
        C("ops.sum_to[lead]", ops.sum_to, fl(2, 3, 4), (3, 4)),
        C("ops.sum_to[scalar]", ops.sum_to, fl(2, 3), ()),
        C("ops.sum_to[same]", ops.sum_to, fl(2, 3), (2, 3)),
        C("ops.narrow[0]", ops.narrow, fl(4, 5), 0, 1, 2),
        C("ops.narrow[-1]", ops.narrow, fl(2, 3, 4), -1, 2, 2),
        C("ops.narrow[bad]", ops.narrow, fl(4, 5), 1, 4, 3),
        C("ops.slice[2d]", ops.slice, fl(4, 5), (1, 0), (2, 3)),
        C("ops.slice[-1 size]", ops.slice, fl(2, 3, 4), (0, 1, 1), (-1, 2, -1)),
        C("ops.slice[i32]", ops.slice, ints(4, 5), [0, 2], [4, 1]),
        C("ops.strided_slice[basic]", ops.strided_slice, fl(4, 5), (0, 1), (4, 5), (2, 2)),
        C("ops.strided_slice[neg stride]", ops.strided_slice, fl(4, 5), (3, 4), (0, 0), (-1, -2)),
        C("ops.strided_slice[masks]", ops.strided_slice, fl(2, 3, 4), (1, 0, 0), (2, 3, 4), (1, 1, 1),
          kw={"begin_mask": 2, "end_mask": 4, "shrink_axis_mask": 1}),
        C("ops.strided_slice[new_axis,ellipsis]", ops.strided_slice, fl(2, 3, 4), (0, 0, 1), (1, 1, 3), (1, 1, 1),
          kw={"new_axis_mask": 1, "ellipsis_mask": 2}),
        C("ops.split[int]", ops.split, fl(4, 3), 2),
        C("ops.split[sections]", ops.split, fl(3, 5), [2, 3], 1),
        C("ops.split[uneven]", ops.split, fl(5, 2), 2),
        C("ops.split[neg axis]", ops.split, ints(2, 6), 3, -1),
        C("ops.chunk[even]", ops.chunk, fl(4, 3), 2),
        C("ops.chunk[uneven axis]", ops.chunk, fl(3, 5), 3, 1),
        C("ops.chunk[neg axis]", ops.chunk, ints(2, 3, 4), 2, -1),
        C("ops.tensor_split[sections]", ops.tensor_split, fl(5, 3), 3),
        C("ops.tensor_split[indices]", ops.tensor_split, fl(3, 6), (1, 4), 1),
        C("ops.tensor_split[indices past end]", ops.tensor_split, fl(5), [2, 9]),
        C("ops.unbind[0]", ops.unbind, fl(3, 4)),
        C("ops.unbind[-1]", ops.unbind, fl(2, 3, 4), -1),
        C("ops.unbind[i32]", ops.unbind, ints(2, 3), 1),
        C("ops.unstack[0]", ops.unstack, fl(3, 4)),
        C("ops.unstack[-1]", ops.unstack, fl(2, 3, 4), -1),
        C("ops.unstack[bool]", ops.unstack, bl(2, 3), 1),
        C("ops.concat[axis 0]", concat2, fl(2, 3), fl(1, 3)),
        C("ops.concat[axis -1]", concat2, fl(2, 3), fl(2, 2), -1),
        C("ops.concat[list of 3]", concat3_list, ints(2, 3), ints(2, 3), ints(2, 3), 1),
        C("ops.concat[mixed dtypes]", concat2, fl(2, 3), ints(2, 3)),
        C("ops.cat[axis 0]", cat2, fl(2, 3), fl(1, 3)),
        C("ops.cat[axis 1]", cat2, fl(2, 3, 4), fl(2, 1, 4), 1),
        C("ops.cat[i32]", cat2, ints(2, 3), ints(2, 3), -1),
        C("ops.stack[axis 0]", stack2, fl(2, 3), fl(2, 3)),
        C("ops.stack[axis -1]", stack2, fl(2, 3), fl(2, 3), -1),
        C("ops.stack[list of 3]", stack3, ints(3), ints(3), ints(3), 1),
        C("ops.hstack[2d]", hstack2, fl(2, 3), fl(2, 2)),
        C("ops.hstack[1d]", hstack2, fl(3), fl(2)),
        C("ops.hstack[i32]", hstack2, ints(2, 1), ints(2, 3)),
        C("ops.vstack[2d]", vstack2, fl(2, 3), fl(1, 3)),
        C("ops.vstack[1d]", vstack2, fl(3), fl(3)),
        C("ops.vstack[i32]", vstack2, ints(2, 3), ints(2, 3)),
        C("ops.meshgrid[xy]", meshgrid2, fl(3), fl(4)),
        C("ops.meshgrid[ij]", meshgrid2, fl(3), ints(2), "ij"),
        C("ops.meshgrid[3 inputs]", meshgrid3, fl(2), fl(3), fl(4)),
        C("ops.repeat_interleave[int]", ops.repeat_interleave, fl(2, 3), 2),
        C("ops.repeat_interleave[axis]", ops.repeat_interleave, fl(2, 3), 2, 1),
        C("ops.repeat_interleave[list]", ops.repeat_interleave, fl(3, 2), [1, 0, 2], 0),
        C("ops.repeat_interleave[tensor repeats]", ops.repeat_interleave, fl(3, 2), const([2, 1, 3], np.int32), 0),
        C("ops.pad[constant]", ops.pad, fl(2, 3), (1, 2)),
        C("ops.pad[2 dims value]", ops.pad, fl(2, 3), (1, 0, 0, 2), "constant", 1.5),
        C("ops.pad[reflect]", ops.pad, fl(1, 3, 4), (1, 2), "reflect"),
        C("ops.pad[replicate]", ops.pad, fl(1, 3, 4), (2, 1, 1, 1), "replicate"),
        C("ops.pad[circular]", ops.pad, fl(1, 2, 4), (1, 2), "circular"),
        C("ops.pad[negative]", ops.pad, fl(3, 5), (-1, 1)),
        C("ops.pad[i32]", ops.pad, ints(2, 3), (1, 1), "constant", 7),
        C("ops.shape[2d]", ops.shape, fl(3, 4)),
        C("ops.shape[0d]", ops.shape, fl()),
        C("ops.shape[arith]", ops.shape, ints(2, 3, 4)),
        C("ops.rank[2d]", ops.rank, fl(3, 4)),
        C("ops.rank[0d]", ops.rank, fl()),
        C("ops.rank[3d]", ops.rank, bl(2, 3, 4)),
        C("ops.size[2d]", ops.size, fl(3, 4)),
        C("ops.size[0d]", ops.size, ints()),
        C("ops.size[empty]", ops.size, fl(0, 3)),
        C("ops.numel[2d]", ops.numel, fl(3, 4)),
        C("ops.numel[3d]", ops.numel, ints(2, 3, 4)),
        C("ops.numel[0d]", ops.numel, fl()),
    ]


@_functions
def _creation_functions() -> list[Case]:
    shape23 = const([2, 3], np.int64)
    return [
        C("ops.zeros[tuple]", ops.zeros, (2, 3)),
        C("ops.zeros[int,dtype]", ops.zeros, 4, i32),
        C("ops.zeros[list,bool]", ops.zeros, [2, 2], ms.bool_),
        C("ops.zeros[tensor shape]", ops.zeros, shape23),
        C("ops.zeros[0d]", ops.zeros, ()),
        C("ops.ones[tuple]", ops.ones, (2, 3)),
        C("ops.ones[int,dtype]", ops.ones, 3, i64),
        C("ops.ones[tensor shape]", ops.ones, shape23, f64),
        C("ops.ones[empty dim]", ops.ones, (0, 3)),
        C("ops.full[float]", ops.full, (2, 3), 1.5),
        C("ops.full[int]", ops.full, (2, 3), 7),
        C("ops.full[bool]", ops.full, (3,), True),
        C("ops.full[dtype]", ops.full, (2, 2), 3, kw={"dtype": f32}),
        C("ops.full[tensor value]", ops.full, (2, 3), fl()),
        C("ops.full[tensor shape]", ops.full, shape23, 2.0),
        C("ops.fill[f32]", ops.fill, f32, (2, 3), 1.5),
        C("ops.fill[i32]", ops.fill, i32, (4,), 7),
        C("ops.fill[none dtype]", ops.fill, None, (2, 2), 2.5),
        C("ops.fill[tensor value]", ops.fill, f32, (2, 3), fl()),
        C("ops.empty[varargs]", ops.empty, 2, 3),
        C("ops.empty[tuple,dtype]", ops.empty, (2, 3), kw={"dtype": i32}),
        C("ops.empty[tensor shape]", ops.empty, shape23),
        C("ops.eye[n]", ops.eye, 3),
        C("ops.eye[n,m]", ops.eye, 2, 4),
        C("ops.eye[dtype]", ops.eye, 3, 3, i32),
        C("ops.eye[bool]", ops.eye, 2, 3, ms.bool_),
        C("ops.arange[end]", ops.arange, 5),
        C("ops.arange[start,end,step]", ops.arange, 1, 10, 3),
        C("ops.arange[float]", ops.arange, 0.0, 1.0, 0.25),
        C("ops.arange[neg step]", ops.arange, 5, -3, -2),
        C("ops.arange[dtype]", ops.arange, 0, 6, kw={"dtype": f32}),
        C("ops.arange[tensor end]", ops.arange, const(5, np.int64)),
        C("ops.arange[tensor start,end]", ops.arange, const(1.0, np.float32), const(3.0, np.float32), 0.5),
        C("ops.arange[zero step]", ops.arange, 0, 5, 0),
        C("ops.range[int]", ops.range, 0, 10, 3),
        C("ops.range[float]", ops.range, 1.0, 2.0, 0.25),
        C("ops.range[tensors]", ops.range, const(2, np.int32), const(9, np.int32), const(2, np.int32)),
        C("ops.range[neg]", ops.range, 4, -4, -3),
        C("ops.linspace[basic]", ops.linspace, 0.0, 1.0, 5),
        C("ops.linspace[one step]", ops.linspace, 2.0, 3.0, 1),
        C("ops.linspace[tensors]", ops.linspace, const(-1.0, np.float32), const(1.0, np.float32), 4),
        C("ops.linspace[reverse int]", ops.linspace, 5, 1, 3),
        C("ops.logspace[basic]", ops.logspace, 0.0, 2.0, 3),
        C("ops.logspace[base 2]", ops.logspace, 0, 4, 5, 2.0),
        C("ops.logspace[dtype]", ops.logspace, -1.0, 1.0, 3, kw={"dtype": f64}),
        C("ops.logspace[tensors]", ops.logspace, const(0.0, np.float32), const(1.0, np.float32), 3),
        C("ops.zeros_like[f32]", ops.zeros_like, fl(2, 3)),
        C("ops.zeros_like[i32]", ops.zeros_like, ints(3)),
        C("ops.zeros_like[dtype]", ops.zeros_like, fl(2, 3), kw={"dtype": i64}),
        C("ops.ones_like[f32]", ops.ones_like, fl(2, 3)),
        C("ops.ones_like[bool]", ops.ones_like, bl(3)),
        C("ops.ones_like[dtype]", ops.ones_like, ints(2, 3), kw={"dtype": f32}),
        C("ops.full_like[float]", ops.full_like, fl(2, 3), 2.5),
        C("ops.full_like[int into float]", ops.full_like, fl(2, 3), 3),
        C("ops.full_like[float into int]", ops.full_like, ints(2, 3), 2.7),
        C("ops.full_like[dtype]", ops.full_like, ints(2, 3), 1, kw={"dtype": ms.bool_}),
        C("ops.full_like[tensor value]", ops.full_like, fl(2, 3), fl()),
        C("ops.empty_like[f32]", ops.empty_like, fl(2, 3)),
        C("ops.empty_like[i32]", ops.empty_like, ints(4)),
        C("ops.empty_like[dtype]", ops.empty_like, fl(2, 3), kw={"dtype": f64}),
        C("ops.cast[f32->i32]", ops.cast, fl(3, 4, lo=-5, hi=5), i32),
        C("ops.cast[i32->f32]", ops.cast, ints(3, 4), f32),
        C("ops.cast[f32->bool]", ops.cast, const([0.0, 0.5, -1.0], np.float32), ms.bool_),
        C("ops.cast[bool->f32]", ops.cast, bl(3, 4), f32),
        C("ops.cast[f32->f16]", ops.cast, fl(3, 4), ms.float16, rtol=1e-3, atol=1e-3),
        C("ops.cast[i64->i32]", ops.cast, ints(3, dt=np.int64), i32),
        C("ops.cast[f64->f32]", ops.cast, fl(3, dt=np.float64), f32),
        C("ops.cast[same]", ops.cast, fl(3), f32),
        C("ops.one_hot[default]", ops.one_hot, it(0, 4, 5), 4),
        C("ops.one_hot[values]", ops.one_hot, it(0, 3, 2, 3), 3, 2.0, -1.0),
        C("ops.one_hot[axis 0]", ops.one_hot, it(0, 3, 4), 3, 1, 0, 0),
        C("ops.one_hot[tensor on/off]", ops.one_hot, it(0, 4, 5), 4, const(1.0, np.float32),
          const(0.0, np.float32)),
        C("ops.one_hot[out of range]", ops.one_hot, const([0, 3, 5, -1], np.int32), 4),
        C("ops.one_hot[i64 indices]", ops.one_hot, it(0, 5, 2, 2, dt=np.int64), 5, kw={"axis": 1}),
    ]


@_functions
def _random_functions() -> list[Case]:
    R = {"seeded": True}
    return [
        C("ops.rand[varargs]", ops.rand, 2, 3, **R),
        C("ops.rand[tuple,dtype]", ops.rand, (3, 2), kw={"dtype": f64}, **R),
        C("ops.rand[seed]", ops.rand, 4, kw={"seed": 5}, **R),
        C("ops.randn[varargs]", ops.randn, 2, 3, **R),
        C("ops.randn[tuple]", ops.randn, (4,), **R),
        C("ops.randn[seed]", ops.randn, 2, 2, kw={"seed": 3}, **R),
        C("ops.randint[basic]", ops.randint, 0, 5, (3, 4), **R),
        C("ops.randint[neg,dtype]", ops.randint, -3, 3, (5,), kw={"dtype": i32}, **R),
        C("ops.randint[seed]", ops.randint, 0, 10, (2, 2), 11, **R),
        C("ops.rand_like[f32]", ops.rand_like, fl(2, 3), **R),
        C("ops.rand_like[dtype]", ops.rand_like, fl(2, 3), kw={"dtype": f64}, **R),
        C("ops.rand_like[seed]", ops.rand_like, fl(4), 2, **R),
        C("ops.randn_like[f32]", ops.randn_like, fl(2, 3), **R),
        C("ops.randn_like[seed]", ops.randn_like, fl(3), 4, **R),
        C("ops.randn_like[dtype]", ops.randn_like, fl(2, 2, dt=np.float64), kw={"dtype": f32}, **R),
        C("ops.randint_like[basic]", ops.randint_like, fl(2, 3), 0, 5, **R),
        C("ops.randint_like[i32]", ops.randint_like, ints(4), -2, 2, **R),
        C("ops.randint_like[dtype]", ops.randint_like, fl(3), 0, 3, kw={"dtype": i64}, **R),
        C("ops.randperm[global]", ops.randperm, 6, **R),
        C("ops.randperm[seed]", ops.randperm, 5, 3, **R),
        C("ops.randperm[seed,offset,dtype]", ops.randperm, 4, 1, 2, i32, **R),
        C("ops.normal[scalars]", ops.normal, (3, 4), 0.0, 1.0, **R),
        C("ops.normal[tensors]", ops.normal, (2, 3), fl(2, 3), pos(1, 3), **R),
        C("ops.normal[seed]", ops.normal, (4,), 1.0, 2.0, 7, **R),
        C("ops.uniform[tensors]", ops.uniform, (3, 4), const(0.0, np.float32), const(1.0, np.float32), **R),
        C("ops.uniform[bcast]", ops.uniform, (2, 3), fl(2, 1, lo=-2, hi=-1), fl(3, lo=1, hi=2), **R),
        C("ops.uniform[seed]", ops.uniform, (5,), const(-1.0, np.float32), const(1.0, np.float32), 4, **R),
        C("ops.uniform[int]", ops.uniform, (2, 3), const(0, np.int32), const(10, np.int32), 1, i32, **R),
        C("ops.dropout[train]", ops.dropout, fl(4, 5), **R),
        C("ops.dropout[p=0.2]", ops.dropout, fl(4, 5), 0.2, **R),
        C("ops.dropout[eval]", ops.dropout, fl(4, 5), 0.5, False, **R),
        C("ops.dropout[p=0]", ops.dropout, fl(3, 4), 0.0, **R),
        C("ops.dropout[seed]", ops.dropout, fl(3, 4), 0.5, True, 9, **R),
        C("ops.dropout[p=1]", ops.dropout, fl(3, 4), 1.0, **R),
    ]


@_functions
def _index_functions() -> list[Case]:
    oob = const([0, 4, -1, 2], np.int32)           # 4 is out of range for a size-4 axis
    neg = const([-1, 0, -3], np.int32)
    i64 = np.int64
    return [
        # gather(params, indices, axis, batch_dims)
        C("ops.gather[axis 0]", ops.gather, fl(4, 3), it(0, 4, 5), 0),
        C("ops.gather[axis 1,2d idx]", ops.gather, fl(3, 4), it(0, 4, 2, 2), 1),
        C("ops.gather[axis -1]", ops.gather, fl(2, 3, 4), it(0, 4, 3), -1),
        C("ops.gather[i64 idx]", ops.gather, ints(4, 3), it(0, 4, 3, dt=i64), 0),
        C("ops.gather[neg idx]", ops.gather, fl(4, 3), neg, 0),
        C("ops.gather[oob]", ops.gather, fl(4, 3), oob, 0),
        C("ops.gather[batch_dims]", ops.gather, fl(2, 4, 3), it(0, 4, 2, 2), 1, 1),
        C("ops.gather[scalar idx]", ops.gather, fl(4, 3), const(2, np.int32), 0),
        C("ops.gather[list idx]", ops.gather, fl(4, 3), [3, 0, 0], 0),
        C("ops.gather[float idx]", ops.gather, fl(4, 3), fl(2), 0),
        # gather_d / gather_elements(x, dim, index)
        C("ops.gather_d[dim 1]", ops.gather_d, fl(3, 4), 1, it(0, 4, 3, 2)),
        C("ops.gather_d[dim 0]", ops.gather_d, fl(3, 4), 0, it(0, 3, 2, 4)),
        C("ops.gather_d[neg dim,i64]", ops.gather_d, fl(2, 3, 4), -1, it(0, 4, 2, 3, 4, dt=i64)),
        C("ops.gather_d[neg idx]", ops.gather_d, fl(3, 4), 1, const([[-1, 0], [-4, 1], [2, -2]], np.int32)),
        C("ops.gather_d[oob]", ops.gather_d, fl(3, 4), 1, const([[4, 0], [0, 1], [2, 2]], np.int32)),
        C("ops.gather_elements[dim 1]", ops.gather_elements, fl(3, 4), 1, it(0, 4, 3, 4)),
        C("ops.gather_elements[dim 0]", ops.gather_elements, ints(3, 4), 0, it(0, 3, 2, 4)),
        C("ops.gather_elements[neg dim]", ops.gather_elements, fl(2, 3, 4), -2, it(0, 3, 2, 2, 4)),
        C("ops.gather_elements[neg idx]", ops.gather_elements, fl(3, 4), 0, const([[-1, 0, 1, -3]], np.int32)),
        C("ops.gather_elements[oob]", ops.gather_elements, fl(3, 4), 0, const([[3, 0, 1, 2]], np.int32)),
        C("ops.gather_elements[bad rank]", ops.gather_elements, fl(3, 4), 0, it(0, 3, 4)),
        # gather_nd(x, indices)
        C("ops.gather_nd[full]", ops.gather_nd, fl(3, 4), const([[0, 1], [2, 3], [1, 0]], np.int32)),
        C("ops.gather_nd[rows]", ops.gather_nd, fl(3, 4), it(0, 3, 2, 1)),
        C("ops.gather_nd[3d partial,i64]", ops.gather_nd, fl(2, 3, 4), it(0, 2, 2, 2, 2, dt=i64)),
        C("ops.gather_nd[neg]", ops.gather_nd, fl(3, 4), const([[-1, -1], [0, -4]], np.int32)),
        C("ops.gather_nd[oob]", ops.gather_nd, fl(3, 4), const([[3, 0], [0, 0]], np.int32)),
        C("ops.gather_nd[k too big]", ops.gather_nd, fl(3, 4), it(0, 2, 2, 3)),
        # index_select(x, axis, index)
        C("ops.index_select[axis 0]", ops.index_select, fl(4, 3), 0, it(0, 4, 3)),
        C("ops.index_select[axis -1]", ops.index_select, fl(2, 3, 4), -1, it(0, 4, 5)),
        C("ops.index_select[i64,dups]", ops.index_select, ints(4, 3), 1, const([2, 2, 0], np.int64)),
        C("ops.index_select[neg]", ops.index_select, fl(4, 3), 0, neg),
        C("ops.index_select[oob]", ops.index_select, fl(4, 3), 0, oob),
        C("ops.index_select[2d index]", ops.index_select, fl(4, 3), 0, it(0, 4, 2, 2)),
        # take(x, indices, axis, mode)
        C("ops.take[flat]", ops.take, fl(3, 4), it(0, 12, 5)),
        C("ops.take[axis 1]", ops.take, fl(3, 4), it(0, 4, 2, 2), 1),
        C("ops.take[axis -1,i64]", ops.take, fl(2, 3, 4), it(0, 4, 3, dt=i64), -1),
        C("ops.take[clip,neg]", ops.take, fl(3, 4), const([-1, 0, 13, 5], np.int32), None, "clip"),
        C("ops.take[clip,axis,oob]", ops.take, fl(3, 4), oob, 1, "clip"),
        C("ops.take[wrap,neg]", ops.take, fl(3, 4), const([-1, 0, 13, -14], np.int32), kw={"mode": "wrap"}),
        C("ops.take[wrap,axis,oob]", ops.take, fl(3, 4), oob, 0, "wrap"),
        C("ops.take[raise,in range]", ops.take, fl(3, 4), const([-1, 0, 11], np.int32), None, "raise"),
        C("ops.take[raise,oob]", ops.take, fl(3, 4), const([0, 12], np.int32), None, "raise"),
        C("ops.take[raise,axis,oob]", ops.take, fl(3, 4), oob, 1, "raise"),
        C("ops.take[bad mode]", ops.take, fl(3, 4), oob, 1, "nearest"),
        # scatter(x, axis, index, src)
        C("ops.scatter[axis 1]", ops.scatter, fl(3, 4), 1, it(0, 4, 3, 1), fl(3, 1)),
        C("ops.scatter[axis 0 perm]", ops.scatter, fl(4, 3), 0, G(lambda r: r.permutation(4)[:2, None].repeat(3, 1)
                                                                   .astype(np.int32)), fl(2, 3)),
        C("ops.scatter[neg axis,i64]", ops.scatter, ints(3, 4), -1, G(lambda r: np.stack(
            [r.permutation(4)[:3] for _ in range(3)]).astype(np.int64)), ints(3, 3)),
        C("ops.scatter[neg idx]", ops.scatter, fl(3, 4), 1, const([[-1], [0], [-4]], np.int32), fl(3, 1)),
        C("ops.scatter[oob]", ops.scatter, fl(3, 4), 1, const([[4], [0], [1]], np.int32), fl(3, 1)),
        C("ops.scatter[scalar src]", ops.scatter, fl(3, 4), 1, it(0, 4, 3, 2), 2.5),
        # scatter_nd(indices, updates, shape)
        C("ops.scatter_nd[points]", ops.scatter_nd, const([[0, 1], [2, 3], [1, 0]], np.int32), fl(3), (3, 4)),
        C("ops.scatter_nd[rows]", ops.scatter_nd, const([[2], [0]], np.int32), fl(2, 4), (3, 4)),
        C("ops.scatter_nd[dups add]", ops.scatter_nd, const([[1], [1], [0]], np.int64), fl(3, 2), (3, 2)),
        C("ops.scatter_nd[i32 updates]", ops.scatter_nd, it(0, 4, 5, 1), ints(5), (4,)),
        C("ops.scatter_nd[neg]", ops.scatter_nd, const([[-1], [0]], np.int32), fl(2, 4), (3, 4)),
        C("ops.scatter_nd[oob]", ops.scatter_nd, const([[3], [0]], np.int32), fl(2, 4), (3, 4)),
        C("ops.scatter_nd[list shape]", ops.scatter_nd, const([[0, 0, 1]], np.int32), fl(1), [2, 2, 2]),
        # tensor_scatter_*(x, indices, updates)
        C("ops.tensor_scatter_update[points]", ops.tensor_scatter_update, fl(3, 4),
          const([[0, 1], [2, 3]], np.int32), fl(2)),
        C("ops.tensor_scatter_update[rows,i64]", ops.tensor_scatter_update, ints(3, 4),
          const([[2], [0]], np.int64), ints(2, 4)),
        C("ops.tensor_scatter_update[neg]", ops.tensor_scatter_update, fl(3, 4), const([[-1, -1]], np.int32), fl(1)),
        C("ops.tensor_scatter_update[oob]", ops.tensor_scatter_update, fl(3, 4), const([[3, 0]], np.int32), fl(1)),
        C("ops.tensor_scatter_update[bad updates]", ops.tensor_scatter_update, fl(3, 4),
          const([[0], [1]], np.int32), fl(2, 3)),
        C("ops.tensor_scatter_add[points]", ops.tensor_scatter_add, fl(3, 4), const([[0, 1], [0, 1]], np.int32),
          fl(2)),
        C("ops.tensor_scatter_add[rows]", ops.tensor_scatter_add, ints(3, 4), it(0, 3, 4, 1), ints(4, 4)),
        C("ops.tensor_scatter_add[3d]", ops.tensor_scatter_add, fl(2, 3, 4), it(0, 2, 3, 2), fl(3, 4)),
        C("ops.tensor_scatter_add[neg]", ops.tensor_scatter_add, fl(3, 4), const([[-3], [-1]], np.int32), fl(2, 4)),
        C("ops.tensor_scatter_add[oob]", ops.tensor_scatter_add, fl(3, 4), const([[0], [-4]], np.int32), fl(2, 4)),
        # tensor_scatter_elements(x, indices, updates, axis, reduction)
        C("ops.tensor_scatter_elements[axis 0]", ops.tensor_scatter_elements, fl(3, 4),
          const([[1, 0, 2, 1]], np.int32), fl(1, 4)),
        C("ops.tensor_scatter_elements[axis 1]", ops.tensor_scatter_elements, fl(3, 4), perm(3, 4), fl(3, 4), 1),
        C("ops.tensor_scatter_elements[add]", ops.tensor_scatter_elements, fl(3, 4), it(0, 4, 3, 3), fl(3, 3), 1,
          "add"),
        C("ops.tensor_scatter_elements[neg axis,i64]", ops.tensor_scatter_elements, ints(2, 3),
          perm(2, 3, dt=np.int64), ints(2, 3), -1),
        C("ops.tensor_scatter_elements[neg idx]", ops.tensor_scatter_elements, fl(3, 4),
          const([[-1, 0], [1, -4]], np.int32), fl(2, 2), 1),
        C("ops.tensor_scatter_elements[oob]", ops.tensor_scatter_elements, fl(3, 4),
          const([[4, 0]], np.int32), fl(1, 2), 1),
        # getitem / setitem_
        C("ops.getitem[int]", ops.getitem, fl(3, 4), 1),
        C("ops.getitem[neg int]", ops.getitem, fl(3, 4), -1),
        C("ops.getitem[slice]", ops.getitem, fl(4, 5), (slice(1, None), slice(None, None, -2))),
        C("ops.getitem[none,ellipsis]", ops.getitem, fl(2, 3, 4), (None, Ellipsis, 1)),
        C("ops.getitem[tensor idx]", ops.getitem, fl(4, 3), it(0, 4, 3)),
        C("ops.getitem[neg tensor idx]", ops.getitem, fl(4, 3), neg),
        C("ops.getitem[oob tensor idx]", ops.getitem, fl(4, 3), oob),
        C("ops.getitem[list]", ops.getitem, fl(4, 3), [0, -1, 2]),
        C("ops.getitem[bool mask]", ops.getitem, fl(3, 4), bl(3, 4)),
        C("ops.getitem[oob int]", ops.getitem, fl(3, 4), 3),
        C("ops.setitem_[int]", ops.setitem_, fl(3, 4), 1, 5.0),
        C("ops.setitem_[slice tensor value]", ops.setitem_, fl(3, 4), (slice(None), slice(1, 3)), fl(3, 2)),
        C("ops.setitem_[tensor idx]", ops.setitem_, fl(4, 3), const([0, -1], np.int32), fl(2, 3)),
        C("ops.setitem_[bool mask]", ops.setitem_, fl(3, 4), bl(3, 4), 0.0),
        C("ops.setitem_[in helper]", setitem_then, fl(3, 4), fl(2)),
        # masked / select / where
        C("ops.masked_fill[scalar]", ops.masked_fill, fl(3, 4), bl(3, 4), 0.5),
        C("ops.masked_fill[bcast mask]", ops.masked_fill, fl(3, 4), bl(4), -1.0),
        C("ops.masked_fill[tensor value]", ops.masked_fill, ints(3, 4), bl(3, 1), const(9, np.int32)),
        C("ops.masked_fill[int value into float]", ops.masked_fill, fl(2, 3), bl(2, 3), 2),
        C("ops.masked_select[2d]", ops.masked_select, fl(3, 4), bl(3, 4)),
        C("ops.masked_select[bcast]", ops.masked_select, ints(3, 4), bl(4)),
        C("ops.masked_select[none]", ops.masked_select, fl(3), const([False, False, False])),
        C("ops.select[tensors]", ops.select, bl(3, 4), fl(3, 4), fl(3, 4)),
        C("ops.select[scalar y]", ops.select, bl(3, 4), fl(3, 4), 0.0),
        C("ops.select[i32]", ops.select, bl(3, 4), ints(3, 4), ints(3, 4)),
        C("ops.where[tensors]", ops.where, bl(3, 4), fl(3, 4), fl(3, 4)),
        C("ops.where[bcast]", ops.where, bl(3, 1), fl(1, 4), fl(3, 4)),
        C("ops.where[scalars]", ops.where, bl(3, 4), 1.0, 0.0),
        C("ops.where[mixed dtypes]", ops.where, bl(3, 4), ints(3, 4), fl(3, 4)),
        C("ops.where[i32 scalar]", ops.where, bl(4), ints(4), 0),
        # data-dependent output sizes
        C("ops.nonzero[2d]", ops.nonzero, it(0, 2, 3, 4)),
        C("ops.nonzero[as_tuple]", ops.nonzero, it(0, 2, 3, 4), True),
        C("ops.nonzero[bool 1d]", ops.nonzero, bl(6)),
        C("ops.nonzero[float]", ops.nonzero, const([[0.0, 1.5], [-2.0, 0.0]], np.float32)),
        C("ops.argwhere[2d]", ops.argwhere, it(0, 2, 3, 4)),
        C("ops.argwhere[bool]", ops.argwhere, bl(2, 3, 2)),
        C("ops.argwhere[none]", ops.argwhere, const(np.zeros((2, 2)), np.int32)),
        C("ops.unique[i32]", ops.unique, it(0, 4, 8)),
        C("ops.unique[f32 2d]", ops.unique, const([[1.0, 2.0, 1.0], [0.5, 2.0, -1.0]], np.float32)),
        C("ops.unique[random f32]", ops.unique, fl(6)),
    ]


@_functions
def _nn_functions() -> list[Case]:
    tol = {"rtol": 1e-4, "atol": 1e-5}
    return [
        C("ops.softmax[default]", ops.softmax, fl(3, 4)),
        C("ops.softmax[axis 0]", ops.softmax, fl(3, 4), 0),
        C("ops.softmax[axis tuple]", ops.softmax, fl(2, 3, 4), (1, 2)),
        C("ops.softmax[dtype]", ops.softmax, fl(3, 4), kw={"dtype": f64}),
        C("ops.softmax[large]", ops.softmax, fl(2, 3, lo=500, hi=600), -1),
        C("ops.log_softmax[default]", ops.log_softmax, fl(3, 4)),
        C("ops.log_softmax[axis 0]", ops.log_softmax, fl(3, 4), 0),
        C("ops.log_softmax[3d neg]", ops.log_softmax, fl(2, 3, 4), -2),
        C("ops.log_softmax[f64]", ops.log_softmax, fl(3, 4, dt=np.float64), 1),
        C("ops.matmul[2d]", ops.matmul, fl(3, 4), fl(4, 5), **tol),
        C("ops.matmul[vec]", ops.matmul, fl(4), fl(4, 3), **tol),
        C("ops.matmul[mat vec]", ops.matmul, fl(3, 4), fl(4), **tol),
        C("ops.matmul[batched bcast]", ops.matmul, fl(2, 3, 4), fl(4, 2), **tol),
        C("ops.matmul[i32]", ops.matmul, ints(2, 3), ints(3, 2)),
        C("ops.matmul[bad]", ops.matmul, fl(3, 4), fl(3, 4)),
        C("ops.bmm[3d]", ops.bmm, fl(2, 3, 4), fl(2, 4, 5), **tol),
        C("ops.bmm[4d]", ops.bmm, fl(2, 2, 3, 4), fl(2, 2, 4, 2), **tol),
        C("ops.bmm[f64]", ops.bmm, fl(2, 2, 3, dt=np.float64), fl(2, 3, 2, dt=np.float64)),
        C("ops.dense[bias]", ops.dense, fl(3, 4), fl(5, 4), fl(5), **tol),
        C("ops.dense[no bias]", ops.dense, fl(2, 3, 4), fl(2, 4), **tol),
        C("ops.dense[1d]", ops.dense, fl(4), fl(3, 4), fl(3), **tol),
        C("ops.bias_add[NCHW]", ops.bias_add, fl(2, 3, 4, 4), fl(3)),
        C("ops.bias_add[2d]", ops.bias_add, fl(3, 4), fl(4)),
        C("ops.bias_add[NHWC]", ops.bias_add, fl(2, 4, 4, 3), fl(3), "NHWC"),
        C("ops.conv2d[valid]", ops.conv2d, fl(2, 2, 5, 6), fl(4, 3, 3, 3), **tol),
        C("ops.conv2d[bias,stride,pad]", ops.conv2d, fl(1, 2, 5, 6), fl(3, 2, 3, 3), fl(3), 2, "pad", 1, **tol),
        C("ops.conv2d[same,dilation]", ops.conv2d, fl(1, 2, 6, 6), fl(2, 2, 3, 3), None, 1, "same", 0, 2, **tol),
        C("ops.conv2d[groups]", ops.conv2d, fl(1, 4, 5, 5), fl(4, 2, 3, 3), kw={"groups": 2}, **tol),
        C("ops.conv2d[pad tuple]", ops.conv2d, fl(1, 1, 5, 5), fl(2, 1, 2, 2), None, (1, 2), "pad", (0, 1, 1, 0),
          **tol),
        C("ops.conv1d[valid]", ops.conv1d, fl(2, 3, 8), fl(4, 3, 3), **tol),
        C("ops.conv1d[bias,pad,stride]", ops.conv1d, fl(1, 2, 7), fl(3, 2, 3), fl(3), 2, "pad", 1, **tol),
        C("ops.conv1d[same,groups]", ops.conv1d, fl(1, 4, 6), fl(4, 2, 3), None, 1, "same", kw={"groups": 2}, **tol),
        C("ops.avg_pool2d[k2]", ops.avg_pool2d, fl(1, 2, 4, 4), 2, 2),
        C("ops.avg_pool2d[pad,ceil]", ops.avg_pool2d, fl(1, 2, 5, 5), 3, 2, 1, True),
        C("ops.avg_pool2d[no pad count]", ops.avg_pool2d, fl(1, 1, 5, 5), 3, 2, 1, False, False),
        C("ops.avg_pool2d[divisor]", ops.avg_pool2d, fl(1, 1, 4, 4), 2, 2, kw={"divisor_override": 3}),
        C("ops.avg_pool2d_padmode[valid]", ops.avg_pool2d_padmode, fl(1, 2, 5, 5), 2, 2),
        C("ops.avg_pool2d_padmode[same]", ops.avg_pool2d_padmode, fl(1, 2, 5, 5), 3, 2, "same"),
        C("ops.avg_pool2d_padmode[pad]", ops.avg_pool2d_padmode, fl(1, 1, 4, 4), 3, 1, "pad", 1),
        C("ops.max_pool2d[k2]", ops.max_pool2d, fl(1, 2, 4, 4), 2),
        C("ops.max_pool2d[pad,dilation]", ops.max_pool2d, fl(1, 1, 6, 6), 3, 1, 1, 2),
        C("ops.max_pool2d[indices]", ops.max_pool2d, fl(1, 2, 4, 5), 2, 2, kw={"return_indices": True}),
        C("ops.max_pool2d[ceil]", ops.max_pool2d, fl(1, 1, 5, 5), 2, 2, 0, 1, False, True),
        C("ops.max_pool2d_padmode[valid]", ops.max_pool2d_padmode, fl(1, 2, 5, 5), 2, 2),
        C("ops.max_pool2d_padmode[same]", ops.max_pool2d_padmode, fl(1, 2, 5, 5), 3, 2, "same"),
        C("ops.max_pool2d_padmode[indices]", ops.max_pool2d_padmode, fl(1, 1, 4, 4), 2, 2,
          kw={"return_indices": True}),
        C("ops.pool2d[max]", ops.pool2d, fl(1, 2, 4, 4), "max", 2, 2),
        C("ops.pool2d[avg same]", ops.pool2d, fl(1, 2, 5, 5), "avg", 3, 2, "same"),
        C("ops.pool2d[bad mode]", ops.pool2d, fl(1, 2, 4, 4), "min", 2, 2),
        C("ops.adaptive_avg_pool1d[even]", ops.adaptive_avg_pool1d, fl(2, 3, 8), 4),
        C("ops.adaptive_avg_pool1d[uneven]", ops.adaptive_avg_pool1d, fl(1, 2, 7), 3),
        C("ops.adaptive_avg_pool1d[1]", ops.adaptive_avg_pool1d, fl(2, 2, 5), 1),
        C("ops.adaptive_avg_pool2d[int]", ops.adaptive_avg_pool2d, fl(1, 2, 6, 6), 3),
        C("ops.adaptive_avg_pool2d[tuple uneven]", ops.adaptive_avg_pool2d, fl(1, 2, 5, 7), (2, 3)),
        C("ops.adaptive_avg_pool2d[none]", ops.adaptive_avg_pool2d, fl(1, 2, 4, 6), (None, 2)),
        C("ops.adaptive_avg_pool2d[3d input]", ops.adaptive_avg_pool2d, fl(2, 4, 4), 1),
        C("ops.batch_norm[eval]", ops.batch_norm, fl(2, 3, 4), fl(3), pos(3), fl(3), fl(3), **tol),
        C("ops.batch_norm[train]", ops.batch_norm, fl(4, 3), fl(3), pos(3), fl(3), fl(3), True, **tol),
        C("ops.batch_norm[train 4d momentum]", ops.batch_norm, fl(2, 3, 2, 2), fl(3), pos(3), pos(3), fl(3), True,
          0.3, 1e-3, **tol),
        C("ops.batch_norm[no affine]", ops.batch_norm, fl(2, 3, 4), fl(3), pos(3), None, None, **tol),
        C("ops.layer_norm[last]", ops.layer_norm, fl(3, 4), (4,), **tol),
        C("ops.layer_norm[affine]", ops.layer_norm, fl(2, 3, 4), (3, 4), fl(3, 4), fl(3, 4), **tol),
        C("ops.layer_norm[int shape,eps]", ops.layer_norm, fl(2, 5), 5, pos(5), None, 1e-2, **tol),
        C("ops.embedding[basic]", ops.embedding, it(0, 5, 2, 3), fl(5, 4)),
        C("ops.embedding[padding_idx]", ops.embedding, it(0, 5, 6), fl(5, 3), 1),
        C("ops.embedding[neg padding_idx]", ops.embedding, it(0, 5, 6), fl(5, 3), -1),
        C("ops.embedding[max_norm]", ops.embedding, it(0, 5, 2, 3), fl(5, 4, lo=-3, hi=3), None, 1.0, **tol),
        C("ops.embedding[max_norm,norm_type 1]", ops.embedding, it(0, 4, 5), fl(4, 3, lo=-3, hi=3), None, 2.0, 1.0,
          **tol),
        C("ops.embedding[i64 idx]", ops.embedding, it(0, 5, 4, dt=np.int64), fl(5, 2)),
        C("ops.embedding[oob]", ops.embedding, const([0, 5], np.int32), fl(5, 2)),
        C("ops.embedding[neg idx]", ops.embedding, const([-1, 0], np.int32), fl(5, 2)),
    ]


@_functions
def _loss_functions() -> list[Case]:
    tol = {"rtol": 1e-5, "atol": 1e-6}
    out: list[Case] = []
    for red in ("mean", "sum", "none"):
        out += [
            C(f"ops.binary_cross_entropy[{red}]", ops.binary_cross_entropy, probs(3, 4), probs(3, 4), None, red),
            C(f"ops.binary_cross_entropy_with_logits[{red}]", ops.binary_cross_entropy_with_logits, fl(3, 4),
              probs(3, 4), kw={"reduction": red}),
            C(f"ops.cross_entropy[{red}]", ops.cross_entropy, fl(4, 5), it(0, 5, 4), kw={"reduction": red}),
            C(f"ops.nll_loss[{red}]", ops.nll_loss, logprobs(4, 5), it(0, 5, 4), kw={"reduction": red}),
            C(f"ops.l1_loss[{red}]", ops.l1_loss, fl(3, 4), fl(3, 4), red),
            C(f"ops.mse_loss[{red}]", ops.mse_loss, fl(3, 4), fl(3, 4), red),
            C(f"ops.smooth_l1_loss[{red}]", ops.smooth_l1_loss, fl(3, 4), fl(3, 4), 1.0, red),
        ]
    out += [
        C("ops.binary_cross_entropy[weight]", ops.binary_cross_entropy, probs(3, 4), probs(3, 4), pos(3, 4)),
        C("ops.binary_cross_entropy[bcast weight,sum]", ops.binary_cross_entropy, probs(3, 4), probs(3, 4), pos(4),
          "sum"),
        C("ops.binary_cross_entropy[edges]", ops.binary_cross_entropy, const([0.0, 1.0, 0.5, 1.0], np.float32),
          const([0.0, 1.0, 1.0, 0.0], np.float32)),
        C("ops.binary_cross_entropy_with_logits[weight]", ops.binary_cross_entropy_with_logits, fl(3, 4),
          probs(3, 4), pos(3, 4)),
        C("ops.binary_cross_entropy_with_logits[pos_weight]", ops.binary_cross_entropy_with_logits, fl(3, 4),
          probs(3, 4), None, pos(4)),
        C("ops.binary_cross_entropy_with_logits[both,sum]", ops.binary_cross_entropy_with_logits, fl(3, 4),
          probs(3, 4), pos(1, 4), pos(4), "sum"),
        C("ops.binary_cross_entropy_with_logits[large]", ops.binary_cross_entropy_with_logits,
          fl(3, 4, lo=-100, hi=100), probs(3, 4)),
        C("ops.cross_entropy[weight]", ops.cross_entropy, fl(4, 5), it(0, 5, 4), pos(5), **tol),
        C("ops.cross_entropy[weight,sum]", ops.cross_entropy, fl(4, 5), it(0, 5, 4), pos(5), kw={"reduction": "sum"}),
        C("ops.cross_entropy[ignore_index]", ops.cross_entropy, fl(4, 5), const([0, 2, -100, 4], np.int32)),
        C("ops.cross_entropy[ignore_index=1,weight]", ops.cross_entropy, fl(4, 5), const([1, 2, 1, 4], np.int32),
          pos(5), 1),
        C("ops.cross_entropy[all ignored]", ops.cross_entropy, fl(2, 5), const([-100, -100], np.int32)),
        C("ops.cross_entropy[label_smoothing]", ops.cross_entropy, fl(4, 5), it(0, 5, 4),
          kw={"label_smoothing": 0.1}),
        C("ops.cross_entropy[smoothing,weight,ignore]", ops.cross_entropy, fl(4, 5), const([0, 3, -100, 4], np.int32),
          pos(5), -100, "mean", 0.2, **tol),
        C("ops.cross_entropy[probs target]", ops.cross_entropy, fl(4, 5), G(lambda r: np.eye(5, dtype=np.float32)[
            r.integers(0, 5, 4)])),
        C("ops.cross_entropy[spatial]", ops.cross_entropy, fl(2, 3, 4), it(0, 3, 2, 4)),
        C("ops.cross_entropy[i64 target]", ops.cross_entropy, fl(4, 5), it(0, 5, 4, dt=np.int64)),
        C("ops.cross_entropy[oob target]", ops.cross_entropy, fl(3, 5), const([0, 5, 1], np.int32)),
        C("ops.cross_entropy[neg target]", ops.cross_entropy, fl(3, 5), const([0, -1, 1], np.int32)),
        C("ops.nll_loss[weight]", ops.nll_loss, logprobs(4, 5), it(0, 5, 4), pos(5)),
        C("ops.nll_loss[ignore_index]", ops.nll_loss, logprobs(4, 5), const([0, 2, -100, 4], np.int32)),
        C("ops.nll_loss[ignore_index=2,weight,sum]", ops.nll_loss, logprobs(4, 5), const([2, 2, 1, 4], np.int32),
          pos(5), 2, "sum"),
        C("ops.nll_loss[label_smoothing]", ops.nll_loss, logprobs(4, 5), it(0, 5, 4), kw={"label_smoothing": 0.1}),
        C("ops.nll_loss[spatial]", ops.nll_loss, fl(2, 3, 4), it(0, 3, 2, 4)),
        C("ops.nll_loss[oob target]", ops.nll_loss, logprobs(3, 5), const([0, 7, 1], np.int32)),
        C("ops.l1_loss[bcast]", ops.l1_loss, fl(3, 4), fl(4)),
        C("ops.mse_loss[bcast]", ops.mse_loss, fl(3, 4), fl(3, 1)),
        C("ops.mse_loss[f64]", ops.mse_loss, fl(3, 4, dt=np.float64), fl(3, 4, dt=np.float64)),
        C("ops.smooth_l1_loss[beta 0.5]", ops.smooth_l1_loss, fl(3, 4), fl(3, 4), 0.5),
        C("ops.smooth_l1_loss[beta 0]", ops.smooth_l1_loss, fl(3, 4), fl(3, 4), 0.0, "mean"),
        C("ops.smooth_l1_loss[bad reduction]", ops.smooth_l1_loss, fl(3, 4), fl(3, 4), 1.0, "avg"),
    ]
    return out


@_functions
def _state_functions() -> list[Case]:
    return [
        C("ops.assign[tensor]", ops.assign, fl(3, 4), fl(3, 4)),
        C("ops.assign[then read]", assign_then_read, fl(3, 4), fl(3, 4)),
        C("ops.assign[bcast scalar]", ops.assign, fl(3, 4), 1.5),
        C("ops.assign[i32]", ops.assign, ints(3), ints(3)),
        C("ops.assign[bad shape]", ops.assign, fl(3, 4), fl(4, 3)),
        C("ops.assign_add[tensor]", ops.assign_add, fl(3, 4), fl(3, 4)),
        C("ops.assign_add[then read]", assign_add_then_read, fl(3, 4), fl(3, 4)),
        C("ops.assign_add[scalar]", ops.assign_add, ints(3), 2),
        C("ops.assign_add[bcast]", ops.assign_add, fl(3, 4), fl(4)),
        C("ops.assign_sub[tensor]", ops.assign_sub, fl(3, 4), fl(3, 4)),
        C("ops.assign_sub[twice]", assign_sub_twice, fl(3, 4), fl(3, 4)),
        C("ops.assign_sub[scalar]", ops.assign_sub, fl(3), 0.5),
        C("ops.print_[tensors]", ops.print_, "value:", fl(2, 2)),
        C("ops.print_[in helper]", print_then, fl(2), fl(2)),
        C("ops.print_[strings only]", ops.print_, "hello", 3),
    ]


# --- class-form ops ---------------------------------------------------------------------------------
def K(name: str, op: Any, *args: Any, **opts: Any) -> Case:
    """A case calling the configured instance `op`; `name` is ``Class[variant]``."""
    return C(f"ops.{name}", op, *args, **opts)


@_classes
def _unary_classes() -> list[Case]:
    out: list[Case] = []
    gens = {"Log": pos, "Log1p": pos, "Sqrt": pos, "Rsqrt": pos, "Reciprocal": nz, "Ceil": rounding,
            "Floor": rounding, "Round": rounding, "Trunc": rounding, "IsFinite": special, "IsInf": special,
            "IsNan": special, "Tan": lambda *s, dt=np.float32: fl(*s, lo=-1.2, hi=1.2, dt=dt)}
    for name in ("Abs", "Atan", "Ceil", "Cos", "Cosh", "Erf", "Exp", "Expm1", "Floor", "GeLU", "HSigmoid",
                 "HSwish", "IsFinite", "IsInf", "IsNan", "Log", "Log1p", "Mish", "Neg", "ReLU", "ReLU6",
                 "Reciprocal", "Round", "Rsqrt", "SiLU", "Sigmoid", "Sign", "Sin", "Sinh", "Softplus", "Sqrt",
                 "Square", "Tan", "Tanh", "Trunc"):
        gen = gens.get(name, fl)
        op = getattr(ops, name)()
        out += [K(f"{name}[f32]", op, gen(3, 4)),
                K(f"{name}[3d]", op, gen(2, 3, 4)),
                K(f"{name}[f64]", op, gen(4, 5, dt=np.float64)) if name not in ("IsFinite", "IsInf", "IsNan")
                else K(f"{name}[1d]", op, gen(5))]
    for name in ("Abs", "Neg", "Sign", "Square", "ReLU"):
        out.append(K(f"{name}[i32]", getattr(ops, name)(), ints(3, 4)))
    out += [
        K("LogicalNot[bool]", ops.LogicalNot(), bl(3, 4)),
        K("LogicalNot[3d]", ops.LogicalNot(), bl(2, 3, 4)),
        K("LogicalNot[i32]", ops.LogicalNot(), it(0, 2, 3)),
        K("Identity[f32]", ops.Identity(), fl(3, 4)),
        K("Identity[i32]", ops.Identity(), ints(3, 4)),
        K("Identity[bool]", ops.Identity(), bl(3)),
        K("StopGradient[f32]", ops.StopGradient(), fl(3, 4)),
        K("StopGradient[i32]", ops.StopGradient(), ints(3)),
        K("StopGradient[0d]", ops.StopGradient(), fl()),
        K("OnesLike[f32]", ops.OnesLike(), fl(3, 4)),
        K("OnesLike[i32]", ops.OnesLike(), ints(2, 3)),
        K("OnesLike[bool]", ops.OnesLike(), bl(3)),
        K("ZerosLike[f32]", ops.ZerosLike(), fl(3, 4)),
        K("ZerosLike[i64]", ops.ZerosLike(), ints(2, 3, dt=np.int64)),
        K("ZerosLike[bool]", ops.ZerosLike(), bl(3)),
        K("Flatten[3d]", ops.Flatten(), fl(2, 3, 4)),
        K("Flatten[4d]", ops.Flatten(), ints(2, 2, 3, 2)),
        K("Flatten[1d]", ops.Flatten(), fl(5)),
        K("Rank[2d]", ops.Rank(), fl(3, 4)),
        K("Rank[0d]", ops.Rank(), fl()),
        K("Rank[3d]", ops.Rank(), ints(2, 3, 4)),
        K("Shape[2d]", ops.Shape(), fl(3, 4)),
        K("Shape[0d]", ops.Shape(), fl()),
        K("Shape[3d]", ops.Shape(), bl(2, 3, 4)),
        K("Size[2d]", ops.Size(), fl(3, 4)),
        K("Size[0d]", ops.Size(), fl()),
        K("Size[3d]", ops.Size(), ints(2, 3, 4)),
        K("NonZero[2d]", ops.NonZero(), it(0, 2, 3, 4)),
        K("NonZero[bool]", ops.NonZero(), bl(5)),
        K("NonZero[float]", ops.NonZero(), const([[0.0, 2.0], [0.0, -1.0]], np.float32)),
        K("Unique[i32]", ops.Unique(), it(0, 4, 8)),
        K("Unique[f32]", ops.Unique(), const([2.0, 1.0, 2.0, -3.0, 1.0], np.float32)),
        K("Unique[i64]", ops.Unique(), it(-2, 2, 6, dt=np.int64)),
    ]
    return out


@_classes
def _binary_classes() -> list[Case]:
    out: list[Case] = []
    small = lambda *s, dt=np.float32: it(-2, 3, *s, dt=dt)  # noqa: E731  (ties for the comparisons)
    gens = {"Div": (fl, nz), "RealDiv": (fl, nz), "FloorDiv": (fl, nz), "FloorMod": (fl, nz), "Pow": (pos, fl),
            "Xlogy": (fl, pos), "Equal": (small, small), "NotEqual": (small, small), "Greater": (small, small),
            "GreaterEqual": (small, small), "Less": (small, small), "LessEqual": (small, small)}
    for name in ("Add", "Atan2", "Div", "Equal", "FloorDiv", "FloorMod", "Greater", "GreaterEqual", "Less",
                 "LessEqual", "Maximum", "Minimum", "Mul", "NotEqual", "Pow", "RealDiv", "Sub", "Xlogy"):
        a, b = gens.get(name, (fl, fl))
        op = getattr(ops, name)()
        out += [K(f"{name}[f32]", op, a(3, 4), b(3, 4)),
                K(f"{name}[bcast]", op, a(3, 1), b(4)),
                K(f"{name}[scalar]", op, a(3, 4), 2.0),
                K(f"{name}[f64]", op, a(2, 3, dt=np.float64), b(2, 3, dt=np.float64))]
    for name in ("Add", "Sub", "Mul", "FloorDiv", "FloorMod", "Maximum", "Minimum", "Equal", "Less", "Div"):
        out.append(K(f"{name}[i32]", getattr(ops, name)(), ints(3, 4), nzi(3, 4)))
    for name in ("LogicalAnd", "LogicalOr", "LogicalXor"):
        op = getattr(ops, name)()
        out += [K(f"{name}[bool]", op, bl(3, 4), bl(3, 4)),
                K(f"{name}[bcast]", op, bl(3, 1), bl(4)),
                K(f"{name}[scalar]", op, bl(3, 4), False)]
    return out


@_classes
def _reduce_classes() -> list[Case]:
    out: list[Case] = []
    for name in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"):
        cls = getattr(ops, name)
        out += [K(f"{name}[all]", cls(), fl(3, 4)),
                K(f"{name}[axis 1]", cls(), fl(3, 4), 1),
                K(f"{name}[keep_dims,neg]", cls(keep_dims=True), fl(2, 3, 4), -1),
                K(f"{name}[tuple,keep]", cls(True), fl(2, 3, 4), (0, 2)),
                K(f"{name}[i32]", cls(), ints(3, 4), 0)]
    for name in ("ReduceAll", "ReduceAny"):
        cls = getattr(ops, name)
        out += [K(f"{name}[all]", cls(), bl(3, 4)),
                K(f"{name}[axis 1]", cls(), bl(3, 4), 1),
                K(f"{name}[keep_dims,neg]", cls(keep_dims=True), bl(2, 3, 4), -1),
                K(f"{name}[tuple]", cls(), bl(2, 3, 4), (0, 1))]
    out += [
        K("ReduceSum[skip_mode empty axis]", ops.ReduceSum(skip_mode=True), fl(3, 4), ()),
        K("ReduceSum[bad axis]", ops.ReduceSum(), fl(3, 4), 3),
        K("ArgMaxWithValue[default]", ops.ArgMaxWithValue(), fl(3, 4)),
        K("ArgMaxWithValue[axis 1,keep]", ops.ArgMaxWithValue(axis=1, keep_dims=True), fl(3, 4)),
        K("ArgMaxWithValue[neg,i32]", ops.ArgMaxWithValue(-1), ints(2, 3, 4)),
        K("ArgMaxWithValue[ties]", ops.ArgMaxWithValue(1), const([[1.0, 3.0, 3.0], [0.0, 0.0, 0.0]], np.float32)),
        K("ArgMinWithValue[default]", ops.ArgMinWithValue(), fl(3, 4)),
        K("ArgMinWithValue[axis 1,keep]", ops.ArgMinWithValue(axis=1, keep_dims=True), fl(3, 4)),
        K("ArgMinWithValue[neg,i32]", ops.ArgMinWithValue(-2), ints(2, 3, 4)),
        K("Argmax[default]", ops.Argmax(), fl(3, 4)),
        K("Argmax[axis 0,i64]", ops.Argmax(0, i64), fl(3, 4)),
        K("Argmax[i32 input]", ops.Argmax(axis=1), ints(2, 3, 4)),
        K("Argmax[ties]", ops.Argmax(), const([[1.0, 3.0, 3.0], [0.0, 0.0, 0.0]], np.float32)),
        K("Argmin[default]", ops.Argmin(), fl(3, 4)),
        K("Argmin[axis 0,i64]", ops.Argmin(0, output_type=i64), fl(3, 4)),
        K("Argmin[3d]", ops.Argmin(axis=-2), fl(2, 3, 4)),
        K("CumSum[axis 0]", ops.CumSum(), fl(3, 4), 0),
        K("CumSum[exclusive]", ops.CumSum(exclusive=True), fl(3, 4), 1),
        K("CumSum[reverse]", ops.CumSum(reverse=True), fl(3, 4), -1),
        K("CumSum[exclusive,reverse,i32]", ops.CumSum(True, True), ints(2, 3, 4), 1),
        K("Sort[default]", ops.Sort(), fl(3, 4)),
        K("Sort[axis 0,desc]", ops.Sort(0, True), fl(3, 4)),
        K("Sort[i32 ties]", ops.Sort(descending=True), it(0, 3, 2, 6)),
        K("TopK[k 2]", ops.TopK(), fl(3, 5), 2),
        K("TopK[unsorted]", ops.TopK(sorted=False), fl(3, 5), 3),
        K("TopK[i32 ties]", ops.TopK(True), it(0, 3, 2, 6), 3),
        K("TopK[1d]", ops.TopK(), fl(6), 6),
        K("TopK[k too big]", ops.TopK(), fl(6), 7),
    ]
    return out


@_classes
def _array_classes() -> list[Case]:
    return [
        K("Cast[f32->i32]", ops.Cast(), fl(3, 4, lo=-5, hi=5), i32),
        K("Cast[i32->f32]", ops.Cast(), ints(3, 4), f32),
        K("Cast[bool->i64]", ops.Cast(), bl(3), i64),
        K("Cast[f32->bool]", ops.Cast(), const([0.0, -0.5, 2.0], np.float32), ms.bool_),
        K("ClipByValue[scalars]", ops.ClipByValue(), fl(3, 4), -0.5, 0.5),
        K("ClipByValue[tensors]", ops.ClipByValue(), fl(3, 4), const(-0.3, np.float32), const(0.3, np.float32)),
        K("ClipByValue[bcast tensors]", ops.ClipByValue(), fl(3, 4), fl(3, 1, lo=-1, hi=0), fl(4, lo=0, hi=1)),
        K("ClipByValue[i32]", ops.ClipByValue(), ints(3, 4), -1, 2),
        K("Concat[axis 0]", concat_op, fl(2, 3), fl(1, 3)),
        K("Concat[axis -1]", concat_op, fl(2, 3), fl(2, 1), -1),
        K("Concat[i32]", concat_op, ints(2, 3), ints(2, 3), 1),
        K("Stack[axis 0]", stack_op, fl(2, 3), fl(2, 3)),
        K("Stack[axis -1]", stack_op, fl(2, 3), fl(2, 3), -1),
        K("Stack[i32]", stack_op, ints(3), ints(3), 1),
        K("AddN[2]", addn2, fl(3, 4), fl(3, 4)),
        K("AddN[3]", addn3, fl(3, 4), fl(3, 4), fl(3, 4)),
        K("AddN[i32]", addn2, ints(3), ints(3)),
        K("Meshgrid[xy]", meshgrid_op, fl(3), fl(4)),
        K("Meshgrid[ij]", meshgrid_op, fl(3), ints(2), "ij"),
        K("Meshgrid[3 inputs]", meshgrid_op3, fl(2), fl(3), ints(2)),
        K("BroadcastTo[rows]", ops.BroadcastTo((3, 4)), fl(1, 4)),
        K("BroadcastTo[-1]", ops.BroadcastTo((2, -1, 4)), fl(3, 1)),
        K("BroadcastTo[scalar]", ops.BroadcastTo((2, 2)), ints()),
        K("ExpandDims[0]", ops.ExpandDims(), fl(3, 4), 0),
        K("ExpandDims[-1]", ops.ExpandDims(), fl(3, 4), -1),
        K("ExpandDims[i32]", ops.ExpandDims(), ints(3), 1),
        K("Squeeze[all]", ops.Squeeze(), fl(1, 3, 1)),
        K("Squeeze[axis]", ops.Squeeze(0), fl(1, 3, 1)),
        K("Squeeze[tuple neg]", ops.Squeeze((0, -1)), fl(1, 3, 1)),
        K("Squeeze[bad axis]", ops.Squeeze(1), fl(1, 3, 1)),
        K("Reshape[tuple]", ops.Reshape(), fl(3, 4), (2, 6)),
        K("Reshape[-1]", ops.Reshape(), fl(2, 3, 4), (-1,)),
        K("Reshape[i32]", ops.Reshape(), ints(2, 3), (3, 1, 2)),
        K("Reshape[bad]", ops.Reshape(), ints(2, 3), (4, 2)),
        K("Transpose[2d]", ops.Transpose(), fl(3, 4), (1, 0)),
        K("Transpose[3d]", ops.Transpose(), fl(2, 3, 4), (1, 2, 0)),
        K("Transpose[neg]", ops.Transpose(), ints(2, 3, 4), (-1, 0, 1)),
        K("Tile[2d]", ops.Tile(), fl(2, 3), (2, 1)),
        K("Tile[more dims]", ops.Tile(), fl(2, 3), (2, 1, 2)),
        K("Tile[i32]", ops.Tile(), ints(3), (2,)),
        K("ReverseV2[0]", ops.ReverseV2((0,)), fl(3, 4)),
        K("ReverseV2[both]", ops.ReverseV2(axis=(0, 1)), fl(3, 4)),
        K("ReverseV2[neg]", ops.ReverseV2([-1]), ints(2, 3, 4)),
        K("Roll[1d]", ops.Roll(2, 0), fl(5)),
        K("Roll[neg axis]", ops.Roll(shifts=-1, dims=-1), fl(3, 4)),
        K("Roll[tuple]", ops.Roll((1, 2), (0, 1)), ints(3, 4)),
        K("Slice[2d]", ops.Slice(), fl(4, 5), (1, 0), (2, 3)),
        K("Slice[-1 size]", ops.Slice(), fl(2, 3, 4), (0, 1, 1), (-1, 2, -1)),
        K("Slice[i32]", ops.Slice(), ints(4, 5), [0, 2], [4, 1]),
        K("StridedSlice[basic]", ops.StridedSlice(), fl(4, 5), (0, 1), (4, 5), (2, 2)),
        K("StridedSlice[neg stride]", ops.StridedSlice(), fl(4, 5), (3, 4), (0, 0), (-1, -2)),
        K("StridedSlice[masks]", ops.StridedSlice(begin_mask=2, end_mask=4, shrink_axis_mask=1), fl(2, 3, 4),
          (1, 0, 0), (2, 3, 4), (1, 1, 1)),
        K("StridedSlice[new_axis]", ops.StridedSlice(new_axis_mask=1), fl(3, 4), (0, 0), (1, 2), (1, 1)),
        K("Split[2]", ops.Split(0, 2), fl(4, 3)),
        K("Split[axis 1,3]", ops.Split(axis=1, output_num=3), fl(2, 6)),
        K("Split[default]", ops.Split(), fl(3, 2)),
        K("Split[uneven]", ops.Split(0, 3), fl(4, 3)),
        K("Unstack[0]", ops.Unstack(), fl(3, 4)),
        K("Unstack[neg]", ops.Unstack(axis=-1), fl(2, 3)),
        K("Unstack[num]", ops.Unstack(1, 3), ints(2, 3)),
        K("Pad[2d]", ops.Pad(((1, 2), (0, 1))), fl(2, 3)),
        K("Pad[3d]", ops.Pad(((0, 0), (1, 1), (2, 0))), fl(2, 2, 3)),
        K("Pad[i32]", ops.Pad(((1, 1),)), ints(3)),
        K("MaskedFill[scalar]", ops.MaskedFill(), fl(3, 4), bl(3, 4), 0.5),
        K("MaskedFill[tensor value]", ops.MaskedFill(), fl(3, 4), bl(4), const(-1.0, np.float32)),
        K("MaskedFill[i32]", ops.MaskedFill(), ints(3, 4), bl(3, 1), 7),
        K("MaskedSelect[2d]", ops.MaskedSelect(), fl(3, 4), bl(3, 4)),
        K("MaskedSelect[bcast]", ops.MaskedSelect(), ints(3, 4), bl(4)),
        K("MaskedSelect[none]", ops.MaskedSelect(), fl(3), const([False, False, False])),
        K("Select[tensors]", ops.Select(), bl(3, 4), fl(3, 4), fl(3, 4)),
        K("Select[i32]", ops.Select(), bl(3), ints(3), ints(3)),
        K("Select[scalar]", ops.Select(), bl(3, 4), fl(3, 4), 1.0),
        K("OneHot[default]", ops.OneHot(), it(0, 4, 5), 4, const(1.0, np.float32), const(0.0, np.float32)),
        K("OneHot[axis 0]", ops.OneHot(0), it(0, 3, 4), 3, const(2.0, np.float32), const(-1.0, np.float32)),
        K("OneHot[2d,scalars]", ops.OneHot(axis=-1), it(0, 3, 2, 2), 3, 1.0, 0.0),
        K("OneHot[out of range]", ops.OneHot(), const([0, 5, -1], np.int32), 4, const(1.0, np.float32),
          const(0.0, np.float32)),
        K("Lerp[scalar weight]", ops.Lerp(), fl(3, 4), fl(3, 4), 0.25),
        K("Lerp[tensor weight]", ops.Lerp(), fl(3, 4), fl(3, 4), fl(3, 4, lo=0, hi=1)),
        K("Lerp[bcast]", ops.Lerp(), fl(3, 4), fl(4), fl(3, 1, lo=0, hi=1)),
        K("IsClose[default]", ops.IsClose(), fl(3, 4), fl(3, 4)),
        K("IsClose[tols]", ops.IsClose(rtol=0.5, atol=0.5), fl(3, 4), fl(3, 4)),
        K("IsClose[nan,no equal_nan]", ops.IsClose(equal_nan=False), const([1.0, np.nan, np.inf], np.float32),
          const([1.0, np.nan, np.inf], np.float32)),
        K("IsClose[nan]", ops.IsClose(), const([1.0, np.nan, 2.0], np.float32), const([1.0, np.nan, 2.1], np.float32)),
    ]


@_classes
def _creation_classes() -> list[Case]:
    R = {"seeded": True}
    return [
        K("Ones[tuple]", ops.Ones(), (2, 3)),
        K("Ones[int,dtype]", ops.Ones(), 3, i32),
        K("Ones[dtype]", ops.Ones(), (2, 2), f64),
        K("Ones[tensor shape]", ops.Ones(), const([2, 3], np.int64), f32),
        K("Zeros[tuple]", ops.Zeros(), (2, 3)),
        K("Zeros[int,dtype]", ops.Zeros(), 4, i64),
        K("Zeros[bool]", ops.Zeros(), (2, 2), ms.bool_),
        K("Zeros[tensor shape]", ops.Zeros(), const([3, 2], np.int32), f32),
        K("Eye[square]", ops.Eye(), 3, 3, f32),
        K("Eye[rect,i32]", ops.Eye(), 2, 4, i32),
        K("Eye[bool]", ops.Eye(), 3, 2, ms.bool_),
        K("Fill[f32]", ops.Fill(), f32, (2, 3), 1.5),
        K("Fill[i32]", ops.Fill(), i32, (4,), 7),
        K("Fill[tensor value]", ops.Fill(), f32, (2, 2), fl()),
        K("Range[int tensors]", ops.Range(), const(0, np.int32), const(10, np.int32), const(3, np.int32)),
        K("Range[float tensors]", ops.Range(), const(1.0, np.float32), const(2.0, np.float32),
          const(0.25, np.float32)),
        K("Range[neg delta]", ops.Range(maxlen=100), const(5, np.int32), const(-3, np.int32), const(-2, np.int32)),
        K("Range[maxlen exceeded]", ops.Range(maxlen=3), const(0, np.int32), const(10, np.int32),
          const(1, np.int32)),
        K("Range[python scalars]", ops.Range(), 0, 6, 2),
        K("Dropout[keep 0.5]", ops.Dropout(), fl(4, 5), **R),
        K("Dropout[keep 0.8]", ops.Dropout(keep_prob=0.8), fl(3, 4), **R),
        K("Dropout[keep 1]", ops.Dropout(1.0), fl(3, 4), **R),
        K("Dropout[seeds,fresh instance]", dropout_seeded, fl(3, 4), **R),
        K("Dropout[seeds,two draws]", dropout_seeded_twice, fl(3, 4), **R),
    ]


@_classes
def _nn_classes() -> list[Case]:
    tol = {"rtol": 1e-4, "atol": 1e-5}
    return [
        K("MatMul[default]", ops.MatMul(), fl(3, 4), fl(4, 5), **tol),
        K("MatMul[transpose_b]", ops.MatMul(transpose_b=True), fl(3, 4), fl(5, 4), **tol),
        K("MatMul[transpose_a,b]", ops.MatMul(True, True), fl(4, 3), fl(2, 4), **tol),
        K("MatMul[i32]", ops.MatMul(), ints(2, 3), ints(3, 2)),
        K("MatMul[bad]", ops.MatMul(), fl(3, 4), fl(3, 4)),
        K("BatchMatMul[default]", ops.BatchMatMul(), fl(2, 3, 4), fl(2, 4, 5), **tol),
        K("BatchMatMul[transpose_a]", ops.BatchMatMul(transpose_a=True), fl(2, 4, 3), fl(2, 4, 2), **tol),
        K("BatchMatMul[transpose_b,4d]", ops.BatchMatMul(False, True), fl(2, 2, 3, 4), fl(2, 2, 5, 4), **tol),
        K("BatchMatMul[bcast]", ops.BatchMatMul(), fl(2, 3, 4), fl(4, 2), **tol),
        K("BiasAdd[NCHW]", ops.BiasAdd(), fl(2, 3, 4, 4), fl(3)),
        K("BiasAdd[2d]", ops.BiasAdd(), fl(3, 4), fl(4)),
        K("BiasAdd[NHWC]", ops.BiasAdd("NHWC"), fl(2, 4, 4, 3), fl(3)),
        K("Conv2D[valid]", ops.Conv2D(4, 3), fl(1, 3, 6, 6), fl(4, 3, 3, 3), **tol),
        K("Conv2D[pad,stride]", ops.Conv2D(3, 3, pad_mode="pad", pad=1, stride=2), fl(1, 2, 5, 6), fl(3, 2, 3, 3),
          **tol),
        K("Conv2D[same,dilation]", ops.Conv2D(2, (3, 3), pad_mode="same", dilation=2), fl(1, 2, 6, 6),
          fl(2, 2, 3, 3), **tol),
        K("Conv2D[group]", ops.Conv2D(4, 3, group=2), fl(1, 4, 5, 5), fl(4, 2, 3, 3), **tol),
        K("Conv2D[pad 4-tuple]", ops.Conv2D(2, 2, pad_mode="pad", pad=(0, 1, 1, 0)), fl(1, 1, 5, 5), fl(2, 1, 2, 2),
          **tol),
        K("AvgPool[k2]", ops.AvgPool(2, 2), fl(1, 2, 4, 4)),
        K("AvgPool[same]", ops.AvgPool(kernel_size=3, strides=2, pad_mode="same"), fl(1, 2, 5, 5)),
        K("AvgPool[tuple,stride 1]", ops.AvgPool((2, 3), 1), fl(1, 2, 4, 4)),
        K("MaxPool[k2]", ops.MaxPool(2, 2), fl(1, 2, 4, 4)),
        K("MaxPool[same]", ops.MaxPool(kernel_size=3, strides=2, pad_mode="SAME"), fl(1, 2, 5, 5)),
        K("MaxPool[tuple]", ops.MaxPool((2, 3), (1, 2)), fl(1, 1, 4, 6)),
        K("AdaptiveAvgPool2D[int]", ops.AdaptiveAvgPool2D(3), fl(1, 2, 6, 6)),
        K("AdaptiveAvgPool2D[tuple]", ops.AdaptiveAvgPool2D((2, 3)), fl(1, 2, 5, 7)),
        K("AdaptiveAvgPool2D[none]", ops.AdaptiveAvgPool2D((None, 2)), fl(2, 4, 6)),
        K("Softmax[default]", ops.Softmax(), fl(3, 4)),
        K("Softmax[axis 0]", ops.Softmax(0), fl(3, 4)),
        K("Softmax[tuple]", ops.Softmax(axis=(1, 2)), fl(2, 3, 4)),
        K("LogSoftmax[default]", ops.LogSoftmax(), fl(3, 4)),
        K("LogSoftmax[axis 0]", ops.LogSoftmax(0), fl(3, 4)),
        K("LogSoftmax[3d]", ops.LogSoftmax(axis=-2), fl(2, 3, 4)),
        K("Elu[default]", ops.Elu(), fl(3, 4)),
        K("Elu[alpha]", ops.Elu(alpha=1.0), fl(2, 3, 4, dt=np.float64)),
        K("Elu[alpha 0.5]", ops.Elu(0.5), fl(3, 4)),
        K("BatchNorm[eval]", ops.BatchNorm(), fl(2, 3, 2, 2), fl(3), fl(3), fl(3), pos(3), **tol),
        K("BatchNorm[train]", ops.BatchNorm(is_training=True), fl(4, 3, 2, 2), pos(3), fl(3), fl(3), pos(3), **tol),
        K("BatchNorm[train,eps,momentum,2d]", ops.BatchNorm(True, 1e-3, 0.3), fl(5, 3), pos(3), fl(3), fl(3),
          pos(3), **tol),
        K("LayerNorm[default]", ops.LayerNorm(), fl(3, 4), pos(4), fl(4), **tol),
        K("LayerNorm[axis -1]", ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1), fl(2, 3, 4), pos(4),
          fl(4), **tol),
        K("LayerNorm[axis 1,eps]", ops.LayerNorm(1, 1, 1e-3), fl(2, 3, 4), pos(3, 4), fl(3, 4), **tol),
        K("Gather[axis 0]", ops.Gather(), fl(4, 3), it(0, 4, 5), 0),
        K("Gather[axis 1,2d]", ops.Gather(), fl(3, 4), it(0, 4, 2, 2), 1),
        K("Gather[neg]", ops.Gather(), fl(4, 3), const([-1, -4, 0], np.int32), 0),
        K("Gather[oob]", ops.Gather(), fl(4, 3), const([0, 4], np.int32), 0),
        K("Gather[batch_dims]", ops.Gather(batch_dims=1), fl(2, 4, 3), it(0, 4, 2, 2), 1),
        K("Gather[i64,axis -1]", ops.Gather(), ints(2, 3, 4), it(0, 4, 3, dt=np.int64), -1),
        K("GatherD[dim 1]", ops.GatherD(), fl(3, 4), 1, it(0, 4, 3, 2)),
        K("GatherD[dim 0,i64]", ops.GatherD(), fl(3, 4), 0, it(0, 3, 2, 4, dt=np.int64)),
        K("GatherD[neg]", ops.GatherD(), fl(3, 4), -1, const([[-1], [0], [-4]], np.int32)),
        K("GatherD[oob]", ops.GatherD(), fl(3, 4), 1, const([[4], [0], [1]], np.int32)),
        K("GatherNd[full]", ops.GatherNd(), fl(3, 4), const([[0, 1], [2, 3]], np.int32)),
        K("GatherNd[rows]", ops.GatherNd(), fl(3, 4), it(0, 3, 2, 1)),
        K("GatherNd[neg]", ops.GatherNd(), fl(3, 4), const([[-1, -4]], np.int32)),
        K("GatherNd[oob]", ops.GatherNd(), fl(3, 4), const([[0, 4]], np.int32)),
        K("ScatterNd[points]", ops.ScatterNd(), const([[0, 1], [2, 3]], np.int32), fl(2), (3, 4)),
        K("ScatterNd[rows,dups]", ops.ScatterNd(), const([[1], [1]], np.int64), fl(2, 4), (3, 4)),
        K("ScatterNd[neg]", ops.ScatterNd(), const([[-1]], np.int32), fl(1, 4), (3, 4)),
        K("ScatterNd[oob]", ops.ScatterNd(), const([[3]], np.int32), fl(1, 4), (3, 4)),
        K("TensorScatterUpdate[points]", ops.TensorScatterUpdate(), fl(3, 4), const([[0, 1], [2, 3]], np.int32),
          fl(2)),
        K("TensorScatterUpdate[rows]", ops.TensorScatterUpdate(), ints(3, 4), const([[2]], np.int32), ints(1, 4)),
        K("TensorScatterUpdate[neg]", ops.TensorScatterUpdate(), fl(3, 4), const([[-1, 0]], np.int32), fl(1)),
        K("TensorScatterUpdate[oob]", ops.TensorScatterUpdate(), fl(3, 4), const([[0, 4]], np.int32), fl(1)),
        K("TensorScatterAdd[points,dups]", ops.TensorScatterAdd(), fl(3, 4), const([[0, 1], [0, 1]], np.int32),
          fl(2)),
        K("TensorScatterAdd[rows]", ops.TensorScatterAdd(), ints(3, 4), it(0, 3, 4, 1), ints(4, 4)),
        K("TensorScatterAdd[neg]", ops.TensorScatterAdd(), fl(3, 4), const([[-3]], np.int32), fl(1, 4)),
        K("TensorScatterAdd[oob]", ops.TensorScatterAdd(), fl(3, 4), const([[-4]], np.int32), fl(1, 4)),
        K("TensorScatterElements[axis 0]", ops.TensorScatterElements(), fl(3, 4), const([[1, 0, 2, 1]], np.int32),
          fl(1, 4)),
        K("TensorScatterElements[axis 1]", ops.TensorScatterElements(axis=1), fl(3, 4), perm(3, 4), fl(3, 4)),
        K("TensorScatterElements[add]", ops.TensorScatterElements(1, "add"), fl(3, 4), it(0, 4, 3, 3), fl(3, 3)),
        K("TensorScatterElements[neg]", ops.TensorScatterElements(-1), fl(3, 4), const([[-1], [0], [-4]], np.int32),
          fl(3, 1)),
        K("TensorScatterElements[oob]", ops.TensorScatterElements(1), fl(3, 4), const([[4]], np.int32), fl(1, 1)),
    ]


@_classes
def _loss_classes() -> list[Case]:
    out: list[Case] = []
    for red in ("mean", "sum", "none"):
        out += [
            K(f"BinaryCrossEntropy[{red}]", ops.BinaryCrossEntropy(red), probs(3, 4), probs(3, 4), pos(3, 4)),
            K(f"BCEWithLogitsLoss[{red}]", ops.BCEWithLogitsLoss(reduction=red), fl(3, 4), probs(3, 4), pos(3, 4),
              pos(4)),
            K(f"NLLLoss[{red}]", ops.NLLLoss(red), logprobs(4, 5), it(0, 5, 4), pos(5)),
            K(f"SmoothL1Loss[{red}]", ops.SmoothL1Loss(reduction=red), fl(3, 4), fl(3, 4)),
        ]
    out += [
        K("BinaryCrossEntropy[no weight]", ops.BinaryCrossEntropy(), probs(3, 4), probs(3, 4)),
        K("BinaryCrossEntropy[bcast weight]", ops.BinaryCrossEntropy("sum"), probs(3, 4), probs(3, 4), pos(4)),
        K("BCEWithLogitsLoss[no weights]", ops.BCEWithLogitsLoss(), fl(3, 4), probs(3, 4)),
        K("BCEWithLogitsLoss[large logits]", ops.BCEWithLogitsLoss(), fl(3, 4, lo=-90, hi=90), probs(3, 4),
          pos(1, 4), pos(1)),
        K("NLLLoss[ignore_index]", ops.NLLLoss(ignore_index=2), logprobs(4, 5), const([2, 0, 2, 4], np.int32),
          pos(5)),
        K("NLLLoss[all ignored]", ops.NLLLoss("mean", 1), logprobs(2, 5), const([1, 1], np.int32), pos(5)),
        K("NLLLoss[oob]", ops.NLLLoss(), logprobs(3, 5), const([0, 5, 1], np.int32), pos(5)),
        K("SmoothL1Loss[beta 0.5]", ops.SmoothL1Loss(0.5), fl(3, 4), fl(3, 4)),
        K("SmoothL1Loss[beta 2,mean]", ops.SmoothL1Loss(beta=2.0, reduction="mean"), fl(2, 3, 4), fl(2, 3, 4)),
        K("SoftmaxCrossEntropyWithLogits[onehot]", ops.SoftmaxCrossEntropyWithLogits(), fl(4, 5),
          G(lambda r: np.eye(5, dtype=np.float32)[r.integers(0, 5, 4)])),
        K("SoftmaxCrossEntropyWithLogits[soft]", ops.SoftmaxCrossEntropyWithLogits(), fl(3, 4),
          G(lambda r: (lambda e: (e / e.sum(1, keepdims=True)).astype(np.float32))(np.exp(r.standard_normal((3, 4)))))),
        K("SoftmaxCrossEntropyWithLogits[f64]", ops.SoftmaxCrossEntropyWithLogits(), fl(2, 3, dt=np.float64),
          G(lambda r: np.eye(3)[r.integers(0, 3, 2)])),
        K("SoftmaxCrossEntropyWithLogits[bad shape]", ops.SoftmaxCrossEntropyWithLogits(), fl(2, 3), fl(2, 4)),
        K("SparseSoftmaxCrossEntropyWithLogits[loss]", ops.SparseSoftmaxCrossEntropyWithLogits(), fl(4, 5),
          it(0, 5, 4)),
        K("SparseSoftmaxCrossEntropyWithLogits[i64]", ops.SparseSoftmaxCrossEntropyWithLogits(False), fl(3, 4),
          it(0, 4, 3, dt=np.int64)),
        K("SparseSoftmaxCrossEntropyWithLogits[is_grad]", ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=True),
          fl(4, 5), it(0, 5, 4)),
        K("SparseSoftmaxCrossEntropyWithLogits[is_grad,fresh]", sparse_ce_grad, fl(3, 5), it(0, 5, 3)),
        K("SparseSoftmaxCrossEntropyWithLogits[oob]", ops.SparseSoftmaxCrossEntropyWithLogits(), fl(3, 4),
          const([0, 4, 1], np.int32)),
    ]
    return out


@_classes
def _user_op_classes() -> list[Case]:
    return [
        K("Operation[user subclass]", UserOp(2.0), fl(3, 4), fl(3, 4)),
        K("Operation[user subclass,i32]", UserOp(3), ints(3), fl(3)),
        K("Operation[user subclass,bcast]", UserOp(0.5), fl(3, 1), fl(4)),
        K("Operation[base has no construct]", ops.Operation(), fl(3)),
    ]


@_functions
def _tensor_arg_functions() -> list[Case]:
    """Arguments that are usually static, passed as Tensors (traced inputs in Graph mode)."""
    return [
        C("ops.tile[tensor multiples]", ops.tile, fl(2, 3), const([2, 1], np.int64)),
        C("ops.broadcast_to[tensor shape]", ops.broadcast_to, fl(1, 3), const([2, 3], np.int64)),
        C("ops.reshape[tensor -1]", ops.reshape, fl(2, 3, 4), const([-1, 4], np.int32)),
        C("ops.narrow[tensor start]", ops.narrow, fl(4, 5), 1, const(1, np.int64), 3),
        C("ops.roll[tensor shift]", ops.roll, fl(3, 4), const(1, np.int32), 1),
        C("ops.topk[tensor k]", ops.topk, fl(3, 5), const(2, np.int32)),
        C("ops.split[tensor sections]", ops.split, fl(5, 2), const([2, 3], np.int64)),
        C("ops.fill[tensor shape]", ops.fill, f32, const([2, 2], np.int32), 3.0),
        C("ops.eye[tensor n]", ops.eye, const(3, np.int32), const(2, np.int32)),
        C("ops.linspace[tensor steps]", ops.linspace, 0.0, 1.0, const(4, np.int32)),
        C("ops.randint[tensor bounds]", ops.randint, const(0, np.int64), const(4, np.int64), (3,), seeded=True),
        C("ops.one_hot[tensor depth]", ops.one_hot, it(0, 3, 4), const(3, np.int32)),
        C("ops.expand_dims[tensor axis]", ops.expand_dims, fl(3, 4), const(1, np.int32)),
        C("ops.cumsum[tensor axis]", ops.cumsum, fl(3, 4), const(1, np.int32)),
        C("ops.gather[tensor axis]", ops.gather, fl(4, 3), it(0, 3, 2), const(1, np.int32)),
        C("ops.scatter_nd[tensor shape]", ops.scatter_nd, const([[1], [0]], np.int32), fl(2), const([3], np.int64)),
        C("ops.zeros[tensor 0d size]", ops.zeros, const(3, np.int64)),
        C("ops.ones[tensor shape i32]", ops.ones, const([2, 1, 3], np.int32)),
        C("ops.full[tensor shape,tensor value]", ops.full, const([2, 3], np.int32), const(1, np.int32)),
        C("ops.arange[tensor step]", ops.arange, 0, 6, const(2, np.int64)),
        C("ops.normal[tensor shape]", ops.normal, const([2, 3], np.int64), 0.0, 1.0, seeded=True),
        C("ops.pad[tensor value]", ops.pad, fl(2, 3), (1, 1), "constant", fl()),
        C("ops.index_select[scalar tensor index]", ops.index_select, fl(4, 3), 0, const(2, np.int32)),
        C("ops.masked_fill[float mask]", ops.masked_fill, fl(3, 4), fl(3, 4), 0.0),
        C("ops.clamp[tensor min only]", ops.clamp, ints(3, 4), const(0, np.int32)),
        C("ops.pow[tensor 0d exponent]", ops.pow, pos(3, 4), fl()),
        C("ops.one_hot[tensor on/off i32]", ops.one_hot, it(0, 3, 4), 3, const(5, np.int32), const(-5, np.int32)),
    ]


@_functions
def _promotion_and_edge_functions() -> list[Case]:
    """Dtype promotion between inputs, empty tensors and extreme values."""
    return [
        C("ops.add[i32+f64]", ops.add, ints(3, 4), fl(3, 4, dt=np.float64)),
        C("ops.add[i32+i64]", ops.add, ints(3, 4), ints(3, 4, dt=np.int64)),
        C("ops.add[bool+i32]", ops.add, bl(3, 4), ints(3, 4)),
        C("ops.add[f16+f32]", ops.add, fl(3, 4, dt=np.float16), fl(3, 4), rtol=1e-3, atol=1e-3),
        C("ops.add[i32+float scalar]", ops.add, ints(3, 4), 0.5),
        C("ops.add[bool+int scalar]", ops.add, bl(3), 2),
        C("ops.mul[f16]", ops.mul, fl(3, 4, dt=np.float16), fl(3, 4, dt=np.float16), rtol=1e-3, atol=1e-3),
        C("ops.mul[i64 overflow]", ops.mul, const([2 ** 40, -(2 ** 40)], np.int64),
          const([2 ** 30, 2 ** 30], np.int64)),
        C("ops.add[i32 overflow]", ops.add, const([2 ** 31 - 1, -(2 ** 31)], np.int32), const([1, -1], np.int32)),
        C("ops.sub[u8]", ops.sub, it(0, 255, 5, dt=np.uint8), it(0, 255, 5, dt=np.uint8)),
        C("ops.floor_divide[f32 neg]", ops.floor_divide, fl(3, 4, lo=-5, hi=5),
          const([-1.5, 2.0, -0.5, 3.0], np.float32)),
        C("ops.floor_mod[f32 neg]", ops.floor_mod, fl(3, 4, lo=-5, hi=5), const([-1.5, 2.0, -0.5, 3.0], np.float32)),
        C("ops.remainder[i64 neg]", ops.remainder, ints(3, 4, dt=np.int64), const([-3, 2, -1, 4], np.int64)),
        C("ops.div[i32 true]", ops.div, ints(3, 4), nzi(3, 4)),
        C("ops.exp[overflow]", ops.exp, fl(3, lo=100, hi=200)),
        C("ops.sigmoid[extreme]", ops.sigmoid, const([-1000.0, -50.0, 0.0, 50.0, 1000.0], np.float32)),
        C("ops.log_softmax[extreme]", ops.log_softmax, const([[-1e4, 0.0, 1e4], [1.0, 1.0, 1.0]], np.float32)),
        C("ops.maximum[nan]", ops.maximum, const([np.nan, 1.0, -np.inf], np.float32),
          const([0.0, np.nan, 1.0], np.float32)),
        C("ops.minimum[nan]", ops.minimum, const([np.nan, 1.0, -np.inf], np.float32),
          const([0.0, np.nan, 1.0], np.float32)),
        C("ops.sum[empty]", ops.sum, fl(0, 3), 0),
        C("ops.mean[empty]", ops.mean, fl(0, 3), 0),
        C("ops.prod[empty]", ops.prod, fl(0, 3)),
        C("ops.reduce_max[empty]", ops.reduce_max, fl(0, 3), 0),
        C("ops.argmax[empty]", ops.argmax, fl(0, 3), 0),
        C("ops.concat[empty]", concat2, fl(0, 3), fl(2, 3)),
        C("ops.matmul[empty inner]", ops.matmul, fl(2, 0), fl(0, 3)),
        C("ops.softmax[empty]", ops.softmax, fl(0, 3)),
        C("ops.gather[empty indices]", ops.gather, fl(4, 3), const(np.zeros((0,)), np.int32), 0),
        C("ops.masked_select[empty]", ops.masked_select, fl(0, 3), bl(0, 3)),
        C("ops.nonzero[0d]", ops.nonzero, const(1.0, np.float32)),
        C("ops.unique[empty]", ops.unique, const(np.zeros((0,)), np.int32)),
        C("ops.sort[empty]", ops.sort, fl(2, 0)),
        C("ops.cumsum[empty]", ops.cumsum, fl(0, 3), 0),
        C("ops.var[single ddof 1]", ops.var, fl(1, 3), 0, 1),
        C("ops.std[keepdims all]", ops.std, fl(3, 4), None, 0, True),
        C("ops.argsort[nan]", ops.argsort, special(2, 5)),
        C("ops.topk[nan]", ops.topk, special(2, 5), 2),
        C("ops.argmax[nan]", ops.argmax, special(2, 5), 1),
        C("ops.amax[nan]", ops.amax, special(2, 5), 1),
        C("ops.unique[nan]", ops.unique, const([np.nan, 1.0, np.nan, 1.0], np.float32)),
        C("ops.isclose[inf]", ops.isclose, const([np.inf, -np.inf, np.inf], np.float32),
          const([np.inf, np.inf, 1e38], np.float32)),
        C("ops.cast[nan->i32]", ops.cast, const([np.nan, np.inf, -np.inf, 3.7], np.float32), i32),
        C("ops.cast[big f32->i32]", ops.cast, const([3e9, -3e9, 2.5, -2.5], np.float32), i32),
        C("ops.cast[i32->bool]", ops.cast, it(-1, 2, 6), ms.bool_),
        C("ops.cast[i64->f16]", ops.cast, const([70000, 1, -3], np.int64), ms.float16),
        C("ops.round[half even]", ops.round, const([0.5, 1.5, 2.5, -0.5, -1.5], np.float32)),
        C("ops.sign[zero,nan]", ops.sign, const([0.0, -0.0, np.nan, -3.0], np.float32)),
        C("ops.abs[i32 min]", ops.abs, const([-(2 ** 31), -1, 5], np.int32)),
        C("ops.neg[bool]", ops.neg, bl(3)),
        C("ops.pow[i32 negative exponent]", ops.pow, const([2, 1, -1], np.int32), const([-1, -2, -3], np.int32)),
        C("ops.sqrt[i32]", ops.sqrt, it(0, 10, 4)),
        C("ops.floor[i32]", ops.floor, ints(4)),
        C("ops.reshape[bool]", ops.reshape, bl(2, 3), (3, 2)),
        C("ops.transpose[bool]", ops.transpose, bl(2, 3), (1, 0)),
        C("ops.where[bool branches]", ops.where, bl(3), bl(3), bl(3)),
        C("ops.tile[bool]", ops.tile, bl(2), (2, 2)),
        C("ops.gather[bool params]", ops.gather, bl(4, 2), it(0, 4, 3), 0),
    ]


@_functions
def _chain_functions() -> list[Case]:
    """An op fed by another op's result inside the construct (index producers, shapes, sizes)."""
    return [
        C("ops.gather_elements[argmax index]", gather_elements_argmax, fl(3, 4)),
        C("ops.gather_elements[argsort index]", gather_elements_argsort, fl(3, 5)),
        C("ops.gather_nd[argwhere index]", gather_nd_argwhere, fl(3, 4)),
        C("ops.masked_select[then sum]", masked_select_sum, fl(3, 4)),
        C("ops.unique[rebuild]", unique_rebuild, it(0, 4, 8)),
        C("ops.tensor_scatter_add[histogram]", scatter_histogram, it(0, 5, 10)),
        C("ops.index_select[randperm index]", index_select_randperm, fl(4, 3), seeded=True),
        C("ops.one_hot[argmax]", one_hot_argmax, fl(3, 4)),
        C("ops.getitem[nonzero tuple]", getitem_nonzero, fl(3, 4)),
        C("ops.scatter[topk]", scatter_topk, fl(3, 5)),
        C("ops.reshape[shape of other]", reshape_by_shape, fl(3, 4), fl(2, 6)),
        C("ops.zeros[shape of input]", zeros_by_shape, fl(2, 3)),
        C("ops.arange[size of input]", arange_by_size, fl(2, 3)),
        C("ops.split[loop]", split_sum, fl(3, 4)),
        C("ops.cast[comparison]", cast_mask, fl(3, 4)),
        C("ops.take[argmin+20 wrap]", take_argmin_wrap, fl(3, 4)),
        C("ops.nonzero[count]", nonzero_count, it(0, 2, 3, 4)),
    ]


# the API-breadth sections register themselves (slices A, A2, B, B2, nn and sparse of issue 14)
from . import (  # noqa: E402
    cases_adversarial_ops,  # noqa: F401  (gradients, boundary grids, empty RoIs, blank/impossible CTC, views, ...)
    cases_adversarial_today,  # noqa: F401  (hooks in branches/loops, loop carries, Assert, complex)
    cases_api,  # noqa: F401
    cases_api_a,  # noqa: F401
    cases_api_a2,  # noqa: F401  (bounding_box_encode/decode; collectives exempt)
    cases_api_b,  # noqa: F401
    cases_api_b2,  # noqa: F401  (iou, rotary_position_embedding, Mod, RGBToHSV, ...)
    cases_api_misc,  # noqa: F401  (dtype objects, view ops, packed dropout, samplers, summaries, ...)
    cases_api_nn,  # noqa: F401  (3-D/transposed convs, pools, fold)
    cases_api_sparse,  # noqa: F401  (coo_*/csr_*, Sparse* classes)
    cases_autodiff_api,  # noqa: F401  (hooks, ForiLoop/WhileLoop/Scan, jet/derivative, PrimitiveWithInfer, ...)
    cases_complex,  # noqa: F401  (complex ops, the fft family, stft, eig, orgqr/ormqr)
    cases_vision_ops,  # noqa: F401  (grid_sample, ROIAlign, crop_and_resize, deformable_conv2d, ...)
)
