"""Differential cases for slice B of the issue-14 ops (scatter_segment_ops, activation_shrink_margin,
linalg_det_inverse and their class forms in classes_scatter_linalg): each public function and class
gets Graph-vs-PyNative cases here (registered into cases_ops' sections)."""

from __future__ import annotations

import os
import tempfile

import numpy as np

import spore as ms
from spore import ops

from .cases_ops import K, _classes, _functions
from .cases_tensor_nn import C, G, fl, it, nz, pos


def const(a) -> G:
    a = np.asarray(a)
    return G(lambda r: a.copy())


def sq(n: int, *batch: int) -> G:
    """Well-conditioned square matrices."""
    return G(lambda r: (r.standard_normal((*batch, n, n)) + 3 * np.eye(n)).astype(np.float32))


def distinct(*shape: int) -> G:
    n = int(np.prod(shape))
    return G(lambda r: ((r.permutation(n) * 0.5 + r.random(n) * 0.1 - n / 4).reshape(shape)).astype(np.float32))


ROW_IDX = const(np.array([[0], [2], [0]], np.int32))
FIRST_IDX = const(np.array([0, 2, 0], np.int32))
SEG = const(np.array([0, 2, 0, 5, -1, 2], np.int32))


def _table() -> dict:
    u = (lambda *s: fl(*s, lo=0.5, hi=2.0))
    scat = [((distinct(4, 3), ROW_IDX, distinct(3, 3)), {}), ((fl(3, 4), const(np.array([[0, 1], [2, 3]], np.int32)),
                                                               fl(2)), {})]
    first = [((distinct(4, 3), FIRST_IDX, distinct(3, 3)), {}), ((fl(3, 2), const(np.array([1], np.int32)), fl(1, 2)),
                                                                 {})]
    mulscat = [((fl(4, 3), ROW_IDX, u(3, 3)), {})]
    seg = [((fl(6, 2), SEG, 4), {}), ((fl(6), SEG, 3), {})]
    return {
        "tensor_scatter_sub": scat, "tensor_scatter_max": scat, "tensor_scatter_min": scat,
        "tensor_scatter_mul": mulscat, "tensor_scatter_div": mulscat,
        "scatter_nd_add": scat, "scatter_nd_sub": scat, "scatter_nd_max": scat, "scatter_nd_min": scat,
        "scatter_nd_mul": mulscat, "scatter_nd_div": mulscat,
        "scatter_add": first, "scatter_sub": first, "scatter_max": first, "scatter_min": first,
        "scatter_update": [((fl(4, 3), const(np.array([0, 2], np.int32)), fl(2, 3)), {})],
        "scatter_mul": [((fl(4, 3), FIRST_IDX, u(3, 3)), {})], "scatter_div": [((fl(4, 3), FIRST_IDX, u(3, 3)), {})],
        "unsorted_segment_sum": seg, "unsorted_segment_max": seg, "unsorted_segment_min": seg,
        "unsorted_segment_prod": seg,
        "softsign": [((fl(3, 4),), {})], "soft_shrink": [((fl(3, 4),), {}), ((fl(5), 0.2), {})],
        "softshrink": [((fl(3, 4),), {"lambd": 0.8})], "tanhshrink": [((fl(3, 4),), {})],
        "threshold": [((fl(3, 4), 0.1, -1.0), {})], "logsigmoid": [((fl(3, 4),), {})], "selu": [((fl(3, 4),), {})],
        "softmin": [((fl(3, 4),), {}), ((fl(3, 4), 0), {})],
        "prelu": [((fl(2, 3, 4), pos(3)), {}), ((fl(2, 3), const(np.array([0.25], np.float32))), {})],
        "rrelu": [((pos(3, 4),), {})], "sinc": [((fl(3, 4),), {})], "swiglu": [((fl(3, 4),), {}), ((fl(4, 2), 0), {})],
        "rms_norm": [((fl(2, 3, 4), fl(4)), {}), ((fl(3, 4), fl(3, 4), 1e-5), {})],
        "negative": [((fl(3, 4),), {})], "subtract": [((fl(3, 4), fl(4)), {}), ((fl(3), fl(3)), {"alpha": 2.0})],
        "tensor_gt": [((fl(3, 4), fl(3, 4)), {})], "tensor_lt": [((fl(3, 4), fl(4)), {})],
        "tensor_muls": [((fl(3, 4), 1.5), {})],
        "truncate_div": [((fl(3, 4), nz(3, 4)), {}),
                         ((it(-9, 9, 5), const(np.array([2, -3, 4, 2, -2], np.int32))), {})],
        "truncate_mod": [((fl(3, 4), nz(3, 4)), {})],
        "margin_ranking_loss": [((fl(5), fl(5), const(np.array([1, -1, 1, 1, -1], np.float32))), {}),
                                ((fl(5), fl(5), const(np.array([1, -1, 1, 1, -1], np.float32)), 0.3, "sum"), {})],
        "soft_margin_loss": [((fl(3, 4), const(np.sign(np.arange(12).reshape(3, 4) % 3 - 1.0).astype(np.float32))),
                              {})],
        "multilabel_soft_margin_loss": [((fl(3, 4), const((np.arange(12).reshape(3, 4) % 2).astype(np.float32))), {})],
        "kl_div": [((fl(3, 4), pos(3, 4)), {}), ((fl(3, 4), pos(3, 4), "batchmean"), {})],
        "mse_loss_ext": [((fl(3, 4), fl(3, 4)), {}), ((fl(3, 4), fl(4), "sum"), {})],
        "triplet_margin_loss": [((fl(4, 3), fl(4, 3), fl(4, 3)), {}), ((fl(4, 3), fl(4, 3), fl(4, 3)), {"swap": True})],
        "multi_margin_loss": [((fl(4, 5), const(np.array([1, 0, 4, 2], np.int32))), {}),
                              ((fl(4, 5), const(np.array([1, 0, 4, 2], np.int32)), 2, 0.5), {})],
        "multilabel_margin_loss": [((fl(2, 4), const(np.array([[3, 0, -1, 1], [1, 2, 3, -1]], np.int32))), {})],
        "inverse": [((sq(3),), {}), ((sq(2, 2),), {})], "matrix_determinant": [((sq(3),), {})],
        "slogdet": [((sq(3, 2),), {})], "log_matrix_determinant": [((sq(2),), {})], "logdet": [((sq(3),), {})],
        "matrix_power": [((sq(3), 3), {}), ((sq(2), -1), {}), ((sq(2), 0), {})],
        "matrix_solve": [((sq(3), fl(3, 2)), {}), ((sq(3), fl(3, 1), True), {})],
        "mv": [((fl(3, 4), fl(4)), {})], "vecdot": [((fl(3, 4), fl(3, 4)), {}), ((fl(3, 4), fl(4)), {"axis": -1})],
        "tensor_dot": [((fl(2, 3, 4), fl(4, 3, 5), ((1, 2), (1, 0))), {}), ((fl(2, 4), fl(4, 3), 1), {})],
        "matrix_band_part": [((fl(4, 5), 1, 2), {}), ((fl(2, 3, 3), -1, 0), {})],
        "vander": [((fl(4),), {}), ((fl(3), 5), {})],
        "tril_indices": [((3, 4, 1), {})], "triu_indices": [((4, 3, -1), {})],
        "lgamma": [((pos(3, 4),), {})], "polygamma": [((1, pos(3, 4)), {})],
        "mvlgamma": [((fl(3, lo=2.0, hi=4.0), 2), {})],
        "zeta": [((fl(3, 4, lo=1.5, hi=3.0), pos(4)), {})],
    }


