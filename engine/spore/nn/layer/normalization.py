"""Normalization layers: BatchNorm1d/2d, LayerNorm and GroupNorm (MindSpore's signatures).

BatchNorm keeps MindSpore's momentum meaning: ``moving = momentum * moving + (1 - momentum) *
batch`` (so 0.9 by default); the batch variance blended into the moving one is the unbiased one
(N/(N-1), N the elements per channel), as MindSpore 2.10's CPU kernel does, while the batch is
normalised with the biased one. Its statistics come from the batch in training mode (or when
``use_batch_statistics=True``), which also updates the moving ones; otherwise the moving ones
are used. Cells start in inference mode, so call ``set_train()`` to train.
"""

from __future__ import annotations

from typing import Any

from ...common import dtype as mstype
from ...ops import functional as F
from ...ops.normalization import LayerNorm as _LayerNormPrim
from ...tensor import Tensor
from ..cell import Cell
from ._common import check_bool, check_int, make_param, shape_error

__all__ = ["BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm"]


class _BatchNorm(Cell):
    """Shared BatchNorm machinery; subclasses say which input ranks they take."""

    _ranks: tuple[int, ...] = ()
    _layout = ""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9, affine: bool = True,
                 gamma_init: Any = "ones", beta_init: Any = "zeros", moving_mean_init: Any = "zeros",
                 moving_var_init: Any = "ones", use_batch_statistics: bool | None = None,
                 data_format: str = "NCHW", dtype: Any = mstype.float32) -> None:
        super().__init__()
        name = type(self).__name__
        self.num_features = check_int(num_features, "num_features", name)
        if not isinstance(momentum, (int, float)) or not 0 <= momentum <= 1:
            raise ValueError(f"{name}: momentum must be in [0, 1], got {momentum!r}")
        if not isinstance(eps, (int, float)) or eps <= 0:
            raise ValueError(f"{name}: eps must be a positive number, got {eps!r}")
        if use_batch_statistics is not None and not isinstance(use_batch_statistics, bool):
            raise TypeError(f"{name}: use_batch_statistics must be None or a bool, got {use_batch_statistics!r}")
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"{name}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
        self.eps = float(eps)
        self.momentum = float(momentum)
        self.affine = check_bool(affine, "affine", name)
        self.use_batch_statistics = use_batch_statistics
        self.format = data_format
        shape = (num_features,)
        self.moving_mean = make_param(moving_mean_init, shape, dtype, "mean", requires_grad=False)
        self.moving_variance = make_param(moving_var_init, shape, dtype, "variance", requires_grad=False)
        self.gamma = make_param(gamma_init, shape, dtype, "gamma", requires_grad=affine)
        self.beta = make_param(beta_init, shape, dtype, "beta", requires_grad=affine)

    def construct(self, x: Tensor) -> Tensor:
        name = type(self).__name__
        channels_last = self.format == "NHWC" and x.ndim == 4
        c_axis = -1 if channels_last else 1
        if x.ndim not in self._ranks or x.shape[c_axis] != self.num_features:
            raise shape_error(name, f"input of shape {self._layout} with C={self.num_features}", x)
        if channels_last:
            x = F.transpose(x, (0, 3, 1, 2))
        training = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        params = self.__dict__["_params"]  # the stored statistics themselves: they are updated in place
        out = F.batch_norm(x, params["moving_mean"], params["moving_variance"], self.gamma, self.beta,
                           training, 1.0 - self.momentum, self.eps)
        return F.transpose(out, (0, 2, 3, 1)) if channels_last else out

    def extend_repr(self) -> str:
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma}, beta={self.beta}, moving_mean={self.moving_mean}, "
                f"moving_variance={self.moving_variance}")


class BatchNorm1d(_BatchNorm):
    """Batch normalization over (N, C) or (N, C, L) inputs, per channel C."""

    _ranks = (2, 3)
    _layout = "(N, C) or (N, C, L)"


