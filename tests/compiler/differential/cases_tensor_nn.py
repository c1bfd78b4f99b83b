"""Differential cases for every public Tensor method/property and every public `nn` Cell.

Each `Case` is one public call run by `harness.run_case` in PyNative and inside a compiled
construct. Names read ``Tensor.<method>[variant]`` or ``nn.<Class>[variant]``; the part before the
``[`` is what the coverage test counts.

How the inputs are written: `C(name, fn, *args, kw={...}, **case_options)`; an argument that is
a `G` (a random-input recipe such as ``fl(3, 4)``) is drawn from the rng on every `make`, every
other argument is passed as the static Python value it is (so a ``np.ndarray`` written directly
in an index tuple stays a constant, and an ``np.ndarray`` from a `G` is a traced Tensor input).

Calls that go through Python syntax (``x[i] = v``, ``y[1] += 10``, ``bool(x)``, ``for row in x``)
use the small module-level helpers below: their source is readable, so Graph mode compiles them
as user code. Stateful Cells (TrainOneStepCell with a real learning rate, BatchNorm's moving
statistics, loss-scale counters) get dedicated step-by-step tests in
test_tensor_nn_differential.py; the cases here keep their state from changing what is compared
(a zero learning rate, outputs that do not read the moving statistics, a scale window the runs
never reach).

Gradients: `MethodGrad` / `CellGrad` take ``value_and_grad`` of ``sum(y**2 + sin(3y))`` inside the
compiled construct, so the ``[grad ...]`` cases compare compiled backward passes too.

The test runs every case at jit_syntax_level LAX (the default: what a graph cannot hold runs in
Python, a graph break) and STRICT (it is refused). The recipes `G`, `C`, `fl`, `pos`, `nz`, `it`,
`nzi`, `bl`, `perm`, `special` are shared with cases_ops.py: keep their names and signatures.
"""

from __future__ import annotations

import operator
from collections import Counter, OrderedDict
from typing import Any, Callable

import numpy as np

import spore as ms
from spore import nn, ops

from .harness import Case, run_case

T = ms.Tensor

# Only true non-ops are exempt; everything else has cases (possibly ones Graph mode must refuse).
EXEMPT_METHODS: dict[str, str] = {
    "from_numpy": "a static constructor from a host NumPy array (shares its memory); no tensor input to trace",
}
EXEMPT_CELLS: dict[str, str] = {
    "DistributedGradReducer": ("reduces across MPI ranks: 1 vs 2 ranks in both modes in "
                               "tests/parallel/test_equivalence.py"),
    "SyncBatchNorm": ("all-reduces batch statistics across MPI ranks: checked against one process in "
                      "tests/parallel/test_equivalence.py"),
}

# Cells whose state moves on every call: covered by the cases below with the state kept out of
# the comparison, and step by step by the dedicated tests.
STATEFUL_CELLS = ("TrainOneStepCell", "TrainOneStepWithLossScaleCell", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
                  "DynamicLossScaleUpdateCell")

LR_SCHEDULES = ("LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR",
                "CosineDecayLR", "PolynomialDecayLR", "WarmUpLR")

# Operator dunders users rely on: each must have a case named "Tensor.<dunder>[...]".
DUNDERS = (
    "__getitem__", "__setitem__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
    "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
    "__rpow__", "__matmul__", "__neg__", "__pos__", "__abs__", "__invert__", "__and__", "__or__", "__xor__",
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__float__", "__int__",
    "__index__", "__len__", "__iter__", "__iadd__", "__isub__", "__imul__", "__itruediv__",
)


# --- input recipes ------------------------------------------------------------------------------
class G:
    """A random input: `fn(rng)` gives a NumPy value of a fixed shape and dtype."""

    def __init__(self, fn: Callable[[np.random.Generator], Any]) -> None:
        self.fn = fn


def fl(*shape: int, lo: float | None = None, hi: float | None = None, dt: Any = np.float32) -> G:
    """Floats: standard normal, or uniform in [lo, hi)."""
    if lo is None:
        return G(lambda r: np.asarray(r.standard_normal(shape), dtype=dt))
    return G(lambda r: np.asarray(r.uniform(lo, hi, shape), dtype=dt))


def pos(*shape: int, dt: Any = np.float32) -> G:
    """Positive floats in [0.5, 3)."""
    return fl(*shape, lo=0.5, hi=3.0, dt=dt)


def nz(*shape: int, dt: Any = np.float32) -> G:
    """Floats away from zero: +-[0.5, 3)."""
    return G(lambda r: np.asarray(r.uniform(0.5, 3.0, shape) * r.choice([-1.0, 1.0], shape), dtype=dt))


def it(lo: int, hi: int, *shape: int, dt: Any = np.int32) -> G:
    """Integers in [lo, hi)."""
    return G(lambda r: np.asarray(r.integers(lo, hi, shape), dtype=dt))


def nzi(*shape: int, dt: Any = np.int32) -> G:
    """Nonzero integers in [-5, 5]."""
    return G(lambda r: np.asarray(r.integers(1, 6, shape) * r.choice([-1, 1], shape), dtype=dt))


def bl(*shape: int) -> G:
    """Booleans."""
    return G(lambda r: np.asarray(r.random(shape) > 0.5))


def perm(rows: int, n: int, dt: Any = np.int32) -> G:
    """(rows, n) rows of permutations of range(n): scatter indices without duplicates."""
    return G(lambda r: np.stack([r.permutation(n) for _ in range(rows)]).astype(dt))


def special(*shape: int) -> G:
    """Normal floats with nan, +inf and -inf at fixed positions (for isnan / isinf / isfinite)."""
    def make(r: np.random.Generator) -> np.ndarray:
        a = np.asarray(r.standard_normal(shape), dtype=np.float32)
        flat = a.reshape(-1)
        flat[0], flat[1], flat[-1] = np.nan, np.inf, -np.inf
        return a
    return G(make)


def onehot(n: int, c: int) -> G:
    """(n, c) rows of class probabilities (softmax of normal values)."""
    def make(r: np.random.Generator) -> np.ndarray:
        z = r.standard_normal((n, c))
        e = np.exp(z - z.max(1, keepdims=True))
        return (e / e.sum(1, keepdims=True)).astype(np.float32)
    return G(make)


def _v(a: Any, rng: np.random.Generator) -> Any:
    return a.fn(rng) if isinstance(a, G) else a


def C(name: str, fn: Any, *args: Any, kw: dict | None = None, **opts: Any) -> Case:
    """A Case calling `fn(*args, **kw)` with the `G` entries drawn fresh from the rng."""
    kw = dict(kw or {})

    def make(rng: np.random.Generator) -> tuple[tuple, dict]:
        return tuple(_v(a, rng) for a in args), {k: _v(v, rng) for k, v in kw.items()}

    return Case(name, fn, make, **opts)


# --- helpers Graph mode compiles as user code -----------------------------------------------------
def get_T(x):
    return x.T


def get_mT(x):
    return x.mT


def get_shape(x):
    return x.shape


def get_dtype(x):
    return x.dtype


def get_ndim(x):
    return x.ndim


def get_size(x):
    return x.size


def get_itemsize(x):
    return x.itemsize


def get_nbytes(x):
    return x.nbytes


def get_has_init(x):
    return x.has_init


def shape_arith(x):
    """Static shape values feeding ops: x reshaped by its own shape read as Python ints."""
    n, m = x.shape
    return x.reshape(m, n) * x.ndim + x.size


def dtype_cast(x, y):
    """y cast to x's dtype read from the property."""
    return y.astype(x.dtype) + x


def T_then_op(x):
    return x.T @ x


def setitem(x, i, v):
    y = x * 1
    y[i] = v
    return y


def setitem_inplace(x, i, v):
    x[i] = v
    return x


def setitem_col_traced(x, i, v):
    y = x * 1
    y[:, i] = v
    return y


def iadd_row(x):
    y = x * 1
    y[1] += 10
    return y


def iadd_row_inplace(x):
    x[1] += 10
    return x


def isub_slice(x, v):
    y = x * 1
    y[0:2] -= v
    return y


def imul_col(x):
    y = x * 1
    y[:, 0] *= 3
    return y


def idiv_all(x, v):
    y = x * 1
    y[...] /= v
    return y


def set_cols(x, v):
    y = x * 1
    y[:, 1:3] = v
    return y


def set_cols_inplace(x, v):
    x[:, 1:3] = v
    return x


def zero_pos(x):
    y = x * 1
    y[y > 0] = 0
    return y


def zero_pos_inplace(x):
    x[x > 0] = 0
    return x


def set_mask_tensor(x, mask, v):
    y = x * 1
    y[mask] = v
    return y


def set_twice(x):
    y = x * 1
    y[0] = 1.0
    y[0, 1] = 2.0
    y[-1, :] = y[0]
    return y


def read_after_write(x):
    y = x * 1
    a = y[1] * 1
    y[1] = 0.0
    return a, y, y[1]


def iadd_tensor(x, y):
    z = x * 1
    z += y
    return z


def isub_tensor(x, y):
    z = x * 1
    z -= y
    return z


def imul_tensor(x, y):
    z = x * 1
    z *= y
    return z


def itruediv_tensor(x, y):
    z = x * 1
    z /= y
    return z


def max_with_indices(x, axis):
    return x.max(axis, return_indices=True)


def getitem_argmax(x):
    return x[x.argmax()]


def getitem_argmax_flat(x):
    return x.reshape(-1)[x.argmax()]


def getitem_argsort(x):
    return x[ops.argsort(x)]


def getitem_col_traced(x, i):
    return x[:, i]


def getitem_two_traced(x, i, j):
    return x[i, j]


def getitem_chain(x):
    return x[1:][0][::-1]


def bool_if(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


def bool_and(x, y):
    if x.sum() > 0 and y.sum() > 0:
        return x + y
    return x - y


def bool_not(x):
    if not x.mean() > 0:
        return x * 2
    return x


def length(x):
    return len(x)


def length_arith(x):
    return x * len(x)


def iterate_rows(x):
    out = []
    for row in x:
        out.append(row * 2)
    return tuple(out)


def iterate_sum(x):
    acc = x[0] * 0
    for row in x:
        acc = acc + row
    return acc


def iterate_enumerate(x):
    acc = x[0] * 0
    for i, row in enumerate(x):
        acc = acc + row * i
    return acc


def unpack3(x):
    a, b, c = x
    return b - a + c


def zip_rows(x, y):
    return tuple(a * b for a, b in zip(x, y))


def radd_scalar(x):
    return 2.5 + x


def rsub_scalar(x):
    return 2.5 - x


def rmul_scalar(x):
    return 3 * x


def rtruediv_scalar(x):
    return 1.5 / x


def rfloordiv_scalar(x):
    return 7 // x


def rmod_scalar(x):
    return 7 % x


def rpow_scalar(x):
    return 2.0 ** x


def pos_op(x):
    return +x


def invert_op(x):
    return ~x


def chained_cmp(x):
    return (x > -0.5) & (x < 0.5)


def inplace_relu(x):
    ms.Tensor.relu(x, inplace=True)
    return x


def assign_value_inplace(x, v):
    x.assign_value(v)
    return x


def set_dtype_inplace(x):
    x.set_dtype(ms.float64)
    return x


def fill_then_read(x):
    y = x * 1
    y.fill_(2.0)
    return y + x


def zero_then_read(x):
    y = x * 1
    y.zero_()
    return y + x


def assign_add_then_read(x, v):
    a = x * 1
    x.assign_add(v)
    return a, x * 1


def asnumpy_roundtrip(x):
    return ms.Tensor(x.asnumpy() * 2) + x


def asnumpy_sum(x):
    return x.asnumpy().sum()


def numpy_roundtrip(x):
    return ms.Tensor(np.flip(x.numpy(), 0).copy()) - x


def numpy_max(x):
    return int(x.numpy().max())


def detach_grad(x):
    return ms.grad(lambda t: (t * t.detach()).sum())(x)




# --- gradients: value_and_grad inside the compiled construct ---------------------------------------
def _first(out):
    return out[0] if isinstance(out, (tuple, list)) else out


def _loss_of(y):
    """A scalar whose gradient is not annihilated by a final normalization (as sum(y**2 + y) is by
    LayerNorm/BatchNorm outputs, leaving only rounding noise to compare)."""
    return (ops.square(y) + ops.sin(y * 3.0)).sum()


class MethodGrad(nn.Cell):
    """Value and gradient (w.r.t. the first argument) of ``sum(y**2 + sin(3y))``, ``y = fn(*args)``.

    `fn` is a Tensor method or a helper above; the other arguments pass through as they are (static
    values stay static). For a tuple output the first element is used.
    """

    def __init__(self, fn: Any) -> None:
        super().__init__()
        self.fn = fn

    def loss(self, *args):
        return _loss_of(_first(self.fn(*args)))

    def construct(self, *args):
        return ms.value_and_grad(self.loss, 0)(*args)


class CellGrad(nn.Cell):
    """Value and gradients of ``sum(y**2 + sin(3y))``, ``y = net(*args)``, w.r.t. the first input (unless
    `wrt_input` is False, e.g. integer ids) and the net's trainable parameters."""

    def __init__(self, net: nn.Cell, wrt_input: bool = True) -> None:
        super().__init__()
        self.net = net
        self.pos = 0 if wrt_input else None
        params = net.trainable_params()
        self.weights = ms.ParameterTuple(params) if params else None

    def loss(self, *args):
        return _loss_of(_first(self.net(*args)))

    def construct(self, *args):
        return ms.value_and_grad(self.loss, self.pos, self.weights)(*args)


# --- Tensor method cases ------------------------------------------------------------------------
def _unary_cases() -> list[Case]:
    domain = {
        "abs": fl, "absolute": fl, "arctan": fl, "atan": fl, "ceil": fl, "cos": fl, "cosh": fl, "erf": fl,
        "exp": fl, "expm1": fl, "floor": fl, "log": pos, "log10": pos, "log1p": pos, "log2": pos, "neg": fl,
        "negative": fl, "reciprocal": nz, "rsqrt": pos, "sigmoid": fl, "sign": fl, "sin": fl, "sinh": fl,
        "sqrt": pos, "square": fl, "tanh": fl, "trunc": fl,
    }
    out = []
    for name, g in domain.items():
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[f32 3x4]", m, g(3, 4)),
                C(f"Tensor.{name}[f32 2x3x4]", m, g(2, 3, 4)),
                C(f"Tensor.{name}[f32 0-d]", m, g()),
                C(f"Tensor.{name}[f64 5]", m, g(5, dt=np.float64))]
    for name in ("abs", "absolute", "neg", "negative", "sign", "square"):
        out.append(C(f"Tensor.{name}[int32]", getattr(T, name), it(-5, 6, 3, 4)))
        out.append(C(f"Tensor.{name}[int64]", getattr(T, name), it(-5, 6, 4, dt=np.int64)))
    for name in ("ceil", "floor", "trunc", "sign"):
        out.append(C(f"Tensor.{name}[scaled]", getattr(T, name), fl(4, 5, lo=-4.0, hi=4.0)))
    out += [C("Tensor.tan[f32 3x4]", T.tan, fl(3, 4, lo=-1.2, hi=1.2)),
            C("Tensor.tan[f32 0-d]", T.tan, fl(lo=-1.2, hi=1.2)),
            C("Tensor.tan[f64]", T.tan, fl(5, lo=-1.2, hi=1.2, dt=np.float64)),
            C("Tensor.exp[f16]", T.exp, fl(3, 4, dt=np.float16), rtol=1e-3, atol=1e-3,
              note="float16: compared to float16 rounding"),
            C("Tensor.sqrt[f16]", T.sqrt, pos(3, 4, dt=np.float16), rtol=1e-3, atol=1e-3,
              note="float16: compared to float16 rounding"),
            C("Tensor.round[default]", T.round, fl(3, 4, lo=-5.0, hi=5.0)),
            C("Tensor.round[decimals=2]", T.round, fl(3, 4, lo=-5.0, hi=5.0), kw={"decimals": 2}),
            C("Tensor.round[decimals=-1]", T.round, fl(3, 4, lo=-50.0, hi=50.0), kw={"decimals": -1}),
            C("Tensor.round[f64 0-d]", T.round, fl(lo=-5.0, hi=5.0, dt=np.float64)),
            C("Tensor.sigmoid[large]", T.sigmoid, fl(3, 4, lo=-60.0, hi=60.0)),
            C("Tensor.relu[f32]", T.relu, fl(3, 4)),
            C("Tensor.relu[int32]", T.relu, it(-5, 5, 3, 4)),
            C("Tensor.relu[0-d]", T.relu, fl()),
            C("Tensor.relu[inplace=True]", T.relu, fl(3, 4), True),
            C("Tensor.relu[inplace helper]", inplace_relu, fl(2, 3)),
            C("Tensor.isnan[special]", T.isnan, special(3, 4)),
            C("Tensor.isnan[normal]", T.isnan, fl(5)),
            C("Tensor.isnan[int]", T.isnan, it(0, 5, 4)),
            C("Tensor.isinf[special]", T.isinf, special(3, 4)),
            C("Tensor.isinf[normal f64]", T.isinf, fl(5, dt=np.float64)),
            C("Tensor.isinf[int]", T.isinf, it(0, 5, 4)),
            C("Tensor.isfinite[special]", T.isfinite, special(3, 4)),
            C("Tensor.isfinite[normal]", T.isfinite, fl(2, 3)),
            C("Tensor.isfinite[int]", T.isfinite, it(0, 5, 4)),
            C("Tensor.logical_not[bool]", T.logical_not, bl(3, 4)),
            C("Tensor.logical_not[float]", T.logical_not, it(0, 2, 3, 4, dt=np.float32)),
            C("Tensor.logical_not[int]", T.logical_not, it(0, 3, 5)),
            C("Tensor.sigmoid[f64 bounds]", T.sigmoid, fl(2, 2, lo=-800.0, hi=800.0, dt=np.float64))]
    return out