@_functions
def _api_b_functions() -> list:
    out = []
    for name, calls in _table().items():
        fn = getattr(ops, name)
        for i, (args, kw) in enumerate(calls):
            out.append(C(f"ops.{name}[{i}]", fn, *args, kw=kw))
    return out


@_classes
def _api_b_classes() -> list:
    scat = (distinct(4, 3), ROW_IDX, distinct(3, 3))
    first = (distinct(4, 3), FIRST_IDX, distinct(3, 3))
    posu = fl(3, 3, lo=0.5, hi=2.0)
    out = [K(f"{n}[0]", getattr(ops, n)(), *scat) for n in
           ("ScatterNdAdd", "ScatterNdSub", "ScatterNdMax", "ScatterNdMin", "ScatterNdUpdate", "TensorScatterSub",
            "TensorScatterMax", "TensorScatterMin")]
    out += [K(f"{n}[0]", getattr(ops, n)(), fl(4, 3), ROW_IDX, posu) for n in
            ("ScatterNdMul", "ScatterNdDiv", "TensorScatterMul", "TensorScatterDiv")]
    out += [K(f"{n}[0]", getattr(ops, n)(), *first) for n in
            ("ScatterAdd", "ScatterSub", "ScatterMax", "ScatterMin")]
    out += [K(f"{n}[0]", getattr(ops, n)(), fl(4, 3), FIRST_IDX, posu) for n in ("ScatterMul", "ScatterDiv")]
    out += [K("ScatterUpdate[0]", ops.ScatterUpdate(), fl(4, 3), const(np.array([0, 2], np.int32)), fl(2, 3))]
    out += [K(f"{n}[0]", getattr(ops, n)(), fl(6, 2), SEG, 4) for n in
            ("UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd")]
    out += [K("Softsign[0]", ops.Softsign(), fl(3, 4)), K("SoftShrink[0]", ops.SoftShrink(0.3), fl(3, 4)),
            K("SeLU[0]", ops.SeLU(), fl(3, 4)), K("PReLU[0]", ops.PReLU(), fl(2, 3, 4), pos(3)),
            K("Sinc[0]", ops.Sinc(), fl(3, 4)), K("TruncateDiv[0]", ops.TruncateDiv(), fl(3, 4), nz(3, 4)),
            K("TruncateMod[0]", ops.TruncateMod(), fl(3, 4), nz(3, 4)), K("TensorAdd[0]", ops.TensorAdd(), fl(3, 4),
                                                                           fl(4)),
            K("SoftMarginLoss[0]", ops.SoftMarginLoss(), fl(3, 4), const(np.ones((3, 4), np.float32))),
            K("KLDivLoss[0]", ops.KLDivLoss("sum"), fl(3, 4), pos(3, 4)),
            K("MatrixInverse[0]", ops.MatrixInverse(), sq(3)), K("MatrixInverse[adjoint]", ops.MatrixInverse(True),
                                                                  sq(3, 2)),
            K("MatrixDeterminant[0]", ops.MatrixDeterminant(), sq(3)),
            K("LogMatrixDeterminant[0]", ops.LogMatrixDeterminant(), sq(2, 2)),
            K("MatrixPower[0]", ops.MatrixPower(2), sq(3)), K("MatrixSolve[0]", ops.MatrixSolve(), sq(3), fl(3, 2)),
            K("MatrixBandPart[0]", ops.MatrixBandPart(), fl(4, 5), 1, 0),
            K("Lgamma[0]", ops.Lgamma(), pos(3, 4)), K("Polygamma[0]", ops.Polygamma(), 1, pos(3, 4)),
            K("Mvlgamma[0]", ops.Mvlgamma(2), fl(3, lo=2.0, hi=4.0)),
            K("Zeta[0]", ops.Zeta(), fl(3, lo=1.5, hi=3.0), pos(3)),
            K("TrilIndices[0]", ops.TrilIndices(3, 4)), K("TriuIndices[0]", ops.TriuIndices(4, 4, 1))]
    return out


# --- sort_stats_ops / array_sequence_ops / classes_sort_array ------------------------------------------
def sorted_fl(*shape: int) -> G:
    return G(lambda r: np.sort(r.standard_normal(shape), -1).astype(np.float32))


