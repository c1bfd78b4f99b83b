"""`Momentum`: heavy-ball / Nesterov momentum, as MindSpore's `nn.Momentum` (`ops.ApplyMomentum`).

Per element, with ``g = grad / loss_scale + weight_decay * p`` (weight decay on the parameters the
base class selects: not 'beta'/'gamma' ones unless grouped)::

    v = momentum * v + g
    p -= lr * v                       (use_nesterov=False)
    p -= lr * (g + momentum * v)      (use_nesterov=True)

This is PyTorch's ``SGD(momentum=..., dampening=0, nesterov=...)`` step for step (PyTorch starts
its buffer at ``g``, which ``v = momentum * 0 + g`` also gives).
State: ``moments.<name>`` (zeros) and the ``momentum`` Parameter.
"""

from __future__ import annotations

from typing import Any

from . import _fused
from .optimizer import Optimizer, opt_init_args_register

__all__ = ["Momentum"]


class Momentum(Optimizer):
    """``Momentum(params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0, use_nesterov=False)``."""

    @opt_init_args_register
    def __init__(self, params: Any, learning_rate: Any, momentum: float, weight_decay: Any = 0.0,
                 loss_scale: float = 1.0, use_nesterov: bool = False) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if isinstance(momentum, bool) or not isinstance(momentum, (int, float)):
            raise TypeError(f"For '{self.cls_name}', 'momentum' must be a float, got {type(momentum).__name__}")
        if momentum < 0.0:
            raise ValueError(f"For '{self.cls_name}', 'momentum' must be at least 0.0, got {momentum}")
        if not isinstance(use_nesterov, bool):
            raise TypeError(f"For '{self.cls_name}', 'use_nesterov' must be a bool, got {type(use_nesterov).__name__}")
        self.use_nesterov = use_nesterov
        self.momentum = self._scalar_state("momentum", float(momentum))
        self.params = self.parameters
        self.moments = self._clone_state("moments", 0.0)

    def construct(self, gradients: tuple) -> Any:
        pdata, gdata = self._prepare(gradients)
        wds = self._decays()
        lrs = self._step_lrs()
        u = float(self.momentum._data)
        kern = self._fused_ok("momentum_update_multi")
        if kern is not None:
            try:
                kern(pdata, gdata, [v._data for v in self.moments], lrs, u, wds, self._grad_scale, self.use_nesterov)
                return self._success()
            except TypeError:
                pass  # a buffer that is not float32/contiguous: the NumPy path below handles it
        for i, (w, g) in enumerate(zip(pdata, gdata)):
            ct = _fused.compute_dtype(w)
            wc = w.astype(ct, copy=False)
            g = g.astype(ct, copy=False) * ct(self._grad_scale)
            if wds[i]:
                g = g + ct(wds[i]) * wc
            v = self.moments[i]._data
            v_new = v.astype(ct) * ct(u) + g
            _fused.write(v, v_new)
            lr = ct(lrs[i if len(lrs) > 1 else 0])
            _fused.write(w, wc - (lr * (g + v_new * ct(u)) if self.use_nesterov else lr * v_new))
        return self._success()
