"""Small MindSpore nn Cells that wrap one computation (issue 14): channel dropout, instance norm,
triangle/roll/range/one-hot/pad utilities, moments and norms, matrix diagonals, image gradients and
PSNR, the special-function cells, L1 regularisation, Linear/BiDense and Dice/margin losses.

Each follows MindSpore 2.10's constructor signature and defaults and computes with registered ops,
so it is differentiable and compiles in Graph mode. Noted differences: InstanceNorm keeps
MindSpore's `moving_mean`/`moving_variance` parameters (so checkpoints load) but, as MindSpore's
output never uses them, does not update them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...common import dtype as mstype
from ...common.initializer import Uniform
from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from ._common import check_bool, check_int, default_bias_init, default_weight_init, make_param, shape_error

__all__ = ["Dropout1d", "Dropout2d", "Dropout3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "Tril",
           "Triu", "Roll", "Range", "OneHot", "Pad", "Moments", "MatMul", "Norm", "ClipByNorm", "ReduceLogSumExp",
           "MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "MatDet", "MatInverse", "ReflectionPad3d",
           "ReplicationPad3d", "CentralCrop", "ImageGradients", "PSNR", "L1Regularizer", "Linear", "BiDense",
           "DiceLoss", "MultiClassDiceLoss", "MultiMarginLoss", "MultilabelMarginLoss", "LGamma", "DiGamma",
           "IGamma", "LBeta", "TripletMarginWithDistanceLoss", "EmbeddingLookup", "ParameterUpdate"]


def _prob(p: Any, layer: str) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ValueError(f"{layer}: p must be a float in [0, 1], got {p!r}")
    return float(p)


class Dropout1d(Cell):
    """Zeroes whole channels of (N, C, L) / (C, L) inputs with probability p in training (the
    survivors scaled by 1 / (1 - p)); identity in eval mode."""

    _fn = "dropout1d"

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        self.p = _prob(p, type(self).__name__)

    def construct(self, x: Tensor) -> Tensor:
        if not self.training:
            return x
        return getattr(F, self._fn)(x, self.p, True)

    def extend_repr(self) -> str:
        return f"p={self.p}"


class Dropout2d(Dropout1d):
    """Channel dropout of (N, C, H, W) / (C, H, W) inputs."""

    _fn = "dropout2d"


class Dropout3d(Dropout1d):
    """Channel dropout of (N, C, D, H, W) / (C, D, H, W) inputs."""

    _fn = "dropout3d"


class _InstanceNorm(Cell):
    _nd = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
                 gamma_init: Any = "ones", beta_init: Any = "zeros", dtype: Any = mstype.float32) -> None:
        super().__init__()
        name = type(self).__name__
        self.num_features = check_int(num_features, "num_features", name)
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"{name}: momentum must be in [0, 1], got {momentum}")
        self.eps, self.momentum = float(eps), float(momentum)
        self.affine = check_bool(affine, "affine", name)
        self.gamma = make_param(gamma_init, (num_features,), dtype, "gamma", requires_grad=affine)
        self.beta = make_param(beta_init, (num_features,), dtype, "beta", requires_grad=affine)
        self.moving_mean = make_param("zeros", (num_features,), dtype, "mean", requires_grad=False)
        self.moving_variance = make_param("ones", (num_features,), dtype, "variance", requires_grad=False)

    def construct(self, x: Tensor) -> Tensor:
        nd = self._nd
        if not isinstance(x, Tensor) or x.ndim != nd + 2 or x.shape[1] != self.num_features:
            raise shape_error(type(self).__name__, f"a {nd + 2}-D input (N, C, ...) with C={self.num_features}", x)
        axes = tuple(range(2, 2 + nd))
        mean = F.mean(x, axes, True)
        var = F.mean(F.square(x - mean), axes, True)
        y = (x - mean) / F.sqrt(var + self.eps)
        shape = (1, self.num_features) + (1,) * nd
        return y * F.reshape(self.gamma, shape) + F.reshape(self.beta, shape)

    def extend_repr(self) -> str:
        return f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}"


class InstanceNorm1d(_InstanceNorm):
    """Normalises each (sample, channel) of (N, C, L) inputs over L (biased variance), then gamma, beta."""

    _nd = 1


class InstanceNorm2d(_InstanceNorm):
    """Normalises each (sample, channel) of (N, C, H, W) inputs over H, W."""

    _nd = 2


class InstanceNorm3d(_InstanceNorm):
    """Normalises each (sample, channel) of (N, C, D, H, W) inputs over D, H, W."""

    _nd = 3


class Tril(Cell):
    """``Tril()(x, k=0)``: x with the elements above the k-th diagonal zeroed."""

    def construct(self, x: Tensor, k: int = 0) -> Tensor:
        return F.tril(x, k)


class Triu(Cell):
    """``Triu()(x, k=0)``: x with the elements below the k-th diagonal zeroed."""

    def construct(self, x: Tensor, k: int = 0) -> Tensor:
        return F.triu(x, k)


class Roll(Cell):
    """Rolls the elements along `axis` by `shift` (ints or matching tuples)."""

    def __init__(self, shift: Any, axis: Any) -> None:
        super().__init__()
        self.shift, self.axis = shift, axis
        if isinstance(shift, (tuple, list)) != isinstance(axis, (tuple, list)) or (
                isinstance(shift, (tuple, list)) and len(shift) != len(axis)):
            raise ValueError(f"Roll: shift and axis must both be ints or tuples of one length, got {shift!r}, {axis!r}")

    def construct(self, input_x: Tensor) -> Tensor:
        return F.roll(input_x, self.shift, self.axis)


class Range(Cell):
    """``Range(start, limit=None, delta=1)()``: [start, limit) in steps of delta ([0, start) when limit
    is None); int32 when all three are ints, float32 otherwise."""

    def __init__(self, start: Any, limit: Any = None, delta: Any = 1) -> None:
        super().__init__()
        if delta == 0:
            raise ValueError("Range: delta must not be 0")
        if limit is None:
            start, limit = 0, start
        self.start, self.limit, self.delta = start, limit, delta
        ints = all(isinstance(v, int) and not isinstance(v, bool) for v in (start, limit, delta))
        self._values = np.arange(start, limit, delta, dtype=np.int32 if ints else np.float32)

    def construct(self) -> Tensor:
        return Tensor(self._values)


class OneHot(Cell):
    """One-hot encoding of integer `indices` along `axis` with `depth` positions (on/off values, dtype)."""

    def __init__(self, axis: int = -1, depth: int = 1, on_value: float = 1.0, off_value: float = 0.0,
                 dtype: Any = mstype.float32) -> None:
        super().__init__()
        self.axis, self.depth = int(axis), check_int(depth, "depth", "OneHot")
        self.on_value, self.off_value, self.dtype = on_value, off_value, dtype

    def construct(self, indices: Tensor) -> Tensor:
        on = Tensor(np.array(self.on_value, mstype.dtype_to_nptype(self.dtype)))
        off = Tensor(np.array(self.off_value, mstype.dtype_to_nptype(self.dtype)))
        return F.one_hot(indices, self.depth, on, off, self.axis)


class Pad(Cell):
    """``Pad(paddings, mode='CONSTANT')``: pads each axis by its (before, after) pair in `paddings`
    with zeros ('CONSTANT'), a mirror without the edge ('REFLECT') or with it ('SYMMETRIC')."""

    def __init__(self, paddings: Any, mode: str = "CONSTANT") -> None:
        super().__init__()
        mode = str(mode).upper()
        if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
            raise ValueError(f"Pad: mode must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC', got {mode!r}")
        pads = tuple(tuple(int(v) for v in p) for p in paddings)
        if any(len(p) != 2 or min(p) < 0 for p in pads):
            raise ValueError(f"Pad: paddings must be non-negative (before, after) pairs, got {paddings!r}")
        self.paddings, self.mode = pads, mode

    def construct(self, x: Tensor) -> Tensor:
        if len(self.paddings) != x.ndim:
            raise shape_error("Pad", f"an input of rank {len(self.paddings)} (one padding pair per axis)", x)
        if self.mode == "CONSTANT":
            flat = [v for p in reversed(self.paddings) for v in p]
            return F.pad(x, flat)
        for axis, (lo, hi) in enumerate(self.paddings):
            if lo or hi:
                n = x.shape[axis]
                limit = n - 1 if self.mode == "REFLECT" else n
                if lo > limit or hi > limit:
                    raise ValueError(f"Pad: {self.mode} padding of axis {axis} must be at most {limit}, "
                                     f"got ({lo}, {hi})")
                idx = np.pad(np.arange(n), (lo, hi), mode="reflect" if self.mode == "REFLECT" else "symmetric")
                x = F.gather(x, Tensor(idx.astype(np.int64)), axis)
        return x


class Moments(Cell):
    """(mean, variance) of x over `axis` (all axes when None), the variance biased."""

    def __init__(self, axis: Any = None, keep_dims: Any = None) -> None:
        super().__init__()
        self.axis = axis
        self.keep_dims = bool(keep_dims) if keep_dims is not None else False

    def construct(self, x: Tensor) -> tuple[Tensor, Tensor]:
        axis = tuple(range(x.ndim)) if self.axis is None else self.axis
        mean = F.mean(x, axis, True)
        var = F.mean(F.square(x - mean), axis, self.keep_dims)
        return (mean if self.keep_dims else F.mean(x, axis, False)), var


class MatMul(Cell):
    """Batched matrix product with optional transposes of the last two axes; batch axes broadcast;
    1-D operands act as vectors."""

    def __init__(self, transpose_x1: bool = False, transpose_x2: bool = False) -> None:
        super().__init__()
        self.transpose_x1, self.transpose_x2 = bool(transpose_x1), bool(transpose_x2)

    def construct(self, x1: Tensor, x2: Tensor) -> Tensor:
        if self.transpose_x1 and x1.ndim >= 2:
            x1 = F.swapaxes(x1, -1, -2)
        if self.transpose_x2 and x2.ndim >= 2:
            x2 = F.swapaxes(x2, -1, -2)
        if x1.ndim > 2 or x2.ndim > 2:
            batch = np.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
            if x1.ndim >= 2:
                x1 = F.broadcast_to(x1, batch + tuple(x1.shape[-2:]))
            if x2.ndim >= 2:
                x2 = F.broadcast_to(x2, batch + tuple(x2.shape[-2:]))
        return F.matmul(x1, x2)


class Norm(Cell):
    """Euclidean norm sqrt(sum(x^2)) over `axis` (all axes for ())."""

    def __init__(self, axis: Any = (), keep_dims: bool = False) -> None:
        super().__init__()
        self.axis, self.keep_dims = axis, bool(keep_dims)

    def construct(self, x: Tensor) -> Tensor:
        axis = tuple(range(x.ndim)) if self.axis in ((), None) else self.axis
        return F.sqrt(F.reduce_sum(F.square(x), axis, self.keep_dims))


class ClipByNorm(Cell):
    """``ClipByNorm(axis=None)(x, clip_norm)``: x * clip_norm / max(||x||_2 over axis, clip_norm)."""

    def __init__(self, axis: Any = None) -> None:
        super().__init__()
        self.axis = axis

    def construct(self, x: Tensor, clip_norm: Any) -> Tensor:
        axis = tuple(range(x.ndim)) if self.axis is None else self.axis
        l2 = F.sqrt(F.reduce_sum(F.square(x), axis, True))
        c = clip_norm if isinstance(clip_norm, Tensor) else Tensor(np.asarray(clip_norm, x.dtype.np))
        c = F.cast(c, x.dtype)
        return x * c / F.maximum(l2, c)


class ReduceLogSumExp(Cell):
    """log(sum(exp(x))) over `axis`, computed stably."""

    def __init__(self, axis: Any, keep_dims: bool = False) -> None:
        super().__init__()
        self.axis, self.keep_dims = axis, bool(keep_dims)

    def construct(self, x: Tensor) -> Tensor:
        return F.logsumexp(x, self.axis, self.keep_dims)


def _eye(n: int, m: int, dtype: Any) -> Tensor:
    return Tensor(np.eye(n, m, dtype=dtype.np))


class MatrixDiag(Cell):
    """(..., n) -> (..., n, n): each vector on the diagonal of a zero matrix."""

    def construct(self, x: Tensor) -> Tensor:
        n = x.shape[-1]
        return F.expand_dims(x, -1) * _eye(n, n, x.dtype)


class MatrixDiagPart(Cell):
    """(..., m, n) -> (..., min(m, n)): the main diagonal of each matrix."""

    def construct(self, x: Tensor) -> Tensor:
        m, n = x.shape[-2:]
        k = min(m, n)
        return F.reduce_sum(x[..., :k, :k] * _eye(k, k, x.dtype), -1)


class MatrixSetDiag(Cell):
    """``MatrixSetDiag()(x, diagonal)``: x with its main diagonal replaced by `diagonal` (..., min(m, n))."""

    def construct(self, x: Tensor, diagonal: Tensor) -> Tensor:
        m, n = x.shape[-2:]
        k = min(m, n)
        if tuple(diagonal.shape) != tuple(x.shape[:-2]) + (k,):
            raise shape_error("MatrixSetDiag", f"a diagonal of shape {tuple(x.shape[:-2]) + (k,)}", diagonal)
        eye = _eye(m, n, x.dtype)
        dm = F.expand_dims(F.pad(diagonal, [0, n - k]), -2) * eye  # row i holds d at column i
        return x * (1 - eye) + dm


class MatDet(Cell):
    """Determinant of each square matrix (..., n, n)."""

    def construct(self, a: Tensor) -> Tensor:
        return F.det(a)


class MatInverse(Cell):
    """Inverse of each square matrix (..., n, n)."""

    def construct(self, a: Tensor) -> Tensor:
        return F.inverse(a)


class _Pad3d(Cell):
    _mode = "reflect"

    def __init__(self, padding: Any) -> None:
        super().__init__()
        name = type(self).__name__
        if isinstance(padding, int) and not isinstance(padding, bool):
            padding = (padding,) * 6
        padding = tuple(padding)
        if len(padding) != 6 or not all(isinstance(p, int) and p >= 0 for p in padding):
            raise ValueError(f"{name}: padding must be a non-negative int or a tuple of 6 ints, got {padding!r}")
        self.padding = padding

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim not in (4, 5):
            raise shape_error(type(self).__name__, "a 4-D (C, D, H, W) or 5-D (N, C, D, H, W) input", x)
        return F.pad(x, self.padding, self._mode)

    def extend_repr(self) -> str:
        return f"padding={self.padding}"


class ReflectionPad3d(_Pad3d):
    """Pads the last three axes by (left, right, top, bottom, front, back) with their mirror (no edge)."""

    _mode = "reflect"


class ReplicationPad3d(_Pad3d):
    """Pads the last three axes by (left, right, top, bottom, front, back) repeating the edge values."""

    _mode = "replicate"


class CentralCrop(Cell):
    """Crops the central `central_fraction` of (C, H, W) or (N, C, H, W) images."""

    def __init__(self, central_fraction: float) -> None:
        super().__init__()
        if isinstance(central_fraction, bool) or not 0.0 < float(central_fraction) <= 1.0:
            raise ValueError(f"CentralCrop: central_fraction must be in (0, 1], got {central_fraction!r}")
        self.central_fraction = float(central_fraction)

    def construct(self, image: Tensor) -> Tensor:
        if image.ndim not in (3, 4):
            raise shape_error("CentralCrop", "a 3-D (C, H, W) or 4-D (N, C, H, W) image", image)
        if self.central_fraction == 1.0:
            return image
        h, w = image.shape[-2:]
        top = int((h - self.central_fraction * h) / 2)
        left = int((w - self.central_fraction * w) / 2)
        return image[..., top:h - top, left:w - left]


class ImageGradients(Cell):
    """(dy, dx) of (N, C, H, W) images: forward differences, the last row / column 0."""

    def construct(self, images: Tensor) -> tuple[Tensor, Tensor]:
        if images.ndim != 4:
            raise shape_error("ImageGradients", "a 4-D input (N, C, H, W)", images)
        dy = F.pad(images[:, :, 1:, :] - images[:, :, :-1, :], [0, 0, 0, 1])
        dx = F.pad(images[:, :, :, 1:] - images[:, :, :, :-1], [0, 1])
        return dy, dx


class PSNR(Cell):
    """Peak signal-to-noise ratio per image of two (N, C, H, W) batches: 10 log10(max_val^2 / MSE)."""

    def __init__(self, max_val: float = 1.0) -> None:
        super().__init__()
        if isinstance(max_val, bool) or max_val <= 0:
            raise ValueError(f"PSNR: max_val must be positive, got {max_val!r}")
        self.max_val = float(max_val)

    def construct(self, img1: Tensor, img2: Tensor) -> Tensor:
        if img1.ndim != 4 or tuple(img1.shape) != tuple(img2.shape):
            raise shape_error("PSNR", f"two 4-D (N, C, H, W) images of one shape, img1 {tuple(img1.shape)}", img2)
        mse = F.mean(F.square(F.cast(img1, mstype.float32) - F.cast(img2, mstype.float32)), (1, 2, 3))
        return 10.0 * F.log(self.max_val ** 2 / mse) / math.log(10.0)


class L1Regularizer(Cell):
    """scale * sum(|weights|)."""

    def __init__(self, scale: float) -> None:
        super().__init__()
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not scale > 0 or math.isinf(scale):
            raise ValueError(f"L1Regularizer: scale must be a positive finite number, got {scale!r}")
        self.scale = float(scale)

    def construct(self, weights: Tensor) -> Tensor:
        return self.scale * F.reduce_sum(F.abs(weights))


class Linear(Cell):
    """y = x W^T + b with W (out_features, in_features) — MindSpore's mint-style dense layer
    (``bias=True``; HeUniform(sqrt(5)) weight and Uniform(1/sqrt(in)) bias by default)."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, weight_init: Any = None,
                 bias_init: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in_features = check_int(in_features, "in_features", "Linear")
        self.out_features = check_int(out_features, "out_features", "Linear")
        dtype = mstype.float32 if dtype is None else dtype
        self.weight = make_param(default_weight_init(weight_init), (out_features, in_features), dtype, "weight")
        self.bias = make_param(default_bias_init(bias_init, in_features), (out_features,), dtype, "bias") \
            if check_bool(bias, "bias", "Linear") else None

    def construct(self, x: Tensor) -> Tensor:
        if x.shape[-1] != self.in_features:
            raise shape_error("Linear", f"an input (..., {self.in_features})", x)
        y = F.matmul(x, F.transpose(self.weight, (1, 0)))
        return y if self.bias is None else y + self.bias

    def extend_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class BiDense(Cell):
    """Bilinear layer y_o = x1^T W_o x2 + b_o with W (out, in1, in2); both inits Uniform(1/sqrt(in1))
    by default, as MindSpore's."""

    def __init__(self, in1_channels: int, in2_channels: int, out_channels: int, weight_init: Any = None,
                 bias_init: Any = None, has_bias: bool = True, dtype: Any = mstype.float32) -> None:
        super().__init__()
        self.in1_channels = check_int(in1_channels, "in1_channels", "BiDense")
        self.in2_channels = check_int(in2_channels, "in2_channels", "BiDense")
        self.out_channels = check_int(out_channels, "out_channels", "BiDense")
        bound = 1.0 / math.sqrt(in1_channels)
        self.weight = make_param(Uniform(bound) if weight_init is None else weight_init,
                                 (out_channels, in1_channels, in2_channels), dtype, "weight")
        self.has_bias = check_bool(has_bias, "has_bias", "BiDense")
        self.bias = make_param(Uniform(bound) if bias_init is None else bias_init, (out_channels,), dtype, "bias") \
            if has_bias else None

    def construct(self, input1: Tensor, input2: Tensor) -> Tensor:
        if input1.shape[-1] != self.in1_channels or input2.shape[-1] != self.in2_channels or \
                tuple(input1.shape[:-1]) != tuple(input2.shape[:-1]):
            raise shape_error("BiDense", f"inputs (..., {self.in1_channels}) and (..., {self.in2_channels}) with one "
                              f"batch shape, input1 {tuple(input1.shape)}", input2)
        lead = tuple(input1.shape[:-1])
        x1 = F.reshape(input1, (-1, self.in1_channels))
        x2 = F.reshape(input2, (-1, self.in2_channels))
        w = F.reshape(F.transpose(self.weight, (1, 0, 2)), (self.in1_channels, -1))
        t = F.reshape(F.matmul(x1, w), (-1, self.out_channels, self.in2_channels))
        y = F.reduce_sum(t * F.expand_dims(x2, 1), -1)
        if self.bias is not None:
            y = y + self.bias
        return F.reshape(y, lead + (self.out_channels,))