def _table2() -> dict:
    lens = const(np.array([2, 5, 0], np.int64))
    return {
        "median": [((distinct(4, 6),), {}), ((distinct(4, 5), 0, True), {})],
        "nanmedian": [((distinct(4, 6), 1), {})],
        "quantile": [((fl(3, 7), 0.3, 1), {}), ((fl(3, 7), 0.8), {}), ((fl(3, 7), 0.5, 0, True), {})],
        "nanquantile": [((fl(3, 7), 0.4, 1), {})],
        "searchsorted": [((sorted_fl(8), fl(3, 4)), {}), ((sorted_fl(2, 6), fl(2, 3)), {"right": True})],
        "trapz": [((fl(3, 6),), {}), ((fl(3, 6), G(lambda r: np.cumsum(r.uniform(0.1, 1, 6)).astype(np.float32))),
                                      {}), ((fl(4, 3),), {"dx": 0.5, "dim": 0})],
        "vector_norm": [((fl(3, 4),), {}), ((fl(3, 4), 1, 1), {}), ((fl(3, 4), float("inf"), 0, True), {})],
        "matrix_norm": [((fl(3, 4),), {}), ((fl(2, 3, 3), 1), {}), ((fl(3, 4), "nuc"), {})],
        "reverse": [((fl(3, 4), [0]), {}), ((fl(2, 3, 4), (0, 2)), {})],
        "reverse_sequence": [((fl(3, 5, 2), lens, 1, 0), {})],
        "repeat_elements": [((fl(2, 3), 2), {}), ((fl(2, 3), 3, 1), {})],
        "row_stack": [(([fl(3), fl(3)],), {})],
        "sequence_mask": [((const(np.array([1, 3, 0], np.int32)), 4), {})],
        "slice_scatter": [((fl(3, 5), fl(3, 2), 1, 1, 5, 2), {}), ((fl(4, 2), fl(2, 2)), {"start": 1, "end": 3})],
        "select_scatter": [((fl(3, 5), fl(3), 1, 2), {})],
        "invert": [((it(-5, 5, 3, 4),), {})],
        "isnan_ext": [((fl(3, 4),), {})],
        "view_as": [((fl(2, 6), fl(3, 4)), {})],
    }


def _vg(x):
    return ops.value_and_grad(lambda a: ops.reduce_sum(ops.sin(a)))(x)


def _vjp(x, v):
    out, fn = ops.vjp(ops.sin, x)
    return out, fn(v)


def _jvp(x, v):
    return ops.jvp(ops.sin, x, v)


def _jacrev(x):
    return ops.jacrev(ops.sin)(x)


def _jacfwd(x):
    return ops.jacfwd(ops.sin)(x)


def _vmap(x):
    return ops.vmap(lambda r: ops.reduce_sum(ops.mul(r, r)))(x)


def _scalar_fns(x):
    return (ops.add(x, ops.scalar_to_tensor(2.0)), ops.add(x, ops.scalar_to_array(1.5)),
            ops.add(x, ops.tuple_to_array((1.0, 2.0, 3.0))), ops.mul(x, ops.scalar_cast(2, ms.float32)),
            ops.is_tensor(x), ops.is_nonzero(ops.reduce_sum(ops.abs(x)) + 1))


@_functions
def _api_b_functions2() -> list:
    out = []
    for name, calls in _table2().items():
        fn = getattr(ops, name)
        for i, (args, kw) in enumerate(calls):
            out.append(C(f"ops.{name}[{i}]", fn, *args, kw=kw))
    out += [C("ops.value_and_grad[sin]", _vg, fl(3)), C("ops.vjp[sin]", _vjp, fl(3), fl(3)),
            C("ops.jvp[sin]", _jvp, fl(3), fl(3)), C("ops.jacrev[sin]", _jacrev, fl(3)),
            C("ops.jacfwd[sin]", _jacfwd, fl(3)), C("ops.vmap[sumsq]", _vmap, fl(4, 3))]
    # each alone first: they convert host values and run no op of their own (what the op catalogue's
    # oracle, tests/ide/test_catalogue.py, reads from a name's first case); then all together, used
    out += [C("ops.scalar_to_tensor[alone]", ops.scalar_to_tensor, 2.0),
            C("ops.scalar_to_array[alone]", ops.scalar_to_array, 1.5),
            C("ops.tuple_to_array[alone]", ops.tuple_to_array, (1.0, 2.0, 3.0)),
            C("ops.scalar_cast[alone]", ops.scalar_cast, 2, ms.float32),
            C("ops.is_tensor[alone]", ops.is_tensor, fl(3)), C("ops.is_nonzero[alone]", ops.is_nonzero, fl(1))]
    out += [C(f"ops.{n}[scalars]", _scalar_fns, fl(3)) for n in
            ("scalar_to_tensor", "scalar_to_array", "tuple_to_array", "scalar_cast", "is_tensor", "is_nonzero")]
    return out


@_classes
def _api_b_classes2() -> list:
    return [K("Median[0]", ops.Median(axis=1), distinct(3, 5)), K("Median[global]", ops.Median(True), distinct(3, 4)),
            K("LowerBound[0]", ops.LowerBound(), sorted_fl(2, 5), fl(2, 3)),
            K("UpperBound[0]", ops.UpperBound(), sorted_fl(2, 5), fl(2, 3)),
            K("ReverseSequence[0]", ops.ReverseSequence(1), fl(3, 4), const(np.array([1, 4, 2], np.int64))),
            K("Pack[0]", ops.Pack(1), [fl(2, 3), fl(2, 3)]), K("Unpack[0]", ops.Unpack(1), fl(2, 3)),
            K("L2Loss[0]", ops.L2Loss(), fl(3, 4)), K("L2Normalize[0]", ops.L2Normalize(1), fl(3, 4)),
            K("LpNorm[0]", ops.LpNorm(1, 3), fl(3, 4)), K("ReduceStd[0]", ops.ReduceStd(1), fl(3, 4)),
            K("SquaredDifference[0]", ops.SquaredDifference(), fl(3, 4), fl(4)),
            K("SquareSumAll[0]", ops.SquareSumAll(), fl(3, 4), fl(3, 4)),
            K("MulNoNan[0]", ops.MulNoNan(), fl(3, 4),
              G(lambda r: (r.integers(0, 2, (3, 4)) * 1.5).astype(np.float32))),
            K("Xdivy[0]", ops.Xdivy(), fl(3, 4), nz(3, 4)), K("Rint[0]", ops.Rint(), fl(3, 4, lo=-5.0, hi=5.0)),
            K("Trace[0]", ops.Trace(), fl(3, 3)), K("Tril[0]", ops.Tril(1), fl(3, 4)),
            K("Triu[0]", ops.Triu(-1), fl(3, 4)),
            K("NanToNum[0]", ops.NanToNum(), fl(3, 4)),
            K("LinSpace[0]", ops.LinSpace(), const(np.float32(1)), const(np.float32(4)), 5),
            K("LogSpace[0]", ops.LogSpace(4, 2), const(np.float32(0)), const(np.float32(2))),
            K("Invert[0]", ops.Invert(), it(-4, 4, 5)),
            K("ScalarToTensor[alone]", ops.ScalarToTensor(), 2.0), K("ScalarToArray[alone]", ops.ScalarToArray(), 2.0),
            K("TupleToArray[alone]", ops.TupleToArray(), (1.0, 2.0, 3.0)),
            K("ScalarCast[alone]", ops.ScalarCast(), 3, ms.float32),
            K("ScalarToTensor[0]", lambda x: ops.add(x, ops.ScalarToTensor()(2.0)), fl(3)),
            K("ScalarToArray[0]", lambda x: ops.add(x, ops.ScalarToArray()(2.0)), fl(3)),
            K("TupleToArray[0]", lambda x: ops.add(x, ops.TupleToArray()((1.0, 2.0, 3.0))), fl(3)),
            K("ScalarCast[0]", lambda x: ops.mul(x, ops.ScalarCast()(3, ms.float32)), fl(3)),
            K("SearchSorted[0]", ops.SearchSorted(), sorted_fl(6), fl(4)),
            K("SplitV[0]", ops.SplitV([1, -1], 1, 2), fl(3, 4)), K("TensorShape[0]", ops.TensorShape(), fl(3, 4)),
            K("InvertPermutation[alone]", ops.InvertPermutation(), (2, 0, 1)),
            K("InvertPermutation[0]", lambda x: ops.mul(x, ops.InvertPermutation()((2, 0, 1))[0]), fl(3))]