def _binary_cases() -> list[Case]:
    out = []
    arith = ("add", "sub", "subtract", "mul", "multiply", "maximum", "minimum")
    for name in arith:
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[same shape]", m, fl(3, 4), fl(3, 4)),
                C(f"Tensor.{name}[broadcast]", m, fl(3, 1), fl(1, 4)),
                C(f"Tensor.{name}[scalar]", m, fl(3, 4), 1.5),
                C(f"Tensor.{name}[int scalar]", m, fl(3, 4), 2),
                C(f"Tensor.{name}[int32]", m, it(-5, 5, 3, 4), it(-5, 5, 3, 4)),
                C(f"Tensor.{name}[int+float]", m, it(-5, 5, 3, 4), fl(3, 4)),
                C(f"Tensor.{name}[0-d x 2-d]", m, fl(), fl(2, 3)),
                C(f"Tensor.{name}[f64 x f32]", m, fl(4, dt=np.float64), fl(4))]
    for name in ("div", "divide", "true_divide"):
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[same shape]", m, fl(3, 4), nz(3, 4)),
                C(f"Tensor.{name}[broadcast]", m, fl(2, 1, 4), nz(3, 1)),
                C(f"Tensor.{name}[scalar]", m, fl(3, 4), 4.0),
                C(f"Tensor.{name}[int32 -> float]", m, it(-9, 9, 3, 4), nzi(3, 4))]
    for name in ("div", "divide"):
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[rounding floor]", m, fl(3, 4, lo=-5, hi=5), nz(3, 4), kw={"rounding_mode": "floor"}),
                C(f"Tensor.{name}[rounding trunc]", m, fl(3, 4, lo=-5, hi=5), nz(3, 4), kw={"rounding_mode": "trunc"}),
                C(f"Tensor.{name}[int rounding floor]", m, it(-9, 9, 3, 4), nzi(3, 4),
                  kw={"rounding_mode": "floor"}),
                C(f"Tensor.{name}[int rounding trunc]", m, it(-9, 9, 3, 4), nzi(3, 4),
                  kw={"rounding_mode": "trunc"})]
    for name in ("floor_divide", "remainder"):
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[float]", m, fl(3, 4, lo=-5, hi=5), nz(3, 4)),
                C(f"Tensor.{name}[int32]", m, it(-9, 9, 3, 4), nzi(3, 4)),
                C(f"Tensor.{name}[scalar]", m, fl(3, 4, lo=-5, hi=5), 1.5),
                C(f"Tensor.{name}[int scalar]", m, it(-9, 9, 3, 4), 4),
                C(f"Tensor.{name}[broadcast]", m, it(-9, 9, 3, 1), nzi(1, 4))]
    out += [C("Tensor.pow[float]", T.pow, pos(3, 4), fl(3, 4)),
            C("Tensor.pow[scalar 2]", T.pow, fl(3, 4), 2),
            C("Tensor.pow[scalar 0.5]", T.pow, pos(3, 4), 0.5),
            C("Tensor.pow[int32]", T.pow, it(-3, 4, 3, 4), it(0, 4, 3, 4)),
            C("Tensor.pow[broadcast]", T.pow, pos(3, 1), fl(4)),
            C("Tensor.pow[negative base int exp]", T.pow, fl(5), 3.0)]
    for name in ("arctan2", "atan2"):
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[same]", m, fl(3, 4), fl(3, 4)),
                C(f"Tensor.{name}[broadcast]", m, fl(3, 1), fl(4)),
                C(f"Tensor.{name}[f64]", m, fl(5, dt=np.float64), fl(5, dt=np.float64))]
    out += [C("Tensor.xlogy[same]", T.xlogy, fl(3, 4), pos(3, 4)),
            C("Tensor.xlogy[zeros]", T.xlogy, it(0, 2, 3, 4, dt=np.float32), pos(3, 4)),
            C("Tensor.xlogy[broadcast]", T.xlogy, fl(3, 1), pos(4)),
            C("Tensor.xlogy[scalar]", T.xlogy, fl(3, 4), 2.0)]
    cmp = ("eq", "equal", "ne", "not_equal", "ge", "greater_equal", "gt", "greater", "le", "less_equal", "lt",
           "less")
    for name in cmp:
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[float]", m, fl(3, 4), fl(3, 4)),
                C(f"Tensor.{name}[int ties]", m, it(0, 3, 3, 4), it(0, 3, 3, 4)),
                C(f"Tensor.{name}[scalar]", m, it(0, 3, 3, 4), 1),
                C(f"Tensor.{name}[broadcast]", m, fl(3, 1), fl(1, 4)),
                C(f"Tensor.{name}[bool]", m, bl(5), bl(5))]
    for name in ("logical_and", "logical_or", "logical_xor"):
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[bool]", m, bl(3, 4), bl(3, 4)),
                C(f"Tensor.{name}[broadcast]", m, bl(3, 1), bl(4)),
                C(f"Tensor.{name}[int]", m, it(0, 3, 3, 4), it(0, 3, 3, 4)),
                C(f"Tensor.{name}[scalar]", m, bl(3, 4), True)]
    out += [C("Tensor.isclose[default]", T.isclose, fl(3, 4), fl(3, 4)),
            C("Tensor.isclose[self]", T.isclose, special(3, 4), special(3, 4)),
            C("Tensor.isclose[equal_nan]", T.isclose, special(3, 4), special(3, 4), kw={"equal_nan": True}),
            C("Tensor.isclose[atol 1]", T.isclose, fl(3, 4), fl(3, 4), 1e-5, 1.0),
            C("Tensor.isclose[broadcast]", T.isclose, fl(3, 1), fl(4), kw={"atol": 0.5}),
            C("Tensor.allclose[default]", T.allclose, fl(3, 4), fl(3, 4),
              note="returns a Python bool: value-dependent in Graph mode"),
            C("Tensor.allclose[atol 10]", T.allclose, fl(3, 4), fl(3, 4), 1e-5, 10.0),
            C("Tensor.allclose[equal_nan]", T.allclose, special(4), special(4), kw={"equal_nan": True}),
            C("Tensor.lerp[scalar weight]", T.lerp, fl(3, 4), fl(3, 4), 0.3),
            C("Tensor.lerp[tensor weight]", T.lerp, fl(3, 4), fl(3, 4), fl(3, 4, lo=0.0, hi=1.0)),
            C("Tensor.lerp[broadcast]", T.lerp, fl(3, 1), fl(4), fl(3, 4, lo=0.0, hi=1.0)),
            C("Tensor.lerp[0-d weight]", T.lerp, fl(3, 4), fl(3, 4), fl(lo=0.0, hi=1.0))]
    for name in ("addcdiv", "addcmul"):
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[default]", m, fl(3, 4), fl(3, 4), nz(3, 4)),
                C(f"Tensor.{name}[value 0.5]", m, fl(3, 4), fl(3, 4), nz(3, 4), 0.5),
                C(f"Tensor.{name}[tensor value]", m, fl(3, 4), fl(3, 4), nz(3, 4), fl(1)),
                C(f"Tensor.{name}[broadcast]", m, fl(3, 1), fl(1, 4), nz(3, 4), kw={"value": 2})]
    out += [C("Tensor.matmul[2d]", T.matmul, fl(3, 4), fl(4, 5)),
            C("Tensor.matmul[batched]", T.matmul, fl(2, 3, 4), fl(2, 4, 5)),
            C("Tensor.matmul[broadcast batch]", T.matmul, fl(2, 3, 4), fl(4, 5)),
            C("Tensor.matmul[vector]", T.matmul, fl(3, 4), fl(4)),
            C("Tensor.matmul[vec x vec]", T.matmul, fl(4), fl(4)),
            C("Tensor.matmul[int32]", T.matmul, it(-3, 3, 2, 3), it(-3, 3, 3, 2)),
            C("Tensor.matmul[f64]", T.matmul, fl(3, 4, dt=np.float64), fl(4, 2, dt=np.float64))]
    for name in ("clamp", "clip"):
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[both]", m, fl(3, 4), -0.5, 0.5),
                C(f"Tensor.{name}[min only]", m, fl(3, 4), 0.0),
                C(f"Tensor.{name}[max only]", m, fl(3, 4), None, 0.2),
                C(f"Tensor.{name}[tensor bounds]", m, fl(3, 4), fl(3, 4, lo=-1.0, hi=0.0),
                  fl(3, 4, lo=0.0, hi=1.0)),
                C(f"Tensor.{name}[int]", m, it(-9, 9, 3, 4), -3, 3),
                C(f"Tensor.{name}[kw]", m, fl(2, 3), kw={"min": -0.1, "max": 0.1})]
    return out


def _reduction_cases() -> list[Case]:
    out = []
    for name in ("sum", "mean", "prod", "amax", "amin", "max", "min"):
        m = getattr(T, name)
        keep = "keep_dims" if name in ("mean", "prod") else "keepdims"
        out += [C(f"Tensor.{name}[all]", m, fl(3, 4)),
                C(f"Tensor.{name}[axis 1]", m, fl(3, 4), 1),
                C(f"Tensor.{name}[axis -1 3d]", m, fl(2, 3, 4), -1),
                C(f"Tensor.{name}[axis tuple]", m, fl(2, 3, 4), (0, 2)),
                C(f"Tensor.{name}[keepdims]", m, fl(2, 3, 4), 1, kw={keep: True}),
                C(f"Tensor.{name}[int32]", m, it(-3, 4, 3, 4), 0),
                C(f"Tensor.{name}[0-d]", m, fl())]
    out += [C("Tensor.sum[dtype f64]", T.sum, fl(3, 4), 1, ms.float64),
            C("Tensor.sum[bool]", T.sum, bl(3, 4)),
            C("Tensor.sum[initial]", T.sum, fl(3, 4), kw={"axis": 0, "initial": 2.0}),
            C("Tensor.sum[empty axis tuple]", T.sum, fl(3, 4), ()),
            C("Tensor.prod[dtype]", T.prod, it(1, 3, 3, 4), 1, False, ms.float32),
            C("Tensor.amax[initial]", T.amax, fl(3, 4), 1, kw={"initial": 0.5}),
            C("Tensor.amin[where]", T.amin, fl(3, 4), 1,
              kw={"initial": 9.0, "where": T(np.array([True, False, True, True]))}),
            C("Tensor.max[return_indices]", T.max, fl(3, 4), 1, kw={"return_indices": True}),
            C("Tensor.max[return_indices keepdims]", T.max, fl(3, 4), 0, True, kw={"return_indices": True}),
            C("Tensor.max[initial]", T.max, fl(3, 4), kw={"initial": 1.0}),
            C("Tensor.max[int ties return_indices]", T.max, it(0, 3, 4, 5), 1, kw={"return_indices": True}),
            C("Tensor.min[return_indices]", T.min, fl(3, 4), 1, kw={"return_indices": True}),
            C("Tensor.min[where]", T.min, fl(3, 4), 1,
              kw={"initial": 9.0, "where": T(np.array([True, False, True, True]))}),
            C("Tensor.min[int ties return_indices]", T.min, it(0, 3, 4, 5), 0, kw={"return_indices": True})]
    for name in ("argmax", "argmin"):
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[all]", m, fl(3, 4)),
                C(f"Tensor.{name}[axis 1]", m, fl(3, 4), 1),
                C(f"Tensor.{name}[axis -1 keepdims]", m, fl(2, 3, 4), -1, True),
                C(f"Tensor.{name}[int ties]", m, it(0, 3, 4, 5), 1),
                C(f"Tensor.{name}[0 axis 3d]", m, fl(2, 3, 4), 0)]
    for name in ("all", "any"):
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[bool all]", m, bl(3, 4)),
                C(f"Tensor.{name}[axis]", m, bl(3, 4), 1),
                C(f"Tensor.{name}[axis tuple keep]", m, bl(2, 3, 4), (0, 2), True),
                C(f"Tensor.{name}[float]", m, it(0, 2, 3, 4, dt=np.float32), 0),
                C(f"Tensor.{name}[int]", m, it(0, 3, 3, 4))]
    for name in ("std", "var"):
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[all]", m, fl(3, 4)),
                C(f"Tensor.{name}[axis]", m, fl(3, 4), 1),
                C(f"Tensor.{name}[ddof 1]", m, fl(3, 4), 0, 1),
                C(f"Tensor.{name}[ddof True keepdims]", m, fl(2, 3, 4), (1, 2), True, True),
                C(f"Tensor.{name}[f64]", m, fl(5, dt=np.float64))]
    out += [C("Tensor.logsumexp[axis]", T.logsumexp, fl(3, 4), 1),
            C("Tensor.logsumexp[keepdims]", T.logsumexp, fl(3, 4), 0, True),
            C("Tensor.logsumexp[tuple]", T.logsumexp, fl(2, 3, 4), (1, 2)),
            C("Tensor.logsumexp[large]", T.logsumexp, fl(3, 4, lo=50.0, hi=100.0), -1),
            C("Tensor.norm[default]", T.norm, fl(3, 4)),
            C("Tensor.norm[ord 1 dim]", T.norm, fl(3, 4), 1, 1),
            C("Tensor.norm[fro]", T.norm, fl(3, 4), "fro"),
            C("Tensor.norm[inf vector]", T.norm, fl(5), float("inf")),
            C("Tensor.norm[dim keepdim]", T.norm, fl(2, 3, 4), None, 2, True),
            C("Tensor.norm[ord -inf matrix]", T.norm, fl(3, 4), float("-inf"), (0, 1)),
            C("Tensor.norm[ord 1 matrix]", T.norm, fl(2, 3, 4), 1, (1, 2)),
            C("Tensor.cumsum[axis 0]", T.cumsum, fl(3, 4), 0),
            C("Tensor.cumsum[axis -1]", T.cumsum, fl(2, 3, 4), -1),
            C("Tensor.cumsum[flat]", T.cumsum, fl(3, 4)),
            C("Tensor.cumsum[int]", T.cumsum, it(-3, 4, 3, 4), 1),
            C("Tensor.cumsum[dtype]", T.cumsum, it(-3, 4, 3, 4), 1, ms.float32)]
    return out


