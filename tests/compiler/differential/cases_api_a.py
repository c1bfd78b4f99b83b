"""Differential cases for slice A of the API-breadth ops (issue 14): the composites of
activation_loss_extra, linalg_extra, tensor_misc_ops and special_functions, the class forms of
classes_extra, and their Tensor methods (three cases each). The declared elementwise ops (Bessel,
digamma, erfinv, igamma, bitwise, gcd, fmax/fmin) get theirs from cases_declared."""

from __future__ import annotations

import numpy as np

import spore as ms
from spore import ops

from .cases_ops import _classes, _functions
from .cases_tensor_nn import C, G, fl, it, pos

p = fl


def spd(n: int, *batch: int) -> G:
    """Symmetric positive-definite matrices."""
    def make(r: np.random.Generator) -> np.ndarray:
        a = r.standard_normal((*batch, n, n))
        return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(np.float32)
    return G(make)


def low(n: int, *batch: int) -> G:
    """Lower Cholesky factors (positive diagonal)."""
    def make(r: np.random.Generator) -> np.ndarray:
        a = np.tril(r.standard_normal((*batch, n, n)))
        idx = np.arange(n)
        a[..., idx, idx] = r.uniform(1.0, 2.0, (*batch, n))
        return a.astype(np.float32)
    return G(make)


def sign(*shape: int) -> G:
    return G(lambda r: r.choice([-1.0, 1.0], shape).astype(np.float32))


def const(a) -> G:
    a = np.asarray(a)
    return G(lambda r: a.copy())


# in-place methods run on a copy made inside the function (a write into a graph input is another matter)
def erfinv_inplace(x):
    z = x * 1
    ops.erfinv_(z)
    return z


def erfinv_method(x):
    z = x * 1
    z.erfinv_()
    return z


def inplace_sigmoid(x):
    z = x * 1
    ops.inplace_sigmoid(z)
    return z


def clamp_fn(x, lo, hi):
    z = x * 1
    ops.clamp_(z, lo, hi)
    return z


def _method(name):
    def run(x, *args, **kw):
        z = x * 1
        out = getattr(z, name)(*args, **kw)
        return z, out
    run.__name__ = f"inplace_{name}"
    return run


def addn_pair(x, y):
    return ops.addn([x, y])


def accumulate_three(x, y, z):
    return ops.accumulate_n((x, y, z))


def clip_pair(x, y, lo, hi):
    return ops.clip_by_value([x, y], lo, hi)


def clip_norm_pair(x, y, m):
    return ops.clip_by_norm((x, y), m)


def clip_global(x, y, m):
    return ops.clip_by_global_norm((x, y), m)


def block2(x, y):
    return ops.block_diag(x, y)


def block3(x, y, z):
    return ops.block_diag(x, y, z)


def cart2(x, y):
    return ops.cartesian_prod(x, y)


def einsum_list(x, y):
    return ops.einsum("ij,jk", [x, y])