# --- random_distribution_ops / classes_random: seeded, as cases_ops' random section -------------------
@_functions
def _api_b_random_functions() -> list:
    R = {"seeded": True}
    rate = const(np.array([1.0, 4.0], np.float32))
    probs = const(np.array([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3]], np.float32))
    return [C("ops.standard_normal[0]", ops.standard_normal, (3, 4), **R),
            C("ops.standard_normal[seed]", ops.standard_normal, (5,), 3, **R),
            C("ops.standard_laplace[0]", ops.standard_laplace, (3, 4), **R),
            C("ops.laplace[0]", ops.laplace, (3, 2), const(np.float32(1.0)), const(np.float32(0.5)), **R),
            C("ops.random_gamma[0]", ops.random_gamma, (4,), const(np.array([0.5, 2.0], np.float32)), **R),
            C("ops.random_poisson[0]", ops.random_poisson, (4,), rate, **R),
            C("ops.poisson[0]", ops.poisson, (3, 2), rate, **R),
            C("ops.random_categorical[0]", ops.random_categorical, probs, 5, **R),
            C("ops.multinomial[0]", ops.multinomial, probs, 4, **R),
            C("ops.multinomial[no replacement]", ops.multinomial, probs, 2, False, **R),
            C("ops.shuffle[0]", ops.shuffle, fl(5, 2), **R),
            C("ops.kaiser_window[0]", ops.kaiser_window, 6),
            C("ops.kaiser_window[1]", ops.kaiser_window, 5, False, 4.0)]


@_classes
def _api_b_random_classes() -> list:
    R = {"seeded": True}
    probs = const(np.array([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3]], np.float32))
    rate = const(np.array([1.0, 4.0], np.float32))
    return [K("StandardNormal[0]", ops.StandardNormal(), (3, 2), **R),
            K("StandardLaplace[0]", ops.StandardLaplace(), (3, 2), **R),
            K("UniformReal[0]", ops.UniformReal(), (4,), **R), K("UniformInt[0]", ops.UniformInt(), (4,), 1, 5, **R),
            K("RandomGamma[0]", ops.RandomGamma(), (3,), rate, **R), K("Poisson[0]", ops.Poisson(), (3, 2), rate, **R),
            K("RandomPoisson[0]", ops.RandomPoisson(), (3,), rate, **R),
            K("RandomCategorical[0]", ops.RandomCategorical(), probs, 3, **R),
            K("Multinomial[0]", ops.Multinomial(), probs, 3, **R),
            K("RandomShuffle[0]", ops.RandomShuffle(), fl(5), **R),
            K("Randperm[0]", ops.Randperm(6), const(np.array([4], np.int32)), **R)]


