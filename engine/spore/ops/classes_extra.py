"""Class forms of the issue-14 ops of special_functions, activation_loss_extra, linalg_extra and
tensor_misc_ops (and of a few older functional ops MindSpore also has as classes): configured once
with MindSpore's constructor arguments, then called with tensors, forwarding to the functional ops.

The plain forwards are rows of `_TABLE` (see `operation.Op`); the classes below it have logic of
their own (attribute translation, tuples of operands).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..tensor import Tensor
from . import activation_loss_extra as AL
from . import functional as F
from . import linalg_extra as LA
from . import special_functions as SF
from . import tensor_misc_ops as TM
from .operation import Op, Operation, op_classes

_XY = "x1: Tensor, x2: Tensor"

_TABLE = {
    "Addcdiv": Op(F.addcdiv, "input_data: Tensor, x1: Tensor, x2: Tensor, value: Any",
                  "input_data + value * x1 / x2 element-wise."),
    "Addcmul": Op(F.addcmul, "input_data: Tensor, x1: Tensor, x2: Tensor, value: Any",
                  "input_data + value * x1 * x2 element-wise."),
    "Hypot": Op(F.hypot, _XY, "sqrt(x1^2 + x2^2) element-wise."),
    "Heaviside": Op(F.heaviside, "x: Tensor, values: Any", "0 below 0, 1 above, `values` at 0."),
    "Ger": Op(F.ger, _XY, "the outer product of two 1-D tensors."),
    "Cdist": Op(F.cdist, "input_x: Tensor, input_y: Tensor", "p-norm distances between the rows of two batches.",
                "p: float = 2.0"),
    "Diag": Op(F.diag, "input_x: Tensor", "a diagonal matrix of a 1-D tensor (or the diagonal of a 2-D one)."),
    "ApproximateEqual": Op(TM.approximate_equal, "x: Any, y: Any", "|x - y| < tolerance element-wise.",
                           "tolerance: float = 1e-05"),
    "CeLU": Op(AL.celu, "input_x: Tensor", "max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).", "alpha: float = 1.0"),
    "GLU": Op(AL.glu, "x: Tensor", "the first half of x along `axis` times the sigmoid of the second.",
              "axis: int = -1"),
    "HShrink": Op(AL.hardshrink, "input_x: Tensor", "x where |x| > lambd, 0 elsewhere.", "lambd: float = 0.5"),
    "FastGeLU": Op(AL.fast_gelu, "x: Tensor", "x * sigmoid(1.702 x)."),
    "FastGelu": Op(AL.fast_gelu, "x: Tensor", "x * sigmoid(1.702 x) (the older name of FastGeLU)."),
    "Cholesky": Op(LA.cholesky, "input_x: Tensor", "the Cholesky factor (lower unless `upper`).",
                   "upper: bool = False"),
    "CholeskyInverse": Op(LA.cholesky_inverse, "x: Tensor", "A^-1 from A's Cholesky factor.", "upper: bool = False"),
    "CholeskySolve": Op(LA.cholesky_solve, _XY, "x with A x = x1, x2 being A's Cholesky factor.",
                        "upper: bool = False"),
    "Inv": Op(LA.inv, "x: Tensor", "1 / x element-wise."),
    "Fills": Op(TM.fills, "x: Tensor, value: Any", "a tensor of x's shape filled with `value`."),
    "Expand": Op(TM.expand, "x: Tensor, shape: Any", "x broadcast to `shape`."),
    "IndexFill": Op(TM.index_fill, "x: Tensor, dim: int, index: Tensor, value: Any",
                    "x with the slices at `index` along `dim` set to `value`."),
    "Betainc": Op(lambda a, b, x: SF.Betainc(a, b, x), "a: Tensor, b: Tensor, x: Tensor",
                  "the regularized incomplete beta function I_x(a, b)."),
}
globals().update(op_classes(_TABLE, __name__))


class Cross(Operation):
    """``Cross(dim=-65530)(x1, x2)``: the cross product along `dim` (-65530: the first axis of size 3)."""

    def __init__(self, dim: int = -65530) -> None:
        self.dim = dim

    def construct(self, x1: Tensor, x2: Tensor) -> Tensor:
        return LA.cross(x1, x2, None if self.dim == -65530 else self.dim)


class Einsum(Operation):
    """``Einsum(equation)(operands)``: Einstein summation of a tuple of tensors."""

    def __init__(self, equation: str) -> None:
        if not isinstance(equation, str):
            raise TypeError(f"Einsum: equation must be a str, got {type(equation).__name__}")
        self.equation = equation

    def construct(self, operands: Sequence[Tensor]) -> Tensor:
        return LA.einsum(self.equation, *operands)


class IndexAdd(Operation):
    """``IndexAdd(axis, use_lock=True, check_index_bound=True)(input_x, indices, input_y)``."""

    def __init__(self, axis: int, use_lock: bool = True, check_index_bound: bool = True) -> None:
        self.axis, self.use_lock, self.check_index_bound = axis, use_lock, check_index_bound

    def construct(self, input_x: Tensor, indices: Tensor, input_y: Tensor) -> Tensor:
        return TM.index_add(input_x, indices, input_y, self.axis)


def _window_class(name: str, fn: Any, doc: str) -> type[Operation]:
    def __init__(self, periodic: bool = True, dtype: Any = mstype.float32) -> None:
        self.periodic, self.dtype = periodic, dtype

    def construct(self, window_length: Tensor) -> Tensor:
        return fn(window_length, self.periodic, dtype=self.dtype)

    return type(name, (Operation,), {"__init__": __init__, "construct": construct, "__doc__": doc,
                                     "__module__": __name__, "__qualname__": name})


BartlettWindow = _window_class("BartlettWindow", TM.bartlett_window,
                               "``BartlettWindow(periodic=True, dtype=float32)(window_length)``: a Bartlett window.")
BlackmanWindow = _window_class("BlackmanWindow", TM.blackman_window,
                               "``BlackmanWindow(periodic=True, dtype=float32)(window_length)``: a Blackman window.")


class HammingWindow(Operation):
    """``HammingWindow(periodic=True, alpha=0.54, beta=0.46, dtype=float32)(length)``: a Hamming window."""

    def __init__(self, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46,
                 dtype: Any = mstype.float32) -> None:
        self.periodic, self.alpha, self.beta, self.dtype = periodic, alpha, beta, dtype

    def construct(self, length: Tensor) -> Tensor:
        return TM.hamming_window(length, self.periodic, self.alpha, self.beta, dtype=self.dtype)


__all__ = sorted([*_TABLE, "Cross", "Einsum", "IndexAdd", "BartlettWindow", "BlackmanWindow", "HammingWindow"])


# --- more class forms (second batch) -----------------------------------------------------------------
from . import index_update_ops as IU  # noqa: E402
from . import random_sampling as RS  # noqa: E402
from .state import assign, assign_add, assign_sub  # noqa: E402


def _div_no_nan(x1: Tensor, x2: Tensor) -> Tensor:
    x1, x2 = F.broadcast_to(x1, _bshape(x1, x2)), F.broadcast_to(x2, _bshape(x1, x2))
    zero = F.equal(x2, 0)
    return F.where(zero, F.zeros_like(F.div(x1, F.where(zero, 1, x2))), F.div(x1, F.where(zero, 1, x2)))


def _bshape(a: Any, b: Any) -> tuple[int, ...]:
    from ._rules import broadcast_shapes

    return broadcast_shapes("DivNoNan", getattr(a, "shape", ()), getattr(b, "shape", ()))


def _diag_part(x: Tensor) -> Tensor:
    if x.ndim != 2 or x.shape[0] != x.shape[1]:
        from ..errors import ShapeError

        raise ShapeError("DiagPart", "a square 2-D tensor", f"shape {tuple(x.shape)}")
    return LA.diagonal(x)


def _euclidean_norm(x: Tensor, axes: Any, keep_dims: bool) -> Tensor:
    return F.sqrt(F.reduce_sum(F.square(x), axes, keep_dims))


def _equal_count(x: Tensor, y: Tensor) -> Tensor:
    dt = mstype.int32 if x.dtype is mstype.bool_ else x.dtype
    return F.reshape(F.reduce_sum(F.cast(F.equal(x, y), dt)), (1,))


_TABLE2 = {
    "Assign": Op(assign, "variable: Tensor, value: Any", "writes `value` into `variable` in place."),
    "AssignAdd": Op(assign_add, "variable: Tensor, value: Any", "variable += value, in place."),
    "AssignSub": Op(assign_sub, "variable: Tensor, value: Any", "variable -= value, in place."),
    "DivNoNan": Op(_div_no_nan, _XY, "x1 / x2, and 0 where x2 is 0."),
    "DiagPart": Op(_diag_part, "input_x: Tensor", "the main diagonal of a square matrix."),
    "EuclideanNorm": Op(_euclidean_norm, "x: Tensor, axes: Any", "sqrt(sum(x^2)) over `axes`.",
                        "keep_dims: bool = False"),
    "EqualCount": Op(_equal_count, "x: Tensor, y: Tensor", "how many elements are equal, as a (1,) tensor."),
    "Gelu": Op(lambda x: F.gelu(x, approximate="tanh"), "x: Tensor", "GELU with the tanh approximation."),
    "Dense": Op(F.dense, "x: Tensor, w: Tensor, b: Any = None", "x @ w^T + b."),
    "InTopK": Op(IU.intopk, "x1: Tensor, x2: Tensor", "whether each target is among the k largest.", "k: int"),
    "CheckValid": Op(IU.check_valid, "bboxes: Tensor, img_metas: Tensor", "which boxes lie inside the image."),
    "ChannelShuffle": Op(IU.channel_shuffle, "x: Tensor", "shuffles the channels in `group` groups.", "group: int"),
    "InplaceAdd": Op(lambda x, v, indices: IU.inplace_add(x, v, indices), "x: Tensor, input_v: Tensor",
                     "adds rows of input_v to rows `indices` of x, in place.", "indices: Any"),
    "InplaceSub": Op(lambda x, v, indices: IU.inplace_sub(x, v, indices), "x: Tensor, input_v: Tensor",
                     "subtracts rows of input_v from rows `indices` of x, in place.", "indices: Any"),
    "InplaceUpdate": Op(lambda x, v, indices: IU.inplace_update(x, v, indices), "x: Tensor, v: Tensor",
                        "sets rows `indices` of x to the rows of v, in place.", "indices: Any"),
    "InplaceIndexAdd": Op(IU.inplace_index_add, "var: Tensor, indices: Tensor, updates: Tensor",
                          "adds slices of updates at `indices` along `axis`, in place.", "axis: int"),
    "Conj": Op(IU.conj, "input: Tensor", "the complex conjugate (a real tensor itself)."),
    "Bucketize": Op(lambda input, boundaries: TM.bucketize(input, boundaries), "input: Tensor",
                    "the bucket index of each element among `boundaries`.", "boundaries: Any"),
}
globals().update(op_classes(_TABLE2, __name__))


class CumProd(Operation):
    """``CumProd(exclusive=False, reverse=False)(x, axis)``: cumulative product along `axis`."""

    def __init__(self, exclusive: bool = False, reverse: bool = False) -> None:
        self.exclusive, self.reverse = exclusive, reverse

    def construct(self, x: Tensor, axis: int) -> Tensor:
        ax = int(axis) % max(x.ndim, 1)
        y = F.flip(x, (ax,)) if self.reverse else x
        if self.exclusive:
            y = F.concat([F.ones_like(F.narrow(y, ax, 0, 1)), F.narrow(y, ax, 0, y.shape[ax] - 1)], ax)
        out = F.cumprod(y, ax)
        return F.flip(out, (ax,)) if self.reverse else out


class CountNonZero(Operation):
    """``CountNonZero(dims=None)(x)``: how many elements are not zero over `dims` (all when None), int64."""

    def __init__(self, dims: Any = None) -> None:
        self.dims = dims

    def construct(self, x: Tensor) -> Tensor:
        return F.count_nonzero(x, () if self.dims is None else self.dims, False, mstype.int64)


class Bernoulli(Operation):
    """``Bernoulli(seed=-1, offset=0)(x, p)``: 0/1 samples in x's shape, 1 with probability p."""

    def __init__(self, seed: int = -1, offset: int = 0) -> None:
        self.seed, self.offset = seed, offset

    def construct(self, x: Tensor, p: Any) -> Tensor:
        return RS.bernoulli(x, p, None if self.seed == -1 else self.seed + self.offset)