def _table() -> dict:
    return {
        "celu": [((p(3, 4),), {}), ((p(5),), {"alpha": 2.0}), ((p(2, 3), 0.5), {})],
        "glu": [((p(3, 4),), {}), ((p(4, 3), 0), {}), ((p(2, 6, 2),), {"axis": 1})],
        "hardshrink": [((p(3, 4),), {}), ((p(5), 1.0), {}), ((p(2, 3),), {"lambd": 0.2})],
        "hardtanh": [((p(3, 4),), {}), ((p(5), -0.5, 0.5), {}), ((p(2, 3),), {"min_val": 0.0, "max_val": 2.0})],
        "fast_gelu": [((p(3, 4),), {}), ((p(5),), {}), ((p(2, 1, 3),), {})],
        "huber_loss": [((p(3, 4), p(3, 4)), {}), ((p(5), p(5), "sum"), {}), ((p(2, 3), p(2, 3)),
                                                                            {"reduction": "none", "delta": 0.5})],
        "hinge_embedding_loss": [((p(3, 4), sign(3, 4)), {}), ((p(5), sign(5)), {"margin": 0.5, "reduction": "sum"}),
                                 ((p(2, 3), sign(2, 3)), {"reduction": "none"})],
        "gaussian_nll_loss": [((p(3, 4), p(3, 4), pos(3, 4)), {}), ((p(4, 2), p(4, 2), pos(4, 1)), {"full": True}),
                              ((p(3, 2), p(3, 2), pos(3)), {"reduction": "sum"})],
        "cosine_embedding_loss": [((p(3, 4), p(3, 4), sign(3)), {}), ((p(2, 5), p(2, 5), sign(2)), {"margin": 0.2}),
                                  ((p(4, 3), p(4, 3), sign(4)), {"reduction": "none"})],
        "group_norm": [((p(2, 4, 3), 2), {}), ((p(2, 6, 2, 2), 3, p(6), p(6)), {}), ((p(1, 4, 5), 4), {"eps": 1e-3})],
        "einsum": [(("ij,jk->ik", p(2, 3), p(3, 4)), {}), (("bij,bjk->bik", p(2, 2, 3), p(2, 3, 2)), {}),
                   (("ii->i", p(3, 3)), {}), (("...j,j", p(2, 3), p(3)), {})],
        "einsum_ext": [(("ij->ji", p(2, 3)), {}), (("i,i->", p(4), p(4)), {}), (("ij,j->i", p(3, 2), p(2)), {})],
        "cholesky": [((spd(3),), {}), ((spd(2, 2),), {"upper": True}), ((spd(4), False), {})],
        "cholesky_solve": [((p(3, 2), low(3)), {}), ((p(2, 3, 1), low(3, 2)), {}), ((p(3, 3), low(3)), {})],
        "cholesky_inverse": [((low(3),), {}), ((low(2),), {}), ((low(4),), {})],
        "det": [((spd(3),), {}), ((p(2, 3, 3),), {}), ((p(2, 2),), {})],
        "cross": [((p(2, 3), p(2, 3)), {}), ((p(3, 4), p(3, 4), 0), {}), ((p(4, 3), p(1, 3)), {"dim": 1})],
        "cov": [((p(3, 5),), {}), ((p(2, 6),), {"correction": 0}), ((p(4),), {})],
        "diagonal": [((p(3, 4),), {}), ((p(3, 4), 1), {}), ((p(2, 3, 3), -1, 1, 2), {})],
        "diagflat": [((p(3),), {}), ((p(2, 2), 1), {}), ((p(2), -1), {})],
        "diag_embed": [((p(3),), {}), ((p(2, 3), 1), {}), ((p(2, 2),), {"offset": -1, "dim1": 0, "dim2": 2})],
        "diagonal_scatter": [((p(3, 3), p(3)), {}), ((p(3, 4), p(3), 1), {}), ((p(2, 3, 3), p(2, 2), -1, 1, 2), {})],
        "combinations": [((p(4),), {}), ((p(4), 3), {}), ((it(0, 9, 3), 2, True), {})],
        "batch_dot": [((p(2, 3), p(2, 3)), {}), ((p(2, 3, 4), p(2, 4, 5)), {}), ((p(2, 3, 4), p(2, 3, 2), (1, 1)), {})],
        "adjoint": [((p(3, 4),), {}), ((p(2, 2, 3),), {}), ((p(1, 5),), {})],
        "dist": [((p(3, 4), p(3, 4)), {}), ((p(5), p(5), 1), {}), ((p(2, 3), p(3), 3.0), {})],
        "inv": [((pos(3, 4),), {}), ((it(1, 5, 4),), {}), ((pos(2),), {})],
        "arctan": [((p(3, 4),), {}), ((p(5),), {}), ((it(-3, 3, 4),), {})],
        "eq": [((it(0, 3, 3, 4), it(0, 3, 3, 4)), {}), ((p(4), p(4)), {}), ((it(0, 3, 5), 1), {})],
        "divide": [((p(3, 4), pos(3, 4)), {}), ((p(4), pos(4)), {"rounding_mode": "floor"}),
                   ((p(2, 3), 2.0), {"rounding_mode": "trunc"})],
        "floor_div": [((p(3, 4), pos(3, 4)), {}), ((it(-9, 9, 4), it(1, 4, 4)), {}), ((p(2, 3), 0.7), {})],
        "float_power_ext": [((pos(3, 4), p(3, 4)), {}), ((pos(4), 2), {}), ((pos(2, 3), 0.5), {})],
        "diff_ext": [((p(3, 4),), {}), ((p(5), 2), {}), ((p(3, 4),), {"dim": 0})],
        "baddbmm_ext": [((p(2, 2, 4), p(2, 2, 3), p(2, 3, 4)), {}),
                        ((p(2, 2, 4), p(2, 2, 3), p(2, 3, 4)), {"beta": 0.5, "alpha": 2.0}),
                        ((p(4), p(2, 2, 3), p(2, 3, 4)), {})],
        "exp2": [((p(3, 4),), {}), ((it(-3, 4, 5),), {}), ((p(2),), {})],
        "expand": [((p(1, 3), (2, 3)), {}), ((p(3, 1), (3, 4)), {}), ((p(3), (2, -1)), {})],
        "expand_as": [((p(1, 3), p(2, 3)), {}), ((p(3, 1), p(3, 4)), {}), ((p(4), p(2, 4)), {})],
        "fills": [((p(3, 4), 2.0), {}), ((it(0, 3, 4), 5), {}), ((p(2, 3), 0.5), {})],
        "approximate_equal": [((p(3, 4), p(3, 4)), {}), ((p(4), p(4)), {"tolerance": 2.0}), ((p(2, 3), 0.0, 1.0), {})],
        "bucketize": [((p(3, 4), [-1.0, 0.0, 1.0]), {}), ((p(5), [0.0]), {"right": True}),
                      ((it(0, 9, 6), [2, 4, 6]), {})],
        "index_add": [((p(3, 4), const(np.array([0, 2], np.int32)), p(3, 2), 1), {}),
                      ((p(4, 2), const(np.array([1, 1, 3], np.int32)), p(3, 2), 0), {}),
                      ((p(2, 3, 2), const(np.array([2], np.int32)), p(2, 1, 2), 1), {})],
        "index_fill": [((p(3, 4), 1, const(np.array([0, 2], np.int32)), 5.0), {}),
                       ((p(4, 2), 0, const(np.array([1], np.int32)), -1.0), {}),
                       ((it(0, 9, 3, 3), 1, const(np.array([2], np.int32)), 7), {})],
        "bartlett_window": [((5,), {}), ((6, False), {}), ((4,), {"dtype": ms.float64})],
        "blackman_window": [((5,), {}), ((6, False), {}), ((1,), {})],
        "hann_window": [((5,), {}), ((6, False), {}), ((4,), {"dtype": ms.float64})],
        "hamming_window": [((5,), {}), ((6, False), {}), ((4, True, 0.5, 0.5), {})],
    }


def _host_table() -> dict:
    """Ops whose output size depends on values: a compiled graph refuses them (outcome 'refused')."""
    return {
        "bincount": [((it(0, 5, 6),), {}), ((it(0, 4, 5), p(5)), {}), ((it(0, 3, 4),), {"minlength": 6})],
        "histc": [((p(3, 4),), {}), ((p(10), 4, -1.0, 1.0), {}), ((p(6),), {"bins": 3})],
    }