def _shape_cases() -> list[Case]:
    out = [C("Tensor.broadcast_to[rows]", T.broadcast_to, fl(1, 4), (3, 4)),
           C("Tensor.broadcast_to[new axis]", T.broadcast_to, fl(4), (2, 3, 4)),
           C("Tensor.broadcast_to[-1]", T.broadcast_to, fl(3, 1), (-1, 5)),
           C("Tensor.broadcast_to[int]", T.broadcast_to, it(0, 5, 3, 1), (3, 4)),
           C("Tensor.chunk[even]", T.chunk, fl(4, 3), 2),
           C("Tensor.chunk[uneven]", T.chunk, fl(5, 3), 3),
           C("Tensor.chunk[axis 1]", T.chunk, fl(3, 6), 3, 1),
           C("Tensor.chunk[more than size]", T.chunk, fl(2, 3), 4),
           C("Tensor.expand[varargs]", T.expand, fl(3, 1), 3, 4),
           C("Tensor.expand[tuple]", T.expand, fl(1, 4), (2, 3, 4)),
           C("Tensor.expand[-1]", T.expand, fl(3, 1), -1, 5),
           C("Tensor.expand_as[rows]", T.expand_as, fl(1, 4), fl(3, 4)),
           C("Tensor.expand_as[rank]", T.expand_as, fl(4), fl(2, 3, 4)),
           C("Tensor.expand_as[int]", T.expand_as, it(0, 3, 3, 1), fl(3, 5))]
    for axis in (0, 1, -1, 2):
        out.append(C(f"Tensor.expand_dims[axis {axis}]", T.expand_dims, fl(3, 4), axis))
    out += [C("Tensor.unsqueeze[0]", T.unsqueeze, fl(3, 4), 0),
            C("Tensor.unsqueeze[-1]", T.unsqueeze, fl(3, 4), -1),
            C("Tensor.unsqueeze[0-d]", T.unsqueeze, fl(), 0),
            C("Tensor.unsqueeze[middle]", T.unsqueeze, it(0, 3, 2, 3), 1),
            C("Tensor.flatten[default]", T.flatten, fl(2, 3, 4)),
            C("Tensor.flatten[order F]", T.flatten, fl(2, 3, 4), "F"),
            C("Tensor.flatten[start_dim 1]", T.flatten, fl(2, 3, 4), kw={"start_dim": 1}),
            C("Tensor.flatten[end_dim 1]", T.flatten, fl(2, 3, 4), kw={"start_dim": 0, "end_dim": 1}),
            C("Tensor.flatten[0-d]", T.flatten, fl()),
            C("Tensor.ravel[3d]", T.ravel, fl(2, 3, 4)),
            C("Tensor.ravel[0-d]", T.ravel, fl()),
            C("Tensor.ravel[int]", T.ravel, it(0, 5, 3, 4)),
            C("Tensor.flip[0]", T.flip, fl(3, 4), 0),
            C("Tensor.flip[tuple]", T.flip, fl(2, 3, 4), (0, 2)),
            C("Tensor.flip[-1]", T.flip, fl(3, 4), (-1,)),
            C("Tensor.flip[int]", T.flip, it(0, 9, 3, 4), [1]),
            C("Tensor.fliplr[2d]", T.fliplr, fl(3, 4)),
            C("Tensor.fliplr[3d]", T.fliplr, fl(2, 3, 4)),
            C("Tensor.fliplr[int]", T.fliplr, it(0, 9, 3, 4)),
            C("Tensor.flipud[2d]", T.flipud, fl(3, 4)),
            C("Tensor.flipud[1d]", T.flipud, fl(5)),
            C("Tensor.flipud[int]", T.flipud, it(0, 9, 3, 4))]
    for name in ("moveaxis", "movedim"):
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[0 to -1]", m, fl(2, 3, 4), 0, -1),
                C(f"Tensor.{name}[tuple]", m, fl(2, 3, 4), (0, 1), (2, 0)),
                C(f"Tensor.{name}[same]", m, fl(2, 3), 1, 1)]
    out += [C("Tensor.narrow[axis 0]", T.narrow, fl(4, 5), 0, 1, 2),
            C("Tensor.narrow[axis 1]", T.narrow, fl(4, 5), 1, 2, 3),
            C("Tensor.narrow[negative axis]", T.narrow, fl(2, 3, 4), -1, 0, 1),
            C("Tensor.permute[varargs]", T.permute, fl(2, 3, 4), 2, 0, 1),
            C("Tensor.permute[tuple]", T.permute, fl(2, 3, 4), (1, 0, 2)),
            C("Tensor.permute[negative]", T.permute, fl(2, 3), -1, -2),
            C("Tensor.repeat[int flat]", T.repeat, fl(2, 3), 2),
            C("Tensor.repeat[axis]", T.repeat, fl(2, 3), 2, 1),
            C("Tensor.repeat[list]", T.repeat, fl(2, 3), [1, 2], 0),
            C("Tensor.repeat_interleave[int]", T.repeat_interleave, fl(2, 3), 2),
            C("Tensor.repeat_interleave[dim]", T.repeat_interleave, fl(2, 3), 3, 0),
            C("Tensor.repeat_interleave[list]", T.repeat_interleave, fl(2, 3), [1, 2, 3], 1),
            C("Tensor.repeat_interleave[tensor repeats]", T.repeat_interleave, fl(2, 3), it(1, 3, 3), 1,
              note="repeats from a traced tensor: the output size depends on its values"),
            C("Tensor.reshape[tuple]", T.reshape, fl(3, 4), (4, 3)),
            C("Tensor.reshape[varargs]", T.reshape, fl(3, 4), 2, 6),
            C("Tensor.reshape[-1]", T.reshape, fl(2, 3, 4), (-1, 4)),
            C("Tensor.reshape[to 0-d]", T.reshape, fl(1), ()),
            C("Tensor.reshape[list]", T.reshape, it(0, 9, 3, 4), [12]),
            C("Tensor.view[varargs]", T.view, fl(3, 4), 6, 2),
            C("Tensor.view[tuple]", T.view, fl(3, 4), (-1,)),
            C("Tensor.view[3d]", T.view, fl(2, 6), 2, 3, 2),
            C("Tensor.view_as[basic]", T.view_as, fl(3, 4), fl(6, 2)),
            C("Tensor.view_as[flat]", T.view_as, fl(2, 3, 4), fl(24)),
            C("Tensor.view_as[int]", T.view_as, it(0, 9, 3, 4), fl(2, 6)),
            C("Tensor.resize[smaller]", T.resize, fl(3, 4), 2, 3),
            C("Tensor.resize[larger]", T.resize, fl(2, 3), (3, 4)),
            C("Tensor.resize[same size]", T.resize, fl(2, 3), 6),
            C("Tensor.roll[int]", T.roll, fl(3, 4), 1),
            C("Tensor.roll[dims]", T.roll, fl(3, 4), 2, 1),
            C("Tensor.roll[tuple]", T.roll, fl(2, 3, 4), (1, -1), (0, 2)),
            C("Tensor.roll[negative]", T.roll, it(0, 9, 5), -2, 0),
            C("Tensor.split[int]", T.split, fl(4, 3), 2),
            C("Tensor.split[uneven]", T.split, fl(5, 3), 2),
            C("Tensor.split[sections]", T.split, fl(6, 3), [1, 2, 3]),
            C("Tensor.split[axis]", T.split, fl(3, 6), 3, 1),
            C("Tensor.split[sections axis -1]", T.split, fl(2, 5), (4, 1), -1),
            C("Tensor.tensor_split[int]", T.tensor_split, fl(6, 2), 3),
            C("Tensor.tensor_split[uneven]", T.tensor_split, fl(5, 2), 3),
            C("Tensor.tensor_split[indices]", T.tensor_split, fl(6, 2), [1, 4]),
            C("Tensor.tensor_split[axis]", T.tensor_split, fl(2, 7), (2, 5), 1),
            C("Tensor.squeeze[all]", T.squeeze, fl(1, 3, 1, 4)),
            C("Tensor.squeeze[axis]", T.squeeze, fl(1, 3, 1, 4), 2),
            C("Tensor.squeeze[tuple]", T.squeeze, fl(1, 3, 1, 4), (0, 2)),
            C("Tensor.squeeze[non-1 axis]", T.squeeze, fl(3, 4), 0, note="an error in both modes"),
            C("Tensor.squeeze[int]", T.squeeze, it(0, 9, 1, 3), 0)]
    for name in ("swapaxes", "swapdims"):
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[0 1]", m, fl(3, 4), 0, 1),
                C(f"Tensor.{name}[3d]", m, fl(2, 3, 4), 0, 2),
                C(f"Tensor.{name}[negative]", m, fl(2, 3, 4), -1, -2),
                C(f"Tensor.{name}[same]", m, fl(2, 3), 1, 1)]
    out += [C("Tensor.tile[2d]", T.tile, fl(2, 3), (2, 2)),
            C("Tensor.tile[more dims]", T.tile, fl(2, 3), (2, 1, 2)),
            C("Tensor.tile[fewer dims]", T.tile, fl(2, 3), (3,)),
            C("Tensor.tile[int]", T.tile, it(0, 9, 3), [2]),
            C("Tensor.transpose[none]", T.transpose, fl(2, 3, 4)),
            C("Tensor.transpose[varargs]", T.transpose, fl(2, 3, 4), 1, 2, 0),
            C("Tensor.transpose[tuple]", T.transpose, fl(2, 3, 4), (2, 1, 0)),
            C("Tensor.transpose[2d]", T.transpose, fl(3, 4), 1, 0),
            C("Tensor.unbind[0]", T.unbind, fl(3, 4)),
            C("Tensor.unbind[1]", T.unbind, fl(3, 4), 1),
            C("Tensor.unbind[-1 3d]", T.unbind, fl(2, 3, 2), -1),
            C("Tensor.unstack[0]", T.unstack, fl(3, 4)),
            C("Tensor.unstack[1]", T.unstack, fl(2, 3, 4), 1),
            C("Tensor.unstack[int]", T.unstack, it(0, 9, 2, 3), -1)]
    return out


def _index_cases() -> list[Case]:
    out = [C("Tensor.gather[axis 0]", T.gather, fl(5, 3), it(0, 5, 4), 0),
           C("Tensor.gather[axis 1]", T.gather, fl(3, 5), it(0, 5, 2, 2), 1),
           C("Tensor.gather[batch_dims]", T.gather, fl(2, 5), it(0, 5, 2, 3), 1, 1),
           C("Tensor.gather[static list]", T.gather, fl(4, 3), [3, 0, 0], 0),
           C("Tensor.gather[int64 indices]", T.gather, fl(4, 3), it(0, 3, 4, dt=np.int64), 1),
           C("Tensor.gather_elements[dim 0]", T.gather_elements, fl(3, 4), 0, it(0, 3, 2, 4)),
           C("Tensor.gather_elements[dim 1]", T.gather_elements, fl(3, 4), 1, it(0, 4, 3, 2)),
           C("Tensor.gather_elements[3d]", T.gather_elements, fl(2, 3, 4), -1, it(0, 4, 2, 3, 1)),
           C("Tensor.gather_nd[points]", T.gather_nd, fl(3, 4), G(lambda r: np.stack(
               [r.integers(0, 3, 5), r.integers(0, 4, 5)], 1).astype(np.int32))),
           C("Tensor.gather_nd[rows]", T.gather_nd, fl(3, 4), it(0, 3, 2, 1)),
           C("Tensor.gather_nd[3d]", T.gather_nd, fl(2, 3, 4), it(0, 2, 2, 2, 2)),
           C("Tensor.index_select[axis 0]", T.index_select, fl(4, 3), 0, it(0, 4, 5)),
           C("Tensor.index_select[axis 1]", T.index_select, fl(4, 3), 1, it(0, 3, 2)),
           C("Tensor.index_select[negative axis]", T.index_select, fl(2, 3, 4), -1, it(0, 4, 3)),
           C("Tensor.index_select[static]", T.index_select, fl(4, 3), 0, T(np.array([3, 1], np.int32))),
           C("Tensor.masked_fill[scalar]", T.masked_fill, fl(3, 4), bl(3, 4), 0.5),
           C("Tensor.masked_fill[broadcast mask]", T.masked_fill, fl(3, 4), bl(4), -1.0),
           C("Tensor.masked_fill[tensor value]", T.masked_fill, fl(3, 4), bl(3, 4), fl()),
           C("Tensor.masked_fill[int]", T.masked_fill, it(0, 9, 3, 4), bl(3, 4), 7),
           C("Tensor.masked_fill[-inf]", T.masked_fill, fl(3, 4), bl(3, 4), float("-inf")),
           C("Tensor.masked_select[basic]", T.masked_select, fl(3, 4), bl(3, 4),
             note="output size depends on the mask values"),
           C("Tensor.masked_select[broadcast]", T.masked_select, fl(3, 4), bl(4)),
           C("Tensor.masked_select[static mask]", T.masked_select, fl(2, 3),
             T(np.array([[True, False, True], [False, False, True]]))),
           C("Tensor.scatter[axis 1]", T.scatter, fl(3, 4), 1, perm(3, 4), fl(3, 4)),
           C("Tensor.scatter[axis 0]", T.scatter, fl(4, 3), 0, G(lambda r: np.stack(
               [r.permutation(4)[:2] for _ in range(3)], 1).astype(np.int32)), fl(2, 3)),
           C("Tensor.scatter[scalar src]", T.scatter, fl(3, 4), 1, G(lambda r: np.stack(
               [r.permutation(4)[:2] for _ in range(3)]).astype(np.int32)), 1.5,
             note="Spore takes src as a tensor of the index's shape: an error in both modes"),
           C("Tensor.scatter[int]", T.scatter, it(0, 9, 2, 3), 1, perm(2, 3), it(10, 20, 2, 3)),
           C("Tensor.take[flat]", T.take, fl(3, 4), it(0, 12, 5)),
           C("Tensor.take[axis]", T.take, fl(3, 4), it(0, 4, 2, 2), 1),
           C("Tensor.take[clip out of range]", T.take, fl(3, 4), it(-20, 20, 6), None, "clip"),
           C("Tensor.take[wrap]", T.take, fl(3, 4), it(-20, 20, 6), 0, "wrap"),
           C("Tensor.take[raise in range]", T.take, fl(3, 4), it(0, 3, 4), 0, "raise"),
           C("Tensor.take[static list]", T.take, fl(3, 4), [0, 5, 11])]
    out += [C("Tensor.argsort[default]", T.argsort, fl(3, 4)),
            C("Tensor.argsort[axis 0]", T.argsort, fl(3, 4), 0),
            C("Tensor.argsort[descending]", T.argsort, fl(3, 4), -1, True),
            C("Tensor.argsort[int ties]", T.argsort, it(0, 3, 8)),
            C("Tensor.argsort[int ties descending]", T.argsort, it(0, 3, 2, 6), 1, True),
            C("Tensor.sort[default]", T.sort, fl(3, 4)),
            C("Tensor.sort[axis 0]", T.sort, fl(3, 4), 0),
            C("Tensor.sort[descending]", T.sort, fl(3, 4), kw={"descending": True}),
            C("Tensor.sort[int ties]", T.sort, it(0, 3, 8)),
            C("Tensor.sort[int ties descending]", T.sort, it(0, 3, 2, 6), -1, True),
            C("Tensor.topk[default]", T.topk, fl(3, 5), 2),
            C("Tensor.topk[smallest]", T.topk, fl(3, 5), 2, kw={"largest": False}),
            C("Tensor.topk[dim 0]", T.topk, fl(4, 3), 3, 0),
            C("Tensor.topk[1d]", T.topk, fl(6), 4),
            C("Tensor.topk[int ties]", T.topk, it(0, 3, 8), 3),
            C("Tensor.topk[unsorted]", T.topk, fl(6), 3, kw={"sorted": False}),
            C("Tensor.unique[float]", T.unique, it(0, 4, 6, dt=np.float32),
              note="output size depends on the values"),
            C("Tensor.unique[int]", T.unique, it(0, 4, 2, 3)),
            C("Tensor.unique[3d]", T.unique, it(0, 4, 2, 2, 2)),
            C("Tensor.nonzero[default]", T.nonzero, it(0, 2, 3, 4), note="output size depends on the values"),
            C("Tensor.nonzero[as_tuple]", T.nonzero, it(0, 2, 5), True),
            C("Tensor.nonzero[float]", T.nonzero, it(0, 2, 2, 3, dt=np.float32)),
            C("Tensor.argwhere[default]", T.argwhere, bl(3, 4), note="output size depends on the values"),
            C("Tensor.argwhere[float]", T.argwhere, it(0, 2, 5, dt=np.float32)),
            C("Tensor.argwhere[int 3d]", T.argwhere, it(0, 2, 2, 2, 3))]
    return out


def _creation_conversion_cases() -> list[Case]:
    out = [C("Tensor.new_full[tuple]", T.new_full, fl(3, 4), (2, 3), 1.5),
           C("Tensor.new_full[int tensor]", T.new_full, it(0, 9, 3), (2,), 7),
           C("Tensor.new_full[dtype]", T.new_full, fl(3), [2, 2], 3, kw={"dtype": ms.int32}),
           C("Tensor.new_full[0-d]", T.new_full, fl(3), (), -1.0)]
    for name in ("new_ones", "new_zeros"):
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[tuple]", m, fl(3, 4), (2, 3)),
                C(f"Tensor.{name}[int like]", m, it(0, 9, 3), (4,)),
                C(f"Tensor.{name}[dtype]", m, fl(3), [2, 2], kw={"dtype": ms.float64}),
                C(f"Tensor.{name}[bool dtype]", m, fl(3), (3,), kw={"dtype": ms.bool_})]
    for dt in (ms.int32, ms.float16, ms.bool_, ms.float64, ms.int64, ms.uint8):
        out.append(C(f"Tensor.astype[{dt}]", T.astype, fl(3, 4, lo=-3.0, hi=3.0), dt))
    out += [C("Tensor.astype[same dtype]", T.astype, fl(3, 4), ms.float32),
            C("Tensor.astype[int to float]", T.astype, it(-9, 9, 3, 4), ms.float32),
            C("Tensor.astype[bool to int]", T.astype, bl(3, 4), ms.int32),
            C("Tensor.astype[str name]", T.astype, fl(3, 4), "float16"),
            C("Tensor.astype[numpy dtype]", T.astype, fl(3, 4), np.int32),
            C("Tensor.astype[copy False]", T.astype, fl(3, 4), ms.float32, False),
            C("Tensor.to[int32]", T.to, fl(3, 4, lo=-3.0, hi=3.0), ms.int32),
            C("Tensor.to[float64]", T.to, fl(3, 4), ms.float64),
            C("Tensor.to[bool]", T.to, it(0, 3, 5), ms.bool_),
            C("Tensor.to[same]", T.to, it(0, 3, 5), ms.int32)]
    for name in ("float", "half", "double", "int", "long", "bool"):
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[from f32]", m, fl(3, 4, lo=-3.0, hi=3.0)),
                C(f"Tensor.{name}[from int]", m, it(-3, 4, 3, 4)),
                C(f"Tensor.{name}[from bool]", m, bl(5)),
                C(f"Tensor.{name}[0-d]", m, fl(lo=-3.0, hi=3.0))]
    for name in ("copy", "clone", "detach"):
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[f32]", m, fl(3, 4)),
                C(f"Tensor.{name}[int]", m, it(0, 9, 3, 4)),
                C(f"Tensor.{name}[0-d]", m, fl()),
                C(f"Tensor.{name}[bool]", m, bl(4))]
    out += [C("Tensor.detach[grad one factor]", detach_grad, fl(3, 4), note="gradient flows through one factor only"),
            C("Tensor.set_dtype[f64]", T.set_dtype, fl(3, 4), ms.float64,
              note="in place: the argument's dtype changes"),
            C("Tensor.set_dtype[int32]", T.set_dtype, fl(3, 4, lo=-3.0, hi=3.0), ms.int32),
            C("Tensor.set_dtype[helper]", set_dtype_inplace, fl(2, 3)),
            C("Tensor.assign_value[tensor]", T.assign_value, fl(3, 4), fl(3, 4), note="in place"),
            C("Tensor.assign_value[new shape]", T.assign_value, fl(3, 4), fl(2, 2)),
            C("Tensor.assign_value[static]", T.assign_value, fl(2, 2), T(np.ones((2, 2), np.float32))),
            C("Tensor.assign_value[helper]", assign_value_inplace, fl(3, 4), fl(3, 4)),
            C("Tensor.assign_value[int from float]", T.assign_value, it(0, 9, 3), fl(3)),
            C("Tensor.asnumpy[roundtrip]", asnumpy_roundtrip, fl(3, 4), note="a NumPy array: needs the values"),
            C("Tensor.asnumpy[numpy scalar]", asnumpy_sum, fl(3, 4)),
            C("Tensor.asnumpy[0-d]", T.asnumpy, fl()),
            C("Tensor.asnumpy[int roundtrip]", asnumpy_roundtrip, it(0, 9, 2, 2)),
            C("Tensor.numpy[roundtrip]", numpy_roundtrip, fl(3, 4)),
            C("Tensor.numpy[int max]", numpy_max, it(0, 9, 3)),
            C("Tensor.numpy[0-d]", T.numpy, fl()),
            C("Tensor.item[0-d]", T.item, fl(), note="a Python number: needs the value"),
            C("Tensor.item[one element]", T.item, fl(1, 1)),
            C("Tensor.item[index]", T.item, fl(3, 4), 5),
            C("Tensor.item[int]", T.item, it(0, 9, 1)),
            C("Tensor.tolist[2d]", T.tolist, fl(2, 3), note="Python lists: need the values"),
            C("Tensor.tolist[0-d]", T.tolist, it(0, 9)),
            C("Tensor.tolist[1d bool]", T.tolist, bl(3))]
    return out


def _state_cases() -> list[Case]:
    return [C("Tensor.fill_[float]", T.fill_, fl(3, 4), 5.0, note="in place"),
            C("Tensor.fill_[int tensor]", T.fill_, it(0, 9, 3, 4), 2),
            C("Tensor.fill_[tensor value]", T.fill_, fl(3, 4), fl()),
            C("Tensor.fill_[0-d]", T.fill_, fl(), -1.0),
            C("Tensor.fill_[then read]", fill_then_read, fl(2, 3)),
            C("Tensor.zero_[f32]", T.zero_, fl(3, 4), note="in place"),
            C("Tensor.zero_[int]", T.zero_, it(1, 9, 3, 4)),
            C("Tensor.zero_[bool]", T.zero_, bl(4)),
            C("Tensor.zero_[then read]", zero_then_read, fl(2, 3)),
            C("Tensor.assign_add[tensor]", T.assign_add, fl(3, 4), fl(3, 4), note="in place"),
            C("Tensor.assign_add[scalar]", T.assign_add, fl(3, 4), 1.0),
            C("Tensor.assign_add[broadcast]", T.assign_add, fl(3, 4), fl(4)),
            C("Tensor.assign_add[int]", T.assign_add, it(0, 9, 3), it(0, 9, 3)),
            C("Tensor.assign_add[then read]", assign_add_then_read, fl(2, 3), fl(2, 3)),
            C("Tensor.assign_sub[tensor]", T.assign_sub, fl(3, 4), fl(3, 4), note="in place"),
            C("Tensor.assign_sub[scalar]", T.assign_sub, fl(3, 4), 1.0),
            C("Tensor.assign_sub[broadcast]", T.assign_sub, fl(3, 4), fl(3, 1)),
            C("Tensor.assign_sub[int]", T.assign_sub, it(0, 9, 3), it(0, 9, 3))]


