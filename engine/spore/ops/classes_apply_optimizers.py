"""MindSpore's optimizer-step primitives as class forms (issue 14): `ApplyGradientDescent`,
`ApplyMomentum`, `ApplyKerasMomentum`, `ApplyAdagrad`, `ApplyAdadelta`, `ApplyAdaMax`,
`ApplyAddSign`, `ApplyPowerSign`, `ApplyRMSProp`, `ApplyCenteredRMSProp`, `ApplyProximalAdagrad`,
`ApplyProximalGradientDescent`, `ApplyFtrl`, `ApplyAdamWithAmsgrad`, `Adam`, `AdamWeightDecay`,
`AdamNoUpdateParam`.

Each applies one step of its documented update rule to its state tensors in place (`ops.assign`,
so a Parameter's value changes, as MindSpore's ``Apply*`` ops update their Parameter inputs) and
returns what MindSpore's returns (the variable, or a tuple of the updated state). Scalars such as
`lr` may be Python numbers or 0-D tensors. `use_locking` has nothing to lock on one process.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor
from . import functional as F
from .operation import Operation


def _put(target: Tensor, value: Tensor) -> Tensor:
    return F.assign(target, F.cast(value, target.dtype))


def _sc(x: Any, like: Tensor) -> Tensor:
    """A scalar hyper-parameter as a 0-D tensor of the variable's dtype (a float64 variable is not
    updated with float32 constants)."""
    return F.cast(x, like.dtype) if isinstance(x, Tensor) else Tensor(np.asarray(x, like.dtype.np))


def _prox(prox_v: Tensor, lr: Any, l1: Any, l2: Any) -> Tensor:
    """sign(v) / (1 + lr * l2) * max(|v| - lr * l1, 0)."""
    shrink = F.maximum(F.sub(F.abs(prox_v), F.mul(lr, l1)), 0.0)
    return F.div(F.mul(F.sign(prox_v), shrink), F.add(F.mul(lr, l2), 1.0))


class ApplyGradientDescent(Operation):
    """``ApplyGradientDescent()(var, alpha, delta)``: var -= alpha * delta; returns var."""

    def construct(self, var: Tensor, alpha: Any, delta: Tensor) -> Tensor:
        return _put(var, F.sub(var, F.mul(_sc(alpha, var), delta)))


class ApplyProximalGradientDescent(Operation):
    """``ApplyProximalGradientDescent()(var, alpha, l1, l2, delta)``: a gradient step, then the
    proximal (L1 soft-threshold, L2 shrink) operator; returns var."""

    def construct(self, var: Tensor, alpha: Any, l1: Any, l2: Any, delta: Tensor) -> Tensor:
        a = _sc(alpha, var)
        return _put(var, _prox(F.sub(var, F.mul(a, delta)), a, _sc(l1, var), _sc(l2, var)))


class ApplyMomentum(Operation):
    """``ApplyMomentum(use_nesterov=False, use_locking=False, gradient_scale=1.0)(variable,
    accumulation, learning_rate, gradient, momentum)``: accum = momentum * accum + g;
    var -= lr * accum (nesterov: lr * (g + momentum * accum)); returns the variable."""

    def __init__(self, use_nesterov: bool = False, use_locking: bool = False, gradient_scale: float = 1.0) -> None:
        self.use_nesterov, self.use_locking, self.gradient_scale = use_nesterov, use_locking, gradient_scale

    def construct(self, variable: Tensor, accumulation: Tensor, learning_rate: Any, gradient: Tensor,
                  momentum: Any) -> Tensor:
        g = gradient if self.gradient_scale == 1.0 else F.mul(gradient, self.gradient_scale)
        mom, lr = _sc(momentum, variable), _sc(learning_rate, variable)
        acc = _put(accumulation, F.add(F.mul(accumulation, mom), g))
        step = F.add(g, F.mul(acc, mom)) if self.use_nesterov else acc
        return _put(variable, F.sub(variable, F.mul(lr, step)))


class ApplyKerasMomentum(Operation):
    """``ApplyKerasMomentum(use_locking=False, use_nesterov=False)(var, accum, lr, grad, momentum)``:
    accum = momentum * accum - lr * g; var += accum (nesterov: momentum * accum - lr * g); returns
    (var, accum)."""

    def __init__(self, use_locking: bool = False, use_nesterov: bool = False) -> None:
        self.use_locking, self.use_nesterov = use_locking, use_nesterov

    def construct(self, var: Tensor, accum: Tensor, lr: Any, grad: Tensor, momentum: Any) -> tuple[Tensor, Tensor]:
        lr, mom = _sc(lr, var), _sc(momentum, var)
        acc = _put(accum, F.sub(F.mul(accum, mom), F.mul(lr, grad)))
        step = F.sub(F.mul(acc, mom), F.mul(lr, grad)) if self.use_nesterov else acc
        return _put(var, F.add(var, step)), acc


class ApplyAdagrad(Operation):
    """``ApplyAdagrad(update_slots=True)(var, accum, lr, grad)``: accum += g^2 (when update_slots);
    var -= lr * g / sqrt(accum); returns (var, accum)."""

    def __init__(self, update_slots: bool = True) -> None:
        self.update_slots = update_slots

    def construct(self, var: Tensor, accum: Tensor, lr: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        acc = _put(accum, F.add(accum, F.square(grad))) if self.update_slots else accum
        return _put(var, F.sub(var, F.div(F.mul(_sc(lr, var), grad), F.sqrt(acc)))), acc


class ApplyProximalAdagrad(Operation):
    """``ApplyProximalAdagrad(use_locking=False)(var, accum, lr, l1, l2, grad)``: accum += g^2, an
    Adagrad step, then the proximal operator with lr; returns (var, accum)."""

    def __init__(self, use_locking: bool = False) -> None:
        self.use_locking = use_locking

    def construct(self, var: Tensor, accum: Tensor, lr: Any, l1: Any, l2: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        lr = _sc(lr, var)
        acc = _put(accum, F.add(accum, F.square(grad)))
        prox_v = F.sub(var, F.div(F.mul(lr, grad), F.sqrt(acc)))
        return _put(var, _prox(prox_v, lr, _sc(l1, var), _sc(l2, var))), acc


class ApplyAdadelta(Operation):
    """``ApplyAdadelta()(var, accum, accum_update, lr, rho, epsilon, grad)``: the Adadelta step;
    returns (var, accum, accum_update)."""

    def construct(self, var: Tensor, accum: Tensor, accum_update: Tensor, lr: Any, rho: Any, epsilon: Any,
                  grad: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        rho, eps = _sc(rho, var), _sc(epsilon, var)
        acc = _put(accum, F.add(F.mul(rho, accum), F.mul(F.sub(1.0, rho), F.square(grad))))
        update = F.mul(F.div(F.sqrt(F.add(accum_update, eps)), F.sqrt(F.add(acc, eps))), grad)
        upd = _put(accum_update, F.add(F.mul(rho, accum_update), F.mul(F.sub(1.0, rho), F.square(update))))
        return _put(var, F.sub(var, F.mul(_sc(lr, var), update))), acc, upd


class ApplyAdaMax(Operation):
    """``ApplyAdaMax()(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad)``: m = b1 m + (1 - b1) g,
    v = max(b2 v, |g|), var -= lr / (1 - beta1_power) * m / (v + eps); returns (var, m, v)."""

    def construct(self, var: Tensor, m: Tensor, v: Tensor, beta1_power: Any, lr: Any, beta1: Any, beta2: Any,
                  epsilon: Any, grad: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        b1, b2 = _sc(beta1, var), _sc(beta2, var)
        m2 = _put(m, F.add(F.mul(b1, m), F.mul(F.sub(1.0, b1), grad)))
        v2 = _put(v, F.maximum(F.mul(b2, v), F.abs(grad)))
        step = F.mul(F.div(_sc(lr, var), F.sub(1.0, _sc(beta1_power, var))), F.div(m2, F.add(v2, _sc(epsilon, var))))
        return _put(var, F.sub(var, step)), m2, v2


class ApplyAddSign(Operation):
    """``ApplyAddSign()(var, m, lr, alpha, sign_decay, beta, grad)``: m = beta m + (1 - beta) g,
    var -= lr * (alpha + sign_decay * sign(g) * sign(m)) * g; returns (var, m)."""

    def construct(self, var: Tensor, m: Tensor, lr: Any, alpha: Any, sign_decay: Any, beta: Any,
                  grad: Tensor) -> tuple[Tensor, Tensor]:
        beta = _sc(beta, var)
        m2 = _put(m, F.add(F.mul(beta, m), F.mul(F.sub(1.0, beta), grad)))
        scale = F.add(_sc(alpha, var), F.mul(_sc(sign_decay, var), F.mul(F.sign(grad), F.sign(m2))))
        return _put(var, F.sub(var, F.mul(_sc(lr, var), F.mul(scale, grad)))), m2


class ApplyPowerSign(Operation):
    """``ApplyPowerSign()(var, m, lr, logbase, sign_decay, beta, grad)``: m = beta m + (1 - beta) g,
    var -= lr * exp(logbase * sign_decay * sign(g) * sign(m)) * g; returns (var, m)."""

    def construct(self, var: Tensor, m: Tensor, lr: Any, logbase: Any, sign_decay: Any, beta: Any,
                  grad: Tensor) -> tuple[Tensor, Tensor]:
        beta = _sc(beta, var)
        m2 = _put(m, F.add(F.mul(beta, m), F.mul(F.sub(1.0, beta), grad)))
        scale = F.exp(F.mul(F.mul(_sc(logbase, var), _sc(sign_decay, var)), F.mul(F.sign(grad), F.sign(m2))))
        return _put(var, F.sub(var, F.mul(_sc(lr, var), F.mul(scale, grad)))), m2


class ApplyRMSProp(Operation):
    """``ApplyRMSProp(use_locking=False)(var, mean_square, moment, learning_rate, grad, decay, momentum,
    epsilon)``: ms = decay ms + (1 - decay) g^2, moment = momentum moment + lr g / sqrt(ms + eps),
    var -= moment; returns var."""

    def __init__(self, use_locking: bool = False) -> None:
        self.use_locking = use_locking

    def construct(self, var: Tensor, mean_square: Tensor, moment: Tensor, learning_rate: Any, grad: Tensor,
                  decay: Any, momentum: Any, epsilon: Any) -> Tensor:
        d = _sc(decay, var)
        ms = _put(mean_square, F.add(F.mul(d, mean_square), F.mul(F.sub(1.0, d), F.square(grad))))
        step = F.div(F.mul(_sc(learning_rate, var), grad), F.sqrt(F.add(ms, _sc(epsilon, var))))
        mom = _put(moment, F.add(F.mul(_sc(momentum, var), moment), step))
        return _put(var, F.sub(var, mom))


class ApplyCenteredRMSProp(Operation):
    """``ApplyCenteredRMSProp(use_locking=False)(var, mean_gradient, mean_square, moment, grad,
    learning_rate, decay, momentum, epsilon)``: the centred RMSProp step (the variance estimate is
    ms - mg^2); returns var."""

    def __init__(self, use_locking: bool = False) -> None:
        self.use_locking = use_locking

    def construct(self, var: Tensor, mean_gradient: Tensor, mean_square: Tensor, moment: Tensor, grad: Tensor,
                  learning_rate: Any, decay: Any, momentum: Any, epsilon: Any) -> Tensor:
        d = _sc(decay, var)
        mg = _put(mean_gradient, F.add(F.mul(d, mean_gradient), F.mul(F.sub(1.0, d), grad)))
        ms = _put(mean_square, F.add(F.mul(d, mean_square), F.mul(F.sub(1.0, d), F.square(grad))))
        denom = F.sqrt(F.add(F.sub(ms, F.square(mg)), _sc(epsilon, var)))
        mom = _put(moment, F.add(F.mul(_sc(momentum, var), moment), F.div(F.mul(_sc(learning_rate, var), grad), denom)))
        return _put(var, F.sub(var, mom))


class ApplyFtrl(Operation):
    """``ApplyFtrl(use_locking=False)(var, accum, linear, grad, lr, l1, l2, lr_power)``: the FTRL-proximal
    step (McMahan et al.); returns var."""

    def __init__(self, use_locking: bool = False) -> None:
        self.use_locking = use_locking

    def construct(self, var: Tensor, accum: Tensor, linear: Tensor, grad: Tensor, lr: Any, l1: Any, l2: Any,
                  lr_power: Any) -> Tensor:
        lr, l1, l2, p = _sc(lr, var), _sc(l1, var), _sc(l2, var), _sc(lr_power, var)
        acc_new = F.add(accum, F.square(grad))
        sigma = F.div(F.sub(F.pow(acc_new, F.neg(p)), F.pow(accum, F.neg(p))), lr)
        lin = _put(linear, F.sub(F.add(linear, grad), F.mul(sigma, var)))
        quad = F.add(F.div(F.pow(acc_new, F.neg(p)), lr), F.mul(l2, _sc(2.0, var)))
        new_var = F.where(F.greater(F.abs(lin), l1), F.div(F.sub(F.mul(F.sign(lin), l1), lin), quad),
                          F.zeros_like(var))
        _put(accum, acc_new)
        return _put(var, new_var)


def _adam_moments(m: Tensor, v: Tensor, g: Tensor, b1: Any, b2: Any) -> tuple[Tensor, Tensor]:
    m2 = _put(m, F.add(m, F.mul(F.sub(1.0, b1), F.sub(g, m))))
    v2 = _put(v, F.add(v, F.mul(F.sub(1.0, b2), F.sub(F.square(g), v))))
    return m2, v2


class ApplyAdamWithAmsgrad(Operation):
    """``ApplyAdamWithAmsgrad(beta1=0.9, beta2=0.999, epsilon=1e-08, use_locking=False)(var, m, v,
    vhat, beta1_power, beta2_power, lr, grad)``: Adam with vhat = max(vhat, v) in the denominator;
    returns (var, m, v, vhat)."""

    def __init__(self, beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-08,
                 use_locking: bool = False) -> None:
        self.beta1, self.beta2, self.epsilon, self.use_locking = beta1, beta2, epsilon, use_locking

    def construct(self, var: Tensor, m: Tensor, v: Tensor, vhat: Tensor, beta1_power: Any, beta2_power: Any,
                  lr: Any, grad: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        lr_t = F.div(F.mul(_sc(lr, var), F.sqrt(F.sub(1.0, _sc(beta2_power, var)))), F.sub(1.0, _sc(beta1_power, var)))
        m2, v2 = _adam_moments(m, v, grad, _sc(self.beta1, var), _sc(self.beta2, var))
        vh = _put(vhat, F.maximum(vhat, v2))
        new = F.sub(var, F.div(F.mul(lr_t, m2), F.add(F.sqrt(vh), _sc(self.epsilon, var))))
        return _put(var, new), m2, v2, vh


class Adam(Operation):
    """``Adam(use_locking=False, use_nesterov=False)(var, m, v, beta1_power, beta2_power, lr, beta1,
    beta2, epsilon, gradient)``: one Adam step with the bias correction folded into lr; returns
    (var, m, v)."""

    def __init__(self, use_locking: bool = False, use_nesterov: bool = False) -> None:
        self.use_locking, self.use_nesterov = use_locking, use_nesterov

    def construct(self, var: Tensor, m: Tensor, v: Tensor, beta1_power: Any, beta2_power: Any, lr: Any, beta1: Any,
                  beta2: Any, epsilon: Any, gradient: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        b1, b2 = _sc(beta1, var), _sc(beta2, var)
        lr_t = F.div(F.mul(_sc(lr, var), F.sqrt(F.sub(1.0, _sc(beta2_power, var)))), F.sub(1.0, _sc(beta1_power, var)))
        m2, v2 = _adam_moments(m, v, gradient, b1, b2)
        num = F.add(F.mul(m2, b1), F.mul(F.sub(1.0, b1), gradient)) if self.use_nesterov else m2
        new = F.sub(var, F.div(F.mul(lr_t, num), F.add(F.sqrt(v2), _sc(epsilon, var))))
        return _put(var, new), m2, v2


class AdamNoUpdateParam(Operation):
    """``AdamNoUpdateParam(use_locking=False, use_nesterov=False)(m, v, beta1_power, beta2_power, lr,
    beta1, beta2, epsilon, gradient)``: updates m and v as Adam does and returns the step
    -lr_t * m / (sqrt(v) + eps) for the caller to add to the parameter."""

    def __init__(self, use_locking: bool = False, use_nesterov: bool = False) -> None:
        self.use_locking, self.use_nesterov = use_locking, use_nesterov

    def construct(self, m: Tensor, v: Tensor, beta1_power: Any, beta2_power: Any, lr: Any, beta1: Any, beta2: Any,
                  epsilon: Any, gradient: Tensor) -> Tensor:
        b1, b2 = _sc(beta1, m), _sc(beta2, m)
        lr_t = F.div(F.mul(_sc(lr, m), F.sqrt(F.sub(1.0, _sc(beta2_power, m)))), F.sub(1.0, _sc(beta1_power, m)))
        m2, v2 = _adam_moments(m, v, gradient, b1, b2)
        num = F.add(F.mul(m2, b1), F.mul(F.sub(1.0, b1), gradient)) if self.use_nesterov else m2
        return F.neg(F.div(F.mul(lr_t, num), F.add(F.sqrt(v2), _sc(epsilon, m))))


class AdamWeightDecay(Operation):
    """``AdamWeightDecay(use_locking=False)(var, m, v, lr, beta1, beta2, epsilon, decay, gradient)``:
    m, v as Adam (no bias correction), var -= lr * (m / (sqrt(v) + eps) + decay * var); returns
    (var, m, v)."""

    def __init__(self, use_locking: bool = False) -> None:
        self.use_locking = use_locking

    def construct(self, var: Tensor, m: Tensor, v: Tensor, lr: Any, beta1: Any, beta2: Any, epsilon: Any,
                  decay: Any, gradient: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        b1, b2 = _sc(beta1, var), _sc(beta2, var)
        m2 = _put(m, F.add(F.mul(b1, m), F.mul(F.sub(1.0, b1), gradient)))
        v2 = _put(v, F.add(F.mul(b2, v), F.mul(F.sub(1.0, b2), F.square(gradient))))
        update = F.add(F.div(m2, F.add(F.sqrt(v2), _sc(epsilon, var))), F.mul(_sc(decay, var), var))
        return _put(var, F.sub(var, F.mul(_sc(lr, var), update))), m2, v2


__all__ = sorted(["ApplyGradientDescent", "ApplyProximalGradientDescent", "ApplyMomentum", "ApplyKerasMomentum",
                  "ApplyAdagrad", "ApplyProximalAdagrad", "ApplyAdadelta", "ApplyAdaMax", "ApplyAddSign",
                  "ApplyPowerSign", "ApplyRMSProp", "ApplyCenteredRMSProp", "ApplyFtrl", "ApplyAdamWithAmsgrad",
                  "Adam", "AdamNoUpdateParam", "AdamWeightDecay"])
