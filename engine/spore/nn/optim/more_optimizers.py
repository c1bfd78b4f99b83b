"""More of MindSpore's optimizers (issue 14): AdaMax, ASGD, Rprop, ProximalAdagrad, LazyAdam, Lamb
and FTRL, with MindSpore 2.10's arguments, defaults, state names and update rules (NumPy updates).

Per parameter ``g = grad / loss_scale (+ weight_decay * p`` for decayed parameters; Lamb adds the
decay to its update instead, as MindSpore's does). With ``t`` the step number (1 on the first call):

- AdaMax (`ApplyAdaMax`): ``m = b1 m + (1 - b1) g; v = max(b2 v, |g|); p -= lr / (1 - b1^t) * m / (v + eps)``.
- ASGD (PyTorch's averaged SGD, as MindSpore's): ``p *= 1 - lambd * eta; p -= eta * g;
  ax += mu (p - ax)`` (``ax = p`` while mu is 1); then ``eta = lr / (1 + lambd lr t)^alpha``,
  ``mu = 1 / max(1, t - t0)``.
- Rprop: per element, the step size grows by etas[1] while the gradient keeps its sign and
  shrinks by etas[0] when it flips (clipped to step_sizes; a flipped gradient counts as 0 for that
  step); ``p -= sign(g) * step_size``.
- ProximalAdagrad (`ApplyProximalAdagrad`): ``accum += g^2; v = p - lr g / sqrt(accum);
  p = sign(v) max(|v| - lr l1, 0) / (1 + lr l2)``.
- LazyAdam: Adam; its "lazy" row-sparse update only differs for sparse gradients, which Spore does
  not produce — dense gradients update every row, as MindSpore's LazyAdam does with dense ones.
- Lamb: Adam's bias-corrected direction ``u = m_hat / (sqrt(v_hat) + eps) + wd p``, scaled by the
  trust ratio ``||p|| / ||u||`` (1 where either norm is 0): ``p -= lr * ratio * u``.
- FTRL (`ApplyFtrl`): ``a' = a + g^2; linear += g - (a'^-lr_power - a^-lr_power) / lr * p;
  p = (sign(linear) l1 - linear) / (a'^-lr_power / lr + 2 l2)`` where ``|linear| > l1``, else 0.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...tensor import Parameter
from . import _fused
from .adam import Adam
from .optimizer import Optimizer, opt_init_args_register

__all__ = ["AdaMax", "ASGD", "Rprop", "ProximalAdagrad", "LazyAdam", "Lamb", "FTRL"]


def _float(cls: str, name: str, value: Any, lo: float | None = None, hi: float | None = None,
           open_lo: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{cls}', '{name}' must be a float, got {type(value).__name__}")
    v = float(value)
    if lo is not None and (v <= lo if open_lo else v < lo):
        raise ValueError(f"For '{cls}', '{name}' must be {'>' if open_lo else '>='} {lo}, got {value}")
    if hi is not None and v > hi:
        raise ValueError(f"For '{cls}', '{name}' must be <= {hi}, got {value}")
    return v


class _NumpyOptimizer(Optimizer):
    """Runs `_update(i, w, g, lr, ct)` per parameter with the scaled (and decayed) gradient."""

    _decay_in_grad = True

    def _step_counter(self) -> None:
        self.step = Parameter(np.zeros([1], np.int32), name="step", requires_grad=False)

    def _update(self, i: int, w: np.ndarray, g: np.ndarray, lr: Any, wd: Any, ct: Callable) -> np.ndarray:
        # an internal base: every optimizer in this module defines its own rule
        raise TypeError(f"{type(self).__name__} defines no update rule (_update)")

    def construct(self, grads: tuple) -> Any:
        pdata, gdata = self._prepare(grads)
        wds = self._decays()
        lrs = self._step_lrs()
        if hasattr(self, "step"):
            self.step._data += 1
        for i, (w, g) in enumerate(zip(pdata, gdata)):
            ct = _fused.compute_dtype(w)
            wc = w.astype(ct, copy=False)
            g = g.astype(ct, copy=False) * ct(self._grad_scale)
            wd = ct(wds[i])
            if wds[i] and self._decay_in_grad:
                g = g + wd * wc
            new = self._update(i, wc, g, ct(lrs[i if len(lrs) > 1 else 0]), wd, ct)
            _fused.write(w, new)
        return self._success()


class AdaMax(_NumpyOptimizer):
    """``AdaMax(params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08, weight_decay=0.0,
    loss_scale=1.0)``; state ``moment1.*``, ``moment2.*`` and ``beta1_power``."""

    @opt_init_args_register
    def __init__(self, params: Any, learning_rate: Any = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-08, weight_decay: Any = 0.0, loss_scale: float = 1.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1 = _float(self.cls_name, "beta1", beta1, 0.0, 1.0)
        self.beta2 = _float(self.cls_name, "beta2", beta2, 0.0, 1.0)
        self.eps = _float(self.cls_name, "eps", eps, 0.0, open_lo=True)
        self.moment1 = self._clone_state("moment1", 0.0)
        self.moment2 = self._clone_state("moment2", 0.0)
        self.beta1_power = Parameter(np.ones([1], np.float32), name="beta1_power", requires_grad=False)

    def construct(self, grads: tuple) -> Any:
        self.beta1_power._data *= np.float32(self.beta1)
        return super().construct(grads)

    def _update(self, i, w, g, lr, wd, ct):
        b1, b2 = ct(self.beta1), ct(self.beta2)
        m = self.moment1[i]._data.astype(ct) * b1 + (ct(1) - b1) * g
        v = np.maximum(self.moment2[i]._data.astype(ct) * b2, np.abs(g))
        _fused.write(self.moment1[i]._data, m)
        _fused.write(self.moment2[i]._data, v)
        return w - lr / (ct(1) - ct(self.beta1_power._data[0])) * m / (v + ct(self.eps))


class ASGD(_NumpyOptimizer):
    """``ASGD(params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0)``; state
    ``eta.*``, ``mu.*`` and the average ``ax.*``."""

    @opt_init_args_register
    def __init__(self, params: Any, learning_rate: Any = 0.1, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: Any = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay, 1.0)
        self.lambd = _float(self.cls_name, "lambd", lambd)
        self.alpha = _float(self.cls_name, "alpha", alpha)
        self.t0 = _float(self.cls_name, "t0", t0)
        lr0 = float(np.asarray(self._step_lrs_peek()).reshape(-1)[0])
        self.eta = self._clone_state("eta", lr0)
        self.mu = self._clone_state("mu", 1.0)
        self.ax = self._clone_state("ax", 0.0)
        self._step_counter()

    def _step_lrs_peek(self) -> float:
        from ._rates import rate_value

        return rate_value(self._lr_unique[0], 0)

    def _update(self, i, w, g, lr, wd, ct):
        eta = self.eta[i]._data.astype(ct)
        mu = self.mu[i]._data.astype(ct)
        w = w * (ct(1) - ct(self.lambd) * eta) - eta * g
        ax = self.ax[i]._data.astype(ct)
        ax = np.where(mu != 1, ax + (w - ax) * mu, w)
        t = float(self.step._data[0])
        _fused.write(self.ax[i]._data, ax)
        _fused.write(self.eta[i]._data, np.full_like(eta, lr / (1 + self.lambd * float(lr) * t) ** self.alpha))
        _fused.write(self.mu[i]._data, np.full_like(mu, 1.0 / max(1.0, t - self.t0)))
        return w


class Rprop(_NumpyOptimizer):
    """``Rprop(params, learning_rate=0.01, etas=(0.5, 1.2), step_sizes=(1e-6, 50.0), weight_decay=0.0)``;
    state ``prev.*`` (the last gradient) and ``step_size.*``."""

    @opt_init_args_register
    def __init__(self, params: Any, learning_rate: Any = 0.01, etas: tuple = (0.5, 1.2),
                 step_sizes: tuple = (1e-6, 50.0), weight_decay: Any = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay, 1.0)
        if len(etas) != 2 or not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"For '{self.cls_name}', 'etas' must be (etaminus, etaplus) with 0 < etaminus < 1 "
                             f"< etaplus, got {etas!r}")
        if len(step_sizes) != 2 or not 0.0 <= step_sizes[0] <= step_sizes[1]:
            raise ValueError(f"For '{self.cls_name}', 'step_sizes' must be (min, max) with 0 <= min <= max, "
                             f"got {step_sizes!r}")
        self.etaminus, self.etaplus = float(etas[0]), float(etas[1])
        self.step_size_min, self.step_size_max = float(step_sizes[0]), float(step_sizes[1])
        from ._rates import rate_value

        self.prev = self._clone_state("prev", 0.0)
        self.step_size = self._clone_state("step_size", float(np.asarray(rate_value(self._lr_unique[0], 0))
                                                              .reshape(-1)[0]))

    def _update(self, i, w, g, lr, wd, ct):
        sign = np.sign(g * self.prev[i]._data.astype(ct))
        size = self.step_size[i]._data.astype(ct)
        size = np.where(sign > 0, np.minimum(size * ct(self.etaplus), ct(self.step_size_max)),
                        np.where(sign < 0, np.maximum(size * ct(self.etaminus), ct(self.step_size_min)), size))
        g = np.where(sign < 0, ct(0), g)
        _fused.write(self.step_size[i]._data, size)
        _fused.write(self.prev[i]._data, g)
        return w - np.sign(g) * size


class ProximalAdagrad(_NumpyOptimizer):
    """``ProximalAdagrad(params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False,
    loss_scale=1.0, weight_decay=0.0)``; state ``accum.*`` starting at `accum`."""

    @opt_init_args_register
    def __init__(self, params: Any, accum: float = 0.1, learning_rate: Any = 0.001, l1: float = 0.0, l2: float = 0.0,
                 use_locking: bool = False, loss_scale: float = 1.0, weight_decay: Any = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.initial_accum = _float(self.cls_name, "accum", accum, 0.0)
        self.l1 = _float(self.cls_name, "l1", l1, 0.0)
        self.l2 = _float(self.cls_name, "l2", l2, 0.0)
        self.use_locking = bool(use_locking)
        self.accum = self._clone_state("accum", self.initial_accum)

    def _update(self, i, w, g, lr, wd, ct):
        acc = self.accum[i]._data.astype(ct) + g * g
        _fused.write(self.accum[i]._data, acc)
        v = w - lr * g / np.sqrt(acc)
        return np.sign(v) * np.maximum(np.abs(v) - lr * ct(self.l1), ct(0)) / (ct(1) + lr * ct(self.l2))


class LazyAdam(Adam):
    """``LazyAdam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
    use_nesterov=False, weight_decay=0.0, loss_scale=1.0)``: Adam on dense gradients."""

    @opt_init_args_register
    def __init__(self, params: Any, learning_rate: Any = 1e-3, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8, use_locking: bool = False, use_nesterov: bool = False, weight_decay: Any = 0.0,
                 loss_scale: float = 1.0) -> None:
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov, weight_decay,
                         loss_scale)


class Lamb(_NumpyOptimizer):
    """``Lamb(params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0)``; state
    ``moments1.*``, ``moments2.*`` and ``global_step``-independent step counter ``step``."""

    _decay_in_grad = False

    @opt_init_args_register
    def __init__(self, params: Any, learning_rate: Any, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-6,
                 weight_decay: Any = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay, 1.0)
        self.beta1 = _float(self.cls_name, "beta1", beta1, 0.0, 1.0, open_lo=True)
        self.beta2 = _float(self.cls_name, "beta2", beta2, 0.0, 1.0, open_lo=True)
        self.eps = _float(self.cls_name, "eps", eps, 0.0, open_lo=True)
        self.moments1 = self._clone_state("lamb_m", 0.0)
        self.moments2 = self._clone_state("lamb_v", 0.0)
        self._step_counter()

    def _update(self, i, w, g, lr, wd, ct):
        b1, b2, t = ct(self.beta1), ct(self.beta2), int(self.step._data[0])
        m = self.moments1[i]._data.astype(ct) * b1 + (ct(1) - b1) * g
        v = self.moments2[i]._data.astype(ct) * b2 + (ct(1) - b2) * g * g
        _fused.write(self.moments1[i]._data, m)
        _fused.write(self.moments2[i]._data, v)
        u = (m / (ct(1) - b1 ** t)) / (np.sqrt(v / (ct(1) - b2 ** t)) + ct(self.eps))
        if wd:
            u = u + wd * w
        wn, un = float(np.linalg.norm(w)), float(np.linalg.norm(u))
        ratio = wn / un if wn > 0 and un > 0 else 1.0
        return w - lr * ct(ratio) * u


class FTRL(_NumpyOptimizer):
    """``FTRL(params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0, l2=0.0,
    use_locking=False, loss_scale=1.0, weight_decay=0.0)``; state ``moments.*`` (the accumulators)
    and ``linear.*``."""

    @opt_init_args_register
    def __init__(self, params: Any, initial_accum: float = 0.1, learning_rate: Any = 0.001, lr_power: float = -0.5,
                 l1: float = 0.0, l2: float = 0.0, use_locking: bool = False, loss_scale: float = 1.0,
                 weight_decay: Any = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.initial_accum = _float(self.cls_name, "initial_accum", initial_accum, 0.0)
        self.lr_power = _float(self.cls_name, "lr_power", lr_power, hi=0.0)
        self.l1 = _float(self.cls_name, "l1", l1, 0.0)
        self.l2 = _float(self.cls_name, "l2", l2, 0.0)
        self.use_locking = bool(use_locking)
        self.moments = self._clone_state("moments", self.initial_accum)
        self.linear = self._clone_state("linear", 0.0)

    def _update(self, i, w, g, lr, wd, ct):
        acc = self.moments[i]._data.astype(ct)
        new_acc = acc + g * g
        p = ct(-self.lr_power)
        lin = self.linear[i]._data.astype(ct) + g - (new_acc ** p - acc ** p) / lr * w
        quad = new_acc ** p / lr + ct(2 * self.l2)
        _fused.write(self.moments[i]._data, new_acc)
        _fused.write(self.linear[i]._data, lin)
        return np.where(np.abs(lin) > ct(self.l1), (np.sign(lin) * ct(self.l1) - lin) / quad, ct(0))