def _activation_cases() -> list[Case]:
    out = []
    for name in ("softmax", "log_softmax"):
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[default]", m, fl(3, 4)),
                C(f"Tensor.{name}[axis 0]", m, fl(3, 4), 0),
                C(f"Tensor.{name}[3d axis 1]", m, fl(2, 3, 4), 1),
                C(f"Tensor.{name}[large]", m, fl(3, 4, lo=-100.0, hi=100.0)),
                C(f"Tensor.{name}[f64]", m, fl(5, dt=np.float64)),
                C(f"Tensor.{name}[1d]", m, fl(6), -1)]
    out += [C("Tensor.softmax[dtype]", T.softmax, fl(3, 4), -1, kw={"dtype": ms.float64}),
            C("Tensor.softmax[tuple axis]", T.softmax, fl(2, 3, 4), (1, 2))]
    return out


def _property_cases() -> list[Case]:
    out = []
    props = {"T": get_T, "mT": get_mT, "shape": get_shape, "dtype": get_dtype, "ndim": get_ndim, "size": get_size,
             "itemsize": get_itemsize, "nbytes": get_nbytes, "strides": operator.attrgetter("strides"),
             "has_init": get_has_init}
    for name, helper in props.items():
        shapes = ((2, 3, 4), (3, 4)) if name == "mT" else ((3, 4), (2, 3, 4), ())
        for shp in shapes:
            tag = "x".join(map(str, shp)) or "0-d"
            out.append(C(f"Tensor.{name}[attrgetter {tag}]", operator.attrgetter(name), fl(*shp)))
        label = "attrgetter" if isinstance(helper, operator.attrgetter) else "helper"
        out.append(C(f"Tensor.{name}[{label}]", helper, fl(3, 4)))
        out.append(C(f"Tensor.{name}[{label} int]", helper, it(0, 9, 2, 5, dt=np.int64)))
    out += [C("Tensor.T[1d]", get_T, fl(5)),
            C("Tensor.T[then matmul]", T_then_op, fl(3, 4)),
            C("Tensor.mT[2d]", get_mT, fl(3, 4)),
            C("Tensor.shape[arith]", shape_arith, fl(3, 4)),
            C("Tensor.dtype[cast to]", dtype_cast, fl(3, 4, dt=np.float64), it(0, 9, 3, 4)),
            C("Tensor.itemsize[f16]", get_itemsize, fl(3, dt=np.float16)),
            C("Tensor.nbytes[bool]", get_nbytes, bl(3, 4)),
            C("Tensor.strides[f64]", operator.attrgetter("strides"), fl(2, 3, dt=np.float64))]
    for name in ("dim", "numel", "nelement"):
        m = getattr(T, name)
        out += [C(f"Tensor.{name}[2d]", m, fl(3, 4)),
                C(f"Tensor.{name}[3d]", m, fl(2, 3, 4)),
                C(f"Tensor.{name}[0-d]", m, fl())]
    out += [C("Tensor.init_data[f32]", T.init_data, fl(3, 4)),
            C("Tensor.init_data[int]", T.init_data, it(0, 9, 3)),
            C("Tensor.init_data[0-d]", T.init_data, fl())]
    return out


def _getitem_cases() -> list[Case]:
    gi = operator.getitem
    x34, x234 = fl(3, 4), fl(2, 3, 4)
    static = [
        ("int", x34, 1), ("negative int", x34, -1), ("int 3d", x234, 0), ("slice", x34, slice(1, 3)),
        ("slice step", fl(5, 4), slice(None, None, 2)), ("negative step", x34, slice(None, None, -1)),
        ("negative slice", fl(5), slice(-3, -1)), ("slice out of range", x34, slice(1, 10)),
        ("empty slice", x34, slice(2, 1)), ("None", x34, None), ("Ellipsis", x34, Ellipsis),
        ("ellipsis int", x234, (Ellipsis, 0)), ("int ellipsis", x234, (1, Ellipsis)),
        ("none slice int", x34, (None, slice(None), 1)), ("two ints", x34, (1, 2)),
        ("three ints", x234, (1, -1, 2)), ("slice int", x34, (slice(1, 3), -1)),
        ("int slice", x234, (0, slice(None, None, -1))), ("slice slice", x234, (slice(0, 1), slice(1, 3))),
        ("trailing none", x34, (Ellipsis, None)), ("middle none", x234, (0, None, slice(1, 2))),
        ("static list", x34, [0, 2]), ("static list negative", x34, [-1, 0, -1]),
        ("static np array", x34, (slice(None), np.array([3, 0, 1]))),
        ("static 2-d array", fl(5), np.array([[0, 4], [2, 2]])),
        ("static bool np mask", x34, (np.array([True, False, True]),)),
        ("static bool mask cols", x34, (slice(None), np.array([True, False, True, True]))),
        ("True scalar", x34, True), ("static int arrays pair", x34, (np.array([0, 2]), np.array([1, 3]))),
        ("array slice array", x234, (np.array([0, 1]), slice(None), np.array([2, 3]))),
        ("int array nonadjacent", x234, (np.array([1, 0]), 1, slice(None))),
        ("static tensor index", x34, T(np.array([2, 0], np.int32))),
        ("static tensor in tuple", x234, (slice(None), T(np.array([1, 1, 2], np.int64)))),
        ("0-d x ellipsis", fl(), Ellipsis), ("0-d x None", fl(), None),
        ("int tensor", it(0, 9, 3, 4), (1, slice(1, 3))), ("bool tensor", bl(3, 4), 2),
    ]
    out = [C(f"Tensor.__getitem__[{tag}]", gi, x, idx) for tag, x, idx in static]
    out += [C("Tensor.__getitem__[traced int tensor]", gi, fl(5, 3), it(0, 5, 4)),
            C("Tensor.__getitem__[traced negative tensor]", gi, fl(5, 3), it(-5, 0, 4)),
            C("Tensor.__getitem__[traced 2-d tensor]", gi, fl(5, 3), it(0, 5, 2, 2)),
            C("Tensor.__getitem__[traced 0-d tensor]", gi, fl(5, 3), it(0, 5)),
            C("Tensor.__getitem__[traced int64]", gi, fl(4), it(0, 4, 3, dt=np.int64)),
            C("Tensor.__getitem__[traced bool mask]", gi, fl(3, 4), bl(3, 4),
              note="output size depends on the mask values"),
            C("Tensor.__getitem__[traced bool rows]", gi, fl(3, 4), bl(3)),
            C("Tensor.__getitem__[traced float index]", gi, fl(3, 4), fl(2),
              note="a float index is an error in both modes"),
            C("Tensor.__getitem__[traced column]", getitem_col_traced, fl(3, 5), it(0, 5, 2)),
            C("Tensor.__getitem__[traced two]", getitem_two_traced, fl(3, 5), it(0, 3, 4), it(0, 5, 4)),
            C("Tensor.__getitem__[argmax]", getitem_argmax, fl(6)),
            C("Tensor.__getitem__[argmax flat]", getitem_argmax_flat, fl(3, 4)),
            C("Tensor.__getitem__[argsort]", getitem_argsort, fl(6)),
            C("Tensor.__getitem__[argsort int]", getitem_argsort, it(0, 9, 5)),
            C("Tensor.__getitem__[chain]", getitem_chain, fl(4, 3)),
            C("Tensor.__getitem__[out of range]", gi, x34, 5, note="an error in both modes"),
            C("Tensor.__getitem__[too many]", gi, x34, (0, 0, 0), note="an error in both modes")]
    return out


def _setitem_cases() -> list[Case]:
    x34 = fl(3, 4)
    out = [C("Tensor.__setitem__[int scalar]", setitem, x34, 1, 5.0),
           C("Tensor.__setitem__[negative int row]", setitem, x34, -1, fl(4)),
           C("Tensor.__setitem__[slice scalar]", setitem, x34, slice(1, 3), 0.0),
           C("Tensor.__setitem__[slice step]", setitem, fl(5, 2), slice(None, None, 2), -1.0),
           C("Tensor.__setitem__[cols tensor]", setitem, x34, (slice(None), slice(1, 3)), fl(3, 2)),
           C("Tensor.__setitem__[ellipsis]", setitem, fl(2, 3, 4), (Ellipsis, 0), fl(2, 3)),
           C("Tensor.__setitem__[two ints]", setitem, x34, (2, 3), 9.0),
           C("Tensor.__setitem__[static list]", setitem, x34, [0, 2], fl(2, 4)),
           C("Tensor.__setitem__[static np array]", setitem, x34, (slice(None), np.array([3, 0])), 1.0),
           C("Tensor.__setitem__[static bool mask]", setitem, x34, (np.array([True, False, True]),), 2.0),
           C("Tensor.__setitem__[broadcast value]", setitem, x34, slice(0, 2), fl(4)),
           C("Tensor.__setitem__[broadcast column]", setitem, x34, Ellipsis, fl(3, 1)),
           C("Tensor.__setitem__[int into int]", setitem, it(0, 9, 3, 4), 0, 7),
           C("Tensor.__setitem__[float into int]", setitem, it(0, 9, 3, 4), 0, 2.7,
             note="the value is cast to the tensor's dtype"),
           C("Tensor.__setitem__[int tensor value into float]", setitem, x34, 1, it(0, 9, 4)),
           C("Tensor.__setitem__[None]", setitem, x34, None, fl(3, 4)),
           C("Tensor.__setitem__[traced index]", setitem, fl(5, 3), it(0, 5, 2), 0.0,
             note="duplicate indices write the same value"),
           C("Tensor.__setitem__[traced index tensor value]", setitem, fl(5, 3), G(
               lambda r: r.permutation(5)[:2].astype(np.int32)), fl(2, 3)),
           C("Tensor.__setitem__[traced 0-d index]", setitem, fl(5, 3), it(0, 5), fl(3)),
           C("Tensor.__setitem__[traced column]", setitem_col_traced, fl(3, 5), G(
               lambda r: r.permutation(5)[:2].astype(np.int32)), fl(3, 2)),
           C("Tensor.__setitem__[traced bool mask]", set_mask_tensor, x34, bl(3, 4), 0.0),
           C("Tensor.__setitem__[traced bool mask tensor value]", set_mask_tensor, x34, bl(3, 4), fl()),
           C("Tensor.__setitem__[traced bool rows]", operator.setitem, x34, bl(3), fl(4),
             note="in place through operator.setitem: a refusal is then located on the call"),
           C("Tensor.__setitem__[y > 0 = 0]", zero_pos, x34),
           C("Tensor.__setitem__[y > 0 = 0 int]", zero_pos, it(-5, 5, 3, 4)),
           C("Tensor.__setitem__[y[:, 1:3] = v]", set_cols, x34, fl(3, 2)),
           C("Tensor.__setitem__[y[:, 1:3] = scalar]", set_cols, x34, 4.0),
           C("Tensor.__setitem__[twice]", set_twice, x34),
           C("Tensor.__setitem__[read after write]", read_after_write, x34),
           C("Tensor.__setitem__[out of range]", operator.setitem, x34, 5, 1.0, note="an error in both modes"),
           C("Tensor.__setitem__[shape mismatch]", operator.setitem, x34, 0, fl(3), note="an error in both modes"),
           # in place: the write lands in the argument itself (the harness compares it)
           C("Tensor.__setitem__[inplace int]", setitem_inplace, x34, 1, 5.0),
           C("Tensor.__setitem__[inplace slice tensor]", setitem_inplace, x34, (slice(None), slice(0, 2)), fl(3, 2)),
           C("Tensor.__setitem__[inplace traced index]", setitem_inplace, fl(5, 3), it(0, 5, 2), -1.0),
           C("Tensor.__setitem__[inplace mask]", zero_pos_inplace, x34),
           C("Tensor.__setitem__[inplace cols]", set_cols_inplace, x34, fl(3, 2)),
           C("Tensor.__setitem__[inplace int tensor]", setitem_inplace, it(0, 9, 3, 4), (0, 0), 100),
           C("Tensor.__setitem__[operator.setitem]", operator.setitem, x34, 0, 3.0,
             note="operator.setitem returns None; the write lands in the argument")]
    out += [C("Tensor.__iadd__[y[1] += 10]", iadd_row, x34),
            C("Tensor.__iadd__[y[1] += 10 int]", iadd_row, it(0, 9, 3, 4)),
            C("Tensor.__iadd__[inplace x[1] += 10]", iadd_row_inplace, x34),
            C("Tensor.__iadd__[tensor]", iadd_tensor, x34, fl(3, 4)),
            C("Tensor.__iadd__[broadcast]", iadd_tensor, x34, fl(4)),
            C("Tensor.__isub__[slice]", isub_slice, x34, fl(4)),
            C("Tensor.__isub__[tensor]", isub_tensor, x34, fl(3, 4)),
            C("Tensor.__imul__[column]", imul_col, x34),
            C("Tensor.__imul__[tensor]", imul_tensor, x34, fl(3, 1)),
            C("Tensor.__itruediv__[ellipsis]", idiv_all, x34, nz(4)),
            C("Tensor.__itruediv__[tensor]", itruediv_tensor, x34, nz(3, 4))]
    return out


def _dunder_cases() -> list[Case]:
    out = []
    ops_ = {"__add__": operator.add, "__sub__": operator.sub, "__mul__": operator.mul,
            "__truediv__": operator.truediv, "__floordiv__": operator.floordiv, "__mod__": operator.mod,
            "__pow__": operator.pow}
    for name, op in ops_.items():
        safe = nz if name in ("__truediv__", "__floordiv__", "__mod__") else fl
        base = pos if name == "__pow__" else fl
        out += [C(f"Tensor.{name}[tensor]", op, base(3, 4), safe(3, 4)),
                C(f"Tensor.{name}[broadcast]", op, base(3, 1), safe(1, 4)),
                C(f"Tensor.{name}[float scalar]", op, base(3, 4), 1.5),
                C(f"Tensor.{name}[int scalar]", op, base(3, 4), 2),
                C(f"Tensor.{name}[int tensor int scalar]", op, it(1, 9, 3, 4), 2),
                C(f"Tensor.{name}[int tensor float scalar]", op, it(1, 9, 3, 4), 0.5),
                C(f"Tensor.{name}[bool scalar]", op, base(3, 4), True),
                C(f"Tensor.{name}[0-d]", op, base(), safe(3))]
    rev = {"__radd__": radd_scalar, "__rsub__": rsub_scalar, "__rmul__": rmul_scalar,
           "__rtruediv__": rtruediv_scalar, "__rfloordiv__": rfloordiv_scalar, "__rmod__": rmod_scalar,
           "__rpow__": rpow_scalar}
    for name, fn in rev.items():
        safe = nz if name in ("__rtruediv__", "__rfloordiv__", "__rmod__") else fl
        out += [C(f"Tensor.{name}[float]", fn, safe(3, 4)),
                C(f"Tensor.{name}[int]", fn, nzi(3, 4)),
                C(f"Tensor.{name}[0-d]", fn, safe())]
    out += [C("Tensor.__radd__[operator]", operator.add, 1.5, fl(3, 4)),
            C("Tensor.__rsub__[operator int]", operator.sub, 3, it(0, 9, 3)),
            C("Tensor.__rmul__[operator]", operator.mul, 2.0, fl(3)),
            C("Tensor.__matmul__[2d]", operator.matmul, fl(3, 4), fl(4, 2)),
            C("Tensor.__matmul__[batched]", operator.matmul, fl(2, 3, 4), fl(4, 2)),
            C("Tensor.__matmul__[vector]", operator.matmul, fl(4), fl(4, 3)),
            C("Tensor.__neg__[float]", operator.neg, fl(3, 4)),
            C("Tensor.__neg__[int]", operator.neg, it(-5, 5, 4)),
            C("Tensor.__neg__[0-d]", operator.neg, fl()),
            C("Tensor.__pos__[operator]", operator.pos, fl(3, 4)),
            C("Tensor.__pos__[helper]", pos_op, it(0, 5, 4)),
            C("Tensor.__abs__[float]", operator.abs, fl(3, 4)),
            C("Tensor.__abs__[int]", operator.abs, it(-5, 5, 4)),
            C("Tensor.__abs__[builtin]", abs, fl(2, 3)),
            C("Tensor.__invert__[bool]", operator.invert, bl(3, 4)),
            C("Tensor.__invert__[helper]", invert_op, bl(5)),
            C("Tensor.__invert__[int]", operator.invert, it(0, 5, 4),
              note="Spore's ~ is logical_not on every dtype")]
    for name, op in (("__and__", operator.and_), ("__or__", operator.or_), ("__xor__", operator.xor)):
        out += [C(f"Tensor.{name}[bool]", op, bl(3, 4), bl(3, 4)),
                C(f"Tensor.{name}[broadcast]", op, bl(3, 1), bl(4)),
                C(f"Tensor.{name}[scalar]", op, bl(3, 4), True),
                C(f"Tensor.{name}[reflected]", op, False, bl(3, 4))]
    out.append(C("Tensor.__and__[chained compare]", chained_cmp, fl(3, 4)))
    for name, op in (("__eq__", operator.eq), ("__ne__", operator.ne), ("__lt__", operator.lt),
                     ("__le__", operator.le), ("__gt__", operator.gt), ("__ge__", operator.ge)):
        out += [C(f"Tensor.{name}[tensor]", op, it(0, 3, 3, 4), it(0, 3, 3, 4)),
                C(f"Tensor.{name}[scalar]", op, fl(3, 4), 0.0),
                C(f"Tensor.{name}[broadcast]", op, fl(3, 1), fl(4)),
                C(f"Tensor.{name}[reflected scalar]", op, 0.5, fl(3, 4))]
    out += [C("Tensor.__bool__[bool()]", bool, fl(), note="a Python bool: needs the value"),
            C("Tensor.__bool__[operator.truth]", operator.truth, it(0, 2, 1)),
            C("Tensor.__bool__[operator.not_]", operator.not_, bl()),
            C("Tensor.__bool__[if]", bool_if, fl(3, 4)),
            C("Tensor.__bool__[if 1 element]", bool_if, fl(1)),
            C("Tensor.__bool__[and]", bool_and, fl(3), fl(3)),
            C("Tensor.__bool__[not]", bool_not, fl(2, 2)),
            C("Tensor.__bool__[ambiguous]", bool, fl(3), note="an error in both modes"),
            C("Tensor.__float__[float()]", float, fl(), note="a Python float: needs the value"),
            C("Tensor.__float__[1 element]", float, fl(1, 1)),
            C("Tensor.__float__[int tensor]", float, it(0, 9)),
            C("Tensor.__int__[int()]", int, it(0, 9)),
            C("Tensor.__int__[float tensor]", int, fl(1)),
            C("Tensor.__int__[bool]", int, bl()),
            C("Tensor.__index__[operator.index]", operator.index, it(0, 4), note="a Python int: needs the value"),
            C("Tensor.__index__[1 element]", operator.index, it(0, 4, 1)),
            C("Tensor.__index__[float]", operator.index, fl(), note="only integer tensors are indices"),
            C("Tensor.__len__[len()]", len, fl(3, 4)),
            C("Tensor.__len__[helper]", length, fl(2, 3, 4)),
            C("Tensor.__len__[arith]", length_arith, fl(5)),
            C("Tensor.__len__[0-d]", len, fl(), note="an error in both modes"),
            C("Tensor.__iter__[rows]", iterate_rows, fl(3, 4)),
            C("Tensor.__iter__[sum]", iterate_sum, fl(4, 2)),
            C("Tensor.__iter__[enumerate]", iterate_enumerate, fl(3, 2)),
            C("Tensor.__iter__[unpack]", unpack3, fl(3, 2)),
            C("Tensor.__iter__[zip]", zip_rows, fl(3, 2), fl(3, 2)),
            C("Tensor.__iter__[1d]", iterate_rows, it(0, 9, 4))]
    return out