# Tensor methods backed by the functions above (same tables), and the in-place ones
_METHODS = ("hardshrink", "cholesky", "cholesky_solve", "cholesky_inverse", "det", "cross", "cov", "diagflat",
            "diagonal_scatter", "adjoint", "inv", "fills", "approximate_equal", "bincount", "histc")


@_functions
def _api_a_functions() -> list:
    out = []
    for name, calls in {**_table(), **_host_table()}.items():
        fn = getattr(ops, name)
        for i, (args, kw) in enumerate(calls):
            out.append(C(f"ops.{name}[{i}]", fn, *args, kw=kw))
    R = {"seeded": True}
    out += [
        C("ops.erfinv_[0]", erfinv_inplace, fl(3, 4, lo=-0.9, hi=0.9)),
        C("ops.inplace_sigmoid[0]", inplace_sigmoid, p(3, 4)),
        C("ops.clamp_[0]", clamp_fn, p(3, 4), -0.5, 0.5), C("ops.clamp_[max only]", clamp_fn, p(5), None, 0.0),
        C("ops.addn[pair]", addn_pair, p(3, 4), p(3, 4)),
        C("ops.accumulate_n[three]", accumulate_three, p(2, 3), p(2, 3), p(2, 3)),
        C("ops.clip_by_value[0]", ops.clip_by_value, p(3, 4), -0.5, 0.5),
        C("ops.clip_by_value[list]", clip_pair, p(3), p(2, 2), -1.0, 0.2),
        C("ops.clip_by_norm[0]", ops.clip_by_norm, p(3, 4), 1.0),
        C("ops.clip_by_norm[tuple]", clip_norm_pair, p(3), p(4), 0.5),
        C("ops.clip_by_global_norm[0]", clip_global, p(3), p(2, 2), 1.0),
        C("ops.block_diag[2]", block2, p(2, 2), p(1, 3)), C("ops.block_diag[3]", block3, p(2), p(1, 1), p(2, 2)),
        C("ops.cartesian_prod[2]", cart2, p(2), p(3)),
        C("ops.einsum[list]", einsum_list, p(2, 3), p(3, 2)),
        C("ops.dropout1d[train]", ops.dropout1d, p(2, 3, 4), **R),
        C("ops.dropout1d[eval]", ops.dropout1d, p(2, 3, 4), 0.5, False, **R),
        C("ops.dropout2d[train]", ops.dropout2d, p(2, 3, 2, 2), 0.3, **R),
        C("ops.dropout2d[p=0]", ops.dropout2d, p(2, 3, 2, 2), 0.0, **R),
        C("ops.dropout3d[train]", ops.dropout3d, p(1, 4, 2, 2, 2), **R),
        C("ops.dropout3d[eval]", ops.dropout3d, p(1, 4, 2, 2, 2), 0.5, False, **R),
    ]
    return out


def api_a_tensor_cases() -> list:
    """`Tensor.<name>` for slice A's hand-written Tensor methods (cases_tensor_nn adds them)."""
    out = []
    tables = {**_table(), **_host_table()}
    for name in _METHODS:
        for i, (args, kw) in enumerate(tables[name]):
            out.append(C(f"Tensor.{name}[{i}]", getattr(ms.Tensor, name), *args, kw=kw))
    diag = [((p(3, 4),), {}), ((p(3, 4), 1), {}), ((p(2, 3, 3), -1, 1, 2), {})]
    out += [C(f"Tensor.diagonal[{i}]", ms.Tensor.diagonal, *a, kw=k) for i, (a, k) in enumerate(diag)]
    ints = [((it(-9, 9, 3, 4),), {}), ((it(0, 100, 5, dt=np.int64),), {}), ((G(lambda r: r.random((2, 3)) > 0.5),), {})]
    out += [C(f"Tensor.bitwise_not[{i}]", ms.Tensor.bitwise_not, *a, kw=k) for i, (a, k) in enumerate(ints)]
    fill = [((p(3, 4), 2.0), {}), ((it(0, 3, 4), 5), {}), ((p(2), -1.5), {})]
    out += [C(f"Tensor.fill[{i}]", ms.Tensor.fill, *a, kw=k) for i, (a, k) in enumerate(fill)]
    awv = [((p(3, 4),), {}), ((p(3, 4), 1), {}), ((p(2, 3, 2), 1, True), {})]
    for name in ("argmax_with_value", "argmin_with_value"):
        out += [C(f"Tensor.{name}[{i}]", getattr(ms.Tensor, name), *a, kw=k) for i, (a, k) in enumerate(awv)]
    cnz = [((it(0, 3, 3, 4),), {}), ((p(3, 4), 1), {}), ((it(0, 2, 2, 3, 2), (0, 2), True), {})]
    out += [C(f"Tensor.count_nonzero[{i}]", ms.Tensor.count_nonzero, *a, kw=k) for i, (a, k) in enumerate(cnz)]
    idx = const(np.array([0, 2], np.int32))
    inplace = {
        "erfinv_": [((fl(3, 4, lo=-0.9, hi=0.9),), {}), ((fl(5, lo=-0.5, hi=0.5),), {}),
                    ((fl(2, lo=0.0, hi=0.9),), {})],
        "clamp_": [((p(3, 4), -0.5, 0.5), {}), ((p(5),), {"min": 0.0}), ((p(2, 3),), {"max": 0.1})],
        "add_": [((p(3, 4), p(3, 4)), {}), ((p(3, 4), 2.0), {}), ((p(2, 3), p(3)), {"alpha": 0.5})],
        "div_": [((p(3, 4), pos(3, 4)), {}), ((p(4), 2.0), {}), ((p(2, 3), pos(3)), {"rounding_mode": "floor"})],
        "exp_": [((p(3, 4),), {}), ((p(5),), {}), ((p(2, 1),), {})],
        "floor_": [((p(3, 4),), {}), ((p(5),), {}), ((fl(2, 3, lo=-5.0, hi=5.0),), {})],
        "floor_divide_": [((p(3, 4), pos(3, 4)), {}), ((p(4), 0.7), {}), ((it(-9, 9, 5), it(1, 4, 5)), {})],
        "copy_": [((p(3, 4), p(3, 4)), {}), ((p(3, 4), p(4)), {}), ((p(2, 3), it(0, 5, 2, 3)), {})],
        "addmm_": [((p(2, 4), p(2, 3), p(3, 4)), {}), ((p(2, 4), p(2, 3), p(3, 4)), {"beta": 0.5, "alpha": 2.0}),
                   ((p(3, 3), p(3, 1), p(1, 3)), {"beta": 0})],
        "index_add": [((p(3, 4), 1, idx, p(3, 2)), {}), ((p(4, 2), 0, idx, p(2, 2)), {"alpha": 2.0}),
                      ((p(2, 3, 2), 1, idx, p(2, 2, 2)), {})],
        "index_add_": [((p(3, 4), 1, idx, p(3, 2)), {}), ((p(4, 2), 0, idx, p(2, 2)), {"alpha": -1.0}),
                       ((p(2, 3, 2), 1, idx, p(2, 2, 2)), {})],
        "index_fill": [((p(3, 4), 1, idx, 5.0), {}), ((p(4, 2), 0, idx, -1.0), {}), ((p(2, 3, 2), 1, idx, 0.0), {})],
        "index_fill_": [((p(3, 4), 1, idx, 5.0), {}), ((p(4, 2), 0, idx, -1.0), {}), ((p(2, 3, 2), 1, idx, 0.0), {})],
    }
    for name, calls in inplace.items():
        fn = getattr(ms.Tensor, name) if not name.endswith("_") else _method(name)
        out += [C(f"Tensor.{name}[{i}]", fn, *a, kw=k) for i, (a, k) in enumerate(calls)]
    return out + api_a_tensor_cases_2() + api_a_tensor_cases_3() + api_a_tensor_cases_4()