class DiceLoss(Cell):
    """1 - 2 sum(logits * label) / (sum(logits^2) + sum(label^2) + smooth), over every element."""

    def __init__(self, smooth: float = 1e-5) -> None:
        super().__init__()
        if isinstance(smooth, bool) or not smooth > 0:
            raise ValueError(f"DiceLoss: smooth must be positive, got {smooth!r}")
        self.smooth = float(smooth)

    def construct(self, logits: Tensor, label: Tensor) -> Tensor:
        if tuple(logits.shape) != tuple(label.shape):
            raise shape_error("DiceLoss", f"a label of the logits' shape {tuple(logits.shape)}", label)
        inter = F.reduce_sum(logits * label)
        union = F.reduce_sum(logits * logits) + F.reduce_sum(label * label)
        return 1 - 2 * inter / (union + self.smooth)


class MultiClassDiceLoss(Cell):
    """Mean over classes of the binary DiceLoss of ``activation(logits)[:, i]`` against ``label[:, i]``
    (each scaled by ``weights[i]``; class `ignore_indiex` skipped — MindSpore's spelling). The
    activation is looked up by name like nn's ('softmax' is nn.Softmax, over the last axis)."""

    def __init__(self, weights: Any = None, ignore_indiex: int | None = None, activation: Any = "softmax") -> None:
        super().__init__()
        from .activation import get_activation

        self.binarydiceloss = DiceLoss(smooth=1e-5)
        self.weights = None if weights is None else (weights if isinstance(weights, Tensor) else
                                                     Tensor(np.asarray(weights, np.float32)))
        if self.weights is not None and self.weights.ndim != 2:
            raise ValueError(f"MultiClassDiceLoss: weights must be a 2-D Tensor, got shape {tuple(self.weights.shape)}")
        if ignore_indiex is not None and (isinstance(ignore_indiex, bool) or not isinstance(ignore_indiex, int)):
            raise TypeError(f"MultiClassDiceLoss: ignore_indiex must be an int or None, got {ignore_indiex!r}")
        self.ignore_indiex = ignore_indiex
        self.activation = get_activation(activation) if isinstance(activation, str) else activation

    def construct(self, logits: Tensor, label: Tensor) -> Tensor:
        if tuple(logits.shape) != tuple(label.shape) or logits.ndim < 2:
            raise shape_error("MultiClassDiceLoss", f"a label of the logits' shape {tuple(logits.shape)} (N, C, ...)",
                              label)
        if self.activation is not None:
            logits = self.activation(logits)
        total = 0.0
        for i in range(label.shape[1]):
            if i != self.ignore_indiex:
                loss = self.binarydiceloss(logits[:, i], label[:, i])
                if self.weights is not None:
                    loss = loss * self.weights[i]
                total = total + loss
        return total / label.shape[1]