def _grad_cases() -> list[Case]:
    """Backward passes of the differentiable methods, compiled (one or two per method)."""
    def g(name: str, fn: Any, *args: Any, **kw: Any) -> Case:
        return C(f"Tensor.{name}[grad{' ' + kw.pop('tag') if 'tag' in kw else ''}]", MethodGrad(fn), *args, **kw)

    out = []
    unary = {"abs": nz, "arctan": fl, "ceil": fl, "cos": fl, "cosh": fl, "erf": fl, "exp": fl, "expm1": fl,
             "floor": fl, "log": pos, "log10": pos, "log1p": pos, "log2": pos, "neg": fl, "reciprocal": nz,
             "rsqrt": pos, "sigmoid": fl, "sign": fl, "sin": fl, "sinh": fl, "sqrt": pos, "square": fl, "tanh": fl,
             "relu": nz, "trunc": fl, "round": fl, "absolute": nz, "atan": fl, "negative": fl,
             "softmax": fl, "log_softmax": fl, "float": fl, "double": fl, "half": fl, "copy": fl, "clone": fl,
             "detach": fl, "ravel": fl, "flatten": fl, "fliplr": fl, "flipud": fl, "transpose": fl}
    for name, dom in unary.items():
        out.append(g(name, getattr(T, name), dom(3, 4)))
    out += [g("tan", T.tan, fl(3, 4, lo=-1.0, hi=1.0)),
            g("softmax", T.softmax, fl(2, 3, 4), 1, tag="axis 1"),
            g("log_softmax", T.log_softmax, fl(2, 3, 4), 0, tag="axis 0"),
            g("astype", T.astype, fl(3, 4), ms.float64),
            g("to", T.to, fl(3, 4), ms.float64),
            g("astype", T.astype, fl(3, 4), ms.float16, tag="f16", rtol=1e-3, atol=1e-3)]
    binary = {"add": fl, "sub": fl, "mul": fl, "div": nz, "maximum": fl, "minimum": fl, "arctan2": nz,
              "atan2": nz, "subtract": fl, "multiply": fl, "divide": nz, "true_divide": nz, "remainder": nz,
              "floor_divide": nz}
    for name, dom in binary.items():
        out.append(g(name, getattr(T, name), fl(3, 4), dom(3, 4)))
        out.append(g(name, getattr(T, name), fl(3, 1), dom(1, 4), tag="broadcast"))
    out += [g("pow", T.pow, pos(3, 4), fl(3, 4)),
            g("pow", T.pow, fl(3, 4), 3, tag="scalar"),
            g("xlogy", T.xlogy, pos(3, 4), pos(3, 4)),
            g("lerp", T.lerp, fl(3, 4), fl(3, 4), 0.25),
            g("lerp", T.lerp, fl(3, 4), fl(3, 4), fl(3, 4, lo=0.0, hi=1.0), tag="tensor weight"),
            g("addcdiv", T.addcdiv, fl(3, 4), fl(3, 4), nz(3, 4), 0.5),
            g("addcmul", T.addcmul, fl(3, 4), fl(3, 4), fl(3, 4), 2),
            g("matmul", T.matmul, fl(3, 4), fl(4, 5)),
            g("matmul", T.matmul, fl(2, 3, 4), fl(4, 2), tag="broadcast batch"),
            g("matmul", T.matmul, fl(4), fl(4, 3), tag="vector"),
            g("clamp", T.clamp, fl(3, 4), -0.5, 0.5),
            g("clip", T.clip, fl(3, 4), fl(3, 4, lo=-1.0, hi=0.0), fl(3, 4, lo=0.0, hi=1.0)),
            g("masked_fill", T.masked_fill, fl(3, 4), bl(3, 4), 0.0)]
    for name in ("sum", "mean", "prod", "amax", "amin", "max", "min", "std", "var", "logsumexp", "cumsum"):
        m = getattr(T, name)
        out.append(g(name, m, fl(3, 4), 1))
        if name not in ("cumsum", "logsumexp"):
            out.append(g(name, m, fl(2, 3, 4), tag="all"))
    out += [g("max", max_with_indices, fl(3, 4), 1, tag="return_indices"),
            g("norm", T.norm, fl(3, 4)),
            g("norm", T.norm, fl(3, 4), 1, 1, tag="ord 1"),
            g("std", T.std, fl(3, 4), 0, 1, True, tag="ddof keepdims"),
            g("broadcast_to", T.broadcast_to, fl(3, 1), (2, 3, 4)),
            g("chunk", T.chunk, fl(4, 3), 2),
            g("expand", T.expand, fl(3, 1), 3, 4),
            g("expand_as", T.expand_as, fl(1, 4), fl(3, 4)),
            g("expand_dims", T.expand_dims, fl(3, 4), 1),
            g("unsqueeze", T.unsqueeze, fl(3, 4), 0),
            g("flip", T.flip, fl(3, 4), (0, 1)),
            g("moveaxis", T.moveaxis, fl(2, 3, 4), 0, -1),
            g("movedim", T.movedim, fl(2, 3, 4), (0, 1), (2, 0)),
            g("narrow", T.narrow, fl(4, 5), 1, 1, 3),
            g("permute", T.permute, fl(2, 3, 4), 2, 0, 1),
            g("repeat", T.repeat, fl(2, 3), 2, 1),
            g("repeat_interleave", T.repeat_interleave, fl(2, 3), [1, 2, 3], 1),
            g("reshape", T.reshape, fl(3, 4), 2, 6),
            g("view", T.view, fl(3, 4), (-1,)),
            g("view_as", T.view_as, fl(3, 4), fl(6, 2)),
            g("resize", T.resize, fl(3, 4), 2, 3),
            g("roll", T.roll, fl(3, 4), 1, 1),
            g("split", T.split, fl(5, 3), 2),
            g("squeeze", T.squeeze, fl(1, 3, 1), (0, 2)),
            g("swapaxes", T.swapaxes, fl(2, 3, 4), 0, 2),
            g("swapdims", T.swapdims, fl(2, 3, 4), -1, 0),
            g("tensor_split", T.tensor_split, fl(6, 2), [1, 4]),
            g("tile", T.tile, fl(2, 3), (2, 1, 2)),
            g("unbind", T.unbind, fl(3, 4), 1),
            g("unstack", T.unstack, fl(3, 4)),
            g("T", get_T, fl(3, 4)),
            g("mT", get_mT, fl(2, 3, 4)),
            g("gather", T.gather, fl(5, 3), it(0, 5, 6), 0),
            g("gather_elements", T.gather_elements, fl(3, 4), 1, it(0, 4, 3, 5)),
            g("gather_nd", T.gather_nd, fl(3, 4), it(0, 3, 5, 1)),
            g("index_select", T.index_select, fl(4, 3), 0, it(0, 4, 6)),
            g("take", T.take, fl(3, 4), it(0, 12, 7)),
            g("scatter", T.scatter, fl(3, 4), 1, perm(3, 4), fl(3, 4)),
            g("sort", T.sort, fl(3, 4)),
            g("topk", T.topk, fl(3, 5), 2),
            g("__getitem__", operator.getitem, fl(3, 4), (slice(None), slice(1, 3))),
            g("__getitem__", operator.getitem, fl(5, 3), it(0, 5, 7), tag="traced repeated index"),
            g("__getitem__", getitem_argsort, fl(6), tag="argsort"),
            g("__getitem__", operator.getitem, fl(2, 3, 4), (Ellipsis, None, 1), tag="ellipsis none"),
            g("__setitem__", setitem, fl(3, 4), 1, 0.0, tag="x written"),
            g("__setitem__", set_cols, fl(3, 4), fl(3, 2), tag="cols"),
            g("__setitem__", zero_pos, fl(3, 4), tag="mask"),
            g("__setitem__", iadd_row, fl(3, 4), tag="iadd"),
            g("__setitem__", read_after_write, fl(3, 4), tag="read after write",
              note="PyNative refuses this gradient (GradError: read before an in-place write)"),
            g("__iter__", iterate_enumerate, fl(3, 2)),
            g("__pow__", operator.pow, fl(3, 4), 2.0),
            g("__rtruediv__", rtruediv_scalar, nz(3, 4)),
            g("__abs__", abs, nz(3, 4))]
    return out


def tensor_method_cases() -> list[Case]:
    """Cases for every public Tensor method and property, and the operator dunders."""
    return (_unary_cases() + _binary_cases() + _reduction_cases() + _shape_cases() + _index_cases()
            + _creation_conversion_cases() + _state_cases() + _activation_cases() + _property_cases()
            + _getitem_cases() + _setitem_cases() + _dunder_cases() + _grad_cases() + _api_breadth_tensor_cases())


def _api_breadth_tensor_cases() -> list[Case]:
    from .cases_api import api_tensor_cases  # the issue-14 Tensor methods (that module imports this one)
    from .cases_api_a import api_a_tensor_cases  # slice A's
    from .cases_api_a2 import api_a2_tensor_cases  # slice A2's (Tensor.col2im)
    from .cases_api_b import api_b_tensor_cases  # slice B's
    from .cases_api_b2 import api_b2_tensor_cases  # slice B2's (Tensor.select)
    from .cases_api_misc import api_misc_tensor_cases  # the misc slice's (data_ptr, storage, index, ...)
    from .cases_api_nn import api_nn_tensor_cases  # the nn slice's (fold/unfold)
    from .cases_api_sparse import api_sparse_tensor_cases  # the sparse slice's (to_coo/to_csr)
    from .cases_autodiff_api import autodiff_tensor_cases  # the autodiff slice's (register_hook, ...)
    from .cases_complex import complex_tensor_cases  # the complex slice's (angle, imag, eigvals, orgqr, ormqr)

    return (api_tensor_cases() + api_a_tensor_cases() + api_nn_tensor_cases() + api_b_tensor_cases()
            + api_sparse_tensor_cases() + api_b2_tensor_cases() + api_a2_tensor_cases()
            + api_misc_tensor_cases() + autodiff_tensor_cases() + complex_tensor_cases())


# --- helper Cells (user code: compiled by the frontend) -------------------------------------------
class UserCell(nn.Cell):
    """A plain user Cell: parameters, a child, Python control flow on static values."""

    def __init__(self, scale: float = 2.0) -> None:
        super().__init__()
        self.w = ms.Parameter(T(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)), name="w")
        self.act = nn.Tanh()
        self.scale = scale

    def construct(self, x):
        y = ops.matmul(x, self.w)
        if self.scale > 1:
            y = y * self.scale
        return self.act(y)


class TwoInputCell(nn.Cell):
    """A user Cell with keyword arguments and a tuple output."""

    def construct(self, x, y, alpha=0.5):
        return x * alpha + y, x - y


class ListNet(nn.Cell):
    """A CellList used as MindSpore code does: iterate, index, len."""

    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.CellList([nn.Dense(4, 4), nn.ReLU(), nn.Dense(4, 3)])
        self.layers.append(nn.Tanh())

    def construct(self, x):
        for layer in self.layers:
            x = layer(x)
        return x + self.layers[0](ops.ones((1, 4), ms.float32)).sum() * len(self.layers)


class ListIndexNet(nn.Cell):
    """A CellList indexed by position and by a slice inside construct."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.CellList()
        for _ in range(3):
            self.blocks.append(nn.Dense(3, 3))

    def construct(self, x):
        outs = []
        for i in range(len(self.blocks)):
            outs.append(self.blocks[i](x))
        for blk in self.blocks[1:]:
            x = blk(x)
        return ops.stack(outs), x


class DictNet(nn.Cell):
    """A CellDict used by name and by iteration over keys."""

    def __init__(self) -> None:
        super().__init__()
        self.branches = nn.CellDict({"relu": nn.ReLU(), "dense": nn.Dense(4, 4), "sig": nn.Sigmoid()})

    def construct(self, x):
        y = self.branches["dense"](x)
        outs = []
        for key in self.branches:
            outs.append(self.branches[key](y))
        return tuple(outs)


class WeightedLoss(nn.LossBase):
    """A user loss on LossBase.get_loss with weights."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__(reduction)

    def construct(self, logits, labels):
        return self.get_loss(ops.abs(logits - labels), ops.ones_like(logits) * 0.5)


class PlainLoss(nn.LossBase):
    """A user loss on LossBase.get_loss without weights."""

    def construct(self, logits, labels):
        return self.get_loss(ops.square(logits - labels))


class SelfAttention(nn.Cell):
    """MultiheadAttention on one tensor (q is k is v), as self-attention is written."""

    def __init__(self, mha: nn.Cell, **kwargs: Any) -> None:
        super().__init__()
        self.mha = mha
        self.kwargs = kwargs

    def construct(self, x):
        return self.mha(x, x, x)


class SelfAttentionMasked(nn.Cell):
    def __init__(self, mha: nn.Cell) -> None:
        super().__init__()
        self.mha = mha

    def construct(self, x, kpm):
        return self.mha(x, x, x, key_padding_mask=kpm)


class LSTMWithState(nn.Cell):
    """An LSTM given its (h0, c0) tuple."""

    def __init__(self, lstm: nn.Cell) -> None:
        super().__init__()
        self.lstm = lstm

    def construct(self, x, h, c):
        out, (hn, cn) = self.lstm(x, (h, c))
        return out, hn, cn


class LinearSchedule(nn.LearningRateSchedule):
    """A user schedule: construct in ops."""

    def __init__(self, base: float, slope: float) -> None:
        super().__init__()
        self.base = base
        self.slope = slope

    def construct(self, global_step):
        return ops.maximum(self.base - self.slope * global_step.astype(ms.float32), 0.0)


class ScheduleSum(nn.Cell):
    """Schedules used inside a user Cell, as an optimizer would call them."""

    def __init__(self) -> None:
        super().__init__()
        self.warm = nn.WarmUpLR(0.1, 4)
        self.cos = nn.CosineDecayLR(0.01, 0.1, 6)

    def construct(self, step):
        return self.warm(step) + self.cos(step)


def _dense_net(seed: int = 3) -> nn.Cell:
    ms.set_seed(seed)
    return nn.SequentialCell([nn.Dense(4, 5), nn.ReLU(), nn.Dense(5, 3)])


def _fixed(shape: tuple, seed: int, lo: float = -1.0, hi: float = 1.0) -> T:
    return T(np.random.default_rng(seed).uniform(lo, hi, shape).astype(np.float32))


# --- nn Cell cases ------------------------------------------------------------------------------
def _activation_cell_cases() -> list[Case]:
    simple = ("ReLU", "ReLU6", "FastGelu", "SiLU", "Sigmoid", "Tanh", "HSwish", "HSigmoid", "LogSigmoid", "Softsign",
              "Mish", "Identity")
    out = []
    for name in simple:
        cls = getattr(nn, name)
        out += [C(f"nn.{name}[2d]", cls(), fl(3, 4, lo=-8.0, hi=8.0)),
                C(f"nn.{name}[4d]", cls(), fl(2, 3, 2, 2)),
                C(f"nn.{name}[0-d]", cls(), fl()),
                C(f"nn.{name}[f64]", cls(), fl(5, dt=np.float64))]
    out += [C("nn.ReLU[int]", nn.ReLU(), it(-5, 5, 3, 4)),
            C("nn.Identity[int]", nn.Identity(), it(-5, 5, 3, 4)),
            C("nn.Identity[tuple]", nn.Identity(), (1, 2)),
            C("nn.LeakyReLU[default]", nn.LeakyReLU(), fl(3, 4)),
            C("nn.LeakyReLU[alpha 0.01]", nn.LeakyReLU(0.01), fl(2, 3, 4)),
            C("nn.LeakyReLU[alpha 1.5]", nn.LeakyReLU(1.5), fl(5)),
            C("nn.LeakyReLU[int alpha]", nn.LeakyReLU(2), fl(5)),
            C("nn.GELU[tanh]", nn.GELU(), fl(3, 4)),
            C("nn.GELU[erf]", nn.GELU(approximate=False), fl(3, 4)),
            C("nn.GELU[3d erf]", nn.GELU(False), fl(2, 3, 4)),
            C("nn.GELU[f64]", nn.GELU(), fl(5, dt=np.float64)),
            C("nn.Softmax[default]", nn.Softmax(), fl(3, 4)),
            C("nn.Softmax[axis 0]", nn.Softmax(0), fl(3, 4)),
            C("nn.Softmax[axis 1 3d]", nn.Softmax(axis=1), fl(2, 3, 4)),
            C("nn.Softmax[large]", nn.Softmax(), fl(2, 5, lo=-200.0, hi=200.0)),
            C("nn.LogSoftmax[default]", nn.LogSoftmax(), fl(3, 4)),
            C("nn.LogSoftmax[axis 0]", nn.LogSoftmax(0), fl(3, 4)),
            C("nn.LogSoftmax[3d]", nn.LogSoftmax(1), fl(2, 3, 4)),
            C("nn.LogSoftmax[large]", nn.LogSoftmax(), fl(2, 5, lo=-200.0, hi=200.0)),
            C("nn.ELU[default]", nn.ELU(), fl(3, 4)),
            C("nn.ELU[alpha 0.5]", nn.ELU(0.5), fl(2, 3, 4)),
            C("nn.ELU[f64]", nn.ELU(2.0), fl(5, dt=np.float64)),
            C("nn.Softplus[default]", nn.Softplus(), fl(3, 4)),
            C("nn.Softplus[beta 2]", nn.Softplus(2.0), fl(3, 4)),
            C("nn.Softplus[threshold]", nn.Softplus(1.0, 1.0), fl(3, 4, lo=-3.0, hi=3.0)),
            C("nn.Softplus[large]", nn.Softplus(), fl(3, 4, lo=-50.0, hi=50.0)),
            C("nn.PReLU[shared]", nn.PReLU(), fl(3, 4)),
            C("nn.PReLU[channels]", nn.PReLU(3, 0.1), fl(2, 3, 4)),
            C("nn.PReLU[channels 4d]", nn.PReLU(3, _fixed((3,), 1)), fl(2, 3, 2, 2)),
            C("nn.PReLU[1d]", nn.PReLU(), fl(5))]
    return out