def einsum_class(x, y):
    return ops.Einsum("ij,jk->ik")((x, y))


def betainc(a, b, x):
    return ops.Betainc()(a, b, x)


@_classes
def _api_a_classes() -> list:
    u = (lambda *s: fl(*s, lo=0.1, hi=0.9))
    return [
        C("ops.Addcdiv[0]", ops.Addcdiv(), p(3, 4), p(3, 4), pos(3, 4), 0.5),
        C("ops.Addcmul[0]", ops.Addcmul(), p(3, 4), p(3, 4), p(4), 2.0),
        C("ops.Hypot[0]", ops.Hypot(), p(3, 4), p(3, 4)),
        C("ops.Heaviside[0]", ops.Heaviside(), it(-1, 2, 3, 4, dt=np.float32), p(3, 4)),
        C("ops.Ger[0]", ops.Ger(), p(3), p(4)),
        C("ops.Cdist[0]", ops.Cdist(), p(2, 3, 4), p(2, 5, 4)), C("ops.Cdist[p=1]", ops.Cdist(1.0), p(3, 2), p(4, 2)),
        C("ops.Diag[0]", ops.Diag(), p(3)),
        C("ops.ApproximateEqual[0]", ops.ApproximateEqual(0.5), p(3, 4), p(3, 4)),
        C("ops.CeLU[0]", ops.CeLU(), p(3, 4)), C("ops.CeLU[alpha]", ops.CeLU(2.0), p(5)),
        C("ops.GLU[0]", ops.GLU(), p(3, 4)), C("ops.GLU[axis 0]", ops.GLU(0), p(4, 3)),
        C("ops.HShrink[0]", ops.HShrink(), p(3, 4)), C("ops.HShrink[lambd]", ops.HShrink(1.0), p(5)),
        C("ops.FastGeLU[0]", ops.FastGeLU(), p(3, 4)), C("ops.FastGelu[0]", ops.FastGelu(), p(3, 4)),
        C("ops.Cholesky[0]", ops.Cholesky(), spd(3)), C("ops.Cholesky[upper]", ops.Cholesky(True), spd(3, 2)),
        C("ops.CholeskyInverse[0]", ops.CholeskyInverse(), low(3)),
        C("ops.CholeskySolve[0]", ops.CholeskySolve(), p(3, 2), low(3)),
        C("ops.Inv[0]", ops.Inv(), pos(3, 4)),
        C("ops.Fills[0]", ops.Fills(), p(3, 4), 2.0),
        C("ops.Expand[0]", ops.Expand(), p(1, 3), (4, 3)),
        C("ops.IndexFill[0]", ops.IndexFill(), p(3, 4), 1, const(np.array([0, 3], np.int32)), 9.0),
        C("ops.IndexAdd[0]", ops.IndexAdd(1), p(3, 4), const(np.array([0, 3], np.int32)), p(3, 2)),
        C("ops.Betainc[0]", betainc, pos(3, 4), pos(3, 4), u(3, 4)),
        C("ops.Cross[0]", ops.Cross(), p(2, 3), p(2, 3)), C("ops.Cross[dim 0]", ops.Cross(0), p(3, 2), p(3, 2)),
        C("ops.Einsum[0]", einsum_class, p(2, 3), p(3, 4)),
        C("ops.BartlettWindow[0]", ops.BartlettWindow(), const(np.array(5, np.int32))),
        C("ops.BlackmanWindow[0]", ops.BlackmanWindow(False), const(np.array(4, np.int32))),
        C("ops.HammingWindow[0]", ops.HammingWindow(), const(np.array(6, np.int32))),
    ]