class MultiMarginLoss(Cell):
    """Multi-class hinge loss: ``MultiMarginLoss(p=1, margin=1.0, reduction='mean', weight=None)(x,
    target, weight=None)``."""

    def __init__(self, p: int = 1, margin: float = 1.0, reduction: str = "mean", weight: Any = None) -> None:
        super().__init__()
        if p not in (1, 2):
            raise ValueError(f"MultiMarginLoss: p must be 1 or 2, got {p!r}")
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"MultiMarginLoss: reduction must be 'none', 'mean' or 'sum', got {reduction!r}")
        self.p, self.margin, self.reduction, self.weight = p, float(margin), reduction, weight

    def construct(self, x: Tensor, target: Tensor, weight: Any = None) -> Tensor:
        w = self.weight if weight is None else weight
        return F.multi_margin_loss(x, target, self.p, self.margin, w, self.reduction)


class MultilabelMarginLoss(Cell):
    """Multi-label hinge loss over the target classes listed (until the first -1) in `target`."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"MultilabelMarginLoss: reduction must be 'none', 'mean' or 'sum', got {reduction!r}")
        self.reduction = reduction

    def construct(self, x: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(x, target, self.reduction)


class LGamma(Cell):
    """log |Gamma(x)| of each element."""

    def construct(self, x: Tensor) -> Tensor:
        return F.lgamma(x)


class DiGamma(Cell):
    """Digamma (d/dx log Gamma) of each element."""

    def construct(self, x: Tensor) -> Tensor:
        return F.digamma(x)


class IGamma(Cell):
    """Regularised lower incomplete gamma P(a, x) of each pair."""

    def construct(self, a: Tensor, x: Tensor) -> Tensor:
        return F.igamma(a, x)


class LBeta(Cell):
    """log |Beta(x, y)| = lgamma(x) + lgamma(y) - lgamma(x + y) of each pair."""

    def construct(self, x: Tensor, y: Tensor) -> Tensor:
        return F.lgamma(x) + F.lgamma(y) - F.lgamma(x + y)


def _pairwise_distance(x: Tensor, y: Tensor) -> Tensor:
    """||x - y + 1e-6||_2 over the last axis (PyTorch's and MindSpore's pairwise_distance default)."""
    return F.sqrt(F.reduce_sum(F.square(x - y + 1e-6), -1))


class TripletMarginWithDistanceLoss(Cell):
    """``max(d(anchor, positive) - d(anchor, negative) + margin, 0)`` with `distance_function`
    (default: the pairwise L2 distance); with `swap`, d(anchor, negative) is replaced by the smaller
    of it and d(positive, negative)."""

    def __init__(self, distance_function: Any = None, swap: bool = False, reduction: str = "mean",
                 margin: float = 1.0) -> None:
        super().__init__()
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"TripletMarginWithDistanceLoss: reduction must be 'none', 'mean' or 'sum', "
                             f"got {reduction!r}")
        if isinstance(margin, bool) or not isinstance(margin, (int, float)) or margin < 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: margin must be a non-negative float, got {margin!r}")
        self.distance_function = distance_function if distance_function is not None else _pairwise_distance
        self.swap, self.reduction, self.margin = bool(swap), reduction, float(margin)

    def construct(self, x: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        d_pos = self.distance_function(x, positive)
        d_neg = self.distance_function(x, negative)
        if self.swap:
            d_neg = F.minimum(d_neg, self.distance_function(positive, negative))
        loss = F.relu(d_pos - d_neg + self.margin)
        if self.reduction == "mean":
            return F.mean(loss)
        if self.reduction == "sum":
            return F.reduce_sum(loss)
        return loss


class EmbeddingLookup(Cell):
    """Rows of the (vocab_size, embedding_size) ``embedding_table`` at `indices`; with `max_norm`
    each looked-up row is rescaled to at most that L2 norm. The host/device `target`, sharding
    `slice_mode`/`manual_shapes` and `sparse` choices select MindSpore kernels with the same result
    on one CPU; they are checked and kept."""

    def __init__(self, vocab_size: int, embedding_size: int, param_init: Any = "normal", target: str = "CPU",
                 slice_mode: str = "batch_slice", manual_shapes: Any = None, max_norm: float | None = None,
                 sparse: bool = True, dtype: Any = mstype.float32) -> None:
        super().__init__()
        self.vocab_size = check_int(vocab_size, "vocab_size", "EmbeddingLookup")
        self.embedding_size = check_int(embedding_size, "embedding_size", "EmbeddingLookup")
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"EmbeddingLookup: target must be 'CPU' or 'DEVICE', got {target!r}")
        if slice_mode not in ("field_slice", "table_row_slice", "table_column_slice", "batch_slice"):
            raise ValueError(f"EmbeddingLookup: unknown slice_mode {slice_mode!r}")
        self.target, self.slice_mode, self.manual_shapes, self.sparse = target, slice_mode, manual_shapes, bool(sparse)
        self.max_norm = None if max_norm is None else float(max_norm)
        self.embedding_table = make_param(param_init, (vocab_size, embedding_size), dtype, "embedding_table")

    def construct(self, indices: Tensor) -> Tensor:
        out = F.gather(self.embedding_table, indices, 0)
        if self.max_norm is not None:
            norm = F.sqrt(F.reduce_sum(F.square(out), -1, True))
            out = out * F.minimum(F.ones_like(norm), self.max_norm / F.maximum(norm, 1e-12))
        return out


class ParameterUpdate(Cell):
    """``ParameterUpdate(param)(x)``: assigns `x` to `param` (of its shape and dtype) and returns it."""

    def __init__(self, param: Any) -> None:
        super().__init__()
        from ...tensor import Parameter

        if not isinstance(param, Parameter):
            raise TypeError(f"ParameterUpdate: param must be a Parameter, got {type(param).__name__}")
        self._param = param

    def construct(self, x: Tensor) -> Tensor:
        if tuple(x.shape) != tuple(self._param.shape):
            raise shape_error("ParameterUpdate", f"a value of the parameter's shape {tuple(self._param.shape)}", x)
        return F.assign(self._param, x)