# --- Tensor methods of slice B (cases_tensor_nn gathers them) -------------------------------------------
def _tensor_table() -> dict:
    p, u = fl, (lambda *s: fl(*s, lo=0.5, hi=2.0))
    idx1 = const(np.array([0, 2, 0], np.int32))
    seg = const(np.array([0, 2, 0, 1], np.int32))
    mask = const(np.array([[True, False, True, False], [False, True, False, False], [True, True, False, True]]))
    first = [((distinct(4, 3), idx1, distinct(3, 3)), {}), ((p(3, 2), const(np.array([1], np.int32)), p(1, 2)), {}),
             ((p(5), const(np.array([4, 0], np.int32)), p(2)), {})]
    firstu = [((p(4, 3), idx1, u(3, 3)), {}), ((p(3, 2), const(np.array([1], np.int32)), u(1, 2)), {}),
              ((p(5), const(np.array([4, 0], np.int32)), u(2)), {})]
    segs = [((p(4, 2), seg, 3), {}), ((p(4), seg, 4), {}), ((p(4, 2, 2), seg, 2), {})]
    elem = [((p(3, 3), 0, const(np.array([[0, 1, 2], [2, 0, 0]], np.int64)), p(2, 3)), {}),
            ((p(2, 4), 1, const(np.array([[3, 1], [0, 0]], np.int64)), p(2, 2)), {}),
            ((p(4), 0, const(np.array([1, 1], np.int64)), p(2)), {})]
    sqm = [((sq(3),), {}), ((sq(2, 2),), {}), ((sq(4),), {})]
    return {
        "scatter_add": first, "scatter_add_": elem, "scatter_sub": first, "scatter_max": first, "scatter_min": first,
        "scatter_mul": firstu, "scatter_div": firstu, "scatter_": elem,
        "unsorted_segment_sum": segs, "unsorted_segment_max": segs, "unsorted_segment_min": segs,
        "unsorted_segment_prod": segs,
        "soft_shrink": [((p(3, 4),), {}), ((p(5), 0.2), {}), ((p(2, 3),), {"lambd": 1.0})],
        "sinc": [((p(3, 4),), {}), ((p(5),), {}), ((it(-2, 3, 4),), {})],
        "inverse": sqm, "slogdet": sqm, "log_matrix_determinant": sqm, "matrix_determinant": sqm, "logdet": sqm,
        "matrix_power": [((sq(3), 2), {}), ((sq(2), -1), {}), ((sq(2, 2), 3), {})],
        "lgamma": [((pos(3, 4),), {}), ((pos(5),), {}), ((it(1, 5, 4),), {})],
        "mvlgamma": [((fl(3, lo=2.0, hi=4.0), 2), {}), ((fl(2, 2, lo=3.0, hi=5.0), 3), {}),
                     ((fl(4, lo=1.0, hi=2.0), 1), {})],
        "median": [((distinct(4, 6),), {}), ((distinct(4, 5), 0), {}), ((distinct(3, 4), 1, True), {})],
        "nanmedian": [((distinct(4, 6),), {}), ((distinct(4, 5), 0), {}), ((distinct(3, 4), 1, True), {})],
        "quantile": [((p(3, 7), 0.3), {}), ((p(3, 7), 0.5, 1), {}), ((p(3, 7), 0.9, 0, True), {})],
        "nanquantile": [((p(3, 7), 0.3), {}), ((p(3, 7), 0.5, 1), {}), ((p(3, 7), 0.9, 0, True), {})],
        "searchsorted": [((sorted_fl(8), p(3, 4)), {}), ((sorted_fl(6), p(5)), {"side": "right"}),
                         ((sorted_fl(2, 6), p(2, 3)), {})],
        "reverse": [((p(3, 4), [0]), {}), ((p(2, 3, 4), (0, 2)), {}), ((p(5), [0]), {})],
        "reverse_sequence": [((p(3, 5), const(np.array([2, 5, 1], np.int64)), 1), {}),
                             ((p(4, 3), const(np.array([1, 4, 2], np.int64)), 0, 1), {}),
                             ((p(2, 3, 2), const(np.array([3, 0], np.int64)), 1), {})],
        "slice_scatter": [((p(3, 5), p(3, 2), 1, 1, 5, 2), {}), ((p(4, 2), p(2, 2)), {"start": 1, "end": 3}),
                          ((p(6), p(3), 0, 0, None, 2), {})],
        "select_scatter": [((p(3, 5), p(3), 1, 2), {}), ((p(3, 5), p(5), 0, -1), {}),
                           ((p(2, 2, 2), p(2, 2), 2, 0), {})],
        "invert": [((it(-5, 5, 3, 4),), {}), ((it(0, 200, 4, dt=np.uint8),), {}),
                   ((G(lambda r: r.random((2, 3)) > 0.5),), {})],
        "mul_": [((p(3, 4), p(3, 4)), {}), ((p(3, 4), 2.0), {}), ((p(2, 3), p(3)), {})],
        "sub_": [((p(3, 4), p(3, 4)), {}), ((p(3, 4), 2.0), {}), ((p(2, 3), p(3)), {"alpha": 0.5})],
        "log_": [((pos(3, 4),), {}), ((pos(5),), {}), ((pos(2, 1),), {})],
        "sigmoid_": [((p(3, 4),), {}), ((p(5),), {}), ((p(2, 1),), {})],
        "sign_": [((p(3, 4),), {}), ((it(-3, 3, 5),), {}), ((p(2, 1),), {})],
        "tanh_": [((p(3, 4),), {}), ((p(5),), {}), ((p(2, 1),), {})],
        "remainder_": [((p(3, 4), nz(3, 4)), {}), ((p(5), 0.7), {}), ((it(-9, 9, 4), 4), {})],
        "masked_fill_": [((p(3, 4), mask, -1.0), {}), ((p(3, 4), mask, 2.5), {}),
                         ((p(2, 4), const(np.array([True, False, False, True])), 0.0), {})],
        "masked_scatter": [((p(3, 4), mask, p(12)), {}), ((p(3, 4), mask, p(7)), {}),
                           ((p(2, 4), const(np.array([True, False, False, True])), p(4)), {})],
        "masked_scatter_": [((p(3, 4), mask, p(12)), {}), ((p(3, 4), mask, p(7)), {}),
                            ((p(2, 4), const(np.array([True, False, False, True])), p(4)), {})],
        "zero_": [((p(3, 4),), {}), ((it(0, 5, 3),), {}), ((p(2, 1),), {})],
        "put_": [((p(2, 3), const(np.array([0, 5], np.int64)), p(2)), {}),
                 ((p(2, 3), const(np.array([0, -1, 0], np.int64)), p(3), True), {}),
                 ((p(4), const(np.array([1], np.int64)), p(1)), {})],
        "lcm": [((it(-9, 9, 3, 4), it(1, 9, 3, 4)), {}), ((it(0, 20, 5), it(1, 7, 5)), {}),
                ((it(1, 30, 2, 2, dt=np.int64), it(1, 30, 2, 2, dt=np.int64)), {})],
        "ldexp": [((p(3, 4), it(-2, 3, 3, 4)), {}), ((p(4), it(0, 3, 4)), {}), ((p(2, 3), 2), {})],
        "type": [((p(3, 4),), {}), ((p(3, 4), ms.int32), {}), ((it(0, 3, 4), ms.float32), {})],
        "stride": [((p(3, 4),), {}), ((p(2, 3, 4), 1), {}), ((p(5),), {"dim": 0})],
        "storage_offset": [((p(3, 4),), {}), ((p(5),), {}), ((it(0, 3, 2),), {})],
        "value": [((p(3, 4),), {}), ((p(5),), {}), ((it(0, 3, 2),), {})],
        "set_const_arg": [((p(3, 4),), {}), ((p(5), False), {}), ((it(0, 3, 2),), {})],
        "to_": [((p(3, 4),), {}), ((p(5), "CPU"), {}), ((it(0, 3, 2),), {})],
        "is_pinned": [((p(3, 4),), {}), ((p(5),), {}), ((it(0, 3, 2),), {})],
        "is_shared": [((p(3, 4),), {}), ((p(5),), {}), ((it(0, 3, 2),), {})],
        "pin_memory": [((p(3, 4),), {}), ((p(5),), {}), ((it(0, 3, 2),), {})],
    }