def _basic_cell_cases() -> list[Case]:
    ms.set_seed(11)
    return [C("nn.Dense[bias]", nn.Dense(4, 3), fl(2, 4)),
            C("nn.Dense[no bias]", nn.Dense(4, 3, has_bias=False), fl(2, 4)),
            C("nn.Dense[relu]", nn.Dense(4, 3, activation="relu"), fl(2, 4)),
            C("nn.Dense[activation cell]", nn.Dense(4, 3, activation=nn.Tanh()), fl(2, 4)),
            C("nn.Dense[3d input]", nn.Dense(4, 2), fl(2, 3, 4)),
            C("nn.Dense[1 row]", nn.Dense(5, 5, weight_init="ones", bias_init="zeros"), fl(1, 5)),
            C("nn.Dense[init tensor]", nn.Dense(3, 2, weight_init=_fixed((2, 3), 2), bias_init=_fixed((2,), 3)),
              fl(4, 3)),
            C("nn.Dense[wrong in]", nn.Dense(4, 3), fl(2, 5), note="an error in both modes"),
            C("nn.Flatten[default]", nn.Flatten(), fl(2, 3, 4)),
            C("nn.Flatten[4d]", nn.Flatten(), fl(2, 3, 2, 2)),
            C("nn.Flatten[start 0]", nn.Flatten(0), fl(2, 3, 4)),
            C("nn.Flatten[end 2]", nn.Flatten(1, 2), fl(2, 3, 2, 2)),
            C("nn.Flatten[2d]", nn.Flatten(), fl(3, 4)),
            C("nn.Flatten[int]", nn.Flatten(), it(0, 9, 2, 2, 2)),
            C("nn.Unflatten[axis 1]", nn.Unflatten(1, (2, 3)), fl(2, 6)),
            C("nn.Unflatten[axis -1]", nn.Unflatten(-1, (2, 2)), fl(3, 2, 4)),
            C("nn.Unflatten[-1 size]", nn.Unflatten(0, (2, -1)), fl(6, 2)),
            C("nn.Dropout[eval]", nn.Dropout(p=0.5), fl(3, 4), train=False),
            C("nn.Dropout[train]", nn.Dropout(p=0.5), fl(3, 4), train=True, seeded=True,
              note="random mask: the harness re-seeds before each run"),
            C("nn.Dropout[train keep_prob]", nn.Dropout(keep_prob=0.8), fl(4, 5), train=True, seeded=True),
            C("nn.Dropout[train p=0]", nn.Dropout(p=0.0), fl(3, 4), train=True),
            C("nn.Dropout[train 3d]", nn.Dropout(p=0.25), fl(2, 3, 4), train=True, seeded=True)]


def _conv_cell_cases() -> list[Case]:
    ms.set_seed(12)
    img = fl(2, 3, 8, 8)
    return [C("nn.Conv2d[same]", nn.Conv2d(3, 4, 3), img),
            C("nn.Conv2d[valid]", nn.Conv2d(3, 4, 3, pad_mode="valid"), img),
            C("nn.Conv2d[pad]", nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1), img),
            C("nn.Conv2d[pad tuple]", nn.Conv2d(3, 2, 3, pad_mode="pad", padding=(0, 1, 2, 1)), img),
            C("nn.Conv2d[stride 2 same]", nn.Conv2d(3, 4, 3, stride=2), img),
            C("nn.Conv2d[stride 2 valid]", nn.Conv2d(3, 4, (3, 2), stride=(2, 1), pad_mode="valid"), img),
            C("nn.Conv2d[dilation]", nn.Conv2d(3, 2, 3, dilation=2, pad_mode="valid"), img),
            C("nn.Conv2d[dilation same]", nn.Conv2d(3, 2, 3, dilation=2), img),
            C("nn.Conv2d[group]", nn.Conv2d(4, 4, 3, group=2, has_bias=True), fl(2, 4, 6, 6)),
            C("nn.Conv2d[depthwise]", nn.Conv2d(3, 3, 3, group=3), fl(1, 3, 5, 5)),
            C("nn.Conv2d[bias]", nn.Conv2d(3, 4, 1, has_bias=True), img),
            C("nn.Conv2d[NHWC]", nn.Conv2d(3, 4, 3, data_format="NHWC", has_bias=True), fl(2, 6, 6, 3)),
            C("nn.Conv2d[even kernel same]", nn.Conv2d(3, 2, 2, stride=1), fl(1, 3, 5, 5)),
            C("nn.Conv2d[wrong channels]", nn.Conv2d(3, 2, 3), fl(1, 2, 5, 5), note="an error in both modes"),
            C("nn.Conv1d[same]", nn.Conv1d(3, 4, 3), fl(2, 3, 8)),
            C("nn.Conv1d[valid]", nn.Conv1d(3, 4, 3, pad_mode="valid"), fl(2, 3, 8)),
            C("nn.Conv1d[pad]", nn.Conv1d(3, 4, 3, pad_mode="pad", padding=2), fl(2, 3, 8)),
            C("nn.Conv1d[stride dilation]", nn.Conv1d(3, 2, 2, stride=2, dilation=2, pad_mode="valid"),
              fl(2, 3, 8)),
            C("nn.Conv1d[group bias]", nn.Conv1d(4, 2, 3, group=2, has_bias=True), fl(1, 4, 7))]


def _pool_cell_cases() -> list[Case]:
    img = fl(2, 3, 8, 8)
    return [C("nn.MaxPool2d[2x2]", nn.MaxPool2d(2, 2), img),
            C("nn.MaxPool2d[default]", nn.MaxPool2d(), img),
            C("nn.MaxPool2d[same]", nn.MaxPool2d(3, 2, pad_mode="same"), img),
            C("nn.MaxPool2d[pad]", nn.MaxPool2d(3, 2, pad_mode="pad", padding=1), img),
            C("nn.MaxPool2d[ceil]", nn.MaxPool2d(3, 2, pad_mode="pad", padding=1, ceil_mode=True), fl(1, 2, 7, 7)),
            C("nn.MaxPool2d[dilation]", nn.MaxPool2d(2, 1, pad_mode="pad", dilation=2), fl(1, 2, 6, 6)),
            C("nn.MaxPool2d[return_indices]", nn.MaxPool2d(2, 2, return_indices=True), img),
            C("nn.MaxPool2d[unbatched]", nn.MaxPool2d(2, 2), fl(3, 6, 6)),
            C("nn.MaxPool2d[NHWC]", nn.MaxPool2d(2, 2, data_format="NHWC"), fl(2, 6, 6, 3)),
            C("nn.MaxPool2d[ties]", nn.MaxPool2d(2, 2, return_indices=True), it(0, 2, 1, 2, 4, 4, dt=np.float32)),
            C("nn.MaxPool1d[2]", nn.MaxPool1d(2, 2), fl(2, 3, 8)),
            C("nn.MaxPool1d[same]", nn.MaxPool1d(3, 2, pad_mode="same"), fl(2, 3, 7)),
            C("nn.MaxPool1d[unbatched]", nn.MaxPool1d(2), fl(3, 6)),
            C("nn.MaxPool1d[pad]", nn.MaxPool1d(3, 1, pad_mode="pad", padding=1), fl(1, 2, 5)),
            C("nn.AvgPool2d[2x2]", nn.AvgPool2d(2, 2), img),
            C("nn.AvgPool2d[same]", nn.AvgPool2d(3, 2, pad_mode="same"), img),
            C("nn.AvgPool2d[pad include]", nn.AvgPool2d(3, 2, pad_mode="pad", padding=1), img),
            C("nn.AvgPool2d[pad exclude]", nn.AvgPool2d(3, 2, pad_mode="pad", padding=1, count_include_pad=False),
              img),
            C("nn.AvgPool2d[divisor]", nn.AvgPool2d(2, 2, pad_mode="pad", divisor_override=3), img),
            C("nn.AvgPool2d[ceil]", nn.AvgPool2d(3, 2, pad_mode="pad", ceil_mode=True), fl(1, 2, 7, 7)),
            C("nn.AvgPool2d[unbatched]", nn.AvgPool2d(2, 2), fl(3, 6, 6)),
            C("nn.AvgPool2d[NHWC]", nn.AvgPool2d(2, 2, data_format="NHWC"), fl(1, 4, 4, 3)),
            C("nn.AvgPool1d[2]", nn.AvgPool1d(2, 2), fl(2, 3, 8)),
            C("nn.AvgPool1d[same]", nn.AvgPool1d(3, 2, pad_mode="same"), fl(2, 3, 7)),
            C("nn.AvgPool1d[pad]", nn.AvgPool1d(3, 1, pad_mode="pad", padding=1, count_include_pad=False),
              fl(1, 2, 5)),
            C("nn.AvgPool1d[unbatched]", nn.AvgPool1d(2), fl(3, 6)),
            C("nn.AdaptiveAvgPool2d[1]", nn.AdaptiveAvgPool2d(1), img),
            C("nn.AdaptiveAvgPool2d[pair]", nn.AdaptiveAvgPool2d((2, 3)), img),
            C("nn.AdaptiveAvgPool2d[uneven]", nn.AdaptiveAvgPool2d(3), fl(1, 2, 7, 5)),
            C("nn.AdaptiveAvgPool2d[None]", nn.AdaptiveAvgPool2d((None, 2)), img),
            C("nn.AdaptiveAvgPool2d[unbatched]", nn.AdaptiveAvgPool2d(2), fl(3, 5, 5)),
            C("nn.AdaptiveAvgPool1d[1]", nn.AdaptiveAvgPool1d(1), fl(2, 3, 8)),
            C("nn.AdaptiveAvgPool1d[3]", nn.AdaptiveAvgPool1d(3), fl(2, 3, 8)),
            C("nn.AdaptiveAvgPool1d[uneven]", nn.AdaptiveAvgPool1d(3), fl(2, 3, 7)),
            C("nn.AdaptiveAvgPool1d[unbatched]", nn.AdaptiveAvgPool1d(2), fl(3, 5))]


def _norm_cell_cases() -> list[Case]:
    mm = _fixed((3,), 4)
    mv = _fixed((3,), 5, 0.5, 2.0)
    out = []
    for cls, x in ((nn.BatchNorm2d, fl(2, 3, 4, 4)), (nn.BatchNorm1d, fl(4, 3))):
        n = cls.__name__
        out += [C(f"nn.{n}[eval]", cls(3, moving_mean_init=mm, moving_var_init=mv), x, train=False),
                C(f"nn.{n}[train]", cls(3), x, train=True,
                  note="moving statistics move on every run; the output reads only the batch's"),
                C(f"nn.{n}[train momentum]", cls(3, momentum=0.5, eps=1e-3), x, train=True),
                C(f"nn.{n}[eval affine]", cls(3, gamma_init=_fixed((3,), 6), beta_init=_fixed((3,), 7),
                                              moving_mean_init=mm, moving_var_init=mv), x, train=False),
                C(f"nn.{n}[no affine train]", cls(3, affine=False), x, train=True),
                C(f"nn.{n}[use_batch_statistics eval]", cls(3, use_batch_statistics=True), x, train=False),
                C(f"nn.{n}[use_batch_statistics False train]", cls(3, use_batch_statistics=False,
                                                                   moving_mean_init=mm, moving_var_init=mv),
                  x, train=True)]
    out += [C("nn.BatchNorm1d[3d train]", nn.BatchNorm1d(3), fl(2, 3, 5), train=True),
            C("nn.BatchNorm1d[3d eval]", nn.BatchNorm1d(3, moving_mean_init=mm, moving_var_init=mv), fl(2, 3, 5),
              train=False),
            C("nn.BatchNorm2d[NHWC train]", nn.BatchNorm2d(3, data_format="NHWC"), fl(2, 4, 4, 3), train=True),
            C("nn.BatchNorm2d[NHWC eval]", nn.BatchNorm2d(3, data_format="NHWC", moving_mean_init=mm,
                                                          moving_var_init=mv), fl(2, 4, 4, 3), train=False),
            C("nn.BatchNorm2d[wrong channels]", nn.BatchNorm2d(4), fl(2, 3, 4, 4), note="an error in both modes"),
            C("nn.LayerNorm[last]", nn.LayerNorm((4,)), fl(3, 4)),
            C("nn.LayerNorm[int shape]", nn.LayerNorm(4), fl(2, 3, 4)),
            C("nn.LayerNorm[two axes]", nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1), fl(2, 3, 4)),
            C("nn.LayerNorm[norm 1 params -1]", nn.LayerNorm((4,), begin_norm_axis=1, begin_params_axis=-1),
              fl(2, 3, 4)),
            C("nn.LayerNorm[epsilon gamma]", nn.LayerNorm((4,), gamma_init=_fixed((4,), 8), beta_init=_fixed((4,), 9),
                                                         epsilon=1e-3), fl(2, 3, 4)),
            C("nn.LayerNorm[constant rows]", nn.LayerNorm((4,)), G(lambda r: np.repeat(
                r.standard_normal((3, 1)), 4, 1).astype(np.float32))),
            C("nn.GroupNorm[2 groups]", nn.GroupNorm(2, 4), fl(2, 4, 3, 3)),
            C("nn.GroupNorm[1 group]", nn.GroupNorm(1, 4), fl(2, 4, 5)),
            C("nn.GroupNorm[per channel]", nn.GroupNorm(4, 4, eps=1e-3), fl(2, 4, 3)),
            C("nn.GroupNorm[affine init]", nn.GroupNorm(2, 4, gamma_init=_fixed((4,), 10), beta_init=_fixed((4,), 11)),
              fl(2, 4, 2, 2)),
            C("nn.GroupNorm[2d]", nn.GroupNorm(2, 4), fl(3, 4))]
    return out


def _embedding_cell_cases() -> list[Case]:
    ms.set_seed(13)
    return [C("nn.Embedding[1d ids]", nn.Embedding(10, 4), it(0, 10, 5)),
            C("nn.Embedding[2d ids]", nn.Embedding(10, 3), it(0, 10, 2, 3)),
            C("nn.Embedding[int64 ids]", nn.Embedding(6, 2), it(0, 6, 4, dt=np.int64)),
            C("nn.Embedding[padding_idx]", nn.Embedding(8, 3, padding_idx=0), it(0, 3, 2, 4)),
            C("nn.Embedding[negative padding_idx]", nn.Embedding(8, 3, padding_idx=-1), it(5, 8, 6)),
            C("nn.Embedding[one hot]", nn.Embedding(6, 3, use_one_hot=True), it(0, 6, 2, 3)),
            C("nn.Embedding[table]", nn.Embedding(5, 2, embedding_table=_fixed((5, 2), 12)), it(0, 5, 3)),
            C("nn.Embedding[0-d id]", nn.Embedding(5, 2), it(0, 5)),
            C("nn.Embedding[float ids]", nn.Embedding(5, 2), fl(3), note="an error in both modes"),
            C("nn.Embedding[out of range]", nn.Embedding(5, 2), it(5, 9, 3), note="an error in both modes")]


def _rnn_cell_cases() -> list[Case]:
    ms.set_seed(14)
    x = fl(4, 2, 3)  # (seq, batch, input)
    out = []
    for cls in (nn.LSTM, nn.GRU, nn.RNN):
        n = cls.__name__
        state = (1, 2, 5)
        extra = (fl(*state), fl(*state)) if n == "LSTM" else (fl(*state),)
        out += [C(f"nn.{n}[basic]", cls(3, 5), x),
                C(f"nn.{n}[batch_first]", cls(3, 5, batch_first=True), fl(2, 4, 3)),
                C(f"nn.{n}[bidirectional]", cls(3, 4, bidirectional=True), x),
                C(f"nn.{n}[2 layers]", cls(3, 4, num_layers=2), x),
                C(f"nn.{n}[2 layers bidirectional batch_first]", cls(3, 2, 2, True, True, 0.0, True), fl(2, 4, 3)),
                C(f"nn.{n}[no bias]", cls(3, 5, has_bias=False), x),
                C(f"nn.{n}[seq_length]", cls(3, 5), x, None, it(1, 5, 2)),
                C(f"nn.{n}[seq_length bidirectional]", cls(3, 3, bidirectional=True), x, None, it(1, 5, 2)),
                C(f"nn.{n}[dropout eval]", cls(3, 4, num_layers=2, dropout=0.5), x, train=False),
                C(f"nn.{n}[dropout train]", cls(3, 4, num_layers=2, dropout=0.5), x, train=True, seeded=True),
                C(f"nn.{n}[wrong input]", cls(3, 5), fl(4, 2, 2), note="an error in both modes")]
        if n == "LSTM":
            out.append(C("nn.LSTM[hx]", LSTMWithState(nn.LSTM(3, 5)), x, *extra))
        else:
            out.append(C(f"nn.{n}[hx]", cls(3, 5), x, *extra))
    out += [C("nn.RNN[relu]", nn.RNN(3, 4, nonlinearity="relu"), x),
            C("nn.RNN[relu 2 layers]", nn.RNN(3, 4, 2, nonlinearity="relu"), x)]
    return out