class _ChannelDropout(Operation):
    _op = "Dropout2D"
    _fn: Any = None

    def __init__(self, keep_prob: float = 0.5) -> None:
        if not 0.0 <= keep_prob <= 1.0:
            raise ValueError(f"{self._op}: keep_prob must be in [0, 1], got {keep_prob}")
        self.keep_prob = keep_prob

    def construct(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """(output, mask): the kept channels scaled by 1/keep_prob, and which elements were kept."""
        out = type(self)._fn(x, 1.0 - self.keep_prob, True)
        if self.keep_prob == 1.0:
            return out, F.ones(tuple(x.shape), mstype.bool_)
        return out, F.not_equal(out, 0) if self.keep_prob > 0 else F.zeros(tuple(x.shape), mstype.bool_)


class Dropout2D(_ChannelDropout):
    """``Dropout2D(keep_prob=0.5)(x)`` -> (output, mask): zeroes whole channels of an (N, C, H, W) input."""

    _op = "Dropout2D"
    _fn = staticmethod(AL.dropout2d)


class Dropout3D(_ChannelDropout):
    """``Dropout3D(keep_prob=0.5)(x)`` -> (output, mask): zeroes whole channels of an (N, C, D, H, W) input."""

    _op = "Dropout3D"
    _fn = staticmethod(AL.dropout3d)


class GradOperation(Operation):
    """``GradOperation(get_all=False, get_by_list=False, sens_param=False)(fn, weights=None)``: the
    older gradient API. The returned function gives the gradient for the first input (all inputs
    with `get_all`), for `weights` with `get_by_list` (both: a pair), taking the output's
    sensitivity as its last argument with `sens_param`."""

    def __init__(self, get_all: bool = False, get_by_list: bool = False, sens_param: bool = False) -> None:
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param

    def construct(self, fn: Any, weights: Any = None) -> Any:
        from ..autodiff import api as _ad

        if self.get_by_list and weights is None:
            raise ValueError("GradOperation: get_by_list=True needs the weights, as GradOperation(...)(fn, weights)")
        w = weights if self.get_by_list else None

        def grad_fn(*args: Any) -> Any:
            n = len(args) - (1 if self.sens_param else 0)
            if self.get_all:
                pos: Any = tuple(range(n))
            elif self.get_by_list:
                pos = None
            else:
                pos = 0
            g = _ad.grad(fn, pos, w, sens_param=self.sens_param)(*args)
            if self.get_all and not self.get_by_list and not isinstance(g, tuple):
                g = (g,)
            return g

        return grad_fn


__all__ = sorted([*__all__, *_TABLE2, "CumProd", "CountNonZero", "Bernoulli", "Dropout2D", "Dropout3D",
                  "GradOperation"])


# --- third batch -------------------------------------------------------------------------------------
from . import array_layout_ops as AO  # noqa: E402
from .math_extra import cummax, cummin  # noqa: E402


def _data_format(src: str, dst: str) -> list[int]:
    if sorted(src) != sorted(dst) or len(set(src)) != len(src):
        raise ValueError(f"data format: {dst!r} must be a permutation of {src!r}")
    return [src.index(c) for c in dst]


_TABLE3 = {
    "DepthToSpace": Op(AO._depth_to_space, "x: Tensor", "moves depth blocks into the spatial axes (NCHW).",
                       "block_size: int"),
    "BatchToSpaceND": Op(AO.batch_to_space_nd, "input_x: Tensor", "moves batch blocks into the spatial axes.",
                         "block_shape: Any, crops: Any"),
    "BatchToSpace": Op(AO.batch_to_space_nd, "x: Tensor", "moves batch blocks into H and W (NCHW).",
                       "block_size: Any, crops: Any"),
    "FillDiagonal": Op(AO._fill_diagonal, "input_x: Tensor", "a copy with the main diagonal set to `fill_value`.",
                       "fill_value: float, wrap: bool = False"),
    "Geqrf": Op(AO.geqrf, "x: Tensor -> tuple[Tensor, Tensor]", "Householder QR in LAPACK's compact form."),
    "HistogramFixedWidth": Op(AO._histogram_fixed_width, "x: Tensor, range: Tensor",
                              "counts in nbins equal bins over range (outside values in the end bins).",
                              "nbins: int, dtype: Any = 'int32'"),
    "EmbeddingLookup": Op(AO._embedding_lookup, "input_params: Tensor, input_indices: Tensor, offset: int",
                          "rows indices - offset of the table (zeros outside it)."),
    "CheckNumerics": Op(AO._check_numerics, "x: Tensor", "x itself; raises when it has NaN or Inf."),
    "ConjugateTranspose": Op(F.transpose, "x: Tensor, perm: Any", "the conjugate transpose (a real x: transpose)."),
    "Cummax": Op(cummax, "input: Tensor -> tuple[Tensor, Tensor]", "(running max, its index) along `axis`.",
                 "axis: int"),
    "Cummin": Op(cummin, "input: Tensor -> tuple[Tensor, Tensor]", "(running min, its index) along `axis`.",
                 "axis: int"),
    "IdentityN": Op(lambda x: type(x)(x) if isinstance(x, (list, tuple)) else x, "x: Any -> Any",
                    "the same tensors, as a new list/tuple."),
    "Eps": Op(TM.eps, "x: Tensor", "x's shape filled with its dtype's machine epsilon."),
    "Depend": Op(lambda value, expr: value, "value: Any, expr: Any -> Any",
                 "`value`, once `expr` is computed (Spore runs in program order)."),
}
globals().update(op_classes(_TABLE3, __name__))


class ConfusionMatrix(Operation):
    """``ConfusionMatrix(num_classes, dtype='int32')(labels, predictions, weights=None)``."""

    def __init__(self, num_classes: int, dtype: Any = "int32") -> None:
        self.num_classes, self.dtype = num_classes, dtype

    def construct(self, labels: Tensor, predictions: Tensor, weights: Any = None) -> Tensor:
        return AO._confusion_matrix(labels, predictions, weights, self.num_classes, self.dtype)


class IndexPut(Operation):
    """``IndexPut(accumulate=0)(x1, x2, indices)``: x1 with x2 put (or added, accumulate=1) at `indices`."""

    def __init__(self, accumulate: int = 0) -> None:
        self.accumulate = accumulate

    def construct(self, x1: Tensor, x2: Tensor, indices: Sequence[Tensor]) -> Tensor:
        return IU._index_put(x1, indices, x2, bool(self.accumulate))


class CumulativeLogsumexp(Operation):
    """``CumulativeLogsumexp(exclusive=False, reverse=False)(x, axis)``: running log(sum(exp(x)))."""

    def __init__(self, exclusive: bool = False, reverse: bool = False) -> None:
        self.exclusive, self.reverse = exclusive, reverse

    def construct(self, x: Tensor, axis: int) -> Tensor:
        ax = int(axis) % max(x.ndim, 1)
        y = F.flip(x, (ax,)) if self.reverse else x
        if self.exclusive:
            y = F.concat([F.full_like(F.narrow(y, ax, 0, 1), float("-inf")), F.narrow(y, ax, 0, y.shape[ax] - 1)], ax)
        out = F.logcumsumexp(y, ax)
        return F.flip(out, (ax,)) if self.reverse else out


class Cauchy(Operation):
    """``Cauchy(size, median=0.0, sigma=1.0)()``: a float32 tensor of shape `size` of Cauchy samples."""

    def __init__(self, size: Sequence[int], median: float = 0.0, sigma: float = 1.0) -> None:
        self.size, self.median, self.sigma = tuple(size), median, sigma

    def construct(self) -> Tensor:
        out = F.zeros(self.size, mstype.float32)
        return RS._cauchy(out, self.median, self.sigma)  # Tensor.cauchy, called by name (the op catalogue follows it)


class Bincount(Operation):
    """``Bincount()(array, size, weights)``: counts (summed weights) of each value in [0, size)."""

    def construct(self, array: Tensor, size: Any, weights: Tensor) -> Tensor:
        n = int(size.asnumpy()) if isinstance(size, Tensor) else int(size)
        v = array.asnumpy().reshape(-1)
        keep = (v >= 0) & (v < n)
        w = weights.asnumpy().reshape(-1)
        return Tensor(np.bincount(v[keep], w[keep], minlength=n).astype(weights.dtype.np))


class Histogram(Operation):
    """``Histogram(bins=100, min=0.0, max=0.0)(x)``: `ops.histc` as a class."""

    def __init__(self, bins: int = 100, min: float = 0.0, max: float = 0.0) -> None:
        self.bins, self.min, self.max = bins, min, max

    def construct(self, x: Tensor) -> Tensor:
        return TM.histc(x, self.bins, self.min, self.max)


class DataFormatDimMap(Operation):
    """``DataFormatDimMap(src_format='NHWC', dst_format='NCHW')(input_x)``: each axis index (in
    [-4, 4)) mapped through the layout permutation, as MindSpore's example has it (NHWC -> NCHW
    maps [0, 1, 2, 3] to [0, 3, 1, 2])."""

    def __init__(self, src_format: str = "NHWC", dst_format: str = "NCHW") -> None:
        self.src_format, self.dst_format = src_format, dst_format
        self._table = np.array(_data_format(src_format, dst_format), np.int64)

    def construct(self, input_x: Tensor) -> Tensor:
        n = len(self._table)
        idx = F.remainder(F.cast(input_x, mstype.int64), n)
        return F.cast(F.gather(Tensor(self._table), idx, 0), input_x.dtype)


class DataFormatVecPermute(Operation):
    """``DataFormatVecPermute(src_format='NHWC', dst_format='NCHW')(input_x)``: a shape vector (4,) or
    (4, 2) reordered from the source layout to the destination one."""

    def __init__(self, src_format: str = "NHWC", dst_format: str = "NCHW") -> None:
        self.src_format, self.dst_format = src_format, dst_format
        self._perm = _data_format(src_format, dst_format)

    def construct(self, input_x: Tensor) -> Tensor:
        if input_x.shape[0] != len(self._perm):
            from ..errors import ShapeError

            raise ShapeError("DataFormatVecPermute", f"an input of {len(self._perm)} rows", f"{tuple(input_x.shape)}")
        return F.gather(input_x, Tensor(np.array(self._perm, np.int64)), 0)


__all__ = sorted([*__all__, *_TABLE3, "ConfusionMatrix", "IndexPut", "CumulativeLogsumexp", "Cauchy", "Bincount",
                  "Histogram", "DataFormatDimMap", "DataFormatVecPermute"])


class AffineGrid(Operation):
    """``AffineGrid(align_corners=False)(theta, output_size)``: `ops.affine_grid` as a class."""

    def __init__(self, align_corners: bool = False) -> None:
        self.align_corners = align_corners

    def construct(self, theta: Tensor, output_size: Sequence[int]) -> Tensor:
        from .grid_choose_ops import affine_grid

        return affine_grid(theta, output_size, self.align_corners)


__all__ = sorted([*__all__, "AffineGrid"])  # (Eps is a row of _TABLE3)