# --- second batch: random sampling, row updates, index_put, framework helpers, more class forms ---
def _inplace_fn(fn):
    def run(x, *args, **kw):
        z = x * 1
        out = fn(z, *args, **kw)
        return z, out
    run.__name__ = f"inplace_{getattr(fn, '__name__', type(fn).__name__)}"
    return run


def grad_square(x):
    return ops.grad(lambda a: (a * a).sum())(x)


def grad_two(x, y):
    return ops.grad(lambda a, b: (a * b).sum(), (0, 1))(x, y)


def constexpr_scale(x):
    @ops.constexpr
    def two():
        return 2.0
    return x * two()


def add_flags_fn(x):
    f = ops.add_flags(lambda a: a + 1, marked=True)
    return f(x)


def gradop_all(x, y):
    return ops.GradOperation(get_all=True)(lambda a, b: (a * b).sum())(x, y)


def gradop_first(x, y):
    return ops.GradOperation()(lambda a, b: (a * b * b).sum())(x, y)


def gradop_sens(x):
    return ops.GradOperation(sens_param=True)(lambda a: a * 3.0)(x, x * 0 + 1)


def assign_fn(x, v):
    z = x * 1
    ops.Assign()(z, v)
    return z


def assign_add_fn(x, v):
    z = x * 1
    ops.AssignAdd()(z, v)
    return z


def assign_sub_fn(x, v):
    z = x * 1
    ops.AssignSub()(z, v)
    return z


def dropout2d_cls(x):
    return ops.Dropout2D(0.6)(x)


def dropout3d_cls(x):
    return ops.Dropout3D(0.6)(x)


def bernoulli_cls(x):
    return ops.Bernoulli()(x, 0.3)


@_functions
def _api_a_functions_2() -> list:
    R = {"seeded": True}
    rows = const(np.array([0, 2], np.int32))
    ip = _inplace_fn
    return [
        C("ops.bernoulli[0]", ops.bernoulli, p(3, 4), **R), C("ops.bernoulli[p]", ops.bernoulli, p(5), 0.2, **R),
        C("ops.bernoulli[tensor p]", ops.bernoulli, p(2, 3), fl(2, 3, lo=0.0, hi=1.0), **R),
        C("ops.bernoulli_ext[0]", ops.bernoulli_ext, fl(3, 4, lo=0.0, hi=1.0), **R),
        C("ops.bernoulli_[0]", ip(ops.bernoulli_), p(3, 4), **R),
        C("ops.bernoulli_[p]", ip(ops.bernoulli_), p(5), 0.8, **R),
        C("ops.exponential_[0]", ip(ops.exponential_), p(3, 4), **R),
        C("ops.exponential_[lambd]", ip(ops.exponential_), p(5), 2.5, **R),
        C("ops.gumbel_softmax[0]", ops.gumbel_softmax, p(3, 4), **R),
        C("ops.gumbel_softmax[hard]", ops.gumbel_softmax, p(3, 4), 0.5, True, **R),
        C("ops.gumbel_softmax[dim 0]", ops.gumbel_softmax, p(3, 4), kw={"dim": 0}, **R),
        C("ops.inplace_add[0]", ip(ops.inplace_add), p(4, 3), p(2, 3), rows),
        C("ops.inplace_add[tuple]", ip(ops.inplace_add), p(4, 3), p(2, 3), (1, 3)),
        C("ops.inplace_sub[0]", ip(ops.inplace_sub), p(4, 3), p(2, 3), rows),
        C("ops.inplace_update[0]", ip(ops.inplace_update), p(4, 3), p(2, 3), rows),
        C("ops.inplace_update[repeat]", ip(ops.inplace_update), p(4, 3), p(2, 3), (1, 1)),
        C("ops.inplace_index_add[0]", ip(ops.inplace_index_add), p(3, 4), rows, p(3, 2), 1),
        C("ops.intopk[1]", ops.intopk, p(4, 5), it(0, 5, 4), 1),
        C("ops.intopk[3]", ops.intopk, p(4, 5), it(0, 5, 4), 3),
        C("ops.check_valid[0]", ops.check_valid, fl(5, 4, lo=-2.0, hi=30.0), const(np.array([20.0, 25.0, 1.0],
                                                                                              np.float32))),
        C("ops.channel_shuffle[0]", ops.channel_shuffle, p(2, 6, 2), 3),
        C("ops.channel_shuffle[4d]", ops.channel_shuffle, p(1, 4, 2, 2), 2),
        C("ops.fftshift[0]", ops.fftshift, p(5)), C("ops.fftshift[dim]", ops.fftshift, p(3, 4), 1),
        C("ops.ifftshift[0]", ops.ifftshift, p(5)), C("ops.ifftshift[dims]", ops.ifftshift, p(3, 4), (0, 1)),
        C("ops.fftfreq[0]", ops.fftfreq, 5), C("ops.fftfreq[d]", ops.fftfreq, 4, 0.5),
        C("ops.deepcopy[0]", ops.deepcopy, p(3, 4)), C("ops.deepcopy[int]", ops.deepcopy, it(0, 5, 3)),
        C("ops.dyn_shape[0]", ops.dyn_shape, p(3, 4)), C("ops.conj[0]", ops.conj, p(3, 4)),
        C("ops.grad[0]", grad_square, p(3, 4)), C("ops.grad[positions]", grad_two, p(3), p(3)),
        C("ops.constexpr[0]", constexpr_scale, p(3)), C("ops.add_flags[0]", add_flags_fn, p(3)),
    ]


def index_put_copy(x, i, j, v, accumulate=False):
    return x.index_put((i,) if j is None else (i, j), v, accumulate)


def index_put_inplace(x, i, j, v, accumulate=False):
    z = x * 1
    out = z.index_put_((i,) if j is None else (i, j), v, accumulate)
    return z, out


