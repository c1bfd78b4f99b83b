"""`Adam` and `AdamWeightDecay` (alias `AdamW`), with MindSpore's update formulas.

**Adam** (MindSpore runs `ops.Adam`, or `ops.ApplyAdamWithAmsgrad` with ``use_amsgrad``)::

    g = grad / loss_scale + weight_decay * p        # L2: decay joins the gradient (not 'beta'/'gamma' params)
    beta1_power *= beta1; beta2_power *= beta2      # float32 Parameters, start at 1
    m = m + (g - m) * (1 - beta1)                   # = beta1 m + (1 - beta1) g
    v = v + (g * g - v) * (1 - beta2)
    lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
    p -= lr_t * m / (sqrt(v) + eps)                                 default
    p -= lr_t * (beta1 * m + (1 - beta1) * g) / (sqrt(v) + eps)     use_nesterov
    vhat = max(vhat, v); p -= lr_t * m / (sqrt(vhat) + eps)         use_amsgrad (nesterov ignored)

The nn.Adam page writes PyTorch's form ``m_hat / (sqrt(v_hat) + eps)``; the kernel MindSpore runs
adds eps to the *uncorrected* ``sqrt(v)`` (TensorFlow's "epsilon hat"), which equals PyTorch's
update with ``eps * sqrt(1 - beta2^t)`` in place of eps. Spore follows the kernel, so results match
MindSpore; without weight decay they match `torch.optim.Adam` up to that eps scaling (identical
when eps is negligible next to sqrt(v)). State: ``moment1.<name>``, ``moment2.<name>``
(``vhat.<name>`` with AMSGrad), ``beta1_power``, ``beta2_power``.

**AdamWeightDecay** (decoupled weight decay, no bias correction; MindSpore's fused CPU kernel)::

    m = m + (g - m) * (1 - beta1);  v = v + (g * g - v) * (1 - beta2)
    p -= lr * (m / (sqrt(v) + eps) + weight_decay * p)      # decay on non-'beta'/'gamma' params

State: ``adam_m.<name>``, ``adam_v.<name>``. It has no loss_scale argument, as in MindSpore.

**AdamW** is an alias of `AdamWeightDecay`: MindSpore's `nn` has no `AdamW`; its decoupled-decay
Adam is `nn.AdamWeightDecay` (eps=1e-6, no bias correction), so that is what the name means here.
It is *not* `torch.optim.AdamW`: that one decays the same way (``p -= lr * weight_decay * p``)
but bias-corrects the moments (``m / (1 - beta1^t)``, ``v / (1 - beta2^t)``) and defaults to
eps=1e-8, weight_decay=0.01; port PyTorch AdamW code with care.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import _fused
from .optimizer import Optimizer, opt_init_args_register

__all__ = ["Adam", "AdamWeightDecay", "AdamW"]


def _check_betas(beta1: Any, beta2: Any, eps: Any, cls: str) -> tuple[float, float, float]:
    for name, value in (("beta1", beta1), ("beta2", beta2), ("eps", eps)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"For '{cls}', '{name}' must be a float, got {type(value).__name__}")
    for name, value in (("beta1", beta1), ("beta2", beta2)):
        if not 0.0 < value < 1.0:
            raise ValueError(f"For '{cls}', '{name}' must be in (0.0, 1.0), got {value}")
    if not eps > 0:
        raise ValueError(f"For '{cls}', 'eps' must be greater than 0, got {eps}")
    return float(beta1), float(beta2), float(eps)


def _numpy_adam(pdata: list, gdata: list, m: Any, v: Any, vhat: Any, lrs: list[float], wds: list[float],
                beta1: float, beta2: float, eps: float, grad_scale: float, decoupled: bool, nesterov: bool) -> None:
    """The NumPy form of the fused kernel (same operation order), for non-float32 buffers."""
    for i, (w, g) in enumerate(zip(pdata, gdata)):
        ct = _fused.compute_dtype(w)
        wc = w.astype(ct, copy=False)
        g = g.astype(ct, copy=False) * ct(grad_scale)
        wd = ct(wds[i])
        if wd and not decoupled:
            g = g + wd * wc
        mi, vi = m[i]._data, v[i]._data
        m_new = mi.astype(ct) + (g - mi.astype(ct)) * (ct(1) - ct(beta1))  # 1 - beta in the compute dtype,
        v_new = vi.astype(ct) + (g * g - vi.astype(ct)) * (ct(1) - ct(beta2))  # as the kernels form it
        _fused.write(mi, m_new)
        _fused.write(vi, v_new)
        denom = v_new
        if vhat is not None:
            denom = np.maximum(vhat[i]._data.astype(ct), v_new)
            _fused.write(vhat[i]._data, denom)
        num = ct(beta1) * m_new + (ct(1) - ct(beta1)) * g if nesterov else m_new
        upd = num / (np.sqrt(denom) + ct(eps))
        if wd and decoupled:
            upd = upd + wd * wc
        _fused.write(w, wc - ct(lrs[i if len(lrs) > 1 else 0]) * upd)


class Adam(Optimizer):
    """``Adam(params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08, use_locking=False,
    use_nesterov=False, weight_decay=0.0, loss_scale=1.0, use_amsgrad=False, **kwargs)``.

    `use_locking` is accepted and ignored (updates are never concurrent here); the `use_lazy` and
    `use_offload` keywords select MindSpore's sparse/offload variants, which are the same dense
    update on CPU, so they are accepted and validated only.
    """

    @opt_init_args_register
    def __init__(self, params: Any, learning_rate: Any = 1e-3, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8, use_locking: bool = False, use_nesterov: bool = False, weight_decay: Any = 0.0,
                 loss_scale: float = 1.0, use_amsgrad: bool = False, **kwargs: Any) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1, self.beta2, self.eps = _check_betas(beta1, beta2, eps, self.cls_name)
        unknown = set(kwargs) - {"use_lazy", "use_offload"}
        if unknown:
            raise TypeError(f"For '{self.cls_name}', unexpected keyword arguments {sorted(unknown)}")
        flags = {"use_locking": use_locking, "use_nesterov": use_nesterov, "use_amsgrad": use_amsgrad,
                 "use_lazy": kwargs.get("use_lazy", False), "use_offload": kwargs.get("use_offload", False)}
        for name, value in flags.items():
            if not isinstance(value, bool):
                raise TypeError(f"For '{self.cls_name}', '{name}' must be a bool, got {type(value).__name__}")
        if flags["use_lazy"] and flags["use_offload"]:
            raise ValueError(f"For '{self.cls_name}', 'use_lazy' and 'use_offload' can not both be True")
        if use_amsgrad and (flags["use_lazy"] or flags["use_offload"]):
            raise ValueError(f"For '{self.cls_name}', 'use_amsgrad' can not be combined with use_lazy/use_offload")
        self.use_locking, self.use_nesterov, self.use_amsgrad = use_locking, use_nesterov, use_amsgrad
        self.use_lazy, self.use_offload = flags["use_lazy"], flags["use_offload"]
        self.beta1_power = self._scalar_state("beta1_power", 1.0)
        self.beta2_power = self._scalar_state("beta2_power", 1.0)
        self.moment1 = self._clone_state("moment1", 0.0)
        self.moment2 = self._clone_state("moment2", 0.0)
        self.vhat = self._clone_state("vhat", 0.0) if use_amsgrad else None
        self._b1 = np.float32(self.beta1)
        self._b2 = np.float32(self.beta2)

    def construct(self, gradients: tuple) -> Any:
        pdata, gdata = self._prepare(gradients)
        wds = self._decays()
        lrs = self._step_lrs()
        b1p = self.beta1_power._data * self._b1  # float32 products, as MindSpore's Parameters hold them
        b2p = self.beta2_power._data * self._b2
        self.beta1_power._data[...] = b1p
        self.beta2_power._data[...] = b2p
        corr = math.sqrt(1.0 - float(b2p)) / (1.0 - float(b1p))
        lrs_t = [lr * corr for lr in lrs]
        nesterov = self.use_nesterov and not self.use_amsgrad
        vhat = self.vhat
        kern = self._fused_ok("adam_update_multi")
        if kern is not None:
            try:
                kern(pdata, gdata, [m._data for m in self.moment1], [v._data for v in self.moment2],
                     None if vhat is None else [h._data for h in vhat], lrs_t, self.beta1, self.beta2, self.eps,
                     wds, self._grad_scale, False, nesterov)
                return self._success()
            except TypeError:
                pass  # a buffer that is not float32/contiguous: the NumPy path below handles it
        _numpy_adam(pdata, gdata, self.moment1, self.moment2, vhat, lrs_t, wds, self.beta1, self.beta2,
                    self.eps, self._grad_scale, False, nesterov)
        return self._success()


class AdamWeightDecay(Optimizer):
    """``AdamWeightDecay(params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-06, weight_decay=0.0)``:
    Adam with decoupled weight decay and no bias correction (see the module docstring)."""

    @opt_init_args_register
    def __init__(self, params: Any, learning_rate: Any = 1e-3, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-6, weight_decay: Any = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay)
        self.beta1, self.beta2, self.eps = _check_betas(beta1, beta2, eps, self.cls_name)
        self.moments1 = self._clone_state("adam_m", 0.0)
        self.moments2 = self._clone_state("adam_v", 0.0)

    def construct(self, gradients: tuple) -> Any:
        pdata, gdata = self._prepare(gradients)
        wds = self._decays()
        lrs = self._step_lrs()
        kern = self._fused_ok("adam_update_multi")
        if kern is not None:
            try:
                kern(pdata, gdata, [m._data for m in self.moments1], [v._data for v in self.moments2], None,
                     lrs, self.beta1, self.beta2, self.eps, wds, 1.0, True, False)
                return self._success()
            except TypeError:
                pass  # a buffer that is not float32/contiguous: the NumPy path below handles it
        _numpy_adam(pdata, gdata, self.moments1, self.moments2, None, lrs, wds, self.beta1, self.beta2, self.eps,
                    1.0, True, False)
        return self._success()


AdamW = AdamWeightDecay