def _itemset(x, v):
    x.itemset(1, v)
    return x


def _mH(x):
    return x.mH


def api_b_tensor_cases() -> list:
    """`Tensor.<name>` for slice B's Tensor methods (cases_tensor_nn adds them)."""
    out = []
    for name, calls in _tensor_table().items():
        method = getattr(ms.Tensor, name)
        for i, (args, kw) in enumerate(calls):
            out.append(C(f"Tensor.{name}[{i}]", method, *args, kw=kw))
    R = {"seeded": True}
    probs = const(np.array([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3]], np.float32))
    for name, calls in {
        "normal_": [((fl(3, 4),), {}), ((fl(5), 2.0, 0.5), {}), ((fl(2, 2),), {"std": 3.0})],
        "uniform_": [((fl(3, 4),), {}), ((fl(5), -1.0, 1.0), {}), ((fl(2, 2),), {"to": 5})],
        "random_": [((fl(3, 4), 0, 10), {}), ((it(0, 2, 5), 3, 9), {}), ((fl(2, 2),), {"to": 5})],
        "uniform": [((fl(3, 4),), {}), ((fl(5), -1.0, 1.0), {}), ((fl(2, 2),), {"to": 5.0})],
        "log_normal": [((fl(3, 4),), {}), ((fl(5), 0.0, 0.5), {}), ((fl(2, 2),), {"std": 1.0})],
        "random_categorical": [((probs, 4), {}), ((probs, 2, 3), {}), ((probs, 1), {"dtype": ms.int32})],
        "multinomial": [((probs, 4), {}), ((probs, 2, False), {}), ((probs, 3), {"seed": 1})],
    }.items():
        for i, (args, kw) in enumerate(calls):
            out.append(C(f"Tensor.{name}[{i}]", getattr(ms.Tensor, name), *args, kw=kw, **R))
    out += [C(f"Tensor.itemset[{i}]", _itemset, fl(*s), 3.0) for i, s in enumerate(((3, 4), (5,), (2, 2)))]
    out += [C(f"Tensor.mH[{i}]", _mH, fl(*s)) for i, s in enumerate(((3, 4), (2, 3, 4), (1, 2)))]
    return (out + api_b_decomp_tensor_cases() + api_b_spatial_tensor_cases() + api_b_segment_tensor_cases()
            + api_b_device_tensor_cases())


@_functions
def _api_b_inplace_functions() -> list:
    R = {"seeded": True}
    return [C("ops.tanh_[0]", ops.tanh_, fl(3, 4)), C("ops.zero_[0]", ops.zero_, fl(3, 4)),
            C("ops.normal_[0]", ops.normal_, fl(3, 4), 1.0, 2.0, **R), C("ops.uniform_[0]", ops.uniform_, fl(4), **R),
            C("ops.random_[0]", ops.random_, fl(4), 0, 6, **R),
            C("ops.put_[0]", ops.put_, fl(2, 3), const(np.array([0, 5], np.int64)), fl(2)),
            C("ops.lcm[0]", ops.lcm, it(-9, 9, 3, 4), it(1, 9, 3, 4))]


# --- linalg_decompositions / classes_linalg_decomp ---------------------------------------------------------
LU = np.array([[4.0, 3.0, 1.0], [0.5, 2.5, 1.5], [0.25, 0.3, 1.2]], np.float32)  # a packed LU (unit-lower L)
PIV = np.array([2, 2, 3], np.int32)


@_functions
def _api_b_decomp_functions() -> list:
    def recon(x):
        s, u, v = ops.svd(x)
        return ops.matmul(ops.mul(u, ops.expand_dims(s, -2)), ops.swapaxes(v, -1, -2))

    def qr_recon(x):
        q, r = ops.qr(x)
        return ops.matmul(q, r)

    return [C("ops.svd[reconstruct]", recon, fl(4, 3)), C("ops.svd[values]", ops.svd, fl(3, 3), False, False),
            C("ops.qr[reconstruct]", qr_recon, fl(4, 3)), C("ops.pinv[0]", ops.pinv, fl(4, 3)),
            C("ops.lstsq[0]", ops.lstsq, fl(5, 3), fl(5, 2)), C("ops.matrix_exp[0]", ops.matrix_exp, fl(3, 3)),
            C("ops.lu_unpack[0]", ops.lu_unpack, const(LU), const(PIV)),
            C("ops.lu_solve[0]", ops.lu_solve, fl(3, 2), const(LU), const(PIV)),
            C("ops.matrix_diag[0]", ops.matrix_diag, fl(2, 3)), C("ops.matrix_diag[k]", ops.matrix_diag, fl(3), 1),
            C("ops.matrix_diag_part[0]", ops.matrix_diag_part, fl(2, 4, 5), 1, 0),
            C("ops.matrix_set_diag[0]", ops.matrix_set_diag, fl(2, 4, 5), fl(2, 4), 1),
            C("ops.pdist[0]", ops.pdist, fl(5, 3)), C("ops.pdist[p1]", ops.pdist, fl(2, 4, 3), 1.0)]


@_classes
def _api_b_decomp_classes() -> list:
    return [K("Svd[values]", ops.Svd(compute_uv=False), fl(4, 3)), K("Qr[r]", lambda x: ops.Qr()(x)[1], fl(3, 3)),
            K("Lstsq[0]", ops.Lstsq(l2_regularizer=0.1), fl(5, 3), fl(5, 2)),
            K("MatrixExp[0]", ops.MatrixExp(), fl(3, 3)),
            K("MatrixTriangularSolve[0]", ops.MatrixTriangularSolve(), sq(3), fl(3, 2)),
            K("LuSolve[0]", ops.LuSolve(), fl(3, 2), const(LU), const(PIV)),
            K("LuUnpack[0]", ops.LuUnpack(), const(LU), const(PIV)), K("NuclearNorm[0]", ops.NuclearNorm(), fl(3, 4)),
            K("Pdist[0]", ops.Pdist(), fl(4, 3))]