def _attention_cell_cases() -> list[Case]:
    ms.set_seed(15)
    q, k = fl(3, 2, 4), fl(5, 2, 4)  # (L, N, E), (S, N, E)
    mha = nn.MultiheadAttention
    out = [C("nn.MultiheadAttention[cross]", mha(4, 2), q, k, k),
           C("nn.MultiheadAttention[self]", SelfAttention(mha(4, 2)), fl(3, 2, 4)),
           C("nn.MultiheadAttention[same arrays]", mha(4, 2), q, q, q,
             note="three equal-valued but distinct tensors"),
           C("nn.MultiheadAttention[key_padding_mask bool]", mha(4, 2), q, k, k, G(
               lambda r: np.concatenate([np.zeros((2, 1), bool), r.random((2, 4)) > 0.5], 1))),
           C("nn.MultiheadAttention[key_padding_mask float]", mha(4, 2), q, k, k, fl(2, 5)),
           C("nn.MultiheadAttention[attn_mask bool]", mha(4, 2), q, k, k, kw={"attn_mask": G(
               lambda r: np.concatenate([np.zeros((3, 1), bool), r.random((3, 4)) > 0.5], 1))}),
           C("nn.MultiheadAttention[attn_mask float 3d]", mha(4, 2), q, k, k, kw={"attn_mask": fl(4, 3, 5)}),
           C("nn.MultiheadAttention[need_weights False]", mha(4, 2), q, k, k, None, False),
           C("nn.MultiheadAttention[per-head weights]", mha(4, 2), q, k, k, kw={"average_attn_weights": False}),
           C("nn.MultiheadAttention[batch_first]", mha(4, 1, batch_first=True), fl(2, 3, 4), fl(2, 5, 4),
             fl(2, 5, 4)),
           C("nn.MultiheadAttention[no bias]", mha(4, 2, has_bias=False), q, k, k),
           C("nn.MultiheadAttention[add_bias_kv]", mha(4, 2, add_bias_kv=True), q, k, k),
           C("nn.MultiheadAttention[add_zero_attn]", mha(4, 2, add_zero_attn=True), q, k, k),
           C("nn.MultiheadAttention[kdim vdim]", mha(4, 2, kdim=3, vdim=5), q, fl(5, 2, 3), fl(5, 2, 5)),
           C("nn.MultiheadAttention[unbatched]", mha(4, 2), fl(3, 4), fl(5, 4), fl(5, 4)),
           C("nn.MultiheadAttention[self masked]", SelfAttentionMasked(mha(4, 2)), fl(3, 2, 4), G(
               lambda r: np.concatenate([np.zeros((2, 1), bool), r.random((2, 2)) > 0.5], 1))),
           C("nn.MultiheadAttention[dropout train]", mha(4, 2, dropout=0.5), q, k, k, train=True, seeded=True),
           C("nn.MultiheadAttention[dropout eval]", mha(4, 2, dropout=0.5), q, k, k, train=False)]
    tel = nn.TransformerEncoderLayer
    src = fl(3, 2, 4)
    out += [C("nn.TransformerEncoderLayer[eval]", tel(4, 2, 8, dropout=0.1), src, train=False),
            C("nn.TransformerEncoderLayer[no dropout]", tel(4, 2, 8, dropout=0.0), src),
            C("nn.TransformerEncoderLayer[norm_first]", tel(4, 2, 8, 0.0, norm_first=True), src),
            C("nn.TransformerEncoderLayer[gelu batch_first]", tel(4, 2, 6, 0.0, "gelu", batch_first=True), src),
            C("nn.TransformerEncoderLayer[src_mask]", tel(4, 2, 8, 0.0), src, G(
                lambda r: np.triu(np.ones((3, 3), bool), 1) | np.zeros((3, 3), bool))),
            C("nn.TransformerEncoderLayer[key padding]", tel(4, 2, 8, 0.0), src, None, G(
                lambda r: np.concatenate([np.zeros((2, 1), bool), r.random((2, 2)) > 0.5], 1))),
            C("nn.TransformerEncoderLayer[train dropout]", tel(4, 2, 8, 0.2), src, train=True, seeded=True),
            C("nn.TransformerEncoderLayer[activation cell]", tel(4, 1, 4, 0.0, nn.Tanh()), src),
            C("nn.TransformerEncoder[2 layers]", nn.TransformerEncoder(tel(4, 2, 8, 0.0), 2), src),
            C("nn.TransformerEncoder[norm]", nn.TransformerEncoder(tel(4, 2, 8, 0.0), 2, nn.LayerNorm((4,))), src),
            C("nn.TransformerEncoder[mask]", nn.TransformerEncoder(tel(4, 2, 8, 0.0, norm_first=True), 1), src,
              G(lambda r: np.triu(np.full((3, 3), -1e9, np.float32), 1))),
            C("nn.TransformerEncoder[train]", nn.TransformerEncoder(tel(4, 2, 8, 0.3), 2), src, train=True,
              seeded=True)]
    return out


def _loss_cell_cases() -> list[Case]:
    out = []
    red = ("mean", "sum", "none")
    for name in ("MSELoss", "L1Loss"):
        cls = getattr(nn, name)
        for r in red:
            out.append(C(f"nn.{name}[{r}]", cls(r), fl(3, 4), fl(3, 4)))
        out += [C(f"nn.{name}[broadcast]", cls(), fl(3, 4), fl(4)),
                C(f"nn.{name}[broadcast none]", cls("none"), fl(3, 1), fl(1, 4)),
                C(f"nn.{name}[f16]", cls(), fl(3, 4, dt=np.float16), fl(3, 4, dt=np.float16), rtol=1e-3, atol=1e-3,
                  note="float16: compared to float16 rounding"),
                C(f"nn.{name}[bad shapes]", cls(), fl(3, 4), fl(3, 5), note="an error in both modes")]
    for r in red:
        out.append(C(f"nn.SmoothL1Loss[{r}]", nn.SmoothL1Loss(reduction=r), fl(3, 4), fl(3, 4)))
    out += [C("nn.SmoothL1Loss[beta 0.5]", nn.SmoothL1Loss(0.5), fl(3, 4), fl(3, 4)),
            C("nn.SmoothL1Loss[beta 2 sum]", nn.SmoothL1Loss(2.0, "sum"), fl(3, 4, lo=-3, hi=3), fl(3, 4)),
            C("nn.SmoothL1Loss[3d]", nn.SmoothL1Loss(), fl(2, 3, 4), fl(2, 3, 4))]
    sce = nn.SoftmaxCrossEntropyWithLogits
    for r in red:
        out += [C(f"nn.SoftmaxCrossEntropyWithLogits[sparse {r}]", sce(True, r), fl(4, 5), it(0, 5, 4)),
                C(f"nn.SoftmaxCrossEntropyWithLogits[dense {r}]", sce(False, r), fl(4, 5), onehot(4, 5))]
    out += [C("nn.SoftmaxCrossEntropyWithLogits[default]", sce(), fl(3, 4), onehot(3, 4)),
            C("nn.SoftmaxCrossEntropyWithLogits[sparse int64]", sce(sparse=True), fl(3, 4), it(0, 4, 3, dt=np.int64)),
            C("nn.SoftmaxCrossEntropyWithLogits[large logits]", sce(True, "mean"), fl(3, 4, lo=-80, hi=80),
              it(0, 4, 3)),
            C("nn.SoftmaxCrossEntropyWithLogits[sparse float labels]", sce(True), fl(3, 4), fl(3),
              note="an error in both modes")]
    w5 = _fixed((5,), 20, 0.2, 2.0)
    ce = nn.CrossEntropyLoss
    for r in red:
        out += [C(f"nn.CrossEntropyLoss[ids {r}]", ce(reduction=r), fl(4, 5), it(0, 5, 4)),
                C(f"nn.CrossEntropyLoss[probs {r}]", ce(reduction=r), fl(4, 5), onehot(4, 5)),
                C(f"nn.CrossEntropyLoss[weight {r}]", ce(w5, reduction=r), fl(4, 5), it(0, 5, 4)),
                C(f"nn.CrossEntropyLoss[ignore_index {r}]", ce(ignore_index=1, reduction=r), fl(6, 5), it(0, 3, 6)),
                C(f"nn.CrossEntropyLoss[smoothing {r}]", ce(label_smoothing=0.1, reduction=r), fl(4, 5), it(0, 5, 4))]
    out += [C("nn.CrossEntropyLoss[weight ignore smoothing]", ce(w5, 2, "mean", 0.2), fl(6, 5), it(0, 4, 6)),
            C("nn.CrossEntropyLoss[weight probs]", ce(w5), fl(4, 5), onehot(4, 5)),
            C("nn.CrossEntropyLoss[probs smoothing]", ce(label_smoothing=0.3), fl(4, 5), onehot(4, 5)),
            C("nn.CrossEntropyLoss[spatial]", ce(), fl(2, 5, 3, 2), it(0, 5, 2, 3, 2)),
            C("nn.CrossEntropyLoss[spatial none]", ce(reduction="none"), fl(2, 5, 3), it(0, 5, 2, 3)),
            C("nn.CrossEntropyLoss[1d input]", ce(), fl(5), it(0, 5)),
            C("nn.CrossEntropyLoss[ignore -100]", ce(), fl(4, 3), G(
                lambda r: np.where(r.random(4) > 0.5, -100, r.integers(0, 3, 4)).astype(np.int32))),
            C("nn.CrossEntropyLoss[all ignored]", ce(ignore_index=0), fl(3, 4), it(0, 1, 3),
              note="mean over no rows: nan in both"),
            C("nn.CrossEntropyLoss[int64 labels]", ce(), fl(3, 4), it(0, 4, 3, dt=np.int64)),
            C("nn.CrossEntropyLoss[label out of range]", ce(), fl(3, 4), it(4, 6, 3), note="an error in both modes")]
    nll = nn.NLLLoss
    logp = G(lambda r: np.log(np.asarray(
        (lambda e: e / e.sum(1, keepdims=True))(np.exp(r.standard_normal((5, 4)))), np.float32)))
    for r in red:
        out += [C(f"nn.NLLLoss[{r}]", nll(reduction=r), logp, it(0, 4, 5)),
                C(f"nn.NLLLoss[weight {r}]", nll(_fixed((4,), 21, 0.2, 2.0), reduction=r), logp, it(0, 4, 5)),
                C(f"nn.NLLLoss[ignore_index {r}]", nll(ignore_index=0, reduction=r), logp, it(0, 3, 5))]
    out += [C("nn.NLLLoss[weight ignore]", nll(_fixed((4,), 22, 0.2, 2.0), 3), logp, it(0, 4, 5)),
            C("nn.NLLLoss[spatial]", nll(), fl(2, 4, 3), it(0, 4, 2, 3)),
            C("nn.NLLLoss[int64]", nll(), logp, it(0, 4, 5, dt=np.int64))]
    bce = nn.BCEWithLogitsLoss
    for r in red:
        out += [C(f"nn.BCEWithLogitsLoss[{r}]", bce(r), fl(3, 4), fl(3, 4, lo=0.0, hi=1.0)),
                C(f"nn.BCEWithLogitsLoss[weight {r}]", bce(r, _fixed((4,), 23, 0.2, 2.0)), fl(3, 4),
                  it(0, 2, 3, 4, dt=np.float32)),
                C(f"nn.BCEWithLogitsLoss[pos_weight {r}]", bce(r, None, _fixed((4,), 24, 0.5, 3.0)), fl(3, 4),
                  fl(3, 4, lo=0.0, hi=1.0))]
    out += [C("nn.BCEWithLogitsLoss[both weights]", bce("mean", _fixed((3, 4), 25, 0.1, 1.0), _fixed((4,), 26, 1, 2)),
              fl(3, 4), fl(3, 4, lo=0.0, hi=1.0)),
            C("nn.BCEWithLogitsLoss[large logits]", bce(), fl(3, 4, lo=-100, hi=100), it(0, 2, 3, 4, dt=np.float32)),
            C("nn.BCEWithLogitsLoss[3d]", bce("sum"), fl(2, 3, 2), fl(2, 3, 2, lo=0.0, hi=1.0))]
    bcel = nn.BCELoss
    for r in red:
        out += [C(f"nn.BCELoss[{r}]", bcel(reduction=r), fl(3, 4, lo=0.01, hi=0.99), fl(3, 4, lo=0.0, hi=1.0)),
                C(f"nn.BCELoss[weight {r}]", bcel(_fixed((3, 4), 27, 0.2, 2.0), r), fl(3, 4, lo=0.01, hi=0.99),
                  it(0, 2, 3, 4, dt=np.float32))]
    out += [C("nn.BCELoss[broadcast weight]", bcel(_fixed((4,), 28, 0.2, 2.0)), fl(3, 4, lo=0.01, hi=0.99),
              fl(3, 4, lo=0.0, hi=1.0)),
            C("nn.BCELoss[edges]", bcel(), G(lambda r: np.where(r.random((3, 4)) > 0.5, 1.0, 0.0).astype(np.float32)),
              G(lambda r: np.where(r.random((3, 4)) > 0.5, 1.0, 0.0).astype(np.float32)),
              note="log(0) is clamped in both modes")]
    for r in red:
        out.append(C(f"nn.LossBase[weighted {r}]", WeightedLoss(r), fl(3, 4), fl(3, 4)))
    out += [C("nn.LossBase[plain]", PlainLoss(), fl(3, 4), fl(3, 4)),
            C("nn.LossBase[plain sum f16]", PlainLoss("sum"), fl(3, 4, dt=np.float16), fl(3, 4, dt=np.float16),
              rtol=1e-3, atol=1e-3, note="float16: compared to float16 rounding")]
    return out


def _container_cell_cases() -> list[Case]:
    ms.set_seed(16)
    seq = nn.SequentialCell([nn.Dense(4, 5), nn.ReLU(), nn.Dense(5, 2)])
    return [C("nn.SequentialCell[list]", seq, fl(3, 4)),
            C("nn.SequentialCell[args]", nn.SequentialCell(nn.Dense(4, 3), nn.Tanh()), fl(2, 4)),
            C("nn.SequentialCell[OrderedDict]", nn.SequentialCell(OrderedDict(
                [("fc", nn.Dense(4, 3)), ("act", nn.Sigmoid())])), fl(2, 4)),
            C("nn.SequentialCell[nested]", nn.SequentialCell([nn.SequentialCell([nn.Dense(4, 4), nn.ReLU()]),
                                                              nn.Flatten(), nn.Dense(4, 1)]), fl(3, 4)),
            C("nn.SequentialCell[slice]", seq[:2], fl(3, 4)),
            C("nn.SequentialCell[appended]", nn.SequentialCell([nn.Dense(4, 4)]).append(nn.ReLU6()), fl(3, 4)),
            C("nn.SequentialCell[conv stack]", nn.SequentialCell([nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(),
                                                                  nn.MaxPool2d(2, 2), nn.Flatten(),
                                                                  nn.Dense(64, 3)]), fl(2, 3, 8, 8), train=False),
            C("nn.SequentialCell[empty]", nn.SequentialCell(), fl(3, 4)),
            C("nn.CellList[loop]", ListNet(), fl(3, 4)),
            C("nn.CellList[index slice]", ListIndexNet(), fl(2, 3)),
            C("nn.CellList[called]", nn.CellList([nn.ReLU()]), fl(3), note="CellList cannot be called: both raise"),
            C("nn.CellDict[by name]", DictNet(), fl(2, 4)),
            C("nn.CellDict[by name 3d]", DictNet(), fl(2, 3, 4)),
            C("nn.CellDict[called]", nn.CellDict({"a": nn.ReLU()}), fl(3), note="CellDict cannot be called"),
            C("nn.Cell[user]", UserCell(), fl(2, 3)),
            C("nn.Cell[user no branch]", UserCell(0.5), fl(5, 3)),
            C("nn.Cell[kwargs tuple]", TwoInputCell(), fl(3, 4), fl(3, 4), kw={"alpha": 2.0}),
            C("nn.Cell[default kwarg]", TwoInputCell(), fl(3, 4), fl(4)),
            C("nn.Cell[base construct]", nn.Cell(), fl(3), note="Cell.construct is abstract: both raise")]