def api_a_tensor_cases_2() -> list:
    R = {"seeded": True}
    idx2 = (const(np.array([0, 2], np.int64)), const(np.array([1, 1], np.int64)))
    m = _method
    calls = {
        "bernoulli": [((fl(3, 4, lo=0.0, hi=1.0),), {}), ((fl(5, lo=0.0, hi=1.0),), {}),
                      ((fl(2, 2, lo=0.2, hi=0.8),), {})],
        "bernoulli_": [((p(3, 4),), {}), ((p(5), 0.2), {}), ((p(2, 3),), {"p": 0.9})],
        "exponential_": [((p(3, 4),), {}), ((p(5), 2.0), {}), ((p(2, 3),), {"lambd": 0.5})],
        "cauchy": [((p(3, 4),), {}), ((p(5), 1.0, 2.0), {}), ((p(2, 3),), {"sigma": 0.5})],
        "inplace_update": [((p(4, 3), p(2, 3), (0, 2)), {}), ((p(3, 2), p(1, 2), (1,)), {}),
                           ((p(4, 3), p(2, 3), (3, 1)), {})],
        "index_put": [((p(3, 3), *idx2, p(2)), {}), ((p(3, 3), *idx2, p(2), True), {}),
                      ((p(3, 4), const(np.array([1, 2], np.int64)), None, p(2, 4)), {})],
        "index_put_": [((p(3, 3), *idx2, p(2)), {}), ((p(3, 3), *idx2, p(2), True), {}),
                       ((p(3, 4), const(np.array([0], np.int64)), None, p(1, 4)), {})],
        "conj": [((p(3, 4),), {}), ((p(5),), {}), ((it(0, 4, 3),), {})],
    }
    rand = {"bernoulli", "bernoulli_", "exponential_", "cauchy"}
    out = []
    for name, cs in calls.items():
        fn = m(name) if name.endswith("_") or name in ("cauchy", "inplace_update") else getattr(ms.Tensor, name)
        if name.startswith("index_put"):
            fn = index_put_inplace if name.endswith("_") else index_put_copy
        out += [C(f"Tensor.{name}[{i}]", fn, *a, kw=k, **(R if name in rand else {})) for i, (a, k) in enumerate(cs)]
    return out


@_classes
def _api_a_classes_2() -> list:
    R = {"seeded": True}
    rows = (0, 2)
    return [
        C("ops.Assign[0]", assign_fn, p(3, 4), p(3, 4)), C("ops.AssignAdd[0]", assign_add_fn, p(3, 4), p(3, 4)),
        C("ops.AssignSub[0]", assign_sub_fn, p(3, 4), p(3, 4)),
        C("ops.DivNoNan[0]", ops.DivNoNan(), p(3, 4), G(lambda r: (r.standard_normal((3, 4)) * (r.random((3, 4)) > 0.3))
                                                         .astype(np.float32))),
        C("ops.DiagPart[0]", ops.DiagPart(), p(3, 3)),
        C("ops.EuclideanNorm[0]", ops.EuclideanNorm(), p(3, 4), (1,)),
        C("ops.EuclideanNorm[keep]", ops.EuclideanNorm(True), p(3, 4), (0, 1)),
        C("ops.EqualCount[0]", ops.EqualCount(), it(0, 3, 6), it(0, 3, 6)),
        C("ops.Gelu[0]", ops.Gelu(), p(3, 4)), C("ops.Dense[0]", ops.Dense(), p(2, 3), p(4, 3), p(4)),
        C("ops.InTopK[0]", ops.InTopK(2), p(4, 5), it(0, 5, 4)),
        C("ops.CheckValid[0]", ops.CheckValid(), fl(5, 4, lo=-2.0, hi=30.0),
          const(np.array([20.0, 25.0, 1.0], np.float32))),
        C("ops.ChannelShuffle[0]", ops.ChannelShuffle(2), p(2, 4, 3)),
        C("ops.InplaceAdd[0]", _inplace_fn(ops.InplaceAdd(rows)), p(4, 3), p(2, 3)),
        C("ops.InplaceSub[0]", _inplace_fn(ops.InplaceSub(rows)), p(4, 3), p(2, 3)),
        C("ops.InplaceUpdate[0]", _inplace_fn(ops.InplaceUpdate(rows)), p(4, 3), p(2, 3)),
        C("ops.InplaceIndexAdd[0]", _inplace_fn(ops.InplaceIndexAdd(0)), p(4, 3), const(np.array([1, 1], np.int32)),
          p(2, 3)),
        C("ops.Conj[0]", ops.Conj(), p(3, 4)),
        C("ops.Bucketize[0]", ops.Bucketize([-0.5, 0.0, 0.5]), p(3, 4)),
        C("ops.CumProd[0]", ops.CumProd(), p(3, 4), 1), C("ops.CumProd[excl rev]", ops.CumProd(True, True), p(3, 4), 0),
        C("ops.CountNonZero[0]", ops.CountNonZero(), it(0, 3, 3, 4)),
        C("ops.CountNonZero[dims]", ops.CountNonZero((1,)), it(0, 3, 3, 4)),
        C("ops.Bernoulli[0]", bernoulli_cls, p(3, 4), **R),
        C("ops.Dropout2D[0]", dropout2d_cls, p(2, 3, 2, 2), **R),
        C("ops.Dropout3D[0]", dropout3d_cls, p(1, 3, 2, 2, 2), **R),
        C("ops.GradOperation[all]", gradop_all, p(3), p(3)), C("ops.GradOperation[first]", gradop_first, p(3), p(3)),
        C("ops.GradOperation[sens]", gradop_sens, p(3)),
    ]


