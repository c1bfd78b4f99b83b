"""`SGD`: stochastic gradient descent with optional (Nesterov) momentum, as MindSpore's `nn.SGD`.

MindSpore runs `ops.SGD`, whose update per element is::

    g = grad / loss_scale + weight_decay * p          # weight decay: not on 'beta'/'gamma' (see below)
    if momentum > 0:
        accum = g                       on the element's first step (stat > 0; stat is then cleared)
        accum = momentum * accum + (1 - dampening) * g     afterwards
        g = g + momentum * accum        with nesterov, else g = accum
    p -= lr * g

This is also PyTorch's `torch.optim.SGD` update, dampening included (PyTorch likewise starts the
buffer at the raw gradient, uses the same Nesterov form and adds weight decay to the gradient).

Weight decay follows the base class's default filter: without groups it skips parameters whose
names contain 'beta' or 'gamma' (BatchNorm/LayerNorm shifts and scales), which is what MindSpore
2.10's nn.SGD does when measured (its kernel gets a zero decay for those); with groups each group
uses its own value for all its parameters.
Dynamic weight decay is not supported (as in MindSpore). State: ``accum.<name>`` (zeros) and
``stat.<name>`` (ones), plus the ``momentum`` Parameter.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _fused
from .optimizer import Optimizer, opt_init_args_register

__all__ = ["SGD"]


def _nonneg_float(value: Any, name: str, cls: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{cls}', '{name}' must be a float, got {type(value).__name__}")
    value = float(value)
    if value < 0:
        raise ValueError(f"For '{cls}', '{name}' must be at least 0.0, got {value}")
    return value


class SGD(Optimizer):
    """``SGD(params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
    loss_scale=1.0)``; see the module docstring for the exact update."""

    @opt_init_args_register
    def __init__(self, params: Any, learning_rate: Any = 0.1, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: Any = 0.0, nesterov: bool = False, loss_scale: float = 1.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        momentum = _nonneg_float(momentum, "momentum", self.cls_name)
        self.dampening = _nonneg_float(dampening, "dampening", self.cls_name)
        if not isinstance(nesterov, bool):
            raise TypeError(f"For '{self.cls_name}', 'nesterov' must be a bool, got {type(nesterov).__name__}")
        if nesterov and (momentum <= 0.0 or self.dampening != 0.0):
            raise ValueError(f"For '{self.cls_name}', nesterov needs momentum > 0 and dampening == 0, got "
                             f"momentum={momentum}, dampening={self.dampening}")
        if self.dynamic_weight_decay:
            raise TypeError(f"For '{self.cls_name}', dynamic weight decay is not supported (as in MindSpore); "
                            "give weight_decay as a float")
        self.nesterov = nesterov
        self.momentum = self._scalar_state("momentum", momentum)
        self.accum = self._clone_state("accum", 0.0)
        self.stat = self._clone_state("stat", 1.0)
        self._sgd_wd = list(self._wd_static)  # per parameter; 0.0 where the beta/gamma filter says no

    def construct(self, gradients: tuple) -> Any:
        pdata, gdata = self._prepare(gradients)
        lrs = self._step_lrs()
        u = float(self.momentum._data)
        kern = self._fused_ok("sgd_update_multi")
        if kern is not None:
            try:
                kern(pdata, gdata, [a._data for a in self.accum], [s._data for s in self.stat], lrs, u,
                     self.dampening, self._sgd_wd, self._grad_scale, self.nesterov)
                return self._success()
            except TypeError:
                pass  # a buffer that is not float32/contiguous: the NumPy path below handles it
        self._numpy_step(pdata, gdata, lrs, u)
        return self._success()

    def _numpy_step(self, pdata: list, gdata: list, lrs: list[float], u: float) -> None:
        for i, (w, g) in enumerate(zip(pdata, gdata)):
            ct = _fused.compute_dtype(w)
            wc = w.astype(ct, copy=False)
            g = g.astype(ct, copy=False) * ct(self._grad_scale)
            wd = self._sgd_wd[i]
            if wd > 0:
                g = g + ct(wd) * wc
            if u > 0:
                acc, stat = self.accum[i]._data, self.stat[i]._data
                first = stat > 0
                acc_new = np.where(first, g, acc.astype(ct) * ct(u) + (ct(1) - ct(self.dampening)) * g)
                _fused.write(acc, acc_new)
                stat[first] = 0
                g = g + acc_new * ct(u) if self.nesterov else acc_new
            _fused.write(w, wc - ct(lrs[i if len(lrs) > 1 else 0]) * g)