def _wrapper_cell_cases() -> list[Case]:
    out = [C("nn.WithLossCell[mse]", nn.WithLossCell(_dense_net(), nn.MSELoss()), fl(4, 4), fl(4, 3)),
           C("nn.WithLossCell[ce]", nn.WithLossCell(_dense_net(), nn.CrossEntropyLoss()), fl(4, 4), it(0, 3, 4)),
           C("nn.WithLossCell[sce sparse]", nn.WithLossCell(_dense_net(), nn.SoftmaxCrossEntropyWithLogits(
               True, "mean")), fl(4, 4), it(0, 3, 4)),
           C("nn.WithEvalCell[basic]", nn.WithEvalCell(_dense_net(), nn.MSELoss()), fl(4, 4), fl(4, 3)),
           C("nn.WithEvalCell[cast fp32]", nn.WithEvalCell(_dense_net(), nn.CrossEntropyLoss(), True), fl(4, 4),
             it(0, 3, 4)),
           C("nn.WithEvalCell[cast fp32 float label]", nn.WithEvalCell(_dense_net(), nn.L1Loss(), True), fl(4, 4),
             fl(4, 3, dt=np.float64))]
    # A zero learning rate leaves the parameters where they are, so the three runs compare the same
    # forward and backward pass; parameter updates are checked step by step by the dedicated tests.
    for opt_name, make_opt in (
            ("SGD", lambda p: nn.SGD(p, 0.0)),
            ("Momentum", lambda p: nn.Momentum(p, 0.0, 0.9)),
            ("Adam", lambda p: nn.Adam(p, 0.0))):
        net = nn.WithLossCell(_dense_net(), nn.MSELoss())
        step = nn.TrainOneStepCell(net, make_opt(net.trainable_params()))
        out.append(C(f"nn.TrainOneStepCell[{opt_name} lr 0]", step, fl(4, 4), fl(4, 3),
                     note="lr 0: the parameters stay put across the runs"))
    net = nn.WithLossCell(_dense_net(), nn.CrossEntropyLoss())
    out.append(C("nn.TrainOneStepCell[return_grad]", nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.0),
                                                                         return_grad=True), fl(4, 4), it(0, 3, 4),
                 note="lr 0; the gradients are compared too"))
    net = nn.WithLossCell(_dense_net(), nn.MSELoss())
    out.append(C("nn.TrainOneStepCell[sens return_grad]", nn.TrainOneStepCell(
        net, nn.SGD(net.trainable_params(), 0.0), sens=4.0, return_grad=True), fl(4, 4), fl(4, 3)))
    net = nn.WithLossCell(_dense_net(), nn.MSELoss())
    out.append(C("nn.TrainOneStepWithLossScaleCell[tensor scale]", nn.TrainOneStepWithLossScaleCell(
        net, nn.SGD(net.trainable_params(), 0.0), T(np.array(1024.0, np.float32))), fl(4, 4), fl(4, 3),
        note="lr 0 and a fixed scale: no state moves"))
    net = nn.WithLossCell(_dense_net(), nn.MSELoss())
    out.append(C("nn.TrainOneStepWithLossScaleCell[dynamic]", nn.TrainOneStepWithLossScaleCell(
        net, nn.SGD(net.trainable_params(), 0.0), nn.DynamicLossScaleUpdateCell(256.0, 2.0, 1000)), fl(4, 4),
        fl(4, 3), note="no overflow and a window the runs never reach: the scale stays put"))
    net = nn.WithLossCell(_dense_net(), nn.MSELoss())
    out.append(C("nn.TrainOneStepWithLossScaleCell[fixed cell]", nn.TrainOneStepWithLossScaleCell(
        net, nn.SGD(net.trainable_params(), 0.0), nn.FixedLossScaleUpdateCell(64.0)), fl(4, 4), fl(4, 3)))
    out += [C("nn.FixedLossScaleUpdateCell[no overflow]", nn.FixedLossScaleUpdateCell(128.0),
              fl(lo=1.0, hi=1000.0), np.array(False)),
            C("nn.FixedLossScaleUpdateCell[overflow]", nn.FixedLossScaleUpdateCell(128.0), fl(), bl()),
            C("nn.FixedLossScaleUpdateCell[(1,) scale]", nn.FixedLossScaleUpdateCell(2.0), fl(1), bl()),
            C("nn.DynamicLossScaleUpdateCell[overflow flag]", nn.DynamicLossScaleUpdateCell(256.0, 2.0, 1000),
              fl(lo=4.0, hi=1000.0), bl(), note="writes the lowered scale into its first argument"),
            C("nn.DynamicLossScaleUpdateCell[window 1]", nn.DynamicLossScaleUpdateCell(8.0, 2.0, 1),
              fl(lo=4.0, hi=1000.0), bl(), note="window 1: every clean step grows the scale, whatever the counters"),
            C("nn.DynamicLossScaleUpdateCell[factor 4]", nn.DynamicLossScaleUpdateCell(8.0, 4.0, 500),
              fl(1, lo=0.5, hi=1000.0), bl())]
    return out


def _schedule_cases() -> list[Case]:
    step = it(0, 12, dt=np.int32)
    out = []
    scheds = {
        "ExponentialDecayLR": (nn.ExponentialDecayLR(0.1, 0.9, 4), nn.ExponentialDecayLR(0.1, 0.5, 3, True)),
        "NaturalExpDecayLR": (nn.NaturalExpDecayLR(0.1, 0.9, 4), nn.NaturalExpDecayLR(0.1, 0.2, 3, True)),
        "InverseDecayLR": (nn.InverseDecayLR(0.1, 0.9, 4), nn.InverseDecayLR(0.1, 0.5, 3, True)),
        "CosineDecayLR": (nn.CosineDecayLR(0.01, 0.1, 6), nn.CosineDecayLR(0.0, 1.0, 20)),
        "PolynomialDecayLR": (nn.PolynomialDecayLR(0.1, 0.01, 6, 0.5), nn.PolynomialDecayLR(0.1, 0.0, 4, 2.0, True)),
        "WarmUpLR": (nn.WarmUpLR(0.1, 4), nn.WarmUpLR(1.0, 20)),
    }
    for name, (a, b) in scheds.items():
        out += [C(f"nn.{name}[int32 step]", a, step),
                C(f"nn.{name}[variant]", b, step),
                C(f"nn.{name}[step (1,)]", a, it(0, 12, 1)),
                C(f"nn.{name}[int64 step]", b, it(0, 30, dt=np.int64)),
                C(f"nn.{name}[float step]", a, fl(lo=0.0, hi=10.0)),
                C(f"nn.{name}[static step]", a, T(np.array(3, np.int32)), note="a constant step")]
    out += [C("nn.LearningRateSchedule[user]", LinearSchedule(0.1, 0.01), step),
            C("nn.LearningRateSchedule[user clamp]", LinearSchedule(0.05, 0.01), it(0, 12, 1)),
            C("nn.LearningRateSchedule[in a cell]", ScheduleSum(), step),
            C("nn.LearningRateSchedule[base]", nn.LearningRateSchedule(), step,
              note="the base construct raises NotImplementedError in both modes")]
    return out


class Residual(nn.Cell):
    """LayerNorm(x + f(x)): the residual pattern fusion passes look for."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Dense(4, 4)
        self.norm = nn.LayerNorm((4,))

    def construct(self, x):
        return self.norm(x + ops.relu(self.fc(x)))


def _fused_pattern_cases() -> list[Case]:
    """Chains that Graph mode's passes may fuse: results must still match PyNative's."""
    ms.set_seed(17)
    return [C("nn.SequentialCell[dense relu dense]", nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3)]),
              fl(5, 4)),
            C("nn.SequentialCell[dense gelu]", nn.SequentialCell([nn.Dense(4, 6), nn.GELU()]), fl(3, 4)),
            C("nn.SequentialCell[conv relu maxpool]", nn.SequentialCell([nn.Conv2d(3, 4, 3, has_bias=True), nn.ReLU(),
                                                                         nn.MaxPool2d(2, 2)]), fl(2, 3, 8, 8)),
            C("nn.SequentialCell[conv bn relu eval]", nn.SequentialCell([nn.Conv2d(3, 4, 3), nn.BatchNorm2d(
                4, moving_mean_init=_fixed((4,), 30), moving_var_init=_fixed((4,), 31, 0.5, 2.0)), nn.ReLU()]),
              fl(2, 3, 8, 8), train=False),
            C("nn.SequentialCell[conv bn relu train]", nn.SequentialCell([nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4),
                                                                          nn.ReLU()]), fl(2, 3, 8, 8), train=True),
            C("nn.SequentialCell[relu maxpool]", nn.SequentialCell([nn.ReLU(), nn.MaxPool2d(3, 2, pad_mode="same")]),
              fl(2, 3, 8, 8)),
            C("nn.SequentialCell[maxpool relu]", nn.SequentialCell([nn.MaxPool2d(2, 2), nn.ReLU()]), fl(2, 3, 8, 8)),
            C("nn.SequentialCell[dense sigmoid bce]", nn.SequentialCell([nn.Dense(4, 1), nn.Sigmoid(), nn.Flatten(0)]),
              fl(5, 4)),
            C("nn.SequentialCell[softmax log]", nn.SequentialCell([nn.Softmax(), nn.LogSoftmax()]), fl(3, 5)),
            C("nn.LayerNorm[residual]", Residual(), fl(3, 4)),
            C("nn.LayerNorm[residual grad]", CellGrad(Residual()), fl(3, 4))]


def _cell_grad_cases() -> list[Case]:
    """Backward passes through the layers (input and parameter gradients), compiled."""
    ms.set_seed(18)
    x = fl(4, 2, 3)
    img = fl(2, 3, 6, 6)
    cg = CellGrad
    out = [C("nn.Dense[grad]", cg(nn.Dense(4, 3)), fl(2, 4)),
           C("nn.Dense[grad relu 3d]", cg(nn.Dense(4, 3, activation="relu")), fl(2, 3, 4)),
           C("nn.Conv2d[grad same]", cg(nn.Conv2d(3, 2, 3, has_bias=True)), img),
           C("nn.Conv2d[grad valid stride]", cg(nn.Conv2d(3, 2, 3, stride=2, pad_mode="valid")), img),
           C("nn.Conv2d[grad pad dilation group]", cg(nn.Conv2d(4, 2, 3, pad_mode="pad", padding=1, dilation=2,
                                                               group=2)), fl(1, 4, 6, 6)),
           C("nn.Conv1d[grad]", cg(nn.Conv1d(3, 2, 3, has_bias=True)), fl(2, 3, 7)),
           C("nn.MaxPool2d[grad]", cg(nn.MaxPool2d(2, 2)), img),
           C("nn.MaxPool2d[grad pad overlap]", cg(nn.MaxPool2d(3, 2, pad_mode="pad", padding=1)), img),
           C("nn.AvgPool2d[grad]", cg(nn.AvgPool2d(3, 2, pad_mode="same")), img),
           C("nn.AvgPool2d[grad exclude pad]", cg(nn.AvgPool2d(3, 1, pad_mode="pad", padding=1,
                                                               count_include_pad=False)), img),
           C("nn.MaxPool1d[grad]", cg(nn.MaxPool1d(2, 2)), fl(2, 3, 8)),
           C("nn.AvgPool1d[grad]", cg(nn.AvgPool1d(3, 2)), fl(2, 3, 8)),
           C("nn.AdaptiveAvgPool2d[grad]", cg(nn.AdaptiveAvgPool2d((2, 3))), fl(1, 2, 5, 7)),
           C("nn.AdaptiveAvgPool1d[grad]", cg(nn.AdaptiveAvgPool1d(3)), fl(2, 3, 7)),
           C("nn.BatchNorm2d[grad train]", cg(nn.BatchNorm2d(3)), img, train=True),
           C("nn.BatchNorm2d[grad eval]", cg(nn.BatchNorm2d(3, moving_mean_init=_fixed((3,), 32),
                                                            moving_var_init=_fixed((3,), 33, 0.5, 2.0))), img,
             train=False),
           C("nn.BatchNorm1d[grad train]", cg(nn.BatchNorm1d(3)), fl(5, 3), train=True),
           C("nn.LayerNorm[grad]", cg(nn.LayerNorm((4,))), fl(3, 4)),
           C("nn.LayerNorm[grad two axes]", cg(nn.LayerNorm((3, 4), 1, 1)), fl(2, 3, 4)),
           C("nn.GroupNorm[grad]", cg(nn.GroupNorm(2, 4)), fl(2, 4, 3)),
           C("nn.Embedding[grad]", cg(nn.Embedding(6, 3), wrt_input=False), it(0, 6, 2, 4),
             note="repeated ids accumulate into the table's gradient"),
           C("nn.Embedding[grad padding_idx]", cg(nn.Embedding(6, 3, padding_idx=1), wrt_input=False), it(0, 3, 7)),
           C("nn.Embedding[grad one hot]", cg(nn.Embedding(6, 3, use_one_hot=True), wrt_input=False), it(0, 6, 5)),
           C("nn.PReLU[grad]", cg(nn.PReLU(3, 0.2)), fl(2, 3, 4)),
           C("nn.Dropout[grad train]", cg(nn.Dropout(p=0.3)), fl(3, 4), train=True, seeded=True),
           C("nn.LSTM[grad]", cg(nn.LSTM(3, 4)), x),
           C("nn.LSTM[grad bidirectional 2 layers]", cg(nn.LSTM(3, 2, 2, bidirectional=True)), x),
           C("nn.LSTM[grad seq_length]", cg(nn.LSTM(3, 4)), x, None, it(1, 5, 2)),
           C("nn.GRU[grad]", cg(nn.GRU(3, 4)), x),
           C("nn.GRU[grad batch_first bidirectional]", cg(nn.GRU(3, 2, batch_first=True, bidirectional=True)),
             fl(2, 4, 3)),
           C("nn.RNN[grad]", cg(nn.RNN(3, 4)), x),
           C("nn.RNN[grad relu]", cg(nn.RNN(3, 4, nonlinearity="relu")), x),
           C("nn.MultiheadAttention[grad]", cg(nn.MultiheadAttention(4, 2)), fl(3, 2, 4), fl(5, 2, 4), fl(5, 2, 4)),
           C("nn.MultiheadAttention[grad self]", cg(SelfAttention(nn.MultiheadAttention(4, 2))), fl(3, 2, 4)),
           C("nn.TransformerEncoderLayer[grad]", cg(nn.TransformerEncoderLayer(4, 2, 8, 0.0)), fl(3, 2, 4)),
           C("nn.TransformerEncoder[grad]", cg(nn.TransformerEncoder(nn.TransformerEncoderLayer(
               4, 2, 8, 0.0, norm_first=True), 2, nn.LayerNorm((4,)))), fl(3, 2, 4), rtol=1e-5, atol=1e-4,
             note="gradients up to ~60 through two pre-norm layers: atol is ~2e-6 of their scale (float32 rounding)"),
           C("nn.SequentialCell[grad]", cg(nn.SequentialCell([nn.Conv2d(3, 2, 3), nn.ReLU(), nn.MaxPool2d(2, 2),
                                                              nn.Flatten(), nn.Dense(18, 3)])), img),
           C("nn.CellList[grad]", cg(ListNet()), fl(3, 4)),
           C("nn.CellDict[grad]", cg(DictNet()), fl(2, 4)),
           C("nn.Cell[grad user]", cg(UserCell()), fl(2, 3))]
    for name in ("ReLU", "ReLU6", "LeakyReLU", "GELU", "FastGelu", "SiLU", "Sigmoid", "Tanh", "Softmax",
                 "LogSoftmax", "ELU", "HSwish", "HSigmoid", "Softplus", "LogSigmoid", "Softsign", "Mish", "Identity",
                 "Flatten"):
        out.append(C(f"nn.{name}[grad]", cg(getattr(nn, name)()), fl(3, 4, lo=-4.0, hi=4.0)))
    out.append(C("nn.GELU[grad erf]", cg(nn.GELU(False)), fl(3, 4)))
    out.append(C("nn.Unflatten[grad]", cg(nn.Unflatten(1, (2, 2))), fl(3, 4)))
    losses = [("MSELoss", nn.MSELoss(), fl(3, 4)), ("L1Loss", nn.L1Loss("sum"), fl(3, 4)),
              ("SmoothL1Loss", nn.SmoothL1Loss(0.5, "mean"), fl(3, 4)),
              ("SoftmaxCrossEntropyWithLogits", nn.SoftmaxCrossEntropyWithLogits(True, "mean"), it(0, 4, 3)),
              ("CrossEntropyLoss", nn.CrossEntropyLoss(_fixed((4,), 34, 0.2, 2.0), 1, "mean", 0.1), it(0, 4, 3)),
              ("NLLLoss", nn.NLLLoss(), it(0, 4, 3)),
              ("BCEWithLogitsLoss", nn.BCEWithLogitsLoss("mean", None, _fixed((4,), 35, 0.5, 2.0)),
               fl(3, 4, lo=0.0, hi=1.0)),
              ("BCELoss", nn.BCELoss(_fixed((4,), 36, 0.5, 2.0)), fl(3, 4, lo=0.0, hi=1.0)),
              ("LossBase", WeightedLoss("sum"), fl(3, 4))]
    for name, loss, labels in losses:
        logits = fl(3, 4, lo=0.05, hi=0.95) if name == "BCELoss" else fl(3, 4)
        out.append(C(f"nn.{name}[grad]", cg(loss), logits, labels))
    out.append(C("nn.CrossEntropyLoss[grad probs]", cg(nn.CrossEntropyLoss(label_smoothing=0.2)), fl(3, 4),
                 onehot(3, 4)))
    out.append(C("nn.SoftmaxCrossEntropyWithLogits[grad dense]", cg(nn.SoftmaxCrossEntropyWithLogits(reduction="sum")),
                 fl(3, 4), onehot(3, 4)))
    out.append(C("nn.WithLossCell[grad]", cg(nn.WithLossCell(_dense_net(), nn.MSELoss())), fl(4, 4), fl(4, 3)))
    return out


def nn_cell_cases() -> list[Case]:
    """Cases for every public nn Cell (layers, losses, containers, wrappers) and lr schedule."""
    return (_activation_cell_cases() + _basic_cell_cases() + _conv_cell_cases() + _pool_cell_cases()
            + _norm_cell_cases() + _embedding_cell_cases() + _rnn_cell_cases() + _attention_cell_cases()
            + _loss_cell_cases() + _container_cell_cases() + _wrapper_cell_cases() + _schedule_cases()
            + _fused_pattern_cases() + _cell_grad_cases() + _api_breadth_cases())


def _api_breadth_cases() -> list[Case]:
    from .cases_api_misc import api_misc_cell_cases  # nn.SampledSoftmaxLoss / nn.MultiFieldEmbeddingLookup
    from .cases_api_nn import (
        api_nn_grad_cell_cases,
        api_nn_misc_cell_cases,
        api_nn_slice_cell_cases,
        api_nn_transformer_cases,
    )
    from .cases_api_sparse import api_sparse_cell_cases  # nn.SparseToDense / nn.SparseTensorDenseMatmul
    from .cases_nn_api import api_nn_cases  # the issue-14 Cells (imported here: that module imports this one)
    from .cases_rest import api_rest_cell_cases  # nn.SSIM / nn.MSSSIM
    from .cases_vision_ops import vision_cell_cases  # nn.CTCLoss, nn.FractionalMaxPool2d/3d

    return (api_nn_cases() + api_nn_slice_cell_cases() + api_nn_misc_cell_cases() + api_nn_transformer_cases()
            + api_nn_grad_cell_cases() + api_sparse_cell_cases() + api_rest_cell_cases() + api_misc_cell_cases()
            + vision_cell_cases())


def covered_name(case: Case) -> str:
    """'Tensor.take' / 'nn.Dense': what a case covers."""
    return case.name.split("[", 1)[0]


def summarize(cases: list[Case]) -> Counter:
    """Outcome kinds over `cases` (runs every case)."""
    return Counter(run_case(c).kind for c in cases)