def api_b_decomp_tensor_cases() -> list:
    out = []
    for name, calls in {
        "svd": [((fl(4, 3), False, False), {}), ((fl(3, 3),), {"compute_uv": False}),
                ((fl(2, 4, 3), False, False), {})],
        "qr": [((fl(4, 3),), {}), ((fl(3, 3), False), {}), ((fl(2, 4, 3),), {})],
        "lstsq": [((fl(5, 3), fl(5, 2)), {}), ((fl(4, 4), fl(4, 1)), {}), ((fl(6, 2), fl(6, 3)), {})],
        "lu_solve": [((fl(3, 2), const(LU), const(PIV)), {}), ((fl(3, 1), const(LU), const(PIV)), {}),
                     ((fl(3, 3), const(LU), const(PIV)), {})],
        "triangular_solve": [((fl(3, 2), sq(3)), {}), ((fl(3, 2), sq(3), False), {}),
                             ((fl(3, 1), sq(3)), {"transpose": True, "unitriangular": True})],
    }.items():
        for i, (args, kw) in enumerate(calls):
            out.append(C(f"Tensor.{name}[{i}]", getattr(ms.Tensor, name), *args, kw=kw))
    return out


# --- spatial_unique_ops / classes_spatial_unique ----------------------------------------------------------
RUNS = const(np.array([1, 1, 2, 2, 3, 1, 1, 2], np.int32))


@_functions
def _api_b_spatial_functions() -> list:
    pads = const(np.array([[1, 2], [2, 1]], np.int64))
    return [C("ops.mirror_pad[reflect]", ops.mirror_pad, fl(3, 4), pads, "REFLECT"),
            C("ops.mirror_pad[symmetric]", ops.mirror_pad, fl(2, 3, 4), [[0, 0], [1, 1], [2, 0]], "SYMMETRIC"),
            C("ops.space_to_batch_nd[0]", ops.space_to_batch_nd, fl(1, 3, 4, 6), [2, 3], [[0, 0], [0, 0]]),
            C("ops.space_to_batch_nd[pad]", ops.space_to_batch_nd, fl(1, 2, 3, 3), 2, [[1, 0], [0, 1]]),
            C("ops.lrn[0]", ops.lrn, fl(1, 7, 3, 3)), C("ops.lrn[r2]", ops.lrn, fl(1, 4, 2, 2), 2, 1.5, 0.3, 0.75),
            C("ops.padding[0]", ops.padding, fl(3, 1)), C("ops.padding[4]", ops.padding, fl(2, 2, 1), 4),
            C("ops.unique_consecutive[0]", ops.unique_consecutive, RUNS, True, True),
            C("ops.unique_with_pad[0]", ops.unique_with_pad, RUNS, -1),
            C("ops.nextafter[0]", ops.nextafter, fl(3, 4), fl(3, 4)),
            C("ops.population_count[0]", ops.population_count, it(-100, 100, 3, 4, dt=np.int16))]


@_classes
def _api_b_spatial_classes() -> list:
    return [K("MirrorPad[0]", ops.MirrorPad(), fl(3, 4), const(np.array([[1, 1], [2, 2]], np.int64))),
            K("SpaceToDepth[0]", ops.SpaceToDepth(2), fl(2, 3, 4, 4)),
            K("SpaceToBatchND[0]", ops.SpaceToBatchND([2, 2], [[0, 0], [0, 0]]), fl(1, 2, 4, 4)),
            K("SpaceToBatch[0]", ops.SpaceToBatch(2, [[1, 1], [0, 0]]), fl(1, 2, 2, 4)),
            K("LRN[0]", ops.LRN(2), fl(1, 5, 2, 2)), K("Padding[0]", ops.Padding(3), fl(2, 1)),
            K("UniqueConsecutive[0]", ops.UniqueConsecutive(True, True), RUNS),
            K("UniqueWithPad[0]", ops.UniqueWithPad(), RUNS, -1),
            K("UnravelIndex[0]", ops.UnravelIndex(), const(np.array([5, 7], np.int32)),
              const(np.array([3, 4], np.int32))),
            K("NextAfter[0]", ops.NextAfter(), fl(3), fl(3)),
            K("PopulationCount[0]", ops.PopulationCount(), it(0, 200, 4, dt=np.int16)),
            K("LeftShift[0]", ops.LeftShift(), it(0, 8, 4), it(0, 3, 4)),
            K("RightShift[0]", ops.RightShift(), it(0, 64, 4), it(0, 3, 4)),
            K("Lcm[0]", ops.Lcm(), it(1, 9, 4), it(1, 9, 4)),
            K("LerpScalar[0]", ops.LerpScalar(), fl(3, 4), fl(3, 4), 0.3),
            K("Logit[0]", ops.Logit(0.05), fl(3, 4, lo=0.0, hi=1.0)),
            K("TripletMarginLoss[0]", ops.TripletMarginLoss(), fl(4, 3), fl(4, 3), fl(4, 3), 1.0),
            K("MultiMarginLoss[0]", ops.MultiMarginLoss(), fl(4, 5), const(np.array([1, 0, 4, 2], np.int32))),
            K("MultilabelMarginLoss[0]", ops.MultilabelMarginLoss(), fl(2, 4),
              const(np.array([[3, 0, -1, 1], [1, 2, 3, -1]], np.int32))),
            K("SigmoidCrossEntropyWithLogits[0]", ops.SigmoidCrossEntropyWithLogits(), fl(3, 4),
              const((np.arange(12).reshape(3, 4) % 2).astype(np.float32))),
            K("RmsNorm[0]", ops.RmsNorm(), fl(3, 4), fl(4))]


def api_b_spatial_tensor_cases() -> list:
    out = []
    for name, calls in {
        "unique_consecutive": [((RUNS,), {}), ((RUNS, True, True), {}), ((const(np.array([[1, 2], [1, 2], [3, 4]])),),
                                                                         {"dim": 0})],
        "unique_with_pad": [((RUNS, -1), {}), ((RUNS, 0), {}), ((const(np.array([4, 4, 4], np.int32)), 9), {})],
        "nextafter": [((fl(3, 4), fl(3, 4)), {}), ((fl(5), fl(1)), {}), ((fl(2, 2), fl(2, 2, dt=np.float32)), {})],
    }.items():
        for i, (args, kw) in enumerate(calls):
            out.append(C(f"Tensor.{name}[{i}]", getattr(ms.Tensor, name), *args, kw=kw))
    return out


