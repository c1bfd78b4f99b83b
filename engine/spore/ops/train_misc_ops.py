"""More of MindSpore's training primitives as class forms (issue 14): `SGD` (the fused SGD step
with momentum, dampening, weight decay and Nesterov), `ApplyAdagradDA` (Adagrad dual averaging),
`LARSUpdate` (LARS's layer-wise trust ratio) and `BasicLSTMCell` (TensorFlow's LSTM cell step).

Like the other ``Apply*`` class forms (classes_apply_optimizers.py), the update ops write their
state tensors in place (`ops.assign`) and return what MindSpore's return; they are composites of
registered ops, so they compile in Graph mode. The rules, transcribed from MindSpore's
documentation and CPU kernels:

- SGD: ``g' = g + wd * p``; with momentum > 0: ``accum = g'`` where stat > 0 (then stat = 0), else
  ``accum = momentum * accum + (1 - dampening) * g'``; the step is ``g' + momentum * accum``
  (nesterov) or ``accum``; ``p -= lr * step``. Returns the parameters.
- ApplyAdagradDA: ``ga += g; gsq += g^2; tmp = sign(ga) max(|ga| - l1 * step, 0)`` (``ga`` when
  l1 = 0); ``var = -lr * tmp / (l2 * step * lr + sqrt(gsq))``. Returns ``(var,)``.
- LARSUpdate (inputs are the squared norms): ``trust = hyperpara * ||w|| / (||g|| + wd ||w|| + eps)``
  (1 where either norm is 0), ``min(trust / lr, 1)`` with use_clip; returns ``trust * (g + wd * w)``.
- BasicLSTMCell: ``[i, j, f, o] = [x, h] @ w + b``; ``c' = sigmoid(f + forget_bias) c +
  sigmoid(i) act(j)``; ``h' = sigmoid(o) act(c')``; returns (c', h', i, j, f, o, act(c')) with the
  gates after their activations, as MindSpore documents.
- LSTM (the primitive under nn.LSTM): gates in nn.LSTM's i, f, g, o order,
  ``c' = f c + i g``, ``h' = o tanh(c')``; the flat weight `w` holds, for each (layer, direction)
  in order, ``w_ih`` (4H, in) then ``w_hh`` (4H, H) flattened, then (with has_bias) one bias
  ``b_ih + b_hh`` (4H) per (layer, direction) in the same order — for one layer and direction
  exactly what MindSpore's nn.LSTM passes its CPU kernel. No dropout is applied between layers
  (the primitive has no training flag); `reserve` and `state` (MindSpore's kernel workspace) are
  empty tensors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ShapeError
from ..tensor import Tensor
from . import functional as F
from .operation import Operation

__all__ = ["SGD", "ApplyAdagradDA", "LARSUpdate", "BasicLSTMCell", "LSTM"]


def _put(target: Tensor, value: Tensor) -> Tensor:
    return F.assign(target, F.cast(value, target.dtype))


def _sc(x: Any, like: Tensor) -> Tensor:
    return F.cast(x, like.dtype) if isinstance(x, Tensor) else Tensor(np.asarray(x, like.dtype.np))


def _same_shape(op: str, ref: Tensor, **tensors: Any) -> None:
    for name, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}: {name} must be a Tensor, got {type(t).__name__}")
        if tuple(t.shape) != tuple(ref.shape):
            raise ShapeError(op, f"{name} of shape {tuple(ref.shape)}", f"shape {tuple(t.shape)}")


class SGD(Operation):
    """``SGD(dampening=0.0, weight_decay=0.0, nesterov=False)(parameters, gradient, learning_rate,
    accum, momentum, stat)``: one SGD step (see the module docstring); `accum` and `stat` are
    updated in place; returns the parameters."""

    def __init__(self, dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False) -> None:
        if nesterov and dampening != 0.0:
            raise ValueError(f"SGD: nesterov needs dampening 0.0, got {dampening}")
        self.dampening, self.weight_decay, self.nesterov = float(dampening), float(weight_decay), bool(nesterov)

    def construct(self, parameters: Tensor, gradient: Tensor, learning_rate: Any, accum: Tensor, momentum: Any,
                  stat: Tensor) -> Tensor:
        _same_shape("SGD", parameters, gradient=gradient, accum=accum, stat=stat)
        g = gradient
        if self.weight_decay > 0:
            g = F.add(g, F.mul(_sc(self.weight_decay, parameters), parameters))
        mom = _sc(momentum, parameters)
        use_mom = F.greater(mom, 0)  # MindSpore's kernel tests momentum > 0 when it runs
        fresh = F.greater(stat, 0)
        blended = F.add(F.mul(accum, mom), F.mul(_sc(1.0 - self.dampening, parameters), g))
        acc_new = F.select(fresh, F.cast(g, accum.dtype), F.cast(blended, accum.dtype))
        acc = _put(accum, F.select(F.logical_and(use_mom, F.ones_like(fresh)), acc_new, accum))
        _put(stat, F.select(F.logical_and(use_mom, F.ones_like(fresh)), F.zeros_like(stat), stat))
        step = F.add(g, F.mul(acc, mom)) if self.nesterov else F.cast(acc, g.dtype)
        g = F.select(F.logical_and(use_mom, F.ones_like(fresh)), step, g)
        return _put(parameters, F.sub(parameters, F.mul(_sc(learning_rate, parameters), g)))


class ApplyAdagradDA(Operation):
    """``ApplyAdagradDA(use_locking=False)(var, gradient_accumulator, gradient_squared_accumulator,
    grad, lr, l1, l2, global_step)``: the Adagrad dual-averaging step (see the module docstring);
    the accumulators are updated in place; returns ``(var,)``."""

    def __init__(self, use_locking: bool = False) -> None:
        self.use_locking = use_locking

    def construct(self, var: Tensor, gradient_accumulator: Tensor, gradient_squared_accumulator: Tensor,
                  grad: Tensor, lr: Any, l1: Any, l2: Any, global_step: Any) -> tuple[Tensor]:
        _same_shape("ApplyAdagradDA", var, gradient_accumulator=gradient_accumulator,
                    gradient_squared_accumulator=gradient_squared_accumulator, grad=grad)
        ga = _put(gradient_accumulator, F.add(gradient_accumulator, grad))
        gsq = _put(gradient_squared_accumulator, F.add(gradient_squared_accumulator, F.square(grad)))
        lr, l1, l2, step = _sc(lr, var), _sc(l1, var), _sc(l2, var), _sc(global_step, var)
        shrunk = F.mul(F.sign(ga), F.maximum(F.sub(F.abs(ga), F.mul(l1, step)), 0.0))
        tmp = F.select(F.greater(l1, 0), shrunk, ga)
        y = F.add(F.mul(F.mul(l2, step), lr), F.sqrt(gsq))
        return (_put(var, F.div(F.mul(F.neg(lr), tmp), y)),)


class LARSUpdate(Operation):
    """``LARSUpdate(epsilon=1e-05, hyperpara=0.001, use_clip=False)(weight, gradient, norm_weight,
    norm_gradient, weight_decay, learning_rate)``: the LARS-scaled gradient (see the module
    docstring); `norm_weight` / `norm_gradient` are the sums of squares."""

    def __init__(self, epsilon: float = 1e-05, hyperpara: float = 0.001, use_clip: bool = False) -> None:
        for n, v in (("epsilon", epsilon), ("hyperpara", hyperpara)):
            if not isinstance(v, float):
                raise TypeError(f"LARSUpdate: {n} must be a float, got {type(v).__name__}")
        if not isinstance(use_clip, bool):
            raise TypeError(f"LARSUpdate: use_clip must be a bool, got {type(use_clip).__name__}")
        self.epsilon, self.hyperpara, self.use_clip = epsilon, hyperpara, use_clip

    def construct(self, weight: Tensor, gradient: Tensor, norm_weight: Tensor, norm_gradient: Tensor,
                  weight_decay: Any, learning_rate: Any) -> Tensor:
        _same_shape("LARSUpdate", weight, gradient=gradient)
        for n, t in (("norm_weight", norm_weight), ("norm_gradient", norm_gradient)):
            if not isinstance(t, Tensor):
                raise TypeError(f"LARSUpdate: {n} must be a Tensor, got {type(t).__name__}")
        wd, lr = _sc(weight_decay, weight), _sc(learning_rate, weight)
        wn, gn = F.sqrt(F.cast(norm_weight, weight.dtype)), F.sqrt(F.cast(norm_gradient, weight.dtype))
        trust = F.div(F.mul(_sc(self.hyperpara, weight), wn), F.add(F.add(gn, F.mul(wd, wn)), self.epsilon))
        ok = F.logical_and(F.greater(wn, 0), F.greater(gn, 0))
        trust = F.select(ok, trust, F.ones_like(trust))
        if self.use_clip:
            trust = F.minimum(F.div(trust, lr), 1.0)
        return F.mul(F.add(gradient, F.mul(wd, weight)), trust)


class BasicLSTMCell(Operation):
    """``BasicLSTMCell(keep_prob=1.0, forget_bias=1.0, state_is_tuple=True, activation='tanh')
    (x, h, c, w, b)``: one LSTM step with x (batch, input), h/c (batch, hidden), w (input + hidden,
    4 hidden), b (4 hidden), gates in TensorFlow's i, j, f, o order (see the module docstring).
    Spore's cell does no dropout: keep_prob must be 1.0."""

    def __init__(self, keep_prob: float = 1.0, forget_bias: float = 1.0, state_is_tuple: bool = True,
                 activation: str = "tanh") -> None:
        if keep_prob != 1.0:
            raise ValueError(f"BasicLSTMCell: keep_prob must be 1.0 (no dropout inside the cell), got {keep_prob}")
        if activation != "tanh":
            raise ValueError(f"BasicLSTMCell: activation must be 'tanh', got {activation!r}")
        if state_is_tuple is not True:
            raise ValueError("BasicLSTMCell: state_is_tuple must be True")
        self.keep_prob, self.forget_bias = keep_prob, float(forget_bias)
        self.state_is_tuple, self.activation = state_is_tuple, activation

    def construct(self, x: Tensor, h: Tensor, c: Tensor, w: Tensor, b: Tensor) -> tuple:
        op = "BasicLSTMCell"
        for n, t in (("x", x), ("h", h), ("c", c), ("w", w), ("b", b)):
            if not isinstance(t, Tensor):
                raise TypeError(f"{op}: {n} must be a Tensor, got {type(t).__name__}")
        if x.ndim != 2 or h.ndim != 2 or tuple(c.shape) != tuple(h.shape) or h.shape[0] != x.shape[0]:
            raise ShapeError(op, "x (batch, input), h and c (batch, hidden)",
                             f"{tuple(x.shape)}, {tuple(h.shape)}, {tuple(c.shape)}")
        hid = h.shape[1]
        if tuple(w.shape) != (x.shape[1] + hid, 4 * hid) or tuple(b.shape) != (4 * hid,):
            raise ShapeError(op, f"w of shape {(x.shape[1] + hid, 4 * hid)} and b of shape {(4 * hid,)}",
                             f"{tuple(w.shape)}, {tuple(b.shape)}")
        gates = F.add(F.matmul(F.concat((x, h), 1), w), b)
        i, j, f, o = (gates[:, k * hid:(k + 1) * hid] for k in range(4))
        it, jt, ft, ot = F.sigmoid(i), F.tanh(j), F.sigmoid(F.add(f, self.forget_bias)), F.sigmoid(o)
        ct = F.add(F.mul(ft, c), F.mul(it, jt))
        tanhct = F.tanh(ct)
        return ct, F.mul(ot, tanhct), it, jt, ft, ot, tanhct


