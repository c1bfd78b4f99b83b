"""MindSpore's `nn.AdaFactor` and `nn.LARS` (issue 14), transcribed from MindSpore's own update
code (NumPy, per parameter).

AdaFactor (Shazeer & Stern 2018), with ``t`` the step (1 on the first call):
``beta2t = 1 - t^-decay_rate``; the rate is `learning_rate`, or with ``relative_step``
``min(1e-2, 1/sqrt(t))`` (``min(1e-6 t, 1/sqrt(t))`` with warmup_init), times
``max(eps[1], RMS(p))`` when ``scale_parameter``. With ``u = g^2 + eps[0]``: a matrix (rank >= 2)
keeps running means of u over its last axis (``exp_avg_sq_row``) and over its second-to-last
(``exp_avg_sq_col``) and uses ``U = g / sqrt(row / mean(row) * col)``; a vector keeps
``exp_avg_sq`` and uses ``U = g / sqrt(exp_avg_sq)``. Then ``U /= max(1, RMS(U) / clip_threshold)``,
``U *= rate``; with beta1 > 0, ``exp_avg = beta1 exp_avg + (1 - beta1) U`` is the step;
``p -= p * weight_decay * rate`` when weight_decay > 0; ``p -= step``. As in MindSpore, the
gradients are not divided by `loss_scale`.

LARS wraps another optimizer: each gradient the `lars_filter` accepts is replaced by
``ops.LARSUpdate(epsilon, coefficient, use_clip)`` of it (its weight decay taken over from the
wrapped optimizer, which then decays nothing itself; divided by loss_scale, as MindSpore does),
and the wrapped optimizer applies the step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...tensor import Parameter, ParameterTuple, Tensor
from . import _fused
from .optimizer import Optimizer, opt_init_args_register

__all__ = ["AdaFactor", "LARS"]


def _rms(x: np.ndarray) -> Any:
    return np.sqrt(np.mean(np.square(x)))


class AdaFactor(Optimizer):
    """``AdaFactor(params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0,
    decay_rate=0.8, beta1=0.9, weight_decay=0.0, scale_parameter=True, relative_step=True,
    warmup_init=False, compression=False, loss_scale=1.0)``; state ``exp_avg.*``,
    ``exp_avg_sq_row_*``, ``exp_avg_sq_col_*``, ``exp_avg_sq_*`` and the step ``afactor_step``."""

    @opt_init_args_register
    def __init__(self, params: Any, learning_rate: Any = None, eps: Any = (1e-30, 1e-3), clip_threshold: float = 1.0,
                 decay_rate: float = 0.8, beta1: float = 0.9, weight_decay: float = 0.0, scale_parameter: bool = True,
                 relative_step: bool = True, warmup_init: bool = False, compression: bool = False,
                 loss_scale: float = 1.0) -> None:
        who = "AdaFactor"
        if learning_rate is not None and relative_step:
            raise ValueError(f"{who}: cannot combine a manual learning_rate with relative_step=True")
        if warmup_init and not relative_step:
            raise ValueError(f"{who}: warmup_init requires relative_step=True")
        if learning_rate is None and not relative_step:
            raise ValueError(f"{who}: learning_rate is None and relative_step=False")
        learning_rate = 0.0 if learning_rate is None else learning_rate
        beta1 = 0.0 if beta1 is None else beta1
        self.scale_lr = isinstance(learning_rate, (float, int))
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if not isinstance(eps, (list, tuple)) or len(eps) != 2 or not all(isinstance(e, float) and e >= 0
                                                                        for e in eps):
            raise ValueError(f"{who}: eps must be 2 non-negative floats (eps1, eps2), got {eps!r}")
        if not isinstance(clip_threshold, float) or clip_threshold < 0:
            raise ValueError(f"{who}: clip_threshold must be a non-negative float, got {clip_threshold!r}")
        if not isinstance(decay_rate, float) or not 0 < decay_rate < 1:
            raise ValueError(f"{who}: decay_rate must be a float in (0, 1), got {decay_rate!r}")
        if not 0 <= float(weight_decay) < 1:
            raise ValueError(f"{who}: weight_decay must be in [0, 1), got {weight_decay!r}")
        for n, v in (("scale_parameter", scale_parameter), ("relative_step", relative_step),
                     ("compression", compression)):
            if not isinstance(v, bool):
                raise TypeError(f"{who}: {n} must be a bool, got {type(v).__name__}")
        if isinstance(beta1, bool) or not isinstance(beta1, (int, float)) or beta1 < 0:
            raise ValueError(f"{who}: beta1 must be a non-negative float, got {beta1!r}")
        self.eps = (float(eps[0]), float(eps[1]))
        self.clip_threshold, self.decay_rate, self.beta1 = float(clip_threshold), float(decay_rate), float(beta1)
        self.weight_decay_value = float(weight_decay)
        self.weight_decay_flag = bool(weight_decay)
        self.scale_parameter = scale_parameter and self.scale_lr
        self.relative_step, self.warmup_init, self.compression = relative_step, warmup_init, compression
        self.use_first_moment = self.beta1 > 0
        plist = list(self.parameters)
        self.exp_avg = self._clone_state("exp_avg", 0.0) if self.use_first_moment else \
            ParameterTuple(Parameter(np.zeros((), np.float32), name=f"exp_avg_unused_{i}", requires_grad=False)
                           for i in range(len(plist)))
        rows, cols, sqs = [], [], []
        for p in plist:
            dt, shp = p.dtype.np, tuple(p.shape)
            if len(shp) > 1:
                rows.append(Parameter(np.zeros(shp[:-1], dt), name=f"exp_avg_sq_row_{p.name}", requires_grad=False))
                cols.append(Parameter(np.zeros(shp[:-2] + shp[-1:], dt), name=f"exp_avg_sq_col_{p.name}",
                                      requires_grad=False))
                sqs.append(Parameter(np.zeros((1,), dt), name=f"exp_avg_sq_{p.name}", requires_grad=False))
            else:
                rows.append(Parameter(np.zeros((1,), dt), name=f"exp_avg_sq_row_{p.name}", requires_grad=False))
                cols.append(Parameter(np.zeros((1,), dt), name=f"exp_avg_sq_col_{p.name}", requires_grad=False))
                sqs.append(Parameter(np.zeros(shp, np.float16 if compression else dt), name=f"exp_avg_sq_{p.name}",
                                     requires_grad=False))
        self.exp_avg_sq_row, self.exp_avg_sq_col = ParameterTuple(rows), ParameterTuple(cols)
        self.exp_avg_sq = ParameterTuple(sqs)
        self.step = Parameter(np.zeros([1], np.float32), name="afactor_step", requires_grad=False)

    def construct(self, gradients: tuple) -> Any:
        pdata, gdata = self._prepare(gradients)
        lrs = self._step_lrs()
        self.step._data += 1
        t = float(self.step._data[0])
        beta2t = 1.0 - t ** (-self.decay_rate)
        for i, (w, g) in enumerate(zip(pdata, gdata)):
            lr = lrs[i if len(lrs) > 1 else 0]
            if self.scale_lr and self.relative_step:
                lr = min(1e-6 * t if self.warmup_init else 1e-2, 1.0 / np.sqrt(t))
            g = g.astype(np.float32)
            p = w.astype(np.float32)
            rate = lr * max(self.eps[1], float(_rms(p))) if self.scale_parameter else lr
            u = g * g + np.float32(self.eps[0])
            if g.ndim >= 2:
                row, col = self.exp_avg_sq_row[i]._data, self.exp_avg_sq_col[i]._data
                r = row.astype(np.float32) * beta2t + u.mean(-1) * (1.0 - beta2t)
                c = col.astype(np.float32) * beta2t + u.mean(-2) * (1.0 - beta2t)
                _fused.write(row, r)
                _fused.write(col, c)
                r_factor = (1.0 / np.sqrt(r / r.mean(-1, keepdims=True)))[..., None]
                c_factor = (1.0 / np.sqrt(c))[..., None, :]
                upd = r_factor * c_factor * g
            else:
                sq = self.exp_avg_sq[i]._data
                v = sq.astype(np.float32) * beta2t + u * (1.0 - beta2t)
                _fused.write(sq, v)
                upd = g / np.sqrt(sq.astype(np.float32))
            upd = upd / max(float(_rms(upd)) / self.clip_threshold, 1.0) * np.float32(rate)
            if self.use_first_moment:
                m = self.exp_avg[i]._data
                _fused.write(m, m.astype(np.float32) * self.beta1 + upd * (1.0 - self.beta1))
                upd = m.astype(np.float32)
            if self.weight_decay_flag:
                p = p + p * np.float32(-self.weight_decay_value * rate)
            _fused.write(w, p - upd)
        return self._success()


def _default_lars_filter(x: Parameter) -> bool:
    return "LayerNorm" not in x.name and "bias" not in x.name


class LARS(Optimizer):
    """``LARS(optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False,
    lars_filter=lambda x: 'LayerNorm' not in x.name and 'bias' not in x.name)``: layer-wise
    adaptive rate scaling around `optimizer` (see the module docstring); returns what the
    wrapped optimizer returns."""

    @opt_init_args_register
    def __init__(self, optimizer: Optimizer, epsilon: float = 1e-05, coefficient: float = 0.001,
                 use_clip: bool = False, lars_filter: Callable = _default_lars_filter) -> None:
        from ...ops.train_misc_ops import LARSUpdate

        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"LARS: optimizer must be an nn.Optimizer, got {type(optimizer).__name__}")
        super().__init__(0.0, [Parameter(np.zeros((), np.float32), name="fake_param")])
        self.opt = optimizer
        self.parameters = optimizer.parameters
        self._params = list(optimizer.parameters)
        self.param_length = len(self._params)
        self.use_clip = use_clip
        self.lars_flag = tuple(bool(lars_filter(p)) for p in self._params)
        self.lars = LARSUpdate(epsilon, coefficient, use_clip)
        self.learning_rate = optimizer.learning_rate
        ls = optimizer.loss_scale
        self._lars_wd = [w / ls for w in optimizer._decays()]
        self._reciprocal = 1.0 / ls
        # the wrapped optimizer neither decays nor unscales any more: LARS did both
        n = len(self._params)
        optimizer.exec_weight_decay = False
        optimizer.dynamic_weight_decay = False
        optimizer.decay_flags = (False,) * n
        optimizer._wd_static = [0.0] * n
        if hasattr(optimizer, "_sgd_wd"):
            optimizer._sgd_wd = [0.0] * n
        optimizer.need_scale = False
        optimizer._grad_scale = 1.0

    def construct(self, gradients: tuple) -> Any:
        pdata, gdata = self._prepare(gradients)
        lr = 0.0
        if self.use_clip:
            lr = self.opt.get_lr()
            lr = lr[0] if isinstance(lr, tuple) else lr
            lr = float(np.asarray(lr.asnumpy() if isinstance(lr, Tensor) else lr).reshape(-1)[0])
        out = []
        for i, (w, g) in enumerate(zip(pdata, gdata)):
            g = g * np.asarray(self._reciprocal, g.dtype) if self._reciprocal != 1.0 else g
            if self.lars_flag[i]:
                wt, gt = Tensor._wrap(w), Tensor._wrap(np.asarray(g))
                new = self.lars(wt, gt, Tensor._wrap(np.asarray(np.sum(np.square(w)), w.dtype)),
                                Tensor._wrap(np.asarray(np.sum(np.square(g)), w.dtype)), self._lars_wd[i], lr)
                out.append(new)
            else:
                out.append(Tensor._wrap(np.asarray(g)))
        return self.opt.construct(tuple(out))