# --- segment_select_extra ------------------------------------------------------------------------------------
SORTED_IDS = const(np.array([0, 0, 1, 3, 3, 3], np.int32))


@_functions
def _api_b_segment_functions() -> list:
    return [C("ops.sparse_segment_mean[0]", ops.sparse_segment_mean, fl(6, 2), const(np.array([0, 3, 5, 5], np.int32)),
              const(np.array([0, 0, 2, 2], np.int32))),
            C("ops.renorm[0]", ops.renorm, fl(3, 4), 2, 0, 1.0),
            C("ops.renorm[p1]", ops.renorm, fl(2, 3, 2), 1, 1, 0.5),
            C("ops.multinomial_with_replacement[0]", ops.multinomial_with_replacement,
              const(np.array([[0.2, 0.8], [0.5, 0.5]], np.float32)), 3, 1, 4, True)]


@_classes
def _api_b_segment_classes() -> list:
    R = {"seeded": True}
    out = [K(f"{n}[0]", getattr(ops, n)(), fl(6, 2), SORTED_IDS) for n in
           ("SegmentSum", "SegmentProd", "SegmentMean", "SegmentMax", "SegmentMin")]
    out += [K("Renorm[0]", ops.Renorm(2, 0, 1.0), fl(3, 4)), K("NthElement[0]", ops.NthElement(), distinct(3, 5), 2),
            K("MaskedScatter[0]", ops.MaskedScatter(), fl(4), const(np.array([True, False, True, True])), fl(3)),
            K("ScatterAddWithAxis[0]", ops.ScatterAddWithAxis(1), fl(3, 3),
              const(np.array([[0, 1, 2], [2, 0, 0]], np.int64)), fl(2, 3)),
            K("ScatterNonAliasingAdd[0]", ops.ScatterNonAliasingAdd(), fl(4), const(np.array([[1], [3]], np.int32)),
              fl(2)),
            K("TruncatedNormal[0]", ops.TruncatedNormal(), (3, 4), **R),
            K("MatrixSolveLs[0]", ops.MatrixSolveLs(), fl(5, 3), fl(5, 2), 0.1),
            K("MultinomialWithReplacement[0]", ops.MultinomialWithReplacement(3, True),
              const(np.array([[0.2, 0.8]], np.float32)), 2, 1),
            K("LogNormalReverse[0]", ops.LogNormalReverse(), fl(3, 4), **R),
            K("ListDiff[0]", ops.ListDiff(), const(np.array([1, 2, 3, 4], np.int32)), const(np.array([2], np.int32))),
            K("Print[0]", lambda x: (ops.Print()("value:", x), ops.mul(x, 2))[1], fl(3))]
    return out


def api_b_segment_tensor_cases() -> list:
    out = []
    for name, calls in {
        "kthvalue": [((distinct(3, 5), 2), {}), ((distinct(4, 3), 1, 0), {}), ((distinct(2, 4), 4, -1, True), {})],
        "renorm": [((fl(3, 4), 2, 0, 1.0), {}), ((fl(2, 3), 1, 1, 0.5), {}), ((fl(4, 2), 3, 0, 2.0), {})],
        "where": [((fl(3, 4), const(np.arange(12).reshape(3, 4) % 2 == 0), fl(3, 4)), {}),
                  ((fl(4), const(np.array([True, False, False, True])), 0.0), {}),
                  ((fl(2, 3), const(np.array([True, False, True])), fl(3)), {})],
        "new_empty": [((fl(3), (2, 3)), {}), ((fl(2), 4), {}), ((it(0, 3, 2), (1, 2)), {"dtype": ms.float32})],
        "requires_grad_": [((fl(3),), {}), ((fl(2, 2), False), {}), ((it(0, 3, 2),), {})],
    }.items():
        for i, (args, kw) in enumerate(calls):
            out.append(C(f"Tensor.{name}[{i}]", getattr(ms.Tensor, name), *args, kw=kw))
    return out


# --- device_io_helpers -----------------------------------------------------------------------------------
def _dump_then_double(x):
    ops.tensordump(os.path.join(tempfile.gettempdir(), "spore_api_b_dump"), x)
    return ops.mul(x, 2)


def _dump_only(x):
    ops.tensordump(os.path.join(tempfile.gettempdir(), "spore_api_b_dump3"), x)
    return x


def _dump_class_only(x):
    ops.TensorDump()(os.path.join(tempfile.gettempdir(), "spore_api_b_dump4"), x)
    return x


def _dump_class(x):
    ops.TensorDump()(os.path.join(tempfile.gettempdir(), "spore_api_b_dump2"), x)
    return ops.mul(x, 2)


@_functions
def _api_b_device_functions() -> list:
    return [C("ops.move_to[0]", ops.move_to, fl(3, 4)), C("ops.move_to[cpu]", ops.move_to, fl(2), "CPU"),
            C("ops.real[0]", ops.real, fl(3, 4)), C("ops.tensordump[alone]", _dump_only, fl(3)),
            C("ops.tensordump[0]", _dump_then_double, fl(3))]


@_classes
def _api_b_device_classes() -> list:
    return [K("MoveTo[0]", ops.MoveTo(), fl(3, 4)), K("Real[0]", ops.Real(), fl(3)),
            K("TensorDump[alone]", _dump_class_only, fl(3)), K("TensorDump[0]", _dump_class, fl(3))]


def api_b_device_tensor_cases() -> list:
    def dl(x):
        return np.from_dlpack(_Cap(x.to_dlpack()))

    out = []
    for name, fn, calls in (("move_to", ms.Tensor.move_to, [(fl(3, 4), "CPU"), (fl(2), "cpu"), (it(0, 3, 2), "CPU")]),
                            ("real", ms.Tensor.real, [(fl(3, 4),), (fl(2),), (it(0, 3, 2),)])):
        out += [C(f"Tensor.{name}[{i}]", fn, *args) for i, args in enumerate(calls)]
    out += [C(f"Tensor.to_dlpack[{i}]", lambda x: ms.Tensor(dl(x)), g)
            for i, g in enumerate((fl(3, 4), fl(2), it(0, 3, 2)))]
    return out


class _Cap:
    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)