class LSTM(Operation):
    """``LSTM(input_size, hidden_size, num_layers, has_bias, bidirectional, dropout, proj_size=0)
    (input, h, c, w)``: a stacked (bidirectional) LSTM over input (seq, batch, input_size) from
    h, c (num_layers * num_directions, batch, hidden); returns (output (seq, batch, D * hidden),
    h_n, c_n, reserve, state). See the module docstring for the layout of `w`."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int, has_bias: bool, bidirectional: bool,
                 dropout: float, proj_size: int = 0) -> None:
        for n, v in (("input_size", input_size), ("hidden_size", hidden_size), ("num_layers", num_layers)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"LSTM: {n} must be a positive int, got {v!r}")
        if proj_size != 0:
            raise ValueError(f"LSTM: proj_size must be 0 (Spore's LSTM has no output projection), got {proj_size}")
        if not 0.0 <= float(dropout) <= 1.0:
            raise ValueError(f"LSTM: dropout must be in [0, 1], got {dropout}")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.has_bias, self.bidirectional, self.dropout, self.proj_size = bool(has_bias), bool(bidirectional), \
            float(dropout), proj_size

    def weight_size(self) -> int:
        """How many elements `w` holds."""
        d, g, h = 2 if self.bidirectional else 1, 4 * self.hidden_size, self.hidden_size
        n = 0
        for layer in range(self.num_layers):
            fan_in = self.input_size if layer == 0 else h * d
            n += d * (g * fan_in + g * h + (g if self.has_bias else 0))
        return n

    def construct(self, input: Tensor, h: Tensor, c: Tensor, w: Tensor) -> tuple:
        op = "LSTM"
        d, hid, g = 2 if self.bidirectional else 1, self.hidden_size, 4 * self.hidden_size
        if not isinstance(input, Tensor) or input.ndim != 3 or input.shape[2] != self.input_size:
            raise ShapeError(op, f"input (seq, batch, {self.input_size})", f"{getattr(input, 'shape', None)}")
        seq, batch = input.shape[0], input.shape[1]
        want = (self.num_layers * d, batch, hid)
        for n, t in (("h", h), ("c", c)):
            if not isinstance(t, Tensor) or tuple(t.shape) != want:
                raise ShapeError(op, f"{n} of shape {want}", f"{getattr(t, 'shape', None)}")
        if not isinstance(w, Tensor) or w.size != self.weight_size():
            raise ShapeError(op, f"w of {self.weight_size()} elements", f"{getattr(w, 'size', None)}")
        flat = F.reshape(w, (-1,))
        at = 0
        mats = []
        for layer in range(self.num_layers):
            fan_in = self.input_size if layer == 0 else hid * d
            for _ in range(d):
                w_ih = F.reshape(flat[at:at + g * fan_in], (g, fan_in))
                at += g * fan_in
                w_hh = F.reshape(flat[at:at + g * hid], (g, hid))
                at += g * hid
                mats.append([w_ih, w_hh, None])
        if self.has_bias:
            for m in mats:
                m[2] = flat[at:at + g]
                at += g
        x = input
        hs, cs = [], []
        for layer in range(self.num_layers):
            outs = []
            for k in range(d):
                idx = layer * d + k
                w_ih, w_hh, b = mats[idx]
                ht, ct = h[idx], c[idx]
                steps = range(seq - 1, -1, -1) if k == 1 else range(seq)
                ys = [None] * seq
                for t in steps:
                    z = F.add(F.matmul(x[t], F.transpose(w_ih, (1, 0))), F.matmul(ht, F.transpose(w_hh, (1, 0))))
                    if b is not None:
                        z = F.add(z, b)
                    i_, f_, g_, o_ = (z[:, j * hid:(j + 1) * hid] for j in range(4))
                    ct = F.add(F.mul(F.sigmoid(f_), ct), F.mul(F.sigmoid(i_), F.tanh(g_)))
                    ht = F.mul(F.sigmoid(o_), F.tanh(ct))
                    ys[t] = ht
                outs.append(F.stack(ys, 0))
                hs.append(ht)
                cs.append(ct)
            x = outs[0] if d == 1 else F.concat(outs, 2)
        empty = Tensor(np.zeros((0,), input.dtype.np))
        return x, F.stack(hs, 0), F.stack(cs, 0), empty, empty
