"""Batch and layer normalisation: `BatchNorm`/`LayerNorm` primitives, their fused gradients, and
MindSpore's functional `ops.batch_norm` / `ops.layer_norm`.

float32 runs through the fused C++ kernels in `spore._kernels` (one pass for statistics and output,
one for the gradient); float64 takes a NumPy path of the same formulas (so gradient checks run in
double precision); float16/bfloat16 are computed in float32 and cast back.

Both primitives return their saved statistics as extra outputs, and both gradient primitives take
the cotangents of those statistics too: whatever a caller does with the returned mean/rstd, the
gradient stays exact, at no cost in the inner loops (the extra terms are per-channel constants).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _kernels
from ..autodiff.tape import is_tracked
from ..errors import DTypeError, ShapeError
from ..onnx.spec import OnnxMap
from ..tensor import Tensor
from ._rules import norm_axis
from .primitive import Aval, primitive

# --- helpers shared with loss_ops / nn_misc (private: not exported as ops) ---------------------


def _kernel_ok(*arrays: np.ndarray) -> bool:
    """Whether the float32 C++ kernels serve these inputs (no float64 among them)."""
    return all(a.dtype != np.float64 for a in arrays)


def _f32(a: np.ndarray) -> np.ndarray:
    """C-contiguous float32 view or copy, the layout the kernels take."""
    return np.ascontiguousarray(a, dtype=np.float32)


def _as(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return a if a.dtype == dtype else a.astype(dtype)


def _require_float(op: str, **tensors: Any) -> None:
    for name, t in tensors.items():
        if not t.dtype.is_float:
            raise DTypeError(op, f"a floating-point {name}", f"{name} of dtype {t.dtype}",
                             hint="cast it first, e.g. x.astype(ms.float32)")


# --- batch norm --------------------------------------------------------------------------------

def _bn_layout(op: str, shape: Sequence[int], data_format: str) -> tuple[int, int, int]:
    """(N, C, S) view of a batch-norm input: NCHW -> (N, C, H*W...), NHWC -> (N*H*W, C, 1)."""
    if len(shape) < 2:
        raise ShapeError(op, "an input of rank >= 2 ((N, C) or (N, C, ...))", f"shape {tuple(shape)}")
    if data_format == "NCHW":
        return shape[0], shape[1], math.prod(shape[2:])
    if data_format == "NHWC":
        return math.prod(shape[:-1]), shape[-1], 1
    raise ValueError(f"{op}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")


def _bn_check(op: str, x: Any, params: dict[str, Any], data_format: str, training: bool) -> int:
    n, c, s = _bn_layout(op, x.shape, data_format)
    for name, p in params.items():
        if tuple(p.shape) != (c,):
            raise ShapeError(op, f"{name} of shape ({c},) (one entry per channel of x {tuple(x.shape)})",
                             f"{name} of shape {tuple(p.shape)}")
    _require_float(op, x=x, **params)
    if training and n * s == 0:
        raise ShapeError(op, "at least one value per channel in training", f"x of shape {tuple(x.shape)}")
    return c


def _bn_numpy_forward(x3: np.ndarray, scale, bias, mean, var, training: bool, eps: float):
    if training:
        mean = x3.mean(axis=(0, 2))
        xc = x3 - mean[:, None]
        var = np.mean(xc * xc, axis=(0, 2))
    else:
        xc = x3 - mean[:, None]
    rstd = 1.0 / np.sqrt(var + eps)
    y = xc * (scale * rstd)[:, None] + bias[:, None]
    return y, mean, rstd


def _bn_numpy_backward(dy3, x3, scale, mean, rstd, dmean, drstd, training: bool):
    m = x3.shape[0] * x3.shape[2]
    xc = x3 - mean[:, None]
    dbias = dy3.sum(axis=(0, 2))
    dscale = np.sum(dy3 * xc, axis=(0, 2)) * rstd
    a = scale * rstd
    if not training:
        return dy3 * a[:, None], dscale, dbias
    b = -(scale * rstd * rstd * dscale + drstd * rstd ** 3) / m
    c0 = (dmean - scale * rstd * dbias) / m
    return dy3 * a[:, None] + xc * b[:, None] + c0[:, None], dscale, dbias


@primitive
class BatchNorm:
    """Batch normalization: y = (x - mean) / sqrt(var + epsilon) * scale + bias, per channel.

    In training (`is_training=True`) mean and var are the batch statistics over every axis but the
    channel axis (biased variance); otherwise the given running `mean`/`variance` are used.
    Outputs ``(y, saved_mean, saved_rstd)``: the statistics used and 1/sqrt(var + epsilon).
    `data_format` 'NCHW' puts channels on axis 1 ((N, C) and (N, C, ...) inputs), 'NHWC' last.
    Running statistics are not updated here; `ops.batch_norm` does that.
    """
    onnx = OnnxMap(export="batchnorm")

    multi_output = True

    def infer(x, scale, bias, mean, variance, is_training=False, epsilon=1e-5, data_format="NCHW"):
        c = _bn_check("BatchNorm", x, {"scale": scale, "bias": bias, "mean": mean, "variance": variance},
                      data_format, is_training)
        return Aval(tuple(x.shape), x.dtype), Aval((c,), scale.dtype), Aval((c,), scale.dtype)

    def impl(x, scale, bias, mean, variance, is_training=False, epsilon=1e-5, data_format="NCHW"):
        n, c, s = _bn_layout("BatchNorm", x.shape, data_format)
        if _kernel_ok(x, scale, bias, mean, variance):
            y, sm, sr = _kernels.batch_norm_forward(_f32(x).reshape(n, c, s), _f32(scale), _f32(bias), _f32(mean),
                                                    _f32(variance), bool(is_training), float(epsilon))
        else:
            f = np.float64
            y, sm, sr = _bn_numpy_forward(_as(x, f).reshape(n, c, s), _as(scale, f), _as(bias, f), _as(mean, f),
                                          _as(variance, f), is_training, epsilon)
        return y.reshape(x.shape).astype(x.dtype, copy=False), _as(sm, scale.dtype), _as(sr, scale.dtype)

    def vjp(cots, outs, x, scale, bias, mean, variance, is_training=False, epsilon=1e-5, data_format="NCHW"):
        from .elementwise import add, mul, neg

        gy, gmean, grstd = cots
        _, saved_mean, saved_rstd = outs
        dx = dscale = dbias = dmean = dvar = None
        need_stats = not is_training and (is_tracked(mean) or is_tracked(variance))
        if is_tracked(x) or is_tracked(scale) or is_tracked(bias) or need_stats:
            dx, dscale, dbias = BatchNormGrad(gy, x, scale, saved_mean, saved_rstd, gmean, grstd,
                                              is_training=is_training, data_format=data_format)
        if need_stats:
            # inference: y = scale*(x - mean)*r + bias with r = (var + eps)^-1/2, saved = (mean, r)
            r = saved_rstd
            dmean = add(gmean, neg(mul(mul(dbias, scale), r)))
            dvar = mul(add(mul(scale, dscale), mul(grstd, r)), mul(mul(r, r), -0.5))
        return (dx if is_tracked(x) else None, dscale if is_tracked(scale) else None,
                dbias if is_tracked(bias) else None, dmean, dvar)


@primitive
class BatchNormGrad:
    """Gradient of BatchNorm: (dx, dscale, dbias) from dy and the saved statistics.

    `dmean`/`drstd` are the cotangents of BatchNorm's saved_mean/saved_rstd outputs (zeros when they
    are unused); in training they flow into dx, in inference the statistics are constants of x.
    """

    multi_output = True

    def infer(dy, x, scale, saved_mean, saved_rstd, dmean, drstd, is_training=False, data_format="NCHW"):
        if tuple(dy.shape) != tuple(x.shape):
            raise ShapeError("BatchNormGrad", f"dy of the shape of x {tuple(x.shape)}", f"{tuple(dy.shape)}")
        return Aval(tuple(x.shape), x.dtype), Aval(tuple(scale.shape), scale.dtype), \
            Aval(tuple(scale.shape), scale.dtype)

    def impl(dy, x, scale, saved_mean, saved_rstd, dmean, drstd, is_training=False, data_format="NCHW"):
        n, c, s = _bn_layout("BatchNormGrad", x.shape, data_format)
        if _kernel_ok(dy, x, scale, saved_mean, saved_rstd, dmean, drstd):
            dx, ds, db = _kernels.batch_norm_backward(
                _f32(dy).reshape(n, c, s), _f32(x).reshape(n, c, s), _f32(scale), _f32(saved_mean),
                _f32(saved_rstd), _f32(dmean), _f32(drstd), bool(is_training))
        else:
            f = np.float64
            dx, ds, db = _bn_numpy_backward(_as(dy, f).reshape(n, c, s), _as(x, f).reshape(n, c, s), _as(scale, f),
                                            _as(saved_mean, f), _as(saved_rstd, f), _as(dmean, f), _as(drstd, f),
                                            is_training)
        return dx.reshape(x.shape).astype(x.dtype, copy=False), _as(ds, scale.dtype), _as(db, scale.dtype)


def _blend(arr: np.ndarray, batch: np.ndarray, momentum: float) -> None:
    """arr = (1 - momentum) * arr + momentum * batch, in place (same buffer)."""
    arr *= arr.dtype.type(1.0 - momentum)
    arr += (batch * momentum).astype(arr.dtype, copy=False)


@primitive
class BatchNormUpdate:
    """Updates BatchNorm's running statistics in place from a training batch's saved statistics:
    running = (1 - momentum) * running + momentum * batch. The variance blended in is the
    *unbiased* batch variance, var * count / (count - 1) with `count` the elements per channel
    (MindSpore 2.10's CPU kernel, checked in float64), recovered from the saved 1/sqrt(var + eps)
    in float64; the batch itself is normalised with the biased one. A count of 1 blends var as it is.

    A state-writing op rather than a write in the wrapper, so Graph mode performs it on every run.
    """

    nondiff = True
    side_effect = True

    def infer(running_mean, running_var, saved_mean, saved_rstd, momentum=0.1, eps=1e-5,
              update_mean=True, update_var=True, count=1):
        from ..common.dtype import bool_

        return Aval((), bool_)

    def impl(running_mean, running_var, saved_mean, saved_rstd, momentum=0.1, eps=1e-5,
             update_mean=True, update_var=True, count=1):
        if update_mean:
            _blend(running_mean, saved_mean, momentum)
        if update_var:
            r = saved_rstd.astype(np.float64)
            unbias = count / (count - 1) if count > 1 else 1.0
            _blend(running_var, (1.0 / (r * r) - eps) * unbias, momentum)
        return np.asarray(True)


def _update_running_stats(running_mean: Tensor | None, running_var: Tensor | None, saved_mean: Tensor,
                          saved_rstd: Tensor, momentum: float, eps: float, count: int = 1) -> None:
    """Apply `BatchNormUpdate` to whichever running statistics exist (`count`: elements per channel
    in the batch, for the unbiased variance)."""
    if running_mean is None and running_var is None:
        return
    BatchNormUpdate(running_mean if running_mean is not None else saved_mean,
                    running_var if running_var is not None else saved_rstd, saved_mean, saved_rstd,
                    momentum=float(momentum), eps=float(eps), update_mean=running_mean is not None,
                    update_var=running_var is not None, count=int(count))


def _per_channel(shape: tuple[int, ...], c: int) -> int:
    """Elements per channel of a batch of `shape` with `c` channels (the unbiased variance's N)."""
    return int(np.prod(shape)) // max(c, 1)


def batch_norm(input_x: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None,
               bias: Tensor | None, training: bool = False, momentum: float = 0.1, eps: float = 1e-05) -> Tensor:
    """Batch Normalization for input data and updated parameters.

    `input_x` is (N, C) or (N, C, ...). In training the batch statistics normalise the input and the
    running statistics are updated in place (not recorded for autodiff) as MindSpore's functional
    form defines momentum::

        running = (1 - momentum) * running + momentum * batch   (variance: the unbiased one, N/(N-1))

    `nn.BatchNorm2d(momentum=0.9)` uses the opposite convention (momentum weights the running value);
    a layer converts by calling this function with ``momentum=1 - layer_momentum``.
    `weight`/`bias` of None act as ones/zeros. Without training, the running statistics are used.
    """
    c = _bn_layout("batch_norm", input_x.shape, "NCHW")[1]
    pdt = next((t.dtype for t in (weight, bias, running_mean, running_var) if t is not None), input_x.dtype)
    weight = weight if weight is not None else Tensor._wrap(np.ones(c, pdt.np))
    bias = bias if bias is not None else Tensor._wrap(np.zeros(c, pdt.np))
    if not training and (running_mean is None or running_var is None):
        raise ValueError("batch_norm: running_mean and running_var are needed when training=False")
    mean = running_mean if running_mean is not None else Tensor._wrap(np.zeros(c, pdt.np))
    var = running_var if running_var is not None else Tensor._wrap(np.ones(c, pdt.np))
    y, saved_mean, saved_rstd = BatchNorm(input_x, weight, bias, mean, var, is_training=bool(training),
                                          epsilon=float(eps))
    if training:
        _update_running_stats(running_mean, running_var, saved_mean, saved_rstd, float(momentum), float(eps),
                              _per_channel(input_x.shape, c))
    return y


# --- layer norm --------------------------------------------------------------------------------

def _ln_axes(op: str, x: Any, begin_norm_axis: int, begin_params_axis: int) -> tuple[int, int]:
    nd = len(x.shape)
    if nd == 0:
        raise ShapeError(op, "an input of rank >= 1", "a scalar")
    return norm_axis(op, begin_norm_axis, nd), norm_axis(op, begin_params_axis, nd)


def _ln_stat_shape(shape: Sequence[int], bna: int) -> tuple[int, ...]:
    return tuple(shape[:bna]) + (1,) * (len(shape) - bna)


def _ln_numpy_forward(x, gamma, beta, bna: int, eps: float):
    axes = tuple(range(bna, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    xc = x - mean
    rstd = 1.0 / np.sqrt(np.mean(xc * xc, axis=axes, keepdims=True) + eps)
    return xc * rstd * gamma + beta, mean, rstd


def _ln_numpy_backward(dy, x, gamma, mean, rstd, dmean, drstd, bna: int, bpa: int):
    axes = tuple(range(bna, x.ndim))
    d = math.prod(x.shape[bna:])
    xhat = (x - mean) * rstd
    gx = dy * gamma
    s1 = gx.mean(axis=axes, keepdims=True)
    s2 = np.mean(gx * xhat, axis=axes, keepdims=True)
    dx = rstd * (gx - s1 - xhat * s2) + dmean / d - drstd * rstd * rstd * xhat / d
    lead = tuple(range(bpa))
    return dx, np.sum(dy * xhat, axis=lead), dy.sum(axis=lead)


@primitive
class LayerNorm:
    """Layer normalization over the axes from `begin_norm_axis` on:
    y = (x - mean) / sqrt(var + epsilon) * gamma + beta.

    gamma and beta have the shape ``x.shape[begin_params_axis:]``. Outputs ``(y, mean, rstd)``;
    mean and rstd = 1/sqrt(var + epsilon) keep the normalised axes as size 1 (MindSpore 2.x).
    """
    onnx = OnnxMap(export="layernorm", since=17)

    multi_output = True

    def infer(x, gamma, beta, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
        bna, bpa = _ln_axes("LayerNorm", x, begin_norm_axis, begin_params_axis)
        want = tuple(x.shape[bpa:])
        for name, p in (("gamma", gamma), ("beta", beta)):
            if tuple(p.shape) != want:
                raise ShapeError("LayerNorm", f"{name} of shape {want} (x.shape[{bpa}:] for x {tuple(x.shape)})",
                                 f"{name} of shape {tuple(p.shape)}")
        _require_float("LayerNorm", x=x, gamma=gamma, beta=beta)
        stat = Aval(_ln_stat_shape(x.shape, bna), x.dtype)
        return Aval(tuple(x.shape), x.dtype), stat, stat

    def impl(x, gamma, beta, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
        bna, bpa = _ln_axes("LayerNorm", x, begin_norm_axis, begin_params_axis)
        stat_shape = _ln_stat_shape(x.shape, bna)
        if bna == bpa and _kernel_ok(x, gamma, beta) and x.size:
            m, d = math.prod(x.shape[:bna]), math.prod(x.shape[bna:])
            y, mean, rstd = _kernels.layer_norm_forward(_f32(x).reshape(m, d), _f32(gamma).reshape(d),
                                                        _f32(beta).reshape(d), float(epsilon))
        else:
            f = np.float64 if not _kernel_ok(x, gamma, beta) else np.float32
            y, mean, rstd = _ln_numpy_forward(_as(x, f), _as(gamma, f), _as(beta, f), bna, epsilon)
        dt = x.dtype
        return y.reshape(x.shape).astype(dt, copy=False), mean.reshape(stat_shape).astype(dt, copy=False), \
            rstd.reshape(stat_shape).astype(dt, copy=False)

    def vjp(cots, outs, x, gamma, beta, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
        if not (is_tracked(x) or is_tracked(gamma) or is_tracked(beta)):
            return None, None, None
        gy, gmean, grstd = cots
        _, mean, rstd = outs
        dx, dgamma, dbeta = LayerNormGrad(gy, x, gamma, mean, rstd, gmean, grstd, begin_norm_axis=begin_norm_axis,
                                          begin_params_axis=begin_params_axis)
        return (dx if is_tracked(x) else None, dgamma if is_tracked(gamma) else None,
                dbeta if is_tracked(beta) else None)


@primitive
class LayerNormGrad:
    """Gradient of LayerNorm: (dx, dgamma, dbeta) from dy and the saved row statistics.

    `dmean`/`drstd` are the cotangents of LayerNorm's mean/rstd outputs (zeros when unused).
    """

    multi_output = True

    def infer(dy, x, gamma, mean, rstd, dmean, drstd, begin_norm_axis=1, begin_params_axis=1):
        if tuple(dy.shape) != tuple(x.shape):
            raise ShapeError("LayerNormGrad", f"dy of the shape of x {tuple(x.shape)}", f"{tuple(dy.shape)}")
        return Aval(tuple(x.shape), x.dtype), Aval(tuple(gamma.shape), gamma.dtype), \
            Aval(tuple(gamma.shape), gamma.dtype)

    def impl(dy, x, gamma, mean, rstd, dmean, drstd, begin_norm_axis=1, begin_params_axis=1):
        bna, bpa = _ln_axes("LayerNormGrad", x, begin_norm_axis, begin_params_axis)
        arrays = (dy, x, gamma, mean, rstd, dmean, drstd)
        if bna == bpa and _kernel_ok(*arrays) and x.size:
            m, d = math.prod(x.shape[:bna]), math.prod(x.shape[bna:])
            dx, dg, db = _kernels.layer_norm_backward(
                _f32(dy).reshape(m, d), _f32(x).reshape(m, d), _f32(gamma).reshape(d), _f32(mean).reshape(m),
                _f32(rstd).reshape(m), _f32(dmean).reshape(m), _f32(drstd).reshape(m))
        else:
            f = np.float64 if not _kernel_ok(*arrays) else np.float32
            dx, dg, db = _ln_numpy_backward(*(_as(a, f) for a in arrays), bna, bpa)
        gdt = gamma.dtype
        return dx.reshape(x.shape).astype(x.dtype, copy=False), dg.reshape(gamma.shape).astype(gdt, copy=False), \
            db.reshape(gamma.shape).astype(gdt, copy=False)


def layer_norm(input: Tensor, normalized_shape: int | Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-05) -> Tensor:
    """Applies the Layer Normalization to the mini-batch input over its trailing `normalized_shape`.

    `weight`/`bias` have shape `normalized_shape`; None acts as ones/zeros.
    """
    ns = (int(normalized_shape),) if isinstance(normalized_shape, (int, np.integer)) else \
        tuple(int(s) for s in normalized_shape)
    k = len(ns)
    if k == 0 or k > input.ndim or tuple(input.shape[input.ndim - k:]) != ns:
        raise ShapeError("layer_norm", f"an input whose trailing dimensions are normalized_shape {ns}",
                         f"input of shape {tuple(input.shape)}")
    axis = input.ndim - k
    dt = input.dtype.np
    weight = weight if weight is not None else Tensor._wrap(np.ones(ns, dt))
    bias = bias if bias is not None else Tensor._wrap(np.zeros(ns, dt))
    y, _, _ = LayerNorm(input, weight, bias, begin_norm_axis=axis, begin_params_axis=axis, epsilon=float(eps))
    return y