class BatchNorm2d(_BatchNorm):
    """Batch normalization over (N, C, H, W) inputs (or (N, H, W, C) with data_format='NHWC')."""

    _ranks = (4,)
    _layout = "(N, C, H, W)"


class LayerNorm(Cell):
    """Normalizes over the axes from `begin_norm_axis` on; gamma/beta of `normalized_shape` apply
    from `begin_params_axis` on. MindSpore's default epsilon is 1e-7."""

    def __init__(self, normalized_shape: Any, begin_norm_axis: int = -1, begin_params_axis: int = -1,
                 gamma_init: Any = "ones", beta_init: Any = "zeros", epsilon: float = 1e-7,
                 dtype: Any = mstype.float32) -> None:
        super().__init__()
        if isinstance(normalized_shape, int) and not isinstance(normalized_shape, bool):
            normalized_shape = (normalized_shape,)
        if not isinstance(normalized_shape, (tuple, list)) or not all(
                isinstance(n, int) and n > 0 for n in normalized_shape):
            raise TypeError(f"LayerNorm: normalized_shape must be a tuple of positive ints, got {normalized_shape!r}")
        self.normalized_shape = tuple(normalized_shape)
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.epsilon = float(epsilon)
        self.gamma = make_param(gamma_init, self.normalized_shape, dtype, "gamma")
        self.beta = make_param(beta_init, self.normalized_shape, dtype, "beta")

    def construct(self, x: Tensor) -> Tensor:
        nd = x.ndim
        if not -nd <= self.begin_norm_axis < nd or not -nd <= self.begin_params_axis < nd:
            raise shape_error("LayerNorm", f"an input with axes begin_norm_axis={self.begin_norm_axis} and "
                              f"begin_params_axis={self.begin_params_axis}", x)
        bna, bpa = self.begin_norm_axis % nd, self.begin_params_axis % nd
        if tuple(x.shape[bpa:]) != self.normalized_shape:
            raise shape_error("LayerNorm", f"input of shape (..., {', '.join(map(str, self.normalized_shape))}) "
                              f"(normalized_shape={self.normalized_shape})", x)
        return _LayerNormPrim(x, self.gamma, self.beta, begin_norm_axis=bna, begin_params_axis=bpa,
                              epsilon=self.epsilon)[0]

    def extend_repr(self) -> str:
        return (f"normalized_shape={self.normalized_shape}, begin_norm_axis={self.begin_norm_axis}, "
                f"begin_params_axis={self.begin_params_axis}, gamma={self.gamma}, beta={self.beta}")


class GroupNorm(Cell):
    """Normalizes (N, C, *) inputs over groups of C // num_groups channels, then scales per channel."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 gamma_init: Any = "ones", beta_init: Any = "zeros", dtype: Any = mstype.float32) -> None:
        super().__init__()
        self.num_groups = check_int(num_groups, "num_groups", "GroupNorm")
        self.num_channels = check_int(num_channels, "num_channels", "GroupNorm")
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.eps = float(eps)
        self.affine = check_bool(affine, "affine", "GroupNorm")
        self.gamma = make_param(gamma_init, (num_channels,), dtype, "gamma", requires_grad=affine)
        self.beta = make_param(beta_init, (num_channels,), dtype, "beta", requires_grad=affine)

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim < 2 or x.shape[1] != self.num_channels:
            raise shape_error("GroupNorm", f"input of shape (N, {self.num_channels}, ...)", x)
        n = x.shape[0]
        g = F.reshape(x, (n, self.num_groups, -1))
        mean = F.mean(g, 2, True)
        centered = F.sub(g, mean)
        var = F.mean(F.square(centered), 2, True)
        y = F.reshape(F.mul(centered, F.rsqrt(F.add(var, self.eps))), x.shape)
        pshape = (1, self.num_channels) + (1,) * (x.ndim - 2)
        return F.add(F.mul(y, F.reshape(self.gamma, pshape)), F.reshape(self.beta, pshape))

    def extend_repr(self) -> str:
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"