# --- third batch: layouts, fill_diagonal, geqrf, more class forms ----------------------------------
def index_put_cls(x, v, i):
    return ops.IndexPut(1)(x, v, (i,))


def cauchy_cls(x):
    return x + ops.Cauchy((3,), 0.0, 1.0)()


def fill_diagonal_inplace(x, v):
    z = x * 1
    out = z.fill_diagonal_(v)
    return z, out


def api_a_tensor_cases_3() -> list:
    out = []
    fd = [((p(3, 3), 2.0), {}), ((p(5, 2), -1.0, True), {}), ((p(2, 4), 0.5), {})]
    out += [C(f"Tensor.fill_diagonal[{i}]", ms.Tensor.fill_diagonal, *a, kw=k) for i, (a, k) in enumerate(fd)]
    out += [C(f"Tensor.fill_diagonal_[{i}]", fill_diagonal_inplace, a[0], a[1]) for i, (a, k) in enumerate(fd)]
    gq = [((p(3, 3),), {}), ((p(4, 2),), {}), ((p(2, 2, 3),), {})]
    out += [C(f"Tensor.geqrf[{i}]", ms.Tensor.geqrf, *a, kw=k) for i, (a, k) in enumerate(gq)]
    return out


@_functions
def _api_a_functions_3() -> list:
    return [
        C("ops.batch_to_space_nd[0]", ops.batch_to_space_nd, p(4, 1, 2, 2), (2, 2), [[0, 0], [0, 0]]),
        C("ops.batch_to_space_nd[crop]", ops.batch_to_space_nd, p(8, 2, 1, 3), (2, 2), [[0, 1], [1, 0]]),
        C("ops.batch_to_space_nd[1d]", ops.batch_to_space_nd, p(4, 3, 2), (2,), [[1, 0]]),
        C("ops.geqrf[0]", ops.geqrf, p(3, 3)), C("ops.geqrf[wide]", ops.geqrf, p(2, 4)),
    ]


@_classes
def _api_a_classes_3() -> list:
    R = {"seeded": True}
    return [
        C("ops.DepthToSpace[0]", ops.DepthToSpace(2), p(1, 8, 2, 3)),
        C("ops.BatchToSpaceND[0]", ops.BatchToSpaceND((2, 2), [[0, 0], [0, 1]]), p(4, 1, 2, 2)),
        C("ops.BatchToSpace[0]", ops.BatchToSpace(2, [[0, 0], [0, 0]]), p(4, 2, 2, 2)),
        C("ops.FillDiagonal[0]", ops.FillDiagonal(3.0), p(3, 4)),
        C("ops.Geqrf[0]", ops.Geqrf(), p(3, 2)),
        C("ops.HistogramFixedWidth[0]", ops.HistogramFixedWidth(4), fl(10, lo=-1.0, hi=6.0),
          const(np.array([0.0, 5.0], np.float32))),
        C("ops.EmbeddingLookup[0]", ops.EmbeddingLookup(), p(5, 2), it(0, 8, 4), 2),
        C("ops.CheckNumerics[0]", ops.CheckNumerics(), p(3, 4)),
        C("ops.ConjugateTranspose[0]", ops.ConjugateTranspose(), p(2, 3, 4), (2, 0, 1)),
        C("ops.Cummax[0]", ops.Cummax(1), p(3, 4)), C("ops.Cummin[0]", ops.Cummin(0), p(3, 4)),
        C("ops.IdentityN[0]", ops.IdentityN(), [G(lambda r: r.standard_normal(3).astype(np.float32))]),
        C("ops.Depend[0]", ops.Depend(), p(3), p(2)),
        C("ops.ConfusionMatrix[0]", ops.ConfusionMatrix(4), it(0, 4, 8), it(0, 4, 8)),
        C("ops.IndexPut[0]", index_put_cls, p(4, 2), p(2, 2), const(np.array([1, 1], np.int64))),
        C("ops.CumulativeLogsumexp[0]", ops.CumulativeLogsumexp(), p(3, 4), 1),
        C("ops.CumulativeLogsumexp[rev]", ops.CumulativeLogsumexp(False, True), p(3, 4), 0),
        C("ops.Cauchy[0]", cauchy_cls, p(3), **R),
        C("ops.Bincount[0]", ops.Bincount(), it(0, 6, 8), const(np.array(5, np.int32)), p(8)),
        C("ops.Histogram[0]", ops.Histogram(4, -1.0, 1.0), p(10)),
        C("ops.DataFormatDimMap[0]", ops.DataFormatDimMap(), it(-4, 4, 6)),
        C("ops.DataFormatVecPermute[0]", ops.DataFormatVecPermute(), it(1, 9, 4)),
    ]


# --- optimizer-step class forms: run on copies made in the function (state written in place) ------
def _opt_case(op, n_state, *scalars, grad_last=True, grad_pos=None):
    """fn(var, s1..s_{n-1}, grad): copies the state, applies `op` with `scalars` where the op takes
    them, returns the updated state and the op's outputs."""
    def run(*ts):
        state = [t * 1 for t in ts[:n_state]]
        grad = ts[n_state]
        args = list(state)
        if grad_pos is None:
            args += list(scalars) + [grad]
        else:
            rest = list(scalars)
            rest.insert(grad_pos, grad)
            args += rest
        out = op(*args)
        return tuple(state), out
    run.__name__ = f"step_{type(op).__name__}"
    return run


@_classes
def _api_a_optimizer_classes() -> list:
    s = (3, 4)
    pp = (lambda: pos(*s))
    cases = {
        "ApplyGradientDescent": (_opt_case(ops.ApplyGradientDescent(), 1, 0.1), [p(*s)]),
        "ApplyProximalGradientDescent": (_opt_case(ops.ApplyProximalGradientDescent(), 1, 0.1, 0.05, 0.2), [p(*s)]),
        "ApplyMomentum": (_opt_case(ops.ApplyMomentum(), 2, 0.1, 0.9, grad_pos=1), [p(*s), p(*s)]),
        "ApplyKerasMomentum": (_opt_case(ops.ApplyKerasMomentum(), 2, 0.1, 0.9, grad_pos=1), [p(*s), p(*s)]),
        "ApplyAdagrad": (_opt_case(ops.ApplyAdagrad(), 2, 0.1), [p(*s), pp()]),
        "ApplyProximalAdagrad": (_opt_case(ops.ApplyProximalAdagrad(), 2, 0.1, 0.01, 0.02), [p(*s), pp()]),
        "ApplyAdadelta": (_opt_case(ops.ApplyAdadelta(), 3, 1.0, 0.9, 1e-6), [p(*s), pp(), pp()]),
        "ApplyAdaMax": (_opt_case(ops.ApplyAdaMax(), 3, 0.9, 0.01, 0.9, 0.99, 1e-8), [p(*s), p(*s), pp()]),
        "ApplyAddSign": (_opt_case(ops.ApplyAddSign(), 2, 0.1, 1.0, 0.5, 0.9), [p(*s), p(*s)]),
        "ApplyPowerSign": (_opt_case(ops.ApplyPowerSign(), 2, 0.1, 2.7, 0.5, 0.9), [p(*s), p(*s)]),
        "ApplyRMSProp": (_opt_case(ops.ApplyRMSProp(), 3, 0.01, 0.9, 0.5, 1e-6, grad_pos=1), [p(*s), pp(), p(*s)]),
        "ApplyCenteredRMSProp": (_opt_case(ops.ApplyCenteredRMSProp(), 4, 0.01, 0.9, 0.5, 1e-6, grad_pos=0),
                                 [p(*s), fl(*s, lo=-0.1, hi=0.1), pp(), p(*s)]),
        "ApplyFtrl": (_opt_case(ops.ApplyFtrl(), 3, 0.1, 0.3, 0.2, -0.5, grad_pos=0), [p(*s), pp(), p(*s)]),
        "ApplyAdamWithAmsgrad": (_opt_case(ops.ApplyAdamWithAmsgrad(), 4, 0.9, 0.999, 0.01),
                                 [p(*s), p(*s), pp(), pp()]),
        "Adam": (_opt_case(ops.Adam(), 3, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8), [p(*s), p(*s), pp()]),
        "AdamWeightDecay": (_opt_case(ops.AdamWeightDecay(), 3, 0.01, 0.9, 0.999, 1e-8, 0.1), [p(*s), p(*s), pp()]),
        "AdamNoUpdateParam": (_opt_case(ops.AdamNoUpdateParam(), 2, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8),
                              [p(*s), pp()]),
    }
    return [C(f"ops.{name}[0]", fn, *state, p(*s)) for name, (fn, state) in cases.items()]


# --- affine_grid, choose, index_copy_, H, get_world_size ----------------------------------------------
def index_copy_inplace(x, i, v):
    z = x * 1
    out = z.index_copy_(1, i, v)
    return z, out


def get_h(x):
    return x.H


def world_size_plus(x):
    return x + ops.get_world_size()


def choose3(i, a, b, c):
    return i.choose([a, b, c])


def choose2(i, a, b, mode):
    return i.choose((a, b), mode)


def api_a_tensor_cases_4() -> list:
    i1 = const(np.array([2], np.int64))
    out = [C("Tensor.index_copy_[0]", index_copy_inplace, p(3, 4), i1, p(3, 1)),
           C("Tensor.index_copy_[two]", index_copy_inplace, p(2, 5), const(np.array([0, 3], np.int64)), p(2, 2)),
           C("Tensor.index_copy_[3d]", index_copy_inplace, p(2, 3, 2), i1, p(2, 1, 2)),
           C("Tensor.H[0]", get_h, p(3, 4)), C("Tensor.H[square]", get_h, p(3, 3)), C("Tensor.H[row]", get_h, p(1, 5))]
    out += [C("Tensor.choose[0]", choose3, it(0, 3, 4), p(4), p(4), p(4)),
            C("Tensor.choose[wrap]", choose2, it(-1, 5, 3, 2), p(3, 2), p(2), "wrap"),
            C("Tensor.choose[clip]", choose2, it(-1, 4, 5), p(5), p(5), "clip")]
    return out


@_functions
def _api_a_functions_4() -> list:
    return [
        C("ops.affine_grid[2d]", ops.affine_grid, p(2, 2, 3), (2, 1, 3, 4)),
        C("ops.affine_grid[align]", ops.affine_grid, p(1, 2, 3), (1, 3, 2, 2), True),
        C("ops.affine_grid[3d]", ops.affine_grid, p(1, 3, 4), (1, 1, 2, 2, 3)),
        C("ops.get_world_size[alone]", ops.get_world_size), C("ops.get_world_size[0]", world_size_plus, p(3)),
        C("ops.cond[0]", ops.cond, spd(3)), C("ops.cond[fro]", ops.cond, spd(3, 2), "fro"),
        C("ops.cond[1]", ops.cond, spd(2), 1),
        C("ops.eps[0]", ops.eps, p(3, 4)), C("ops.eps[f64]", ops.eps, p(2, dt=np.float64)),
    ]


@_classes
def _api_a_classes_4() -> list:
    return [C("ops.Eps[0]", ops.Eps(), p(3)),
            C("ops.AffineGrid[0]", ops.AffineGrid(), p(2, 2, 3), (2, 1, 3, 4)),
            C("ops.AffineGrid[align]", ops.AffineGrid(True), p(1, 2, 3), (1, 1, 2, 5))]
